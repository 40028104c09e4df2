#!/bin/bash
# usage: cell.sh BIN TOC LABEL [perf]; server CPU us/stmt per pass over 100,000 one-column tables
BIN=$1; TOC=$2; L=$3; N=100000; cd /tmp/tp
$BIN --port 14100 --datadir /tmp/tp/data --table_open_cache=$TOC --innodb_flush_log_at_trx_commit=2 $EXTRA > srv-$L.log 2>&1 & P=$!
for i in $(seq 60); do mariadb -h127.0.0.1 -P14100 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
for f in floor select select; do
  if { [ "$f$PERF" = "selectyes" ] && [ -n "$second" ]; } || [ "$f$PERF" = "floorfloor" ]; then perf record -F 1000 --call-graph dwarf,16384 -p $P -o perf-$L.data 2>/dev/null & PP=$!; sleep 0.5; fi
  read u < <(awk '{print $14+$15}' /proc/$P/stat); t0=$(date +%s.%N)
  mariadb -h127.0.0.1 -P14100 -uroot < $f.sql > /dev/null
  read u2 < <(awk '{print $14+$15}' /proc/$P/stat); t1=$(date +%s.%N)
  [ -n "$PP" ] && { kill -INT $PP; wait $PP; PP=; }
  [ $f = select ] && second=1
  echo "$L toc=$TOC $f cpu_us_per_stmt=$(( (u2-u)*10000/N )) wall_s=$(echo "$t1-$t0"|bc)"
done
mariadb -h127.0.0.1 -P14100 -uroot -N -e "show global status where variable_name in ('Opened_files','Open_files','Open_table_definitions','Opened_table_definitions','Key_reads','Key_read_requests','Table_definition_images','Table_definition_image_bytes')" | tr '\n' ' '; echo
echo "rss_mb=$(awk '/VmRSS/{print int($2/1024)}' /proc/$P/status)"
kill $P; wait $P
