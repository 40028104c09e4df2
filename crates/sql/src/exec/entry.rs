//! Where a statement enters: COM_QUERY text (prepared statements: `exec::prepared`), and the
//! per-statement bookkeeping around a run (counters, warnings, the query cache).

use crate::catalog;
use crate::error::SqlError;
use crate::expr::eval::Warning;
use crate::parser::source::SourceMap;
use crate::plan::Stmt;
use crate::result::{Column, QueryResult};
use crate::system::status::Counter;
use crate::system::status::SessionCounters;
use crate::value::Value;
use myriad_types::errors::{
    ER_DIVISION_BY_ZERO, ER_LOCK_DEADLOCK, ER_STATEMENT_TIMEOUT, ER_WRONG_VALUE_FOR_TYPE,
};

use crate::exec::env::*;
use crate::exec::prepared::opens_tables_late;
use crate::exec::*;
use crate::Session;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Session {
    pub(crate) fn compile_ctx(&self) -> crate::plan::CompileCtx<'_> {
        crate::plan::CompileCtx {
            catalog: &self.engine.catalog,
            database: self.info.database.as_deref(),
            pipes_as_concat: self.state.sql_mode
                & crate::system::sysvars::sql_mode::PIPES_AS_CONCAT
                != 0,
            ctes: None,
        }
    }

    pub(crate) fn strict(&self) -> bool {
        self.state.sql_mode
            & (crate::system::sysvars::sql_mode::STRICT_TRANS_TABLES
                | crate::system::sysvars::sql_mode::STRICT_ALL_TABLES)
            != 0
    }

    /// In strict mode with ERROR_FOR_DIVISION_BY_ZERO (MariaDB's default), a division by
    /// zero while computing a value to store fails the statement (1365) instead of storing
    /// NULL with a warning; in strict mode, so does a value a function could not read as
    /// a date (1411, STR_TO_DATE).
    pub(crate) fn division_by_zero_is_error(
        &self,
        new_warnings: &[Warning],
    ) -> Result<(), SqlError> {
        if let Some(w) = new_warnings
            .iter()
            .find(|w| w.code == ER_WRONG_VALUE_FOR_TYPE.code)
            .filter(|_| self.strict())
        {
            return Err(SqlError::new(ER_WRONG_VALUE_FOR_TYPE, w.message.clone()));
        }
        if self.strict()
            && self.state.sql_mode & crate::system::sysvars::sql_mode::ERROR_FOR_DIVISION_BY_ZERO
                != 0
            && new_warnings.iter().any(|w| w.code == 1365)
        {
            return Err(SqlError::new(ER_DIVISION_BY_ZERO, "Division by 0"));
        }
        Ok(())
    }

    pub(crate) fn bump(&mut self, counter: Counter) {
        self.engine
            .status
            .bump(self.info.connection_id as usize, counter);
        self.state.counters.counts[counter as usize] += 1;
    }

    pub(crate) fn env<'a>(&'a self, params: &'a [Value]) -> ExecEnv<'a> {
        let previous_errors = self
            .state
            .warnings
            .iter()
            .filter(|w| w.level == "Error")
            .count();
        ExecEnv {
            engine: &self.engine,
            info: &self.info,
            state: &self.state,
            params,
            warnings: Vec::new(),
            previous_warnings: self.state.warnings.len(),
            previous_errors,
            now_micros: self.state.fixed_time_micros.unwrap_or_else(now_micros),
            subquery_results: HashMap::new(),
            rand_streams: HashMap::new(),
            outer_frames: Vec::new(),
            concat_rows: 0,
            spill: Default::default(),
            out: None,
            paused: None,
        }
    }

    /// Run one compiled statement with bound parameters.
    pub(crate) fn run(&mut self, stmt: &Stmt, params: &[Value]) -> Result<QueryResult, SqlError> {
        self.run_to(stmt, params, None)
    }

    /// [`Session::run`], a SELECT over tables sending its rows to `out` if it can.
    pub(crate) fn run_to(
        &mut self,
        stmt: &Stmt,
        params: &[Value],
        out: Option<&mut (dyn crate::RowSink + '_)>,
    ) -> Result<QueryResult, SqlError> {
        let keep_warnings = matches!(stmt, Stmt::ShowWarnings { .. });
        self.state
            .rows_produced
            .store(0, std::sync::atomic::Ordering::Relaxed);
        self.state.found_rows_window = None;
        self.state.found_rows_skipped = false;
        let statement =
            crate::interrupt::Statement::begin(&self.interrupt, self.state.max_statement_time_s);
        let result = self.run_inner(stmt, params, out);
        self.end_statement(statement, result, keep_warnings)
    }

    /// A statement's result as the client gets it: an error if it was interrupted, the
    /// session's warning count, the error kept for SHOW WARNINGS. A streamed scan that
    /// paused for its client (`self.paused`) does not end: its statement pauses with it.
    fn end_statement(
        &mut self,
        statement: crate::interrupt::Statement,
        mut result: Result<QueryResult, SqlError>,
        keep_warnings: bool,
    ) -> Result<QueryResult, SqlError> {
        // Rows computed after all (SLEEP returned early) are not the answer: the statement
        // was interrupted. A write that finished keeps its OK (its rows are written), and
        // so does DO (MariaDB answers `DO SLEEP(2)` past max_statement_time with OK).
        if let (Ok(QueryResult::Rows { .. }), Some(e)) = (&result, statement.interrupted()) {
            result = Err(e);
        }
        if matches!(&result, Err(e) if e.code == ER_STATEMENT_TIMEOUT.code) {
            self.bump(Counter::MaxStatementTimeExceeded);
        }
        self.state.row_count = match &result {
            Ok(QueryResult::Ok { affected_rows, .. }) => *affected_rows as i64,
            Ok(QueryResult::Rows { .. }) | Err(_) => -1,
        };
        match self.paused.as_mut() {
            Some(paused) if result.is_ok() => paused.deadline = statement.pause(),
            _ => {
                self.paused = None;
                if self.interrupt.busy_for() >= self.state.long_query_time {
                    self.bump(Counter::SlowQueries);
                }
                drop(statement);
                self.end_statement_snapshot();
                if let Ok(QueryResult::Rows { rows, .. }) = &result {
                    let produced = self
                        .state
                        .rows_produced
                        .load(std::sync::atomic::Ordering::Relaxed);
                    // Under SQL_CALC_FOUND_ROWS every row made was counted, those sent too.
                    self.state.found_rows = match self.state.found_rows_window {
                        Some(_) => Some(produced),
                        None if self.state.found_rows_skipped => None,
                        None => Some(produced + rows.len() as u64),
                    };
                }
            }
        }
        if !keep_warnings {
            match &result {
                Ok(QueryResult::Ok { .. }) | Ok(QueryResult::Rows { .. }) => {}
                Err(e) => {
                    // The error is what SHOW WARNINGS shows next, after the statement's
                    // warnings.
                    self.state.warnings.push(Warning {
                        level: "Error",
                        code: e.code,
                        message: e.message.clone(),
                    });
                }
            }
        }
        let warnings = self.state.warnings.len().min(u16::MAX as usize) as u16;
        result.map(|r| match r {
            QueryResult::Ok {
                affected_rows,
                last_insert_id,
                info,
                ..
            } => QueryResult::Ok {
                affected_rows,
                last_insert_id,
                warnings,
                info,
            },
            QueryResult::Rows { columns, rows, .. } => QueryResult::Rows {
                columns,
                rows,
                warnings,
            },
        })
    }

    /// A statement that failed before it ran (it did not compile): its error is what
    /// SHOW WARNINGS shows next, and ROW_COUNT() is -1.
    pub(crate) fn failed_unrun(&mut self, e: &SqlError) {
        self.state.row_count = -1;
        self.state.warnings = vec![Warning {
            level: "Error",
            code: e.code,
            message: e.message.clone(),
        }];
    }

    /// Go on with the SELECT that paused for its client (see [`crate::row_sink`]): its
    /// result once it ended (its rows went to `out`), None when it paused again or there
    /// is none.
    pub(crate) fn resume_paused(
        &mut self,
        out: &mut dyn crate::RowSink,
    ) -> Option<Result<QueryResult, SqlError>> {
        let mut paused = self.paused.take()?;
        let _reading = self.state.transaction.reading_own();
        let _view = self.select_view(paused.plan());
        let statement = crate::interrupt::Statement::resume(&self.interrupt, paused.deadline);
        let warnings = std::mem::take(&mut self.state.warnings);
        let params = std::mem::take(&mut paused.params);
        let (result, warnings) = {
            let mut counting = crate::exec::found_rows::Counting::of_statement(&self.state, out);
            let mut env = self.env(&params);
            env.warnings = warnings;
            paused.restore(&mut env);
            let result = crate::exec::stream::resume(&mut paused, &mut env, &mut counting);
            (result, env.warnings)
        };
        self.state.warnings = warnings;
        paused.params = params;
        let Some(result) = result.transpose() else {
            paused.deadline = statement.pause();
            self.paused = Some(paused);
            return None;
        };
        Some(self.end_statement(statement, result, false))
    }

    pub(crate) fn run_inner(
        &mut self,
        stmt: &Stmt,
        params: &[Value],
        out: Option<&mut (dyn crate::RowSink + '_)>,
    ) -> Result<QueryResult, SqlError> {
        if let Stmt::ShowWarnings { errors, count_only } = stmt {
            self.refuse_if_password_expired(stmt)?;
            return Ok(self.show_warnings(*errors, *count_only));
        }
        let resolved = self.with_current_user(stmt)?;
        let stmt = resolved.as_ref().unwrap_or(stmt);
        if self.limits.counts_statements() {
            if let Some(account) = &self.account {
                let writes = crate::exec::privileges::writes(stmt);
                self.engine
                    .account_usage
                    .statement(account, &self.limits, writes)?;
            }
        }
        self.check_privileges(stmt, self.state.privileges_passed)?;
        if self.state.in_transaction && stmt.commits_implicitly() {
            self.end_transaction(true)?;
        }
        match stmt {
            Stmt::Grant(g) => return self.grant(g),
            Stmt::ShowGrants(user) => return self.show_grants(user.as_ref()),
            Stmt::ShowCreateUser(user) => return self.show_create_user(user.as_ref()),
            Stmt::Role(r) => return self.role(r),
            Stmt::RenameUser(pairs) => return self.rename_users(pairs),
            Stmt::SetPassword { user, password } => {
                return self.set_password(user.as_ref(), password)
            }
            Stmt::LockTables(items) => return self.lock_tables(items),
            Stmt::SelectInto(into) => return self.select_into(into, params),
            Stmt::UnlockTables => return self.unlock_tables(),
            _ => {}
        }
        self.check_table_locks(stmt)?;
        self.metadata_locks(stmt)?;
        self.state.found_rows_skipped = crate::exec::found_rows::skips_rows(stmt);
        if let Some(window) = crate::exec::found_rows::window_of(stmt) {
            let bounds = crate::exec::found_rows::window_bounds(window, &mut self.env(params))?;
            self.state.found_rows_window = Some(bounds);
        }
        // Reads see the open transaction's own changes; other sessions' uncommitted ones
        // stay hidden (see `session::transaction`).
        // A locking read claims its leaves first, and holds them (outside a transaction,
        // `_claims` does) until it ends.
        let _claims = match stmt {
            Stmt::SelectTable(plan) => match self.select_locks(plan) {
                Some(mode) => {
                    let _latest = myriad_storage::reading_at(None);
                    self.claim_locked_reads(plan, mode, params)?
                }
                None => None,
            },
            _ => None,
        };
        let _reading = self.state.transaction.reading_own();
        let _view = self.read_view(stmt);
        let (result, warnings, spill, paused) = {
            let mut counting;
            let mut env = self.env(params);
            match (stmt, out) {
                (Stmt::SelectTable(_), Some(out)) => {
                    counting = crate::exec::found_rows::Counting::of_statement(&self.state, out);
                    env.out = Some(&mut counting);
                }
                (Stmt::LoadData(_), Some(out)) => env.out = Some(out),
                _ => {}
            }
            let _versions = crate::exec::query_cache::write_guard(&self.engine, stmt);
            let storage = self.engine.catalog.storage();
            let result = loop {
                // What a write computes from rows it read must still hold when it claims
                // their pages; else it runs again (see `exec::transaction`).
                let _reads = storage.reads_from_now(matches!(
                    stmt,
                    Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_)
                ));
                let warned = env.warnings.len();
                let _ = myriad_storage::take_retry();
                let result = self.dispatch(stmt, &mut env);
                match &result {
                    Err(e) => match self.retry_after_conflict(stmt, e) {
                        Ok(true) => env.warnings.truncate(warned),
                        Ok(false) => break result,
                        Err(e) => break Err(e),
                    },
                    Ok(_) => break result,
                }
            };
            (result, env.warnings, env.spill, env.paused)
        };
        self.paused = paused;
        self.state.warnings = warnings;
        for (counter, n) in spill.counts() {
            self.engine
                .status
                .add(self.info.connection_id as usize, counter, n);
            self.state.counters.counts[counter as usize] += n;
        }
        if !self.state.autocommit && stmt.uses_tables() {
            // With autocommit off, the first statement over tables opens the transaction.
            self.state.in_transaction = true;
        }
        if result
            .as_ref()
            .is_err_and(|e| e.code == ER_LOCK_DEADLOCK.code)
        {
            // A deadlock's victim loses its whole transaction, as in InnoDB.
            let _ = self.end_transaction(false);
        }
        let mut result = result?;
        if let (Some(window), Pending::Done(done)) = (self.state.found_rows_window, &mut result) {
            // A result held whole: cut to its window here (see `exec::found_rows`).
            let whole = std::mem::replace(done, ok(0));
            let (found, cut) = crate::exec::found_rows::window_rows(whole, window);
            *done = cut;
            self.state
                .rows_produced
                .fetch_add(found, std::sync::atomic::Ordering::Relaxed);
        }
        self.forget_dropped_locks(stmt);
        if stmt.uses_tables() && !self.in_transaction_scope() {
            // The statement was a transaction of its own: what SET TRANSACTION set is spent.
            self.state.next_transaction = Default::default();
        }
        if matches!(
            stmt,
            Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_) | Stmt::LoadData(_)
        ) && self.state.in_transaction
        {
            for cell in crate::exec::query_cache::written_tables(&self.engine, stmt) {
                if !self.state.written_tables.iter().any(|w| w.same(&cell)) {
                    self.state.written_tables.push(cell);
                }
            }
        }
        self.after(stmt, result)
    }

    /// Statements whose effect needs `&mut self` (the environment borrowed it immutably).
    pub(crate) fn after(&mut self, stmt: &Stmt, pending: Pending) -> Result<QueryResult, SqlError> {
        match pending {
            Pending::Done(r) => Ok(r),
            Pending::Inserted(r, id) => {
                self.state.last_insert_id = id;
                Ok(r)
            }
            Pending::Assign(changes) => {
                self.apply_assignments(changes)?;
                Ok(ok(0))
            }
            Pending::Use(db) => {
                self.interrupt.set_database(Some(&db));
                self.info.database = Some(db);
                Ok(ok(0))
            }
            Pending::DroppedDatabase(db, affected) => {
                if self
                    .info
                    .database
                    .as_deref()
                    .is_some_and(|d| d.eq_ignore_ascii_case(&db))
                {
                    self.info.database = None;
                    self.interrupt.set_database(None);
                }
                Ok(ok(affected))
            }
            Pending::Transaction => {
                self.transaction_statement(stmt)?;
                Ok(ok(0))
            }
            Pending::NextTransaction(next) => {
                let pending = &mut self.state.next_transaction;
                pending.isolation = next.isolation.or(pending.isolation);
                pending.read_only = next.read_only.or(pending.read_only);
                Ok(ok(0))
            }
            Pending::FlushStatus => {
                self.state.counters = SessionCounters::default();
                self.engine.status.reset();
                let c = &self.engine.counters;
                c.bytes_sent.store(0, Ordering::Relaxed);
                c.bytes_received.store(0, Ordering::Relaxed);
                c.aborted_connects.store(0, Ordering::Relaxed);
                c.aborted_clients.store(0, Ordering::Relaxed);
                let connected = c.threads_connected.load(Ordering::Relaxed).max(0) as u64;
                c.max_used_connections.store(connected, Ordering::Relaxed);
                *self.engine.status_flushed.lock() = std::time::Instant::now();
                Ok(ok(0))
            }
        }
    }
}
/// Compile every statement of a text; an error stops at that statement.
pub(crate) fn compile_all(
    session: &Session,
    sql: &str,
) -> Result<(SourceMap, Vec<crate::parser::source::RawStatement>), SqlError> {
    let _ = session;
    // Executable comments for this version become code; the map holds the text parsed.
    let sql = crate::parser::versioned::apply(sql);
    let mut map = SourceMap::new(&sql);
    let raws = crate::parser::source::split(&sql, &mut map)?;
    Ok((map, raws))
}

/// Run a COM_QUERY's text; a single SELECT over tables may send its rows to `out`.
pub fn execute(
    session: &mut Session,
    sql: &str,
    allow_multi: bool,
    mut out: Option<&mut (dyn crate::RowSink + '_)>,
) -> Vec<Result<QueryResult, SqlError>> {
    // A connection keeps to one instance of the table open cache.
    myriad_storage::set_instance_hint(u64::from(session.info.connection_id));
    // A SELECT left paused by a caller that did not resume it ends here.
    session.paused = None;
    let mut probe = match crate::exec::query_cache::lookup_text(session, sql) {
        crate::exec::query_cache::Looked::Hit(result) => {
            session.state.row_count = -1;
            session.state.found_rows = Some(result_rows(&result));
            session.bump(Counter::Questions);
            session.bump(Counter::Queries);
            return vec![Ok(result)];
        }
        crate::exec::query_cache::Looked::Miss(probe) => probe,
    };
    let pipes_as_concat =
        session.state.sql_mode & crate::system::sysvars::sql_mode::PIPES_AS_CONCAT != 0;
    let ddl_count = session.engine.catalog.storage().ddl_count();
    let cached = session.state.plan_cache.get(
        sql,
        session.info.database.as_deref(),
        pipes_as_concat,
        ddl_count,
    );
    if let Some(stmt) = cached {
        session.bump(Counter::Questions);
        session.bump(Counter::Queries);
        session.bump(stmt.counter());
        match crate::exec::query_cache::run(session, &stmt, &[], probe.take(), out.as_deref_mut()) {
            // A table changed under the plan: forget it and compile again below.
            Err(e) if e.code == 1412 => {
                session.state.plan_cache.remove(
                    sql,
                    session.info.database.as_deref(),
                    pipes_as_concat,
                );
            }
            result => return vec![result],
        }
    }
    let (map, raws) = match compile_all(session, sql) {
        Ok(x) => x,
        Err(e) => {
            session.bump(Counter::Questions);
            session.failed_unrun(&e);
            return vec![Err(e)];
        }
    };
    if !allow_multi && raws.len() > 1 {
        session.bump(Counter::Questions);
        let second = &raws[1];
        let e = crate::expr::err_syntax(map.source().get(second.text.clone()).unwrap_or(""));
        session.failed_unrun(&e);
        return vec![Err(e)];
    }
    let mut results = Vec::with_capacity(raws.len());
    for raw in &raws {
        session.bump(Counter::Questions);
        session.bump(Counter::Queries);
        // The tables the compile opens stay open for the execution: one lookup each.
        let _tables = myriad_storage::StatementTables::begin();
        let special = if crate::plan::set_statement::is_set_statement(&raw.tokens) {
            Some(session.run_set_statement(raw, &map, out.as_deref_mut()))
        } else if crate::plan::sql_prepared::is_sql_prepared(&raw.tokens) {
            Some(session.run_sql_prepared(raw, &map, out.as_deref_mut()))
        } else {
            None
        };
        if let Some(result) = special {
            let failed = result.is_err();
            results.push(result);
            if failed {
                break;
            }
            continue;
        }
        let compiled = {
            let ctx = session.compile_ctx();
            crate::plan::compile_statement(raw, &map, &ctx)
        };
        let text = map.source().get(raw.text.clone()).unwrap_or("");
        let compiled = compiled.map_err(|e| session.mask_planning_error(e, text));
        let result = match compiled {
            Ok((stmt, params)) if params > 0 => {
                let _ = stmt;
                Err(crate::expr::err_syntax("?"))
            }
            Ok((stmt, _)) => {
                session.bump(stmt.counter());
                let cacheable = raws.len() == 1
                    && matches!(
                        stmt,
                        Stmt::Select(_)
                            | Stmt::SelectTable(_)
                            | Stmt::Insert(_)
                            | Stmt::Update(_)
                            | Stmt::Delete(_)
                    );
                if cacheable {
                    let stmt = Arc::new(stmt);
                    let result = crate::exec::query_cache::run(
                        session,
                        &stmt,
                        &[],
                        probe.take(),
                        out.as_deref_mut(),
                    );
                    // Kept under the database it was compiled in: a cacheable statement
                    // (SELECT, INSERT, UPDATE, DELETE) does not change it.
                    let database = session.info.database.clone();
                    let late = opens_tables_late(&stmt).then_some(ddl_count);
                    session
                        .state
                        .plan_cache
                        .offer(sql, database, pipes_as_concat, stmt, late);
                    result
                } else if matches!(stmt, Stmt::LoadData(_)) {
                    // LOAD DATA LOCAL reads the client's file through the sink.
                    session.run_to(&stmt, &[], out.as_deref_mut())
                } else {
                    session.run(&stmt, &[])
                }
            }
            Err(e) => {
                session.failed_unrun(&e);
                Err(e)
            }
        };
        let failed = result.is_err();
        results.push(result);
        if failed {
            break;
        }
    }
    results
}

/// The rows of a result held whole (FOUND_ROWS() after a query cache hit).
pub(crate) fn result_rows(result: &QueryResult) -> u64 {
    match result {
        QueryResult::Rows { rows, .. } => rows.len() as u64,
        QueryResult::Ok { .. } => 0,
    }
}

/// See [`Session::text_runs_inline`].
pub fn runs_inline(sql: &str) -> bool {
    let text = sql.trim().trim_end_matches(';').trim_end();
    if text.contains(';') {
        // Several statements (or a literal holding ';'): decided one by one would be
        // exact, up front is safe.
        return false;
    }
    if Session::text_is_transaction_boundary(text) {
        return true;
    }
    // The text must start with the keyword: anything else (a comment, a parenthesis) is
    // handed off, which is always safe.
    let (word, rest) = leading_word(text);
    if word.eq_ignore_ascii_case("CREATE") {
        // CREATE TABLE: its waits (the metadata lock, the log's fsync) are long waits too,
        // and its file work is a create, a short write and a rename.
        return leading_word(rest.trim_start())
            .0
            .eq_ignore_ascii_case("TABLE");
    }
    ["SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE"]
        .iter()
        .any(|kind| word.eq_ignore_ascii_case(kind))
}

/// The ASCII letters `text` starts with, and what follows them.
pub(crate) fn leading_word(text: &str) -> (&str, &str) {
    let end = text
        .bytes()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(text.len());
    text.split_at(end)
}

pub fn use_database(session: &mut Session, database: &str) -> Result<(), SqlError> {
    session.bump(Counter::ComChangeDb);
    if !session.engine.catalog.database_exists(database) {
        return Err(catalog::err_unknown_database(database));
    }
    session.check_database_access(database)?;
    session.info.database = Some(database.to_string());
    session.interrupt.set_database(Some(database));
    Ok(())
}

pub fn field_list(session: &mut Session, table: &str) -> Result<Vec<Column>, SqlError> {
    let Some(db) = session.info.database.clone() else {
        return Err(err_no_database());
    };
    // A table the account holds no privilege on is not described (1142, as MariaDB).
    session.check_table_visible(&db, table)?;
    let storage = session.engine.catalog.storage();
    let table_ref = crate::plan::tables::open_ref(storage, &db, table, None)?;
    Ok((0..table_ref.def.columns.len())
        .map(|i| crate::plan::tables::column_meta(&table_ref, i, &table_ref.def.columns[i].name))
        .collect())
}
