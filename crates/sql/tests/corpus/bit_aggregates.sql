-- BIT_AND, BIT_OR, BIT_XOR: BIGINT UNSIGNED over 64-bit values (a negative number as its
-- two's complement), grouped or not, over no rows, with strings and decimals; DISTINCT is
-- a syntax error there, as it is in STD and VARIANCE.
drop database if exists ba
create database ba
use ba
create table bx (a int, b int)
insert into bx values (1, 12), (1, 10), (2, 7), (2, null), (3, -1)
select bit_and(b), bit_or(b), bit_xor(b) from bx
select a, bit_and(b), bit_or(b), bit_xor(b) from bx group by a order by a
select bit_and(b), bit_or(b), bit_xor(b) from bx where a = 9
select bit_or('3'), bit_or(2.6), bit_xor(0x10) from bx
select a from bx group by a having bit_or(b) > 7 order by a
select bit_and(distinct b) from bx
select std(distinct b) from bx
drop database ba
