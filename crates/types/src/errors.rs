//! MariaDB's error codes: each with its SQLSTATE and English message template, in one
//! table, as MariaDB's `errmsg-utf8.txt` gives them (the codes myriad raises; add a line to
//! raise another).
//!
//! A constant names a code the way MariaDB's sources do (`ER_NO_SUCH_TABLE`). An error
//! or a warning takes its number and SQLSTATE from here, never from a bare literal:
//!
//! ```
//! use myriad_types::errors::{ErrorCode, ER_NO_SUCH_TABLE};
//! assert_eq!((ER_NO_SUCH_TABLE.code, ER_NO_SUCH_TABLE.sqlstate), (1146, "42S02"));
//! assert_eq!(ER_NO_SUCH_TABLE.message(&[&"db", &"t"]), "Table 'db.t' doesn't exist");
//! assert!(ER_NO_SUCH_TABLE.matches("Table 'shop.orders' doesn't exist"));
//! assert_eq!(ErrorCode::by_code(1146), Some(&ER_NO_SUCH_TABLE));
//! ```
//!
//! Templates keep MariaDB's printf directives (`%s`, `%-.192s`, `%d`, `%lu`, `%M`, `%T`):
//! [`ErrorCode::message`] fills them in order, and [`ErrorCode::matches`] tells whether a
//! message could have come from the template, which the sql crate's tests use to keep
//! every message myriad writes in MariaDB's words.

use std::fmt::{self, Display, Write};

/// One error: its number, SQLSTATE, MariaDB's name for it and its message template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorCode {
    /// The number the client sees (1146).
    pub code: u16,
    /// The five-character SQLSTATE ("42S02").
    pub sqlstate: &'static str,
    /// MariaDB's name (`ER_NO_SUCH_TABLE`).
    pub name: &'static str,
    /// The English message with printf-style directives.
    pub template: &'static str,
}

macro_rules! error_codes {
    ($($name:ident = $code:literal, $state:literal, $template:literal;)*) => {
        $(
            #[doc = concat!("`", $state, "` ", $template)]
            pub const $name: ErrorCode = ErrorCode {
                code: $code,
                sqlstate: $state,
                name: stringify!($name),
                template: $template,
            };
        )*
        /// Every code in the table, in ascending order of number.
        pub const ALL: &[ErrorCode] = &[$($name),*];
    };
}

error_codes! {
    // Codes of MariaDB's mysys library (my_create, my_write, my_stat), raised as errors of
    // the statement.
    EE_CANTCREATEFILE = 1, "HY000", "Can't create/write to file '%s' (Errcode: %M)";
    EE_WRITE = 3, "HY000", "Error writing file '%s' (Errcode: %M)";
    EE_STAT = 13, "HY000", "Can't get stat of '%s' (Errcode: %M)";
    ER_CANT_CREATE_TABLE = 1005, "HY000", "Can't create table %`s.%`s (errno: %M)";
    ER_DB_CREATE_EXISTS = 1007, "HY000", "Can't create database '%-.192s'; database exists";
    ER_DB_DROP_EXISTS = 1008, "HY000", "Can't drop database '%-.192s'; database doesn't exist";
    ER_CHECKREAD = 1020, "HY000", "Record has changed since last read in table '%-.192s'";
    ER_DISK_FULL = 1021, "HY000", "Disk full (%s); waiting for someone to free some space... (errno: %M)";
    ER_GET_ERRNO = 1030, "HY000", "Got error %M from storage engine %s";
    ER_ILLEGAL_HA = 1031, "HY000", "Storage engine %s of the table %`-.192s.%`-.192s doesn't have this option";
    ER_KEY_NOT_FOUND = 1032, "HY000", "Can't find record in '%-.192s'";
    ER_NOT_KEYFILE = 1034, "HY000", "Index for table '%-.200s' is corrupt; try to repair it";
    ER_CON_COUNT_ERROR = 1040, "08004", "Too many connections";
    ER_HANDSHAKE_ERROR = 1043, "08S01", "Bad handshake";
    ER_DBACCESS_DENIED_ERROR = 1044, "42000", "Access denied for user '%s'@'%s' to database '%-.192s'";
    ER_ACCESS_DENIED_ERROR = 1045, "28000", "Access denied for user '%s'@'%s' (using password: %s)";
    ER_NO_DB_ERROR = 1046, "3D000", "No database selected";
    ER_UNKNOWN_COM_ERROR = 1047, "08S01", "Unknown command";
    ER_BAD_NULL_ERROR = 1048, "23000", "Column '%-.192s' cannot be null";
    ER_BAD_DB_ERROR = 1049, "42000", "Unknown database '%-.192s'";
    ER_TABLE_EXISTS_ERROR = 1050, "42S01", "Table '%-.192s' already exists";
    ER_BAD_TABLE_ERROR = 1051, "42S02", "Unknown table '%-.100T'";
    ER_NON_UNIQ_ERROR = 1052, "23000", "Column '%-.192s' in %-.192s is ambiguous";
    ER_SERVER_SHUTDOWN = 1053, "08S01", "Server shutdown in progress";
    ER_BAD_FIELD_ERROR = 1054, "42S22", "Unknown column '%-.192s' in '%-.192s'";
    ER_WRONG_GROUP_FIELD = 1056, "42000", "Can't group on '%-.192s'";
    ER_DUP_FIELDNAME = 1060, "42S21", "Duplicate column name '%-.192s'";
    ER_DUP_KEYNAME = 1061, "42000", "Duplicate key name '%-.192s'";
    // MariaDB raises 1062 with the text of ER_DUP_ENTRY_WITH_KEY_NAME, the key by name.
    ER_DUP_ENTRY = 1062, "23000", "Duplicate entry '%-.64T' for key '%-.192s'";
    ER_WRONG_FIELD_SPEC = 1063, "42000", "Incorrect column specifier for column '%-.192s'";
    ER_PARSE_ERROR = 1064, "42000", "%s near '%-.80T' at line %d";
    ER_EMPTY_QUERY = 1065, "42000", "Query was empty";
    ER_NONUNIQ_TABLE = 1066, "42000", "Not unique table/alias: '%-.192s'";
    ER_INVALID_DEFAULT = 1067, "42000", "Invalid default value for '%-.192s'";
    ER_MULTIPLE_PRI_KEY = 1068, "42000", "Multiple primary key defined";
    ER_TOO_LONG_KEY = 1071, "42000", "Specified key was too long; max key length is %d bytes";
    ER_KEY_COLUMN_DOES_NOT_EXIST = 1072, "42000", "Key column '%-.192s' doesn't exist in table";
    ER_TOO_BIG_FIELDLENGTH = 1074, "42000", "Column length too big for column '%-.192s' (max = %lu); use BLOB or TEXT instead";
    ER_WRONG_AUTO_KEY = 1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key";
    ER_WRONG_FIELD_TERMINATORS = 1083, "42000", "Field separator argument is not what is expected; check the manual";
    ER_FILE_EXISTS_ERROR = 1086, "HY000", "File '%-.200s' already exists";
    ER_CANT_REMOVE_ALL_FIELDS = 1090, "42000", "You can't delete all columns with ALTER TABLE; use DROP TABLE instead";
    ER_CANT_DROP_FIELD_OR_KEY = 1091, "42000", "Can't DROP %s %`-.192s; check that it exists";
    ER_NO_SUCH_THREAD = 1094, "HY000", "Unknown thread id: %lu";
    ER_KILL_DENIED_ERROR = 1095, "HY000", "You are not owner of thread %lld";
    ER_NO_TABLES_USED = 1096, "HY000", "No tables used";
    ER_TOO_BIG_SET = 1097, "HY000", "Too many strings for column %-.192s and SET";
    ER_TABLE_NOT_LOCKED_FOR_WRITE = 1099, "HY000", "Table '%-.192s' was locked with a READ lock and can't be updated";
    ER_TABLE_NOT_LOCKED = 1100, "HY000", "Table '%-.192s' was not locked with LOCK TABLES";
    ER_WRONG_DB_NAME = 1102, "42000", "Incorrect database name '%-.100T'";
    // MariaDB's table says "Unknown error", but MariaDB raises 1105 with a message of the
    // raiser's own (my_printf_error), and so does myriad.
    ER_UNKNOWN_ERROR = 1105, "HY000", "%s";
    ER_UNKNOWN_TABLE = 1109, "42S02", "Unknown table '%-.192s' in %-.32s";
    ER_INVALID_GROUP_FUNC_USE = 1111, "HY000", "Invalid use of group function";
    ER_RECORD_FILE_FULL = 1114, "HY000", "The table '%-.192s' is full";
    ER_UNKNOWN_CHARACTER_SET = 1115, "42000", "Unknown character set: '%-.64s'";
    ER_TOO_BIG_ROWSIZE = 1118, "42000", "Row size too large. The maximum row size for the used table type, not counting BLOBs, is %ld. This includes storage overhead, check the manual. You have to change some columns to TEXT or BLOBs";
    ER_CANT_OPEN_LIBRARY = 1126, "HY000", "Can't open shared library '%-.192s' (errno: %d, %-.128s)";
    ER_CANT_FIND_DL_ENTRY = 1127, "HY000", "Can't find symbol '%-.128s' in library";
    ER_PASSWORD_NO_MATCH = 1133, "28000", "Can't find any matching row in the user table";
    ER_WRONG_VALUE_COUNT_ON_ROW = 1136, "21S01", "Column count doesn't match value count at row %lu";
    ER_REGEXP_ERROR = 1139, "42000", "Got error '%-.64s' from regexp";
    ER_NONEXISTING_GRANT = 1141, "42000", "There is no such grant defined for user '%-.48s' on host '%-.64s'";
    ER_TABLEACCESS_DENIED_ERROR = 1142, "42000", "%-.100T command denied to user '%s'@'%s' for table %`s.%`s";
    ER_COLUMNACCESS_DENIED_ERROR = 1143, "42000", "%-.32s command denied to user '%s'@'%s' for column '%-.192s' in table '%-.192s'";
    ER_ILLEGAL_GRANT_FOR_TABLE = 1144, "42000", "Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used";
    ER_NO_SUCH_TABLE = 1146, "42S02", "Table '%-.192s.%-.192s' doesn't exist";
    ER_NONEXISTING_TABLE_GRANT = 1147, "42000", "There is no such grant defined for user '%-.48s' on host '%-.64s' on table '%-.192s'";
    ER_NET_PACKET_TOO_LARGE = 1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes";
    ER_NET_PACKETS_OUT_OF_ORDER = 1156, "08S01", "Got packets out of order";
    ER_NET_UNCOMPRESS_ERROR = 1157, "08S01", "Couldn't uncompress communication packet";
    ER_NET_READ_ERROR = 1158, "08S01", "Got an error reading communication packets";
    ER_NET_READ_INTERRUPTED = 1159, "08S01", "Got timeout reading communication packets";
    ER_NET_ERROR_ON_WRITE = 1160, "08S01", "Got an error writing communication packets";
    ER_NET_WRITE_INTERRUPTED = 1161, "08S01", "Got timeout writing communication packets";
    ER_TOO_MANY_ROWS = 1172, "42000", "Result consisted of more than one row";
    ER_UNKNOWN_SYSTEM_VARIABLE = 1193, "HY000", "Unknown system variable '%-.*s'";
    ER_WARNING_NOT_COMPLETE_ROLLBACK = 1196, "HY000", "Some non-transactional changed tables couldn't be rolled back";
    ER_TOO_MANY_USER_CONNECTIONS = 1203, "42000", "User %-.64s already has more than 'max_user_connections' active connections";
    ER_LOCK_WAIT_TIMEOUT = 1205, "HY000", "Lock wait timeout exceeded; try restarting transaction";
    ER_WRONG_ARGUMENTS = 1210, "HY000", "Incorrect arguments to %s";
    ER_LOCK_DEADLOCK = 1213, "40001", "Deadlock found when trying to get lock; try restarting transaction";
    ER_WRONG_USAGE = 1221, "HY000", "Incorrect usage of %s and %s";
    ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT = 1222, "21000", "The used SELECT statements have a different number of columns";
    ER_DUP_ARGUMENT = 1225, "HY000", "Option '%s' used twice in statement";
    ER_USER_LIMIT_REACHED = 1226, "42000", "User '%-.64s' has exceeded the '%s' resource (current value: %ld)";
    ER_SPECIFIC_ACCESS_DENIED_ERROR = 1227, "42000", "Access denied; you need (at least one of) the %-.128s privilege(s) for this operation";
    ER_LOCAL_VARIABLE = 1228, "HY000", "Variable '%-.64s' is a SESSION variable and can't be used with SET GLOBAL";
    ER_GLOBAL_VARIABLE = 1229, "HY000", "Variable '%-.64s' is a GLOBAL variable and should be set with SET GLOBAL";
    ER_WRONG_VALUE_FOR_VAR = 1231, "42000", "Variable '%-.64s' can't be set to the value of '%-.200T'";
    ER_WRONG_TYPE_FOR_VAR = 1232, "42000", "Incorrect argument type to variable '%-.64s'";
    ER_CANT_USE_OPTION_HERE = 1234, "42000", "Incorrect usage/placement of '%s'";
    // MariaDB names itself here; so does myriad.
    ER_NOT_SUPPORTED_YET = 1235, "42000", "This version of myriad doesn't yet support '%s'";
    ER_INCORRECT_GLOBAL_LOCAL_VAR = 1238, "HY000", "Variable '%-.192s' is a %s variable";
    ER_OPERAND_COLUMNS = 1241, "21000", "Operand should contain %d column(s)";
    ER_SUBQUERY_NO_1_ROW = 1242, "21000", "Subquery returns more than 1 row";
    ER_UNKNOWN_STMT_HANDLER = 1243, "HY000", "Unknown prepared statement handler (%.*s) given to %s";
    ER_NOT_SUPPORTED_AUTH_MODE = 1251, "08004", "Client does not support authentication protocol requested by server; consider upgrading MariaDB client";
    ER_COLLATION_CHARSET_MISMATCH = 1253, "42000", "COLLATION '%s' is not valid for CHARACTER SET '%s'";
    ER_CUT_VALUE_GROUP_CONCAT = 1260, "HY000", "Row %u was cut by GROUP_CONCAT()";
    ER_WARN_TOO_FEW_RECORDS = 1261, "01000", "Row %lu doesn't contain data for all columns";
    ER_WARN_TOO_MANY_RECORDS = 1262, "01000", "Row %lu was truncated; it contained more data than there were input columns";
    ER_WARN_DATA_OUT_OF_RANGE = 1264, "22003", "Out of range value for column '%s' at row %lu";
    WARN_DATA_TRUNCATED = 1265, "01000", "Data truncated for column '%s' at row %lu";
    ER_CANT_AGGREGATE_2COLLATIONS = 1267, "HY000", "Illegal mix of collations (%s,%s) and (%s,%s) for operation '%s'";
    ER_CANT_AGGREGATE_3COLLATIONS = 1270, "HY000", "Illegal mix of collations (%s,%s), (%s,%s), (%s,%s) for operation '%s'";
    ER_CANT_AGGREGATE_NCOLLATIONS = 1271, "HY000", "Illegal mix of collations for operation '%s'";
    ER_VARIABLE_IS_NOT_STRUCT = 1272, "HY000", "Variable '%-.64s' is not a variable component (can't be used as XXXX.variable_name)";
    ER_UNKNOWN_COLLATION = 1273, "HY000", "Unknown collation: '%-.64s'";
    ER_UNKNOWN_KEY_CACHE = 1284, "HY000", "Unknown key cache '%-.100s'";
    ER_UNKNOWN_STORAGE_ENGINE = 1286, "42000", "Unknown storage engine '%s'";
    ER_WARN_DEPRECATED_SYNTAX = 1287, "HY000", "'%s' is deprecated and will be removed in a future release. Please use %s instead";
    ER_NON_UPDATABLE_TABLE = 1288, "HY000", "The target table %-.100s of the %s is not updatable";
    ER_OPTION_PREVENTS_STATEMENT = 1290, "HY000", "The MariaDB server is running with the %s option so it cannot execute this statement";
    ER_DUPLICATED_VALUE_IN_TYPE = 1291, "HY000", "Column '%-.100s' has duplicated value '%-.64s' in %s";
    ER_TRUNCATED_WRONG_VALUE = 1292, "22007", "Truncated incorrect %-.32T value: '%-.128T'";
    ER_INVALID_ON_UPDATE = 1294, "HY000", "Invalid ON UPDATE clause for '%-.192s' column";
    ER_UNSUPPORTED_PS = 1295, "HY000", "This command is not supported in the prepared statement protocol yet";
    ER_GET_ERRMSG = 1296, "HY000", "Got error %d '%-.200s' from %s";
    ER_UNKNOWN_TIME_ZONE = 1298, "HY000", "Unknown or incorrect time zone: '%-.64s'";
    ER_INVALID_CHARACTER_STRING = 1300, "HY000", "Invalid %s character string: '%.64s'";
    ER_WARN_ALLOWED_PACKET_OVERFLOWED = 1301, "HY000", "Result of %s() was larger than max_allowed_packet (%ld) - truncated";
    ER_SP_DOES_NOT_EXIST = 1305, "42000", "%s %s does not exist";
    ER_QUERY_INTERRUPTED = 1317, "70100", "Query execution was interrupted";
    ER_SP_UNDECLARED_VAR = 1327, "42000", "Undeclared variable: %-.192s";
    ER_SP_FETCH_NO_DATA = 1329, "02000", "No data - zero rows fetched, selected, or processed";
    ER_WRONG_OBJECT = 1347, "HY000", "'%-.192s.%-.192s' is not of type '%s'";
    ER_VIEW_SELECT_CLAUSE = 1350, "HY000", "View's SELECT contains a '%s' clause";
    ER_VIEW_SELECT_VARIABLE = 1351, "HY000", "View's SELECT contains a variable or parameter";
    ER_VIEW_SELECT_TMPTABLE = 1352, "HY000", "View's SELECT refers to a temporary table '%-.192s'";
    ER_VIEW_WRONG_LIST = 1353, "HY000", "View's SELECT and view's field list have different column counts";
    ER_VIEW_INVALID = 1356, "HY000", "View '%-.192s.%-.192s' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them";
    ER_NO_DEFAULT_FOR_FIELD = 1364, "HY000", "Field '%-.192s' doesn't have a default value";
    ER_DIVISION_BY_ZERO = 1365, "22012", "Division by 0";
    ER_TRUNCATED_WRONG_VALUE_FOR_FIELD = 1366, "22007", "Incorrect %-.32s value: '%-.128T' for column `%.192s`.`%.192s`.`%.192s` at row %lu";
    ER_ILLEGAL_VALUE_FOR_TYPE = 1367, "22007", "Illegal %s '%-.192T' value found during parsing";
    ER_VIEW_NONUPD_CHECK = 1368, "HY000", "CHECK OPTION on non-updatable view %`-.192s.%`-.192s";
    ER_PASSWD_LENGTH = 1372, "HY000", "Password hash should be a %d-digit hexadecimal number";
    ER_PS_MANY_PARAM = 1390, "HY000", "Prepared statement contains too many placeholders";
    ER_CANNOT_USER = 1396, "HY000", "Operation %s failed for %.256s";
    ER_DATA_TOO_LONG = 1406, "22001", "Data too long for column '%s' at row %lu";
    ER_WRONG_VALUE_FOR_TYPE = 1411, "HY000", "Incorrect %-.32s value: '%-.128T' for function %-.32s";
    ER_TABLE_DEF_CHANGED = 1412, "HY000", "Table definition has changed, please retry transaction";
    ER_STMT_HAS_NO_OPEN_CURSOR = 1421, "HY000", "The statement (%lu) has no open cursor";
    ER_TOO_BIG_SCALE = 1425, "42000", "Too big scale specified for '%-.192s'. Maximum is %u";
    ER_TOO_BIG_PRECISION = 1426, "42000", "Too big precision specified for '%-.192s'. Maximum is %u";
    ER_M_BIGGER_THAN_D = 1427, "42000", "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '%-.192s')";
    ER_STACK_OVERRUN_NEED_MORE = 1436, "HY000", "Thread stack overrun:  %ld bytes used of a %ld byte stack, and %ld bytes needed. Consider increasing the thread_stack system variable.";
    ER_WARN_CANT_DROP_DEFAULT_KEYCACHE = 1438, "HY000", "Cannot drop default keycache";
    ER_DATETIME_FUNCTION_OVERFLOW = 1441, "22008", "Datetime function: %-.32s field overflow";
    ER_NO_SUCH_USER = 1449, "HY000", "The user specified as a definer ('%-.64s'@'%-.64s') does not exist";
    ER_ROW_IS_REFERENCED_2 = 1451, "23000", "Cannot delete or update a parent row: a foreign key constraint fails (%s)";
    ER_NO_REFERENCED_ROW_2 = 1452, "23000", "Cannot add or update a child row: a foreign key constraint fails (%s)";
    ER_MAX_PREPARED_STMT_COUNT_REACHED = 1461, "42000", "Can't create more than max_prepared_stmt_count statements (current value: %u)";
    ER_VIEW_RECURSIVE = 1462, "HY000", "%`s.%`s contains view recursion";
    ER_AMBIGUOUS_FIELD_TERM = 1475, "HY000", "First character of the FIELDS TERMINATED string is ambiguous; please use non-optional and non-empty FIELDS ENCLOSED BY";
    ER_PLUGIN_IS_NOT_LOADED = 1524, "HY000", "Plugin '%-.192s' is not loaded";
    ER_WRONG_VALUE = 1525, "HY000", "Incorrect %-.32s value: '%-.128T'";
    ER_DROP_INDEX_FK = 1553, "HY000", "Cannot drop index '%-.192s': needed in a foreign key constraint";
    ER_CANT_CHANGE_TX_CHARACTERISTICS = 1568, "25001", "Transaction characteristics can't be changed while a transaction is in progress";
    ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT = 1582, "42000", "Incorrect parameter count in the call to native function '%-.192s'";
    ER_PLUGIN_DELETE_BUILTIN = 1619, "HY000", "Built-in plugins cannot be deleted";
    ER_VARIABLE_IS_READONLY = 1621, "HY000", "%s variable '%s' is read-only. Use SET %s to assign the value";
    WARN_NON_ASCII_SEPARATOR_NOT_IMPLEMENTED = 1638, "HY000", "Non-ASCII separator arguments are not fully supported";
    ER_UNKNOWN_LOCALE = 1649, "HY000", "Unknown locale: '%-.64s'";
    ER_DATA_OUT_OF_RANGE = 1690, "22003", "%s value is out of range in '%s'";
    ER_ACCESS_DENIED_NO_PASSWORD_ERROR = 1698, "28000", "Access denied for user '%s'@'%s'";
    ER_TRUNCATE_ILLEGAL_FK = 1701, "42000", "Cannot truncate a table referenced in a foreign key constraint (%.192s)";
    ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION = 1792, "25006", "Cannot execute statement in a READ ONLY transaction";
    ER_MUST_CHANGE_PASSWORD = 1820, "HY000", "You must SET PASSWORD before executing this statement";
    ER_DUP_CONSTRAINT_NAME = 1826, "HY000", "Duplicate %s constraint name '%s'";
    ER_FK_COLUMN_CANNOT_DROP = 1828, "HY000", "Cannot drop column '%-.192s': needed in a foreign key constraint '%-.192s'";
    ER_FK_COLUMN_CANNOT_DROP_CHILD = 1829, "HY000", "Cannot drop column '%-.192s': needed in a foreign key constraint '%-.192s' of table %-.192s";
    ER_FK_COLUMN_CANNOT_CHANGE = 1832, "HY000", "Cannot change column '%-.192s': used in a foreign key constraint '%-.192s'";
    ER_FK_COLUMN_CANNOT_CHANGE_CHILD = 1833, "HY000", "Cannot change column '%-.192s': used in a foreign key constraint '%-.192s' of table '%-.192s'";
    ER_MALFORMED_PACKET = 1835, "HY000", "Malformed communication packet";
    ER_MUST_CHANGE_PASSWORD_LOGIN = 1862, "HY000", "Your password has expired. To log in you must change it using a client that supports expired passwords";
    ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED = 1901, "HY000", "Function or expression '%s' cannot be used in the %s clause of %`s";
    ER_CONNECTION_KILLED = 1927, "70100", "Connection was killed";
    ER_BAD_BASE64_DATA = 1958, "HY000", "Bad base64 data as position %u";
    ER_INVALID_ROLE = 1959, "OP000", "Invalid role specification %`s";
    ER_CANNOT_REVOKE_ROLE = 1962, "HY000", "Cannot revoke role '%s' from: '%s'@'%s'";
    ER_IT_IS_A_VIEW = 1965, "42S02", "'%-.192s' is a view";
    ER_PLUGIN_INSTALLED = 1968, "HY000", "Plugin '%-.192s' already installed";
    ER_STATEMENT_TIMEOUT = 1969, "70100", "Query execution was interrupted (max_statement_time exceeded)";
    ER_SUBQUERIES_NOT_SUPPORTED = 1970, "42000", "%s does not support subqueries or stored functions";
    ER_SET_STATEMENT_NOT_SUPPORTED = 1971, "42000", "The system variable %.200s cannot be set in SET STATEMENT.";

    // Not in MariaDB: MySQL's code for LN/LOG of a non-positive number, kept because the
    // warning myriad gives there carries it.
    ER_ROLE_CREATE_EXISTS = 1975, "HY000", "Can't create role '%-.64s'; it already exists";
    ER_ROLE_DROP_EXISTS = 1976, "HY000", "Can't drop role '%-.64s'; it doesn't exist";
    ER_INVALID_ARGUMENT_FOR_LOGARITHM = 3020, "2201E", "Invalid argument for logarithm";
    ER_WITH_COL_WRONG_LIST = 4002, "HY000", "WITH column list and SELECT field list have different column counts";
    ER_WRONG_WINDOW_SPEC_NAME = 4009, "HY000", "Window specification with name '%s' is not defined";
    ER_DUP_WINDOW_NAME = 4010, "HY000", "Multiple window specifications with the same name '%s'";
    ER_PARTITION_LIST_IN_REFERENCING_WINDOW_SPEC = 4011, "HY000", "Window specification referencing another one '%s' cannot contain partition list";
    ER_ORDER_LIST_IN_REFERENCING_WINDOW_SPEC = 4012, "HY000", "Referenced window specification '%s' already contains order list";
    ER_WINDOW_FRAME_IN_REFERENCED_WINDOW_SPEC = 4013, "HY000", "Referenced window specification '%s' cannot contain window frame";
    ER_BAD_COMBINATION_OF_WINDOW_FRAME_BOUND_SPECS = 4014, "HY000", "Unacceptable combination of window frame bound specifications";
    ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION = 4015, "HY000", "Window function is allowed only in SELECT list and ORDER BY clause";
    ER_NOT_ALLOWED_WINDOW_FRAME = 4017, "HY000", "Window frame is not allowed with '%s'";
    ER_NO_ORDER_LIST_IN_WINDOW_SPEC = 4018, "HY000", "No order list in window specification for '%s'";
    ER_WRONG_TYPE_FOR_ROWS_FRAME = 4020, "HY000", "Integer is required for ROWS-type frame";
    ER_FRAME_EXCLUSION_NOT_SUPPORTED = 4022, "HY000", "Frame exclusion is not supported yet";
    ER_INVALID_NTILE_ARGUMENT = 4024, "HY000", "Argument of NTILE must be greater than 0";
    ER_CONSTRAINT_FAILED = 4025, "23000", "CONSTRAINT %`s failed for %`-.192s.%`-.192s";
    ER_SUM_FUNC_WITH_WINDOW_FUNC_AS_ARG = 4074, "HY000", "Window functions can not be used as arguments to group functions.";
    ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION = 4078, "HY000", "Illegal parameter data types %s and %s for operation '%s'";
    ER_ILLEGAL_PARAMETER_DATA_TYPE_FOR_OPERATION = 4079, "HY000", "Illegal parameter data type %s for operation '%s'";
    ER_UNKNOWN_VIEW = 4092, "42S02", "Unknown VIEW: '%-.192s'";
    ER_ACCOUNT_HAS_BEEN_LOCKED = 4151, "HY000", "Access denied, this account is locked";
    ER_LOAD_INFILE_CAPABILITY_DISABLED = 4166, "HY000", "The used command is not allowed because the MariaDB server or client has disabled the local infile capability";
}

impl ErrorCode {
    /// The entry for a number, if the table has it.
    pub fn by_code(code: u16) -> Option<&'static ErrorCode> {
        ALL.binary_search_by_key(&code, |e| e.code)
            .ok()
            .map(|i| &ALL[i])
    }

    /// The SQLSTATE as the five bytes an ERR packet carries.
    pub fn sqlstate_bytes(&self) -> [u8; 5] {
        let mut state = [0u8; 5];
        state.copy_from_slice(self.sqlstate.as_bytes());
        state
    }

    /// The message with the template's directives filled from `args` in order (a
    /// precision such as `%-.192s` cuts the argument to that many characters; a missing
    /// argument leaves the directive empty).
    pub fn message(&self, args: &[&dyn Display]) -> String {
        let mut out = String::with_capacity(self.template.len() + 16);
        let mut args = args.iter();
        for piece in pieces(self.template) {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Directive { precision } => {
                    let Some(arg) = args.next() else { continue };
                    match precision {
                        None => {
                            let _ = write!(out, "{arg}");
                        }
                        Some(max) => {
                            let text = arg.to_string();
                            out.extend(text.chars().take(max));
                        }
                    }
                }
            }
        }
        out
    }

    /// Whether `message` could have come from the template: its fixed text in order, any
    /// text where a directive stands.
    pub fn matches(&self, message: &str) -> bool {
        let pieces: Vec<Piece<'_>> = pieces(self.template).collect();
        matches_from(&pieces, message)
    }
}

impl Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.code, self.name)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Directive { precision: Option<usize> },
}

/// The template cut into fixed text and directives (`%%` is a literal percent sign).
fn pieces(template: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = template;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if let Some(after) = rest.strip_prefix("%%") {
            rest = after;
            return Some(Piece::Text("%"));
        }
        if let Some(after) = rest.strip_prefix('%') {
            // Flags, width, precision, length, then the conversion letter.
            let spec_len = after
                .find(|c: char| c.is_ascii_alphabetic() && !matches!(c, 'l' | 'h' | 'z'))
                .map_or(after.len(), |i| i + 1);
            let spec = &after[..spec_len];
            rest = &after[spec_len..];
            let precision = spec.split_once('.').and_then(|(_, p)| {
                let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            });
            return Some(Piece::Directive { precision });
        }
        let end = rest.find('%').unwrap_or(rest.len());
        let (text, after) = rest.split_at(end);
        rest = after;
        Some(Piece::Text(text))
    })
}

fn matches_from(pieces: &[Piece<'_>], message: &str) -> bool {
    match pieces.split_first() {
        None => message.is_empty(),
        Some((Piece::Text(text), rest)) => message
            .strip_prefix(text)
            .is_some_and(|after| matches_from(rest, after)),
        Some((Piece::Directive { .. }, rest)) => message
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(message.len()))
            .any(|i| matches_from(rest, &message[i..])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_unique_and_well_formed() {
        for pair in ALL.windows(2) {
            assert!(pair[0].code < pair[1].code, "{} then {}", pair[0], pair[1]);
        }
        for e in ALL {
            assert_eq!(e.sqlstate.len(), 5, "{e}");
            assert!(e.sqlstate.bytes().all(|b| b.is_ascii_alphanumeric()), "{e}");
            assert!(
                e.name.starts_with("ER_")
                    || e.name.starts_with("WARN_")
                    || (e.name.starts_with("EE_") && e.code < 1000),
                "{e}"
            );
            assert_eq!(ErrorCode::by_code(e.code), Some(e));
        }
        assert_eq!(ErrorCode::by_code(999), None);
    }

    #[test]
    fn messages_fill_directives_in_order_and_cut_at_precision() {
        assert_eq!(
            ER_DUP_ENTRY.message(&[&"7", &"PRIMARY"]),
            "Duplicate entry '7' for key 'PRIMARY'"
        );
        let long = "x".repeat(300);
        let message = ER_BAD_DB_ERROR.message(&[&long]);
        assert_eq!(message, format!("Unknown database '{}'", "x".repeat(192)));
        assert_eq!(ER_BAD_DB_ERROR.message(&[]), "Unknown database ''");
    }

    #[test]
    fn matching_accepts_any_text_for_a_directive_and_nothing_else() {
        assert!(ER_NO_SUCH_TABLE.matches("Table 'a.b' doesn't exist"));
        assert!(ER_NO_SUCH_TABLE.matches("Table '.' doesn't exist"));
        assert!(!ER_NO_SUCH_TABLE.matches("Table 'a.b' does not exist"));
        assert!(!ER_NO_SUCH_TABLE.matches("Table 'ab' doesn't exist"));
        assert!(ER_DIVISION_BY_ZERO.matches("Division by 0"));
        assert!(!ER_DIVISION_BY_ZERO.matches("Division by 0!"));
    }
}
