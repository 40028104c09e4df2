//! Transactions as a client sees them, against MariaDB (InnoDB) with the same statements:
//! COMMIT, ROLLBACK, savepoints, autocommit off, implicit commits, a failed statement
//! inside a transaction, READ ONLY, AND CHAIN and @@in_transaction; a disconnect and
//! kill -9 that undo what was not committed; locking reads that lose no increment; a lock
//! wait that ends with 1205 and leaves the transaction open.

mod common;

use common::mariadb::start_mariadb;
use common::{error_code, exec_all, first_row, root_at, Server};
use mysql_async::prelude::Queryable;
use std::time::{Duration, Instant};

const SETUP: &str = "DROP DATABASE IF EXISTS tx; CREATE DATABASE tx; \
     CREATE TABLE tx.t (id INT PRIMARY KEY, v INT, KEY by_v (v)) ENGINE=InnoDB; \
     INSERT INTO tx.t VALUES (1,10),(2,20),(3,30)";

/// Sessions, each on a connection of its own, run in order on a fresh `tx.t` of both
/// servers, statement by statement: each statement's rows or error must be the same.
const SESSIONS: &[&str] = &[
    // ROLLBACK undoes inserts, updates and deletes.
    "USE tx; BEGIN; SELECT @@in_transaction; INSERT INTO t VALUES (4,40); UPDATE t SET v = v + 1; \
     DELETE FROM t WHERE id = 1; SELECT * FROM t; ROLLBACK; SELECT @@in_transaction; \
     SELECT * FROM t",
    "USE tx; START TRANSACTION; INSERT INTO t VALUES (5,50); COMMIT; SELECT * FROM t ORDER BY id",
    // Savepoints: ROLLBACK TO keeps the savepoint and drops the later ones; RELEASE drops it.
    "USE tx; BEGIN; INSERT INTO t VALUES (6,60); SAVEPOINT a; UPDATE t SET v = 0 WHERE id = 6; \
     SAVEPOINT b; DELETE FROM t; SELECT COUNT(*) FROM t; ROLLBACK TO SAVEPOINT b; \
     SELECT * FROM t ORDER BY id; ROLLBACK WORK TO a; SELECT * FROM t ORDER BY id; \
     ROLLBACK TO b; SAVEPOINT c; INSERT INTO t VALUES (16,160); SAVEPOINT a; \
     RELEASE SAVEPOINT c; ROLLBACK TO a; ROLLBACK TO c; COMMIT; SELECT * FROM t ORDER BY id; \
     SHOW SESSION STATUS WHERE Variable_name IN ('Com_savepoint', 'Com_rollback_to_savepoint', \
     'Com_release_savepoint', 'Com_begin', 'Com_commit', 'Com_rollback')",
    // A failed statement undoes itself only; the transaction goes on.
    "USE tx; BEGIN; INSERT INTO t VALUES (7,70); INSERT INTO t VALUES (8,80),(1,1); \
     UPDATE t SET v = v + 1000 WHERE id >= 7; SELECT * FROM t ORDER BY id; COMMIT; \
     SELECT * FROM t ORDER BY id",
    // autocommit off: the first statement over a table opens a transaction; SET autocommit=1
    // commits it; a DDL statement commits implicitly.
    "USE tx; SET autocommit = 0; SELECT @@in_transaction; INSERT INTO t VALUES (9,90); \
     SELECT @@in_transaction; ROLLBACK; SELECT * FROM t WHERE id = 9; \
     INSERT INTO t VALUES (10,100); SET autocommit = 1; SELECT @@in_transaction; ROLLBACK; \
     SELECT * FROM t WHERE id = 10; BEGIN; DELETE FROM t WHERE id = 10; \
     CREATE TABLE u (a INT PRIMARY KEY); SELECT @@in_transaction; ROLLBACK; \
     SELECT * FROM t WHERE id = 10",
    // BEGIN inside a transaction commits it; AND CHAIN opens the next one.
    "USE tx; BEGIN; INSERT INTO t VALUES (11,110); BEGIN; ROLLBACK; SELECT * FROM t WHERE id = 11; \
     BEGIN; INSERT INTO t VALUES (12,120); COMMIT AND CHAIN; SELECT @@in_transaction; \
     INSERT INTO t VALUES (13,130); ROLLBACK AND NO CHAIN; SELECT @@in_transaction; \
     SELECT id FROM t WHERE id > 10 ORDER BY id",
    // READ ONLY refuses writes (1792); savepoints outside a transaction.
    "USE tx; START TRANSACTION READ ONLY; SELECT COUNT(*) FROM t; INSERT INTO t VALUES (14,140); \
     SELECT COUNT(*) FROM t; COMMIT; SAVEPOINT x; ROLLBACK TO SAVEPOINT x; \
     RELEASE SAVEPOINT nope",
    // A read-only session refuses writes outside transactions too.
    "USE tx; SET SESSION TRANSACTION READ ONLY; INSERT INTO t VALUES (20,200); \
     SELECT COUNT(*) FROM t; SET SESSION TRANSACTION READ WRITE; INSERT INTO t VALUES (20,200); \
     DELETE FROM t WHERE id = 20",
    // SET TRANSACTION without SESSION or GLOBAL: the next transaction only.
    "USE tx; SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SELECT @@tx_isolation; \
     BEGIN; SELECT @@tx_isolation; SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; \
     COMMIT; SELECT @@tx_isolation; SET TRANSACTION READ ONLY; \
     INSERT INTO t VALUES (30,300); INSERT INTO t VALUES (31,310); SELECT @@tx_read_only; \
     SET TRANSACTION READ ONLY; SELECT COUNT(*) FROM t; INSERT INTO t VALUES (32,320); \
     DELETE FROM t WHERE id >= 30",
    // Locking reads answer the rows a plain read does.
    "USE tx; BEGIN; SELECT id FROM t WHERE id = 2 LOCK IN SHARE MODE; \
     SELECT v FROM t WHERE id = 2 lock in share mode ; SELECT id, v FROM t WHERE v > 15 LOCK IN SHARE MODE; \
     SELECT id FROM t ORDER BY id FOR UPDATE; COMMIT",
    // An open transaction ends with its connection: rolled back.
    "USE tx; BEGIN; INSERT INTO t VALUES (15,150); UPDATE t SET v = -1",
    "USE tx; SELECT * FROM t ORDER BY id",
];

/// Run `session`'s statements one by one on a new connection to `port`, then disconnect:
/// per statement, its rows (values as text, tab-separated) or its error code.
async fn replay(port: u16, session: &str) -> Vec<String> {
    let opts = root_at(port);
    let mut conn = mysql_async::Conn::new(opts).await.expect("connect");
    let mut answers = Vec::new();
    for sql in session.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let answer = match conn.query::<mysql_async::Row, _>(sql).await {
            Ok(rows) => rows
                .iter()
                .map(|row| {
                    (0..row.len())
                        .map(|i| match row.as_ref(i) {
                            Some(mysql_async::Value::NULL) | None => "NULL".to_string(),
                            Some(mysql_async::Value::Bytes(b)) => {
                                String::from_utf8_lossy(b).into_owned()
                            }
                            Some(other) => format!("{other:?}"),
                        })
                        .collect::<Vec<_>>()
                        .join("\t")
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Err(mysql_async::Error::Server(e)) => format!("ERROR {}", e.code),
            Err(e) => panic!("{sql}: {e}"),
        };
        answers.push(format!("{sql} -> {answer}"));
    }
    conn.disconnect().await.expect("disconnect");
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn transaction_statements_answer_as_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    for port in [maria.port(), server.port] {
        replay(port, SETUP).await;
    }
    for session in SESSIONS {
        let theirs = replay(maria.port(), session).await;
        let ours = replay(server.port, session).await;
        assert_eq!(ours, theirs);
    }
}

/// Eight clients add 1 to one counter 50 times each through `SELECT ... FOR UPDATE`,
/// `UPDATE`, `COMMIT`: no increment is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn locking_reads_lose_no_increment() {
    let server = Server::start(&[]);
    let mut root = server.connect_root().await;
    exec_all(
        &mut root,
        &[
            "CREATE DATABASE c",
            "CREATE TABLE c.n (id INT PRIMARY KEY, n INT)",
            "INSERT INTO c.n VALUES (1, 0)",
        ],
    )
    .await;
    let clients: Vec<_> = (0..8)
        .map(|_| {
            let opts = server.root_opts();
            tokio::spawn(async move {
                let mut conn = mysql_async::Conn::new(opts).await.expect("connect");
                for _ in 0..50 {
                    conn.query_drop("BEGIN").await.expect("begin");
                    let n: i64 = conn
                        .query_first("SELECT n FROM c.n WHERE id = 1 FOR UPDATE")
                        .await
                        .expect("locking read")
                        .expect("the row");
                    conn.exec_drop("UPDATE c.n SET n = ? WHERE id = 1", (n + 1,))
                        .await
                        .expect("update");
                    conn.query_drop("COMMIT").await.expect("commit");
                }
            })
        })
        .collect();
    for c in clients {
        c.await.expect("client");
    }
    let n: i64 = first_row(&mut root, "SELECT n FROM c.n").await;
    assert_eq!(n, 400);
}

/// A statement waiting for a table another transaction wrote ends with 1205 after
/// innodb_lock_wait_timeout; its own transaction (which wrote another database) stays
/// open and usable, and the waiting is over once the other transaction commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lock_wait_ends_with_1205_and_the_transaction_goes_on() {
    let server = Server::start(&[]);
    let mut a = server.connect_root().await;
    let mut b = server.connect_root().await;
    exec_all(
        &mut a,
        &[
            "CREATE DATABASE w",
            "CREATE DATABASE w2",
            "CREATE TABLE w.t (id INT PRIMARY KEY, v INT)",
            "CREATE TABLE w2.u (id INT PRIMARY KEY)",
            "INSERT INTO w.t VALUES (1, 0)",
            "BEGIN",
            "UPDATE w.t SET v = 1 WHERE id = 1",
        ],
    )
    .await;
    exec_all(
        &mut b,
        &[
            "SET SESSION innodb_lock_wait_timeout = 1",
            "BEGIN",
            "INSERT INTO w2.u VALUES (1)",
        ],
    )
    .await;
    let started = Instant::now();
    let waited = b.query_drop("UPDATE w.t SET v = 2 WHERE id = 1").await;
    let took = started.elapsed();
    assert_eq!(error_code(waited), 1205);
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "waited {took:?}"
    );
    let in_transaction: u64 = first_row(&mut b, "SELECT @@in_transaction").await;
    assert_eq!(
        in_transaction, 1,
        "1205 undoes the statement, not the transaction"
    );
    exec_all(&mut a, &["COMMIT"]).await;
    exec_all(
        &mut b,
        &["UPDATE w.t SET v = v + 10 WHERE id = 1", "COMMIT"],
    )
    .await;
    let (v, u): (i64, i64) = first_row(
        &mut a,
        "SELECT (SELECT v FROM w.t WHERE id = 1), (SELECT COUNT(*) FROM w2.u)",
    )
    .await;
    assert_eq!((v, u), (11, 1));
}

/// kill -9 while one transaction has written thousands of rows over two tables, after
/// others committed: the committed rows are all there after recovery, none of the open one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_9_keeps_committed_transactions_and_no_open_one() {
    let server = Server::start(&[]);
    let mut conn = server.connect_root().await;
    exec_all(
        &mut conn,
        &[
            "CREATE DATABASE k",
            "CREATE TABLE k.a (id INT PRIMARY KEY, pad VARCHAR(200))",
            "CREATE TABLE k.b (id INT PRIMARY KEY, pad VARCHAR(200))",
        ],
    )
    .await;
    let pad = "x".repeat(200);
    for (first, commit) in [(0, true), (10_000, true), (20_000, false)] {
        conn.query_drop("BEGIN").await.expect("begin");
        for chunk in 0..10 {
            let rows: Vec<String> = (0..200)
                .map(|i| format!("({}, '{pad}')", first + chunk * 200 + i))
                .collect();
            for table in ["k.a", "k.b"] {
                let sql = format!("INSERT INTO {table} VALUES {}", rows.join(","));
                conn.query_drop(sql).await.expect("insert");
            }
        }
        if commit {
            conn.query_drop("COMMIT").await.expect("commit");
        }
    }
    let dir = server.into_dir(); // kill -9 with the third transaction open
    let server = Server::start_in(dir, &[]);
    let mut conn = server.connect_root().await;
    for table in ["k.a", "k.b"] {
        let (count, low, high): (u64, i64, i64) = first_row(
            &mut conn,
            &format!("SELECT COUNT(*), MIN(id), MAX(id) FROM {table}"),
        )
        .await;
        assert_eq!((count, low, high), (4_000, 0, 11_999), "{table}");
    }
}

/// Another session reads (and caches) a table while a transaction has changed it; the
/// transaction rolls back, its connection ends, or it commits: the next read answers from
/// the table, not from a cached result of the rows as they were before it ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_query_cache_follows_the_end_of_a_transaction() {
    let server = Server::start(&[
        "--query-cache-type=ON",
        "--query-cache-size=16777216",
        "--query-cache-min-execution-us=0",
    ]);
    let mut reader = server.connect_root().await;
    exec_all(
        &mut reader,
        &[
            "CREATE DATABASE q",
            "CREATE TABLE q.t (id INT PRIMARY KEY)",
            "INSERT INTO q.t VALUES (1), (2)",
        ],
    )
    .await;
    for (end, rows_after) in [("ROLLBACK", 2u64), ("disconnect", 2), ("COMMIT", 3)] {
        let mut writer = server.connect_root().await;
        exec_all(&mut writer, &["BEGIN", "INSERT INTO q.t VALUES (3)"]).await;
        let during: u64 = first_row(&mut reader, "SELECT COUNT(*) FROM q.t").await;
        let again: u64 = first_row(&mut reader, "SELECT COUNT(*) FROM q.t").await;
        assert_eq!(
            (during, again),
            (2, 2),
            "{end}: reads while the writer is open"
        );
        if end == "disconnect" {
            writer.disconnect().await.expect("disconnect");
            // The server notices the hang-up and ends the session right after.
            tokio::time::sleep(Duration::from_millis(300)).await;
        } else {
            exec_all(&mut writer, &[end]).await;
        }
        let after: u64 = first_row(&mut reader, "SELECT COUNT(*) FROM q.t").await;
        assert_eq!(after, rows_after, "after {end}");
    }
}

/// Two transactions each holding a database the other asks for: the second to ask gets
/// 1213 at once and loses its whole transaction; the first then goes on. MariaDB answers
/// the same way (with row locks, on the same rows).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn crossed_waits_end_in_1213_for_one_transaction() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    for port in [maria.port(), server.port] {
        let opts = root_at(port);
        let connect = || mysql_async::Conn::new(opts.clone());
        let (mut a, mut b) = (connect().await.expect("a"), connect().await.expect("b"));
        exec_all(
            &mut a,
            &[
                "DROP DATABASE IF EXISTS dl",
                "DROP DATABASE IF EXISTS dl2",
                "CREATE DATABASE dl",
                "CREATE DATABASE dl2",
                "CREATE TABLE dl.x (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                "CREATE TABLE dl2.y (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                "INSERT INTO dl.x VALUES (1, 0)",
                "INSERT INTO dl2.y VALUES (1, 0)",
                "BEGIN",
                "UPDATE dl.x SET v = 1 WHERE id = 1",
            ],
        )
        .await;
        exec_all(&mut b, &["BEGIN", "UPDATE dl2.y SET v = 2 WHERE id = 1"]).await;
        let first = tokio::spawn(async move {
            a.query_drop("UPDATE dl2.y SET v = 1 WHERE id = 1")
                .await
                .expect("a waits, then goes on");
            a.query_drop("COMMIT").await.expect("commit");
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        let started = Instant::now();
        let crossed = b.query_drop("UPDATE dl.x SET v = 2 WHERE id = 1").await;
        assert_eq!(error_code(crossed), 1213, "port {port}");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "port {port}: at once"
        );
        first.await.expect("the first transaction");
        let (x, y): (i64, i64) = first_row(
            &mut b,
            "SELECT (SELECT v FROM dl.x WHERE id = 1), (SELECT v FROM dl2.y WHERE id = 1)",
        )
        .await;
        assert_eq!(
            (x, y),
            (1, 1),
            "port {port}: the victim's change to y is gone"
        );
    }
}

/// KILL QUERY ends a statement waiting for another transaction's table at once (1317), and
/// its transaction stays open.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_query_ends_a_lock_wait() {
    let server = Server::start(&[]);
    let mut a = server.connect_root().await;
    let mut b = server.connect_root().await;
    exec_all(
        &mut a,
        &[
            "CREATE DATABASE kq",
            "CREATE TABLE kq.t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO kq.t VALUES (1, 0)",
            "BEGIN",
            "UPDATE kq.t SET v = 1",
        ],
    )
    .await;
    let b_id: u64 = first_row(&mut b, "SELECT CONNECTION_ID()").await;
    exec_all(&mut b, &["BEGIN"]).await;
    let waiter = tokio::spawn(async move {
        let started = Instant::now();
        let result = b.query_drop("UPDATE kq.t SET v = 2").await;
        (error_code(result), started.elapsed(), b)
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    exec_all(&mut a, &[&format!("KILL QUERY {b_id}")]).await;
    let (code, took, mut b) = waiter.await.expect("waiter");
    assert_eq!(code, 1317);
    assert!(
        took < Duration::from_secs(3),
        "the wait ended {took:?} after it began"
    );
    let open: u64 = first_row(&mut b, "SELECT @@in_transaction").await;
    assert_eq!(open, 1);
}

/// Hermitage's G1a (aborted reads), G1b (intermediate reads) and G1c-style reads by
/// another session, at MariaDB's default level: a reader never sees a change before its
/// transaction commits, and sees all of it after. Each read is compared with MariaDB's.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn other_sessions_never_read_uncommitted_changes() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let mut answers = Vec::new();
    for port in [maria.port(), server.port] {
        let opts = root_at(port);
        let mut w = mysql_async::Conn::new(opts.clone()).await.expect("writer");
        let mut r = mysql_async::Conn::new(opts).await.expect("reader");
        let mut seen: Vec<Vec<(i64, i64)>> = Vec::new();
        let read = "SELECT id, v FROM g.t ORDER BY id";
        exec_all(
            &mut w,
            &[
                "DROP DATABASE IF EXISTS g",
                "CREATE DATABASE g",
                "CREATE TABLE g.t (id INT PRIMARY KEY, v INT, KEY by_v (v)) ENGINE=InnoDB",
                "INSERT INTO g.t VALUES (1, 10), (2, 20)",
                // G1a: the writer aborts.
                "BEGIN",
                "UPDATE g.t SET v = 101 WHERE id = 1",
                "INSERT INTO g.t VALUES (3, 30)",
            ],
        )
        .await;
        seen.push(r.query(read).await.expect("read"));
        seen.push(
            r.query("SELECT id, v FROM g.t WHERE v > 15 ORDER BY v")
                .await
                .expect("by index"),
        );
        exec_all(&mut w, &["ROLLBACK"]).await;
        seen.push(r.query(read).await.expect("read"));
        // G1b: an intermediate value is never seen, the final one is after COMMIT.
        exec_all(
            &mut w,
            &[
                "BEGIN",
                "UPDATE g.t SET v = 11 WHERE id = 1",
                "UPDATE g.t SET v = 12 WHERE id = 1",
            ],
        )
        .await;
        seen.push(r.query(read).await.expect("read"));
        exec_all(&mut w, &["DELETE FROM g.t WHERE id = 2", "COMMIT"]).await;
        seen.push(r.query(read).await.expect("read"));
        answers.push(seen);
    }
    assert_eq!(answers[1], answers[0], "myriad's reads against MariaDB's");
    assert_eq!(answers[1][4], vec![(1, 12)]);
}

/// SIGTERM while a client holds a transaction open (its pages dirty and uncommitted, the
/// committed ones not yet written): the server checkpoints and exits at once, cleanly, and
/// starts again with the committed rows only.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn shutdown_does_not_wait_for_an_open_transaction() {
    let mut server = Server::start(&[]);
    let mut conn = server.connect_root().await;
    exec_all(
        &mut conn,
        &[
            "CREATE DATABASE sd",
            "CREATE TABLE sd.t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO sd.t VALUES (1, 1), (2, 2)",
            "BEGIN",
            "UPDATE sd.t SET v = 100",
            "INSERT INTO sd.t VALUES (3, 3)",
        ],
    )
    .await;
    server.signal("TERM");
    let started = Instant::now();
    let status = server
        .wait_exit(Duration::from_secs(20))
        .expect("the server exits with a transaction open");
    assert!(status.success(), "exit status {status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    drop(conn);
    let server = Server::start_in(server.into_dir(), &[]);
    let mut conn = server.connect_root().await;
    let rows: Vec<(i64, i64)> = conn
        .query("SELECT id, v FROM sd.t ORDER BY id")
        .await
        .expect("read");
    assert_eq!(rows, vec![(1, 1), (2, 2)]);
}

/// At SERIALIZABLE a transaction's plain SELECT locks what it read: another session's
/// UPDATE of those rows waits, and ends with 1205 (MariaDB: the same).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn serializable_reads_lock_as_mariadb_does() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    for port in [maria.port(), server.port] {
        let mut a = mysql_async::Conn::new(root_at(port)).await.expect("a");
        let mut b = mysql_async::Conn::new(root_at(port)).await.expect("b");
        exec_all(
            &mut a,
            &[
                "DROP DATABASE IF EXISTS sr",
                "CREATE DATABASE sr",
                "CREATE TABLE sr.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                "INSERT INTO sr.t VALUES (1, 1)",
                "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE",
                "BEGIN",
            ],
        )
        .await;
        let v: i64 = first_row(&mut a, "SELECT v FROM sr.t WHERE id = 1").await;
        assert_eq!(v, 1);
        exec_all(&mut b, &["SET SESSION innodb_lock_wait_timeout = 1"]).await;
        let blocked = b.query_drop("UPDATE sr.t SET v = 2 WHERE id = 1").await;
        assert_eq!(error_code(blocked), 1205, "port {port}");
        exec_all(&mut a, &["COMMIT"]).await;
        exec_all(&mut b, &["UPDATE sr.t SET v = 2 WHERE id = 1"]).await;
    }
}

/// A REPEATABLE READ transaction that has read keeps the old versions of the pages others
/// change (Innodb_history_list_length counts them) and reads the table as it was; once it
/// ends they are dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_open_snapshot_keeps_page_versions_until_it_ends() {
    let server = Server::start(&[]);
    let mut reader = server.connect_root().await;
    let mut writer = server.connect_root().await;
    exec_all(
        &mut writer,
        &[
            "CREATE DATABASE h",
            "CREATE TABLE h.t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO h.t VALUES (1, 0), (2, 0)",
        ],
    )
    .await;
    assert_eq!(
        common::async_status(&mut writer, "Innodb_history_list_length").await,
        0
    );
    exec_all(&mut reader, &["BEGIN"]).await;
    let before: i64 = first_row(&mut reader, "SELECT SUM(v) FROM h.t").await;
    for n in 1..=5 {
        writer
            .query_drop(format!("UPDATE h.t SET v = {n}"))
            .await
            .expect("update");
    }
    let kept = common::async_status(&mut writer, "Innodb_history_list_length").await;
    assert!(kept >= 5, "versions kept for the open snapshot: {kept}");
    let again: i64 = first_row(&mut reader, "SELECT SUM(v) FROM h.t").await;
    assert_eq!((before, again), (0, 0));
    exec_all(&mut reader, &["COMMIT"]).await;
    let now: i64 = first_row(&mut reader, "SELECT SUM(v) FROM h.t").await;
    assert_eq!(now, 10);
    assert_eq!(
        common::async_status(&mut writer, "Innodb_history_list_length").await,
        0
    );
}
