#!/bin/bash
# Session 16 on the lent 16-core machine, first call: table-cache-instances at 1 thread on
# servers side by side (paired samples, issue 5 item 5), then query-cache at 16 threads with
# three repetitions (issue 7), servers on CPUs 0-7 and sysbench on 8-15. Needs .devbundle/mb.tgz
# (docs/benchmarks/device-s13/make-bundle.sh). Writes to $OUT.
nproc; ulimit -n 65536 2>/dev/null; ulimit -n
[ -x /opt/mb/myriad/myriad-bench ] || { tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh >/dev/null; }
B=/opt/mb/myriad
echo "== table-cache-instances $(date -u +%T)"
$B/myriad-bench run table-cache-instances --target myriad --threads 1 --time 3 --repeat 4 \
  --server-cpus 0-7 --client-cpus 8-15 --out $OUT/tci --work-dir /tmp 2>&1 | grep -A8 "paired: 16 over 1"
echo "== query-cache $(date -u +%T)"
$B/myriad-bench run query-cache --target myriad --rows 100000 --threads 16 --time 4 --repeat 3 \
  --server-cpus 0-7 --client-cpus 8-15 --out $OUT/qc --work-dir /tmp 2>&1 | grep -B2 -A5 "paired with cache off\|CPU per transaction"
echo "== done $(date -u +%T)"
