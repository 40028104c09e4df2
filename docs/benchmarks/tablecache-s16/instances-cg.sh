#!/bin/bash
# usage: instances-cg.sh BIN [EVENTS]: server instructions (callgrind) per sysbench event at 1
# thread, table_open_cache_instances 1 against 16, for oltp_point_select (EVENTS events) and
# oltp_read_only (EVENTS/10), on 1 and 2 tables of 10,000 rows. Deterministic where TPS at 1
# thread moves by 15 % between samples: it decides whether instances cost anything at 1
# thread (issue 5, item 5). Each cell: a warm-up run, then one measured run of new
# connections (so a connection's first use of its instance is counted, as in a real run).
set -e
B=$1; N=${2:-20000}; W=/tmp/s16-instances; P=14170; TABLES=2; ROWS=10000
. "$(dirname "$0")/sysbench-cg.sh"
prepare_datadir
printf "%-10s %-18s %-6s %14s\n" instances test tables instr/event
for inst in 1 16; do
  start_counted $inst --table_open_cache_instances=$inst
  for test in oltp_point_select oltp_read_only; do
    events=$N; [ $test = oltp_read_only ] && events=$((N / 10))
    for tables in 1 2; do
      printf "%-10s %-18s %-6s %14s\n" $inst $test $tables $(count $inst $test $tables $events $((events / 10)))
    done
  done
  stop_counted
done
