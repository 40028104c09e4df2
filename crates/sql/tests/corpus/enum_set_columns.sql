-- ENUM and SET columns: declaring them, storing strings and numbers (1265 in strict mode,
-- warnings and '' outside it), their text and their numbers (position, bitmask) in numeric
-- contexts, ORDER BY by number, comparisons, aggregates, indexes and defaults.
drop database if exists es
create database es
use es
create table e (id int primary key, a enum('x','Y ','z''q') not null, b set('r','g','b') default 'g', c enum('1','3','2'))
show create table e
insert into e(id,a) values (1,'x'),(2,'y'),(3,3),(4,'Z''Q')
insert into e(id,a) values (5,'w')
insert into e(id,a) values (6,0)
insert into e(id,a,b) values (7,'x','b,r,r')
insert into e(id,a,b) values (8,'x','r,q')
insert into e(id,a,b) values (9,'x',5)
insert into e(id,a,b,c) values (10,'x',0,2),(11,'x','','2'),(12,'x',NULL,'4')
insert into e(id,a,b,c) values (14,'Y','g,b','3'),(15,'z''q','r,g',1)
insert into e(id) values (13)
select id, a, a+0, b, b+0, c, c+0 from e order by id
select a, count(*) from e group by a order by a
select * from e order by a desc, id
select * from e order by b, id
select * from e order by c, id
select id, c from e order by 2, 1
select min(a), max(a), sum(a), avg(b), min(c), max(c) from e
select id from e where a = 1 order by id
select id from e where a = 'X' order by id
select id from e where a > 'x' order by id
select id from e where c = 2 order by id
select id from e where c = '2' order by id
select id from e where a in ('y', 'x') order by id
select id from e where c between 1 and 2 order by id
select id from e where a like 'z%' order by id
select id from e where c order by id
select cast(a as signed), cast(a as char), concat(a, '-'), length(a), a like 'z%', upper(a) from e order by id
select id, b, find_in_set('g', b) > 0 from e order by id
select id, b, find_in_set('b', b), find_in_set('B', b), find_in_set('r', b), find_in_set('x', b), find_in_set(null, b), find_in_set(c, '1,2,3'), find_in_set('b', concat(b)) from e order by id
select a, count(*) from e group by a
insert into e(id,a) values (20, '')
set sql_mode=''
insert into e(id,a,b) values (21,'nope','r,nope')
show warnings
select a, a+0, a='', b, b+0 from e where id=21
set sql_mode=default
select column_name, column_type, data_type, character_maximum_length, column_default from information_schema.columns where table_schema='es' and table_name='e' order by ordinal_position
describe e
create table e2 (a enum('a','a'))
create table e3 (a set('a','b','a'))
create table e4 (a enum('a','b') default 'c')
create table e5 (a set('a,b','c'))
create table e6 (a enum('x','X'))
create table e7 (a enum('a\\b','c'), b enum('abc  ','d'))
show create table e7
create table e8 (a set('x','y') not null)
insert into e8 values ()
create table k (id int primary key, e enum('lo','mid','hi') not null, key(e))
insert into k values (1,'hi'),(2,'lo'),(3,'mid'),(4,'hi')
select * from k where e = 'hi' order by id
select * from k order by e, id
select e, count(*) from k group by e order by e desc
select e, count(*) from k group by e with rollup
update k set e = 'lo' where id = 4
update k set e = e + 1 where id = 2
select * from k order by id
delete from k where e = 'mid'
select id, e from k order by id
alter table k add column s set('a','b') not null default 'a,b'
select * from k order by id
drop database es
