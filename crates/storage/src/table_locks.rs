//! Tables' writer locks: shared by the statements that change rows, exclusive for what
//! needs the table to itself.
//!
//! A statement takes its table's writer lock in *shared* mode at its first change of the
//! table (or when asked, [`crate::Table::lock_for_write`]) and keeps it until it commits or
//! rolls back; the SQL layer keeps one statement open for a whole transaction. Statements
//! of any number of transactions thus write one table side by side, kept apart page by page
//! (see `page_claims`). The lock is taken *exclusively* by what must see no statement in
//! progress on the table: DDL, FLUSH TABLES, moving the table to another key cache, and the
//! undo of a failed log write (see `undo`). A statement that finds it held exclusively
//! waits, in slices of [`PROBE_SLICE`] so that a KILL or a departed client ends the wait,
//! until its timeout ([`StorageError::LockWaitTimeout`]). Those exclusive holders wait for
//! no page claim, so no cycle of waits runs through this lock.

use crate::table::TableInner;
use crate::types::{Result, StorageError};
use myriad_cache::long_wait::PROBE_SLICE;
use parking_lot::lock_api::ArcRwLockReadGuard;
use parking_lot::RawRwLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Statement ids: never 0, which marks no statement.
static NEXT_STATEMENT: AtomicU64 = AtomicU64::new(1);

/// A new statement's id.
pub(crate) fn statement_id() -> u64 {
    NEXT_STATEMENT.fetch_add(1, Ordering::Relaxed)
}

/// A table's writer lock, held (shared) by a statement until this is dropped.
pub(crate) struct Held {
    pub(crate) table: Arc<TableInner>,
    _guard: ArcRwLockReadGuard<RawRwLock, ()>,
}

/// Take `table`'s writer lock in shared mode, waiting at most `timeout` for an exclusive
/// holder.
pub(crate) fn lock_shared(table: &Arc<TableInner>, timeout: Duration) -> Result<Held> {
    let guard = match table.writer.try_read_arc() {
        Some(guard) => guard,
        None => {
            let deadline = Instant::now() + timeout;
            myriad_cache::long_wait::run(|| loop {
                let left = deadline.saturating_duration_since(Instant::now());
                if let Some(guard) = table.writer.try_read_arc_for(left.min(PROBE_SLICE)) {
                    return Some(guard);
                }
                if left <= PROBE_SLICE || myriad_cache::long_wait::interrupted() {
                    return None;
                }
            })
            .ok_or(StorageError::LockWaitTimeout)?
        }
    };
    Ok(Held {
        table: Arc::clone(table),
        _guard: guard,
    })
}
