-- Data fidelity: binary strings keep every byte, utf8mb4 columns refuse invalid UTF-8.
-- Runs in one session on each server; SELECTs without ORDER BY compare as multisets.
DROP DATABASE IF EXISTS fidelity
CREATE DATABASE fidelity
USE fidelity
CREATE TABLE b (id INT PRIMARY KEY, v VARBINARY(300), bl BLOB, bi BINARY(4))
SHOW CREATE TABLE b
DESCRIBE b
INSERT INTO b VALUES (1, 'a\0b\\c\'d\Ze', x'00FF80C3', _binary'\xff')
INSERT INTO b VALUES (2, x'FF00FE', x'C328', x'01')
INSERT INTO b VALUES (3, _binary x'FF80', _binary'\0', _utf8mb4'ab')
INSERT INTO b VALUES (4, 'x', 'y', 'abcde')
INSERT INTO b VALUES (5, x'00', x'', x'0000000000')
SELECT id, HEX(v), HEX(bi), LENGTH(v), LENGTH(bi), LENGTH(bl) FROM b ORDER BY id
SELECT id, HEX(bl) FROM b ORDER BY id
SELECT id FROM b WHERE v = x'FF00FE'
SELECT id FROM b WHERE bl = x'C328'
SELECT x'FF' = x'FE', x'FF' = x'FF', x'C328' = x'C329', x'FF' < x'FE'
SELECT HEX(CONCAT(x'FF', x'FE')), LENGTH(x'FF00FF'), HEX(_binary'\0\n')
CREATE TABLE bb (a BINARY(256))
CREATE TABLE bv (a VARBINARY(70000))
CREATE TABLE s (id INT, c VARCHAR(20), x TEXT, h CHAR(5))
INSERT INTO s (id, c) VALUES (1, x'FF41')
INSERT INTO s (id, x) VALUES (2, x'41F09F9880FF414243444546474849')
INSERT INTO s (id, x) VALUES (3, CONCAT('abc', x'E282', 'xyzxyz'))
INSERT INTO s (id, h) VALUES (4, x'C328')
INSERT INTO s (id, c) VALUES (5, _binary'\xff')
INSERT INTO s (id, c, x, h) VALUES (6, x'C3BF', x'F09F9880', x'E282AC')
SELECT id, c, x, h, HEX(c) FROM s
UPDATE s SET c = x'80' WHERE id = 6
SELECT id, HEX(c) FROM s
