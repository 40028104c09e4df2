#!/usr/bin/env bash
# usage: ab.sh BIN PORT ROWS THREADS TIME ROUNDS  -> per cell: cfg tps cpu_us_per_txn minflt_per_txn rss_kb load
set -u
BIN=$1; PORT=$2; ROWS=$3; TH=$4; T=$5; R=$6
D=/tmp/querycache-s5/data-$PORT; rm -rf $D
$BIN --port $PORT --datadir $D --max-connections 400 --query_cache_type=1 --query_cache_size=0 --log-error $D.log &
PID=$!; sleep 3
M="mariadb -h127.0.0.1 -P$PORT -uroot --skip-ssl"
$M -e "create database sbtest" 2>&1
SB="sysbench oltp_read_only --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=$ROWS --mysql-ssl=off"
$SB prepare >/dev/null 2>&1 || echo prepare failed
stat() { awk '{print $10, $14+$15}' /proc/$PID/stat; }
for r in $(seq 1 $R); do
 for cfg in 0 67108864 67108864 0; do
  if [ $cfg = 0 ]; then $M -e "SET GLOBAL query_cache_type=0, query_cache_size=0; RESET QUERY CACHE"; else $M -e "SET GLOBAL query_cache_type=1, query_cache_size=$cfg; RESET QUERY CACHE"; fi
  L=$(cut -d' ' -f1 /proc/loadavg); read f0 c0 < <(stat)
  out=$($SB --threads=$TH --time=$T run 2>&1)
  read f1 c1 < <(stat); rss=$(awk '/VmRSS/{print $2}' /proc/$PID/status)
  tx=$(echo "$out" | awk '/transactions:/{print $2}'); tps=$(echo "$out" | awk '/transactions:/{gsub(/\(/,"",$3); print $3}')
  tck=$(getconf CLK_TCK)
  echo "r$r cfg=$cfg tps=$tps cpu_us_per_txn=$(echo "($c1-$c0)*1000000/$tck/$tx" | bc -l | cut -c1-7) minflt_per_txn=$(echo "($f1-$f0)/$tx" | bc -l | cut -c1-6) rss_kb=$rss load=$L"
 done
done
$M -e "show global status like 'Qcache%'" 
kill $PID; wait $PID; rm -rf $D
