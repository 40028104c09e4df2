#!/bin/bash
# Instructions per select_random_points statement under callgrind: warm up, zero, run EVENTS, dump.
# usage: keycache-cg.sh old|new EVENTS POINTS
bin=/tmp/keycache-$1-myriad; E=$2; PTS=$3; d=/tmp/keycache-cg-$1; rm -rf $d; mkdir -p $d
SB="sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=14201 --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=200000 --rand-seed=7"
valgrind --tool=callgrind --callgrind-out-file=$d/cg.%p.%n $bin --port 14201 --datadir /tmp/keycache-data --innodb-flush-log-at-trx-commit=2 > $d/server.log 2>&1 & p=$!
for i in $(seq 300); do mariadb -h127.0.0.1 -P14201 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
mariadb -h127.0.0.1 -P14201 -uroot -e "LOAD INDEX INTO CACHE sbtest.sbtest1; SELECT SUM(LENGTH(pad)) FROM sbtest.sbtest1" >/dev/null; $SB select_random_points --threads=1 --time=0 --events=200 --random-points=$PTS --rand-type=uniform run >/dev/null 2>&1
callgrind_control -z $p >/dev/null
$SB select_random_points --threads=1 --time=0 --events=$E --random-points=$PTS --rand-type=uniform run 2>&1 | grep "transactions:"
callgrind_control -d $p >/dev/null; sleep 1
kill $p; wait $p
f=$(grep -l "Trigger: dump" $d/cg.* | head -1)
ir=$(grep -h "^totals:\|^summary:" $f | head -1 | awk '{print $2}')
echo "binary=$1 points=$PTS events=$E Ir=$ir Ir_per_txn=$((ir / E)) file=$f"
