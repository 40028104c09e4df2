//! Privilege checks (the account statements themselves are in `accounts`).
//!
//! Before a statement runs, `Session::check_privileges` works out what it needs (a
//! privilege on each table it reads or writes, on a database, or a global one) and checks
//! it against the grants of the session's account, with MariaDB's errors: 1142 for a
//! table, 1044 for a database, 1227 for a global privilege. The grants are cached in the
//! session and read again only when an account or a grant has changed since (one atomic
//! load per statement); an account holding every global privilege passes at once, so root
//! pays nothing more on the hot path.
//!
//! A statement whose tables cannot all be told (a subquery form the walk does not know)
//! needs the global privilege: the check fails closed.
//!
//! Column privileges: a table's privilege of a kind that is also held on some of its
//! columns passes the table check; once every table has passed, the columns the statement
//! uses (see [`super::column_uses`]) are checked, 1143 naming the first one missing. A
//! statement whose columns cannot be told needs the table's privilege (1142).

use crate::catalog::privileges::{Grants, Privs};
use crate::error::SqlError;
use crate::exec::column_uses::{column_uses, ColumnUses};
use crate::plan::roles::RoleStmt;
use crate::plan::{AssignTarget, SetScope, Stmt};
use crate::value::Value;
use crate::Session;
use myriad_types::errors::{
    ER_COLUMNACCESS_DENIED_ERROR, ER_DBACCESS_DENIED_ERROR, ER_MUST_CHANGE_PASSWORD,
    ER_OPTION_PREVENTS_STATEMENT, ER_SPECIFIC_ACCESS_DENIED_ERROR, ER_TABLEACCESS_DENIED_ERROR,
};
use std::sync::Arc;

/// What a statement needs before it runs.
enum Need<'s> {
    /// Every privilege of `privs` on table `db`.`table`.
    Table(&'s str, &'s str, Privs),
    /// An INSERT's or UPDATE's privileges on its table, as [`Need::Table`], but INSERT and
    /// UPDATE pass when held on some of its columns ([`Need::WriteColumns`] follows).
    Write(&'s str, &'s str, Privs),
    /// Some privilege on the table or on one of its columns (SHOW COLUMNS, SHOW INDEX).
    SeeTable(&'s str, &'s str),
    /// Some table-level privilege on the table (SHOW CREATE TABLE and the like).
    AnyOnTable(&'s str, &'s str),
    /// `privs` on database `db` itself (CREATE / DROP DATABASE).
    Database(&'s str, Privs),
    /// Some privilege in database `db` (USE).
    AnyIn(&'s str),
    /// SHOW TABLES: some privilege in `db`, or any global privilege (which then lists
    /// nothing, as in MariaDB).
    ListIn(&'s str),
    /// One of `privs` at global level.
    Global(Privs),
    /// SELECT on each of these tables (`db`, `table`).
    Reads(Vec<(String, String)>),
    /// SELECT at table level, held by the definer (user, host) of the SQL SECURITY
    /// DEFINER view they are read through, on each of these tables.
    ReadsAs(Vec<(String, String)>, Arc<(String, String)>),
    /// SELECT on the columns of `db`.`table` the statement reads (an UPDATE's or DELETE's
    /// WHERE, new values and ORDER BY, an ON DUPLICATE KEY UPDATE's values): the table's,
    /// or the column's own (1143 names the first one missing).
    ReadColumns(&'s str, &'s str),
    /// `privs` (INSERT or UPDATE) on each column of `db`.`table` the statement writes,
    /// where the table's is not held (the table need let column privileges of the kind
    /// pass): 1143 names the first one missing.
    WriteColumns(&'s str, &'s str, Privs),
}

impl Session {
    /// The grants of this session's account (none when the account has gone).
    pub(crate) fn grants(&mut self) -> Arc<Grants> {
        let accounts = &self.engine.accounts;
        if let Some((generation, grants)) = &self.state.grants {
            if *generation == accounts.generation() {
                return Arc::clone(grants);
            }
        }
        let (grants, generation) = accounts.grants_of(&self.info.user, &self.info.host);
        let mut grants = grants.unwrap_or_default();
        // The enabled role counts while the account still holds it: a REVOKE of the role
        // takes its privileges from sessions that enabled it.
        if let Some(role) = self.state.active_role.clone() {
            let own = self.own_account();
            if accounts.holds_role((&own.0, &own.1), &role) {
                grants = grants.with(&self.role_grants(&role));
            }
        }
        let grants = Arc::new(grants);
        self.state.grants = Some((generation, Arc::clone(&grants)));
        grants
    }

    /// The grants the statement's check read (see [`Session::check_privileges`]), for the
    /// statements that look at them while they run (KILL, SHOW PROCESSLIST, SHOW
    /// DATABASES).
    pub(crate) fn checked_grants(&self) -> Arc<Grants> {
        self.state.checked_grants()
    }

    /// Fail with MariaDB's error when the account may not run `stmt`. With `passed`, the
    /// statement's privileges passed already for the same grants (a prepared statement run
    /// again): only read_only, which SET GLOBAL changes at any time, is looked at.
    pub(crate) fn check_privileges(&mut self, stmt: &Stmt, passed: bool) -> Result<(), SqlError> {
        self.refuse_if_password_expired(stmt)?;
        // information_schema is read-only to every account, root included.
        if changes_information_schema(stmt, self.info.database.as_deref()) {
            return Err(self.database_denied(crate::plan::info_schema::SCHEMA));
        }
        if writes_made_table(stmt) {
            return Err(SqlError::new(
                myriad_types::errors::ER_NOT_SUPPORTED_YET,
                "This version of myriad doesn't yet support 'writing the mysql schema's \
                 account tables (use CREATE USER, ALTER USER, GRANT and REVOKE)'",
            ));
        }
        let grants = self.grants();
        if grants.is_all() {
            return Ok(());
        }
        // read_only is refused before any privilege is checked, as in MariaDB.
        if writes(stmt)
            && !grants.global.contains(Privs::READ_ONLY_ADMIN)
            && self.engine.global_variable("read_only") == Some(Value::Int(1))
        {
            return Err(SqlError::new(
                ER_OPTION_PREVENTS_STATEMENT,
                "The MariaDB server is running with the --read-only option so it cannot \
                 execute this statement",
            ));
        }
        if passed {
            return Ok(());
        }
        let mut needs = Vec::new();
        needs_of(stmt, self.info.database.as_deref(), &mut needs);
        // As MariaDB: every table's privilege first (some column privilege of the kind
        // passes there), then the columns (walked only if a need looks at them).
        for need in &needs {
            let reader = match need {
                Need::ReadsAs(_, definer) => Some(definer.as_ref()),
                _ => None,
            };
            self.check_need(&grants, need)
                .map_err(|e| self.denied_behind_view(stmt, e, reader))?;
        }
        let uses = std::cell::OnceCell::new();
        for need in &needs {
            self.check_column_need(&grants, need, stmt, &uses)?;
        }
        Ok(())
    }

    /// With the password expired at login, every statement but SET (of variables, names,
    /// a password, a transaction's characteristics) fails with 1820, as in MariaDB.
    pub(crate) fn refuse_if_password_expired(&self, stmt: &Stmt) -> Result<(), SqlError> {
        let set = matches!(
            stmt,
            Stmt::Set(_)
                | Stmt::SetNames { .. }
                | Stmt::SetCharacterSet(_)
                | Stmt::SetTransaction { .. }
                | Stmt::SetPassword { .. }
        );
        match set {
            true => Ok(()),
            false => self.refuse_in_password_sandbox(),
        }
    }

    /// 1820 while the session's password is expired (see
    /// [`Session::refuse_if_password_expired`]): for the commands that are no statement
    /// (COM_INIT_DB, COM_FIELD_LIST).
    pub(crate) fn refuse_in_password_sandbox(&self) -> Result<(), SqlError> {
        match self.state.password_expired {
            true => Err(SqlError::new(
                ER_MUST_CHANGE_PASSWORD,
                "You must SET PASSWORD before executing this statement",
            )),
            false => Ok(()),
        }
    }

    /// Fail with 1142 unless the account holds some privilege on `db`.`table`: what
    /// COM_FIELD_LIST needs to list a table's columns.
    pub(crate) fn check_table_visible(&mut self, db: &str, table: &str) -> Result<(), SqlError> {
        let grants = self.grants();
        if grants.is_all() {
            return Ok(());
        }
        self.check_need(&grants, &Need::AnyOnTable(db, table))
    }

    /// 1044 for database `db`, naming the account as MariaDB does: its user and the host
    /// pattern of its account entry ('u'@'%'), not the connection's host.
    pub(crate) fn database_denied(&self, db: &str) -> SqlError {
        let (user, host) = (&self.info.user, &self.info.host);
        let pattern = self.engine.accounts.matching_host(user, host);
        database_denied(user, pattern.as_deref().unwrap_or(host), db)
    }

    /// Check one need at table level and above: column needs are left to
    /// [`Session::check_column_need`].
    fn check_need(&self, grants: &Grants, need: &Need) -> Result<(), SqlError> {
        let (user, host) = (&self.info.user, &self.info.host);
        match *need {
            Need::Table(db, table, privs) => {
                let missing = privs.without(grants.on_table(db, table));
                if let Some(name) = missing.names().first() {
                    return Err(table_denied(name, user, host, db, table));
                }
            }
            Need::Write(db, table, privs) => {
                let missing = privs.without(grants.on_table(db, table));
                // INSERT and UPDATE held on some columns pass here; WriteColumns checks
                // the columns written.
                let on_columns = grants.column_kinds(db, table);
                for name in missing.names() {
                    let p = Privs::named(name).unwrap_or(Privs::NONE);
                    if !on_columns.contains(p) || !Privs::INSERT.union(Privs::UPDATE).contains(p) {
                        return Err(table_denied(name, user, host, db, table));
                    }
                }
            }
            Need::SeeTable(db, table) => {
                if !grants.any_on_table_or_column(db, table) {
                    return Err(table_denied("SELECT", user, host, db, table));
                }
            }
            Need::AnyOnTable(db, table) => {
                if !grants.any_on_table(db, table) {
                    return Err(table_denied("SELECT", user, host, db, table));
                }
            }
            Need::Database(db, privs) => {
                if !grants.in_database(db).contains(privs) {
                    return Err(self.database_denied(db));
                }
            }
            Need::AnyIn(db) => {
                if !grants.any_in_database(db) {
                    return Err(self.database_denied(db));
                }
            }
            Need::ListIn(db) => {
                if !grants.any_in_database(db) && grants.global.without(Privs::GRANT).is_empty() {
                    return Err(self.database_denied(db));
                }
            }
            Need::Global(privs) => {
                if !grants.global.intersects(privs) {
                    return Err(global_denied(privs));
                }
            }
            Need::Reads(ref tables) => {
                // SELECT on the table, or on some of its columns (checked after).
                for (db, table) in tables {
                    let held = grants
                        .on_table(db, table)
                        .union(grants.column_kinds(db, table));
                    if !held.contains(Privs::SELECT) {
                        return Err(table_denied("SELECT", user, host, db, table));
                    }
                }
            }
            Need::ReadsAs(ref tables, ref definer) => self.check_definer_reads(tables, definer)?,
            Need::ReadColumns(..) | Need::WriteColumns(..) => {}
        }
        Ok(())
    }

    /// Check the columns of one need where the account lacks the table's privilege:
    /// each column used must hold it (1143 naming the first that does not), and a `*`
    /// (or an INSERT without a column list) needs every column. `uses` are the columns
    /// `stmt` reads, walked the first time they are looked at.
    fn check_column_need(
        &self,
        grants: &Grants,
        need: &Need,
        stmt: &Stmt,
        uses: &std::cell::OnceCell<Option<ColumnUses>>,
    ) -> Result<(), SqlError> {
        let (user, host) = (&self.info.user, &self.info.host);
        let uses = || uses.get_or_init(|| column_uses(stmt)).as_ref();
        let (tables, privs) = match need {
            Need::ReadColumns(db, table) => (vec![(*db, *table)], Privs::SELECT),
            Need::WriteColumns(db, table, privs) => (vec![(*db, *table)], *privs),
            Need::Reads(tables) => (
                tables
                    .iter()
                    .map(|(d, t)| (d.as_str(), t.as_str()))
                    .collect(),
                Privs::SELECT,
            ),
            _ => return Ok(()),
        };
        let name = privs.names().first().copied().unwrap_or("SELECT");
        for (db, table) in tables {
            if grants.on_table(db, table).contains(privs) {
                continue;
            }
            let denied = || table_denied(name, user, host, db, table);
            let (every, used) = if privs == Privs::SELECT {
                let Some(uses) = uses() else {
                    return Err(denied());
                };
                (uses.wildcard_on(db, table), uses.columns_of(db, table))
            } else {
                match written_columns(stmt, privs) {
                    Some(Written::Every(all)) => (Some(all), Vec::new()),
                    Some(Written::Listed(listed)) => (None, listed),
                    None => return Err(denied()),
                }
            };
            if let Some(every) = every {
                // MariaDB names the first column missing only when no column before it
                // was granted; else it names the table.
                let mut granted = false;
                for column in every {
                    if grants.on_column(db, table, column).contains(privs) {
                        granted = true;
                    } else if granted {
                        return Err(denied());
                    } else {
                        return Err(column_denied(name, user, host, column, table));
                    }
                }
            }
            check_columns(grants, used, (db, table), privs)
                .map_err(|column| column_denied(name, user, host, column, table))?;
        }
        Ok(())
    }

    /// Fail with 1044 unless the account holds something in `db` (USE, COM_INIT_DB, a
    /// database named at connect or at COM_CHANGE_USER).
    pub(crate) fn check_database_access(&mut self, db: &str) -> Result<(), SqlError> {
        let grants = self.grants();
        if grants.is_all() || grants.any_in_database(db) {
            return Ok(());
        }
        Err(self.database_denied(db))
    }
}

/// The first of `columns` of `table` on which `privs` is not held, as the error.
fn check_columns<'c>(
    grants: &Grants,
    columns: impl IntoIterator<Item = &'c str>,
    (db, table): (&str, &str),
    privs: Privs,
) -> Result<(), &'c str> {
    for column in columns {
        if !grants.on_column(db, table, column).contains(privs) {
            return Err(column);
        }
    }
    Ok(())
}

/// The columns an INSERT or UPDATE writes.
enum Written<'s> {
    /// An INSERT without a column list (its list is then every column in order): every
    /// column, as a `*`.
    Every(Vec<&'s str>),
    Listed(Vec<&'s str>),
}

/// The columns an INSERT or UPDATE writes, for the column privilege `privs` of its
/// kind: an INSERT's listed columns (INSERT, and UPDATE with ON DUPLICATE KEY UPDATE, then
/// the columns that sets), an UPDATE's assigned ones.
fn written_columns(stmt: &Stmt, privs: Privs) -> Option<Written<'_>> {
    fn name(def: &myriad_storage::TableDef, i: usize) -> Option<&str> {
        def.columns.get(i).map(|c| c.name.as_str())
    }
    match stmt {
        Stmt::Insert(p) => {
            let def = &p.table.def;
            let mut out: Vec<&str> = p.columns.iter().filter_map(|&i| name(def, i)).collect();
            if privs == Privs::UPDATE {
                let set = p.on_duplicate.iter().flatten();
                out.extend(set.filter_map(|(i, _)| name(def, *i)));
            } else if p.columns.iter().copied().eq(0..def.columns.len()) {
                return Some(Written::Every(out));
            }
            Some(Written::Listed(out))
        }
        Stmt::Update(p) if privs == Privs::UPDATE => {
            let def = &p.source.table.def;
            let set = p.assignments.iter().filter_map(|(i, _)| name(def, *i));
            Some(Written::Listed(set.collect()))
        }
        _ => None,
    }
}

pub(super) fn column_denied(
    what: &str,
    user: &str,
    host: &str,
    column: &str,
    table: &str,
) -> SqlError {
    SqlError::new(
        ER_COLUMNACCESS_DENIED_ERROR,
        format!(
            "{what} command denied to user '{user}'@'{host}' for column '{column}' in table \
             '{table}'"
        ),
    )
}

pub(super) fn table_denied(what: &str, user: &str, host: &str, db: &str, table: &str) -> SqlError {
    SqlError::new(
        ER_TABLEACCESS_DENIED_ERROR,
        format!("{what} command denied to user '{user}'@'{host}' for table `{db}`.`{table}`"),
    )
}

pub(super) fn database_denied(user: &str, host: &str, db: &str) -> SqlError {
    SqlError::new(
        ER_DBACCESS_DENIED_ERROR,
        format!("Access denied for user '{user}'@'{host}' to database '{db}'"),
    )
}

pub(super) fn global_denied(privs: Privs) -> SqlError {
    let names = if privs.contains(Privs::GRANT) {
        vec!["GRANT OPTION"]
    } else {
        privs.names()
    };
    SqlError::new(
        ER_SPECIFIC_ACCESS_DENIED_ERROR,
        format!(
            "Access denied; you need (at least one of) the {} privilege(s) for this operation",
            names.join(", ")
        ),
    )
}

/// Whether `stmt` changes data, definitions or accounts (what read_only refuses, and
/// what MAX_UPDATES_PER_HOUR counts).
pub(crate) fn writes(stmt: &Stmt) -> bool {
    matches!(
        stmt,
        Stmt::Insert(_)
            | Stmt::LoadData(_)
            | Stmt::Update(_)
            | Stmt::Delete(_)
            | Stmt::CreateTable { .. }
            | Stmt::DropTables { .. }
            | Stmt::CreateView(_)
            | Stmt::DropViews { .. }
            | Stmt::Truncate { .. }
            | Stmt::AlterTable { .. }
            | Stmt::RenameTables { .. }
            | Stmt::AlterIndexes { .. }
            | Stmt::CreateDatabase { .. }
            | Stmt::DropDatabase { .. }
            | Stmt::CreateUser { .. }
            | Stmt::DropUser { .. }
            | Stmt::AlterUser { .. }
            | Stmt::Grant(_)
            | Stmt::Role(
                RoleStmt::Create { .. }
                    | RoleStmt::Drop { .. }
                    | RoleStmt::Grant { .. }
                    | RoleStmt::SetDefault { .. }
            )
            | Stmt::SetPassword { .. }
            | Stmt::RenameUser(_)
    )
}

/// What `stmt` needs, pushed onto `needs` (see [`Need`]).
/// `current` is the session's database, for statements that name none.
fn needs_of<'s>(stmt: &'s Stmt, current: Option<&'s str>, needs: &mut Vec<Need<'s>>) {
    use crate::exec::query_cache::{reads_by_account, tables_of_exprs};
    let table = |db: &'s str, t: &'s str, p: Privs| Need::Table(db, t, p);
    match stmt {
        Stmt::Select(_) | Stmt::SelectTable(_) => match reads_by_account(stmt) {
            Some((invoker, definer)) => {
                push_reads(Some(invoker), needs);
                for (db, table, account) in definer {
                    match needs.last_mut() {
                        Some(Need::ReadsAs(list, last)) if *last == account => {
                            list.push((db, table))
                        }
                        _ => needs.push(Need::ReadsAs(vec![(db, table)], account)),
                    }
                }
            }
            None => push_reads(None, needs),
        },
        Stmt::Do(exprs) => push_reads(tables_of_exprs(exprs), needs),
        Stmt::Explain(inner) => needs_of(inner, current, needs),
        Stmt::SelectInto(into) => {
            // A file needs FILE, checked before the tables as in MariaDB.
            if into.destination.file().is_some() {
                needs.push(Need::Global(Privs::FILE));
            }
            needs_of(&into.query, current, needs)
        }
        Stmt::Insert(p) => {
            let mut privs = Privs::INSERT;
            if p.on_duplicate.is_some() {
                privs = privs.union(Privs::UPDATE);
            }
            if p.replace {
                privs = privs.union(Privs::DELETE);
            }
            let (db, t) = (&*p.table.database, &*p.table.name);
            needs.push(Need::Write(db, t, privs));
            needs.push(Need::WriteColumns(db, t, Privs::INSERT));
            if p.on_duplicate.is_some() {
                needs.push(Need::WriteColumns(db, t, Privs::UPDATE));
                needs.push(Need::ReadColumns(db, t));
            }
            let values = p.rows.iter().flatten().flatten();
            let updates = p.on_duplicate.iter().flatten().map(|(_, e)| e);
            push_reads(tables_of_exprs(values.chain(updates)), needs);
            if let Some(query) = &p.select {
                push_reads(
                    crate::exec::query_cache::tables_of_query(query.as_ref()),
                    needs,
                );
            }
        }
        Stmt::Update(p) => {
            let t = &p.source.table;
            needs.push(Need::Write(&t.database, &t.name, Privs::UPDATE));
            // The columns read (the WHERE's before the new values'), then those set, as
            // MariaDB checks.
            needs.push(Need::ReadColumns(&t.database, &t.name));
            needs.push(Need::WriteColumns(&t.database, &t.name, Privs::UPDATE));
            let exprs = p
                .source
                .filter
                .iter()
                .chain(p.assignments.iter().map(|(_, e)| e));
            push_reads(tables_of_exprs(exprs), needs);
        }
        Stmt::Delete(p) => {
            let t = &p.source.table;
            needs.push(table(&t.database, &t.name, Privs::DELETE));
            needs.push(Need::ReadColumns(&t.database, &t.name));
            push_reads(tables_of_exprs(p.source.filter.iter()), needs);
        }
        Stmt::CreateTable {
            database,
            name,
            like,
            select,
            ..
        } => {
            // ... SELECT also inserts; LIKE and SELECT read their sources.
            let privs = match select {
                Some(_) => Privs::CREATE.union(Privs::INSERT),
                None => Privs::CREATE,
            };
            needs.push(table(database, name, privs));
            if let Some((db, t)) = like {
                needs.push(table(db, t, Privs::SELECT));
            }
            if let Some((query, _)) = select {
                push_reads(
                    crate::exec::query_cache::tables_of_query(query.as_ref()),
                    needs,
                );
            }
        }
        Stmt::DropTables { tables, .. } => {
            for (db, t) in tables {
                needs.push(table(db, t, Privs::DROP));
            }
        }
        // A view is dropped with DROP on it, as a table is (and whether a table of that
        // name exists is told only to who may drop it).
        Stmt::DropViews { names, .. } => {
            for (db, t) in names {
                needs.push(table(db, t, Privs::DROP));
            }
        }
        // A view is made with CREATE VIEW on it (and DROP to replace one), and SELECT on
        // what its query reads.
        Stmt::CreateView(v) => {
            let privs = match v.alter || v.or_replace {
                true => Privs::CREATE_VIEW.union(Privs::DROP),
                false => Privs::CREATE_VIEW,
            };
            needs.push(table(&v.database, &v.name, privs));
            if let Some(crate::plan::tables::Made::Query(q)) = &v.reads.made {
                push_reads(crate::exec::query_cache::tables_of_query(q.as_ref()), needs);
            }
        }
        Stmt::Truncate { database, name } => needs.push(table(database, name, Privs::DROP)),
        Stmt::LoadData(p) => {
            // FILE for the server's own file is checked when it runs (1045, as MariaDB).
            let privs = match p.replace {
                true => Privs::INSERT.union(Privs::DELETE),
                false => Privs::INSERT,
            };
            needs.push(table(&p.table.database, &p.table.name, privs));
        }
        Stmt::LockTables(items) => {
            for item in items {
                needs.push(Need::Database(&item.database, Privs::LOCK_TABLES));
                needs.push(table(&item.database, &item.name, Privs::SELECT));
            }
        }
        Stmt::AlterTable { table: t, .. } => needs.push(table(&t.database, &t.name, Privs::ALTER)),
        Stmt::RenameTables { renames } => {
            for ((db, t), (new_db, new_t)) in renames {
                needs.push(table(db, t, Privs::ALTER.union(Privs::DROP)));
                needs.push(table(new_db, new_t, Privs::CREATE.union(Privs::INSERT)));
            }
        }
        Stmt::AlterIndexes { database, name, .. } => {
            needs.push(table(database, name, Privs::INDEX))
        }
        Stmt::Maintenance { analyze, tables } => {
            for (db, t) in tables {
                let Some(db) = db.as_deref().or(current) else {
                    continue;
                };
                needs.push(match analyze {
                    true => table(db, t, Privs::SELECT.union(Privs::INSERT)),
                    false => Need::AnyOnTable(db, t),
                });
            }
        }
        Stmt::CreateDatabase { name, .. } => needs.push(Need::Database(name, Privs::CREATE)),
        Stmt::DropDatabase { name, .. } => needs.push(Need::Database(name, Privs::DROP)),
        Stmt::Use(db) | Stmt::ShowCreateDatabase { name: db } => needs.push(Need::AnyIn(db)),
        Stmt::ShowTables { database, .. } | Stmt::ShowOpenTables { database, .. } => {
            if let Some(db) = database.as_deref().or(current) {
                needs.push(Need::ListIn(db));
            }
        }
        Stmt::ShowColumns {
            database, table: t, ..
        }
        | Stmt::ShowIndex { database, table: t } => {
            if let Some(db) = database.as_deref().or(current) {
                needs.push(Need::SeeTable(db, t));
            }
        }
        // SHOW CREATE VIEW needs SHOW VIEW and SELECT on the view (SHOW CREATE TABLE of a
        // view checks them when it finds the view).
        Stmt::ShowCreateTable {
            database,
            table: t,
            view: true,
        } => {
            if let Some(db) = database.as_deref().or(current) {
                needs.push(table(db, t, Privs::SHOW_VIEW.union(Privs::SELECT)));
            }
        }
        Stmt::ShowCreateTable {
            database, table: t, ..
        } => {
            if let Some(db) = database.as_deref().or(current) {
                needs.push(Need::AnyOnTable(db, t));
            }
        }
        Stmt::CreateUser { .. }
        | Stmt::DropUser { .. }
        | Stmt::AlterUser { .. }
        | Stmt::RenameUser(_)
        | Stmt::Role(RoleStmt::Create { .. } | RoleStmt::Drop { .. }) => {
            needs.push(Need::Global(Privs::CREATE_USER))
        }
        Stmt::Set(assignments) => {
            let global = assignments.iter().any(|a| {
                matches!(
                    a.target,
                    AssignTarget::System {
                        scope: SetScope::Global,
                        ..
                    }
                )
            });
            if global {
                needs.push(Need::Global(Privs::SUPER));
            }
            // Leaving the binary log takes SUPER or BINLOG ADMIN (DEFAULT needs neither).
            let binlog = assignments.iter().any(|a| match a.target {
                AssignTarget::System { index, .. } => {
                    crate::system::sysvars::def(index).name == "sql_log_bin"
                        && !matches!(a.value, crate::plan::AssignValue::Default)
                }
                _ => false,
            });
            if binlog {
                needs.push(Need::Global(Privs::SUPER.union(Privs::BINLOG_ADMIN)));
            }
            let exprs = assignments.iter().filter_map(|a| match &a.value {
                crate::plan::AssignValue::Expr(e) => Some(e),
                _ => None,
            });
            push_reads(tables_of_exprs(exprs), needs);
        }
        Stmt::SetTransaction {
            scope: Some(SetScope::Global),
            ..
        } => needs.push(Need::Global(Privs::SUPER)),
        Stmt::Shutdown => needs.push(Need::Global(Privs::SHUTDOWN)),
        // MariaDB's plugin statements write or delete rows of mysql.plugin.
        Stmt::Plugin { install, .. } => {
            let p = if *install {
                Privs::INSERT
            } else {
                Privs::DELETE
            };
            needs.push(Need::Table("mysql", "plugin", p));
        }
        Stmt::Flush { .. } | Stmt::FlushStatus | Stmt::FlushTables(_) | Stmt::QueryCache { .. } => {
            needs.push(Need::Global(Privs::RELOAD))
        }
        // Key cache assignment and preloading change server-wide state.
        Stmt::KeyCache(_) => needs.push(Need::Global(Privs::SUPER)),
        _ => {}
    }
}

/// Whether `stmt` writes rows of a table made when read (the `mysql` schema's account
/// tables: information_schema's answer 1044 before this is asked).
fn writes_made_table(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Insert(p) => p.table.made.is_some(),
        Stmt::LoadData(p) => p.table.made.is_some(),
        Stmt::Update(p) => p.source.table.made.is_some(),
        Stmt::Delete(p) => p.source.table.made.is_some(),
        _ => false,
    }
}

/// Whether `stmt` would write to, create, alter or drop something in information_schema.
fn changes_information_schema(stmt: &Stmt, current: Option<&str>) -> bool {
    use crate::plan::info_schema::is_schema;
    let db = |d: &Option<String>| d.as_deref().or(current).is_some_and(is_schema);
    match stmt {
        Stmt::Insert(p) => is_schema(&p.table.database),
        Stmt::LoadData(p) => is_schema(&p.table.database),
        Stmt::Update(p) => is_schema(&p.source.table.database),
        Stmt::Delete(p) => is_schema(&p.source.table.database),
        Stmt::CreateTable { database, .. }
        | Stmt::Truncate { database, .. }
        | Stmt::AlterIndexes { database, .. } => is_schema(database),
        Stmt::DropTables { tables, .. } => tables.iter().any(|(d, _)| is_schema(d)),
        Stmt::AlterTable { table, .. } => is_schema(&table.database),
        Stmt::RenameTables { renames } => renames
            .iter()
            .any(|((d, _), (n, _))| is_schema(d) || is_schema(n)),
        Stmt::CreateDatabase { name, .. } | Stmt::DropDatabase { name, .. } => is_schema(name),
        Stmt::Maintenance { tables, .. } => tables.iter().any(|(d, _)| db(d)),
        _ => false,
    }
}

/// The tables read, each needing SELECT (information_schema's need none); a walk that
/// could not tell them all needs the global SELECT.
fn push_reads<'s>(tables: Option<Vec<(String, String)>>, needs: &mut Vec<Need<'s>>) {
    let tables = tables.map(|mut list| {
        list.retain(|(db, _)| !crate::plan::info_schema::is_schema(db));
        list
    });
    match tables {
        Some(list) if list.is_empty() => {}
        Some(list) => needs.push(Need::Reads(list)),
        None => needs.push(Need::Global(Privs::SELECT)),
    }
}
