#!/usr/bin/env bash
# usage: ab.sh OLD NEW [ROUNDS] : hotprof.sh's hot set, cache on (64 MB) and off, the two
# binaries alternating, ROUNDS rounds (SOCK=1 for the unix socket).
D=$(dirname "$0")
for r in $(seq ${3:-3}); do
  for b in "$1" "$2"; do
    for qc in 67108864 0; do
      echo "round=$r bin=$b $($D/hotprof.sh $b $qc 2>&1 | tail -1)"
    done
  done
done
