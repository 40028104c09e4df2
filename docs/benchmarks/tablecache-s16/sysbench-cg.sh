# Sourced by instances-cg.sh and hot-cg.sh: a myriad datadir with sysbench tables, and a server
# under callgrind whose instructions per sysbench event are counted. The caller sets B (the
# myriad binary), W (a work directory), P (a port), TABLES and ROWS.
SB="sysbench --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-db=sbtest --table-size=$ROWS"

wait_up() {
  for i in $(seq 120); do mariadb -h127.0.0.1 -P$P -uroot -e "select 1" >/dev/null 2>&1 && return; sleep 0.5; done
  echo "server on port $P did not start" >&2; exit 1
}

# A fresh datadir in $W/data holding sbtest's TABLES tables of ROWS rows.
prepare_datadir() {
  rm -rf $W; mkdir -p $W/data
  $B --port $P --datadir $W/data > $W/load.log 2>&1 & S=$!
  wait_up; mariadb -h127.0.0.1 -P$P -uroot -e "CREATE DATABASE sbtest"
  $SB --tables=$TABLES oltp_read_only prepare > /dev/null; kill $S; wait $S || true
}

# start_counted NAME [SERVER ARGS...]: the server under callgrind, counting nothing yet.
start_counted() {
  local name=$1; shift
  valgrind --tool=callgrind --callgrind-out-file=$W/cg-$name --instr-atstart=no $B --port $P \
    --datadir $W/data "$@" > $W/srv-$name.log 2>&1 & S=$!
  wait_up
}

# count NAME TEST TABLES EVENTS WARMUP: instructions per event of TEST run for EVENTS events
# at 1 thread after an uncounted run of WARMUP events (each run opens its own connection).
count() {
  $SB --tables=$3 --threads=1 --time=0 --events=$5 $2 run > /dev/null
  callgrind_control -z $S >/dev/null 2>&1; callgrind_control -i on $S >/dev/null 2>&1
  $SB --tables=$3 --threads=1 --time=0 --events=$4 $2 run > /dev/null
  callgrind_control -d $2-$3 $S >/dev/null 2>&1; callgrind_control -i off $S >/dev/null 2>&1
  local total=$(grep totals: $(ls -t $W/cg-$1.* | head -1) | awk '{print $2}')
  echo $((total / $4))
}

stop_counted() { kill $S; wait $S || true; }
