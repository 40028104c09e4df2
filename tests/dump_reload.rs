//! A dump MariaDB writes (mariadb-dump without --hex-blob: binary values as raw bytes
//! between quotes) loads into myriad with every byte intact: all 256 byte values and an
//! invalid UTF-8 value in BLOB and VARBINARY, and UTF-8 text, read back with mysql_async.

mod common;

use common::{require_program, run_with_timeout, Server};
use myriad_testkit::Owned;
use mysql_async::prelude::*;
use mysql_async::{Conn, OptsBuilder};
use std::process::Command;
use std::time::Duration;

type Row = (i64, Vec<u8>, Vec<u8>, String);

fn rows() -> Vec<Row> {
    let all: Vec<u8> = (0..=255u8).collect();
    let invalid = b"\xff\xfe\xc3\x28\xe2\x82\x00\x80'\\\"end".to_vec();
    vec![
        (1, all.clone(), all[..200].to_vec(), "héllo ÿ €".to_string()),
        (
            2,
            invalid.clone(),
            invalid,
            "😀 'quoted' \\ back".to_string(),
        ),
        (3, Vec::new(), vec![0], String::new()),
    ]
}

/// A MariaDB with utf8mb4 defaults, as the dumps are compared under.
fn start_mariadb() -> Owned {
    Owned::mariadb(&[
        ("skip_grant_tables", ""),
        ("innodb_buffer_pool_size", "16M"),
        ("character_set_server", "utf8mb4"),
        ("collation_server", "utf8mb4_general_ci"),
    ])
    .unwrap_or_else(|e| panic!("MariaDB did not start: {e:#}"))
}

/// Database `dumped` with table `t` holding [`rows`], made through `conn`.
async fn fill(conn: &mut Conn) {
    conn.query_drop("CREATE DATABASE dumped").await.unwrap();
    conn.query_drop("USE dumped").await.unwrap();
    conn.query_drop("CREATE TABLE t (id INT PRIMARY KEY, b BLOB, v VARBINARY(300), c VARCHAR(40))")
        .await
        .unwrap();
    for row in rows() {
        conn.exec_drop("INSERT INTO t VALUES (?, ?, ?, ?)", row)
            .await
            .unwrap();
    }
}

fn sh(script: &str) -> String {
    let out = run_with_timeout(
        Command::new("sh").args(["-c", script]),
        Duration::from_secs(120),
    );
    assert!(
        out.status.success(),
        "{script}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mariadb_dump_with_raw_binary_values_loads_byte_for_byte() {
    require_program("mariadb");
    require_program("mariadb-dump");
    let maria = start_mariadb();
    let mut source = Conn::new(
        OptsBuilder::default()
            .ip_or_hostname("127.0.0.1")
            .tcp_port(maria.port())
            .user(Some("root"))
            .prefer_socket(false),
    )
    .await
    .expect("connect to MariaDB");
    fill(&mut source).await;
    drop(source);

    let dump = std::env::temp_dir().join(format!("dump-reload-{}.sql", std::process::id()));
    sh(&format!(
        "mariadb-dump -S'{}' -uroot dumped > '{}'",
        maria.socket().display(),
        dump.display()
    ));
    let text = std::fs::read(&dump).expect("read the dump");
    assert!(
        std::str::from_utf8(&text).is_err(),
        "the dump carries raw binary bytes, not UTF-8 (else this test proves nothing)"
    );
    // Default options: the dump locks each table and disables its keys around its rows.
    let lossy = String::from_utf8_lossy(&text);
    assert!(lossy.contains("LOCK TABLES `t` WRITE") && lossy.contains("DISABLE KEYS"));

    let server = Server::start(&[]);
    sh(&format!(
        "mariadb -h127.0.0.1 -P{} -uroot -e 'CREATE DATABASE dumped' && \
         mariadb -h127.0.0.1 -P{} -uroot --binary-mode dumped < '{}'",
        server.port,
        server.port,
        dump.display()
    ));
    let _ = std::fs::remove_file(&dump);
    let mut conn = Conn::new(common::async_opts(&server, Some("dumped")))
        .await
        .expect("connect to myriad");
    let back: Vec<Row> = conn
        .query("SELECT id, b, v, c FROM t ORDER BY id")
        .await
        .unwrap();
    assert_eq!(back, rows());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_dump_single_transaction_of_myriad_reloads_into_mariadb() {
    dump_myriad_into_mariadb("--single-transaction").await;
}

/// Default options: mariadb-dump takes `LOCK TABLES ... READ LOCAL` on myriad while it reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_dump_of_myriad_with_default_options_reloads_into_mariadb() {
    dump_myriad_into_mariadb("").await;
}

/// Dump myriad's `dumped` database with mariadb-dump and `options` (no flag works around
/// myriad), load it into MariaDB and compare the rows.
async fn dump_myriad_into_mariadb(options: &str) {
    require_program("mariadb");
    require_program("mariadb-dump");
    let server = Server::start(&[]);
    let mut source = Conn::new(common::async_opts(&server, None))
        .await
        .expect("connect to myriad");
    fill(&mut source).await;
    drop(source);

    let dump =
        std::env::temp_dir().join(format!("dump-myriad-{}{options}.sql", std::process::id()));
    let out = run_with_timeout(
        Command::new("sh").args([
            "-c",
            &format!(
                "mariadb-dump -h127.0.0.1 -P{} -uroot {options} dumped > '{}'",
                server.port,
                dump.display()
            ),
        ]),
        Duration::from_secs(120),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "mariadb-dump: {stderr}"
    );

    let maria = start_mariadb();
    sh(&format!(
        "mariadb -S'{0}' -uroot -e 'CREATE DATABASE dumped' && \
         mariadb -S'{0}' -uroot --binary-mode dumped < '{1}'",
        maria.socket().display(),
        dump.display()
    ));
    let _ = std::fs::remove_file(&dump);
    let mut conn = Conn::new(
        OptsBuilder::default()
            .ip_or_hostname("127.0.0.1")
            .tcp_port(maria.port())
            .user(Some("root"))
            .db_name(Some("dumped"))
            .prefer_socket(false),
    )
    .await
    .expect("connect to MariaDB");
    let back: Vec<Row> = conn
        .query("SELECT id, b, v, c FROM t ORDER BY id")
        .await
        .unwrap();
    assert_eq!(back, rows());
}
