//! The `mysql` schema's account tables as MariaDB 10.11 defines them, read-only, made from
//! the accounts when a statement reads them (as `information_schema`'s tables are, see
//! [`super::info_schema`]): tools and scripts read `mysql.user` and `mysql.db` to list
//! accounts and their grants. The accounts themselves live in the datadir's accounts file
//! and change only through CREATE / ALTER / DROP USER, GRANT and REVOKE: writing these
//! tables answers 1235.
//!
//! `mysql.user` is MariaDB's compatibility view over `mysql.global_priv`, whose `Priv`
//! column is the account's JSON as MariaDB writes it; `mysql.db`'s privilege columns are
//! `enum('N','Y')` in MariaDB and `char(1)` here (ENUM columns are not built). Tables that
//! would need what myriad does not keep (`tables_priv`' grantor and time) answer 1235; the
//! grant tables of objects myriad does not have (routines) are empty. `columns_priv` lists the
//! column grants, with the zero timestamp (the time of a grant is not kept).

use super::info_schema::{VirtualRows, VirtualTable};

/// The schema's name.
pub const SCHEMA: &str = "mysql";

const fn table(name: &'static str, columns: &'static str, rows: VirtualRows) -> VirtualTable {
    VirtualTable {
        name,
        columns,
        rows,
    }
}

/// The tables with rows (lower case, as MariaDB names them), sorted by name.
pub static TABLES: &[VirtualTable] = &[
    table(
        "columns_priv",
        COLUMNS_PRIV_COLUMNS,
        VirtualRows::MysqlColumnsPriv,
    ),
    table("db", DB_COLUMNS, VirtualRows::MysqlDb),
    table(
        "global_priv",
        GLOBAL_PRIV_COLUMNS,
        VirtualRows::MysqlGlobalPriv,
    ),
    table("procs_priv", PROCS_PRIV_COLUMNS, VirtualRows::None),
    table(
        "proxies_priv",
        PROXIES_PRIV_COLUMNS,
        VirtualRows::MysqlProxiesPriv,
    ),
    table(
        "roles_mapping",
        ROLES_MAPPING_COLUMNS,
        VirtualRows::MysqlRolesMapping,
    ),
    table("user", USER_COLUMNS, VirtualRows::MysqlUser),
];

/// MariaDB's other tables of the schema: reading one answers 1235.
pub static NOT_BUILT: &[&str] = &[
    "column_stats",
    "event",
    "func",
    "general_log",
    "gtid_slave_pos",
    "help_category",
    "help_keyword",
    "help_relation",
    "help_topic",
    "index_stats",
    "innodb_index_stats",
    "innodb_table_stats",
    "plugin",
    "proc",
    "servers",
    "slow_log",
    "table_stats",
    "tables_priv",
    "time_zone",
    "time_zone_leap_second",
    "time_zone_name",
    "time_zone_transition",
    "time_zone_transition_type",
    "transaction_registry",
];

/// The table with this name (case-sensitive, as MariaDB's table names are).
pub fn find(name: &str) -> Option<usize> {
    TABLES.iter().position(|t| t.name == name)
}

/// Whether MariaDB has a table of this name that myriad does not fill.
pub fn is_not_built(name: &str) -> bool {
    NOT_BUILT.contains(&name)
}

/// The privilege columns of `mysql.user`, each with the privilege it shows (`GRANT` for
/// Grant_priv), in MariaDB's column order.
pub const USER_PRIVILEGE_COLUMNS: &[(&str, &str)] = &[
    ("Select_priv", "SELECT"),
    ("Insert_priv", "INSERT"),
    ("Update_priv", "UPDATE"),
    ("Delete_priv", "DELETE"),
    ("Create_priv", "CREATE"),
    ("Drop_priv", "DROP"),
    ("Reload_priv", "RELOAD"),
    ("Shutdown_priv", "SHUTDOWN"),
    ("Process_priv", "PROCESS"),
    ("File_priv", "FILE"),
    ("Grant_priv", "GRANT"),
    ("References_priv", "REFERENCES"),
    ("Index_priv", "INDEX"),
    ("Alter_priv", "ALTER"),
    ("Show_db_priv", "SHOW DATABASES"),
    ("Super_priv", "SUPER"),
    ("Create_tmp_table_priv", "CREATE TEMPORARY TABLES"),
    ("Lock_tables_priv", "LOCK TABLES"),
    ("Execute_priv", "EXECUTE"),
    ("Repl_slave_priv", "REPLICATION SLAVE"),
    ("Repl_client_priv", "BINLOG MONITOR"),
    ("Create_view_priv", "CREATE VIEW"),
    ("Show_view_priv", "SHOW VIEW"),
    ("Create_routine_priv", "CREATE ROUTINE"),
    ("Alter_routine_priv", "ALTER ROUTINE"),
    ("Create_user_priv", "CREATE USER"),
    ("Event_priv", "EVENT"),
    ("Trigger_priv", "TRIGGER"),
    ("Create_tablespace_priv", "CREATE TABLESPACE"),
    ("Delete_history_priv", "DELETE HISTORY"),
];

/// The privilege columns of `mysql.db`, as [`USER_PRIVILEGE_COLUMNS`].
pub const DB_PRIVILEGE_COLUMNS: &[(&str, &str)] = &[
    ("Select_priv", "SELECT"),
    ("Insert_priv", "INSERT"),
    ("Update_priv", "UPDATE"),
    ("Delete_priv", "DELETE"),
    ("Create_priv", "CREATE"),
    ("Drop_priv", "DROP"),
    ("Grant_priv", "GRANT"),
    ("References_priv", "REFERENCES"),
    ("Index_priv", "INDEX"),
    ("Alter_priv", "ALTER"),
    ("Create_tmp_table_priv", "CREATE TEMPORARY TABLES"),
    ("Lock_tables_priv", "LOCK TABLES"),
    ("Create_view_priv", "CREATE VIEW"),
    ("Show_view_priv", "SHOW VIEW"),
    ("Create_routine_priv", "CREATE ROUTINE"),
    ("Alter_routine_priv", "ALTER ROUTINE"),
    ("Execute_priv", "EXECUTE"),
    ("Event_priv", "EVENT"),
    ("Trigger_priv", "TRIGGER"),
    ("Delete_history_priv", "DELETE HISTORY"),
];

/// `mysql.user`: MariaDB's columns.
const USER_COLUMNS: &str = "Host char(255) NOT NULL, User char(128) NOT NULL, Password longtext, \
     Select_priv varchar(1), Insert_priv varchar(1), Update_priv varchar(1), Delete_priv \
     varchar(1), Create_priv varchar(1), Drop_priv varchar(1), Reload_priv varchar(1), \
     Shutdown_priv varchar(1), Process_priv varchar(1), File_priv varchar(1), Grant_priv \
     varchar(1), References_priv varchar(1), Index_priv varchar(1), Alter_priv varchar(1), \
     Show_db_priv varchar(1), Super_priv varchar(1), Create_tmp_table_priv varchar(1), \
     Lock_tables_priv varchar(1), Execute_priv varchar(1), Repl_slave_priv varchar(1), \
     Repl_client_priv varchar(1), Create_view_priv varchar(1), Show_view_priv varchar(1), \
     Create_routine_priv varchar(1), Alter_routine_priv varchar(1), Create_user_priv \
     varchar(1), Event_priv varchar(1), Trigger_priv varchar(1), Create_tablespace_priv \
     varchar(1), Delete_history_priv varchar(1), ssl_type varchar(9), ssl_cipher longtext \
     NOT NULL, x509_issuer longtext NOT NULL, x509_subject longtext NOT NULL, max_questions \
     bigint(20) unsigned NOT NULL, max_updates bigint(20) unsigned NOT NULL, max_connections \
     bigint(20) unsigned NOT NULL, max_user_connections bigint(21) NOT NULL, plugin longtext \
     NOT NULL, authentication_string longtext NOT NULL, password_expired varchar(1) NOT \
     NULL, is_role varchar(1), default_role longtext NOT NULL, max_statement_time \
     decimal(12,6) NOT NULL";

/// `mysql.db`: MariaDB's columns (its `enum('N','Y')` as `char(1)`).
const DB_COLUMNS: &str = "Host char(255) NOT NULL, Db char(64) NOT NULL, User char(128) NOT \
     NULL, Select_priv char(1) NOT NULL, Insert_priv char(1) NOT NULL, Update_priv char(1) \
     NOT NULL, Delete_priv char(1) NOT NULL, Create_priv char(1) NOT NULL, Drop_priv char(1) \
     NOT NULL, Grant_priv char(1) NOT NULL, References_priv char(1) NOT NULL, Index_priv \
     char(1) NOT NULL, Alter_priv char(1) NOT NULL, Create_tmp_table_priv char(1) NOT NULL, \
     Lock_tables_priv char(1) NOT NULL, Create_view_priv char(1) NOT NULL, Show_view_priv \
     char(1) NOT NULL, Create_routine_priv char(1) NOT NULL, Alter_routine_priv char(1) NOT \
     NULL, Execute_priv char(1) NOT NULL, Event_priv char(1) NOT NULL, Trigger_priv char(1) \
     NOT NULL, Delete_history_priv char(1) NOT NULL";

/// `mysql.columns_priv`: MariaDB's columns (its SET column as text).
const COLUMNS_PRIV_COLUMNS: &str = "Host char(255) NOT NULL, Db char(64) NOT NULL, User \
     char(128) NOT NULL, Table_name char(64) NOT NULL, Column_name char(64) NOT NULL, \
     Timestamp timestamp NOT NULL, Column_priv varchar(31) NOT NULL";

/// `mysql.procs_priv`: MariaDB's columns (its ENUM and SET columns as text).
const PROCS_PRIV_COLUMNS: &str = "Host char(255) NOT NULL, Db char(64) NOT NULL, User \
     char(128) NOT NULL, Routine_name char(64) NOT NULL, Routine_type varchar(12) NOT NULL, \
     Grantor varchar(384) NOT NULL, Proc_priv varchar(27) NOT NULL, Timestamp timestamp NOT \
     NULL";

/// `mysql.proxies_priv`: MariaDB's columns.
const PROXIES_PRIV_COLUMNS: &str = "Host char(255) NOT NULL, User char(128) NOT NULL, \
     Proxied_host char(255) NOT NULL, Proxied_user char(128) NOT NULL, With_grant tinyint(1) \
     NOT NULL, Grantor varchar(384) NOT NULL, Timestamp timestamp NOT NULL";

/// `mysql.global_priv`: MariaDB's columns (`Priv` is JSON text).
const GLOBAL_PRIV_COLUMNS: &str =
    "Host char(255) NOT NULL, User char(128) NOT NULL, Priv longtext NOT NULL";

/// `mysql.roles_mapping`: MariaDB's columns (its ENUM as `char(1)`).
const ROLES_MAPPING_COLUMNS: &str = "Host char(255) NOT NULL, User char(128) NOT NULL, Role \
     char(128) NOT NULL, Admin_option char(1) NOT NULL";
