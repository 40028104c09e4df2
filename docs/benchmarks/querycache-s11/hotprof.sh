#!/usr/bin/env bash
# usage: hotprof.sh BIN [QC_BYTES] : the query-cache experiment's hot set (oltp_read_only on
# 1,000 rows, TH threads, default 16) with the server on CPU 0 and sysbench on CPU 1; prints
# TPS and server CPU per transaction, and with PERF=1 the server's top symbols. SOCK=1:
# sysbench connects through a unix socket instead of TCP. TEST=path/floor.lua: another
# sysbench script on the same table (floor.lua: the round trips of oltp_read_only alone).
set -u
BIN=$1; QC=${2:-67108864}; TH=${TH:-16}; T=${T:-10}; P=${P:-14433}
D=/tmp/qc-s11-data-$P; rm -rf $D; mkdir -p $D
taskset -c 0 $BIN --port $P --datadir $D --max-connections 400 --query_cache_type=1 \
  --query_cache_size=$QC --log-error $D.log --socket $D.sock ${SERVER_ARGS:-} &
PID=$!
M="mariadb -h127.0.0.1 -P$P -uroot --skip-ssl"
for i in $(seq 100); do $M -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
$M -e "create database sbtest"
SB="taskset -c 1 sysbench ${TEST:-oltp_read_only} --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest $([ "${SOCK:-0}" = 1 ] && echo --mysql-socket=$D.sock) --tables=1 --table-size=1000 --mysql-ssl=off ${SBX:-}"
${SB/${TEST:-oltp_read_only}/oltp_read_only} prepare >/dev/null 2>&1 || echo prepare failed
$SB --threads=$TH --time=5 run >/dev/null 2>&1   # warm the cache
read c0 < <(awk '{print $14+$15}' /proc/$PID/stat)
if [ "${PERF:-0}" = 1 ]; then
  perf record -F 999 ${PERFG:--g} -p $PID -o /tmp/qc-s11-perf.data -- sleep $T >/dev/null 2>&1 &
else sleep 0 & fi
PP=$!
out=$($SB --threads=$TH --time=$T run 2>&1); wait $PP
read c1 < <(awk '{print $14+$15}' /proc/$PID/stat)
tx=$(echo "$out" | awk '/transactions:/{print $2}'); q=$(echo "$out" | awk '/queries:/{print $2; exit}')
echo "qc=$QC sock=${SOCK:-0} th=$TH tps=$(echo "$out" | awk '/transactions:/{print $3}') cpu_us_per_txn=$(echo "($c1-$c0)*10000/$tx" | bc -l | cut -c1-6) cpu_us_per_query=$(echo "($c1-$c0)*10000/$q" | bc -l | cut -c1-5) hits=$($M -N -e "show global status like 'Qcache_hits'" | cut -f2)"
kill $PID; wait $PID; rm -rf $D
if [ "${PERF:-0}" = 1 ]; then
  perf report -i /tmp/qc-s11-perf.data --no-children --sort ${SORT:-symbol} --stdio -g none 2>/dev/null | grep -v '^#' | grep '%' | head -${TOP:-45}
fi
