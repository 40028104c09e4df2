-- FOREIGN KEY constraints: declared in CREATE TABLE (table and column level) and ALTER
-- TABLE, named as InnoDB names them, with the keys it adds; SHOW CREATE TABLE and
-- information_schema; checked on INSERT, UPDATE, DELETE, REPLACE, ON DUPLICATE KEY UPDATE
-- (1452 / 1451), CASCADE and SET NULL, self references, foreign_key_checks; the DDL that
-- would break them (1005, 1553, 1828 / 1829, 1701, 1451) and MyISAM tables.
drop database if exists fk
create database fk
use fk
create table p (id int primary key, name varchar(10), u int, v varchar(20), unique key (u), key (v))
create table c (id int primary key, pid int, constraint fk_c foreign key (pid) references p(id) on delete cascade)
show create table c
create table c2 (id int primary key, pid int references p(id))
show create table c2
create table c3 (id int primary key, pid int, foreign key (pid) references p(id) on delete set null on update cascade, key kk(pid))
show create table c3
create table c4 (id int primary key, a int, b int, foreign key (a, b) references p(id, name))
create table c4 (id int primary key, a int, foreign key (a) references nosuch(id))
create table c4 (id int primary key, a int, foreign key (a) references p(nosuch))
create table c4 (id int primary key, a varchar(5), foreign key (a) references p(id))
create table c4 (id int primary key, a int, foreign key (a) references p(name))
create table c4 (id int primary key, a bigint, foreign key (a) references p(id))
create table c4 (id int primary key, a int unsigned, foreign key (a) references p(id))
create table c4 (id int primary key, a int not null, foreign key (a) references p(id) on delete set null)
create table c4 (id int primary key, a int, constraint fk_c foreign key (a) references p(id))
create table c5 (id int primary key, pv varchar(30), foreign key (pv) references p(v))
create table c6 (id int primary key, a int, b int, key ab (a, b), foreign key (a) references p(id))
show create table c6
create table c7 (id int primary key, a int, b int, key ba (b, a), foreign key (a) references p(u), foreign key idx (b) references p(id) on update no action on delete restrict)
show create table c7
insert into p values (1, 'a', 10, 'x'), (2, 'b', 20, 'y'), (3, 'c', 30, 'z')
insert into c values (1, 1), (2, 2), (3, null)
insert into c values (4, 9)
insert into c values (5, 3), (6, 8)
select * from c order by id
insert ignore into c values (7, 9), (8, 3)
show warnings
select * from c order by id
update c set pid = 7 where id = 1
update c set pid = 2 where id = 1
update c set id = 11 where id = 1
insert into c5 values (1, 'Y'), (2, 'x')
insert into c5 values (3, 'w')
insert into c3 values (1, 2), (2, 3), (3, null)
insert into c7 values (1, 20, 1)
insert into c7 values (2, 21, 1)
insert into c2 values (1, 3)
update p set id = 5 where id = 1
delete from p where id = 1
select * from c order by id
select * from c3 order by id
update p set name = 'B' where id = 2
update p set id = 6 where id = 2
delete from c where pid = 2
update p set id = 6 where id = 2
select * from c3 order by id
delete from p where id = 6
select * from c3 order by id
delete from p where id = 3
delete from c2
delete from c7
delete from p where id = 3
select * from c order by id
select * from c3 order by id
select * from c5 order by id
replace into p values (4, 'd', 40, 'x')
insert into c values (20, 4)
replace into p values (4, 'e', 40, 'y')
insert into p values (4, 'f', 41, 'q') on duplicate key update id = 44
insert into p values (4, 'f', 41, 'q') on duplicate key update name = 'g'
select * from p order by id
select * from c order by id
drop table p
truncate table p
drop table c, p
show tables
create table s (id int primary key, parent int, foreign key (parent) references s(id) on delete cascade)
insert into s values (1, null), (2, 1), (3, 2), (4, 4), (5, 9)
insert into s values (5, 3), (6, 5)
delete from s where id = 4
delete from s where id = 2
select * from s order by id
create table chain (id int primary key, up int, foreign key (up) references chain(id) on delete cascade)
insert into chain values (1, null), (2, 1), (3, 2), (4, 3), (5, 4), (6, 5), (7, 6), (8, 7), (9, 8), (10, 9), (11, 10), (12, 11), (13, 12), (14, 13), (15, 14), (16, 15), (17, 16)
delete from chain where id = 1
select count(*) from chain
delete from chain where id = 2
select count(*) from chain
delete from chain where id = 3
select count(*) from chain
create table r (id int primary key, up int, foreign key (up) references r(id))
insert into r values (1, null), (2, 1)
delete from r
delete from r where id = 2
delete from r
create table base (a int, b int, primary key (a, b))
create table mc (id int primary key, x int, y int, foreign key (x, y) references base(a, b))
insert into base values (1, 1)
insert into mc values (1, 1, null), (2, null, 5)
insert into mc values (3, 1, 2)
insert into mc values (3, 1, 1)
create table mc2 (id int primary key, x int, foreign key (x) references base(a))
create table mc3 (id int primary key, x int, foreign key (x) references base(b))
create table alt (id int primary key, bid int, z int)
insert into alt values (1, 1, 0), (2, 7, 0)
alter table alt add constraint alt_fk foreign key (bid) references c(id)
delete from alt where id = 2
alter table alt add constraint alt_fk foreign key (bid) references c(id)
show create table alt
alter table alt drop index alt_fk
alter table alt drop column bid
alter table alt add column w int first
alter table alt drop foreign key alt_fk
alter table alt drop foreign key alt_fk
show create table alt
alter table alt add foreign key (z) references c(id), add foreign key (w) references c(id)
show create table alt
alter table alt drop constraint alt_ibfk_1
show create table alt
alter table c drop column id
alter table c drop primary key
alter table c add column q int
alter table c drop column q
select table_name, constraint_name, constraint_type from information_schema.table_constraints where table_schema = 'fk' order by table_name, constraint_name
select table_name, constraint_name, column_name, ordinal_position, position_in_unique_constraint, referenced_table_schema, referenced_table_name, referenced_column_name from information_schema.key_column_usage where table_schema = 'fk' order by table_name, constraint_name, ordinal_position
select * from information_schema.referential_constraints where constraint_schema = 'fk' order by table_name, constraint_name
create table ren (id int primary key, pid int)
insert into ren values (1, 99)
alter table ren change pid parent_id int, add foreign key (parent_id) references base(a)
alter table ren add column z int default 7, add foreign key (z) references base(a)
insert into base values (99, 1)
alter table ren change pid parent_id int, add foreign key (parent_id) references base(a)
show create table ren
set foreign_key_checks = 0
create table late (id int primary key, x int, foreign key (x) references later(id))
insert into late values (1, 5)
create table later (id int primary key)
insert into c values (30, 99)
drop table c
set foreign_key_checks = 1
insert into late values (2, 6)
insert into later values (6)
insert into late values (2, 6)
delete from later
create table my_p (id int primary key) engine = MyISAM
create table my_c (id int primary key, x int, foreign key (x) references my_p(id))
create table my_c2 (id int primary key, x int, foreign key (x) references late(id)) engine = MyISAM
show create table my_c2
insert into my_c2 values (1, 77)
create table like_c like c3
show create table like_c
drop database fk
