//! The query cache: results of repeated SELECTs, answered without execution, that never
//! makes the server slower and never serves a stale result.
//!
//! # Why it looks like this
//! MySQL's query cache took one global mutex for every lookup, insert and invalidation; at
//! a low hit ratio it cut throughput 4 to 20 times (seed 002) and MySQL 8.0 removed it.
//! Here every path that can be taken by many threads at once is either lock-free or a
//! sharded try-lock that counts contention as a miss and never waits:
//!
//! | path | cost |
//! |------|------|
//! | disabled (`query_cache_size = 0`) | one relaxed load, no allocation |
//! | whole cache stepped aside | one load of the deadline and a clock read |
//! | template bypassed | a load on the template's verdict slot |
//! | lookup | the key's shard `try_lock` (busy: a miss), a map probe, one load per table |
//! | miss | one sketch update; admitted misses later insert once |
//! | write to a table | two atomic adds on its [`VersionCell`] (start and end of the write) |
//!
//! # Correctness: versions
//! Every table has a version ([`versions`]). A writer bumps it before its first change is
//! visible and again when its statement ends (commit or rollback): readers may see another
//! connection's statement in progress. A reader takes a [`Dep`] of every table it will
//! read *before* executing; [`QueryCache::insert`] drops a result whose deps moved while it
//! was computed, and [`QueryCache::lookup`] treats an entry whose deps moved as a miss and
//! removes it. So a result is served only if no write started since before it was computed.
//!
//! # Adaptivity ([`admission`])
//! - Admission (TinyLFU): a miss records the key's hash in a count-min sketch; only a key
//!   seen at least [`admission::ADMIT_AFTER_SIGHTINGS`] times gets a ticket to insert, and
//!   the caller inserts only if execution cost at least [`MIN_EXECUTION_NANOS`].
//! - Templates (the statement with its literals removed, hashed by the caller): each has a
//!   verdict window; a template whose hit ratio stays low is bypassed (no lookup, no insert)
//!   for a back-off that doubles on each failed probe, then probed again.
//! - The whole cache keeps the same verdict over all lookups and steps aside on its own
//!   when its hit ratio is low.
//!
//! # Memory: one inequality
//! Each of the [`SHARDS`] shards owns `query_cache_size / SHARDS` bytes and enforces
//! `used_bytes <= capacity_bytes` on every insert and resize (evicting with CLOCK). An
//! entry is charged its key, its value's bytes (as the caller measures them), its deps and
//! [`ENTRY_OVERHEAD_BYTES`]; a removed entry's key stays charged until the CLOCK hand drops
//! it. Beyond `query_cache_size`, the cache holds fixed structures only: the sketch
//! (64 KiB), the template table (96 KiB), the shards' headers (a few KiB) and the table
//! version registry (about 100 bytes per table in use): [`FIXED_OVERHEAD_BYTES`].
//!
//! Values are dropped outside the shard lock (evicted and invalidated entries are handed
//! back to the caller's stack first).

pub mod admission;
use crate::sync;
pub mod versions;

pub use versions::{Dep, TableVersions, VersionCell, WriteGuard};

use admission::{Outcome, Sketch, Templates, Verdict};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use std::time::Instant;
use sync::{AtomicBool, AtomicU64, AtomicUsize, Mutex, Ordering};

/// Shards of the entry map. Sixty-four independent locks make two lookups collide on a
/// shard rarely even at hundreds of connections, and a collision only costs a miss.
pub const SHARDS: usize = 64;

/// Bytes charged per entry besides its key and value: the entry itself, its map slot and
/// queue slot, the key's reference count and hash-table slack.
pub const ENTRY_OVERHEAD_BYTES: usize = 192;

/// Bytes a removed entry's key keeps charged until the CLOCK hand drops it, besides the key.
const DEAD_KEY_OVERHEAD_BYTES: usize = 48;

/// Memory the cache holds beyond `query_cache_size` whatever its content, except the
/// version registry: sketch, template table, shard headers.
pub const FIXED_OVERHEAD_BYTES: usize = (1 << 16) + 4096 * 24 + SHARDS * 256 + 4096;

/// An execution faster than this is not worth an entry: a hit (lookup, copy of the result)
/// costs about this much.
pub const MIN_EXECUTION_NANOS: u64 = 2_000;

/// Counters, with MySQL's names where MySQL has one (see docs/status.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryCacheStats {
    pub hits: u64,
    pub inserts: u64,
    pub lowmem_prunes: u64,
    pub queries_in_cache: u64,
    pub capacity_bytes: u64,
    pub used_bytes: u64,
    /// Lookups that missed (absent, stale or busy).
    pub misses: u64,
    /// Entries found stale at a lookup (a table changed) and removed.
    pub invalidations: u64,
    /// Misses because the key's shard was busy (no waiting).
    pub busy_misses: u64,
    /// Misses the sketch refused to admit (not seen often enough yet), plus results too
    /// cheap to be worth an entry.
    pub admission_refusals: u64,
    /// Results not inserted because a table changed while they were computed.
    pub insert_races: u64,
    /// Lookups skipped because their template or the whole cache was bypassed.
    pub bypassed_lookups: u64,
    /// Times the whole cache stepped aside.
    pub step_asides: u64,
    /// 1 while the whole cache is stepped aside.
    pub stepped_aside: u64,
    /// Templates bypassed now.
    pub bypassed_templates: u64,
}

/// Why a lookup did not hit.
pub enum Lookup<V> {
    Hit(Arc<V>),
    /// A miss; with a ticket when the result may be inserted.
    Miss(Option<Ticket>),
    /// The cache is off, stepped aside, or this template is bypassed.
    Bypass,
}

/// Permission to insert the result of one admitted miss.
#[derive(Debug)]
pub struct Ticket {
    hash: u64,
}

/// The key hash: a 64-bit multiply-xorshift over 8-byte words (keys are tens to hundreds of
/// bytes; the full key is compared on a match, so this only spreads).
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(K);
        h ^= h >> 29;
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    h ^ (h >> 32)
}

#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = self.0.rotate_left(5) ^ hash_bytes(bytes);
    }
}

type KeyMap<V> = HashMap<Arc<[u8]>, Entry<V>, BuildHasherDefault<KeyHasher>>;

struct Entry<V> {
    deps: Box<[Dep]>,
    value: Arc<V>,
    charge_bytes: usize,
    /// Set on a hit, cleared by the CLOCK hand (second chance).
    referenced: bool,
}

#[derive(Default)]
struct ShardCounters {
    hits: u64,
    misses: u64,
    inserts: u64,
    lowmem_prunes: u64,
    invalidations: u64,
}

struct Shard<V> {
    /// Live entries only.
    map: KeyMap<V>,
    /// CLOCK order: the key of every live entry once, and keys of removed entries until the
    /// hand reaches them (told apart by pointer identity with the map's key).
    clock: VecDeque<Arc<[u8]>>,
    /// Charges of live entries plus removed keys still in `clock`; never above capacity.
    used_bytes: usize,
    capacity_bytes: usize,
    counters: ShardCounters,
}

impl<V> Shard<V> {
    fn new(capacity_bytes: usize) -> Shard<V> {
        Shard {
            map: KeyMap::default(),
            clock: VecDeque::new(),
            used_bytes: 0,
            capacity_bytes,
            counters: ShardCounters::default(),
        }
    }

    fn is_live(&self, key: &Arc<[u8]>) -> bool {
        self.map
            .get_key_value(&key[..])
            .is_some_and(|(k, _)| Arc::ptr_eq(k, key))
    }

    /// Remove a live entry; its key stays charged (as dead) until the hand drops it.
    fn remove(&mut self, key: &[u8]) -> Option<Entry<V>> {
        let (k, entry) = self.map.remove_entry(key)?;
        self.used_bytes -= entry.charge_bytes - (k.len() + DEAD_KEY_OVERHEAD_BYTES);
        Some(entry)
    }

    /// Advance the CLOCK hand until `needed` more bytes fit (or nothing is left). Evicted
    /// values go to `dropped`, to be released outside the lock. Bounded: each key is passed
    /// at most twice (once to clear its reference bit, once to evict it).
    fn make_room(&mut self, needed: usize, dropped: &mut Vec<Entry<V>>) -> bool {
        let mut steps = 2 * self.clock.len() + 1;
        while self.used_bytes + needed > self.capacity_bytes && steps > 0 {
            steps -= 1;
            let Some(key) = self.clock.pop_front() else {
                break;
            };
            if !self.is_live(&key) {
                self.used_bytes -= key.len() + DEAD_KEY_OVERHEAD_BYTES;
                continue;
            }
            let entry = self.map.get_mut(&key[..]).expect("live key is in the map");
            if entry.referenced {
                entry.referenced = false;
                self.clock.push_back(key);
                continue;
            }
            if let Some(entry) = self.remove(&key) {
                self.used_bytes -= key.len() + DEAD_KEY_OVERHEAD_BYTES;
                self.counters.lowmem_prunes += 1;
                dropped.push(entry);
            }
        }
        self.used_bytes + needed <= self.capacity_bytes
    }

    /// Drop queue keys of removed entries when they outnumber live ones (bounds the queue).
    fn compact_if_sparse(&mut self) {
        if self.clock.len() > 2 * self.map.len() + 64 {
            self.drop_dead_keys();
        }
    }

    /// Drop the queue keys of removed entries, and the bytes they were charged.
    fn drop_dead_keys(&mut self) {
        let mut clock = std::mem::take(&mut self.clock);
        clock.retain(|key| {
            let live = self.is_live(key);
            if !live {
                self.used_bytes -= key.len() + DEAD_KEY_OVERHEAD_BYTES;
            }
            live
        });
        self.clock = clock;
    }
}

/// Padding so that two shards' locks never share a cache line.
#[repr(align(128))]
struct Padded<T>(T);

/// Counters bumped outside any shard lock, striped by thread ([`sync::thread_slot`]): a
/// thread bumps its own cache line, so a counter costs no cache-line transfer between the
/// cores even when every connection runs the same statement.
#[repr(align(128))]
#[derive(Default)]
struct Stripe {
    busy_misses: AtomicU64,
    admission_refusals: AtomicU64,
    insert_races: AtomicU64,
    bypassed_lookups: AtomicU64,
}

const STRIPES: usize = 32;

/// Where the cache's time comes from: the real clock, or a manual one in tests.
enum Clock {
    Real(Instant),
    Manual(AtomicU64),
}

/// A sharded, version-checked, adaptive cache of query results. `V` is the cached result;
/// the caller states its size in bytes at insert.
pub struct QueryCache<V> {
    /// False when `query_cache_size` is 0: every call returns at once.
    enabled: AtomicBool,
    capacity_bytes: AtomicUsize,
    /// `query_cache_limit`: the largest result (in charged bytes) stored.
    limit_bytes: AtomicUsize,
    shards: Box<[Padded<Mutex<Shard<V>>>]>,
    sketch: Sketch,
    templates: Templates,
    whole: Verdict,
    step_asides: AtomicU64,
    stripes: Box<[Stripe]>,
    clock: Clock,
}

impl<V> QueryCache<V> {
    pub fn new(capacity_bytes: usize, limit_bytes: usize) -> QueryCache<V> {
        QueryCache::with_clock(capacity_bytes, limit_bytes, Clock::Real(Instant::now()))
    }

    /// A cache whose time moves only by [`QueryCache::advance_clock_ms`] (tests).
    pub fn with_manual_clock(capacity_bytes: usize, limit_bytes: usize) -> QueryCache<V> {
        QueryCache::with_clock(
            capacity_bytes,
            limit_bytes,
            Clock::Manual(AtomicU64::new(0)),
        )
    }

    fn with_clock(capacity_bytes: usize, limit_bytes: usize, clock: Clock) -> QueryCache<V> {
        let cache = QueryCache {
            enabled: AtomicBool::new(false),
            capacity_bytes: AtomicUsize::new(0),
            limit_bytes: AtomicUsize::new(limit_bytes),
            shards: (0..SHARDS)
                .map(|_| Padded(Mutex::new(Shard::new(0))))
                .collect(),
            sketch: Sketch::default(),
            templates: Templates::default(),
            whole: Verdict::default(),
            step_asides: AtomicU64::new(0),
            stripes: (0..STRIPES).map(|_| Stripe::default()).collect(),
            clock,
        };
        cache.set_capacity(capacity_bytes);
        cache
    }

    pub fn advance_clock_ms(&self, ms: u64) {
        if let Clock::Manual(t) = &self.clock {
            t.fetch_add(ms, Ordering::Relaxed);
        }
    }

    fn now_ms(&self) -> u64 {
        match &self.clock {
            Clock::Real(start) => start.elapsed().as_millis() as u64,
            Clock::Manual(t) => t.load(Ordering::Relaxed),
        }
    }

    /// Whether the cache holds any memory (`query_cache_size > 0`). One relaxed load.
    #[inline]
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    pub fn capacity_bytes(&self) -> usize {
        self.capacity_bytes.load(Ordering::Relaxed)
    }

    pub fn limit_bytes(&self) -> usize {
        self.limit_bytes.load(Ordering::Relaxed)
    }

    pub fn set_limit(&self, limit_bytes: usize) {
        self.limit_bytes.store(limit_bytes, Ordering::Relaxed);
    }

    fn shard_of(&self, hash: u64) -> &Mutex<Shard<V>> {
        &self.shards[(hash >> 7) as usize % SHARDS].0
    }

    /// The calling thread's counters.
    fn stripe(&self) -> &Stripe {
        &self.stripes[sync::thread_slot() % STRIPES]
    }

    /// Resize to `capacity_bytes` (0 disables and empties the cache). Shrinking evicts at
    /// once, shard by shard, so the bound holds when this returns.
    pub fn set_capacity(&self, capacity_bytes: usize) {
        let per_shard = capacity_bytes / SHARDS;
        self.enabled.store(false, Ordering::Relaxed);
        let mut dropped = Vec::new();
        for shard in self.shards.iter() {
            let mut shard = shard.0.lock();
            shard.capacity_bytes = per_shard;
            if per_shard == 0 {
                dropped.extend(shard.map.drain().map(|(_, e)| e));
                shard.clock.clear();
                shard.used_bytes = 0;
            } else {
                shard.make_room(0, &mut dropped);
            }
        }
        self.capacity_bytes.store(capacity_bytes, Ordering::Relaxed);
        self.enabled.store(per_shard > 0, Ordering::Relaxed);
        drop(dropped);
    }

    /// Is the whole cache or this template bypassed now? (A lock-free check: callers make it
    /// before building a key, so a bypassed statement allocates nothing.)
    pub fn bypassed(&self, template: u64) -> bool {
        if !self.is_enabled() {
            return true;
        }
        let now = || self.now_ms();
        if self.whole.bypassed(now) || self.templates.slot(template).bypassed(now) {
            self.stripe()
                .bypassed_lookups
                .fetch_add(1, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Look `key` up. `template` identifies the statement's shape for the adaptive verdicts.
    pub fn lookup(&self, key: &[u8], template: u64) -> Lookup<V> {
        self.lookup_if(key, template, |_| true)
    }

    /// [`QueryCache::lookup`], where a fresh entry whose value `usable` refuses (the caller
    /// may not be served it, e.g. it read a table the caller's transaction wrote) counts as
    /// a miss without a ticket and stays cached for others.
    pub fn lookup_if(
        &self,
        key: &[u8],
        template: u64,
        usable: impl FnOnce(&V) -> bool,
    ) -> Lookup<V> {
        if self.bypassed(template) {
            return Lookup::Bypass;
        }
        let hash = hash_bytes(key);
        let mut stale = None;
        let mut refused = false;
        let found = match self.shard_of(hash).try_lock() {
            None => {
                self.stripe().busy_misses.fetch_add(1, Ordering::Relaxed);
                None
            }
            Some(mut shard) => {
                let state = match shard.map.get_mut(key) {
                    None => None,
                    Some(entry) if versions::all_hold(&entry.deps) => {
                        if usable(&entry.value) {
                            entry.referenced = true;
                            Some(Arc::clone(&entry.value))
                        } else {
                            refused = true;
                            None
                        }
                    }
                    Some(_) => {
                        stale = shard.remove(key);
                        shard.counters.invalidations += 1;
                        None
                    }
                };
                if state.is_some() {
                    shard.counters.hits += 1;
                } else {
                    shard.counters.misses += 1;
                }
                state
            }
        };
        drop(stale);
        self.record_verdicts(template, found.is_some());
        match found {
            Some(value) => Lookup::Hit(value),
            None if refused => Lookup::Miss(None),
            None => {
                if self.sketch.record(hash) >= admission::ADMIT_AFTER_SIGHTINGS {
                    Lookup::Miss(Some(Ticket { hash }))
                } else {
                    self.refuse();
                    Lookup::Miss(None)
                }
            }
        }
    }

    fn record_verdicts(&self, template: u64, hit: bool) {
        let now = || self.now_ms();
        self.templates.slot(template).record(
            hit,
            now,
            admission::TEMPLATE_VERDICT_LOOKUPS,
            admission::TEMPLATE_MIN_HIT_PER_MILLE,
        );
        if self.whole.record(
            hit,
            now,
            admission::CACHE_VERDICT_LOOKUPS,
            admission::CACHE_MIN_HIT_PER_MILLE,
        ) == Outcome::SteppedAside
        {
            self.step_asides.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Count a result not admitted (too cheap, or its ticket refused by the caller).
    pub fn refuse(&self) {
        self.stripe()
            .admission_refusals
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Insert an admitted miss's result. `deps` were taken before execution; if any moved
    /// the result is dropped. `value_bytes` is the value's heap size as the caller measures
    /// it. Returns whether the entry was stored. Waits for the shard lock (an insert happens
    /// once per admitted result, after execution, never on the hit path).
    pub fn insert(
        &self,
        ticket: Ticket,
        key: &[u8],
        deps: Vec<Dep>,
        value: Arc<V>,
        value_bytes: usize,
    ) -> bool {
        if !self.is_enabled() {
            return false;
        }
        let charge = key.len()
            + value_bytes
            + deps.len() * std::mem::size_of::<Dep>()
            + ENTRY_OVERHEAD_BYTES;
        if charge
            > self
                .limit_bytes()
                .saturating_add(ENTRY_OVERHEAD_BYTES + key.len())
        {
            self.refuse();
            return false;
        }
        let mut dropped = Vec::new();
        let stored = {
            let mut shard = self.shard_of(ticket.hash).lock();
            if !versions::all_hold(&deps) {
                // The check runs under the lock only to order it before the insert; a write
                // that starts after it makes the entry stale at its first lookup.
                drop(shard);
                self.stripe().insert_races.fetch_add(1, Ordering::Relaxed);
                return false;
            }
            if let Some(old) = shard.remove(key) {
                dropped.push(old);
            }
            if charge > shard.capacity_bytes || !shard.make_room(charge, &mut dropped) {
                false
            } else {
                let key: Arc<[u8]> = Arc::from(key);
                shard.used_bytes += charge;
                shard.clock.push_back(Arc::clone(&key));
                shard.map.insert(
                    key,
                    Entry {
                        deps: deps.into_boxed_slice(),
                        value,
                        charge_bytes: charge,
                        referenced: false,
                    },
                );
                shard.counters.inserts += 1;
                shard.compact_if_sparse();
                true
            }
        };
        drop(dropped);
        stored
    }

    /// `FLUSH QUERY CACHE`: MySQL defragments; here it drops every stale entry and the
    /// removed keys still queued, so `Qcache_free_memory` shows what is really free.
    pub fn flush(&self) {
        let mut dropped = Vec::new();
        for shard in self.shards.iter() {
            let mut shard = shard.0.lock();
            let stale: Vec<Arc<[u8]>> = shard
                .map
                .iter()
                .filter(|(_, e)| !versions::all_hold(&e.deps))
                .map(|(k, _)| Arc::clone(k))
                .collect();
            for key in stale {
                dropped.extend(shard.remove(&key));
                shard.counters.invalidations += 1;
            }
            shard.drop_dead_keys();
        }
        drop(dropped);
    }

    /// `RESET QUERY CACHE`: remove every entry and forget the adaptive state.
    pub fn reset(&self) {
        let mut dropped = Vec::new();
        for shard in self.shards.iter() {
            let mut shard = shard.0.lock();
            dropped.extend(shard.map.drain().map(|(_, e)| e));
            shard.clock.clear();
            shard.used_bytes = 0;
        }
        self.sketch.clear();
        self.templates.reset();
        self.whole.reset();
        drop(dropped);
    }

    /// Every counter, summed over the shards and stripes.
    pub fn stats(&self) -> QueryCacheStats {
        let mut s = QueryCacheStats {
            capacity_bytes: self.capacity_bytes() as u64,
            ..QueryCacheStats::default()
        };
        for shard in self.shards.iter() {
            let shard = shard.0.lock();
            s.hits += shard.counters.hits;
            s.misses += shard.counters.misses;
            s.inserts += shard.counters.inserts;
            s.lowmem_prunes += shard.counters.lowmem_prunes;
            s.invalidations += shard.counters.invalidations;
            s.queries_in_cache += shard.map.len() as u64;
            s.used_bytes += shard.used_bytes as u64;
        }
        for stripe in self.stripes.iter() {
            s.busy_misses += stripe.busy_misses.load(Ordering::Relaxed);
            s.admission_refusals += stripe.admission_refusals.load(Ordering::Relaxed);
            s.insert_races += stripe.insert_races.load(Ordering::Relaxed);
            s.bypassed_lookups += stripe.bypassed_lookups.load(Ordering::Relaxed);
        }
        let now = self.now_ms();
        s.step_asides = self.step_asides.load(Ordering::Relaxed);
        s.stepped_aside = u64::from(self.whole.bypassed(|| now));
        s.bypassed_templates = self.templates.bypassed(now);
        s
    }

    /// Recompute every shard's charge from scratch and check the budget; panics naming the
    /// broken relation. For tests.
    #[cfg(any(test, feature = "validate"))]
    pub fn validate(&self) {
        let mut total = 0;
        for (n, shard) in self.shards.iter().enumerate() {
            let shard = shard.0.lock();
            let mut used = 0;
            let mut live_in_clock = 0;
            for key in &shard.clock {
                if shard.is_live(key) {
                    live_in_clock += 1;
                    used += shard.map[&key[..]].charge_bytes;
                } else {
                    used += key.len() + DEAD_KEY_OVERHEAD_BYTES;
                }
            }
            assert_eq!(
                live_in_clock,
                shard.map.len(),
                "shard {n}: every live entry is in the CLOCK queue exactly once"
            );
            assert_eq!(
                used, shard.used_bytes,
                "shard {n}: used_bytes equals the recomputed charges"
            );
            assert!(
                shard.used_bytes <= shard.capacity_bytes,
                "shard {n}: used_bytes {} <= capacity_bytes {}",
                shard.used_bytes,
                shard.capacity_bytes
            );
            total += shard.used_bytes;
        }
        assert!(
            total <= self.capacity_bytes(),
            "used {total} <= query_cache_size {}",
            self.capacity_bytes()
        );
    }
}

#[cfg(test)]
mod tests;
