-- information_schema: the tables MariaDB fills for databases, tables, columns, indexes,
-- keys, sessions, variables, engines and character sets, read as tables (WHERE, joins,
-- grouping, subqueries); writes refused. Runs in one session on each server.
DROP DATABASE IF EXISTS istest
CREATE DATABASE istest
USE istest
CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, a VARCHAR(20) NOT NULL DEFAULT 'x', b DECIMAL(10,2), c DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), d TEXT, e BIGINT UNSIGNED, f DOUBLE, g DATE DEFAULT '2020-01-02', h BLOB, i CHAR(5) COLLATE utf8mb4_bin, j INT DEFAULT 7, k TINYINT NOT NULL, UNIQUE KEY ua (a, e), KEY kb (b)) COMMENT 'it''s a table'
CREATE TABLE u (n INT NOT NULL, v VARBINARY(10), w VARCHAR(3) DEFAULT 'a''b', KEY (n))
INSERT INTO t (a, e, k) VALUES ('p', 1, 1), ('q', 2, 2)
SELECT table_catalog, table_schema, table_name, table_type, engine, version, row_format, table_rows, auto_increment, table_collation, table_comment, temporary FROM information_schema.tables WHERE table_schema = 'istest' ORDER BY table_name
SELECT table_name FROM information_schema.tables WHERE table_schema = 'istest' AND table_name = 'u'
SELECT table_name FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'ISTEST' ORDER BY 1
SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'istest'
SELECT * FROM information_schema.columns WHERE table_schema = 'istest' ORDER BY table_name, ordinal_position
SELECT column_name, column_default, column_default IS NULL FROM information_schema.columns WHERE table_schema = 'istest' AND table_name = 'u' ORDER BY ordinal_position
SELECT table_name, COUNT(*) AS n FROM information_schema.columns WHERE table_schema = 'istest' GROUP BY table_name ORDER BY table_name
SELECT * FROM information_schema.statistics WHERE table_schema = 'istest' AND table_name = 't' ORDER BY index_name, seq_in_index
SELECT * FROM information_schema.table_constraints WHERE table_schema = 'istest' ORDER BY table_name, constraint_name
SELECT * FROM information_schema.key_column_usage WHERE table_schema = 'istest' ORDER BY table_name, constraint_name, ordinal_position
SELECT * FROM information_schema.referential_constraints WHERE constraint_schema = 'istest'
SELECT * FROM information_schema.check_constraints WHERE constraint_schema = 'istest'
SELECT * FROM information_schema.views WHERE table_schema = 'istest'
SELECT * FROM information_schema.routines WHERE routine_schema = 'istest'
SELECT * FROM information_schema.triggers WHERE trigger_schema = 'istest'
SELECT * FROM information_schema.events WHERE event_schema = 'istest'
SELECT * FROM information_schema.schemata WHERE schema_name = 'istest'
SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('istest', 'information_schema') ORDER BY 1
SELECT t.table_name, COUNT(c.column_name) FROM information_schema.tables t JOIN information_schema.columns c ON c.table_schema = t.table_schema AND c.table_name = t.table_name WHERE t.table_schema = 'istest' GROUP BY t.table_name ORDER BY 1
SELECT table_name FROM information_schema.tables WHERE table_schema = 'istest' AND table_name IN (SELECT table_name FROM information_schema.columns WHERE table_schema = 'istest' AND column_name = 'v')
SELECT c.column_name, s.index_name FROM information_schema.columns c LEFT JOIN information_schema.statistics s ON s.table_schema = c.table_schema AND s.table_name = c.table_name AND s.column_name = c.column_name WHERE c.table_schema = 'istest' AND c.table_name = 't' ORDER BY c.ordinal_position, s.index_name
SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'information_schema' AND table_name IN ('TABLES', 'COLUMNS', 'PROCESSLIST') ORDER BY 1
SELECT column_name, column_type, is_nullable FROM information_schema.columns WHERE table_schema = 'information_schema' AND table_name = 'SCHEMATA' ORDER BY ordinal_position
SELECT variable_name, variable_value FROM information_schema.global_variables WHERE variable_name IN ('MAX_ALLOWED_PACKET', 'AUTOCOMMIT', 'LOWER_CASE_TABLE_NAMES') ORDER BY 1
SELECT variable_value FROM information_schema.session_variables WHERE variable_name = 'SQL_MODE'
SET SESSION sql_mode = 'ANSI_QUOTES'
SELECT variable_value FROM information_schema.session_variables WHERE variable_name = 'SQL_MODE'
SET SESSION sql_mode = DEFAULT
SELECT COUNT(*) > 0 FROM information_schema.global_status WHERE variable_name = 'UPTIME'
SELECT COUNT(*) FROM information_schema.session_status WHERE variable_name = 'NO_SUCH_COUNTER'
SELECT variable_name, session_value, global_value, default_value, variable_scope, variable_type, numeric_min_value, numeric_max_value, numeric_block_size, enum_value_list, read_only FROM information_schema.system_variables WHERE variable_name IN ('AUTOCOMMIT', 'WAIT_TIMEOUT', 'DIV_PRECISION_INCREMENT', 'TX_ISOLATION', 'AUTO_INCREMENT_OFFSET', 'LONG_QUERY_TIME', 'OPTIMIZER_SWITCH', 'MAX_CONNECTIONS') ORDER BY 1
SET SESSION div_precision_increment = 7
SELECT session_value, global_value FROM information_schema.system_variables WHERE variable_name = 'DIV_PRECISION_INCREMENT'
SET SESSION div_precision_increment = DEFAULT
SELECT COUNT(*) FROM information_schema.system_variables WHERE variable_name = 'NO_SUCH_VARIABLE'
SELECT variable_name, session_value, global_value, global_value_origin, default_value, variable_scope, variable_type, enum_value_list, read_only FROM information_schema.system_variables WHERE variable_name = 'SQL_LOG_BIN'
SET SESSION sql_log_bin = 0
SELECT session_value, global_value FROM information_schema.system_variables WHERE variable_name = 'SQL_LOG_BIN'
SET SESSION sql_log_bin = DEFAULT
SELECT COUNT(*) FROM information_schema.system_variables WHERE variable_name = 'have_sanitizer' AND global_value LIKE 'MSAN%'
SELECT engine, support, transactions, savepoints FROM information_schema.engines WHERE engine = 'InnoDB'
SELECT * FROM information_schema.character_sets WHERE character_set_name IN ('utf8mb4', 'latin1', 'binary') ORDER BY 1
SELECT * FROM information_schema.collations WHERE collation_name IN ('utf8mb4_general_ci', 'utf8mb4_bin', 'latin1_swedish_ci') ORDER BY id
SELECT * FROM information_schema.collation_character_set_applicability WHERE collation_name = 'utf8mb4_bin'
SELECT COUNT(*) FROM information_schema.processlist WHERE id = CONNECTION_ID()
SELECT user, db, command FROM information_schema.processlist WHERE id = CONNECTION_ID()
SELECT * FROM information_schema.no_such_table
SELECT * FROM information_schema.tables WHERE no_such_column = 1
INSERT INTO information_schema.tables (table_name) VALUES ('x')
UPDATE information_schema.tables SET table_name = 'x'
DELETE FROM information_schema.tables
DROP TABLE information_schema.tables
CREATE TABLE information_schema.x (a INT)
CREATE DATABASE information_schema
DROP DATABASE information_schema
TRUNCATE TABLE information_schema.tables
SHOW FULL TABLES FROM information_schema LIKE 'KEY_C%'
SHOW TABLES FROM information_schema LIKE 'SCHEMATA'
DROP TABLE u
SELECT table_name FROM information_schema.tables WHERE table_schema = 'istest'
DROP DATABASE istest
SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'istest'
SELECT * FROM information_schema.schemata WHERE schema_name = 'istest'
