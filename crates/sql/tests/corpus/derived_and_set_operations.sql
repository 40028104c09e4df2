-- Derived tables, common table expressions and set operations (UNION / INTERSECT / EXCEPT,
-- ALL or DISTINCT): the query's rows read as a table, with WHERE, joins, grouping, ORDER BY, LIMIT.
DROP DATABASE IF EXISTS setops
CREATE DATABASE setops
USE setops
create table t (id int primary key, g int, v varchar(10), d decimal(6,2), ts datetime)
insert into t values (1,1,'a',1.50,'2020-01-01 10:00:00'),(2,1,'b',2.25,'2021-02-03 04:05:06'),(3,2,'c',NULL,NULL),(4,2,'a',4.00,'2022-03-04 05:06:07')
select * from (select * from t) d order by id
select count(*) from (select distinct v from t) x
select g, s from (select g, sum(d) as s from t group by g) x order by g
select x.v, t.id from (select v from t where id < 3) x join t on t.v = x.v order by t.id
select * from (select 1 as a, 'x' as b, 2.5 as c, null as n, now() > '2000-01-01' as f) d
select a from (select 1 as a union select 2) d
select * from (select id from t) d where id in (select id from t where g = 2) order by id
select * from (select id, id from t) d
select * from (select id from t) as d1, (select id from t) as d2 where d1.id = d2.id order by 1
select max(c) from (select count(*) as c from t group by g) z
select * from (select * from (select id, v from t) a where id > 1) b order by id limit 2
select d.* from (select id*2 as dbl, concat(v,'!') as w from t) d order by dbl desc
select avg(x) from (select id as x from t) q
select * from (select id from t limit 2) d order by id
select * from (select v, count(*) as n from t group by v order by n desc, v) d order by v
select * from (select sleep(0)) s
select (select max(id) from (select id from t) d) as m
create table u (id int, w varchar(5))
insert into u values (1,'a'),(5,'z'),(5,'z')
select 1 union select 2
select 1 union select 1
select 1 union all select 1
select 1 as a, 'x' as b union select 2, 'y' order by a desc
select v from t union select w from u order by v
select v from t union all select w from u order by v
select id from t union select id from u order by id desc limit 3
select id, v from t where id < 3 union all select id, w from u order by 1, 2
select 1 union select 'a'
select 1 union select 2.5
select g from t union select id from u order by 1
select count(*) from (select v from t union select w from u) x
select * from t where id in (select id from u union select 4) order by id
select 1, 2 union select 3
(select id from t order by id desc limit 2) union (select id from u order by id limit 1) order by id
select id from t intersect select id from u
select id from t except select id from u order by id
select w from u intersect all select w from u
select w from u except all select 'z'
select w from u except select 'z'
select 1 union all select 1 union select 1
select 1 union select 1 union all select 1
select id from t union select id from u intersect select 5 order by 1
select a from (select 1 as a union all select 2 union all select 3) z where a > 1 order by a
select null union select 1
select v, count(*) from t group by v union select 'zz', 9 order by 1
select 'A' union select 'a'
select id from t union select id from u limit 2
-- Common table expressions (WITH, not recursive).
with x as (select * from t where g = 1) select * from x order by id
with x as (select g, count(*) as n from t group by g) select * from x where n > 1 order by g
with a as (select id from t), b as (select id from a where id > 2) select * from b order by id
with x as (select 1 as k union select 2) select * from x order by k
with x as (select id from t) select * from x x1 join x x2 on x1.id = x2.id + 1 order by 1
with t as (select 42 as id) select * from t
select * from t where id in (with y as (select 3 as id) select id from y)
with x as (select id from t) select (select max(id) from x) as m
with x(a) as (select 1) select * from x
insert into t with x as (select id from t where id < 3) select id + 20, 9, 'w' from x
select count(*) from t
with b as (select * from a), a as (select 1) select * from b
with x(a,b) as (select 1) select * from x
with x(a,b) as (select 1, 2) select b, a from x
with x(a,a) as (select 1, 2) select * from x
select * from (select 1, 2) as d(a, b)
UPDATE (SELECT * FROM t) d SET g = 1
SELECT * FROM (SELECT id FROM t)
DROP DATABASE setops
-- Unaliased items of derived tables and set operations are named by their whole text.
SELECT * FROM (SELECT CAST(1 AS CHAR(3)), trim(' a '), exists(select 1), convert('a', char), substring('abc' from 2), position('b' in 'abc')) d;
SELECT * FROM (SELECT -(3), not 1, 1 is null, (1+2), date '2020-01-01', NOT EXISTS (select 1), (1) + (2), cast(1 as char) is null) d;
SELECT * FROM (SELECT trim(leading 'a' from 'aab'), !1, ((1)), ('a'), - 1, 1 is not null) d;
SELECT -(3) UNION SELECT 1;
SELECT cast(1 as char) UNION SELECT 2;
