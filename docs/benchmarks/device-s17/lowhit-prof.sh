#!/bin/bash
# usage: lowhit-prof.sh [ROWS] : oltp_read_only at a low hit ratio (ROWS rows, default 1M) with
# the server on CPUs $SCPU (default 0-3) and sysbench on $CCPU (4-15), TH threads (16); the query
# cache switched at run time in the order ORDER (query_cache_size values, default off / 64 MB /
# off / 64 MB), T seconds each (5) after 3 s of warm-up;
# prints TPS, server CPU per transaction and, with perf (PERF=path), the server's top symbols of
# each run and those whose share moved most between off and on.
set -u
ROWS=${1:-1000000}; SCPU=${SCPU:-0-3}; CCPU=${CCPU:-4-15}; TH=${TH:-16}; T=${T:-5}; P=${P:-14533}
BIN=${BIN:-target/release/myriad}; PERF=${PERF:-}
D=/tmp/lowhit-data-$P; rm -rf $D; mkdir -p $D
here=$(cd "$(dirname "$0")" && pwd)
source $here/serve.sh
SB="taskset -c $CCPU sysbench oltp_read_only --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=$ROWS --mysql-ssl=off"
t0=$(date +%s); $SB --threads=8 prepare >/dev/null 2>&1 || echo prepare failed; echo "prepared $ROWS rows in $(( $(date +%s)-t0 )) s"
round=0
for qc in ${ORDER:-0 67108864 0 67108864}; do round=$((round+1))
  setq "SET GLOBAL query_cache_size=$qc"; setq "RESET QUERY CACHE"
  $SB --threads=$TH --time=3 run >/dev/null 2>&1
  read c0 < <(awk '{print $14+$15}' /proc/$PID/stat)
  if [ -n "$PERF" ]; then $PERF record -F 1999 -p $PID -o /tmp/lowhit-$round-$qc.data -- sleep $T >/dev/null 2>&1 & else sleep 0 & fi
  PP=$!
  out=$($SB --threads=$TH --time=$T run 2>&1); wait $PP
  read c1 < <(awk '{print $14+$15}' /proc/$PID/stat)
  tx=$(echo "$out" | awk '/transactions:/{print $2}')
  echo "round=$round qc=$qc th=$TH tps=$(echo "$out" | awk '/transactions:/{print $3}') cpu_us_per_txn=$(python3 -c "print(round(($c1-$c0)*10000/$tx,1))")"
done
kill $PID; wait $PID
if [ -n "$PERF" ]; then
  for f in /tmp/lowhit-*-*.data; do
    $PERF report -i $f --no-children --sort symbol --stdio 2>/dev/null | grep '%' | grep -v '^#' | \
      awk -v F=$(basename $f .data) '{p=$1; sub("%","",p); $1=""; $2=""; print F "\t" p "\t" $0}'
  done > /tmp/lowhit-symbols.tsv
  python3 - <<'PY'
import collections
d=collections.defaultdict(dict)
for l in open('/tmp/lowhit-symbols.tsv'):
    f,p,s=l.rstrip('\n').split('\t',2); d[f][s.strip()]=float(p)
off=[f for f in d if f.endswith('-0')]; on=[f for f in d if not f.endswith('-0')]
avg=lambda fs,s: sum(d[f].get(s,0) for f in fs)/max(len(fs),1)
syms=set(s for f in d for s in d[f])
print('top symbols, cache off / on (% of server samples, mean of rounds):')
for s in sorted(syms,key=lambda s:-avg(off+on,s))[:30]: print(f'{avg(off,s):6.2f} {avg(on,s):6.2f}  {s[:110]}')
print('moved most (on minus off):')
for s in sorted(syms,key=lambda s:-(avg(on,s)-avg(off,s)))[:15]: print(f'{avg(on,s)-avg(off,s):+6.2f}  {s[:110]}')
PY
fi
rm -rf $D $D.set.lua
