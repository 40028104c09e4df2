//! Privilege checks, GRANT, REVOKE and SHOW GRANTS.
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

use crate::catalog::account_options::ResourceLimits;
use crate::catalog::privileges::{Grants, Level, Privs};
use crate::error::SqlError;
use crate::plan::grants::{GrantLevel, GrantStmt};
use crate::plan::{AssignTarget, SetScope, Stmt, UserSpec};
use crate::result::QueryResult;
use crate::value::Value;
use crate::Session;
use myriad_types::errors::{
    ER_COLUMNACCESS_DENIED_ERROR, ER_DBACCESS_DENIED_ERROR, ER_ILLEGAL_GRANT_FOR_TABLE,
    ER_NONEXISTING_GRANT, ER_NONEXISTING_TABLE_GRANT, ER_NO_DB_ERROR, ER_NO_SUCH_TABLE,
    ER_OPTION_PREVENTS_STATEMENT, ER_PASSWORD_NO_MATCH, ER_SPECIFIC_ACCESS_DENIED_ERROR,
    ER_TABLEACCESS_DENIED_ERROR, ER_WRONG_USAGE,
};
use std::sync::Arc;

/// What a statement needs before it runs.
enum Need<'s> {
    /// Every privilege of `privs` on table `db`.`table`.
    Table(&'s str, &'s str, Privs),
    /// Some privilege on the table (SHOW COLUMNS and the like).
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
    /// SELECT on `db`.`table`, whose column `column` the statement reads (an UPDATE's or
    /// DELETE's WHERE, an UPDATE's new values): 1143 names the column.
    ReadColumn(&'s str, &'s str, &'s str),
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
        let grants = Arc::new(grants.unwrap_or_default());
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
        // information_schema is read-only to every account, root included.
        if changes_information_schema(stmt, self.info.database.as_deref()) {
            let (user, host) = (&self.info.user, &self.info.host);
            return Err(database_denied(
                user,
                host,
                crate::plan::info_schema::SCHEMA,
            ));
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
        for need in needs {
            self.check_need(&grants, need)?;
        }
        Ok(())
    }

    /// A table the statement `text` names does not exist (`error`, 1146): as MariaDB
    /// checks privileges before it opens a table, an account without the statement's
    /// privilege on that table gets 1142 instead, whether or not it exists, so that no
    /// account learns the names of tables it may not use.
    pub(crate) fn mask_missing_table(&mut self, error: SqlError, text: &str) -> SqlError {
        if error.code != ER_NO_SUCH_TABLE.code {
            return error;
        }
        let Some((db, table)) = error
            .message
            .strip_prefix("Table '")
            .and_then(|m| m.strip_suffix("' doesn't exist"))
            .and_then(|m| m.split_once('.'))
        else {
            return error;
        };
        let first = text
            .trim_start_matches(|c: char| c.is_whitespace() || c == '(')
            .split(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        let (verb, needed) = match first.as_str() {
            "SELECT" | "WITH" | "TABLE" | "VALUES" => ("SELECT", Privs::SELECT),
            "INSERT" | "REPLACE" => ("INSERT", Privs::INSERT),
            "UPDATE" => ("UPDATE", Privs::UPDATE),
            "DELETE" => ("DELETE", Privs::DELETE),
            _ => return error,
        };
        let grants = self.grants();
        if grants.is_all() || grants.on_table(db, table).contains(needed) {
            return error;
        }
        table_denied(verb, &self.info.user, &self.info.host, db, table)
    }

    /// Fail with 1142 unless the account holds some privilege on `db`.`table`: what
    /// COM_FIELD_LIST needs to list a table's columns.
    pub(crate) fn check_table_visible(&mut self, db: &str, table: &str) -> Result<(), SqlError> {
        let grants = self.grants();
        if grants.is_all() {
            return Ok(());
        }
        self.check_need(&grants, Need::AnyOnTable(db, table))
    }

    fn check_need(&self, grants: &Grants, need: Need) -> Result<(), SqlError> {
        let (user, host) = (&self.info.user, &self.info.host);
        match need {
            Need::Table(db, table, privs) => {
                let missing = privs.without(grants.on_table(db, table));
                if let Some(name) = missing.names().first() {
                    return Err(table_denied(name, user, host, db, table));
                }
            }
            Need::AnyOnTable(db, table) => {
                if !grants.any_on_table(db, table) {
                    return Err(table_denied("SELECT", user, host, db, table));
                }
            }
            Need::Database(db, privs) => {
                if !grants.in_database(db).contains(privs) {
                    return Err(database_denied(user, host, db));
                }
            }
            Need::AnyIn(db) => {
                if !grants.any_in_database(db) {
                    return Err(database_denied(user, host, db));
                }
            }
            Need::ListIn(db) => {
                if !grants.any_in_database(db) && grants.global.without(Privs::GRANT).is_empty() {
                    return Err(database_denied(user, host, db));
                }
            }
            Need::Global(privs) => {
                if !grants.global.intersects(privs) {
                    return Err(global_denied(privs));
                }
            }
            Need::ReadColumn(db, table, column) => {
                if !grants.on_table(db, table).contains(Privs::SELECT) {
                    return Err(SqlError::new(
                        ER_COLUMNACCESS_DENIED_ERROR,
                        format!(
                            "SELECT command denied to user '{user}'@'{host}' for column \
                             '{column}' in table '{table}'"
                        ),
                    ));
                }
            }
            Need::Reads(tables) => {
                for (db, table) in &tables {
                    if !grants.on_table(db, table).contains(Privs::SELECT) {
                        return Err(table_denied("SELECT", user, host, db, table));
                    }
                }
            }
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
        Err(database_denied(&self.info.user, &self.info.host, db))
    }

    /// GRANT or REVOKE.
    pub(crate) fn grant(&mut self, g: &GrantStmt) -> Result<QueryResult, SqlError> {
        let current = || {
            self.info
                .database
                .clone()
                .ok_or_else(|| SqlError::new(ER_NO_DB_ERROR, "No database selected"))
        };
        let (db, table) = match &g.level {
            GrantLevel::Global => (None, None),
            GrantLevel::Database(db) => (Some(db.clone()), None),
            GrantLevel::CurrentDatabase => (Some(current()?), None),
            GrantLevel::Table(db, t) => {
                let db = match db {
                    Some(db) => db.clone(),
                    None => current()?,
                };
                // MariaDB grants on existing tables only (a REVOKE may name a dropped one).
                let exists = self.engine.catalog.database_exists(&db)
                    && self
                        .engine
                        .catalog
                        .tables(&db)?
                        .iter()
                        .any(|n| n.eq_ignore_ascii_case(t));
                if !g.revoke && !exists {
                    return Err(SqlError::new(
                        ER_NO_SUCH_TABLE,
                        format!("Table '{db}.{t}' doesn't exist"),
                    ));
                }
                (Some(db), Some(t.clone()))
            }
        };
        let level = match (&db, &table) {
            (None, _) => Level::Global,
            (Some(db), None) => Level::Database(db),
            (Some(db), Some(t)) => Level::Table(db, t),
        };
        let all = match level {
            Level::Global => Privs::ALL_GLOBAL,
            Level::Database(_) => Privs::ALL_DATABASE,
            Level::Table(..) => Privs::ALL_TABLE,
        };
        let mut privs = if g.all { all } else { g.privs };
        if !all.contains(privs) {
            return Err(match level {
                Level::Table(..) => SqlError::new(
                    ER_ILLEGAL_GRANT_FOR_TABLE,
                    "Illegal GRANT/REVOKE command; please consult the manual to see which \
                     privileges can be used",
                ),
                _ => SqlError::new(
                    ER_WRONG_USAGE,
                    "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
                ),
            });
        }
        if g.grant_option {
            privs = privs.union(Privs::GRANT);
        }
        // The grantor needs GRANT OPTION and every privilege it hands out, at that level.
        let mine = self.grants();
        let held = match level {
            Level::Global => mine.global,
            Level::Database(db) => mine.in_database(db),
            Level::Table(db, t) => mine.on_table(db, t),
        };
        if !held.contains(privs.union(Privs::GRANT)) {
            let (user, host) = (&self.info.user, &self.info.host);
            return Err(match level {
                Level::Global => global_denied(Privs::GRANT),
                Level::Database(db) => database_denied(user, host, db),
                Level::Table(db, t) => table_denied("GRANT", user, host, db, t),
            });
        }
        for u in &g.users {
            if u.password.is_some() {
                // IDENTIFIED BY: the account's password, and the account itself if new.
                let hash = u.password_hash()?;
                let accounts = &self.engine.accounts;
                if !accounts.set_hash(&u.user, &u.host, hash)? {
                    accounts.create_hashed(&u.user, &u.host, hash)?;
                }
            }
            if g.every_level {
                self.revoke_everything(u)?;
                continue;
            }
            let changed =
                self.engine
                    .accounts
                    .change_grants((&u.user, &u.host), level, privs, g.revoke)?;
            match (changed, level) {
                (None, _) => return Err(no_such_account(g.revoke, u)),
                (Some(false), Level::Table(_, t)) => {
                    return Err(SqlError::new(
                        ER_NONEXISTING_TABLE_GRANT,
                        format!(
                            "There is no such grant defined for user '{}' on host '{}' on \
                             table '{t}'",
                            u.user, u.host
                        ),
                    ))
                }
                (Some(false), _) => return Err(no_such_grant(&u.user, &u.host)),
                (Some(true), _) => {}
            }
            if g.options != Default::default() {
                self.engine
                    .accounts
                    .set_options(&u.user, &u.host, &g.options)?;
            }
        }
        Ok(crate::exec::ok(0))
    }

    /// REVOKE ALL PRIVILEGES, GRANT OPTION FROM `u`: every grant at every level.
    fn revoke_everything(&self, u: &UserSpec) -> Result<(), SqlError> {
        let accounts = &self.engine.accounts;
        let Some(account) = accounts.grants_of_account(&u.user, &u.host) else {
            return Err(no_such_account(true, u));
        };
        let everything = Privs::ALL_GLOBAL.union(Privs::GRANT);
        let account_key = (u.user.as_str(), u.host.as_str());
        accounts.change_grants(account_key, Level::Global, everything, true)?;
        for (db, _) in &account.grants.databases {
            accounts.change_grants(account_key, Level::Database(db), everything, true)?;
        }
        for (db, t, _) in &account.grants.tables {
            accounts.change_grants(account_key, Level::Table(db, t), everything, true)?;
        }
        Ok(())
    }

    /// The account a statement names (`user`), else the session's own; another's needs the
    /// global privilege `others` (1044 on the `mysql` database without, as MariaDB).
    fn account_named(
        &mut self,
        user: Option<&UserSpec>,
        others: Privs,
    ) -> Result<(String, String), SqlError> {
        let own_host = self
            .engine
            .accounts
            .matching_host(&self.info.user, &self.info.host);
        let (name, host) = match user {
            Some(u) => (u.user.clone(), u.host.clone()),
            None => (
                self.info.user.clone(),
                own_host.clone().unwrap_or_else(|| self.info.host.clone()),
            ),
        };
        let own = name == self.info.user && own_host.as_deref() == Some(host.as_str());
        if !own && !self.grants().global.contains(others) {
            return Err(database_denied(&self.info.user, &self.info.host, "mysql"));
        }
        Ok((name, host))
    }

    /// SET PASSWORD [FOR user]: one's own account always, another's with CREATE USER.
    pub(crate) fn set_password(
        &mut self,
        user: Option<&UserSpec>,
        password: &UserSpec,
    ) -> Result<QueryResult, SqlError> {
        let (name, host) = self.account_named(user, Privs::CREATE_USER)?;
        let hash = password.password_hash()?;
        if !self.engine.accounts.set_hash(&name, &host, hash)? {
            return Err(no_matching_account());
        }
        Ok(crate::exec::ok(0))
    }

    /// RENAME USER: each account and its grants under a new name; 1396 naming the old
    /// accounts that do not exist or whose new name is taken (the others are renamed).
    pub(crate) fn rename_users(
        &mut self,
        pairs: &[(UserSpec, UserSpec)],
    ) -> Result<QueryResult, SqlError> {
        let mut failed = Vec::new();
        for (from, to) in pairs {
            let renamed = self
                .engine
                .accounts
                .rename((&from.user, &from.host), (&to.user, &to.host))?;
            if !renamed {
                failed.push(format!("'{}'@'{}'", from.user, from.host));
            }
        }
        if failed.is_empty() {
            return Ok(crate::exec::ok(0));
        }
        Err(SqlError::new(
            myriad_types::errors::ER_CANNOT_USER,
            format!("Operation RENAME USER failed for {}", failed.join(",")),
        ))
    }

    /// SHOW CREATE USER [user]: the statement that makes the account as it is.
    pub(crate) fn show_create_user(
        &mut self,
        user: Option<&UserSpec>,
    ) -> Result<QueryResult, SqlError> {
        let (name, host) = self.account_named(user, Privs::SELECT)?;
        let account = self
            .engine
            .accounts
            .grants_of_account(&name, &host)
            .ok_or_else(no_matching_account)?;
        let mut text = format!(
            "CREATE USER `{name}`@`{host}`{}{}{}",
            password_clause(&account),
            account.auth.require.clause(),
            account.limits.clause()
        );
        if account.locked {
            text.push_str(" ACCOUNT LOCK");
        }
        let column = format!("CREATE USER for {name}@{host}");
        Ok(QueryResult::Rows {
            columns: Arc::new(vec![crate::exec::select::text_column(&column, 1024)]),
            rows: crate::result::Rows::shared(vec![vec![Value::Bytes(text.into_bytes())]]),
            warnings: 0,
        })
    }

    /// SHOW GRANTS [FOR user].
    pub(crate) fn show_grants(&mut self, user: Option<&UserSpec>) -> Result<QueryResult, SqlError> {
        let (name, host) = self.account_named(user, Privs::SELECT)?;
        let account = self
            .engine
            .accounts
            .grants_of_account(&name, &host)
            .ok_or_else(|| no_such_grant(&name, &host))?;
        let to = format!("`{name}`@`{host}`");
        let with_option = |p: Privs| {
            if p.contains(Privs::GRANT) {
                " WITH GRANT OPTION"
            } else {
                ""
            }
        };
        // The global line's WITH: GRANT OPTION first, then the resource limits.
        let global_with = |p: Privs, limits: &ResourceLimits| {
            let limits = limits.clause();
            match (p.contains(Privs::GRANT), limits.strip_prefix(" WITH")) {
                (true, Some(rest)) => format!(" WITH GRANT OPTION{rest}"),
                (true, None) => String::from(" WITH GRANT OPTION"),
                (false, _) => limits,
            }
        };
        let password = password_clause(&account);
        let g = &account.grants;
        let mut lines = vec![format!(
            "GRANT {} ON *.* TO {to}{password}{}{}",
            g.global.grant_text(Privs::ALL_GLOBAL),
            account.auth.require.clause(),
            global_with(g.global, &account.limits)
        )];
        for (db, privs) in &g.databases {
            lines.push(format!(
                "GRANT {} ON `{db}`.* TO {to}{}",
                privs.grant_text(Privs::ALL_DATABASE),
                with_option(*privs)
            ));
        }
        for (db, table, privs) in &g.tables {
            lines.push(format!(
                "GRANT {} ON `{db}`.`{table}` TO {to}{}",
                privs.grant_text(Privs::ALL_TABLE),
                with_option(*privs)
            ));
        }
        let column = format!("Grants for {name}@{host}");
        let rows = lines
            .into_iter()
            .map(|l| vec![Value::Bytes(l.into_bytes())])
            .collect();
        Ok(QueryResult::Rows {
            columns: Arc::new(vec![crate::exec::select::text_column(&column, 1024)]),
            rows: crate::result::Rows::shared(rows),
            warnings: 0,
        })
    }
}

fn no_such_grant(user: &str, host: &str) -> SqlError {
    SqlError::new(
        ER_NONEXISTING_GRANT,
        format!("There is no such grant defined for user '{user}' on host '{host}'"),
    )
}

fn no_matching_account() -> SqlError {
    SqlError::new(
        ER_PASSWORD_NO_MATCH,
        "Can't find any matching row in the user table",
    )
}

fn no_such_account(revoke: bool, u: &UserSpec) -> SqlError {
    if revoke {
        no_such_grant(&u.user, &u.host)
    } else {
        no_matching_account()
    }
}

fn table_denied(what: &str, user: &str, host: &str, db: &str, table: &str) -> SqlError {
    SqlError::new(
        ER_TABLEACCESS_DENIED_ERROR,
        format!("{what} command denied to user '{user}'@'{host}' for table `{db}`.`{table}`"),
    )
}

fn database_denied(user: &str, host: &str, db: &str) -> SqlError {
    SqlError::new(
        ER_DBACCESS_DENIED_ERROR,
        format!("Access denied for user '{user}'@'{host}' to database '{db}'"),
    )
}

fn global_denied(privs: Privs) -> SqlError {
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
            | Stmt::Update(_)
            | Stmt::Delete(_)
            | Stmt::CreateTable { .. }
            | Stmt::DropTables { .. }
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
            | Stmt::SetPassword { .. }
            | Stmt::RenameUser(_)
    )
}

/// What `stmt` needs, pushed onto `needs` (see [`Need`]).
/// `current` is the session's database, for statements that name none.
fn needs_of<'s>(stmt: &'s Stmt, current: Option<&'s str>, needs: &mut Vec<Need<'s>>) {
    use crate::exec::query_cache::{read_tables, tables_of_exprs};
    let table = |db: &'s str, t: &'s str, p: Privs| Need::Table(db, t, p);
    match stmt {
        Stmt::Select(_) | Stmt::SelectTable(_) => push_reads(read_tables(stmt), needs),
        Stmt::Do(exprs) => push_reads(tables_of_exprs(exprs), needs),
        Stmt::Explain(inner) => needs_of(inner, current, needs),
        Stmt::Insert(p) => {
            let mut privs = Privs::INSERT;
            if p.on_duplicate.is_some() {
                privs = privs.union(Privs::UPDATE);
            }
            if p.replace {
                privs = privs.union(Privs::DELETE);
            }
            needs.push(table(&p.table.database, &p.table.name, privs));
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
            needs.push(table(&t.database, &t.name, Privs::UPDATE));
            // The first column read, the WHERE's before the new values', as MariaDB checks.
            let read = p
                .source
                .filter
                .iter()
                .chain(p.assignments.iter().map(|(_, e)| e))
                .find_map(crate::plan::access::first_column);
            if let Some(column) = read.and_then(|i| t.def.columns.get(i)) {
                needs.push(Need::ReadColumn(&t.database, &t.name, &column.name));
            }
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
            let read = p
                .source
                .filter
                .as_ref()
                .and_then(crate::plan::access::first_column);
            if let Some(column) = read.and_then(|i| t.def.columns.get(i)) {
                needs.push(Need::ReadColumn(&t.database, &t.name, &column.name));
            }
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
        Stmt::Truncate { database, name } => needs.push(table(database, name, Privs::DROP)),
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
        | Stmt::ShowCreateTable { database, table: t }
        | Stmt::ShowIndex { database, table: t } => {
            if let Some(db) = database.as_deref().or(current) {
                needs.push(Need::AnyOnTable(db, t));
            }
        }
        Stmt::CreateUser { .. }
        | Stmt::DropUser { .. }
        | Stmt::AlterUser { .. }
        | Stmt::RenameUser(_) => needs.push(Need::Global(Privs::CREATE_USER)),
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

/// ` IDENTIFIED BY PASSWORD '*<hash>'` for an account with a password, as SHOW GRANTS and
/// SHOW CREATE USER write it.
fn password_clause(account: &crate::catalog::accounts::Account) -> String {
    account
        .auth
        .native_password_hash
        .map(|h| {
            let hex: String = h.iter().map(|b| format!("{b:02X}")).collect();
            format!(" IDENTIFIED BY PASSWORD '*{hex}'")
        })
        .unwrap_or_default()
}
