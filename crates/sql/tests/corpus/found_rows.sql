-- FOUND_ROWS(): the rows of the last result set, or with SELECT SQL_CALC_FOUND_ROWS the rows
-- its query found before LIMIT (ORDER BY, OFFSET, GROUP BY, DISTINCT, derived tables, no rows).
DROP DATABASE IF EXISTS fr
CREATE DATABASE fr
USE fr
create table t (a int primary key, b int, s varchar(10))
create table u (a int, c int, s varchar(10))
insert into t values (1,1,'x'),(3,3,NULL),(4,NULL,'y'),(5,1,'x'),(6,2,'z')
insert into u values (1,5,'X'),(1,7,'y'),(3,0,'y'),(NULL,9,'x'),(4,NULL,NULL),(9,9,'q')
select found_rows()
select sql_calc_found_rows a from t limit 1
select found_rows()
select a from t limit 2
select found_rows()
select found_rows()
insert into u values (9,9,'q')
select found_rows()
update u set c = c where a = 9
select found_rows()
select sql_calc_found_rows a from t where a > 1 order by a desc limit 1 offset 1
select found_rows()
select sql_calc_found_rows b, count(*) from t group by b limit 1
select found_rows()
select sql_calc_found_rows distinct s from u limit 1
select found_rows()
select a from t where a > 100
select found_rows()
show tables
select found_rows()
select sql_calc_found_rows * from (select a from t) x limit 0
select found_rows()
select sql_calc_found_rows 1
select found_rows()
select found_rows()
select sql_calc_found_rows a from t order by a limit 2, 2
select found_rows()
select sql_calc_found_rows a from t where b = 1 limit 1
select found_rows()
select sql_calc_found_rows * from t where a > 100 limit 1
select found_rows()
select sql_calc_found_rows t.a, u.c from t join u on u.a = t.a order by t.a, u.c limit 1
select found_rows()
select sql_calc_found_rows a, (select count(*) from u where u.a = t.a) from t order by a desc limit 1
select found_rows()
select sql_calc_found_rows a from t limit 0
select found_rows()
select a from (select sql_calc_found_rows a from t limit 1) x
select a from t where a in (select sql_calc_found_rows a from u)
select found_rows() + 1, found_rows()
create table t2 (a int)
create table u2 (c int)
insert into t2 values (1),(3),(5)
insert into u2 values (1),(2),(9),(9),(NULL)
select sql_calc_found_rows a from t2 union select c from u2 limit 2
select found_rows()
(select sql_calc_found_rows a from t2 limit 1) union all (select c from u2) limit 2
select found_rows()
(select sql_calc_found_rows a from t2 limit 1) union all (select c from u2)
select found_rows()
select a from t2 union select sql_calc_found_rows c from u2 limit 1
select found_rows()
select sql_calc_found_rows a from t2 union all select c from u2 order by 1 desc limit 1, 2
select found_rows()
select sql_calc_found_rows a from t2 union all select c from u2 limit 0
select found_rows()
DROP DATABASE fr
