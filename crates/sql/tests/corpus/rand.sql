-- RAND(N): MariaDB's generator, so seeded sequences agree number for number. A constant N
-- (a literal, an expression of literals, a user variable) seeds one sequence per call per
-- statement; an N that reads the row seeds afresh per row. RAND() without a seed is
-- checked by its range only.
DROP DATABASE IF EXISTS rand_fn
CREATE DATABASE rand_fn
USE rand_fn
CREATE TABLE t (a INT PRIMARY KEY)
INSERT INTO t VALUES (1), (2), (3)
SELECT RAND(1), RAND(2), RAND(100), RAND(-1), RAND(0), RAND(1.6), RAND('5'), RAND(NULL)
SELECT RAND(18446744073709551615)
SELECT RAND(7), RAND(7)
SELECT a, RAND(7) FROM t ORDER BY a
SET @s = 7
SELECT a, RAND(@s), RAND(1 + 6), RAND(a) FROM t ORDER BY a
SELECT ROUND(RAND(100) * 10)
SELECT RAND() BETWEEN 0 AND 1, RAND() < 1
SELECT COUNT(*) FROM t WHERE RAND() < 2
SELECT a FROM t WHERE a = RAND(3) * 0 + a ORDER BY a
SELECT a FROM t WHERE RAND(a) < 0.5 ORDER BY a
SELECT a FROM t ORDER BY RAND(5)
SELECT FLOOR(RAND(9) * 100) AS x FROM t ORDER BY x
CREATE TABLE rand_ctas AS SELECT RAND(1) AS x
SHOW CREATE TABLE rand_ctas
SELECT * FROM rand_ctas
INSERT INTO t SELECT FLOOR(RAND(4) * 1000) + 10 FROM t
SELECT a FROM t ORDER BY a
SELECT RAND(1, 2)
DROP DATABASE rand_fn
