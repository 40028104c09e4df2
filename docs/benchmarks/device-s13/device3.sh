#!/bin/bash
# Session 13, third call on the same machine: table-cache-instances (seed 004), myriad alone,
# servers on CPUs 0-7 and sysbench on 8-15.
[ -x /opt/mb/myriad/myriad-bench ] || { tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh; }
B=/opt/mb/myriad
echo "== table-cache-instances $(date -u +%T)"
$B/myriad-bench run table-cache-instances --target myriad --threads 1,16,64 --time 3 \
  --server-cpus 0-7 --client-cpus 8-15 --out $OUT/tci --work-dir /tmp 2>&1 | tail -50
echo "== done $(date -u +%T)"
