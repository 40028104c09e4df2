#!/bin/bash
BIN=$1; L=$2-$(date +%H%M%S); N=20000; cd /tmp/cr; mkdir data-$L
$BIN --port 14200 --datadir /tmp/cr/data-$L --innodb_flush_log_at_trx_commit=2 > srv-$L.log 2>&1 & P=$!
for i in $(seq 60); do mariadb -h127.0.0.1 -P14200 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
perf record -F 2000 -g -p $P -o perf-$2.data 2>/dev/null & PP=$!; sleep 0.5
mariadb -h127.0.0.1 -P14200 -uroot < create.sql > /dev/null
kill -INT $PP; wait $PP
kill $P; wait $P
