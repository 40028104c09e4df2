#!/bin/bash
# usage: profile_points.sh BIN : perf profile of the server under select_random_points
# (POINTS, TH threads), top TOP symbols.
. "$(dirname "$0")/common.sh"
prepare_once $1
start $1
$SB --threads=${TH:-16} --time=3 run >/dev/null
perf record -F 999 -g -p $SPID -o /tmp/perf-pts.data -- sleep 8 >/dev/null 2>&1 &
PP=$!
$SB --threads=${TH:-16} --time=8 run | grep -E "transactions:"
wait $PP
kill $SPID; wait $SPID 2>/dev/null || true
perf report -i /tmp/perf-pts.data --no-children --sort symbol --stdio -g none 2>/dev/null | grep -v "^#" | grep "%" | head -${TOP:-30}
