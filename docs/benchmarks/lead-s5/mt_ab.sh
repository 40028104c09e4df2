#!/usr/bin/env bash
# floor / select passes over 20,000 tables: server CPU per statement, for a binary and env.
run() { # label bin env...
  label=$1; bin=$2; shift 2
  env "$@" $bin --port 14510 --datadir /tmp/lead/mt --innodb-flush-log-at-trx-commit=2 --table-open-cache=${TOC:-64} $EXTRA >> mt.log 2>&1 & PID=$!
  for _ in $(seq 100); do mariadb -h127.0.0.1 -P14510 -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done
  cpu(){ awk '{sub(/.*\) /,""); print $12+$13}' /proc/$PID/stat; }
  line="$label"
  for f in floor select select; do c0=$(cpu); s=$(date +%s%N); mariadb -h127.0.0.1 -P14510 -uroot many < $f.sql > /dev/null; e=$(date +%s%N); c1=$(cpu)
    line="$line $f:wall_us=$(( (e-s)/20000/1000 )),cpu_us=$(( (c1-c0)*10000/20000 ))"; done
  echo "$line"; kill $PID; wait $PID
}
for r in 1 2; do run before /tmp/lead/myriad-tp; run after /tmp/lead/myriad-new; done
