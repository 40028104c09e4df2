#!/bin/bash
# usage: instances-cg.sh BIN [EVENTS]: server instructions (callgrind) per sysbench event at 1
# thread, table_open_cache_instances 1 against 16, for oltp_point_select (EVENTS events) and
# oltp_read_only (EVENTS/10), on 1 and 2 tables of 10,000 rows. Deterministic where TPS at 1
# thread moves by 15 % between samples: it decides whether instances cost anything at 1
# thread (issue 5, item 5). Each cell: a warm-up run, then one measured run of new
# connections (so a connection's first use of its instance is counted, as in a real run).
set -e
B=$1; N=${2:-20000}; W=/tmp/s16-instances; P=14170
rm -rf $W; mkdir -p $W/data
SB="sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --table-size=10000"
wait_up() { for i in $(seq 120); do mariadb -h127.0.0.1 -P$P -uroot -e "select 1" >/dev/null 2>&1 && return; sleep 0.5; done; exit 1; }
$B --port $P --datadir $W/data > $W/load.log 2>&1 & S=$!
wait_up; mariadb -h127.0.0.1 -P$P -uroot -e "CREATE DATABASE sbtest"
$SB --tables=2 oltp_point_select prepare > /dev/null; kill $S; wait $S || true
printf "%-10s %-18s %-6s %14s\n" instances test tables instr/event
for inst in 1 16; do
  valgrind --tool=callgrind --callgrind-out-file=$W/cg-$inst --instr-atstart=no $B --port $P --datadir $W/data \
    --table_open_cache_instances=$inst > $W/srv-$inst.log 2>&1 & S=$!
  wait_up
  for test in oltp_point_select oltp_read_only; do
    for tables in 1 2; do
      events=$N; [ $test = oltp_read_only ] && events=$((N / 10))
      $SB --tables=$tables --threads=1 --time=0 --events=$((events / 10)) $test run > /dev/null
      callgrind_control -z $S >/dev/null 2>&1; callgrind_control -i on $S >/dev/null 2>&1
      $SB --tables=$tables --threads=1 --time=0 --events=$events $test run > /dev/null
      callgrind_control -d $test-$tables $S >/dev/null 2>&1; callgrind_control -i off $S >/dev/null 2>&1
      f=$(ls -t $W/cg-$inst.* | head -1)
      total=$(grep totals: $f | awk '{print $2}')
      printf "%-10s %-18s %-6s %14s\n" $inst $test $tables $((total / events))
    done
  done
  kill $S; wait $S || true
done
