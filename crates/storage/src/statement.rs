//! A statement's writes: the pages it changed with their before-images, its table locks
//! and savepoints, its redo group at commit, and its rollback.
//!
//! The first time a statement changes a page it copies the page (the before-image) and
//! marks the block write-pending, which keeps it in memory and off the disk. Commit turns
//! the differences into one redo group (see `redo`), stamps the pages with the group's end
//! LSN and marks them dirty; rollback copies the before-images back.

use crate::btree::{PageRead, PageWrite};
use crate::page::*;
use crate::page_claims::{BusyPage, ClaimMode, Retry};
use crate::redo::{ENTRY_FILE, ENTRY_PAGE};
use crate::table::TableInner;
use crate::types::*;
use crate::Shared;
use myriad_cache::Block;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

#[cfg(test)]
thread_local! {
    /// Test support: run on this thread right after its next commit's group is appended,
    /// before the pages are stamped and released (to start a checkpoint there).
    pub(crate) static AFTER_APPEND: std::cell::Cell<Option<Box<dyn FnOnce()>>> =
        const { std::cell::Cell::new(None) };
}

/// A page the statement changed.
pub(crate) struct Touched {
    pub(crate) space: u64,
    pub(crate) page_no: u32,
    pub(crate) block: Block,
    /// The page before the statement's first change: its committed content, shared with
    /// the block for checkpoints while the statement is open (see [`Statement`]).
    pub(crate) before: Arc<[u8]>,
    pub(crate) table: Arc<TableInner>,
}

/// One statement's writes: an atomic unit in the redo log. Commit with
/// [`Statement::commit`]; dropping it without commit rolls it back.
///
/// **Open for long.** A statement may stay open for a whole SQL transaction, its pages
/// write-pending all the while. A checkpoint does not wait for it: each page's before-image
/// (its committed content) is handed to the block cache with the write-pending mark
/// ([`Block::begin_write_with`]), and a checkpoint writes that image instead (the cache's
/// module doc, "The committed image", has the general argument). Why recovery stays right:
/// - *Crash while open*: the checkpoint wrote the before-images, which hold every committed
///   change to those pages (the statement's page claims let no one else change them), and
///   nothing of the statement; replay from the checkpoint LSN adds later groups only.
/// - *Commit after the checkpoint*: the images are dropped before the group is appended,
///   so a checkpoint that got an image began before the append; the group lies past its
///   LSN and is replayed. It was built against the horizon of that checkpoint or a later
///   one: a page whose before-image's LSN is at or below the horizon logs a full image
///   (whatever the disk then holds is overwritten); one above it logs a delta against the
///   before-image, whose own group also lies past the checkpoint and is replayed first.
///   A checkpoint that begins after the append finds no image and waits for the rest of
///   the commit (stamping and `end_write`), as it always did.
/// - *Rollback after the checkpoint*: the pages get their before-images back, the bytes
///   the checkpoint wrote; they stay dirty, and the next checkpoint writes them again.
/// - A fresh page from `allocate` lies past the page count of the committed meta page: no
///   committed state reads it. It is not dirty until a commit marks it, unless a cached
///   copy of a group undone after a failed log write is still dirty; for that case its
///   image is its before-image too (zeros), which a checkpoint may write harmlessly.
pub struct Statement {
    pub(crate) shared: Arc<Shared>,
    pub(crate) touched: Vec<Touched>,
    pub(crate) by_page: HashMap<(u64, u32), usize>,
    /// Its id: in its page claims, and as the writer the block cache reads as.
    id: u64,
    locks: Vec<crate::table_locks::Held>,
    /// The pages it claimed (see `page_claims`), let go when it ends.
    claims: Vec<crate::page_claims::PageKey>,
    /// Rows it added to (or took from) each table it wrote, and the tables whose counters
    /// (row id, AUTO_INCREMENT) it moved: written into the tables' meta pages at commit
    /// (see [`MetaDelta`]).
    pub(crate) meta: Vec<MetaDelta>,
    /// Its savepoints, oldest first (see `savepoint`).
    pub(crate) levels: Vec<crate::savepoint::Level>,
    /// How long it waits for another statement's writer lock of a table.
    lock_wait: std::time::Duration,
}

impl Statement {
    pub(crate) fn new(shared: Arc<Shared>) -> Statement {
        let lock_wait = shared.config.lock_wait_timeout;
        Statement {
            shared,
            touched: Vec::new(),
            by_page: HashMap::new(),
            id: crate::table_locks::statement_id(),
            locks: Vec::new(),
            claims: Vec::new(),
            meta: Vec::new(),
            levels: Vec::new(),
            lock_wait,
        }
    }

    /// Wait at most `timeout` for another statement's writer lock of a table (instead of
    /// the configured `lock_wait_timeout`): a statement of a transaction waits for others
    /// as long as `innodb_lock_wait_timeout` says.
    pub fn set_lock_wait_timeout(&mut self, timeout: std::time::Duration) {
        self.lock_wait = timeout;
    }

    /// Until the guard drops, this thread's reads see the statement's own uncommitted
    /// changes; other threads (and this one afterwards) see the committed content of the
    /// pages it changed (see `myriad_cache::block_cache::committed_reads`).
    pub fn reading_own(&self) -> myriad_cache::ReadingAs {
        myriad_cache::reading_as(self.id)
    }

    /// Whether the statement changed nothing so far.
    pub fn is_empty(&self) -> bool {
        self.touched.is_empty()
    }

    pub(crate) fn lock_table(&mut self, t: &Arc<TableInner>) -> Result<()> {
        if self.locks.iter().any(|held| Arc::ptr_eq(&held.table, t)) {
            return Ok(());
        }
        // DDL holding the table: a wait that may last (see `table_locks`).
        let held = crate::table_locks::lock_shared(t, self.lock_wait)?;
        if t.stale.load(Ordering::Acquire) {
            return Err(StorageError::Stale);
        }
        self.locks.push(held);
        Ok(())
    }

    /// Make the changes durable (per `flush_log_at_trx_commit`) and visible for good.
    ///
    /// An error means the statement left no trace: it failed before it was logged (a full
    /// disk: the log could not reserve its bytes) and rolled back, or its group failed to
    /// become durable and it was undone with every statement after it (see `undo`).
    pub fn commit(self) -> Result<()> {
        self.commit_logged()?.wait()
    }

    /// The first half of [`Statement::commit`]: the changes are in the log (not yet
    /// durable) and visible, and the statement's locks are gone. The caller lets go of its
    /// own locks too, then waits with [`Committing::wait`] before it acknowledges the
    /// commit. Committers that no longer wait for each other's locks then share log
    /// flushes (group commit), as InnoDB's do: it also releases locks before the flush.
    /// A flush that fails undoes this statement and every later one (see `undo`), so
    /// nothing built on its changes is kept either.
    pub fn commit_logged(mut self) -> Result<Committing> {
        let logged = self.log_and_stamp(true)?;
        self.let_go();
        Ok(Committing {
            shared: Arc::clone(&self.shared),
            logged,
        })
    }

    /// Commit without waiting for the log (bulk copies whose durability comes from a flush).
    pub(crate) fn commit_no_wait(mut self) -> Result<()> {
        // No before-images are kept: the bulk copy's pages reach their file by a flush and
        // sync of their own before anything depends on them (ALTER), so an undone group
        // loses nothing, and a copy's images would pile up until the next fsync.
        self.log_and_stamp(false)?;
        self.let_go();
        Ok(())
    }

    /// Undo every change of the statement.
    pub fn rollback(self) {
        drop(self)
    }

    /// Log the statement's group and stamp its pages. Returns the group's end LSN and, when
    /// the statement left its before-images for undo (see `undo`), its undone flag.
    fn log_and_stamp(
        &mut self,
        keep_images: bool,
    ) -> Result<Option<(u64, Option<crate::undo::Undone>)>> {
        self.write_meta()?;
        if self.touched.is_empty() {
            return Ok(None);
        }
        let log = &self.shared.log;
        // Dirty, and without their committed images, before the group is appended: a
        // checkpoint that starts after the append (and so counts on these pages being
        // flushed) sees them dirty and waits for the write-pending mark to drop before
        // writing them; an image written by an earlier one is replayed over.
        // Under each table's latch, so that a reader sees the table's pages all as they
        // were committed or all with this commit (see `committed_reads` in the cache).
        let _reading = self.reading_own();
        let mut tables: Vec<&Arc<TableInner>> = Vec::new();
        for t in &self.touched {
            if !tables.iter().any(|x| Arc::ptr_eq(x, &t.table)) {
                tables.push(&t.table);
            }
        }
        // The commit takes the next number of the commit sequence; snapshots taken before
        // it read the pages' before-images, saved as versions (see `snapshot`). A bulk copy
        // writes a file no one reads yet: it saves none.
        let mut publication = keep_images.then(|| self.shared.snapshots.begin_publish());
        for table in tables {
            let _latch = table.latch.write();
            if let Some(p) = &publication {
                table.last_commit.store(p.seq, Ordering::Release);
            }
            for t in self.touched.iter().filter(|t| Arc::ptr_eq(&t.table, table)) {
                self.shared.cache.mark_dirty(&t.block, 0);
                if let Some(p) = &mut publication {
                    p.save((t.space, t.page_no), Arc::clone(&t.before));
                }
                t.block.drop_committed_image();
            }
        }
        drop(publication);
        self.shared.snapshots.purge();
        let mut payload = Vec::with_capacity(256);
        let mut undone = None;
        let end = loop {
            let horizon = log.horizon();
            payload.clear();
            let mut spaces: Vec<u64> = Vec::new();
            for t in &self.touched {
                if !spaces.contains(&t.space) {
                    spaces.push(t.space);
                    payload.push(ENTRY_FILE);
                    payload.extend_from_slice(&t.space.to_le_bytes());
                    for s in [t.table.db(), t.table.name()] {
                        payload.extend_from_slice(&(s.len() as u16).to_le_bytes());
                        payload.extend_from_slice(s.as_bytes());
                    }
                }
                let after = t.block.read();
                // The page was last changed by a group ending at or before the checkpoint start: the
                // checkpoint may be writing it right now, so a crash could tear it.
                let full = page_lsn(&t.before) <= horizon;
                encode_page_record(&mut payload, t.space, t.page_no, &t.before, &after, full);
            }
            if !keep_images || !crate::undo::keeps_images(log.ack()) {
                if let Some(end) = log.append(&payload, horizon)? {
                    break end;
                }
                continue;
            }
            // The entry is made under the same mutex as the append: every group above the
            // undo floor has one (see `undo`).
            let mut pending = self.shared.pending.groups.lock();
            if let Some(end) = log.append(&payload, horizon)? {
                let flag = crate::undo::Undone::default();
                pending.push(crate::undo::PendingGroup {
                    end_lsn: end,
                    pages: self
                        .touched
                        .iter_mut()
                        .map(|t| crate::undo::PendingPage {
                            block: t.block.clone(),
                            before: Arc::clone(&t.before),
                            table: Arc::clone(&t.table),
                        })
                        .collect(),
                    undone: Arc::clone(&flag),
                });
                undone = Some(flag);
                break end;
            }
        };
        #[cfg(test)]
        if let Some(hook) = AFTER_APPEND.take() {
            hook();
        }
        for t in self.touched.drain(..) {
            put_u64(&mut t.block.write(), OFF_LSN, end);
            t.block.raise_flush_lsn(end);
            t.block.end_write();
        }
        self.by_page.clear();
        Ok(Some((end, undone)))
    }

    /// The page for writing: claims it and records the before-image on first touch.
    fn page_for_write(&mut self, table: &Arc<TableInner>, page_no: u32) -> Result<Block> {
        if let Some(&i) = self.by_page.get(&(table.space, page_no)) {
            if !self.levels.is_empty() {
                self.save_for_levels(i);
            }
            return Ok(self.touched[i].block.clone());
        }
        let new = self.claim_exclusive((table.space, page_no))?;
        let block = self.shared.cache.get(table.space, page_no as u64)?;
        // Copied before the mark: no other statement changes a page this one claimed, so
        // the bytes are committed until this one does.
        let before: Arc<[u8]> = Arc::from(block.read().as_ref());
        if new && crate::page_claims::changed_since_reads(page_lsn(&before)) {
            return Err(crate::page_claims::busy(Retry::Now));
        }
        block.begin_write_with(Arc::clone(&before));
        self.remember(table, page_no, block.clone(), before);
        Ok(block)
    }

    /// Claim page `key` exclusively without waiting (another statement holding it: Busy);
    /// returns whether the claim is new. A fresh page (past the committed page count) is
    /// claimed too: a statement that allocated it and rolled back may still hold it.
    fn claim_exclusive(&mut self, key: crate::page_claims::PageKey) -> Result<bool> {
        let new = self
            .shared
            .claims
            .try_claim(self.id, key, ClaimMode::Exclusive)
            .map_err(|busy| crate::page_claims::busy(Retry::Wait(busy)))?;
        if new {
            self.claims.push(key);
        }
        Ok(new)
    }

    /// Wait for the page another statement held when this one failed with
    /// [`crate::StorageError::Busy`] (see `page_claims`), at most its lock wait timeout;
    /// then this statement holds it.
    pub fn wait_claim(&mut self, busy: BusyPage) -> Result<()> {
        self.claim_waiting(busy.page, busy.mode).map(|_| ())
    }

    /// Claim `page` in `mode`, waiting for its holders at most the lock wait timeout;
    /// returns whether the claim is new.
    fn claim_waiting(
        &mut self,
        page: crate::page_claims::PageKey,
        mode: ClaimMode,
    ) -> Result<bool> {
        let new = self
            .shared
            .claims
            .wait_claim(self.id, page, mode, self.lock_wait)?;
        if new {
            self.claims.push(page);
        }
        Ok(new)
    }

    /// Claim `pages` (a locking read's leaves) in `mode`, waiting for their holders as
    /// [`Statement::wait_claim`] does. Returns whether any claim is new: what was read
    /// before may have changed since, and should be read again.
    pub fn claim_pages(&mut self, pages: &[(u64, u32)], mode: ClaimMode) -> Result<bool> {
        let mut any_new = false;
        for &page in pages {
            any_new |= self.claim_waiting(page, mode)?;
        }
        Ok(any_new)
    }

    /// Let go of the table locks and page claims (the statement ended).
    fn let_go(&mut self) {
        self.locks.clear();
        self.shared.claims.release(self.id, &self.claims);
        self.claims.clear();
    }

    /// The rows the statement added to `table` (negative: took), counted into its meta page
    /// at commit.
    pub(crate) fn count_rows(&mut self, table: &Arc<TableInner>, rows: i64) {
        match self.meta.iter_mut().find(|m| Arc::ptr_eq(&m.table, table)) {
            Some(m) => m.rows += rows,
            None => self.meta.push(MetaDelta {
                table: Arc::clone(table),
                rows,
            }),
        }
    }

    /// At commit: bring each written table's meta page up to date (row count, next row id,
    /// AUTO_INCREMENT). The meta page is claimed for the moment of the commit only, so that
    /// transactions inserting into one table do not hold it until they end; one that
    /// allocated pages holds it already.
    fn write_meta(&mut self) -> Result<()> {
        if self.meta.is_empty() {
            return Ok(());
        }
        let _reading = self.reading_own();
        let _latest = crate::snapshot::reading_at(None);
        for delta in std::mem::take(&mut self.meta) {
            let t = &delta.table;
            self.wait_claim(BusyPage {
                page: (t.space, META_PAGE),
                mode: ClaimMode::Exclusive,
            })?;
            let block = self.page_for_write(t, META_PAGE)?;
            let mut m = block.write();
            let rows = get_u64(&m, meta::ROW_COUNT).saturating_add_signed(delta.rows);
            put_u64(&mut m, meta::ROW_COUNT, rows);
            for (off, counter) in [
                (meta::NEXT_ROW_ID, &t.next_row_id),
                (meta::AUTO_INCREMENT, &t.auto_increment),
            ] {
                let next = counter.load(Ordering::Acquire);
                if next > get_u64(&m, off) {
                    put_u64(&mut m, off, next);
                }
            }
        }
        Ok(())
    }

    fn remember(&mut self, table: &Arc<TableInner>, page_no: u32, block: Block, before: Arc<[u8]>) {
        table.forget_no_rows();
        self.by_page
            .insert((table.space, page_no), self.touched.len());
        self.touched.push(Touched {
            space: table.space,
            page_no,
            block,
            before,
            table: Arc::clone(table),
        });
    }
}

impl Drop for Statement {
    fn drop(&mut self) {
        if self.touched.is_empty() {
            self.let_go();
            return;
        }
        crate::savepoint::restore(
            self.touched
                .iter()
                .map(|t| (&t.table, &t.block, &t.before[..]))
                .collect(),
        );
        for t in self.touched.drain(..) {
            t.block.end_write();
        }
        self.let_go();
    }
}

/// What a statement changed in a table's counters, kept in its meta page (see
/// [`Statement::count_rows`]). The row id and AUTO_INCREMENT counters themselves live in
/// the table (`TableInner::next_row_id`, `auto_increment`), taken by concurrent statements
/// without waiting for each other; the meta page keeps the highest value committed.
#[derive(Clone)]
pub(crate) struct MetaDelta {
    pub(crate) table: Arc<TableInner>,
    pub(crate) rows: i64,
}

/// A commit whose changes are logged and visible, waiting to be durable (see
/// [`Statement::commit_logged`]).
#[must_use = "a commit is acknowledged only once `wait` returned Ok"]
pub struct Committing {
    shared: Arc<Shared>,
    /// The group's end LSN and its undone flag; None when the statement changed nothing.
    logged: Option<(u64, Option<crate::undo::Undone>)>,
}

impl Committing {
    /// Wait until the commit is durable (per `flush_log_at_trx_commit`). An error means it
    /// left no trace (see [`Statement::commit`]).
    pub fn wait(self) -> Result<()> {
        let Some((end, undone)) = self.logged else {
            return Ok(());
        };
        if let Err(e) = self.shared.wait_durable(end) {
            // Undone before the error is reported: reads after it never see the changes.
            let _ = self.shared.undo_failed();
            return Err(e);
        }
        self.shared.settle_watched(&undone)
    }
}

/// Append a PAGE entry describing `after` (relative to `before`, or from zeros when `full`).
pub(crate) fn encode_page_record(
    out: &mut Vec<u8>,
    space: u64,
    page_no: u32,
    before: &[u8],
    after: &[u8],
    full: bool,
) {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    // Bytes never logged: the checksum and the page LSN.
    let logged = |i: usize| !(i < 4 || (OFF_LSN..OFF_LSN + 8).contains(&i));
    let differs = |i: usize| {
        logged(i)
            && if full {
                after[i] != 0
            } else {
                after[i] != before[i]
            }
    };
    // Gaps shorter than this are logged rather than split into two ranges (a range costs
    // 4 bytes of header).
    const MERGE_GAP: usize = 8;
    let mut i = 0;
    while i < PAGE_SIZE {
        // Skip equal 8-byte words quickly.
        if i % 8 == 0 && i + 8 <= PAGE_SIZE && i >= 24 {
            let a = &after[i..i + 8];
            let same = if full {
                a == [0u8; 8]
            } else {
                a == &before[i..i + 8]
            };
            if same {
                i += 8;
                continue;
            }
        }
        if differs(i) {
            match ranges.last_mut() {
                Some((s, e)) if i - *e <= MERGE_GAP && i - *s < u16::MAX as usize - 16 => {
                    *e = i + 1
                }
                _ => ranges.push((i, i + 1)),
            }
        }
        i += 1;
    }
    if ranges.is_empty() && !full {
        return;
    }
    out.push(ENTRY_PAGE);
    out.extend_from_slice(&space.to_le_bytes());
    out.extend_from_slice(&page_no.to_le_bytes());
    out.push(full as u8);
    out.extend_from_slice(&(ranges.len() as u16).to_le_bytes());
    for (s, e) in ranges {
        out.extend_from_slice(&(s as u16).to_le_bytes());
        out.extend_from_slice(&((e - s) as u16).to_le_bytes());
        out.extend_from_slice(&after[s..e]);
    }
}

/// A statement's view of one table's pages for writing.
pub(crate) struct WritePager<'a> {
    pub(crate) stmt: &'a mut Statement,
    pub(crate) table: &'a Arc<TableInner>,
}

impl PageRead for WritePager<'_> {
    fn read(&self, page_no: u32) -> Result<crate::btree::Page> {
        Ok(crate::btree::Page::Block(
            self.stmt
                .shared
                .cache
                .get(self.table.space, page_no as u64)?,
        ))
    }
}

impl PageWrite for WritePager<'_> {
    fn write(&mut self, page_no: u32) -> Result<Block> {
        self.stmt.page_for_write(self.table, page_no)
    }

    fn allocate(&mut self, page_type: u8) -> Result<(u32, Block)> {
        let meta = self.write(META_PAGE)?;
        let free_head = get_u32(&meta.read(), meta::FREE_HEAD);
        let page_no = if free_head != 0 {
            let b = self.write(free_head)?;
            let next = {
                let p = b.read();
                if crate::table::page_type_of(&p) != TYPE_FREE {
                    return Err(StorageError::Corrupt(format!(
                        "free list names page {free_head}, which is in use"
                    )));
                }
                get_u32(&p, 32)
            };
            put_u32(&mut meta.write(), meta::FREE_HEAD, next);
            free_head
        } else {
            let count = get_u32(&meta.read(), meta::PAGE_COUNT);
            if count == u32::MAX {
                return Err(StorageError::TooBig("table file is full".into()));
            }
            put_u32(&mut meta.write(), meta::PAGE_COUNT, count + 1);
            self.stmt.claim_exclusive((self.table.space, count))?;
            let block = self
                .stmt
                .shared
                .cache
                .create(self.table.space, count as u64)?;
            // A fresh page's before-image is zeros (LSN 0): it logs a full image.
            let zeros: Arc<[u8]> = std::iter::repeat_n(0u8, PAGE_SIZE).collect();
            block.begin_write_with(Arc::clone(&zeros));
            self.stmt.remember(self.table, count, block, zeros);
            count
        };
        let b = self.write(page_no)?;
        {
            let mut p = b.write();
            p[HEADER_SIZE..].fill(0);
            init_header(&mut p, self.table.space, page_no, page_type);
        }
        Ok((page_no, b))
    }

    fn free(&mut self, page_no: u32) -> Result<()> {
        let meta = self.write(META_PAGE)?;
        let head = get_u32(&meta.read(), meta::FREE_HEAD);
        let b = self.write(page_no)?;
        {
            let mut p = b.write();
            p[HEADER_SIZE..].fill(0);
            p[OFF_TYPE] = TYPE_FREE;
            put_u32(&mut p, 32, head);
        }
        put_u32(&mut meta.write(), meta::FREE_HEAD, page_no);
        Ok(())
    }
}
