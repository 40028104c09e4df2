-- `@v := expr` inside expressions: the value and type it yields, what the variable keeps
-- (a date or time as its text), left-to-right order within a row, once per row produced
-- (select list) or examined (WHERE), per row in UPDATE's order, short-circuits, INSERT
-- ... SELECT, DO, SELECT ... INTO, UNION; and where it is a syntax error (1064), a view's
-- (1351), or refused because its order would differ from MariaDB's (1235).
DROP DATABASE IF EXISTS va
CREATE DATABASE va
USE va
SELECT @a:=1
SELECT @d:=1111
SELECT @b:= TO_BASE64('f'), FROM_BASE64(@b)
select @b = 'Zg=='
select @x1 := 1, @x2 := 1.5, @x3 := 1e0, @x4 := 123456789012, @x5 := -7
select @x1, @x2, @x3, @x4, @x5
select @dd := date'2020-01-02', @dd = '2020-01-02', @dd + 0
select @dt := timestamp'2020-01-02 03:04:05', @dt = '2020-01-02 03:04:05', length(@dt)
select @tt := time'10:11:12', @tt = '10:11:12'
select @nn := NULL, @nn is null
select @a := 0 OR 1, @a + 0
select @a := 1 = 2, @a + 0
select @a := 5 AND 0, @a + 0
select 1 + @a := 2, @a + 0
select (@f := 3) + 1, @f + 0
select @a := @b := @c := 7, @a + @b + @c
select @e := 'abc' = 'ABC', @e + 0
select @s := concat('a', 'b'), @s = 'ab', length(@s)
create table t1 (a int primary key, b int, c varchar(10), d date)
insert into t1 values (1,10,'x','2020-01-01'),(2,20,'y','2021-02-03'),(3,30,'z',NULL),(4,NULL,'w','2022-12-31')
set @n = 0
select a, @n := @n + 1, @n from t1
select @n
set @n = 0
select a, @n := @n + a as s from t1 where b > 10
select @n
set @n = 0
select a from t1 where (@n := @n + 1) > 2
select @n
set @n = 0
SELECT * FROM t1 WHERE NULL AND (@n:=@n+1)
select @n
SELECT * FROM t1 WHERE (@n:=@n+1) AND 0
select @n
SELECT * FROM t1 WHERE 0 AND (@n:=@n+1)
select @n
SELECT * FROM t1 WHERE 1 OR (@n:=@n+1)
select @n
SELECT * FROM t1 WHERE b > 15 AND (@n:=@n+1)
select @n
SELECT * FROM t1 WHERE b > 15 OR (@n:=@n+1) > 100
select @n
select @cnt := 0, @str := ''
select count(*) from (select @str:=concat(@str, @cnt:=@cnt+1, ",") from t1 A, t1 B) Z
select @cnt, @str = '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,'
select @c := c, @c2 := concat(@c, '!') from t1 where a = 2
select @c = 'y', @c2 = 'y!'
select @dv := d from t1 where a = 2
select @dv = '2021-02-03'
set @k = 0
select * from (select a, @k := @k + 1 k from t1) d where a > 2
select @k
set @k = 0
select distinct b > 0, @k := @k + 1 from t1 where b is not null
select @k
set @k = 0
select a, sum(b), @k := @k + 1 from t1 group by a
select @k
set @k = 0
select t1.a, x.a, @k := @k + 1 from t1 join t1 x on x.a = t1.a + 1
select @k
set @k = 0
select a, @k := @k + 1 from t1 limit 1
select @k
set @k = 0
select a, @k := @k + 1 from t1 limit 0
select @k
set @k = 0
select a from t1 where (@k := @k + 1) > 2 limit 1
select @k
set @k = 0
select a from t1 where a = 2 and (@k := @k + 1)
select @k
set @tmp = 0
update t1 set b=(@tmp:=@tmp+1) order by a desc
select * from t1 order by a
select @tmp
set @tmp = 100
update t1 set b=(@tmp:=@tmp+1) where a > 2
select * from t1 order by a
update t1 set b = 0 where (@w := a) > 3
select @w
delete from t1 where (@a:= a) > 3
select @a
select * from t1 order by a
do @a:=(SELECT max(a) from t1)
select @a
do @a:=5, @b:=@a+1
select @a, @b
SELECT @a:=1 UNION SELECT @a:=@a+1
select @a
set @n = 0
update t1 set b = (@n := @n + b)
select @n
select * from t1 order by a
create table t5 (a int primary key, c int)
set @n = 0
insert into t5 values (@n := @n + 1, @n := @n + 1), (@n := @n + 1, @n)
select * from t5 order by a
set @n = 0
insert into t5 select a, @n := @n + 1 from t1 on duplicate key update c = 0
select * from t5 order by a
select @n
create table t3 (a int, b int)
set @k = 0
insert into t3 select a, @k := @k + a from t1
select * from t3 order by a
select @k
insert into t3 values (@k := @k + 1, @k)
select * from t3 order by a
select @k
SELECT DISTINCT @v5:= a, @v6:= c INTO @v7, @v8 FROM t1 WHERE a = 2
select @v5, @v6 = 'y', @v7, @v8 = 'y'
select a into @q from t1 where (@r := a) = 3
select @q, @r
set @q = 1
select a from t1 where a = (@q := @q + 1)
select @q
select @m := max(a) from t1
select @m
-- Refused (1235) where the order of evaluation would differ from MariaDB's.
insert into t3 select a, @k := @k + 1 from t1 order by a desc
select a, @k := @k + 1 from t1 order by a desc
select a, @k := @k + 1 as k from t1 order by k desc
select max(@mm := a) from t1
select a from t1 group by a, @g := a
select a from t1 order by @o := a
select a, count(*) from t1 group by a having @h := count(*)
select a, (select @k := @k + 1) from t1
select a from t1 where exists (select @k := 1)
select a, row_number() over (order by a desc), @k := @k + 1 from t1
delete from t1 where (@a:= a) order by a limit 1
select t1.a, x.a from t1, t1 x where t1.a = x.a and (@k := @k + 1) > 0
select t1.a, x.a from t1 left join t1 x on t1.a = x.a and (@k := @k + 1) > 0
select a, @k := @k + 1 as k from t1 having k > 1
select a, @k := @k + 1 as k from t1 group by k
select b, @k := @k + 1 as k from t1 group by 2
select sql_calc_found_rows a, @k := @k + 1 from t1 limit 1
select a, @k := @k + 1 from t1 limit 1 offset 1
select distinct a, @k := @k + 1 from t1 limit 1
update t1 set b = b + 1 where (@k := @k + 1) > 1
delete from t1 where (@k := @k + 1) > 100
select a := 1
select 1 := 1
select @@sql_mode := 1
create view v1 as select @a := 1
create view v1 as select a from t1 where @a := 1
set @p := 1
select @p
