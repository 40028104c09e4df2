//! What one connection keeps between statements: its variables and warnings, prepared
//! statements, plan cache, open transaction, held row locks and query cache settings. Running statements is
//! [`crate::exec`]'s work; this folder only holds the state it reads and updates.

pub mod account_usage;
pub mod metadata_locks;
pub mod query_cache;
pub mod query_text;
pub mod row_locks;
pub mod transaction;

use crate::expr::eval::Warning;
use crate::expr::functions::rand::RandState;
use crate::plan::Stmt;
use crate::system::status::SessionCounters;
use crate::system::sysvars::VarValue;
use crate::value::Value;
use crate::Engine;
use std::collections::HashMap;
use std::sync::Arc;

/// Most prepared statements one session may hold (MySQL's max_prepared_stmt_count is
/// server-wide 16382; per session this bounds a leaking client's memory).
pub(crate) const PREPARED_PER_SESSION_MAX: usize = 16_382;

/// The session's user variables. A running statement assigns them (`@v := x`) through
/// its environment's shared borrow of the session, so they sit behind a lock of their
/// own, which only the session's one running statement takes.
#[derive(Debug, Default)]
pub(crate) struct UserVars(parking_lot::Mutex<HashMap<String, Value>>);

impl UserVars {
    /// The variable's value; None when it was never set.
    pub(crate) fn get(&self, name: &str) -> Option<Value> {
        self.0.lock().get(name).cloned()
    }

    pub(crate) fn insert(&self, name: String, value: Value) {
        self.0.lock().insert(name, value);
    }
}

/// A prepared statement: compiled once, executed many times.
pub struct Prepared {
    /// The query cache's scan of the text, made at the first execution with the cache on.
    pub(crate) query_cache_scan: Option<crate::session::query_text::Scan>,
    pub(crate) stmt: Stmt,
    pub(crate) param_count: usize,
    /// The text, to compile again when DDL changed a table the plan was made for.
    pub(crate) sql: String,
    /// `stmt` is a SELECT through an index of one table
    /// ([`crate::plan::tables::TableSelect::is_index_read`]), told once per compilation.
    pub(crate) index_read: bool,
    /// [`runs_inline`] of the text, told once.
    pub(crate) runs_inline: bool,
    /// The accounts' generation and the current database at the last execution that
    /// passed the privilege check: while both hold, the check's answer holds too.
    pub(crate) privileges_passed: Option<(u64, Option<String>)>,
    /// For a plan that opens tables while its rows are sent: the storage's DDL count
    /// before it was compiled (see `exec::prepared::opens_tables_late`).
    pub(crate) ddl_count: Option<u64>,
}

/// A table LOCK TABLES locked: under which name (its alias, or its own name) statements
/// may use it, and whether they may write it.
#[derive(Debug, Clone)]
pub(crate) struct LockedTable {
    pub key: metadata_locks::TableKey,
    pub alias: String,
    pub write: bool,
}

/// Everything a session owns besides its identity.
pub struct SessionState {
    /// The GLOBAL values when the session started (session values start from these).
    pub(crate) snapshot: Arc<Vec<VarValue>>,
    /// Session values changed by SET.
    pub(crate) overrides: HashMap<usize, VarValue>,
    pub(crate) user_vars: UserVars,
    /// RAND()'s generator, seeded from the clock when the session starts.
    pub(crate) rand: parking_lot::Mutex<RandState>,
    /// Warnings (and the error) of the last statement, for SHOW WARNINGS.
    pub warnings: Vec<Warning>,
    pub(crate) prepared: HashMap<u32, Prepared>,
    /// The statements of SQL's `PREPARE name FROM ...`, by lowercased name (see
    /// `exec::sql_prepared`).
    pub(crate) named_prepared: HashMap<String, Prepared>,
    /// The grants of the session's account and the accounts' generation they were read at
    /// (see `exec::privileges`).
    pub(crate) grants: Option<(u64, Arc<crate::catalog::privileges::Grants>)>,
    /// The role this session enabled (SET ROLE, or its account's default role at login):
    /// its grants add to the account's.
    pub(crate) active_role: Option<String>,
    /// Set while a prepared statement runs whose privileges passed for these grants
    /// already (see `exec::privileges`).
    pub(crate) privileges_passed: bool,
    /// The account's password had expired at login: until SET PASSWORD gives it a new
    /// one, only SET statements run (1820 for others).
    pub(crate) password_expired: bool,
    pub(crate) next_statement_id: u32,
    /// A transaction is open (see [`transaction`]).
    pub in_transaction: bool,
    /// The open transaction's writes and savepoints.
    pub(crate) transaction: transaction::Transaction,
    /// The query cache's cells of the tables written since BEGIN (results over them are not
    /// cached until the transaction ends).
    pub(crate) written_tables: Vec<myriad_cache::query_cache::VersionCell>,
    /// The database transaction locks this session holds until its transaction ends (see
    /// `session::transaction`). A Mutex only because statements execute through `&self`.
    pub(crate) held_locks: parking_lot::Mutex<Vec<crate::session::row_locks::RowKey>>,
    /// The user-level locks (GET_LOCK) the session holds, each with how many times it
    /// took it (see `exec::user_locks`).
    pub(crate) user_locks: parking_lot::Mutex<HashMap<String, u32>>,
    /// Tables the open transaction used (see [`metadata_locks`]).
    pub(crate) held_tables: Vec<(metadata_locks::TableKey, bool)>,
    /// The tables LOCK TABLES locked (see [`metadata_locks`]); None outside it.
    pub(crate) locked_tables: Option<Vec<LockedTable>>,
    /// Compiled text statements (see [`crate::plan_cache`]).
    pub(crate) plan_cache: crate::plan::plan_cache::PlanCache,
    pub autocommit: bool,
    pub(crate) sql_mode: u64,
    pub(crate) div_precision_increment: u32,
    /// Characters: the longest GROUP_CONCAT result.
    pub(crate) group_concat_max_len: u64,
    /// Bytes: the longest string a function may build (`max_allowed_packet`).
    pub(crate) max_allowed_packet: u64,
    pub(crate) counters: SessionCounters,
    pub(crate) last_insert_id: u64,
    /// ROW_COUNT() of the next statement: the last one's affected rows, -1 after a result
    /// set or an error.
    pub(crate) row_count: i64,
    /// FOUND_ROWS(): the rows of the last result set, or with SQL_CALC_FOUND_ROWS the rows
    /// its query found before LIMIT.
    /// None after a SELECT whose OFFSET skipped rows uncounted (MariaDB counts them).
    pub(crate) found_rows: Option<u64>,
    /// Rows the running statement produced for its client, counted as they are sent (see
    /// `exec::found_rows`); with SQL_CALC_FOUND_ROWS also those LIMIT left out.
    pub(crate) rows_produced: std::sync::atomic::AtomicU64,
    /// The running statement's LIMIT window under SQL_CALC_FOUND_ROWS: rows to skip, rows
    /// to send.
    pub(crate) found_rows_window: Option<(u64, u64)>,
    /// The running statement is a SELECT with OFFSET without SQL_CALC_FOUND_ROWS: the rows
    /// its OFFSET skips are not counted.
    pub(crate) found_rows_skipped: bool,
    /// The query cache's view of the session settings (see [`crate::query_cache_hooks`]).
    pub(crate) query_cache: crate::session::query_cache::SessionQuery,
    /// Seconds of `SET SESSION wait_timeout`, once the session set it.
    pub(crate) wait_timeout_s: Option<u64>,
    /// The session's max_statement_time in seconds (0: no limit).
    pub(crate) max_statement_time_s: f64,
    /// long_query_time: a statement that runs this long counts in Slow_queries.
    pub(crate) long_query_time: std::time::Duration,
    /// `SET timestamp = t`: the microseconds since the epoch the session's clock functions
    /// read (None: the real time).
    pub(crate) fixed_time_micros: Option<i64>,
    /// innodb_lock_wait_timeout in seconds.
    pub(crate) lock_wait_timeout_s: u64,
    /// transaction_isolation (see [`transaction`], "Reads"): the session's; the next
    /// transaction's is [`SessionState::isolation`].
    pub(crate) isolation: transaction::Isolation,
    /// What `SET TRANSACTION` (without a scope) set for the next transaction.
    pub(crate) next_transaction: transaction::NextTransaction,
    /// Holds the snapshot of the session's consistent reads (see [`transaction`]).
    pub(crate) snapshot_slot: myriad_storage::SnapshotSlot,
    /// transaction_read_only: every write fails with 1792.
    pub(crate) read_only: bool,
    /// The budgets of its sorts, groupings and joins (sort_buffer_size, tmp_table_size,
    /// max_heap_table_size, tmpdir).
    pub(crate) spill: crate::system::budgets::SpillConfig,
}

impl SessionState {
    /// A session's state as a new connection (or a reset one) starts it. An interactive
    /// client's wait_timeout starts at the global interactive_timeout (MySQL's login does so).
    pub fn new(engine: &Engine, interactive: bool) -> SessionState {
        let snapshot = Arc::clone(&engine.globals.read());
        let mut overrides = HashMap::new();
        if interactive {
            if let (Some(wait), Some(interactive)) = (
                crate::system::sysvars::lookup("wait_timeout"),
                crate::system::sysvars::lookup("interactive_timeout"),
            ) {
                overrides.insert(wait, snapshot[interactive].clone());
            }
        }
        let mut state = SessionState {
            snapshot,
            overrides,
            user_vars: UserVars::default(),
            rand: parking_lot::Mutex::new(RandState::from_clock()),
            warnings: Vec::new(),
            prepared: HashMap::new(),
            named_prepared: HashMap::new(),
            grants: None,
            active_role: None,
            privileges_passed: false,
            password_expired: false,
            next_statement_id: 1,
            in_transaction: false,
            transaction: Default::default(),
            written_tables: Vec::new(),
            held_locks: parking_lot::Mutex::new(Vec::new()),
            user_locks: parking_lot::Mutex::new(HashMap::new()),
            held_tables: Vec::new(),
            locked_tables: None,
            plan_cache: Default::default(),
            autocommit: true,
            sql_mode: 0,
            div_precision_increment: 4,
            group_concat_max_len: crate::expr::GROUP_CONCAT_MAX_LEN_DEFAULT,
            max_allowed_packet: crate::expr::functions::DEFAULT_MAX_ALLOWED_PACKET,
            counters: SessionCounters::default(),
            last_insert_id: 0,
            row_count: 0,
            found_rows: Some(0),
            rows_produced: Default::default(),
            found_rows_window: None,
            found_rows_skipped: false,
            query_cache: Default::default(),
            wait_timeout_s: None,
            max_statement_time_s: 0.0,
            long_query_time: std::time::Duration::from_secs(10),
            fixed_time_micros: None,
            lock_wait_timeout_s: 50,
            isolation: transaction::Isolation::RepeatableRead,
            next_transaction: Default::default(),
            snapshot_slot: engine.catalog.storage().snapshot_slot(),
            read_only: false,
            spill: crate::system::budgets::SpillConfig::from_variables(|_| None),
        };
        state.refresh_cached();
        state
    }

    /// The grants the session's account held at its last check (none before the first).
    pub(crate) fn checked_grants(&self) -> Arc<crate::catalog::privileges::Grants> {
        self.grants
            .as_ref()
            .map_or_else(Default::default, |(_, g)| Arc::clone(g))
    }

    pub(crate) fn session_value(&self, index: usize) -> &VarValue {
        self.overrides.get(&index).unwrap_or(&self.snapshot[index])
    }

    /// Start the session with its account's `MAX_STATEMENT_TIME`, if it has one.
    pub(crate) fn apply_account_limits(
        &mut self,
        limits: &crate::catalog::account_options::ResourceLimits,
    ) {
        if limits.statement_time > 0.0 {
            if let Some(index) = crate::system::sysvars::lookup("max_statement_time") {
                self.overrides
                    .insert(index, VarValue::Double(limits.statement_time));
                self.refresh_cached();
            }
        }
    }

    /// Re-read the variables the hot path consults into plain fields.
    pub(crate) fn refresh_cached(&mut self) {
        let get = |name: &str| {
            crate::system::sysvars::lookup(name).map(|i| self.session_value(i).clone())
        };
        let autocommit = get("autocommit");
        let sql_mode = get("sql_mode");
        let div = get("div_precision_increment");
        let concat_max = get("group_concat_max_len");
        let packet = get("max_allowed_packet");
        let max_statement_time = get("max_statement_time");
        let long_query_time = get("long_query_time");
        let fixed_time = match get("timestamp") {
            Some(VarValue::Double(seconds)) if seconds > 0.0 => {
                Some((seconds * 1e6).round() as i64)
            }
            _ => None,
        };
        let lock_wait = get("innodb_lock_wait_timeout");
        let isolation = get("transaction_isolation")
            .map_or(transaction::Isolation::RepeatableRead, |v| {
                transaction::Isolation::of(&v)
            });
        let read_only = matches!(get("transaction_read_only"), Some(VarValue::Bool(true)));
        let spill = crate::system::budgets::SpillConfig::from_variables(get);
        self.spill = spill;
        self.fixed_time_micros = fixed_time;
        self.autocommit = !matches!(autocommit, Some(VarValue::Bool(false)));
        if let Some(VarValue::UInt(seconds)) = lock_wait {
            self.lock_wait_timeout_s = seconds;
        }
        self.isolation = isolation;
        self.read_only = read_only;
        if let Some(VarValue::Set(bits)) = sql_mode {
            self.sql_mode = bits;
        }
        if let Some(VarValue::UInt(n)) = concat_max {
            self.group_concat_max_len = n;
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
        if let Some(VarValue::Double(seconds)) = long_query_time {
            self.long_query_time = std::time::Duration::from_secs_f64(seconds);
        }
        self.query_cache =
            crate::session::query_cache::SessionQuery::from_session(|i| self.session_value(i));
        self.wait_timeout_s = crate::system::sysvars::lookup("wait_timeout")
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

    /// The isolation level of the current (or next) transaction.
    pub(crate) fn isolation(&self) -> transaction::Isolation {
        self.next_transaction.isolation.unwrap_or(self.isolation)
    }

    /// Whether the current (or next) transaction may not write.
    pub(crate) fn read_only(&self) -> bool {
        self.next_transaction.read_only.unwrap_or(self.read_only)
    }

    pub(crate) fn query_cache(&self) -> &crate::session::query_cache::SessionQuery {
        &self.query_cache
    }

    /// Whether the query cache must neither serve nor keep this session's result over
    /// `tables`: its open transaction wrote one of them (never outside a transaction), it
    /// runs at SERIALIZABLE, where its SELECTs lock, or at READ UNCOMMITTED, or it reads
    /// at a snapshot that a later commit left behind. Called after the result's table
    /// versions are taken: a commit that bumped them published before, so its snapshot
    /// check sees it.
    pub(crate) fn skips_query_cache(
        &self,
        tables: &[myriad_cache::query_cache::VersionCell],
    ) -> bool {
        let in_transaction = self.in_transaction || !self.autocommit;
        if in_transaction && self.isolation() == transaction::Isolation::Serializable {
            return true;
        }
        // Dirty reads are never cached, nor served what a dirty read should see.
        if self.isolation() == transaction::Isolation::ReadUncommitted {
            return true;
        }
        // A snapshot older than the latest commit: cached results may hold later commits
        // (and its own results, earlier ones).
        let slot = &self.snapshot_slot;
        if slot.held().is_some_and(|at| at != slot.published()) {
            return true;
        }
        !self.written_tables.is_empty()
            && in_transaction
            && tables
                .iter()
                .any(|t| self.written_tables.iter().any(|w| w.same(t)))
    }
}

pub fn var_value_as_value(value: &VarValue, def: &crate::system::sysvars::VarDef) -> Value {
    match value {
        VarValue::Bool(b) => Value::Int(i64::from(*b)),
        VarValue::UInt(u) => Value::UInt(*u),
        VarValue::Int(i) => Value::Int(*i),
        VarValue::Double(f) => Value::Double(*f),
        VarValue::Str(None) => Value::Null,
        other => match other.display(def) {
            Some(text) => Value::Bytes(text.into_bytes()),
            None => Value::Null,
        },
    }
}

pub fn var_value_to_value(value: &VarValue, def: &crate::system::sysvars::VarDef) -> Value {
    match var_value_as_value(value, def) {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Int(i),
        Value::UInt(u) => Value::UInt(u),
        Value::Double(f) => Value::Double(f),
        Value::Bytes(s) => Value::Bytes(s),
        other => Value::Bytes(other.to_text().unwrap_or_default()),
    }
}
