#!/bin/bash
# Session 16, third call: the hot set (oltp_read_only on 1,000 rows) with the server on CPUs
# SERVER (default 0-3) and sysbench on CLIENT (default 4-15), by thread_pool_size (tokio
# workers), cache off and on (64 MB), 16 and 100 client threads, 5 s each: does the worker
# count keep the server from using its cores? Prints TPS and the server's CPU use.
SERVER=${SERVER:-0-3}; CLIENT=${CLIENT:-4-15}; POOLS=${POOLS:-4 16 64}; THREADS=${THREADS:-16 100}
[ -x /opt/mb/myriad/myriad ] || { tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh >/dev/null; }
B=${BIN:-/opt/mb/myriad/myriad}; D=/tmp/s16-pool; P=14200; rm -rf $D; mkdir -p $D/data
up() { for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$P) 2>/dev/null && return; sleep 0.2; done; echo "server did not start"; exit 1; }
cpu() { awk '{print $14 + $15}' /proc/$1/stat; }
SB="sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=1000"
taskset -c $SERVER $B --port $P --datadir $D/data > $D/load.log 2>&1 & S=$!; up
mkdir -p $D/data/sbtest; $SB oltp_read_only prepare > /dev/null; kill $S; wait $S
hz=$(getconf CLK_TCK)
printf "%-5s %-4s %-7s %9s %10s %14s\n" pool qc threads tps server_cores cpu_us_per_txn
for pool in $POOLS; do
  for qc in off on; do
    args=""; [ $qc = on ] && args="--query_cache_type=1 --query_cache_size=67108864"
    taskset -c $SERVER $B --port $P --datadir $D/data --thread_pool_size=$pool $args > $D/srv.log 2>&1 & S=$!; up
    taskset -c $CLIENT $SB --threads=16 --time=2 oltp_read_only run > /dev/null
    for t in $THREADS; do
      c0=$(cpu $S); s0=$(date +%s.%N)
      tps=$(taskset -c $CLIENT $SB --threads=$t --time=5 oltp_read_only run | awk '/transactions:/{gsub("\\(","",$3); print $3}')
      c1=$(cpu $S); s1=$(date +%s.%N)
      awk -v p=$pool -v q=$qc -v t=$t -v tps=$tps -v c=$((c1 - c0)) -v hz=$hz -v s0=$s0 -v s1=$s1 \
        'BEGIN { w = s1 - s0; printf "%-5s %-4s %-7s %9.0f %10.2f %14.0f\n", p, q, t, tps, c / hz / w, c / hz / (tps * w) * 1e6 }'
    done
    kill $S; wait $S
  done
done
