#!/bin/bash
# myriad (NEW) against MariaDB 10.11 (already running on 13403: sbtest InnoDB, sbmy MyISAM),
# alternating per cell; TPS and server CPU per transaction.
NEW=$1; REPS=${2:-3}; T=${3:-4}; MPID=$(cat /tmp/perf-maria/mariadbd.pid)
$NEW --port 13402 --datadir /tmp/perf-ab/data2 --innodb-flush-log-at-trx-commit=2 > /tmp/perf-ab/server-new.log 2>&1 & p2=$!
sleep 2
sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$1 --mysql-user=root --mysql-db=$2 --tables=1 --table-size=200000 "${@:3}"; }
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
sb 13402 sbtest oltp_read_only --threads=16 --time=3 run >/dev/null 2>&1; sb 13403 sbtest oltp_read_only --threads=16 --time=3 run >/dev/null 2>&1
cells=("oltp_point_select 1" "oltp_point_select 16" "oltp_point_select 64" "oltp_read_only 1" "oltp_read_only 16" "oltp_read_only 64" "select_random_points 16 10" "select_random_points 16 50" "select_random_points 16 100" "select_random_points 128 50")
for cell in "${cells[@]}"; do
  set -- $cell
  extra=""; [ -n "$3" ] && extra="--random-points=$3 --rand-type=uniform"
  for rep in $(seq 1 $REPS); do
    for which in myriad mariadb; do
      port=13402; pid=$p2; db=sbtest
      if [ $which = mariadb ]; then port=13403; pid=$MPID; [ -n "$3" ] && db=sbmy; fi
      c0=$(cpu $pid)
      out=$(sb $port $db $1 --threads=$2 --time=$T $extra run 2>&1 | grep "transactions:")
      c1=$(cpu $pid)
      n=$(echo "$out" | awk '{print $2}'); tps=$(echo "$out" | sed -E 's/.*\(([0-9.]+) per sec.*/\1/')
      us=$(awk -v c=$((c1-c0)) -v n=$n 'BEGIN{printf "%.1f", c*10000/n}')
      echo "rep=$rep server=$which test=$1 threads=$2 points=${3:--} tps=$tps cpu_us_per_txn=$us load=$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
kill $p2; wait $p2
