//! `SET STATEMENT var = value [, ...] FOR statement`: the statement runs with those session
//! variables set, and the variables get their previous values back afterwards, whether it
//! succeeded or failed, as in MariaDB.

use crate::error::SqlError;
use crate::parser::source::{RawStatement, SourceMap};
use crate::plan::set_statement::is_set_statement;
use crate::plan::Stmt;
use crate::result::QueryResult;
use crate::system::sysvars::VarValue;
use crate::Session;

/// A session variable's value before a SET STATEMENT set it.
enum Saved {
    /// The session's own value, or None where it had the value it started with.
    Variable(usize, Option<VarValue>),
    /// `last_insert_id`, which the session keeps outside its variables.
    LastInsertId(u64),
}

impl Session {
    /// Run one statement of a COM_QUERY text that is a `SET STATEMENT ... FOR`.
    /// `out` is handed to a LOAD DATA (LOCAL reads the client's file through it); a
    /// SELECT's rows are held whole, as the variables must not outlive the statement.
    pub(crate) fn run_set_statement(
        &mut self,
        raw: &RawStatement,
        map: &SourceMap,
        out: Option<&mut (dyn crate::RowSink + '_)>,
    ) -> Result<QueryResult, SqlError> {
        // The whole text is read under the sql_mode it was sent under, as MariaDB parses
        // it before the variables are set: `||` means what it meant before.
        let pipes_as_concat = self.compile_ctx().pipes_as_concat;
        self.set_statement_under(raw, map, out, pipes_as_concat)
    }

    fn set_statement_under(
        &mut self,
        raw: &RawStatement,
        map: &SourceMap,
        out: Option<&mut (dyn crate::RowSink + '_)>,
        pipes_as_concat: bool,
    ) -> Result<QueryResult, SqlError> {
        let before_run = |session: &mut Session, e: SqlError| {
            session.failed_unrun(&e);
            e
        };
        let compiled = {
            let ctx = crate::plan::CompileCtx {
                pipes_as_concat,
                ..self.compile_ctx()
            };
            crate::plan::set_statement::compile(raw, map, &ctx)
        };
        let set = compiled.map_err(|e| before_run(self, e))?;
        if is_set_statement(&set.inner.tokens) {
            // As in MariaDB, of nested SET STATEMENTs only the innermost sets its variables.
            return self.set_statement_under(&set.inner, map, out, pipes_as_concat);
        }
        let (changes, warnings) = {
            let mut env = self.env(&[]);
            let changes = self.check_assignments(&set.assignments, &mut env);
            (changes, env.warnings)
        };
        let changes = changes.map_err(|e| before_run(self, e))?;
        let last_insert_id = crate::system::sysvars::lookup("last_insert_id");
        let saved: Vec<Saved> = changes
            .iter()
            .filter(|c| c.user.is_none() && !c.global)
            .map(|c| match Some(c.index) == last_insert_id {
                true => Saved::LastInsertId(self.state.last_insert_id),
                false => Saved::Variable(c.index, self.state.overrides.get(&c.index).cloned()),
            })
            .collect();
        self.apply_assignments(changes)
            .map_err(|e| before_run(self, e))?;
        let result = self.run_for(&set.inner, map, out, pipes_as_concat);
        // Restored in reverse, so that a variable named twice gets its first value back.
        for saved in saved.into_iter().rev() {
            match saved {
                Saved::Variable(index, Some(value)) => {
                    self.state.overrides.insert(index, value);
                }
                Saved::Variable(index, None) => {
                    self.state.overrides.remove(&index);
                }
                Saved::LastInsertId(id) => self.state.last_insert_id = id,
            }
        }
        self.state.refresh_cached();
        if warnings.is_empty() {
            return result;
        }
        // The assignments' warnings (a value clamped to its range) come first.
        let added = warnings.len();
        self.state.warnings.splice(0..0, warnings);
        let count = |w: u16| w.saturating_add(u16::try_from(added).unwrap_or(u16::MAX));
        result.map(|r| match r {
            QueryResult::Ok {
                affected_rows,
                last_insert_id,
                warnings,
                info,
            } => QueryResult::Ok {
                affected_rows,
                last_insert_id,
                warnings: count(warnings),
                info,
            },
            QueryResult::Rows {
                columns,
                rows,
                warnings,
            } => QueryResult::Rows {
                columns,
                rows,
                warnings: count(warnings),
            },
        })
    }

    /// The statement after FOR: compiled now, under the variables just set (but read with
    /// the sql_mode of the text).
    fn run_for(
        &mut self,
        raw: &RawStatement,
        map: &SourceMap,
        out: Option<&mut (dyn crate::RowSink + '_)>,
        pipes_as_concat: bool,
    ) -> Result<QueryResult, SqlError> {
        if crate::plan::sql_prepared::is_sql_prepared(&raw.tokens) {
            // EXECUTE and the others: a SELECT's rows are held whole here too.
            return self.run_sql_prepared(raw, map, None);
        }
        let compiled = {
            let ctx = crate::plan::CompileCtx {
                pipes_as_concat,
                ..self.compile_ctx()
            };
            crate::plan::compile_statement(raw, map, &ctx)
        };
        let text = map.source().get(raw.text.clone()).unwrap_or("");
        let compiled = compiled.map_err(|e| self.mask_planning_error(e, text));
        match compiled {
            Ok((stmt, 0)) => {
                self.bump(stmt.counter());
                match (&stmt, out) {
                    (Stmt::LoadData(_), Some(out)) => self.run_to(&stmt, &[], Some(out)),
                    _ => self.run(&stmt, &[]),
                }
            }
            Ok(_) => {
                let e = crate::expr::err_syntax("?");
                self.failed_unrun(&e);
                Err(e)
            }
            Err(e) => {
                self.failed_unrun(&e);
                Err(e)
            }
        }
    }
}
