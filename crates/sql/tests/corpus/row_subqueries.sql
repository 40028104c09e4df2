-- Rows compared with subqueries: (a, b) [NOT] IN (SELECT x, y ...), (a, b) op (SELECT x, y ...)
-- correlated or not, with NULLs; column-count mismatches (1241), more than one row (1242), a
-- row against a one-column subquery (4078).
DROP DATABASE IF EXISTS rsq
CREATE DATABASE rsq
USE rsq
create table t1 (a int, b varchar(5), c int)
insert into t1 values (1,'x',1),(1,'X',2),(2,'y',3),(null,'z',4),(3,null,5),(4,'w',6)
create table t2 (x int, y varchar(5))
insert into t2 values (1,'x'),(2,'q'),(null,'z'),(3,null)
select c, (a,b) in (select x,y from t2) from t1 order by c
select c, (a,b) not in (select x,y from t2) from t1 order by c
select c from t1 where (a,b) in (select x,y from t2) order by c
select c from t1 where (a,b) not in (select x,y from t2) order by c
select c from t1 where row(a,b) in (select x,y from t2 where x > 1) order by c
select c from t1 where (a,b) not in (select x,y from t2 where x is not null and y is not null) order by c
select c, (a,b) in (select x,y from t2 where t2.x = t1.c) from t1 order by c
select c, (a,b) = (select x,y from t2 where x = t1.a) from t1 order by c
select c, (a,b) <=> (select x,y from t2 where x = t1.a) from t1 order by c
select c, (a,b) <> (select x,y from t2 where x = t1.a) from t1 order by c
select c, (a,c) < (select 2, 3) from t1 order by c
select c, (a,c) >= (select 2, 3) from t1 order by c
select c, (select 2, 3) > (a,c) from t1 order by c
select c from t1 where (a,b) = (select x,y from t2 where x = 2 or y = 'x' limit 1) order by c
select (1,'x') in (select x,y from t2 where 0), (null,null) in (select x,y from t2 where 0), (null,null) not in (select x,y from t2 where 0)
select (null,'x') in (select x,y from t2), (5,'x') in (select x,y from t2), (null,'w') in (select 1,'x')
select (1,'X') in (select x,y from t2), (3,'a') in (select x,y from t2), (3,'a') not in (select x,y from t2)
select (1,2) in (select 1,2 union select 3,4), (3,4) in (select 1,2 union select 3,4), (5,6) in (select 1,2 union select 3,4)
select row(1,2) < (select 1,3), row(1,null) < (select 1,3), row(1,null) <=> (select 1,null)
select row(1,2) <=> (select 1,2 from t2 where 0), row(1,2) = (select 1,2 from t2 where 0), row(1,2) <> (select 1,2 from t2 where 0)
select (select 1,2) = (1,2), (select 1,3) < row(1,2)
select count(*) from t1 where (a,c) in (select x, x from t2)
select (1,2) = (select x,y from t2)
select (1,2) = (select 1,2 union select 3,4)
select (1,2) in (select x from t2)
select (1,2,3) in (select x,y from t2)
select (1,2) = (select x from t2 limit 1)
select (1,2) = (select 1,2,3)
select 1 in (select x,y from t2)
select (1,'x') in (select x,y from t2 limit 2)
select 1 in (select x from t2 limit 1)
select 1 not in (select x from t2 order by x limit 1)
select (1,2) = any (select 1,2)
select (select 1,2) = (select 1,2)
CREATE TABLE p1 (one int, two int, flag char(1))
CREATE TABLE p2 (one int, two int, flag char(1))
INSERT INTO p1 VALUES (1,2,'Y'),(2,3,'Y'),(3,4,'Y'),(5,6,'N'),(7,8,'N'),(10,3,'0'),(10,5,'0'),(10,10,'0')
INSERT INTO p2 VALUES (1,2,'Y'),(2,3,'Y'),(3,4,'Y'),(5,6,'N'),(7,8,'N'),(null,null,'N'),(null,3,'0'),(null,5,'0'),(10,null,'0')
SELECT one,two,ROW(one,two) IN (SELECT one,two FROM p2 WHERE flag = 'N') as 'test' from p1 order by one, two
SELECT one,two from p1 where ROW(one,two) IN (SELECT one,two FROM p2 WHERE flag = 'N') order by one, two
SELECT one,two,ROW(one,two) IN (SELECT one,two FROM p2 WHERE flag = '0' group by one,two) as 'test' from p1 order by one, two
SELECT one,two,ROW(one,two) NOT IN (SELECT one,two FROM p2 WHERE flag = '0') as 'test' from p1 order by one, two
SELECT * FROM p1 WHERE ROW(one,two) IN (SELECT DISTINCT one,two FROM p1 WHERE flag = 'N') order by one
DROP DATABASE rsq
