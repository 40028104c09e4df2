//! LOCK TABLES and UNLOCK TABLES on myriad and on MariaDB 10.11 in the same test, through
//! the real `mariadb` client: what a session holding table locks may use (1100, 1099),
//! how the lock list is checked (1066, 1146, 1044), what other sessions wait for (1205
//! after lock_wait_timeout), and how the locks end (UNLOCK TABLES, BEGIN). Every step's
//! output must be the same on both servers.

mod common;

use common::mariadb::{assert_same_steps, run, run_steps, start_mariadb, Peer};
use common::Server;
use std::time::Duration;

const SETUP: &str = "CREATE DATABASE lt; CREATE TABLE lt.t (a INT PRIMARY KEY); \
     CREATE TABLE lt.u (a INT); INSERT INTO lt.u VALUES (1); \
     CREATE USER plain IDENTIFIED BY 'pw'; GRANT SELECT, INSERT ON lt.* TO plain; \
     CREATE USER locker IDENTIFIED BY 'pw'; GRANT SELECT, LOCK TABLES ON lt.* TO locker";

/// One session per step: each step's statements run in one connection, which ends (and
/// lets go of its locks) with the step.
const STEPS: &[(&str, &str)] = &[
    (
        "root",
        "USE lt; LOCK TABLES t WRITE; INSERT INTO t VALUES (1); SELECT * FROM t",
    ),
    ("root", "USE lt; LOCK TABLES t WRITE; SELECT * FROM u"),
    // A result the query cache holds is not served to a session that did not lock its
    // table: 1100, as uncached.
    (
        "root",
        "SET GLOBAL query_cache_size = 1048576; SET GLOBAL query_cache_type = ON; \
         USE lt; SELECT COUNT(*) FROM u; SELECT COUNT(*) FROM u; \
         LOCK TABLES t READ; SELECT COUNT(*) FROM u",
    ),
    (
        "root",
        "SET GLOBAL query_cache_type = OFF; SET GLOBAL query_cache_size = 0",
    ),
    (
        "root",
        "USE lt; LOCK TABLES t WRITE; SELECT * FROM lt.t AS x",
    ),
    (
        "root",
        "USE lt; LOCK TABLES t WRITE; SELECT * FROM t, t AS y",
    ),
    (
        "root",
        "USE lt; LOCK TABLES t AS x READ, t WRITE; SELECT COUNT(*) FROM t AS x, t",
    ),
    (
        "root",
        "USE lt; LOCK TABLES t READ; SELECT * FROM t; INSERT INTO t VALUES (2)",
    ),
    (
        "root",
        "USE lt; LOCK TABLES t READ; SELECT (SELECT COUNT(*) FROM u)",
    ),
    ("root", "USE lt; LOCK TABLES t WRITE; SHOW CREATE TABLE u"),
    (
        "root",
        "USE lt; LOCK TABLES t READ; SHOW TABLES; DESCRIBE u; SELECT @@in_transaction",
    ),
    (
        "root",
        "USE lt; LOCK TABLES t WRITE; CREATE TABLE v (a INT); SELECT * FROM v",
    ),
    ("root", "USE lt; LOCK TABLES t WRITE; DROP TABLE v"),
    ("root", "USE lt; LOCK TABLES t READ; TRUNCATE t"),
    (
        "root",
        "USE lt; LOCK TABLES t WRITE; ALTER TABLE t DISABLE KEYS; SHOW WARNINGS",
    ),
    (
        "root",
        "USE lt; LOCK TABLES t WRITE; ALTER TABLE t ENABLE KEYS; TRUNCATE t",
    ),
    ("root", "USE lt; LOCK TABLES t READ, t WRITE"),
    ("root", "USE lt; LOCK TABLES t READ, t READ"),
    ("root", "USE lt; LOCK TABLES t READ, nosuch WRITE"),
    ("root", "LOCK TABLES t READ"),
    (
        "root",
        "USE lt; LOCK TABLE t READ LOCAL, u LOW_PRIORITY WRITE; UPDATE u SET a = 2",
    ),
    (
        "root",
        "USE lt; LOCK TABLES t WRITE; UNLOCK TABLES; SELECT * FROM u",
    ),
    (
        "root",
        "USE lt; LOCK TABLES t WRITE; BEGIN; SELECT * FROM u; ROLLBACK",
    ),
    (
        "root",
        "USE lt; LOCK TABLES u WRITE; INSERT INTO u VALUES (3); BEGIN; ROLLBACK; \
         SELECT * FROM u ORDER BY a",
    ),
    (
        "root",
        "USE lt; SET autocommit = 0; INSERT INTO u VALUES (4); LOCK TABLES u READ; \
         SELECT @@in_transaction; UNLOCK TABLES; SELECT COUNT(*) FROM u",
    ),
    ("plain", "LOCK TABLES lt.t READ"),
    ("locker", "LOCK TABLES lt.t READ; SELECT COUNT(*) FROM lt.t"),
    ("root", "SHOW GLOBAL STATUS LIKE 'Com_%lock_tables'"),
];

/// Other sessions against a holder of table locks: (the holder's statements, run for two
/// seconds, then the other session's, with lock_wait_timeout 1).
const WAITS: &[(&str, &str)] = &[
    ("LOCK TABLES t WRITE", "SELECT * FROM t"),
    ("LOCK TABLES t WRITE", "SELECT * FROM u; DESCRIBE t"),
    (
        "LOCK TABLES t READ",
        "SELECT COUNT(*) FROM t; INSERT INTO t VALUES (5)",
    ),
    ("LOCK TABLES t READ", "TRUNCATE t"),
    ("BEGIN; INSERT INTO t VALUES (7)", "LOCK TABLES t READ"),
    (
        "BEGIN; SELECT * FROM t",
        "LOCK TABLES t READ; SELECT 'read lock'",
    ),
    ("BEGIN; SELECT * FROM t", "LOCK TABLES t WRITE"),
];

fn waits(peer: &Peer) -> Vec<String> {
    WAITS
        .iter()
        .map(|(holder, other)| {
            let held = format!("USE lt; {holder}; DO SLEEP(2); ROLLBACK");
            let out = std::thread::scope(|s| {
                let holding = s.spawn(|| run(peer, &held));
                std::thread::sleep(Duration::from_millis(500));
                let out = run(peer, &format!("USE lt; SET lock_wait_timeout = 1; {other}"));
                holding.join().expect("the holder's client");
                out
            });
            format!("{holder} / {other}\n  -> {}", out.trim())
        })
        .collect()
}

fn steps_on(peer: &Peer) -> (Vec<String>, Vec<String>) {
    let setup = run(peer, SETUP);
    assert!(setup.trim().is_empty(), "setup: {setup}");
    (run_steps(peer, STEPS), waits(peer))
}

#[test]
fn lock_tables_answer_as_mariadb() {
    let server = Server::start(&[]);
    let maria = start_mariadb();
    let (ours, theirs) = std::thread::scope(|s| {
        let ours = s.spawn(|| steps_on(&Peer::Myriad(&server)));
        let theirs = steps_on(&Peer::Maria(&maria));
        (ours.join().expect("myriad's steps"), theirs)
    });
    assert_same_steps(&ours.0, &theirs.0);
    assert_same_steps(&ours.1, &theirs.1);
    // The waits did wait: each blocked statement ended in 1205.
    let timeouts = ours.1.iter().filter(|o| o.contains("ERROR 1205")).count();
    assert_eq!(timeouts, 5, "{:#?}", ours.1);
}
