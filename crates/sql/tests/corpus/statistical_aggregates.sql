-- STD, STDDEV, STDDEV_POP, STDDEV_SAMP, VARIANCE, VAR_POP, VAR_SAMP: over integers,
-- decimals and doubles, grouped and not, in HAVING, over no rows and one row.
drop database if exists sa
create database sa
use sa
create table h (a int, b int, d decimal(6,2), f double)
insert into h values (1, 2, 1.50, 0.5), (1, 4, 2.25, 1.5), (2, 5, 3.00, 2.5), (2, null, null, null), (3, 7, 4.75, 10)
select std(b), stddev(b), variance(b), stddev_pop(b), var_samp(b), stddev_samp(b), var_pop(b) from h
select std(d), variance(d), var_samp(d), stddev_samp(d) from h
select std(f), variance(f), var_samp(f) from h
select a, std(b), var_samp(b), count(b) from h group by a order by a
select a, max(b) from h group by a having std(b) is not null order by a
select a from h group by a having variance(b) > 0 order by a
select std(b) from h where a = 9
select var_samp(b), stddev_samp(b), std(b) from h where a = 3
select round(variance(b), 2), round(std(b), 1) from h
select std('1'), variance(a + b) from h
drop database sa
