//! Every sysbench 1.0.20 script Debian ships (/usr/share/sysbench)
//! prepares, runs and cleans up against the real `myriad` binary, with the default
//! --db-ps-mode (server-side prepared statements) and with --db-ps-mode=disable (text
//! queries), at 1 and 16 threads, with zero errors.
//!
//! CI-sized: 2 tables of 1,000 rows (select_random_* support one table only), one-second
//! runs (bulk_insert: a fixed number of rows). Each run must exit 0, print no FATAL/ALERT,
//! report zero ignored errors and a non-zero transaction count; after cleanup no sbtest
//! table is left.

mod common;

use common::{require_program, run_with_timeout, Server};
use mysql_async::prelude::*;
use std::time::{Duration, Instant};

const SCRIPTS: &[&str] = &[
    "oltp_point_select",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_write_only",
    "oltp_insert",
    "oltp_delete",
    "oltp_update_index",
    "oltp_update_non_index",
    "select_random_points",
    "select_random_ranges",
    "bulk_insert",
];

fn sysbench(server: &Server, script: &str, ps_mode: &str, threads: u32, phase: &str) -> String {
    let tables = if script.starts_with("select_random") {
        1
    } else {
        2
    };
    let mut command = server.sysbench(script);
    command.args([
        &format!("--db-ps-mode={ps_mode}"),
        &format!("--threads={threads}"),
        &format!("--tables={tables}"),
        "--table-size=1000",
    ]);
    if script == "bulk_insert" {
        // Each event is one row; a time limit would insert hundreds of thousands.
        command.args(["--events=5000", "--time=0"]);
    } else {
        command.arg("--time=1");
    }
    let output = run_with_timeout(command.arg(phase), Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let what = format!("sysbench {script} --db-ps-mode={ps_mode} --threads={threads} {phase}");
    assert!(
        output.status.success(),
        "{what} failed\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        !stdout.contains("FATAL") && !stdout.contains("ALERT") && !stderr.contains("FATAL"),
        "{what}\nstdout: {stdout}\nstderr: {stderr}"
    );
    stdout
}

/// The number after `label` on the first line that contains it.
fn figure(stdout: &str, label: &str) -> Option<u64> {
    let line = stdout.lines().find(|l| l.contains(label))?;
    let after = &line[line.find(label)? + label.len()..];
    after.split_whitespace().next()?.parse().ok()
}

#[test]
fn every_debian_sysbench_script_prepares_runs_and_cleans_up() {
    require_program("sysbench");
    let server = Server::start(&[]);
    let runtime = common::runtime();
    let opts = mysql_async::Opts::from_url(&server.url("root", "", None)).unwrap();
    let mut conn = runtime
        .block_on(mysql_async::Conn::new(opts.clone()))
        .unwrap();
    runtime
        .block_on(conn.query_drop("CREATE DATABASE sbtest"))
        .unwrap();

    let started = Instant::now();
    let mut summary = Vec::new();
    for script in SCRIPTS {
        for ps_mode in ["auto", "disable"] {
            for threads in [1, 16] {
                sysbench(&server, script, ps_mode, threads, "prepare");
                let out = sysbench(&server, script, ps_mode, threads, "run");
                let what = format!("{script} --db-ps-mode={ps_mode} --threads={threads}");
                assert_eq!(
                    figure(&out, "ignored errors:"),
                    Some(0),
                    "{what}: ignored errors\n{out}"
                );
                let transactions = figure(&out, "transactions:").unwrap_or(0);
                assert!(transactions > 0, "{what}: no transactions\n{out}");
                sysbench(&server, script, ps_mode, threads, "cleanup");
                let left: Vec<String> = runtime
                    .block_on(conn.query("SHOW TABLES FROM sbtest"))
                    .unwrap();
                assert!(left.is_empty(), "{what}: cleanup left {left:?}");
                summary.push(format!("{what}: {transactions} transactions"));
            }
        }
    }
    eprintln!(
        "{}\nall {} runs in {:?}",
        summary.join("\n"),
        summary.len(),
        started.elapsed()
    );
    runtime.block_on(conn.disconnect()).unwrap();
}
