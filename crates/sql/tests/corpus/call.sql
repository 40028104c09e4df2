-- CALL: no stored procedure exists (myriad has none), so CALL answers 1305 naming the
-- procedure with its database (the current one when the name has none; 1046 without one);
-- the arguments are read first (1054 for an unknown column, 1064 for bad syntax).
CALL p()
CALL p
CALL mtr.add_suppression('InnoDB: Trying to delete tablespace.*pending operations')
CALL no_such_db.p()
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
DROP DATABASE callt
