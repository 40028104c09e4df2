#!/bin/bash
# usage: create.sh BIN LABEL; CREATE rate of 20,000 one-column tables and server CPU per CREATE
BIN=$1; L=$2-$(date +%H%M%S); N=20000; cd /tmp/cr; rm -rf data-$L; mkdir data-$L
$BIN --port 14200 --datadir /tmp/cr/data-$L --innodb_flush_log_at_trx_commit=2 > srv-$L.log 2>&1 & P=$!
for i in $(seq 60); do mariadb -h127.0.0.1 -P14200 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
read u < <(awk '{print $14+$15}' /proc/$P/stat); t0=$(date +%s.%N)
mariadb -h127.0.0.1 -P14200 -uroot < create.sql > /dev/null
read u2 < <(awk '{print $14+$15}' /proc/$P/stat); t1=$(date +%s.%N)
echo "$L creates_per_s=$(echo "$N/($t1-$t0)"|bc) cpu_us_per_create=$(( (u2-u)*10000/N )) wall_s=$(echo "$t1-$t0"|bc)"
kill $P; wait $P
# kept: deleting makes the next CREATEs slow (ext4 recently_deleted)
