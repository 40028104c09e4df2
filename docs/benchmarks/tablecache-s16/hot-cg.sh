#!/bin/bash
# usage: [ROWS=n] hot-cg.sh BIN [EVENTS]: server instructions (callgrind) per transaction of
# the query cache's hot set (sysbench oltp_read_only on ROWS rows, default 1,000, prepared
# statements, 1 thread), cache off against on (64 MB, after a warm-up of 5 x EVENTS that fills
# it). ROWS=1000000 is the seed's low hit ratio. The profiles stay in /tmp/s16-hot/cg-{off,on}.*
# for callgrind_annotate.
set -e
B=$1; N=${2:-2000}; W=/tmp/s16-hot; P=14171; TABLES=1; ROWS=${ROWS:-1000}
. "$(dirname "$0")/sysbench-cg.sh"
prepare_datadir
for qc in off on; do
  args=(); [ $qc = on ] && args=(--query_cache_type=1 --query_cache_size=67108864)
  start_counted $qc "${args[@]}"
  # The warm-up lets every range be seen twice (admission) and cached before the count.
  echo "cache $qc: $(count $qc oltp_read_only 1 $N $((5 * N))) instructions per transaction"
  stop_counted
done
