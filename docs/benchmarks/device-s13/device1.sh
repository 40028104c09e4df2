#!/bin/bash
# Session 13 on the lent 16-core machine, first call: the block cache thread sweep (issue 6,
# benchmark 2) and key-cache (seed 001, 10 points) with the servers on CPUs 0-7 and sysbench
# on 8-15. Needs .devbundle/mb.tgz (Debian 12's mariadbd and sysbench, stripped myriad
# binaries; see README.md beside this script). Writes to $OUT.
set -e
nproc; grep PRETTY /etc/os-release; uname -r; ulimit -n 65536 || true; ulimit -n
tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh
B=/opt/mb/myriad
echo "== sweep $(date -u +%T)"
$B/block_cache_sweep --millis 150 --rounds 3 --threads 1,2,4,8,16,64 | tee $OUT/sweep.txt
echo "== key-cache $(date -u +%T)"
set +e
$B/myriad-bench run key-cache --target both --rows 1000000 --threads 1,4,8,16,32,64,128 \
  --points 10 --time 4 --server-cpus 0-7 --client-cpus 8-15 --out $OUT/key-cache \
  --work-dir /tmp 2>&1 | tail -60
echo "== done $(date -u +%T)"
