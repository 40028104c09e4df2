//! sysbench 1.0.20 (Debian package) with its default --db-ps-mode
//! (server-side prepared statements through libmariadb) runs tests/sysbench/
//! select_params.lua, which prepares `SELECT ?`-style statements and executes them many
//! times with varying parameters, checking what comes back. The script raises an error,
//! and sysbench exits non-zero, on the first wrong answer.

mod common;

use common::{require_program, run_ok, runtime, Server};
use mysql_async::prelude::*;
use std::time::Duration;

const EVENTS: u32 = 20_000;
const THREADS: u32 = 8;

fn sysbench(server: &Server, extra: &[&str]) -> String {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/sysbench/select_params.lua"
    );
    let stdout = run_ok(
        server
            .sysbench(script)
            .args([
                &format!("--threads={THREADS}"),
                &format!("--events={EVENTS}"),
                "--time=0",
            ])
            .args(extra)
            .arg("run"),
        Duration::from_secs(120),
        "sysbench",
    );
    assert!(
        !stdout.contains("FATAL") && !stdout.contains("ALERT"),
        "{stdout}"
    );
    common::assert_sysbench_ran(&stdout, EVENTS);
    stdout
}

#[test]
fn sysbench_prepared_select_with_varying_parameters() {
    require_program("sysbench");
    let server = Server::start(&[]);
    // sysbench passes its database in the handshake (CLIENT_CONNECT_WITH_DB).
    runtime().block_on(async {
        let mut conn = server.connect_root().await;
        conn.query_drop("CREATE DATABASE sbtest").await.unwrap();
        conn.disconnect().await.unwrap();
    });

    let out = sysbench(&server, &[]);
    eprintln!("{out}");
    // The text-protocol path of the same script, for comparison.
    sysbench(&server, &["--db-ps-mode=disable"]);
}
