//! Tables' writer locks as statements hold them, and the deadlock check of their waits.
//!
//! A statement takes a table's writer lock at its first change of the table (or when asked,
//! [`crate::Table::lock_for_write`]) and keeps it until it commits or rolls back; the SQL
//! layer keeps one statement open for a whole transaction, so a transaction holds every
//! table it wrote until it ends. A statement that finds the lock taken waits, in slices of
//! [`PROBE_SLICE`] so that a KILL or a departed client ends the wait, until its timeout
//! ([`StorageError::LockWaitTimeout`]).
//!
//! **Deadlocks.** Each table records the statement holding its lock (`writer_owner`), and
//! a statement about to wait records the table it waits for ([`LockWaits`]). Before waiting
//! it follows the chain: the table's holder, the table that holder waits for, its holder,
//! and so on. If the chain comes back to the statement itself, waiting would never end: it
//! fails at once with [`StorageError::Deadlock`] (the SQL layer's 1213 rolls its whole
//! transaction back, which lets the others go on). Registration and the check happen under
//! one mutex, so of two statements closing a cycle the second one sees it. Only waits touch
//! the mutex; a lock taken at once costs one atomic store.

use crate::table::TableInner;
use crate::types::{Result, StorageError};
use myriad_cache::long_wait::PROBE_SLICE;
use parking_lot::lock_api::ArcMutexGuard;
use parking_lot::{Mutex, RawMutex};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Statement ids: never 0, which marks a table nobody holds.
static NEXT_STATEMENT: AtomicU64 = AtomicU64::new(1);

/// A new statement's id.
pub(crate) fn statement_id() -> u64 {
    NEXT_STATEMENT.fetch_add(1, Ordering::Relaxed)
}

/// A table's writer lock, held by a statement until this is dropped.
pub(crate) struct Held {
    pub(crate) table: Arc<TableInner>,
    _guard: ArcMutexGuard<RawMutex, ()>,
}

impl Drop for Held {
    fn drop(&mut self) {
        // Before the guard (a field) lets the lock go: a new holder then finds 0 or itself.
        self.table.writer_owner.store(0, Ordering::Release);
    }
}

/// Which statement waits for which table's lock.
#[derive(Default)]
pub(crate) struct LockWaits {
    waiting: Mutex<HashMap<u64, Arc<TableInner>>>,
}

impl LockWaits {
    /// Take `table`'s writer lock for statement `me`, waiting at most `timeout`.
    pub(crate) fn lock(&self, me: u64, table: &Arc<TableInner>, timeout: Duration) -> Result<Held> {
        let guard = match table.writer.try_lock_arc() {
            Some(guard) => guard,
            None => self.wait(me, table, timeout)?,
        };
        table.writer_owner.store(me, Ordering::Release);
        Ok(Held {
            table: Arc::clone(table),
            _guard: guard,
        })
    }

    fn wait(
        &self,
        me: u64,
        table: &Arc<TableInner>,
        timeout: Duration,
    ) -> Result<ArcMutexGuard<RawMutex, ()>> {
        {
            let mut waiting = self.waiting.lock();
            if closes_cycle(&waiting, me, table) {
                return Err(StorageError::Deadlock);
            }
            waiting.insert(me, Arc::clone(table));
        }
        let deadline = Instant::now() + timeout;
        let got = myriad_cache::long_wait::run(|| loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if let Some(guard) = table.writer.try_lock_arc_for(left.min(PROBE_SLICE)) {
                return Some(guard);
            }
            if left <= PROBE_SLICE || myriad_cache::long_wait::interrupted() {
                return None;
            }
        });
        self.waiting.lock().remove(&me);
        got.ok_or(StorageError::LockWaitTimeout)
    }
}

/// Whether `me` waiting for `table` closes a chain of waits back to `me`.
fn closes_cycle(waiting: &HashMap<u64, Arc<TableInner>>, me: u64, table: &Arc<TableInner>) -> bool {
    let mut next = Arc::clone(table);
    // A chain longer than the statements waiting has a cycle that does not reach `me`.
    for _ in 0..=waiting.len() {
        let owner = next.writer_owner.load(Ordering::Acquire);
        if owner == me {
            return true;
        }
        match waiting.get(&owner) {
            Some(t) if owner != 0 => next = Arc::clone(t),
            _ => return false,
        }
    }
    false
}
