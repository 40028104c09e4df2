-- INSERT ... SELECT: a query's rows (a SELECT, a UNION, a derived table, the target table itself)
-- inserted with INSERT's checks, IGNORE, REPLACE and ON DUPLICATE KEY UPDATE.
DROP DATABASE IF EXISTS ii
CREATE DATABASE ii
USE ii
create table t (id int primary key auto_increment, v varchar(10) not null, n int)
create table s (a int, b varchar(20))
insert into s values (1,'x'),(2,'y'),(3,NULL),(4,'a very long string here')
insert into t (v, n) select b, a from s where b is not null and a < 3
select * from t order by id
insert into t (v, n) select b, a from s where a = 3
insert into t (v, n) select b, a from s where a = 4
insert ignore into t (v, n) select b, a from s where a = 4
select * from t order by id
insert into t (v) select v from t
select count(*) from t
insert into t (v, n) select 'q', 1 union select 'r', 2
insert into t (v, n) select b from s
insert into t select * from t where id = 1
insert into t (id, v) select id + 100, v from t where id < 3 on duplicate key update v = 'dup'
select * from t order by id
replace into t (id, v, n) select id, 'rep', 0 from t where id = 2
select * from t where id = 2
insert into t (v, n) select v, n from (select 'dd' as v, 9 as n) d
select * from t where v = 'dd'
drop database ii
