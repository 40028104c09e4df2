#!/bin/bash
# usage: TOC=64 prof.sh BIN OUT : perf record (cpu-clock 4 kHz) of the server over pass 2 of s100
B=$1; O=$2
$B --port 14100 --datadir /tmp/tp/data --table_open_cache=${TOC:-100000} $EXTRA > /tmp/tp/srv.log 2>&1 & P=$!
for i in $(seq 120); do mariadb -h127.0.0.1 -P14100 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/s100.sql >/dev/null
perf record -F 4000 -e cpu-clock $PERFG -p $P -o $O.data 2>/dev/null & R=$!
sleep 0.5
t0=$(date +%s%N); mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/${STMTS:-s100}.sql >/dev/null; t1=$(date +%s%N)
kill -INT $R; wait $R
echo "wall/stmt=$(( (t1-t0)/100000 ))ns"
kill $P; wait $P
perf report -i $O.data --no-children --sort sym --stdio 2>/dev/null | grep -v "^#" | grep -v "^$" | head -${TOP:-60} > $O.txt
perf report -i $O.data --no-children --sort dso --stdio 2>/dev/null | grep -v "^#" | grep -v "^$" | head -8 >> $O.txt
