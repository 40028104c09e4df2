//! Transactions as the client sees them: what a session keeps while one is open, and the
//! storage statement its writes go through.
//!
//! A transaction is open after `BEGIN` / `START TRANSACTION`, and with `autocommit = 0`
//! from the first statement that reads or writes a table. Until `COMMIT` or `ROLLBACK`
//! every write of the session goes through one storage [`Statement`], opened at the first
//! write (or locking read, or savepoint): its changes reach the redo log only at COMMIT,
//! and ROLLBACK, an implicit rollback at disconnect, or a reset of the connection undo them
//! all ([`Statement`]'s drop). Outside a transaction each write statement has a storage
//! statement of its own, committed at its end.
//!
//! Inside a transaction a statement starts with a storage savepoint (`WriteScope`): when
//! it fails, only its own changes are undone and the transaction goes on, as InnoDB does.
//! The user's `SAVEPOINT name` are storage savepoints too, by name.
//!
//! Locks. Every statement that writes claims each page before it changes it (see
//! `myriad_storage`'s `page_claims`), and a transaction keeps its claims until it ends. A
//! statement that needs a page another statement holds is undone back to its start (its
//! own claims stay), waits for that statement to end (at most `innodb_lock_wait_timeout`:
//! 1205; a cycle of waits: 1213 at once, and the whole transaction is rolled back) and runs
//! again (`Session::retry_after_conflict`). A statement that reads rows before it writes
//! (UPDATE, DELETE, INSERT ... SELECT) also runs again when a page it claims changed after
//! it began reading, so that `SET n = n + 1` never writes what it computed from a row
//! another statement changed meanwhile. `SELECT ... FOR UPDATE` claims the leaves it reads
//! (`FOR SHARE`, and SELECTs at SERIALIZABLE, claim them shared) before it sends a row.
//!
//! On top of the claims, a transaction's first write (or locking read) in a database takes
//! that database's *transaction lock* ([`crate::session::row_locks`], with its deadlock
//! check), kept until it ends: transactions that write one database take turns, while
//! autocommit statements go on beside them on the pages they do not hold. Page claims alone
//! would let transactions of one database write side by side; a page holds many rows and an
//! index leaf thousands of keys, so under sysbench's write load most of their waits closed
//! cycles (1213 for one transaction in seven), and the database lock stays until claims are
//! finer than a page.
//!
//! Reads. A plain read (a SELECT without `FOR UPDATE` / `FOR SHARE`) takes no lock and
//! reads a storage snapshot (`myriad_storage::SnapshotSlot`, one per session), which sees
//! the commits published before it and none after, plus the transaction's own changes (the
//! session reads as its storage statement, `Transaction::reading_own`). Which snapshot
//! follows `transaction_isolation`, as in InnoDB:
//! - REPEATABLE READ: one per transaction, taken at its first read of a table (or at
//!   `START TRANSACTION WITH CONSISTENT SNAPSHOT`) and kept until it ends.
//! - READ COMMITTED, and any statement outside a transaction: one per statement, taken at
//!   its first read of a table.
//! - SERIALIZABLE: a transaction's SELECTs lock (`FOR SHARE`) and read the latest commits;
//!   outside a transaction as READ COMMITTED.
//! - READ UNCOMMITTED: no snapshot; reads see other transactions' uncommitted changes.
//!
//! Writes (INSERT, UPDATE, DELETE, with their subqueries) and locking reads read the
//! latest commits, as InnoDB's do. A read of a table the transaction writes, after others
//! changed it under the transaction's snapshot, fails with 1020 ER_CHECKREAD rather than
//! mix their commits into the snapshot (see `myriad_storage`'s `snapshot`).

use crate::error::SqlError;
use myriad_storage::{Savepoint, Statement};
use myriad_types::errors::ER_SP_DOES_NOT_EXIST;
use parking_lot::{Mutex, MutexGuard};

/// `transaction_isolation` (see the module doc, "Reads").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isolation {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    /// The level a `transaction_isolation` value names.
    pub(crate) fn of(value: &crate::sysvars::VarValue) -> Isolation {
        match value {
            crate::sysvars::VarValue::Enum(0) => Isolation::ReadUncommitted,
            crate::sysvars::VarValue::Enum(1) => Isolation::ReadCommitted,
            crate::sysvars::VarValue::Enum(3) => Isolation::Serializable,
            _ => Isolation::RepeatableRead,
        }
    }
}

/// What `SET TRANSACTION` without SESSION or GLOBAL set: it holds for the next transaction
/// only (an autocommit statement over tables is one), then the session's settings again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct NextTransaction {
    pub(crate) isolation: Option<Isolation>,
    pub(crate) read_only: Option<bool>,
}

/// What a session keeps of its open transaction.
#[derive(Default)]
pub(crate) struct Transaction {
    /// The storage statement of the transaction's writes, from its first write on. A Mutex
    /// only because statements execute through `&self`; never contended.
    pub(crate) storage: Mutex<Option<Statement>>,
    /// `SAVEPOINT` names, oldest first, with the storage savepoint of each.
    savepoints: Vec<(String, Savepoint)>,
    /// Started with `START TRANSACTION READ ONLY`: writes fail with 1792.
    pub(crate) read_only: bool,
}

impl Transaction {
    /// Until the guard drops, this thread's reads see the transaction's own changes (None
    /// before its first write: there are none).
    pub(crate) fn reading_own(&self) -> Option<myriad_cache::ReadingAs> {
        self.storage.lock().as_ref().map(Statement::reading_own)
    }

    /// End the transaction: commit or undo its writes. Its savepoints go either way, and
    /// a failed commit left nothing behind (see [`Statement::commit`]). A commit comes
    /// back logged and visible: the caller lets go of the transaction's locks, then waits
    /// for it to be durable ([`myriad_storage::Committing::wait`]) before it answers.
    pub(crate) fn end(
        &mut self,
        commit: bool,
    ) -> Result<Option<myriad_storage::Committing>, SqlError> {
        self.savepoints.clear();
        self.read_only = false;
        match self.storage.get_mut().take() {
            Some(stmt) if commit => stmt
                .commit_logged()
                .map(Some)
                .map_err(crate::catalog::storage_error),
            Some(stmt) => {
                stmt.rollback();
                Ok(None)
            }
            None => Ok(None),
        }
    }

    /// `SAVEPOINT name`: a savepoint of the same name is replaced.
    pub(crate) fn savepoint(&mut self, storage: &myriad_storage::Storage, name: &str) {
        self.savepoints
            .retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        let stmt = self
            .storage
            .get_mut()
            .get_or_insert_with(|| storage.begin());
        let point = stmt.savepoint();
        self.savepoints.push((name.to_string(), point));
    }

    /// `ROLLBACK TO SAVEPOINT name` (`release`: false) and `RELEASE SAVEPOINT name`: the
    /// savepoints after it go; ROLLBACK TO keeps it, RELEASE drops it too.
    pub(crate) fn back_to_savepoint(&mut self, name: &str, release: bool) -> Result<(), SqlError> {
        let Some(at) = self
            .savepoints
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
        else {
            return Err(SqlError::new(
                ER_SP_DOES_NOT_EXIST,
                format!("SAVEPOINT {name} does not exist"),
            ));
        };
        let point = self.savepoints[at].1;
        let stmt = self.storage.get_mut();
        if let Some(stmt) = stmt.as_mut() {
            if release {
                stmt.release(point);
            } else {
                stmt.rollback_to(point);
            }
        }
        self.savepoints.truncate(if release { at } else { at + 1 });
        Ok(())
    }
}

/// The storage statement one SQL statement writes through: its own, or its transaction's
/// with a savepoint at the statement's start. Dropped without [`WriteScope::finish`], it
/// undoes the statement's changes (and only those).
/// While it lives, the thread's reads see the statement's (or transaction's) own changes.
pub(crate) enum WriteScope<'s> {
    /// Outside a transaction: committed by `finish`.
    Own {
        stmt: Option<Statement>,
        _reading: myriad_cache::ReadingAs,
    },
    InTransaction {
        storage: MutexGuard<'s, Option<Statement>>,
        start: Savepoint,
        finished: bool,
        _reading: myriad_cache::ReadingAs,
    },
}

impl WriteScope<'_> {
    pub(crate) fn stmt(&mut self) -> &mut Statement {
        match self {
            WriteScope::Own { stmt, .. } => stmt.as_mut(),
            WriteScope::InTransaction { storage, .. } => storage.as_mut(),
        }
        .expect("a write scope holds its statement until it ends")
    }

    /// The statement succeeded: commit it (outside a transaction), or keep its changes in
    /// the transaction.
    pub(crate) fn finish(mut self) -> Result<(), SqlError> {
        match &mut self {
            WriteScope::Own { stmt, .. } => match stmt.take() {
                Some(stmt) => stmt.commit().map_err(crate::catalog::storage_error),
                None => Ok(()),
            },
            WriteScope::InTransaction {
                storage,
                start,
                finished,
                ..
            } => {
                if let Some(stmt) = storage.as_mut() {
                    stmt.release(*start);
                }
                *finished = true;
                Ok(())
            }
        }
    }
}

impl Drop for WriteScope<'_> {
    fn drop(&mut self) {
        if let WriteScope::InTransaction {
            storage,
            start,
            finished: false,
            ..
        } = self
        {
            if let Some(stmt) = storage.as_mut() {
                stmt.rollback_to(*start);
                stmt.release(*start);
            }
        }
    }
}

impl crate::session::SessionState {
    /// The query cache's versions of the tables the transaction wrote move on: results
    /// other sessions cached while it was open hold the rows as they were committed before
    /// it, which its COMMIT changes (each write statement bumps them only at its own start
    /// and end).
    pub(crate) fn bump_written_tables(&self) {
        for cell in &self.written_tables {
            cell.bump();
        }
    }
}
