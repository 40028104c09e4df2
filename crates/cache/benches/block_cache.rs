//! Criterion benchmark of one lookup (hit) and a Zipf 0.99 stream (about 90% hits) for
//! myriad's block cache and the baselines of `support` (single-thread; the thread sweep is
//! the `block_cache_sweep` example).

mod support;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Duration;
use support::*;

const CAPACITY: usize = 16384;

fn lookups(c: &mut Criterion) {
    let zipf = Zipf::new(CAPACITY * 2, 0.99);
    let mut group = c.benchmark_group("block_cache");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for stream in [Stream::AllHits, Stream::Zipf90] {
        let keys = stream.keys(CAPACITY, 1 << 16, 0, &zipf);
        group.throughput(Throughput::Elements(keys.len() as u64));
        for cache in all_caches(CAPACITY) {
            for &k in &keys {
                cache.access(k);
            }
            group.bench_function(BenchmarkId::new(cache.name(), stream.name()), |b| {
                b.iter(|| {
                    let mut hits = 0u64;
                    for &k in &keys {
                        hits += cache.access(k) as u64;
                    }
                    hits
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, lookups);
criterion_main!(benches);
