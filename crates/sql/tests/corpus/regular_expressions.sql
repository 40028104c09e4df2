-- REGEXP / RLIKE / NOT REGEXP, REGEXP_INSTR, REGEXP_SUBSTR and REGEXP_REPLACE: matches
-- ignoring case under a _ci collation and counting it for binary strings and _bin
-- collations, NULLs, character positions, `\N` groups in replacements, the result types
-- of CREATE TABLE ... SELECT, and error 1139 for a pattern that does not compile.
DROP DATABASE IF EXISTS rx
CREATE DATABASE rx
USE rx
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), b VARCHAR(20) COLLATE utf8mb4_bin)
INSERT INTO t VALUES (1, 'First row', 'First'), (2, 'second', 'SECOND'), (3, NULL, 'x'), (4, 'aébc', 'é')
SELECT id FROM t WHERE v REGEXP '^f' ORDER BY id
SELECT id FROM t WHERE b REGEXP '^f' ORDER BY id
SELECT id FROM t WHERE v RLIKE 'ROW$' ORDER BY id
SELECT id FROM t WHERE v NOT REGEXP 'o' ORDER BY id
SELECT id, v REGEXP '[[:digit:]]', v REGEXP '[[:alpha:]]+', v REGEXP 'b.c' FROM t ORDER BY id
SELECT id FROM t WHERE CONCAT(v, ' ', b) REGEXP 'First.*' ORDER BY id
SELECT 'ABC' REGEXP 'abc', BINARY 'ABC' REGEXP 'abc', 'abc' RLIKE '^a', 'abc' NOT REGEXP 'z'
SELECT NULL REGEXP 'a', 'a\nb' REGEXP 'a.b', 'a|b' REGEXP 'a\\|b'
SELECT 'abcabc' REGEXP '(abc){2}', 'aaa' REGEXP '^a{2,3}$', 'x' REGEXP '^(a|b|x)$'
SELECT REGEXP_INSTR('aébc', 'b'), REGEXP_INSTR('abc', 'z'), REGEXP_INSTR(NULL, 'a'), REGEXP_INSTR('ABC', 'b')
SELECT REGEXP_SUBSTR('abc', 'x'), REGEXP_SUBSTR(NULL, 'x'), REGEXP_SUBSTR('abc123def', '[0-9]+'), REGEXP_SUBSTR('ABC', 'b')
SELECT REGEXP_REPLACE('abcabc', '(b)(c)', '<\\2\\1>'), REGEXP_REPLACE('abc', 'b', '$1'), REGEXP_REPLACE('a b  c', ' +', '_'), REGEXP_REPLACE('ABC', 'b', 'x')
SELECT id, REGEXP_REPLACE(v, '[aeiou]', ''), REGEXP_SUBSTR(v, '[a-z]+'), REGEXP_INSTR(v, 'o') FROM t ORDER BY id
CREATE TABLE rx_ctas AS SELECT v REGEXP 'a' AS a, REGEXP_INSTR(v, 'a') AS i, REGEXP_SUBSTR(v, 'a') AS s FROM t
SHOW CREATE TABLE rx_ctas
SELECT 'abc' REGEXP '('
SELECT REGEXP_REPLACE('abc', '[', 'x')
SELECT REGEXP_INSTR('abc')
DROP DATABASE rx
SELECT 'x' REGEXP NULL, 'x' RLIKE NULL, 'x' NOT REGEXP NULL, 'x' NOT RLIKE NULL
SELECT 'x' REGEXP NULL IS NULL, NULL REGEXP NULL, 'a' IS NOT NULL AND 'a' REGEXP 'a'
