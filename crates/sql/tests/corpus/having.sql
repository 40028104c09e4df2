-- HAVING: names must be select items or GROUP BY columns outside aggregates (1054), and in a
-- query without GROUP BY or aggregates HAVING keeps rows one by one, seeing select aliases.
DROP DATABASE IF EXISTS hv
CREATE DATABASE hv
USE hv
create table t (a int, b int, c int)
insert into t values (1,1,1),(2,1,2),(3,2,3)
select count(*) from t group by b having a > 1
select a+1 from t group by b having a > 0
select a from t group by b having a > 0
select a as x from t group by b having a > 0
select a as x from t group by b having x > 0
select b from t group by b having t.b > 0
select count(*) from t group by b having b > 0
select count(*) from t group by b+1 having b > 0
select a from t having max(a) = a
select a from t having a > 1
select count(*) from t having a > 1
select max(a) from t having max(b) > 0
select b, count(*) from t group by b having count(*) > 1 and b > 0
select b from t group by b having sum(c) > 2
select b, (select 1) from t group by b having c > 0
select count(*) from t group by b having (select 1 from t t2 limit 1) = 1
select a from t having b > 1
select a as x from t having x > 1 and c > 0
select a+1 as y from t having y > 2
select a from t where a < 3 having a > 1
select a from t having a > 1 order by a desc
select a from t having 1
select a from t having 0
select a as b from t having b > 1
select t.a from t having t.a > 1
select t.a from t having a > 1
select a from t having t.a > 1
select b, count(*) c from t group by b having c > 1
select a from t group by a having count(*) > 0 and a > 1
select a, (select count(*) from t t2 where t2.a <= t.a) n from t having n > 1
DROP DATABASE hv
