-- Row constructors compared as rows: (a, b) = (1, 2), <>, <, <=, >, >=, <=>, [NOT] IN lists of rows,
-- with NULLs, over columns; width mismatches (1241) and rows against values (4078).
select (1,2) = (1,2), (1,2) = (1,3), (1,null) = (1,2), (1,null) = (2,2), (1,2) <> (1,3), (1,null) <> (1,2)
select (1,2) < (1,3), (1,2) < (2,0), (2,0) < (1,9), (1,null) < (1,2), (null,1) < (2,2), (1,2) <= (1,2), (1,2) > (1,1), (1,2) >= (1,3)
select (1,2) <=> (1,2), (1,null) <=> (1,null), (1,null) <=> (1,2)
select (1,2) in ((1,2),(3,4)), (1,5) in ((1,2),(3,4)), (1,null) in ((1,2),(3,4)), (1,null) in ((2,2),(3,4)), (1,2) not in ((1,2)), (1,null) not in ((1,2))
select (1,2,3) = (1,2,3), ((1,2)) = ((1,2))
select (1,2) = 1
select 1 = (1,2)
select (1,2) = (1,2,3)
select (1,2) in ((1,2),(3,4,5))
select (1,2) in (1, 2)
DROP DATABASE IF EXISTS rw
CREATE DATABASE rw
USE rw
create table t (a int, b varchar(5), c int)
insert into t values (1,'x',1),(1,'X',2),(2,'y',3),(null,'z',4),(3,null,5)
select c from t where (a,b) = (1,'x') order by c
select c from t where (a,b) in ((1,'x'),(2,'y'),(3,null)) order by c
select c from t where (a,b) not in ((1,'x'),(2,'y')) order by c
select c from t where (a,c) > (1,1) order by c
select c, (a,b) = (1,'X') from t order by c
select (1,2) + 1
select c from t where row(a,c) in (row(1,1),row(2,3)) order by c
select c, row(a,b) = row(1,'X'), row(a,c) < (1,2) from t order by c
select a, max(c), (1, max(c)) = (1, 4), row(a, count(*)) in ((1, 2), (2, 1)) from t group by a order by a
select a from t group by a having (a, count(*)) = (1, 2)
select c from t where (b, c) in (('x', 1), (2, 3)) order by c
select row(1,2) in ((1,2), (select 1,2))
DROP DATABASE rw
select row(10,2,3) IN (row(3,2,3), row(1,2,3), row(1,3,3))
select row(1,2,row(3,4)) IN (row(3,2,row(3,4)), row(1,2,row(3,NULL)))
select row(1,2,row(3,4)) = row(1,2,row(3,4)), row(1,2) = (1,2), row(1,null) <=> row(1,null), row(1,2) < row(1,3)
select row(1,2) in (row(1,2), (1,3))
select row('b',1.5,3) IN (row(3,NULL,3), row('a',1.5,3), row(1,3,3))
select row('b',1.5,3) IN (row('b',NULL,4), row('a',1.5,3), row(1,3,3))
select row('b',1.5,3) IN (row('b',NULL,4), row('b',1.5,3))
select row('a',1.5,3) IN (row(1,2,3), row('a',1.5,3), row('a','a','a'))
select row('a',0,3) IN (row(3,2,3), row('a','a','3'), row(1,3,3))
select row('a',1.5,3) IN (row(3,NULL,3), row('a',1.5,3), row(1,3,3))
select ROW(1,1) | 1
select 1 & ROW(1,1)
select ROW(1,1) << 1
select 1 >> ROW(1,1)
select ~ROW(1,1)
select ROW(1,1) ^ 1
select ROW(1,1) + 1
select 1 - ROW(1,1)
select ROW(1,1) * 1
select ROW(1,1) % 1
select ROW(1,1) DIV 1
select ROW(1,1) AND 1
select 1 OR ROW(1,1)
select ROW(1,1) XOR 1
select ROW(1,1)
select (1,1)
select ROW(1)
select ROW(1) = 1
select NOT ROW(1,1)
select -ROW(1,1)
select ROW(1,1) IS NULL
select ROW(1,1) LIKE 'a'
select ROW(1,1) BETWEEN 1 AND 2
select CONCAT(ROW(1,1))
select UPPER((1,1))
select WEEK(ROW(1,1))
select WEEK(1,ROW(1,1))
select LENGTH(ROW(1,1))
select CHAR_LENGTH(ROW(1,1))
select SIGN((1,1))
select STRCMP('',ROW(1,1))
select LOCATE('a','a',ROW(1,1))
select TO_DAYS(ROW(1,1))
select SQRT(ROW(1,1))
select ABS(ROW(1,1))
select CAST(ROW(1,1) AS CHAR)
select IF(ROW(1,1),1,2)
select COALESCE(ROW(1,1))
select 1 IN (ROW(1,1), 1)
select 1 IN (ROW(1,1))
select ROW(1,1) IN (1)
select ROW(1,1) IN (1,2)
select ROW(1,1) = 'a'
select ROW(1,1) <=> NULL
select ROW(1,1) = (1,1,1)
select ROW(ROW(1,1),1) = (1,1)
select (1,ROW(1,1)) = (1,1)
select (1,1) = (1,ROW(1,1))
select (ROW(1,1),1) = (ROW(1,1,1),1)
select (1,2) IN ((1,(2,3)))
