-- COUNT(DISTINCT a, b, ...): distinct combinations, a row with a NULL in any of them not
-- counted; grouped, in HAVING and ORDER BY, without FROM, and over strings of a
-- case-insensitive collation.
DROP DATABASE IF EXISTS cdc
CREATE DATABASE cdc
USE cdc
create table t1(n1 int, n2 int, s char(20), vs varchar(20), t text)
insert into t1 values (1,11,'one','eleven','eleven'),(1,11,'one','eleven','eleven'),(2,11,'two','eleven','eleven'),(2,12,'two','twevle','twelve'),(2,13,'two','thirteen','foo'),(2,13,'two','thirteen','foo'),(2,13,'two','thirteen','bar'),(NULL,13,'two','thirteen','bar'),(2,NULL,'two','thirteen','bar'),(2,13,NULL,'thirteen','bar'),(2,13,'two',NULL,'bar'),(2,13,'two','thirteen',NULL)
select count(distinct n1,n2) from t1
select count(distinct n1,s) from t1
select count(distinct s,n1,vs) from t1
select count(distinct s,t) from t1
select count(distinct n1,n2), count(distinct n2), count(*) from t1
select n1, count(distinct n2,s) from t1 group by n1 order by n1
select n1, count(distinct n2,vs) as c from t1 group by n1 having count(distinct n2,vs) > 1 order by c
select vs, count(distinct n1,n2) from t1 group by vs order by count(distinct n1,n2), vs
select count(distinct n1,n2) from t1 where n1 > 5
select count(distinct n1,n2) + 1, sum(n1) from t1
create table t2 (a varchar(10), b int)
insert into t2 values ('a',1),('A',1),('a ',1),('b',NULL),(NULL,2),('b',2),('B',2)
select count(distinct a,b) from t2
select count(distinct b,a), count(distinct a) from t2
select count(distinct a collate utf8mb4_bin,b) from t2
select count(distinct 1,2), count(distinct 1,null), count(distinct 'a',1,2.5)
select count(distinct n1,n2) from t1 where 0
select count(n1,n2) from t1
select count(distinct n1,(n2,n1)) from t1
select count(distinct n1,n2) over () from t1
DROP DATABASE cdc
