#!/bin/bash
# usage: [TOC=64] [EXTRA="server args"] [STMTS=file] diff.sh BIN LABEL (after tablecache-s12/setup.sh;
# session 14): perf samples (-F 4000) of the server per symbol during 20,000 SELECT * FROM tK of
# a second pass and during 20,000 distinct SELECT k, and the symbols that differ most
B=$1; L=$2
$B --port 14100 --datadir /tmp/tp/data --table_open_cache=${TOC:-64} $EXTRA > /tmp/s14/srv-$L.log 2>&1 & P=$!
for i in $(seq 120); do mariadb -h127.0.0.1 -P14100 -uroot -e "select 1" >/dev/null 2>&1 && break; sleep 0.5; done
S=${STMTS:-/tmp/tp/s20.sql}
mariadb -h127.0.0.1 -P14100 -uroot < $S >/dev/null
mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/f20b.sql >/dev/null
perf record -F 4000 -p $P -o /tmp/s14/pf-$L.data -- sleep 100 2>/dev/null & SP=$!; sleep 0.3; mariadb -h127.0.0.1 -P14100 -uroot < /tmp/tp/f20.sql >/dev/null; kill -INT $SP; wait $SP
perf record -F 4000 -p $P -o /tmp/s14/ps-$L.data -- sleep 100 2>/dev/null & SP=$!; sleep 0.3; mariadb -h127.0.0.1 -P14100 -uroot < $S >/dev/null; kill -INT $SP; wait $SP
kill $P; wait $P
for x in pf ps; do perf report -i /tmp/s14/$x-$L.data --no-children --sort sym -n 2>/dev/null | grep -v "^#" | grep -v "^$" | awk '{s=$2; $1="";$2=""; print s"\t"$0}' > /tmp/s14/$x-$L.txt; done
python3 - /tmp/s14/pf-$L.txt /tmp/s14/ps-$L.txt <<'PY'
import sys
def load(f):
    d={}
    for l in open(f):
        n,s=l.split('\t',1); d[s.strip()]=d.get(s.strip(),0)+int(n)
    return d
f,s=load(sys.argv[1]),load(sys.argv[2])
tf,ts=sum(f.values()),sum(s.values())
print("total samples floor",tf,"select",ts,"diff",ts-tf,"= %.1f us/stmt at 4000 Hz"%((ts-tf)/4000/20000*1e6))
keys=set(f)|set(s)
rows=sorted(keys,key=lambda k:-(s.get(k,0)-f.get(k,0)))
for k in rows[:45]: print("%6d %6d %+6d  %s"%(f.get(k,0),s.get(k,0),s.get(k,0)-f.get(k,0),k))
print("...most negative"); 
for k in rows[-8:]: print("%6d %6d %+6d  %s"%(f.get(k,0),s.get(k,0),s.get(k,0)-f.get(k,0),k))
PY
