#!/bin/bash
# usage: ab-mt.sh ROUNDS BIN...: many-tables (myriad, 100,000 tables) for each binary in turn
R=$1; shift
for r in $(seq $R); do for b in "$@"; do
  l=$(basename $b)-$r
  /work/main/target/release/myriad-bench run many-tables --target myriad --tables 100000 --myriad-bin $b --out /tmp/s12/ab-$l --work-dir /tmp/s12 > /tmp/s12/ab-$l.log 2>&1
  echo "== $l"; grep -E "^\| myriad \| myriad \| select" /tmp/s12/ab-$l/many-tables.md | awk -F'|' '{print "toc="$5, "pass="$7, "rate="$9, "floor_s="$11, "us/open="$12, "cpu/stmt="$13, "floorcpu="$14, "cpu/open="$15}'
  grep -E "^\| myriad \| myriad \| create" /tmp/s12/ab-$l/many-tables.md | awk -F'|' '{print "create rate="$9, "cpu="$10}'
done; done
