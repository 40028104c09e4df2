-- CAST to integers reads a string's leading integer in 64 bits as MariaDB does (past
-- 2^63-1 SIGNED wraps, past 2^64-1 it stops there, with warning 1292); numbers read as
-- dates by their size (YYMMDD, YYYYMMDD, YYMMDDhhmmss, YYYYMMDDhhmmss) with their fraction
-- as microseconds; what myriad does not build is refused, not approximated.
select cast('-1' as unsigned), cast('-9223372036854775809' as signed), cast('-9223372036854775809' as unsigned);
select cast('99999999999999999999999' as unsigned), cast('18446744073709551615' as signed), cast(' 12abc' as unsigned);
select cast('1.5' as signed), cast('1e3' as signed), cast('18446744073709551616x' as unsigned), cast('' as signed), cast('abc' as unsigned), cast(' -0 ' as signed), cast('+5' as unsigned);
select cast('18446744073709551616' as unsigned), cast('18446744073709551616' as signed), cast('9223372036854775809' as signed);
select cast(10203101112 as datetime), cast(20010203101112 as datetime), cast(20010203 as date), cast(10203101112.5 as datetime(1)), cast(20010203.5 as date);
select cast(1.5e13 as datetime), cast(-1.5 as datetime), cast(20010203101112.999999e0 as datetime), cast(010203101112.12 as datetime(2));
select cast(cast(010203101112.12 as double) as datetime(6)), cast(0 as date), cast(991231 as date), cast(700101 as date), cast(100 as date);
select cast(1231235959 as datetime), cast(20010203101112.5 as datetime), cast(010203101112.121314 as datetime);
select cast(1 as double), cast('1.5' as double), cast(1e-7 as double);
select cast(2 as real);
