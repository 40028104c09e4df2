#!/bin/bash
# usage: sel.sh BIN LABEL [PERF]: 20,000 tables with a row each, made by BIN; restart; select passes
BIN=$1; L=$2-$(date +%H%M%S); N=20000; cd /tmp/cr; mkdir data-$L
start() { $BIN --port 14200 --datadir /tmp/cr/data-$L --innodb_flush_log_at_trx_commit=2 --table_open_cache=64 > srv-$L.log 2>&1 & P=$!; for i in $(seq 60); do mariadb -h127.0.0.1 -P14200 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done; }
start
mariadb -h127.0.0.1 -P14200 -uroot < create.sql > /dev/null
mariadb -h127.0.0.1 -P14200 -uroot < insert.sql > /dev/null
kill $P; wait $P; sync
start
for pass in 1 2; do
  [ -n "$3" ] && [ $pass = 1 ] && { perf record -F 2000 -g -p $P -o perf-$2.data 2>/dev/null & PP=$!; sleep 0.3; }
  read u < <(awk '{print $14+$15}' /proc/$P/stat); t0=$(date +%s.%N)
  mariadb -h127.0.0.1 -P14200 -uroot < select.sql > /dev/null
  read u2 < <(awk '{print $14+$15}' /proc/$P/stat); t1=$(date +%s.%N)
  [ -n "$PP" ] && { kill -INT $PP; wait $PP; PP=; }
  echo "$L select$pass cpu_us_per_stmt=$(( (u2-u)*10000/N )) wall_s=$(echo "$t1-$t0"|bc)"
done
kill $P; wait $P
