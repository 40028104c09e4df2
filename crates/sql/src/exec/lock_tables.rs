//! LOCK TABLES and UNLOCK TABLES, and what a session holding table locks may do.
//!
//! `LOCK TABLES t1 READ, t2 AS a WRITE` commits the open transaction, lets go of the
//! session's earlier table locks, checks that every table exists (1146) and that no alias
//! is given twice (1066), and then takes all the locks at once, waiting for the other
//! connections as [`crate::session::metadata_locks`] describes (at most
//! `lock_wait_timeout`, then 1205). Until UNLOCK TABLES, BEGIN / START TRANSACTION or the
//! end of the connection, the session may use only what it locked, each under the name
//! it locked it by (its alias, or its own name): another table answers 1100
//! ER_TABLE_NOT_LOCKED, a write to a READ-locked one 1099 ER_TABLE_NOT_LOCKED_FOR_WRITE,
//! as in MariaDB. That covers the tables a statement names and those of its subqueries
//! (matched by name there). DDL needs a WRITE lock of its table, except CREATE TABLE of
//! a new one; a dropped table leaves the locked set. UNLOCK TABLES commits the open
//! transaction when the session held table locks. Statements other than LOCK TABLES
//! inside it commit as autocommit makes them (with `autocommit = 0` they stay in the
//! transaction until COMMIT), as MariaDB does with InnoDB tables.
//!
//! Not built: a table used twice in one statement needs only one lock here (MariaDB asks
//! for one per alias), and `READ LOCAL` is `READ` (InnoDB's meaning).

use crate::error::SqlError;
use crate::exec::ok;
use crate::exec::query_cache::{read_tables, tables_of_exprs, tables_of_query};
use crate::plan::commands::LockItem;
use crate::plan::Stmt;
use crate::result::QueryResult;
use crate::session::metadata_locks::{table_key, TableKey};
use crate::session::LockedTable;
use crate::Session;
use myriad_types::errors::{ER_TABLE_NOT_LOCKED, ER_TABLE_NOT_LOCKED_FOR_WRITE};

/// A table a statement uses: by the name it gives it (None: a subquery's table, matched
/// by its own name), and whether it writes it.
#[derive(Debug, PartialEq)]
struct TableUse {
    key: TableKey,
    alias: Option<String>,
    write: bool,
}

impl Session {
    /// `LOCK TABLES` (its transaction already committed, see `Stmt::commits_implicitly`).
    pub(crate) fn lock_tables(&mut self, items: &[LockItem]) -> Result<QueryResult, SqlError> {
        self.release_table_locks();
        let mut locked: Vec<LockedTable> = Vec::with_capacity(items.len());
        for item in items {
            let database = &item.database;
            if crate::plan::info_schema::is_schema(database) {
                return Err(self.database_denied(database));
            }
            crate::plan::tables::open_ref(
                self.engine.catalog.storage(),
                database,
                &item.name,
                None,
            )?;
            locked.push(LockedTable {
                key: table_key(database, &item.name),
                alias: item.alias.clone().unwrap_or_else(|| item.name.clone()),
                write: item.write,
            });
        }
        let mut keys: Vec<(TableKey, bool)> = Vec::with_capacity(locked.len());
        for l in &locked {
            match keys.iter_mut().find(|(k, _)| *k == l.key) {
                Some((_, write)) => *write |= l.write,
                None => keys.push((l.key.clone(), l.write)),
            }
        }
        let timeout = self.metadata_lock_timeout();
        (self.engine.metadata_locks).lock_tables(self.info.connection_id, &keys, timeout)?;
        self.state.locked_tables = Some(locked);
        // With autocommit off, LOCK TABLES opens the transaction, as the first statement
        // over tables does (UNLOCK TABLES commits it).
        if !self.state.autocommit {
            self.state.in_transaction = true;
        }
        Ok(ok(0))
    }

    /// `UNLOCK TABLES`: commits the open transaction when the session held table locks.
    pub(crate) fn unlock_tables(&mut self) -> Result<QueryResult, SqlError> {
        if self.state.locked_tables.is_some() {
            let committed = self.end_transaction(true);
            self.release_table_locks();
            committed?;
        }
        Ok(ok(0))
    }

    /// Let go of the session's table locks, if it holds any.
    pub(crate) fn release_table_locks(&mut self) {
        if self.state.locked_tables.take().is_some() {
            (self.engine.metadata_locks).unlock_tables(self.info.connection_id);
        }
    }

    /// Before a statement: a session holding table locks may use only what it locked; any
    /// session waits for other sessions' locks of the tables it uses.
    pub(crate) fn check_table_locks(&mut self, stmt: &Stmt) -> Result<(), SqlError> {
        let others = self.engine.metadata_locks.any_table_locks();
        if !others && self.state.locked_tables.is_none() {
            return Ok(());
        }
        let current = self.info.database.as_deref();
        let uses = table_uses(stmt);
        if let Some(locked) = &self.state.locked_tables {
            for (key, write) in ddl_tables(stmt, current) {
                let table = TableUse {
                    alias: Some(key.1.clone()),
                    key,
                    write,
                };
                check_locked(locked, &table)?;
            }
            for table in &uses {
                check_locked(locked, table)?;
            }
        }
        if others && !uses.is_empty() {
            let keys: Vec<(TableKey, bool)> = uses.into_iter().map(|u| (u.key, u.write)).collect();
            let timeout = self.metadata_lock_timeout();
            (self.engine.metadata_locks).wait_use(self.info.connection_id, &keys, timeout)?;
        }
        Ok(())
    }

    /// After a statement succeeded: the tables it dropped leave the locked set.
    pub(crate) fn forget_dropped_locks(&mut self, stmt: &Stmt) {
        let (Some(locked), Stmt::DropTables { tables, .. }) = (&mut self.state.locked_tables, stmt)
        else {
            return;
        };
        for (db, t) in tables {
            let key = table_key(db, t);
            locked.retain(|l| l.key != key);
            (self.engine.metadata_locks).forget_table_lock(self.info.connection_id, &key);
        }
    }
}

/// 1100 unless `locked` holds `table` under its name, 1099 when it writes a READ lock.
fn check_locked(locked: &[LockedTable], table: &TableUse) -> Result<(), SqlError> {
    let named = |l: &&LockedTable| {
        l.key == table.key && table.alias.as_ref().is_none_or(|alias| *alias == l.alias)
    };
    let name = table.alias.as_deref().unwrap_or(&table.key.1);
    let mut found = locked.iter().filter(named).peekable();
    if found.peek().is_none() {
        return Err(SqlError::new(
            ER_TABLE_NOT_LOCKED,
            format!("Table '{name}' was not locked with LOCK TABLES"),
        ));
    }
    if table.write && !found.any(|l| l.write) {
        return Err(SqlError::new(
            ER_TABLE_NOT_LOCKED_FOR_WRITE,
            format!("Table '{name}' was locked with a READ lock and can't be updated"),
        ));
    }
    Ok(())
}

/// The tables whose definition or contents a DDL statement (or SHOW CREATE TABLE) needs
/// locked, and whether it needs them WRITE-locked. CREATE TABLE of a new table needs none.
fn ddl_tables(stmt: &Stmt, current: Option<&str>) -> Vec<(TableKey, bool)> {
    match stmt {
        Stmt::DropTables { tables, .. } => tables
            .iter()
            .map(|(d, t)| (table_key(d, t), true))
            .collect(),
        Stmt::Truncate { database, name } | Stmt::AlterIndexes { database, name, .. } => {
            vec![(table_key(database, name), true)]
        }
        Stmt::AlterTable { table, .. } => vec![(table_key(&table.database, &table.name), true)],
        Stmt::RenameTables { renames } => renames
            .iter()
            .map(|((d, t), _)| (table_key(d, t), true))
            .collect(),
        Stmt::ShowCreateTable {
            database, table, ..
        } => database
            .as_deref()
            .or(current)
            .map(|db| vec![(table_key(db, table), false)])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The stored tables `stmt` reads or writes: those it names with the names it gives them,
/// then those of its subqueries and sources.
fn table_uses(stmt: &Stmt) -> Vec<TableUse> {
    let mut uses = Vec::new();
    let mut named = |t: &crate::plan::tables::TableRef, write: bool| {
        if t.made.is_none() {
            uses.push(TableUse {
                key: table_key(&t.database, &t.name),
                alias: Some(t.alias.to_string()),
                write,
            });
        }
    };
    let reads = match stmt {
        Stmt::SelectTable(plan) => {
            named(&plan.source.table, plan.locking.is_some());
            for join in &plan.joins {
                named(&join.table, plan.locking.is_some());
            }
            read_tables(stmt)
        }
        Stmt::Select(_) => read_tables(stmt),
        Stmt::Do(exprs) => tables_of_exprs(exprs),
        Stmt::Insert(p) => {
            named(&p.table, true);
            let mut list = tables_of_exprs(p.rows.iter().flatten().flatten()).unwrap_or_default();
            if let Some(query) = &p.select {
                list.extend(tables_of_query(query.as_ref()).unwrap_or_default());
            }
            Some(list)
        }
        Stmt::LoadData(p) => {
            named(&p.table, true);
            None
        }
        Stmt::Update(p) => {
            named(&p.source.table, true);
            let exprs = p
                .source
                .filter
                .iter()
                .chain(p.assignments.iter().map(|(_, e)| e));
            tables_of_exprs(exprs)
        }
        Stmt::Delete(p) => {
            named(&p.source.table, true);
            tables_of_exprs(p.source.filter.iter())
        }
        Stmt::CreateTable { like, select, .. } => {
            let mut list: Vec<(String, String)> =
                like.iter().map(|(d, t)| (d.clone(), t.clone())).collect();
            if let Some((query, _)) = select {
                list.extend(tables_of_query(query.as_ref()).unwrap_or_default());
            }
            Some(list)
        }
        _ => None,
    };
    for (db, t) in reads.unwrap_or_default() {
        let key = table_key(&db, &t);
        if crate::plan::info_schema::is_schema(&db) || uses.iter().any(|u| u.key == key) {
            continue;
        }
        uses.push(TableUse {
            key,
            alias: None,
            write: false,
        });
    }
    uses
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(db: &str, t: &str, alias: &str, write: bool) -> LockedTable {
        LockedTable {
            key: table_key(db, t),
            alias: alias.into(),
            write,
        }
    }

    fn table(t: &str, alias: Option<&str>, write: bool) -> TableUse {
        TableUse {
            key: table_key("d", t),
            alias: alias.map(str::to_string),
            write,
        }
    }

    #[test]
    fn a_locked_session_uses_what_it_locked_by_the_name_it_locked() {
        let locked = [lock("d", "t", "t", false), lock("d", "t", "w", true)];
        let code = |u: TableUse| check_locked(&locked, &u).err().map(|e| e.code);
        assert_eq!(code(table("t", Some("t"), false)), None);
        assert_eq!(code(table("t", Some("t"), true)), Some(1099));
        assert_eq!(code(table("t", Some("w"), true)), None);
        assert_eq!(code(table("t", Some("x"), false)), Some(1100));
        assert_eq!(code(table("u", Some("u"), false)), Some(1100));
        // A subquery's table matches any lock of it; a write needs a WRITE one.
        assert_eq!(code(table("t", None, true)), None);
        let read_only = [lock("d", "t", "t", false)];
        assert_eq!(
            check_locked(&read_only, &table("t", None, true)).map_err(|e| e.code),
            Err(1099)
        );
    }
}
