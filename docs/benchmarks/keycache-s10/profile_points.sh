#!/bin/bash
set -e
D=/tmp/thp-data; P=14411; BIN=$1
$BIN --datadir=$D --port=$P --key-buffer-size=536870912 --innodb-flush-log-at-trx-commit=2 --log-error=$D.log &
SPID=$!
for i in $(seq 100); do mariadb -h127.0.0.1 -P$P -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
SB="sysbench select_random_points --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=1000000 --rand-type=uniform --random-points=${POINTS:-10}"
mariadb -h127.0.0.1 -P$P -uroot -e 'LOAD INDEX INTO CACHE sbtest.sbtest1' >/dev/null
$SB --threads=${TH:-16} --time=3 run >/dev/null
perf record -F 999 -g -p $SPID -o /tmp/perf-pts.data -- sleep 8 >/dev/null 2>&1 &
PP=$!
$SB --threads=${TH:-16} --time=8 run | grep -E "transactions:"
wait $PP
kill $SPID; wait $SPID 2>/dev/null || true
perf report -i /tmp/perf-pts.data --no-children --sort symbol --stdio -g none 2>/dev/null | grep -v "^#" | grep "%" | head -${TOP:-30}
