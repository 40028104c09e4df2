#!/bin/bash
# Session 17, third call: where the server's CPU goes at the seed's low hit ratio with the query
# cache off and on (lowhit-prof.sh: 1M rows, 16 threads, server on CPUs 0-3, sysbench on 4-15,
# off / 64 MB / off / 64 MB), profiled by perf (Debian 12's, carried with its libraries in
# .devbundle/perf.tgz with a myriad build that keeps its symbols).
nproc; ulimit -n 65536 2>/dev/null
rm -rf /tmp/mb /tmp/perf; tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh >/dev/null
tar xzf .devbundle/perf.tgz -C /tmp
PERF="env LD_LIBRARY_PATH=/tmp/perf/lib /tmp/perf/perf"
$PERF --version
BIN=/tmp/perf/myriad-syms PERF="$PERF" bash docs/benchmarks/device-s17/lowhit-prof.sh 1000000 2>&1
cp /tmp/lowhit-symbols.tsv $OUT/ 2>/dev/null
echo "== done $(date -u +%T)"
