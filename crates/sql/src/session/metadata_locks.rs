//! Metadata locks: a table an open transaction used keeps its definition until the
//! transaction ends, as MariaDB's MDL does.
//!
//! Each statement of a transaction (BEGIN, or autocommit off) registers the tables it reads
//! or writes under its connection; the transaction's end lets them all go. A statement
//! that changes or drops a table's definition (ALTER, DROP, TRUNCATE, RENAME, CREATE /
//! DROP INDEX, DROP DATABASE) first waits until no other connection's transaction holds
//! one of its tables, at most `lock_wait_timeout` seconds (then 1205, as MariaDB), in
//! slices so that KILL and max_statement_time end the wait. It holds nothing itself while
//! it waits (its own transaction committed implicitly before), and holders never wait for
//! a metadata lock, so no cycle of waits can form.
//!
//! Not built: the tables of subqueries are not held (only those a statement names), and a
//! waiting DDL does not hold back transactions that start using the table
//! after it began to wait (MariaDB queues them behind it), so a table in constant use can
//! keep a DDL waiting until its timeout.

use crate::error::SqlError;
use crate::plan::Stmt;
use myriad_types::errors::ER_LOCK_WAIT_TIMEOUT;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A table: database and name (as the catalog spells them; names are case-sensitive).
pub type TableKey = (String, String);

/// What a DDL statement changes: some tables, or every table of a database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DdlTarget {
    Tables(Vec<TableKey>),
    Database(String),
}

impl DdlTarget {
    fn covers(&self, key: &TableKey) -> bool {
        match self {
            DdlTarget::Tables(tables) => tables.contains(key),
            DdlTarget::Database(db) => key.0 == *db,
        }
    }
}

/// The key of table `name` of `database`.
pub fn table_key(database: &str, name: &str) -> TableKey {
    (database.to_string(), name.to_string())
}

/// Call `f` with each table a statement names (its subqueries' tables are not held yet).
pub fn for_used_tables(stmt: &Stmt, mut f: impl FnMut(&str, &str)) {
    match stmt {
        Stmt::SelectTable(plan) => {
            // A derived or information_schema table is no stored table to hold.
            for t in std::iter::once(&plan.source.table).chain(plan.joins.iter().map(|j| &j.table))
            {
                if t.made.is_none() {
                    f(&t.database, &t.name);
                }
            }
        }
        Stmt::Insert(p) => f(&p.table.database, &p.table.name),
        Stmt::Update(p) => f(&p.source.table.database, &p.source.table.name),
        Stmt::Delete(p) => f(&p.source.table.database, &p.source.table.name),
        _ => {}
    }
}

/// What `stmt` changes the definition of, if it is DDL over tables.
pub fn ddl_target(stmt: &Stmt) -> Option<DdlTarget> {
    Some(DdlTarget::Tables(match stmt {
        Stmt::CreateTable { database, name, .. }
        | Stmt::Truncate { database, name }
        | Stmt::AlterIndexes { database, name, .. } => vec![table_key(database, name)],
        Stmt::AlterTable { table, .. } => vec![table_key(&table.database, &table.name)],
        Stmt::DropTables { tables, .. } => tables.iter().map(|(d, t)| table_key(d, t)).collect(),
        Stmt::RenameTables { renames } => renames
            .iter()
            .flat_map(|((d1, t1), (d2, t2))| [table_key(d1, t1), table_key(d2, t2)])
            .collect(),
        Stmt::DropDatabase { name, .. } => return Some(DdlTarget::Database(name.clone())),
        _ => return None,
    }))
}

/// The server-wide table of metadata locks (one per engine).
#[derive(Default)]
pub struct MetadataLocks {
    /// Each used table and the connections whose open transactions used it.
    holders: Mutex<HashMap<TableKey, Vec<u32>>>,
    released: Condvar,
}

impl MetadataLocks {
    /// Connection `owner`'s transaction uses `key`: returns whether it is new to it.
    pub fn hold(&self, owner: u32, key: &TableKey) -> bool {
        let mut holders = self.holders.lock();
        let list = holders.entry(key.clone()).or_default();
        if list.contains(&owner) {
            return false;
        }
        list.push(owner);
        true
    }

    /// `owner`'s transaction ended: it lets go of `keys`.
    pub fn release(&self, owner: u32, keys: &mut Vec<TableKey>) {
        if keys.is_empty() {
            return;
        }
        let mut holders = self.holders.lock();
        for key in keys.drain(..) {
            if let Some(list) = holders.get_mut(&key) {
                list.retain(|&o| o != owner);
                if list.is_empty() {
                    holders.remove(&key);
                }
            }
        }
        drop(holders);
        self.released.notify_all();
    }

    /// Wait until no connection but `owner` holds a table of `target`, at most `timeout`.
    pub fn wait_exclusive(
        &self,
        owner: u32,
        target: &DdlTarget,
        timeout: Duration,
    ) -> Result<(), SqlError> {
        let deadline = Instant::now() + timeout;
        let mut holders = self.holders.lock();
        loop {
            let busy = holders
                .iter()
                .any(|(key, list)| target.covers(key) && list.iter().any(|&o| o != owner));
            if !busy {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(SqlError::new(
                    ER_LOCK_WAIT_TIMEOUT,
                    "Lock wait timeout exceeded; try restarting transaction",
                ));
            }
            // In slices, so that KILL, max_statement_time or a client that left ends the wait.
            let slice_end = deadline.min(Instant::now() + crate::interrupt::WAIT_SLICE);
            myriad_cache::long_wait::run(|| {
                let _ = self.released.wait_until(&mut holders, slice_end);
            });
            crate::interrupt::check()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn ddl_waits_for_other_transactions_only() {
        let locks = Arc::new(MetadataLocks::default());
        let t = table_key("d", "t");
        assert!(locks.hold(1, &t));
        assert!(!locks.hold(1, &t));
        let target = DdlTarget::Tables(vec![t.clone()]);
        // Its own transaction does not hold a DDL back; another's does, until it ends.
        locks.wait_exclusive(1, &target, Duration::ZERO).unwrap();
        let err = locks
            .wait_exclusive(2, &target, Duration::from_millis(50))
            .unwrap_err();
        assert_eq!(err.code, ER_LOCK_WAIT_TIMEOUT.code);
        let other = DdlTarget::Tables(vec![table_key("d", "u")]);
        locks.wait_exclusive(2, &other, Duration::ZERO).unwrap();
        let db = DdlTarget::Database("d".into());
        assert!(locks.wait_exclusive(2, &db, Duration::ZERO).is_err());
        let waiter = {
            let locks = Arc::clone(&locks);
            std::thread::spawn(move || locks.wait_exclusive(2, &target, Duration::from_secs(20)))
        };
        std::thread::sleep(Duration::from_millis(50));
        locks.release(1, &mut vec![t]);
        waiter.join().unwrap().unwrap();
        locks.wait_exclusive(2, &db, Duration::ZERO).unwrap();
    }
}
