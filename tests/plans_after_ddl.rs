//! A statement a session repeats keeps its compiled plan (text statements from their
//! second run, prepared statements from PREPARE). After DDL changes a table the plan was
//! made for, the statement still answers as if compiled afresh, also when the changed table
//! is one its subqueries read while the rows are being sent: the client gets its rows,
//! whole and once, over text and binary protocol.

mod common;

use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

const CORRELATED: &str =
    "SELECT oref, a, (SELECT COUNT(*) FROM t1 WHERE t1.oref = t2.oref) AS z FROM t2";
const UNCORRELATED: &str = "SELECT oref, a, (SELECT MAX(ie) FROM t1) AS z FROM t2";
const DERIVED: &str =
    "SELECT t2.oref, t2.a, d.n FROM t2 JOIN (SELECT oref, COUNT(*) AS n FROM t1 GROUP BY oref) AS d ON d.oref = t2.oref";

type Rows = Vec<(String, Option<i64>, Option<i64>)>;

/// The rows in order (the queries have no ORDER BY: their rows stream as they are made).
async fn text_rows(conn: &mut Conn, sql: &str) -> Rows {
    let mut rows: Rows = conn.query(sql).await.expect(sql);
    rows.sort();
    rows
}

async fn binary_rows(conn: &mut Conn, stmt: &mysql_async::Statement) -> Rows {
    let mut rows: Rows = conn.exec(stmt, ()).await.expect("execute");
    rows.sort();
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_statements_answer_rightly_after_their_subqueries_tables_change() {
    let (server, setup) = common::start_with_setup(
        &[],
        &[
            "CREATE DATABASE p",
            "CREATE TABLE p.t1 (oref CHAR(4), ie INT)",
            "INSERT INTO p.t1 VALUES ('aa', 1), ('aa', 2), ('bb', 3)",
            "CREATE TABLE p.t2 (oref CHAR(4), a INT)",
            "INSERT INTO p.t2 VALUES ('aa', 1), ('bb', 2), ('cc', 3)",
        ],
    )
    .await;
    setup.disconnect().await.unwrap();
    let opts = Opts::from_url(&server.url("root", "", Some("p"))).unwrap();
    let mut conn = Conn::new(opts).await.expect("connect");
    let queries = [CORRELATED, UNCORRELATED, DERIVED];
    let mut prepared = Vec::new();
    for sql in queries {
        prepared.push(conn.prep(sql).await.expect("prepare"));
    }
    let mut before = Vec::new();
    for (sql, stmt) in queries.iter().zip(&prepared) {
        // Twice: the second run keeps the plan.
        let first = text_rows(&mut conn, sql).await;
        assert_eq!(text_rows(&mut conn, sql).await, first, "{sql}");
        assert_eq!(binary_rows(&mut conn, stmt).await, first, "{sql}");
        before.push(first);
    }
    assert_eq!(
        before[0],
        vec![
            ("aa".to_string(), Some(1), Some(2)),
            ("bb".to_string(), Some(2), Some(1)),
            ("cc".to_string(), Some(3), Some(0)),
        ]
    );
    for ddl in [
        "ALTER TABLE t1 ADD INDEX idx (oref, ie)",
        "ALTER TABLE t1 DROP INDEX idx",
        "TRUNCATE TABLE t1",
    ] {
        conn.query_drop(ddl).await.expect(ddl);
        if ddl.starts_with("TRUNCATE") {
            conn.query_drop("INSERT INTO t1 VALUES ('aa', 1), ('aa', 2), ('bb', 3)")
                .await
                .unwrap();
        }
        for ((sql, stmt), expected) in queries.iter().zip(&prepared).zip(&before) {
            assert_eq!(
                &text_rows(&mut conn, sql).await,
                expected,
                "{sql} after {ddl}"
            );
            assert_eq!(
                &binary_rows(&mut conn, stmt).await,
                expected,
                "{sql} prepared, after {ddl}"
            );
        }
    }
    // The connection is still in step: a last statement answers.
    let one: Option<i64> = conn.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
    conn.disconnect().await.unwrap();
}
