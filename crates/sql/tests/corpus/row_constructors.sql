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
DROP DATABASE rw
