//! DECIMAL up to 65 digits through the real server with mysql_async: DECIMAL(65,30),
//! DECIMAL(65,0) and DECIMAL(38,38) values go in and come out exact over the text and the
//! binary protocol (as literals and as bound parameters), arithmetic on them is exact,
//! an index on a DECIMAL(65,10) finds and orders its keys, and values outside a column or
//! past 81 digits are refused with MariaDB's codes (1264, 1690).

mod common;

use mysql_async::prelude::*;

/// A server with database `wide` holding the table `create_table` makes; a root
/// connection in that database.
async fn start_with(create_table: &str) -> (common::Server, mysql_async::Conn) {
    common::start_in_database("wide", &[create_table]).await
}

const A: &str = "-12345678901234567890123456789012345.123456789012345678901234567890";
const B: &str = "99999999999999999999999999999999999999999999999999999999999999999";
const C: &str = "0.12345678901234567890123456789012345678";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_decimals_round_trip_exactly() {
    let (_server, mut conn) = start_with(
        "CREATE TABLE w (id INT PRIMARY KEY, a DECIMAL(65,30), b DECIMAL(65,0), c DECIMAL(38,38))",
    )
    .await;
    conn.query_drop(format!("INSERT INTO w VALUES (1, {A}, {B}, {C})"))
        .await
        .unwrap();
    let insert = conn
        .prep("INSERT INTO w VALUES (?, ?, ?, ?)")
        .await
        .unwrap();
    conn.exec_drop(&insert, (2, A, B, C)).await.unwrap();
    for id in [1, 2] {
        let text: (String, String, String) = conn
            .query_first(format!("SELECT a, b, c FROM w WHERE id = {id}"))
            .await
            .unwrap()
            .unwrap();
        let want = (A.to_string(), B.to_string(), C.to_string());
        assert_eq!(text, want, "text protocol, row {id}");
        let binary: (String, String, String) = conn
            .exec_first("SELECT a, b, c FROM w WHERE id = ?", (id,))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(binary, want, "binary protocol, row {id}");
    }

    // Exact arithmetic on stored values, both protocols alike.
    let sums: (String, String, String) = conn
        .exec_first("SELECT a + a, b - 1, c * 2 FROM w WHERE id = ?", (1,))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        sums,
        (
            "-24691357802469135780246913578024690.246913578024691357802469135780".to_string(),
            format!("{}8", "9".repeat(64)),
            "0.24691357802469135780246913578024691356".to_string()
        )
    );
    let total: String = common::first_row(&mut conn, "SELECT SUM(b) FROM w").await;
    assert_eq!(total, format!("1{}8", "9".repeat(64)));

    // Outside the column, or past what an expression may hold: errors, nothing stored.
    let too_wide = format!("1{}", "0".repeat(35));
    let err = conn
        .query_drop(format!("INSERT INTO w (id, a) VALUES (3, {too_wide})"))
        .await;
    assert_eq!(common::error_code(err), 1264);
    let err = conn
        .exec_drop(&insert, (4, 0, format!("1{}", "0".repeat(65)), 0))
        .await;
    assert_eq!(common::error_code(err), 1264);
    let err = conn
        .query_first::<String, _>("SELECT b * b FROM w WHERE id = 1")
        .await;
    assert_eq!(common::error_code(err), 1690);
    let count: u64 = common::first_row(&mut conn, "SELECT COUNT(*) FROM w").await;
    assert_eq!(count, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_decimal_keys_find_and_order() {
    let (_server, mut conn) =
        start_with("CREATE TABLE k (a DECIMAL(65,10) PRIMARY KEY, v INT)").await;
    let big = "1234567890123456789012345678901234567890123456789012345.0123456789";
    let insert = conn.prep("INSERT INTO k VALUES (?, ?)").await.unwrap();
    for (a, v) in [
        (big.to_string(), 1),
        (format!("-{big}"), 2),
        ("0.0000000001".to_string(), 3),
        ("-0.0000000001".to_string(), 4),
        ("0".to_string(), 5),
    ] {
        conn.exec_drop(&insert, (a, v)).await.unwrap();
    }
    let err = conn
        .query_drop("INSERT INTO k VALUES (0.00000000010, 6)")
        .await;
    assert_eq!(common::error_code(err), 1062);
    let order: Vec<i32> = conn.query("SELECT v FROM k ORDER BY a").await.unwrap();
    assert_eq!(order, vec![2, 4, 5, 3, 1]);
    let found: Option<i32> = conn
        .exec_first("SELECT v FROM k WHERE a = ?", (big,))
        .await
        .unwrap();
    assert_eq!(found, Some(1));
    let near: Vec<i32> = conn
        .query("SELECT v FROM k WHERE a BETWEEN -1 AND 1 ORDER BY a")
        .await
        .unwrap();
    assert_eq!(near, vec![4, 5, 3]);
}
