-- FLOAT columns: values shown with a FLOAT's six significant digits (1.1, 123457000), as
-- text too (CONCAT, CAST AS CHAR, LIKE, MIN/MAX, GROUP_CONCAT), while arithmetic reads the
-- stored single-precision value (f + 0 is 1.100000023841858); FLOAT(p) is a DOUBLE past 24
-- bits, REAL and DOUBLE PRECISION are DOUBLE.
DROP DATABASE IF EXISTS float_columns;
CREATE DATABASE float_columns;
USE float_columns;
create table fv (f float, g float(20), d double, id int);
insert into fv values (1.1,1.1,1.1,1),(1e20,1e20,1e20,2),(123456789,123456789,123456789,3),(3.4e38,3.4e38,3.4e38,4),(-0.000123,-0.000123,-0.000123,5),(16777217,16777217,16777217,6),(0.1,0.1,0.1,7),(1e15,1e15,1e15,8),(1e14,1e14,1e14,9),(123456.7,123456.7,123456.7,10),(99999.99,99999.99,99999.99,11),(NULL,NULL,NULL,12),(0,0,0,13),(-1.5,-1.5,-1.5,14);
select f, g, d from fv order by id;
select f + 0, f * 1, concat(f), cast(f as char), length(f), f like '1.1%', upper(f), max(f), min(g) from fv;
select concat(max(f)), concat(min(f)), concat(f, '|', d) from fv where id < 4 group by id, f, d order by id;
select f from fv where f = 1.1;
select f from fv where f > 1.09 and f < 1.11;
select ifnull(f, 0), coalesce(f, d), if(id > 0, f, 0) from fv where id = 1;
select sum(f), avg(f), group_concat(f order by id) from fv where id in (1, 7, 14);
create table a1 (a float(0), b float(24), c float(25), d float(53), e real, f double precision, g double);
show create table a1;
insert into a1 values (1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1);
select * from a1;
create table a2 (a float(54));
create table a3 (a double(10));
DROP DATABASE float_columns;
