#!/bin/bash
# Session 13, fifth call (same machine as the fourth): table-cache-instances at 1 thread,
# 3 repetitions in rotation, myriad alone, server on CPUs 0-7 and sysbench on 8-15.
[ -x /opt/mb/myriad/myriad-bench ] || { tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh >/dev/null; }
echo "== table-cache-instances $(date -u +%T)"
/opt/mb/myriad/myriad-bench run table-cache-instances --target myriad --threads 1 --time 3 --repeat 3 \
  --server-cpus 0-7 --client-cpus 8-15 --out $OUT/tci --work-dir /tmp 2>&1 | grep -A12 "instances=1 | instances=16"
echo "== done $(date -u +%T)"
