-- Aggregates, GROUP BY and HAVING in queries without tables: MariaDB groups one row.
SELECT COUNT(*)
SELECT SUM(1), MAX(5), MIN('a'), AVG(2)
SELECT COUNT(*) FROM DUAL
SELECT COUNT(*) WHERE 0
SELECT SUM(1), MAX(5), MIN('a'), AVG(2), COUNT(*) WHERE 1 = 0
SELECT COUNT(*) HAVING COUNT(*) > 1
SELECT COUNT(*) HAVING COUNT(*) = 1
SELECT COUNT(*) AS n HAVING n = 1
SELECT 1 HAVING 1
SELECT 1 HAVING 0
SELECT 1 GROUP BY 1
SELECT 1 AS a, 2 AS b GROUP BY a, b
SELECT COUNT(*) GROUP BY 1
select sum(distinct(if(1,1,2)))
select sum(distinct 1), count(distinct 1), count(distinct null), avg(distinct 4)
SELECT COUNT(NULL), SUM(NULL), MAX(NULL), MIN(NULL)
SELECT GROUP_CONCAT('a','b'), GROUP_CONCAT(1 ORDER BY 1 SEPARATOR ';')
SELECT COUNT(*) + 1 AS x ORDER BY x
SELECT COUNT(*), 5, 'a', NULL
SELECT SUM(1.5), MAX(1.5), MIN(2e0), SUM('3')
SELECT COUNT(*) LIMIT 0
SELECT COUNT(*), COUNT(*) FROM DUAL WHERE 1 HAVING COUNT(*) > 0
SELECT *, COUNT(*)
SELECT COUNT(*), a
SELECT 1 HAVING a = 1
SELECT COUNT(@no_such_variable)
SELECT (SELECT COUNT(*)), (SELECT SUM(2) WHERE 0)
DROP DATABASE IF EXISTS awf
CREATE DATABASE awf
USE awf
create table t (a int)
insert into t values (1),(2),(3)
select a, (select count(*) + a) = a + 1 from t order by a
select a, (select count(*) having a > 1) from t order by a
select count(*) as n from t group by n
select a, count(*) from t group by 2
select a, (select count(*) where a > 1) from t order by a
select a, (select max(a)) from t group by a order by a
select a from t where exists (select count(*) where 0) order by a
SELECT SUM((SELECT AVG((SELECT t.a FROM t AS u LIMIT 1)) FROM DUAL)) FROM t
DROP DATABASE awf
