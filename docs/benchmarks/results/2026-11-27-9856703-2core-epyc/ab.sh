#!/bin/bash
# BASE_BIN and HEAD_BIN: the two myriad binaries to compare (release builds).
# ab.sh: point_select and read_only, base vs head, alternating, both servers up.
start() { rm -rf /tmp/ab-$1; mkdir -p /tmp/ab-$1; $2 --datadir /tmp/ab-$1/data --port $3 > /tmp/ab-$1/log 2>&1 & sleep 2;
  mariadb -h127.0.0.1 -P$3 -uroot -e "CREATE DATABASE sbtest";
  sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$3 --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=100000 oltp_read_only prepare > /dev/null 2>&1; }
start base ${BASE_BIN:-/work/wt-base/target/release/myriad} 3801
start head ${HEAD_BIN:-target/release/myriad} 3802
run() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$2 --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=100000 $3 --threads=16 --time=8 run | grep "transactions:" | sed -E 's/.*\(([0-9.]+) per sec.*/\1/'; }
for test in oltp_read_only oltp_point_select; do
  for i in 1 2 3; do
    h=$(run head 3802 $test); b=$(run base 3801 $test)
    echo "$test round $i: base $b head $h"
  done
done
pkill -f "port 380[12]"
