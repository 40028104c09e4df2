#!/usr/bin/env bash
# Interleaved: myriad with TOKIO_WORKER_THREADS=A vs B, oltp_read_only 16 threads, CPU/txn.
set -u
BIN=${BIN:-/work/main/target/release/myriad}
PORT=14500; DIR=/tmp/lead/data; ROUNDS=${ROUNDS:-3}; SECS=${SECS:-15}; TH=${TH:-16}; TEST=${TEST:-oltp_read_only}
SB="sysbench $TEST --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size=${ROWS:-1000000} --report-interval=0"
PID=
start() { TOKIO_WORKER_THREADS=$1 $BIN --port $PORT --datadir $DIR --innodb-flush-log-at-trx-commit=2 --max-connections=400 $EXTRA >>/tmp/lead/server.log 2>&1 & PID=$!
  for _ in $(seq 200); do mariadb -h127.0.0.1 -P$PORT -uroot -e 'SELECT 1' >/dev/null 2>&1 && return; sleep 0.1; done; echo nostart; exit 1; }
stop() { kill $PID; wait $PID 2>/dev/null; }
if [ ! -d $DIR ]; then mkdir -p $DIR; start 2; mariadb -h127.0.0.1 -P$PORT -uroot -e 'CREATE DATABASE sbtest'; $SB prepare >/dev/null; stop; fi
for r in $(seq $ROUNDS); do for w in $A $B ${C:-}; do
  if [ $w = maria ]; then PID=$(pgrep -f "port=14501" | head -1); P=14501; else start $w; P=$PORT; fi; SBP="${SB/--mysql-port=$PORT/--mysql-port=$P}"; $SBP --threads=$TH --time=${WARM:-3} run >/dev/null
  c0=$(awk '{sub(/.*\) /,""); print $12+$13}' /proc/$PID/stat)
  out=$($SBP --threads=$TH --time=$SECS run)
  c1=$(awk '{sub(/.*\) /,""); print $12+$13}' /proc/$PID/stat)
  tps=$(echo "$out" | sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p'); n=$(echo "$out" | sed -n 's/.*transactions: *\([0-9]*\) *(.*/\1/p')
  echo "round $r workers=$w tps=$tps cpu_us_per_txn=$(awk -v a=$c0 -v b=$c1 -v n=$n -v hz=$(getconf CLK_TCK) 'BEGIN{printf "%.0f",(b-a)/hz/n*1e6}') load=$(cut -d' ' -f1 /proc/loadavg)"
  [ $w = maria ] || stop; done; done
