//! Driving sysbench 1.0 (Debian's `sysbench` package, scripts in /usr/share/sysbench) and
//! reading its report.
//!
//! sysbench runs as a child in its own process group (see [`crate::server::GroupChild`]),
//! with its output going to a file that is parsed once it exits: a run that hangs past its
//! `--time` plus a grace period is killed and becomes an error. The report's figures are
//! parsed into [`SysbenchResult`]; a report without them (sysbench prints `FATAL:` lines and
//! exits non-zero on a failed connection or query) becomes an error carrying those lines.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::server::GroupChild;

/// How long past `--time` a run may take before it is killed (thread start-up with 128
/// connections and the final report take a few seconds on a loaded machine).
const GRACE: Duration = Duration::from_secs(120);

/// The figures of one sysbench `run` report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SysbenchResult {
    pub transactions: u64,
    pub tps: f64,
    pub queries: u64,
    pub qps: f64,
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    pub ignored_errors: u64,
    pub reconnects: u64,
    pub total_time_s: f64,
    pub events: u64,
    pub latency_min_ms: f64,
    pub latency_avg_ms: f64,
    pub latency_max_ms: f64,
    /// The percentile sysbench reports (95th by default).
    pub latency_p95_ms: f64,
}

/// The first number in `text` (digits, '.', '-'), e.g. "3.0079s" -> 3.0079.
fn leading_number(text: &str) -> Option<f64> {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e' || c == '+'))
        .unwrap_or(text.len());
    text[..end].parse().ok()
}

/// The "(1300.36 per sec.)" rate on a line, if any.
fn per_second(text: &str) -> Option<f64> {
    let open = text.find('(')?;
    leading_number(&text[open + 1..])
}

/// The lines of a sysbench output that explain a failure.
pub fn failure_lines(output: &str) -> String {
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("FATAL") || l.contains("error") || l.contains("ALERT"))
        .filter(|l| !l.starts_with("ignored errors"))
        .collect();
    if lines.is_empty() {
        let tail: Vec<&str> = output.lines().rev().take(5).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
    } else {
        // Many threads print the same failure; keep each distinct line once, and cut the
        // long ones (a failed bulk INSERT quotes all of its rows).
        let mut seen: Vec<String> = Vec::new();
        for line in lines {
            let line = shorten(line, MAX_LINE_CHARS);
            if !seen.contains(&line) {
                seen.push(line);
            }
        }
        seen.join(" | ")
    }
}

/// The longest failure line kept in an error row.
const MAX_LINE_CHARS: usize = 300;

fn shorten(line: &str, max_chars: usize) -> String {
    match line.char_indices().nth(max_chars) {
        Some((end, _)) => format!("{}...", &line[..end]),
        None => line.to_string(),
    }
}

/// Parses the report of `sysbench <test> run`.
pub fn parse_output(output: &str) -> Result<SysbenchResult> {
    let mut result = SysbenchResult::default();
    let (mut saw_transactions, mut saw_queries, mut saw_latency) = (false, false, false);
    let mut in_latency = false;
    for raw in output.lines() {
        let line = raw.trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if key.starts_with("Latency") {
            in_latency = true;
            continue;
        }
        if key.starts_with("Threads fairness") {
            in_latency = false;
            continue;
        }
        let number = leading_number(value);
        let count = || number.map(|n| n.max(0.0) as u64).unwrap_or(0);
        match key {
            "read" => result.reads = count(),
            "write" => result.writes = count(),
            "other" => result.other = count(),
            "transactions" => {
                result.transactions = count();
                result.tps = per_second(value).unwrap_or(0.0);
                saw_transactions = number.is_some();
            }
            "queries" => {
                result.queries = count();
                result.qps = per_second(value).unwrap_or(0.0);
                saw_queries = number.is_some();
            }
            "ignored errors" => result.ignored_errors = count(),
            "reconnects" => result.reconnects = count(),
            "total time" => result.total_time_s = number.unwrap_or(0.0),
            "total number of events" => result.events = count(),
            "min" if in_latency => result.latency_min_ms = number.unwrap_or(0.0),
            "avg" if in_latency => {
                result.latency_avg_ms = number.unwrap_or(0.0);
                saw_latency = number.is_some();
            }
            "max" if in_latency => result.latency_max_ms = number.unwrap_or(0.0),
            k if in_latency && k.ends_with("percentile") => {
                result.latency_p95_ms = number.unwrap_or(0.0)
            }
            _ => {}
        }
    }
    if !(saw_transactions && saw_queries && saw_latency) {
        bail!("sysbench reported no results: {}", failure_lines(output));
    }
    Ok(result)
}

/// Finds the sysbench binary, or says what to install.
pub fn binary() -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("sysbench"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            anyhow!("sysbench not found in PATH; install it with `apt-get install sysbench`")
        })
}

/// One sysbench invocation against a server on 127.0.0.1 (TCP) or on its unix socket.
#[derive(Debug, Clone)]
pub struct Sysbench {
    /// The test script name as sysbench knows it (`oltp_read_only`).
    pub test: String,
    pub port: u16,
    /// Connect through this unix socket instead of TCP.
    pub socket: Option<PathBuf>,
    pub database: String,
    pub tables: u32,
    pub table_size: u64,
    /// Further options, e.g. `--mysql-storage-engine=myisam` or `--random-points=10`.
    pub extra: Vec<String>,
}

impl Sysbench {
    fn common_args(&self) -> Vec<String> {
        let mut args = vec![self.test.clone(), "--db-driver=mysql".to_string()];
        match &self.socket {
            // The client library takes the socket only for the host `localhost`.
            Some(socket) => args.extend([
                "--mysql-host=localhost".to_string(),
                format!("--mysql-socket={}", socket.display()),
            ]),
            None => args.extend([
                "--mysql-host=127.0.0.1".to_string(),
                format!("--mysql-port={}", self.port),
            ]),
        }
        args.extend([
            "--mysql-user=root".to_string(),
            "--mysql-password=".to_string(),
            format!("--mysql-db={}", self.database),
            format!("--tables={}", self.tables),
            format!("--table-size={}", self.table_size),
        ]);
        args.extend(self.extra.iter().cloned());
        args
    }

    /// The command line of a `run` with `threads` for `time_s`, as the record shows it.
    pub fn run_command(&self, threads: u32, time_s: u64) -> Vec<String> {
        let mut args = vec!["sysbench".to_string()];
        args.extend(self.common_args());
        args.push(format!("--threads={threads}"));
        args.push(format!("--time={time_s}"));
        args.push("--report-interval=0".to_string());
        args.push("run".to_string());
        args
    }

    /// Creates and loads the tables (`prepare`), one loader thread per table.
    pub fn prepare(&self) -> Result<()> {
        let mut args = self.common_args();
        args.push(format!("--threads={}", self.tables.max(1)));
        args.push("prepare".to_string());
        // Loading 1M rows takes tens of seconds on a loaded 2-core machine.
        let output = run_sysbench(&args, Duration::from_secs(3600))?;
        if output.1 {
            Ok(())
        } else {
            bail!("sysbench prepare failed: {}", failure_lines(&output.0))
        }
    }

    /// Runs the workload with `threads` for `time_s` seconds and parses the report.
    pub fn run(&self, threads: u32, time_s: u64) -> Result<SysbenchResult> {
        let command = self.run_command(threads, time_s);
        let (output, success) = run_sysbench(&command[1..], Duration::from_secs(time_s) + GRACE)?;
        let parsed = parse_output(&output)?;
        if !success {
            bail!("sysbench exited with an error: {}", failure_lines(&output));
        }
        Ok(parsed)
    }
}

/// Runs sysbench with `args`; returns its output and whether it exited with status 0.
fn run_sysbench(args: &[String], limit: Duration) -> Result<(String, bool)> {
    let binary = binary()?;
    let output_file = tempfile::NamedTempFile::new().context("creating sysbench output file")?;
    let out = output_file.reopen()?;
    let mut command = crate::pinning::command(&binary, crate::pinning::Side::Client);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    let mut child = GroupChild::spawn(&mut command).context("starting sysbench")?;
    let status = child.wait_timeout(limit)?;
    child.kill_group();
    let output = String::from_utf8_lossy(&std::fs::read(output_file.path())?).into_owned();
    match status {
        Some(status) => Ok((output, status.success())),
        None => bail!(
            "sysbench did not finish within {} s and was killed: {}",
            limit.as_secs(),
            failure_lines(&output)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const READ_ONLY: &str = include_str!("../tests/data/sysbench_read_only.txt");
    const CONNECT_ERROR: &str = include_str!("../tests/data/sysbench_connect_error.txt");

    #[test]
    fn parses_a_read_only_report() {
        let r = parse_output(READ_ONLY).expect("report parses");
        assert_eq!(r.transactions, 976);
        assert!((r.tps - 483.76).abs() < 1e-9);
        assert_eq!(r.queries, 15616);
        assert!((r.qps - 7740.13).abs() < 1e-9);
        assert_eq!((r.reads, r.writes, r.other), (13664, 0, 1952));
        assert_eq!((r.ignored_errors, r.reconnects), (0, 0));
        assert!((r.total_time_s - 2.0158).abs() < 1e-9);
        assert_eq!(r.events, 976);
        assert!((r.latency_min_ms - 0.51).abs() < 1e-9);
        assert!((r.latency_avg_ms - 4.11).abs() < 1e-9);
        assert!((r.latency_max_ms - 423.87).abs() < 1e-9);
        assert!((r.latency_p95_ms - 11.87).abs() < 1e-9);
    }

    #[test]
    fn a_failed_run_is_an_error_with_the_fatal_lines_once() {
        let err = parse_output(CONNECT_ERROR).unwrap_err().to_string();
        assert!(err.contains("unable to connect to MySQL server"), "{err}");
        assert!(err.contains("Thread initialization failed"), "{err}");
        assert_eq!(
            err.matches("error 2002").count(),
            1,
            "repeated lines are kept once: {err}"
        );
    }

    #[test]
    fn long_failure_lines_are_cut() {
        let output = format!(
            "FATAL: mysql_drv_query() returned error 2027 for query 'INSERT {}'\n",
            "x".repeat(5000)
        );
        let text = failure_lines(&output);
        assert!(text.starts_with("FATAL: mysql_drv_query() returned error 2027"));
        assert!(text.ends_with("..."));
        assert_eq!(text.chars().count(), MAX_LINE_CHARS + 3);
    }

    #[test]
    fn ignored_errors_and_reconnects_are_counted() {
        let text = READ_ONLY
            .replace(
                "ignored errors:                      0      (0.00 per sec.)",
                "ignored errors:                      17     (5.67 per sec.)",
            )
            .replace(
                "reconnects:                          0",
                "reconnects:                          2",
            );
        let r = parse_output(&text).expect("report parses");
        assert_eq!(r.ignored_errors, 17);
        assert_eq!(r.reconnects, 2);
    }

    #[test]
    fn a_truncated_report_is_an_error() {
        let cut = &READ_ONLY[..READ_ONLY.find("Latency").expect("fixture has latency")];
        assert!(parse_output(cut).is_err());
        assert!(parse_output("").is_err());
    }

    #[test]
    fn numbers_and_rates_are_read_from_the_front() {
        assert_eq!(leading_number("  3.0079s"), Some(3.0079));
        assert_eq!(leading_number("3913   (1300.36 per sec.)"), Some(3913.0));
        assert_eq!(per_second("3913   (1300.36 per sec.)"), Some(1300.36));
        assert_eq!(leading_number("abc"), None);
    }

    #[test]
    fn run_command_names_every_setting() {
        let sb = Sysbench {
            test: "oltp_point_select".into(),
            port: 3307,
            socket: None,
            database: "sbtest".into(),
            tables: 2,
            table_size: 1000,
            extra: vec!["--rand-seed=1".into()],
        };
        let cmd = sb.run_command(16, 30).join(" ");
        for part in [
            "sysbench oltp_point_select",
            "--mysql-port=3307",
            "--tables=2",
            "--table-size=1000",
            "--rand-seed=1",
            "--threads=16",
            "--time=30",
        ] {
            assert!(cmd.contains(part), "{part} missing from {cmd}");
        }
        assert!(cmd.ends_with(" run"));
        let through_socket = Sysbench {
            socket: Some(PathBuf::from("/tmp/d/myriad.sock")),
            ..sb
        }
        .run_command(16, 30)
        .join(" ");
        assert!(through_socket.contains("--mysql-host=localhost --mysql-socket=/tmp/d/myriad.sock"));
        assert!(!through_socket.contains("--mysql-port"), "{through_socket}");
    }
}
