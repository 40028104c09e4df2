#!/bin/bash
# MariaDB alone with myriad-bench's options: oltp_read_only 1M rows, 16 threads, CPU per txn.
set -e
D=/tmp/maria-alone; P=14520
pkill -f "port=$P" || true; sleep 1; rm -rf $D; mkdir -p $D
mariadb-install-db --no-defaults --datadir=$D/data --auth-root-authentication-method=normal >/dev/null 2>&1
mariadbd --no-defaults --datadir=$D/data --port=$P --socket=$D/sock --pid-file=$D/pid --user=root \
  --innodb-buffer-pool-size=1G --innodb-log-file-size=256M --innodb-flush-log-at-trx-commit=2 \
  --performance-schema=OFF --skip-name-resolve --log-error=$D/err.log &
for i in $(seq 300); do mariadb -h127.0.0.1 -P$P -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.2; done
PID=$(cat $D/pid)
mariadb -h127.0.0.1 -P$P -uroot -e 'CREATE DATABASE sbtest'
SB="sysbench oltp_read_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=1000000 --mysql-storage-engine=innodb"
$SB prepare >/dev/null
$SB --threads=16 --time=5 run >/dev/null
for r in 1 2 3; do
  t0=$(awk '{print $14+$15}' /proc/$PID/stat)
  tps=$($SB --threads=16 --time=10 run | awk '/transactions:/ {gsub(/\(/,"",$3); print $3}')
  t1=$(awk '{print $14+$15}' /proc/$PID/stat)
  echo "mariadb alone rep=$r tps=$tps cpu_us_per_txn=$(echo "($t1-$t0)*1000000/100/($tps*10)" | bc -l | cut -c1-6) load=$(cut -d' ' -f1 /proc/loadavg)"
done
kill $PID; wait 2>/dev/null || true
