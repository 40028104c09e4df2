-- CREATE TABLE ... LIKE (the definition copied, keys included) and CREATE TABLE ... SELECT
-- (the query's columns after those given, filled with its rows).
DROP DATABASE IF EXISTS cc
CREATE DATABASE cc
USE cc
create table t (id int primary key auto_increment, v varchar(10) not null default 'x', n decimal(5,2), key kv (v)) comment 'src'
insert into t (v, n) values ('a', 1.5), ('b', NULL), ('c', 3)
create table t2 like t
show create table t2
select * from t2
insert into t2 (v) values ('z')
select * from t2
create table t3 select * from t
show create table t3
select * from t3 order by id
create table t4 select id, v from t where id > 1
select * from t4 order by id
create table t5 (extra int default 7, v varchar(20)) select v, n from t
show create table t5
select * from t5 order by v
create table t6 select v, count(*) as c from t group by v
select * from t6 order by v
create table t7 select 1 as a union select 2
select * from t7 order by a
show create table t6
show create table t7
create table t3 select * from t
create table if not exists t3 select * from t
create table t8 (id int primary key) select 1 as id union all select 1
show tables
create table t9 like nosuch
create table t10 select * from nosuch
create table t11 (id int primary key, v varchar(1)) select id, v from t
select count(*) from t11
drop database cc
