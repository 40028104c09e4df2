#!/bin/bash
# usage: split_cores.sh BIN : select_random_points (POINTS) at 16 and 128 threads with the
# server on CPU 0 and sysbench on CPU 1, so the client's growing cost per transaction at
# 128 threads does not take the server's core.
. "$(dirname "$0")/common.sh"
prepare_once $1
start "taskset -c 0 $1"
for th in 16 128 16 128; do
  taskset -c 1 $SB --threads=$th --time=3 run >/dev/null
  c0=$(awk '{print $14+$15}' /proc/$SPID/stat)
  out=$(taskset -c 1 $SB --threads=$th --time=${T:-10} run | grep -E 'transactions:')
  c1=$(awk '{print $14+$15}' /proc/$SPID/stat)
  n=$(echo "$out" | awk '{print $2}')
  echo "threads=$th $(echo "$out" | sed 's/ \+/ /g') server_us_per_txn=$(( (c1-c0)*10000/n ))"
done
kill $SPID; wait $SPID
