//! Criterion benchmark of the table cache at 1 thread: an open that hits (an idle handle of
//! 1,000 tables, table_open_cache 2,000) and an open that misses (a cycle over 10,000 tables
//! with table_open_cache 64 and table_definition_cache 400, so that every open closes a
//! handle and retires a definition), each with 1 and 16 instances.
//!
//! A hit costs about 50 ns here, and which cache got the better heap layout moves that by
//! up to 10 % either way (built one after the other, the second was the slower, whatever its
//! instance count), so the two are built key by key in turn; differences of a few per cent
//! between instance counts are layout, not instances (a connection uses one instance: the
//! same code runs). Counted exactly under callgrind, a whole statement's instructions differ
//! by at most 0.1 % between 1 and 16 instances.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use myriad_cache::{Definition, TableCache, TableCacheConfig};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

/// A definition as small as the engine's smallest: what the cache itself costs shows.
struct Def;

impl Definition for Def {
    fn footprint(&self) -> usize {
        256
    }
}

fn cache(open: usize, definitions: usize, instances: usize) -> Arc<TableCache<String, Def>> {
    TableCache::new(TableCacheConfig {
        table_open_cache: open,
        table_open_cache_instances: instances,
        table_definition_cache: definitions,
        table_definition_cache_size: 64 << 20,
    })
}

/// One connection's instance hint: a session keeps its instance.
const HINT: usize = 7;

/// Opens (and closes) each key once through instance `hint`; returns how many opened.
fn open_each(cache: &Arc<TableCache<String, Def>>, hint: usize, keys: &[String]) -> usize {
    let mut opened = 0;
    for key in keys {
        let handle = cache
            .acquire(hint, key.as_str(), Duration::from_secs(1), || {
                Ok::<_, Infallible>(Def)
            })
            .expect("no DDL runs");
        opened += usize::from(std::hint::black_box(&handle).footprint() > 0);
    }
    opened
}

fn opens(c: &mut Criterion) {
    let mut group = c.benchmark_group("table_cache");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let cases = [("hit", 1_000, 2_000, 400), ("miss", 10_000, 64, 400)];
    for (name, tables, open, definitions) in cases {
        let keys: Vec<String> = (0..tables).map(|i| format!("d\0t{i}")).collect();
        group.throughput(Throughput::Elements(keys.len() as u64));
        // Filled key by key in turn: neither gets the better heap layout by coming first.
        let caches: Vec<(usize, Arc<TableCache<String, Def>>)> = [1, 16]
            .into_iter()
            .map(|instances| (instances, cache(open, definitions, instances)))
            .collect();
        for key in keys.chunks(1) {
            for (_, cache) in &caches {
                open_each(cache, HINT, key);
            }
        }
        for (instances, cache) in &caches {
            group.bench_function(
                BenchmarkId::new(name, format!("instances={instances}")),
                |b| b.iter(|| open_each(cache, HINT, &keys)),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, opens);
criterion_main!(benches);
