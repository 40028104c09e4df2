-- JOIN ... USING (c, ...) and NATURAL [LEFT] JOIN: equal columns joined, shown once and
-- first by `*`, an unqualified name resolving to the left copy, `t.*` showing all of t,
-- chains of joins (the coalesced column of the left side joins on), a comma item apart
-- from the joins after it, and MariaDB's errors for unknown (1054) and ambiguous (1052)
-- columns.
DROP DATABASE IF EXISTS join_using
CREATE DATABASE join_using
USE join_using
CREATE TABLE t1 (a INT, b INT, c INT)
CREATE TABLE t2 (b INT, c INT, d INT)
CREATE TABLE t3 (c INT, e INT, a INT)
CREATE TABLE t4 (B INT, x VARCHAR(10))
INSERT INTO t1 VALUES (1,2,3),(4,5,6),(7,8,9),(NULL,NULL,NULL)
INSERT INTO t2 VALUES (2,3,10),(5,0,11),(20,9,12),(NULL,1,13)
INSERT INTO t3 VALUES (3,100,1),(9,200,7),(6,300,4)
INSERT INTO t4 VALUES (2,'two'),(5,'five'),(5,'cinq')
SELECT * FROM t1 JOIN t2 USING (b)
SELECT * FROM t1 JOIN t2 USING (b, c)
SELECT * FROM t1 JOIN t2 USING (c, b)
SELECT * FROM t1 NATURAL JOIN t2
SELECT * FROM t1 LEFT JOIN t2 USING (b)
SELECT * FROM t1 NATURAL LEFT JOIN t3
SELECT t2.*, t1.* FROM t1 JOIN t2 USING (b)
SELECT b, t1.b, t2.b FROM t1 LEFT JOIN t2 USING (b)
SELECT b FROM t1 JOIN t2 USING (b) WHERE b > 1 ORDER BY b DESC
SELECT b, COUNT(*) FROM t1 JOIN t4 USING (b) GROUP BY b ORDER BY b
SELECT * FROM t1 JOIN t4 USING (b) ORDER BY x
SELECT * FROM t1 NATURAL JOIN t2 NATURAL JOIN t3
SELECT * FROM t1, t2 NATURAL JOIN t3
SELECT * FROM t1 JOIN t2 USING (b) JOIN t3 USING (c)
SELECT * FROM t1 JOIN t2 ON t1.b = t2.b JOIN t3 USING (c)
SELECT * FROM t1 JOIN t2 USING (zz)
SELECT * FROM t1 JOIN t2 USING (a)
SELECT c FROM t1 JOIN t2 USING (b)
SELECT COUNT(*) FROM t1 NATURAL JOIN t4
SELECT * FROM t1 NATURAL JOIN (SELECT b, d FROM t2) AS s
SELECT * FROM (SELECT a, b FROM t1) AS l JOIN (SELECT b, d FROM t2) AS r USING (b)
SELECT * FROM t1 JOIN t2 USING (b) WHERE d = 11
SELECT b, a FROM t1 JOIN t2 USING (b) ORDER BY a
DROP DATABASE join_using
