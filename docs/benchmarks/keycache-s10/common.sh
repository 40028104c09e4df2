# Sourced by the scripts here: a myriad on the prepared select_random_points datadir.
D=/tmp/thp-data; P=14411
start() {
  $1 --datadir=$D --port=$P --key-buffer-size=536870912 --innodb-flush-log-at-trx-commit=2 --log-error=$D.log &
  SPID=$!
  for i in $(seq 100); do mariadb -h127.0.0.1 -P$P -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
  mariadb -h127.0.0.1 -P$P -uroot -e 'LOAD INDEX INTO CACHE sbtest.sbtest1' >/dev/null
}
SB="sysbench select_random_points --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=1000000 --rand-type=uniform --random-points=${POINTS:-10}"
# The datadir, once: sysbench prepare against the first binary given.
prepare_once() {
  [ -d $D ] && return
  mkdir -p $D; start $1
  mariadb -h127.0.0.1 -P$P -uroot -e 'CREATE DATABASE sbtest'
  $SB prepare >/dev/null
  kill $SPID; wait $SPID || true
}
