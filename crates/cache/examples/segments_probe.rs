//! What key cache segments cost a hit: two threads get random cached blocks of a 32,768-block
//! cache made with `key_cache_segments` 0, 64 and 8, three rounds, nanoseconds per get.
//! Absolute times swing with the machine's neighbours; compare the segment counts within
//! one run: `cargo run --release -p myriad-cache --example segments_probe`.

#[path = "../benches/support/mod.rs"]
mod support;

use myriad_cache::KeyCache;
use std::sync::Arc;
use std::time::Instant;
use support::{NullIo, XorShift};

fn main() {
    let blocks: u64 = 32768;
    let bs = 256usize;
    for round in 0..3 {
        for segs in [0u64, 64, 8] {
            let cache = Arc::new(KeyCache::new(
                blocks as usize * bs,
                bs,
                segs,
                Arc::new(NullIo),
            ));
            for b in 0..blocks {
                drop(cache.get(1 + b % 7, b).unwrap());
            }
            let n = 4_000_000u64;
            let start = Instant::now();
            let hs: Vec<_> = (0..2)
                .map(|t| {
                    let c = Arc::clone(&cache);
                    std::thread::spawn(move || {
                        let mut rng = XorShift(0x9E37_79B9 + t);
                        let mut sum = 0u64;
                        for _ in 0..n {
                            let b = rng.next() % blocks;
                            let blk = c.get(1 + b % 7, b).unwrap();
                            sum += blk.read()[0] as u64;
                        }
                        sum
                    })
                })
                .collect();
            let s: u64 = hs.into_iter().map(|h| h.join().unwrap()).sum();
            let ns = start.elapsed().as_nanos() as f64 / n as f64;
            println!("round {round} segments {segs}: {ns:.1} ns per get per thread (sum {s})");
        }
    }
}
