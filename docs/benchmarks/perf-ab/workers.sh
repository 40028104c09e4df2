#!/bin/bash
# Runtime worker threads (TOKIO_WORKER_THREADS) A/B on one binary: servers up at once on copies
# of one datadir, cells interleaved (each rep runs every worker count in turn, order rotated).
BIN=$1; REPS=${2:-3}; T=${3:-5}; DIR=${4:-/tmp/perf-ab5}
declare -A pid port
i=0
for w in 2 4 8; do
  port[$w]=$((14010+i)); i=$((i+1))
  TOKIO_WORKER_THREADS=$w $BIN --port ${port[$w]} --datadir $DIR/d$w --innodb-flush-log-at-trx-commit=2 > $DIR/srv$w.log 2>&1 & pid[$w]=$!
done
sleep 2
sb() { sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$1 --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=200000 "${@:2}"; }
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
for w in 2 4 8; do sb ${port[$w]} oltp_read_only --threads=16 --time=2 run >/dev/null 2>&1; done
orders=("2 4 8" "8 4 2" "4 8 2")
for threads in 16 1 64; do
  for rep in $(seq 1 $REPS); do
    for w in ${orders[$(( (rep-1) % 3 ))]}; do
      c0=$(cpu ${pid[$w]})
      out=$(sb ${port[$w]} oltp_read_only --threads=$threads --time=$T run 2>&1 | grep "transactions:")
      c1=$(cpu ${pid[$w]})
      n=$(echo "$out" | awk '{print $2}'); tps=$(echo "$out" | sed -E 's/.*\(([0-9.]+) per sec.*/\1/')
      us=$(awk -v c=$((c1-c0)) -v n=$n 'BEGIN{printf "%.1f", c*10000/n}')
      echo "rep=$rep workers=$w test=oltp_read_only threads=$threads tps=$tps cpu_us_per_txn=$us load=$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
for w in 2 4 8; do kill ${pid[$w]}; done; wait
