//! Consistent reads: a snapshot sees every table as the commits up to its point left it,
//! however long it reads and whatever commits meanwhile.
//!
//! **Commit sequence.** Each commit that changed pages gets the next number of one
//! sequence when it *publishes*: under each written table's latch it records the number as
//! the table's last commit, saves the committed content its pages had before it (their
//! before-images, see `statement`) as *page versions* superseded at that number, and lets
//! readers see the new content (drops the block cache's committed images). Only then does
//! the sequence's published number move to it. Publications run one at a time, so the
//! published number never passes a commit whose changes are not all visible.
//!
//! **Snapshots.** A snapshot is a published number `s`: it sees commits up to `s` and none
//! after. A reader holds it in a [`SnapshotSlot`] (one per session) and reads under
//! [`reading_at`]. A table whose last commit is at or below `s` reads as it is (one atomic
//! load per operation: the cost for tables nobody changed meanwhile). Otherwise each page
//! read looks for the oldest version of the page superseded after `s`: that is the
//! page's content at `s`; without one the page did not change after `s`.
//!
//! **Own changes.** A writer reads its own uncommitted changes (the block cache's
//! `reading_as`). No one else changes a page it claimed (see `page_claims`), so a page it
//! changed holds its changes over the latest commits, and a page it did not change reads
//! at the snapshot as any other. A page it changed that others had changed after the
//! snapshot (before its claim) mixes their commits with its changes, which no snapshot
//! holds: the read fails with [`StorageError::ChangedSinceSnapshot`] (MariaDB's 1020
//! ER_CHECKREAD) instead of answering with rows the snapshot should not see. (The mix is
//! consistent otherwise: a page the writer changed without such a commit was, before its
//! change, as the snapshot has it; a page that others split or merged changed its parent,
//! which the writer then read at the snapshot too, or changed: the error.)
//!
//! **Purge.** A version superseded at `c` serves snapshots below `c` only. After each
//! commit and when a snapshot ends, versions superseded at or below the oldest number any
//! slot holds (or, with none held, the published number) are dropped, oldest first. A
//! slot is filled by loading the published number, storing it, and loading the published
//! number again until the two agree; a purge loads the published number before it reads
//! the slots. So a purge that missed a slot's store loaded a published number the slot's
//! value is at least, and drops nothing the slot needs. Versions are memory only: a long
//! snapshot keeps every page version committed after it (as InnoDB keeps undo history
//! for its oldest read view); [`crate::Storage::page_versions`] counts them.

use crate::types::{Result, StorageError};
use parking_lot::{Mutex, RwLock};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// A slot's value when it holds no snapshot, and the thread-local view "latest".
const NONE: u64 = u64::MAX;

/// The thread-local view "at the snapshot the first read takes" (see [`reading_from`]).
const AT_FIRST_READ: u64 = u64::MAX - 1;

thread_local! {
    /// The snapshot this thread's table reads see ([`NONE`]: the latest commits;
    /// [`AT_FIRST_READ`]: the one `FIRST_READ_SLOT` takes at the first read).
    static READING_AT: Cell<u64> = const { Cell::new(NONE) };
    static FIRST_READ_SLOT: RefCell<Option<Arc<SlotInner>>> = const { RefCell::new(None) };
}

/// Until the guard drops, this thread's table reads see snapshot `at` (None: the latest
/// committed content). Nested guards restore the previous view on drop.
pub fn reading_at(at: Option<u64>) -> ReadingAt {
    ReadingAt {
        previous: READING_AT.with(|r| r.replace(at.unwrap_or(NONE))),
        previous_slot: FIRST_READ_SLOT.with(|s| s.borrow_mut().take()),
    }
}

/// Until the guard drops, this thread's table reads see the snapshot `slot` holds; when it
/// holds none, the first table read takes one into it (InnoDB's read view, which starts at
/// a transaction's first consistent read, not at BEGIN).
pub fn reading_from(slot: &SnapshotSlot) -> ReadingAt {
    match slot.held() {
        Some(at) => reading_at(Some(at)),
        None => ReadingAt {
            previous: READING_AT.with(|r| r.replace(AT_FIRST_READ)),
            previous_slot: FIRST_READ_SLOT.with(|s| s.replace(Some(Arc::clone(&slot.0)))),
        },
    }
}

/// The snapshot this thread reads at, if any (taking it at the first read).
pub(crate) fn current() -> Option<u64> {
    match READING_AT.with(Cell::get) {
        NONE => None,
        AT_FIRST_READ => {
            let at = FIRST_READ_SLOT.with(|s| s.borrow().as_ref().map(|slot| slot.take()))?;
            READING_AT.with(|r| r.set(at));
            Some(at)
        }
        at => Some(at),
    }
}

/// See [`reading_at`].
#[must_use = "reads see the snapshot only while the guard lives"]
pub struct ReadingAt {
    previous: u64,
    previous_slot: Option<Arc<SlotInner>>,
}

impl Drop for ReadingAt {
    fn drop(&mut self) {
        READING_AT.with(|r| r.set(self.previous));
        let previous = self.previous_slot.take();
        FIRST_READ_SLOT.with(|s| *s.borrow_mut() = previous);
    }
}

/// A page: (space, page number).
type PageKey = (u64, u32);

const SHARDS: usize = 64;

/// A page's versions, oldest first: (superseded at, content).
type PageVersions = VecDeque<(u64, Arc<[u8]>)>;

/// The commit sequence, the slots and the page versions (see the module doc).
pub(crate) struct Snapshots {
    /// The last commit whose changes readers see.
    published: AtomicU64,
    /// Held while a commit publishes.
    publish: Mutex<()>,
    slots: Mutex<Vec<Arc<AtomicU64>>>,
    /// Per shard of pages, each page's versions.
    shards: Box<[RwLock<HashMap<PageKey, PageVersions>>]>,
    /// Every version, in the order they were saved (which is commit order).
    order: Mutex<VecDeque<(u64, PageKey)>>,
    /// The commit number the oldest kept version was superseded at ([`NONE`]: none kept),
    /// set under `order`'s mutex: a snapshot at or past it pins none of the versions a
    /// purge could drop, and lets go without looking at the slots.
    front: AtomicU64,
    count: AtomicUsize,
    /// Tables (by table cache key) whose definition DDL made anew, with the commit number
    /// it took, kept while a snapshot may predate it (see [`Snapshots::redefine`]).
    defined: Mutex<HashMap<String, u64>>,
    /// `defined` holds an entry: the paths that read it skip its mutex otherwise.
    any_defined: std::sync::atomic::AtomicBool,
}

impl Default for Snapshots {
    fn default() -> Self {
        Snapshots {
            published: AtomicU64::new(0),
            publish: Mutex::new(()),
            slots: Mutex::new(Vec::new()),
            shards: (0..SHARDS).map(|_| RwLock::default()).collect(),
            order: Mutex::new(VecDeque::new()),
            front: AtomicU64::new(NONE),
            count: AtomicUsize::new(0),
            defined: Mutex::new(HashMap::new()),
            any_defined: Default::default(),
        }
    }
}

fn shard_of(key: PageKey) -> usize {
    let h = key.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (key.1 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (h >> 58) as usize % SHARDS
}

/// One commit's publication (see [`Snapshots::begin_publish`]).
pub(crate) struct Publication<'a> {
    snapshots: &'a Snapshots,
    _held: parking_lot::MutexGuard<'a, ()>,
    /// The commit's number.
    pub(crate) seq: u64,
    saved: Vec<(u64, PageKey)>,
}

impl Publication<'_> {
    /// Page `key` changes in this commit; `before` was its content.
    pub(crate) fn save(&mut self, key: PageKey, before: Arc<[u8]>) {
        let s = self.snapshots;
        s.shards[shard_of(key)]
            .write()
            .entry(key)
            .or_default()
            .push_back((self.seq, before));
        s.count.fetch_add(1, Ordering::Relaxed);
        self.saved.push((self.seq, key));
    }
}

impl Drop for Publication<'_> {
    fn drop(&mut self) {
        let s = self.snapshots;
        let mut order = s.order.lock();
        order.extend(self.saved.drain(..));
        s.front
            .store(order.front().map_or(NONE, |f| f.0), Ordering::SeqCst);
        drop(order);
        s.published.store(self.seq, Ordering::SeqCst);
    }
}

impl Snapshots {
    /// Start publishing a commit: until the publication drops, no other commit publishes,
    /// and the published number stays below the commit's.
    pub(crate) fn begin_publish(&self) -> Publication<'_> {
        let held = self.publish.lock();
        let seq = self.published.load(Ordering::Relaxed) + 1;
        Publication {
            snapshots: self,
            _held: held,
            seq,
            saved: Vec::new(),
        }
    }

    /// DDL makes table `key` anew (CREATE, TRUNCATE, ALTER, RENAME to it): it takes a
    /// commit number of its own, and a snapshot from before it cannot read the table
    /// ([`View::of`]: MariaDB's 1412 ER_TABLE_DEF_CHANGED). Call before the new table can
    /// be opened.
    pub(crate) fn redefine(&self, key: &str) {
        let seq = self.begin_publish().seq;
        // Kept only while a snapshot predates it: a slot that held none when this looked
        // takes a snapshot at or after `seq` (see the module doc, "Purge").
        if self.oldest_needed() < seq {
            self.defined.lock().insert(key.to_string(), seq);
            self.any_defined.store(true, Ordering::SeqCst);
        }
    }

    /// The commit number of the DDL that last made table `key`, 0 when no snapshot can
    /// predate it.
    pub(crate) fn defined_at(&self, key: &str) -> u64 {
        if !self.any_defined.load(Ordering::SeqCst) {
            return 0;
        }
        self.defined.lock().get(key).copied().unwrap_or(0)
    }

    /// The last published commit.
    pub(crate) fn published(&self) -> u64 {
        self.published.load(Ordering::SeqCst)
    }

    /// The content page `key` had at snapshot `at`, when it changed after it.
    pub(crate) fn version_at(&self, key: PageKey, at: u64) -> Option<Arc<[u8]>> {
        if self.count.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let shard = self.shards[shard_of(key)].read();
        let versions = shard.get(&key)?;
        versions
            .iter()
            .find(|(superseded, _)| *superseded > at)
            .map(|(_, image)| Arc::clone(image))
    }

    /// Page versions kept.
    pub(crate) fn versions(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// The oldest commit number a snapshot may still read at (see the module doc).
    fn oldest_needed(&self) -> u64 {
        let published = self.published.load(Ordering::SeqCst);
        let slots = self.slots.lock();
        slots
            .iter()
            .map(|s| s.load(Ordering::SeqCst))
            .fold(published, u64::min)
    }

    /// Drop the versions (and DDL records) no snapshot needs any more.
    pub(crate) fn purge(&self) {
        if self.any_defined.load(Ordering::SeqCst) {
            let mut defined = self.defined.lock();
            let oldest = self.oldest_needed();
            defined.retain(|_, at| *at > oldest);
            self.any_defined
                .store(!defined.is_empty(), Ordering::SeqCst);
        }
        if self.count.load(Ordering::Relaxed) == 0 {
            return;
        }
        // One purger at a time; a busy one will see what this one would have.
        let Some(mut order) = self.order.try_lock() else {
            return;
        };
        let oldest = self.oldest_needed();
        while let Some(&(superseded, key)) = order.front() {
            if superseded > oldest {
                break;
            }
            order.pop_front();
            let mut shard = self.shards[shard_of(key)].write();
            if let Some(versions) = shard.get_mut(&key) {
                versions.pop_front();
                if versions.is_empty() {
                    shard.remove(&key);
                }
            }
            self.count.fetch_sub(1, Ordering::Relaxed);
        }
        self.front
            .store(order.front().map_or(NONE, |f| f.0), Ordering::SeqCst);
    }

    /// A slot let go of snapshot `at`: purge, unless the oldest kept version was
    /// superseded at or before `at` (this snapshot did not need it: another pins it).
    fn released(&self, at: u64) {
        if at < self.front.load(Ordering::SeqCst) || self.any_defined.load(Ordering::SeqCst) {
            self.purge();
        }
    }

    fn register(&self) -> Arc<AtomicU64> {
        let slot = Arc::new(AtomicU64::new(NONE));
        self.slots.lock().push(Arc::clone(&slot));
        slot
    }

    fn unregister(&self, slot: &Arc<AtomicU64>) {
        self.slots.lock().retain(|s| !Arc::ptr_eq(s, slot));
    }
}

/// A session's snapshot holder: at most one snapshot at a time, kept until
/// [`SnapshotSlot::release`] (or a new [`SnapshotSlot::take`]). Obtained from
/// [`crate::Storage::snapshot_slot`].
pub struct SnapshotSlot(Arc<SlotInner>);

struct SlotInner {
    slot: Arc<AtomicU64>,
    shared: Arc<crate::Shared>,
}

impl SnapshotSlot {
    pub(crate) fn new(shared: Arc<crate::Shared>) -> SnapshotSlot {
        SnapshotSlot(Arc::new(SlotInner {
            slot: shared.snapshots.register(),
            shared,
        }))
    }

    /// Take a snapshot of the latest published commits (replacing the one held).
    pub fn take(&self) -> u64 {
        self.0.take()
    }

    /// The snapshot held, if any.
    pub fn held(&self) -> Option<u64> {
        let at = self.0.slot.load(Ordering::Relaxed);
        (at != NONE).then_some(at)
    }

    /// The last published commit: the snapshot a [`SnapshotSlot::take`] would get now.
    pub fn published(&self) -> u64 {
        self.0.shared.snapshots.published()
    }

    /// Let the snapshot go: the versions only it needed can be purged.
    pub fn release(&self) {
        let at = self.0.slot.swap(NONE, Ordering::SeqCst);
        if at != NONE {
            self.0.shared.snapshots.released(at);
        }
    }
}

impl SlotInner {
    fn take(&self) -> u64 {
        let snapshots = &self.shared.snapshots;
        let previous = self.slot.load(Ordering::SeqCst);
        let mut at = snapshots.published();
        loop {
            self.slot.store(at, Ordering::SeqCst);
            let now = snapshots.published();
            if now == at {
                break;
            }
            at = now;
        }
        // The snapshot replaced is let go of.
        if previous != NONE && previous < at {
            snapshots.released(previous);
        }
        at
    }
}

impl Drop for SlotInner {
    fn drop(&mut self) {
        self.shared.snapshots.unregister(&self.slot);
        self.shared.snapshots.purge();
    }
}

/// How a table's pages read in one operation (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum View {
    /// As they are (the latest commits, or the snapshot saw every commit of the table).
    Latest,
    /// At snapshot `at`, through the page versions.
    At(u64),
    /// The reader writes and the table changed after its snapshot `at`: as [`View::At`],
    /// but a page the reader changed that others changed after `at` cannot be read.
    OwnSince(u64),
}

impl View {
    /// The view of a table whose last commit is `last_commit`, made by the DDL of commit
    /// `defined_at`, for this thread. A snapshot from before the table was made cannot read
    /// it. A thread reading as a statement that writes (any table) checks the pages it
    /// changed ([`View::OwnSince`]).
    pub(crate) fn of(last_commit: u64, defined_at: u64) -> Result<View> {
        let at = current();
        if at.is_some_and(|at| at < defined_at) {
            return Err(StorageError::Stale);
        }
        Ok(match at {
            Some(at) if last_commit > at => {
                let writer = myriad_cache::current_writer();
                if writer != 0 && writer != myriad_cache::READ_UNCOMMITTED {
                    View::OwnSince(at)
                } else {
                    View::At(at)
                }
            }
            _ => View::Latest,
        })
    }

    /// The content to read instead of the block's for page `key`, if any. `block` gets
    /// the page's block (asked only for a page a writer may have changed).
    pub(crate) fn page(
        self,
        snapshots: &Snapshots,
        key: PageKey,
        table: &str,
        block: impl FnOnce() -> Result<myriad_cache::Block>,
    ) -> Result<Option<Arc<[u8]>>> {
        match self {
            View::Latest => Ok(None),
            View::At(at) => Ok(snapshots.version_at(key, at)),
            View::OwnSince(at) => match snapshots.version_at(key, at) {
                Some(_) if block()?.written_by(myriad_cache::current_writer()) => {
                    Err(StorageError::ChangedSinceSnapshot(table.to_string()))
                }
                version => Ok(version),
            },
        }
    }
}
