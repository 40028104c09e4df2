#!/bin/bash
# usage: [DIR=/mnt/x] create.sh BIN LABEL [server args]: server CPU per CREATE and CREATEs per second
# over 20,000 one-column tables in a fresh datadir under DIR (default /tmp/cr); needs
# /tmp/cr/create20k.sql: CREATE DATABASE d; USE d; then CREATE TABLE tK (i INT) for K = 1..20,000
BIN=$1; L=$2; shift 2; D=${DIR:-/tmp/cr}/data-$L; rm -rf $D; mkdir -p $D
$BIN --port 14101 --datadir $D "$@" > /tmp/cr/srv-$L.log 2>&1 & P=$!
for i in $(seq 60); do mariadb -h127.0.0.1 -P14101 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
u=$(awk '{print $14+$15}' /proc/$P/stat); t0=$(date +%s.%N)
mariadb -h127.0.0.1 -P14101 -uroot < /tmp/cr/create20k.sql
t1=$(date +%s.%N); u2=$(awk '{print $14+$15}' /proc/$P/stat)
echo "$L cpu_us/create=$(( (u2-u)*10000/20000 )) rate=$(echo "20000/($t1-$t0)"|bc) fsyncs=$(mariadb -h127.0.0.1 -P14101 -uroot -N -e "show global status like 'Innodb_os_log_fsyncs'" | cut -f2)"
kill $P; wait $P
