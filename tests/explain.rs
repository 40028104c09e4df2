//! EXPLAIN through the real server and a real client (mysql_async): the ten columns with
//! MariaDB's types over the text and the binary protocol, the plan of a point lookup, of
//! a join and of a DELETE (not run), and 1235 for the forms myriad does not describe. The plans of every access path
//! are the golden files of crates/sql/tests/explain_plans.rs.

mod common;

use common::Server;
use mysql_async::consts::ColumnType;
use mysql_async::prelude::*;
use mysql_async::{Conn, OptsBuilder, Row};

type PlanLine = (
    u64,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    String,
);

fn plan_lines(rows: Vec<Row>) -> Vec<PlanLine> {
    rows.into_iter()
        .map(mysql_async::from_row::<PlanLine>)
        .collect()
}

fn check_columns(row: &Row) {
    let columns = row.columns_ref();
    let names: Vec<String> = columns.iter().map(|c| c.name_str().into_owned()).collect();
    assert_eq!(
        names,
        [
            "id",
            "select_type",
            "table",
            "type",
            "possible_keys",
            "key",
            "key_len",
            "ref",
            "rows",
            "Extra"
        ]
    );
    assert_eq!(columns[0].column_type(), ColumnType::MYSQL_TYPE_LONGLONG);
    for c in &columns[1..] {
        assert_eq!(
            c.column_type(),
            ColumnType::MYSQL_TYPE_VAR_STRING,
            "{} is text, as in MariaDB",
            c.name_str()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_shows_the_plan_over_both_protocols() {
    let server = Server::start(&[]);
    let opts = OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(server.port)
        .user(Some("root"))
        .prefer_socket(false);
    let mut conn = Conn::new(opts).await.expect("connect");
    for sql in [
        "CREATE DATABASE ex",
        "USE ex",
        "CREATE TABLE t1 (id INT NOT NULL PRIMARY KEY, k INT, KEY k_1 (k))",
        "INSERT INTO t1 VALUES (1, 10), (2, 20), (3, 20)",
        "CREATE TABLE t3 (a INT)",
        "INSERT INTO t3 VALUES (1), (2)",
    ] {
        conn.query_drop(sql).await.expect(sql);
    }

    let rows: Vec<Row> = conn
        .query("EXPLAIN SELECT * FROM t1 WHERE id = 2")
        .await
        .unwrap();
    check_columns(&rows[0]);
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        plan_lines(rows),
        [(
            1,
            "SIMPLE".to_string(),
            some("t1"),
            some("const"),
            some("PRIMARY"),
            some("PRIMARY"),
            some("4"),
            some("const"),
            some("1"),
            "Using where".to_string()
        )]
    );

    // Prepared: the same columns at prepare time and the same rows from the binary protocol.
    let statement = conn
        .prep("EXPLAIN SELECT * FROM t3 JOIN t1 ON t1.id = t3.a")
        .await
        .unwrap();
    assert_eq!(
        statement.num_columns(),
        10,
        "a prepared EXPLAIN describes its columns"
    );
    let rows: Vec<Row> = conn.exec(&statement, ()).await.unwrap();
    check_columns(&rows[0]);
    let lines = plan_lines(rows);
    let shape: Vec<[Option<String>; 4]> = lines
        .iter()
        .map(|l| [l.2.clone(), l.3.clone(), l.5.clone(), l.7.clone()])
        .collect();
    assert_eq!(
        shape,
        [
            [some("t3"), some("ALL"), None, None],
            [some("t1"), some("eq_ref"), some("PRIMARY"), some("ex.t3.a")],
        ],
        "t3 read whole, t1 looked up by its primary key: {lines:?}"
    );
    assert_eq!(
        lines[0].8,
        some("2"),
        "rows of a full scan: the table's row count"
    );

    // A parameter is a constant of the execution: an exact key is a point lookup, a value
    // that is no key of the INT column makes the read a full scan.
    let statement = conn
        .prep("EXPLAIN SELECT * FROM t1 WHERE id = ?")
        .await
        .unwrap();
    let mut types = Vec::new();
    for param in ["2", "x"] {
        let rows: Vec<Row> = conn.exec(&statement, (param,)).await.unwrap();
        let lines = plan_lines(rows);
        types.push(lines[0].3.clone());
    }
    assert_eq!(types, [some("const"), some("ALL")]);

    for sql in [
        "EXPLAIN FORMAT=JSON SELECT * FROM t1",
        "EXPLAIN EXTENDED SELECT * FROM t1",
        "EXPLAIN INSERT INTO t3 VALUES (9)",
        "EXPLAIN SELECT * FROM t1 WHERE id IN (SELECT a FROM t3)",
    ] {
        match conn.query_drop(sql).await {
            Err(mysql_async::Error::Server(e)) => assert_eq!(e.code, 1235, "{sql}: {e:?}"),
            other => panic!("{sql}: expected error 1235, got {other:?}"),
        }
    }
    let rows: Vec<Row> = conn
        .query("EXPLAIN DELETE FROM t1 WHERE id = 1")
        .await
        .unwrap();
    let lines = plan_lines(rows);
    assert_eq!(
        (lines[0].3.clone(), lines[0].5.clone()),
        (some("range"), some("PRIMARY")),
        "a DELETE's point read, named as MariaDB names it: {lines:?}"
    );
    // The connection is still usable, and neither the DELETE nor the INSERT was run.
    let count: Option<i64> = conn.query_first("SELECT COUNT(*) FROM t1").await.unwrap();
    assert_eq!(count, Some(3));
    drop(conn);
}
