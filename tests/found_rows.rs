//! FOUND_ROWS() over a real connection, where a SELECT's rows stream to the client as they
//! are made: after `SELECT SQL_CALC_FOUND_ROWS ... LIMIT` it counts every row the query
//! found while only the LIMIT's rows reach the client; after a plain SELECT it counts the
//! rows sent; over the text and the binary protocol alike.

mod common;

use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

const ROWS: usize = 20_000;

async fn found_rows(conn: &mut Conn) -> u64 {
    conn.query_first("SELECT FOUND_ROWS()")
        .await
        .unwrap()
        .expect("a row")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn found_rows_counts_what_the_streamed_query_found() {
    let (server, mut setup) = common::start_with_setup(
        &[],
        &[
            "CREATE DATABASE f",
            "CREATE TABLE f.t (id INT PRIMARY KEY, k INT, pad VARCHAR(100))",
        ],
    )
    .await;
    common::insert_rows(&mut setup, "f.t", 1..=ROWS, 1000, |i| {
        format!("({i}, {}, '{}')", i % 7, "p".repeat(100))
    })
    .await;
    setup.disconnect().await.unwrap();
    let opts = Opts::from_url(&server.url("root", "", Some("f"))).unwrap();
    let mut conn = Conn::new(opts).await.expect("connect");

    let ids: Vec<i64> = conn
        .query("SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE k <> 3 LIMIT 5, 3")
        .await
        .unwrap();
    assert_eq!(ids.len(), 3);
    let expected = (1..=ROWS).filter(|i| i % 7 != 3).count() as u64;
    assert_eq!(found_rows(&mut conn).await, expected);
    // FOUND_ROWS() itself returned one row.
    assert_eq!(found_rows(&mut conn).await, 1);

    let all: Vec<(i64, String)> = conn.query("SELECT id, pad FROM t").await.unwrap();
    assert_eq!(all.len(), ROWS);
    assert_eq!(found_rows(&mut conn).await, ROWS as u64);

    let stmt = conn
        .prep("SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE k = ? ORDER BY id DESC LIMIT 2")
        .await
        .unwrap();
    let ids: Vec<i64> = conn.exec(&stmt, (0,)).await.unwrap();
    assert_eq!(ids, vec![19999, 19992]);
    let expected = (1..=ROWS).filter(|i| i % 7 == 0).count() as u64;
    assert_eq!(found_rows(&mut conn).await, expected);
    conn.disconnect().await.unwrap();
}
