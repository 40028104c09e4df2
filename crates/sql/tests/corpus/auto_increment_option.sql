-- CREATE TABLE ... AUTO_INCREMENT = n starts the counter at n, ALTER TABLE ... AUTO_INCREMENT
-- = n moves it (never below the column's largest value); SHOW CREATE TABLE shows the
-- counter once it is past 1 (as mariadb-dump writes it, so a reload keeps it).
drop database if exists aio
create database aio
use aio
create table t (id int auto_increment primary key, v int) auto_increment=25
show create table t
insert into t (v) values (1)
select * from t
show create table t
insert into t (v) values (2), (3)
delete from t where id > 25
show create table t
insert into t (v) values (4)
select * from t order by id
create table u (id int auto_increment primary key)
show create table u
create table w (v int) auto_increment=7
show create table w
select table_name, auto_increment from information_schema.tables where table_schema = 'aio' order by table_name
alter table t auto_increment = 100
show create table t
insert into t (v) values (5)
alter table t auto_increment = 3
show create table t
insert into t (v) values (6)
select * from t order by id
alter table t auto_increment = 500, add column x int
show create table t
insert into t (v) values (7)
select id, v, x from t order by id
drop database aio
