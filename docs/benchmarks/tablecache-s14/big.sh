#!/bin/bash
# usage: [TOC=64] [EXTRA="server args"] big.sh BIN (after tablecache-s12/setup.sh; session 14):
# the server's CPU time for a second pass of SELECT * FROM tK over all 100,000 tables and for
# 100,000 distinct SELECT k, each sent by one mariadb CLI over TCP, two rounds; prints both
# and the difference per statement.
B=$1; T=/tmp/tp
[ -e $T/s100.sql ] || (echo "USE d;"; for i in $(seq 100000); do echo "SELECT * FROM t$i;"; done) > $T/s100.sql
[ -e $T/f100.sql ] || (echo "USE d;"; for i in $(seq 100001 200000); do echo "SELECT $i;"; done) > $T/f100.sql
$B --port 14100 --datadir $T/data --table_open_cache=${TOC:-64} $EXTRA > $T/big.log 2>&1 & P=$!
M="mariadb -h127.0.0.1 -P14100 -uroot"
for i in $(seq 120); do $M -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
cpu() { awk '{print $14+$15}' /proc/$P/stat; }   # clock ticks (10 ms)
$M < $T/s100.sql > /dev/null   # pass 1
for r in 1 2; do
  c0=$(cpu); $M < $T/f100.sql > /dev/null; c1=$(cpu); $M < $T/s100.sql > /dev/null; c2=$(cpu)
  awk -v r=$r -v f=$((c1-c0)) -v s=$((c2-c1)) 'BEGIN { printf "round %d: floor %d ms, select pass %d ms, difference %.1f us per statement\n", r, f*10, s*10, (s-f)*10000/100000 }' 
done
$M -e "show global status where variable_name in ('Table_open_cache_misses','Opened_files','Key_reads')"
kill $P; wait $P
