cd /tmp/tablecache-prof
/tmp/tablecache-old-myriad --port 14100 --datadir /tmp/tablecache-prof/data --innodb_flush_log_at_trx_commit=2 > srv-create.log 2>&1 & P=$!
for i in $(seq 60); do mariadb -h127.0.0.1 -P14100 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
time mariadb -h127.0.0.1 -P14100 -uroot < create80k.sql
kill $P; wait $P
export N=100000 SQLDIR=big/ EXTRA=--key_buffer_size=16777216
./cellN.sh /tmp/tablecache-old-myriad 16384 K16-100k
./cellN.sh /tmp/tablecache-old-myriad 64 K16-100k
uptime
