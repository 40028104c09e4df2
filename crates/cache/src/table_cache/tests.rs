// Under `--features shuttle` only the schedule exploration runs (its primitives need
// shuttle's runtime); the rest runs in the normal build.
#![cfg_attr(feature = "shuttle", allow(dead_code, unused_imports))]

use super::*;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64 as StdAtomicU64;

/// A definition as an engine would cache it: which load made it.
#[derive(Debug)]
struct Def {
    key: u8,
    generation: u64,
    bytes: usize,
}

impl Definition for Def {
    fn footprint(&self) -> usize {
        self.bytes
    }
}

fn config(open: usize, instances: usize, defs: usize, bytes: usize) -> TableCacheConfig {
    TableCacheConfig {
        table_open_cache: open,
        table_open_cache_instances: instances,
        table_definition_cache: defs,
        table_definition_cache_size: bytes,
    }
}

/// What a loader returns: the definition of `key` at `generation`, of `bytes`.
fn loaded(key: u8, generation: u64, bytes: usize) -> Result<Def, ()> {
    Ok(Def {
        key,
        generation,
        bytes,
    })
}

const ZERO: Duration = Duration::ZERO;

#[cfg(not(feature = "shuttle"))]
#[test]
fn hits_misses_and_idle_only_eviction() {
    let cache: Arc<TableCache<u8, Def>> = TableCache::new(config(2, 1, 100, 1 << 20));
    let load = |key: u8| move || loaded(key, 0, 10);
    let a = cache.acquire(0, &1, ZERO, load(1)).unwrap();
    let b = cache.acquire(0, &2, ZERO, load(2)).unwrap();
    let c = cache.acquire(0, &3, ZERO, load(3)).unwrap();
    // Three in use over a capacity of two: nothing can be evicted.
    assert_eq!(cache.stats().open_tables, 3);
    assert_eq!(cache.stats().table_open_cache_overflows, 0);
    drop(a);
    // Released over capacity: the idle handle closes at once.
    assert_eq!(cache.stats().open_tables, 2);
    assert_eq!(cache.stats().table_open_cache_overflows, 1);
    drop(b);
    drop(c);
    assert_eq!(cache.stats().open_tables, 2);
    let again = cache.acquire(0, &3, ZERO, || Err(())).unwrap();
    assert_eq!(again.key, 3);
    let s = cache.stats();
    assert_eq!((s.table_open_cache_hits, s.table_open_cache_misses), (1, 3));
    // A failed open is not cached.
    assert_eq!(
        cache
            .acquire(0, &9, ZERO, || Err::<Def, _>("no table"))
            .err(),
        Some(AcquireError::Open("no table"))
    );
    assert!(cache.definition_keys().iter().all(|k| *k != 9));
    assert_eq!(cache.stats().opened_table_definitions, 3);
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn definitions_stay_within_count_and_bytes_and_busy_ones_survive() {
    let cache: Arc<TableCache<u8, Def>> = TableCache::new(config(1, 1, 4, 100));
    let held = cache.acquire(0, &0, ZERO, || loaded(0, 0, 30)).unwrap();
    for key in 1..50u8 {
        drop(cache.acquire(0, &key, ZERO, || loaded(key, 0, 30)).unwrap());
        let s = cache.stats();
        assert!(s.open_table_definitions <= 4, "{s:?}");
        assert!(s.table_definition_bytes <= 100, "{s:?}");
    }
    // Key 0 is in use: it was never evicted, so no second load happens.
    let again = cache.acquire(0, &0, ZERO, || Err(())).unwrap();
    assert_eq!(again.generation, held.generation);
    cache.set_definition_limits(1, 1 << 20);
    drop((held, again));
    assert!(cache.stats().open_table_definitions <= 1);
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn invalidate_waits_for_handles_in_use_and_then_serves_the_new_state() {
    let cache: Arc<TableCache<u8, Def>> = TableCache::new(config(16, 4, 100, 1 << 20));
    let generation = Arc::new(StdAtomicU64::new(0));
    let load = |g: &Arc<StdAtomicU64>| {
        let g = Arc::clone(g);
        move || loaded(1, g.load(Ordering::SeqCst), 1)
    };
    let held = cache.acquire(1, &1, ZERO, load(&generation)).unwrap();
    drop(cache.acquire(2, &1, ZERO, load(&generation)).unwrap());
    assert!(matches!(
        cache.invalidate(&1, Duration::from_millis(20)),
        Err(LockWaitTimeout)
    ));
    // The timed-out DDL left the old definition serving.
    assert_eq!(
        cache.acquire(3, &1, ZERO, || Err(())).unwrap().generation,
        0
    );
    let ddl = {
        let cache = Arc::clone(&cache);
        let generation = Arc::clone(&generation);
        std::thread::spawn(move || {
            let guard = cache.invalidate(&1, Duration::from_secs(10)).unwrap();
            assert_eq!(guard.previous().map(|d| d.generation), Some(0));
            generation.store(1, Ordering::SeqCst);
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        !ddl.is_finished(),
        "the DDL did not wait for the handle in use"
    );
    assert_eq!(held.generation, 0);
    drop(held);
    ddl.join().unwrap();
    let fresh = cache.acquire(0, &1, ZERO, load(&generation)).unwrap();
    assert_eq!(fresh.generation, 1);
    assert_eq!(cache.stats().open_table_definitions, 1);
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn one_busy_instance_uses_the_whole_capacity_and_gives_back_what_it_borrowed() {
    // 8 instances, capacity 64: one connection (instance 3) opens 64 tables and keeps
    // every handle cached; seed 000's single client no longer sees only 64 / 8.
    let cache: Arc<TableCache<u8, Def>> = TableCache::new(config(64, 8, 1000, 1 << 30));
    let load = |key: u8| move || loaded(key, 0, 1);
    for key in 0..64u8 {
        drop(cache.acquire(3, &key, ZERO, load(key)).unwrap());
    }
    let s = cache.stats();
    assert_eq!((s.open_tables, s.table_open_cache_overflows), (64, 0));
    for key in 0..64u8 {
        drop(cache.acquire(3, &key, ZERO, || Err(())).unwrap());
    }
    let s = cache.stats();
    assert_eq!(
        (s.table_open_cache_hits, s.table_open_cache_misses),
        (64, 64)
    );
    // Over capacity with no one else over its share: instance 3 recycles its own LRU.
    drop(cache.acquire(3, &100, ZERO, load(100)).unwrap());
    let s = cache.stats();
    assert_eq!((s.open_tables, s.table_open_cache_overflows), (64, 1));
    let open: Vec<u8> = cache.open_tables().into_iter().map(|(k, _)| k).collect();
    assert!(!open.contains(&0) && open.contains(&1), "key 0 was the LRU");
    // A second connection (instance 5) opens 8 tables, its share: instance 3, which
    // borrowed, closes its least recently used handles for them.
    for key in 200..208u8 {
        drop(cache.acquire(5, &key, ZERO, load(key)).unwrap());
    }
    let s = cache.stats();
    assert_eq!(s.open_tables, 64);
    assert_eq!(s.table_open_cache_overflows, 1 + 8);
    let per_instance: usize = cache
        .open_tables()
        .into_iter()
        .filter(|(k, _)| (200..208).contains(k))
        .count();
    assert_eq!(per_instance, 8);
    // Beyond its share instance 5 goes on taking room from 3, which is still over its
    // share (and idle): 5 holds 30, 3 holds 34.
    for key in 208..230u8 {
        drop(cache.acquire(5, &key, ZERO, load(key)).unwrap());
    }
    let s = cache.stats();
    assert_eq!(s.open_tables, 64);
    let of_5 = cache
        .open_tables()
        .into_iter()
        .filter(|(k, _)| (200..230).contains(k))
        .count();
    assert_eq!(of_5, 30);
    // Shrinking the capacity closes idle handles at once, over both instances.
    cache.set_open_cache_capacity(16);
    assert_eq!(cache.stats().open_tables, 16);
}

// ---- property test against a single-threaded reference model ----

#[cfg(not(feature = "shuttle"))]
mod model {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    pub enum Op {
        Acquire { instance: usize, key: u8 },
        Release(usize),
        Invalidate(u8),
        Resize(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0..3usize, 0..6u8).prop_map(|(instance, key)| Op::Acquire { instance, key }),
            5 => (0..64usize).prop_map(Op::Release),
            1 => (0..6u8).prop_map(Op::Invalidate),
            1 => (1..8usize).prop_map(Op::Resize),
        ]
    }

    /// One instance of the model: key -> (handles, in use, tick of last release).
    #[derive(Default)]
    struct ModelInstance {
        elements: BTreeMap<u8, (u32, u32, u64)>,
    }

    impl ModelInstance {
        fn handles(&self) -> usize {
            self.elements.values().map(|e| e.0 as usize).sum()
        }
        /// Close the least recently used idle handle; false if none is idle.
        fn close_lru(&mut self) -> bool {
            let victim = self
                .elements
                .iter()
                .filter(|(_, e)| e.0 > e.1)
                .min_by_key(|(_, e)| e.2)
                .map(|(k, _)| *k);
            let Some(k) = victim else { return false };
            let e = self.elements.get_mut(&k).unwrap();
            e.0 -= 1;
            if e.0 == 0 {
                self.elements.remove(&k);
            }
            true
        }
    }

    /// The capacity rule of the module documentation, written plainly: one capacity for
    /// all instances, a share each, borrowing while there is room.
    struct Model {
        instances: Vec<ModelInstance>,
        capacity: usize,
    }

    impl Model {
        fn share(&self, i: usize) -> usize {
            let n = self.instances.len();
            self.capacity / n + usize::from(i < self.capacity % n)
        }
        fn total(&self) -> usize {
            self.instances.iter().map(|m| m.handles()).sum()
        }
        fn shed(&mut self, j: usize) -> u64 {
            let mut n = 0;
            while self.total() > self.capacity
                && self.instances[j].handles() > self.share(j)
                && self.instances[j].close_lru()
            {
                n += 1;
            }
            n
        }
        /// Room after instance `i` grew: others over their share first (in order after
        /// `i`), then `i` itself; returns the overflows.
        fn make_room(&mut self, i: usize) -> u64 {
            if self.total() <= self.capacity {
                return 0;
            }
            let n = self.instances.len();
            let over: Vec<usize> = (1..n)
                .map(|step| (i + step) % n)
                .filter(|&j| self.instances[j].handles() > self.share(j))
                .collect();
            let mut closed = 0;
            for j in over {
                closed += self.shed(j);
            }
            closed + self.shed(i)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn open_cache_matches_the_model(ops in prop::collection::vec(op(), 1..120)) {
            const INSTANCES: usize = 3;
            // Key 5 never opens (no such table).
            let cache: Arc<TableCache<u8, Def>> = TableCache::new(config(4, INSTANCES, 1000, 1 << 30));
            let loads = Arc::new(StdAtomicU64::new(0));
            let mut generation = [0u64; 6];
            let mut cached_def = [false; 6];
            let mut model = Model {
                instances: (0..INSTANCES).map(|_| ModelInstance::default()).collect(),
                capacity: 4,
            };
            let (mut hits, mut misses, mut overflows, mut expected_loads) = (0u64, 0u64, 0u64, 0u64);
            let mut held: Vec<(usize, TableHandle<u8, Def>)> = Vec::new();
            let mut tick = 0u64;
            for op in ops {
                tick += 1;
                match op {
                    Op::Acquire { instance, key } => {
                        let g = generation[key as usize];
                        let loads2 = Arc::clone(&loads);
                        let r = cache.acquire(instance, &key, ZERO, move || {
                            loads2.fetch_add(1, Ordering::SeqCst);
                            if key == 5 { Err("no such table") } else { Ok(Def { key, generation: g, bytes: 1 }) }
                        });
                        if key == 5 {
                            expected_loads += 1;
                            prop_assert!(r.is_err());
                            continue;
                        }
                        let h = r.unwrap();
                        prop_assert_eq!(h.key, key);
                        prop_assert_eq!(h.generation, g, "a stale definition was served");
                        if !cached_def[key as usize] {
                            expected_loads += 1;
                            cached_def[key as usize] = true;
                        }
                        let e = model.instances[instance].elements.entry(key).or_insert((0, 0, 0));
                        if e.0 > e.1 {
                            e.1 += 1;
                            hits += 1;
                        } else {
                            e.0 += 1;
                            e.1 += 1;
                            misses += 1;
                            overflows += model.make_room(instance);
                        }
                        held.push((instance, h));
                    }
                    Op::Release(n) => {
                        if held.is_empty() { continue; }
                        let (instance, h) = held.remove(n % held.len());
                        let key = h.key;
                        drop(h);
                        let e = model.instances[instance].elements.get_mut(&key).unwrap();
                        e.1 -= 1;
                        e.2 = tick;
                        overflows += model.make_room(instance);
                    }
                    Op::Invalidate(key) => {
                        let busy = held.iter().any(|(_, h)| h.key == key);
                        let r = cache.invalidate(&key, ZERO);
                        // Idle handles of the key close either way.
                        for m in model.instances.iter_mut() {
                            if let Some(e) = m.elements.get_mut(&key) {
                                e.0 = e.1;
                                if e.0 == 0 { m.elements.remove(&key); }
                            }
                        }
                        if busy {
                            prop_assert!(r.is_err());
                        } else {
                            prop_assert!(r.is_ok());
                            drop(r);
                            generation[key as usize] += 1;
                            cached_def[key as usize] = false;
                        }
                    }
                    Op::Resize(c) => {
                        model.capacity = c;
                        cache.set_open_cache_capacity(c);
                        for i in 0..INSTANCES {
                            overflows += model.make_room(i);
                        }
                    }
                }
                let s = cache.stats();
                let open = model.total();
                prop_assert_eq!(s.open_tables, open as u64);
                prop_assert_eq!(s.tables_in_use, held.len() as u64);
                prop_assert_eq!(s.table_open_cache_hits, hits);
                prop_assert_eq!(s.table_open_cache_misses, misses);
                prop_assert_eq!(s.table_open_cache_overflows, overflows);
                prop_assert_eq!(loads.load(Ordering::SeqCst), expected_loads);
                // Open_tables never above capacity plus handles in use.
                prop_assert!(s.open_tables as usize <= model.capacity + held.len());
            }
        }

        #[test]
        fn definitions_stay_bounded_and_busy_ones_are_never_reloaded(
            ops in prop::collection::vec((0..40u8, any::<bool>(), 1..50usize), 1..200),
            limit in 1..10usize,
            budget in 50..400usize,
        ) {
            let cache: Arc<TableCache<u8, Def>> = TableCache::new(config(8, 2, limit, budget));
            let mut held: Vec<TableHandle<u8, Def>> = Vec::new();
            let loads = Arc::new(StdAtomicU64::new(0));
            for (key, keep, bytes) in ops {
                let busy_before = held.iter().any(|h| h.key == key);
                let before = loads.load(Ordering::SeqCst);
                let loads2 = Arc::clone(&loads);
                let h = cache.acquire(key as usize, &key, ZERO, move || {
                    loads2.fetch_add(1, Ordering::SeqCst);
                    loaded(key, 0, bytes)
                }).unwrap();
                if busy_before {
                    prop_assert_eq!(loads.load(Ordering::SeqCst), before, "a busy definition was reloaded");
                }
                if keep { held.push(h); } else if !held.is_empty() { held.remove(0); }
                let s = cache.stats();
                // Beyond the limits only definitions with open handles remain.
                let busy_keys: std::collections::BTreeSet<u8> = cache.open_tables().into_iter().map(|(k, _)| k).collect();
                if s.open_table_definitions as usize > limit || s.table_definition_bytes as usize > budget {
                    prop_assert!(s.open_table_definitions as usize <= busy_keys.len() + 1,
                        "{:?} with {} keys open", s, busy_keys.len());
                }
            }
        }
    }
}

// ---- schedule exploration (shuttle) ----

#[cfg(feature = "shuttle")]
mod schedules {
    use super::*;

    fn load(key: u8, generation: u64) -> impl FnOnce() -> Result<Def, ()> {
        move || {
            Ok(Def {
                key,
                generation,
                bytes: 1,
            })
        }
    }

    /// Acquire, release and evict on two instances against a DDL: the DDL never overlaps a
    /// handle in use of the old definition, and no one sees the old one after it.
    #[test]
    fn acquire_release_evict_invalidate() {
        shuttle::check_random(
            || {
                let cache: Arc<TableCache<u8, Def>> = TableCache::new(config(2, 2, 2, 1 << 20));
                let generation = Arc::new(shuttle::sync::atomic::AtomicU64::new(0));
                let ddl_done = Arc::new(shuttle::sync::atomic::AtomicBool::new(false));
                let mut threads = Vec::new();
                for t in 0..2usize {
                    let cache = Arc::clone(&cache);
                    let generation = Arc::clone(&generation);
                    let ddl_done = Arc::clone(&ddl_done);
                    threads.push(shuttle::thread::spawn(move || {
                        for key in [1u8, 2, 1, 3] {
                            let done_before = ddl_done.load(Ordering::SeqCst);
                            // The loader reads the table's state when it runs, as an engine does.
                            let g = Arc::clone(&generation);
                            let h = cache
                                .acquire(t, &key, Duration::from_secs(60), move || {
                                    load(key, g.load(Ordering::SeqCst))()
                                })
                                .unwrap();
                            if key == 1 && done_before {
                                assert_eq!(h.generation, 1, "old definition after the DDL");
                            }
                            // While the handle is in use the DDL must not have finished.
                            let during = ddl_done.load(Ordering::SeqCst);
                            if key == 1 && h.generation == 0 {
                                assert!(!during, "DDL finished while a handle was in use");
                            }
                            drop(h);
                        }
                    }));
                }
                {
                    let cache = Arc::clone(&cache);
                    threads.push(shuttle::thread::spawn(move || {
                        let guard = cache.invalidate(&1u8, Duration::from_secs(60)).unwrap();
                        generation.store(1, Ordering::SeqCst);
                        ddl_done.store(true, Ordering::SeqCst);
                        drop(guard);
                    }));
                }
                for t in threads {
                    t.join().unwrap();
                }
                let s = cache.stats();
                assert_eq!(s.tables_in_use, 0);
                assert!(s.open_tables <= 2);
            },
            2000,
        );
    }

    /// Two openers of one key load it once (single-flight) and share the definition.
    #[test]
    fn single_flight_open() {
        shuttle::check_random(
            || {
                let cache: Arc<TableCache<u8, Def>> = TableCache::new(config(4, 2, 4, 1 << 20));
                let loads = Arc::new(shuttle::sync::atomic::AtomicU64::new(0));
                let threads: Vec<_> = (0..2usize)
                    .map(|t| {
                        let cache = Arc::clone(&cache);
                        let loads = Arc::clone(&loads);
                        shuttle::thread::spawn(move || {
                            let h = cache
                                .acquire(t, &7u8, Duration::from_secs(60), move || {
                                    loads.fetch_add(1, Ordering::SeqCst);
                                    loaded(7, 0, 1)
                                })
                                .unwrap();
                            Arc::as_ptr(h.definition()) as usize
                        })
                    })
                    .collect();
                let ptrs: Vec<usize> = threads.into_iter().map(|t| t.join().unwrap()).collect();
                assert_eq!(ptrs[0], ptrs[1]);
                assert_eq!(loads.load(Ordering::SeqCst), 1);
            },
            2000,
        );
    }
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn a_peek_sees_only_a_loaded_fresh_definition_and_counts_nothing() {
    let cache: Arc<TableCache<u8, Def>> = TableCache::new(config(4, 2, 1, 1 << 20));
    let load = |key: u8, generation: u64| move || loaded(key, generation, 10);
    assert_eq!(cache.peek_definition(&1, |d| d.generation), None);
    let handle = cache.acquire(0, &1, ZERO, load(1, 7)).unwrap();
    assert_eq!(
        cache.peek_definition(&1, |d| (d.key, d.generation)),
        Some((1, 7))
    );
    drop(handle);
    // Idle, still cached: peeking neither opens a handle nor counts a hit or a miss.
    let before = cache.stats();
    assert_eq!(cache.peek_definition(&1, |d| d.generation), Some(7));
    assert_eq!(cache.stats(), before);
    // A DDL's metadata lock hides it; the next load is what a peek sees after.
    let lock = cache.invalidate(&1, ZERO).unwrap();
    assert_eq!(cache.peek_definition(&1, |d| d.generation), None);
    drop(lock);
    assert_eq!(cache.peek_definition(&1, |d| d.generation), None);
    drop(cache.acquire(1, &1, ZERO, load(1, 8)).unwrap());
    assert_eq!(cache.peek_definition(&1, |d| d.generation), Some(8));
    // A peek does not keep a definition from eviction (the count limit is 1).
    drop(cache.acquire(1, &2, ZERO, load(2, 0)).unwrap());
    cache.set_open_cache_capacity(0);
    assert_eq!(cache.peek_definition(&1, |d| d.generation), None);
    assert_eq!(cache.peek_definition(&2, |d| d.key), Some(2));
}
