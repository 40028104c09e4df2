-- Correlated subqueries: a subquery that reads columns of the query around it (scalar,
-- EXISTS, IN, comparisons), in the select list, WHERE, HAVING and ORDER BY, under joins and
-- grouping, two levels deep, and in UPDATE, DELETE and INSERT ... SELECT.
DROP DATABASE IF EXISTS corr
CREATE DATABASE corr
USE corr
create table t (a int primary key, b int, s varchar(10), d date)
create table u (a int, c int, s varchar(10), key (a))
create table w (id int primary key, a int, n decimal(6,2))
insert into t values (1,1,'x','2020-01-01'),(2,2,'Y','2021-06-30'),(3,3,NULL,NULL),(4,NULL,'y','2020-01-01')
insert into u values (1,5,'X'),(1,7,'y'),(3,0,'y'),(NULL,9,'x'),(4,NULL,NULL)
insert into w values (1,1,1.50),(2,1,2.25),(3,2,NULL),(4,3,4.00)
select a, (select max(c) from u where u.a = t.a) as m from t order by a
select a, (select count(*) from u where u.a = t.a) from t order by a
select a, (select sum(n) from w where w.a = t.a) from t order by a
select * from t where exists (select 1 from u where u.a = t.a) order by a
select * from t where not exists (select 1 from u where u.a = t.a) order by a
select * from t where exists (select * from u where u.a = t.a and u.c > t.b) order by a
select * from t where a in (select a from u where u.c > t.b) order by a
select * from t where a not in (select a from u where u.c > t.b) order by a
select * from t where b not in (select c from u where u.a = t.a) order by a
select * from t where b < (select count(*) from u where u.a = t.a) order by a
select * from t where b = (select min(a) from w where w.a = t.a) order by a
select a, (select count(*) from u where u.s = t.s) from t order by a
select a, (select count(*) from u where u.s <=> t.s) from t order by a
select a, (select group_concat(c order by c) from u where u.a = t.a) from t order by a
select t.a, (select sum(u.c) from u where u.a = t.a) from t, u where t.a = u.a order by 1, 2
select t.a, w.id, (select count(*) from u where u.a = w.a) from t join w on w.a = t.a order by 1, 2
select t.a, (select count(*) from u where u.a = t.a) from t left join w on w.a = t.a order by 1
select t.a, x.n from t join (select a, count(*) as n from u group by a) x on x.a = t.a order by 1
select a from t order by (select count(*) from u where u.a = t.a) desc, a
select b, count(*) from t group by b having (select count(*) from u where u.a = t.b) > 0 order by b
select b, (select count(*) from u where u.a = t.b) from t group by b order by b
select a, (select c from u where u.a = t.a order by c desc limit 1) from t order by a
select a, (select c from u where u.a = t.a order by c limit 1 offset 1) from t order by a
select a, (select 1 from u where u.a = t.a limit 1) is null from t order by a
select a, exists (select 1 from u where u.a = t.a) from t order by a
select a, (select max(c) from u where u.a = t.a) + (select max(id) from w where w.a = t.a) from t order by a
select a from t where exists (select 1 from u where exists (select 1 from w where w.a = u.a and w.id = t.a)) order by a
select a, (select count(*) from u where u.a in (select w.a from w where w.id = t.a)) from t order by a
select a, (select (select count(*) from w where w.a = t.a) from u where u.a = t.a limit 1) from t order by a
select a, (select count(*) from t as t2 where t2.b < t.b) from t order by a
select a, (select c from u where u.a = t.a) from t order by a
select a, (select zz from u) from t
select d, (select count(*) from t as t2 where t2.d = t.d) from t order by a
select a, (select count(*) from u where u.s = t.s collate utf8mb4_bin) from t order by a
select a, (select count(*) from u where u.c between t.b and t.b + 5) from t order by a
select a from t where (select count(*) from u where u.a = t.a) between 1 and 1 order by a
select distinct (select count(*) from u where u.a = t.a) from t order by 1
select count(*) from t where exists (select 1 from u where u.a = t.a)
select sum((select count(*) from u where u.a = t.a)) from t
update t set b = (select count(*) from u where u.a = t.a)
select * from t order by a
update t set s = 'z' where exists (select 1 from w where w.a = t.a and w.n > 2)
select * from t order by a
create table v (a int, n int)
insert into v select a, (select count(*) from u where u.a = t.a) from t
select * from v order by a
delete from t where not exists (select 1 from u where u.a = t.a)
select * from t order by a
delete from w where n < (select max(c) from u where u.a = w.a)
select * from w order by id
DROP DATABASE corr
