#!/bin/bash
# usage: TOC=64 cpu.sh BIN : server CPU (schedstat ns) per statement: floor f20, select s20 (pass 2), 3 rounds
B=$1
$B --port 14100 --datadir /tmp/tp/data --table_open_cache=${TOC:-100000} $EXTRA > /tmp/tp/srv.log 2>&1 & P=$!
for i in $(seq 120); do mariadb -h127.0.0.1 -P14100 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
cpu() { cat /proc/$P/task/*/schedstat | awk "{s+=\$1} END {print s}"; }
mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/s20.sql >/dev/null
for r in 1 2 3; do
 for f in f20 s20; do
  a=$(cpu); t0=$(date +%s%N); mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/$f.sql >/dev/null; t1=$(date +%s%N); b=$(cpu)
  echo "$f cpu/stmt=$(( (b-a)/20000 ))ns wall/stmt=$(( (t1-t0)/20000 ))ns"
 done
done
kill $P; wait $P
