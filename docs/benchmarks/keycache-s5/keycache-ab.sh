#!/bin/bash
# ABBA: old and new myriad binaries on the same datadir, select_random_points, CPU per txn.
# usage: keycache-ab.sh ROUNDS THREADS POINTS TIME
R=$1; T=$2; PTS=$3; TIME=$4
SB="sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=14201 --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=200000"
cell() {
  bin=/tmp/keycache-$1-myriad
  $bin --port 14201 --datadir /tmp/keycache-data --innodb-flush-log-at-trx-commit=2 > /tmp/keycache-ab-server.log 2>&1 & p=$!
  for i in $(seq 50); do mariadb -h127.0.0.1 -P14201 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.2; done
  $SB select_random_points --threads=$T --time=3 --random-points=$PTS --rand-type=uniform run >/dev/null 2>&1
  c0=$(awk '{print $14+$15}' /proc/$p/stat)
  out=$($SB select_random_points --threads=$T --time=$TIME --random-points=$PTS --rand-type=uniform run 2>&1 | grep "transactions:")
  c1=$(awk '{print $14+$15}' /proc/$p/stat)
  kill $p; wait $p
  n=$(echo "$out" | awk '{print $2}'); tps=$(echo "$out" | sed -E 's/.*\(([0-9.]+) per sec.*/\1/')
  echo "binary=$1 threads=$T points=$PTS tps=$tps cpu_us_per_txn=$(awk -v c=$((c1-c0)) -v n=$n 'BEGIN{printf "%.1f", c*10000/n}') load=$(cut -d' ' -f1 /proc/loadavg)"
}
for r in $(seq $R); do
  if [ $((r % 2)) = 1 ]; then cell old; cell new; else cell new; cell old; fi
done
