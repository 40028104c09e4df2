//! myriad's SQL layer: statement text in, rows and results out, with the system variables,
//! the status counters and the session state around it.
//!
//! The server sees only this file's API: one shared [`Engine`] per server and one
//! [`Session`] per connection. Everything here is synchronous; the server runs it off the
//! async reactor.
//!
//! # Stages
//!
//! One folder per stage; a stage uses the ones below it and never one above
//! (`tests/layers.rs` checks it). Bottom up:
//!
//! - the crate root: [`error`], [`value`], [`result`] (columns and results as the protocol
//!   sends them), [`interrupt`] (cancellation ticks, the KILL registry), [`depth`] (the stack
//!   guard of the recursive parsers and evaluators).
//! - [`system`]: the system variables, declared once with their on-set effects, and the
//!   status counters. A variable's effect on a cache goes to the storage and cache crates
//!   (`system::key_cache_effects`), never up into execution.
//! - [`parser`]: statement text as tokens: the MySQL dialect of sqlparser, the split of a
//!   COM_QUERY text into statements with its map from token positions to text offsets
//!   (`parser::source`), and the long literal lists taken out before the tokenizer
//!   (`parser::text_lists`) or sqlparser (`parser::const_lists`) sees them. It gives no token a meaning, so it sits below expressions and statements.
//! - [`expr`]: expressions: the types, the compiler from sqlparser's AST, typing,
//!   evaluation, the built-in functions and the MySQL value rules (`expr::eval`, `arith`,
//!   `compare`). It sits below the catalog because catalog rows are made of its values.
//! - [`catalog`]: databases and tables on disk, accounts, character sets, the
//!   information_schema tables.
//! - [`plan`]: the statement types ([`plan::Stmt`]) and the statement compiler that builds
//!   them from the tokens: the hand-written parsers (SET, SHOW, KILL, accounts, key cache
//!   statements: `plan::statements`, `plan::key_cache_parse`), the sqlparser path
//!   (`plan::from_ast`), SELECT plans, name resolution, access paths, table definitions,
//!   ALTER, the plan cache. The conversions to stored values and the SHOW CREATE texts live
//!   here, because table definitions need them. A view (`plan::view`) is read as a derived
//!   table over its stored SELECT (`catalog::views` keeps the definition); its canonical
//!   text for SHOW CREATE VIEW is printed by `plan::view_text`.
//! - [`session`]: what a connection keeps between statements: its variables, warnings,
//!   prepared statements, row locks and query cache settings.
//! - [`exec`]: running statements: the entry points, one dispatch arm per statement family,
//!   then select, aggregate, sort, read, write, ddl, admin and show, and the query cache
//!   hooks around them.
//!
//! A subquery is an expression that holds a statement, yet `expr` does not name `plan`: it
//! holds the compiled subquery as an [`expr::SubqueryPlan`] (asking only its first column's
//! type), and the expression compiler reaches the statement compiler through the
//! [`expr::StatementCompiler`] that `plan` hands it in [`expr::Compiler`]. The executor runs
//! a subquery's statement through [`expr::Env::subquery`], once per statement.
//!
//! # One SELECT
//!
//! `SELECT a FROM t WHERE id = 5` arrives as [`Session::execute`]:
//! 1. `exec::entry::execute` asks the query cache first (`exec::query_cache::lookup_text`;
//!    the statement's text scan is `session::query_text`), then the session's plan cache
//!    (`plan::plan_cache`).
//! 2. On a miss, `parser::source::split` tokenizes the text once and cuts it at `;`
//!    (`parser/`). `plan::compile_statement` finds no hand-written form for SELECT and sends
//!    the tokens to `plan::from_ast`, which parses them with sqlparser in
//!    `parser::dialect`'s MySQL dialect and calls `plan::query::compile_query` and
//!    `compile_table_select`: columns resolve against `plan::tables::TableRef` (over the
//!    `catalog`), the WHERE clause becomes an [`expr::Expr`] through [`expr::Compiler`], and
//!    `plan::access::choose_access` picks the primary key point lookup. The result is a
//!    `Stmt::SelectTable`.
//! 3. `exec::dispatch` sends it to `exec::select::select_table`, which reads rows with
//!    `exec::read` (through the storage's table and block caches; a join through
//!    `exec::join`, one combined row at a time), filters them by evaluating the expression
//!    through `exec::env::ExecEnv`, folds aggregates with `exec::accumulate`, computes
//!    window functions over the rows left (`exec::window`), orders and
//!    groups within their budgets with `exec::spill`, and hands each row to the client's
//!    sink as it is final (`exec::stream`, [`row_sink`]).
//! 4. `exec::entry` stores the result in the query cache when the statement may be cached.
//!
//! # One UPDATE
//!
//! `UPDATE t SET a = a + 1 WHERE id = 5` takes the same first two steps (the query cache is
//! not consulted for writes): `plan::from_ast` compiles the assignments and the WHERE clause
//! over the table's columns with [`expr::Compiler`], has `plan::access::choose_access` pick
//! the access path, and builds a `plan::tables::UpdatePlan`. Then:
//! 1. `exec::entry` wraps the run in `exec::query_cache::write_guard`, so that cached
//!    results over `t` stop being served.
//! 2. `exec::dispatch` calls `exec::write` (`Session::update`), which finds the rows with
//!    `exec::select::matching_rows`, evaluates the new values, converts them with
//!    `plan::stored::to_stored` (MySQL's warnings and errors for values that do not fit),
//!    takes row locks (`session::row_locks`) and writes through the storage transaction.
//! 3. The counters in `system::status` and the session's warnings are updated on the way
//!    out, as for every statement.
//!
//! A prepared statement keeps its compiled [`plan::Stmt`] and only evaluates at EXECUTE.

use myriad_types::errors::{ER_UNKNOWN_ERROR, ER_UNKNOWN_SYSTEM_VARIABLE};
pub mod catalog;
pub mod depth;
pub mod error;
pub mod exec;
pub mod expr;
pub mod interrupt;
pub mod parser;
pub mod plan;
pub mod result;
pub mod row_sink;
pub mod session;
pub mod system;
pub mod value;

pub use catalog::accounts;
pub use system::sysvars;

pub use error::SqlError;
pub use myriad_storage::RecoveryStats;
pub use result::{Column, ColumnType, QueryResult, Rows};
pub use row_sink::RowSink;
pub use value::Value;

use parking_lot::{Mutex, RwLock};
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The version string the server reports (handshake, VERSION(), @@version). It names a
/// MariaDB 10.11 level of compatibility so that clients pick the matching dialect.
pub const SERVER_VERSION: &str = "10.11.0-myriad";

/// `(name, default, description)` of every system variable, for the server's `--help`.
pub fn system_variables_help() -> Vec<(String, String, String)> {
    crate::system::sysvars::help()
}

/// What the server hands the engine at start-up.
#[derive(Debug, Clone, Default)]
pub struct EngineConfig {
    /// The data directory (created if missing).
    pub datadir: PathBuf,
    /// System variables from the command line and option files, in the order given.
    /// Names may use dashes or underscores; values are the option's text.
    pub variables: Vec<(String, String)>,
}

/// Server-wide counters that the network layer maintains; the engine reports them in
/// `SHOW STATUS` under their MySQL names.
#[derive(Debug, Default)]
pub struct ServerCounters {
    pub connections: AtomicU64,
    pub threads_connected: AtomicI64,
    pub threads_running: AtomicI64,
    pub aborted_connects: AtomicU64,
    pub aborted_clients: AtomicU64,
    pub bytes_sent: AtomicU64,
    pub bytes_received: AtomicU64,
    pub max_used_connections: AtomicU64,
    /// TLS handshakes begun (`Ssl_accepts`) and completed (`Ssl_finished_accepts`).
    pub ssl_accepts: AtomicU64,
    pub ssl_finished_accepts: AtomicU64,
}

/// How a stored account authenticates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountAuth {
    /// What it signs in with: its plugin's stored credential.
    pub credential: myriad_types::auth::Credential,
    /// What the TLS of its connections must be (`REQUIRE ...`).
    pub require: catalog::tls_require::TlsRequire,
}

/// Who opens a session.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub connection_id: u32,
    pub user: String,
    pub host: String,
    pub database: Option<String>,
    /// The client said CLIENT_INTERACTIVE: its session wait_timeout starts at
    /// interactive_timeout, as in MySQL.
    pub interactive: bool,
    /// The connection's TLS (None: plain): `Ssl_version`, `Ssl_cipher`.
    pub tls: Option<myriad_types::tls::TlsInfo>,
    /// The client said CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS: with an expired password it
    /// gets a session that may only SET (see `disconnect_on_expired_password`).
    pub handles_expired_password: bool,
}

/// What a successful COM_STMT_PREPARE describes.
#[derive(Debug, Clone)]
pub struct PreparedInfo {
    pub statement_id: u32,
    pub param_count: u16,
    /// Result columns, empty when the statement returns no rows (or they are unknown).
    pub columns: Vec<Column>,
}

/// The state shared by every session: catalog, variables, status, accounts.
pub struct Engine {
    counters: ServerCounters,
    status: crate::system::status::GlobalCounters,
    /// GLOBAL values, copy-on-write: a session snapshots the Arc at start.
    globals: RwLock<Arc<Vec<crate::system::sysvars::VarValue>>>,
    accounts: crate::catalog::accounts::Accounts,
    catalog: catalog::Catalog,
    shutdown_hook: Mutex<Option<Box<dyn Fn() + Send + Sync>>>,
    /// Rows deleted inside open transactions (see [`row_locks`]).
    row_locks: crate::session::row_locks::RowLocks,
    /// Tables open transactions used (see [`session::metadata_locks`]).
    metadata_locks: crate::session::metadata_locks::MetadataLocks,
    started: Instant,
    /// When FLUSH STATUS last ran (Uptime_since_flush_status).
    status_flushed: Mutex<Instant>,
    /// The query cache and the table versions it checks.
    query_cache: crate::exec::query_cache::EngineQueryCache,
    /// The live sessions by connection id, for KILL.
    sessions: interrupt::Registry,
    /// Each account's use of its resource limits.
    account_usage: crate::session::account_usage::AccountUsage,
    /// Whether the server started with a global max_user_connections: as in MariaDB,
    /// one started with 0 refuses to set it later (1290).
    user_connection_limit_at_start: bool,
    /// The cipher suites the server's TLS offers (`Ssl_cipher_list`), set once at startup.
    tls_cipher_list: std::sync::OnceLock<String>,
}

impl Engine {
    /// Open the datadir and apply the configured system variables. An unknown variable or
    /// a value it cannot take is an error that names the variable.
    pub fn open(config: EngineConfig) -> Result<Arc<Engine>, SqlError> {
        // A metadata-lock wait in the caches ends when its statement is cancelled.
        myriad_cache::long_wait::set_interrupt_probe(|| interrupt::check().is_err());
        myriad_storage::create_private_dir(&config.datadir).map_err(|e| {
            SqlError::new(
                ER_UNKNOWN_ERROR,
                format!("cannot create datadir {}: {e}", config.datadir.display()),
            )
        })?;
        let datadir =
            std::fs::canonicalize(&config.datadir).unwrap_or_else(|_| config.datadir.clone());
        let mut globals = crate::system::sysvars::defaults();
        let mut set_text = |name: &str, text: &str| -> Result<(), SqlError> {
            let index = crate::system::sysvars::lookup(name).ok_or_else(|| {
                SqlError::new(
                    ER_UNKNOWN_SYSTEM_VARIABLE,
                    format!("Unknown system variable '{name}'"),
                )
            })?;
            let def = crate::system::sysvars::def(index);
            let (value, _warning) = crate::system::sysvars::parse_setting(
                def,
                &crate::system::sysvars::Setting::Text(text.to_string()),
            )
            .map_err(|e| SqlError {
                message: format!(
                    "invalid value '{text}' for variable '{name}': {}",
                    e.message
                ),
                ..e
            })?;
            globals[index] = value.clone();
            if let Some(alias) =
                crate::system::sysvars::alias_of(def.name).and_then(crate::system::sysvars::lookup)
            {
                globals[alias] = value;
            }
            Ok(())
        };
        set_text("datadir", &format!("{}/", datadir.display()))?;
        if let Ok(host) = std::fs::read_to_string("/etc/hostname") {
            if !host.trim().is_empty() {
                set_text("hostname", host.trim())?;
            }
        }
        for (name, value) in &config.variables {
            set_text(name, value)?;
        }
        // Spilled sorts and groupings write to tmpdir, by default a folder of the datadir
        // (its `#` keeps it out of SHOW DATABASES).
        let tmpdir = match config.variables.iter().rev().find(|(n, _)| n == "tmpdir") {
            Some((_, dir)) if !dir.is_empty() => PathBuf::from(dir),
            _ => datadir.join("#tmp"),
        };
        myriad_storage::create_private_dir(&tmpdir).map_err(|e| {
            SqlError::new(
                ER_UNKNOWN_ERROR,
                format!("cannot create tmpdir {}: {e}", tmpdir.display()),
            )
        })?;
        set_text("tmpdir", &tmpdir.display().to_string())?;
        // open_files_limit = 0: derived from the descriptor limit, and shown as derived.
        let current = |globals: &[crate::system::sysvars::VarValue], name: &str| {
            match crate::system::sysvars::lookup(name).map(|i| &globals[i]) {
                Some(crate::system::sysvars::VarValue::UInt(v)) => *v,
                _ => 0,
            }
        };
        if current(&globals, "open_files_limit") == 0 {
            let connections = usize::try_from(current(&globals, "max_connections")).unwrap_or(0);
            let derived = myriad_storage::default_open_files_limit(connections);
            if let Some(i) = crate::system::sysvars::lookup("open_files_limit") {
                globals[i] = crate::system::sysvars::VarValue::UInt(derived as u64);
            }
        }
        let uint = |name: &str| match crate::system::sysvars::lookup(name).map(|i| &globals[i]) {
            Some(crate::system::sysvars::VarValue::UInt(v)) => *v,
            _ => 0,
        };
        let storage_config = myriad_storage::StorageConfig {
            datadir: config.datadir.clone(),
            block_cache_bytes: usize::try_from(uint("key_buffer_size")).unwrap_or(usize::MAX),
            key_cache_segments: uint("key_cache_segments"),
            flush_log_at_trx_commit: uint("innodb_flush_log_at_trx_commit").min(3) as u8,
            open_files_limit: usize::try_from(uint("open_files_limit"))
                .unwrap_or(usize::MAX)
                .max(16),
            table_open_cache: usize::try_from(uint("table_open_cache")).unwrap_or(usize::MAX),
            table_open_cache_instances: usize::try_from(uint("table_open_cache_instances"))
                .unwrap_or(1),
            table_definition_cache: usize::try_from(uint("table_definition_cache"))
                .unwrap_or(usize::MAX),
            table_definition_cache_size: usize::try_from(uint("table_definition_cache_size"))
                .unwrap_or(usize::MAX),
            lock_wait_timeout: std::time::Duration::from_secs(uint("lock_wait_timeout")),
            force_recovery: matches!(
                crate::system::sysvars::lookup("force_recovery").map(|i| &globals[i]),
                Some(crate::system::sysvars::VarValue::Bool(true))
            ),
            ..myriad_storage::StorageConfig::default()
        };
        let query_cache = crate::exec::query_cache::EngineQueryCache::new(
            uint("query_cache_size"),
            uint("query_cache_limit"),
        );
        query_cache.set_min_execution_us(uint("query_cache_min_execution_us"));
        let catalog = catalog::Catalog::open(&config.datadir, storage_config)?;
        crate::exec::key_cache::configure(catalog.storage(), &globals);
        let accounts = crate::catalog::accounts::Accounts::open(&config.datadir)?;
        let user_connection_limit_at_start = matches!(
            crate::system::sysvars::lookup("max_user_connections").map(|i| &globals[i]),
            Some(crate::system::sysvars::VarValue::Int(n)) if *n != 0
        );
        Ok(Arc::new(Engine {
            counters: ServerCounters::default(),
            status: crate::system::status::GlobalCounters::default(),
            globals: RwLock::new(Arc::new(globals)),
            accounts,
            catalog,
            shutdown_hook: Mutex::new(None),
            row_locks: crate::session::row_locks::RowLocks::default(),
            metadata_locks: Default::default(),
            started: Instant::now(),
            status_flushed: Mutex::new(Instant::now()),
            tls_cipher_list: std::sync::OnceLock::new(),
            query_cache,
            sessions: interrupt::Registry::default(),
            account_usage: Default::default(),
            user_connection_limit_at_start,
        }))
    }

    /// Counters the network layer bumps.
    pub fn counters(&self) -> &ServerCounters {
        &self.counters
    }

    /// The current global value of a system variable, by MySQL name (dashes or
    /// underscores). Booleans come back as Int 0/1, numbers as UInt/Int/Double, text as
    /// Bytes, unset text (such as `socket`) as Null.
    pub fn global_variable(&self, name: &str) -> Option<Value> {
        let index = crate::system::sysvars::lookup(name)?;
        let value = self.globals.read()[index].clone();
        Some(crate::session::var_value_to_value(
            &value,
            crate::system::sysvars::def(index),
        ))
    }

    /// How `user`@`host` authenticates, or None when no such account matches.
    pub fn account(&self, user: &str, host: &str) -> Option<AccountAuth> {
        self.accounts.find(user, host)
    }

    /// Tell the engine the cipher suites its server's TLS offers (`Ssl_cipher_list`).
    pub fn set_tls_cipher_list(&self, list: String) {
        let _ = self.tls_cipher_list.set(list);
    }

    /// Seconds since the engine opened.
    pub fn uptime_s(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    /// The text COM_STATISTICS answers with.
    pub fn statistics(&self) -> String {
        let uptime = self.uptime_s();
        let questions = self.status.read(crate::system::status::Counter::Questions);
        let threads = self.counters.threads_connected.load(Ordering::Relaxed);
        let slow = self
            .status
            .read(crate::system::status::Counter::SlowQueries);
        let qps_milli = (questions * 1000).checked_div(uptime).unwrap_or(0);
        let storage_status = self.catalog.storage().status();
        let stat = |name: &str| {
            storage_status
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| *v)
                .unwrap_or(0)
        };
        let (opens, open_tables) = (stat("Opened_tables"), stat("Open_tables"));
        format!(
            "Uptime: {uptime}  Threads: {threads}  Questions: {questions}  Slow queries: {slow}  Opens: {opens}  Open tables: {open_tables}  Queries per second avg: {}.{:03}",
            qps_milli / 1000,
            qps_milli % 1000
        )
    }

    /// Register what to call when a client runs `SHUTDOWN`.
    pub fn set_shutdown_hook(&self, hook: Box<dyn Fn() + Send + Sync>) {
        *self.shutdown_hook.lock() = Some(hook);
    }

    /// Flush and close everything; called once at server shutdown. An error means the final
    /// checkpoint did not complete: the next start recovers from the log.
    pub fn shutdown(&self) -> Result<(), SqlError> {
        self.catalog.storage().shutdown().map_err(|e| {
            SqlError::new(
                ER_UNKNOWN_ERROR,
                format!("the final checkpoint at shutdown failed: {e}"),
            )
        })
    }

    /// What crash recovery did when the datadir was opened.
    pub fn recovery_stats(&self) -> &RecoveryStats {
        self.catalog.storage().recovery_stats()
    }

    pub fn new_session(self: &Arc<Self>, info: SessionInfo) -> Result<Session, SqlError> {
        if let Some(db) = &info.database {
            if !self.catalog.database_exists(db) {
                return Err(catalog::err_unknown_database(db));
            }
        }
        let mut state = crate::session::SessionState::new(self, info.interactive);
        let (account, limits, expired) =
            self.admit(&info.user, &info.host, info.handles_expired_password)?;
        state.password_expired = expired;
        state.apply_account_limits(&limits);
        let interrupt = interrupt::Control::new(info.connection_id, &info.user, &info.host);
        interrupt.set_database(info.database.as_deref());
        self.sessions.join(&interrupt);
        let mut session = Session {
            engine: Arc::clone(self),
            info,
            state,
            interrupt,
            paused: None,
            account,
            limits,
        };
        let own = session.own_account();
        session.state.active_role = session.default_role_held(&own);
        if let Some(db) = session.info.database.clone() {
            session.check_database_access(&db)?;
        }
        Ok(session)
    }
}

impl Engine {
    /// Let a login as `user`@`host` in, as the account it authenticates as: 4151 when
    /// that account is locked, 1226 / 1203 past its connection limits. Counted as one
    /// of the account's connections until [`Engine::leave`].
    fn admit(
        &self,
        user: &str,
        host: &str,
        handles_expired_password: bool,
    ) -> Result<
        (
            Option<session::account_usage::AccountKey>,
            catalog::account_options::ResourceLimits,
            bool,
        ),
        SqlError,
    > {
        let Some(login) = self.accounts.login(user, host) else {
            return Ok((None, Default::default(), false));
        };
        if login.locked {
            return Err(SqlError::new(
                myriad_types::errors::ER_ACCOUNT_HAS_BEEN_LOCKED,
                "Access denied, this account is locked",
            ));
        }
        let number = |name| match self.global_variable(name) {
            Some(Value::Int(n)) => n.max(0) as u64,
            Some(Value::UInt(n)) => n,
            _ => 0,
        };
        let now = catalog::account_options::unix_now();
        let expired = (login.password_expiry).is_expired(now, number("default_password_lifetime"));
        if expired && !handles_expired_password && number("disconnect_on_expired_password") != 0 {
            return Err(SqlError::new(
                myriad_types::errors::ER_MUST_CHANGE_PASSWORD_LOGIN,
                "Your password has expired. To log in you must change it using a client that \
                 supports expired passwords",
            ));
        }
        let key = (user.to_string(), login.host);
        let global_max = number("max_user_connections");
        self.account_usage
            .connect(&key, &login.limits, global_max)?;
        Ok((Some(key), login.limits, expired))
    }

    fn leave(&self, account: &Option<session::account_usage::AccountKey>) {
        if let Some(key) = account {
            self.account_usage.disconnect(key);
        }
    }
}

/// One connection's state: current database, session variables, prepared statements.
pub struct Session {
    engine: Arc<Engine>,
    info: SessionInfo,
    state: crate::session::SessionState,
    /// How other sessions (KILL), the clock (max_statement_time) and the server (the client
    /// went away) stop this session's statement.
    interrupt: Arc<interrupt::Control>,
    /// The SELECT whose client stopped taking rows, until [`Session::resume_rows`] ends it.
    paused: Option<Box<crate::exec::stream::PausedScan>>,
    /// The account the session counts against (None: a session made without one).
    account: Option<session::account_usage::AccountKey>,
    /// That account's resource limits, as at login.
    limits: catalog::account_options::ResourceLimits,
}

impl Session {
    /// Run a COM_QUERY. With `allow_multi`, the text may hold several statements separated
    /// by `;`; the results come back in order and stop after the first error.
    pub fn execute(&mut self, sql: &str, allow_multi: bool) -> Vec<Result<QueryResult, SqlError>> {
        crate::exec::entry::execute(self, sql, allow_multi, None)
    }

    /// [`Session::execute`], where a single SELECT that can stream sends its columns and
    /// rows to `out` while it runs, and its result's rows are then
    /// [`Rows::was_streamed`] (see [`crate::row_sink`]).
    pub fn execute_streaming(
        &mut self,
        sql: &str,
        allow_multi: bool,
        out: &mut dyn RowSink,
    ) -> Vec<Result<QueryResult, SqlError>> {
        crate::exec::entry::execute(self, sql, allow_multi, Some(out))
    }

    /// Whether the SELECT of the last [`Session::execute_streaming`] or
    /// [`Session::execute_prepared_streaming`] paused because its
    /// sink asked ([`RowSink::row_or_pause`]): its result set is open, its result is not
    /// final, and [`Session::resume_rows`] goes on with it. Nothing else may run on the
    /// session meanwhile (the client is reading the result set).
    pub fn has_paused_rows(&self) -> bool {
        self.paused.is_some()
    }

    /// Whether the paused SELECT must end rather than wait for its client: a KILL QUERY
    /// came, or max_statement_time passed. [`Session::resume_rows`] then ends it with its
    /// error.
    pub fn paused_rows_must_stop(&self) -> bool {
        self.paused.as_ref().is_some_and(|paused| {
            self.interrupt.error().is_some()
                || paused
                    .deadline
                    .is_some_and(|deadline| std::time::Instant::now() >= deadline)
        })
    }

    /// Go on with the paused SELECT, sending its next rows to `out`: its result once it
    /// ended (as [`Session::execute_streaming`] gives it), None when it paused again.
    pub fn resume_rows(&mut self, out: &mut dyn RowSink) -> Option<Result<QueryResult, SqlError>> {
        self.resume_paused(out)
    }

    pub fn prepare(&mut self, sql: &str) -> Result<PreparedInfo, SqlError> {
        crate::exec::prepared::prepare(self, sql)
    }

    /// Whether a prepared statement is a SELECT that reads one table through an index
    /// (point, IN list or range) with no subquery: short, and never waiting on another
    /// session (reads take no row locks), so a server may run it inline on its network
    /// thread instead of handing the thread off as for statements that may block.
    pub fn prepared_is_index_read(&self, statement_id: u32) -> bool {
        crate::exec::prepared::prepared_is_index_read(self, statement_id)
    }

    /// Whether a text statement is one that costs next to nothing and whose only wait hands
    /// its thread off by itself: a transaction boundary (`BEGIN`, `START TRANSACTION`,
    /// `COMMIT`, `ROLLBACK`, as sysbench sends around every transaction). Ending a
    /// transaction appends its log group (COMMIT, whose wait for the log goes through
    /// `long_wait`) or restores its pages in memory (ROLLBACK), and lets go of its locks. A
    /// server may run such a statement inline, as [`Session::prepared_is_index_read`].
    pub fn text_is_transaction_boundary(sql: &str) -> bool {
        let text = sql.trim().trim_end_matches(';').trim_end();
        ["BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK"]
            .iter()
            .any(|word| text.eq_ignore_ascii_case(word))
    }

    /// Whether a text statement may run inline on a server's network thread instead of
    /// handing the thread off first: one SELECT, INSERT, UPDATE, DELETE, REPLACE or CREATE
    /// TABLE, or a transaction boundary. Their only long waits (a row lock, a DDL's metadata
    /// lock, another statement's writer lock, the catalog lock behind another DDL, the redo
    /// log's fsync) go through `myriad_cache::long_wait`, where a server hands its thread
    /// off when it must; other DDL and everything else is handed off up front.
    pub fn text_runs_inline(sql: &str) -> bool {
        crate::exec::entry::runs_inline(sql)
    }

    /// The idle limit this session chose with `SET SESSION wait_timeout`, in seconds; None
    /// while it has not (the connection keeps the limit it started with: wait_timeout, or
    /// interactive_timeout for an interactive client).
    pub fn session_wait_timeout(&self) -> Option<u64> {
        self.state.wait_timeout_set()
    }

    /// [`Session::text_runs_inline`] for a prepared statement's text.
    pub fn prepared_runs_inline(&self, statement_id: u32) -> bool {
        crate::exec::prepared::prepared_runs_inline(self, statement_id)
    }

    pub fn execute_prepared(
        &mut self,
        statement_id: u32,
        params: &[Value],
    ) -> Result<QueryResult, SqlError> {
        crate::exec::prepared::execute_prepared(self, statement_id, params, None)
    }

    /// [`Session::execute_prepared`], streaming a SELECT's rows to `out` where it can (see
    /// [`Session::execute_streaming`]).
    pub fn execute_prepared_streaming(
        &mut self,
        statement_id: u32,
        params: &[Value],
        out: &mut dyn RowSink,
    ) -> Result<QueryResult, SqlError> {
        crate::exec::prepared::execute_prepared(self, statement_id, params, Some(out))
    }

    pub fn close_prepared(&mut self, statement_id: u32) {
        crate::exec::prepared::close_prepared(self, statement_id)
    }

    /// COM_INIT_DB and `USE`.
    pub fn use_database(&mut self, database: &str) -> Result<(), SqlError> {
        self.refuse_in_password_sandbox()?;
        crate::exec::entry::use_database(self, database)
    }

    pub fn current_database(&self) -> Option<&str> {
        self.info.database.as_deref()
    }

    /// COM_FIELD_LIST: the columns of a table in the current database.
    pub fn field_list(&mut self, table: &str) -> Result<Vec<Column>, SqlError> {
        self.refuse_in_password_sandbox()?;
        crate::exec::entry::field_list(self, table)
    }

    /// COM_RESET_CONNECTION: drop prepared statements, session variables, temporary state.
    pub fn reset(&mut self) {
        // Undone first, then its locks go (a rollback cannot fail).
        let _ = self.end_transaction(false);
        crate::exec::user_locks::release_all(&self.engine, self.info.connection_id, &self.state);
        let password_expired = self.state.password_expired;
        self.state = crate::session::SessionState::new(&self.engine, self.info.interactive);
        // A reset keeps the expired-password session (only SET PASSWORD ends it).
        self.state.password_expired = password_expired;
    }

    /// COM_CHANGE_USER after the server has authenticated the new user.
    pub fn change_user(
        &mut self,
        user: &str,
        host: &str,
        database: Option<&str>,
    ) -> Result<(), SqlError> {
        if let Some(db) = database {
            if !self.engine.catalog.database_exists(db) {
                return Err(catalog::err_unknown_database(db));
            }
        }
        let handles_expired = self.info.handles_expired_password;
        let (account, limits, expired) = self.engine.admit(user, host, handles_expired)?;
        self.engine.leave(&self.account);
        self.account = account;
        self.limits = limits;
        self.info.user = user.to_string();
        self.info.host = host.to_string();
        self.interrupt.set_owner(user, host, database);
        self.info.database = database.map(str::to_string);
        let _ = self.end_transaction(false);
        crate::exec::user_locks::release_all(&self.engine, self.info.connection_id, &self.state);
        self.state = crate::session::SessionState::new(&self.engine, self.info.interactive);
        self.state.password_expired = expired;
        self.state.apply_account_limits(&limits);
        let own = self.own_account();
        self.state.active_role = self.default_role_held(&own);
        if let Some(db) = database {
            self.check_database_access(db)?;
        }
        Ok(())
    }

    /// For the status flags of OK and EOF packets.
    pub fn in_transaction(&self) -> bool {
        self.state.in_transaction
    }

    pub fn autocommit(&self) -> bool {
        self.state.autocommit
    }

    /// The number of warnings the last statement left (for OK/EOF packets).
    pub fn warning_count(&self) -> u16 {
        self.state.warnings.len().min(u16::MAX as usize) as u16
    }

    /// The session's interrupt state, where a server installs how KILL CONNECTION closes
    /// the connection and how a statement asks whether the client is still connected.
    pub fn interrupt(&self) -> &Arc<interrupt::Control> {
        &self.interrupt
    }

    /// Whether KILL CONNECTION was sent to this session: the server closes it.
    pub fn connection_killed(&self) -> bool {
        self.interrupt.connection_killed()
    }

    /// The connection id this session was opened with.
    pub fn connection_id(&self) -> u32 {
        self.info.connection_id
    }
}

impl Drop for Session {
    /// A disconnect rolls the open transaction back, then lets go of its locks.
    fn drop(&mut self) {
        let _ = self.end_transaction(false);
        self.release_table_locks();
        crate::exec::user_locks::release_all(&self.engine, self.info.connection_id, &self.state);
        self.engine.sessions.leave(&self.interrupt);
        self.engine.leave(&self.account);
    }
}
