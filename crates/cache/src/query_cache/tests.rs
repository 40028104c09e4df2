// Under `--features shuttle` only the schedule exploration runs (its primitives need
// shuttle's runtime); the rest runs in the normal build.
#![cfg_attr(feature = "shuttle", allow(dead_code, unused_imports))]

use super::*;
use proptest::prelude::*;
use std::collections::HashMap as Model;

const MB: usize = 1 << 20;

/// Look a key up until the sketch admits it (second sighting), returning the ticket.
fn admitted_miss<V>(cache: &QueryCache<V>, key: &[u8]) -> Ticket {
    for _ in 0..ADMIT_TRIES {
        if let Lookup::Miss(Some(ticket)) = cache.lookup(key, 1) {
            return ticket;
        }
    }
    panic!("a key looked up {ADMIT_TRIES} times is admitted");
}
const ADMIT_TRIES: usize = 4;

#[cfg(not(feature = "shuttle"))]
#[test]
fn a_result_is_served_until_a_table_it_read_changes() {
    let cache: QueryCache<String> = QueryCache::with_manual_clock(MB, MB);
    let versions = TableVersions::new();
    let t = versions.cell("d", "t");
    let u = versions.cell("d", "u");
    assert!(
        matches!(cache.lookup(b"q", 1), Lookup::Miss(None)),
        "first sighting is not admitted"
    );
    let ticket = admitted_miss(&cache, b"q");
    assert!(cache.insert(ticket, b"q", vec![t.snapshot()], Arc::new("r".into()), 1));
    match cache.lookup(b"q", 1) {
        Lookup::Hit(v) => assert_eq!(*v, "r"),
        _ => panic!("hit expected"),
    }
    u.bump();
    assert!(
        matches!(cache.lookup(b"q", 1), Lookup::Hit(_)),
        "another table's write is no concern"
    );
    t.bump();
    assert!(
        matches!(cache.lookup(b"q", 1), Lookup::Miss(_)),
        "a write to t makes it stale"
    );
    let stats = cache.stats();
    assert_eq!(stats.invalidations, 1);
    assert_eq!(stats.queries_in_cache, 0);
    cache.validate();
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn a_result_computed_across_a_write_is_not_inserted() {
    let cache: QueryCache<u32> = QueryCache::with_manual_clock(MB, MB);
    let versions = TableVersions::new();
    let t = versions.cell("d", "t");
    let ticket = admitted_miss(&cache, b"q");
    let deps = vec![t.snapshot()];
    let _writer = WriteGuard::new(vec![t.clone()]);
    assert!(!cache.insert(ticket, b"q", deps, Arc::new(1), 4));
    assert_eq!(cache.stats().insert_races, 1);
    assert_eq!(cache.stats().queries_in_cache, 0);
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn a_busy_shard_is_a_miss_without_waiting() {
    let cache: Arc<QueryCache<u32>> = Arc::new(QueryCache::with_manual_clock(MB, MB));
    let ticket = admitted_miss(&cache, b"q");
    assert!(cache.insert(ticket, b"q", vec![], Arc::new(7), 4));
    let hash = hash_bytes(b"q");
    let _held = cache.shard_of(hash).lock();
    let other = Arc::clone(&cache);
    let started = std::time::Instant::now();
    let result = std::thread::spawn(move || matches!(other.lookup(b"q", 1), Lookup::Miss(_)))
        .join()
        .unwrap();
    assert!(result, "a lookup on a locked shard misses");
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    drop(_held);
    assert_eq!(cache.stats().busy_misses, 1);
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn results_over_the_limit_are_refused() {
    let cache: QueryCache<Vec<u8>> = QueryCache::with_manual_clock(MB, 1000);
    let ticket = admitted_miss(&cache, b"big");
    assert!(!cache.insert(ticket, b"big", vec![], Arc::new(vec![0; 2000]), 2000));
    let ticket = admitted_miss(&cache, b"small");
    assert!(cache.insert(ticket, b"small", vec![], Arc::new(vec![0; 500]), 500));
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn memory_stays_within_the_budget_and_evicts_with_clock() {
    let capacity = 64 * 1024;
    let cache: QueryCache<Vec<u8>> = QueryCache::with_manual_clock(capacity, capacity);
    for n in 0..5000u32 {
        let key = format!("select {n}");
        if let Lookup::Miss(Some(ticket)) = cache.lookup(key.as_bytes(), 1) {
            cache.insert(ticket, key.as_bytes(), vec![], Arc::new(vec![0; 300]), 300);
        }
        let _ = cache.lookup(key.as_bytes(), 1);
        if let Lookup::Miss(Some(ticket)) = cache.lookup(key.as_bytes(), 1) {
            cache.insert(ticket, key.as_bytes(), vec![], Arc::new(vec![0; 300]), 300);
        }
        assert!(cache.stats().used_bytes as usize <= capacity);
    }
    let stats = cache.stats();
    assert!(stats.lowmem_prunes > 0, "a full cache evicted: {stats:?}");
    assert!(stats.queries_in_cache > 0);
    cache.validate();
    cache.set_capacity(capacity / 4);
    cache.validate();
    assert!(cache.stats().used_bytes as usize <= capacity / 4);
    cache.set_capacity(0);
    assert!(!cache.is_enabled());
    assert_eq!(cache.stats().queries_in_cache, 0);
    assert!(matches!(cache.lookup(b"select 1", 1), Lookup::Bypass));
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn a_low_hit_ratio_steps_the_whole_cache_aside_and_it_comes_back() {
    let cache: QueryCache<u32> = QueryCache::with_manual_clock(MB, MB);
    for n in 0..admission::CACHE_VERDICT_LOOKUPS {
        // Distinct templates, so only the whole-cache verdict can close.
        let _ = cache.lookup(format!("q{n}").as_bytes(), n * 7 + 100_000);
    }
    assert_eq!(cache.stats().step_asides, 1);
    assert_eq!(cache.stats().stepped_aside, 1);
    assert!(matches!(cache.lookup(b"q", 3), Lookup::Bypass));
    cache.advance_clock_ms(admission::BYPASS_BASE_MS);
    assert!(
        !matches!(cache.lookup(b"q", 3), Lookup::Bypass),
        "probed again"
    );
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn a_cold_template_is_bypassed_while_a_hot_one_is_served() {
    let cache: QueryCache<u32> = QueryCache::with_manual_clock(MB, MB);
    let ticket = admitted_miss(&cache, b"hot");
    assert!(cache.insert(ticket, b"hot", vec![], Arc::new(1), 4));
    for n in 0..admission::TEMPLATE_VERDICT_LOOKUPS {
        let _ = cache.lookup(format!("cold {n}").as_bytes(), 2);
        let _ = cache.lookup(b"hot", 1);
        let _ = cache.lookup(b"hot", 1);
    }
    assert!(matches!(cache.lookup(b"cold 0", 2), Lookup::Bypass));
    assert!(matches!(cache.lookup(b"hot", 1), Lookup::Hit(_)));
    assert_eq!(cache.stats().bypassed_templates, 1);
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn reset_empties_and_flush_drops_stale_entries() {
    let cache: QueryCache<u32> = QueryCache::with_manual_clock(MB, MB);
    let versions = TableVersions::new();
    let t = versions.cell("d", "t");
    for key in [&b"a"[..], b"b"] {
        let ticket = admitted_miss(&cache, key);
        assert!(cache.insert(ticket, key, vec![t.snapshot()], Arc::new(1), 4));
    }
    let ticket = admitted_miss(&cache, b"c");
    assert!(cache.insert(ticket, b"c", vec![], Arc::new(1), 4));
    t.bump();
    cache.flush();
    assert_eq!(cache.stats().queries_in_cache, 1);
    cache.validate();
    cache.reset();
    assert_eq!(cache.stats().queries_in_cache, 0);
    assert_eq!(cache.stats().used_bytes, 0);
    cache.validate();
}

#[derive(Debug, Clone)]
enum Op {
    /// Look key k up; on an admitted miss insert the model's current answer.
    Query(u8),
    /// A write to table t (bumps its version).
    Write(u8),
    /// A write that spans a lookup+insert of key k (the insert must be dropped).
    RacingWrite(u8, u8),
    Resize(u16),
    Flush,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..24).prop_map(Op::Query),
        2 => (0u8..4).prop_map(Op::Write),
        1 => ((0u8..24), (0u8..4)).prop_map(|(k, t)| Op::RacingWrite(k, t)),
        1 => (0u16..64).prop_map(Op::Resize),
        1 => Just(Op::Flush),
    ]
}

/// Key k reads tables k % 4 and (k / 4) % 4; its answer is the pair of their contents.
fn tables_of(k: u8) -> [usize; 2] {
    [(k % 4) as usize, ((k / 4) % 4) as usize]
}

#[cfg(not(feature = "shuttle"))]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Against a reference model (the tables' contents as plain numbers): every hit equals
    /// the answer computed now, whatever the interleaving of writes, resizes and flushes;
    /// the charges recompute and the budget holds after every step.
    #[test]
    fn hits_always_equal_the_current_answer(ops in proptest::collection::vec(op(), 1..300)) {
        let cache: QueryCache<(u64, u64)> = QueryCache::with_manual_clock(16 * 1024, 4096);
        let versions = TableVersions::new();
        let cells: Vec<VersionCell> = (0..4).map(|t| versions.cell("d", &format!("t{t}"))).collect();
        let mut contents = [0u64; 4];
        let mut hits = Model::new();
        for op in ops {
            match op {
                Op::Query(k) => {
                    let key = format!("select {k}");
                    let [a, b] = tables_of(k);
                    let answer = (contents[a], contents[b]);
                    match cache.lookup(key.as_bytes(), u64::from(k)) {
                        Lookup::Hit(v) => {
                            prop_assert_eq!(*v, answer, "a hit equals the current answer");
                            *hits.entry(k).or_insert(0) += 1;
                        }
                        Lookup::Miss(Some(ticket)) => {
                            let deps = vec![cells[a].snapshot(), cells[b].snapshot(), versions.everything().snapshot()];
                            cache.insert(ticket, key.as_bytes(), deps, Arc::new(answer), 16);
                        }
                        _ => {}
                    }
                }
                Op::Write(t) => {
                    let _guard = WriteGuard::new(vec![cells[t as usize].clone()]);
                    contents[t as usize] += 1;
                }
                Op::RacingWrite(k, t) => {
                    let key = format!("select {k}");
                    let [a, b] = tables_of(k);
                    if let Lookup::Miss(Some(ticket)) = cache.lookup(key.as_bytes(), u64::from(k)) {
                        let deps = vec![cells[a].snapshot(), cells[b].snapshot()];
                        let answer = (contents[a], contents[b]);
                        let guard = WriteGuard::new(vec![cells[t as usize].clone()]);
                        contents[t as usize] += 1;
                        drop(guard);
                        let stored = cache.insert(ticket, key.as_bytes(), deps, Arc::new(answer), 16);
                        if t as usize == a || t as usize == b {
                            prop_assert!(!stored, "a result computed across a write is dropped");
                        }
                    }
                }
                Op::Resize(kib) => cache.set_capacity(usize::from(kib) * 1024),
                Op::Flush => cache.flush(),
            }
            cache.validate();
        }
    }
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn concurrent_readers_and_writers_never_see_a_stale_hit() {
    // Eight threads: writers bump a table and its content; readers check each hit against
    // the content's floor taken before the lookup (a hit older than that is stale).
    let cache: Arc<QueryCache<u64>> = Arc::new(QueryCache::new(MB, MB));
    let versions = Arc::new(TableVersions::new());
    let content = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for _ in 0..2 {
        let (versions, content, stop) = (
            Arc::clone(&versions),
            Arc::clone(&content),
            Arc::clone(&stop),
        );
        threads.push(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _guard = WriteGuard::new(vec![versions.cell("d", "t")]);
                content.fetch_add(1, Ordering::SeqCst);
                drop(_guard);
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        }));
    }
    let mut readers = Vec::new();
    for r in 0..6u64 {
        let (cache, versions, content) = (
            Arc::clone(&cache),
            Arc::clone(&versions),
            Arc::clone(&content),
        );
        readers.push(std::thread::spawn(move || {
            let mut hits = 0;
            for n in 0..20_000u64 {
                let key = format!("select {}", (n + r) % 8);
                let floor = content.load(Ordering::SeqCst);
                match cache.lookup(key.as_bytes(), 1) {
                    Lookup::Hit(v) => {
                        assert!(*v >= floor, "stale hit: {} < {floor}", *v);
                        hits += 1;
                    }
                    Lookup::Miss(Some(ticket)) => {
                        let deps = vec![versions.cell("d", "t").snapshot()];
                        let value = content.load(Ordering::SeqCst);
                        cache.insert(ticket, key.as_bytes(), deps, Arc::new(value), 8);
                    }
                    _ => {}
                }
            }
            hits
        }));
    }
    let hits: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    assert!(hits > 0, "the cache served hits");
    cache.validate();
}

// ---- schedule exploration (shuttle) ----

/// `cargo test -p myriad-cache --features shuttle --lib schedules`: the cache's locks and
/// atomics (shards, sketch, verdicts, table versions) are shuttle's here, so every lock and
/// atomic operation is a point where the explorer may switch threads. Two readers repeat
/// one statement over table `t` (lookup; on an admitted miss: snapshot the version, read the
/// table, insert) while a writer changes the table twice (version bump, change, bump) and
/// a fourth thread flushes, shrinks and regrows the cache. Every hit must be at least as new
/// as the table's content read before its lookup; after the writer, the next answer is the
/// last value; the charges recompute.
#[cfg(feature = "shuttle")]
mod schedules {
    use super::*;
    use shuttle::sync::atomic::AtomicU64 as ShuttleU64;

    const KEY: &[u8] = b"SELECT v FROM t";

    fn reader(
        cache: Arc<QueryCache<u64>>,
        cell: VersionCell,
        table: Arc<ShuttleU64>,
        hits: Arc<ShuttleU64>,
    ) -> impl FnOnce() {
        move || {
            for _ in 0..4 {
                let floor = table.load(Ordering::SeqCst);
                match cache.lookup(KEY, 7) {
                    Lookup::Hit(v) => {
                        assert!(*v >= floor, "stale hit: {} older than {floor}", *v);
                        hits.fetch_add(1, Ordering::SeqCst);
                    }
                    Lookup::Miss(Some(ticket)) => {
                        let dep = cell.snapshot();
                        let value = table.load(Ordering::SeqCst);
                        cache.insert(ticket, KEY, vec![dep], Arc::new(value), 8);
                    }
                    Lookup::Miss(None) | Lookup::Bypass => {}
                }
            }
        }
    }

    fn scenario() {
        let cache: Arc<QueryCache<u64>> =
            Arc::new(QueryCache::with_manual_clock(SHARDS * 1024, 1024));
        let versions = TableVersions::new();
        let cell = versions.cell("d", "t");
        let table = Arc::new(ShuttleU64::new(0));
        let hits = Arc::new(ShuttleU64::new(0));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                shuttle::thread::spawn(reader(
                    Arc::clone(&cache),
                    cell.clone(),
                    Arc::clone(&table),
                    Arc::clone(&hits),
                ))
            })
            .collect();
        let writer = {
            let cell = cell.clone();
            let table = Arc::clone(&table);
            shuttle::thread::spawn(move || {
                for _ in 0..2 {
                    let guard = WriteGuard::new(vec![cell.clone()]);
                    table.fetch_add(1, Ordering::SeqCst);
                    drop(guard);
                }
            })
        };
        let maintenance = {
            let cache = Arc::clone(&cache);
            shuttle::thread::spawn(move || {
                cache.flush();
                cache.set_capacity(SHARDS * 512);
                cache.set_capacity(SHARDS * 1024);
            })
        };
        for t in readers {
            t.join().unwrap();
        }
        writer.join().unwrap();
        maintenance.join().unwrap();
        cache.validate();
        // Quiescent: whatever is cached now is the last value.
        if let Lookup::Hit(v) = cache.lookup(KEY, 7) {
            assert_eq!(*v, 2, "a hit after every write is the last value");
        }
        // Once the writes are over, an admitted miss inserts and the next lookup hits it.
        for _ in 0..3 {
            match cache.lookup(KEY, 7) {
                Lookup::Hit(v) => {
                    assert_eq!(*v, 2);
                    return;
                }
                Lookup::Miss(Some(ticket)) => {
                    assert!(
                        cache.insert(ticket, KEY, vec![cell.snapshot()], Arc::new(2), 8),
                        "an insert with no concurrent write is stored"
                    );
                }
                Lookup::Miss(None) | Lookup::Bypass => {}
            }
        }
        panic!("no hit after the writes ended");
    }

    #[test]
    fn lookup_insert_invalidate_and_resize_under_random_and_pct_schedules() {
        crate::sync::explore_schedules(scenario, 500, 300);
    }
}
