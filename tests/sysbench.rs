//! sysbench 1.0.20 (Debian package) with its default --db-ps-mode
//! (server-side prepared statements through libmariadb) runs tests/sysbench/
//! select_params.lua, which prepares `SELECT ?`-style statements and executes them many
//! times with varying parameters, checking what comes back. The script raises an error,
//! and sysbench exits non-zero, on the first wrong answer.

mod common;

use common::{require_program, run_with_timeout, Server};
use mysql_async::prelude::*;
use std::process::Command;
use std::time::Duration;

const EVENTS: u32 = 20_000;
const THREADS: u32 = 8;

fn sysbench(server: &Server, extra: &[&str]) -> String {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/sysbench/select_params.lua"
    );
    let output = run_with_timeout(
        Command::new("sysbench")
            .arg(script)
            .args([
                "--mysql-host=127.0.0.1",
                &format!("--mysql-port={}", server.port),
                "--mysql-user=root",
                "--mysql-db=sbtest",
                &format!("--threads={THREADS}"),
                &format!("--events={EVENTS}"),
                "--time=0",
            ])
            .args(extra)
            .arg("run"),
        Duration::from_secs(120),
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "sysbench failed\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        !stdout.contains("FATAL") && !stdout.contains("ALERT"),
        "{stdout}"
    );
    let events = stdout
        .lines()
        .find(|l| l.contains("total number of events:"))
        .unwrap_or_default();
    assert!(
        events.trim().ends_with(&EVENTS.to_string()),
        "all events ran: {stdout}"
    );
    let ignored = stdout
        .lines()
        .find(|l| l.contains("ignored errors:"))
        .unwrap_or_default();
    assert!(
        ignored.split_whitespace().nth(2) == Some("0"),
        "no ignored errors: {stdout}"
    );
    stdout
}

#[test]
fn sysbench_prepared_select_with_varying_parameters() {
    require_program("sysbench");
    let server = Server::start(&[]);
    // sysbench passes its database in the handshake (CLIENT_CONNECT_WITH_DB).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut conn = mysql_async::Conn::new(
            mysql_async::Opts::from_url(&server.url("root", "", None)).unwrap(),
        )
        .await
        .unwrap();
        conn.query_drop("CREATE DATABASE sbtest").await.unwrap();
        conn.disconnect().await.unwrap();
    });

    let out = sysbench(&server, &[]);
    eprintln!("{out}");
    // The text-protocol path of the same script, for comparison.
    sysbench(&server, &["--db-ps-mode=disable"]);
}
