//! SQL's prepared statements: `PREPARE name FROM text`, `EXECUTE name [USING ...]`,
//! `EXECUTE IMMEDIATE text [USING ...]`, `{DEALLOCATE | DROP} PREPARE name`.
//!
//! A statement is compiled and kept as the binary protocol's are (`exec::prepared`), under
//! its name, which is case-insensitive and the session's own: a reset or a disconnect
//! drops it. As in MariaDB:
//! - a PREPARE of a name in use drops the statement that had it first, even when the new
//!   text does not compile;
//! - the text is an expression (a string, a user variable), read as text (NULL is `NULL`,
//!   a syntax error);
//! - a text holding one of these statements answers 1295 (ER_UNSUPPORTED_PS), an empty
//!   one 1065, several statements 1064;
//! - a parameter takes the type of its value (a user variable holding a string binds a
//!   string), and the number of values must be the number of placeholders (1210).
//!
//! Not built (1235): `SET STATEMENT ... FOR` as a prepared text, `DEFAULT` or `IGNORE` as a
//! parameter, `CREATE TABLE ... SELECT` with placeholders.

use crate::error::SqlError;
use crate::exec::prepared::{compile_prepared, run_prepared};
use crate::expr::Expr;
use crate::parser::source::{RawStatement, SourceMap};
use crate::plan::set_statement::is_set_statement;
use crate::plan::sql_prepared::{is_sql_prepared, SqlPrepared};
use crate::plan::Stmt;
use crate::result::QueryResult;
use crate::session::Prepared;
use crate::system::status::Counter;
use crate::value::Value;
use crate::Session;
use myriad_types::errors::{
    ER_EMPTY_QUERY, ER_UNKNOWN_STMT_HANDLER, ER_UNSUPPORTED_PS, ER_WRONG_ARGUMENTS,
};

impl Session {
    /// Run one statement of a COM_QUERY text that is one of SQL's prepared-statement
    /// statements ([`is_sql_prepared`]). An EXECUTE sends a SELECT's rows to `out` where it
    /// can, as the statement run directly would.
    pub(crate) fn run_sql_prepared(
        &mut self,
        raw: &RawStatement,
        map: &SourceMap,
        out: Option<&mut (dyn crate::RowSink + '_)>,
    ) -> Result<QueryResult, SqlError> {
        let compiled = {
            let ctx = self.compile_ctx();
            crate::plan::sql_prepared::compile(raw, map, &ctx)
        };
        match self.unrun(compiled)? {
            SqlPrepared::Prepare { name, text } => self.prepare_named(&name, &text),
            SqlPrepared::Execute { name, using } => self.execute_named(&name, &using, out),
            SqlPrepared::Immediate { text, using } => self.execute_immediate(&text, &using, out),
            SqlPrepared::Deallocate { name } => {
                self.bump(Counter::ComDeallocSql);
                if self.state.named_prepared.remove(&key(&name)).is_none() {
                    return self.unrun(Err(unknown(&name, "DEALLOCATE PREPARE")));
                }
                Ok(self.finished(String::new()))
            }
        }
    }

    fn prepare_named(&mut self, name: &str, text: &Expr) -> Result<QueryResult, SqlError> {
        self.bump(Counter::ComPrepareSql);
        // The name's statement goes first, whether or not the new one compiles.
        self.state.named_prepared.remove(&key(name));
        let sql = self.text_of(text);
        let sql = self.unrun(sql)?;
        let prepared = self.compile_text(&sql);
        let prepared = self.unrun(prepared)?;
        self.state.named_prepared.insert(key(name), prepared);
        Ok(self.finished("Statement prepared".to_string()))
    }

    fn execute_named(
        &mut self,
        name: &str,
        using: &[Expr],
        out: Option<&mut (dyn crate::RowSink + '_)>,
    ) -> Result<QueryResult, SqlError> {
        self.bump(Counter::ComExecuteSql);
        let Some(mut prepared) = self.state.named_prepared.remove(&key(name)) else {
            return self.unrun(Err(unknown(name, "EXECUTE")));
        };
        // Taken out while it runs, so that the session can be borrowed mutably; none of
        // the statements a prepared text may hold reaches this map.
        let result = match self.parameters(using, prepared.param_count) {
            Ok(params) => match self.refresh_definitions(&mut prepared) {
                Ok(()) => run_prepared(self, &mut prepared, &params, out, "EXECUTE"),
                Err(e) => self.unrun(Err(e)),
            },
            Err(e) => self.unrun(Err(e)),
        };
        self.state.named_prepared.insert(key(name), prepared);
        result
    }

    fn execute_immediate(
        &mut self,
        text: &Expr,
        using: &[Expr],
        out: Option<&mut (dyn crate::RowSink + '_)>,
    ) -> Result<QueryResult, SqlError> {
        self.bump(Counter::ComExecuteImmediate);
        let sql = self.text_of(text);
        let sql = self.unrun(sql)?;
        let prepared = self.compile_text(&sql);
        let mut prepared = self.unrun(prepared)?;
        let params = self.parameters(using, prepared.param_count);
        let params = self.unrun(params)?;
        run_prepared(self, &mut prepared, &params, out, "EXECUTE")
    }

    /// A prepared text, compiled: see [`screen`]. The type of a column that `CREATE TABLE
    /// ... SELECT ? AS c` adds would follow the value bound at EXECUTE, which its plan
    /// cannot know (a placeholder is typed as NULL there): not built (1235). A column the
    /// statement defines (`CREATE TABLE t (c INT) SELECT ? AS c`) keeps its type.
    fn compile_text(&mut self, sql: &str) -> Result<Prepared, SqlError> {
        let prepared = compile_prepared(self, sql, screen)?;
        if let Stmt::CreateTable {
            def,
            select: Some((_, positions)),
            ..
        } = &prepared.stmt
        {
            let null_typed = positions.iter().any(|&at| {
                def.columns
                    .get(at)
                    .is_some_and(|c| c.ty == crate::plan::derived::NULL_COLUMN)
            });
            if prepared.param_count > 0 && null_typed {
                return Err(SqlError::not_supported(
                    "CREATE TABLE ... SELECT adding a column of a parameter in a prepared statement",
                ));
            }
        }
        Ok(prepared)
    }

    /// A DDL statement's plan holds the definitions it read when it was compiled (`CREATE
    /// TABLE ... LIKE t` a copy of t's): it is compiled again before each run, so that it
    /// sees the tables as they are now (1146 for one dropped since, an ALTER's columns).
    /// Another plan is compiled again here where `run_prepared` would (see
    /// `exec::prepared::opens_tables_late`), so that an error doing so is the one SHOW
    /// WARNINGS shows.
    fn refresh_definitions(&mut self, prepared: &mut Prepared) -> Result<(), SqlError> {
        if !prepared.stmt.commits_implicitly() {
            let now = self.engine.catalog.storage().ddl_count();
            if prepared.ddl_count.is_some_and(|count| count != now) {
                crate::exec::prepared::replan(self, prepared)?;
            }
            return Ok(());
        }
        let (stmt, count) = crate::exec::prepared::recompile(self, &prepared.sql)?;
        if count == prepared.param_count {
            prepared.stmt = stmt;
        }
        Ok(())
    }

    /// The values of USING's expressions, as many as the statement has placeholders.
    fn parameters(&self, using: &[Expr], count: usize) -> Result<Vec<Value>, SqlError> {
        if using.len() != count {
            return Err(SqlError::new(
                ER_WRONG_ARGUMENTS,
                "Incorrect arguments to EXECUTE",
            ));
        }
        let mut env = self.env(&[]);
        using.iter().map(|e| e.eval(&mut env, &[])).collect()
    }

    /// A statement's text from its expression's value: NULL reads as `NULL`.
    fn text_of(&self, text: &Expr) -> Result<String, SqlError> {
        let value = text.eval(&mut self.env(&[]), &[])?;
        Ok(match value.to_text() {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => "NULL".to_string(),
        })
    }

    /// A statement that ended before it ran: its error is the one SHOW WARNINGS shows.
    fn unrun<T>(&mut self, result: Result<T, SqlError>) -> Result<T, SqlError> {
        if let Err(e) = &result {
            self.failed_unrun(e);
        }
        result
    }

    /// The OK of a PREPARE or DEALLOCATE: no warnings, no rows affected.
    fn finished(&mut self, info: String) -> QueryResult {
        self.state.warnings.clear();
        self.state.row_count = 0;
        QueryResult::Ok {
            affected_rows: 0,
            last_insert_id: 0,
            warnings: 0,
            info,
        }
    }
}

/// A statement's name as its session keys it: names are case-insensitive.
fn key(name: &str) -> String {
    name.to_lowercase()
}

fn unknown(name: &str, command: &str) -> SqlError {
    SqlError::new(
        ER_UNKNOWN_STMT_HANDLER,
        format!("Unknown prepared statement handler ({name}) given to {command}"),
    )
}

/// What a prepared text may not hold: nothing (1065), SQL's prepared-statement
/// statements themselves (1295), SET STATEMENT (not built here: 1235).
fn screen(_: &SourceMap, raws: &[RawStatement]) -> Result<(), SqlError> {
    let Some(first) = raws.first().filter(|r| !r.tokens.is_empty()) else {
        return Err(SqlError::new(ER_EMPTY_QUERY, "Query was empty"));
    };
    if is_sql_prepared(&first.tokens) {
        return Err(SqlError::new(
            ER_UNSUPPORTED_PS,
            "This command is not supported in the prepared statement protocol yet",
        ));
    }
    if is_set_statement(&first.tokens) {
        return Err(SqlError::not_supported(
            "SET STATEMENT in a prepared statement",
        ));
    }
    Ok(())
}
