#!/usr/bin/env bash
# usage: hotperf.sh BIN PORT ROWS THREADS TIME CFG -> perf profile of the server during one sysbench run
set -u
BIN=$1; PORT=$2; ROWS=$3; TH=$4; T=$5; CFG=$6
D=/tmp/querycache-s5/data-$PORT; rm -rf $D
$BIN --port $PORT --datadir $D --max-connections 400 --query_cache_type=1 --query_cache_size=$CFG --log-error $D.log &
PID=$!; sleep 3
M="mariadb -h127.0.0.1 -P$PORT -uroot --skip-ssl"
$M -e "create database sbtest"
SB="sysbench oltp_read_only --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=$ROWS --mysql-ssl=off ${SBX:-}"
$SB prepare >/dev/null 2>&1 || echo prepare failed
$SB --threads=$TH --time=5 run >/dev/null 2>&1   # warm the cache
L=$(cut -d' ' -f1 /proc/loadavg); read c0 < <(awk '{print $14+$15}' /proc/$PID/stat)
sleep 0 &
PP=$!
out=$($SB --threads=$TH --time=$T run 2>&1); wait $PP
read c1 < <(awk '{print $14+$15}' /proc/$PID/stat)
tx=$(echo "$out" | awk '/transactions:/{print $2}'); q=$(echo "$out" | awk '/queries:/{print $2; exit}')
echo "cfg=$CFG tps=$(echo "$out" | awk '/transactions:/{print $3}') cpu_us_per_txn=$(echo "($c1-$c0)*10000/$tx" | bc -l | cut -c1-7) cpu_us_per_query=$(echo "($c1-$c0)*10000/$q" | bc -l | cut -c1-6) load=$L"
$M -e "show global status like 'Qcache_hits'; show global status like 'Qcache_inserts'"
kill $PID; wait $PID; rm -rf $D
perf report -i /tmp/querycache-s5/perf-$CFG.data --no-children --sort symbol --stdio 2>/dev/null | grep -v '^#' | grep '%' | head -40
