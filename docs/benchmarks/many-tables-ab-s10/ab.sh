set -x
for round in 1 2; do
for v in b03 head; do
  sync; sleep 20
  /work/bins/myriad-bench-head run many-tables --target myriad --tables 100000 --myriad-bin /work/bins/myriad-$v --out /tmp/ab-$v-$round > /tmp/ab-$v-$round.log 2>&1
done
done
