//! Running the transaction statements (BEGIN, COMMIT, ROLLBACK, savepoints), the storage
//! statement each write runs in, and the table locks of `FOR UPDATE` / `FOR SHARE` (what a
//! session keeps of its transaction, and why, is in [`crate::session::transaction`]).

use crate::error::SqlError;
use crate::plan::tables::TableSelect;
use crate::plan::Stmt;
use crate::session::transaction::{Isolation, WriteScope};
use crate::Session;
use myriad_types::errors::ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION;

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
        self.view(!self.select_locks(plan))
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

    /// Inside a transaction, take `database`'s transaction lock (kept until the transaction
    /// ends): transactions that write a database run their writes one transaction at a
    /// time (see [`crate::session::transaction`], "Locks").
    pub(crate) fn lock_database(&self, database: &str) -> Result<(), SqlError> {
        if !self.in_transaction_scope() {
            return Ok(());
        }
        self.hold_lock((format!("{}/", database.to_lowercase()), String::new()))
    }

    /// Take `key` in the session lock table until the transaction ends (waiting at most
    /// innodb_lock_wait_timeout for another session that holds it).
    pub(crate) fn hold_lock(&self, key: crate::session::row_locks::RowKey) -> Result<(), SqlError> {
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

    /// The storage statement for a statement that writes (`write`) or takes locks only, in
    /// `database`.
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

    /// Whether a SELECT locks its tables: `FOR UPDATE` / `FOR SHARE`, or any SELECT of a
    /// transaction at SERIALIZABLE (InnoDB reads it as `LOCK IN SHARE MODE`).
    pub(crate) fn select_locks(&self, plan: &crate::plan::tables::TableSelect) -> bool {
        plan.locking
            || (self.state.isolation() == Isolation::Serializable && self.in_transaction_scope())
    }

    /// Lock every table of a `SELECT ... FOR UPDATE` / `FOR SHARE` for this session's
    /// transaction (outside one: wait until no transaction holds them, and let go).
    pub(crate) fn lock_tables_read(
        &self,
        plan: &crate::plan::tables::TableSelect,
    ) -> Result<(), SqlError> {
        let storage = self.engine.catalog.storage();
        // The scope takes the first table's database lock; the joined tables' come next.
        let mut scope = self.write_scope(&plan.source.table.database, false)?;
        let tables = std::iter::once(&plan.source.table).chain(plan.joins.iter().map(|j| &j.table));
        for (n, table) in tables.enumerate() {
            if n > 0 {
                self.lock_database(&table.database)?;
            }
            table
                .open(storage)?
                .lock_for_write(scope.stmt())
                .map_err(crate::catalog::storage_error)?;
        }
        scope.finish()
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
        self.state.bump_written_tables();
        self.state.written_tables.clear();
        crate::exec::write::release_row_locks(self);
        // Durable once no lock is held: transactions waiting for them commit meanwhile,
        // and their log flushes are shared.
        match ended? {
            Some(committing) => committing.wait().map_err(crate::catalog::storage_error),
            None => Ok(()),
        }
    }
}
