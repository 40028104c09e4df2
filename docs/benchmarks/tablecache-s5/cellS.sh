#!/bin/bash
# usage: cellS.sh BIN OPEN_FILES_LIMIT LABEL ; cell.sh without the insert pass (the datadir stays as made), for old/new A/B
BIN=$1; OFL=$2; L=$3; cd /tmp/tablecache-prof
$BIN --port 14100 --datadir /tmp/tablecache-prof/data --table_open_cache=64 --table_definition_cache=400 --open_files_limit=$OFL --innodb_flush_log_at_trx_commit=2 $EXTRA > srv-$L.log 2>&1 & P=$!
for i in $(seq 60); do mariadb -h127.0.0.1 -P14100 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
rss(){ awk '/VmRSS/{print int($2/1024)}' /proc/$P/status; }
echo "$L ofl=$OFL rss_start_mb=$(rss)"
for f in floor select select; do
  read u s < <(awk '{print $14+$15}' /proc/$P/stat); t0=$(date +%s.%N)
  mariadb -h127.0.0.1 -P14100 -uroot < $f.sql > /dev/null
  read u2 < <(awk '{print $14+$15}' /proc/$P/stat); t1=$(date +%s.%N)
  echo "$L ofl=$OFL $f cpu_us_per_stmt=$(( (u2-u)*10000/20000 )) wall_s=$(echo "$t1-$t0"|bc) rss_mb=$(rss)"
done
mariadb -h127.0.0.1 -P14100 -uroot -N -e "show global status where variable_name in ('Opened_files','Open_files','Open_table_definitions','Opened_table_definitions')" | tr '\n' ' '; echo
kill $P; wait $P
