-- `WHERE d IS NULL` (or ISNULL(d)) on a DATE or DATETIME column declared NOT NULL finds
-- the zero date too, in SELECT (joins and derived tables included), UPDATE and DELETE, as
-- MariaDB's optimizer reads it; in the select list, under NOT and as IS NOT NULL it keeps
-- its plain meaning.
DROP DATABASE IF EXISTS zero_dates;
CREATE DATABASE zero_dates;
USE zero_dates;
CREATE TABLE t1 (d1 datetime NOT NULL);
INSERT INTO t1 VALUES ('0000-00-00 00:00:00'), ('0000-00-00 00:00:00'), ('1979-09-03 20:49:36');
SELECT * FROM t1 WHERE d1 IS NULL;
SELECT count(*) FROM t1 WHERE d1 IS NULL;
SELECT count(*) FROM ( SELECT * FROM t1 ) AS a1 WHERE d1 IS NULL;
CREATE TABLE t2 (d1 datetime NOT NULL);
INSERT INTO t2 VALUES ('1980-09-03 20:49:36'),  ('0000-00-00 00:00:00'), ('1979-09-03 20:49:36');
SELECT * FROM t2 LEFT JOIN t1 ON t2.d1=t1.d1 WHERE t1.d1 IS NULL order by 1, 2;
create table zd (d date not null, e datetime not null, f date null, g timestamp not null default '2000-01-01', h int not null);
insert into zd values ('0000-00-00','0000-00-00 00:00:00','0000-00-00', '0000-00-00 00:00:00', 1),('2020-01-01','2020-01-01 00:00:00','2020-01-01','2020-01-01', 2);
select d is null, d is not null, isnull(d), e is null, f is null, g is null from zd;
select count(*) from zd where d is null;
select count(*) from zd where d is not null;
select count(*) from zd where not d is null;
select h from zd where e is null or h = 2 order by h;
select h from zd where d is null and h = 1;
select h from zd where f is null;
select h from zd where g is null;
select h from zd where isnull(d);
select h from zd where (d is null) = 1;
update zd set h = h + 10 where d is null;
select h from zd order by h;
delete from zd where e is null;
select count(*) from zd;
select d, count(*) from zd group by d having d is null;
DROP DATABASE zero_dates;
