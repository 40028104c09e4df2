#!/bin/bash
# Session 13, fourth call (a fresh machine): the block cache thread sweep before and after
# the miss-path change (zipf 0.99, myriad and quick_cache, rounds interleaved by alternating
# the binaries), then the whole sweep after. Needs only .devbundle/sweep/sweep-{before,after}.
S=.devbundle/sweep
echo "== A/B $(date -u +%T)"
for round in 1 2; do
  for v in before after; do
    echo "-- $v (round $round)"
    $S/sweep-$v --caches myriad,quick_cache --streams zipf0.99 --threads 1,4,8,16,64 --millis 150 --rounds 1 | grep -A7 "== zipf"
  done
done 2>&1 | tee $OUT/sweep-ab.txt
echo "== sweep after $(date -u +%T)"
$S/sweep-after --millis 150 --rounds 3 --threads 1,2,4,8,16,64 2>&1 | tee $OUT/sweep-after.txt
echo "== done $(date -u +%T)"
