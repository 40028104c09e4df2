//! Malformed SQL, values out of range, oversized rows and unknown
//! objects return the MySQL error (code and SQLSTATE, as MariaDB 10.11 answers in its
//! default strict sql_mode) through a real client, and leave the data untouched: every
//! table's contents are compared before and after each bad statement, and the connection
//! stays usable.

mod common;

use common::Server;
use mysql_async::prelude::*;
use mysql_async::{Conn, Value};

/// (statement, expected error code, expected SQLSTATE).
const BAD_TEXT: &[(&str, u16, &str)] = &[
    // Malformed SQL.
    ("SELEC * FROM t", 1064, "42000"),
    ("INSERT INTO t VALUES (", 1064, "42000"),
    ("UPDATE t SET WHERE id = 1", 1064, "42000"),
    ("DELETE t WHERE id = 1", 1064, "42000"),
    ("SELECT * FROM t WHERE id = 'unterminated", 1064, "42000"),
    // Out of range and too long, single and multi-row (the statement is all or nothing).
    (
        "INSERT INTO t (id, tiny, name) VALUES (10, 300, 'x')",
        1264,
        "22003",
    ),
    (
        "INSERT INTO t (id, tiny, name) VALUES (10, -129, 'x')",
        1264,
        "22003",
    ),
    (
        "INSERT INTO t (id, tiny, name, price) VALUES (10, 1, 'x', 12345.6)",
        1264,
        "22003",
    ),
    (
        "INSERT INTO t (id, tiny, name) VALUES (20, 1, 'a'), (21, 999, 'b')",
        1264,
        "22003",
    ),
    ("UPDATE t SET tiny = 1000 WHERE id = 1", 1264, "22003"),
    ("UPDATE t SET tiny = tiny + 120", 1264, "22003"),
    (
        "INSERT INTO t (id, tiny, name) VALUES (11, 1, 'abcdefghijklmnop')",
        1406,
        "22001",
    ),
    (
        "UPDATE t SET name = REPEAT('z', 11) WHERE id = 2",
        1406,
        "22001",
    ),
    (
        "INSERT INTO t (id, tiny, name) VALUES (99999999999, 1, 'x')",
        1264,
        "22003",
    ),
    (
        "INSERT INTO t (id, tiny, name) VALUES (12, 1, NULL)",
        1048,
        "23000",
    ),
    (
        "INSERT INTO t (id, tiny, name) VALUES (13, 1/0, 'x')",
        1365,
        "22012",
    ),
    // Duplicates.
    (
        "INSERT INTO t (id, tiny, name) VALUES (1, 1, 'dup')",
        1062,
        "23000",
    ),
    ("UPDATE t SET id = 2 WHERE id = 1", 1062, "23000"),
    // Oversized rows: a value past the column type's limit.
    (
        "INSERT INTO blobs VALUES (2, REPEAT('x', 70000))",
        1406,
        "22001",
    ),
    // Unknown objects.
    ("SELECT * FROM nosuch", 1146, "42S02"),
    ("INSERT INTO nosuch VALUES (1)", 1146, "42S02"),
    ("DELETE FROM nosuch", 1146, "42S02"),
    ("DROP TABLE nosuch", 1051, "42S02"),
    ("SELECT nosuch FROM t", 1054, "42S22"),
    ("UPDATE t SET nosuch = 1", 1054, "42S22"),
    ("DELETE FROM t WHERE nosuch = 1", 1054, "42S22"),
    ("INSERT INTO t (id, nosuch) VALUES (30, 1)", 1054, "42S22"),
    ("SELECT * FROM nosuchdb.t", 1146, "42S02"),
    ("USE nosuchdb", 1049, "42000"),
    ("CREATE TABLE t (id INT)", 1050, "42S01"),
    ("DROP INDEX nosuch ON t", 1091, "42000"),
];

async fn contents(conn: &mut Conn) -> Vec<Vec<Vec<Value>>> {
    let mut all = Vec::new();
    for table in ["t", "blobs"] {
        let rows: Vec<mysql_async::Row> = conn
            .query(format!("SELECT * FROM {table} ORDER BY id"))
            .await
            .unwrap();
        all.push(rows.into_iter().map(mysql_async::Row::unwrap).collect());
    }
    all
}

fn check_error(result: Result<(), mysql_async::Error>, what: &str, code: u16, state: &str) {
    match result {
        Err(mysql_async::Error::Server(e)) => assert!(
            e.code == code && e.state == state,
            "{what}: expected {code} ({state}), got {} ({}): {}",
            e.code,
            e.state,
            e.message
        ),
        Ok(()) => panic!("{what}: succeeded, expected error {code}"),
        Err(other) => panic!("{what}: expected error {code}, got {other}"),
    }
}

#[test]
fn bad_statements_answer_mysql_errors_and_change_nothing() {
    let server = Server::start(&[]);
    common::runtime().block_on(async {
        let mut conn = server.connect_root().await;
        for setup in [
            "CREATE DATABASE bad",
            "USE bad",
            "CREATE TABLE t (id INT PRIMARY KEY, tiny TINYINT, name VARCHAR(10) NOT NULL, \
             price DECIMAL(5,2), UNIQUE KEY u_name (name))",
            "INSERT INTO t (id, tiny, name, price) VALUES (1, 100, 'one', 1.5), \
             (2, -5, 'two', NULL), (3, NULL, 'three', 999.99)",
            "CREATE TABLE blobs (id INT PRIMARY KEY, data BLOB)",
            "INSERT INTO blobs VALUES (1, REPEAT('b', 1000))",
        ] {
            conn.query_drop(setup).await.unwrap();
        }
        let before = contents(&mut conn).await;
        assert_eq!(before[0].len(), 3);

        for &(sql, code, state) in BAD_TEXT {
            let result = conn.query_drop(sql).await;
            check_error(result, sql, code, state);
            assert_eq!(contents(&mut conn).await, before, "{sql} changed the data");
        }

        // The same through server-side prepared statements (binary protocol parameters).
        let insert = "INSERT INTO t (id, tiny, name, price) VALUES (?, ?, ?, ?)";
        let bad_params: Vec<(Vec<Value>, u16, &str)> = vec![
            (
                vec![40.into(), 500.into(), "x".into(), Value::NULL],
                1264,
                "22003",
            ),
            (
                vec![40.into(), 1.into(), "much too long".into(), Value::NULL],
                1406,
                "22001",
            ),
            (
                vec![40.into(), 1.into(), Value::NULL, Value::NULL],
                1048,
                "23000",
            ),
            (
                vec![1.into(), 1.into(), "dup".into(), Value::NULL],
                1062,
                "23000",
            ),
            (
                vec![41.into(), 1.into(), "one".into(), Value::NULL],
                1062,
                "23000",
            ),
            (
                vec![42.into(), 1.into(), "x".into(), 1000.5.into()],
                1264,
                "22003",
            ),
        ];
        for (params, code, state) in bad_params {
            let what = format!("{insert} with {params:?}");
            let result = conn.exec_drop(insert, params).await;
            check_error(result, &what, code, state);
            assert_eq!(contents(&mut conn).await, before, "{what} changed the data");
        }
        let result = conn
            .prep("SELECT nosuch FROM t WHERE id = ?")
            .await
            .map(drop);
        check_error(result, "preparing over an unknown column", 1054, "42S22");

        // Still usable, and a valid write still works after all of that.
        conn.query_drop("INSERT INTO t (id, tiny, name) VALUES (4, 4, 'four')")
            .await
            .unwrap();
        let count: Option<i64> = conn.query_first("SELECT COUNT(*) FROM t").await.unwrap();
        assert_eq!(count, Some(4));
        conn.disconnect().await.unwrap();
    });
}
