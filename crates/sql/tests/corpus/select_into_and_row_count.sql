-- SELECT ... INTO @variables (one row, none: 1329, several: 1172 after assigning the first,
-- a list of another width: 1222, a name without @: 1327, INTO after a clause of the query:
-- 1287, INTO where the grammar has no place for it: 1064) and
-- ROW_COUNT() after each kind of statement.
DROP DATABASE IF EXISTS si
CREATE DATABASE si
USE si
select row_count()
create table t (a int primary key, b varchar(5))
select row_count()
insert into t values (1,'x'),(2,'y'),(3,NULL)
select row_count()
select 1 into @r
select row_count(), @r
select a, b into @a, @b from t where a = 2
select @a, @b
select a, b from t where a = 3 into @a, @b
show warnings
select @a, @b, @b is null
select a from t where a = 9 into @c
show warnings
select @c
set @d = 'kept'
select a into @d from t where a > 5
select @d
select a from t into @e
select @e
select 1, 2 into @f
select 1 into g
select (select b from t where a = 1) into @h
select @h
select a into @i from t order by a desc limit 1
select @i
select count(*), max(a) into @j, @k from t
select @j, @k
select 1 limit 1 into @l
show warnings
(select 2) union (select 2) into @l
show warnings
select @l
select a into @m from t where a = 1 limit 1
show warnings
select 1 into @n union select 2
select a from t union select 9 into @n
select a from t into @n order by a
select a from t where a = 1 into @n for update
show warnings
select @n
update t set b = 'z' where a < 3
select row_count()
update t set b = 'z' where a < 3
select row_count()
delete from t where a = 3
select row_count()
select * from t
select row_count()
set @x = 1
select row_count()
do 1
select row_count()
select * from nosuch
select row_count()
insert into t values (5, 'v') on duplicate key update b = 'w'
select row_count()
insert into t values (5, 'v') on duplicate key update b = 'w'
select row_count()
