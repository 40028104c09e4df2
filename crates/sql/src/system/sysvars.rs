//! The system variable registry: MySQL's names, types, scopes, defaults and ranges.
//!
//! Every variable is described once in [`DEFINITIONS`]. The engine keeps the GLOBAL values as
//! one copy-on-write vector (`Globals`); a session takes a snapshot of that vector when it
//! starts (MySQL initialises session values from the globals at connect time, and a later
//! `SET GLOBAL` does not change existing sessions) and keeps its own overrides beside it.
//!
//! Values enter the registry three ways, all checked by [`parse_setting`]: option text from the
//! command line or option file (at start-up, an error stops the server), `SET` statements
//! (MySQL's errors 1231 / 1232, out-of-range numbers clamped with warning 1292), and defaults.

use crate::error::SqlError;
use myriad_types::errors::{
    ER_UNKNOWN_CHARACTER_SET, ER_UNKNOWN_COLLATION, ER_UNKNOWN_SYSTEM_VARIABLE,
    ER_WRONG_TYPE_FOR_VAR, ER_WRONG_VALUE_FOR_VAR,
};
use std::collections::HashMap;
use std::sync::OnceLock;

mod setting;
pub use setting::{parse_setting, parse_setting_over};

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Session,
    Both,
}

/// A variable's type with its range.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Bool,
    /// Unsigned integer in `[min, max]`, rounded down to a multiple of `block` (1 = any).
    UInt {
        min: u64,
        max: u64,
        block: u64,
    },
    /// Signed integer in `[min, max]`.
    Int {
        min: i64,
        max: i64,
    },
    Double {
        min: f64,
        max: f64,
    },
    /// Free text; `nullable` variables may hold NULL.
    Str {
        nullable: bool,
    },
    /// One of the names (case-insensitive on input, stored as the index).
    Enum(&'static [&'static str]),
    /// A set of flags (sql_mode), stored as a bit mask over the names.
    Set(&'static [&'static str]),
    /// A set of named switches, each on or off (optimizer_switch), stored as a bit mask
    /// over the names and shown as `name=on,name=off,...`. A setting changes only the
    /// switches it names, relative to the variable's current value (`default` resets all).
    Flags(&'static [&'static str]),
    /// A character set name.
    Charset {
        nullable: bool,
    },
    /// A collation name.
    Collation,
}

/// A variable's current value.
#[derive(Debug, Clone, PartialEq)]
pub enum VarValue {
    Bool(bool),
    UInt(u64),
    Int(i64),
    Double(f64),
    Str(Option<String>),
    Enum(usize),
    Set(u64),
}

/// One system variable.
#[derive(Debug)]
pub struct VarDef {
    pub name: &'static str,
    pub kind: Kind,
    pub scope: Scope,
    pub read_only: bool,
    /// The default as option text (None: NULL).
    pub default: Option<&'static str>,
    pub help: &'static str,
}

/// The TLS versions `tls_version` may name.
pub const TLS_VERSION_NAMES: &[&str] = &["TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"];

/// MariaDB 10.11's sql_mode flags, in the order MariaDB prints them.
pub const SQL_MODE_NAMES: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// Bits of the sql_mode flags the engine looks at.
pub mod sql_mode {
    pub const PIPES_AS_CONCAT: u64 = 1 << 1;
    pub const ANSI_QUOTES: u64 = 1 << 2;
    pub const NO_UNSIGNED_SUBTRACTION: u64 = 1 << 6;
    pub const NO_BACKSLASH_ESCAPES: u64 = 1 << 20;
    pub const STRICT_TRANS_TABLES: u64 = 1 << 21;
    pub const STRICT_ALL_TABLES: u64 = 1 << 22;
    pub const ERROR_FOR_DIVISION_BY_ZERO: u64 = 1 << 26;
    pub const HIGH_NOT_PRECEDENCE: u64 = 1 << 29;
}

/// The kinds of notes `note_verbosity` names, in MariaDB's order.
pub const NOTE_VERBOSITY_NAMES: &[&str] = &["basic", "unusual", "ranges", "explain"];

/// sql_mode flags that change answers in ways myriad does not build yet: setting one is
/// error 1235, never a mode that is shown but not followed.
pub const SQL_MODES_NOT_BUILT: &[&str] = &[
    "HIGH_NOT_PRECEDENCE",
    "ORACLE",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// What the combination modes stand for (MariaDB's expansion).
fn sql_mode_combination(name: &str) -> Option<&'static [&'static str]> {
    match name {
        "MYSQL323" => Some(&["MYSQL323", "HIGH_NOT_PRECEDENCE"]),
        "MYSQL40" => Some(&["MYSQL40", "HIGH_NOT_PRECEDENCE"]),
        "ANSI" => Some(&[
            "REAL_AS_FLOAT",
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
            "ANSI",
        ]),
        "TRADITIONAL" => Some(&[
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "TRADITIONAL",
            "NO_AUTO_CREATE_USER",
            "NO_ENGINE_SUBSTITUTION",
        ]),
        _ => None,
    }
}

const ISOLATION_LEVELS: &[&str] = &[
    "READ-UNCOMMITTED",
    "READ-COMMITTED",
    "REPEATABLE-READ",
    "SERIALIZABLE",
];
const QUERY_CACHE_TYPES: &[&str] = &["OFF", "ON", "DEMAND"];
const U32_MAX: u64 = u32::MAX as u64;
const TIMEOUT_MAX_S: u64 = 31_536_000;

/// Character sets the server accepts by name (it stores and compares text as utf8mb4).
pub const CHARSETS: &[&str] = &["utf8mb4", "utf8mb3", "utf8", "latin1", "ascii", "binary"];
/// Collations the server accepts by name, with the character set each belongs to.
pub const COLLATIONS: &[(&str, &str)] = &[
    ("utf8mb4_general_ci", "utf8mb4"),
    ("utf8mb4_bin", "utf8mb4"),
    ("utf8mb4_unicode_ci", "utf8mb4"),
    ("utf8mb4_unicode_520_ci", "utf8mb4"),
    ("utf8mb4_0900_ai_ci", "utf8mb4"),
    ("utf8mb3_general_ci", "utf8mb3"),
    ("utf8mb3_bin", "utf8mb3"),
    ("utf8_general_ci", "utf8mb3"),
    ("utf8_bin", "utf8mb3"),
    ("latin1_swedish_ci", "latin1"),
    ("latin1_bin", "latin1"),
    ("ascii_general_ci", "ascii"),
    ("binary", "binary"),
];

/// The default collation of a character set.
pub fn default_collation(charset: &str) -> &'static str {
    match charset.to_ascii_lowercase().as_str() {
        "utf8mb3" | "utf8" => "utf8mb3_general_ci",
        "latin1" => "latin1_swedish_ci",
        "ascii" => "ascii_general_ci",
        "binary" => "binary",
        _ => "utf8mb4_general_ci",
    }
}

macro_rules! var {
    ($name:literal, $kind:expr, $scope:ident, ro, $default:expr, $help:expr) => {
        VarDef {
            name: $name,
            kind: $kind,
            scope: Scope::$scope,
            read_only: true,
            default: $default,
            help: $help,
        }
    };
    ($name:literal, $kind:expr, $scope:ident, rw, $default:expr, $help:expr) => {
        VarDef {
            name: $name,
            kind: $kind,
            scope: Scope::$scope,
            read_only: false,
            default: $default,
            help: $help,
        }
    };
}

const fn uint(min: u64, max: u64) -> Kind {
    Kind::UInt { min, max, block: 1 }
}

/// MariaDB 10.11's optimizer_switch names, in the order it prints them.
pub const OPTIMIZER_SWITCH_NAMES: &[&str] = &[
    "index_merge",
    "index_merge_union",
    "index_merge_sort_union",
    "index_merge_intersection",
    "index_merge_sort_intersection",
    "engine_condition_pushdown",
    "index_condition_pushdown",
    "derived_merge",
    "derived_with_keys",
    "firstmatch",
    "loosescan",
    "materialization",
    "in_to_exists",
    "semijoin",
    "partial_match_rowid_merge",
    "partial_match_table_scan",
    "subquery_cache",
    "mrr",
    "mrr_cost_based",
    "mrr_sort_keys",
    "outer_join_with_cache",
    "semijoin_with_cache",
    "join_cache_incremental",
    "join_cache_hashed",
    "join_cache_bka",
    "optimize_join_buffer_size",
    "table_elimination",
    "extended_keys",
    "exists_to_in",
    "orderby_uses_equalities",
    "condition_pushdown_for_derived",
    "split_materialized",
    "condition_pushdown_for_subquery",
    "rowid_filter",
    "condition_pushdown_from_having",
    "not_null_range_scan",
    "hash_join_cardinality",
    "cset_narrowing",
];

/// MariaDB 10.11's default optimizer_switch.
const OPTIMIZER_SWITCH_DEFAULT: &str = "index_merge=on,index_merge_union=on,\
    index_merge_sort_union=on,index_merge_intersection=on,index_merge_sort_intersection=off,\
    engine_condition_pushdown=off,index_condition_pushdown=on,derived_merge=on,\
    derived_with_keys=on,firstmatch=on,loosescan=on,materialization=on,in_to_exists=on,\
    semijoin=on,partial_match_rowid_merge=on,partial_match_table_scan=on,subquery_cache=on,\
    mrr=off,mrr_cost_based=off,mrr_sort_keys=off,outer_join_with_cache=on,\
    semijoin_with_cache=on,join_cache_incremental=on,join_cache_hashed=on,join_cache_bka=on,\
    optimize_join_buffer_size=on,table_elimination=on,extended_keys=on,exists_to_in=on,\
    orderby_uses_equalities=on,condition_pushdown_for_derived=on,split_materialized=on,\
    condition_pushdown_for_subquery=on,rowid_filter=on,condition_pushdown_from_having=on,\
    not_null_range_scan=off,hash_join_cardinality=off,cset_narrowing=off";

const USE_STAT_TABLES_NAMES: &[&str] = &[
    "NEVER",
    "COMPLEMENTARY",
    "PREFERABLY",
    "COMPLEMENTARY_FOR_QUERIES",
    "PREFERABLY_FOR_QUERIES",
];

const HISTOGRAM_TYPE_NAMES: &[&str] = &["SINGLE_PREC_HB", "DOUBLE_PREC_HB", "JSON_HB"];

/// The text of the variables that steer MariaDB's optimizer only: myriad keeps and shows
/// them (scripts and tests set and restore them) and they change no plan or result.
macro_rules! optimizer_only {
    ($what:literal) => {
        concat!(
            $what,
            " (MariaDB's optimizer; kept and shown, no effect on myriad's plans or results)"
        )
    };
}

/// Every system variable, sorted by name (SHOW VARIABLES lists them in this order).
pub static DEFINITIONS: &[VarDef] = &[
    var!("auto_increment_increment", uint(1, 65535), Both, rw, Some("1"), "Step between successive AUTO_INCREMENT values"),
    var!("auto_increment_offset", uint(1, 65535), Both, rw, Some("1"), "Starting point of AUTO_INCREMENT values"),
    var!("autocommit", Kind::Bool, Both, rw, Some("ON"), "Commit every statement on its own unless a transaction is open"),
    var!("basedir", Kind::Str { nullable: false }, Global, ro, Some("/usr"), "Installation directory"),
    var!("bind_address", Kind::Str { nullable: false }, Global, ro, Some("127.0.0.1"), "Address the server listens on"),
    var!("character_set_client", Kind::Charset { nullable: false }, Both, rw, Some("utf8mb4"), "Character set of statements the client sends"),
    var!("character_set_connection", Kind::Charset { nullable: false }, Both, rw, Some("utf8mb4"), "Character set of literals without an introducer"),
    var!("character_set_database", Kind::Charset { nullable: false }, Both, rw, Some("utf8mb4"), "Character set of the current database"),
    var!("character_set_filesystem", Kind::Charset { nullable: false }, Both, rw, Some("binary"), "Character set of file names"),
    var!("character_set_results", Kind::Charset { nullable: true }, Both, rw, Some("utf8mb4"), "Character set of results sent to the client"),
    var!("character_set_server", Kind::Charset { nullable: false }, Both, rw, Some("utf8mb4"), "Default character set of new databases"),
    var!("character_set_system", Kind::Str { nullable: false }, Global, ro, Some("utf8mb3"), "Character set of identifiers"),
    var!("check_constraint_checks", Kind::Bool, Both, rw, Some("ON"), "Whether rows stored are verified against the tables' CHECK constraints"),
    var!("collation_connection", Kind::Collation, Both, rw, Some("utf8mb4_general_ci"), "Collation of literals"),
    var!("collation_database", Kind::Collation, Both, rw, Some("utf8mb4_general_ci"), "Collation of the current database"),
    var!("collation_server", Kind::Collation, Both, rw, Some("utf8mb4_general_ci"), "Default collation of new databases"),
    var!("connect_timeout", uint(2, TIMEOUT_MAX_S), Global, rw, Some("10"), "Seconds the server waits for a handshake packet"),
    var!("datadir", Kind::Str { nullable: false }, Global, ro, Some("./data/"), "The data directory"),
    var!("default_password_lifetime", uint(0, U32_MAX), Global, rw, Some("0"), "Days a password lasts after it was set, for accounts whose PASSWORD EXPIRE is DEFAULT (0: for ever); a login with an expired password may only SET until SET PASSWORD"),
    var!("default_storage_engine", Kind::Str { nullable: false }, Both, rw, Some("InnoDB"), "Engine name tables get when CREATE TABLE names none"),
    var!("default_week_format", uint(0, 7), Both, rw, Some("0"), "Default mode of WEEK()"),
    var!("disconnect_on_expired_password", Kind::Bool, Global, rw, Some("OFF"), "Refuse the login (1862) of an account whose password expired when the client does not say it handles expired passwords; OFF: such a session may only SET until SET PASSWORD"),
    var!("div_precision_increment", uint(0, 38), Both, rw, Some("4"), "Digits added to the scale of the result of /"),
    var!("error_count", uint(0, u64::MAX), Session, ro, Some("0"), "Errors of the last statement"),
    var!("explicit_defaults_for_timestamp", Kind::Bool, Both, rw, Some("OFF"), "Standard NULL/DEFAULT handling for TIMESTAMP columns"),
    var!("force_recovery", Kind::Bool, Global, ro, Some("OFF"), "Start even when valid redo groups follow damage in the redo log: replay up to the damage and lose the statements after it (their bytes are kept aside in #redo). Without it such a log refuses to start"),
    var!("foreign_key_checks", Kind::Bool, Both, rw, Some("ON"), "Check foreign key constraints"),
    var!("general_log", Kind::Bool, Global, rw, Some("OFF"), "Log every statement"),
    var!("group_concat_max_len", uint(4, U32_MAX), Both, rw, Some("1048576"), "Longest GROUP_CONCAT result in bytes"),
    var!("have_openssl", Kind::Str { nullable: false }, Global, ro, Some("DISABLED"), "YES when the server has TLS (rustls, not OpenSSL: the name is MariaDB's)"),
    var!("have_ssl", Kind::Str { nullable: false }, Global, ro, Some("DISABLED"), "YES when the server has TLS (ssl_cert and ssl_key given at startup)"),
    var!("histogram_size", uint(0, 255), Both, rw, Some("254"), optimizer_only!("Bytes of a histogram ANALYZE makes")),
    var!("histogram_type", Kind::Enum(HISTOGRAM_TYPE_NAMES), Both, rw, Some("DOUBLE_PREC_HB"), optimizer_only!("Kind of histogram ANALYZE makes")),
    var!("hostname", Kind::Str { nullable: false }, Global, ro, Some("localhost"), "The server's host name"),
    var!("in_predicate_conversion_threshold", uint(0, 4_294_967_295), Both, rw, Some("1000"), optimizer_only!("IN lists this long become IN subqueries")),
    var!("in_transaction", uint(0, 1), Session, ro, Some("0"), "1 while a transaction is open"),
    var!("innodb_buffer_pool_size", Kind::UInt { min: 2_097_152, max: u64::MAX, block: 1_048_576 }, Global, rw, Some("134217728"), "Accepted for compatibility; the block cache is sized by key_buffer_size"),
    var!("innodb_flush_log_at_trx_commit", uint(0, 3), Global, rw, Some("1"), "1: fsync the redo log at every commit (group commit); 2: write at commit, fsync once a second; 0: write and fsync once a second. CREATE TABLE and TRUNCATE wait for their log record the same way; DROP and RENAME always sync"),
    var!("innodb_lock_wait_timeout", uint(0, 100_000_000), Both, rw, Some("50"), "Seconds a statement waits for a database another transaction locked, or a page another statement holds, then fails with error 1205"),
    var!("innodb_stats_persistent", Kind::Bool, Global, rw, Some("ON"), optimizer_only!("InnoDB's persistent index statistics")),
    var!("innodb_stats_persistent_sample_pages", uint(1, 4_294_967_295), Global, rw, Some("20"), optimizer_only!("Leaf pages ANALYZE samples")),
    var!("interactive_timeout", uint(1, TIMEOUT_MAX_S), Both, rw, Some("28800"), "Idle seconds before an interactive connection is closed"),
    var!("join_buffer_size", Kind::UInt { min: 128, max: u64::MAX, block: 128 }, Both, rw, Some("262144"), optimizer_only!("Bytes of a join buffer")),
    var!("join_buffer_space_limit", Kind::UInt { min: 2048, max: u64::MAX, block: 2048 }, Both, rw, Some("2097152"), optimizer_only!("Bytes of all join buffers of a query")),
    var!("join_cache_level", uint(0, 8), Both, rw, Some("2"), optimizer_only!("Which joins may use join buffers")),
    var!("key_buffer_size", Kind::UInt { min: 8, max: u64::MAX, block: 4096 }, Global, rw, Some("134217728"), "Bytes of the block (key) cache"),
    var!("key_cache_age_threshold", Kind::UInt { min: 100, max: u64::MAX, block: 100 }, Global, rw, Some("300"), "How fast blocks age out of the hot part of the key cache"),
    var!("key_cache_block_size", Kind::UInt { min: 16384, max: 1_048_576, block: 16384 }, Global, rw, Some("16384"), "Bytes the key cache reads from disk on a miss: one table page (16384, the default) or an aligned run of pages read in one I/O, the others cached cold (read-ahead); blocks stay pages"),
    var!("key_cache_division_limit", uint(1, 100), Global, rw, Some("20"), "Percentage of the key cache kept for probationary (cold) blocks; the rest holds blocks touched again (MySQL's default 100 would leave no protected part)"),
    var!("key_cache_segments", uint(0, 64), Global, rw, Some("0"), "Number of segments of the default key cache, each with its own clock and counters (KEY_CACHES shows a row per segment); a SET GLOBAL re-segments the cache at once, keeping its blocks"),
    var!("last_insert_id", uint(0, u64::MAX), Session, rw, Some("0"), "Value LAST_INSERT_ID() returns"),
    var!("lc_messages", Kind::Str { nullable: false }, Both, rw, Some("en_US"), "Locale of error messages"),
    var!("lc_time_names", Kind::Str { nullable: false }, Both, rw, Some("en_US"), "Locale of day and month names"),
    var!("license", Kind::Str { nullable: false }, Global, ro, Some("Apache-2.0"), "The server's license"),
    var!("local_infile", Kind::Bool, Global, rw, Some("ON"), "Allow LOAD DATA LOCAL"),
    var!("lock_wait_timeout", uint(0, TIMEOUT_MAX_S), Both, rw, Some("86400"), "Seconds to wait for a metadata lock"),
    var!("log_bin", Kind::Bool, Global, ro, Some("OFF"), "Binary logging (not implemented)"),
    var!("log_error", Kind::Str { nullable: false }, Global, ro, Some(""), "Error log file (empty: standard error)"),
    var!("long_query_time", Kind::Double { min: 0.0, max: 31_536_000.0 }, Both, rw, Some("10"), "Seconds after which a query counts as slow"),
    var!("lower_case_table_names", uint(0, 2), Global, ro, Some("0"), "How table names are stored and compared"),
    var!("max_allowed_packet", Kind::UInt { min: 1024, max: 1_073_741_824, block: 1024 }, Both, rw, Some("16777216"), "Largest packet or statement in bytes"),
    var!("max_connect_errors", uint(1, U32_MAX), Global, rw, Some("100"), "Failed handshakes before a host is blocked"),
    var!("max_connections", uint(10, 100_000), Global, rw, Some("151"), "Most simultaneous client connections"),
    var!("max_error_count", uint(0, 65535), Both, rw, Some("64"), "Most warnings kept per statement"),
    var!("max_heap_table_size", Kind::UInt { min: 16384, max: u64::MAX, block: 1024 }, Both, rw, Some("16777216"), "Largest in-memory table in bytes"),
    var!("max_length_for_sort_data", uint(4, 8_388_608), Both, rw, Some("1024"), "Widest row, in bytes, an ORDER BY sorts whole; wider rows are sorted as (ORDER BY columns, row id) and read again in order"),
    var!("max_statement_time", Kind::Double { min: 0.0, max: 31_536_000.0 }, Both, rw, Some("0"), "Seconds a statement may run before it fails with error 1969 (0: never); a SET GLOBAL applies to sessions that start later"),
    var!("max_user_connections", Kind::Int { min: -1, max: 2_147_483_647 }, Both, rw, Some("0"), "Most connections per account (0: no limit)"),
    var!("net_buffer_length", Kind::UInt { min: 1024, max: 1_048_576, block: 1024 }, Both, rw, Some("16384"), "Initial size of the connection buffer"),
    var!("net_read_timeout", uint(1, TIMEOUT_MAX_S), Both, rw, Some("30"), "Seconds to wait for more data from a connection"),
    var!("net_retry_count", uint(1, U32_MAX), Both, rw, Some("10"), "Retries of an interrupted read or write"),
    var!("net_write_timeout", uint(1, TIMEOUT_MAX_S), Both, rw, Some("60"), "Seconds to wait for a block to be written to a connection"),
    var!("note_verbosity", Kind::Set(NOTE_VERBOSITY_NAMES), Both, rw, Some("basic,explain"), "Which notes statements raise (MariaDB 10.6.16's set; dumps set it; kept, notes are not filtered yet)"),
    var!("open_files_limit", uint(0, U32_MAX), Global, ro, Some("0"), "Most table files the server keeps open (0 at startup: RLIMIT_NOFILE less 64 and max_connections)"),
    var!("optimizer_prune_level", uint(0, 2), Both, rw, Some("2"), optimizer_only!("Heuristics that prune join orders")),
    var!("optimizer_search_depth", uint(0, 62), Both, rw, Some("62"), optimizer_only!("Depth of the join order search")),
    var!("optimizer_switch", Kind::Flags(OPTIMIZER_SWITCH_NAMES), Both, rw, Some(OPTIMIZER_SWITCH_DEFAULT), optimizer_only!("Switches of optimizer strategies")),
    var!("optimizer_use_condition_selectivity", uint(1, 5), Both, rw, Some("4"), optimizer_only!("Which conditions estimate join sizes")),
    var!("performance_schema", Kind::Bool, Global, ro, Some("OFF"), "The performance schema (not implemented)"),
    var!("pid_file", Kind::Str { nullable: true }, Global, ro, None, "File the server writes its process id to"),
    var!("port", uint(0, 65535), Global, ro, Some("3307"), "TCP port the server listens on"),
    var!("protocol_version", uint(0, U32_MAX), Global, ro, Some("10"), "Version of the client/server protocol"),
    var!("query_cache_limit", uint(0, u64::MAX), Global, rw, Some("1048576"), "Largest result the query cache stores"),
    var!("query_cache_min_execution_us", uint(0, 1_000_000), Global, rw, Some("2"), "myriad: a result computed in fewer microseconds is not inserted in the query cache (a hit costs about as much); 0 caches every admitted result"),
    var!("query_cache_min_res_unit", uint(512, u64::MAX), Global, rw, Some("4096"), "Allocation unit of the query cache"),
    var!("query_cache_size", Kind::UInt { min: 0, max: u64::MAX, block: 1024 }, Global, rw, Some("1048576"), "Bytes of the query cache"),
    var!("query_cache_strip_comments", Kind::Bool, Both, rw, Some("OFF"), "Strip comments from a query before it is looked up in the query cache"),
    var!("query_cache_type", Kind::Enum(QUERY_CACHE_TYPES), Both, rw, Some("OFF"), "OFF, ON (cache every cacheable SELECT) or DEMAND (only SQL_CACHE)"),
    var!("query_cache_wlock_invalidate", Kind::Bool, Both, rw, Some("OFF"), "Invalidate a table's cached queries when it is write-locked (accepted; every write already invalidates)"),
    var!("read_buffer_size", Kind::UInt { min: 8192, max: 2_147_479_552, block: 4096 }, Both, rw, Some("131072"), "Buffer for sequential scans"),
    var!("read_only", Kind::Bool, Global, rw, Some("OFF"), "Refuse writes from non-admin users"),
    var!("require_secure_transport", Kind::Bool, Global, rw, Some("OFF"), "Refuse TCP connections without TLS (with 1045 access denied); the unix socket stays open"),
    var!("secure_file_priv", Kind::Str { nullable: true }, Global, ro, None, "The directory LOAD DATA INFILE may read from and SELECT ... INTO OUTFILE / DUMPFILE may write into (NULL: any the server can reach)"),
    var!("server_id", uint(1, U32_MAX), Global, rw, Some("1"), "Server id for replication"),
    var!("skip_name_resolve", Kind::Bool, Global, ro, Some("ON"), "Match hosts by address only"),
    var!("skip_networking", Kind::Bool, Global, ro, Some("OFF"), "Listen on the socket only"),
    var!("socket", Kind::Str { nullable: true }, Global, ro, None, "Unix socket the server listens on (NULL: none)"),
    var!("sort_buffer_size", uint(1024, u64::MAX), Both, rw, Some("2097152"), "Bytes of rows an ORDER BY keeps in memory before it sorts through temporary files"),
    var!("sql_auto_is_null", Kind::Bool, Both, rw, Some("OFF"), "WHERE auto_col IS NULL finds the last inserted row"),
    var!("sql_big_selects", Kind::Bool, Both, rw, Some("ON"), "Allow SELECTs larger than max_join_size"),
    var!("sql_log_bin", Kind::Bool, Both, rw, Some("ON"), "Whether the session's changes go to the binary log (myriad keeps no binary log: log_bin is OFF)"),
    var!("sql_mode", Kind::Set(SQL_MODE_NAMES), Both, rw, Some("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"), "SQL modes (MariaDB 10.11's default)"),
    var!("sql_notes", Kind::Bool, Both, rw, Some("ON"), "Record note-level warnings"),
    var!("sql_quote_show_create", Kind::Bool, Both, rw, Some("ON"), "Quote identifiers in SHOW CREATE"),
    var!("sql_safe_updates", Kind::Bool, Both, rw, Some("OFF"), "Refuse UPDATE/DELETE without a key in WHERE or a LIMIT"),
    var!("sql_select_limit", uint(0, u64::MAX), Both, rw, Some("18446744073709551615"), "Most rows a SELECT returns"),
    var!("sql_warnings", Kind::Bool, Both, rw, Some("OFF"), "Report warnings of single-row INSERTs"),
    var!("ssl_ca", Kind::Str { nullable: false }, Global, ro, Some(""), "PEM file of the certificate authorities client certificates must chain to (REQUIRE X509 / ISSUER / SUBJECT); with it the server asks clients for a certificate"),
    var!("ssl_capath", Kind::Str { nullable: false }, Global, ro, Some(""), "Not supported (put the authorities in one ssl_ca file): the server refuses to start with it"),
    var!("ssl_cert", Kind::Str { nullable: false }, Global, ro, Some(""), "PEM file of the server's certificate (then any intermediates); with ssl_key it turns TLS on"),
    var!("ssl_cipher", Kind::Str { nullable: false }, Global, ro, Some(""), "Not supported (rustls offers its own TLS 1.2 and 1.3 suites, Ssl_cipher_list): the server refuses to start with it"),
    var!("ssl_crl", Kind::Str { nullable: false }, Global, ro, Some(""), "Not supported: the server refuses to start with it"),
    var!("ssl_crlpath", Kind::Str { nullable: false }, Global, ro, Some(""), "Not supported: the server refuses to start with it"),
    var!("ssl_key", Kind::Str { nullable: false }, Global, ro, Some(""), "PEM file of the private key of ssl_cert"),
    var!("system_time_zone", Kind::Str { nullable: false }, Global, ro, Some("UTC"), "The time zone of the host"),
    var!("table_definition_cache", uint(400, 2_097_152), Global, rw, Some("400"), "Table definitions kept in the definition cache"),
    var!("table_definition_cache_size", Kind::UInt { min: 16384, max: u64::MAX, block: 1024 }, Global, rw, Some("67108864"), "Bytes of table definitions kept in the definition cache (myriad's own)"),
    var!("table_open_cache", uint(10, 1_048_576), Global, rw, Some("2000"), "Open table handles kept in the table cache"),
    var!("table_open_cache_instances", uint(1, 64), Global, ro, Some("8"), "Instances of the table cache (each with its own lock)"),
    var!("thread_cache_size", uint(0, 16384), Global, rw, Some("151"), "Threads kept for reuse"),
    var!("thread_handling", Kind::Str { nullable: false }, Global, ro, Some("pool-of-threads"), "How connections are served: a pool of thread_pool_size workers runs every connection's statements"),
    var!("thread_pool_size", uint(0, 1024), Global, ro, Some("0"), "Worker threads that run the connections' statements (0 at startup: one per CPU core the server may use); shown as started"),
    var!("thread_stack", uint(131_072, u64::MAX), Global, ro, Some("16777216"), "Stack of each thread that runs statements, in bytes (at least 1 MiB)"),
    var!("time_zone", Kind::Str { nullable: false }, Both, rw, Some("SYSTEM"), "Time zone of the session"),
    var!("timestamp", Kind::Double { min: 0.0, max: 2_147_483_647.0 }, Session, rw, Some("0"), "The time NOW() and the other clock functions read in this session, as Unix seconds (0: the real time); reading it gives the time in use"),
    var!("tls_version", Kind::Set(TLS_VERSION_NAMES), Global, ro, Some("TLSv1.2,TLSv1.3"), "TLS versions the server accepts (TLSv1.0 and TLSv1.1 are refused at startup: rustls does not offer them)"),
    var!("tmp_table_size", Kind::UInt { min: 1024, max: u64::MAX, block: 1 }, Both, rw, Some("16777216"), "Bytes of rows a GROUP BY keeps in memory (with max_heap_table_size, the smaller of the two) before it groups through sorted temporary files"),
    var!("tmpdir", Kind::Str { nullable: false }, Global, ro, Some(""), "Directory of the temporary files of sorts and groupings beyond their memory budget (empty at startup: the #tmp folder of the datadir); shown as used"),
    var!("transaction_isolation", Kind::Enum(ISOLATION_LEVELS), Both, rw, Some("REPEATABLE-READ"), "Transaction isolation level"),
    var!("transaction_read_only", Kind::Bool, Both, rw, Some("OFF"), "Transactions are read-only"),
    var!("tx_isolation", Kind::Enum(ISOLATION_LEVELS), Both, rw, Some("REPEATABLE-READ"), "Alias of transaction_isolation"),
    var!("tx_read_only", Kind::Bool, Both, rw, Some("OFF"), "Alias of transaction_read_only"),
    var!("unique_checks", Kind::Bool, Both, rw, Some("ON"), "Check unique indexes"),
    var!("use_stat_tables", Kind::Enum(USE_STAT_TABLES_NAMES), Both, rw, Some("PREFERABLY_FOR_QUERIES"), optimizer_only!("How statistics tables are used")),
    var!("version", Kind::Str { nullable: false }, Global, ro, Some(crate::SERVER_VERSION), "Server version"),
    var!("version_comment", Kind::Str { nullable: false }, Global, ro, Some("myriad, a MySQL-compatible server"), "Server description"),
    var!("version_compile_machine", Kind::Str { nullable: false }, Global, ro, Some(std::env::consts::ARCH), "Architecture of the build"),
    var!("version_compile_os", Kind::Str { nullable: false }, Global, ro, Some(std::env::consts::OS), "Operating system of the build"),
    var!("version_ssl_library", Kind::Str { nullable: false }, Global, ro, Some("rustls 0.23"), "The TLS library"),
    var!("wait_timeout", uint(1, TIMEOUT_MAX_S), Both, rw, Some("28800"), "Idle seconds before a connection is closed"),
    var!("warning_count", uint(0, u64::MAX), Session, ro, Some("0"), "Warnings of the last statement"),
];

/// Aliases that name the same setting (setting one sets both).
pub fn alias_of(name: &str) -> Option<&'static str> {
    match name {
        "tx_isolation" => Some("transaction_isolation"),
        "transaction_isolation" => Some("tx_isolation"),
        "tx_read_only" => Some("transaction_read_only"),
        "transaction_read_only" => Some("tx_read_only"),
        _ => None,
    }
}

fn index_by_name() -> &'static HashMap<&'static str, usize> {
    static INDEX: OnceLock<HashMap<&'static str, usize>> = OnceLock::new();
    INDEX.get_or_init(|| {
        DEFINITIONS
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name, i))
            .collect()
    })
}

/// The index of a variable by name (case-insensitive, dashes or underscores).
pub fn lookup(name: &str) -> Option<usize> {
    let normal: String = name
        .chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    index_by_name().get(normal.as_str()).copied()
}

pub fn def(index: usize) -> &'static VarDef {
    &DEFINITIONS[index]
}

/// The defaults of every variable, in [`DEFINITIONS`] order.
pub fn defaults() -> Vec<VarValue> {
    DEFINITIONS
        .iter()
        .map(|d| match d.default {
            None => VarValue::Str(None),
            Some(text) => match parse_setting(d, &Setting::Text(text.to_string())) {
                Ok((value, _)) => value,
                // A default that does not parse is a bug in the table; tests check every one.
                Err(_) => VarValue::Str(Some(text.to_string())),
            },
        })
        .collect()
}

/// A value offered to a variable.
#[derive(Debug, Clone)]
pub enum Setting {
    /// Option-file or command-line text, or a bare word in SET (`ON`, `utf8mb4`).
    Text(String),
    /// A string value in SET (`'ON'`): numeric variables refuse it with error 1232.
    Str(String),
    Int(i128),
    Double(f64),
    Null,
}

/// A warning produced while setting a value (code, message).
pub type Warning = (u16, String);

pub fn err_wrong_value(name: &str, value: &str) -> SqlError {
    SqlError::of(ER_WRONG_VALUE_FOR_VAR, &[&name, &value])
}

pub fn err_wrong_type(name: &str) -> SqlError {
    SqlError::of(ER_WRONG_TYPE_FOR_VAR, &[&name])
}

pub fn err_unknown(name: &str) -> SqlError {
    SqlError::new(
        ER_UNKNOWN_SYSTEM_VARIABLE,
        format!("Unknown system variable '{name}'"),
    )
}

fn setting_text(setting: &Setting) -> String {
    match setting {
        Setting::Text(t) | Setting::Str(t) => t.clone(),
        Setting::Int(i) => i.to_string(),
        Setting::Double(d) => d.to_string(),
        Setting::Null => "NULL".to_string(),
    }
}

impl VarValue {
    /// The text SHOW VARIABLES prints (None: NULL).
    pub fn display(&self, def: &VarDef) -> Option<String> {
        match (self, def.kind) {
            (VarValue::Bool(b), _) => Some(if *b { "ON" } else { "OFF" }.to_string()),
            (VarValue::UInt(v), _) => Some(v.to_string()),
            (VarValue::Int(v), _) => Some(v.to_string()),
            (VarValue::Double(v), _) => Some(format!("{v:.6}")),
            (VarValue::Str(s), _) => s.clone(),
            (VarValue::Enum(i), Kind::Enum(names)) => names.get(*i).map(|n| n.to_string()),
            (VarValue::Set(bits), Kind::Flags(names)) => Some(
                names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        format!("{n}={}", if bits & (1 << i) != 0 { "on" } else { "off" })
                    })
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            (VarValue::Set(bits), Kind::Set(names)) => Some(
                names
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| bits & (1 << i) != 0)
                    .map(|(_, n)| *n)
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            _ => None,
        }
    }
}

/// `(name, default, description)` of every system variable, for the server's `--help`.
pub fn help() -> Vec<(String, String, String)> {
    DEFINITIONS
        .iter()
        .map(|d| {
            let default = d.default.unwrap_or("(none)").to_string();
            let mut help = d.help.to_string();
            if d.read_only {
                help.push_str(" (read-only at run time)");
            }
            (d.name.to_string(), default, help)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_sorted_and_defaults_parse() {
        for pair in DEFINITIONS.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} must sort before {}",
                pair[0].name,
                pair[1].name
            );
        }
        for d in DEFINITIONS {
            if let Some(text) = d.default {
                parse_setting(d, &Setting::Text(text.to_string()))
                    .unwrap_or_else(|e| panic!("default of {} does not parse: {e}", d.name));
            }
        }
    }

    #[test]
    fn flag_sets_change_only_the_switches_named() {
        let d = def(lookup("optimizer_switch").unwrap());
        let default = defaults().swap_remove(lookup("optimizer_switch").unwrap());
        let text = |v: &VarValue| v.display(d).unwrap();
        assert!(text(&default).starts_with("index_merge=on,"));
        assert!(text(&default).contains(",mrr=off,"));
        let set = |current: &VarValue, s: &str| {
            parse_setting_over(d, &Setting::Text(s.into()), current).map(|(v, _)| v)
        };
        let mrr = set(&default, "MRR=on").unwrap();
        assert!(text(&mrr).contains(",mrr=on,"));
        let both = set(&mrr, "derived_merge=off").unwrap();
        assert!(text(&both).contains(",mrr=on,") && text(&both).contains("derived_merge=off"));
        assert_eq!(set(&both, "default").unwrap(), default);
        assert_eq!(
            set(&both, "mrr=default,derived_merge=default").unwrap(),
            default
        );
        for bad in ["mrr=maybe", "nosuch=on", "mrr"] {
            assert_eq!(set(&default, bad).unwrap_err().code, 1231, "{bad}");
        }
    }

    #[test]
    fn long_names_are_clipped_in_warnings_as_mariadb_clips_them() {
        let d = def(lookup("optimizer_use_condition_selectivity").unwrap());
        let (_, w) = parse_setting(d, &Setting::Int(9)).unwrap();
        assert_eq!(
            w.unwrap().1,
            "Truncated incorrect optimizer_use_condition_selec... value: '9'"
        );
    }

    #[test]
    fn lookup_accepts_dashes_and_case() {
        assert_eq!(lookup("MAX-CONNECTIONS"), lookup("max_connections"));
        assert!(lookup("max_connections").is_some());
        assert!(lookup("no_such_variable").is_none());
    }

    #[test]
    fn uint_clamps_with_warning_and_rounds_to_block() {
        let d = def(lookup("max_connections").unwrap());
        let (v, w) = parse_setting(d, &Setting::Int(1)).unwrap();
        assert_eq!(v, VarValue::UInt(10));
        assert_eq!(w.unwrap().0, 1292);
        let d = def(lookup("max_allowed_packet").unwrap());
        let (v, w) = parse_setting(d, &Setting::Int(5000)).unwrap();
        assert_eq!(v, VarValue::UInt(4096));
        assert!(w.is_some());
        assert_eq!(
            parse_setting(d, &Setting::Text("16M".into())).unwrap().0,
            VarValue::UInt(16 << 20)
        );
        assert_eq!(
            parse_setting(d, &Setting::Double(1.5)).unwrap_err().code,
            1232
        );
    }

    #[test]
    fn bool_enum_and_set_values() {
        let ac = def(lookup("autocommit").unwrap());
        assert_eq!(
            parse_setting(ac, &Setting::Text("off".into())).unwrap().0,
            VarValue::Bool(false)
        );
        assert_eq!(parse_setting(ac, &Setting::Int(2)).unwrap_err().code, 1231);
        let iso = def(lookup("tx_isolation").unwrap());
        assert_eq!(
            parse_setting(iso, &Setting::Text("read-committed".into()))
                .unwrap()
                .0,
            VarValue::Enum(1)
        );
        assert_eq!(
            parse_setting(iso, &Setting::Text("nope".into()))
                .unwrap_err()
                .code,
            1231
        );
        let qc = def(lookup("query_cache_type").unwrap());
        for (text, index) in [("0", 0), ("2", 2), ("demand", 2)] {
            let parsed = parse_setting(qc, &Setting::Text(text.into())).unwrap().0;
            assert_eq!(parsed, VarValue::Enum(index), "option text {text:?}");
        }
        let beyond = parse_setting(qc, &Setting::Text("3".into()));
        assert_eq!(beyond.unwrap_err().code, 1231);
        let mode = def(lookup("sql_mode").unwrap());
        let (v, _) = parse_setting(mode, &Setting::Text("traditional".into())).unwrap();
        assert_eq!(
            v.display(mode).unwrap(),
            "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,\
             ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
        );
        assert_eq!(
            parse_setting(mode, &Setting::Text("".into())).unwrap().0,
            VarValue::Set(0)
        );
        assert_eq!(
            parse_setting(mode, &Setting::Text("BOGUS".into()))
                .unwrap_err()
                .code,
            1231
        );
        let (v, _) = parse_setting(
            mode,
            &Setting::Text(
                DEFINITIONS[lookup("sql_mode").unwrap()]
                    .default
                    .unwrap()
                    .into(),
            ),
        )
        .unwrap();
        let VarValue::Set(bits) = v else {
            panic!("sql_mode must be a set")
        };
        assert_ne!(bits & sql_mode::STRICT_TRANS_TABLES, 0);
        assert_ne!(bits & sql_mode::ERROR_FOR_DIVISION_BY_ZERO, 0);
    }
}
