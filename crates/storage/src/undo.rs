//! Undoing committed statements whose redo group failed to become durable: the "nothing"
//! half of all or nothing when a log write or fsync fails (ENOSPC, EIO).
//!
//! **The problem.** A statement's changes become visible when it commits: its group is
//! appended, its pages are stamped and its writer locks are released, *then* it waits for
//! the log fsync (so that statements on the same table share one fsync: group commit).
//! By the time the fsync fails, later statements may have read those pages, changed them
//! again and committed groups of their own behind it. None of these statements has been
//! acknowledged (under `flush_log_at_trx_commit = 1` a commit is acknowledged only once its
//! group is durable), and none may leave a trace.
//!
//! **The design.** Each committing statement leaves its before-images here ([`Pending`],
//! one entry per group, moved, not copied) until its group is durable (or, with 2, written),
//! when its committer prunes it: the steady-state cost is one short mutex per commit and the
//! before-images living for one fsync longer. When the log fails (see `redo`, "Failed writes
//! and fsyncs") appends are refused, so no new group joins; statements in progress fail at
//! their commit and roll back themselves. Then [`Shared::undo_failed`] (the first failed
//! committer, or the background thread) restores, table by table under its writer lock
//! (so no statement is building on the pages) and its latch (so no reader sees a half-
//! restored tree), every page of every group above the undo floor, newest group first, and
//! has the log pad those groups over. Each undone group's committer is told through its
//! [`Undone`] flag: the log becomes durable past its LSN (through the PAD), so the LSN
//! alone cannot tell it that its group is gone.
//! It holds one writer lock at a time and waits for no other lock while holding it, so it
//! cannot deadlock with a statement that holds several.
//!
//! Other designs considered: failing the statement before it is applied covers `ENOSPC` at
//! the source and is done too (the log's reservation, see `redo`), but no reservation
//! prevents `EIO` or a failed fsync; holding the writer locks until the fsync would need no
//! undo but would give each table one commit per fsync, ending group commit for a hot table.

use crate::redo::Ack;
use crate::table::TableInner;
use crate::types::{Result, StorageError};
use crate::Shared;
use myriad_cache::Block;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

/// Set when a committed statement's group was undone: the errno of the failure (or
/// [`UNDONE_NO_ERRNO`]); 0 while it stands.
pub(crate) type Undone = Arc<AtomicI32>;
const UNDONE_NO_ERRNO: i32 = -1;

/// One changed page of a committed statement, with the image from before the statement.
pub(crate) struct PendingPage {
    pub(crate) block: Block,
    pub(crate) before: Arc<[u8]>,
    pub(crate) table: Arc<TableInner>,
}

/// One committed statement whose group may still be undone.
pub(crate) struct PendingGroup {
    pub(crate) end_lsn: u64,
    pub(crate) pages: Vec<PendingPage>,
    pub(crate) undone: Undone,
}

/// The committed statements whose groups may still be undone. Appends into the log happen
/// under this mutex when a statement leaves an entry (see `Statement::log_and_stamp`), so
/// every group in the log above the undo floor has its entry here.
#[derive(Default)]
pub(crate) struct Pending {
    pub(crate) groups: Mutex<Vec<PendingGroup>>,
    /// One undo at a time; later callers find it done.
    undoing: Mutex<()>,
}

impl Pending {
    /// Forget the entries at or below `floor`: their groups are acknowledged.
    pub(crate) fn prune(&self, floor: u64) {
        let mut groups = self.groups.lock();
        if groups.iter().any(|g| g.end_lsn <= floor) {
            groups.retain(|g| g.end_lsn > floor);
        }
    }
}

/// Whether commits leave before-images behind: not with `flush_log_at_trx_commit = 0`,
/// whose commits are acknowledged before anything is written (nothing may be undone).
pub(crate) fn keeps_images(ack: Ack) -> bool {
    ack != Ack::Buffered
}

/// The error a commit reports when its group was undone.
fn undone_error(undone: &Undone) -> Option<StorageError> {
    match undone.load(Ordering::Acquire) {
        0 => None,
        UNDONE_NO_ERRNO => Some(StorageError::Io(std::io::Error::other(
            "the redo log write failed",
        ))),
        errno => Some(StorageError::Io(std::io::Error::from_raw_os_error(errno))),
    }
}

/// Err when the group `undone` watches was undone (DDL: its record was dropped with the
/// failed groups, though a later group may have made the log durable past its LSN).
fn check_not_undone(undone: &Option<Undone>) -> Result<()> {
    match undone.as_ref().and_then(undone_error) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl Shared {
    /// After a watched group's wait succeeded: Err if it was undone, else its entry (and
    /// every other acknowledged one) is let go.
    pub(crate) fn settle_watched(&self, undone: &Option<Undone>) -> Result<()> {
        check_not_undone(undone)?;
        if undone.is_some() {
            self.pending.prune(self.log.undo_floor());
        }
        Ok(())
    }

    /// Append a group with no pages of a statement (DDL) and an entry that tells whether
    /// it was undone (see [`check_not_undone`]); None when the horizon moved.
    pub(crate) fn append_watched(
        &self,
        payload: &[u8],
        horizon: u64,
    ) -> Result<Option<(u64, Option<Undone>)>> {
        if !keeps_images(self.log.ack()) {
            return Ok(self.log.append(payload, horizon)?.map(|end| (end, None)));
        }
        let mut pending = self.pending.groups.lock();
        let Some(end) = self.log.append(payload, horizon)? else {
            return Ok(None);
        };
        let undone = Undone::default();
        pending.push(PendingGroup {
            end_lsn: end,
            pages: Vec::new(),
            undone: Arc::clone(&undone),
        });
        Ok(Some((end, Some(undone))))
    }

    /// After the log failed: undo every committed statement above the undo floor, rewind
    /// the log, and try to repair it (see the module). Returns the repair's outcome: Ok
    /// when the log accepts writes again.
    pub(crate) fn undo_failed(&self) -> Result<()> {
        let _one = self.pending.undoing.lock();
        if !self.log.undo_pending() {
            return Ok(self.log.repair()?);
        }
        let floor = self.log.undo_floor();
        let mut groups = std::mem::take(&mut *self.pending.groups.lock());
        groups.retain(|g| g.end_lsn > floor);
        groups.sort_by_key(|g| g.end_lsn);
        let mut tables: Vec<Arc<TableInner>> = Vec::new();
        for g in &groups {
            for p in &g.pages {
                if !tables.iter().any(|t| Arc::ptr_eq(t, &p.table)) {
                    tables.push(Arc::clone(&p.table));
                }
            }
        }
        let mut undone_tables = 0usize;
        for table in &tables {
            // Statements in progress on the table fail at their commit (appends are
            // refused) and roll back first: their before-images may hold our changes.
            let Some(_writer) = table.writer.try_write_for(self.config.lock_wait_timeout) else {
                break;
            };
            let _latch = table.latch.write();
            for g in groups.iter().rev() {
                for p in g.pages.iter().filter(|p| Arc::ptr_eq(&p.table, table)) {
                    p.block.begin_write();
                    p.block.write().copy_from_slice(&p.before);
                    p.block.end_write();
                }
            }
            undone_tables += 1;
        }
        if undone_tables < tables.len() {
            // A statement held a table past the lock wait timeout: undo the rest later
            // (the background thread retries); what was restored stays restored.
            let rest: Vec<Arc<TableInner>> = tables.split_off(undone_tables);
            for g in &mut groups {
                g.pages
                    .retain(|p| rest.iter().any(|t| Arc::ptr_eq(t, &p.table)));
            }
            self.pending.groups.lock().extend(groups);
            return Err(StorageError::LockWaitTimeout);
        }
        let errno = self.log.failure_errno().unwrap_or(UNDONE_NO_ERRNO);
        for g in &groups {
            g.undone.store(errno, Ordering::Release);
        }
        if !groups.is_empty() {
            tracing::warn!(
                "redo log: {} statement(s) not made durable were undone (LSN above {floor})",
                groups.len()
            );
        }
        Ok(self.log.rewind()?)
    }
}
