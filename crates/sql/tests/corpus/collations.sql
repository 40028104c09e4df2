-- Collations: every comparison, grouping, DISTINCT, sort, MIN/MAX and lookup uses the
-- collation MariaDB derives for it: utf8mb4_general_ci ignores case and trailing
-- spaces, utf8mb4_bin compares code points (trailing spaces still ignored), binary
-- strings (VARBINARY, BLOB, X'..', _binary, BINARY x) compare bytes. A column beats a
-- literal, an explicit COLLATE beats a column, and two explicit collations conflict.
SET NAMES utf8mb4
DROP DATABASE IF EXISTS coll
CREATE DATABASE coll
USE coll
CREATE TABLE strs (id INT PRIMARY KEY, ci VARCHAR(10), cb VARCHAR(10) COLLATE utf8mb4_bin, vb VARBINARY(10), bl BLOB, tx TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, ch CHAR(4) COLLATE utf8_bin)
INSERT INTO strs VALUES (1,'a','a','a','a','a','a'),(2,'B','B','B','B','B','B'),(3,'A','A','A','A','A','A'),(4,'b','b','b','b','b','b'),(5,'a ','a ','a ','a ','a ','a '),(6,'é','é','é','é','é','é'),(7,'E','E','E','E','E','E')
SHOW CREATE TABLE strs
SHOW FULL COLUMNS FROM strs
SELECT id FROM strs WHERE ci = 'A' ORDER BY id
SELECT id FROM strs WHERE cb = 'A' ORDER BY id
SELECT id FROM strs WHERE cb = 'a' ORDER BY id
SELECT id FROM strs WHERE vb = 'A' ORDER BY id
SELECT id FROM strs WHERE vb = 'a' ORDER BY id
SELECT id FROM strs WHERE bl = 'a' ORDER BY id
SELECT id FROM strs WHERE tx = 'a' ORDER BY id
SELECT id FROM strs WHERE ch = 'a' ORDER BY id
SELECT id FROM strs WHERE ci = 'e' ORDER BY id
SELECT id FROM strs WHERE cb = 'e' ORDER BY id
SELECT id FROM strs WHERE cb <> 'a' ORDER BY id
SELECT id FROM strs WHERE cb > 'Z' ORDER BY id
SELECT id FROM strs WHERE vb < 'a' ORDER BY id
SELECT id FROM strs WHERE cb <=> 'A' ORDER BY id
SELECT cb, COUNT(*) FROM strs GROUP BY cb ORDER BY cb
SELECT ci, COUNT(*) FROM strs GROUP BY ci ORDER BY ci
SELECT HEX(vb), COUNT(*) FROM strs GROUP BY vb ORDER BY vb
SELECT tx, COUNT(*) FROM strs GROUP BY tx ORDER BY tx
SELECT DISTINCT cb FROM strs ORDER BY cb
SELECT DISTINCT HEX(vb) FROM strs ORDER BY 1
SELECT DISTINCT ci FROM strs ORDER BY ci
SELECT COUNT(DISTINCT cb), COUNT(DISTINCT ci), COUNT(DISTINCT vb), COUNT(DISTINCT bl) FROM strs
SELECT MIN(cb), MAX(cb), MIN(ci), MAX(ci), HEX(MIN(vb)), HEX(MAX(vb)) FROM strs
SELECT id FROM strs ORDER BY vb, id
SELECT id FROM strs ORDER BY cb DESC, id
SELECT id FROM strs ORDER BY ci, id
SELECT id FROM strs ORDER BY bl DESC, id
SELECT id FROM strs WHERE cb IN ('a', 'x') ORDER BY id
SELECT id FROM strs WHERE cb IN ('a', 'b', 'c', 'd', 'f', 'g', 'h', 'i', 'j') ORDER BY id
SELECT id FROM strs WHERE vb NOT IN ('a', 'b', 'c', 'd', 'f', 'g', 'h', 'i', 'j') ORDER BY id
SELECT id FROM strs WHERE cb BETWEEN 'B' AND 'a' ORDER BY id
SELECT id FROM strs WHERE ci BETWEEN 'B' AND 'a' ORDER BY id
SELECT id FROM strs WHERE cb LIKE 'a%' ORDER BY id
SELECT id FROM strs WHERE vb LIKE 'a%' ORDER BY id
SELECT id FROM strs WHERE ci LIKE 'a%' ORDER BY id
SELECT id FROM strs WHERE ci LIKE 'e' ORDER BY id
SELECT id FROM strs WHERE cb LIKE 'e' ORDER BY id
SELECT id FROM strs WHERE ci COLLATE utf8mb4_bin = 'a' ORDER BY id
SELECT id FROM strs WHERE cb = 'A' COLLATE utf8mb4_general_ci ORDER BY id
SELECT id FROM strs WHERE cb COLLATE utf8mb4_general_ci = 'E' ORDER BY id
SELECT id FROM strs WHERE ci = cb ORDER BY id
SELECT id FROM strs WHERE BINARY ci = 'a' ORDER BY id
SELECT id FROM strs WHERE CAST(ci AS BINARY) = 'a' ORDER BY id
SELECT id FROM strs WHERE CONVERT(ci USING binary) = 'a' ORDER BY id
SELECT 'a' = 'A', BINARY 'a' = 'A', 'a' = _binary'A', X'61' = 'A', CAST('a' AS BINARY) = 'A', 'a' COLLATE utf8mb4_bin = 'A'
SELECT STRCMP(cb, 'A'), STRCMP(ci, 'A'), NULLIF(vb, 'A') IS NULL, LOCATE('A', cb), LOCATE('A', ci), UPPER(vb), LOWER(vb), FIELD(cb, 'A', 'a') FROM strs WHERE id = 1
SELECT id, CHAR_LENGTH(vb), CHAR_LENGTH(ci), HEX(SUBSTRING(vb, 1, 1)), SUBSTRING(ci, 1, 1), HEX(LEFT(bl, 1)), HEX(REVERSE(vb)), LOCATE('a', CONCAT(vb, 'a')), HEX(CONCAT(ci, vb)), HEX(RPAD(vb, 3, 'x')) FROM strs WHERE id IN (1, 6) ORDER BY id
SELECT GREATEST(cb, 'B'), LEAST(vb, 'B'), GREATEST(ci, 'B') FROM strs WHERE id = 1
SELECT CASE cb WHEN 'A' THEN 'upper' WHEN 'a' THEN 'lower' ELSE 'other' END FROM strs ORDER BY id
SELECT id FROM strs WHERE CONCAT(cb, '') = 'A' ORDER BY id
SELECT id FROM strs WHERE CONCAT(ci, '') = 'A' ORDER BY id
SELECT id FROM strs WHERE (SELECT cb FROM strs WHERE id = 1) = cb ORDER BY id
SELECT id FROM strs WHERE 'A' IN (SELECT cb FROM strs WHERE id < 3) ORDER BY id
SELECT ci COLLATE utf8mb4_bin = cb COLLATE utf8mb4_general_ci FROM strs
SELECT 'a' COLLATE utf8mb4_bin IN ('A' COLLATE utf8mb4_general_ci, 'b')
SELECT 'a' COLLATE latin1_swedish_ci
SELECT 'a' COLLATE nonsense
CREATE TABLE t2 (a VARCHAR(5), b VARCHAR(5) COLLATE utf8mb4_general_ci) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
SHOW CREATE TABLE t2
INSERT INTO t2 VALUES ('x', 'x'), ('X', 'X')
SELECT COUNT(*) FROM t2 WHERE a = 'x'
SELECT COUNT(*) FROM t2 WHERE b = 'x'
CREATE TABLE t3 (a VARCHAR(5) CHARACTER SET binary, b TEXT CHARACTER SET binary)
SHOW CREATE TABLE t3
CREATE TABLE t4 (a VARCHAR(5) CHARACTER SET binary COLLATE utf8mb4_bin)
CREATE TABLE k (id INT PRIMARY KEY, cb VARCHAR(10) COLLATE utf8mb4_bin, vb VARBINARY(10), ci VARCHAR(10), KEY (cb), KEY (vb), KEY (ci))
INSERT INTO k VALUES (1, 'a', 'a', 'a'), (2, 'A', 'A', 'A'), (3, 'a ', 'a ', 'a '), (4, 'b', 'b', 'b')
SELECT id FROM k WHERE cb = 'a' ORDER BY id
SELECT id FROM k WHERE vb = 'a' ORDER BY id
SELECT id FROM k WHERE ci = 'a' ORDER BY id
SELECT id FROM k WHERE cb = 'a' COLLATE utf8mb4_general_ci ORDER BY id
SELECT id FROM k WHERE ci = 'A' COLLATE utf8mb4_bin ORDER BY id
SELECT id FROM k WHERE cb IN ('a', 'b') ORDER BY id
SELECT id FROM k WHERE vb BETWEEN 'a' AND 'b' ORDER BY id
SELECT k1.id, k2.id FROM k k1 JOIN k k2 ON k1.ci = k2.cb ORDER BY k1.id, k2.id
SELECT k1.id, k2.id FROM k k1 JOIN k k2 ON k1.cb = k2.ci ORDER BY k1.id, k2.id
SELECT cb FROM k ORDER BY cb, id
DROP DATABASE IF EXISTS coll_bin
DROP DATABASE IF EXISTS coll_bytes
CREATE DATABASE coll_bin COLLATE utf8mb4_bin
CREATE DATABASE coll_bytes DEFAULT CHARACTER SET = binary
SHOW CREATE DATABASE coll_bin
SHOW CREATE DATABASE coll_bytes
CREATE TABLE coll_bin.t (a VARCHAR(5), b VARCHAR(5) COLLATE utf8mb4_general_ci)
SHOW CREATE TABLE coll_bin.t
INSERT INTO coll_bin.t VALUES ('x', 'x'), ('X', 'X')
SELECT COUNT(*), COUNT(DISTINCT a), COUNT(DISTINCT b) FROM coll_bin.t
CREATE TABLE coll_bin.u (a VARCHAR(5)) DEFAULT CHARSET=utf8mb4
SHOW CREATE TABLE coll_bin.u
CREATE TABLE coll_bytes.t (a VARCHAR(5), b TEXT)
SHOW CREATE TABLE coll_bytes.t
CREATE DATABASE coll_never COLLATE nonsense
DROP DATABASE coll_bin
DROP DATABASE coll_bytes
DROP DATABASE coll
