//! Named key caches (MariaDB's `SET GLOBAL hot.key_buffer_size = ...` and `CACHE INDEX t
//! IN hot`): a registry of [`KeyCache`]s (each made of one or more block cache segments)
//! that routes each file's blocks to the cache its table is assigned to, so that the engine
//! keeps calling `get(file, block)` and never names a cache.
//!
//! # Routing
//! - Cache 0 is `default` and is never destroyed; named caches get the next ids and are
//!   never freed while the registry lives (a destroyed cache is cleared and shrunk to its
//!   minimum, and comes back under the same id when its size is set again, made anew with
//!   its `key_cache_segments` if no table is assigned to it; the object it replaces is kept
//!   until the registry is dropped), so the lock-free lookup can hand out `&KeyCache`
//!   without reclamation.
//! - A *route* maps a file to a cache id. While no file is routed (`routed == 0`, the usual
//!   case) a request costs one relaxed load more than a plain cache. Otherwise the file is
//!   looked up in an open-addressing table of atomics (no lock, no shared write); writers
//!   (assignments, rare) hold a mutex and replace the table when it fills, keeping replaced
//!   tables until the registry is dropped (as the block cache keeps its index tables).
//! - Assignments are kept by table *name* as well (MariaDB's multi key cache keys them by
//!   file name), so a table that is closed and opened again, or rebuilt under a new file by
//!   ALTER, goes back to its cache: the engine calls [`KeyCaches::bind_file`] when it opens
//!   a table.
//! - Moving a table between caches ([`KeyCaches::assign`]) writes its dirty blocks in the
//!   old cache and drops them there. The caller must exclude every user of the table
//!   meanwhile (storage holds the table's metadata lock and writer lock): a page must never
//!   live in two caches at once.
//!
//! # Counters
//! MySQL's `Key_*` status variables are the default cache's ([`KeyCaches::stats`]); each
//! cache's own figures come from [`KeyCaches::caches`] (`information_schema.KEY_CACHES`).

use super::segments::KeyCache;
use super::{Block, BlockCacheStats, BlockIo, Prefetch};
use crate::file_cache::FileId;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// The most key caches (the default one included): ids index a fixed array, so a lookup
/// needs no lock. MariaDB has no limit; 256 is far more than configurations use.
pub const MAX_KEY_CACHES: usize = 256;

/// The name of the cache every table uses unless assigned elsewhere.
pub const DEFAULT_KEY_CACHE: &str = "default";

/// One open-addressing table of routes: keys are `file + 1` (0 = empty), values cache ids.
struct RouteTable {
    keys: Box<[AtomicU64]>,
    values: Box<[AtomicU32]>,
    mask: usize,
    len: AtomicUsize,
}

impl RouteTable {
    fn new(size: usize) -> RouteTable {
        let size = size.next_power_of_two().max(16);
        RouteTable {
            keys: (0..size).map(|_| AtomicU64::new(0)).collect(),
            values: (0..size).map(|_| AtomicU32::new(0)).collect(),
            mask: size - 1,
            len: AtomicUsize::new(0),
        }
    }

    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize & self.mask
    }

    fn find(&self, key: u64) -> Option<u32> {
        let mut pos = self.home(key);
        for _ in 0..=self.mask {
            let k = self.keys[pos].load(Ordering::Acquire);
            if k == 0 {
                return None;
            }
            if k == key {
                return Some(self.values[pos].load(Ordering::Acquire));
            }
            pos = (pos + 1) & self.mask;
        }
        None
    }

    /// Under the registry's mutex: set the value of `key`, inserting it if missing. Returns
    /// false when the table is too full to insert (the caller grows it).
    fn set(&self, key: u64, value: u32) -> bool {
        let mut pos = self.home(key);
        for _ in 0..=self.mask {
            let k = self.keys[pos].load(Ordering::Relaxed);
            if k == key {
                self.values[pos].store(value, Ordering::Release);
                return true;
            }
            if k == 0 {
                if (self.len.load(Ordering::Relaxed) + 1) * 2 > self.mask + 1 {
                    return false;
                }
                // The value first: a reader that sees the key sees its value.
                self.values[pos].store(value, Ordering::Release);
                self.keys[pos].store(key, Ordering::Release);
                self.len.fetch_add(1, Ordering::Relaxed);
                return true;
            }
            pos = (pos + 1) & self.mask;
        }
        false
    }
}

/// What the registry knows of one cache besides its blocks: its structured variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyCacheInfo {
    pub id: u32,
    pub name: String,
    /// `name.key_buffer_size`: 0 when the cache was never given a size or was destroyed.
    pub size_bytes: u64,
    /// `name.key_cache_division_limit` (applied to the cache whenever it has a size).
    pub division_limit: u64,
    /// `name.key_cache_age_threshold`.
    pub age_threshold: u64,
    /// `name.key_cache_segments`: the segments the cache is made with (see
    /// [`KeyCache`]); a change takes effect when the cache is next made.
    pub segments: u64,
    /// `name.key_cache_block_size`: the bytes a miss reads (see [`KeyCache::set_read_unit`]).
    pub read_unit: u64,
    /// False for a name only read (`SELECT @@zzz.key_buffer_size`) and never set: MariaDB
    /// reads such a cache's variables as 0.
    pub declared: bool,
}

impl KeyCacheInfo {
    /// `block_size`: the page, what a miss reads until `key_cache_block_size` is set.
    fn new(
        id: u32,
        name: &str,
        size_bytes: u64,
        block_size: usize,
        declared: bool,
    ) -> KeyCacheInfo {
        KeyCacheInfo {
            id,
            name: name.to_string(),
            size_bytes,
            division_limit: super::DEFAULT_DIVISION_LIMIT,
            age_threshold: super::DEFAULT_AGE_THRESHOLD,
            segments: 0,
            read_unit: block_size as u64,
            declared,
        }
    }
}

/// One of a key cache's structured variables, as [`KeyCaches::configure`] sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    DivisionLimit(u64),
    AgeThreshold(u64),
    Segments(u64),
    /// `key_cache_block_size` in bytes.
    ReadUnit(u64),
}

struct Admin {
    /// Every cache ever named, by id (0 = default); sizes as set.
    caches: Vec<KeyCacheInfo>,
    /// Table name (the engine's key) -> cache id, for tables assigned to a named cache.
    names: HashMap<String, u32>,
    /// File -> table name, for the files routed to a named cache (to unroute them).
    files: HashMap<FileId, String>,
}

/// See the module documentation.
pub struct KeyCaches {
    io: Arc<dyn BlockIo>,
    block_size: usize,
    /// Cache by id; null for ids not yet made. Replaced only while no table uses the cache
    /// (see [`KeyCaches::set_size`]); every cache made is freed in Drop.
    by_id: Box<[AtomicPtr<KeyCache>]>,
    /// Caches replaced in `by_id`, kept until Drop (a caller may still hold a reference).
    replaced: Mutex<Vec<*mut KeyCache>>,
    routes: AtomicPtr<RouteTable>,
    retired: Mutex<Vec<*mut RouteTable>>,
    /// Files routed to a cache other than the default one (0: no lookup at all).
    routed: AtomicUsize,
    /// Tables assigned to a named cache by name (0: `bind_file` takes no lock).
    named_tables: AtomicUsize,
    admin: Mutex<Admin>,
}

// SAFETY: the raw pointers (caches, route tables) are owned by the registry and freed only
// in Drop; all shared state is atomic or behind a mutex.
unsafe impl Send for KeyCaches {}
unsafe impl Sync for KeyCaches {}

impl KeyCaches {
    /// The registry with its default cache of `capacity_bytes` in `segments` segments
    /// (`key_cache_segments`; 0 = not segmented).
    pub fn new(
        capacity_bytes: usize,
        block_size: usize,
        segments: u64,
        io: Arc<dyn BlockIo>,
    ) -> KeyCaches {
        let default = Box::into_raw(Box::new(KeyCache::new(
            capacity_bytes,
            block_size,
            segments,
            Arc::clone(&io),
        )));
        let by_id: Box<[AtomicPtr<KeyCache>]> = (0..MAX_KEY_CACHES)
            .map(|_| AtomicPtr::new(std::ptr::null_mut()))
            .collect();
        by_id[0].store(default, Ordering::Release);
        KeyCaches {
            io,
            block_size,
            by_id,
            replaced: Mutex::new(Vec::new()),
            routes: AtomicPtr::new(Box::into_raw(Box::new(RouteTable::new(16)))),
            retired: Mutex::new(Vec::new()),
            routed: AtomicUsize::new(0),
            named_tables: AtomicUsize::new(0),
            admin: Mutex::new(Admin {
                caches: vec![KeyCacheInfo {
                    segments,
                    ..KeyCacheInfo::new(
                        0,
                        DEFAULT_KEY_CACHE,
                        capacity_bytes as u64,
                        block_size,
                        true,
                    )
                }],
                names: HashMap::new(),
                files: HashMap::new(),
            }),
        }
    }

    /// The cache with this id (made before any route or name could refer to it).
    fn by_id(&self, id: u32) -> &KeyCache {
        let p = self.by_id[id as usize].load(Ordering::Acquire);
        assert!(!p.is_null(), "key cache {id} routed before it was made");
        // SAFETY: caches are freed only in Drop.
        unsafe { &*p }
    }

    /// The default cache (`key_buffer_size`, the `Key_*` status variables).
    pub fn default_cache(&self) -> &KeyCache {
        self.by_id(0)
    }

    /// The cache a file's blocks go through.
    #[inline]
    pub fn cache_of(&self, file: FileId) -> &KeyCache {
        if self.routed.load(Ordering::Relaxed) == 0 {
            return self.default_cache();
        }
        // SAFETY: route tables are freed only in Drop.
        let table = unsafe { &*self.routes.load(Ordering::Acquire) };
        match table.find(file.wrapping_add(1)) {
            Some(id) => self.by_id(id),
            None => self.default_cache(),
        }
    }

    // ---- the block cache's operations, routed by file ----

    pub fn get(&self, file: FileId, block: u64) -> io::Result<Block> {
        self.cache_of(file).get(file, block)
    }
    pub fn create(&self, file: FileId, block: u64) -> io::Result<Block> {
        self.cache_of(file).create(file, block)
    }
    pub fn peek(&self, file: FileId, block: u64) -> Option<Block> {
        self.cache_of(file).peek(file, block)
    }
    pub fn prefetch(&self, file: FileId, block: u64, step: Prefetch) {
        self.cache_of(file).prefetch(file, block, step)
    }
    pub fn mark_dirty(&self, block: &Block, lsn: u64) {
        self.cache_of(block.file()).mark_dirty(block, lsn)
    }
    pub fn flush_file(&self, file: FileId) -> io::Result<()> {
        self.cache_of(file).flush_file(file)
    }
    /// Drop the file's blocks unwritten (the file is being deleted) and forget its route.
    pub fn discard_file(&self, file: FileId) {
        self.cache_of(file).discard_file(file);
        let mut admin = self.admin.lock();
        if admin.files.remove(&file).is_some() {
            self.set_route(file, 0);
        }
    }
    /// Every dirty block of every cache (checkpoint, shutdown).
    pub fn flush_all(&self) -> io::Result<()> {
        for cache in self.live() {
            cache.flush_all()?;
        }
        Ok(())
    }
    /// The `Key_*` status variables: the default cache's, as in MariaDB.
    pub fn stats(&self) -> BlockCacheStats {
        self.default_cache().stats()
    }
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// Every cache made so far (destroyed ones are empty): for write-back rounds.
    pub fn live(&self) -> Vec<&KeyCache> {
        let made = self.admin.lock().caches.len();
        (0..made)
            .filter_map(|i| {
                let p = self.by_id[i].load(Ordering::Acquire);
                // SAFETY: caches are freed only in Drop.
                (!p.is_null()).then(|| unsafe { &*p })
            })
            .collect()
    }

    // ---- named caches ----

    /// Every cache ever named, in creation order, with the cache object of those that have
    /// a size (`information_schema.KEY_CACHES` lists those).
    pub fn caches(&self) -> Vec<(KeyCacheInfo, Option<&KeyCache>)> {
        let admin = self.admin.lock();
        admin
            .caches
            .iter()
            .map(|c| {
                let cache = (c.size_bytes > 0).then(|| self.by_id(c.id));
                (c.clone(), cache)
            })
            .collect()
    }

    /// The cache named `name` (case-insensitive), if it was ever named.
    pub fn find(&self, name: &str) -> Option<KeyCacheInfo> {
        let admin = self.admin.lock();
        admin
            .caches
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
            .cloned()
    }

    /// The cache object of a cache with a size (`name.key_cache_division_limit`, ...).
    pub fn cache_named(&self, name: &str) -> Option<&KeyCache> {
        let info = self.find(name)?;
        (info.size_bytes > 0).then(|| self.by_id(info.id))
    }

    /// The id of a cache by name, reserving one for a name never seen (`declared` false
    /// until one of its variables is set): compiled statements refer to caches by id, so
    /// `SELECT @@hot.key_buffer_size` reads the cache made after it was compiled. Errors
    /// when [`MAX_KEY_CACHES`] names are taken.
    pub fn id_of(&self, name: &str) -> io::Result<u32> {
        let mut admin = self.admin.lock();
        Ok(self.declare_locked(&mut admin, name, false)?.id)
    }

    /// A cache by id (as [`KeyCaches::id_of`] gave it).
    pub fn info(&self, id: u32) -> Option<KeyCacheInfo> {
        self.admin.lock().caches.get(id as usize).cloned()
    }

    /// Set one of a cache's structured variables, naming the cache if it is new, as
    /// MariaDB does; a cache with a size applies them all at once: a new segment count
    /// re-segments it in place, keeping its blocks ([`KeyCache::resegment`], which fails
    /// while blocks of its last re-segmentation are still pinned; the count asked is kept
    /// and used when the cache is next made).
    pub fn configure(&self, name: &str, knob: Knob) -> io::Result<()> {
        let mut admin = self.admin.lock();
        let id = self.declare_locked(&mut admin, name, true)?.id;
        let info = &mut admin.caches[id as usize];
        let mut resegment = false;
        match knob {
            Knob::DivisionLimit(n) => info.division_limit = n,
            Knob::AgeThreshold(n) => info.age_threshold = n,
            Knob::Segments(n) => {
                resegment = n != info.segments;
                info.segments = n;
            }
            Knob::ReadUnit(n) => info.read_unit = n,
        }
        let info = info.clone();
        let p = self.by_id[id as usize].load(Ordering::Acquire);
        if p.is_null() {
            return Ok(());
        }
        // SAFETY: caches are freed only in Drop.
        let cache = unsafe { &*p };
        cache.set_division_limit(info.division_limit);
        cache.set_age_threshold(info.age_threshold);
        cache.set_read_unit(info.read_unit);
        if resegment && info.size_bytes > 0 {
            let bytes = usize::try_from(info.size_bytes).unwrap_or(usize::MAX);
            if let Err(e) = cache.resegment(bytes, info.segments) {
                // Refused: the variable keeps the count the cache has.
                admin.caches[id as usize].segments = cache.segments_shown();
                return Err(e);
            }
        }
        Ok(())
    }

    /// Under the admin mutex: whether cache `id` is a named cache no table is assigned to
    /// (no file routes to it, so it holds no block and no pin).
    fn unused_locked(admin: &Admin, id: u32) -> bool {
        id != 0 && !admin.names.values().any(|&c| c == id)
    }

    /// Under the admin mutex: put `cache` in place of cache `id`, keeping the old object
    /// until Drop (a caller may still hold a reference to it).
    fn replace_locked(&self, id: u32, cache: KeyCache) {
        let old = self.by_id[id as usize].swap(Box::into_raw(Box::new(cache)), Ordering::AcqRel);
        if !old.is_null() {
            self.replaced.lock().push(old);
        }
    }

    fn declare_locked(
        &self,
        admin: &mut Admin,
        name: &str,
        declared: bool,
    ) -> io::Result<KeyCacheInfo> {
        if let Some(c) = admin
            .caches
            .iter_mut()
            .find(|c| c.name.eq_ignore_ascii_case(name))
        {
            c.declared |= declared;
            return Ok(c.clone());
        }
        let id = admin.caches.len();
        if id >= MAX_KEY_CACHES {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("at most {MAX_KEY_CACHES} key caches"),
            ));
        }
        // The cache object itself is made when the cache is first given a size.
        let info = KeyCacheInfo::new(id as u32, name, 0, self.block_size, declared);
        admin.caches.push(info.clone());
        Ok(info)
    }

    /// `SET GLOBAL name.key_buffer_size = bytes` for a named cache: creates or resizes it
    /// (online, keeping what fits). `bytes == 0` destroys it: the caller must first move its
    /// tables back to the default cache ([`KeyCaches::tables_of`], [`KeyCaches::assign`]);
    /// then its blocks are written and dropped and it is shrunk to its minimum. A cache
    /// given a size again while no table is assigned to it is made anew with its current
    /// `key_cache_segments`.
    pub fn set_size(&self, name: &str, bytes: u64) -> io::Result<()> {
        let (info, was) = {
            let mut admin = self.admin.lock();
            let info = self.declare_locked(&mut admin, name, true)?;
            let entry = &mut admin.caches[info.id as usize];
            let was = entry.size_bytes;
            entry.size_bytes = bytes;
            let missing = self.by_id[info.id as usize]
                .load(Ordering::Acquire)
                .is_null();
            if bytes > 0 && (missing || (was == 0 && Self::unused_locked(&admin, info.id))) {
                self.replace_locked(info.id, self.make_cache(&info, bytes));
                return Ok(());
            }
            (info, was)
        };
        if bytes == 0 && was == 0 {
            return Ok(());
        }
        let cache = self.by_id(info.id);
        if info.id == 0 {
            return cache.resize(usize::try_from(bytes).unwrap_or(usize::MAX));
        }
        if bytes == 0 {
            if was > 0 {
                cache.flush_all()?;
                cache.clear();
                cache.resize(0)?;
            }
            return Ok(());
        }
        cache.resize(usize::try_from(bytes).unwrap_or(usize::MAX))
    }

    /// The tables (engine keys) assigned to the cache with this id.
    pub fn tables_of(&self, id: u32) -> Vec<String> {
        let admin = self.admin.lock();
        let mut tables: Vec<String> = admin
            .names
            .iter()
            .filter(|(_, c)| **c == id)
            .map(|(t, _)| t.clone())
            .collect();
        tables.sort();
        tables
    }

    /// The cache id a table (engine key) is assigned to (0: the default cache).
    pub fn assigned(&self, table: &str) -> u32 {
        self.admin.lock().names.get(table).copied().unwrap_or(0)
    }

    /// The engine opened `table` under `file`: route the file to the table's cache.
    pub fn bind_file(&self, file: FileId, table: &str) {
        // The usual case, no table assigned anywhere: no lock on the table-open path. (An
        // assignment runs under the table's metadata lock, which excludes opening it.)
        if self.named_tables.load(Ordering::Relaxed) == 0 {
            return;
        }
        let mut admin = self.admin.lock();
        let Some(&id) = admin.names.get(table) else {
            return;
        };
        if admin.files.insert(file, table.to_string()).is_none() {
            self.set_route(file, id);
        }
    }

    /// `CACHE INDEX table IN cache`: route `file` (the table's current file, if it has one)
    /// and the table's name to cache `id`, then write and drop the file's blocks in the
    /// cache it used before. The caller excludes every user of the table meanwhile.
    pub fn assign(&self, file: Option<FileId>, table: &str, id: u32) -> io::Result<()> {
        let old = {
            let mut admin = self.admin.lock();
            assert!((id as usize) < admin.caches.len(), "unknown key cache id");
            if self.by_id[id as usize].load(Ordering::Acquire).is_null() {
                // A cache named but never given a size: its tables still read through a
                // cache (of the smallest size) rather than around it.
                self.replace_locked(id, self.make_cache(&admin.caches[id as usize], 0));
            }
            if id == 0 {
                admin.names.remove(table);
                self.named_tables
                    .store(admin.names.len(), Ordering::Relaxed);
            } else {
                admin.names.insert(table.to_string(), id);
                self.named_tables
                    .store(admin.names.len(), Ordering::Relaxed);
            }
            let Some(file) = file else {
                return Ok(());
            };
            let old = self.cache_of(file) as *const KeyCache;
            if id == 0 {
                if admin.files.remove(&file).is_some() {
                    self.set_route(file, 0);
                }
            } else {
                admin.files.insert(file, table.to_string());
                self.set_route(file, id);
            }
            old
        };
        let Some(file) = file else { return Ok(()) };
        // SAFETY: caches are freed only in Drop.
        let old = unsafe { &*old };
        if !std::ptr::eq(old, self.cache_of(file)) {
            old.flush_file(file)?;
            old.discard_file(file);
        }
        Ok(())
    }

    /// A new cache object with a cache's variables.
    fn make_cache(&self, info: &KeyCacheInfo, bytes: u64) -> KeyCache {
        let cache = KeyCache::new(
            usize::try_from(bytes).unwrap_or(usize::MAX),
            self.block_size,
            info.segments,
            Arc::clone(&self.io),
        );
        cache.set_division_limit(info.division_limit);
        cache.set_age_threshold(info.age_threshold);
        cache.set_read_unit(info.read_unit);
        cache
    }

    /// Under the admin mutex: route `file` to cache `id` (0 = default).
    fn set_route(&self, file: FileId, id: u32) {
        let key = file.wrapping_add(1);
        // SAFETY: route tables are freed only in Drop.
        let table = unsafe { &*self.routes.load(Ordering::Acquire) };
        let before = table.find(key).unwrap_or(0);
        if !table.set(key, id) {
            // Full: a bigger table with the live routes only (routes to 0 are dropped).
            let live = (0..=table.mask)
                .filter(|&i| {
                    table.keys[i].load(Ordering::Relaxed) != 0
                        && table.values[i].load(Ordering::Relaxed) != 0
                })
                .count();
            let bigger = RouteTable::new(4 * (live + 1));
            for i in 0..=table.mask {
                let (k, v) = (
                    table.keys[i].load(Ordering::Relaxed),
                    table.values[i].load(Ordering::Relaxed),
                );
                if k != 0 && v != 0 {
                    bigger.set(k, v);
                }
            }
            bigger.set(key, id);
            let new = Box::into_raw(Box::new(bigger));
            let old = self.routes.swap(new, Ordering::AcqRel);
            self.retired.lock().push(old);
        }
        match (before != 0, id != 0) {
            (false, true) => {
                self.routed.fetch_add(1, Ordering::Relaxed);
            }
            (true, false) => {
                self.routed.fetch_sub(1, Ordering::Relaxed);
            }
            _ => {}
        }
    }

    /// Test support: every route agrees with the admin maps.
    #[cfg(any(test, feature = "validate"))]
    pub fn validate(&self) {
        let admin = self.admin.lock();
        // SAFETY: as in cache_of.
        let table = unsafe { &*self.routes.load(Ordering::Acquire) };
        let mut routed = 0;
        for i in 0..=table.mask {
            let (k, v) = (
                table.keys[i].load(Ordering::Relaxed),
                table.values[i].load(Ordering::Relaxed),
            );
            if k != 0 && v != 0 {
                routed += 1;
                let file = k - 1;
                let name = admin.files.get(&file).expect("a routed file has a table");
                assert_eq!(
                    admin.names.get(name),
                    Some(&v),
                    "route and assignment differ"
                );
            }
        }
        assert_eq!(routed, self.routed.load(Ordering::Relaxed), "routed count");
        assert_eq!(routed, admin.files.len(), "routed files");
        drop(admin);
        for cache in self.live() {
            cache.validate();
        }
    }
}

impl Drop for KeyCaches {
    fn drop(&mut self) {
        // SAFETY: made by Box::into_raw, unreachable now.
        unsafe { drop(Box::from_raw(self.routes.load(Ordering::Acquire))) };
        for t in self.retired.lock().drain(..) {
            // SAFETY: as above.
            unsafe { drop(Box::from_raw(t)) };
        }
        let replaced = std::mem::take(&mut *self.replaced.lock());
        let current = self.by_id.iter().map(|p| p.load(Ordering::Acquire));
        for p in current.chain(replaced) {
            if !p.is_null() {
                // SAFETY: as above; a cache with pins outstanding leaks its slots itself.
                unsafe { drop(Box::from_raw(p)) };
            }
        }
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    #[derive(Default)]
    struct CountingIo {
        reads: AtomicU64,
        writes: AtomicU64,
    }
    impl BlockIo for CountingIo {
        fn read_block(&self, file: FileId, block: u64, buf: &mut [u8]) -> io::Result<()> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            buf.fill(0);
            buf[..8].copy_from_slice(&(file * 1000 + block).to_le_bytes());
            Ok(())
        }
        fn write_block(&self, _: FileId, _: u64, _: &[u8]) -> io::Result<()> {
            self.writes.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
        fn flush_log(&self, _: u64) -> io::Result<()> {
            Ok(())
        }
    }

    const PAGE: usize = 64;

    #[test]
    fn assigned_files_read_through_their_cache_and_come_back_on_destroy() {
        let io = Arc::new(CountingIo::default());
        let caches = KeyCaches::new(256 * PAGE, PAGE, 0, io.clone());
        drop(caches.get(1, 0).unwrap());
        drop(caches.get(2, 0).unwrap());
        assert_eq!(caches.stats().key_blocks_used, 2);

        caches.set_size("hot", 128 * PAGE as u64).unwrap();
        let hot = caches.find("HOT").unwrap();
        assert_eq!(hot.id, 1);
        // Assigning moves the file: its blocks leave the default cache.
        caches.assign(Some(1), "db\0t", hot.id).unwrap();
        assert_eq!(caches.stats().key_blocks_used, 1);
        for b in 0..10 {
            let block = caches.get(1, b).unwrap();
            assert_eq!(block.read()[..8], (1000 + b).to_le_bytes());
        }
        let hot_cache = caches.cache_named("hot").unwrap();
        assert_eq!(hot_cache.stats().key_blocks_used, 10);
        assert_eq!(hot_cache.stats().key_read_requests, 10);
        assert_eq!(
            caches.stats().key_read_requests,
            2,
            "Key_* are the default's"
        );
        caches.validate();

        // A dirty block is written when the table moves back.
        let b = caches.get(1, 3).unwrap();
        b.begin_write();
        caches.mark_dirty(&b, 0);
        b.end_write();
        drop(b);
        assert_eq!(hot_cache.stats().key_blocks_not_flushed, 1);

        // Reopened under a new file (ALTER): the name brings it back to its cache.
        caches.bind_file(9, "db\0t");
        drop(caches.get(9, 0).unwrap());
        assert_eq!(hot_cache.stats().key_blocks_used, 11);
        caches.validate();

        // Destroying: tables go back to default, blocks written and dropped.
        let writes = io.writes.load(Ordering::Relaxed);
        for table in caches.tables_of(hot.id) {
            for file in [1, 9] {
                caches.assign(Some(file), &table, 0).unwrap();
            }
        }
        caches.set_size("hot", 0).unwrap();
        assert_eq!(io.writes.load(Ordering::Relaxed), writes + 1);
        assert!(caches.cache_named("hot").is_none());
        assert_eq!(hot_cache.stats().key_blocks_used, 0);
        drop(caches.get(1, 0).unwrap());
        assert_eq!(caches.stats().key_blocks_used, 2);
        caches.validate();

        // Recreated under the same id.
        caches.set_size("hot", 64 * PAGE as u64).unwrap();
        assert_eq!(caches.find("hot").unwrap().id, 1);
        assert_eq!(caches.caches().len(), 2);
    }

    #[test]
    fn the_route_table_grows_and_drops_unrouted_files() {
        let io = Arc::new(CountingIo::default());
        let caches = KeyCaches::new(64 * PAGE, PAGE, 0, io);
        caches.set_size("a", 64 * PAGE as u64).unwrap();
        for round in 0..5u64 {
            for f in 0..100u64 {
                let file = round * 1000 + f;
                caches.assign(Some(file), &format!("t{file}"), 1).unwrap();
            }
            caches.validate();
            for f in 0..100u64 {
                let file = round * 1000 + f;
                assert!(std::ptr::eq(
                    caches.cache_of(file),
                    caches.cache_named("a").unwrap()
                ));
                caches.assign(Some(file), &format!("t{file}"), 0).unwrap();
            }
            caches.validate();
            assert_eq!(caches.routed.load(Ordering::Relaxed), 0);
        }
    }

    #[test]
    fn a_new_segment_count_resegments_a_cache_at_once_keeping_its_blocks() {
        let io = Arc::new(CountingIo::default());
        let caches = KeyCaches::new(1024 * PAGE, PAGE, 2, io);
        assert_eq!(caches.default_cache().segments().len(), 2);
        caches.set_size("hot", 512 * PAGE as u64).unwrap();
        assert!(!caches.cache_named("hot").unwrap().is_segmented());
        // Unused: split at once, with the size it has.
        caches.configure("hot", Knob::Segments(4)).unwrap();
        let hot = caches.cache_named("hot").unwrap();
        assert_eq!(hot.segments().len(), 4);
        assert_eq!(hot.capacity_blocks(), 512);
        // In use: split again at once, its block kept (no second read).
        caches.assign(Some(7), "db\0t", 1).unwrap();
        drop(caches.get(7, 0).unwrap());
        let reads = caches.cache_named("hot").unwrap().stats().key_reads;
        caches.configure("hot", Knob::Segments(0)).unwrap();
        let hot = caches.cache_named("hot").unwrap();
        assert!(!hot.is_segmented());
        assert_eq!(hot.stats().key_blocks_used, 1);
        drop(caches.get(7, 0).unwrap());
        assert_eq!(hot.stats().key_reads, reads);
        assert_eq!(hot.stats().key_read_requests, 2, "counters carry over");
        // The default cache too.
        caches
            .configure(DEFAULT_KEY_CACHE, Knob::Segments(8))
            .unwrap();
        assert_eq!(caches.default_cache().segments().len(), 8);
        assert_eq!(caches.default_cache().capacity_blocks(), 1024);
        caches.validate();
    }
}
