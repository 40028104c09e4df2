#!/bin/bash
# select_random_points, 16 threads: binaries A and B alternating on one datadir.
set -e
D=/tmp/thp-data; P=14411
start() {
  $1 --datadir=$D --port=$P --key-buffer-size=536870912 --innodb-flush-log-at-trx-commit=2 --log-error=$D.log &
  SPID=$!
  for i in $(seq 100); do mariadb -h127.0.0.1 -P$P -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
}
SB="sysbench select_random_points --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=1000000 --rand-type=uniform --random-points=${POINTS:-10}"
for r in $(seq ${ROUNDS:-3}); do
for b in "$@"; do
  start $b
  mariadb -h127.0.0.1 -P$P -uroot -e 'LOAD INDEX INTO CACHE sbtest.sbtest1' >/dev/null
  $SB --threads=${TH:-16} --time=3 run >/dev/null
  c0=$(awk '{print $14+$15}' /proc/$SPID/stat)
  out=$($SB --threads=${TH:-16} --time=${T:-10} run | grep -E 'transactions:')
  c1=$(awk '{print $14+$15}' /proc/$SPID/stat)
  tps=$(echo "$out" | sed 's/.*(\([0-9.]*\) per sec.*/\1/'); n=$(echo "$out" | awk '{print $2}')
  echo "$(basename $b) tps=$tps cpu_us_per_stmt=$(( (c1-c0)*10000/n ))"
  kill $SPID; wait $SPID || true
done
done
