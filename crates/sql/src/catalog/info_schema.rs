//! `information_schema` as MariaDB 10.11 defines it: each table's name, its columns (as
//! MariaDB's own information_schema.COLUMNS lists them, in its `COLUMN_TYPE` spelling) and
//! which producer fills its rows. The rows are made from the server's state when a
//! statement reads the table (`crate::exec::info_schema`), then the statement runs over
//! them as over any table: WHERE, joins, grouping, ORDER BY, subqueries. Nothing is stored.
//!
//! A table of MariaDB's that has no producer here answers 1235 rather than an empty or
//! partial result; a name MariaDB does not know answers its 1109.

/// The producer of a table's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VirtualRows {
    /// CHECK_CONSTRAINTS: a row per CHECK constraint of each table.
    CheckConstraints,
    CharacterSets,
    Collations,
    CollationApplicability,
    Columns,
    Engines,
    GlobalStatus,
    GlobalVariables,
    KeyCaches,
    KeyColumnUsage,
    ReferentialConstraints,
    /// One row per stored table: myriad has no partitioned tables.
    Partitions,
    /// PLUGINS and ALL_PLUGINS: the storage engine and the authentication plugin myriad
    /// has built in (it loads no others).
    Plugins,
    Processlist,
    Schemata,
    SessionStatus,
    SessionVariables,
    Statistics,
    SystemVariables,
    TableConstraints,
    Tables,
    /// VIEWS: a row per view.
    Views,
    /// USER_PRIVILEGES, SCHEMA_PRIVILEGES, TABLE_PRIVILEGES, COLUMN_PRIVILEGES: the
    /// accounts' grants, a row per privilege.
    UserPrivileges,
    SchemaPrivileges,
    TablePrivileges,
    ColumnPrivileges,
    /// `mysql.user`, `mysql.db` and `mysql.columns_priv` (see [`super::mysql_schema`]).
    MysqlUser,
    MysqlDb,
    MysqlColumnsPriv,
    MysqlRolesMapping,
    MysqlProxiesPriv,
    MysqlGlobalPriv,
    /// Rows of objects myriad does not have (views, routines, triggers, events, foreign
    /// keys, CHECK constraints, tablespaces): always none, which is MariaDB's answer for a
    /// server without them.
    None,
}

/// A table of `information_schema`.
pub struct VirtualTable {
    /// The name in upper case (matched case-insensitively).
    pub name: &'static str,
    /// The columns as a CREATE TABLE column list: `NAME type [NOT NULL], ...`.
    pub columns: &'static str,
    /// Which producer fills the rows when a statement reads the table.
    pub rows: VirtualRows,
}

const fn table(name: &'static str, columns: &'static str, rows: VirtualRows) -> VirtualTable {
    VirtualTable {
        name,
        columns,
        rows,
    }
}

/// Every table with rows, sorted by name.
pub static TABLES: &[VirtualTable] = &[
    table("ALL_PLUGINS", PLUGINS_COLUMNS, VirtualRows::Plugins),
    table(
        "CHARACTER_SETS",
        CHARACTER_SETS_COLUMNS,
        VirtualRows::CharacterSets,
    ),
    table(
        "CHECK_CONSTRAINTS",
        CHECK_CONSTRAINTS_COLUMNS,
        VirtualRows::CheckConstraints,
    ),
    table("COLLATIONS", COLLATIONS_COLUMNS, VirtualRows::Collations),
    table(
        "COLLATION_CHARACTER_SET_APPLICABILITY",
        COLLATION_CHARACTER_SET_APPLICABILITY_COLUMNS,
        VirtualRows::CollationApplicability,
    ),
    table("COLUMNS", COLUMNS_COLUMNS, VirtualRows::Columns),
    table(
        "COLUMN_PRIVILEGES",
        COLUMN_PRIVILEGES_COLUMNS,
        VirtualRows::ColumnPrivileges,
    ),
    table("ENGINES", ENGINES_COLUMNS, VirtualRows::Engines),
    table("EVENTS", EVENTS_COLUMNS, VirtualRows::None),
    table("FILES", FILES_COLUMNS, VirtualRows::None),
    table(
        "GLOBAL_STATUS",
        GLOBAL_STATUS_COLUMNS,
        VirtualRows::GlobalStatus,
    ),
    table(
        "GLOBAL_VARIABLES",
        GLOBAL_VARIABLES_COLUMNS,
        VirtualRows::GlobalVariables,
    ),
    table("KEY_CACHES", KEY_CACHES_COLUMNS, VirtualRows::KeyCaches),
    table(
        "KEY_COLUMN_USAGE",
        KEY_COLUMN_USAGE_COLUMNS,
        VirtualRows::KeyColumnUsage,
    ),
    table("PARAMETERS", PARAMETERS_COLUMNS, VirtualRows::None),
    table("PARTITIONS", PARTITIONS_COLUMNS, VirtualRows::Partitions),
    table("PLUGINS", PLUGINS_COLUMNS, VirtualRows::Plugins),
    table("PROCESSLIST", PROCESSLIST_COLUMNS, VirtualRows::Processlist),
    table(
        "REFERENTIAL_CONSTRAINTS",
        REFERENTIAL_CONSTRAINTS_COLUMNS,
        VirtualRows::ReferentialConstraints,
    ),
    table("ROUTINES", ROUTINES_COLUMNS, VirtualRows::None),
    table("SCHEMATA", SCHEMATA_COLUMNS, VirtualRows::Schemata),
    table(
        "SCHEMA_PRIVILEGES",
        SCHEMA_PRIVILEGES_COLUMNS,
        VirtualRows::SchemaPrivileges,
    ),
    table(
        "SESSION_STATUS",
        SESSION_STATUS_COLUMNS,
        VirtualRows::SessionStatus,
    ),
    table(
        "SESSION_VARIABLES",
        SESSION_VARIABLES_COLUMNS,
        VirtualRows::SessionVariables,
    ),
    table("STATISTICS", STATISTICS_COLUMNS, VirtualRows::Statistics),
    table(
        "SYSTEM_VARIABLES",
        SYSTEM_VARIABLES_COLUMNS,
        VirtualRows::SystemVariables,
    ),
    table("TABLES", TABLES_COLUMNS, VirtualRows::Tables),
    table("TABLESPACES", TABLESPACES_COLUMNS, VirtualRows::None),
    table(
        "TABLE_CONSTRAINTS",
        TABLE_CONSTRAINTS_COLUMNS,
        VirtualRows::TableConstraints,
    ),
    table(
        "TABLE_PRIVILEGES",
        TABLE_PRIVILEGES_COLUMNS,
        VirtualRows::TablePrivileges,
    ),
    table("TRIGGERS", TRIGGERS_COLUMNS, VirtualRows::None),
    table(
        "USER_PRIVILEGES",
        USER_PRIVILEGES_COLUMNS,
        VirtualRows::UserPrivileges,
    ),
    table("VIEWS", VIEWS_COLUMNS, VirtualRows::Views),
];

/// MariaDB's other information_schema tables: reading one answers 1235.
pub static NOT_BUILT: &[&str] = &[
    "APPLICABLE_ROLES",
    "CLIENT_STATISTICS",
    "ENABLED_ROLES",
    "GEOMETRY_COLUMNS",
    "INDEX_STATISTICS",
    "KEYWORDS",
    "OPTIMIZER_TRACE",
    "PROFILING",
    "SPATIAL_REF_SYS",
    "SQL_FUNCTIONS",
    "TABLE_STATISTICS",
    "THREAD_POOL_GROUPS",
    "THREAD_POOL_QUEUES",
    "THREAD_POOL_STATS",
    "THREAD_POOL_WAITS",
    "USER_STATISTICS",
    "USER_VARIABLES",
];

/// The table with this name.
pub fn find(name: &str) -> Option<usize> {
    TABLES
        .iter()
        .position(|t| t.name.eq_ignore_ascii_case(name))
}

/// Whether MariaDB has a table of this name that myriad does not fill (InnoDB's own
/// `INNODB_*` tables included).
pub fn is_not_built(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("INNODB_") || NOT_BUILT.contains(&upper.as_str())
}

/// `information_schema.USER_PRIVILEGES`: MariaDB's columns.
const USER_PRIVILEGES_COLUMNS: &str =
    "GRANTEE varchar(385) NOT NULL, TABLE_CATALOG varchar(512) NOT NULL, PRIVILEGE_TYPE \
     varchar(64) NOT NULL, IS_GRANTABLE varchar(3) NOT NULL";

/// `information_schema.SCHEMA_PRIVILEGES`: MariaDB's columns.
const SCHEMA_PRIVILEGES_COLUMNS: &str =
    "GRANTEE varchar(385) NOT NULL, TABLE_CATALOG varchar(512) NOT NULL, TABLE_SCHEMA \
     varchar(64) NOT NULL, PRIVILEGE_TYPE varchar(64) NOT NULL, IS_GRANTABLE varchar(3) NOT NULL";

/// `information_schema.TABLE_PRIVILEGES`: MariaDB's columns.
const TABLE_PRIVILEGES_COLUMNS: &str =
    "GRANTEE varchar(385) NOT NULL, TABLE_CATALOG varchar(512) NOT NULL, TABLE_SCHEMA \
     varchar(64) NOT NULL, TABLE_NAME varchar(64) NOT NULL, PRIVILEGE_TYPE varchar(64) NOT \
     NULL, IS_GRANTABLE varchar(3) NOT NULL";

/// `information_schema.COLUMN_PRIVILEGES`: MariaDB's columns.
const COLUMN_PRIVILEGES_COLUMNS: &str =
    "GRANTEE varchar(385) NOT NULL, TABLE_CATALOG varchar(512) NOT NULL, TABLE_SCHEMA \
     varchar(64) NOT NULL, TABLE_NAME varchar(64) NOT NULL, COLUMN_NAME varchar(64) NOT \
     NULL, PRIVILEGE_TYPE varchar(64) NOT NULL, IS_GRANTABLE varchar(3) NOT NULL";

/// `information_schema.CHARACTER_SETS`: MariaDB's columns.
const CHARACTER_SETS_COLUMNS: &str =
    "CHARACTER_SET_NAME varchar(32) NOT NULL, DEFAULT_COLLATE_NAME varchar(64) NOT NULL, \
     DESCRIPTION varchar(60) NOT NULL, MAXLEN bigint(3) NOT NULL";

/// `information_schema.CHECK_CONSTRAINTS`: MariaDB's columns.
const CHECK_CONSTRAINTS_COLUMNS: &str =
    "CONSTRAINT_CATALOG varchar(512) NOT NULL, CONSTRAINT_SCHEMA varchar(64) NOT NULL, \
     TABLE_NAME varchar(64) NOT NULL, CONSTRAINT_NAME varchar(64) NOT NULL, LEVEL \
     varchar(6) NOT NULL, CHECK_CLAUSE longtext NOT NULL";

/// `information_schema.COLLATIONS`: MariaDB's columns.
const COLLATIONS_COLUMNS: &str =
    "COLLATION_NAME varchar(64) NOT NULL, CHARACTER_SET_NAME varchar(32), ID bigint(11), \
     IS_DEFAULT varchar(3), IS_COMPILED varchar(3) NOT NULL, SORTLEN bigint(3) NOT NULL";

/// `information_schema.COLLATION_CHARACTER_SET_APPLICABILITY`: MariaDB's columns.
const COLLATION_CHARACTER_SET_APPLICABILITY_COLUMNS: &str =
    "COLLATION_NAME varchar(64) NOT NULL, CHARACTER_SET_NAME varchar(32) NOT NULL, \
     FULL_COLLATION_NAME varchar(64) NOT NULL, ID bigint(11) NOT NULL, IS_DEFAULT \
     varchar(3) NOT NULL";

/// `information_schema.COLUMNS`: MariaDB's columns.
const COLUMNS_COLUMNS: &str =
    "TABLE_CATALOG varchar(512) NOT NULL, TABLE_SCHEMA varchar(64) NOT NULL, TABLE_NAME \
     varchar(64) NOT NULL, COLUMN_NAME varchar(64) NOT NULL, ORDINAL_POSITION bigint(21) \
     unsigned NOT NULL, COLUMN_DEFAULT longtext, IS_NULLABLE varchar(3) NOT NULL, \
     DATA_TYPE varchar(64) NOT NULL, CHARACTER_MAXIMUM_LENGTH bigint(21) unsigned, \
     CHARACTER_OCTET_LENGTH bigint(21) unsigned, NUMERIC_PRECISION bigint(21) unsigned, \
     NUMERIC_SCALE bigint(21) unsigned, DATETIME_PRECISION bigint(21) unsigned, \
     CHARACTER_SET_NAME varchar(32), COLLATION_NAME varchar(64), COLUMN_TYPE longtext NOT \
     NULL, COLUMN_KEY varchar(3) NOT NULL, EXTRA varchar(80) NOT NULL, PRIVILEGES \
     varchar(80) NOT NULL, COLUMN_COMMENT varchar(1024) NOT NULL, IS_GENERATED varchar(6) \
     NOT NULL, GENERATION_EXPRESSION longtext";

/// `information_schema.ENGINES`: MariaDB's columns.
const ENGINES_COLUMNS: &str =
    "ENGINE varchar(64) NOT NULL, SUPPORT varchar(8) NOT NULL, COMMENT varchar(160) NOT \
     NULL, TRANSACTIONS varchar(3), XA varchar(3), SAVEPOINTS varchar(3)";

/// `information_schema.EVENTS`: MariaDB's columns.
const EVENTS_COLUMNS: &str =
    "EVENT_CATALOG varchar(64) NOT NULL, EVENT_SCHEMA varchar(64) NOT NULL, EVENT_NAME \
     varchar(64) NOT NULL, DEFINER varchar(384) NOT NULL, TIME_ZONE varchar(64) NOT NULL, \
     EVENT_BODY varchar(8) NOT NULL, EVENT_DEFINITION longtext NOT NULL, EVENT_TYPE \
     varchar(9) NOT NULL, EXECUTE_AT datetime, INTERVAL_VALUE varchar(256), \
     INTERVAL_FIELD varchar(18), SQL_MODE varchar(8192) NOT NULL, STARTS datetime, ENDS \
     datetime, STATUS varchar(18) NOT NULL, ON_COMPLETION varchar(12) NOT NULL, CREATED \
     datetime NOT NULL, LAST_ALTERED datetime NOT NULL, LAST_EXECUTED datetime, \
     EVENT_COMMENT varchar(64) NOT NULL, ORIGINATOR bigint(10) NOT NULL, \
     CHARACTER_SET_CLIENT varchar(32) NOT NULL, COLLATION_CONNECTION varchar(64) NOT \
     NULL, DATABASE_COLLATION varchar(64) NOT NULL";

/// `information_schema.FILES`: MariaDB's columns.
const FILES_COLUMNS: &str =
    "FILE_ID bigint(4) NOT NULL, FILE_NAME varchar(512), FILE_TYPE varchar(20) NOT NULL, \
     TABLESPACE_NAME varchar(64), TABLE_CATALOG varchar(64) NOT NULL, TABLE_SCHEMA \
     varchar(64), TABLE_NAME varchar(64), LOGFILE_GROUP_NAME varchar(64), \
     LOGFILE_GROUP_NUMBER bigint(4), ENGINE varchar(64) NOT NULL, FULLTEXT_KEYS \
     varchar(64), DELETED_ROWS bigint(4), UPDATE_COUNT bigint(4), FREE_EXTENTS bigint(4), \
     TOTAL_EXTENTS bigint(4), EXTENT_SIZE bigint(4) NOT NULL, INITIAL_SIZE bigint(21) \
     unsigned, MAXIMUM_SIZE bigint(21) unsigned, AUTOEXTEND_SIZE bigint(21) unsigned, \
     CREATION_TIME datetime, LAST_UPDATE_TIME datetime, LAST_ACCESS_TIME datetime, \
     RECOVER_TIME bigint(4), TRANSACTION_COUNTER bigint(4), VERSION bigint(21) unsigned, \
     ROW_FORMAT varchar(10), TABLE_ROWS bigint(21) unsigned, AVG_ROW_LENGTH bigint(21) \
     unsigned, DATA_LENGTH bigint(21) unsigned, MAX_DATA_LENGTH bigint(21) unsigned, \
     INDEX_LENGTH bigint(21) unsigned, DATA_FREE bigint(21) unsigned, CREATE_TIME \
     datetime, UPDATE_TIME datetime, CHECK_TIME datetime, CHECKSUM bigint(21) unsigned, \
     STATUS varchar(20) NOT NULL, EXTRA varchar(255)";

/// `information_schema.GLOBAL_STATUS`: MariaDB's columns.
const GLOBAL_STATUS_COLUMNS: &str =
    "VARIABLE_NAME varchar(64) NOT NULL, VARIABLE_VALUE varchar(4096) NOT NULL";

/// `information_schema.GLOBAL_VARIABLES`: MariaDB's columns.
const GLOBAL_VARIABLES_COLUMNS: &str =
    "VARIABLE_NAME varchar(64) NOT NULL, VARIABLE_VALUE varchar(4096) NOT NULL";

/// `information_schema.KEY_CACHES`: MariaDB's columns.
const KEY_CACHES_COLUMNS: &str =
    "KEY_CACHE_NAME varchar(192) NOT NULL, SEGMENTS int(3) unsigned, SEGMENT_NUMBER \
     int(3) unsigned, FULL_SIZE bigint(21) unsigned NOT NULL, BLOCK_SIZE bigint(21) \
     unsigned NOT NULL, USED_BLOCKS bigint(21) unsigned NOT NULL, UNUSED_BLOCKS \
     bigint(21) unsigned NOT NULL, DIRTY_BLOCKS bigint(21) unsigned NOT NULL, \
     READ_REQUESTS bigint(21) unsigned NOT NULL, READS bigint(21) unsigned NOT NULL, \
     WRITE_REQUESTS bigint(21) unsigned NOT NULL, WRITES bigint(21) unsigned NOT NULL";

/// `information_schema.KEY_COLUMN_USAGE`: MariaDB's columns.
const KEY_COLUMN_USAGE_COLUMNS: &str =
    "CONSTRAINT_CATALOG varchar(512) NOT NULL, CONSTRAINT_SCHEMA varchar(64) NOT NULL, \
     CONSTRAINT_NAME varchar(64) NOT NULL, TABLE_CATALOG varchar(512) NOT NULL, \
     TABLE_SCHEMA varchar(64) NOT NULL, TABLE_NAME varchar(64) NOT NULL, COLUMN_NAME \
     varchar(64) NOT NULL, ORDINAL_POSITION bigint(10) NOT NULL, \
     POSITION_IN_UNIQUE_CONSTRAINT bigint(10), REFERENCED_TABLE_SCHEMA varchar(64), \
     REFERENCED_TABLE_NAME varchar(64), REFERENCED_COLUMN_NAME varchar(64)";

/// `information_schema.PARAMETERS`: MariaDB's columns.
const PARAMETERS_COLUMNS: &str =
    "SPECIFIC_CATALOG varchar(512) NOT NULL, SPECIFIC_SCHEMA varchar(64) NOT NULL, \
     SPECIFIC_NAME varchar(64) NOT NULL, ORDINAL_POSITION int(21) NOT NULL, \
     PARAMETER_MODE varchar(5), PARAMETER_NAME varchar(64), DATA_TYPE varchar(64) NOT \
     NULL, CHARACTER_MAXIMUM_LENGTH int(21), CHARACTER_OCTET_LENGTH int(21), \
     NUMERIC_PRECISION int(21), NUMERIC_SCALE int(21), DATETIME_PRECISION bigint(21) \
     unsigned, CHARACTER_SET_NAME varchar(64), COLLATION_NAME varchar(64), DTD_IDENTIFIER \
     longtext NOT NULL, ROUTINE_TYPE varchar(9) NOT NULL";

/// `information_schema.PROCESSLIST`: MariaDB's columns.
const PROCESSLIST_COLUMNS: &str =
    "ID bigint(4) NOT NULL, USER varchar(128) NOT NULL, HOST varchar(64) NOT NULL, DB \
     varchar(64), COMMAND varchar(16) NOT NULL, TIME int(7) NOT NULL, STATE varchar(64), \
     INFO longtext, TIME_MS decimal(22,3) NOT NULL, STAGE tinyint(2) NOT NULL, MAX_STAGE \
     tinyint(2) NOT NULL, PROGRESS decimal(7,3) NOT NULL, MEMORY_USED bigint(7) NOT NULL, \
     MAX_MEMORY_USED bigint(7) NOT NULL, EXAMINED_ROWS int(7) NOT NULL, QUERY_ID \
     bigint(4) NOT NULL, INFO_BINARY blob, TID bigint(4) NOT NULL";

/// `information_schema.REFERENTIAL_CONSTRAINTS`: MariaDB's columns.
const REFERENTIAL_CONSTRAINTS_COLUMNS: &str =
    "CONSTRAINT_CATALOG varchar(512) NOT NULL, CONSTRAINT_SCHEMA varchar(64) NOT NULL, \
     CONSTRAINT_NAME varchar(64) NOT NULL, UNIQUE_CONSTRAINT_CATALOG varchar(512) NOT \
     NULL, UNIQUE_CONSTRAINT_SCHEMA varchar(64) NOT NULL, UNIQUE_CONSTRAINT_NAME \
     varchar(64), MATCH_OPTION varchar(64) NOT NULL, UPDATE_RULE varchar(64) NOT NULL, \
     DELETE_RULE varchar(64) NOT NULL, TABLE_NAME varchar(64) NOT NULL, \
     REFERENCED_TABLE_NAME varchar(64)";

/// `information_schema.ROUTINES`: MariaDB's columns.
const ROUTINES_COLUMNS: &str =
    "SPECIFIC_NAME varchar(64) NOT NULL, ROUTINE_CATALOG varchar(512) NOT NULL, \
     ROUTINE_SCHEMA varchar(64) NOT NULL, ROUTINE_NAME varchar(64) NOT NULL, ROUTINE_TYPE \
     varchar(13) NOT NULL, DATA_TYPE varchar(64) NOT NULL, CHARACTER_MAXIMUM_LENGTH \
     int(21), CHARACTER_OCTET_LENGTH int(21), NUMERIC_PRECISION int(21), NUMERIC_SCALE \
     int(21), DATETIME_PRECISION bigint(21) unsigned, CHARACTER_SET_NAME varchar(64), \
     COLLATION_NAME varchar(64), DTD_IDENTIFIER longtext, ROUTINE_BODY varchar(8) NOT \
     NULL, ROUTINE_DEFINITION longtext, EXTERNAL_NAME varchar(64), EXTERNAL_LANGUAGE \
     varchar(64), PARAMETER_STYLE varchar(8) NOT NULL, IS_DETERMINISTIC varchar(3) NOT \
     NULL, SQL_DATA_ACCESS varchar(64) NOT NULL, SQL_PATH varchar(64), SECURITY_TYPE \
     varchar(7) NOT NULL, CREATED datetime NOT NULL, LAST_ALTERED datetime NOT NULL, \
     SQL_MODE varchar(8192) NOT NULL, ROUTINE_COMMENT longtext NOT NULL, DEFINER \
     varchar(384) NOT NULL, CHARACTER_SET_CLIENT varchar(32) NOT NULL, \
     COLLATION_CONNECTION varchar(64) NOT NULL, DATABASE_COLLATION varchar(64) NOT NULL";

/// `information_schema.SCHEMATA`: MariaDB's columns.
const SCHEMATA_COLUMNS: &str =
    "CATALOG_NAME varchar(512) NOT NULL, SCHEMA_NAME varchar(64) NOT NULL, \
     DEFAULT_CHARACTER_SET_NAME varchar(32) NOT NULL, DEFAULT_COLLATION_NAME varchar(64) \
     NOT NULL, SQL_PATH varchar(512), SCHEMA_COMMENT varchar(1024) NOT NULL";

/// `information_schema.SESSION_STATUS`: MariaDB's columns.
const SESSION_STATUS_COLUMNS: &str =
    "VARIABLE_NAME varchar(64) NOT NULL, VARIABLE_VALUE varchar(4096) NOT NULL";

/// `information_schema.SESSION_VARIABLES`: MariaDB's columns.
const SESSION_VARIABLES_COLUMNS: &str =
    "VARIABLE_NAME varchar(64) NOT NULL, VARIABLE_VALUE varchar(4096) NOT NULL";

/// `information_schema.STATISTICS`: MariaDB's columns.
const STATISTICS_COLUMNS: &str =
    "TABLE_CATALOG varchar(512) NOT NULL, TABLE_SCHEMA varchar(64) NOT NULL, TABLE_NAME \
     varchar(64) NOT NULL, NON_UNIQUE bigint(1) NOT NULL, INDEX_SCHEMA varchar(64) NOT \
     NULL, INDEX_NAME varchar(64) NOT NULL, SEQ_IN_INDEX int(2) unsigned NOT NULL, \
     COLUMN_NAME varchar(64) NOT NULL, COLLATION varchar(1), CARDINALITY bigint(21), \
     SUB_PART bigint(3), PACKED varchar(10), NULLABLE varchar(3) NOT NULL, INDEX_TYPE \
     varchar(16) NOT NULL, COMMENT varchar(16), INDEX_COMMENT varchar(1024) NOT NULL, \
     IGNORED varchar(3) NOT NULL";

/// `information_schema.TABLES`: MariaDB's columns.
const TABLES_COLUMNS: &str =
    "TABLE_CATALOG varchar(512) NOT NULL, TABLE_SCHEMA varchar(64) NOT NULL, TABLE_NAME \
     varchar(64) NOT NULL, TABLE_TYPE varchar(64) NOT NULL, ENGINE varchar(64), VERSION \
     bigint(21) unsigned, ROW_FORMAT varchar(10), TABLE_ROWS bigint(21) unsigned, \
     AVG_ROW_LENGTH bigint(21) unsigned, DATA_LENGTH bigint(21) unsigned, MAX_DATA_LENGTH \
     bigint(21) unsigned, INDEX_LENGTH bigint(21) unsigned, DATA_FREE bigint(21) \
     unsigned, AUTO_INCREMENT bigint(21) unsigned, CREATE_TIME datetime, UPDATE_TIME \
     datetime, CHECK_TIME datetime, TABLE_COLLATION varchar(64), CHECKSUM bigint(21) \
     unsigned, CREATE_OPTIONS varchar(2048), TABLE_COMMENT varchar(2048) NOT NULL, \
     MAX_INDEX_LENGTH bigint(21) unsigned, TEMPORARY varchar(1)";

/// `information_schema.TABLESPACES`: MariaDB's columns.
const TABLESPACES_COLUMNS: &str =
    "TABLESPACE_NAME varchar(64) NOT NULL, ENGINE varchar(64) NOT NULL, TABLESPACE_TYPE \
     varchar(64), LOGFILE_GROUP_NAME varchar(64), EXTENT_SIZE bigint(21) unsigned, \
     AUTOEXTEND_SIZE bigint(21) unsigned, MAXIMUM_SIZE bigint(21) unsigned, NODEGROUP_ID \
     bigint(21) unsigned, TABLESPACE_COMMENT varchar(2048)";

/// `information_schema.TABLE_CONSTRAINTS`: MariaDB's columns.
const TABLE_CONSTRAINTS_COLUMNS: &str =
    "CONSTRAINT_CATALOG varchar(512) NOT NULL, CONSTRAINT_SCHEMA varchar(64) NOT NULL, \
     CONSTRAINT_NAME varchar(64) NOT NULL, TABLE_SCHEMA varchar(64) NOT NULL, TABLE_NAME \
     varchar(64) NOT NULL, CONSTRAINT_TYPE varchar(64) NOT NULL";

/// `information_schema.TRIGGERS`: MariaDB's columns.
const TRIGGERS_COLUMNS: &str =
    "TRIGGER_CATALOG varchar(512) NOT NULL, TRIGGER_SCHEMA varchar(64) NOT NULL, \
     TRIGGER_NAME varchar(64) NOT NULL, EVENT_MANIPULATION varchar(6) NOT NULL, \
     EVENT_OBJECT_CATALOG varchar(512) NOT NULL, EVENT_OBJECT_SCHEMA varchar(64) NOT \
     NULL, EVENT_OBJECT_TABLE varchar(64) NOT NULL, ACTION_ORDER bigint(4) NOT NULL, \
     ACTION_CONDITION longtext, ACTION_STATEMENT longtext, ACTION_ORIENTATION varchar(9) \
     NOT NULL, ACTION_TIMING varchar(6) NOT NULL, ACTION_REFERENCE_OLD_TABLE varchar(64), \
     ACTION_REFERENCE_NEW_TABLE varchar(64), ACTION_REFERENCE_OLD_ROW varchar(3) NOT \
     NULL, ACTION_REFERENCE_NEW_ROW varchar(3) NOT NULL, CREATED datetime(2), SQL_MODE \
     varchar(8192) NOT NULL, DEFINER varchar(384), CHARACTER_SET_CLIENT varchar(32) NOT \
     NULL, COLLATION_CONNECTION varchar(64) NOT NULL, DATABASE_COLLATION varchar(64) NOT \
     NULL";

/// `information_schema.VIEWS`: MariaDB's columns.
const VIEWS_COLUMNS: &str =
    "TABLE_CATALOG varchar(512) NOT NULL, TABLE_SCHEMA varchar(64) NOT NULL, TABLE_NAME \
     varchar(64) NOT NULL, VIEW_DEFINITION longtext NOT NULL, CHECK_OPTION varchar(8) NOT \
     NULL, IS_UPDATABLE varchar(3) NOT NULL, DEFINER varchar(384) NOT NULL, SECURITY_TYPE \
     varchar(7) NOT NULL, CHARACTER_SET_CLIENT varchar(32) NOT NULL, COLLATION_CONNECTION \
     varchar(64) NOT NULL, ALGORITHM varchar(10) NOT NULL";

/// `information_schema.SYSTEM_VARIABLES`: MariaDB's columns.
const SYSTEM_VARIABLES_COLUMNS: &str = "VARIABLE_NAME varchar(64) NOT NULL, SESSION_VALUE \
     varchar(2048), GLOBAL_VALUE varchar(2048), GLOBAL_VALUE_ORIGIN varchar(64) NOT NULL, \
     DEFAULT_VALUE varchar(2048), VARIABLE_SCOPE varchar(64) NOT NULL, VARIABLE_TYPE \
     varchar(64) NOT NULL, VARIABLE_COMMENT varchar(2048) NOT NULL, NUMERIC_MIN_VALUE \
     varchar(21), NUMERIC_MAX_VALUE varchar(21), NUMERIC_BLOCK_SIZE varchar(21), \
     ENUM_VALUE_LIST longtext, READ_ONLY varchar(3) NOT NULL, COMMAND_LINE_ARGUMENT \
     varchar(64), GLOBAL_VALUE_PATH varchar(2048)";

/// `information_schema.PLUGINS` and `ALL_PLUGINS`: MariaDB's columns.
const PLUGINS_COLUMNS: &str = "PLUGIN_NAME varchar(64) NOT NULL, PLUGIN_VERSION varchar(20) \
     NOT NULL, PLUGIN_STATUS varchar(16) NOT NULL, PLUGIN_TYPE varchar(80) NOT NULL, \
     PLUGIN_TYPE_VERSION varchar(20) NOT NULL, PLUGIN_LIBRARY varchar(64), \
     PLUGIN_LIBRARY_VERSION varchar(20), PLUGIN_AUTHOR varchar(64), PLUGIN_DESCRIPTION \
     longtext, PLUGIN_LICENSE varchar(80) NOT NULL, LOAD_OPTION varchar(64) NOT NULL, \
     PLUGIN_MATURITY varchar(12) NOT NULL, PLUGIN_AUTH_VERSION varchar(80)";

/// `information_schema.PARTITIONS`: MariaDB's columns.
const PARTITIONS_COLUMNS: &str = "TABLE_CATALOG varchar(512) NOT NULL, TABLE_SCHEMA varchar(64) \
     NOT NULL, TABLE_NAME varchar(64) NOT NULL, PARTITION_NAME varchar(64), SUBPARTITION_NAME \
     varchar(64), PARTITION_ORDINAL_POSITION bigint(21) unsigned, \
     SUBPARTITION_ORDINAL_POSITION bigint(21) unsigned, PARTITION_METHOD varchar(18), \
     SUBPARTITION_METHOD varchar(12), PARTITION_EXPRESSION longtext, \
     SUBPARTITION_EXPRESSION longtext, PARTITION_DESCRIPTION longtext, TABLE_ROWS \
     bigint(21) unsigned NOT NULL, AVG_ROW_LENGTH bigint(21) unsigned NOT NULL, DATA_LENGTH \
     bigint(21) unsigned NOT NULL, MAX_DATA_LENGTH bigint(21) unsigned, INDEX_LENGTH \
     bigint(21) unsigned NOT NULL, DATA_FREE bigint(21) unsigned NOT NULL, CREATE_TIME \
     datetime, UPDATE_TIME datetime, CHECK_TIME datetime, CHECKSUM bigint(21) unsigned, \
     PARTITION_COMMENT varchar(80) NOT NULL, NODEGROUP varchar(12) NOT NULL, TABLESPACE_NAME \
     varchar(64)";
