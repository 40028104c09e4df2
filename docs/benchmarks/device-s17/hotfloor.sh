#!/bin/bash
# usage: hotfloor.sh : the query-cache experiment's hot set (oltp_read_only on 1,000 rows) with
# the cache off and at 256 MB, beside its round-trip floor (floor.lua: the same 16 statements
# per transaction, all SELECT 1), over loopback TCP and the unix socket, at 1 / 16 / 100
# threads; server on $SCPU (0-3), sysbench on $CCPU (4-15), T seconds a run (3). Prints TPS and
# server CPU per transaction: the floor bounds what any cache can reach.
set -u
SCPU=${SCPU:-0-3}; CCPU=${CCPU:-4-15}; T=${T:-3}; P=${P:-14633}; BIN=${BIN:-target/release/myriad}
here=$(cd "$(dirname "$0")" && pwd); FLOOR=$here/../querycache-s11/floor.lua
D=/tmp/hotfloor-data-$P; rm -rf $D; mkdir -p $D
source $here/serve.sh
base="--mysql-user=root --mysql-db=sbtest --tables=1 --table-size=1000 --mysql-ssl=off"
taskset -c $CCPU sysbench oltp_read_only --mysql-host=127.0.0.1 --mysql-port=$P $base prepare >/dev/null 2>&1 || echo prepare failed
one() { # one TRANSPORT TEST THREADS LABEL
  local conn="--mysql-host=127.0.0.1 --mysql-port=$P"; [ $1 = socket ] && conn="--mysql-socket=$D.sock"
  read c0 < <(awk '{print $14+$15}' /proc/$PID/stat)
  out=$(taskset -c $CCPU sysbench $2 $conn $base --threads=$3 --time=$T run 2>&1)
  read c1 < <(awk '{print $14+$15}' /proc/$PID/stat)
  tx=$(echo "$out" | awk '/transactions:/{print $2}')
  printf '%-6s %3s threads %-9s tps %8s  server cpu/txn %s us\n' $1 $3 $4 "$(echo "$out" | awk '/transactions:/{print $3}' | tr -d '(')" "$(python3 -c "print(round(($c1-$c0)*10000/max($tx,1),1))")"
}
for tr in tcp socket; do for th in 1 16 100; do
  one $tr $FLOOR $th floor
  setq "SET GLOBAL query_cache_size=0"
  one $tr oltp_read_only $th off
  setq "SET GLOBAL query_cache_size=268435456"
  T=2 one $tr oltp_read_only $th warm >/dev/null
  one $tr oltp_read_only $th on-256MB
done; done
kill $PID; wait $PID; rm -rf $D $D.set.lua
