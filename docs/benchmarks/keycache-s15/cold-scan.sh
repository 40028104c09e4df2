#!/usr/bin/env bash
# usage: cold-scan.sh BIN [ROWS] : a full scan of a ROWS-row table (id INT, pad CHAR(200);
# default 300,000, about 4,000 pages) through an empty key cache, with key_cache_block_size
# 16384 / 65536 / 262144, ROUNDS rounds (default 3) alternating. COLD=1 (default) drops the
# kernel's page cache before each scan (the read then comes from disk); COLD=0 leaves it (the
# read is a copy from the page cache: what remains is the system calls). Prints the scan's
# wall time, the server's CPU time for it and Key_reads.
set -u
BIN=$1; ROWS=${2:-300000}; P=${P:-14533}; D=/tmp/cold-scan-data
M="mariadb -h127.0.0.1 -P$P -uroot --skip-ssl"
start() { $BIN --port $P --datadir $D --log-error $D.log "$@" & PID=$!
  for i in $(seq 100); do $M -e 'SELECT 1' >/dev/null 2>&1 && return; sleep 0.1; done; }
stop() { $M -e shutdown; wait $PID; }
if [ ! -d $D ]; then
  mkdir -p $D; start
  python3 -c "
print('CREATE DATABASE r; CREATE TABLE r.t (id INT PRIMARY KEY, pad CHAR(200) NOT NULL);')
for b in range(0, $ROWS, 1000):
    print('INSERT INTO r.t VALUES ' + ','.join(f\"({i},'{'p'*190}{i:010}')\" for i in range(b, min(b + 1000, $ROWS))) + ';')
" | $M; stop
fi
for round in $(seq ${ROUNDS:-3}); do for bs in 16384 65536 262144; do
  start --key_cache_block_size=$bs
  [ "${COLD:-1}" = 1 ] && { sync; echo 3 > /proc/sys/vm/drop_caches; }
  read c0 < <(awk '{print $14+$15}' /proc/$PID/stat)
  t0=$(date +%s%N); out=$($M -N -e "SELECT COUNT(*), SUM(LENGTH(pad)) FROM r.t"); t1=$(date +%s%N)
  read c1 < <(awk '{print $14+$15}' /proc/$PID/stat)
  reads=$($M -N -e "SHOW GLOBAL STATUS LIKE 'Key_reads'" | cut -f2)
  echo "round=$round block_size=$bs cold=${COLD:-1} scan_ms=$(( (t1-t0)/1000000 )) server_cpu_ms=$(( (c1-c0)*10 )) key_reads=$reads result=$(echo $out | tr ' ' /)"
  stop
done; done
