//! myriad's SQL layer: parse (sqlparser, MySqlDialect), plan and execute statements, the
//! system variable registry and the status counters.
//!
//! The server sees only this file's API: one shared [`Engine`] per server and one
//! [`Session`] per connection. Everything here is synchronous; the server runs it off the
//! async reactor.

pub mod error;
pub mod result;
pub mod value;

pub use error::SqlError;
pub use result::{Column, ColumnType, QueryResult};
pub use value::Value;

use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicU64};
use std::sync::Arc;

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
}

/// How a stored account authenticates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountAuth {
    /// SHA1(SHA1(password)) for mysql_native_password, or None for an empty password.
    pub native_password_hash: Option<[u8; 20]>,
}

/// Who opens a session.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub connection_id: u32,
    pub user: String,
    pub host: String,
    pub database: Option<String>,
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
}

impl Engine {
    pub fn open(config: EngineConfig) -> Result<Arc<Engine>, SqlError> {
        let _ = config;
        Ok(Arc::new(Engine {
            counters: ServerCounters::default(),
        }))
    }

    /// Counters the network layer bumps.
    pub fn counters(&self) -> &ServerCounters {
        &self.counters
    }

    /// The current global value of a system variable, by MySQL name.
    pub fn global_variable(&self, name: &str) -> Option<Value> {
        let _ = name;
        None
    }

    /// How `user`@`host` authenticates, or None when no such account matches.
    pub fn account(&self, user: &str, host: &str) -> Option<AccountAuth> {
        (user == "root" && (host == "localhost" || host == "127.0.0.1")).then_some(AccountAuth {
            native_password_hash: None,
        })
    }

    /// The text COM_STATISTICS answers with.
    pub fn statistics(&self) -> String {
        String::from("Uptime: 0")
    }

    /// Register what to call when a client runs `SHUTDOWN`.
    pub fn set_shutdown_hook(&self, hook: Box<dyn Fn() + Send + Sync>) {
        let _ = hook;
    }

    /// Flush and close everything; called once at server shutdown.
    pub fn shutdown(&self) {}

    pub fn new_session(self: &Arc<Self>, info: SessionInfo) -> Result<Session, SqlError> {
        Ok(Session {
            _engine: Arc::clone(self),
            info,
        })
    }
}

/// One connection's state: current database, session variables, prepared statements.
pub struct Session {
    _engine: Arc<Engine>,
    info: SessionInfo,
}

impl Session {
    /// Run a COM_QUERY. With `allow_multi`, the text may hold several statements separated
    /// by `;`; the results come back in order and stop after the first error.
    pub fn execute(&mut self, sql: &str, allow_multi: bool) -> Vec<Result<QueryResult, SqlError>> {
        let _ = (sql, allow_multi);
        vec![Err(SqlError::not_supported("statements"))]
    }

    pub fn prepare(&mut self, sql: &str) -> Result<PreparedInfo, SqlError> {
        let _ = sql;
        Err(SqlError::not_supported("prepared statements"))
    }

    pub fn execute_prepared(
        &mut self,
        statement_id: u32,
        params: &[Value],
    ) -> Result<QueryResult, SqlError> {
        let _ = (statement_id, params);
        Err(SqlError::not_supported("prepared statements"))
    }

    pub fn close_prepared(&mut self, statement_id: u32) {
        let _ = statement_id;
    }

    /// COM_INIT_DB and `USE`.
    pub fn use_database(&mut self, database: &str) -> Result<(), SqlError> {
        self.info.database = Some(database.to_string());
        Ok(())
    }

    pub fn current_database(&self) -> Option<&str> {
        self.info.database.as_deref()
    }

    /// COM_FIELD_LIST: the columns of a table in the current database.
    pub fn field_list(&mut self, table: &str) -> Result<Vec<Column>, SqlError> {
        let _ = table;
        Ok(Vec::new())
    }

    /// COM_RESET_CONNECTION: drop prepared statements, session variables, temporary state.
    pub fn reset(&mut self) {}

    /// COM_CHANGE_USER after the server has authenticated the new user.
    pub fn change_user(
        &mut self,
        user: &str,
        host: &str,
        database: Option<&str>,
    ) -> Result<(), SqlError> {
        self.info.user = user.to_string();
        self.info.host = host.to_string();
        self.info.database = database.map(str::to_string);
        Ok(())
    }

    /// For the status flags of OK and EOF packets.
    pub fn in_transaction(&self) -> bool {
        false
    }

    pub fn autocommit(&self) -> bool {
        true
    }
}
