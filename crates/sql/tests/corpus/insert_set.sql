-- INSERT ... SET and REPLACE ... SET: one row of the named columns, with DEFAULT, IGNORE,
-- ON DUPLICATE KEY UPDATE and subqueries; INSERT [()] VALUES (): rows of defaults.
drop database if exists ins
create database ins
use ins
create table t (id int primary key auto_increment, a int default 7, s varchar(10) not null default 'z')
insert into t set a = 1, s = 'x'
insert into t set s = 'y'
insert into t set id = 10, a = default
insert into t set a = 2, s = 'q', id = 1
insert ignore into t set a = 2, s = 'q', id = 1
insert into t set id = 1, a = 5 on duplicate key update a = a + 100
replace into t set id = 2, a = 9
replace t set id = 3, a = 9
insert into t set a = (select max(id) from t t2)
insert t set a = 3
select * from t order by id
select row_count(), last_insert_id()
create table dflt (a int default 5, b varchar(10) default 'x', c int auto_increment primary key)
insert into dflt () values ()
insert into dflt values ()
insert into dflt () values (),()
insert into dflt (a) values ()
insert into dflt values (),(1,'y',null)
select * from dflt order by c
DROP DATABASE ins
