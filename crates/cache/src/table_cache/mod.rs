//! The table cache: a *definition cache* of shared, immutable table definitions and an
//! *open cache* of per-use table handles split into instances (MySQL's TABLE_SHARE cache and
//! `table_open_cache` with `table_open_cache_instances`), built so that no operation costs
//! more as the caches grow (seeds 000 and 004).
//!
//! # Definitions
//! One [`DefinitionEntry`] per table key, reference counted, bounded by a count
//! (`table_definition_cache`) and by bytes (`table_definition_cache_size`, each definition
//! reporting its [`Definition::footprint`]). The map is split into shards, each a mutex over
//! a hash map and an intrusive LRU of *idle* definitions (those no instance holds an entry
//! for), so eviction pops the LRU tail: O(1), never a scan past busy entries (MySQL bug
//! 58037). Opens are single-flight: the first opener leaves a `Loading` slot, runs the
//! engine's loader with no lock held, and every other opener of that key waits on the
//! shard's condition variable. A failed open leaves nothing behind.
//!
//! # Handles and instances
//! A connection picks an instance (`hint % instances`); an instance is a mutex over a hash
//! map `key -> element` and an intrusive LRU of the elements that have idle handles. An
//! element counts the handles it has open and how many are in use: a hit takes an idle one
//! (O(1)); a miss opens one more (the definition from the definition cache, loading it only
//! when absent). A [`TableHandle`] remembers its instance and element index, so release is
//! a lock and an index, no second lookup. A definition links to its element in every
//! instance ([`DefinitionEntry`]'s `element_of`), which invalidation uses to close idle
//! handles without searching.
//!
//! # Capacity: shares and borrowing
//! `table_open_cache` bounds the handles of all instances together, not of each: a single
//! busy connection (one instance) may use the whole cache while the other instances are
//! idle. Each instance has a *share*, `table_open_cache / instances` (the first
//! `table_open_cache % instances` get one more, so the shares sum to the capacity), and
//! may hold more than its share while the cache as a whole has room. The cache keeps an
//! atomic count of all handles and a 64-bit mask of the instances over their share (at
//! most 64 instances), both changed under the instance's own lock, and only when a handle
//! opens or closes: a hit touches neither. When an open or a release leaves the cache over
//! capacity, handles are closed, least recently used idle handle of an instance first
//! (`Table_open_cache_overflows`):
//! 1. in the other instances over their share (they borrowed room while it was free), in
//!    instance order after the one that grew, each while it stays over its share;
//! 2. then in the instance that grew, while it is over its share.
//!
//! When no other instance is over its share (the usual case) step 2 runs under the lock
//! already held; otherwise the instance's lock is let go first, and each other instance's
//! lock is taken alone (never two instance locks at once). Each step is O(1) per closed
//! handle: a mask test finds the instances (at most 64 bits), an LRU tail the handle.
//! Handles in use are never closed, so `Open_tables` exceeds the capacity only by handles
//! in use: after both steps every instance still over its share has no idle handle, and
//! the idle handles of the others fit in their shares. Two busy connections on different
//! instances each keep at least their share; one busy connection keeps the capacity less
//! what the idle instances hold within their shares.
//!
//! # Invalidation (DDL, FLUSH TABLES)
//! [`TableCache::invalidate`] is a metadata lock: it marks the key `Exclusive` (new opens
//! wait on the condition variable), marks the cached definition stale (its handles close on
//! release instead of returning to the LRU), closes its idle handles, and waits — on the
//! condition, never spinning — until the handles in use are released, up to the lock wait
//! timeout. The returned [`ExclusiveGuard`] hands the old definition to the DDL; dropping
//! the guard lets the next open load the new state. A wait that times out puts the old
//! definition back as it was.
//!
//! # Lock order
//! An instance lock is never held while a definition shard lock is taken (element removal
//! collects the definitions to release and releases them after unlocking), and a definition
//! shard lock is never held across another lock or the loader, so there is no lock cycle.

use crate::sync;
#[cfg(test)]
mod tests;

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};
use std::ops::Deref;
use std::sync::Arc;
use std::time::{Duration, Instant};
use sync::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Condvar, Mutex, Ordering};

/// The maps of table keys: foldhash (seeded per process) hashes a short key in a fraction of
/// SipHash's time, and every statement hashes its tables' keys.
type KeyMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What the engine caches per table.
pub trait Definition: Send + Sync + 'static {
    /// Bytes this definition holds, charged against `table_definition_cache_size`.
    fn footprint(&self) -> usize;
    /// Whether nothing outside the cache still refers to it (only then may it be evicted).
    fn is_idle(&self) -> bool {
        true
    }
}

/// Sizes, named after the MySQL variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableCacheConfig {
    /// `table_open_cache`: handles kept open over all instances.
    pub table_open_cache: usize,
    /// `table_open_cache_instances`: fixed for the life of the cache.
    pub table_open_cache_instances: usize,
    /// `table_definition_cache`: definitions kept.
    pub table_definition_cache: usize,
    /// `table_definition_cache_size`: bytes of definitions kept.
    pub table_definition_cache_size: usize,
}

impl Default for TableCacheConfig {
    fn default() -> Self {
        TableCacheConfig {
            table_open_cache: 4000,
            table_open_cache_instances: 16,
            table_definition_cache: 2000,
            table_definition_cache_size: 64 << 20,
        }
    }
}

/// Counters with MySQL's names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableCacheStats {
    /// `Open_tables`: handles open (idle and in use).
    pub open_tables: u64,
    /// `Opened_tables`: handles opened since start.
    pub opened_tables: u64,
    pub table_open_cache_hits: u64,
    pub table_open_cache_misses: u64,
    pub table_open_cache_overflows: u64,
    /// Handles in use now.
    pub tables_in_use: u64,
    pub open_table_definitions: u64,
    pub opened_table_definitions: u64,
    /// Bytes of the definitions cached now.
    pub table_definition_bytes: u64,
}

/// Why an acquire failed.
#[derive(Debug, PartialEq, Eq)]
pub enum AcquireError<E> {
    /// The engine's loader failed (nothing was cached).
    Open(E),
    /// A DDL held the table longer than the lock wait timeout.
    LockWaitTimeout,
}

/// The metadata lock could not be taken within the lock wait timeout.
#[derive(Debug, PartialEq, Eq)]
pub struct LockWaitTimeout;

const NONE: u32 = u32::MAX;
const DEFINITION_SHARDS: usize = 32;

// ---- an intrusive LRU list over a slab ----

struct Node<T> {
    value: Option<T>,
    prev: u32,
    next: u32,
    linked: bool,
}

/// A slab whose entries may be linked into one LRU list (head = most recent). Every
/// operation is O(1); indexes stay valid until the entry is removed.
struct LinkedSlab<T> {
    nodes: Vec<Node<T>>,
    free: Vec<u32>,
    head: u32,
    tail: u32,
    live: usize,
}

impl<T> LinkedSlab<T> {
    fn new() -> Self {
        LinkedSlab {
            nodes: Vec::new(),
            free: Vec::new(),
            head: NONE,
            tail: NONE,
            live: 0,
        }
    }

    fn insert(&mut self, value: T) -> u32 {
        self.live += 1;
        let node = Node {
            value: Some(value),
            prev: NONE,
            next: NONE,
            linked: false,
        };
        match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    fn get(&self, i: u32) -> Option<&T> {
        self.nodes.get(i as usize).and_then(|n| n.value.as_ref())
    }

    fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.nodes
            .get_mut(i as usize)
            .and_then(|n| n.value.as_mut())
    }

    fn remove(&mut self, i: u32) -> Option<T> {
        self.unlink(i);
        let value = self.nodes.get_mut(i as usize)?.value.take()?;
        self.free.push(i);
        self.live -= 1;
        Some(value)
    }

    fn unlink(&mut self, i: u32) {
        let Some(n) = self.nodes.get(i as usize) else {
            return;
        };
        if !n.linked {
            return;
        }
        let (prev, next) = (n.prev, n.next);
        if prev == NONE {
            self.head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NONE {
            self.tail = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
        let n = &mut self.nodes[i as usize];
        n.linked = false;
        n.prev = NONE;
        n.next = NONE;
    }

    /// Link `i` as the most recently used (moving it if linked).
    fn link_front(&mut self, i: u32) {
        if self.nodes.get(i as usize).is_none_or(|n| n.value.is_none()) {
            return;
        }
        self.unlink(i);
        let old_head = self.head;
        {
            let n = &mut self.nodes[i as usize];
            n.linked = true;
            n.prev = NONE;
            n.next = old_head;
        }
        if old_head == NONE {
            self.tail = i;
        } else {
            self.nodes[old_head as usize].prev = i;
        }
        self.head = i;
    }

    /// The least recently used linked entry.
    fn lru(&self) -> Option<u32> {
        (self.tail != NONE).then_some(self.tail)
    }

    fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.value.as_ref().map(|v| (i as u32, v)))
    }
}

// ---- definitions ----

/// One cached table definition (see the module documentation).
pub struct DefinitionEntry<K, D> {
    key: K,
    value: D,
    bytes: usize,
    /// Set by invalidation: no new handle is opened on it, released handles close.
    stale: AtomicBool,
    /// Instance elements that hold it; changed under its shard lock. At 0 it is idle and
    /// sits on its shard's LRU.
    elements: AtomicUsize,
    /// Handles in use over all instances; invalidation waits for 0.
    in_use: AtomicUsize,
    /// Its node on the shard's idle LRU (under the shard lock).
    idle_node: AtomicU32,
    /// Its element index in each instance, `NONE` if none (under that instance's lock).
    element_of: Box<[AtomicU32]>,
}

impl<K, D> DefinitionEntry<K, D> {
    pub fn key(&self) -> &K {
        &self.key
    }
    pub fn value(&self) -> &D {
        &self.value
    }
    /// Whether a DDL or FLUSH TABLES invalidated it.
    pub fn is_stale(&self) -> bool {
        self.stale.load(Ordering::SeqCst)
    }
    /// Handles in use now.
    pub fn in_use(&self) -> usize {
        self.in_use.load(Ordering::SeqCst)
    }
}

enum DefSlot<K, D> {
    Ready(Arc<DefinitionEntry<K, D>>),
    Loading,
    Exclusive,
}

struct DefShardState<K, D> {
    map: KeyMap<K, DefSlot<K, D>>,
    idle: LinkedSlab<Arc<DefinitionEntry<K, D>>>,
}

#[repr(align(128))]
struct DefShard<K, D> {
    state: Mutex<DefShardState<K, D>>,
    /// Notified when a slot leaves `Loading` or `Exclusive`, and when a stale definition's
    /// last handle in use is released.
    changed: Condvar,
}

// ---- instances ----

struct Element<K, D> {
    /// Its key is `def.key`.
    def: Arc<DefinitionEntry<K, D>>,
    handles: u32,
    in_use: u32,
}

struct InstanceState<K, D> {
    map: KeyMap<K, u32>,
    /// Elements; linked into the LRU exactly when they have an idle handle.
    elements: LinkedSlab<Element<K, D>>,
    handles: usize,
    /// Whether this instance's bit is set in [`TableCache::over_share`].
    over_share: bool,
    hits: u64,
    misses: u64,
    overflows: u64,
}

#[repr(align(128))]
struct Instance<K, D> {
    state: Mutex<InstanceState<K, D>>,
}

/// See the module documentation.
pub struct TableCache<K, D> {
    def_shards: Box<[DefShard<K, D>]>,
    instances: Box<[Instance<K, D>]>,
    hasher: foldhash::fast::RandomState,
    open_capacity: AtomicUsize,
    /// Handles open over all instances (changed under the instance locks).
    open_handles: AtomicUsize,
    /// Bit `i` set when instance `i` holds more handles than its share (see
    /// [`TableCache::share`]): where an instance that needs room looks for handles to close.
    over_share: AtomicU64,
    def_count_limit: AtomicUsize,
    def_bytes_limit: AtomicUsize,
    def_count: AtomicUsize,
    def_bytes: AtomicUsize,
    idle_defs: AtomicUsize,
    opened_defs: AtomicU64,
    trim_cursor: AtomicUsize,
}

/// A table handle in use. Dropping it releases it to its instance (O(1), no lookup).
pub struct TableHandle<K: Hash + Eq + Clone, D: Definition> {
    cache: Arc<TableCache<K, D>>,
    instance: u32,
    element: u32,
    def: Arc<DefinitionEntry<K, D>>,
}

impl<K: Hash + Eq + Clone, D: Definition> TableHandle<K, D> {
    pub fn definition(&self) -> &Arc<DefinitionEntry<K, D>> {
        &self.def
    }
}

impl<K: Hash + Eq + Clone, D: Definition> Deref for TableHandle<K, D> {
    type Target = D;
    fn deref(&self) -> &D {
        &self.def.value
    }
}

impl<K: Hash + Eq + Clone, D: Definition> Drop for TableHandle<K, D> {
    fn drop(&mut self) {
        self.cache.release(self.instance, self.element, &self.def);
    }
}

/// The metadata lock of one key, held by a DDL (see [`TableCache::invalidate`]).
pub struct ExclusiveGuard<'a, K: Hash + Eq + Clone, D: Definition> {
    cache: &'a TableCache<K, D>,
    key: Option<K>,
    previous: Option<Arc<DefinitionEntry<K, D>>>,
}

impl<K: Hash + Eq + Clone, D: Definition> ExclusiveGuard<'_, K, D> {
    /// The definition that was cached when the lock was taken (now stale, no handle in use).
    pub fn previous(&self) -> Option<&D> {
        self.previous.as_ref().map(|d| &d.value)
    }
}

impl<K: Hash + Eq + Clone, D: Definition> Drop for ExclusiveGuard<'_, K, D> {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else { return };
        let shard = self.cache.def_shard(&key);
        let mut s = shard.state.lock();
        if matches!(s.map.get(&key), Some(DefSlot::Exclusive)) {
            s.map.remove(&key);
        }
        shard.changed.notify_all();
        drop(s);
        // The old definition (and with it the engine's object) goes outside every lock.
        drop(self.previous.take());
    }
}

/// Removes a `Loading` slot if the loader panics, so that waiters do not wait forever.
struct LoadingGuard<'a, K: Hash + Eq + Clone + Borrow<Q>, D: Definition, Q: Hash + Eq + ?Sized> {
    cache: &'a TableCache<K, D>,
    key: Option<&'a Q>,
}

impl<K: Hash + Eq + Clone + Borrow<Q>, D: Definition, Q: Hash + Eq + ?Sized> Drop
    for LoadingGuard<'_, K, D, Q>
{
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let shard = self.cache.def_shard(key);
            let mut s = shard.state.lock();
            if matches!(s.map.get(key), Some(DefSlot::Loading)) {
                s.map.remove(key);
            }
            shard.changed.notify_all();
        }
    }
}

impl<K: Hash + Eq + Clone, D: Definition> TableCache<K, D> {
    pub fn new(config: TableCacheConfig) -> Arc<Self> {
        let instances = config.table_open_cache_instances.clamp(1, 64);
        Arc::new(TableCache {
            def_shards: (0..DEFINITION_SHARDS)
                .map(|_| DefShard {
                    state: Mutex::new(DefShardState {
                        map: KeyMap::default(),
                        idle: LinkedSlab::new(),
                    }),
                    changed: Condvar::new(),
                })
                .collect(),
            instances: (0..instances)
                .map(|_| Instance {
                    state: Mutex::new(InstanceState {
                        map: KeyMap::default(),
                        elements: LinkedSlab::new(),
                        handles: 0,
                        over_share: false,
                        hits: 0,
                        misses: 0,
                        overflows: 0,
                    }),
                })
                .collect(),
            hasher: Default::default(),
            open_capacity: AtomicUsize::new(config.table_open_cache.max(1)),
            open_handles: AtomicUsize::new(0),
            over_share: AtomicU64::new(0),
            def_count_limit: AtomicUsize::new(config.table_definition_cache.max(1)),
            def_bytes_limit: AtomicUsize::new(config.table_definition_cache_size),
            def_count: AtomicUsize::new(0),
            def_bytes: AtomicUsize::new(0),
            idle_defs: AtomicUsize::new(0),
            opened_defs: AtomicU64::new(0),
            trim_cursor: AtomicUsize::new(0),
        })
    }

    /// The number of instances.
    pub fn instance_count(&self) -> usize {
        self.instances.len()
    }

    fn def_shard<Q: Hash + ?Sized>(&self, key: &Q) -> &DefShard<K, D> {
        &self.def_shards[(self.hasher.hash_one(key) as usize) % DEFINITION_SHARDS]
    }

    /// The handles instance `i` keeps however busy the others are: `table_open_cache` split
    /// evenly (the first `table_open_cache % instances` instances get one more), so the
    /// shares sum to the capacity. An instance may hold more while the cache as a whole has
    /// room; see [`TableCache::make_room`].
    fn share(&self, i: usize) -> usize {
        let capacity = self.open_capacity.load(Ordering::Relaxed);
        let n = self.instances.len();
        capacity / n + usize::from(i < capacity % n)
    }

    fn over_capacity(&self) -> bool {
        self.open_handles.load(Ordering::Relaxed) > self.open_capacity.load(Ordering::Relaxed)
    }

    /// Instances other than `i` that are over their share.
    fn others_over_share(&self, i: usize) -> u64 {
        self.over_share.load(Ordering::Relaxed) & !(1u64 << i)
    }

    /// Count `n` handles opened in instance `i` (its lock held).
    fn opened_handles(&self, i: usize, inst: &mut InstanceState<K, D>, n: usize) {
        inst.handles += n;
        self.open_handles.fetch_add(n, Ordering::Relaxed);
        self.mark_share(i, inst);
    }

    /// Count `n` handles closed in instance `i` (its lock held).
    fn closed_handles(&self, i: usize, inst: &mut InstanceState<K, D>, n: usize) {
        inst.handles -= n;
        self.open_handles.fetch_sub(n, Ordering::Relaxed);
        self.mark_share(i, inst);
    }

    /// Keep instance `i`'s bit in `over_share` in step with its handles (its lock held).
    fn mark_share(&self, i: usize, inst: &mut InstanceState<K, D>) {
        let over = inst.handles > self.share(i);
        if over != inst.over_share {
            inst.over_share = over;
            if over {
                self.over_share.fetch_or(1u64 << i, Ordering::Relaxed);
            } else {
                self.over_share.fetch_and(!(1u64 << i), Ordering::Relaxed);
            }
        }
    }

    /// After instance `i` (its lock held) opened a handle or had one released: when the
    /// cache is over capacity and no other instance is over its share, close `i`'s own
    /// least recently used idle handles at once (one lock: the common case of one busy
    /// connection). Returns whether [`TableCache::make_room`] must still run, after the
    /// lock is let go (other instances are over their share).
    fn shed_own(
        &self,
        i: usize,
        inst: &mut InstanceState<K, D>,
        released: &mut Vec<Arc<DefinitionEntry<K, D>>>,
    ) -> bool {
        if !self.over_capacity() {
            return false;
        }
        if self.others_over_share(i) != 0 {
            return true;
        }
        self.shed(i, inst, released);
        false
    }

    /// Bring the cache back within `table_open_cache` after instance `i` grew: first close
    /// idle handles of the other instances that are over their share (they borrowed room
    /// while it was free), in instance order after `i`, then `i`'s own while it is over its
    /// share. One instance lock at a time; no lock may be held by the caller. Handles in use
    /// are never closed, so the cache stays over capacity only by handles in use.
    fn make_room(&self, i: usize) {
        if !self.over_capacity() {
            return;
        }
        let mask = self.others_over_share(i);
        let after = if i >= 63 {
            0
        } else {
            mask & (u64::MAX << (i + 1))
        };
        let mut released = Vec::new();
        for mut bits in [after, mask & !after] {
            while bits != 0 && self.over_capacity() {
                let j = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let mut guard = self.instances[j].state.lock();
                self.shed(j, &mut guard, &mut released);
            }
        }
        if self.over_capacity() {
            let mut guard = self.instances[i].state.lock();
            self.shed(i, &mut guard, &mut released);
        }
        for d in released {
            self.release_definition(d);
        }
    }

    /// Close instance `j`'s least recently used idle handles while the cache is over
    /// capacity and `j` is over its share (`Table_open_cache_overflows`).
    fn shed(
        &self,
        j: usize,
        inst: &mut InstanceState<K, D>,
        released: &mut Vec<Arc<DefinitionEntry<K, D>>>,
    ) {
        while self.over_capacity() && inst.handles > self.share(j) {
            let Some(victim) = inst.elements.lru() else {
                return;
            };
            inst.overflows += 1;
            self.close_idle_handles(j, inst, victim, 1, released);
        }
    }

    /// A handle on `key` from the instance `instance_hint` picks: an idle cached handle, or
    /// a new one on the cached definition, or on a definition `open` loads (single-flight,
    /// outside every lock). Waits up to `timeout` for a DDL holding the key; a definition a
    /// DDL takes between its load and the handle is loaded again after the DDL.
    pub fn acquire<Q, E>(
        self: &Arc<Self>,
        instance_hint: usize,
        key: &Q,
        timeout: Duration,
        mut open: impl FnMut() -> Result<D, E>,
    ) -> Result<TableHandle<K, D>, AcquireError<E>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let i = instance_hint % self.instances.len();
        // The clock is read only once the hit path failed.
        let mut deadline = None;
        loop {
            if let Some(handle) = self.acquire_cached(i, key) {
                return Ok(handle);
            }
            let deadline = *deadline.get_or_insert_with(|| Instant::now() + timeout);
            let timeout = deadline.saturating_duration_since(Instant::now());
            let def = self.acquire_definition(key, timeout, &mut open)?;
            if let Some(handle) = self.attach(i, key, def) {
                return Ok(handle);
            }
        }
    }

    /// Look at the cached definition of `key` (loaded, not stale) without opening a handle,
    /// touching an LRU or counting a hit: for a reader that only inspects it, such as a
    /// statement's compile (the statement opens the table when it runs). `None` when the
    /// definition is not cached, is loading or is held by a DDL: open it instead.
    pub fn peek_definition<Q, R>(&self, key: &Q, inspect: impl FnOnce(&D) -> R) -> Option<R>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let shard = self.def_shard(key);
        let s = shard.state.lock();
        match s.map.get(key) {
            Some(DefSlot::Ready(def)) if !def.is_stale() => Some(inspect(&def.value)),
            _ => None,
        }
    }

    /// Give a handle on `def` (one element reference held by the caller) from instance `i`;
    /// `None` when `def` went stale meanwhile (a DDL took it: try again).
    fn attach<Q>(
        self: &Arc<Self>,
        i: usize,
        key: &Q,
        def: Arc<DefinitionEntry<K, D>>,
    ) -> Option<TableHandle<K, D>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        def.in_use.fetch_add(1, Ordering::SeqCst);
        if def.is_stale() {
            self.undo_in_use(&def);
            self.release_definition(def);
            return None;
        }
        let mut released = Vec::new();
        let (element, more) = {
            let mut guard = self.instances[i].state.lock();
            let inst = &mut *guard;
            let existing = inst.map.get(key).copied().filter(|&e| {
                inst.elements
                    .get(e)
                    .is_some_and(|e| Arc::ptr_eq(&e.def, &def))
            });
            let element = match existing {
                Some(e) => {
                    // Another connection of this instance made the element meanwhile: it
                    // holds the definition already, so give back the reference taken above.
                    released.push(Arc::clone(&def));
                    e
                }
                None => {
                    let e = inst.elements.insert(Element {
                        def: Arc::clone(&def),
                        handles: 0,
                        in_use: 0,
                    });
                    // A stale element of the same key (old definition) stays until its
                    // handles are released.
                    inst.map.insert(key.to_owned(), e);
                    def.element_of[i].store(e, Ordering::Relaxed);
                    e
                }
            };
            if let Some(el) = inst.elements.get_mut(element) {
                el.handles += 1;
                el.in_use += 1;
            }
            self.opened_handles(i, inst, 1);
            inst.misses += 1;
            let more = self.shed_own(i, inst, &mut released);
            (element, more)
        };
        Some(self.hand_out(i, element, def, released, more))
    }

    /// The end of an acquire, with instance `i`'s lock dropped: give back the definition
    /// references `released`, make room in other instances when `more`, and hand out the
    /// handle on `element`.
    #[inline]
    fn hand_out(
        self: &Arc<Self>,
        i: usize,
        element: u32,
        def: Arc<DefinitionEntry<K, D>>,
        released: Vec<Arc<DefinitionEntry<K, D>>>,
        more: bool,
    ) -> TableHandle<K, D> {
        for d in released {
            self.release_definition(d);
        }
        if more {
            self.make_room(i);
        }
        TableHandle {
            cache: Arc::clone(self),
            instance: i as u32,
            element,
            def,
        }
    }

    /// Take back an in-use count that found its definition stale; wake a waiting DDL.
    fn undo_in_use(&self, def: &Arc<DefinitionEntry<K, D>>) {
        if def.in_use.fetch_sub(1, Ordering::SeqCst) == 1 {
            let shard = self.def_shard(&def.key);
            let _s = shard.state.lock();
            shard.changed.notify_all();
        }
    }

    /// The hit path: an element of a live definition in this instance.
    fn acquire_cached<Q>(self: &Arc<Self>, i: usize, key: &Q) -> Option<TableHandle<K, D>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let mut released = Vec::new();
        let mut more = false;
        let (element, def) = {
            let mut guard = self.instances[i].state.lock();
            let inst = &mut *guard;
            let element = *inst.map.get(key)?;
            let el = inst.elements.get_mut(element)?;
            // In use first, then the stale check (both SeqCst; invalidation does the
            // reverse), so a DDL either sees this use or this acquire sees the DDL.
            el.def.in_use.fetch_add(1, Ordering::SeqCst);
            if el.def.is_stale() {
                let def = Arc::clone(&el.def);
                drop(guard);
                self.undo_in_use(&def);
                return None;
            }
            let def = Arc::clone(&el.def);
            if el.handles > el.in_use {
                el.in_use += 1;
                if el.handles == el.in_use {
                    inst.elements.unlink(element);
                }
                inst.hits += 1;
            } else {
                el.handles += 1;
                el.in_use += 1;
                self.opened_handles(i, inst, 1);
                inst.misses += 1;
                more = self.shed_own(i, inst, &mut released);
            }
            (element, def)
        };
        Some(self.hand_out(i, element, def, released, more))
    }

    /// Close up to `n` idle handles of element `index`; remove it when none remain.
    fn close_idle_handles(
        &self,
        i: usize,
        inst: &mut InstanceState<K, D>,
        index: u32,
        n: u32,
        released: &mut Vec<Arc<DefinitionEntry<K, D>>>,
    ) {
        let Some(el) = inst.elements.get_mut(index) else {
            return;
        };
        let closing = n.min(el.handles - el.in_use);
        el.handles -= closing;
        let (handles, in_use) = (el.handles, el.in_use);
        self.closed_handles(i, inst, closing as usize);
        if handles == in_use {
            inst.elements.unlink(index);
        }
        if handles == 0 {
            Self::remove_element(i, inst, index, released);
        }
    }

    fn remove_element(
        i: usize,
        inst: &mut InstanceState<K, D>,
        index: u32,
        released: &mut Vec<Arc<DefinitionEntry<K, D>>>,
    ) {
        if let Some(el) = inst.elements.remove(index) {
            if inst.map.get(&el.def.key) == Some(&index) {
                inst.map.remove(&el.def.key);
            }
            let _ = el.def.element_of[i].compare_exchange(
                index,
                NONE,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            released.push(el.def);
        }
    }

    /// A handle goes back to its instance (or closes, if its definition went stale).
    fn release(&self, i: u32, element: u32, def: &Arc<DefinitionEntry<K, D>>) {
        let i = i as usize;
        let mut released = Vec::new();
        let mut more = false;
        {
            let mut guard = self.instances[i].state.lock();
            let inst = &mut *guard;
            if let Some(el) = inst.elements.get_mut(element) {
                el.in_use -= 1;
                if def.is_stale() {
                    el.handles -= 1;
                    let (handles, in_use) = (el.handles, el.in_use);
                    self.closed_handles(i, inst, 1);
                    if handles == in_use {
                        inst.elements.unlink(element);
                    }
                    if handles == 0 {
                        Self::remove_element(i, inst, element, &mut released);
                    }
                } else {
                    inst.elements.link_front(element);
                    more = self.shed_own(i, inst, &mut released);
                }
            }
        }
        let last_in_use = def.in_use.fetch_sub(1, Ordering::SeqCst) == 1;
        if last_in_use && def.is_stale() {
            // A DDL may be waiting for the handles in use to drain.
            let shard = self.def_shard(&def.key);
            let _s = shard.state.lock();
            shard.changed.notify_all();
        }
        for d in released {
            self.release_definition(d);
        }
        if more {
            self.make_room(i);
        }
    }

    /// The cached definition of `key` with one element reference taken, loading it with
    /// `open` (outside every lock, one loader per key) when absent.
    fn acquire_definition<Q, E>(
        &self,
        key: &Q,
        timeout: Duration,
        open: impl FnOnce() -> Result<D, E>,
    ) -> Result<Arc<DefinitionEntry<K, D>>, AcquireError<E>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let shard = self.def_shard(key);
        let deadline = Instant::now() + timeout;
        let mut s = shard.state.lock();
        loop {
            match s.map.get(key) {
                Some(DefSlot::Ready(def)) => {
                    let def = Arc::clone(def);
                    if def.elements.fetch_add(1, Ordering::SeqCst) == 0 {
                        let node = def.idle_node.swap(NONE, Ordering::Relaxed);
                        if node != NONE {
                            s.idle.remove(node);
                            self.idle_defs.fetch_sub(1, Ordering::Relaxed);
                        }
                    }
                    return Ok(def);
                }
                Some(DefSlot::Loading) | Some(DefSlot::Exclusive) => {
                    let (back, timed_out) = sync::wait_until(&shard.changed, s, deadline);
                    s = back;
                    if timed_out {
                        return Err(AcquireError::LockWaitTimeout);
                    }
                }
                None => break,
            }
        }
        s.map.insert(key.to_owned(), DefSlot::Loading);
        drop(s);
        let mut loading = LoadingGuard {
            cache: self,
            key: Some(key),
        };
        let result = open();
        loading.key = None;
        let mut s = shard.state.lock();
        let out = match result {
            Ok(value) => {
                let bytes = value.footprint();
                let def = Arc::new(DefinitionEntry {
                    key: key.to_owned(),
                    value,
                    bytes,
                    stale: AtomicBool::new(false),
                    elements: AtomicUsize::new(1),
                    in_use: AtomicUsize::new(0),
                    idle_node: AtomicU32::new(NONE),
                    element_of: (0..self.instances.len())
                        .map(|_| AtomicU32::new(NONE))
                        .collect(),
                });
                // The slot is this load's `Loading` (waiters never remove it): replaced in
                // place, without a second copy of the key.
                match s.map.get_mut(key) {
                    Some(slot) => *slot = DefSlot::Ready(Arc::clone(&def)),
                    None => {
                        s.map
                            .insert(key.to_owned(), DefSlot::Ready(Arc::clone(&def)));
                    }
                }
                self.def_count.fetch_add(1, Ordering::Relaxed);
                self.def_bytes.fetch_add(bytes, Ordering::Relaxed);
                self.opened_defs.fetch_add(1, Ordering::Relaxed);
                Ok(def)
            }
            Err(e) => {
                s.map.remove(key);
                Err(AcquireError::Open(e))
            }
        };
        shard.changed.notify_all();
        drop(s);
        self.trim();
        out
    }

    /// Give back one element reference; the last makes the definition idle (LRU head).
    fn release_definition(&self, def: Arc<DefinitionEntry<K, D>>) {
        let shard = self.def_shard(&def.key);
        {
            let mut s = shard.state.lock();
            if def.elements.fetch_sub(1, Ordering::SeqCst) == 1 && !def.is_stale() {
                let cached =
                    matches!(s.map.get(&def.key), Some(DefSlot::Ready(d)) if Arc::ptr_eq(d, &def));
                if cached && def.idle_node.load(Ordering::Relaxed) == NONE {
                    let node = s.idle.insert(Arc::clone(&def));
                    s.idle.link_front(node);
                    def.idle_node.store(node, Ordering::Relaxed);
                    self.idle_defs.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        drop(def);
        self.trim();
    }

    /// Evict idle definitions (LRU first, shard by shard) while over the count or byte
    /// limit. A definition the engine still refers to elsewhere ([`Definition::is_idle`])
    /// moves to the head instead; the effort per call is bounded.
    fn trim(&self) {
        let mut victims = Vec::new();
        let mut attempts = 0;
        while self.over_limits()
            && self.idle_defs.load(Ordering::Relaxed) > 0
            && attempts < 2 * DEFINITION_SHARDS
        {
            attempts += 1;
            let j = self.trim_cursor.fetch_add(1, Ordering::Relaxed) % DEFINITION_SHARDS;
            let shard = &self.def_shards[j];
            let mut s = shard.state.lock();
            let Some(node) = s.idle.lru() else {
                continue;
            };
            let Some(def) = s.idle.get(node).cloned() else {
                continue;
            };
            if !def.value.is_idle() {
                s.idle.link_front(node);
                continue;
            }
            s.idle.remove(node);
            def.idle_node.store(NONE, Ordering::Relaxed);
            self.idle_defs.fetch_sub(1, Ordering::Relaxed);
            if matches!(s.map.get(&def.key), Some(DefSlot::Ready(d)) if Arc::ptr_eq(d, &def)) {
                s.map.remove(&def.key);
                self.def_count.fetch_sub(1, Ordering::Relaxed);
                self.def_bytes.fetch_sub(def.bytes, Ordering::Relaxed);
            }
            drop(s);
            victims.push(def);
        }
        // The engine's objects are dropped here, outside every lock (their drop may do I/O).
        drop(victims);
    }

    fn over_limits(&self) -> bool {
        self.def_count.load(Ordering::Relaxed) > self.def_count_limit.load(Ordering::Relaxed)
            || self.def_bytes.load(Ordering::Relaxed) > self.def_bytes_limit.load(Ordering::Relaxed)
    }

    /// Take the metadata lock of `key` for a DDL (see the module documentation): waits up to
    /// `timeout` for a load or another DDL of the key and then for its handles in use.
    pub fn invalidate<Q>(
        &self,
        key: &Q,
        timeout: Duration,
    ) -> Result<ExclusiveGuard<'_, K, D>, LockWaitTimeout>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let deadline = Instant::now() + timeout;
        let shard = self.def_shard(key);
        let mut s = shard.state.lock();
        let previous = loop {
            match s.map.get(key) {
                Some(DefSlot::Loading) | Some(DefSlot::Exclusive) => {
                    let (back, timed_out) = sync::wait_until(&shard.changed, s, deadline);
                    s = back;
                    if timed_out {
                        return Err(LockWaitTimeout);
                    }
                }
                Some(DefSlot::Ready(def)) => {
                    let def = Arc::clone(def);
                    let node = def.idle_node.swap(NONE, Ordering::Relaxed);
                    if node != NONE {
                        s.idle.remove(node);
                        self.idle_defs.fetch_sub(1, Ordering::Relaxed);
                    }
                    self.def_count.fetch_sub(1, Ordering::Relaxed);
                    self.def_bytes.fetch_sub(def.bytes, Ordering::Relaxed);
                    def.stale.store(true, Ordering::SeqCst);
                    break Some(def);
                }
                None => break None,
            }
        };
        s.map.insert(key.to_owned(), DefSlot::Exclusive);
        drop(s);
        let guard = ExclusiveGuard {
            cache: self,
            key: Some(key.to_owned()),
            previous,
        };
        let Some(old) = guard.previous.clone() else {
            return Ok(guard);
        };
        self.close_idle_everywhere(&old);
        let mut s = shard.state.lock();
        while old.in_use.load(Ordering::SeqCst) > 0 {
            let (back, timed_out) = sync::wait_until(&shard.changed, s, deadline);
            s = back;
            if timed_out && old.in_use.load(Ordering::SeqCst) > 0 {
                // Give up: the old definition serves again, as if nothing happened.
                old.stale.store(false, Ordering::SeqCst);
                self.def_count.fetch_add(1, Ordering::Relaxed);
                self.def_bytes.fetch_add(old.bytes, Ordering::Relaxed);
                if old.elements.load(Ordering::SeqCst) == 0 {
                    let node = s.idle.insert(Arc::clone(&old));
                    s.idle.link_front(node);
                    old.idle_node.store(node, Ordering::Relaxed);
                    self.idle_defs.fetch_add(1, Ordering::Relaxed);
                }
                s.map
                    .insert(key.to_owned(), DefSlot::Ready(Arc::clone(&old)));
                shard.changed.notify_all();
                drop(s);
                let mut guard = guard;
                guard.key = None;
                return Err(LockWaitTimeout);
            }
        }
        drop(s);
        Ok(guard)
    }

    /// Close every idle handle of `def` in every instance, through its element links.
    fn close_idle_everywhere(&self, def: &Arc<DefinitionEntry<K, D>>) {
        let mut released = Vec::new();
        for (i, instance) in self.instances.iter().enumerate() {
            if def.element_of[i].load(Ordering::Relaxed) == NONE {
                continue;
            }
            let mut guard = instance.state.lock();
            let index = def.element_of[i].load(Ordering::Relaxed);
            if index == NONE {
                continue;
            }
            let inst = &mut *guard;
            if inst
                .elements
                .get(index)
                .is_some_and(|e| Arc::ptr_eq(&e.def, def))
            {
                self.close_idle_handles(i, inst, index, u32::MAX, &mut released);
            }
        }
        for d in released {
            self.release_definition(d);
        }
    }

    /// Keys of every cached definition (FLUSH TABLES).
    pub fn definition_keys(&self) -> Vec<K> {
        let mut out = Vec::new();
        for shard in self.def_shards.iter() {
            let s = shard.state.lock();
            out.extend(
                s.map
                    .iter()
                    .filter(|(_, slot)| matches!(slot, DefSlot::Ready(_)))
                    .map(|(k, _)| k.clone()),
            );
        }
        out
    }

    /// The tables with open handles and how many are in use (SHOW OPEN TABLES), summed over
    /// instances; a key appears once.
    pub fn open_tables(&self) -> Vec<(K, usize)> {
        let mut by_key: HashMap<K, usize> = HashMap::new();
        for instance in self.instances.iter() {
            let s = instance.state.lock();
            for (_, el) in s.elements.iter() {
                *by_key.entry(el.def.key.clone()).or_default() += el.in_use as usize;
            }
        }
        by_key.into_iter().collect()
    }

    /// `SET GLOBAL table_open_cache`: shrinking closes idle handles at once.
    pub fn set_open_cache_capacity(&self, capacity: usize) {
        self.open_capacity.store(capacity.max(1), Ordering::Relaxed);
        // The shares changed: every instance's bit first, then room from each in turn.
        for (i, instance) in self.instances.iter().enumerate() {
            let mut guard = instance.state.lock();
            self.mark_share(i, &mut guard);
        }
        for i in 0..self.instances.len() {
            self.make_room(i);
        }
    }

    /// `SET GLOBAL table_definition_cache` / `table_definition_cache_size`: shrinking evicts
    /// idle definitions at once.
    pub fn set_definition_limits(&self, count: usize, bytes: usize) {
        self.def_count_limit.store(count.max(1), Ordering::Relaxed);
        self.def_bytes_limit.store(bytes, Ordering::Relaxed);
        // Each pass is bounded; enough passes to empty every shard's idle list.
        let mut last = usize::MAX;
        while self.over_limits() {
            let idle = self.idle_defs.load(Ordering::Relaxed);
            if idle == 0 || idle == last {
                break;
            }
            last = idle;
            self.trim();
        }
    }

    pub fn stats(&self) -> TableCacheStats {
        let mut st = TableCacheStats::default();
        for instance in self.instances.iter() {
            let s = instance.state.lock();
            st.open_tables += s.handles as u64;
            st.table_open_cache_hits += s.hits;
            st.table_open_cache_misses += s.misses;
            st.table_open_cache_overflows += s.overflows;
            st.tables_in_use += s.elements.iter().map(|(_, e)| e.in_use as u64).sum::<u64>();
        }
        st.opened_tables = st.table_open_cache_misses;
        st.open_table_definitions = self.def_count.load(Ordering::Relaxed) as u64;
        st.opened_table_definitions = self.opened_defs.load(Ordering::Relaxed);
        st.table_definition_bytes = self.def_bytes.load(Ordering::Relaxed) as u64;
        st
    }

    /// FLUSH TABLES resets nothing of these counters in MySQL but `Opened_tables`-style
    /// history lives on; kept for FLUSH STATUS: zero the hit, miss and overflow counters.
    pub fn reset_counters(&self) {
        for instance in self.instances.iter() {
            let mut s = instance.state.lock();
            s.hits = 0;
            s.misses = 0;
            s.overflows = 0;
        }
        self.opened_defs.store(0, Ordering::Relaxed);
    }
}
