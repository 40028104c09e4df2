#!/usr/bin/env python3
"""Peak server memory and time of two statements that used to grow without bound: a comma
join of two 2,000-row tables with no usable index, and an IN list of a million integer
constants over a non-indexed column. Starts the given myriad binary on a fresh datadir.

Usage: python3 scripts/statement_memory.py PATH/TO/myriad PORT [in]
  (with `in`, only the IN list, on a fresh server: the join raises the peak first)
Needs PyMySQL. Compare two builds by running it once for each.
"""
import pymysql, subprocess, sys, time, os, shutil
binary, port = sys.argv[1], int(sys.argv[2])
d = '/tmp/memcmp-%d' % port
shutil.rmtree(d, ignore_errors=True)
p = subprocess.Popen([binary, '--datadir', d, '--port', str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(2)
def peak(): return int(open('/proc/%d/status' % p.pid).read().split('VmHWM:')[1].split()[0]) // 1024
c = pymysql.connect(host='127.0.0.1', port=port, user='root', max_allowed_packet=64 << 20); cur = c.cursor()
cur.execute("CREATE DATABASE m"); cur.execute("USE m")
cur.execute("CREATE TABLE t (id INT PRIMARY KEY, k INT, pad VARCHAR(40))")
cur.execute("INSERT INTO t VALUES " + ",".join("(%d,%d,'%s')" % (i, i, 'x' * 30) for i in range(2000)))
only_in = len(sys.argv) > 3
b = peak(); t = time.time()
cur.execute("SELECT 1" if only_in else "SELECT count(*) FROM t a, t b WHERE a.k = b.k + 1"); r = cur.fetchall()[0][0]
print('%s join 2000x2000: %s rows, %.2f s, peak RSS +%d MB' % (binary, r, time.time() - t, peak() - b))
b = peak(); t = time.time()
cur.execute("SELECT count(*) FROM t WHERE k IN (%s)" % ",".join(str(i * 3) for i in range(1000000))); r = cur.fetchall()[0][0]
print('%s IN (1M ints): %s rows, %.2f s, peak RSS +%d MB' % (binary, r, time.time() - t, peak() - b))
p.terminate(); p.wait()
