//! sysbench 1.0.20's stock oltp_point_select against the real binary: `prepare` loads the
//! table with sysbench's multi-row `INSERT INTO sbtest1(k, c, pad) VALUES (...),(...)`
//! text queries and then runs `CREATE INDEX`; `run` executes point selects through
//! server-side prepared statements; `cleanup` drops the table. The bulk insert's OK packet
//! carries an info string ("Records: N  Duplicates: 0  Warnings: 0"), which libmariadb
//! rejected with 2027 "Received malformed packet" until it was length-encoded.

mod common;

use common::{require_program, run_ok, run_with_timeout, runtime, Server};
use mysql_async::prelude::*;
use std::time::Duration;

const TABLE_SIZE: u32 = 1000;

fn oltp_point_select(server: &Server, command: &str) -> String {
    let output = run_with_timeout(
        server
            .sysbench("/usr/share/sysbench/oltp_point_select.lua")
            .args([
                "--tables=1",
                &format!("--table-size={TABLE_SIZE}"),
                "--threads=2",
                "--events=2000",
                "--time=0",
            ])
            .arg(command),
        Duration::from_secs(120),
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "sysbench {command} failed\nstdout: {stdout}\nstderr: {}\nserver log:\n{}",
        String::from_utf8_lossy(&output.stderr),
        server.log_text()
    );
    assert!(
        !stdout.contains("FATAL") && !stdout.contains("ALERT"),
        "{stdout}"
    );
    stdout
}

#[test]
fn sysbench_oltp_point_select_prepare_run_cleanup() {
    require_program("sysbench");
    let server = Server::start(&[]);
    let rt = runtime();
    rt.block_on(async {
        let mut conn = server.connect_root().await;
        conn.query_drop("CREATE DATABASE sbtest").await.unwrap();
        conn.disconnect().await.unwrap();
    });

    let prepare = oltp_point_select(&server, "prepare");
    assert!(
        prepare.contains("Creating a secondary index on 'sbtest1'"),
        "{prepare}"
    );
    let rows: u64 = rt.block_on(async {
        let mut conn = server.connect_root().await;
        let rows = common::first_row(&mut conn, "SELECT COUNT(*) FROM sbtest.sbtest1").await;
        conn.disconnect().await.unwrap();
        rows
    });
    assert_eq!(rows, u64::from(TABLE_SIZE), "every row loaded");

    let run = oltp_point_select(&server, "run");
    common::assert_sysbench_ran(&run, 2000);

    oltp_point_select(&server, "cleanup");
    let tables: Vec<String> = rt.block_on(async {
        let mut conn = server.connect_root().await;
        let tables = conn.query("SHOW TABLES FROM sbtest").await.unwrap();
        conn.disconnect().await.unwrap();
        tables
    });
    assert!(tables.is_empty(), "cleanup dropped sbtest1: {tables:?}");
}

/// The same OK packet through the mariadb CLI (libmariadb) and mysql_async: a multi-row
/// INSERT's info string arrives intact.
#[test]
fn multi_row_insert_reports_its_info_string() {
    require_program("mariadb");
    let server = Server::start(&[]);
    let stdout = run_ok(
        server.client("mariadb").args([
            "-vv",
            "-e",
            "CREATE DATABASE d; CREATE TABLE d.t (a INT); \
             INSERT INTO d.t VALUES (1),(2),(3)",
        ]),
        Duration::from_secs(30),
        "mariadb",
    );
    assert!(
        stdout.contains("Records: 3  Duplicates: 0  Warnings: 0"),
        "{stdout}"
    );

    runtime().block_on(async {
        let mut conn = server.connect_root().await;
        conn.query_drop("INSERT INTO d.t VALUES (4),(5)")
            .await
            .unwrap();
        assert_eq!(conn.affected_rows(), 2);
        assert_eq!(conn.info(), "Records: 2  Duplicates: 0  Warnings: 0");
        conn.disconnect().await.unwrap();
    });
}
