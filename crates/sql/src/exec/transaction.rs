//! Running the transaction statements (BEGIN, COMMIT, ROLLBACK, savepoints), the storage
//! statement each write runs in, the page claims of `FOR UPDATE` / `FOR SHARE`, and the
//! runs again of a statement that met another's page (what a session keeps of its
//! transaction, and why, is in [`crate::session::transaction`]).

use crate::error::SqlError;
use crate::plan::tables::TableSelect;
use crate::plan::Stmt;
use crate::session::transaction::{Isolation, WriteScope};
use crate::value::Value;
use crate::Session;
use myriad_storage::{ClaimMode, Retry};
use myriad_types::errors::{ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, ER_LOCK_WAIT_TIMEOUT};

/// What one statement's plain reads see (see [`crate::session::transaction`], "Reads"):
/// held while it runs.
pub(crate) struct ReadView {
    _dirty: Option<myriad_cache::ReadingAs>,
    _at: myriad_storage::ReadingAt,
}

impl Session {
    /// The view of a statement's reads. Take it after the transaction's `reading_own`
    /// guard, drop it before.
    pub(crate) fn read_view(&self, stmt: &Stmt) -> ReadView {
        let consistent = match stmt {
            Stmt::SelectTable(plan) => return self.select_view(plan),
            Stmt::Select(_) | Stmt::Do(_) | Stmt::Set(_) => true,
            _ => false,
        };
        self.view(consistent)
    }

    /// The view of a SELECT over tables (also when it resumes after a pause).
    pub(crate) fn select_view(&self, plan: &TableSelect) -> ReadView {
        self.view(self.select_locks(plan).is_none())
    }

    fn view(&self, consistent: bool) -> ReadView {
        let serializable_transaction =
            self.state.isolation() == Isolation::Serializable && self.in_transaction_scope();
        if !consistent || serializable_transaction {
            // Writes, locking reads, DDL: the latest commits.
            return ReadView {
                _dirty: None,
                _at: myriad_storage::reading_at(None),
            };
        }
        if self.state.isolation() == Isolation::ReadUncommitted {
            return ReadView {
                _dirty: Some(myriad_cache::reading_as(myriad_cache::READ_UNCOMMITTED)),
                _at: myriad_storage::reading_at(None),
            };
        }
        ReadView {
            _dirty: None,
            _at: myriad_storage::reading_from(&self.state.snapshot_slot),
        }
    }

    /// Whether the session's snapshot lasts as long as its transaction (REPEATABLE READ).
    fn transaction_snapshot(&self) -> bool {
        self.state.isolation() == Isolation::RepeatableRead && self.in_transaction_scope()
    }

    /// A statement ended: its snapshot goes, unless its transaction keeps it.
    pub(crate) fn end_statement_snapshot(&self) {
        if !self.transaction_snapshot() {
            self.state.snapshot_slot.release();
        }
    }

    /// Before a statement runs: a DDL statement waits for the other transactions that used
    /// its tables; a statement of a transaction holds the tables it names until the end
    /// (see [`crate::session::metadata_locks`]).
    pub(crate) fn metadata_locks(&mut self, stmt: &Stmt) -> Result<(), SqlError> {
        use crate::session::metadata_locks::{ddl_target, for_used_tables, table_key};
        let locks = &self.engine.metadata_locks;
        let owner = self.info.connection_id;
        // Every DDL statement commits implicitly: one `matches!` for the others.
        if let Some(target) = stmt
            .commits_implicitly()
            .then(|| ddl_target(stmt))
            .flatten()
        {
            return locks.wait_exclusive(owner, &target, self.metadata_lock_timeout());
        }
        if self.in_transaction_scope() {
            let held = &mut self.state.held_tables;
            for_used_tables(stmt, |database, name, write| {
                // Most statements of a transaction name tables it holds already: no lock.
                let known = held
                    .iter_mut()
                    .find(|((d, t), _)| d == database && t == name);
                if let Some((_, wrote)) = known {
                    if write && !*wrote {
                        *wrote = true;
                        locks.hold(owner, &table_key(database, name), true);
                    }
                    return;
                }
                let key = table_key(database, name);
                if locks.hold(owner, &key, write) {
                    held.push((key, write));
                }
            });
        }
        Ok(())
    }

    /// lock_wait_timeout: how long a statement waits for a metadata or table lock.
    pub(crate) fn metadata_lock_timeout(&self) -> std::time::Duration {
        let seconds = crate::system::sysvars::lookup("lock_wait_timeout")
            .and_then(|i| match self.state.session_value(i) {
                crate::sysvars::VarValue::UInt(s) => Some(*s),
                _ => None,
            })
            .unwrap_or(86_400);
        std::time::Duration::from_secs(seconds)
    }

    /// Whether the session's statements run in a transaction: one is open, or autocommit
    /// is off (the next statement opens one).
    pub(crate) fn in_transaction_scope(&self) -> bool {
        self.state.in_transaction || !self.state.autocommit
    }

    /// innodb_lock_wait_timeout.
    pub(crate) fn lock_wait_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.state.lock_wait_timeout_s)
    }

    /// The storage statement for a statement that writes (`write`) in `database`.
    pub(crate) fn write_scope(
        &self,
        database: &str,
        write: bool,
    ) -> Result<WriteScope<'_>, SqlError> {
        let storage = self.engine.catalog.storage();
        if write && (self.state.read_only() || self.state.transaction.read_only) {
            return Err(SqlError::new(
                ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION,
                "Cannot execute statement in a READ ONLY transaction",
            ));
        }
        if !self.in_transaction_scope() {
            let mut stmt = storage.begin();
            stmt.set_lock_wait_timeout(self.lock_wait_timeout());
            let _reading = stmt.reading_own();
            return Ok(WriteScope::Own {
                stmt: Some(stmt),
                _reading,
            });
        }
        self.lock_database(database)?;
        let mut guard = self.state.transaction.storage.lock();
        let stmt = guard.get_or_insert_with(|| storage.begin());
        stmt.set_lock_wait_timeout(self.lock_wait_timeout());
        let start = stmt.savepoint();
        let _reading = stmt.reading_own();
        Ok(WriteScope::InTransaction {
            storage: guard,
            start,
            finished: false,
            _reading,
        })
    }

    /// Whether a SELECT locks what it reads, and how: `FOR UPDATE` / `FOR SHARE`, or any
    /// SELECT of a transaction at SERIALIZABLE (InnoDB reads it as `LOCK IN SHARE MODE`).
    pub(crate) fn select_locks(&self, plan: &TableSelect) -> Option<ClaimMode> {
        plan.locking.or_else(|| {
            (self.state.isolation() == Isolation::Serializable && self.in_transaction_scope())
                .then_some(ClaimMode::Shared)
        })
    }

    /// Inside a transaction, take `database`'s transaction lock (kept until the transaction
    /// ends): transactions that write a database, or read it with locks, run one at a time
    /// (see [`crate::session::transaction`], "Locks").
    pub(crate) fn lock_database(&self, database: &str) -> Result<(), SqlError> {
        if !self.in_transaction_scope() {
            return Ok(());
        }
        let key = (format!("{}/", database.to_lowercase()), String::new());
        let owner = self.info.connection_id;
        if self
            .engine
            .row_locks
            .lock(owner, key.clone(), self.lock_wait_timeout())?
        {
            self.state.held_locks.lock().push(key);
        }
        Ok(())
    }

    /// Before a locking read runs: claim the leaves it reads (see
    /// `myriad_storage::collect_leaves`), running it without output until it claims no new
    /// one. In a transaction the claims are the transaction's, until it ends; outside one
    /// they belong to the statement returned, which the caller keeps until the read ends.
    pub(crate) fn claim_locked_reads(
        &self,
        plan: &TableSelect,
        mode: ClaimMode,
        params: &[Value],
    ) -> Result<Option<myriad_storage::Statement>, SqlError> {
        let storage = self.engine.catalog.storage();
        let mut own = (!self.in_transaction_scope()).then(|| {
            let mut stmt = storage.begin();
            stmt.set_lock_wait_timeout(self.lock_wait_timeout());
            stmt
        });
        if own.is_none() {
            let tables =
                std::iter::once(&plan.source.table).chain(plan.joins.iter().map(|j| &j.table));
            for table in tables {
                self.lock_database(&table.database)?;
            }
        }
        loop {
            let leaves = {
                let collecting = myriad_storage::collect_leaves();
                let mut env = self.env(params);
                let mut nowhere = crate::row_sink::Discard;
                env.out = Some(&mut nowhere);
                Session::select_table(plan, &mut env)?;
                collecting.finish()
            };
            let claimed = match own.as_mut() {
                Some(stmt) => stmt.claim_pages(&leaves, mode),
                None => {
                    let mut guard = self.state.transaction.storage.lock();
                    let stmt = guard.get_or_insert_with(|| storage.begin());
                    stmt.set_lock_wait_timeout(self.lock_wait_timeout());
                    stmt.claim_pages(&leaves, mode)
                }
            };
            if !claimed.map_err(crate::catalog::storage_error)? {
                return Ok(own);
            }
        }
    }

    /// After a statement failed: whether it failed on a page another statement holds, or
    /// on one that changed after it began reading (see `myriad_storage`'s page claims). Then
    /// it waited as asked, its changes are undone (its claims stay in a transaction), and
    /// it runs again. Only INSERT, UPDATE and DELETE run again: a LOAD DATA cannot (a
    /// client's file is read once), and its error stays (1205).
    pub(crate) fn retry_after_conflict(
        &self,
        stmt: &Stmt,
        failed: &SqlError,
    ) -> Result<bool, SqlError> {
        let Some(retry) = myriad_storage::take_retry() else {
            return Ok(false);
        };
        let reruns = matches!(stmt, Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_));
        if failed.code != ER_LOCK_WAIT_TIMEOUT.code || !reruns {
            return Ok(false);
        }
        let Retry::Wait(busy) = retry else {
            return Ok(true);
        };
        if self.in_transaction_scope() {
            if let Some(own) = self.state.transaction.storage.lock().as_mut() {
                own.wait_claim(busy)
                    .map_err(crate::catalog::storage_error)?;
                return Ok(true);
            }
        }
        let storage = self.engine.catalog.storage();
        storage
            .wait_page(busy, self.lock_wait_timeout())
            .map_err(crate::catalog::storage_error)?;
        Ok(true)
    }

    /// BEGIN, COMMIT, ROLLBACK and the savepoint statements.
    pub(crate) fn transaction_statement(&mut self, stmt: &Stmt) -> Result<(), SqlError> {
        match stmt {
            Stmt::Begin {
                read_only,
                consistent_snapshot,
            } => {
                // BEGIN commits the transaction already open and lets go of the table
                // locks, as MariaDB does.
                let committed = self.end_transaction(true);
                self.release_table_locks();
                committed?;
                self.state.in_transaction = true;
                self.state.transaction.read_only = *read_only;
                if *consistent_snapshot && self.transaction_snapshot() {
                    self.state.snapshot_slot.take();
                }
            }
            Stmt::Commit { chain } | Stmt::Rollback { chain } => {
                let read_only = self.state.transaction.read_only;
                let ended = self.end_transaction(matches!(stmt, Stmt::Commit { .. }));
                if *chain {
                    self.state.in_transaction = true;
                    self.state.transaction.read_only = read_only;
                }
                ended?;
            }
            // Outside a transaction a savepoint is accepted and kept nowhere, as in MariaDB.
            Stmt::Savepoint(name) if self.in_transaction_scope() => {
                self.state
                    .transaction
                    .savepoint(self.engine.catalog.storage(), name);
                self.state.in_transaction = true;
            }
            Stmt::Savepoint(_) => {}
            Stmt::RollbackToSavepoint(name) => {
                self.state.transaction.back_to_savepoint(name, false)?
            }
            Stmt::ReleaseSavepoint(name) => self.state.transaction.back_to_savepoint(name, true)?,
            _ => {}
        }
        Ok(())
    }

    /// End the open transaction (if any): commit or roll back its writes, forget its
    /// savepoints, let go of its locks, and then (a commit) wait until it is durable.
    pub(crate) fn end_transaction(&mut self, commit: bool) -> Result<(), SqlError> {
        if self.state.in_transaction {
            self.state.next_transaction = Default::default();
        }
        let ended = self.state.transaction.end(commit);
        self.state.in_transaction = false;
        self.state.snapshot_slot.release();
        let owner = self.info.connection_id;
        (self.engine.metadata_locks).release(owner, &mut self.state.held_tables);
        let mut held = self.state.held_locks.lock();
        self.engine.row_locks.release(owner, &mut held);
        drop(held);
        self.state.bump_written_tables();
        self.state.written_tables.clear();
        // Durable once no lock is held: transactions waiting for them commit meanwhile,
        // and their log flushes are shared.
        match ended? {
            Some(committing) => committing.wait().map_err(crate::catalog::storage_error),
            None => Ok(()),
        }
    }
}
