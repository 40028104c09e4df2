#!/bin/bash
# usage: ab_points.sh BIN... : select_random_points (POINTS, default 10) at TH threads (16),
# T seconds (10), ROUNDS rounds (3) of the binaries in turn on one datadir; TPS and server
# CPU per statement.
. "$(dirname "$0")/common.sh"
prepare_once $1
for r in $(seq ${ROUNDS:-3}); do
for b in "$@"; do
  start $b
  $SB --threads=${TH:-16} --time=3 run >/dev/null
  c0=$(awk '{print $14+$15}' /proc/$SPID/stat)
  out=$($SB --threads=${TH:-16} --time=${T:-10} run | grep -E 'transactions:')
  c1=$(awk '{print $14+$15}' /proc/$SPID/stat)
  tps=$(echo "$out" | sed 's/.*(\([0-9.]*\) per sec.*/\1/'); n=$(echo "$out" | awk '{print $2}')
  echo "$(basename $b) tps=$tps cpu_us_per_stmt=$(( (c1-c0)*10000/n ))"
  kill $SPID; wait $SPID || true
done
done
