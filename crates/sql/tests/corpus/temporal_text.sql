-- Dates, datetimes and times read as text (CONCAT, LENGTH, LIKE, HEX, CAST AS CHAR, TRIM,
-- GROUP_CONCAT ...) show their type's fraction digits: a DATETIME(3) is
-- '2020-01-01 10:00:00.500', not six digits or none; HEX of a date is the hex of its text.
DROP DATABASE IF EXISTS temporal_text;
CREATE DATABASE temporal_text;
USE temporal_text;
create table t (a datetime(3), b time(2), c timestamp(1) null, d datetime(6), e time);
insert into t values ('2020-01-01 10:00:00.5', '10:00:00.25', '2020-01-01 10:00:00.1', '2020-01-01 10:00:00', '11:00:00');
insert into t values ('2020-01-01 10:00:00', '10:00:00', '2020-01-01 10:00:00', '2020-01-01 10:00:00.123456', '-1:00:00');
select concat(a), concat(b), concat(c), concat(d), concat(e), length(a), a, b from t;
select concat(a, 'x'), concat_ws(',', a, b), upper(b), replace(a,'2020','x'), cast(a as char), a like '%.500' from t;
select group_concat(a), max(a), concat(max(a)), concat(min(b)), concat(greatest(a, d)), concat(ifnull(a,0)), concat(coalesce(a,b)) from t;
select concat(a + interval 1 second), concat(cast(a as datetime(2))), concat(a is null) from t;
select concat(if(1,a,b)), concat(case when 1 then a end), hex(a), concat((select max(a) from t)) from t;
create table d (x date, y datetime, z time(6), w timestamp(3) null);
insert into d values ('2021-02-03', '2021-02-03 04:05:06', '-12:00:00.000001', '2021-02-03 04:05:06.789'), (NULL, NULL, NULL, NULL);
select hex(x), hex(y), hex(z), hex(w), length(x), concat(y), concat(z), concat(w), x like '2021%', y like '%06', z like '%1', md5(x) = md5('2021-02-03'), substring(w, 20), left(z, 4), lpad(x, 12, '*'), reverse(w), concat_ws('|', x, y, z, w) from d;
select group_concat(w order by w), group_concat(distinct z), group_concat(x, y separator ';'), concat(max(w)), concat(min(z)) from d;
select concat(w + interval 1 day), concat(w - interval 1 microsecond), concat(x + interval 1 hour), concat(date_add(w, interval 2 minute)), concat(z), concat(if(x is null, w, w)), concat(coalesce(w, y)), concat(greatest(y, w)), concat(case when 1 then z end), concat(nullif(w, 0)) from d;
select upper(w), lower(z), trim(w), instr(w, '.789'), locate('.789', w), replace(z, '0', 'x'), quote(w), strcmp(w, '2021-02-03 04:05:06.789'), find_in_set(x, '2021-02-03,b'), char_length(z), bit_length(w), to_base64(w), crc32(w), sha1(w) = sha1('2021-02-03 04:05:06.789'), substring_index(w, '.', 1), insert(w, 1, 4, 'YYYY') from d;
select concat(t.a, u.w) from t join d u where u.w is not null;
select concat(s.a) from (select a from t) s;
select concat(v) from (select max(a) v from t) s;
select cast(w as char), cast(z as char(20)), convert(w, char), convert(w using utf8mb4), cast(x as char) from d;
-- A user variable holds a date or time as its text (MariaDB's variables hold numbers and
-- strings), with the type's digits: `@x + 0` reads the text as a number.
create table uv (a datetime(3), b time(2), c date);
insert into uv values ('2020-01-01 10:00:00.5', '10:00:00.25', '2020-02-03');
set @x = (select a from uv), @y = (select b from uv), @z = (select c from uv);
select @x, @y, @z, concat(@x), @x + 0, @y + 0, @z + 0, length(@x);
select a into @w from uv;
select @w, @w + 0;
set @n = now();
select length(@n), @n + 0 > 0;
set @cd = cast('2020-01-01' as date);
select @cd, @cd + 0, @cd = '2020-01-01', @cd < '2020-01-02';
set @ct = cast('10:00:00' as time);
select @ct, @ct + 0, @ct > '9:00:00';
DROP DATABASE temporal_text;
