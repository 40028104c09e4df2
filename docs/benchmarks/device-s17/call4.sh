#!/bin/bash
# Session 17, fourth call: the hot set beside its round-trip floor over TCP and the unix socket
# (hotfloor.sh), then the low hit ratio (1M rows, 16 threads) with the cache switched off / on /
# on / off / off / on (lowhit-prof.sh without perf: an ABBA order, so that a drift of the
# machine falls on both alike). Server on CPUs 0-3, sysbench on 4-15.
nproc; ulimit -n 65536 2>/dev/null
rm -rf /tmp/mb; tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh >/dev/null
echo "== hot set and floor $(date -u +%T)"
BIN=/opt/mb/myriad/myriad T=3 bash docs/benchmarks/device-s17/hotfloor.sh 2>&1
echo "== low hit, ABBA $(date -u +%T)"
BIN=/opt/mb/myriad/myriad ORDER="0 67108864 67108864 0 0 67108864" T=5 bash docs/benchmarks/device-s17/lowhit-prof.sh 1000000 2>&1
echo "== done $(date -u +%T)"
