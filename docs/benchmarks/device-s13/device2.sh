#!/bin/bash
# Session 13, second call on the same machine: query-cache (seed 002), myriad alone, servers
# on CPUs 0-7 and sysbench on 8-15.
[ -x /opt/mb/myriad/myriad-bench ] || { tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh; }
B=/opt/mb/myriad
echo "== query-cache $(date -u +%T)"
$B/myriad-bench run query-cache --target myriad --rows 1000000 --threads 1,16,100 --time 4 \
  --server-cpus 0-7 --client-cpus 8-15 --out $OUT/query-cache --work-dir /tmp 2>&1 | tail -45
echo "== done $(date -u +%T)"
