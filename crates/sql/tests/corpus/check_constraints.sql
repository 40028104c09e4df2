-- CHECK constraints: declared with a column or the table, named or numbered, shown by SHOW
-- CREATE TABLE and information_schema, verified on INSERT, UPDATE, REPLACE, ON DUPLICATE
-- KEY UPDATE and ALTER TABLE (4025), refused when they read what they may not; JSON
-- columns and JSON_VALID.
drop database if exists ck
create database ck
use ck
create table k1 (id int primary key, a int check (a > 0), b varchar(10) CHECK (b <> 'x' and length(b) < 5), constraint pos check (a < 100), check (a <> 50 or b is null), c json)
show create table k1
insert into k1 (id, a) values (1, 5)
insert into k1 (id, a) values (2, 0)
insert into k1 (id, a) values (3, 100)
insert into k1 (id, a) values (4, 50)
insert into k1 (id, a, b) values (5, 50, null)
insert into k1 (id, b) values (6, 'x')
insert into k1 (id, b) values (7, 'abcdef')
insert into k1 (id, c) values (8, '{"a":1}')
insert into k1 (id, c) values (9, '{bad')
insert into k1 (id, c) values (10, '[1, 2, {"x": null}]')
insert ignore into k1 (id, a) values (11, -1)
insert into k1 (id, a) values (12, 7), (13, -7)
select * from k1 order by id
update k1 set a = -5 where id = 1
update k1 set a = a + 1 where id = 1
replace into k1 (id, a) values (1, 0)
replace into k1 (id, a) values (1, 9)
insert into k1 (id, a) values (1, 3) on duplicate key update a = 0
insert into k1 (id, a) values (1, 3) on duplicate key update a = 8
select * from k1 order by id
select constraint_schema, table_name, constraint_name, level, check_clause from information_schema.check_constraints where constraint_schema = 'ck' order by constraint_name
select constraint_name, constraint_type from information_schema.table_constraints where table_schema = 'ck' order by constraint_name
create table k2 (a int check (a > (select 1)))
create table k3 (a int check (a > now()))
create table k4 (a int check (b > 0))
create table k5 (a int, check (a > rand()))
create table k6 (a int check (a > 0), b int, constraint a check (b > 0))
create table k7 (a int, constraint c1 check (a > 0), constraint c1 check (a < 9))
create table k8 (a int check (a > @x))
alter table k1 add constraint big check (a < 90)
alter table k1 add constraint small check (a > 10)
alter table k1 drop constraint pos
alter table k1 drop constraint nope
alter table k1 add column d int check (d >= 0)
insert into k1 (id, d) values (20, -1)
insert into k1 (id, d) values (20, 1)
alter table k1 drop column d
show create table k1
create table k9 (a int unsigned not null check (a >= 0), b int, check (b between 1 and 3), g varchar(5) check (g like 'a%'), h int check (-h < 0 or h * 2 >= 4), i varchar(9) check (upper(i) = i))
show create table k9
insert into k9 (a, b, g, h, i) values (1, 2, 'ab', 3, 'X')
insert into k9 (a, b, g, h, i) values (1, 4, 'ab', 3, 'X')
insert into k9 (a, b, g, h, i) values (1, 2, 'b', 3, 'X')
insert into k9 (a, b, g, h, i) values (1, 2, 'ab', 1, 'X')
insert into k9 (a, b, g, h, i) values (1, 2, 'ab', 3, 'x')
set check_constraint_checks = 0
insert into k9 (a, b) values (1, 9)
set check_constraint_checks = 1
insert into k9 (a, b) values (1, 9)
select a, b from k9 order by b
create table k10 like k9
insert into k10 (a, b) values (1, 9)
select json_valid('{"a":1}'), json_valid('[1,2'), json_valid(null), json_valid('1'), json_valid(''), json_valid('"s"')
drop database ck
