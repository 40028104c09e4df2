# Sourced by hotfloor.sh and lowhit-prof.sh: starts myriad ($BIN) on CPUs $SCPU, port $P,
# datadir $D, query cache type 1 at size 0 (switched at run time), sets PID, and defines
# `setq SQL` (one statement through sysbench's driver: these machines may lack a mysql client).
taskset -c $SCPU $BIN --port $P --datadir $D --max-connections 400 --query_cache_type=1 \
  --query_cache_size=0 --log-error $D.log --socket $D.sock &
PID=$!
for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$P) 2>/dev/null && break; sleep 0.1; done
cat > $D.set.lua <<'LUA'
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query(os.getenv("SQL"))
end
LUA
setq() { SQL="$1" sysbench $D.set.lua --db-driver=mysql --mysql-db=mysql --mysql-host=127.0.0.1 --mysql-port=$P --mysql-user=root --mysql-ssl=off prepare >/dev/null 2>&1 || echo "failed: $1"; }
setq "CREATE DATABASE sbtest"
