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
//! **LOCK TABLES.** The same table keeps the table locks of LOCK TABLES: a connection's
//! READ or WRITE lock of a table. Taking them waits, all of a statement's tables at once,
//! until no other connection holds a lock that conflicts (WRITE with any, READ with a
//! WRITE) and no other connection's transaction used the table (for WRITE) or wrote it (for
//! READ), as MariaDB's MDL makes LOCK TABLES wait. Other connections' statements then
//! wait, before they start, for a WRITE lock of a table they use and for a READ lock of a
//! table they write; a DDL statement waits for either. The check costs a statement one
//! atomic load while no connection holds a table lock. Like a transaction's tables, the
//! holder never waits for a metadata lock while it holds them (a new LOCK TABLES lets go of
//! its locks first), so these waits close no cycle among themselves.
//!
//! Not built: the tables of subqueries are not held (only those a statement names), and a
//! waiting DDL does not hold back transactions that start using the table
//! after it began to wait (MariaDB queues them behind it), so a table in constant use can
//! keep a DDL waiting until its timeout.

use crate::error::SqlError;
use crate::plan::Stmt;
use myriad_types::errors::ER_LOCK_WAIT_TIMEOUT;
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// Call `f` with each table a statement names, and whether it writes it (a locking read
/// counts as one); its subqueries' tables are not held yet.
pub fn for_used_tables(stmt: &Stmt, mut f: impl FnMut(&str, &str, bool)) {
    match stmt {
        Stmt::SelectTable(plan) => {
            // A derived or information_schema table is no stored table to hold.
            for t in std::iter::once(&plan.source.table).chain(plan.joins.iter().map(|j| &j.table))
            {
                if t.made.is_none() {
                    f(&t.database, &t.name, plan.locking.is_some());
                }
            }
        }
        Stmt::Insert(p) => f(&p.table.database, &p.table.name, true),
        Stmt::LoadData(p) => f(&p.table.database, &p.table.name, true),
        Stmt::Update(p) => f(&p.source.table.database, &p.source.table.name, true),
        Stmt::Delete(p) => f(&p.source.table.database, &p.source.table.name, true),
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
        Stmt::DropViews { names, .. } => names.iter().map(|(d, t)| table_key(d, t)).collect(),
        Stmt::CreateView(view) => vec![table_key(&view.database, &view.name)],
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
    holders: Mutex<Holders>,
    released: Condvar,
    /// Connections holding LOCK TABLES locks: while none do, statements skip `locked`.
    lockers: AtomicUsize,
}

#[derive(Default)]
struct Holders {
    /// Each table open transactions used: the connections, and whether each wrote it.
    used: HashMap<TableKey, Vec<(u32, bool)>>,
    /// Each table LOCK TABLES locked: the connections, and whether each lock is WRITE.
    locked: HashMap<TableKey, Vec<(u32, bool)>>,
}

impl Holders {
    /// Whether a connection other than `owner` holds something of `key` that a use by
    /// `owner` (a write or not) conflicts with; `for_lock` adds the transactions' uses,
    /// which a statement never waits for but LOCK TABLES does.
    fn conflicts(&self, owner: u32, key: &TableKey, write: bool, for_lock: bool) -> bool {
        let other = |list: Option<&Vec<(u32, bool)>>| {
            list.is_some_and(|l| l.iter().any(|&(o, w)| o != owner && (w || write)))
        };
        other(self.locked.get(key)) || (for_lock && other(self.used.get(key)))
    }
}

impl MetadataLocks {
    /// Connection `owner`'s transaction uses `key` (and writes it, with `wrote`): returns
    /// whether the table is new to it.
    pub fn hold(&self, owner: u32, key: &TableKey, wrote: bool) -> bool {
        let mut holders = self.holders.lock();
        let list = holders.used.entry(key.clone()).or_default();
        if let Some(entry) = list.iter_mut().find(|(o, _)| *o == owner) {
            entry.1 |= wrote;
            return false;
        }
        list.push((owner, wrote));
        true
    }

    /// `owner`'s transaction ended: it lets go of `keys`.
    pub fn release(&self, owner: u32, keys: &mut Vec<(TableKey, bool)>) {
        if keys.is_empty() {
            return;
        }
        let mut holders = self.holders.lock();
        for (key, _) in keys.drain(..) {
            if let Some(list) = holders.used.get_mut(&key) {
                list.retain(|&(o, _)| o != owner);
                if list.is_empty() {
                    holders.used.remove(&key);
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
        self.wait_until(timeout, |holders| {
            let busy = |map: &HashMap<TableKey, Vec<(u32, bool)>>| {
                map.iter()
                    .any(|(key, list)| target.covers(key) && list.iter().any(|&(o, _)| o != owner))
            };
            !busy(&holders.used) && !busy(&holders.locked)
        })
        .map(drop)
    }

    /// LOCK TABLES: wait until `owner` may lock every table of `tables` (WRITE where its
    /// flag says so), then lock them all, at most `timeout`.
    pub fn lock_tables(
        &self,
        owner: u32,
        tables: &[(TableKey, bool)],
        timeout: Duration,
    ) -> Result<(), SqlError> {
        let mut holders = self.wait_until(timeout, |holders| {
            !tables
                .iter()
                .any(|(key, write)| holders.conflicts(owner, key, *write, true))
        })?;
        for (key, write) in tables {
            let list = holders.locked.entry(key.clone()).or_default();
            match list.iter_mut().find(|(o, _)| *o == owner) {
                Some(entry) => entry.1 |= *write,
                None => list.push((owner, *write)),
            }
        }
        self.lockers.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    /// UNLOCK TABLES (or the end of the connection): `owner` lets go of its table locks.
    pub fn unlock_tables(&self, owner: u32) {
        let mut holders = self.holders.lock();
        holders.locked.retain(|_, list| {
            list.retain(|&(o, _)| o != owner);
            !list.is_empty()
        });
        drop(holders);
        self.lockers.fetch_sub(1, Ordering::SeqCst);
        self.released.notify_all();
    }

    /// `owner` no longer locks `key` (its table was dropped).
    pub fn forget_table_lock(&self, owner: u32, key: &TableKey) {
        let mut holders = self.holders.lock();
        if let Some(list) = holders.locked.get_mut(key) {
            list.retain(|&(o, _)| o != owner);
            if list.is_empty() {
                holders.locked.remove(key);
            }
        }
    }

    /// Whether some connection holds table locks (then statements call [`Self::wait_use`]).
    pub fn any_table_locks(&self) -> bool {
        self.lockers.load(Ordering::SeqCst) > 0
    }

    /// Before a statement of `owner` that uses `tables` (writes those flagged): wait until
    /// no other connection's table lock conflicts, at most `timeout`.
    pub fn wait_use(
        &self,
        owner: u32,
        tables: &[(TableKey, bool)],
        timeout: Duration,
    ) -> Result<(), SqlError> {
        self.wait_until(timeout, |holders| {
            !tables
                .iter()
                .any(|(key, write)| holders.conflicts(owner, key, *write, false))
        })
        .map(drop)
    }

    /// Wait until `free` holds of the holders, at most `timeout` (then 1205, as MariaDB), in
    /// slices so that KILL, max_statement_time or a client that left ends the wait.
    fn wait_until(
        &self,
        timeout: Duration,
        free: impl Fn(&Holders) -> bool,
    ) -> Result<MutexGuard<'_, Holders>, SqlError> {
        let deadline = Instant::now() + timeout;
        let mut holders = self.holders.lock();
        loop {
            if free(&holders) {
                return Ok(holders);
            }
            if Instant::now() >= deadline {
                return Err(SqlError::new(
                    ER_LOCK_WAIT_TIMEOUT,
                    "Lock wait timeout exceeded; try restarting transaction",
                ));
            }
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
        assert!(locks.hold(1, &t, false));
        assert!(!locks.hold(1, &t, true));
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
        locks.release(1, &mut vec![(t, true)]);
        waiter.join().unwrap().unwrap();
        locks.wait_exclusive(2, &db, Duration::ZERO).unwrap();
    }
}
