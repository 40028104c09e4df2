#!/bin/bash
# usage: TEST=oltp_write_only wo.sh TAG...: per build, a fresh server, 100k rows, 16 threads 10 s
for tag in "$@"; do
  d=/work/exp/wo-$tag; rm -rf $d; mkdir -p $d
  /work/bins/myriad-$tag --datadir $d/data --port 3421 > $d/log 2>&1 &
  sleep 2
  mariadb -h127.0.0.1 -P3421 -uroot -e "CREATE DATABASE sbtest"
  SB="sysbench ${TEST:-oltp_write_only} --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3421 --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size=100000"
  $SB prepare > /dev/null 2>&1
  r=$($SB --threads=${THREADS:-16} --time=${TIME:-10} run 2>&1 | grep -E "transactions:" | awk '{print $3}')
  echo "${TEST:-oltp_write_only} $tag $r load $(cut -d' ' -f1 /proc/loadavg)"
  kill $(pgrep -f "port 3421"); sleep 2
done
