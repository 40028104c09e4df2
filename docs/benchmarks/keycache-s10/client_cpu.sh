#!/bin/bash
# usage: client_cpu.sh BIN : server and sysbench CPU per transaction at 16 and 128 threads.
. "$(dirname "$0")/common.sh"
prepare_once $1
start $1
for th in 16 128 16 128; do
  $SB --threads=$th --time=3 run >/dev/null
  c0=$(awk '{print $14+$15}' /proc/$SPID/stat)
  /usr/bin/time -f "client_cpu_s=%U+%S" $SB --threads=$th --time=10 run 2>/tmp/ct.txt | grep transactions: > /tmp/tx.txt
  c1=$(awk '{print $14+$15}' /proc/$SPID/stat)
  n=$(awk '{print $2}' /tmp/tx.txt)
  echo "threads=$th $(sed 's/ \+/ /g' /tmp/tx.txt) server_us_per_txn=$(( (c1-c0)*10000/n )) $(tail -1 /tmp/ct.txt) client_us_per_txn=$(python3 -c "print(round(($(tail -1 /tmp/ct.txt | cut -d= -f2))*1e6/$n,1))")"
done
kill $SPID; wait $SPID
