//! Prepared statements: COM_STMT_PREPARE compiles a text once, EXECUTE runs its plan with
//! bound parameters (compiling it again when DDL changed a table under it), CLOSE drops
//! it; and when a kept plan must be compiled again after DDL (`opens_tables_late`).

use crate::error::SqlError;
use crate::exec::entry::{compile_all, result_rows, runs_inline};
use crate::exec::select::*;
use crate::parser::source::{RawStatement, SourceMap};
use crate::plan::Stmt;
use crate::result::QueryResult;
use crate::session::*;
use crate::system::status::Counter;
use crate::value::Value;
use crate::{PreparedInfo, Session};
use myriad_types::errors::{
    ER_MAX_PREPARED_STMT_COUNT_REACHED, ER_PS_MANY_PARAM, ER_UNKNOWN_STMT_HANDLER,
    ER_WRONG_ARGUMENTS,
};

pub fn prepare(session: &mut Session, sql: &str) -> Result<PreparedInfo, SqlError> {
    session.bump(Counter::Questions);
    session.bump(Counter::ComStmtPrepare);
    let prepared = compile_prepared(session, sql, |_, _| Ok(()))?;
    let param_count = prepared.param_count;
    let columns = match &prepared.stmt {
        Stmt::Select(plan) => {
            // Parameter types are unknown until EXECUTE; describe them as strings.
            let params = vec![Value::Bytes(Vec::new()); param_count];
            let env = session.env(&params);
            plan.items
                .iter()
                .map(|i| result_column(&i.name, i.expr.sql_type(&env, &[])))
                .collect()
        }
        Stmt::SelectTable(plan) => {
            let params = vec![Value::Bytes(Vec::new()); param_count];
            let env = session.env(&params);
            let (types, ncols) = crate::exec::select::input_types(plan, &env);
            table_select_columns(plan, &types, ncols, &env)
        }
        Stmt::Explain(_) => crate::exec::explain::result_columns(),
        _ => Vec::new(),
    };
    let statement_id = session.state.next_statement_id;
    session.state.next_statement_id = session.state.next_statement_id.wrapping_add(1).max(1);
    session.state.prepared.insert(statement_id, prepared);
    Ok(PreparedInfo {
        statement_id,
        param_count: param_count as u16,
        columns,
    })
}

/// Compile a text into a prepared statement, the session's own limits and the account's
/// privileges checked. `screen` sees the text's statements first and may refuse them.
pub(crate) fn compile_prepared(
    session: &mut Session,
    sql: &str,
    screen: impl FnOnce(&SourceMap, &[RawStatement]) -> Result<(), SqlError>,
) -> Result<Prepared, SqlError> {
    let (map, raws) = compile_all(session, sql)?;
    if let Some(second) = raws.get(1) {
        let second = map.source().get(second.text.clone()).unwrap_or("");
        return Err(crate::expr::err_syntax(second));
    }
    screen(&map, &raws)?;
    if raws.is_empty() {
        return Err(crate::expr::err_syntax(""));
    }
    let ddl_before = session.engine.catalog.storage().ddl_count();
    let (stmt, param_count) = {
        let ctx = session.compile_ctx();
        let text = map.source().get(raws[0].text.clone()).unwrap_or("");
        crate::plan::compile_statement(&raws[0], &map, &ctx)
            .map_err(|e| session.mask_planning_error(e, text))?
    };
    if param_count > u16::MAX as usize {
        return Err(SqlError::new(
            ER_PS_MANY_PARAM,
            "Prepared statement contains too many placeholders",
        ));
    }
    let held = session.state.prepared.len() + session.state.named_prepared.len();
    if held >= PREPARED_PER_SESSION_MAX {
        return Err(SqlError::new(ER_MAX_PREPARED_STMT_COUNT_REACHED,
            format!("Can't create more than max_prepared_stmt_count statements (current value: {PREPARED_PER_SESSION_MAX})"),
        ));
    }
    // As MariaDB, a statement the account may not run is refused at PREPARE, before its
    // result columns describe the tables.
    session.check_privileges(&stmt, false)?;
    Ok(Prepared {
        index_read: matches!(&stmt, Stmt::SelectTable(plan) if plan.is_index_read()),
        runs_inline: runs_inline(sql),
        privileges_passed: None,
        ddl_count: opens_tables_late(&stmt).then_some(ddl_before),
        stmt,
        param_count,
        sql: sql.to_string(),
        query_cache_scan: None,
    })
}

/// Run COM_STMT_EXECUTE; a SELECT over tables may send its rows to `out`.
pub fn execute_prepared(
    session: &mut Session,
    statement_id: u32,
    params: &[Value],
    out: Option<&mut (dyn crate::RowSink + '_)>,
) -> Result<QueryResult, SqlError> {
    myriad_storage::set_instance_hint(u64::from(session.info.connection_id));
    session.paused = None;
    session.bump(Counter::Questions);
    session.bump(Counter::ComStmtExecute);
    // Take the statement out while it runs so the session can be borrowed mutably.
    let Some(mut prepared) = session.state.prepared.remove(&statement_id) else {
        return Err(SqlError::new(
            ER_UNKNOWN_STMT_HANDLER,
            format!(
                "Unknown prepared statement handler ({statement_id}) given to mysqld_stmt_execute"
            ),
        ));
    };
    let result = run_prepared(session, &mut prepared, params, out, "mysqld_stmt_execute");
    session.state.prepared.insert(statement_id, prepared);
    result
}

/// Run a prepared statement (taken out of its session's map) with its parameters;
/// `command` names the command in the message of a wrong parameter count.
pub(crate) fn run_prepared(
    session: &mut Session,
    prepared: &mut Prepared,
    params: &[Value],
    mut out: Option<&mut (dyn crate::RowSink + '_)>,
    command: &str,
) -> Result<QueryResult, SqlError> {
    // A plan whose subqueries open tables while its rows are sent is compiled again after
    // any DDL, before it runs (see `opens_tables_late`).
    let now = session.engine.catalog.storage().ddl_count();
    if prepared.ddl_count.is_some_and(|count| count != now) {
        replan(session, prepared)?;
    }
    // Privileges that passed for the same grants and database pass again unchecked.
    let privileges_key = (
        session.engine.accounts.generation(),
        session.info.database.clone(),
    );
    session.state.privileges_passed = prepared.privileges_passed.as_ref() == Some(&privileges_key);
    let result = if params.len() != prepared.param_count {
        Err(SqlError::new(
            ER_WRONG_ARGUMENTS,
            format!("Incorrect arguments to {command}"),
        ))
    } else {
        let probe = match crate::exec::query_cache::lookup_prepared(
            session,
            &prepared.sql,
            params,
            &mut prepared.query_cache_scan,
        ) {
            crate::exec::query_cache::Looked::Hit(result) => {
                // The flag must not outlive this statement: the next one checks afresh.
                session.state.privileges_passed = false;
                session.state.row_count = -1;
                session.state.found_rows = Some(result_rows(&result));
                return Ok(result);
            }
            crate::exec::query_cache::Looked::Miss(probe) => probe,
        };
        let bound: Vec<Value> = params.iter().map(crate::plan::stored::evaluable).collect();
        session.bump(prepared.stmt.counter());
        match crate::exec::query_cache::run(
            session,
            &prepared.stmt,
            &bound,
            probe,
            out.as_deref_mut(),
        ) {
            // A table changed under the plan: compile the text again, once.
            Err(e) if e.code == 1412 => match replan(session, prepared) {
                Ok(true) => session.run_to(&prepared.stmt, &bound, out),
                Ok(false) => Err(e),
                Err(e) => Err(e),
            },
            other => other,
        }
    };
    session.state.privileges_passed = false;
    if result.is_ok() {
        prepared.privileges_passed = Some(privileges_key);
    }
    result
}

/// Compile a prepared statement's text again (a table changed under its plan): whether it
/// took the new plan (not when the text now has another number of placeholders).
pub(crate) fn replan(session: &Session, prepared: &mut Prepared) -> Result<bool, SqlError> {
    // Read before compiling: a DDL during the compile moves the count past it.
    let before = session.engine.catalog.storage().ddl_count();
    let (stmt, count) = recompile(session, &prepared.sql)?;
    if count != prepared.param_count {
        return Ok(false);
    }
    prepared.index_read = matches!(&stmt, Stmt::SelectTable(plan) if plan.is_index_read());
    prepared.ddl_count = opens_tables_late(&stmt).then_some(before);
    prepared.stmt = stmt;
    Ok(true)
}

/// Whether running `stmt` opens tables after its first rows may have been sent: those of
/// its subqueries and derived tables. A table changed under such a plan can no longer be
/// answered by compiling the plan again and running it from the start, so cached plans of
/// this kind are compiled again after any DDL instead.
pub(crate) fn opens_tables_late(stmt: &Stmt) -> bool {
    let read = crate::exec::query_cache::read_tables;
    match stmt {
        Stmt::Select(_) => read(stmt).is_none_or(|tables| !tables.is_empty()),
        Stmt::SelectTable(plan) => {
            let named = 1 + plan.joins.len();
            let derived = std::iter::once(&plan.source.table)
                .chain(plan.joins.iter().map(|j| &j.table))
                .any(|t| t.made.is_some());
            derived || read(stmt).is_none_or(|tables| tables.len() > named)
        }
        Stmt::Union(_) => true,
        _ => false,
    }
}

pub(crate) fn recompile(session: &Session, sql: &str) -> Result<(Stmt, usize), SqlError> {
    let (map, raws) = compile_all(session, sql)?;
    let raw = raws.first().ok_or_else(|| crate::expr::err_syntax(""))?;
    let ctx = session.compile_ctx();
    crate::plan::compile_statement(raw, &map, &ctx)
}

/// See [`Session::prepared_runs_inline`].
pub fn prepared_runs_inline(session: &Session, statement_id: u32) -> bool {
    session
        .state
        .prepared
        .get(&statement_id)
        .is_some_and(|p| p.runs_inline)
}

/// See [`Session::prepared_is_index_read`].
pub fn prepared_is_index_read(session: &Session, statement_id: u32) -> bool {
    session
        .state
        .prepared
        .get(&statement_id)
        .is_some_and(|p| p.index_read)
}

pub fn close_prepared(session: &mut Session, statement_id: u32) {
    session.bump(Counter::ComStmtClose);
    session.state.prepared.remove(&statement_id);
}
