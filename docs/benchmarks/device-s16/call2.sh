#!/bin/bash
# Session 16, second call: query-cache with the server on 4 cores (0-3) and sysbench on the
# other 12 (4-15), 16 and 100 threads, two repetitions: where the client has the larger
# share, as when clients run on other machines, the server's CPU per transaction decides.
nproc; ulimit -n 65536 2>/dev/null
[ -x /opt/mb/myriad/myriad-bench ] || { tar xzf .devbundle/mb.tgz -C /tmp && /tmp/mb/install.sh >/dev/null; }
B=/opt/mb/myriad
echo "== query-cache $(date -u +%T)"
$B/myriad-bench run query-cache --target myriad --rows 100000 --threads 16,100 --time 4 --repeat 2 \
  --server-cpus 0-3 --client-cpus 4-15 --out $OUT/qc4 --work-dir /tmp 2>&1 | grep -B2 -A6 "TPS with the query cache\|paired with cache off\|CPU per transaction"
echo "== done $(date -u +%T)"
