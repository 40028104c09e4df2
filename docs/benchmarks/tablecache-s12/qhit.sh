#!/bin/bash
# usage: qhit.sh BIN OUT (after setup.sh; session 13): callgrind instructions of the server
# per statement, 20,000 query-cache hits (SELECT * FROM t1) against 20,000 distinct SELECT k
B=$1; O=$2; rm -f $O.1 $O.2 $O
[ -e /tmp/tp/h20.sql ] || (echo "USE d;"; for i in $(seq 20000); do echo "SELECT * FROM t1;"; done) > /tmp/tp/h20.sql
valgrind --tool=callgrind --callgrind-out-file=$O --instr-atstart=no $B --port 14100 --datadir /tmp/tp/data --query_cache_type=1 --query_cache_size=67108864 > /tmp/tp/srv-cgq.log 2>&1 & P=$!
for i in $(seq 120); do mariadb -h127.0.0.1 -P14100 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 1; done
mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/h20.sql >/dev/null
mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/f20b.sql >/dev/null
callgrind_control -i on $P >/dev/null; mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/f20.sql >/dev/null; callgrind_control -d floor $P >/dev/null; callgrind_control -z $P > /dev/null
mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/h20.sql >/dev/null; callgrind_control -d hits $P >/dev/null; callgrind_control -i off $P >/dev/null
kill $P; wait $P
f=$(grep totals: $O.1 | awk '{print $2}'); s=$(grep totals: $O.2 | awk '{print $2}')
echo "$O floor=$((f/20000)) hit=$((s/20000)) instructions/statement"
