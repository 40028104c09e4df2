#!/bin/bash
# Session 16, fourth call: query-cache (seed 002) as the issue states it (1M rows, threads 1 /
# 16 / 100, cache off / 64 MB / 256 MB), two repetitions, with thread_pool_size's new default
# (one worker per core: 8 here), servers on CPUs 0-7 and sysbench on 8-15.
nproc; ulimit -n 65536 2>/dev/null
# Always unpacked: a warm machine may hold the bundle of an earlier call (an older build).
rm -rf /tmp/mb; tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh >/dev/null
B=/opt/mb/myriad
$B/myriad --version 2>/dev/null | head -1
echo "== query-cache $(date -u +%T)"
$B/myriad-bench run query-cache --target myriad --threads 1,16,100 --time 4 --repeat 2 \
  --server-cpus 0-7 --client-cpus 8-15 --out $OUT/qc --work-dir /tmp 2>&1 | grep -B2 -A7 "TPS with the query cache\|paired with cache off\|CPU per transaction"
echo "== done $(date -u +%T)"
