//! The table cache: one shared open-table object per table name, handed out as `Arc`s.
//!
//! Simple first version; issue 5 turns it into the instanced table open cache with a
//! separate definition cache. The seam is [`TableCache::get_or_open`] (single-flight: the
//! open runs under the key's shard lock, so two opens of one table never run at once and
//! there is never more than one live object per key), [`TableCache::remove`] (DDL) and
//! [`TableCache::stats`].
//!
//! Invariant the engine relies on: at most one value per key is reachable through the
//! cache, and a value is evicted only when idle (`Arc::strong_count == 1`, checked under
//! the shard lock), so no second object for the same table can appear while one is in use.
//! Capacity (`table_open_cache`) bounds idle entries: an open beyond capacity evicts idle
//! entries of the same shard; in-use entries are never evicted (they count as overflow).

use parking_lot::RwLock;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const SHARD_COUNT: usize = 32;

/// Counters with MySQL's names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableCacheStats {
    pub open_tables: u64,
    pub opened_tables: u64,
    pub table_open_cache_hits: u64,
    pub table_open_cache_misses: u64,
    pub table_open_cache_overflows: u64,
}

struct Entry<V> {
    value: Arc<V>,
    /// The shard's tick at the last use (LRU order among idle entries).
    last_use: AtomicU64,
}

struct Shard<K, V> {
    map: HashMap<K, Entry<V>>,
}

/// A shard: a read-write lock over the map (hits share it), its clock and hit counter.
#[repr(align(128))]
struct PaddedShard<K, V> {
    lock: RwLock<Shard<K, V>>,
    tick: AtomicU64,
    hits: AtomicU64,
}

/// See the module documentation.
pub struct TableCache<K, V> {
    shards: Box<[PaddedShard<K, V>]>,
    hasher: std::collections::hash_map::RandomState,
    capacity_per_shard: usize,
    misses: AtomicU64,
    overflows: AtomicU64,
}

impl<K: Hash + Eq + Clone, V> TableCache<K, V> {
    /// A cache holding about `capacity` idle tables (`table_open_cache`).
    pub fn new(capacity: usize) -> Self {
        TableCache {
            shards: (0..SHARD_COUNT)
                .map(|_| PaddedShard {
                    lock: RwLock::new(Shard {
                        map: HashMap::new(),
                    }),
                    tick: AtomicU64::new(0),
                    hits: AtomicU64::new(0),
                })
                .collect(),
            hasher: Default::default(),
            capacity_per_shard: capacity.div_ceil(SHARD_COUNT).max(1),
            misses: AtomicU64::new(0),
            overflows: AtomicU64::new(0),
        }
    }

    fn shard<Q: Hash + ?Sized>(&self, key: &Q) -> &PaddedShard<K, V> {
        &self.shards[(self.hasher.hash_one(key) as usize) % SHARD_COUNT]
    }

    /// The cached value, or the result of `open` (run under the shard lock: single-flight).
    /// A failed open is not cached.
    pub fn get_or_open<E>(
        &self,
        key: &K,
        open: impl FnOnce() -> Result<V, E>,
    ) -> Result<Arc<V>, E> {
        let padded = self.shard(key);
        if let Some(v) = self.get(key) {
            return Ok(v);
        }
        let mut shard = padded.lock.write();
        let tick = padded.tick.fetch_add(1, Ordering::Relaxed);
        if let Some(e) = shard.map.get(key) {
            e.last_use.store(tick, Ordering::Relaxed);
            padded.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Arc::clone(&e.value));
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let value = Arc::new(open()?);
        if shard.map.len() >= self.capacity_per_shard {
            // Evict the least recently used idle entry; bounded by the shard's size.
            let victim = shard
                .map
                .iter()
                .filter(|(_, e)| Arc::strong_count(&e.value) == 1)
                .min_by_key(|(_, e)| e.last_use.load(Ordering::Relaxed))
                .map(|(k, _)| k.clone());
            match victim {
                Some(k) => {
                    // Dropped after the lock is released.
                    let evicted = shard.map.remove(&k);
                    shard.map.insert(
                        key.clone(),
                        Entry {
                            value: Arc::clone(&value),
                            last_use: AtomicU64::new(tick),
                        },
                    );
                    drop(shard);
                    drop(evicted);
                    return Ok(value);
                }
                None => {
                    self.overflows.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        shard.map.insert(
            key.clone(),
            Entry {
                value: Arc::clone(&value),
                last_use: AtomicU64::new(tick),
            },
        );
        Ok(value)
    }

    /// The cached value, if open.
    pub fn get<Q>(&self, key: &Q) -> Option<Arc<V>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let padded = self.shard(key);
        let shard = padded.lock.read();
        let e = shard.map.get(key)?;
        e.last_use.store(
            padded.tick.fetch_add(1, Ordering::Relaxed),
            Ordering::Relaxed,
        );
        padded.hits.fetch_add(1, Ordering::Relaxed);
        Some(Arc::clone(&e.value))
    }

    /// Remove `key` (DDL); returns the value so the caller can finish with it.
    pub fn remove<Q>(&self, key: &Q) -> Option<Arc<V>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard(key)
            .lock
            .write()
            .map
            .remove(key)
            .map(|e| e.value)
    }

    /// Remove `key` only if it still maps to `value` (so a stale entry's remover cannot
    /// remove a fresh entry that replaced it meanwhile).
    pub fn remove_if_same<Q>(&self, key: &Q, value: &Arc<V>) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let mut shard = self.shard(key).lock.write();
        if shard
            .map
            .get(key)
            .is_some_and(|e| Arc::ptr_eq(&e.value, value))
        {
            let removed = shard.map.remove(key);
            drop(shard);
            drop(removed);
            return true;
        }
        false
    }

    /// Every cached value (FLUSH TABLES, shutdown).
    pub fn values(&self) -> Vec<Arc<V>> {
        self.shards
            .iter()
            .flat_map(|s| {
                s.lock
                    .read()
                    .map
                    .values()
                    .map(|e| Arc::clone(&e.value))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    pub fn stats(&self) -> TableCacheStats {
        let hits = self
            .shards
            .iter()
            .map(|s| s.hits.load(Ordering::Relaxed))
            .sum();
        let misses = self.misses.load(Ordering::Relaxed);
        TableCacheStats {
            open_tables: self
                .shards
                .iter()
                .map(|s| s.lock.read().map.len() as u64)
                .sum(),
            opened_tables: misses,
            table_open_cache_hits: hits,
            table_open_cache_misses: misses,
            table_open_cache_overflows: self.overflows.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_key_and_idle_eviction_only() {
        let cache: TableCache<u32, String> = TableCache::new(SHARD_COUNT);
        let held: Vec<Arc<String>> = (0..200u32)
            .map(|i| {
                cache
                    .get_or_open(&i, || Ok::<_, ()>(format!("t{i}")))
                    .unwrap()
            })
            .collect();
        // All in use: nothing evicted, so each key still maps to the same object.
        for (i, h) in held.iter().enumerate() {
            let again = cache.get_or_open(&(i as u32), || Err(())).unwrap();
            assert!(
                Arc::ptr_eq(h, &again),
                "a second object appeared for key {i}"
            );
        }
        drop(held);
        for i in 200..400u32 {
            cache
                .get_or_open(&i, || Ok::<_, ()>(String::new()))
                .unwrap();
        }
        assert!(cache.stats().open_tables <= 200 + SHARD_COUNT as u64);
        assert!(cache
            .get_or_open(&9999, || Err::<String, _>("no such table"))
            .is_err());
        assert!(cache.get(&9999).is_none(), "a failed open was cached");
        assert!(cache.remove(&399).is_some());
    }
}
