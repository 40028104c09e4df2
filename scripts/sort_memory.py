#!/usr/bin/env python3
"""Peak memory growth of sorts over a table larger than the sort budget, myriad and MariaDB
side by side in one run: each server is started on a fresh datadir, gets the same table
(ROWS rows of about 130 bytes), is restarted (so that the load's peak is gone) and reads
the table once (warm caches), then runs the same statements with the same session
sort_buffer_size; the growth of its peak resident memory (VmHWM) over each statement and
its peak after the warm-up are printed.

Usage: python3 scripts/sort_memory.py PATH/TO/myriad PORT [ROWS]
Needs PyMySQL and mariadbd + mariadb-install-db (Debian's mariadb-server).
"""
import os, shutil, subprocess, sys, time
import pymysql

binary, port = sys.argv[1], int(sys.argv[2])
rows = int(sys.argv[3]) if len(sys.argv) > 3 else 300000
work = '/tmp/sortmem-%d' % port
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
STATEMENTS = [
    ("top-3", "SELECT id, k, pad FROM t ORDER BY k DESC, id LIMIT 3"),
    ("sort, last 10", "SELECT id, k, pad FROM t ORDER BY pad, id LIMIT %d, 10" % (rows - 10)),
    ("group by, top 3", "SELECT k, COUNT(*), MIN(pad) FROM t GROUP BY k ORDER BY COUNT(*) DESC, k LIMIT 3"),
]


def start_myriad(port, fresh=True):
    d = os.path.join(work, 'myriad')
    p = subprocess.Popen([binary, '--datadir', d, '--port', str(port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p, d


def start_mariadb(port, fresh=True):
    d = os.path.join(work, 'mariadb')
    tmp = os.path.join(work, 'mariadb-tmp')
    os.makedirs(tmp, exist_ok=True)
    if fresh:
        subprocess.run(['mariadb-install-db', '--no-defaults', '--datadir=' + d, '--user=root',
                        '--auth-root-authentication-method=normal', '--skip-test-db'],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p = subprocess.Popen(['mariadbd', '--no-defaults', '--datadir=' + d, '--tmpdir=' + tmp,
                          '--port=%d' % port, '--socket=' + os.path.join(work, 'm.sock'),
                          '--user=root', '--skip-log-bin'],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p, d


def connect(port):
    for _ in range(100):
        try:
            return pymysql.connect(host='127.0.0.1', port=port, user='root', autocommit=True)
        except pymysql.err.OperationalError:
            time.sleep(0.2)
    raise RuntimeError('no server on port %d' % port)


def peak_kb(pid):
    return int(open('/proc/%d/status' % pid).read().split('VmHWM:')[1].split()[0])


def run(name, start, port):
    p, _ = start(port)
    try:
        c = connect(port)
        cur = c.cursor()
        cur.execute("CREATE DATABASE m")
        cur.execute("USE m")
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY, k INT, pad VARCHAR(120))")
        batch = 5000
        for start_id in range(0, rows, batch):
            cur.execute("INSERT INTO t VALUES " + ",".join(
                "(%d,%d,'%s')" % (i, (i * 7919) % 100003, ('%08d' % ((i * 104729) % 1000003)) * 14)
                for i in range(start_id, min(rows, start_id + batch))))
        # Restart, so that the peak of the load is not the peak the statements are
        # measured against, and read the table once so that both caches are warm.
        c.close()
        p.terminate()
        p.wait()
        p, _ = start(port, fresh=False)
        c = connect(port)
        cur = c.cursor()
        cur.execute("USE m")
        cur.execute("SELECT COUNT(*) FROM t WHERE pad = 'x'")
        cur.fetchall()
        cur.execute("SET SESSION sort_buffer_size = 262144")
        print('%-7s peak after restart and warm-up %.1f MB' % (name, peak_kb(p.pid) / 1024))
        for label, sql in STATEMENTS:
            before = peak_kb(p.pid)
            t = time.time()
            cur.execute(sql)
            result = cur.fetchall()
            print('%-7s %-24s peak +%6.1f MB  %6.2f s  first row %s' % (
                name, label, (peak_kb(p.pid) - before) / 1024, time.time() - t, result[0][:2]))
        cur.execute("SHOW SESSION STATUS WHERE Variable_name IN "
                    "('Sort_merge_passes', 'Sort_rows', 'Created_tmp_files')")
        print('%-7s %s' % (name, dict(cur.fetchall())))
    finally:
        p.terminate()
        p.wait()


print('%d rows, sort_buffer_size 256 KB' % rows)
run('myriad', start_myriad, port)
run('mariadb', start_mariadb, port + 1)
