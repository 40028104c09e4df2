-- SET STATEMENT var = value [, ...] FOR statement: the statement runs with those session
-- variables set; they get their previous values back after it, whether it succeeded or
-- failed. Variables MariaDB refuses there (1971), global-only (1229), read-only (1238) and
-- unknown (1193) ones, values with subqueries over tables (1970), and the syntax errors.
DROP DATABASE IF EXISTS setst
CREATE DATABASE setst
USE setst
CREATE TABLE t (a INT)
INSERT INTO t VALUES (1), (2)
SET SESSION div_precision_increment = 4
SET SESSION group_concat_max_len = 1500
SET STATEMENT div_precision_increment = 8 FOR SELECT 1/3, @@div_precision_increment
SELECT 1/3, @@div_precision_increment
SET STATEMENT div_precision_increment = 8, group_concat_max_len = 2000 FOR SELECT @@div_precision_increment, @@group_concat_max_len
SELECT @@div_precision_increment, @@group_concat_max_len
SET STATEMENT div_precision_increment = 2, div_precision_increment = 6 FOR SELECT @@div_precision_increment
SELECT @@div_precision_increment
SET STATEMENT div_precision_increment = 8 FOR SET STATEMENT group_concat_max_len = 3000 FOR SELECT @@div_precision_increment, @@group_concat_max_len
SET STATEMENT no_such_variable = 8 FOR SET STATEMENT group_concat_max_len = 3000 FOR SELECT 1
SET STATEMENT autocommit = 0 FOR SET STATEMENT group_concat_max_len = 3000 FOR SELECT 1
SELECT @@div_precision_increment, @@group_concat_max_len
SET STATEMENT div_precision_increment = 8 FOR SELECT * FROM no_such_table
SELECT @@div_precision_increment
SET STATEMENT div_precision_increment = 8 FOR SELECT no_such_column FROM t
SELECT @@div_precision_increment
SET STATEMENT div_precision_increment = 8 FOR SET div_precision_increment = 9
SELECT @@div_precision_increment
SET STATEMENT div_precision_increment = DEFAULT FOR SELECT @@div_precision_increment
SET STATEMENT div_precision_increment = 1 + 1 FOR SELECT @@div_precision_increment
SET STATEMENT div_precision_increment = (SELECT 5) FOR SELECT @@div_precision_increment
SET STATEMENT div_precision_increment = 8 FOR SELECT a / 7 FROM t ORDER BY a
SET STATEMENT div_precision_increment = 8 FOR INSERT INTO t VALUES (3)
SELECT a FROM t ORDER BY a
SET STATEMENT div_precision_increment = 8 FOR UPDATE t SET a = a + 10 WHERE a = 3
SET STATEMENT div_precision_increment = 8 FOR DELETE FROM t WHERE a = 13
SELECT a FROM t ORDER BY a
SET STATEMENT group_concat_max_len = 5 FOR SELECT GROUP_CONCAT(a ORDER BY a SEPARATOR '--') FROM t
SHOW WARNINGS
SELECT GROUP_CONCAT(a ORDER BY a SEPARATOR '--') FROM t
SET STATEMENT div_precision_increment = 8 FOR SHOW VARIABLES LIKE 'div_precision_increment'
SHOW VARIABLES LIKE 'div_precision_increment'
SET STATEMENT sql_mode = 'PIPES_AS_CONCAT' FOR SELECT 'a' || 'b'
SET SESSION sql_mode = 'PIPES_AS_CONCAT'
SET STATEMENT sql_mode = '' FOR SELECT 'a' || 'b', @@sql_mode
SELECT 'a' || 'b', @@sql_mode
SET SESSION sql_mode = DEFAULT
SELECT 'a' || 'b'
SET STATEMENT sql_mode = '' FOR SELECT @@sql_mode
SELECT @@sql_mode
SET STATEMENT group_concat_max_len = 1 FOR SELECT @@group_concat_max_len
SHOW WARNINGS
SELECT @@group_concat_max_len
SET STATEMENT sql_log_bin = 0 FOR SELECT @@sql_log_bin
SELECT @@sql_log_bin
SET STATEMENT sql_log_bin=0 FOR call mtr.add_suppression("InnoDB: Trying to delete tablespace.*pending operations")
SET STATEMENT last_insert_id = 5 FOR SELECT LAST_INSERT_ID()
SELECT LAST_INSERT_ID()
SET STATEMENT timestamp = 1000000000 FOR SELECT UNIX_TIMESTAMP()
SELECT UNIX_TIMESTAMP() > 1000000000
SET STATEMENT max_statement_time = 0.01 FOR SELECT SLEEP(1)
SELECT @@max_statement_time = 0
SELECT a FROM t ORDER BY a
SET STATEMENT autocommit = 0 FOR SELECT 1
SET STATEMENT AUTOCOMMIT = DEFAULT FOR SELECT 1
SET STATEMENT character_set_client = latin1 FOR SELECT 1
SET STATEMENT character_set_connection = DEFAULT FOR SELECT 1
SET STATEMENT character_set_filesystem = DEFAULT FOR SELECT 1
SET STATEMENT collation_connection = DEFAULT FOR SELECT 1
SET STATEMENT tx_isolation = 'SERIALIZABLE' FOR SELECT 1
SET STATEMENT query_cache_type = DEFAULT FOR SELECT 1
SET STATEMENT wait_timeout = 10 FOR SELECT 1
SET STATEMENT interactive_timeout = DEFAULT FOR SELECT 1
SET STATEMENT div_precision_increment = 8, autocommit = 0 FOR SELECT 1
SELECT @@div_precision_increment, @@autocommit
SET STATEMENT max_connections = 5 FOR SELECT 1
SET STATEMENT connect_timeout = 100 FOR SELECT 1
SET STATEMENT version = 'x' FOR SELECT 1
SET STATEMENT no_such_variable = 1 FOR SELECT 1
SET STATEMENT sql_mode = 'NO_SUCH_MODE' FOR SELECT 1
SET STATEMENT div_precision_increment = 'abc' FOR SELECT 1
SET STATEMENT div_precision_increment = (SELECT MAX(a) FROM t) FOR SELECT 1
SELECT @@div_precision_increment
SET STATEMENT @x = 1 FOR SELECT 1
SET STATEMENT @@session.div_precision_increment = 1 FOR SELECT 1
SET STATEMENT @@global.div_precision_increment = 1 FOR SELECT 1
SET STATEMENT GLOBAL div_precision_increment = 1 FOR SELECT 1
SET STATEMENT SESSION div_precision_increment = 1 FOR SELECT 1
SET STATEMENT div_precision_increment = 5
SET STATEMENT div_precision_increment = 5 SELECT 1
SET STATEMENT div_precision_increment = 5 FOR
SET STATEMENT FOR SELECT 1
SET div_precision_increment = 5 FOR SELECT 1
SELECT @@div_precision_increment
CREATE TABLE statement (a INT)
DROP TABLE statement
DROP DATABASE setst
SET SESSION div_precision_increment = DEFAULT
SET SESSION group_concat_max_len = DEFAULT
