//! No value changes on the way in or out, through the real server with mysql_async:
//! DECIMAL(30,10) and 38-digit values exact over both protocols, out-of-range decimals
//! refused (1264), impossible dates refused (1292), DEFAULT / ON UPDATE CURRENT_TIMESTAMP
//! storing the statement's time, LONGBLOB / MEDIUMTEXT values past 64 KiB kept, and TIME
//! values with their sign, hours and fraction over both protocols.

mod common;

use mysql_async::prelude::*;

/// A server with database `fidelity` holding the table `create_table` makes; a root
/// connection in that database.
async fn start_with(create_table: &str) -> (common::Server, mysql_async::Conn) {
    common::start_in_database("fidelity", &[create_table]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decimals_and_dates_are_exact_or_refused() {
    let (_server, mut conn) =
        start_with("CREATE TABLE d (id INT PRIMARY KEY, c DECIMAL(30,10), b DECIMAL(38,0))").await;
    let wide = "12345678901234567890.1234567891";
    let b38 = "-12345678901234567890123456789012345678";
    conn.query_drop(format!("INSERT INTO d VALUES (1, {wide}, {b38})"))
        .await
        .unwrap();
    let insert = conn.prep("INSERT INTO d VALUES (?, ?, ?)").await.unwrap();
    conn.exec_drop(&insert, (2, wide, b38)).await.unwrap();
    for id in [1, 2] {
        let want = Some((wide.to_string(), b38.to_string()));
        let text: Option<(String, String)> = conn
            .query_first(format!("SELECT c, b FROM d WHERE id = {id}"))
            .await
            .unwrap();
        assert_eq!(text, want, "text protocol, row {id}");
        let binary: Option<(String, String)> = conn
            .exec_first("SELECT c, b FROM d WHERE id = ?", (id,))
            .await
            .unwrap();
        assert_eq!(binary, want, "binary protocol, row {id}");
    }
    // 21 integer digits do not fit DECIMAL(30,10); rounding into a 21st digit neither.
    for value in [
        "123456789012345678901.5",
        "99999999999999999999.99999999999",
    ] {
        let refused = conn
            .query_drop(format!("INSERT INTO d (id, c) VALUES (3, {value})"))
            .await;
        assert_eq!(common::error_code(refused), 1264, "{value}");
    }
    conn.query_drop("CREATE TABLE d65 (a DECIMAL(65,30))")
        .await
        .expect("DECIMAL(65,30) is created");
    assert_eq!(
        common::error_code(conn.query_drop("CREATE TABLE d66 (a DECIMAL(66,0))").await),
        1426
    );

    conn.query_drop("CREATE TABLE dt (a DATE, b DATETIME)")
        .await
        .unwrap();
    for (column, value) in [
        ("a", "2023-02-30"),
        ("a", "2023-13-01"),
        ("b", "2023-04-31 10:00:00"),
    ] {
        let refused = conn
            .query_drop(format!("INSERT INTO dt ({column}) VALUES ('{value}')"))
            .await;
        assert_eq!(common::error_code(refused), 1292, "{value}");
    }
    let count: i64 = common::first_row(&mut conn, "SELECT COUNT(*) FROM dt").await;
    assert_eq!(count, 0, "nothing stored after 1292");
    let cast: Option<String> =
        common::first_row(&mut conn, "SELECT CAST('2023-02-30' AS DATE)").await;
    assert_eq!(cast, None);
    let warning: (String, u16) = conn
        .query_first("SHOW WARNINGS")
        .await
        .unwrap()
        .map(|(level, code, _message): (String, u16, String)| (level, code))
        .unwrap();
    assert_eq!(warning, ("Warning".to_string(), 1292));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn current_timestamp_columns_take_the_statement_time() {
    let (_server, mut conn) = start_with(
        "CREATE TABLE ts (id INT PRIMARY KEY, v INT, \
         a TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, \
         b DATETIME DEFAULT CURRENT_TIMESTAMP)",
    )
    .await;
    let create: (String, String) = common::first_row(&mut conn, "SHOW CREATE TABLE ts").await;
    assert!(
        create.1.contains(
            "`a` timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp()"
        ) && create
            .1
            .contains("`b` datetime DEFAULT current_timestamp()"),
        "{}",
        create.1
    );
    conn.query_drop("INSERT INTO ts (id, v) VALUES (1, 1)")
        .await
        .unwrap();
    // The stored time is the statement's: not the epoch, not after the server's NOW().
    let recent = "'2020-01-01 00:00:00'";
    let (a_ok, b_ok): (i64, i64) = conn
        .query_first(format!(
            "SELECT a > {recent} AND a <= NOW(), b > {recent} AND b <= NOW() FROM ts"
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((a_ok, b_ok), (1, 1), "DEFAULT CURRENT_TIMESTAMP");
    conn.query_drop("UPDATE ts SET a = '2001-01-01 00:00:00'")
        .await
        .unwrap();
    conn.query_drop("UPDATE ts SET v = 2").await.unwrap();
    let a_ok: i64 = conn
        .query_first(format!("SELECT a > {recent} AND a <= NOW() FROM ts"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(a_ok, 1, "ON UPDATE CURRENT_TIMESTAMP");
    assert_eq!(
        common::error_code(
            conn.query_drop("CREATE TABLE bad (a INT ON UPDATE CURRENT_TIMESTAMP)")
                .await
        ),
        1294
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_blobs_keep_their_type_and_values() {
    let (_server, mut conn) =
        start_with("CREATE TABLE lb (id INT PRIMARY KEY, a LONGBLOB, t MEDIUMTEXT, s TINYBLOB)")
            .await;
    let create: (String, String) = common::first_row(&mut conn, "SHOW CREATE TABLE lb").await;
    assert!(
        create.1.contains("`a` longblob")
            && create.1.contains("`t` mediumtext")
            && create.1.contains("`s` tinyblob"),
        "{}",
        create.1
    );
    // 4 MiB of every byte value, as a prepared-statement parameter.
    let big: Vec<u8> = (0..4 << 20).map(|i: u32| (i % 251) as u8).collect();
    let text: String = "é".repeat(300_000);
    conn.exec_drop(
        "INSERT INTO lb (id, a, t) VALUES (?, ?, ?)",
        (1, big.clone(), text.clone()),
    )
    .await
    .unwrap();
    let back: (Vec<u8>, String) = conn
        .exec_first("SELECT a, t FROM lb WHERE id = ?", (1,))
        .await
        .unwrap()
        .unwrap();
    assert!(
        back.0 == big,
        "LONGBLOB value changed ({} bytes back)",
        back.0.len()
    );
    assert_eq!(back.1, text);
    assert_eq!(
        common::error_code(
            conn.query_drop("INSERT INTO lb (id, s) VALUES (2, REPEAT('x', 256))")
                .await
        ),
        1406
    );
}

/// TIME values keep their sign, hours past 24 and fraction through both protocols: a
/// prepared statement's TIME parameter is stored as that time, and what comes back over
/// the binary protocol is a TIME, the same as the text protocol's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn times_keep_sign_hours_and_fraction_over_both_protocols() {
    use mysql_async::Value;
    let (_server, mut conn) =
        start_with("CREATE TABLE tm (id INT PRIMARY KEY, t TIME(3), KEY (t))").await;
    conn.query_drop("INSERT INTO tm VALUES (1, '-838:59:59.999'), (2, '26:03:04.5')")
        .await
        .unwrap();
    // 1 day 2:03:04.5 and 0:00:01.25 as binary TIME parameters.
    let insert = conn.prep("INSERT INTO tm VALUES (?, ?)").await.unwrap();
    conn.exec_drop(&insert, (3, Value::Time(false, 1, 2, 3, 4, 500_000)))
        .await
        .unwrap();
    conn.exec_drop(&insert, (4, Value::Time(true, 0, 0, 0, 1, 250_000)))
        .await
        .unwrap();
    let text: Vec<(i32, String)> = conn
        .query("SELECT id, t FROM tm ORDER BY t, id")
        .await
        .unwrap();
    let want = [
        (1, "-838:59:59.999"),
        (4, "-00:00:01.250"),
        (2, "26:03:04.500"),
        (3, "26:03:04.500"),
    ];
    let want: Vec<(i32, String)> = want.iter().map(|(i, s)| (*i, s.to_string())).collect();
    assert_eq!(text, want, "text protocol, in duration order");
    let binary: Vec<(i32, Value)> = conn
        .exec(
            "SELECT id, t FROM tm WHERE t > ? ORDER BY id",
            ("-00:00:02",),
        )
        .await
        .unwrap();
    assert_eq!(
        binary,
        vec![
            (2, Value::Time(false, 1, 2, 3, 4, 500_000)),
            (3, Value::Time(false, 1, 2, 3, 4, 500_000)),
            (4, Value::Time(true, 0, 0, 0, 1, 250_000)),
        ],
        "binary protocol"
    );
    let refused = conn
        .query_drop("INSERT INTO tm VALUES (5, '839:00:00')")
        .await;
    assert_eq!(common::error_code(refused), 1292);
}
