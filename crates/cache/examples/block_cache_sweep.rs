//! Thread sweep of block-cache lookups: lookups per second at 1..64 threads for myriad's
//! block cache, a single-mutex LRU, a 64-way sharded mutex LRU (MariaDB's key cache with
//! key_cache_segments=64), quick_cache and moka, on the same key streams in one run; then
//! each cache's hit ratio on each stream (single-threaded, after a warm-up pass).
//!
//! `cargo run -p myriad-cache --example block_cache_sweep -- [--millis 300]
//!  [--threads 1,2,4,8,16,64] [--capacity 16384] [--rounds 3] [--caches myriad,quick_cache]
//!  [--streams zipf0.99]` (`--caches` and `--streams` pick by name; default all)
//!
//! Each cell is the median of `--rounds` measurements taken in interleaved rounds (the
//! caches in a rotating order), so that load from other processes on a shared machine
//! falls on every cache alike.
//!
//! On a machine with fewer cores than threads, the higher thread counts measure behaviour
//! under contention and preemption (a lock holder descheduled), not parallel speed-up.

#[path = "../benches/support/mod.rs"]
mod support;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use support::*;

const STREAM_LEN: usize = 1 << 18;
const DISTINCT_STREAMS: usize = 16;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn throughput(cache: &dyn BenchCache, streams: &[Vec<u64>], threads: usize, run: Duration) -> f64 {
    for &k in &streams[0] {
        cache.access(k);
    }
    let stop = AtomicBool::new(false);
    let ops = AtomicU64::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            let (stop, ops, keys) = (&stop, &ops, &streams[t % streams.len()]);
            s.spawn(move || {
                let mut done = 0u64;
                let mut i = (t * 7919) % keys.len();
                'run: loop {
                    for _ in 0..1024 {
                        std::hint::black_box(cache.access(keys[i]));
                        i += 1;
                        if i == keys.len() {
                            i = 0;
                        }
                    }
                    done += 1024;
                    if stop.load(Ordering::Relaxed) {
                        break 'run;
                    }
                }
                ops.fetch_add(done, Ordering::Relaxed);
            });
        }
        std::thread::sleep(run);
        stop.store(true, Ordering::Relaxed);
    });
    ops.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

fn hit_ratio(cache: &dyn BenchCache, streams: &[Vec<u64>]) -> f64 {
    for &k in &streams[0] {
        cache.access(k);
    }
    let hits = streams[1].iter().filter(|&&k| cache.access(k)).count();
    hits as f64 / streams[1].len() as f64
}

fn main() {
    let millis: u64 = arg("--millis").and_then(|s| s.parse().ok()).unwrap_or(300);
    let capacity: usize = arg("--capacity")
        .and_then(|s| s.parse().ok())
        .unwrap_or(16384);
    let threads: Vec<usize> = arg("--threads")
        .unwrap_or_else(|| "1,2,4,8,16,64".into())
        .split(',')
        .filter_map(|s| s.parse().ok())
        .collect();
    let rounds: usize = arg("--rounds")
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
        .max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "block cache sweep: capacity {capacity} blocks, {millis} ms per point, median of {rounds} interleaved rounds, {cores} cores, load average at start {}",
        loadavg()
    );
    if threads.iter().any(|&t| t > cores) {
        println!("note: thread counts above {cores} measure contention, not parallel speed");
    }
    let zipf = Zipf::new(capacity * 2, 0.99);
    let picked =
        |list: Option<String>, name: &str| list.is_none_or(|l| l.split(',').any(|n| n == name));
    let caches_arg = arg("--caches");
    let chosen = |capacity| -> Vec<Box<dyn BenchCache>> {
        all_caches(capacity)
            .into_iter()
            .filter(|c| picked(caches_arg.clone(), c.name()))
            .collect()
    };
    let names: Vec<&str> = chosen(64).iter().map(|c| c.name()).collect();
    let mut ratios = Vec::new();
    for stream in [Stream::AllHits, Stream::Zipf90, Stream::ScanPolluted] {
        if !picked(arg("--streams"), stream.name()) {
            continue;
        }
        let streams: Vec<Vec<u64>> = (0..DISTINCT_STREAMS as u64)
            .map(|t| stream.keys(capacity, STREAM_LEN, t, &zipf))
            .collect();
        println!("\n== {} : million lookups per second ==", stream.name());
        print!("{:>8}", "threads");
        for n in &names {
            print!("{n:>15}");
        }
        println!();
        for &t in &threads {
            print!("{t:>8}");
            // Rounds interleave the caches (in a rotating order), so a burst of load from
            // other processes hits each cache alike; each cell is the median of its rounds.
            let mut samples: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
            for round in 0..rounds {
                for k in 0..names.len() {
                    let which = (k + round) % names.len();
                    let cache = chosen(capacity).swap_remove(which);
                    let r = throughput(cache.as_ref(), &streams, t, Duration::from_millis(millis));
                    samples[which].push(r);
                }
            }
            for mut cell in samples {
                cell.sort_by(f64::total_cmp);
                print!("{:>15.2}", cell[cell.len() / 2] / 1e6);
            }
            println!();
        }
        let row: Vec<f64> = chosen(capacity)
            .iter()
            .map(|c| hit_ratio(c.as_ref(), &streams))
            .collect();
        ratios.push((stream.name(), row));
    }
    println!("\n== hit ratio (single thread, second pass) ==");
    print!("{:>10}", "stream");
    for n in &names {
        print!("{n:>15}");
    }
    println!();
    for (name, row) in ratios {
        print!("{name:>10}");
        for r in row {
            print!("{:>15.4}", r);
        }
        println!();
    }
    println!("\nload average at end {}", loadavg());
}
