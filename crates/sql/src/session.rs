//! Running compiled statements for one session: the session's variables and warnings,
//! SELECT evaluation, SET, SHOW, accounts, databases and prepared statements.

use crate::catalog;
use crate::error::SqlError;
use crate::eval::{self, Datum, SqlType, Warning};
use crate::expr::{Env, Expr, VarScope};
use crate::parse::{
    self, AssignTarget, AssignValue, SetScope, ShowFilter, SourceMap, Stmt, UserSpec,
};
use crate::result::{charsets, column_flags, Column, ColumnType, QueryResult, Rows};
use crate::status::{self, Counter, SessionCounters};
use crate::sysvars::{self, Setting, VarValue};
use crate::tables;
use crate::value::Value;
use crate::{Engine, PreparedInfo, Session};
use myriad_types::errors::{
    ER_BAD_TABLE_ERROR, ER_CANNOT_USER, ER_CANT_DROP_FIELD_OR_KEY, ER_COLLATION_CHARSET_MISMATCH,
    ER_DATA_OUT_OF_RANGE, ER_DB_CREATE_EXISTS, ER_DB_DROP_EXISTS, ER_DIVISION_BY_ZERO,
    ER_DUP_ENTRY, ER_DUP_KEYNAME, ER_EMPTY_QUERY, ER_GLOBAL_VARIABLE,
    ER_INCORRECT_GLOBAL_LOCAL_VAR, ER_KEY_NOT_FOUND, ER_LOCAL_VARIABLE,
    ER_MAX_PREPARED_STMT_COUNT_REACHED, ER_NO_DB_ERROR, ER_NO_DEFAULT_FOR_FIELD, ER_PS_MANY_PARAM,
    ER_UNKNOWN_CHARACTER_SET, ER_UNKNOWN_COLLATION, ER_UNKNOWN_STMT_HANDLER,
    ER_WARNING_NOT_COMPLETE_ROLLBACK, ER_WRONG_ARGUMENTS,
};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Most prepared statements one session may hold (MySQL's max_prepared_stmt_count is
/// server-wide 16382; per session this bounds a leaking client's memory).
const PREPARED_PER_SESSION_MAX: usize = 16_382;

/// A prepared statement: compiled once, executed many times.
pub struct Prepared {
    /// The query cache's scan of the text, made at the first execution with the cache on.
    query_cache_scan: Option<crate::query_cache_hooks::Scan>,
    stmt: Stmt,
    param_count: usize,
    /// The text, to compile again when DDL changed a table the plan was made for.
    sql: String,
    /// `stmt` is a SELECT through an index of one table
    /// ([`tables::TableSelect::is_index_read`]), told once per compilation.
    index_read: bool,
    /// [`runs_inline`] of the text, told once.
    runs_inline: bool,
}

/// Everything a session owns besides its identity.
pub struct SessionState {
    /// The GLOBAL values when the session started (session values start from these).
    snapshot: Arc<Vec<VarValue>>,
    /// Session values changed by SET.
    overrides: HashMap<usize, VarValue>,
    user_vars: HashMap<String, Datum>,
    /// Warnings (and the error) of the last statement, for SHOW WARNINGS.
    pub warnings: Vec<Warning>,
    prepared: HashMap<u32, Prepared>,
    next_statement_id: u32,
    pub in_transaction: bool,
    /// Rows were written since BEGIN (ROLLBACK cannot undo them yet: warning 1196).
    wrote_in_transaction: bool,
    /// The query cache's cells of the tables written since BEGIN (results over them are not
    /// cached until the transaction ends).
    written_tables: Vec<myriad_cache::query_cache::VersionCell>,
    /// Row locks this session holds until its transaction ends (see [`crate::row_locks`]).
    /// A Mutex only because statements execute through `&self`; never contended.
    held_locks: parking_lot::Mutex<Vec<crate::row_locks::RowKey>>,
    /// Compiled text statements (see [`crate::plan_cache`]).
    plan_cache: crate::plan_cache::PlanCache,
    pub autocommit: bool,
    sql_mode: u64,
    div_precision_increment: u32,
    /// Bytes: the longest string a function may build (`max_allowed_packet`).
    max_allowed_packet: u64,
    counters: SessionCounters,
    last_insert_id: u64,
    /// The query cache's view of the session settings (see [`crate::query_cache_hooks`]).
    query_cache: crate::query_cache_hooks::SessionQuery,
    /// Seconds of `SET SESSION wait_timeout`, once the session set it.
    wait_timeout_s: Option<u64>,
    /// The session's max_statement_time in seconds (0: no limit).
    max_statement_time_s: f64,
}

impl SessionState {
    /// A session's state as a new connection (or a reset one) starts it. An interactive
    /// client's wait_timeout starts at the global interactive_timeout (MySQL's login does so).
    pub fn new(engine: &Engine, interactive: bool) -> SessionState {
        let snapshot = Arc::clone(&engine.globals.read());
        let mut overrides = HashMap::new();
        if interactive {
            if let (Some(wait), Some(interactive)) = (
                sysvars::lookup("wait_timeout"),
                sysvars::lookup("interactive_timeout"),
            ) {
                overrides.insert(wait, snapshot[interactive].clone());
            }
        }
        let mut state = SessionState {
            snapshot,
            overrides,
            user_vars: HashMap::new(),
            warnings: Vec::new(),
            prepared: HashMap::new(),
            next_statement_id: 1,
            in_transaction: false,
            wrote_in_transaction: false,
            written_tables: Vec::new(),
            held_locks: parking_lot::Mutex::new(Vec::new()),
            plan_cache: Default::default(),
            autocommit: true,
            sql_mode: 0,
            div_precision_increment: 4,
            max_allowed_packet: crate::expr::DEFAULT_MAX_ALLOWED_PACKET,
            counters: SessionCounters::default(),
            last_insert_id: 0,
            query_cache: Default::default(),
            wait_timeout_s: None,
            max_statement_time_s: 0.0,
        };
        state.refresh_cached();
        state
    }

    fn session_value(&self, index: usize) -> &VarValue {
        self.overrides.get(&index).unwrap_or(&self.snapshot[index])
    }

    /// Re-read the variables the hot path consults into plain fields.
    fn refresh_cached(&mut self) {
        let get = |name: &str| sysvars::lookup(name).map(|i| self.session_value(i).clone());
        let autocommit = get("autocommit");
        let sql_mode = get("sql_mode");
        let div = get("div_precision_increment");
        let packet = get("max_allowed_packet");
        let max_statement_time = get("max_statement_time");
        self.autocommit = !matches!(autocommit, Some(VarValue::Bool(false)));
        if let Some(VarValue::Set(bits)) = sql_mode {
            self.sql_mode = bits;
        }
        if let Some(VarValue::UInt(n)) = div {
            self.div_precision_increment = n as u32;
        }
        if let Some(VarValue::UInt(n)) = packet {
            self.max_allowed_packet = n;
        }
        self.max_statement_time_s = match max_statement_time {
            Some(VarValue::Double(seconds)) => seconds,
            _ => 0.0,
        };
        self.query_cache =
            crate::query_cache_hooks::SessionQuery::from_session(|i| self.session_value(i));
        self.wait_timeout_s = sysvars::lookup("wait_timeout")
            .and_then(|i| self.overrides.get(&i))
            .and_then(|v| match v {
                VarValue::UInt(seconds) => Some(*seconds),
                _ => None,
            });
    }

    /// Seconds of `SET SESSION wait_timeout`, if the session set it.
    pub(crate) fn wait_timeout_set(&self) -> Option<u64> {
        self.wait_timeout_s
    }

    pub(crate) fn query_cache(&self) -> &crate::query_cache_hooks::SessionQuery {
        &self.query_cache
    }

    /// Whether the open transaction wrote one of `tables` (never outside a transaction).
    pub(crate) fn wrote_any_of(&self, tables: &[myriad_cache::query_cache::VersionCell]) -> bool {
        !self.written_tables.is_empty()
            && (self.in_transaction || !self.autocommit)
            && tables
                .iter()
                .any(|t| self.written_tables.iter().any(|w| w.same(t)))
    }
}

pub fn var_value_to_datum(value: &VarValue, def: &sysvars::VarDef) -> Datum {
    match value {
        VarValue::Bool(b) => Datum::Int(i64::from(*b)),
        VarValue::UInt(u) => Datum::UInt(*u),
        VarValue::Int(i) => Datum::Int(*i),
        VarValue::Double(f) => Datum::Double(*f),
        VarValue::Str(None) => Datum::Null,
        other => match other.display(def) {
            Some(text) => Datum::Str(text.into_bytes()),
            None => Datum::Null,
        },
    }
}

pub fn var_value_to_value(value: &VarValue, def: &sysvars::VarDef) -> Value {
    match var_value_to_datum(value, def) {
        Datum::Null => Value::Null,
        Datum::Int(i) => Value::Int(i),
        Datum::UInt(u) => Value::UInt(u),
        Datum::Double(f) => Value::Double(f),
        Datum::Str(s) => Value::Bytes(s),
        other => Value::Bytes(other.to_text().unwrap_or_default()),
    }
}

/// The evaluation environment of one statement.
struct ExecEnv<'a> {
    engine: &'a Engine,
    info: &'a crate::SessionInfo,
    state: &'a SessionState,
    params: &'a [Datum],
    warnings: Vec<Warning>,
    /// Warnings of the previous statement (@@warning_count reads it).
    previous_warnings: usize,
    previous_errors: usize,
    now_micros: i64,
    /// Results of uncorrelated subqueries, by plan address: each runs once per statement.
    subquery_results: HashMap<usize, Vec<Vec<Datum>>>,
}

impl Env for ExecEnv<'_> {
    fn param(&self, index: usize) -> Datum {
        self.params.get(index).cloned().unwrap_or(Datum::Null)
    }

    fn system_variable(&self, scope: VarScope, index: usize) -> Result<Datum, SqlError> {
        if let VarScope::KeyCache(cache) = scope {
            return Ok(crate::key_cache::structured_value(
                self.engine,
                cache,
                index,
            ));
        }
        let def = sysvars::def(index);
        match def.name {
            "warning_count" => return Ok(Datum::UInt(self.previous_warnings as u64)),
            "error_count" => return Ok(Datum::UInt(self.previous_errors as u64)),
            "last_insert_id" => return Ok(Datum::UInt(self.state.last_insert_id)),
            _ => {}
        }
        let global = scope == VarScope::Global || def.scope == sysvars::Scope::Global;
        if global {
            let globals = self.engine.globals.read();
            Ok(var_value_to_datum(&globals[index], def))
        } else {
            Ok(var_value_to_datum(self.state.session_value(index), def))
        }
    }

    fn user_variable(&self, name: &str) -> Datum {
        self.state
            .user_vars
            .get(name)
            .cloned()
            .unwrap_or(Datum::Null)
    }

    fn database(&self) -> Option<String> {
        self.info.database.clone()
    }

    fn user(&self) -> String {
        format!("{}@{}", self.info.user, self.info.host)
    }

    fn current_user(&self) -> String {
        let host = self
            .engine
            .accounts
            .matching_host(&self.info.user, &self.info.host)
            .unwrap_or_else(|| self.info.host.clone());
        format!("{}@{}", self.info.user, host)
    }

    fn connection_id(&self) -> u32 {
        self.info.connection_id
    }

    fn last_insert_id(&self) -> u64 {
        self.state.last_insert_id
    }

    fn now_micros(&self) -> i64 {
        self.now_micros
    }

    fn div_precision_increment(&self) -> u32 {
        self.state.div_precision_increment
    }

    fn max_allowed_packet(&self) -> u64 {
        self.state.max_allowed_packet
    }

    fn sql_mode(&self) -> u64 {
        self.state.sql_mode
    }

    fn warnings(&mut self) -> &mut Vec<Warning> {
        &mut self.warnings
    }

    fn subquery(&mut self, query: &Stmt) -> Result<Vec<Vec<Datum>>, SqlError> {
        let key = query as *const Stmt as usize;
        if let Some(rows) = self.subquery_results.get(&key) {
            return Ok(rows.clone());
        }
        let result = match query {
            Stmt::Select(plan) => select(plan, self)?,
            Stmt::SelectTable(plan) => Session::select_table(plan, self)?,
            _ => return Err(SqlError::not_supported("this subquery")),
        };
        let rows: Vec<Vec<Datum>> = match result {
            QueryResult::Rows { rows, .. } => rows
                .iter()
                .map(|r| r.iter().map(Datum::from_value).collect())
                .collect(),
            QueryResult::Ok { .. } => Vec::new(),
        };
        self.subquery_results.insert(key, rows.clone());
        Ok(rows)
    }
}

fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

impl Session {
    fn compile_ctx(&self) -> parse::CompileCtx<'_> {
        parse::CompileCtx {
            catalog: &self.engine.catalog,
            database: self.info.database.as_deref(),
            pipes_as_concat: self.state.sql_mode & sysvars::sql_mode::PIPES_AS_CONCAT != 0,
        }
    }

    fn strict(&self) -> bool {
        self.state.sql_mode
            & (sysvars::sql_mode::STRICT_TRANS_TABLES | sysvars::sql_mode::STRICT_ALL_TABLES)
            != 0
    }

    /// In strict mode with ERROR_FOR_DIVISION_BY_ZERO (MariaDB's default), a division by
    /// zero while computing a value to store fails the statement (1365) instead of storing
    /// NULL with a warning.
    fn division_by_zero_is_error(&self, new_warnings: &[Warning]) -> Result<(), SqlError> {
        if self.strict()
            && self.state.sql_mode & sysvars::sql_mode::ERROR_FOR_DIVISION_BY_ZERO != 0
            && new_warnings.iter().any(|w| w.code == 1365)
        {
            return Err(SqlError::new(ER_DIVISION_BY_ZERO, "Division by 0"));
        }
        Ok(())
    }

    fn bump(&mut self, counter: Counter) {
        self.engine
            .status
            .bump(self.info.connection_id as usize, counter);
        self.state.counters.counts[counter as usize] += 1;
    }

    fn env<'a>(&'a self, params: &'a [Datum]) -> ExecEnv<'a> {
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
            now_micros: now_micros(),
            subquery_results: HashMap::new(),
        }
    }

    /// Run one compiled statement with bound parameters.
    pub(crate) fn run(&mut self, stmt: &Stmt, params: &[Datum]) -> Result<QueryResult, SqlError> {
        let keep_warnings = matches!(stmt, Stmt::ShowWarnings { .. });
        let statement =
            crate::interrupt::Statement::begin(&self.interrupt, self.state.max_statement_time_s);
        let mut result = self.run_inner(stmt, params);
        // Rows computed after all (SLEEP returned early) are not the answer: the statement
        // was interrupted. A write that finished keeps its OK (its rows are written), and
        // so does DO (MariaDB answers `DO SLEEP(2)` past max_statement_time with OK).
        if let (Ok(QueryResult::Rows { .. }), Some(e)) = (&result, statement.interrupted()) {
            result = Err(e);
        }
        drop(statement);
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

    fn run_inner(&mut self, stmt: &Stmt, params: &[Datum]) -> Result<QueryResult, SqlError> {
        if let Stmt::ShowWarnings { errors, count_only } = stmt {
            return Ok(self.show_warnings(*errors, *count_only));
        }
        let (result, warnings) = {
            let mut env = self.env(params);
            let _versions = crate::query_cache_hooks::write_guard(&self.engine, stmt);
            let result = self.dispatch(stmt, &mut env);
            (result, env.warnings)
        };
        self.state.warnings = warnings;
        let result = result?;
        if matches!(stmt, Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_))
            && (self.state.in_transaction || !self.state.autocommit)
        {
            self.state.wrote_in_transaction = true;
            for cell in crate::query_cache_hooks::written_tables(&self.engine, stmt) {
                if !self.state.written_tables.iter().any(|w| w.same(&cell)) {
                    self.state.written_tables.push(cell);
                }
            }
        }
        self.after(stmt, result)
    }

    /// Statements whose effect needs `&mut self` (the environment borrowed it immutably).
    fn after(&mut self, stmt: &Stmt, pending: Pending) -> Result<QueryResult, SqlError> {
        match pending {
            Pending::Done(r) => Ok(r),
            Pending::Inserted(r, id) => {
                self.state.last_insert_id = id;
                Ok(r)
            }
            Pending::Assign(changes) => {
                self.apply_assignments(changes);
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
            Pending::Transaction(open) => {
                let mut warnings = 0;
                if matches!(stmt, Stmt::Rollback) && self.state.wrote_in_transaction {
                    // Writes are durable per statement until transactions are built: say so,
                    // as MySQL does for a non-transactional engine.
                    self.state.warnings.push(Warning {
                        level: "Warning",
                        code: ER_WARNING_NOT_COMPLETE_ROLLBACK.code,
                        message: "Some non-transactional changed tables couldn't be rolled back"
                            .into(),
                    });
                    warnings = 1;
                }
                self.state.in_transaction = open;
                self.state.wrote_in_transaction = false;
                self.state.written_tables.clear();
                release_row_locks(self);
                Ok(QueryResult::Ok {
                    affected_rows: 0,
                    last_insert_id: 0,
                    warnings,
                    info: String::new(),
                })
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

    fn dispatch(&self, stmt: &Stmt, env: &mut ExecEnv) -> Result<Pending, SqlError> {
        Ok(Pending::Done(match stmt {
            Stmt::Select(plan) => select(plan, env)?,
            Stmt::Do(exprs) => {
                for e in exprs {
                    e.eval(env, &[])?;
                }
                ok(0)
            }
            Stmt::Set(assignments) => {
                return self
                    .check_assignments(assignments, env)
                    .map(Pending::Assign)
            }
            Stmt::SetNames { charset, collation } => {
                let charset = match charset {
                    Some(c) => c.clone(),
                    None => self.session_text("character_set_server"),
                };
                let cs = parse_charset(&charset)?;
                let coll = match collation {
                    Some(c) => {
                        let coll = c.to_ascii_lowercase();
                        match sysvars::COLLATIONS.iter().find(|(n, _)| *n == coll) {
                            None => return Err(SqlError::new(ER_UNKNOWN_COLLATION, format!("Unknown collation: '{c}'"))),
                            Some((_, set)) if canonical_charset(set) != cs => {
                                return Err(SqlError::new(ER_COLLATION_CHARSET_MISMATCH,
                                    format!("COLLATION '{c}' is not valid for CHARACTER SET '{charset}'"),
                                ))
                            }
                            Some(_) => coll,
                        }
                    }
                    None => sysvars::default_collation(&cs).to_string(),
                };
                let mut changes = Vec::new();
                for name in [
                    "character_set_client",
                    "character_set_connection",
                    "character_set_results",
                ] {
                    changes.push(session_change(name, VarValue::Str(Some(cs.clone()))));
                }
                changes.push(session_change(
                    "collation_connection",
                    VarValue::Str(Some(coll)),
                ));
                return Ok(Pending::Assign(changes.into_iter().flatten().collect()));
            }
            Stmt::SetCharacterSet(charset) => {
                let cs = match charset {
                    Some(c) => parse_charset(c)?,
                    None => self.session_text("character_set_server"),
                };
                let mut changes = Vec::new();
                for name in ["character_set_client", "character_set_results"] {
                    changes.push(session_change(name, VarValue::Str(Some(cs.clone()))));
                }
                let db_cs = self.session_text("character_set_database");
                let db_coll = self.session_text("collation_database");
                changes.push(session_change(
                    "character_set_connection",
                    VarValue::Str(Some(db_cs)),
                ));
                changes.push(session_change(
                    "collation_connection",
                    VarValue::Str(Some(db_coll)),
                ));
                return Ok(Pending::Assign(changes.into_iter().flatten().collect()));
            }
            Stmt::SetTransaction {
                scope,
                isolation,
                read_only,
            } => {
                let global = *scope == Some(SetScope::Global);
                let mut changes = Vec::new();
                if let Some(level) = isolation {
                    let names = ["transaction_isolation", "tx_isolation"];
                    for name in names {
                        if let Some(index) = sysvars::lookup(name) {
                            let (v, _) = sysvars::parse_setting(
                                sysvars::def(index),
                                &Setting::Text(level.clone()),
                            )?;
                            changes.push(Change::system(index, global, v));
                        }
                    }
                }
                if let Some(ro) = read_only {
                    for name in ["transaction_read_only", "tx_read_only"] {
                        if let Some(index) = sysvars::lookup(name) {
                            changes.push(Change::system(index, global, VarValue::Bool(*ro)));
                        }
                    }
                }
                return Ok(Pending::Assign(changes));
            }
            Stmt::ShowVariables { global, filter } => self.show_variables(*global, filter, env)?,
            Stmt::ShowStatus { global, filter } => self.show_status(*global, filter, env)?,
            Stmt::ShowDatabases { filter } => {
                let header = match filter {
                    ShowFilter::Like(p) => format!("Database ({p})"),
                    _ => "Database".to_string(),
                };
                let rows = self
                    .engine
                    .catalog
                    .databases()
                    .into_iter()
                    .map(|d| vec![Datum::Str(d.into_bytes())])
                    .collect();
                listing(&[(&header, 64)], rows, filter, env)?
            }
            Stmt::ShowOpenTables { database, filter } => {
                let like = match filter {
                    ShowFilter::Like(p) => Some(p.as_str()),
                    _ => None,
                };
                let rows = crate::table_cache_sql::open_table_rows(
                    self.engine.catalog.storage(),
                    database.as_deref(),
                    like,
                );
                // LIKE matched the table names above; WHERE is applied by the listing.
                let rest = match filter {
                    ShowFilter::Like(_) => &ShowFilter::None,
                    other => other,
                };
                listing(
                    &[
                        ("Database", 64),
                        ("Table", 64),
                        ("In_use", 0),
                        ("Name_locked", 0),
                    ],
                    rows,
                    rest,
                    env,
                )?
            }
            Stmt::ShowTables {
                database,
                full,
                filter,
            } => {
                let db = match database.as_ref().or(self.info.database.as_ref()) {
                    Some(db) => db.clone(),
                    None => return Err(err_no_database()),
                };
                if !self.engine.catalog.database_exists(&db) {
                    return Err(catalog::err_unknown_database(&db));
                }
                let header = match filter {
                    ShowFilter::Like(p) => format!("Tables_in_{db} ({p})"),
                    _ => format!("Tables_in_{db}"),
                };
                let names = self.engine.catalog.tables(&db)?;
                let rows: Vec<Vec<Datum>> = names
                    .into_iter()
                    .map(|n| {
                        let mut row = vec![Datum::Str(n.into_bytes())];
                        if *full {
                            row.push(Datum::text("BASE TABLE"));
                        }
                        row
                    })
                    .collect();
                if *full {
                    listing(&[(&header, 64), ("Table_type", 64)], rows, filter, env)?
                } else {
                    listing(&[(&header, 64)], rows, filter, env)?
                }
            }
            Stmt::ShowWarnings { .. } => ok(0),
            Stmt::ShowCollation { filter } => {
                let rows = COLLATION_IDS
                    .iter()
                    .map(|(name, charset, id, default)| {
                        vec![
                            Datum::text(name),
                            Datum::text(charset),
                            Datum::UInt(*id),
                            Datum::text(if *default { "Yes" } else { "" }),
                            Datum::text("Yes"),
                            Datum::UInt(1),
                        ]
                    })
                    .collect();
                listing(
                    &[
                        ("Collation", 64),
                        ("Charset", 32),
                        ("Id", 0),
                        ("Default", 3),
                        ("Compiled", 3),
                        ("Sortlen", 0),
                    ],
                    rows,
                    filter,
                    env,
                )?
            }
            Stmt::ShowCharset { filter } => {
                let rows = [
                    ("ascii", "US ASCII", "ascii_general_ci", 1u64),
                    ("binary", "Binary pseudo charset", "binary", 1),
                    ("latin1", "cp1252 West European", "latin1_swedish_ci", 1),
                    ("utf8mb3", "UTF-8 Unicode", "utf8mb3_general_ci", 3),
                    ("utf8mb4", "UTF-8 Unicode", "utf8mb4_general_ci", 4),
                ]
                .iter()
                .map(|(c, d, coll, len)| {
                    vec![
                        Datum::text(c),
                        Datum::text(d),
                        Datum::text(coll),
                        Datum::UInt(*len),
                    ]
                })
                .collect();
                listing(
                    &[
                        ("Charset", 32),
                        ("Description", 60),
                        ("Default collation", 64),
                        ("Maxlen", 0),
                    ],
                    rows,
                    filter,
                    env,
                )?
            }
            Stmt::ShowEngines => {
                let row = [
                    "InnoDB",
                    "DEFAULT",
                    "myriad's paged B+tree tables with a redo log",
                    "NO",
                    "NO",
                    "NO",
                ]
                .iter()
                .map(|s| Datum::text(s))
                .collect();
                listing(
                    &[
                        ("Engine", 64),
                        ("Support", 8),
                        ("Comment", 160),
                        ("Transactions", 3),
                        ("XA", 3),
                        ("Savepoints", 3),
                    ],
                    vec![row],
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::ShowColumns {
                database,
                table,
                full,
                filter,
            } => {
                let db = database
                    .clone()
                    .or_else(|| self.info.database.clone())
                    .ok_or_else(err_no_database)?;
                let t = tables::open_ref(self.engine.catalog.storage(), &db, table, None)?;
                let rows = t
                    .def
                    .columns
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let text = |s: &str| Datum::Str(s.as_bytes().to_vec());
                        let mut row = vec![text(&c.name), text(&tables::type_text(&c.ty))];
                        if *full {
                            // Binary strings (BLOB, BINARY, VARBINARY) show no collation.
                            let binary = c.ty.collation() == myriad_storage::Collation::Binary;
                            row.push(if c.ty.is_string() && !binary {
                                text(c.ty.collation().name())
                            } else {
                                Datum::Null
                            });
                        }
                        row.push(text(if c.nullable { "YES" } else { "NO" }));
                        row.push(text(tables::key_text(&t.def, i)));
                        row.push(
                            tables::default_text(c)
                                .map(|d| Datum::Str(d.into_bytes()))
                                .unwrap_or(Datum::Null),
                        );
                        row.push(text(&tables::extra_text(c)));
                        if *full {
                            row.push(text("select,insert,update,references"));
                            row.push(text(&c.comment));
                        }
                        row
                    })
                    .collect();
                if *full {
                    listing(
                        &[
                            ("Field", 64),
                            ("Type", BLOB_TEXT),
                            ("Collation", 64),
                            ("Null", 3),
                            ("Key", 3),
                            ("Default", BLOB_TEXT),
                            ("Extra", 32),
                            ("Privileges", 80),
                            ("Comment", 1024),
                        ],
                        rows,
                        filter,
                        env,
                    )?
                } else {
                    listing(
                        &[
                            ("Field", 64),
                            ("Type", BLOB_TEXT),
                            ("Null", 3),
                            ("Key", 3),
                            ("Default", BLOB_TEXT),
                            ("Extra", 32),
                        ],
                        rows,
                        filter,
                        env,
                    )?
                }
            }
            Stmt::ShowCreateTable { database, table } => {
                let db = database
                    .clone()
                    .or_else(|| self.info.database.clone())
                    .ok_or_else(err_no_database)?;
                let t = tables::open_ref(self.engine.catalog.storage(), &db, table, None)?;
                let text = tables::create_table_text(&t.name, &t.def);
                listing(
                    &[("Table", 64), ("Create Table", 1024)],
                    vec![vec![
                        Datum::Str(t.name.as_bytes().to_vec()),
                        Datum::Str(text.into_bytes()),
                    ]],
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::ShowIndex { database, table } => {
                let db = database
                    .clone()
                    .or_else(|| self.info.database.clone())
                    .ok_or_else(err_no_database)?;
                let t = tables::open_ref(self.engine.catalog.storage(), &db, table, None)?;
                let mut rows = Vec::new();
                for ix in &t.def.indexes {
                    for (seq, &c) in ix.columns.iter().enumerate() {
                        let col = &t.def.columns[c];
                        let text = |s: &str| Datum::Str(s.as_bytes().to_vec());
                        rows.push(vec![
                            text(&t.name),
                            Datum::UInt(u64::from(!ix.is_unique())),
                            text(&ix.name),
                            Datum::UInt(seq as u64 + 1),
                            text(&col.name),
                            text("A"),
                            Datum::UInt(0),
                            Datum::Null,
                            Datum::Null,
                            text(if col.nullable { "YES" } else { "" }),
                            text("BTREE"),
                            text(""),
                            text(""),
                            text("NO"),
                        ]);
                    }
                }
                listing(
                    &[
                        ("Table", 64),
                        ("Non_unique", 0),
                        ("Key_name", 64),
                        ("Seq_in_index", LONG_INT),
                        ("Column_name", 64),
                        ("Collation", 1),
                        ("Cardinality", 0),
                        ("Sub_part", 0),
                        ("Packed", 10),
                        ("Null", 3),
                        ("Index_type", 16),
                        ("Comment", 16),
                        ("Index_comment", 1024),
                        ("Ignored", 3),
                    ],
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::ShowProcessList => {
                // Other sessions' statement texts are not kept: their Info is NULL.
                let rows = self
                    .engine
                    .sessions
                    .list(&self.info.user)
                    .into_iter()
                    .map(|v| {
                        let own = v.connection_id == self.info.connection_id;
                        let text = |s: String| Datum::Str(s.into_bytes());
                        vec![
                            Datum::UInt(u64::from(v.connection_id)),
                            text(v.owner.user),
                            text(v.owner.host),
                            v.owner.database.map(text).unwrap_or(Datum::Null),
                            Datum::text(if v.busy { "Query" } else { "Sleep" }),
                            Datum::UInt(if own { 0 } else { v.for_time.as_secs() }),
                            Datum::text(match (own, v.busy) {
                                (true, _) => "starting",
                                (false, true) => "executing",
                                (false, false) => "",
                            }),
                            match own {
                                true => Datum::text("SHOW PROCESSLIST"),
                                false => Datum::Null,
                            },
                        ]
                    })
                    .collect();
                listing(
                    &[
                        ("Id", 0),
                        ("User", 32),
                        ("Host", 64),
                        ("db", 64),
                        ("Command", 16),
                        ("Time", 0),
                        ("State", 64),
                        ("Info", 100),
                    ],
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::ShowCreateDatabase { name } => {
                if !self.engine.catalog.database_exists(name) {
                    return Err(catalog::err_unknown_database(name));
                }
                let text = format!(
                    "CREATE DATABASE `{name}` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */"
                );
                listing(
                    &[("Database", 64), ("Create Database", 1024)],
                    vec![vec![
                        Datum::Str(name.clone().into_bytes()),
                        Datum::Str(text.into_bytes()),
                    ]],
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::Use(db) => {
                if !self.engine.catalog.database_exists(db) {
                    return Err(catalog::err_unknown_database(db));
                }
                return Ok(Pending::Use(db.clone()));
            }
            Stmt::CreateDatabase {
                name,
                if_not_exists,
            } => {
                if self.engine.catalog.create_database(name)? {
                    ok(1)
                } else if *if_not_exists {
                    env.warnings.push(note(
                        1007,
                        format!("Can't create database '{name}'; database exists"),
                    ));
                    ok(0)
                } else {
                    return Err(SqlError::new(
                        ER_DB_CREATE_EXISTS,
                        format!("Can't create database '{name}'; database exists"),
                    ));
                }
            }
            Stmt::DropDatabase { name, if_exists } => {
                if let Some(tables) = self.engine.catalog.drop_database(name)? {
                    return Ok(Pending::DroppedDatabase(name.clone(), tables));
                } else if *if_exists {
                    env.warnings.push(note(
                        1008,
                        format!("Can't drop database '{name}'; database doesn't exist"),
                    ));
                    ok(0)
                } else {
                    return Err(SqlError::new(
                        ER_DB_DROP_EXISTS,
                        format!("Can't drop database '{name}'; database doesn't exist"),
                    ));
                }
            }
            Stmt::CreateUser {
                users,
                if_not_exists,
            } => {
                let accounts = &self.engine.accounts;
                let verdict = AccountOp::new("CREATE USER", "it already exists", *if_not_exists);
                verdict.apply(users, &mut env.warnings, |u| {
                    let password = u.password.as_deref().unwrap_or("");
                    accounts.create(&u.user, &u.host, password)
                })?;
                ok(0)
            }
            Stmt::DropUser { users, if_exists } => {
                let accounts = &self.engine.accounts;
                let verdict = AccountOp::new("DROP USER", "it doesn't exist", *if_exists);
                verdict.apply(users, &mut env.warnings, |u| {
                    accounts.drop_account(&u.user, &u.host)
                })?;
                ok(0)
            }
            Stmt::AlterUser { users, if_exists } => {
                let accounts = &self.engine.accounts;
                let verdict = AccountOp::new("ALTER USER", "it doesn't exist", *if_exists);
                verdict.apply(users, &mut env.warnings, |u| match &u.password {
                    Some(pw) => accounts.set_password(&u.user, &u.host, pw),
                    None => Ok(accounts.exists(&u.user, &u.host)),
                })?;
                ok(0)
            }
            Stmt::FlushStatus => return Ok(Pending::FlushStatus),
            Stmt::FlushTables(names) => {
                // Dirty key cache blocks are written first, then the handles are closed.
                self.engine
                    .catalog
                    .storage()
                    .checkpoint()
                    .map_err(catalog::storage_error)?;
                crate::table_cache_sql::flush_tables(
                    self.engine.catalog.storage(),
                    names.as_deref(),
                    self.info.database.as_deref(),
                )?;
                // As in MySQL, FLUSH TABLES also empties the query cache.
                crate::query_cache_hooks::flush(&self.engine, true);
                ok(0)
            }
            Stmt::Flush => {
                // The other FLUSH forms (LOGS, PRIVILEGES, ...): dirty key cache blocks are written.
                self.engine
                    .catalog
                    .storage()
                    .checkpoint()
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            Stmt::KeyCache(crate::key_cache::KeyCacheStmt::SetStructured(sets)) => {
                crate::key_cache::set_structured(&self.engine, sets, env)?;
                ok(0)
            }
            Stmt::KeyCache(k) => {
                let rows =
                    crate::key_cache::execute(&self.engine, k, self.info.database.as_deref())?;
                listing(
                    crate::key_cache::RESULT_COLUMNS,
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::VirtualSelect(v) => {
                let table = &crate::info_schema::TABLES[v.table];
                let full = listing(table.columns, (table.rows)(&self.engine), &v.filter, env)?;
                crate::info_schema::project(v, full)
            }
            Stmt::QueryCache { reset } => {
                crate::query_cache_hooks::flush(&self.engine, *reset);
                ok(0)
            }
            Stmt::Kill { target, id } => {
                self.kill(*target, id, env)?;
                ok(0)
            }
            Stmt::Shutdown => {
                if let Some(hook) = self.engine.shutdown_hook.lock().as_ref() {
                    hook();
                }
                ok(0)
            }
            Stmt::Begin => return Ok(Pending::Transaction(true)),
            Stmt::Commit | Stmt::Rollback => return Ok(Pending::Transaction(false)),
            Stmt::Empty => {
                return Err(SqlError::new(ER_EMPTY_QUERY, "Query was empty"));
            }
            Stmt::CreateTable {
                database,
                name,
                def,
                if_not_exists,
            } => {
                let storage = self.engine.catalog.storage();
                // A missing database shows when its table's file cannot be made (no stat
                // of the directory first).
                if database.is_empty() || crate::catalog::is_system(database) {
                    return Err(catalog::err_unknown_database(database));
                }
                match storage.create_table(database, name, def) {
                    Ok(()) => ok(0),
                    Err(myriad_storage::StorageError::TableExists(..)) if *if_not_exists => {
                        env.warnings
                            .push(note(1050, format!("Table '{name}' already exists")));
                        ok(0)
                    }
                    Err(e) => return Err(catalog::storage_error(e)),
                }
            }
            Stmt::DropTables { tables, if_exists } => {
                let storage = self.engine.catalog.storage();
                let mut missing = Vec::new();
                for (db, name) in tables {
                    match storage.drop_table(db, name) {
                        Ok(()) => {}
                        Err(myriad_storage::StorageError::NoSuchTable(..))
                        | Err(myriad_storage::StorageError::NoSuchDatabase(..)) => {
                            missing.push(format!("{db}.{name}"))
                        }
                        Err(e) => return Err(catalog::storage_error(e)),
                    }
                }
                if !missing.is_empty() {
                    let message = format!("Unknown table '{}'", missing.join(","));
                    if *if_exists {
                        for m in &missing {
                            env.warnings
                                .push(note(1051, format!("Unknown table '{m}'")));
                        }
                    } else {
                        return Err(SqlError::new(ER_BAD_TABLE_ERROR, message));
                    }
                }
                ok(0)
            }
            Stmt::Truncate { database, name } => {
                self.engine
                    .catalog
                    .storage()
                    .truncate_table(database, name)
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            Stmt::AlterIndexes {
                database,
                name,
                add,
                drop,
            } => {
                let storage = self.engine.catalog.storage();
                let old = storage
                    .table_def(database, name)
                    .map_err(catalog::storage_error)?;
                let mut def = (*old).clone();
                if let Some(index) = add {
                    if def.index_named(&index.name).is_some() {
                        return Err(SqlError::new(
                            ER_DUP_KEYNAME,
                            format!("Duplicate key name '{}'", index.name),
                        ));
                    }
                    def.indexes.push(index.clone());
                    tables::order_indexes(&mut def.indexes);
                }
                if let Some(index) = drop {
                    let Some(position) = def.index_named(index) else {
                        return Err(SqlError::new(
                            ER_CANT_DROP_FIELD_OR_KEY,
                            format!("Can't DROP INDEX `{index}`; check that it exists"),
                        ));
                    };
                    def.indexes.remove(position);
                }
                storage
                    .alter_table(database, name, &def, &mut |row| Ok(row.to_vec()))
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            Stmt::Maintenance {
                analyze,
                tables: names,
            } => {
                let storage = self.engine.catalog.storage();
                let op = if *analyze { "analyze" } else { "check" };
                let mut rows = Vec::new();
                for (db, name) in names {
                    let db = db
                        .clone()
                        .or_else(|| self.info.database.clone())
                        .ok_or_else(err_no_database)?;
                    let label = Datum::Str(format!("{db}.{name}").into_bytes());
                    let row = |kind: &str, text: String| {
                        vec![
                            label.clone(),
                            Datum::text(op),
                            Datum::text(kind),
                            Datum::Str(text.into_bytes()),
                        ]
                    };
                    match storage.open_table(&db, name) {
                        Err(e) => {
                            rows.push(row("Error", catalog::storage_error(e).message));
                            rows.push(row("status", "Operation failed".into()));
                        }
                        Ok(t) if *analyze => {
                            // No statistics are kept yet; the table is there and readable.
                            let _ = t;
                            rows.push(row("status", "OK".into()));
                        }
                        Ok(t) => match t.check() {
                            Ok(report) if report.is_ok() => rows.push(row("status", "OK".into())),
                            Ok(report) => {
                                for p in report.problems {
                                    rows.push(row("error", p));
                                }
                                rows.push(row("error", "Corrupt".into()));
                            }
                            Err(e) => {
                                rows.push(row("error", e.to_string()));
                                rows.push(row("error", "Corrupt".into()));
                            }
                        },
                    }
                }
                listing(
                    &[
                        ("Table", 64),
                        ("Op", 10),
                        ("Msg_type", 10),
                        ("Msg_text", 1024),
                    ],
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::AlterTable {
                table,
                def,
                sources,
            } => {
                let storage = self.engine.catalog.storage();
                // Opening checks the definition is still the one the statement was made for;
                // the handle goes at once (ALTER waits for the handles in use of its table).
                drop(table.open(storage)?);
                let new_columns = def.columns.clone();
                let now_micros = env.now_micros();
                let mut convert =
                    |row: &[myriad_storage::Datum]| -> myriad_storage::Result<myriad_storage::Row> {
                        Ok(sources
                            .iter()
                            .zip(&new_columns)
                            .map(|(source, column)| match source {
                                Some(i) => {
                                    row.get(*i).cloned().unwrap_or(myriad_storage::Datum::Null)
                                }
                                None if column.default_now => {
                                    crate::timestamps::now_for(&column.ty, now_micros)
                                }
                                None => match &column.default {
                                    Some(d) => d.clone(),
                                    None if column.nullable => myriad_storage::Datum::Null,
                                    None => zero_value(&column.ty),
                                },
                            })
                            .collect())
                    };
                storage
                    .alter_table(&table.database, &table.name, def, &mut convert)
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            Stmt::RenameTables { renames } => {
                let storage = self.engine.catalog.storage();
                for ((db, name), (new_db, new_name)) in renames {
                    storage
                        .rename_table(db, name, new_db, new_name)
                        .map_err(catalog::storage_error)?;
                }
                ok(0)
            }
            Stmt::Insert(plan) => return self.insert(plan, env),
            Stmt::SelectTable(plan) => Session::select_table(plan, env)?,
            Stmt::Update(plan) => self.update(plan, env)?,
            Stmt::Delete(plan) => self.delete(plan, env)?,
        }))
    }

    fn session_text(&self, name: &str) -> String {
        sysvars::lookup(name)
            .and_then(|i| self.state.session_value(i).display(sysvars::def(i)))
            .unwrap_or_default()
    }

    /// Check every assignment of a SET first (MySQL applies none when one fails).
    fn check_assignments(
        &self,
        assignments: &[parse::Assignment],
        env: &mut ExecEnv,
    ) -> Result<Vec<Change>, SqlError> {
        let mut changes = Vec::new();
        for a in assignments {
            match &a.target {
                AssignTarget::User(name) => {
                    let AssignValue::Expr(e) = &a.value else {
                        continue;
                    };
                    let v = e.eval(env, &[])?;
                    changes.push(Change::user(name.clone(), v));
                }
                AssignTarget::System { scope, index } => {
                    let def = sysvars::def(*index);
                    let global = *scope == SetScope::Global;
                    if def.read_only {
                        return Err(SqlError::new(
                            ER_INCORRECT_GLOBAL_LOCAL_VAR,
                            format!("Variable '{}' is a read only variable", def.name),
                        ));
                    }
                    if !global && def.scope == sysvars::Scope::Global {
                        return Err(SqlError::new(ER_GLOBAL_VARIABLE,
                            format!("Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL", def.name),
                        ));
                    }
                    if global && def.scope == sysvars::Scope::Session {
                        return Err(SqlError::new(ER_LOCAL_VARIABLE,
                            format!("Variable '{}' is a SESSION variable and can't be used with SET GLOBAL", def.name),
                        ));
                    }
                    let value = match &a.value {
                        AssignValue::Default => {
                            if global {
                                sysvars::defaults().swap_remove(*index)
                            } else {
                                self.engine.globals.read()[*index].clone()
                            }
                        }
                        AssignValue::Word(w) => {
                            let (v, warning) =
                                sysvars::parse_setting(def, &Setting::Text(w.clone()))?;
                            if let Some((code, message)) = warning {
                                env.warnings.push(Warning {
                                    level: "Warning",
                                    code,
                                    message,
                                });
                            }
                            v
                        }
                        AssignValue::Expr(e) => {
                            let d = e.eval(env, &[])?;
                            let setting = match d {
                                Datum::Null => Setting::Null,
                                Datum::Int(i) => Setting::Int(i as i128),
                                Datum::UInt(u) => Setting::Int(u as i128),
                                Datum::Double(f) => Setting::Double(f),
                                Datum::Dec(_) => {
                                    Setting::Double(d.to_double(&mut env.warnings).unwrap_or(0.0))
                                }
                                other => Setting::Str(other.to_text_lossy()),
                            };
                            let (v, warning) = sysvars::parse_setting(def, &setting)?;
                            if let Some((code, message)) = warning {
                                env.warnings.push(Warning {
                                    level: "Warning",
                                    code,
                                    message,
                                });
                            }
                            v
                        }
                    };
                    changes.push(Change::system(*index, global, value.clone()));
                    if let Some(alias) = sysvars::alias_of(def.name).and_then(sysvars::lookup) {
                        changes.push(Change::system(alias, global, value.clone()));
                    }
                    // A character set change also sets the matching collation, and back.
                    let linked = match def.name {
                        "character_set_connection" => Some(("collation_connection", true)),
                        "character_set_server" => Some(("collation_server", true)),
                        "character_set_database" => Some(("collation_database", true)),
                        "collation_connection" => Some(("character_set_connection", false)),
                        "collation_server" => Some(("character_set_server", false)),
                        "collation_database" => Some(("character_set_database", false)),
                        _ => None,
                    };
                    if let (Some((other, to_collation)), VarValue::Str(Some(text))) =
                        (linked, &value)
                    {
                        let derived = if to_collation {
                            sysvars::default_collation(text).to_string()
                        } else {
                            sysvars::COLLATIONS
                                .iter()
                                .find(|(c, _)| c == text)
                                .map(|(_, cs)| cs.to_string())
                                .unwrap_or_else(|| "utf8mb4".into())
                        };
                        if let Some(other_index) = sysvars::lookup(other) {
                            changes.push(Change::system(
                                other_index,
                                global,
                                VarValue::Str(Some(derived)),
                            ));
                        }
                    }
                }
            }
        }
        Ok(changes)
    }

    fn apply_assignments(&mut self, changes: Vec<Change>) {
        let mut globals_changed: Option<Vec<VarValue>> = None;
        let mut globals_guard = None;
        let mut applied_globals = Vec::new();
        for change in changes {
            if let Some((name, value)) = change.user {
                self.state.user_vars.insert(name, value);
                continue;
            }
            let def = sysvars::def(change.index);
            if def.name == "last_insert_id" {
                if let VarValue::UInt(v) = change.value {
                    self.state.last_insert_id = v;
                }
                continue;
            }
            if change.global {
                let guard = globals_guard.get_or_insert_with(|| self.engine.globals.write());
                let next = globals_changed.get_or_insert_with(|| guard.as_ref().clone());
                next[change.index] = change.value.clone();
                applied_globals.push((def.name, change.value));
            } else {
                if def.name == "autocommit" && change.value == VarValue::Bool(true) {
                    // SET autocommit=1 commits the open transaction.
                    self.state.in_transaction = false;
                    self.state.written_tables.clear();
                    release_row_locks(self);
                }
                self.state.overrides.insert(change.index, change.value);
            }
        }
        if let (Some(mut guard), Some(next)) = (globals_guard, globals_changed) {
            *guard = Arc::new(next);
        }
        // Effects run after the values are published and the lock is released.
        for (name, value) in applied_globals {
            crate::global_effects::apply(&self.engine, name, &value);
            let note = crate::key_cache::default_cache_note(&self.engine, name, &value);
            self.state.warnings.extend(note);
        }
        self.state.refresh_cached();
    }

    fn show_variables(
        &self,
        global: bool,
        filter: &ShowFilter,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let globals = Arc::clone(&self.engine.globals.read());
        let mut rows = Vec::new();
        for (index, def) in sysvars::DEFINITIONS.iter().enumerate() {
            if global && def.scope == sysvars::Scope::Session {
                continue;
            }
            let datum = if global || def.scope == sysvars::Scope::Global {
                show_text(&globals[index], def)
            } else {
                match def.name {
                    "warning_count" => Datum::Str(env.previous_warnings.to_string().into_bytes()),
                    "error_count" => Datum::Str(env.previous_errors.to_string().into_bytes()),
                    "last_insert_id" => {
                        Datum::Str(self.state.last_insert_id.to_string().into_bytes())
                    }
                    _ => show_text(self.state.session_value(index), def),
                }
            };
            rows.push(vec![Datum::text(def.name), datum]);
        }
        listing(&[("Variable_name", 64), ("Value", 2048)], rows, filter, env)
    }

    fn show_status(
        &self,
        global: bool,
        filter: &ShowFilter,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let engine = &self.engine;
        let c = &engine.counters;
        let mut pairs: Vec<(String, u64)> = Vec::new();
        for (counter, name) in status::NAMES {
            let value = if global {
                engine.status.read(*counter)
            } else {
                self.state.counters.counts[*counter as usize]
            };
            pairs.push((name.to_string(), value));
        }
        let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
        let load_i = |a: &std::sync::atomic::AtomicI64| a.load(Ordering::Relaxed).max(0) as u64;
        let uptime = engine.uptime_s();
        let since_flush = engine.status_flushed.lock().elapsed().as_secs();
        pairs.extend([
            ("Aborted_clients".to_string(), load(&c.aborted_clients)),
            ("Aborted_connects".to_string(), load(&c.aborted_connects)),
            ("Bytes_received".to_string(), load(&c.bytes_received)),
            ("Bytes_sent".to_string(), load(&c.bytes_sent)),
            ("Connections".to_string(), load(&c.connections)),
            (
                "Max_used_connections".to_string(),
                load(&c.max_used_connections),
            ),
            (
                "Threads_connected".to_string(),
                load_i(&c.threads_connected),
            ),
            ("Threads_running".to_string(), load_i(&c.threads_running)),
            ("Uptime".to_string(), uptime),
            ("Uptime_since_flush_status".to_string(), since_flush),
        ]);
        // The storage's caches and redo log: Key_* (block cache), Open_tables and
        // Table_open_cache_* (table cache), Open_files (file cache), Innodb_* (log).
        for (name, value) in engine.catalog.storage().status() {
            pairs.push((name.to_string(), value));
        }
        for (name, value) in crate::query_cache_hooks::status(engine) {
            pairs.push((name.to_string(), value));
        }
        pairs.sort_by_key(|p| p.0.to_ascii_lowercase());
        let rows = pairs
            .into_iter()
            .map(|(name, value)| {
                vec![
                    Datum::Str(name.into_bytes()),
                    Datum::Str(value.to_string().into_bytes()),
                ]
            })
            .collect();
        listing(&[("Variable_name", 64), ("Value", 2048)], rows, filter, env)
    }

    fn show_warnings(&mut self, errors: bool, count_only: bool) -> QueryResult {
        let list: Vec<&Warning> = self
            .state
            .warnings
            .iter()
            .filter(|w| !errors || w.level == "Error")
            .collect();
        if count_only {
            let name = if errors {
                "@@session.error_count"
            } else {
                "@@session.warning_count"
            };
            let columns = vec![result_column(
                name,
                SqlType::Int {
                    unsigned: true,
                    len: 21,
                },
            )];
            let warnings = self.state.warnings.len().min(u16::MAX as usize) as u16;
            return QueryResult::Rows {
                columns: Arc::new(columns),
                rows: Rows::shared(vec![vec![Value::UInt(list.len() as u64)]]),
                warnings,
            };
        }
        let columns = vec![
            text_column("Level", 7),
            result_column(
                "Code",
                SqlType::Int {
                    unsigned: true,
                    len: 4,
                },
            ),
            text_column("Message", 512),
        ];
        let rows = list
            .iter()
            .map(|w| {
                vec![
                    Value::Bytes(w.level.as_bytes().to_vec()),
                    Value::UInt(w.code as u64),
                    Value::Bytes(w.message.clone().into_bytes()),
                ]
            })
            .collect();
        let warnings = self.state.warnings.len().min(u16::MAX as usize) as u16;
        QueryResult::Rows {
            columns: Arc::new(columns),
            rows: Rows::shared(rows),
            warnings,
        }
    }
}

/// Collations SHOW COLLATION lists: name, charset, id, is the charset's default.
const COLLATION_IDS: &[(&str, &str, u64, bool)] = &[
    ("ascii_general_ci", "ascii", 11, true),
    ("binary", "binary", 63, true),
    ("latin1_bin", "latin1", 47, false),
    ("latin1_swedish_ci", "latin1", 8, true),
    ("utf8mb3_bin", "utf8mb3", 83, false),
    ("utf8mb3_general_ci", "utf8mb3", 33, true),
    ("utf8mb4_bin", "utf8mb4", 46, false),
    ("utf8mb4_general_ci", "utf8mb4", 45, true),
    ("utf8mb4_unicode_520_ci", "utf8mb4", 246, false),
    ("utf8mb4_unicode_ci", "utf8mb4", 224, false),
];

fn canonical_charset(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == "utf8" {
        "utf8mb3".to_string()
    } else {
        lower
    }
}

fn parse_charset(name: &str) -> Result<String, SqlError> {
    let cs = canonical_charset(name);
    if sysvars::CHARSETS.contains(&cs.as_str()) {
        Ok(cs)
    } else {
        Err(SqlError::new(
            ER_UNKNOWN_CHARACTER_SET,
            format!("Unknown character set: '{name}'"),
        ))
    }
}

fn show_text(value: &VarValue, def: &sysvars::VarDef) -> Datum {
    match value.display(def) {
        Some(t) => Datum::Str(t.into_bytes()),
        None => Datum::text(""),
    }
}

/// A variable change (or user variable assignment) decided by SET, applied afterwards.
pub struct Change {
    index: usize,
    global: bool,
    value: VarValue,
    user: Option<(String, Datum)>,
}

impl Change {
    fn system(index: usize, global: bool, value: VarValue) -> Change {
        Change {
            index,
            global,
            value,
            user: None,
        }
    }

    fn user(name: String, value: Datum) -> Change {
        Change {
            index: 0,
            global: false,
            value: VarValue::Bool(false),
            user: Some((name, value)),
        }
    }
}

fn session_change(name: &str, value: VarValue) -> Option<Change> {
    sysvars::lookup(name).map(|index| Change::system(index, false, value))
}

/// What a statement leaves for the `&mut self` step.
enum Pending {
    Done(QueryResult),
    /// An INSERT that generated this AUTO_INCREMENT value (LAST_INSERT_ID()).
    Inserted(QueryResult, u64),
    Assign(Vec<Change>),
    Use(String),
    DroppedDatabase(String, u64),
    Transaction(bool),
    FlushStatus,
}

fn ok(affected_rows: u64) -> QueryResult {
    QueryResult::Ok {
        affected_rows,
        last_insert_id: 0,
        warnings: 0,
        info: String::new(),
    }
}

fn note(code: u16, message: String) -> Warning {
    Warning {
        level: "Note",
        code,
        message,
    }
}

fn err_no_database() -> SqlError {
    SqlError::new(ER_NO_DB_ERROR, "No database selected")
}

/// CREATE / DROP / ALTER USER over a list of accounts: an account the operation does not
/// apply to is a note (1973 for CREATE, 1974 otherwise) under IF [NOT] EXISTS, and otherwise
/// part of one error 1396 naming every such account, as MariaDB reports it.
struct AccountOp {
    operation: &'static str,
    reason: &'static str,
    tolerant: bool,
}

impl AccountOp {
    fn new(operation: &'static str, reason: &'static str, tolerant: bool) -> AccountOp {
        AccountOp {
            operation,
            reason,
            tolerant,
        }
    }

    fn apply(
        &self,
        users: &[UserSpec],
        warnings: &mut Vec<Warning>,
        mut applied: impl FnMut(&UserSpec) -> Result<bool, SqlError>,
    ) -> Result<(), SqlError> {
        let mut failed = Vec::new();
        for u in users {
            if applied(u)? {
                continue;
            }
            if self.tolerant {
                let code = if self.operation == "CREATE USER" {
                    1973
                } else {
                    1974
                };
                let verb = self.operation.split(' ').next().unwrap_or_default();
                let message = format!(
                    "Can't {} user '{}'@'{}'; {}",
                    verb.to_ascii_lowercase(),
                    u.user,
                    u.host,
                    self.reason
                );
                warnings.push(note(code, message));
            } else {
                failed.push(format!("'{}'@'{}'", u.user, u.host));
            }
        }
        if failed.is_empty() {
            return Ok(());
        }
        let message = format!(
            "Operation {} failed for {}",
            self.operation,
            failed.join(",")
        );
        Err(SqlError::new(ER_CANNOT_USER, message))
    }
}

/// Longest integer (in characters) MariaDB reports as LONG rather than LONGLONG.
const INT32_DIGITS_MAX: u32 = 9;

/// A result column for a value of static type `ty`, with MySQL's type code, length and
/// character set.
pub fn result_column(name: &str, ty: SqlType) -> Column {
    let (column_type, length, charset, mut flags, decimals) = match ty {
        SqlType::Null => (
            ColumnType::Null,
            0,
            charsets::BINARY,
            column_flags::BINARY,
            0,
        ),
        SqlType::Int { unsigned, len } => (
            // MariaDB reports integers of up to 9 digits as LONG, longer ones as LONGLONG.
            if len <= INT32_DIGITS_MAX {
                ColumnType::Long
            } else {
                ColumnType::LongLong
            },
            len.max(1),
            charsets::BINARY,
            column_flags::BINARY
                | column_flags::NUM
                | if unsigned { column_flags::UNSIGNED } else { 0 },
            0,
        ),
        SqlType::Decimal { precision, scale } => (
            ColumnType::NewDecimal,
            precision.max(1) + u32::from(scale > 0) + 1,
            charsets::BINARY,
            column_flags::BINARY | column_flags::NUM,
            scale.min(38) as u8,
        ),
        SqlType::Double => (
            ColumnType::Double,
            22,
            charsets::BINARY,
            column_flags::BINARY | column_flags::NUM,
            31,
        ),
        SqlType::Str { chars } => (
            ColumnType::VarString,
            chars.saturating_mul(4),
            charsets::UTF8MB4_GENERAL_CI,
            0,
            39,
        ),
        SqlType::Date => (
            ColumnType::Date,
            10,
            charsets::BINARY,
            column_flags::BINARY,
            0,
        ),
        SqlType::DateTime => (
            ColumnType::DateTime,
            19,
            charsets::BINARY,
            column_flags::BINARY,
            0,
        ),
    };
    if matches!(ty, SqlType::Str { .. }) {
        flags = 0;
    }
    Column {
        schema: crate::result::no_table(),
        table: crate::result::no_table(),
        org_table: crate::result::no_table(),
        name: name.to_string(),
        org_name: String::new(),
        charset,
        length,
        column_type,
        flags,
        decimals,
    }
}

fn text_column(name: &str, chars: u32) -> Column {
    let mut c = result_column(name, SqlType::Str { chars });
    c.flags = column_flags::NOT_NULL;
    c.decimals = 0;
    c
}

/// In a listing's column spec: a text column MariaDB types as BLOB.
const BLOB_TEXT: u32 = u32::MAX;
/// In a listing's column spec: a small integer (LONG).
const LONG_INT: u32 = u32::MAX - 1;

/// A SHOW listing: columns (name, chars; 0 = an unsigned BIGINT, or [`BLOB_TEXT`] /
/// [`LONG_INT`]), rows, and its filter.
fn listing(
    columns: &[(&str, u32)],
    rows: Vec<Vec<Datum>>,
    filter: &ShowFilter,
    env: &mut ExecEnv,
) -> Result<QueryResult, SqlError> {
    let mut kept = Vec::new();
    for row in rows {
        let keep = match filter {
            ShowFilter::None => true,
            ShowFilter::Like(pattern) => {
                let text = row[0].to_text().unwrap_or_default();
                eval::like_match(&text, pattern.as_bytes(), b'\\', false)
            }
            ShowFilter::Where(e) => e.eval(env, &row)?.truth(&mut env.warnings) == Some(true),
        };
        if keep {
            kept.push(row);
        }
    }
    let cols: Vec<Column> = columns
        .iter()
        .map(|(name, chars)| match *chars {
            0 => result_column(
                name,
                SqlType::Int {
                    unsigned: true,
                    len: 21,
                },
            ),
            LONG_INT => result_column(
                name,
                SqlType::Int {
                    unsigned: true,
                    len: 2,
                },
            ),
            BLOB_TEXT => {
                let mut c = text_column(name, 65_535);
                c.column_type = ColumnType::Blob;
                c
            }
            n => text_column(name, n),
        })
        .collect();
    let types: Vec<SqlType> = columns
        .iter()
        .map(|(_, chars)| match *chars {
            0 => SqlType::Int {
                unsigned: true,
                len: 21,
            },
            LONG_INT => SqlType::Int {
                unsigned: true,
                len: 2,
            },
            BLOB_TEXT => SqlType::Str { chars: 65_535 },
            n => SqlType::Str { chars: n },
        })
        .collect();
    let mut warnings = Vec::new();
    let rows = kept
        .into_iter()
        .map(|row| {
            row.into_iter()
                .zip(&types)
                .map(|(d, t)| d.into_value(*t, &mut warnings))
                .collect()
        })
        .collect();
    Ok(QueryResult::Rows {
        columns: Arc::new(cols),
        rows: Rows::shared(rows),
        warnings: 0,
    })
}

/// Evaluate a LIMIT/OFFSET operand: a non-negative integer.
fn limit_value(e: &Expr, env: &mut ExecEnv) -> Result<u64, SqlError> {
    match e.eval(env, &[])? {
        Datum::Int(i) if i >= 0 => Ok(i as u64),
        Datum::UInt(u) => Ok(u),
        Datum::Int(_) => Ok(0),
        Datum::Str(s) => Ok(String::from_utf8_lossy(&s)
            .trim()
            .parse::<u64>()
            .unwrap_or(0)),
        _ => Err(SqlError::new(
            ER_WRONG_ARGUMENTS,
            "Incorrect arguments to LIMIT",
        )),
    }
}

fn select(plan: &parse::SelectPlan, env: &mut ExecEnv) -> Result<QueryResult, SqlError> {
    let types: Vec<SqlType> = plan
        .items
        .iter()
        .map(|i| i.expr.sql_type(env, &[]))
        .collect();
    let columns: Vec<Column> = plan
        .items
        .iter()
        .zip(&types)
        .map(|(i, t)| result_column(&i.name, *t))
        .collect();
    let mut produce = match &plan.filter {
        Some(f) => f.eval(env, &[])?.truth(&mut env.warnings) == Some(true),
        None => true,
    };
    if let Some(l) = &plan.limit {
        let limit = limit_value(l, env)?;
        let offset = match &plan.offset {
            Some(o) => limit_value(o, env)?,
            None => 0,
        };
        if limit == 0 || offset > 0 {
            produce = false;
        }
    }
    let mut rows = Vec::new();
    if produce {
        let mut row = Vec::with_capacity(plan.items.len());
        for (item, ty) in plan.items.iter().zip(&types) {
            let d = item.expr.eval(env, &[])?;
            row.push(d.into_value(*ty, &mut env.warnings));
        }
        rows.push(row);
    }
    Ok(QueryResult::Rows {
        columns: Arc::new(columns),
        rows: Rows::shared(rows),
        warnings: 0,
    })
}

/// Compile every statement of a text; an error stops at that statement.
fn compile_all(
    session: &Session,
    sql: &str,
) -> Result<(SourceMap, Vec<parse::RawStatement>), SqlError> {
    let _ = session;
    let map = SourceMap::new(sql);
    let raws = parse::split(sql, &map)?;
    Ok((map, raws))
}

pub fn execute(
    session: &mut Session,
    sql: &str,
    allow_multi: bool,
) -> Vec<Result<QueryResult, SqlError>> {
    // A connection keeps to one instance of the table open cache.
    myriad_storage::set_instance_hint(u64::from(session.info.connection_id));
    let mut probe = match crate::query_cache_hooks::lookup_text(session, sql) {
        crate::query_cache_hooks::Looked::Hit(result) => {
            session.bump(Counter::Questions);
            session.bump(Counter::Queries);
            return vec![Ok(result)];
        }
        crate::query_cache_hooks::Looked::Miss(probe) => probe,
    };
    let pipes_as_concat = session.state.sql_mode & sysvars::sql_mode::PIPES_AS_CONCAT != 0;
    let cached =
        session
            .state
            .plan_cache
            .get(sql, session.info.database.as_deref(), pipes_as_concat);
    if let Some(stmt) = cached {
        session.bump(Counter::Questions);
        session.bump(Counter::Queries);
        session.bump(stmt.counter());
        match crate::query_cache_hooks::run(session, &stmt, &[], probe.take()) {
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
            session.state.warnings = vec![Warning {
                level: "Error",
                code: e.code,
                message: e.message.clone(),
            }];
            return vec![Err(e)];
        }
    };
    if !allow_multi && raws.len() > 1 {
        session.bump(Counter::Questions);
        let second = &raws[1];
        let e = crate::expr::err_syntax(map.source().get(second.text.clone()).unwrap_or(""));
        session.state.warnings = vec![Warning {
            level: "Error",
            code: e.code,
            message: e.message.clone(),
        }];
        return vec![Err(e)];
    }
    let mut results = Vec::with_capacity(raws.len());
    for raw in &raws {
        session.bump(Counter::Questions);
        session.bump(Counter::Queries);
        // The tables the compile opens stay open for the execution: one lookup each.
        let _tables = myriad_storage::StatementTables::begin();
        let compiled = {
            let ctx = session.compile_ctx();
            parse::compile_statement(raw, &map, &ctx)
        };
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
                    let result = crate::query_cache_hooks::run(session, &stmt, &[], probe.take());
                    // Kept under the database it was compiled in: a cacheable statement
                    // (SELECT, INSERT, UPDATE, DELETE) does not change it.
                    let database = session.info.database.clone();
                    session
                        .state
                        .plan_cache
                        .offer(sql, database, pipes_as_concat, stmt);
                    result
                } else {
                    session.run(&stmt, &[])
                }
            }
            Err(e) => {
                session.state.warnings = vec![Warning {
                    level: "Error",
                    code: e.code,
                    message: e.message.clone(),
                }];
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

pub fn prepare(session: &mut Session, sql: &str) -> Result<PreparedInfo, SqlError> {
    session.bump(Counter::Questions);
    session.bump(Counter::ComStmtPrepare);
    let (map, raws) = compile_all(session, sql)?;
    if raws.len() != 1 {
        let second = raws
            .get(1)
            .map(|r| map.source().get(r.text.clone()).unwrap_or(""))
            .unwrap_or("");
        return Err(crate::expr::err_syntax(second));
    }
    let (stmt, param_count) = {
        let ctx = session.compile_ctx();
        parse::compile_statement(&raws[0], &map, &ctx)?
    };
    if param_count > u16::MAX as usize {
        return Err(SqlError::new(
            ER_PS_MANY_PARAM,
            "Prepared statement contains too many placeholders",
        ));
    }
    if session.state.prepared.len() >= PREPARED_PER_SESSION_MAX {
        return Err(SqlError::new(ER_MAX_PREPARED_STMT_COUNT_REACHED,
            format!("Can't create more than max_prepared_stmt_count statements (current value: {PREPARED_PER_SESSION_MAX})"),
        ));
    }
    let columns = match &stmt {
        Stmt::Select(plan) => {
            // Parameter types are unknown until EXECUTE; describe them as strings.
            let params = vec![Datum::Str(Vec::new()); param_count];
            let env = session.env(&params);
            plan.items
                .iter()
                .map(|i| result_column(&i.name, i.expr.sql_type(&env, &[])))
                .collect()
        }
        Stmt::SelectTable(plan) => {
            let params = vec![Datum::Str(Vec::new()); param_count];
            let env = session.env(&params);
            let mut types = plan.source.table.column_types();
            for j in &plan.joins {
                types.extend(j.table.column_types());
            }
            let ncols = types.len();
            if let Some(g) = &plan.grouping {
                for a in &g.aggregates {
                    let ty = aggregate_type(a, &types[..ncols], &env);
                    types.push(ty);
                }
            }
            table_select_columns(plan, &types, ncols, &env)
        }
        _ => Vec::new(),
    };
    let statement_id = session.state.next_statement_id;
    session.state.next_statement_id = session.state.next_statement_id.wrapping_add(1).max(1);
    session.state.prepared.insert(
        statement_id,
        Prepared {
            index_read: matches!(&stmt, Stmt::SelectTable(plan) if plan.is_index_read()),
            runs_inline: runs_inline(sql),
            stmt,
            param_count,
            sql: sql.to_string(),
            query_cache_scan: None,
        },
    );
    Ok(PreparedInfo {
        statement_id,
        param_count: param_count as u16,
        columns,
    })
}

pub fn execute_prepared(
    session: &mut Session,
    statement_id: u32,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    myriad_storage::set_instance_hint(u64::from(session.info.connection_id));
    session.bump(Counter::Questions);
    session.bump(Counter::ComStmtExecute);
    // Take the statement out while it runs so the session can be borrowed mutably.
    let Some(prepared) = session.state.prepared.remove(&statement_id) else {
        return Err(SqlError::new(
            ER_UNKNOWN_STMT_HANDLER,
            format!(
                "Unknown prepared statement handler ({statement_id}) given to mysqld_stmt_execute"
            ),
        ));
    };
    let mut prepared = prepared;
    let result = if params.len() != prepared.param_count {
        Err(SqlError::new(
            ER_WRONG_ARGUMENTS,
            "Incorrect arguments to mysqld_stmt_execute",
        ))
    } else {
        let probe = match crate::query_cache_hooks::lookup_prepared(
            session,
            &prepared.sql,
            params,
            &mut prepared.query_cache_scan,
        ) {
            crate::query_cache_hooks::Looked::Hit(result) => {
                session.state.prepared.insert(statement_id, prepared);
                return Ok(result);
            }
            crate::query_cache_hooks::Looked::Miss(probe) => probe,
        };
        let bound: Vec<Datum> = params.iter().map(Datum::from_value).collect();
        session.bump(prepared.stmt.counter());
        match crate::query_cache_hooks::run(session, &prepared.stmt, &bound, probe) {
            // A table changed under the plan: compile the text again, once.
            Err(e) if e.code == 1412 => match recompile(session, &prepared.sql) {
                Ok((stmt, count)) if count == prepared.param_count => {
                    prepared.index_read =
                        matches!(&stmt, Stmt::SelectTable(plan) if plan.is_index_read());
                    prepared.stmt = stmt;
                    session.run(&prepared.stmt, &bound)
                }
                Ok(_) => Err(e),
                Err(e) => Err(e),
            },
            other => other,
        }
    };
    session.state.prepared.insert(statement_id, prepared);
    result
}

fn recompile(session: &Session, sql: &str) -> Result<(Stmt, usize), SqlError> {
    let (map, raws) = compile_all(session, sql)?;
    let raw = raws.first().ok_or_else(|| crate::expr::err_syntax(""))?;
    let ctx = session.compile_ctx();
    parse::compile_statement(raw, &map, &ctx)
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
fn leading_word(text: &str) -> (&str, &str) {
    let end = text
        .bytes()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(text.len());
    text.split_at(end)
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

pub fn use_database(session: &mut Session, database: &str) -> Result<(), SqlError> {
    session.bump(Counter::ComChangeDb);
    if !session.engine.catalog.database_exists(database) {
        return Err(catalog::err_unknown_database(database));
    }
    session.info.database = Some(database.to_string());
    session.interrupt.set_database(Some(database));
    Ok(())
}

pub fn field_list(session: &mut Session, table: &str) -> Result<Vec<Column>, SqlError> {
    let Some(db) = session.info.database.clone() else {
        return Err(err_no_database());
    };
    let storage = session.engine.catalog.storage();
    let table_ref = tables::open_ref(storage, &db, table, None)?;
    Ok((0..table_ref.def.columns.len())
        .map(|i| tables::column_meta(&table_ref, i, &table_ref.def.columns[i].name))
        .collect())
}

// ---- statements over stored tables ----

impl Session {
    fn insert(&self, plan: &tables::InsertPlan, env: &mut ExecEnv) -> Result<Pending, SqlError> {
        let storage = self.engine.catalog.storage();
        let table = plan.table.open(storage)?;
        let def = &plan.table.def;
        let strict = self.strict();
        let mut stmt = storage.begin();
        let mut affected = 0u64;
        let mut first_id: Option<u64> = None;
        for (n, row_exprs) in plan.rows.iter().enumerate() {
            let row_number = n + 1;
            let mut given: Vec<Option<Datum>> = vec![None; def.columns.len()];
            for (expr, &position) in row_exprs.iter().zip(&plan.columns) {
                if let Some(e) = expr {
                    let warned = env.warnings.len();
                    given[position] = Some(e.eval(env, &[])?);
                    self.division_by_zero_is_error(&env.warnings[warned..])?;
                }
            }
            let mut row = Vec::with_capacity(def.columns.len());
            for (position, column) in def.columns.iter().enumerate() {
                let stored = match given[position].take() {
                    // AUTO_INCREMENT: NULL or 0 asks for the next value.
                    Some(v)
                        if column.auto_increment
                            && (v.is_null() || v.to_int(&mut Vec::new()) == Some(0)) =>
                    {
                        myriad_storage::Datum::Null
                    }
                    Some(v) => {
                        let target = tables::Target {
                            column,
                            table: Some(&plan.table),
                            row: row_number,
                            strict,
                        };
                        tables::to_stored(&v, &target, &mut env.warnings)?
                    }
                    None if column.default_now => {
                        crate::timestamps::now_for(&column.ty, env.now_micros())
                    }
                    None => match &column.default {
                        Some(d) => d.clone(),
                        None if column.auto_increment || column.nullable => {
                            myriad_storage::Datum::Null
                        }
                        None => {
                            let message =
                                format!("Field '{}' doesn't have a default value", column.name);
                            if strict {
                                return Err(SqlError::new(ER_NO_DEFAULT_FOR_FIELD, message));
                            }
                            env.warnings.push(Warning {
                                level: "Warning",
                                code: ER_NO_DEFAULT_FOR_FIELD.code,
                                message,
                            });
                            zero_value(&column.ty)
                        }
                    },
                };
                row.push(stored);
            }
            let mut attempts = 0;
            loop {
                match table.insert(&mut stmt, &row) {
                    Ok(outcome) => {
                        affected += 1;
                        if let (None, Some(id)) = (first_id, outcome.generated_auto_increment) {
                            first_id = Some(id);
                        }
                        break;
                    }
                    Err(myriad_storage::StorageError::DuplicateKey { existing_row, .. })
                        if plan.replace && attempts < 64 =>
                    {
                        table
                            .delete(&mut stmt, existing_row)
                            .map_err(catalog::storage_error)?;
                        affected += 1;
                        attempts += 1;
                    }
                    Err(myriad_storage::StorageError::DuplicateKey { existing_row, .. })
                        if plan.on_duplicate.is_some() =>
                    {
                        let assignments = plan.on_duplicate.as_deref().unwrap_or_default();
                        let old = table
                            .get(existing_row)
                            .map_err(catalog::storage_error)?
                            .ok_or_else(|| SqlError::new(ER_KEY_NOT_FOUND, "Can't find record"))?;
                        let old_values: Vec<Datum> = old
                            .iter()
                            .zip(&def.columns)
                            .map(|(d, c)| tables::from_stored(d, &c.ty))
                            .collect();
                        let new_values: Vec<Datum> = row
                            .iter()
                            .zip(&def.columns)
                            .map(|(d, c)| tables::from_stored(d, &c.ty))
                            .collect();
                        let mut working = old_values.clone();
                        for (position, expr) in assignments {
                            let mut scope_row = working.clone();
                            scope_row.extend(new_values.iter().cloned());
                            let v = expr.eval(env, &scope_row)?;
                            let target = tables::Target {
                                column: &def.columns[*position],
                                table: Some(&plan.table),
                                row: row_number,
                                strict,
                            };
                            let stored = tables::to_stored(&v, &target, &mut env.warnings)?;
                            working[*position] =
                                tables::from_stored(&stored, &def.columns[*position].ty);
                        }
                        if working != old_values {
                            crate::timestamps::touch_on_update(
                                def,
                                |i| assignments.iter().any(|(p, _)| *p == i),
                                &mut working,
                                env.now_micros(),
                            );
                            let mut updated = Vec::with_capacity(def.columns.len());
                            for (column, v) in def.columns.iter().zip(&working) {
                                let target = tables::Target {
                                    column,
                                    table: Some(&plan.table),
                                    row: row_number,
                                    strict: false,
                                };
                                updated.push(tables::to_stored(v, &target, &mut Vec::new())?);
                            }
                            table
                                .update(&mut stmt, existing_row, &updated)
                                .map_err(catalog::storage_error)?;
                            affected += 2;
                        }
                        break;
                    }
                    Err(e @ myriad_storage::StorageError::DuplicateKey { .. }) if plan.ignore => {
                        env.warnings.push(Warning {
                            level: "Warning",
                            code: ER_DUP_ENTRY.code,
                            message: e.to_string(),
                        });
                        break;
                    }
                    Err(e) => return Err(catalog::storage_error(e)),
                }
            }
        }
        stmt.commit().map_err(catalog::storage_error)?;
        let result = QueryResult::Ok {
            affected_rows: affected,
            last_insert_id: first_id.unwrap_or(0),
            warnings: 0,
            info: if plan.rows.len() > 1 {
                format!(
                    "Records: {}  Duplicates: 0  Warnings: {}",
                    plan.rows.len(),
                    env.warnings.len()
                )
            } else {
                String::new()
            },
        };
        Ok(match first_id {
            Some(id) => Pending::Inserted(result, id),
            None => Pending::Done(result),
        })
    }

    /// KILL: stop another session's statement or connection (or this session's own: its
    /// KILL statement then fails with the error its victim would see, as in MariaDB).
    fn kill(
        &self,
        target: crate::interrupt::KillTarget,
        id: &Expr,
        env: &mut ExecEnv,
    ) -> Result<(), SqlError> {
        // As MariaDB's val_int: rounded, NULL and text without digits 0, -1 read unsigned.
        let id = match id.eval(env, &[])? {
            Datum::UInt(u) => u,
            other => other.to_int(&mut env.warnings).unwrap_or(0) as u64,
        };
        self.engine.sessions.kill(&self.info.user, id, target)?;
        if id == u64::from(self.info.connection_id) {
            if let Some(e) = self.interrupt.error() {
                return Err(e);
            }
        }
        Ok(())
    }

    /// The rows a statement reads, ordered and limited as it asks.
    fn matching_rows(
        &self,
        source: &tables::RowSource,
        table: &myriad_storage::Table,
        order_by: &[(Expr, bool)],
        limit: Option<&Expr>,
        env: &mut ExecEnv,
    ) -> Result<Vec<(myriad_storage::RowId, Vec<Datum>)>, SqlError> {
        let mut rows = tables::read_rows(source, table, env)?;
        if !order_by.is_empty() {
            let mut keyed = Vec::with_capacity(rows.len());
            for row in rows {
                crate::interrupt::tick()?;
                let keys = order_by
                    .iter()
                    .map(|(e, _)| e.eval(env, &row.1))
                    .collect::<Result<Vec<_>, _>>()?;
                keyed.push((keys, row));
            }
            let desc: Vec<bool> = order_by.iter().map(|(_, d)| *d).collect();
            tables::sort_rows(&mut keyed, &desc);
            crate::interrupt::tick()?;
            rows = keyed.into_iter().map(|(_, r)| r).collect();
        }
        if let Some(l) = limit {
            rows.truncate(usize::try_from(limit_value(l, env)?).unwrap_or(usize::MAX));
        }
        Ok(rows)
    }

    fn select_table(
        plan: &tables::TableSelect,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let engine = env.engine;
        let storage = engine.catalog.storage();
        let table = plan.source.table.open(storage)?;
        let mut types = plan.source.table.column_types();
        for j in &plan.joins {
            types.extend(j.table.column_types());
        }
        let ncols = types.len();
        let rows = if plan.joins.is_empty() {
            let options = tables::ReadOptions {
                wanted: tables::columns_read(plan),
                max_rows: Session::rows_to_read(plan, env)?,
            };
            tables::read_rows_with(&plan.source, &table, env, &options)?
        } else {
            Session::joined_rows(plan, &table, env)?
        };
        // The rows the select list is evaluated over: table rows, or one row per group
        // (the group's first row followed by its aggregate values).
        let mut input: Vec<Vec<Datum>> = Vec::new();
        let mut group_keys: Vec<Vec<Datum>> = Vec::new();
        if let Some(g) = &plan.grouping {
            for a in &g.aggregates {
                let ty = aggregate_type(a, &types[..ncols], env);
                types.push(ty);
            }
            let mut index: HashMap<Vec<String>, usize> = HashMap::new();
            let mut groups: Vec<(Vec<Datum>, Vec<usize>)> = Vec::new();
            if g.keys.is_empty() {
                groups.push((Vec::new(), (0..rows.len()).collect()));
            } else {
                for (i, (_, values)) in rows.iter().enumerate() {
                    crate::interrupt::tick()?;
                    let keys = g
                        .keys
                        .iter()
                        .map(|k| k.eval(env, values))
                        .collect::<Result<Vec<_>, _>>()?;
                    let canonical: Vec<String> = keys.iter().map(group_key_text).collect();
                    match index.get(&canonical) {
                        Some(&n) => groups[n].1.push(i),
                        None => {
                            index.insert(canonical, groups.len());
                            groups.push((keys, vec![i]));
                        }
                    }
                }
            }
            for (keys, members) in groups {
                crate::interrupt::tick()?;
                let member_rows: Vec<&Vec<Datum>> = members.iter().map(|&i| &rows[i].1).collect();
                let mut row = match member_rows.first() {
                    Some(first) => (*first).clone(),
                    None => vec![Datum::Null; ncols],
                };
                for a in &g.aggregates {
                    row.push(aggregate_value(a, &member_rows, &types[..ncols], env)?);
                }
                if let Some(h) = &g.having {
                    let keep = h.eval(env, &row)?.truth(&mut env.warnings) == Some(true);
                    if !keep {
                        continue;
                    }
                }
                input.push(row);
                group_keys.push(keys);
            }
        } else {
            input = rows.into_iter().map(|(_, v)| v).collect();
        }
        let stored_only = plan.grouping.is_none()
            && plan.items.iter().all(
                |item| matches!(item, tables::OutputItem::Column { index, .. } if *index < ncols),
            );
        let columns = if stored_only {
            Arc::clone(
                plan.shown_columns
                    .get_or_init(|| Arc::new(table_select_columns(plan, &types, ncols, env))),
            )
        } else {
            Arc::new(table_select_columns(plan, &types, ncols, env))
        };
        let item_types: Vec<SqlType> = plan
            .items
            .iter()
            .map(|item| match item {
                tables::OutputItem::Column { index, .. } => types[*index],
                tables::OutputItem::Expr { expr, .. } => expr.sql_type(env, &types),
            })
            .collect();
        // A column shown as it is and read by nothing else in the select list is moved
        // out of its row, not cloned (the ORDER BY keys are evaluated first).
        let movable: Vec<bool> = {
            let mut uses = vec![0u32; types.len()];
            let mut countable = true;
            for item in &plan.items {
                match item {
                    tables::OutputItem::Column { index, .. } => {
                        if let Some(u) = uses.get_mut(*index) {
                            *u += 1;
                        }
                    }
                    tables::OutputItem::Expr { expr, .. } => {
                        countable &= tables::visit_columns(expr, &mut |c| {
                            if let Some(u) = uses.get_mut(c) {
                                *u += 1;
                            }
                        });
                    }
                }
            }
            plan.items
                .iter()
                .map(|item| {
                    countable
                        && matches!(item, tables::OutputItem::Column { index, .. }
                            if uses.get(*index) == Some(&1))
                })
                .collect()
        };
        let mut out: Vec<(Vec<Datum>, Vec<Value>)> = Vec::with_capacity(input.len());
        for (n, values) in input.iter_mut().enumerate() {
            crate::interrupt::tick()?;
            let keys = if plan.order_by.is_empty() {
                // GROUP BY returns its groups in key order, as MariaDB does.
                group_keys.get(n).cloned().unwrap_or_default()
            } else {
                plan.order_by
                    .iter()
                    .map(|(e, _)| e.eval(env, values))
                    .collect::<Result<Vec<_>, _>>()?
            };
            let mut row = Vec::with_capacity(plan.items.len());
            for ((item, ty), &moved) in plan.items.iter().zip(&item_types).zip(&movable) {
                let d = match item {
                    tables::OutputItem::Column { index, .. } if moved => {
                        std::mem::replace(&mut values[*index], Datum::Null)
                    }
                    tables::OutputItem::Column { index, .. } => values[*index].clone(),
                    tables::OutputItem::Expr { expr, .. } => expr.eval(env, values)?,
                };
                row.push(d.into_value(*ty, &mut env.warnings));
            }
            out.push((keys, row));
        }
        if !plan.order_by.is_empty() {
            let desc: Vec<bool> = plan.order_by.iter().map(|(_, d)| *d).collect();
            tables::sort_rows(&mut out, &desc);
            crate::interrupt::tick()?;
        } else if let Some(first) = group_keys.first().filter(|k| !k.is_empty()) {
            let desc = vec![false; first.len()];
            tables::sort_rows(&mut out, &desc);
        }
        let mut result: Vec<Vec<Value>> = out.into_iter().map(|(_, r)| r).collect();
        if plan.distinct {
            tables::retain_distinct(&mut result);
        }
        let offset = match &plan.offset {
            Some(o) => usize::try_from(limit_value(o, env)?).unwrap_or(usize::MAX),
            None => 0,
        };
        let limit = match &plan.limit {
            Some(l) => usize::try_from(limit_value(l, env)?).unwrap_or(usize::MAX),
            None => usize::MAX,
        };
        if offset > 0 {
            result.drain(..offset.min(result.len()));
        }
        result.truncate(limit);
        Ok(QueryResult::Rows {
            columns,
            rows: Rows::shared(result),
            warnings: 0,
        })
    }

    /// How many rows a single-table SELECT needs from its scan: OFFSET + LIMIT when
    /// nothing after the filter reorders, groups or drops rows; None for all of them.
    fn rows_to_read(
        plan: &tables::TableSelect,
        env: &mut ExecEnv,
    ) -> Result<Option<usize>, SqlError> {
        let Some(limit) = &plan.limit else {
            return Ok(None);
        };
        if !plan.order_by.is_empty() || plan.grouping.is_some() || plan.distinct {
            return Ok(None);
        }
        let offset = match &plan.offset {
            Some(o) => limit_value(o, env)?,
            None => 0,
        };
        let limit = limit_value(limit, env)?;
        Ok(usize::try_from(offset.saturating_add(limit)).ok())
    }

    /// The rows of a join: nested loops over the tables in FROM order, each step looking
    /// its rows up by index when the ON clause allows, then the WHERE clause. The last step
    /// applies WHERE to each combined row as it is made, so a join keeps only the rows it
    /// returns (and the intermediate rows of its earlier steps), not every combination; a
    /// step without an index reads its table once and combines from that one copy.
    fn joined_rows(
        plan: &tables::TableSelect,
        first: &myriad_storage::Table,
        env: &mut ExecEnv,
    ) -> Result<Vec<(myriad_storage::RowId, Vec<Datum>)>, SqlError> {
        let engine = env.engine;
        let storage = engine.catalog.storage();
        let mut joined: Vec<Vec<Datum>> = tables::all_rows(first, &plan.source.table.def)?;
        let mut out = Vec::new();
        debug_assert!(!plan.joins.is_empty(), "a join has a second table");
        let last = plan.joins.len().saturating_sub(1);
        for (n, step) in plan.joins.iter().enumerate() {
            let table = step.table.open(storage)?;
            let width = step.table.def.columns.len();
            let mut whole: Option<Vec<Vec<Datum>>> = None;
            let mut next = Vec::new();
            // Where a combined row goes: the next step's input, or (at the last step)
            // through WHERE into the result.
            let mut emit = |combined: Vec<Datum>, env: &mut ExecEnv| -> Result<(), SqlError> {
                if n < last {
                    next.push(combined);
                    return Ok(());
                }
                let keep = match &plan.post_filter {
                    Some(f) => f.eval(env, &combined)?.truth(&mut env.warnings) == Some(true),
                    None => true,
                };
                if keep {
                    out.push((0, combined));
                }
                Ok(())
            };
            for row in joined {
                let looked_up = match &step.lookup {
                    Some((index_no, key)) => {
                        let value = key.eval(env, &row)?;
                        tables::lookup_rows(&table, &step.table.def, *index_no, value, env)?
                    }
                    None => None,
                };
                if looked_up.is_none() && whole.is_none() {
                    whole = Some(tables::all_rows(&table, &step.table.def)?);
                }
                let candidates: &[Vec<Datum>] = match &looked_up {
                    Some(rows) => rows,
                    None => whole.as_deref().unwrap_or_default(),
                };
                let mut matched = false;
                for candidate in candidates {
                    crate::interrupt::tick()?;
                    let mut combined = Vec::with_capacity(row.len() + candidate.len());
                    combined.extend_from_slice(&row);
                    combined.extend_from_slice(candidate);
                    let keep = match &step.on {
                        Some(on) => on.eval(env, &combined)?.truth(&mut env.warnings) == Some(true),
                        None => true,
                    };
                    if keep {
                        matched = true;
                        emit(combined, env)?;
                    }
                }
                if !matched && step.left {
                    let mut combined = row;
                    combined.extend(std::iter::repeat_n(Datum::Null, width));
                    emit(combined, env)?;
                }
            }
            joined = next;
        }
        Ok(out)
    }

    fn update(
        &self,
        plan: &tables::UpdatePlan,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let storage = self.engine.catalog.storage();
        let table = plan.source.table.open(storage)?;
        let def = &plan.source.table.def;
        let strict = self.strict();
        // The writer lock before the read: concurrent `SET n = n + 1` must not both read n.
        let mut stmt = storage.begin();
        table
            .lock_for_write(&mut stmt)
            .map_err(catalog::storage_error)?;
        let rows = self.matching_rows(
            &plan.source,
            &table,
            &plan.order_by,
            plan.limit.as_ref(),
            env,
        )?;
        let (mut matched, mut changed) = (0u64, 0u64);
        for (n, (row_id, values)) in rows.into_iter().enumerate() {
            matched += 1;
            let mut working = values.clone();
            for (position, expr) in &plan.assignments {
                let warned = env.warnings.len();
                let v = expr.eval(env, &working)?;
                self.division_by_zero_is_error(&env.warnings[warned..])?;
                let target = tables::Target {
                    column: &def.columns[*position],
                    table: Some(&plan.source.table),
                    row: n + 1,
                    strict,
                };
                let stored = tables::to_stored(&v, &target, &mut env.warnings)?;
                working[*position] = tables::from_stored(&stored, &def.columns[*position].ty);
            }
            if working == values {
                continue;
            }
            crate::timestamps::touch_on_update(
                def,
                |i| plan.assignments.iter().any(|(p, _)| *p == i),
                &mut working,
                env.now_micros(),
            );
            let mut new_row = Vec::with_capacity(def.columns.len());
            for (column, v) in def.columns.iter().zip(&working) {
                let target = tables::Target {
                    column,
                    table: Some(&plan.source.table),
                    row: n + 1,
                    strict: false,
                };
                new_row.push(tables::to_stored(v, &target, &mut Vec::new())?);
            }
            if table
                .update(&mut stmt, row_id, &new_row)
                .map_err(catalog::storage_error)?
            {
                changed += 1;
            }
        }
        stmt.commit().map_err(catalog::storage_error)?;
        Ok(QueryResult::Ok {
            affected_rows: changed,
            last_insert_id: 0,
            warnings: 0,
            info: format!(
                "Rows matched: {matched}  Changed: {changed}  Warnings: {}",
                env.warnings.len()
            ),
        })
    }

    /// Lock one row for this session's transaction (outside a transaction: wait until no
    /// other transaction holds it; the caller releases at once).
    fn lock_row(&self, table: &tables::TableRef, key: String) -> Result<(), SqlError> {
        let row = (
            format!("{}.{}", table.database, table.name).to_lowercase(),
            key,
        );
        if self
            .engine
            .row_locks
            .lock(self.info.connection_id, row.clone())?
        {
            self.state.held_locks.lock().push(row);
        }
        Ok(())
    }

    fn delete(
        &self,
        plan: &tables::DeletePlan,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let storage = self.engine.catalog.storage();
        let table = plan.source.table.open(storage)?;
        // The keys a point DELETE searches for are locked before reading, found or not, as
        // InnoDB locks the gap: another transaction's DELETE + INSERT of that key finishes
        // first (see crate::row_locks).
        for key in tables::primary_point_keys(&plan.source, env)? {
            self.lock_row(&plan.source.table, key)?;
        }
        let rows = self.matching_rows(
            &plan.source,
            &table,
            &plan.order_by,
            plan.limit.as_ref(),
            env,
        )?;
        for (_, values) in &rows {
            if let Some(key) = tables::primary_key_of(&plan.source.table.def, values) {
                self.lock_row(&plan.source.table, key)?;
            }
        }
        if !self.state.in_transaction && self.state.autocommit {
            release_row_locks_of(self.engine.as_ref(), &self.info, &self.state);
        }
        let mut stmt = storage.begin();
        let mut deleted = 0u64;
        for (row_id, _) in rows {
            if table
                .delete(&mut stmt, row_id)
                .map_err(catalog::storage_error)?
            {
                deleted += 1;
            }
        }
        stmt.commit().map_err(catalog::storage_error)?;
        Ok(ok(deleted))
    }
}

/// The value a NOT NULL column without a default gets in non-strict mode.
fn zero_value(ty: &myriad_storage::ColumnType) -> myriad_storage::Datum {
    use myriad_storage::{ColumnType as T, Datum as D};
    match ty {
        T::Int { unsigned: true, .. } => D::UInt(0),
        T::Int { .. } => D::Int(0),
        T::Decimal { .. } => D::Decimal(0),
        T::Float | T::Double => D::Double(0.0),
        T::Date => D::Date {
            year: 0,
            month: 0,
            day: 0,
        },
        T::DateTime | T::Timestamp => D::DateTime {
            year: 0,
            month: 0,
            day: 0,
            hour: 0,
            minute: 0,
            second: 0,
            micros: 0,
        },
        _ => D::Bytes(Vec::new()),
    }
}

/// Result metadata of a SELECT over tables. `types` holds the joined row's column types
/// followed by the aggregates' types; `ncols` is where the aggregates start.
fn table_select_columns(
    plan: &tables::TableSelect,
    types: &[SqlType],
    ncols: usize,
    env: &dyn Env,
) -> Vec<Column> {
    plan.items
        .iter()
        .map(|item| match item {
            tables::OutputItem::Column { index, name } if *index < ncols => {
                let (table_ref, local) = column_of(plan, *index);
                tables::column_meta(table_ref, local, name)
            }
            tables::OutputItem::Column { index, name } => aggregate_column(
                plan,
                *index - ncols,
                name,
                types.get(*index).copied().unwrap_or(SqlType::Null),
            ),
            tables::OutputItem::Expr { expr, name } => {
                result_column(name, expr.sql_type(env, types))
            }
        })
        .collect()
}

/// The table a joined-row position belongs to, and the column's position in it.
fn column_of(plan: &tables::TableSelect, index: usize) -> (&tables::TableRef, usize) {
    let mut owner = (&plan.source.table, index);
    for j in &plan.joins {
        if index >= j.offset {
            owner = (&j.table, index - j.offset);
        }
    }
    owner
}

/// Groups compare their keys as MySQL does: strings by the collation (case and trailing
/// spaces ignored), numbers by value.
fn group_key_text(d: &Datum) -> String {
    match d {
        Datum::Null => "N".to_string(),
        Datum::Str(b) => {
            let text = String::from_utf8_lossy(b);
            let folded: String = text
                .trim_end_matches(' ')
                .chars()
                .map(eval::fold_char)
                .collect();
            format!("s{folded}")
        }
        Datum::Int(_) | Datum::UInt(_) | Datum::Dec(_) => {
            format!(
                "n{}",
                d.to_decimal(&mut Vec::new())
                    .unwrap_or_default()
                    .normalize()
            )
        }
        other => format!("o{}", other.to_text_lossy()),
    }
}

fn aggregate_type(agg: &tables::Aggregate, types: &[SqlType], env: &ExecEnv) -> SqlType {
    use tables::AggKind;
    let arg_type = agg
        .arg
        .as_ref()
        .map(|a| a.sql_type(env, types))
        .unwrap_or(SqlType::Null);
    let scale = match arg_type {
        SqlType::Decimal { scale, .. } => scale,
        _ => 0,
    };
    let exact = matches!(arg_type, SqlType::Int { .. } | SqlType::Decimal { .. });
    match agg.kind {
        AggKind::CountStar | AggKind::Count => SqlType::Int {
            unsigned: false,
            len: 21,
        },
        AggKind::Min | AggKind::Max => arg_type,
        AggKind::Sum if exact => SqlType::Decimal {
            precision: 38,
            scale,
        },
        AggKind::Avg if exact => SqlType::Decimal {
            precision: 38,
            scale: scale + env.state.div_precision_increment,
        },
        AggKind::Sum | AggKind::Avg => SqlType::Double,
    }
}

/// One aggregate over a group's rows.
fn aggregate_value(
    agg: &tables::Aggregate,
    rows: &[&Vec<Datum>],
    types: &[SqlType],
    env: &mut ExecEnv,
) -> Result<Datum, SqlError> {
    use tables::AggKind;
    if agg.kind == AggKind::CountStar {
        return Ok(Datum::Int(rows.len() as i64));
    }
    let mut inputs: Vec<Datum> = Vec::new();
    for row in rows {
        crate::interrupt::tick()?;
        let v = agg
            .arg
            .as_ref()
            .map(|a| a.eval(env, row))
            .transpose()?
            .unwrap_or(Datum::Null);
        if !v.is_null() {
            inputs.push(v);
        }
    }
    if agg.distinct {
        let mut unique: Vec<Datum> = Vec::new();
        for v in inputs {
            crate::interrupt::tick()?;
            if !unique
                .iter()
                .any(|u| eval::compare(u, &v, &mut Vec::new()) == Some(std::cmp::Ordering::Equal))
            {
                unique.push(v);
            }
        }
        inputs = unique;
    }
    let ty = aggregate_type(agg, types, env);
    Ok(match agg.kind {
        AggKind::CountStar | AggKind::Count => Datum::Int(inputs.len() as i64),
        AggKind::Min | AggKind::Max => {
            let mut best: Option<Datum> = None;
            for v in inputs {
                let better = match &best {
                    None => true,
                    Some(b) => {
                        let o = eval::compare(&v, b, &mut env.warnings)
                            .unwrap_or(std::cmp::Ordering::Equal);
                        (agg.kind == AggKind::Min && o == std::cmp::Ordering::Less)
                            || (agg.kind == AggKind::Max && o == std::cmp::Ordering::Greater)
                    }
                };
                if better {
                    best = Some(v);
                }
            }
            best.unwrap_or(Datum::Null)
        }
        AggKind::Sum | AggKind::Avg if inputs.is_empty() => Datum::Null,
        AggKind::Sum | AggKind::Avg if matches!(ty, SqlType::Decimal { .. }) => {
            let mut sum = rust_decimal::Decimal::ZERO;
            for v in &inputs {
                sum = sum
                    .checked_add(v.to_decimal(&mut env.warnings).unwrap_or_default())
                    .ok_or_else(|| {
                        SqlError::new(
                            ER_DATA_OUT_OF_RANGE,
                            "DECIMAL value is out of range in 'sum'",
                        )
                    })?;
            }
            if agg.kind == AggKind::Sum {
                Datum::Dec(sum)
            } else {
                Datum::Dec(sum / rust_decimal::Decimal::from(inputs.len() as u64))
            }
        }
        AggKind::Sum | AggKind::Avg => {
            let sum: f64 = inputs
                .iter()
                .map(|v| v.to_double(&mut Vec::new()).unwrap_or(0.0))
                .sum();
            Datum::Double(if agg.kind == AggKind::Sum {
                sum
            } else {
                sum / inputs.len() as f64
            })
        }
    })
}

/// Metadata of a select item that is exactly an aggregate; MIN and MAX of a column keep
/// the column's type.
fn aggregate_column(plan: &tables::TableSelect, n: usize, name: &str, ty: SqlType) -> Column {
    use tables::AggKind;
    if let Some(g) = &plan.grouping {
        if let Some(tables::Aggregate {
            kind: AggKind::Min | AggKind::Max,
            arg: Some(Expr::Column(c)),
            ..
        }) = g.aggregates.get(n)
        {
            let (table_ref, local) = column_of(plan, *c);
            let mut column = tables::column_meta(table_ref, local, name);
            column.flags &= !(column_flags::NOT_NULL
                | column_flags::PRI_KEY
                | column_flags::UNIQUE_KEY
                | column_flags::MULTIPLE_KEY
                | column_flags::AUTO_INCREMENT);
            return column;
        }
    }
    result_column(name, ty)
}

/// End of a transaction (COMMIT, ROLLBACK, BEGIN, autocommit=1, reset, disconnect): release
/// its row locks.
pub(crate) fn release_row_locks(session: &Session) {
    release_row_locks_of(session.engine.as_ref(), &session.info, &session.state);
}

fn release_row_locks_of(engine: &Engine, info: &crate::SessionInfo, state: &SessionState) {
    let mut held = state.held_locks.lock();
    engine.row_locks.release(info.connection_id, &mut held);
}
