-- Stored routines: myriad has none, so none exists. CALL answers 1305 naming the
-- procedure with its database (the current one when the name has none; 1046 without one),
-- after reading its arguments (1054 for an unknown column, 1064 for bad syntax); DROP
-- PROCEDURE / FUNCTION answers 1305, a note under IF EXISTS.
CALL p()
CALL p
CALL mtr.add_suppression('InnoDB: Trying to delete tablespace.*pending operations')
CALL no_such_db.p()
DROP PROCEDURE IF EXISTS p
DROP PROCEDURE IF EXISTS no_such_db.p
SHOW WARNINGS
DROP FUNCTION IF EXISTS no_such_db.f
SHOW WARNINGS
DROP DATABASE IF EXISTS callt
CREATE DATABASE callt
USE callt
CALL p()
CALL p
CALL P(1, 'a', 2 + 3, (SELECT 1))
CALL callt.p(NULL)
CALL p(no_such_column)
CALL p(1,)
CALL p(
CALL p) 
CALL
CALL p() x
SET STATEMENT group_concat_max_len = 2000 FOR CALL p()
DROP PROCEDURE IF EXISTS p
SHOW WARNINGS
DROP PROCEDURE IF EXISTS callt.p
DROP FUNCTION IF EXISTS f
SHOW WARNINGS
DROP PROCEDURE p
DROP FUNCTION f
DROP FUNCTION no_such_db.f
DROP PROCEDURE IF EXISTS x.y.z
DROP PROCEDURE
DROP PROCEDURE IF p
DROP PROCEDURE p q
DROP DATABASE callt
