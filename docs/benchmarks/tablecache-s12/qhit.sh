#!/bin/bash
# usage: qhit.sh BIN OUT (after setup.sh; session 13): callgrind instructions of the server per
# query-cache hit ("select": 20,000 SELECT * FROM t1) against 20,000 distinct SELECT k
[ -e /tmp/tp/h20.sql ] || (echo "USE d;"; for i in $(seq 20000); do echo "SELECT * FROM t1;"; done) > /tmp/tp/h20.sql
STMTS=/tmp/tp/h20.sql EXTRA="--query_cache_type=1 --query_cache_size=67108864" \
  bash "$(dirname "$0")/cg.sh" "$1" "$2"
