#!/bin/bash
# usage: cg.sh BIN LABEL N ; the server under callgrind (toc=64, tdc=400), a cold pass of
# `SELECT * FROM d.tK` over the first N tables of /tmp/tablecache-prof/data; prints the
# server's instructions (Ir) of the whole run. Run it also with SQL=floor for the floor.
BIN=$1; L=$2; N=$3; SQL=${SQL:-select}; cd /tmp/tablecache-prof
head -n $N $SQL.sql > cg-$SQL-$N.sql
valgrind --tool=callgrind --callgrind-out-file=cg-$L-$SQL-$N.out $BIN --port 14101 --datadir /tmp/tablecache-prof/data \
  --table_open_cache=64 --table_definition_cache=400 --open_files_limit=16384 \
  --innodb_flush_log_at_trx_commit=2 --key_buffer_size=16M > cg-$L.log 2>&1 & P=$!
for i in $(seq 240); do mariadb -h127.0.0.1 -P14101 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
mariadb -h127.0.0.1 -P14101 -uroot < cg-$SQL-$N.sql > /dev/null
kill $P; wait $P
echo "$L $SQL N=$N $(grep -m1 '^summary:\|^totals:' cg-$L-$SQL-$N.out)"
