//! The server's table of named locks, each held by one connection: the user-level locks of
//! GET_LOCK (see `exec::user_locks`) and the databases' transaction locks (see
//! `session::transaction`, "Locks").
//!
//! A session waits for at most one lock at a time, so the waits-for relation is a set of
//! chains: before waiting, the chain from the holder is followed, and if it leads back to
//! the waiter the statement fails with MySQL's deadlock error 1213 instead of hanging.
//! Waits are also bounded by a timeout (error 1205).

use crate::error::SqlError;
use myriad_types::errors::{ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT};
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A lock's name, in two parts.
pub type RowKey = (String, String);

#[derive(Default)]
struct LockTable {
    /// Locked rows and the connection holding each.
    owners: HashMap<RowKey, u32>,
    /// The connection each waiting connection waits for.
    waiting_for: HashMap<u32, u32>,
}

/// The server-wide lock table (one per engine).
#[derive(Default)]
pub struct RowLocks {
    table: Mutex<LockTable>,
    released: Condvar,
}

impl RowLocks {
    /// Lock `key` for connection `owner`, waiting while another connection holds it, at
    /// most `timeout` (innodb_lock_wait_timeout). Returns whether the lock is new (false:
    /// `owner` held it already).
    pub fn lock(&self, owner: u32, key: RowKey, timeout: Duration) -> Result<bool, SqlError> {
        let deadline = Instant::now() + timeout;
        let mut table = self.table.lock();
        loop {
            let holder = match table.owners.get(&key) {
                None => {
                    table.owners.insert(key, owner);
                    return Ok(true);
                }
                Some(&holder) if holder == owner => return Ok(false),
                Some(&holder) => holder,
            };
            // Follow the chain of waits from the holder: reaching us is a deadlock.
            let mut next = holder;
            let mut steps = 0;
            while let Some(&after) = table.waiting_for.get(&next) {
                if after == owner || steps > table.waiting_for.len() {
                    table.waiting_for.remove(&owner);
                    return Err(SqlError::new(
                        ER_LOCK_DEADLOCK,
                        "Deadlock found when trying to get lock; try restarting transaction",
                    ));
                }
                next = after;
                steps += 1;
            }
            table.waiting_for.insert(owner, holder);
            // In slices, so that KILL, max_statement_time or a client that left ends the wait.
            let slice_end = deadline.min(Instant::now() + crate::interrupt::WAIT_SLICE);
            myriad_cache::long_wait::run(|| {
                let _ = self.released.wait_until(&mut table, slice_end);
            });
            table.waiting_for.remove(&owner);
            crate::interrupt::check()?;
            let timed_out = Instant::now() >= deadline;
            if timed_out && table.owners.get(&key).is_some_and(|&h| h != owner) {
                return Err(SqlError::new(
                    ER_LOCK_WAIT_TIMEOUT,
                    "Lock wait timeout exceeded; try restarting transaction",
                ));
            }
        }
    }

    /// The connection holding `key`, if one does.
    pub fn holder(&self, key: &RowKey) -> Option<u32> {
        self.table.lock().owners.get(key).copied()
    }

    /// Release every lock in `keys` (held by `owner`) and wake the waiters.
    pub fn release(&self, owner: u32, keys: &mut Vec<RowKey>) {
        if keys.is_empty() {
            return;
        }
        let mut table = self.table.lock();
        for key in keys.drain(..) {
            if table.owners.get(&key) == Some(&owner) {
                table.owners.remove(&key);
            }
        }
        drop(table);
        self.released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const WAIT: Duration = Duration::from_secs(50);

    fn key(id: u32) -> RowKey {
        ("db.t".into(), id.to_string())
    }

    #[test]
    fn second_owner_waits_until_release() {
        let locks = Arc::new(RowLocks::default());
        assert!(locks.lock(1, key(5), WAIT).unwrap());
        assert!(
            !locks.lock(1, key(5), WAIT).unwrap(),
            "re-locking one's own row"
        );
        let waiter = {
            let locks = Arc::clone(&locks);
            std::thread::spawn(move || {
                let start = Instant::now();
                locks.lock(2, key(5), WAIT).unwrap();
                start.elapsed()
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        locks.release(1, &mut vec![key(5)]);
        let waited = waiter.join().unwrap();
        assert!(waited >= Duration::from_millis(90), "waited {waited:?}");
        assert_eq!(locks.table.lock().owners.get(&key(5)), Some(&2));
    }

    #[test]
    fn crossed_waits_report_a_deadlock() {
        let locks = Arc::new(RowLocks::default());
        locks.lock(1, key(1), WAIT).unwrap();
        locks.lock(2, key(2), WAIT).unwrap();
        let first = {
            let locks = Arc::clone(&locks);
            std::thread::spawn(move || locks.lock(1, key(2), WAIT))
        };
        // Wait until connection 1 is registered as waiting for 2.
        while !locks.table.lock().waiting_for.contains_key(&1) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let err = locks.lock(2, key(1), WAIT).unwrap_err();
        assert_eq!(err.code, 1213);
        locks.release(2, &mut vec![key(2)]);
        assert!(first.join().unwrap().unwrap());
    }
}
