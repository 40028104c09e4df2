//! The block cache (MySQL's key cache): every page of every table file is read and written
//! through it.
//!
//! This is the simple, correct first version; issue 6 replaces the internals with a
//! lock-free CLOCK / S3-FIFO cache. The API is the seam and should survive that change:
//! [`BlockCache::get`] (lookup or read, returning a pinned [`Block`]), [`BlockCache::create`]
//! (a new zeroed block, no read), [`BlockCache::mark_dirty`] (with the redo-log LSN that
//! must be durable before the block may be written), [`BlockCache::flush_file`],
//! [`BlockCache::flush_all`], [`BlockCache::discard_file`] and [`BlockCache::stats`].
//!
//! Design now: `SHARD_COUNT` shards by hash of (file, block), each a mutex over a hash map
//! and a CLOCK ring. A hit takes the shard mutex, clones an `Arc` and sets the frame's
//! reference bit. A miss inserts a frame in the `LOADING` state whose data lock the loader
//! holds while it reads, so concurrent readers of that block wait for the one read. A failed
//! read (I/O error, checksum mismatch reported by the [`BlockIo`]) is never cached.
//!
//! Frame states and who may evict or write a frame:
//! - pinned: some `Block` handle exists besides the map's (`Arc::strong_count > 1`); never
//!   evicted.
//! - write-pending: a statement modified the bytes and has not committed or rolled back
//!   (`write_pending > 0`); never written back (the change is not in the redo log yet) and
//!   never evicted. The flusher checks this *while holding the data read lock*, and writers
//!   raise it *before* taking the write lock, so no uncommitted byte reaches the disk.
//! - dirty: committed changes not yet written; written back only after
//!   `BlockIo::flush_log(flush_lsn)` (the WAL rule), then clean.
//!
//! Eviction takes only clean, unpinned, not-pending frames. When a shard is full of dirty
//! frames the requester writes some back first; when every frame is pinned the shard grows
//! past its capacity (counted in `overflows`) rather than failing a statement.

use crate::file_cache::FileId;
use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

/// Shards of the simple cache: enough that 16 threads rarely meet on one mutex.
pub const SHARD_COUNT: usize = 64;

const STATE_LOADING: u8 = 0;
const STATE_READY: u8 = 1;
const STATE_FAILED: u8 = 2;

/// What the cache needs from the engine that owns the file format: read and write one block
/// (verifying and stamping checksums), and make the redo log durable up to an LSN.
pub trait BlockIo: Send + Sync {
    /// Fill `buf` with the block; an invalid block (checksum) is an `InvalidData` error.
    fn read_block(&self, file: FileId, block: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Write the block (the implementation may stamp a checksum into its own copy).
    fn write_block(&self, file: FileId, block: u64, buf: &[u8]) -> io::Result<()>;
    /// Make the redo log durable up to `lsn` (called before writing a block, WAL rule).
    fn flush_log(&self, lsn: u64) -> io::Result<()>;
}

struct Frame {
    file: FileId,
    block: u64,
    data: RwLock<Box<[u8]>>,
    state: AtomicU8,
    dirty: AtomicBool,
    /// The redo LSN that must be durable before this frame is written.
    flush_lsn: AtomicU64,
    write_pending: AtomicU32,
    referenced: AtomicBool,
}

/// A pinned block: while it lives the frame stays in memory.
#[derive(Clone)]
pub struct Block(Arc<Frame>);

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Block({}:{})", self.0.file, self.0.block)
    }
}

impl Block {
    pub fn file(&self) -> FileId {
        self.0.file
    }
    pub fn block(&self) -> u64 {
        self.0.block
    }
    /// Shared access to the bytes.
    pub fn read(&self) -> RwLockReadGuard<'_, Box<[u8]>> {
        self.0.data.read()
    }
    /// Exclusive access to the bytes. Call [`Block::begin_write`] first, and
    /// [`Block::end_write`] once the change is logged ([`BlockCache::mark_dirty`]) or undone.
    pub fn write(&self) -> RwLockWriteGuard<'_, Box<[u8]>> {
        debug_assert!(
            self.0.write_pending.load(Ordering::Relaxed) > 0,
            "write without begin_write"
        );
        self.0.data.write()
    }
    /// Announce uncommitted changes: the block is not written back until `end_write`.
    pub fn begin_write(&self) {
        self.0.write_pending.fetch_add(1, Ordering::SeqCst);
    }
    /// The uncommitted changes were logged (after `mark_dirty`) or rolled back.
    pub fn end_write(&self) {
        let before = self.0.write_pending.fetch_sub(1, Ordering::SeqCst);
        assert!(before > 0, "end_write without begin_write");
    }
    /// Raise the LSN that must be durable before this block is written (a committer that
    /// marked the block dirty before its log record had an LSN).
    pub fn raise_flush_lsn(&self, lsn: u64) {
        self.0.flush_lsn.fetch_max(lsn, Ordering::AcqRel);
    }
    pub fn is_dirty(&self) -> bool {
        self.0.dirty.load(Ordering::Acquire)
    }
}

#[derive(Default)]
struct ShardCounters {
    read_requests: AtomicU64,
    reads: AtomicU64,
    write_requests: AtomicU64,
    writes: AtomicU64,
    overflows: AtomicU64,
}

/// Keys are (file, block) pairs of small integers chosen by us, not by clients: a
/// multiply-xor hash is enough, and much cheaper than SipHash on the hit path.
#[derive(Default, Clone, Copy)]
struct BlockKeyHasher(u64);

impl std::hash::Hasher for BlockKeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type BlockMap = HashMap<(FileId, u64), Arc<Frame>, std::hash::BuildHasherDefault<BlockKeyHasher>>;

struct Shard {
    map: BlockMap,
    clock: VecDeque<(FileId, u64)>,
}

#[repr(align(128))]
struct PaddedShard {
    shard: RwLock<Shard>,
    counters: ShardCounters,
}

/// Counters with MySQL's names (SHOW STATUS).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockCacheStats {
    pub key_read_requests: u64,
    pub key_reads: u64,
    pub key_write_requests: u64,
    pub key_writes: u64,
    pub key_blocks_used: u64,
    pub key_blocks_unused: u64,
    pub key_blocks_not_flushed: u64,
    /// Times a shard grew past its capacity because every frame was pinned.
    pub overflows: u64,
}

/// See the module documentation.
pub struct BlockCache {
    shards: Box<[PaddedShard]>,
    block_size: usize,
    capacity_per_shard: usize,
    io: Arc<dyn BlockIo>,
    dirty_count: AtomicU64,
}

impl BlockCache {
    /// A cache of `capacity_bytes / block_size` blocks (at least one per shard).
    pub fn new(capacity_bytes: usize, block_size: usize, io: Arc<dyn BlockIo>) -> BlockCache {
        let blocks = (capacity_bytes / block_size.max(1)).max(SHARD_COUNT);
        let shards = (0..SHARD_COUNT)
            .map(|_| PaddedShard {
                shard: RwLock::new(Shard {
                    map: BlockMap::default(),
                    clock: VecDeque::new(),
                }),
                counters: ShardCounters::default(),
            })
            .collect();
        BlockCache {
            shards,
            block_size,
            capacity_per_shard: blocks / SHARD_COUNT,
            io,
            dirty_count: AtomicU64::new(0),
        }
    }

    pub fn block_size(&self) -> usize {
        self.block_size
    }

    fn shard_of(&self, file: FileId, block: u64) -> &PaddedShard {
        // A cheap mix (Fibonacci hashing); the keys are small integers.
        let h =
            (file.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ block).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        &self.shards[(h >> 58) as usize % SHARD_COUNT]
    }

    /// The block, read through the [`BlockIo`] on a miss. Errors are not cached.
    pub fn get(&self, file: FileId, block: u64) -> io::Result<Block> {
        loop {
            let shard = self.shard_of(file, block);
            shard.counters.read_requests.fetch_add(1, Ordering::Relaxed);
            // Hit: a shared lock on the shard, an Arc clone, the reference bit. A miss
            // retakes the lock exclusively and looks again before inserting.
            let found = shard.shard.read().map.get(&(file, block)).cloned();
            let mut guard = None;
            let found = match found {
                Some(frame) => Some(frame),
                None => {
                    let g = shard.shard.write();
                    let again = g.map.get(&(file, block)).cloned();
                    guard = Some(g);
                    again
                }
            };
            if let Some(frame) = found {
                drop(guard);
                frame.referenced.store(true, Ordering::Relaxed);
                if frame.state.load(Ordering::Acquire) == STATE_LOADING {
                    // Wait for the loader, which holds the write lock while it reads.
                    drop(frame.data.read());
                }
                if frame.state.load(Ordering::Acquire) == STATE_FAILED {
                    continue; // The loader removed it; try again (and read again).
                }
                return Ok(Block(frame));
            }
            let Some(mut guard) = guard else { continue };
            let frame = Arc::new(Frame {
                file,
                block,
                data: RwLock::new(vec![0u8; self.block_size].into_boxed_slice()),
                state: AtomicU8::new(STATE_LOADING),
                dirty: AtomicBool::new(false),
                flush_lsn: AtomicU64::new(0),
                write_pending: AtomicU32::new(0),
                referenced: AtomicBool::new(false),
            });
            let mut data = frame.data.write();
            let to_write_back = self.make_room(shard, &mut guard);
            guard.map.insert((file, block), Arc::clone(&frame));
            guard.clock.push_back((file, block));
            drop(guard);
            shard.counters.reads.fetch_add(1, Ordering::Relaxed);
            let result = self.io.read_block(file, block, &mut data);
            match result {
                Ok(()) => {
                    frame.state.store(STATE_READY, Ordering::Release);
                    drop(data);
                    self.write_back_all(to_write_back)?;
                    return Ok(Block(frame));
                }
                Err(e) => {
                    frame.state.store(STATE_FAILED, Ordering::Release);
                    drop(data);
                    let mut guard = shard.shard.write();
                    if guard
                        .map
                        .get(&(file, block))
                        .is_some_and(|f| Arc::ptr_eq(f, &frame))
                    {
                        guard.map.remove(&(file, block));
                    }
                    return Err(e);
                }
            }
        }
    }

    /// The block if it is cached and loaded; no read, no counters (CHECK TABLE uses it to
    /// tell pages newer in memory than on disk).
    pub fn peek(&self, file: FileId, block: u64) -> Option<Block> {
        let guard = self.shard_of(file, block).shard.read();
        let frame = guard.map.get(&(file, block))?;
        (frame.state.load(Ordering::Acquire) == STATE_READY).then(|| Block(Arc::clone(frame)))
    }

    /// A new block of zeros (a page being allocated): no read. Replaces a cached copy.
    pub fn create(&self, file: FileId, block: u64) -> io::Result<Block> {
        let shard = self.shard_of(file, block);
        let mut guard = shard.shard.write();
        if let Some(frame) = guard.map.get(&(file, block)) {
            if frame.state.load(Ordering::Acquire) == STATE_READY {
                let frame = Arc::clone(frame);
                drop(guard);
                frame.data.write().fill(0);
                return Ok(Block(frame));
            }
        }
        let frame = Arc::new(Frame {
            file,
            block,
            data: RwLock::new(vec![0u8; self.block_size].into_boxed_slice()),
            state: AtomicU8::new(STATE_READY),
            dirty: AtomicBool::new(false),
            flush_lsn: AtomicU64::new(0),
            write_pending: AtomicU32::new(0),
            referenced: AtomicBool::new(true),
        });
        let to_write_back = self.make_room(shard, &mut guard);
        guard.map.insert((file, block), Arc::clone(&frame));
        guard.clock.push_back((file, block));
        drop(guard);
        self.write_back_all(to_write_back)?;
        Ok(Block(frame))
    }

    /// Write a block of a file being created right away, without waiting for the log: the
    /// one exception to the WAL rule, allowed because no older version of the block exists
    /// on disk. The block stays dirty (it is written again, after the log, by a flush).
    pub fn write_new_block(&self, block: &Block) -> io::Result<()> {
        let data = block.0.data.read();
        self.io.write_block(block.0.file, block.0.block, &data)?;
        self.shard_of(block.0.file, block.0.block)
            .counters
            .writes
            .fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Record that the block holds committed changes whose redo ends at `lsn`.
    pub fn mark_dirty(&self, block: &Block, lsn: u64) {
        self.shard_of(block.0.file, block.0.block)
            .counters
            .write_requests
            .fetch_add(1, Ordering::Relaxed);
        block.0.flush_lsn.fetch_max(lsn, Ordering::AcqRel);
        if !block.0.dirty.swap(true, Ordering::AcqRel) {
            self.dirty_count.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Evict clean frames until the shard has room; returns dirty frames the caller should
    /// write back (outside the lock) because nothing clean could be evicted.
    fn make_room(&self, shard: &PaddedShard, guard: &mut Shard) -> Vec<Arc<Frame>> {
        let mut dirty = Vec::new();
        if guard.map.len() < self.capacity_per_shard {
            return dirty;
        }
        // Bound: two passes of the clock (the first clears reference bits).
        let mut budget = guard.clock.len() * 2;
        while guard.map.len() >= self.capacity_per_shard && budget > 0 {
            budget -= 1;
            let Some(key) = guard.clock.pop_front() else {
                break;
            };
            let Some(frame) = guard.map.get(&key) else {
                continue;
            };
            let busy =
                Arc::strong_count(frame) > 1 || frame.write_pending.load(Ordering::Acquire) > 0;
            if busy || frame.referenced.swap(false, Ordering::Relaxed) {
                guard.clock.push_back(key);
                continue;
            }
            if frame.dirty.load(Ordering::Acquire) {
                if dirty.len() < 8 {
                    dirty.push(Arc::clone(frame));
                }
                guard.clock.push_back(key);
                continue;
            }
            guard.map.remove(&key);
        }
        if guard.map.len() >= self.capacity_per_shard {
            shard.counters.overflows.fetch_add(1, Ordering::Relaxed);
        }
        dirty
    }

    fn write_back_all(&self, frames: Vec<Arc<Frame>>) -> io::Result<()> {
        for frame in frames {
            self.write_back(&frame, false)?;
        }
        Ok(())
    }

    /// Write one frame if it is dirty and not write-pending. With `wait`, wait for pending
    /// writers to finish (a checkpoint must write everything). Returns whether it is clean.
    fn write_back(&self, frame: &Frame, wait: bool) -> io::Result<bool> {
        loop {
            if !frame.dirty.load(Ordering::Acquire) {
                return Ok(true);
            }
            let data = frame.data.read();
            if frame.write_pending.load(Ordering::SeqCst) > 0 {
                drop(data);
                if !wait {
                    return Ok(false);
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
                continue;
            }
            if !frame.dirty.load(Ordering::Acquire) {
                return Ok(true);
            }
            self.io.flush_log(frame.flush_lsn.load(Ordering::Acquire))?;
            self.io.write_block(frame.file, frame.block, &data)?;
            frame.dirty.store(false, Ordering::Release);
            self.dirty_count.fetch_sub(1, Ordering::Relaxed);
            self.shard_of(frame.file, frame.block)
                .counters
                .writes
                .fetch_add(1, Ordering::Relaxed);
            return Ok(true);
        }
    }

    fn dirty_frames(&self, file: Option<FileId>) -> Vec<Arc<Frame>> {
        let mut frames: Vec<Arc<Frame>> = Vec::new();
        for shard in self.shards.iter() {
            let guard = shard.shard.read();
            frames.extend(
                guard
                    .map
                    .values()
                    .filter(|f| {
                        f.dirty.load(Ordering::Acquire) && file.is_none_or(|id| f.file == id)
                    })
                    .cloned(),
            );
        }
        // Sorted by file and offset: sequential writes where the file allows.
        frames.sort_by_key(|f| (f.file, f.block));
        frames
    }

    /// Write back every dirty block of `file` (waiting for uncommitted writers).
    pub fn flush_file(&self, file: FileId) -> io::Result<()> {
        for frame in self.dirty_frames(Some(file)) {
            self.write_back(&frame, true)?;
        }
        Ok(())
    }

    /// Write back every dirty block (checkpoint, shutdown).
    pub fn flush_all(&self) -> io::Result<()> {
        for frame in self.dirty_frames(None) {
            self.write_back(&frame, true)?;
        }
        Ok(())
    }

    /// Drop every cached block of `file` without writing it (the file is being deleted).
    pub fn discard_file(&self, file: FileId) {
        for shard in self.shards.iter() {
            let mut guard = shard.shard.write();
            guard.map.retain(|_, f| {
                if f.file != file {
                    return true;
                }
                if f.dirty.swap(false, Ordering::AcqRel) {
                    self.dirty_count.fetch_sub(1, Ordering::Relaxed);
                }
                false
            });
        }
    }

    pub fn stats(&self) -> BlockCacheStats {
        let mut s = BlockCacheStats::default();
        let mut used = 0u64;
        for shard in self.shards.iter() {
            let c = &shard.counters;
            s.key_read_requests += c.read_requests.load(Ordering::Relaxed);
            s.key_reads += c.reads.load(Ordering::Relaxed);
            s.key_write_requests += c.write_requests.load(Ordering::Relaxed);
            s.key_writes += c.writes.load(Ordering::Relaxed);
            s.overflows += c.overflows.load(Ordering::Relaxed);
            used += shard.shard.read().map.len() as u64;
        }
        let capacity = (self.capacity_per_shard * SHARD_COUNT) as u64;
        s.key_blocks_used = used;
        s.key_blocks_unused = capacity.saturating_sub(used);
        s.key_blocks_not_flushed = self.dirty_count.load(Ordering::Relaxed);
        s
    }

    /// Test support: recount dirty frames from scratch and compare with the counter.
    pub fn validate(&self) {
        let dirty = self.dirty_frames(None).len() as u64;
        assert_eq!(
            dirty,
            self.dirty_count.load(Ordering::Relaxed),
            "dirty counter != dirty frames"
        );
        for shard in self.shards.iter() {
            let guard = shard.shard.read();
            for (key, frame) in &guard.map {
                assert_eq!(
                    *key,
                    (frame.file, frame.block),
                    "frame filed under a foreign key"
                );
                assert!(
                    guard.clock.contains(key),
                    "cached frame missing from the clock ring"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;
    use std::collections::HashMap as Map;

    /// An in-memory "disk" that records the order of log flushes and writes.
    #[derive(Default)]
    struct MemIo {
        disk: Mutex<Map<(FileId, u64), Vec<u8>>>,
        durable_lsn: AtomicU64,
        violations: AtomicU64,
    }

    impl BlockIo for MemIo {
        fn read_block(&self, file: FileId, block: u64, buf: &mut [u8]) -> io::Result<()> {
            match self.disk.lock().get(&(file, block)) {
                Some(d) if d[63] == 0xEE => {
                    Err(io::Error::new(io::ErrorKind::InvalidData, "corrupt"))
                }
                Some(d) => {
                    buf.copy_from_slice(d);
                    Ok(())
                }
                None => Err(io::Error::new(io::ErrorKind::UnexpectedEof, "beyond end")),
            }
        }
        fn write_block(&self, file: FileId, block: u64, buf: &[u8]) -> io::Result<()> {
            let lsn = u64::from_le_bytes(buf[8..16].try_into().unwrap());
            if lsn > self.durable_lsn.load(Ordering::SeqCst) {
                self.violations.fetch_add(1, Ordering::SeqCst);
            }
            self.disk.lock().insert((file, block), buf.to_vec());
            Ok(())
        }
        fn flush_log(&self, lsn: u64) -> io::Result<()> {
            self.durable_lsn.fetch_max(lsn, Ordering::SeqCst);
            Ok(())
        }
    }

    fn write_value(cache: &BlockCache, b: &Block, value: u64, lsn: u64) {
        b.begin_write();
        {
            let mut d = b.write();
            d[0..8].copy_from_slice(&value.to_le_bytes());
            d[8..16].copy_from_slice(&lsn.to_le_bytes());
        }
        cache.mark_dirty(b, lsn);
        b.end_write();
    }

    #[test]
    fn evicted_dirty_blocks_come_back_and_the_wal_rule_holds() {
        let io = Arc::new(MemIo::default());
        let cache = BlockCache::new(64 * 2 * 64, 64, io.clone());
        for i in 0..1000u64 {
            let b = cache.create(1, i).unwrap();
            write_value(&cache, &b, i * 7, i + 1);
        }
        for i in 0..1000u64 {
            let b = cache.get(1, i).unwrap();
            assert_eq!(
                u64::from_le_bytes(b.read()[0..8].try_into().unwrap()),
                i * 7
            );
        }
        cache.validate();
        cache.flush_all().unwrap();
        assert_eq!(cache.stats().key_blocks_not_flushed, 0);
        assert_eq!(
            io.violations.load(Ordering::SeqCst),
            0,
            "a block was written before its log"
        );
        let s = cache.stats();
        assert!(s.key_reads > 0 && s.key_writes >= 1000 && s.key_read_requests >= 1000);
        cache.validate();
    }

    #[test]
    fn pinned_blocks_are_never_evicted_and_the_cache_overflows_instead_of_failing() {
        let io = Arc::new(MemIo::default());
        // One block per shard.
        let cache = BlockCache::new(64 * SHARD_COUNT, 64, io.clone());
        let pinned: Vec<Block> = (0..500u64)
            .map(|i| {
                let b = cache.create(3, i).unwrap();
                write_value(&cache, &b, i + 100, 1);
                b
            })
            .collect();
        let s = cache.stats();
        assert!(
            s.overflows > 0,
            "a full cache of pinned blocks did not report overflow"
        );
        assert_eq!(s.key_blocks_used, 500);
        for (i, b) in pinned.iter().enumerate() {
            assert_eq!(
                u64::from_le_bytes(b.read()[0..8].try_into().unwrap()),
                i as u64 + 100
            );
        }
        drop(pinned);
        cache.flush_all().unwrap();
        // Unpinned and clean: new blocks evict them, down to capacity again.
        for i in 1000..1500u64 {
            drop(cache.create(3, i).unwrap());
        }
        assert!(
            cache.stats().key_blocks_used <= SHARD_COUNT as u64 + 1,
            "{:?}",
            cache.stats()
        );
        // And the evicted blocks come back from disk intact.
        for i in 0..500u64 {
            assert_eq!(
                u64::from_le_bytes(cache.get(3, i).unwrap().read()[0..8].try_into().unwrap()),
                i + 100
            );
        }
        cache.validate();
    }

    #[test]
    fn pending_writes_are_never_written_back_and_errors_are_not_cached() {
        let io = Arc::new(MemIo::default());
        let cache = BlockCache::new(64 * 64, 64, io.clone());
        let b = cache.create(2, 0).unwrap();
        write_value(&cache, &b, 1, 5);
        b.begin_write();
        b.write()[0] = 0xAA;
        // Not flushable now: a non-waiting write-back leaves it.
        let frame = Arc::clone(&b.0);
        assert!(!cache.write_back(&frame, false).unwrap());
        b.end_write();
        cache.flush_file(2).unwrap();
        assert_eq!(io.disk.lock()[&(2, 0)][0], 0xAA);
        io.disk.lock().insert((2, 9), vec![0xEE; 64]);
        assert_eq!(
            cache.get(2, 9).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        assert_eq!(
            cache.get(2, 9).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        cache.discard_file(2);
        cache.validate();
        assert_eq!(cache.stats().key_blocks_used, 0);
    }
}
