#!/bin/bash
# myriad (new binary, port 14201, sbtest) against MariaDB 10.11 MyISAM (port 14202, sbmy), alternating per cell.
# usage: keycache-vs.sh ROUNDS THREADS POINTS TIME
R=$1; T=$2; PTS=$3; TIME=$4; MPID=$(cat /tmp/keycache-maria/m.pid)
/tmp/keycache-new-myriad --port 14201 --datadir /tmp/keycache-data --innodb-flush-log-at-trx-commit=2 > /tmp/keycache-vs-server.log 2>&1 & p=$!
for i in $(seq 50); do mariadb -h127.0.0.1 -P14201 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.2; done
mariadb -h127.0.0.1 -P14201 -uroot -e "LOAD INDEX INTO CACHE sbtest.sbtest1" >/dev/null
mariadb -h127.0.0.1 -P14202 -uroot -e "LOAD INDEX INTO CACHE sbmy.sbtest1" >/dev/null
sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$1 --mysql-user=root --mysql-db=$2 --tables=1 --table-size=200000 select_random_points --threads=$T --random-points=$PTS --rand-type=uniform "${@:3}" run 2>&1; }
sb 14201 sbtest --time=3 >/dev/null; sb 14202 sbmy --time=3 >/dev/null
for r in $(seq $R); do for which in myriad mariadb; do
  if [ $which = myriad ]; then port=14201; db=sbtest; pid=$p; else port=14202; db=sbmy; pid=$MPID; fi
  c0=$(awk '{print $14+$15}' /proc/$pid/stat)
  out=$(sb $port $db --time=$TIME | grep "transactions:")
  c1=$(awk '{print $14+$15}' /proc/$pid/stat)
  n=$(echo "$out" | awk '{print $2}'); tps=$(echo "$out" | sed -E 's/.*\(([0-9.]+) per sec.*/\1/')
  echo "rep=$r server=$which threads=$T points=$PTS tps=$tps cpu_us_per_txn=$(awk -v c=$((c1-c0)) -v n=$n 'BEGIN{printf "%.1f", c*10000/n}') load=$(cut -d' ' -f1 /proc/loadavg)"
done; done
kill $p; wait $p
