#!/bin/bash
D=/tmp/thp-data; P=14411; BIN=$1
$BIN --datadir=$D --port=$P --key-buffer-size=536870912 --innodb-flush-log-at-trx-commit=2 --log-error=$D.log &
SPID=$!
for i in $(seq 100); do mariadb -h127.0.0.1 -P$P -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
SB="sysbench select_random_points --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=1000000 --rand-type=uniform --random-points=${POINTS:-10}"
mariadb -h127.0.0.1 -P$P -uroot -e 'LOAD INDEX INTO CACHE sbtest.sbtest1' >/dev/null
for th in 16 128 16 128; do
  $SB --threads=$th --time=3 run >/dev/null
  c0=$(awk '{print $14+$15}' /proc/$SPID/stat)
  /usr/bin/time -f "client_cpu_s=%U+%S" $SB --threads=$th --time=10 run 2>/tmp/ct.txt | grep transactions: > /tmp/tx.txt
  c1=$(awk '{print $14+$15}' /proc/$SPID/stat)
  n=$(awk '{print $2}' /tmp/tx.txt)
  echo "threads=$th $(cat /tmp/tx.txt | sed 's/ \+/ /g') server_us_per_txn=$(( (c1-c0)*10000/n )) $(tail -1 /tmp/ct.txt) client_us_per_txn=$(python3 -c "print(round(($(tail -1 /tmp/ct.txt | cut -d= -f2))*1e6/$n,1))")"
done
kill $SPID; wait $SPID
