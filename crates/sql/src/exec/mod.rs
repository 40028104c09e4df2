//! Execution: the dispatch from a compiled statement to the function that runs it.

use myriad_types::errors::{ER_EMPTY_QUERY, ER_NO_DB_ERROR};
pub mod accounts;
pub mod accumulate;
pub mod admin;
pub mod aggregate;
pub mod alter_table;
pub mod column_uses;
pub mod ddl;
pub mod distinct;
pub mod entry;
pub mod env;
pub mod explain;
pub mod foreign_keys;
pub mod found_rows;
pub mod group_concat;
pub mod info_schema;
pub mod join;
pub mod key_cache;
pub mod load_data;
pub mod load_fields;
pub mod lock_tables;
pub mod outfile_fields;
pub mod prepared;
pub mod privilege_masks;
pub mod privileges;
pub mod proxies;
pub mod query_cache;
pub mod read;
pub mod roles;
pub mod rollup;
pub mod select;
pub mod select_into;
pub mod select_outfile;
pub mod server_files;
pub mod set_ops;
pub mod set_statement;
pub mod show;
pub mod show_columns;
pub mod sort;
pub mod sort_by_row_id;
pub mod source;
pub mod spill;
pub mod sql_prepared;
pub mod stream;
pub mod table_cache;
pub mod transaction;
pub mod user_locks;
pub mod views;
pub mod window;
pub mod write;

use crate::catalog;
use crate::error::SqlError;
use crate::expr::eval::Warning;
use crate::plan::ShowFilter;
use crate::plan::Stmt;
use crate::result::QueryResult;

use crate::exec::admin::*;
use crate::exec::env::*;
use crate::exec::select::*;
use crate::exec::show::*;
use crate::Session;

impl Session {
    pub(crate) fn dispatch(&self, stmt: &Stmt, env: &mut ExecEnv) -> Result<Pending, SqlError> {
        Ok(Pending::Done(match stmt {
            Stmt::Select(plan) => select(plan, env)?,
            // Compiled only as a derived table's query (`exec::source`).
            Stmt::Union(_) => return Err(SqlError::not_supported("a set operation here")),
            Stmt::Do(exprs) => {
                for e in exprs {
                    e.eval(env, &[])?;
                }
                ok(0)
            }
            s @ (Stmt::Set(..)
            | Stmt::SetNames { .. }
            | Stmt::SetCharacterSet(..)
            | Stmt::SetTransaction { .. }) => return self.set_statement(s, env),
            s @ (Stmt::ShowVariables { .. }
            | Stmt::ShowStatus { .. }
            | Stmt::ShowDatabases { .. }
            | Stmt::ShowOpenTables { .. }
            | Stmt::ShowTables { .. }
            | Stmt::ShowWarnings { .. }
            | Stmt::ShowCollation { .. }
            | Stmt::ShowCharset { .. }
            | Stmt::ShowEngines
            | Stmt::ShowPlugins
            | Stmt::ShowColumns { .. }
            | Stmt::ShowCreateTable { .. }
            | Stmt::ShowIndex { .. }
            | Stmt::ShowProcessList
            | Stmt::ShowCreateDatabase { .. }) => self.show(s, env)?,
            Stmt::Use(db) => {
                if !self.engine.catalog.database_exists(db) {
                    return Err(catalog::err_unknown_database(db));
                }
                return Ok(Pending::Use(db.clone()));
            }
            s @ (Stmt::CreateDatabase { .. }
            | Stmt::DropDatabase { .. }
            | Stmt::CreateTable { .. }
            | Stmt::DropTables { .. }
            | Stmt::DropViews { .. }
            | Stmt::CreateView(_)
            | Stmt::Truncate { .. }
            | Stmt::AlterIndexes { .. }
            | Stmt::Maintenance { .. }
            | Stmt::AlterTable { .. }
            | Stmt::RenameTables { .. }) => return self.ddl(s, env),
            s @ (Stmt::CreateUser { .. }
            | Stmt::DropUser { .. }
            | Stmt::AlterUser { .. }
            | Stmt::FlushStatus
            | Stmt::FlushTables(..)
            | Stmt::Flush { .. }
            | Stmt::KeyCache(..)
            | Stmt::QueryCache { .. }
            | Stmt::Kill { .. }
            | Stmt::Shutdown) => return self.admin(s, env),
            Stmt::Begin { .. }
            | Stmt::Commit { .. }
            | Stmt::Rollback { .. }
            | Stmt::Savepoint(_)
            | Stmt::RollbackToSavepoint(_)
            | Stmt::ReleaseSavepoint(_) => return Ok(Pending::Transaction),
            // Run before the dispatch, with the session's grants (see `exec::privileges`).
            Stmt::Grant(_)
            | Stmt::ShowGrants(_)
            | Stmt::ShowCreateUser(_)
            | Stmt::Role(_)
            | Stmt::SetPassword { .. }
            | Stmt::RenameUser(_)
            | Stmt::LockTables(_)
            | Stmt::SelectInto(_)
            | Stmt::UnlockTables => {
                return Err(SqlError::not_supported("this statement here"));
            }
            Stmt::DropRoutine {
                kind,
                name,
                if_exists,
            } => {
                let e = SqlError::of(myriad_types::errors::ER_SP_DOES_NOT_EXIST, &[kind, name]);
                if !*if_exists {
                    return Err(e);
                }
                env.warnings.push(note(e.code, e.message));
                ok(0)
            }
            Stmt::Empty => {
                return Err(SqlError::new(ER_EMPTY_QUERY, "Query was empty"));
            }
            Stmt::Plugin {
                install,
                name,
                soname,
            } => {
                crate::exec::admin::plugin_statement(*install, name.as_deref(), soname.as_deref())?
            }
            Stmt::Insert(plan) => return self.insert(plan, env),
            Stmt::LoadData(plan) => return self.load_data(plan, env),
            Stmt::SelectTable(plan) => Session::select_table(plan, env)?,
            Stmt::Update(plan) => self.update(plan, env)?,
            Stmt::Delete(plan) => self.delete(plan, env)?,
            Stmt::Explain(inner) => {
                crate::exec::explain::explain(inner, self.engine.catalog.storage(), env)?
            }
        }))
    }
}
/// What a statement leaves for the `&mut self` step.
pub(crate) enum Pending {
    Done(QueryResult),
    /// An INSERT that generated this AUTO_INCREMENT value (LAST_INSERT_ID()).
    Inserted(QueryResult, u64),
    Assign(Vec<Change>),
    Use(String),
    DroppedDatabase(String, u64),
    /// BEGIN, COMMIT, ROLLBACK and the savepoint statements.
    Transaction,
    /// `SET TRANSACTION` without a scope: the next transaction's characteristics.
    NextTransaction(crate::session::transaction::NextTransaction),
    FlushStatus,
}

pub(crate) fn ok(affected_rows: u64) -> QueryResult {
    QueryResult::Ok {
        affected_rows,
        last_insert_id: 0,
        warnings: 0,
        info: String::new(),
    }
}

pub(crate) fn note(code: u16, message: String) -> Warning {
    Warning {
        level: "Note",
        code,
        message,
    }
}

pub(crate) fn err_no_database() -> SqlError {
    SqlError::new(ER_NO_DB_ERROR, "No database selected")
}
