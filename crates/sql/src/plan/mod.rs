//! From statement text to a compiled [`Stmt`].
//!
//! 1. The whole COM_QUERY text is tokenized once by sqlparser's MySQL tokenizer (quotes,
//!    comments and escapes handled there) and split into statements at `;`
//!    ([`crate::parser::source`]).
//! 2. Each statement goes one of two ways. MySQL administration syntax that sqlparser does
//!    not parse the MySQL way (`SET GLOBAL x`, `SET @@session.x`, `SHOW ... STATUS`,
//!    `CREATE USER 'u'@'h'`, `SHUTDOWN`, `FLUSH STATUS`, transactions, databases) is read by
//!    the hand-written parsers from the token list: [`statements`] (SET, SHOW, KILL),
//!    [`commands`] (the short ones) and [`key_cache_parse`]. Everything else (SELECT, DDL and
//!    DML) goes to sqlparser's parser with MySQL's dialect ([`crate::parser::dialect`],
//!    [`from_ast`]).
//! 3. Expressions from either path are compiled by [`crate::expr::Compiler`]; the result
//!    is a [`Stmt`] that a prepared statement keeps and executes many times.

pub mod access;
pub mod alter;
pub mod alter_columns;
pub mod checks;
pub mod commands;
pub mod derived;
pub mod drop_view;
pub mod explain;
pub mod file_format;
pub mod foreign_keys;
pub mod from_ast;
pub mod grants;
pub mod info_schema;
pub mod key_cache;
pub mod key_cache_parse;
pub mod load_data;
pub mod plan_cache;
pub mod query;
pub mod roles;
pub mod select_into;
pub mod set_statement;
pub mod show_create;
pub mod sql_prepared;
pub mod statements;
pub mod stored;
mod stored_elements;
pub mod table_def;
pub mod tables;
pub mod timestamps;
pub mod union;
pub mod view;
pub mod view_text;
pub mod window;

use crate::catalog::account_options::AccountOptions;
pub use crate::catalog::auth_plugins::{AuthSpec, Using};
use crate::error::SqlError;
use crate::expr::ColumnScope;
use crate::expr::Compiler;
use crate::expr::Expr;
use crate::expr::SubqueryPlan;
use crate::system::status::Counter;

use crate::parser::source::*;
use crate::plan::from_ast::*;
use crate::plan::statements::*;
use sqlparser::tokenizer::{Token, TokenWithSpan};
use std::collections::HashMap;
use std::sync::Arc;

/// `SET` scope as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetScope {
    Session,
    Global,
}

#[derive(Debug, Clone)]
pub enum AssignTarget {
    System { scope: SetScope, index: usize },
    User(String),
}

#[derive(Debug, Clone)]
pub enum AssignValue {
    Default,
    /// A bare word such as `ON` or `utf8mb4`.
    Word(String),
    Expr(Expr),
}

#[derive(Debug, Clone)]
pub struct Assignment {
    pub target: AssignTarget,
    pub value: AssignValue,
}

#[derive(Debug, Clone)]
pub enum ShowFilter {
    None,
    Like(String),
    /// Compiled over the listing's columns.
    Where(Expr),
}

#[derive(Debug, Clone)]
pub struct SelectItem {
    pub name: String,
    pub expr: Expr,
}

/// A SELECT without tables.
#[derive(Debug, Clone)]
pub struct SelectPlan {
    pub items: Vec<SelectItem>,
    pub filter: Option<Expr>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    /// `SELECT SQL_CALC_FOUND_ROWS`: the LIMIT, taken out of the query (see
    /// [`FoundRowsWindow`]).
    pub found_rows_window: Option<Box<FoundRowsWindow>>,
}

/// The LIMIT of a `SELECT SQL_CALC_FOUND_ROWS`: the query runs without it, every row it
/// makes is counted (FOUND_ROWS() then answers the count), and only the rows in this
/// window reach the client.
#[derive(Debug, Clone)]
pub struct FoundRowsWindow {
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
}

#[derive(Debug, Clone)]
pub struct UserSpec {
    pub user: String,
    pub host: String,
    /// Its `IDENTIFIED ...` clause, if the statement has one.
    pub auth: Option<AuthSpec>,
    /// Whether the statement wrote `@host`: a bare name may name a role.
    pub host_given: bool,
    /// `CURRENT_USER` or `CURRENT_USER()`: the session's own account, which execution puts
    /// in `user` and `host` (see `Session::with_current_user`).
    pub current_user: bool,
}

impl UserSpec {
    /// The credential its `IDENTIFIED` clause sets (`IDENTIFIED BY` is for
    /// mysql_native_password), or None without one; 1372 for a malformed stored form,
    /// 1524 for an unknown plugin.
    pub fn credential(
        &self,
    ) -> Result<Option<myriad_types::auth::Credential>, crate::error::SqlError> {
        self.auth
            .as_ref()
            .map(|a| a.credential(crate::catalog::auth_plugins::Plugin::NativePassword))
            .transpose()
    }
}

/// A compiled statement.
#[derive(Debug, Clone)]
pub enum Stmt {
    Select(SelectPlan),
    Set(Vec<Assignment>),
    /// SET NAMES (None: DEFAULT) with an optional collation.
    SetNames {
        charset: Option<String>,
        collation: Option<String>,
    },
    SetCharacterSet(Option<String>),
    /// SET [GLOBAL|SESSION] TRANSACTION ...: accepted, isolation recorded.
    SetTransaction {
        scope: Option<SetScope>,
        isolation: Option<String>,
        read_only: Option<bool>,
    },
    ShowVariables {
        global: bool,
        filter: ShowFilter,
    },
    ShowStatus {
        global: bool,
        filter: ShowFilter,
    },
    ShowDatabases {
        filter: ShowFilter,
    },
    ShowTables {
        database: Option<String>,
        full: bool,
        filter: ShowFilter,
    },
    ShowWarnings {
        errors: bool,
        count_only: bool,
    },
    ShowCollation {
        filter: ShowFilter,
    },
    ShowCharset {
        filter: ShowFilter,
    },
    ShowEngines,
    /// `DROP {PROCEDURE | FUNCTION} [IF EXISTS] db.name`: myriad has no stored routines,
    /// so none exists to drop (1305, a note under IF EXISTS).
    DropRoutine {
        /// PROCEDURE or FUNCTION.
        kind: &'static str,
        /// `db.name`.
        name: String,
        if_exists: bool,
    },
    /// SHOW PLUGINS: the plugins built in.
    ShowPlugins,
    /// `INSTALL {SONAME 'lib' | PLUGIN name SONAME 'lib'}` or `UNINSTALL {SONAME 'lib' |
    /// PLUGIN name}`: myriad's plugins are built in, so these only say so (see
    /// `exec::admin::plugin_statement`).
    Plugin {
        install: bool,
        name: Option<String>,
        soname: Option<String>,
    },
    ShowCreateDatabase {
        name: String,
    },
    ShowProcessList,
    /// SHOW \[FULL\] COLUMNS FROM t, DESCRIBE t.
    ShowColumns {
        database: Option<String>,
        table: String,
        full: bool,
        filter: ShowFilter,
    },
    /// SHOW CREATE TABLE, or SHOW CREATE VIEW (`view`).
    ShowCreateTable {
        database: Option<String>,
        table: String,
        view: bool,
    },
    ShowIndex {
        database: Option<String>,
        table: String,
    },
    Use(String),
    CreateDatabase {
        name: String,
        if_not_exists: bool,
        /// The collation its tables default to.
        collation: crate::expr::Collation,
    },
    DropDatabase {
        name: String,
        if_exists: bool,
    },
    CreateUser {
        users: Vec<UserSpec>,
        if_not_exists: bool,
        /// REQUIRE, WITH limits, ACCOUNT LOCK (what is not said: none).
        options: AccountOptions,
    },
    DropUser {
        users: Vec<UserSpec>,
        if_exists: bool,
    },
    AlterUser {
        users: Vec<UserSpec>,
        if_exists: bool,
        /// REQUIRE, WITH limits, ACCOUNT LOCK (what is not said: kept).
        options: AccountOptions,
    },
    /// GRANT or REVOKE.
    Grant(grants::GrantStmt),
    /// SHOW GRANTS [FOR user] (None: the current account).
    ShowGrants(Option<UserSpec>),
    /// `SHOW CREATE USER [user]` (None: the current account).
    ShowCreateUser(Option<UserSpec>),
    /// CREATE / DROP ROLE, GRANT / REVOKE of roles, `SET [DEFAULT] ROLE`.
    Role(roles::RoleStmt),
    /// RENAME USER old TO new, ...
    RenameUser(Vec<(UserSpec, UserSpec)>),
    /// SET PASSWORD [FOR user] = ...: the account (None: the current one) and the
    /// password given (`PASSWORD('pw')`) or its stored form, for the account's plugin.
    SetPassword {
        user: Option<UserSpec>,
        password: AuthSpec,
    },
    FlushStatus,
    /// Other FLUSH forms (LOGS, PRIVILEGES, ...): dirty blocks are written;
    /// `USER_RESOURCES` among them also ends every account's resource-limit hour.
    Flush {
        user_resources: bool,
    },
    /// `FLUSH TABLES [db.]t, ...`: close the tables (all when `None`), see `table_cache_sql`.
    FlushTables(Option<Vec<(Option<String>, String)>>),
    /// `SHOW OPEN TABLES [FROM db] [LIKE ... | WHERE ...]`.
    ShowOpenTables {
        database: Option<String>,
        filter: ShowFilter,
    },
    /// FLUSH QUERY CACHE (reset: false) and RESET QUERY CACHE (reset: true).
    QueryCache {
        reset: bool,
    },
    Shutdown,
    /// KILL [CONNECTION | QUERY] id.
    Kill {
        target: crate::interrupt::KillTarget,
        id: Expr,
    },
    /// BEGIN, START TRANSACTION [READ ONLY | READ WRITE | WITH CONSISTENT SNAPSHOT].
    Begin {
        read_only: bool,
        /// WITH CONSISTENT SNAPSHOT: the snapshot starts now, not at the first read.
        consistent_snapshot: bool,
    },
    /// COMMIT and ROLLBACK, `AND [NO] CHAIN`: with `chain`, a new transaction starts.
    Commit {
        chain: bool,
    },
    Rollback {
        chain: bool,
    },
    Savepoint(String),
    RollbackToSavepoint(String),
    ReleaseSavepoint(String),
    Do(Vec<Expr>),
    CreateTable {
        database: String,
        name: String,
        def: myriad_storage::TableDef,
        if_not_exists: bool,
        /// `CREATE TABLE ... LIKE db.t`: the table whose definition was copied.
        like: Option<(String, String)>,
        /// `CREATE TABLE ... SELECT`: the query whose rows fill the new table, with the
        /// new table's position of each of its columns.
        select: Option<(Arc<dyn SubqueryPlan>, Vec<usize>)>,
    },
    DropTables {
        tables: Vec<(String, String)>,
        if_exists: bool,
    },
    /// CREATE VIEW or ALTER VIEW (see `view`).
    CreateView(Box<view::CreateView>),
    /// DROP VIEW (see `drop_view`).
    DropViews {
        names: Vec<(String, String)>,
        if_exists: bool,
    },
    Truncate {
        database: String,
        name: String,
    },
    /// CHECK TABLE / ANALYZE TABLE (analyze: false / true) over (database, table) names.
    Maintenance {
        analyze: bool,
        tables: Vec<(Option<String>, String)>,
    },
    /// ALTER TABLE: the new definition and, per new column, the old column it comes from
    /// (None: a new column, filled with its default).
    AlterTable {
        table: crate::plan::tables::TableRef,
        def: myriad_storage::TableDef,
        sources: Vec<Option<usize>>,
    },
    RenameTables {
        renames: Vec<((String, String), (String, String))>,
    },
    /// CREATE INDEX / DROP INDEX (a table rebuild through the storage's ALTER).
    AlterIndexes {
        database: String,
        name: String,
        add: Option<myriad_storage::IndexDef>,
        drop: Option<String>,
    },
    Insert(crate::plan::tables::InsertPlan),
    SelectTable(Box<crate::plan::tables::TableSelect>),
    Update(crate::plan::tables::UpdatePlan),
    Delete(crate::plan::tables::DeletePlan),
    /// EXPLAIN of a compiled SELECT ([`crate::plan::explain`]).
    Explain(Box<Stmt>),
    /// LOAD INDEX INTO CACHE / CACHE INDEX (see `key_cache`).
    KeyCache(crate::plan::key_cache::KeyCacheStmt),
    /// UNION / INTERSECT / EXCEPT, as the query of a derived table (a top-level one is
    /// read through one, see [`union`]).
    Union(Box<union::UnionPlan>),
    /// `LOCK TABLE[S] t [[AS] alias] {READ [LOCAL] | [LOW_PRIORITY] WRITE [CONCURRENT]}, ...`
    /// (see `crate::exec::lock_tables`).
    LockTables(Vec<commands::LockItem>),
    /// `SELECT ... INTO @a, @b` (see [`select_into`]).
    SelectInto(Box<select_into::SelectInto>),
    /// `LOAD DATA [LOCAL] INFILE` (see [`load_data`]).
    LoadData(Box<load_data::LoadDataPlan>),
    /// `UNLOCK TABLES`: releases the session's table locks (a session never holds the
    /// global read lock: FLUSH TABLES WITH READ LOCK answers 1235).
    UnlockTables,
    /// A statement that is only a comment.
    Empty,
}

impl Stmt {
    /// Whether MariaDB commits an open transaction before it runs this statement: DDL,
    /// account statements, FLUSH, table maintenance and the key cache statements.
    pub fn commits_implicitly(&self) -> bool {
        matches!(
            self,
            Stmt::CreateDatabase { .. }
                | Stmt::DropDatabase { .. }
                | Stmt::CreateUser { .. }
                | Stmt::DropUser { .. }
                | Stmt::AlterUser { .. }
                | Stmt::Grant(_)
                | Stmt::Role(
                    roles::RoleStmt::Create { .. }
                        | roles::RoleStmt::Drop { .. }
                        | roles::RoleStmt::Grant { .. }
                )
                | Stmt::SetPassword { .. }
                | Stmt::RenameUser(_)
                | Stmt::FlushStatus
                | Stmt::Flush { .. }
                | Stmt::FlushTables(_)
                | Stmt::CreateTable { .. }
                | Stmt::DropTables { .. }
                | Stmt::DropRoutine { .. }
                | Stmt::Plugin { .. }
                | Stmt::Truncate { .. }
                | Stmt::Maintenance { .. }
                | Stmt::AlterTable { .. }
                | Stmt::RenameTables { .. }
                | Stmt::AlterIndexes { .. }
                | Stmt::KeyCache(_)
                | Stmt::Shutdown
                | Stmt::LockTables(_)
        )
    }

    /// Whether the statement reads or writes tables (with autocommit off, the first such
    /// statement opens a transaction).
    pub fn uses_tables(&self) -> bool {
        matches!(
            self,
            Stmt::Insert(_)
                | Stmt::SelectTable(_)
                | Stmt::Update(_)
                | Stmt::Delete(_)
                | Stmt::LoadData(_)
        )
    }

    /// The Com_* counter this statement bumps.
    pub fn counter(&self) -> Counter {
        match self {
            Stmt::Select(_) | Stmt::Do(_) | Stmt::Union(_) => Counter::ComSelect,
            Stmt::UnlockTables => Counter::ComUnlockTables,
            Stmt::Plugin { install: true, .. } => Counter::ComInstallPlugin,
            Stmt::Plugin { .. } => Counter::ComUninstallPlugin,
            Stmt::LockTables(_) => Counter::ComLockTables,
            Stmt::LoadData(_) => Counter::ComLoad,
            Stmt::SelectInto(_) => Counter::ComSelect,
            Stmt::Set(_)
            | Stmt::SetNames { .. }
            | Stmt::SetCharacterSet(_)
            | Stmt::SetTransaction { .. } => Counter::ComSetOption,
            Stmt::ShowVariables { .. } => Counter::ComShowVariables,
            Stmt::ShowStatus { .. } => Counter::ComShowStatus,
            Stmt::ShowDatabases { .. } => Counter::ComShowDatabases,
            Stmt::ShowTables { .. } => Counter::ComShowTables,
            Stmt::ShowWarnings { .. } => Counter::ComShowWarnings,
            Stmt::ShowCollation { .. }
            | Stmt::ShowCharset { .. }
            | Stmt::ShowEngines
            | Stmt::ShowPlugins
            | Stmt::ShowProcessList => Counter::ComShowVariables,
            Stmt::ShowColumns { .. } => Counter::ComShowFields,
            Stmt::ShowCreateTable { .. } => Counter::ComShowCreateTable,
            Stmt::ShowIndex { .. } => Counter::ComShowKeys,
            Stmt::ShowCreateDatabase { .. } => Counter::ComShowCreateTable,
            Stmt::Use(_) => Counter::ComChangeDb,
            Stmt::CreateDatabase { .. } => Counter::ComCreateDb,
            Stmt::DropDatabase { .. } => Counter::ComDropDb,
            Stmt::CreateUser { .. } => Counter::ComCreateUser,
            Stmt::DropUser { .. } => Counter::ComDropUser,
            Stmt::AlterUser { .. } => Counter::ComAlterUser,
            Stmt::Grant(g) if g.revoke => Counter::ComRevoke,
            Stmt::Grant(_) => Counter::ComGrant,
            Stmt::ShowGrants(_) => Counter::ComShowGrants,
            Stmt::ShowCreateUser(_) => Counter::ComShowCreateUser,
            Stmt::Role(r) => match r {
                roles::RoleStmt::Create { .. } => Counter::ComCreateRole,
                roles::RoleStmt::Drop { .. } => Counter::ComDropRole,
                roles::RoleStmt::Grant { revoke: false, .. } => Counter::ComGrantRole,
                roles::RoleStmt::Grant { revoke: true, .. } => Counter::ComRevokeRole,
                roles::RoleStmt::Set(_) | roles::RoleStmt::SetDefault { .. } => {
                    Counter::ComSetOption
                }
            },
            Stmt::SetPassword { .. } => Counter::ComSetOption,
            Stmt::RenameUser(_) => Counter::ComRenameUser,
            Stmt::FlushStatus
            | Stmt::Flush { .. }
            | Stmt::FlushTables(_)
            | Stmt::QueryCache { .. } => Counter::ComFlush,
            Stmt::ShowOpenTables { .. } => Counter::ComShowTables,
            Stmt::Shutdown => Counter::ComShutdown,
            Stmt::Kill { .. } => Counter::ComKill,
            Stmt::Begin { .. } => Counter::ComBegin,
            Stmt::Commit { .. } => Counter::ComCommit,
            Stmt::Rollback { .. } => Counter::ComRollback,
            Stmt::Savepoint(_) => Counter::ComSavepoint,
            Stmt::RollbackToSavepoint(_) => Counter::ComRollbackToSavepoint,
            Stmt::ReleaseSavepoint(_) => Counter::ComReleaseSavepoint,
            Stmt::Empty => Counter::ComAdminCommands,
            Stmt::DropViews { .. } => Counter::ComDropView,
            // As MariaDB: ALTER VIEW counts as Com_create_view.
            Stmt::CreateView(_) => Counter::ComCreateView,
            Stmt::CreateTable { .. } => Counter::ComCreateTable,
            Stmt::DropTables { .. } => Counter::ComDropTable,
            Stmt::DropRoutine {
                kind: "PROCEDURE", ..
            } => Counter::ComDropProcedure,
            Stmt::DropRoutine { .. } => Counter::ComDropFunction,
            Stmt::Truncate { .. } => Counter::ComTruncate,
            Stmt::Maintenance { analyze: true, .. } => Counter::ComAnalyze,
            Stmt::Maintenance { .. } => Counter::ComCheck,
            Stmt::RenameTables { .. } => Counter::ComRenameTable,
            Stmt::AlterTable { .. } => Counter::ComAlterTable,
            Stmt::AlterIndexes { add: Some(_), .. } => Counter::ComCreateIndex,
            Stmt::AlterIndexes { .. } => Counter::ComDropIndex,
            Stmt::Insert(p) if p.replace => Counter::ComReplace,
            Stmt::Insert(_) => Counter::ComInsert,
            Stmt::SelectTable(_) => Counter::ComSelect,
            // MariaDB counts EXPLAIN of a statement as that statement.
            Stmt::Explain(inner) => inner.counter(),
            Stmt::Update(_) => Counter::ComUpdate,
            Stmt::Delete(_) => Counter::ComDelete,
            Stmt::KeyCache(crate::plan::key_cache::KeyCacheStmt::LoadIndex { .. }) => {
                Counter::ComPreloadKeys
            }
            Stmt::KeyCache(crate::plan::key_cache::KeyCacheStmt::SetStructured(_)) => {
                Counter::ComSetOption
            }
            Stmt::KeyCache(_) => Counter::ComAssignToKeycache,
        }
    }
}

/// What compiling needs from the session: the catalog (table definitions), the current
/// database and the SQL mode.
pub struct CompileCtx<'a> {
    pub catalog: &'a crate::catalog::Catalog,
    pub database: Option<&'a str>,
    pub pipes_as_concat: bool,
    /// The common table expressions in scope (`WITH name AS (...)`), the last defined
    /// first (see [`derived::Cte`]).
    pub ctes: Option<Arc<derived::Cte>>,
}

impl crate::expr::StatementCompiler for CompileCtx<'_> {
    fn subquery(
        &self,
        q: &sqlparser::ast::Query,
        c: &Compiler,
    ) -> Result<Arc<dyn SubqueryPlan>, SqlError> {
        let Some(map) = c.map else {
            return Err(SqlError::not_supported("subqueries here"));
        };
        let stmt = query::compile_subquery(q, map, c, self)?;
        let outer = c.outer.map(|o| o.captured.take()).unwrap_or_default();
        if outer.is_empty() {
            return Ok(Arc::new(stmt));
        }
        Ok(Arc::new(Correlated { stmt, outer }))
    }

    fn structured(
        &self,
        scope: crate::expr::VarScope,
        cache: &str,
        name: &str,
    ) -> Result<Expr, SqlError> {
        key_cache::compile_structured(self, scope, cache, name)
    }
}

impl<'a> CompileCtx<'a> {
    /// The same context with `ctes` as the common table expressions in scope.
    pub fn with_ctes(&self, ctes: Option<Arc<derived::Cte>>) -> CompileCtx<'a> {
        CompileCtx {
            catalog: self.catalog,
            database: self.database,
            pipes_as_concat: self.pipes_as_concat,
            ctes,
        }
    }
}

/// A subquery's plan is a statement ([`Stmt::Select`] or [`Stmt::SelectTable`]).
impl SubqueryPlan for Stmt {
    fn first_column_type(&self, env: &dyn crate::expr::Env) -> crate::expr::eval::SqlType {
        query::first_column_type(self, env)
    }

    fn first_column_collation(&self) -> crate::expr::collation::Derived {
        query::first_column_collation(self)
    }

    fn column_count(&self) -> usize {
        query::column_count(self)
    }

    fn column_collations(&self) -> Vec<crate::expr::collation::Derived> {
        (0..query::column_count(self))
            .map(|i| query::column_collation(self, i))
            .collect()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A correlated subquery: its statement, and the columns of the enclosing query it reads
/// (see [`crate::expr::Expr::Outer`]).
#[derive(Debug)]
pub struct Correlated {
    pub stmt: Stmt,
    pub outer: Vec<crate::expr::OuterSource>,
}

impl SubqueryPlan for Correlated {
    fn first_column_type(&self, env: &dyn crate::expr::Env) -> crate::expr::eval::SqlType {
        query::first_column_type(&self.stmt, env)
    }

    fn first_column_collation(&self) -> crate::expr::collation::Derived {
        query::first_column_collation(&self.stmt)
    }

    fn column_count(&self) -> usize {
        query::column_count(&self.stmt)
    }

    fn column_collations(&self) -> Vec<crate::expr::collation::Derived> {
        (0..query::column_count(&self.stmt))
            .map(|i| query::column_collation(&self.stmt, i))
            .collect()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn outer_columns(&self) -> &[crate::expr::OuterSource] {
        &self.outer
    }
}

impl Stmt {
    /// The statement of a subquery expression (every one is, as [`CompileCtx`] compiles
    /// them: the statement itself, or a [`Correlated`] one).
    pub fn of_subquery(query: &dyn SubqueryPlan) -> Option<&Stmt> {
        let any = query.as_any();
        any.downcast_ref()
            .or_else(|| any.downcast_ref::<Correlated>().map(|c| &c.stmt))
    }
}

/// Parse and compile one statement; with it, how many `?` placeholders it has.
pub fn compile_statement(
    raw: &RawStatement,
    map: &SourceMap,
    ctx: &CompileCtx,
) -> Result<(Stmt, usize), SqlError> {
    crate::depth::check_tokens(&raw.tokens)?;
    let placeholders = number_placeholders(&raw.tokens);
    let no_columns = ColumnScope::default();
    let compiler = Compiler {
        source: map.source(),
        scope: &no_columns,
        placeholders: &placeholders,
        pipes_as_concat: ctx.pipes_as_concat,
        ctx: Some(ctx),
        map: Some(map),
        lists: None,
        outer: None,
    };
    let mut c = Cursor {
        tokens: &raw.tokens,
        pos: 0,
        map,
        text: raw.text.clone(),
    };
    let second = |c: &Cursor| c.peek_word_at(1);
    let stmt = match c.peek_word().as_deref() {
        None if raw.tokens.is_empty() => Stmt::Empty,
        Some("SET") if second(&c).as_deref() == Some("PASSWORD") => grants::set_password(&mut c)?,
        Some("SET")
            if second(&c).as_deref() == Some("ROLE")
                || (second(&c).as_deref() == Some("DEFAULT")
                    && c.peek_word_at(2).as_deref() == Some("ROLE")) =>
        {
            roles::set(&mut c)?
        }
        Some("CREATE" | "DROP") if second(&c).as_deref() == Some("ROLE") => {
            roles::create_or_drop(&mut c)?
        }
        Some("GRANT" | "REVOKE") if roles::grants_roles(&c) => roles::grant(&mut c)?,
        Some("SET") if key_cache_parse::is_structured_set(&c) => {
            key_cache_parse::structured_set(&mut c, &compiler)?
        }
        Some("SET") => {
            c.pos += 1;
            parse_set(&mut c, &compiler)?
        }
        Some("SHOW") => {
            c.pos += 1;
            parse_show(&mut c, &compiler)?
        }
        Some("DESCRIBE" | "DESC" | "EXPLAIN")
            if explain::is_explain_of_statement(second(&c).as_deref()) =>
        {
            explain::compile_explain(&mut c, raw, map, &compiler, ctx)?
        }
        // Otherwise the columns of a table (the arm above takes statements).
        Some("DESCRIBE" | "DESC" | "EXPLAIN") => commands::describe_table(&mut c)?,
        Some("CHECK" | "ANALYZE") => commands::maintenance(&mut c)?,
        Some("USE") => commands::use_database(&mut c)?,
        Some("CREATE" | "ALTER") if view::is_view_ddl(&c) => view::create(&mut c, ctx)?,
        Some("CREATE" | "DROP") if matches!(second(&c).as_deref(), Some("DATABASE" | "SCHEMA")) => {
            commands::database(&mut c)?
        }
        Some("RENAME") if second(&c).as_deref() == Some("USER") => grants::rename_user(&mut c)?,
        Some("CREATE" | "DROP" | "ALTER") if second(&c).as_deref() == Some("USER") => {
            commands::account(&mut c)?
        }
        Some("FLUSH") => commands::flush(&mut c)?,
        Some("ALTER") if commands::is_keys_toggle(&c) => {
            commands::keys_toggle(&mut c, ctx.database)?
        }
        Some("LOAD") if matches!(second(&c).as_deref(), Some("DATA")) => {
            load_data::load_data(&mut c, ctx)?
        }
        Some("LOCK") if matches!(second(&c).as_deref(), Some("TABLES" | "TABLE")) => {
            commands::lock_tables(&mut c, ctx.database)?
        }
        Some("UNLOCK") if matches!(second(&c).as_deref(), Some("TABLES" | "TABLE")) => {
            c.pos += 2;
            c.expect_end()?;
            Stmt::UnlockTables
        }
        Some("GRANT" | "REVOKE") => grants::grant(&mut c)?,
        Some("RESET") if second(&c).as_deref() == Some("QUERY") => {
            commands::reset_query_cache(&mut c)?
        }
        Some("KILL") => parse_kill(&mut c, &compiler)?,
        Some("SHUTDOWN") => commands::shutdown(&mut c)?,
        Some("BEGIN" | "START" | "COMMIT" | "ROLLBACK" | "SAVEPOINT") => {
            commands::transaction(&mut c)?
        }
        Some("RELEASE") if second(&c).as_deref() == Some("SAVEPOINT") => {
            commands::transaction(&mut c)?
        }
        Some("LOAD") if second(&c).as_deref() == Some("INDEX") => {
            key_cache_parse::load_index(&mut c)?
        }
        Some("CACHE") if second(&c).as_deref() == Some("INDEX") => {
            key_cache_parse::cache_index(&mut c)?
        }
        Some("DO") => commands::do_exprs(&mut c, &compiler)?,
        Some("INSTALL" | "UNINSTALL") => commands::plugin(&mut c)?,
        Some("CALL") => commands::call(&mut c, &compiler, ctx.database)?,
        Some("DROP") if matches!(second(&c).as_deref(), Some("PROCEDURE" | "FUNCTION")) => {
            commands::drop_routine(&mut c, ctx.database)?
        }
        Some("SELECT" | "WITH") if select_into::into_at(&raw.tokens).is_some() => {
            select_into::compile(raw, map, &compiler, ctx)?
        }
        None if raw.tokens.first().map(|t| &t.token) == Some(&Token::LParen)
            && select_into::into_at(&raw.tokens).is_some() =>
        {
            select_into::compile(raw, map, &compiler, ctx)?
        }
        _ => parse_with_sqlparser(raw, map, &compiler, ctx)?,
    };
    Ok((stmt, placeholders.len()))
}

/// The `?` placeholders numbered in text order, by their token's position.
fn number_placeholders(tokens: &[TokenWithSpan]) -> HashMap<(u64, u64), usize> {
    let mut placeholders = HashMap::new();
    for t in tokens {
        if matches!(&t.token, Token::Placeholder(p) if p == "?") {
            let n = placeholders.len();
            placeholders.insert((t.span.start.line, t.span.start.column), n);
        }
    }
    placeholders
}
