#!/bin/bash
# A/B of two myriad binaries on one prepared datadir: select_random_points, 16 threads,
# server CPU per statement from /proc. Usage: ab.sh BIN_A BIN_B ROUNDS
D=/tmp/prof-data; P=14411; POINTS=${POINTS:-10}
SB="sysbench select_random_points --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=1000000 --rand-type=uniform --random-points=$POINTS"
cell() {
  "$1" --datadir=$D --port=$P --key-buffer-size=536870912 --innodb-flush-log-at-trx-commit=2 --log-error=/tmp/ab-server.log &
  local pid=$!
  for i in $(seq 100); do mariadb -h127.0.0.1 -P$P -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
  mariadb -h127.0.0.1 -P$P -uroot -e 'LOAD INDEX INTO CACHE sbtest.sbtest1' >/dev/null
  $SB --threads=16 --time=5 run >/dev/null
  local t0=$(awk '{print $14+$15}' /proc/$pid/stat)
  local tps=$($SB --threads=16 --time=10 run | awk '/transactions:/ {gsub(/\(/,"",$3); print $3}')
  local t1=$(awk '{print $14+$15}' /proc/$pid/stat)
  local hz=$(getconf CLK_TCK)
  echo "$2 points=$POINTS tps=$tps cpu_us_per_stmt=$(echo "($t1-$t0)*1000000/$hz/($tps*10)" | bc -l | cut -c1-6) load=$(cut -d' ' -f1 /proc/loadavg)"
  kill $pid; wait $pid 2>/dev/null
}
for r in $(seq ${3:-2}); do
  cell $1 A; cell $2 B; cell $2 B; cell $1 A
done
