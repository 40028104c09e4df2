#!/bin/bash
# select_random_points perf profile: myriad release, 1M rows, key_buffer_size 512M, 16 threads.
set -e
D=/tmp/prof-data; P=14410
rm -rf $D; mkdir -p $D
/work/main/target/release/myriad --datadir=$D --port=$P --key-buffer-size=536870912 --innodb-flush-log-at-trx-commit=2 --log-error=$D.log &
SPID=$!
for i in $(seq 100); do mariadb -h127.0.0.1 -P$P -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
mariadb -h127.0.0.1 -P$P -uroot -e 'CREATE DATABASE sbtest'
SB="sysbench select_random_points --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=1000000 --rand-type=uniform --random-points=${POINTS:-10}"
$SB prepare >/dev/null
mariadb -h127.0.0.1 -P$P -uroot -e 'LOAD INDEX INTO CACHE sbtest.sbtest1' >/dev/null
$SB --threads=16 --time=5 run >/dev/null
perf record -F 999 -g -p $SPID -o /tmp/perf.data -- sleep 10 >/dev/null 2>&1 &
PP=$!
$SB --threads=16 --time=10 run | grep -E "transactions:|queries:"
wait $PP
kill $SPID; wait $SPID 2>/dev/null || true
perf report -i /tmp/perf.data --no-children --sort symbol --stdio 2>/dev/null | grep -v "^#" | grep "%" | head -60
