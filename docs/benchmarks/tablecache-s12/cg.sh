#!/bin/bash
# usage: [TOC=64] [STMTS=file] [EXTRA="server args"] cg.sh BIN OUT (after setup.sh): callgrind
# instructions of the server per SELECT k and per statement of STMTS (default: SELECT * FROM tK,
# second pass), 20,000 statements each; prints both and the difference
B=$1; O=$2; rm -f $O.*
valgrind --tool=callgrind --callgrind-out-file=$O --instr-atstart=no $B --port 14100 --datadir /tmp/tp/data --table_open_cache=${TOC:-100000} $EXTRA > /tmp/tp/srv-cg.log 2>&1 & P=$!
for i in $(seq 120); do mariadb -h127.0.0.1 -P14100 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 1; done
S=${STMTS:-/tmp/tp/s20.sql}
mariadb -h127.0.0.1 -P14100 -uroot < $S >/dev/null
mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/f20b.sql >/dev/null
callgrind_control -i on $P >/dev/null; mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/f20.sql >/dev/null; callgrind_control -d floor $P >/dev/null; callgrind_control -z $P > /dev/null
mariadb -h127.0.0.1 -P14100 -uroot < $S >/dev/null; callgrind_control -d select $P >/dev/null; callgrind_control -i off $P >/dev/null
kill $P; wait $P
f=$(grep totals: $O.1 | awk '{print $2}'); s=$(grep totals: $O.2 | awk '{print $2}')
echo "$O floor=$((f/20000)) select=$((s/20000)) diff=$(((s-f)/20000)) instructions/statement"
