//! A Rust client: mysql_async connects, SET NAMES utf8mb4, text queries,
//! prepared statements re-executed with new parameters, ping, change of database (USE,
//! COM_INIT_DB through the URL, COM_CHANGE_USER), wrong password rejected with 1045.

mod common;

use common::Server;
use mysql_async::prelude::*;
use mysql_async::{ChangeUserOpts, Conn, Opts, OptsBuilder};

fn opts(server: &Server, user: &str, password: &str, database: Option<&str>) -> Opts {
    OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(server.port)
        .user(Some(user))
        .pass((!password.is_empty()).then(|| password.to_string()))
        .db_name(database)
        .prefer_socket(false)
        .into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_async_text_prepared_ping_use_and_passwords() {
    let server = Server::start(&[]);
    let mut conn = Conn::new(opts(&server, "root", "", None))
        .await
        .expect("connect as root");

    conn.query_drop("SET NAMES utf8mb4").await.unwrap();
    let row: (i64, String, Option<i64>, f64) =
        common::first_row(&mut conn, "SELECT 1 + 2, CONCAT('caf', 'é'), NULL, 1.5 * 2").await;
    assert_eq!(row, (3, "café".to_string(), None, 3.0));
    let (packet, timeout): (u64, u64) = conn
        .query_first("SELECT @@max_allowed_packet AS m, @@session.wait_timeout AS w")
        .await
        .unwrap()
        .unwrap();
    assert!(packet >= 1024 && timeout > 0);

    // Prepared statements: one prepare, many executions with new parameters of several
    // types (mysql_async sends the types with every execution).
    let statement = conn
        .prep("SELECT ? + 1 AS next, CONCAT('v', ?) AS text, ? IS NULL AS missing")
        .await
        .unwrap();
    for i in 0..50i64 {
        let param: Option<i64> = if i % 7 == 0 { None } else { Some(i) };
        let row: (i64, String, i64) = conn
            .exec_first(&statement, (i, format!("{i}-é"), param))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            row,
            (i + 1, format!("v{i}-é"), i64::from(i % 7 == 0)),
            "execution {i}"
        );
    }
    let doubled: Vec<f64> = conn
        .exec(&statement, (2.25f64, "x", 1))
        .await
        .unwrap()
        .into_iter()
        .map(|r: (f64, String, i64)| r.0)
        .collect();
    assert_eq!(doubled, vec![3.25]);
    conn.close(statement).await.unwrap();

    conn.ping().await.unwrap();

    // Change of database: USE, then COM_CHANGE_USER with a database.
    conn.query_drop("USE mysql").await.unwrap();
    let db: Option<String> = common::first_row(&mut conn, "SELECT DATABASE()").await;
    assert_eq!(db.as_deref(), Some("mysql"));
    conn.change_user(ChangeUserOpts::default().with_db_name(Some("information_schema".into())))
        .await
        .unwrap();
    let db: Option<String> = common::first_row(&mut conn, "SELECT DATABASE()").await;
    assert_eq!(db.as_deref(), Some("information_schema"));

    // An account with a password: right password in, wrong one out with 1045.
    conn.query_drop("CREATE USER 'alice'@'localhost' IDENTIFIED BY 'secret'")
        .await
        .unwrap();
    // A database named at connect needs a privilege in it (1044 without).
    assert_eq!(
        common::error_code(Conn::new(opts(&server, "alice", "secret", Some("mysql"))).await),
        1044
    );
    conn.query_drop("GRANT SELECT ON mysql.* TO 'alice'@'localhost'")
        .await
        .unwrap();
    let mut alice = Conn::new(opts(&server, "alice", "secret", Some("mysql")))
        .await
        .expect("alice connects");
    let db: Option<String> = common::first_row(&mut alice, "SELECT DATABASE()").await;
    assert_eq!(
        db.as_deref(),
        Some("mysql"),
        "database given at connect (CLIENT_CONNECT_WITH_DB)"
    );
    alice.disconnect().await.unwrap();
    assert_eq!(
        common::error_code(Conn::new(opts(&server, "alice", "wrong", None)).await),
        1045
    );
    assert_eq!(
        common::error_code(Conn::new(opts(&server, "alice", "", None)).await),
        1045
    );
    assert_eq!(
        common::error_code(Conn::new(opts(&server, "nobody", "", None)).await),
        1045
    );

    // The counters the network layer maintains.
    let status: Vec<(String, String)> = conn
        .query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Connections', 'Threads_connected', 'Aborted_connects', 'Bytes_received')")
        .await
        .unwrap();
    let get = |name: &str| -> u64 {
        status
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.parse().unwrap())
            .unwrap_or_else(|| panic!("{name} missing: {status:?}"))
    };
    assert!(get("Connections") >= 5, "{status:?}");
    // Closed connections may still be finishing on the server: at least this one, at most
    // this one plus the four that just ended.
    assert!((1..=5).contains(&get("Threads_connected")), "{status:?}");
    assert!(get("Aborted_connects") >= 3, "{status:?}");
    assert!(get("Bytes_received") > 100, "{status:?}");
    conn.disconnect().await.unwrap();
}

/// Packets over 16 MiB in both directions with a real client, and COM_RESET_CONNECTION.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_async_packets_over_16_mib_and_reset_connection() {
    let server = Server::start(&["--max-allowed-packet=64M"]);
    let mut conn = Conn::new(opts(&server, "root", "", None))
        .await
        .expect("connect");
    const HALF: usize = 9_000_000;

    // Client to server: an 18 MB query text arrives as two physical packets.
    let a = "a".repeat(HALF);
    let b = "b".repeat(HALF);
    let total: i64 = conn
        .query_first(format!("SELECT LENGTH('{a}') + LENGTH('{b}')"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(total, 2 * HALF as i64);

    // Server to client: an 18 MB row.
    let (x, y): (Vec<u8>, Vec<u8>) = conn
        .query_first(format!("SELECT REPEAT('x', {HALF}), REPEAT('y', {HALF})"))
        .await
        .unwrap()
        .unwrap();
    assert!(
        x.len() == HALF
            && y.len() == HALF
            && x.iter().all(|&c| c == b'x')
            && y.iter().all(|&c| c == b'y')
    );

    // The same through a prepared statement with 18 MB of parameters (binary protocol).
    let statement = conn
        .prep("SELECT LENGTH(?) + LENGTH(?), REPEAT(?, 2)")
        .await
        .unwrap();
    let (total, repeated): (i64, String) = conn
        .exec_first(&statement, (a.as_str(), b.as_str(), "z"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((total, repeated.as_str()), (2 * HALF as i64, "zz"));
    let (x, _): (Vec<u8>, Vec<u8>) = conn
        .exec_first(
            "SELECT REPEAT(?, ?), REPEAT('y', 9000000)",
            ("x", HALF as i64),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(x.len(), HALF);

    // COM_RESET_CONNECTION restores session variables and drops prepared statements.
    conn.query_drop("SET SESSION wait_timeout = 77")
        .await
        .unwrap();
    let before: u64 = common::first_row(&mut conn, "SELECT @@session.wait_timeout").await;
    assert_eq!(before, 77);
    assert!(
        conn.reset().await.unwrap(),
        "COM_RESET_CONNECTION was used, not a reconnect"
    );
    let after: u64 = common::first_row(&mut conn, "SELECT @@session.wait_timeout").await;
    assert_ne!(
        after, 77,
        "the session variable is back to the global value"
    );
    conn.disconnect().await.unwrap();
}
