//! The block cache (MySQL's key cache): every page of every table file is read and written
//! through it. A hit is one atomic operation on the block's own state word; nothing else
//! shared is written (in the style of RocksDB's HyperClockCache and PostgreSQL's buffer pins).
//!
//! # API (the seam storage uses)
//! [`BlockCache::get`] (lookup or read, returning a pinned [`Block`]), [`BlockCache::create`]
//! (a new zeroed block, no read), [`BlockCache::peek`], [`BlockCache::mark_dirty`] (with the
//! redo-log LSN that must be durable before the block may be written),
//! [`BlockCache::flush_file`], [`BlockCache::flush_all`], [`BlockCache::discard_file`],
//! [`BlockCache::resize`], [`BlockCache::set_division_limit`],
//! [`BlockCache::set_age_threshold`], [`BlockCache::write_back_ahead`] and
//! [`BlockCache::stats`].
//!
//! # Tests
//! Beside the code (`tests.rs`): a proptest against a reference model of block contents with
//! `validate()` (which recounts used, warm, dirty blocks and the index from the slots) after
//! every step; a checksummed concurrent stress with resizes (no torn or stale page); the
//! scan-resistance test against an LRU on the same stream; resize keeping blocks with no
//! disk read; shuttle schedule exploration (`--features shuttle`, through `sync.rs`).
//!
//! # Layout
//! - **Slots**: one header per cache block, in chunks of [`CHUNK_SLOTS`] that are allocated
//!   on growth and never moved or freed while the cache lives (a [`Block`] is a raw pointer
//!   to its slot). Each header is 128-byte aligned so that hits on neighbouring blocks do not
//!   share a cache line. The block's bytes live behind the slot's own `RwLock` (the content
//!   lock, as PostgreSQL separates pin and content lock), allocated when the slot is first
//!   used and freed when a shrink retires it.
//! - **Index**: 64 partitions by hash, each an open-addressing (linear probing) table of
//!   `AtomicU64` entries `tag:32 | slot+1:32`. Readers probe without a lock; writers
//!   (insert, remove with backward shift, grow) hold the partition's mutex. A reader that
//!   races a writer can only see a false miss or a stale entry: a false miss falls to the
//!   locked slow path, which looks again; a stale entry is caught by the key check after the
//!   pin. Tables replaced by growth are kept until the cache is dropped (no reclamation
//!   scheme on the hit path; they cost 8 bytes per entry).
//!
//! # The state word (one `AtomicU64` per slot)
//! ```text
//!  bit 63..62  61     60   59..56  55..28           27..0
//!  (unused)    FRESH  HOT  state   release count    acquire count
//! ```
//! Pinned iff `acquire != release`. States: `FREE` (no block), `OWNED` (one thread owns the
//! slot exclusively: being evicted, filled, migrated), `LOADING` (key published, read in
//! progress), `READY`, `FAILED` (read failed; waiting for its pins to drain).
//!
//! | transition | who | atomic |
//! |---|---|---|
//! | pin (hit) | reader | `fetch_add(ACQ)`; if the old state is not READY/LOADING or the key differs, undo (`fetch_sub(ACQ)` / `fetch_add(REL)`) |
//! | unpin | `Block` drop | `fetch_add(REL)` (plus a rare CAS that rebases both counts near overflow) |
//! | FREE/FAILED/READY(unpinned, clean) -> OWNED | evictor | CAS, expected word has `acq == rel`; counts and flags reset |
//! | OWNED -> LOADING (+ the loader's pin, FRESH, HOT) | loader, under the partition mutex | `fetch_add` of the differences |
//! | LOADING -> READY / FAILED | loader | `fetch_add` of the difference (keeps readers' pins) |
//! | OWNED -> FREE | evictor/resize | `fetch_sub` of the difference |
//! | READY -> READY (clock visit: reset counts, promote, demote) | sweeper | CAS |
//!
//! Owners change states with arithmetic (`fetch_add`), never a plain store, so a reader's
//! transient `+ACQ`/`-ACQ` on a slot it does not own is never lost; a transient pin also
//! makes `acq != rel`, so no claim CAS can succeed under it.
//!
//! # Misses and eviction (CLOCK with a probationary part and a ghost history, after S3-FIFO)
//! A miss takes its partition mutex, looks again, claims a slot and publishes it `LOADING`
//! with the content lock held for writing; concurrent readers of that block pin it and park
//! on the content lock (no spinning) until the one read ends. A failed read is never cached.
//!
//! New blocks enter *cold* (probationary, MySQL's warm sublist) unless their key's hash is in
//! the ghost history (a direct-mapped array of the hashes of recently evicted cold blocks),
//! in which case they enter *hot*. While more than capacity / 256 unused blocks remain
//! below capacity (after a growth, a dropped table, or before the cache first fills) the hand
//! evicts nothing: it walks on to an unused slot, as MySQL's key cache uses its free blocks
//! first; fewer holes than that (claims given back after two misses raced for one block) are
//! filled as the hand passes them (`free_slack`). One clock
//! hand visits the slots: a cold block not touched
//! since its last visit is evicted (its hash goes to the ghost); a touched cold block is
//! promoted to hot if the hot part is below `100 - key_cache_division_limit` percent, else it
//! gets a second chance; a hot block is demoted to cold when it was not touched during the
//! last `key_cache_age_threshold` percent of the cache's size in insertions (MySQL's aging),
//! or when the hot part is over its share. A one-time scan therefore only churns the cold
//! part. The hand's effort is bounded (two rotations, then one forced rotation that ignores
//! touches, so that threads re-touching every block faster than a preempted sweeper turns
//! cannot make a miss fail while unpinned clean blocks exist); pinned, dirty and write-pending blocks
//! are skipped; dirty cold victims are written back (WAL rule first) and the sweep retried;
//! when every block is pinned or write-pending the cache grows past its capacity by one slot
//! (counted in `overflows`, retired again once released): up to twice its capacity when only
//! pins block it, then it returns an `OutOfMemory` error the caller can handle; further when
//! uncommitted statements hold write-pending blocks (bounded by statement size; storage keeps
//! them until commit). It never waits for a pin.
//!
//! # Dirty blocks, the WAL rule
//! - write-pending (`begin_write` .. `end_write`): uncommitted bytes; never written back.
//!   The flusher checks this *under the content read lock*; writers raise it *before* taking
//!   the write lock. A waiting flush writes the block's committed image instead, when its
//!   writer handed one over (below).
//! - dirty: committed changes not yet written; written only after
//!   `BlockIo::flush_log(flush_lsn)`. `flush_all`/`flush_file` write them sorted by (file,
//!   block); `write_back_ahead(max)` (for an engine's background thread) writes the dirty
//!   probationary blocks the hand reaches next, also sorted, so misses rarely write.
//!
//! # The committed image
//! A writer may stay write-pending for a long time (a storage statement is kept open for a
//! whole SQL transaction while its client thinks). A flush that must write everything
//! (`flush_all` for a checkpoint, `flush_file` for DDL and shutdown) would then wait for as
//! long. So a writer that knows the block's committed content hands it over when it makes
//! the block pending ([`Block::begin_write_with`], an `Arc` shared with the writer's own
//! undo copy: no copy is made), and such a flush, finding the block dirty and pending,
//! writes that image (after the log to the slot's flush LSN) and goes on. It does *not*
//! clear the dirty flag: the block's content is not what was written, and a committer may
//! already have marked it dirty for its new content; the next flush writes the block again.
//! Background write-back and eviction (`wait = false`) skip pending blocks as before. The
//! image costs one mutex and an `Option<Arc<[u8]>>` in the slot header (within its 128
//! bytes); the hit path never reads it.
//!
//! Why the written image is never wrong (what the writer must do is on the methods):
//! - *The writer commits.* It calls [`Block::drop_committed_image`] *before* it appends its
//!   log record, and stamps the new content under the content write lock. A flush that got
//!   the image took the image mutex before that drop, and its checkpoint had begun before
//!   the flush: so the checkpoint began before the append, its start LSN is below the
//!   record, and recovery from it replays the record over the image. A checkpoint that
//!   begins after the append finds no image and waits, as before, for the (short) rest of
//!   the commit. The image is written under the content read lock, so the committer's
//!   stamp, and with it every later write of the new content, comes after this write: an
//!   older image never lands over newer bytes.
//! - *The writer rolls back.* It copies the image back under the content write lock and
//!   then ends the write; a flush meanwhile writes either the image or the restored bytes,
//!   which are the same. The block stays dirty and is written again by the next flush.
//! - *The writer stays.* The image is what the block held before the writer changed it,
//!   and nothing else changes a block while its writer is pending (one writer at a time),
//!   so the image holds every committed change.
//!
//! # Resize
//! `resize(bytes)` grows by allocating slot chunks; it shrinks by moving the blocks held in
//! slots beyond the new capacity into slots below it (evicting cold blocks to make room) under
//! the block's partition mutex, so a reader meanwhile waits on that mutex and never goes to
//! disk. Blocks pinned during the shrink are retired by the clock once released.
//!
//! # Memory per block
//! The block's bytes + 128 bytes of slot header + about 16 bytes of index (8-byte entries at
//! most half full) + 8 bytes of ghost history.

pub mod committed_reads;
mod read_ahead;
pub mod registry;
pub mod segments;
use crate::sync;

use crate::file_cache::FileId;
use std::io;
use std::ptr::NonNull;
use std::sync::Arc;
use sync::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Mutex, Ordering, RwLock};
pub use sync::{RwLockReadGuard, RwLockWriteGuard};

/// The smallest cache, in blocks (one per index partition).
pub const SHARD_COUNT: usize = 64;
/// Slots per allocated chunk.
pub const CHUNK_SLOTS: usize = 1024;
const MAX_CHUNKS: usize = 4096;
/// Index partitions of a cache; a segment of a segmented cache takes its share.
pub(super) const PARTITIONS: usize = 64;
const COUNTER_STRIPES: usize = 64;
const HAND_BATCH: u64 = 8;
/// How many pauses (200 us each) a miss that finds no slot waits for a shrink in progress.
const MIGRATION_WAITS: u32 = 250;

thread_local! {
    /// This thread's unused part of its last batch of the clock hand: (cache, next, end).
    static HAND: std::cell::Cell<(usize, u64, u64)> = const { std::cell::Cell::new((0, 0, 0)) };
}

const ACQ_ONE: u64 = 1;
const REL_SHIFT: u32 = 28;
const REL_ONE: u64 = 1 << REL_SHIFT;
const COUNT_MASK: u64 = (1 << 28) - 1;
const STATE_SHIFT: u32 = 56;
const STATE_MASK: u64 = 0xF << STATE_SHIFT;
const HOT: u64 = 1 << 60;
const FRESH: u64 = 1 << 61;
/// Rebase the counts once the release count passes this.
const REBASE_AT: u64 = 1 << 26;

const FREE: u64 = 0;
const OWNED: u64 = 1;
const LOADING: u64 = 2;
const READY: u64 = 3;
const FAILED: u64 = 4;

#[inline]
fn acq(w: u64) -> u64 {
    w & COUNT_MASK
}
#[inline]
fn rel(w: u64) -> u64 {
    (w >> REL_SHIFT) & COUNT_MASK
}
#[inline]
fn state(w: u64) -> u64 {
    (w & STATE_MASK) >> STATE_SHIFT
}
#[inline]
fn pinned(w: u64) -> bool {
    acq(w) != rel(w)
}
#[inline]
fn state_delta(from: u64, to: u64) -> u64 {
    (to << STATE_SHIFT).wrapping_sub(from << STATE_SHIFT)
}

/// What the cache needs from the engine that owns the file format: read and write one block
/// (verifying and stamping checksums), and make the redo log durable up to an LSN.
pub trait BlockIo: Send + Sync {
    /// Fill `buf` with the block; an invalid block (checksum) is an `InvalidData` error.
    fn read_block(&self, file: FileId, block: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Write the block (the implementation may stamp a checksum into its own copy).
    fn write_block(&self, file: FileId, block: u64, buf: &[u8]) -> io::Result<()>;
    /// Make the redo log durable up to `lsn` (called before writing a block, WAL rule).
    fn flush_log(&self, lsn: u64) -> io::Result<()>;
    /// Read the consecutive blocks from `first` that fill `buf` in one I/O, unverified (what
    /// the file lacks reads as zeros). None: this I/O has no runs (no read-ahead).
    fn read_run(&self, _file: FileId, _first: u64, _buf: &mut [u8]) -> Option<io::Result<()>> {
        None
    }
    /// Verify a block `read_run` read, leaving it as `read_block` would have returned it.
    fn check_block(&self, _file: FileId, _block: u64, _buf: &mut [u8]) -> io::Result<()> {
        Ok(())
    }
}

/// `repr(C)`: a hit reads only `state`, `file`, `block` and `indexed`, which this order keeps
/// in the first 64 bytes (one cache line); Rust's own layout put the bools after the lock.
#[repr(C, align(128))]
struct Slot {
    state: AtomicU64,
    file: AtomicU64,
    block: AtomicU64,
    hash: AtomicU64,
    /// Whether the partition index points here (changed under the partition mutex).
    indexed: AtomicBool,
    dirty: AtomicBool,
    /// Claimed by evicting its block and still counted as cached (see `claim_counts`).
    claim_counted_cached: AtomicBool,
    write_pending: AtomicU32,
    /// The id of the cache whose slot this is (see [`BlockCache::holds`]).
    owner: u32,
    /// The redo LSN that must be durable before this block is written.
    flush_lsn: AtomicU64,
    /// Insertion count at the clock's last sight of a touch (aging of hot blocks).
    seen_at: AtomicU64,
    data: RwLock<Box<[u8]>>,
    /// The block's committed content while it is write-pending, when its first pending
    /// writer handed one over ([`Block::begin_write_with`]): what a waiting flush writes
    /// instead of waiting (see "The committed image"). None whenever `write_pending` is 0
    /// (checked under this mutex, which every change of the image and every `end_write`
    /// holds). With it, the writer it belongs to (see [`committed_reads`]): other readers
    /// see the image; a hit on a block that is not pending never touches it.
    committed_image: Mutex<Option<(u64, Arc<[u8]>)>>,
}

// The slot header stays one 128-byte unit (the memory per block in the docs counts it so).
#[cfg(not(feature = "shuttle"))]
const _: () = assert!(std::mem::size_of::<Slot>() == 128);

impl Slot {
    fn new(owner: u32) -> Slot {
        Slot {
            state: AtomicU64::new(0),
            file: AtomicU64::new(0),
            block: AtomicU64::new(0),
            hash: AtomicU64::new(0),
            indexed: AtomicBool::new(false),
            dirty: AtomicBool::new(false),
            claim_counted_cached: AtomicBool::new(false),
            write_pending: AtomicU32::new(0),
            owner,
            flush_lsn: AtomicU64::new(0),
            seen_at: AtomicU64::new(0),
            data: RwLock::new(Box::new([])),
            committed_image: Mutex::new(None),
        }
    }

    /// Take `from`'s block: its bytes (swapped, not copied: `from` is retired next), key,
    /// hash and flush LSN. Both slots are owned by the caller.
    fn take_block(&self, from: &Slot) {
        std::mem::swap(&mut *from.data.write(), &mut *self.data.write());
        for (to, from) in [
            (&self.file, &from.file),
            (&self.block, &from.block),
            (&self.hash, &from.hash),
            (&self.flush_lsn, &from.flush_lsn),
        ] {
            to.store(from.load(Ordering::Acquire), Ordering::Relaxed);
        }
    }

    fn key(&self) -> (FileId, u64) {
        (
            self.file.load(Ordering::Relaxed),
            self.block.load(Ordering::Relaxed),
        )
    }

    fn unpin(&self) {
        let old = self.state.fetch_add(REL_ONE, Ordering::AcqRel);
        if rel(old) + 1 >= REBASE_AT {
            // Subtract the same amount from both counts: the difference (the pins) stays,
            // and acquire stays >= 1 so the touch is still seen by the clock.
            let _ = self
                .state
                .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |w| {
                    let r = rel(w);
                    if r < REBASE_AT {
                        return None;
                    }
                    let cut = r - 1;
                    Some(w - cut - (cut << REL_SHIFT))
                });
        }
    }
}

/// A pinned block: while it lives the slot keeps this block in memory.
pub struct Block {
    slot: NonNull<Slot>,
}

// SAFETY: a Block is a pin on a slot whose memory outlives every pin (slots are never freed
// while the cache lives, and a cache dropped with pins outstanding leaks its slots); all of
// the slot's fields are atomics or behind a lock.
unsafe impl Send for Block {}
unsafe impl Sync for Block {}

impl Block {
    fn slot(&self) -> &Slot {
        // SAFETY: see the Send/Sync comment: the slot outlives the pin.
        unsafe { self.slot.as_ref() }
    }
    pub fn file(&self) -> FileId {
        self.slot().file.load(Ordering::Relaxed)
    }
    pub fn block(&self) -> u64 {
        self.slot().block.load(Ordering::Relaxed)
    }
    /// Shared access to the bytes.
    /// The bytes as this thread's reads see them: while another writer has uncommitted
    /// changes in the block, its committed content (see [`committed_reads`]).
    pub fn read(&self) -> committed_reads::BlockBytes<'_> {
        let slot = self.slot();
        if slot.write_pending.load(Ordering::Acquire) > 0 {
            let reader = committed_reads::current_writer();
            let image = if reader == committed_reads::READ_UNCOMMITTED {
                None
            } else {
                slot.committed_image
                    .lock()
                    .as_ref()
                    .and_then(|(writer, image)| (*writer != reader).then(|| Arc::clone(image)))
            };
            if let Some(image) = image {
                return committed_reads::BlockBytes::Committed(image);
            }
        }
        committed_reads::BlockBytes::Live(slot.data.read())
    }
    /// Exclusive access to the bytes. Call [`Block::begin_write`] first, and
    /// [`Block::end_write`] once the change is logged ([`BlockCache::mark_dirty`]) or undone.
    pub fn write(&self) -> RwLockWriteGuard<'_, Box<[u8]>> {
        debug_assert!(
            self.slot().write_pending.load(Ordering::Relaxed) > 0,
            "write without begin_write"
        );
        self.slot().data.write()
    }
    /// Announce uncommitted changes: the block is not written back until `end_write`.
    pub fn begin_write(&self) {
        self.slot().write_pending.fetch_add(1, Ordering::SeqCst);
    }
    /// [`Block::begin_write`], handing over `image`, the block's committed content (its
    /// bytes before the first uncommitted change): until the last `end_write`, or until
    /// [`Block::drop_committed_image`], a flush that must write the block (`flush_all`,
    /// `flush_file`) writes `image` instead of waiting for the writer. Kept only when this
    /// call makes the block write-pending; a block already pending keeps what it has (one
    /// writer at a time is the caller's rule: the image belongs to that writer, the one
    /// this thread reads as, [`committed_reads::reading_as`], and other readers see it).
    pub fn begin_write_with(&self, image: Arc<[u8]>) {
        let slot = self.slot();
        let mut held = slot.committed_image.lock();
        if slot.write_pending.fetch_add(1, Ordering::SeqCst) == 0 {
            *held = Some((committed_reads::current_writer(), image));
        }
    }
    /// Whether `writer` has uncommitted changes in the block (it handed over the block's
    /// committed image, see [`committed_reads`]).
    pub fn written_by(&self, writer: u64) -> bool {
        let slot = self.slot();
        slot.write_pending.load(Ordering::Acquire) > 0
            && slot
                .committed_image
                .lock()
                .as_ref()
                .is_some_and(|(owner, _)| *owner == writer)
    }
    /// The image handed to [`Block::begin_write_with`] stops being the committed content:
    /// call before appending the log record that commits the change (see "The committed
    /// image" in the module doc for why not after). Flushes wait for `end_write` again.
    pub fn drop_committed_image(&self) {
        let image = self.slot().committed_image.lock().take();
        drop(image);
    }
    /// The uncommitted changes were logged (after `mark_dirty`) or rolled back. The last
    /// one lets the committed image go.
    pub fn end_write(&self) {
        let slot = self.slot();
        let image = {
            let mut held = slot.committed_image.lock();
            let before = slot.write_pending.fetch_sub(1, Ordering::SeqCst);
            assert!(before > 0, "end_write without begin_write");
            if before == 1 {
                held.take()
            } else {
                None
            }
        };
        drop(image);
    }
    /// Raise the LSN that must be durable before this block is written (a committer that
    /// marked the block dirty before its log record had an LSN).
    pub fn raise_flush_lsn(&self, lsn: u64) {
        self.slot().flush_lsn.fetch_max(lsn, Ordering::AcqRel);
    }
    pub fn is_dirty(&self) -> bool {
        self.slot().dirty.load(Ordering::Acquire)
    }
}

impl Clone for Block {
    fn clone(&self) -> Block {
        self.slot().state.fetch_add(ACQ_ONE, Ordering::AcqRel);
        Block { slot: self.slot }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        self.slot().unpin();
    }
}

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Block({}:{})", self.file(), self.block())
    }
}

/// A value alone on its cache line (128 bytes: adjacent-line prefetch pairs lines).
#[repr(align(128))]
struct Line<T>(T);

impl<T> std::ops::Deref for Line<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

#[derive(Default)]
#[repr(align(128))]
struct Counters {
    read_requests: AtomicU64,
    reads: AtomicU64,
    write_requests: AtomicU64,
    writes: AtomicU64,
    overflows: AtomicU64,
}

/// Which counter stripe a thread owns: claimed on its first count, given back when it ends.
struct StripeClaim {
    index: usize,
    /// No other live thread counts on this stripe: its counts are a plain load and store
    /// (no locked instruction on the hit path). Shared stripes (more than
    /// [`COUNTER_STRIPES`] threads) use `fetch_add`.
    exclusive: bool,
}

static STRIPE_OWNED: [std::sync::atomic::AtomicBool; COUNTER_STRIPES] =
    [const { std::sync::atomic::AtomicBool::new(false) }; COUNTER_STRIPES];

impl StripeClaim {
    fn claim() -> StripeClaim {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let start = NEXT.fetch_add(1, Ordering::Relaxed);
        for step in 0..COUNTER_STRIPES {
            let index = (start + step) % COUNTER_STRIPES;
            if STRIPE_OWNED[index]
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return StripeClaim {
                    index,
                    exclusive: true,
                };
            }
        }
        StripeClaim {
            index: start % COUNTER_STRIPES,
            exclusive: false,
        }
    }
}

impl Drop for StripeClaim {
    fn drop(&mut self) {
        if self.exclusive {
            // Release: the next owner's plain loads see this thread's last stores.
            STRIPE_OWNED[self.index].store(false, std::sync::atomic::Ordering::Release);
        }
    }
}

thread_local! {
    static STRIPE: StripeClaim = StripeClaim::claim();
}

/// This thread's counter stripe and whether it owns it alone.
#[inline]
fn stripe() -> (usize, bool) {
    // A thread being torn down (a pin dropped by a TLS destructor) counts on a shared stripe.
    STRIPE
        .try_with(|s| (s.index, s.exclusive))
        .unwrap_or((0, false))
}

/// Add one to a striped counter.
#[inline]
fn bump(counter: &AtomicU64, exclusive: bool) {
    // Shuttle runs its simulated threads on one OS thread (one thread-local claim), so
    // under it every count is an atomic add.
    if exclusive && cfg!(not(feature = "shuttle")) {
        counter.store(
            counter.load(Ordering::Relaxed).wrapping_add(1),
            Ordering::Relaxed,
        );
    } else {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

struct IndexTable {
    entries: Box<[AtomicU64]>,
    mask: usize,
    len: AtomicUsize,
}

impl IndexTable {
    fn new(size: usize) -> IndexTable {
        let size = size.next_power_of_two().max(16);
        IndexTable {
            entries: (0..size).map(|_| AtomicU64::new(0)).collect(),
            mask: size - 1,
            len: AtomicUsize::new(0),
        }
    }
}

struct GhostTable(Box<[AtomicU64]>);

/// An index entry: the high half of the key's hash as a tag, and the slot index + 1 (an
/// entry of 0 is an empty place).
fn entry(hash: u64, slot: u32) -> u64 {
    tag(hash) | (slot as u64 + 1)
}
/// The part of a hash (or of an entry) that an entry keeps.
fn tag(hash: u64) -> u64 {
    hash & 0xFFFF_FFFF_0000_0000
}
/// The slot a non-empty entry names.
fn entry_slot(e: u64) -> usize {
    (e as u32 - 1) as usize
}

#[repr(align(128))]
struct Partition {
    lock: Mutex<()>,
    table: AtomicPtr<IndexTable>,
    retired: Mutex<Vec<*mut IndexTable>>,
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
    /// Blocks in the hot (non-probationary) part.
    pub key_blocks_warm: u64,
    /// Times the cache grew past its capacity because every block was pinned.
    pub overflows: u64,
}

enum Found {
    Ready(Block),
    Loading(Block),
    /// `seen`: an entry with the key's tag was passed (a block being evicted or moved, or
    /// a tag collision): the slow path then looks again under the mutex before evicting.
    Miss {
        seen: bool,
    },
}

/// The two steps of [`BlockCache::prefetch`]: a caller about to fetch several blocks issues
/// `Index` for all, then `Slot` for all, then fetches, so that the cache misses of the
/// different lookups overlap instead of queueing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Prefetch {
    /// Start loading the key's index entry.
    Index,
    /// Read the entry (loaded by `Index`) and start loading the slot it names.
    Slot,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fill {
    Read,
    Zero,
}

/// The outcome of a lookup-or-load in one segment of a key cache being re-segmented (see
/// `segments.rs`): the block, or where to look instead.
pub(crate) enum Fetch {
    Got(Block),
    /// This cache is frozen (a newer generation replaced it): look in the current one.
    Frozen,
    /// The older generation still holds the block: pin it there.
    Elsewhere,
}

/// Unused slots below capacity that the clock tolerates while it evicts: holes left by
/// claims given back (two misses raced for one block) are filled as the hand passes them.
/// Zero below 256 blocks, so small caches use every unused block before evicting.
fn free_slack(cap: usize) -> u64 {
    cap as u64 / 256
}

/// What one sweep of the clock works with.
#[derive(Clone, Copy)]
struct SweepLimits {
    cap: usize,
    hot_limit: u64,
    age_limit: u64,
    /// The insert count when the sweep began (blocks touched now are stamped with it).
    now: u64,
    /// The forced last turn: touches and hot marks are ignored (see `visit`).
    force: bool,
}

/// See the module documentation.
pub struct BlockCache {
    chunks: Box<[AtomicPtr<Slot>]>,
    /// Slots allocated (headers); `capacity` of them may hold blocks, the rest are retired or
    /// overflow.
    slot_count: AtomicUsize,
    capacity: AtomicUsize,
    partitions: Box<[Partition]>,
    counters: Box<[Counters]>,
    // The counters every miss writes each sit on a cache line of their own, away from the
    // read-mostly fields every sweep reads: sharing one line made it bounce between all
    // cores at every miss (16 real cores: misses 3x slower at 16 threads than at 8).
    hand: Line<AtomicU64>,
    /// Two counts in one word, so that a slot changing hands moves both in one atomic step:
    /// blocks cached (`Key_blocks_used`, high half) and slots claimed for a block and not
    /// yet published or given back (low half). Their sum tells the clock whether unused
    /// slots remain; a victim just evicted for a claimer is not one.
    blocks: Line<AtomicU64>,
    hot: Line<AtomicU64>,
    dirty_count: Line<AtomicU64>,
    inserts: Line<AtomicU64>,
    division_limit: AtomicU64,
    age_threshold: AtomicU64,
    /// Hashes of recently evicted cold blocks; replaced on resize, old tables kept till Drop.
    ghost: AtomicPtr<GhostTable>,
    retired_ghosts: Mutex<Vec<*mut GhostTable>>,
    /// Resizes moving blocks down right now (the clock then leaves slots beyond capacity).
    migrating: AtomicUsize,
    /// The last sweep found no victim: the next ones look only briefly.
    overflowing: AtomicBool,
    /// The last full sweep that found no victim saw write-pending blocks.
    pending_seen: AtomicBool,
    /// Serialises resizes and slot allocation.
    resize_lock: Mutex<()>,
    /// Replaced by a newer generation of its key cache: loads nothing more (see `fetch`).
    frozen: AtomicBool,
    /// Unique per cache, stamped on its slots (see [`BlockCache::holds`]).
    id: u32,
    block_size: usize,
    io: std::sync::Arc<dyn BlockIo>,
}

// SAFETY: the raw pointers (slot chunks, retired index tables) are owned by the cache and
// only freed in Drop; all shared state is atomic or locked.
unsafe impl Send for BlockCache {}
unsafe impl Sync for BlockCache {}

fn hash_key(file: FileId, block: u64) -> u64 {
    let h = (file.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ block).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^ (h >> 31)
}

/// MySQL's defaults: key_cache_division_limit 100 would disable the hot part; myriad keeps
/// 20% probationary by default so that scans cannot flush the hot set.
pub const DEFAULT_DIVISION_LIMIT: u64 = 20;
pub const DEFAULT_AGE_THRESHOLD: u64 = 300;

impl BlockCache {
    /// A cache of `capacity_bytes / block_size` blocks (at least [`SHARD_COUNT`]).
    pub fn new(
        capacity_bytes: usize,
        block_size: usize,
        io: std::sync::Arc<dyn BlockIo>,
    ) -> BlockCache {
        Self::with_partitions(capacity_bytes, block_size, PARTITIONS, io)
    }

    /// As [`BlockCache::new`] with `partitions` index partitions (a power of two, at most
    /// 64): a segment of a segmented cache takes its share of the 64, so that the segments
    /// together keep as few partition headers hot as one cache does.
    pub(crate) fn with_partitions(
        capacity_bytes: usize,
        block_size: usize,
        partitions: usize,
        io: std::sync::Arc<dyn BlockIo>,
    ) -> BlockCache {
        let block_size = block_size.max(1);
        let capacity = Self::blocks_for(capacity_bytes, block_size);
        let count = partitions.clamp(1, PARTITIONS).next_power_of_two();
        let partitions: Box<[Partition]> = (0..count)
            .map(|_| Partition {
                lock: Mutex::new(()),
                table: AtomicPtr::new(Box::into_raw(Box::new(IndexTable::new(
                    4 * capacity / count + 16,
                )))),
                retired: Mutex::new(Vec::new()),
            })
            .collect();
        let cache = BlockCache {
            chunks: (0..MAX_CHUNKS)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            slot_count: AtomicUsize::new(0),
            capacity: AtomicUsize::new(capacity),
            partitions,
            counters: (0..COUNTER_STRIPES).map(|_| Counters::default()).collect(),
            hand: Line(AtomicU64::new(0)),
            blocks: Line(AtomicU64::new(0)),
            hot: Line(AtomicU64::new(0)),
            dirty_count: Line(AtomicU64::new(0)),
            inserts: Line(AtomicU64::new(0)),
            division_limit: AtomicU64::new(DEFAULT_DIVISION_LIMIT),
            age_threshold: AtomicU64::new(DEFAULT_AGE_THRESHOLD),
            ghost: AtomicPtr::new(Box::into_raw(Box::new(Self::ghost_for(capacity)))),
            retired_ghosts: Mutex::new(Vec::new()),
            resize_lock: Mutex::new(()),
            frozen: AtomicBool::new(false),
            id: {
                static NEXT_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
                NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
            migrating: AtomicUsize::new(0),
            overflowing: AtomicBool::new(false),
            pending_seen: AtomicBool::new(false),
            block_size,
            io,
        };
        {
            let _g = cache.resize_lock.lock();
            cache.allocate_slots(capacity);
        }
        cache
    }

    fn blocks_for(bytes: usize, block_size: usize) -> usize {
        (bytes / block_size).clamp(SHARD_COUNT, MAX_CHUNKS * CHUNK_SLOTS / 2)
    }

    fn ghost_for(capacity: usize) -> GhostTable {
        GhostTable(
            (0..capacity.next_power_of_two())
                .map(|_| AtomicU64::new(0))
                .collect(),
        )
    }

    fn ghost(&self) -> &[AtomicU64] {
        // SAFETY: ghost tables are freed only in Drop.
        unsafe { &(*self.ghost.load(Ordering::Acquire)).0 }
    }

    /// Allocate slot headers up to `count` (resize lock held).
    fn allocate_slots(&self, count: usize) {
        let have = self.slot_count.load(Ordering::Acquire);
        if count <= have {
            return;
        }
        let first_missing = have.div_ceil(CHUNK_SLOTS);
        for c in first_missing..count.div_ceil(CHUNK_SLOTS) {
            if self.chunks[c].load(Ordering::Acquire).is_null() {
                let chunk: Box<[Slot]> = (0..CHUNK_SLOTS).map(|_| Slot::new(self.id)).collect();
                self.chunks[c].store(Box::into_raw(chunk) as *mut Slot, Ordering::Release);
            }
        }
        self.slot_count.store(count, Ordering::Release);
    }

    #[inline]
    fn slot(&self, index: usize) -> &Slot {
        let chunk = self.chunks[index / CHUNK_SLOTS].load(Ordering::Acquire);
        debug_assert!(!chunk.is_null());
        // SAFETY: indices below slot_count lie in allocated chunks, never freed before Drop.
        unsafe { &*chunk.add(index % CHUNK_SLOTS) }
    }

    /// Count one event on this thread's stripe.
    #[inline]
    fn count(&self, field: fn(&Counters) -> &AtomicU64) {
        let (index, exclusive) = stripe();
        bump(field(&self.counters[index]), exclusive);
    }

    /// Blocks cached (loaded or loading), as `Key_blocks_used` counts them.
    #[inline]
    pub(crate) fn used(&self) -> u64 {
        self.blocks.load(Ordering::Relaxed) >> 32
    }

    /// Slots holding a block or claimed for one.
    fn taken(&self) -> u64 {
        let b = self.blocks.load(Ordering::Relaxed);
        (b >> 32) + (b & 0xFFFF_FFFF)
    }

    /// Change the cached and the claimed counts together, in one atomic step.
    #[inline]
    fn add_blocks(&self, used: i64, claimed: i64) {
        let delta = (used << 32).wrapping_add(claimed) as u64;
        self.blocks.fetch_add(delta, Ordering::Relaxed);
    }

    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// Capacity in blocks.
    pub fn capacity_blocks(&self) -> usize {
        self.capacity.load(Ordering::Acquire)
    }

    /// `key_cache_division_limit`: the minimum percentage of the cache kept probationary
    /// (1..=100; 100 disables the hot part, as in MySQL).
    pub fn set_division_limit(&self, percent: u64) {
        self.division_limit
            .store(percent.clamp(1, 100), Ordering::Relaxed);
    }

    /// `key_cache_age_threshold`: a hot block untouched while this percentage of the cache's
    /// size in new blocks came in returns to the probationary part (at least 100).
    pub fn set_age_threshold(&self, percent: u64) {
        self.age_threshold
            .store(percent.max(100), Ordering::Relaxed);
    }

    fn hot_limit(&self) -> u64 {
        let cap = self.capacity.load(Ordering::Relaxed) as u64;
        cap * (100 - self.division_limit.load(Ordering::Relaxed)) / 100
    }

    // ---- lookup ----

    /// Lock-free lookup: pins the slot holding the key, if the index shows one.
    #[inline]
    fn lookup(&self, hash: u64, file: FileId, block: u64) -> Found {
        let part = self.partition(hash);
        // SAFETY: index tables are freed only in Drop.
        let table = unsafe { &*part.table.load(Ordering::Acquire) };
        let wanted = tag(hash);
        let mut pos = hash as usize & table.mask;
        let mut seen = false;
        for _ in 0..=table.mask {
            let e = table.entries[pos].load(Ordering::Acquire);
            if e == 0 {
                return Found::Miss { seen };
            }
            if tag(e) == wanted {
                seen = true;
                let index = entry_slot(e);
                let slot = self.slot(index);
                let old = slot.state.fetch_add(ACQ_ONE, Ordering::AcqRel);
                let st = state(old);
                if st == READY || st == LOADING {
                    let b = Block {
                        slot: NonNull::from(slot),
                    };
                    if slot.key() == (file, block) && slot.indexed.load(Ordering::Acquire) {
                        return if st == READY {
                            Found::Ready(b)
                        } else {
                            Found::Loading(b)
                        };
                    }
                    drop(b);
                } else {
                    slot.state.fetch_sub(ACQ_ONE, Ordering::AcqRel);
                }
            }
            pos = (pos + 1) & table.mask;
        }
        Found::Miss { seen: true }
    }

    /// A hint that `(file, block)` is fetched soon (see [`Prefetch`]): pins nothing, changes
    /// nothing, and a stale or missing entry only makes the hint useless.
    pub fn prefetch(&self, file: FileId, block: u64, step: Prefetch) {
        let hash = hash_key(file, block);
        let part = self.partition(hash);
        // SAFETY: index tables are freed only in Drop.
        let table = unsafe { &*part.table.load(Ordering::Acquire) };
        let entry = &table.entries[hash as usize & table.mask];
        match step {
            Prefetch::Index => crate::sync::prefetch(entry),
            Prefetch::Slot => {
                let e = entry.load(Ordering::Relaxed);
                if e != 0
                    && tag(e) == tag(hash)
                    && entry_slot(e) < self.slot_count.load(Ordering::Acquire)
                {
                    let slot = self.slot(entry_slot(e));
                    crate::sync::prefetch(&slot.state);
                    crate::sync::prefetch(&slot.data);
                }
            }
        }
    }

    /// Whether the index holds an entry pointing at a live slot (LOADING or READY) for the
    /// key, looked up under the partition mutex.
    fn find_locked(&self, part: &Partition, hash: u64, file: FileId, block: u64) -> bool {
        let _g = part.lock.lock();
        self.find_in_index(part, hash, file, block)
    }

    /// As `find_locked`, for a caller that holds the partition mutex.
    fn find_in_index(&self, part: &Partition, hash: u64, file: FileId, block: u64) -> bool {
        // SAFETY: as in lookup.
        let table = unsafe { &*part.table.load(Ordering::Acquire) };
        let wanted = tag(hash);
        let mut pos = hash as usize & table.mask;
        for _ in 0..=table.mask {
            let e = table.entries[pos].load(Ordering::Acquire);
            if e == 0 {
                return false;
            }
            if tag(e) == wanted {
                let slot = self.slot(entry_slot(e));
                let st = state(slot.state.load(Ordering::Acquire));
                if (st == READY || st == LOADING) && slot.key() == (file, block) {
                    return true;
                }
            }
            pos = (pos + 1) & table.mask;
        }
        false
    }

    /// Under the partition lock: add an entry, growing the table past 3/4 full.
    fn index_insert(&self, part: &Partition, hash: u64, index: usize) {
        // SAFETY: as in lookup; the lock makes us the only writer.
        let mut table = unsafe { &*part.table.load(Ordering::Acquire) };
        if (table.len.load(Ordering::Relaxed) + 1) * 4 > (table.mask + 1) * 3 {
            let bigger = IndexTable::new((table.mask + 1) * 2);
            for e in table.entries.iter() {
                let e = e.load(Ordering::Relaxed);
                if e != 0 {
                    let h = self.slot(entry_slot(e)).hash.load(Ordering::Relaxed);
                    Self::raw_insert(&bigger, h, e);
                }
            }
            let new = Box::into_raw(Box::new(bigger));
            let old = part.table.swap(new, Ordering::AcqRel);
            part.retired.lock().push(old);
            // SAFETY: just stored, freed only in Drop.
            table = unsafe { &*new };
        }
        Self::raw_insert(table, hash, entry(hash, index as u32));
    }

    fn raw_insert(table: &IndexTable, hash: u64, e: u64) {
        let mut pos = hash as usize & table.mask;
        loop {
            if table.entries[pos].load(Ordering::Relaxed) == 0 {
                table.entries[pos].store(e, Ordering::Release);
                table.len.fetch_add(1, Ordering::Relaxed);
                return;
            }
            pos = (pos + 1) & table.mask;
        }
    }

    /// Under the partition lock: remove the entry pointing at `index` (backward shift, so no
    /// tombstones). Returns the position it had, if found.
    fn index_remove(&self, part: &Partition, hash: u64, index: usize) -> bool {
        // SAFETY: as in index_insert.
        let table = unsafe { &*part.table.load(Ordering::Acquire) };
        let target = entry(hash, index as u32);
        let mut pos = hash as usize & table.mask;
        let mut found = None;
        for _ in 0..=table.mask {
            let e = table.entries[pos].load(Ordering::Relaxed);
            if e == 0 {
                break;
            }
            if e == target {
                found = Some(pos);
                break;
            }
            pos = (pos + 1) & table.mask;
        }
        let Some(mut hole) = found else { return false };
        let mut j = hole;
        loop {
            j = (j + 1) & table.mask;
            let e = table.entries[j].load(Ordering::Relaxed);
            if e == 0 {
                break;
            }
            let home = self.slot(entry_slot(e)).hash.load(Ordering::Relaxed) as usize & table.mask;
            // The entry at j may move back to the hole unless its home lies in (hole, j].
            if (j.wrapping_sub(home) & table.mask) >= (j.wrapping_sub(hole) & table.mask) {
                table.entries[hole].store(e, Ordering::Release);
                hole = j;
            }
        }
        table.entries[hole].store(0, Ordering::Release);
        table.len.fetch_sub(1, Ordering::Relaxed);
        true
    }

    fn partition(&self, hash: u64) -> &Partition {
        &self.partitions[(hash >> 58) as usize & (self.partitions.len() - 1)]
    }

    // ---- the public operations ----

    /// The block, read through the [`BlockIo`] on a miss. Errors are not cached.
    pub fn get(&self, file: FileId, block: u64) -> io::Result<Block> {
        self.fetch_alone(file, block, Fill::Read)
    }

    /// The block if it is cached and loaded; no read, no counters (CHECK TABLE uses it to
    /// tell pages newer in memory than on disk).
    pub fn peek(&self, file: FileId, block: u64) -> Option<Block> {
        match self.lookup(hash_key(file, block), file, block) {
            Found::Ready(b) => Some(b),
            _ => None,
        }
    }

    /// A new block of zeros (a page being allocated): no read. Replaces a cached copy.
    pub fn create(&self, file: FileId, block: u64) -> io::Result<Block> {
        self.fetch_alone(file, block, Fill::Zero)
    }

    /// `fetch` for a cache that is not part of a re-segmentation (never frozen).
    fn fetch_alone(&self, file: FileId, block: u64, fill: Fill) -> io::Result<Block> {
        match self.fetch(file, block, fill, None)? {
            Fetch::Got(b) => Ok(b),
            Fetch::Frozen | Fetch::Elsewhere => Err(io::Error::other(
                "block cache: a frozen segment was used outside its key cache",
            )),
        }
    }

    /// Lookup, or load on a miss. `older`: the segment of the generation this cache
    /// replaces, which may still hold the block; a miss loads only after seeing, under that
    /// segment's partition mutex, that it does not (a page is never cached twice).
    #[inline]
    pub(crate) fn fetch(
        &self,
        file: FileId,
        block: u64,
        fill: Fill,
        older: Option<&BlockCache>,
    ) -> io::Result<Fetch> {
        if fill == Fill::Read {
            self.count(|c| &c.read_requests);
        }
        let hash = hash_key(file, block);
        match self.lookup(hash, file, block) {
            // The hit, kept small enough to inline into the callers.
            Found::Ready(b) => Ok(Fetch::Got(Self::filled(b, fill))),
            found => self.fetch_slow(found, file, block, fill, older, None),
        }
    }

    /// `fetch` (a read, no older generation) that reads the block's run on a miss; the
    /// caller offers the rest. Apart from `fetch`, whose hit stays small enough to inline.
    #[inline(never)]
    pub(crate) fn fetch_ahead(
        &self,
        file: FileId,
        block: u64,
        run: &mut read_ahead::ReadAhead,
    ) -> io::Result<Fetch> {
        self.count(|c| &c.read_requests);
        match self.lookup(hash_key(file, block), file, block) {
            Found::Ready(b) => Ok(Fetch::Got(b)),
            found => self.fetch_slow(found, file, block, Fill::Read, None, Some(run)),
        }
    }

    /// `fetch` past a lookup that found no ready block.
    #[inline(never)]
    fn fetch_slow(
        &self,
        first: Found,
        file: FileId,
        block: u64,
        fill: Fill,
        older: Option<&BlockCache>,
        mut ahead: Option<&mut read_ahead::ReadAhead>,
    ) -> io::Result<Fetch> {
        let hash = hash_key(file, block);
        let mut first = Some(first);
        loop {
            let found = first
                .take()
                .unwrap_or_else(|| self.lookup(hash, file, block));
            match found {
                Found::Ready(b) => return Ok(Fetch::Got(Self::filled(b, fill))),
                Found::Loading(b) => {
                    if let Some(b) = Self::loaded(b) {
                        return Ok(Fetch::Got(Self::filled(b, fill)));
                    }
                    continue; // FAILED: the pin drops, look again (and read again).
                }
                Found::Miss { seen } => {
                    // Look again under the partition mutex before claiming a slot (which
                    // evicts) when the lookup passed this key's tag: a block being moved by
                    // a resize is waited for here, not evicted around and read from disk.
                    // (A clean miss is looked up again below, after the claim, anyway.)
                    if seen && self.find_locked(self.partition(hash), hash, file, block) {
                        continue;
                    }
                }
            }
            let part = self.partition(hash);
            let index = self.claim_slot()?;
            let slot = self.slot(index);
            let guard = part.lock.lock();
            if self.find_in_index(part, hash, file, block) {
                drop(guard);
                self.release_claim(slot);
                continue;
            }
            if self.frozen.load(Ordering::Acquire) {
                drop(guard);
                self.release_claim(slot);
                return Ok(Fetch::Frozen);
            }
            // Held until the block is published here: the older generation cannot gain it.
            let older_guard = match older {
                Some(old) => {
                    let old_part = old.partition(hash);
                    let g = old_part.lock.lock();
                    if old.find_in_index(old_part, hash, file, block) {
                        drop(g);
                        drop(guard);
                        self.release_claim(slot);
                        return Ok(Fetch::Elsewhere);
                    }
                    Some(g)
                }
                None => None,
            };
            slot.file.store(file, Ordering::Relaxed);
            slot.block.store(block, Ordering::Relaxed);
            slot.hash.store(hash, Ordering::Relaxed);
            let mut data = slot.data.write();
            if data.len() != self.block_size {
                *data = vec![0u8; self.block_size].into_boxed_slice();
            }
            let from_ghost = self.ghost_take(hash);
            let hot = from_ghost && self.hot.load(Ordering::Relaxed) < self.hot_limit();
            if hot {
                self.hot.fetch_add(1, Ordering::Relaxed);
            }
            slot.seen_at.store(
                self.inserts.fetch_add(1, Ordering::Relaxed),
                Ordering::Relaxed,
            );
            slot.indexed.store(true, Ordering::Release);
            // Counted while the slot is still this thread's alone (see `claim_counts`).
            self.publish_claim(slot);
            slot.state.fetch_add(
                state_delta(OWNED, LOADING) + ACQ_ONE + FRESH + if hot { HOT } else { 0 },
                Ordering::AcqRel,
            );
            self.index_insert(part, hash, index);
            drop(older_guard);
            drop(guard);
            let result = match fill {
                Fill::Read => {
                    self.count(|c| &c.reads);
                    match ahead.as_deref_mut() {
                        Some(run) => run.read(&*self.io, file, block, &mut data),
                        None => self.io.read_block(file, block, &mut data),
                    }
                }
                Fill::Zero => {
                    data.fill(0);
                    Ok(())
                }
            };
            let pinned = Block {
                slot: NonNull::from(slot),
            };
            match result {
                Ok(()) => {
                    slot.state
                        .fetch_add(state_delta(LOADING, READY), Ordering::AcqRel);
                    drop(data);
                    return Ok(Fetch::Got(pinned));
                }
                Err(e) => {
                    let guard = part.lock.lock();
                    self.index_remove(part, hash, index);
                    slot.indexed.store(false, Ordering::Release);
                    let old = slot
                        .state
                        .fetch_add(state_delta(LOADING, FAILED), Ordering::AcqRel);
                    drop(guard);
                    if old & HOT != 0 {
                        slot.state.fetch_and(!HOT, Ordering::AcqRel);
                        self.hot.fetch_sub(1, Ordering::Relaxed);
                    }
                    self.add_blocks(-1, 0);
                    drop(data);
                    drop(pinned);
                    return Err(e);
                }
            }
        }
    }

    /// A block read ahead with another's miss (see `read_ahead`): verified and cached cold,
    /// unpinned and untouched, unless the index has the key, no slot comes free without
    /// writing or waiting, or a write of the file started since the run was read. Returns
    /// whether it was cached.
    pub(crate) fn offer(
        &self,
        file: FileId,
        block: u64,
        bytes: &mut [u8],
        mark: &read_ahead::WriteMark,
    ) -> bool {
        if self.frozen.load(Ordering::Acquire)
            || self.overflowing.load(Ordering::Relaxed)
            || self.migrating.load(Ordering::Acquire) > 0
            || bytes.len() != self.block_size
        {
            return false;
        }
        let hash = hash_key(file, block);
        let part = self.partition(hash);
        if self.find_locked(part, hash, file, block)
            || self.io.check_block(file, block, bytes).is_err()
        {
            return false;
        }
        // One bounded sweep: dirty victims are left for a miss to write.
        let (mut dirty, mut saw_pending) = (Vec::new(), false);
        let Some(index) = self.sweep(&mut dirty, &mut saw_pending, false) else {
            return false;
        };
        drop(dirty);
        self.clear_overflowing();
        let slot = self.slot(index);
        slot.file.store(file, Ordering::Relaxed);
        slot.block.store(block, Ordering::Relaxed);
        slot.hash.store(hash, Ordering::Relaxed);
        {
            let mut data = slot.data.write();
            if data.len() != self.block_size {
                *data = vec![0u8; self.block_size].into_boxed_slice();
            }
            data.copy_from_slice(bytes);
        }
        let guard = part.lock.lock();
        if self.find_in_index(part, hash, file, block)
            || self.frozen.load(Ordering::Acquire)
            || !mark.still_quiet()
        {
            drop(guard);
            self.release_claim(slot);
            return false;
        }
        slot.seen_at.store(
            self.inserts.fetch_add(1, Ordering::Relaxed),
            Ordering::Relaxed,
        );
        slot.indexed.store(true, Ordering::Release);
        self.publish_claim(slot);
        slot.state
            .fetch_add(state_delta(OWNED, READY), Ordering::AcqRel);
        self.index_insert(part, hash, index);
        drop(guard);
        true
    }

    /// A block found loading, once its read ended: None if the read failed.
    fn loaded(b: Block) -> Option<Block> {
        // Park on the content lock, which the loader holds while it reads.
        drop(b.slot().data.read());
        (state(b.slot().state.load(Ordering::Acquire)) == READY).then_some(b)
    }

    /// A cached block handed to `get` (as it is) or `create` (zeroed: a new page).
    fn filled(b: Block, fill: Fill) -> Block {
        if fill == Fill::Zero {
            b.slot().data.write().fill(0);
        }
        b
    }

    fn ghost_take(&self, hash: u64) -> bool {
        let ghost = self.ghost();
        let cell = &ghost[hash as usize & (ghost.len() - 1)];
        cell.load(Ordering::Relaxed) == hash
            && cell
                .compare_exchange(hash, 0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }

    fn ghost_put(&self, hash: u64) {
        let ghost = self.ghost();
        ghost[hash as usize & (ghost.len() - 1)].store(hash, Ordering::Relaxed);
    }

    /// A slot `claim_slot` gave, back to FREE unused.
    fn release_claim(&self, slot: &Slot) {
        let (cached, claimed) = self.claim_counts(slot);
        self.release_owned(slot);
        self.add_blocks(-cached, -claimed);
    }

    /// A slot `claim_slot` gave now holds a block: counted as cached.
    fn publish_claim(&self, slot: &Slot) {
        let (cached, claimed) = self.claim_counts(slot);
        if claimed != 0 {
            self.add_blocks(1 - cached, -claimed);
        }
    }

    /// How a claimed slot is counted, as (cached, claimed): a slot claimed by evicting its
    /// block stays counted as cached, so that the usual miss (evict, then load) changes the
    /// shared count not at all, instead of twice (it was one of the lines every miss made
    /// every core wait for). Read (and reset) while the slot is still OWNED by the caller:
    /// once it is READY and unpinned another thread's eviction may set the flag for its own
    /// claim (a resize's move settled after publishing lost a count that way).
    fn claim_counts(&self, slot: &Slot) -> (i64, i64) {
        if slot.claim_counted_cached.swap(false, Ordering::Relaxed) {
            (1, 0)
        } else {
            (0, 1)
        }
    }

    /// Back to FREE, unused (a slot this thread owns).
    fn release_owned(&self, slot: &Slot) {
        slot.state
            .fetch_sub(state_delta(FREE, OWNED), Ordering::AcqRel);
    }

    /// An OWNED slot to fill: a free slot, a victim of the clock, or an overflow slot.
    fn claim_slot(&self) -> io::Result<usize> {
        let short = self.overflowing.load(Ordering::Relaxed);
        let mut result = match self.try_claim_slot() {
            // A short look proves nothing: fail only after a full sweep.
            Err(e) if short && e.kind() == io::ErrorKind::OutOfMemory => {
                self.overflowing.store(false, Ordering::Relaxed);
                self.try_claim_slot()
            }
            result => result,
        };
        // A shrink in progress holds blocks beyond the new capacity (counted as used) until
        // it has moved them: wait for it a bounded while rather than fail.
        let mut waits = 0;
        while matches!(&result, Err(e) if e.kind() == io::ErrorKind::OutOfMemory)
            && self.migrating.load(Ordering::Acquire) > 0
            && waits < MIGRATION_WAITS
        {
            waits += 1;
            sync::pause();
            self.overflowing.store(false, Ordering::Relaxed);
            result = self.try_claim_slot();
        }
        result
    }

    /// Try to claim a free slot (`claim` owns it for the caller or fails), counted as
    /// claimed from before the attempt: the slots taken must never be undercounted, or
    /// other sweepers would look for an unused slot that is not there and evict nothing (a
    /// claimer preempted there made every other miss sweep the whole clock). A victim
    /// evicted for a claimer moves from cached to claimed in one step (`evict`).
    fn claiming(&self, claim: impl FnOnce() -> bool) -> bool {
        self.add_blocks(0, 1);
        let claimed = claim();
        if !claimed {
            self.add_blocks(0, -1);
        }
        claimed
    }

    fn try_claim_slot(&self) -> io::Result<usize> {
        let short = self.overflowing.load(Ordering::Relaxed);
        // A short look relies on what the last full sweep saw of write-pending blocks.
        let mut saw_pending = short && self.pending_seen.load(Ordering::Relaxed);
        // Two bounded sweeps, then (in a full look) one forced turn; dirty victims found on
        // the way are written back before the next.
        let attempts = if short { 1 } else { 4 };
        for attempt in 0..attempts {
            let mut dirty = Vec::new();
            let force = attempt >= 2;
            if let Some(index) = self.sweep(&mut dirty, &mut saw_pending, force) {
                self.clear_overflowing();
                return Ok(index);
            }
            // Nothing clean to evict: write dirty victims back (WAL rule inside), retry if
            // that cleaned any.
            for b in dirty {
                self.write_back(b.slot(), false)?;
            }
        }
        // Every block pinned (or write-pending): grow past capacity, boundedly.
        if !short {
            self.pending_seen.store(saw_pending, Ordering::Relaxed);
        }
        self.overflowing.store(true, Ordering::Relaxed);
        let _g = self.resize_lock.lock();
        let count = self.slot_count.load(Ordering::Acquire);
        let cap = self.capacity.load(Ordering::Acquire);
        let mut scan_from = cap;
        while scan_from < count {
            let slot = self.slot(scan_from);
            let w = slot.state.load(Ordering::Acquire);
            if state(w) == FREE && !pinned(w) && self.claiming(|| self.try_own(slot, w)) {
                self.count(|c| &c.overflows);
                return Ok(scan_from);
            }
            scan_from += 1;
        }
        // Blocks held by uncommitted statements (write-pending) are bounded by statement
        // size, so they may overflow further; pins alone stop at twice the capacity.
        let bound = if saw_pending {
            MAX_CHUNKS * CHUNK_SLOTS
        } else {
            2 * cap + SHARD_COUNT
        };
        // Counted in blocks held, not slots: slots retired by a shrink stay allocated.
        let used = self.used() as usize;
        if used >= bound || count >= MAX_CHUNKS * CHUNK_SLOTS {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                "block cache: every block is pinned",
            ));
        }
        self.allocate_slots(count + 1);
        let slot = self.slot(count);
        let w = slot.state.load(Ordering::Acquire);
        if self.claiming(|| self.try_own(slot, w)) {
            self.count(|c| &c.overflows);
            return Ok(count);
        }
        Err(io::Error::new(
            io::ErrorKind::OutOfMemory,
            "block cache: overflow slot busy",
        ))
    }

    /// A victim was found: later sweeps look fully again. Written only when it changes (it
    /// shares its line with what every sweep reads).
    fn clear_overflowing(&self) {
        if self.overflowing.load(Ordering::Relaxed) {
            self.overflowing.store(false, Ordering::Relaxed);
        }
    }

    fn try_own(&self, slot: &Slot, w: u64) -> bool {
        slot.state
            .compare_exchange(w, OWNED << STATE_SHIFT, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }

    /// Own an unpinned READY slot seen as `w` (to evict or move its block), unless it holds
    /// uncommitted changes or, with `clean`, committed ones not yet written. The caller's
    /// check may be stale: a pin, a write and an unpin followed by a clock visit that reset
    /// the counts bring the word back to `w` (ABA; found by the shuttle test), so the check
    /// runs again once the slot is owned, and a busy slot is given back.
    fn own_quiet(&self, slot: &Slot, w: u64, clean: bool) -> bool {
        if !self.try_own(slot, w) {
            return false;
        }
        let busy = (clean && slot.dirty.load(Ordering::Acquire))
            || slot.write_pending.load(Ordering::Acquire) > 0;
        if busy {
            slot.state
                .fetch_add(state_delta(OWNED, READY) + (w & HOT), Ordering::AcqRel);
        }
        !busy
    }

    /// Evict a READY slot (already checked clean and unpinned) into OWNED; unindexes it.
    /// `claim`: the slot is kept for the caller's block (counted as claimed at once).
    fn evict(&self, index: usize, slot: &Slot, w: u64, to_ghost: bool, claim: bool) -> bool {
        if !self.own_quiet(slot, w, true) {
            return false;
        }
        if w & HOT != 0 {
            self.hot.fetch_sub(1, Ordering::Relaxed);
        }
        if claim {
            slot.claim_counted_cached.store(true, Ordering::Relaxed);
        } else {
            self.add_blocks(-1, 0);
        }
        let hash = slot.hash.load(Ordering::Relaxed);
        if slot.indexed.load(Ordering::Acquire) {
            let part = self.partition(hash);
            let _g = part.lock.lock();
            self.index_remove(part, hash, index);
            slot.indexed.store(false, Ordering::Release);
        }
        if to_ghost {
            self.ghost_put(hash);
        }
        true
    }

    /// Free a slot beyond capacity: drop its bytes, back to FREE.
    fn retire(&self, slot: &Slot) {
        *slot.data.write() = Box::new([]);
        self.release_owned(slot);
    }

    /// One bounded run of the clock. Returns an OWNED slot, or None with dirty candidates.
    /// `force`: the last turn after the bounded sweeps found nothing (see `visit`).
    fn sweep(&self, dirty: &mut Vec<Block>, saw_pending: &mut bool, force: bool) -> Option<usize> {
        let count = self.slot_count.load(Ordering::Acquire);
        let cap = self.capacity.load(Ordering::Acquire);
        let hot_limit = self.hot_limit();
        let age_limit =
            (cap as u64).saturating_mul(self.age_threshold.load(Ordering::Relaxed)) / 100;
        // Read once per sweep, not per slot visited: other misses write it all the time.
        let now = self.inserts.load(Ordering::Relaxed);
        // Bounded effort: two turns of the clock (the first may only clear touches); while
        // the cache is overflowing (the last sweep found nothing), a short look only, so
        // that a statement holding thousands of blocks does not make every miss O(n).
        let budget = if self.overflowing.load(Ordering::Relaxed) {
            64
        } else if force {
            count + 64
        } else {
            2 * count + 64
        };
        // The hand advances in batches, so that concurrent sweepers do not meet on it at
        // every step; a thread keeps the rest of its batch for its next miss.
        let me = self as *const BlockCache as usize;
        let (owner, mut next, mut end) = HAND.with(|h| h.get());
        if owner != me {
            (next, end) = (0, 0);
        }
        let mut found = None;
        for _ in 0..budget {
            if next == end {
                next = self.hand.fetch_add(HAND_BATCH, Ordering::Relaxed);
                end = next + HAND_BATCH;
            }
            let index = (next % count as u64) as usize;
            next += 1;
            let limits = SweepLimits {
                cap,
                hot_limit,
                age_limit,
                now,
                force,
            };
            if let Some(index) = self.visit(index, limits, dirty, saw_pending) {
                found = Some(index);
                break;
            }
        }
        HAND.with(|h| h.set((me, next, end)));
        found
    }

    /// One step of the clock at `index`: a claimed (OWNED) slot, or None.
    fn visit(
        &self,
        index: usize,
        limits: SweepLimits,
        dirty: &mut Vec<Block>,
        saw_pending: &mut bool,
    ) -> Option<usize> {
        let SweepLimits {
            cap,
            hot_limit,
            age_limit,
            now,
            force,
        } = limits;
        {
            let slot = self.slot(index);
            let w = slot.state.load(Ordering::Acquire);
            if pinned(w) {
                *saw_pending |= slot.write_pending.load(Ordering::Relaxed) > 0;
                return None;
            }
            match state(w) {
                FREE if index < cap && self.claiming(|| self.try_own(slot, w)) => {
                    return Some(index)
                }
                FAILED if self.try_own(slot, w) => {
                    if index < cap {
                        self.add_blocks(0, 1);
                        return Some(index);
                    }
                    self.retire(slot);
                }
                READY => {
                    let pending = slot.write_pending.load(Ordering::Acquire) > 0;
                    *saw_pending |= pending;
                    let busy = slot.dirty.load(Ordering::Acquire) || pending;
                    if index >= cap {
                        if self.migrating.load(Ordering::Acquire) > 0 {
                            // A shrink is moving these blocks down: leave them to it.
                            return None;
                        }
                        // Retire (shrink or overflow): evict whatever it holds.
                        if busy {
                            self.collect_dirty(slot, dirty);
                        } else if self.evict(index, slot, w, false, false) {
                            self.retire(slot);
                        }
                        return None;
                    }
                    if force {
                        // The forced turn ignores touches and the hot mark: when threads
                        // touch every block faster than a (preempted) sweeper's two turns
                        // of the clock, the second chance would never run out, and the
                        // caller would fail with blocks free to evict.
                        if !busy && self.evict(index, slot, w, w & HOT == 0, true) {
                            return Some(index);
                        }
                        if busy {
                            self.collect_dirty(slot, dirty);
                        }
                        return None;
                    }
                    let touches = acq(w) - u64::from(w & FRESH != 0);
                    let reset = w & !(COUNT_MASK | (COUNT_MASK << REL_SHIFT) | FRESH);
                    if w & HOT == 0 {
                        if touches > 0 {
                            let promote = self.hot.load(Ordering::Relaxed) < hot_limit;
                            let new = if promote { reset | HOT } else { reset };
                            if slot
                                .state
                                .compare_exchange(w, new, Ordering::AcqRel, Ordering::Relaxed)
                                .is_ok()
                            {
                                slot.seen_at.store(now, Ordering::Relaxed);
                                if promote {
                                    self.hot.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                            return None;
                        }
                        if self.taken() + free_slack(cap) < cap as u64 {
                            // Unused blocks remain below capacity (after a growth, a shrink
                            // or a dropped table): take one of those, as MySQL's key cache
                            // does, rather than evict a block. A few holes left by misses
                            // that lost a race for the same block do not count: the hand
                            // fills them as it passes, while walking to them cost every
                            // miss a turn of the clock (16 real cores: most of their time).
                            return None;
                        }
                        if busy {
                            self.collect_dirty(slot, dirty);
                            return None;
                        }
                        if self.evict(index, slot, w, true, true) {
                            return Some(index);
                        }
                    } else if touches > 0 {
                        if slot
                            .state
                            .compare_exchange(w, reset, Ordering::AcqRel, Ordering::Relaxed)
                            .is_ok()
                        {
                            slot.seen_at.store(now, Ordering::Relaxed);
                        }
                    } else if now.saturating_sub(slot.seen_at.load(Ordering::Relaxed)) > age_limit
                        || self.hot.load(Ordering::Relaxed) > hot_limit
                    {
                        // Aged out (or the hot part is over its share): back to probation.
                        if slot
                            .state
                            .compare_exchange(w, w & !HOT, Ordering::AcqRel, Ordering::Relaxed)
                            .is_ok()
                        {
                            self.hot.fetch_sub(1, Ordering::Relaxed);
                        }
                    }
                }
                _ => {}
            }
        }
        None
    }

    fn collect_dirty(&self, slot: &Slot, dirty: &mut Vec<Block>) {
        // Write-pending blocks cannot be written back: not candidates.
        if dirty.len() < 16 && slot.write_pending.load(Ordering::Acquire) == 0 {
            if let Some(b) = self.pin_ready(slot) {
                dirty.push(b);
            }
        }
    }

    /// Pin a slot found by iteration, if it holds a READY block.
    fn pin_ready(&self, slot: &Slot) -> Option<Block> {
        let old = slot.state.fetch_add(ACQ_ONE, Ordering::AcqRel);
        if state(old) == READY {
            Some(Block {
                slot: NonNull::from(slot),
            })
        } else {
            slot.state.fetch_sub(ACQ_ONE, Ordering::AcqRel);
            None
        }
    }

    /// Record that the block holds committed changes whose redo ends at `lsn`.
    pub fn mark_dirty(&self, block: &Block, lsn: u64) {
        self.count(|c| &c.write_requests);
        let slot = block.slot();
        slot.flush_lsn.fetch_max(lsn, Ordering::AcqRel);
        if !slot.dirty.swap(true, Ordering::AcqRel) {
            self.dirty_count.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Write one block if it is dirty and not write-pending (the caller holds a pin). With
    /// `wait` (a checkpoint must write everything): a write-pending block's committed image
    /// when it has one, leaving it dirty (see "The committed image"), else wait for its
    /// writers to finish. Returns whether it is clean (for this pass).
    fn write_back(&self, slot: &Slot, wait: bool) -> io::Result<bool> {
        loop {
            if !slot.dirty.load(Ordering::Acquire) {
                return Ok(true);
            }
            let data = slot.data.read();
            if slot.write_pending.load(Ordering::SeqCst) > 0 {
                if !wait {
                    return Ok(false);
                }
                let image = slot
                    .committed_image
                    .lock()
                    .as_ref()
                    .map(|(_, i)| Arc::clone(i));
                if let Some(image) = image {
                    // Written under the content read lock: no newer content of the block
                    // can be written before this write is done.
                    self.write_out(slot, &image)?;
                    return Ok(true);
                }
                drop(data);
                sync::pause();
                continue;
            }
            if !slot.dirty.load(Ordering::Acquire) {
                return Ok(true);
            }
            self.write_out(slot, &data)?;
            // Two flushers may write the same block under shared locks; one clears it.
            if slot.dirty.swap(false, Ordering::AcqRel) {
                self.dirty_count.fetch_sub(1, Ordering::Relaxed);
            }
            return Ok(true);
        }
    }

    /// Write `bytes` as the slot's block, after the log up to its flush LSN (WAL rule).
    fn write_out(&self, slot: &Slot, bytes: &[u8]) -> io::Result<()> {
        self.io.flush_log(slot.flush_lsn.load(Ordering::Acquire))?;
        let (file, block) = slot.key();
        let writing = read_ahead::writing(file);
        self.io.write_block(file, block, bytes)?;
        drop(writing);
        self.count(|c| &c.writes);
        Ok(())
    }

    /// Pinned dirty blocks, sorted by file and offset (sequential writes where possible).
    fn dirty_blocks(&self, file: Option<FileId>) -> Vec<Block> {
        let count = self.slot_count.load(Ordering::Acquire);
        let mut blocks: Vec<Block> = (0..count)
            .map(|i| self.slot(i))
            .filter(|s| s.dirty.load(Ordering::Acquire))
            .filter_map(|s| self.pin_ready(s))
            .filter(|b| b.is_dirty() && file.is_none_or(|f| b.file() == f))
            .collect();
        blocks.sort_by_key(|b| (b.file(), b.block()));
        blocks
    }

    /// Write-back ahead of eviction, for a background thread of the engine: the dirty,
    /// committed blocks of the probationary part that the clock hand reaches next (up to
    /// `max`), written sorted by file and offset, each after its log (WAL rule), so that a
    /// miss seldom has to write before it can evict. Returns how many it cleaned.
    pub fn write_back_ahead(&self, max: usize) -> io::Result<usize> {
        let count = self.slot_count.load(Ordering::Acquire);
        let start = self.hand.load(Ordering::Relaxed) as usize;
        let mut blocks = Vec::new();
        for step in 0..count {
            if blocks.len() >= max {
                break;
            }
            let slot = self.slot((start + step) % count);
            let w = slot.state.load(Ordering::Acquire);
            if state(w) != READY
                || w & HOT != 0
                || !slot.dirty.load(Ordering::Acquire)
                || slot.write_pending.load(Ordering::Acquire) > 0
            {
                continue;
            }
            if let Some(b) = self.pin_ready(slot) {
                blocks.push(b);
            }
        }
        blocks.sort_by_key(|b| (b.file(), b.block()));
        let mut cleaned = 0;
        for b in blocks {
            cleaned += usize::from(b.is_dirty() && self.write_back(b.slot(), false)?);
        }
        Ok(cleaned)
    }

    /// Write back every dirty block of `file` (a write-pending one: its committed image, or
    /// once its writer is done).
    pub fn flush_file(&self, file: FileId) -> io::Result<()> {
        for b in self.dirty_blocks(Some(file)) {
            self.write_back(b.slot(), true)?;
        }
        Ok(())
    }

    /// Write back every dirty block (checkpoint, shutdown).
    pub fn flush_all(&self) -> io::Result<()> {
        for b in self.dirty_blocks(None) {
            self.write_back(b.slot(), true)?;
        }
        Ok(())
    }

    /// Drop every cached block of `file` without writing it (the file is being deleted).
    /// A block still pinned leaves the index now and its slot is reclaimed by the clock.
    pub fn discard_file(&self, file: FileId) {
        let count = self.slot_count.load(Ordering::Acquire);
        for index in 0..count {
            let slot = self.slot(index);
            let Some(b) = self.pin_ready(slot) else {
                continue;
            };
            if b.file() != file {
                continue;
            }
            let hash = slot.hash.load(Ordering::Relaxed);
            let part = self.partition(hash);
            {
                let _g = part.lock.lock();
                if slot.indexed.load(Ordering::Acquire) {
                    self.index_remove(part, hash, index);
                    slot.indexed.store(false, Ordering::Release);
                }
            }
            if slot.dirty.swap(false, Ordering::AcqRel) {
                self.dirty_count.fetch_sub(1, Ordering::Relaxed);
            }
            drop(b);
            let w = slot.state.load(Ordering::Acquire);
            if state(w) == READY
                && !pinned(w)
                && slot.write_pending.load(Ordering::Acquire) == 0
                && self.evict(index, slot, w, false, false)
            {
                self.release_owned(slot);
            }
        }
    }

    /// Test support: the keys of the blocks cached now (found by lookups: indexed).
    #[cfg(any(test, feature = "validate"))]
    pub fn cached_keys(&self) -> Vec<(FileId, u64)> {
        let count = self.slot_count.load(Ordering::Acquire);
        (0..count)
            .filter_map(|i| self.pin_ready(self.slot(i)))
            .filter(|b| b.slot().indexed.load(Ordering::Acquire))
            .map(|b| (b.file(), b.block()))
            .collect()
    }

    /// Drop every unpinned block (a named key cache being destroyed, after `flush_all`);
    /// blocks pinned meanwhile leave the index and are reclaimed by the clock.
    pub fn clear(&self) {
        let count = self.slot_count.load(Ordering::Acquire);
        let mut files: Vec<FileId> = (0..count)
            .filter_map(|i| self.pin_ready(self.slot(i)).map(|b| b.file()))
            .collect();
        files.sort_unstable();
        files.dedup();
        for file in files {
            self.discard_file(file);
        }
    }

    /// Change the capacity (`SET GLOBAL key_buffer_size`). Growing allocates headers;
    /// shrinking moves the blocks above the new capacity into slots below it (evicting cold
    /// blocks for room), each under its partition mutex so that readers wait rather than
    /// read the disk. Blocks pinned meanwhile are retired by the clock once released.
    pub fn resize(&self, bytes: usize) -> io::Result<()> {
        let new_cap = Self::blocks_for(bytes, self.block_size);
        let old_count;
        {
            let _g = self.resize_lock.lock();
            self.allocate_slots(new_cap);
            old_count = self.slot_count.load(Ordering::Acquire);
            self.capacity.store(new_cap, Ordering::Release);
            if new_cap.next_power_of_two() != self.ghost().len() {
                let new = Box::into_raw(Box::new(Self::ghost_for(new_cap)));
                let old = self.ghost.swap(new, Ordering::AcqRel);
                self.retired_ghosts.lock().push(old);
            }
        }
        self.migrating.fetch_add(1, Ordering::AcqRel);
        let mut result = Ok(());
        for index in new_cap..old_count {
            if self.capacity.load(Ordering::Acquire) != new_cap {
                break; // A later resize took over.
            }
            result = self.migrate(index, new_cap);
            if result.is_err() {
                break;
            }
        }
        self.migrating.fetch_sub(1, Ordering::AcqRel);
        result
    }

    /// Move the block held by slot `index` (beyond capacity) into a slot below capacity.
    fn migrate(&self, index: usize, cap: usize) -> io::Result<()> {
        let slot = self.slot(index);
        let w = slot.state.load(Ordering::Acquire);
        if state(w) != READY || pinned(w) || !slot.indexed.load(Ordering::Acquire) {
            return Ok(());
        }
        let Ok(target_index) = self.claim_slot() else {
            // No room below capacity now (everything pinned): the clock retires it later.
            return Ok(());
        };
        if target_index >= cap {
            // Only overflow room: give it back and leave this block to the clock.
            self.release_claim(self.slot(target_index));
            return Ok(());
        }
        let target = self.slot(target_index);
        let hash = slot.hash.load(Ordering::Relaxed);
        let part = self.partition(hash);
        let guard = part.lock.lock();
        let w = slot.state.load(Ordering::Acquire);
        if state(w) != READY
            || pinned(w)
            || slot.write_pending.load(Ordering::Acquire) > 0
            || !slot.indexed.load(Ordering::Acquire)
            || !self.own_quiet(slot, w, false)
        {
            drop(guard);
            self.release_claim(target);
            return Ok(());
        }
        target.take_block(slot);
        target
            .dirty
            .store(slot.dirty.swap(false, Ordering::AcqRel), Ordering::Release);
        target
            .seen_at
            .store(slot.seen_at.load(Ordering::Relaxed), Ordering::Relaxed);
        self.index_remove(part, hash, index);
        slot.indexed.store(false, Ordering::Release);
        target.indexed.store(true, Ordering::Release);
        self.add_blocks(-1, 0);
        self.publish_claim(target);
        target
            .state
            .fetch_add(state_delta(OWNED, READY) + (w & HOT), Ordering::AcqRel);
        self.index_insert(part, hash, target_index);
        drop(guard);
        self.retire(slot);
        Ok(())
    }

    // ---- re-segmentation (a key cache moving its blocks to new segments, segments.rs) ----

    /// Stop loading blocks: a miss from now on answers [`Fetch::Frozen`]. Hits still pin
    /// the blocks cached here until they are moved out.
    pub(crate) fn freeze(&self) {
        self.frozen.store(true, Ordering::Release);
    }

    /// Whether the pinned block lives in this cache's slots.
    pub(crate) fn holds(&self, block: &Block) -> bool {
        block.slot().owner == self.id
    }

    /// Pin the block if this cache holds it (waiting for a read in progress); no load, no
    /// counters.
    pub(crate) fn pin_cached(&self, file: FileId, block: u64, fill: Fill) -> Option<Block> {
        match self.lookup(hash_key(file, block), file, block) {
            Found::Ready(b) => Some(Self::filled(b, fill)),
            Found::Loading(b) => Self::loaded(b).map(|b| Self::filled(b, fill)),
            Found::Miss { .. } => None,
        }
    }

    pub(crate) fn division_limit(&self) -> u64 {
        self.division_limit.load(Ordering::Relaxed)
    }

    pub(crate) fn age_threshold(&self) -> u64 {
        self.age_threshold.load(Ordering::Relaxed)
    }

    /// Move every block that is neither pinned nor write-pending into the cache `target`
    /// names for its key (a frozen cache's blocks going to the new generation). The others
    /// stay until a later pass. Returns how many were moved.
    pub(crate) fn move_blocks_to<'a>(
        &self,
        target: impl Fn(FileId, u64) -> &'a BlockCache,
    ) -> usize {
        let count = self.slot_count.load(Ordering::Acquire);
        (0..count)
            .filter(|&index| {
                let (file, block) = self.slot(index).key();
                self.move_one(index, target(file, block))
            })
            .count()
    }

    /// Move the block in slot `index` into a slot of `to`, bytes, dirty state and all, under
    /// both partition mutexes (`to`'s first, the order a miss in `to` takes them), so that
    /// a reader sees the block in one cache or the other, never in neither or both.
    fn move_one(&self, index: usize, to: &BlockCache) -> bool {
        let slot = self.slot(index);
        let movable = |w: u64| {
            state(w) == READY
                && !pinned(w)
                && slot.write_pending.load(Ordering::Acquire) == 0
                && slot.indexed.load(Ordering::Acquire)
        };
        let w = slot.state.load(Ordering::Acquire);
        if state(w) == READY && !pinned(w) && !slot.indexed.load(Ordering::Acquire) {
            // Discarded while pinned (its file was dropped): nothing to move, only to free.
            if self.evict(index, slot, w, false, false) {
                self.retire(slot);
            }
            return false;
        }
        if !movable(w) {
            return false;
        }
        let Ok(target_index) = to.claim_slot() else {
            return false;
        };
        let target = to.slot(target_index);
        if target_index >= to.capacity.load(Ordering::Acquire) {
            // Only overflow room (everything there pinned): try again in a later pass.
            to.release_claim(target);
            return false;
        }
        let hash = slot.hash.load(Ordering::Relaxed);
        let to_part = to.partition(hash);
        let to_guard = to_part.lock.lock();
        let part = self.partition(hash);
        let guard = part.lock.lock();
        let w = slot.state.load(Ordering::Acquire);
        let (file, block) = slot.key();
        if !movable(w)
            || to.find_in_index(to_part, hash, file, block)
            || !self.own_quiet(slot, w, false)
        {
            drop((guard, to_guard));
            to.release_claim(target);
            return false;
        }
        target.take_block(slot);
        let dirty = slot.dirty.swap(false, Ordering::AcqRel);
        if dirty {
            self.dirty_count.fetch_sub(1, Ordering::Relaxed);
            to.dirty_count.fetch_add(1, Ordering::Relaxed);
        }
        target.dirty.store(dirty, Ordering::Release);
        if w & HOT != 0 {
            self.hot.fetch_sub(1, Ordering::Relaxed);
        }
        let hot = w & HOT != 0 && to.hot.load(Ordering::Relaxed) < to.hot_limit();
        if hot {
            to.hot.fetch_add(1, Ordering::Relaxed);
        }
        target
            .seen_at
            .store(to.inserts.load(Ordering::Relaxed), Ordering::Relaxed);
        self.index_remove(part, hash, index);
        slot.indexed.store(false, Ordering::Release);
        self.add_blocks(-1, 0);
        target.indexed.store(true, Ordering::Release);
        to.publish_claim(target);
        target.state.fetch_add(
            state_delta(OWNED, READY) + if hot { HOT } else { 0 },
            Ordering::AcqRel,
        );
        to.index_insert(to_part, hash, target_index);
        drop((guard, to_guard));
        self.retire(slot);
        true
    }

    pub fn stats(&self) -> BlockCacheStats {
        let mut s = BlockCacheStats::default();
        for c in self.counters.iter() {
            s.key_read_requests += c.read_requests.load(Ordering::Relaxed);
            s.key_reads += c.reads.load(Ordering::Relaxed);
            s.key_write_requests += c.write_requests.load(Ordering::Relaxed);
            s.key_writes += c.writes.load(Ordering::Relaxed);
            s.overflows += c.overflows.load(Ordering::Relaxed);
        }
        let used = self.used();
        let capacity = self.capacity.load(Ordering::Relaxed) as u64;
        s.key_blocks_used = used;
        s.key_blocks_unused = capacity.saturating_sub(used);
        s.key_blocks_not_flushed = self.dirty_count.load(Ordering::Relaxed);
        s.key_blocks_warm = self.hot.load(Ordering::Relaxed);
        s
    }

    /// Test support (call while no other thread uses the cache): recount everything from
    /// the slots and the index and compare with the counters.
    #[cfg(any(test, feature = "validate"))]
    pub fn validate(&self) {
        let count = self.slot_count.load(Ordering::Acquire);
        let (mut used, mut hot, mut dirty) = (0u64, 0u64, 0u64);
        let mut keys = std::collections::HashSet::new();
        for index in 0..count {
            let slot = self.slot(index);
            let w = slot.state.load(Ordering::Acquire);
            let st = state(w);
            assert!(st != OWNED, "slot {index} left OWNED");
            assert!(acq(w) >= rel(w), "slot {index}: more unpins than pins");
            if st == READY || st == LOADING {
                used += 1;
                hot += u64::from(w & HOT != 0);
            } else {
                assert!(w & HOT == 0, "free slot marked hot");
            }
            {
                let image = slot.committed_image.lock();
                assert!(
                    image.is_none() || slot.write_pending.load(Ordering::SeqCst) > 0,
                    "slot {index} keeps a committed image while not write-pending"
                );
            }
            if slot.dirty.load(Ordering::Acquire) {
                assert!(st == READY, "dirty slot {index} not READY");
                dirty += 1;
            }
            if slot.indexed.load(Ordering::Acquire) {
                assert!(st == READY || st == LOADING, "indexed slot {index} is free");
                assert!(keys.insert(slot.key()), "key {:?} cached twice", slot.key());
                let hash = slot.hash.load(Ordering::Relaxed);
                assert_eq!(hash, hash_key(slot.key().0, slot.key().1));
                let part = self.partition(hash);
                // SAFETY: as in lookup.
                let table = unsafe { &*part.table.load(Ordering::Acquire) };
                let e = entry(hash, index as u32);
                let n = table
                    .entries
                    .iter()
                    .filter(|x| x.load(Ordering::Relaxed) == e)
                    .count();
                assert_eq!(n, 1, "indexed slot {index} has {n} index entries");
                let (file, block) = slot.key();
                assert!(
                    self.find_in_index(part, hash, file, block),
                    "unreachable entry"
                );
            }
        }
        for part in self.partitions.iter() {
            // SAFETY: as in lookup.
            let table = unsafe { &*part.table.load(Ordering::Acquire) };
            let mut n = 0;
            for e in table.entries.iter() {
                let e = e.load(Ordering::Relaxed);
                if e != 0 {
                    n += 1;
                    let slot = self.slot(entry_slot(e));
                    assert!(
                        slot.indexed.load(Ordering::Acquire),
                        "entry to unindexed slot"
                    );
                }
            }
            assert_eq!(n, table.len.load(Ordering::Relaxed), "index length");
        }
        assert_eq!(used, self.used(), "Key_blocks_used");
        assert_eq!(
            self.blocks.load(Ordering::Relaxed) & 0xFFFF_FFFF,
            0,
            "a claimed slot was never settled"
        );
        assert_eq!(hot, self.hot.load(Ordering::Relaxed), "Key_blocks_warm");
        assert_eq!(
            dirty,
            self.dirty_count.load(Ordering::Relaxed),
            "Key_blocks_not_flushed"
        );
    }
}

impl Drop for BlockCache {
    fn drop(&mut self) {
        for part in self.partitions.iter() {
            let t = part.table.load(Ordering::Acquire);
            // SAFETY: tables were made by Box::into_raw and are no longer reachable.
            unsafe { drop(Box::from_raw(t)) };
            for t in part.retired.lock().drain(..) {
                // SAFETY: as above.
                unsafe { drop(Box::from_raw(t)) };
            }
        }
        // SAFETY: made by Box::into_raw, unreachable now.
        unsafe { drop(Box::from_raw(self.ghost.load(Ordering::Acquire))) };
        for g in self.retired_ghosts.lock().drain(..) {
            // SAFETY: as above.
            unsafe { drop(Box::from_raw(g)) };
        }
        let count = self.slot_count.load(Ordering::Acquire);
        let any_pinned = (0..count).any(|i| pinned(self.slot(i).state.load(Ordering::Acquire)));
        if any_pinned {
            // Blocks outlive the cache: leak the slots rather than free memory under them.
            return;
        }
        for c in self.chunks.iter() {
            let p = c.load(Ordering::Acquire);
            if !p.is_null() {
                // SAFETY: made by Box::into_raw of a CHUNK_SLOTS slice; no pins remain.
                unsafe {
                    drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                        p,
                        CHUNK_SLOTS,
                    )))
                };
            }
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_committed_image;
