-- SELECT without tables: literals, arithmetic, comparison, strings, functions, control flow.
-- One statement per line. Compared with MariaDB 10.11 by tests/differential.rs.
SELECT 1
SELECT -1
SELECT 0
SELECT 123456789
SELECT 9223372036854775807
SELECT -9223372036854775808
SELECT 18446744073709551615
SELECT 18446744073709551616
SELECT 1.5
SELECT 1.50
SELECT -0.5
SELECT .5
SELECT 1e3
SELECT 1.5e2
SELECT 'abc'
SELECT "dq"
SELECT 'it''s'
SELECT 'a\nb'
SELECT 'a' 'b'
SELECT NULL
SELECT TRUE, FALSE
SELECT x'41', 0x4142
SELECT 1 AS one, 2 two
SELECT 1 FROM DUAL
SELECT 1 + 1
SELECT 1+1
SELECT 1 - 2
SELECT 2 * 3
SELECT 7 / 2
SELECT 1 / 3
SELECT 10 / 4
SELECT 1.0 / 3
SELECT 1.00 / 3
SELECT 2 / 0.5
SELECT 1 / 0
SELECT 0 / 0
SELECT 7 DIV 2
SELECT -7 DIV 2
SELECT 7 DIV 0
SELECT 7.5 DIV 2
SELECT 7 MOD 3
SELECT -7 MOD 3
SELECT 7 MOD -3
SELECT 7 % 3
SELECT 7.5 % 2
SELECT 7 % 0
SELECT MOD(10, 3)
SELECT MOD(10.5, 3)
SELECT 9223372036854775807 + 1
SELECT -9223372036854775808 - 1
SELECT 9223372036854775807 * 2
SELECT 18446744073709551615 + 1
SELECT 18446744073709551615 - 1
SELECT 1.5 + 1
SELECT 1.5 * 2
SELECT 1.25 * 1.5
SELECT 0.1 + 0.2
SELECT 1e0 + 1
SELECT 0.1e0 + 0.2e0
SELECT 1 + '1'
SELECT '10' + 5
SELECT '1.5' + 1
SELECT 'abc' + 1
SELECT '3abc' + 1
SELECT 2 * '3'
SELECT '6' / '4'
SELECT - 5
SELECT -(-5)
SELECT - - 5
SELECT -'5'
SELECT -1.5
SELECT 1 = 1
SELECT 1 = 2
SELECT 1 <> 2
SELECT 1 != 1
SELECT 1 < 2, 2 <= 2, 3 > 2, 3 >= 4
SELECT 'a' = 'A'
SELECT 'a' = 'a '
SELECT 'abc' < 'abd'
SELECT 'B' > 'a'
SELECT '10' = 10
SELECT '10' < 9
SELECT 'abc' = 0
SELECT 1 = 1.0
SELECT 1.0 = '1'
SELECT NULL = NULL
SELECT NULL <=> NULL
SELECT 1 <=> NULL
SELECT 1 <=> 1
SELECT 1 = NULL
SELECT NULL IS NULL
SELECT 1 IS NULL
SELECT 1 IS NOT NULL
SELECT NULL IS NOT NULL
SELECT 1 IS TRUE, 0 IS FALSE, NULL IS TRUE, NULL IS NOT FALSE
SELECT 1 AND 1, 1 AND 0, 0 AND NULL, 1 AND NULL
SELECT 1 OR 0, 0 OR 0, 0 OR NULL, 1 OR NULL
SELECT 1 XOR 1, 1 XOR 0, 1 XOR NULL
SELECT NOT 1, NOT 0, NOT NULL
SELECT 1 && 0, 1 || 0
SELECT 2 BETWEEN 1 AND 3
SELECT 5 BETWEEN 1 AND 3
SELECT 2 NOT BETWEEN 1 AND 3
SELECT 'b' BETWEEN 'a' AND 'c'
SELECT NULL BETWEEN 1 AND 2
SELECT 1 IN (1, 2, 3)
SELECT 4 IN (1, 2, 3)
SELECT 4 NOT IN (1, 2, 3)
SELECT 1 IN (NULL, 1)
SELECT 2 IN (NULL, 1)
SELECT 'a' IN ('A', 'b')
SELECT NULL IN (1, 2)
SELECT 'abc' LIKE 'a%'
SELECT 'abc' LIKE 'A_C'
SELECT 'abc' LIKE 'b%'
SELECT 'abc' NOT LIKE 'b%'
SELECT 'a%c' LIKE 'a\%c'
SELECT 'abc' LIKE 'a\%c'
SELECT 'a_c' LIKE 'a|_c' ESCAPE '|'
SELECT NULL LIKE 'a'
SELECT 10 LIKE '1%'
SELECT '' LIKE '%'
SELECT CONCAT('a', 'b', 'c')
SELECT CONCAT('a', NULL)
SELECT CONCAT('x', 1, 2.5)
SELECT CONCAT(1, 2)
SELECT CONCAT_WS(',', 'a', 'b', NULL, 'c')
SELECT CONCAT_WS(NULL, 'a', 'b')
SELECT LENGTH('abc'), LENGTH(''), LENGTH(NULL)
SELECT LENGTH('héllo'), CHAR_LENGTH('héllo')
SELECT CHAR_LENGTH('abc'), CHARACTER_LENGTH('ab')
SELECT LENGTH(123)
SELECT SUBSTRING('abcdef', 2)
SELECT SUBSTRING('abcdef', 2, 3)
SELECT SUBSTRING('abcdef', -2)
SELECT SUBSTRING('abcdef', 0)
SELECT SUBSTRING('abcdef', 10)
SELECT SUBSTRING('abcdef' FROM 3)
SELECT SUBSTRING('abcdef' FROM 2 FOR 2)
SELECT SUBSTR('abcdef', 3, 1), MID('abcdef', 4, 2)
SELECT SUBSTRING('abc', 2, -1)
SELECT UPPER('abc'), LOWER('ABC'), UCASE('x'), LCASE('Y')
SELECT UPPER(NULL)
SELECT TRIM('  a b  '), LTRIM('  a '), RTRIM(' a  ')
SELECT TRIM(LEADING 'x' FROM 'xxaxx'), TRIM(TRAILING 'x' FROM 'xxaxx'), TRIM(BOTH 'x' FROM 'xxaxx')
SELECT TRIM('xy' FROM 'xyxyaxy')
SELECT REPLACE('aXbXc', 'X', '-')
SELECT REPLACE('abc', '', 'x')
SELECT REPLACE('abc', 'B', 'x')
SELECT LEFT('abcdef', 3), RIGHT('abcdef', 2)
SELECT LEFT('abc', 10), RIGHT('abc', 0), LEFT('abc', -1)
SELECT LPAD('5', 3, '0'), RPAD('5', 3, '0')
SELECT LPAD('abcdef', 3, '0'), RPAD('ab', 5, 'xy')
SELECT LPAD('a', 3, '')
SELECT REPEAT('ab', 3), REPEAT('a', 0), REPEAT('a', -1)
SELECT REVERSE('abc'), REVERSE('')
SELECT LOCATE('b', 'abcb'), LOCATE('b', 'abcb', 3), LOCATE('x', 'abc')
SELECT LOCATE('B', 'abc')
SELECT INSTR('abcb', 'c'), INSTR('abc', 'z')
SELECT POSITION('c' IN 'abc')
SELECT SPACE(3), CONCAT('[', SPACE(2), ']')
SELECT ASCII('A'), ASCII(''), ORD('a')
SELECT HEX('abc'), HEX(255)
SELECT LENGTH(HEX(HEX(HEX(HEX(REPEAT('ab', 1500000)))))), LENGTH(HEX(HEX(REPEAT('ab', 1500000))))
SELECT STRCMP('a', 'b'), STRCMP('b', 'a'), STRCMP('a', 'A')
SELECT FIELD('b', 'a', 'b', 'c'), FIELD('z', 'a')
SELECT INSERT('abcdef', 2, 3, 'X')
SELECT ABS(-5), ABS(5), ABS(-1.5), ABS(NULL)
SELECT ABS('-3')
SELECT ROUND(1.5), ROUND(2.5), ROUND(-1.5)
SELECT ROUND(1.2345, 2), ROUND(1.235, 2), ROUND(123.456, -1)
SELECT ROUND(15, -1), ROUND(14, -1)
SELECT ROUND(1.5e0), ROUND(2.5e0)
SELECT TRUNCATE(1.999, 1), TRUNCATE(-1.999, 1), TRUNCATE(123, -1)
SELECT FLOOR(1.5), FLOOR(-1.5), CEIL(1.2), CEILING(-1.2)
SELECT FLOOR(5), CEIL(5)
SELECT FLOOR(1.5e0)
SELECT GREATEST(1, 2, 3), LEAST(1, 2, 3)
SELECT GREATEST('a', 'b'), LEAST('b', 'c')
SELECT GREATEST(1, NULL)
SELECT GREATEST(1, 2.5)
SELECT POW(2, 10), POWER(2, 0.5)
SELECT SQRT(16), SQRT(2), SQRT(-1)
SELECT SIGN(-3), SIGN(0), SIGN(2.5)
SELECT PI()
SELECT EXP(0), LN(1), LOG10(100), LOG2(8)
SELECT IF(1, 'yes', 'no'), IF(0, 'yes', 'no'), IF(NULL, 1, 2)
SELECT IF(1 > 2, 1, 2.5)
SELECT IFNULL(NULL, 'x'), IFNULL('a', 'x')
SELECT IFNULL(1, 2.5)
SELECT NULLIF(1, 1), NULLIF(1, 2)
SELECT COALESCE(NULL, NULL, 3), COALESCE(NULL)
SELECT COALESCE(NULL, 'a', 1)
SELECT ISNULL(NULL), ISNULL(1)
SELECT CASE WHEN 1 THEN 'a' ELSE 'b' END
SELECT CASE WHEN 0 THEN 'a' ELSE 'b' END
SELECT CASE WHEN 0 THEN 'a' END
SELECT CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END
SELECT CASE 'B' WHEN 'a' THEN 1 WHEN 'b' THEN 2 END
SELECT CASE NULL WHEN NULL THEN 1 ELSE 2 END
SELECT CAST(1.7 AS SIGNED), CAST(-1.7 AS SIGNED)
SELECT CAST('12abc' AS SIGNED)
SELECT CAST(-1 AS UNSIGNED)
SELECT CAST(5 AS CHAR)
SELECT CAST('1.256' AS DECIMAL(5,2))
SELECT CAST(1 AS DECIMAL(5,2))
SELECT CAST('2024-01-31' AS DATE)
SELECT CAST('2024-01-31 10:11:12' AS DATETIME)
SELECT CAST('junk' AS DATE)
SELECT CONVERT('5', SIGNED)
SELECT 1 WHERE 1
SELECT 1 WHERE 0
SELECT 1 FROM DUAL WHERE 1 = 1
SELECT 1 FROM DUAL WHERE NULL
SELECT 'x' LIMIT 1
SELECT 'x' LIMIT 0
SELECT 'x' LIMIT 1 OFFSET 1
SELECT 1 + 2 * 3, (1 + 2) * 3
SELECT 2 - 1 - 1, 8 / 2 / 2
SELECT 1 << 3, 16 >> 2, 5 & 3, 5 | 3, 5 ^ 3
SELECT ~0
SELECT ~1
SELECT 1 = 1 = 1
SELECT 3 > 2 > 1
SELECT 'abc' > 'ABC'
SELECT 1 + NULL, NULL * 2, CONCAT(NULL), -NULL
SELECT 1 + 1 AS `sum`, 'x' AS "quoted"
SELECT @@autocommit, @@session.autocommit
SELECT @@global.max_allowed_packet
SELECT @@max_allowed_packet, @@wait_timeout
SELECT @@sql_mode
SELECT @@global.sql_mode
SELECT @@tx_isolation, @@transaction_isolation
SELECT @@character_set_client, @@collation_connection
SELECT @@div_precision_increment
SELECT @@auto_increment_increment
SELECT @@lower_case_table_names
SELECT @@net_write_timeout, @@interactive_timeout
SELECT @@max_error_count
SELECT @@sql_select_limit
SELECT @@unique_checks, @@foreign_key_checks
SELECT @@no_such_variable
SELECT @@session.max_connections
SELECT @@global.warning_count
SELECT @@key_cache_block_size, @@key_cache_division_limit, @@key_cache_age_threshold
SELECT @@query_cache_type
SELECT @unset_user_variable
SELECT nosuchcolumn
SELECT NOSUCHFUNC(1)
SELECT CONCAT()
SELECT SUBSTRING('a')
SELECT 1 +
SELEC 1
SELECT 1 FROM
SELECT * 
SELECT 'abc' = 'abc' AND 2 > 1
SELECT IF('abc', 1, 0)
SELECT IF('1abc', 1, 0)
SELECT 0.5 = '0.5'
SELECT 1e1 = 10
SELECT 100 = '1e2'
SELECT LENGTH(CONCAT('a', REPEAT('b', 100)))
SELECT UPPER(CONCAT('a', 'b'))
SELECT CONCAT(UPPER('a'), LOWER('B'), 1 + 1)
SELECT REPLACE(UPPER('hello world'), 'O', '0')
SELECT ROUND(10 / 3, 2)
SELECT 10 / 3 * 3
SELECT 2 * 0.5 + 1
SELECT 5 - 10
SELECT CAST(5 AS UNSIGNED) - 10
SELECT -9223372036854775807 - 1
SELECT 4611686018427387904 * 2
SELECT 4611686018427387904 * -2
SELECT 123456789 * 987654321
SELECT 1.000 * 1.0
SELECT 3 / 7 * 7
SELECT 1 / 7
SELECT 22 / 7
SELECT 1.5 / 0
SELECT MOD(7, 0)
SELECT 2.0 * 3
SELECT 1 DIV 0.5
SELECT 'a' + 'b'
SELECT '1e2' + 0
SELECT ' 12 ' + 0
SELECT '-5' + 0
SELECT 0x10 + 0
SELECT CHAR_LENGTH(NULL), LOCATE(NULL, 'a')
SELECT LPAD(NULL, 2, 'x'), REPEAT(NULL, 2)
SELECT SUBSTRING(NULL, 1)
SELECT LEFT(NULL, 1)
SELECT GREATEST(2, '10')
SELECT LEAST('2', '10')
SELECT 'Hello' LIKE 'hello'
SELECT 'Hello' LIKE '%LL%'
SELECT '%' LIKE '\%'
SELECT 'abc' LIKE 'abc%%'
SELECT 1 IN (1.0, 2)
SELECT '1' IN (1, 2)
SELECT 'abc' IN (0)
SELECT 1 BETWEEN '0' AND '2'
SELECT 2 BETWEEN 3 AND 1
SELECT COALESCE(1, 1/0)
SELECT IFNULL(1/0, 'div')
SELECT NULLIF('a', 'A')
SELECT CASE WHEN 1/0 IS NULL THEN 'null' END
SELECT 5e-6, 1.5e-5, 1e14, 1e15, 1e20, -2.5e-6
SELECT CONCAT(5e-6, ''), CONCAT(1e15, ''), CONCAT(-0.25e0, '')
SELECT 1.5e-7
SELECT CAST('éé' AS CHAR(1)), CAST(123 AS CHAR(2)), CAST('ab' AS CHAR(0)), CAST('abc' AS CHAR(5)), CAST('abc' AS CHAR)
SELECT 1 /*!32301 +1 */
SELECT 1 /*!952301 +1 */
SELECT 1 /*M!100100 + 2 */, 3 /*!*/
SELECT 1 /*!50000 + 1 */ AS x
SELECT MD5('abc'), MD5(''), MD5(NULL), MD5(123), SHA1('abc'), SHA('abc'), SHA1(NULL)
SELECT SHA2('abc', 224), SHA2('abc', 256), SHA2('abc', 0), SHA2('abc', 384), SHA2('abc', 512)
SELECT SHA2('abc', 100), SHA2(NULL, 256), SHA2('abc', NULL), SHA2('abc', '256')
SELECT SHA2('abc', 'x'), SHA2('abc', 255.6), SHA2('abc', ' 384 '), SHA2('abc', 224.4)
SELECT MD5(_binary 0xff00), SHA1(x'ff00'), MD5('ü'), UPPER(MD5('a')), MD5('a') = MD5('A')
SELECT SUBSTRING_INDEX('www.tcx.se', '.', -2), SUBSTRING_INDEX('www.tcx.se', '.', 1), SUBSTRING_INDEX('www.tcx.se', '.', 0), SUBSTRING_INDEX('www.tcx.se', '.', 5), SUBSTRING_INDEX('www.tcx.se', '.', -5)
SELECT SUBSTRING_INDEX('aXbxc', 'x', 1), SUBSTRING_INDEX('abc', '', 1), SUBSTRING_INDEX(NULL, '.', 1), SUBSTRING_INDEX('a.b', NULL, 1), SUBSTRING_INDEX('a..b..c', '..', -1), SUBSTRING_INDEX('ü.ö.ä', '.', 2)
SELECT FIND_IN_SET('b', 'a,b,c'), FIND_IN_SET('B', 'a,b,c'), FIND_IN_SET('d', 'a,b,c'), FIND_IN_SET('', 'a,,c'), FIND_IN_SET('a,b', 'a,b,c'), FIND_IN_SET(NULL, 'a'), FIND_IN_SET('a', ''), FIND_IN_SET(2, '1,2,3')
SELECT CAST('2002.11.12' AS DATE), CAST('02-11-12' AS DATE), CAST('99/11/12' AS DATE), CAST('20021112' AS DATE), CAST('021112' AS DATE), CAST('2002-011-012' AS DATE)
SELECT CAST('2002/11/12 10.11.12' AS DATETIME), CAST('20021112101112' AS DATETIME), CAST('021112101112' AS DATETIME), CAST('2002.11.12 10:11:12.5' AS DATETIME(1))
SELECT DATE'01-01-01', DATE'2001.02.03', TIMESTAMP'01-01-01 10:11:12', CAST('00-00-00' AS DATE)
SELECT '2002.11.12' = DATE'2002-11-12', DATE'2002-11-12' < '20021113'
SELECT @@note_verbosity, @@global.note_verbosity
-- Variables that steer MariaDB's optimizer: kept and shown, flag sets changed switch by switch.
SET optimizer_switch = 'mrr=on,MRR_cost_based=on'
SELECT @@optimizer_switch
SET optimizer_switch = 'derived_merge=off'
SELECT @@optimizer_switch
SET optimizer_switch = 'default'
SELECT @@optimizer_switch = @@global.optimizer_switch
SET optimizer_switch = 'mrr=maybe'
SET optimizer_switch = 'nosuch=on'
SET optimizer_switch = 'index_merge=off,mrr=default'
SELECT @@optimizer_switch
SET optimizer_switch = DEFAULT
SELECT @@optimizer_switch
SELECT @@join_cache_level, @@optimizer_search_depth, @@optimizer_prune_level, @@optimizer_use_condition_selectivity, @@join_buffer_size, @@join_buffer_space_limit, @@histogram_size, @@in_predicate_conversion_threshold
SELECT @@use_stat_tables, @@histogram_type, @@global.innodb_stats_persistent, @@global.innodb_stats_persistent_sample_pages
SET use_stat_tables = 'never', histogram_type = 'JSON_HB', optimizer_use_condition_selectivity = 1
SELECT @@use_stat_tables, @@histogram_type, @@optimizer_use_condition_selectivity
SET use_stat_tables = DEFAULT, histogram_type = DEFAULT, optimizer_use_condition_selectivity = DEFAULT
SET optimizer_use_condition_selectivity = 9
SHOW WARNINGS
SET optimizer_use_condition_selectivity = DEFAULT
-- SET timestamp fixes the session's clock.
SET timestamp = 1000000000
SELECT NOW(), UNIX_TIMESTAMP(), CURDATE(), CURRENT_TIMESTAMP
SELECT @@timestamp
SET timestamp = DEFAULT
SELECT @@timestamp > 1700000000, NOW() > '2020-01-01'
SET GLOBAL timestamp = 5
SET timestamp = 0
SELECT UNIX_TIMESTAMP() > 1700000000
