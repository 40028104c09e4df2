#!/bin/bash
# Session 17 on the lent 16-core machine, first call: many-tables (seed 000, issue 5 item 3)
# with 100,000 tables, the server on CPUs 0-7 and the bench's client loop on 8-15; then
# query-cache (seed 002, issue 7) over loopback TCP with the server on CPUs 0-3 and sysbench on
# 4-15 (the server the bottleneck, as where clients run on other hosts), 1 / 16 / 100 threads,
# three repetitions. Needs .devbundle/mb.tgz (docs/benchmarks/device-s13/make-bundle.sh).
nproc; ulimit -n 65536 2>/dev/null; ulimit -n
# Always unpacked: a warm machine may hold the bundle of an earlier call (an older build).
rm -rf /tmp/mb; tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh >/dev/null
B=/opt/mb/myriad
echo "== many-tables $(date -u +%T)"
$B/myriad-bench run many-tables --target myriad --tables 100000 \
  --server-cpus 0-7 --client-cpus 8-15 --out $OUT/mt --work-dir /tmp >/dev/null 2>&1
sed -n '/Tables per second/,/^$/p;/All measurements/,/^$/p' $OUT/mt/many-tables.md
echo "== query-cache tcp $(date -u +%T)"
$B/myriad-bench run query-cache --target myriad --threads 1,16,100 --time 3 --repeat 3 \
  --server-cpus 0-3 --client-cpus 4-15 --out $OUT/qc-tcp --work-dir /tmp 2>&1 | grep -B2 -A7 "TPS with the query cache\|paired with cache off\|CPU per transaction"
echo "== done $(date -u +%T)"
