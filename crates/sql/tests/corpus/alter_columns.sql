-- ALTER TABLE's changes to existing columns: MODIFY, CHANGE, RENAME COLUMN, ALTER COLUMN
-- SET / DROP DEFAULT, FIRST / AFTER; values converted as the new type stores them (1265,
-- 1264 in strict mode); FOREIGN KEY columns (1832, 1833) and renames that follow them.
drop database if exists ac
create database ac
use ac
create table t (id int primary key, a varchar(10), b int, c int null, key kb (b), key kab (a, b))
insert into t values (1, 'hello', 5, null), (2, 'x', 300, 4)
alter table t modify a varchar(3)
alter table t modify b tinyint
alter table t modify c int not null
alter table t modify a varchar(20) not null default 'q' after b
show create table t
select * from t order by id
alter table t change b bb bigint
alter table t rename column bb to b2
alter table t modify column c int null first
show create table t
select * from t order by id
alter table t modify b2 varchar(10)
select b2, b2 + 1 from t order by id
alter table t modify b2 int unsigned
alter table t alter column a set default 'zz'
alter table t alter column c drop default
insert into t (id, b2) values (3, 7)
insert into t (id, c, b2) values (4, 1, 7)
select * from t order by id
show create table t
alter table t modify nosuch int
alter table t change nosuch x int
alter table t change a c int
alter table t rename column nosuch to y
alter table t modify a varchar(20) unique
show create table t
insert into t (id, a) values (5, 'zz')
alter table t change id id int
alter table t modify c decimal(5,2)
select * from t order by id
create table p (id int primary key)
create table ch (id int primary key, pid int, foreign key (pid) references p(id))
alter table ch modify pid bigint
alter table p modify id bigint
alter table ch modify pid int not null
alter table ch rename column pid to parent_id
show create table ch
insert into p values (1)
insert into ch values (1, 1)
insert into ch values (2, 2)
create table self (id int primary key, up int, foreign key (up) references self(id))
alter table self rename column id to sid
show create table self
create table e (id int primary key, c enum('a','b'), s set('x','y'))
insert into e values (1, 'a', 'x,y'), (2, 'b', '')
alter table e modify c enum('a','b','c')
alter table e modify c enum('b','a')
select id, c, c + 0 from e order by id
alter table e modify c enum('b')
alter table e modify s set('y','x')
select id, s, s + 0 from e order by id
drop database ac
