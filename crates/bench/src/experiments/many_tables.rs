//! Seed 000: a table cache that gets slower as it grows. Create N one-column tables, then
//! select each once in order, two passes, at table_open_cache 64, 8,000 and N. With
//! 100,000 tables MySQL 5.0 to 5.4 ran 50x slower at table_cache=16384 than at 64 (a
//! linear scan over open tables on every open, MySQL bug 49177).
//!
//! The client's round trip is measured in the same server run (`SELECT 1`, `SELECT 2`, ...,
//! `SELECT N`), so the server-side cost of one open is (pass time - floor) / N. The floor's
//! statements are interleaved with the pass's, a chunk of each in turn, so that both meet
//! the machine in the same state. Each floor statement is a new text, as each
//! `SELECT * FROM tK` is: a server that keeps plans by
//! statement text (myriad's per-connection plan cache) would answer a repeated `SELECT 1`
//! without parsing it and so charge the parse of the table's statement to the open; with
//! distinct texts both servers parse every statement of both loops.
//!
//! Wall time on a shared machine measures the neighbours as much as the server, so each row
//! also carries the server process's CPU time (user + system, from `/proc/PID/stat`) per
//! statement, and `server_cpu_us_per_open` = (CPU of the pass - CPU of the floor) / N: what
//! an open costs the server itself, whatever the load.

use anyhow::Result;

use super::{
    engine_label, ok_rows, param_f64, param_text, ratio_text, rows_where, series_by, settings_with,
    table, Engine, Runner,
};
use crate::client::Client;
use crate::report::{cost_above_floor, format_cost, format_number, PlotSpec, Row};
use crate::server::{Connect, Launcher, Target};

/// Expected rates on a loaded 2-core machine, for the progress bar's estimate.
const CREATE_RATE_PER_S: u64 = 300;
const SELECT_RATE_PER_S: u64 = 3_000;

pub fn run(r: &mut Runner) {
    r.pin_client_loop();
    let n = r.pick(r.opts.tables, 100_000, 1_000);
    let middle = if r.opts.quick { 500 } else { 8_000 };
    let mut caches: Vec<u64> = vec![64, middle.min(n), n];
    caches.sort_unstable();
    caches.dedup();
    r.parameter("tables", n);
    r.parameter("table_open_cache_sizes", serde_json::json!(caches));
    let runs: u64 = r
        .opts
        .targets
        .iter()
        .map(|t| r.engines(*t, &[Engine::Myisam, Engine::Innodb]).len() as u64)
        .sum();
    let per_run = n / CREATE_RATE_PER_S + caches.len() as u64 * (5 + 3 * n / SELECT_RATE_PER_S);
    r.progress.set_total(runs * per_run);

    r.run_engines(&[Engine::Myisam, Engine::Innodb], |r, launcher, engine| {
        run_engine(r, launcher, engine, n, &caches)
    });
    summarise(r, &caches);
}

/// CPU seconds (user + system, all threads, exited ones included) the process has used.
pub fn process_cpu_seconds(pid: u32) -> Option<f64> {
    // The process's CPU-time clock counts nanoseconds; /proc/PID/stat counts 10 ms ticks.
    let mut clock: libc::clockid_t = 0;
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: both calls write only to the locals passed.
    let read = unsafe {
        libc::clock_getcpuclockid(pid as libc::pid_t, &mut clock) == 0
            && libc::clock_gettime(clock, &mut now) == 0
    };
    if read {
        return Some(now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9);
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces): state is field 3.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (ticks > 0).then(|| (utime + stime) / ticks as f64)
}

/// Runs `statement(i)` for i in 1..=n on one connection; returns the seconds it took.
pub fn table_loop(
    r: &Runner,
    client: &mut Client,
    n: u64,
    estimate_s: u64,
    what: &str,
    statement: impl Fn(u64) -> String,
) -> Result<f64> {
    let mut progress = LoopProgress::start(r, what, n, estimate_s * 1000);
    let started = std::time::Instant::now();
    for i in 1..=n {
        client.execute(&statement(i))?;
        if i.is_multiple_of(100) {
            progress.at(r, i);
        }
    }
    progress.done(r);
    Ok(started.elapsed().as_secs_f64())
}

/// A loop's share of the progress bar: `estimate_ms` milliseconds spread over its `n` steps.
struct LoopProgress<'a> {
    what: &'a str,
    n: u64,
    estimate_ms: u64,
    advanced_ms: u64,
}

impl<'a> LoopProgress<'a> {
    fn start(r: &Runner, what: &'a str, n: u64, estimate_ms: u64) -> LoopProgress<'a> {
        r.progress.step(what);
        LoopProgress {
            what,
            n,
            estimate_ms,
            advanced_ms: 0,
        }
    }

    /// Step `i` of `n` is done.
    fn at(&mut self, r: &Runner, i: u64) {
        r.progress.update(format!("{} ({i}/{})", self.what, self.n));
        let due = self.estimate_ms * i / self.n.max(1);
        r.progress.advance_ms(due.saturating_sub(self.advanced_ms));
        self.advanced_ms = self.advanced_ms.max(due);
    }

    fn done(self, r: &Runner) {
        r.progress
            .advance_ms(self.estimate_ms.saturating_sub(self.advanced_ms));
    }
}

/// Statements per chunk of a select pass (see [`interleaved_pass`]).
const CHUNK: u64 = 1_000;

/// Wall and server CPU seconds of a set of statements.
struct Spent {
    seconds: f64,
    cpu: Option<f64>,
}

impl Spent {
    fn new() -> Spent {
        Spent {
            seconds: 0.0,
            cpu: Some(0.0),
        }
    }

    fn add(&mut self, seconds: f64, cpu_before: Option<f64>, cpu_after: Option<f64>) {
        self.seconds += seconds;
        self.cpu = match (self.cpu, cpu_before, cpu_after) {
            (Some(sum), Some(a), Some(b)) => Some(sum + b - a),
            _ => None,
        };
    }
}

/// One select pass, `SELECT * FROM tK` for every table, and its floor: as many `SELECT k`
/// round trips, each a text not sent before (pass 2's floor counts on from pass 1's). The
/// two alternate in chunks of [`CHUNK`] statements, so that a change in the machine's speed
/// during the pass (on a shared host larger than the cost measured) falls on both alike.
/// Returns the time of the table selects and the time of the floor.
fn interleaved_pass(
    r: &Runner,
    client: &mut Client,
    server_pid: u32,
    n: u64,
    pass: u64,
    what: &str,
) -> Result<(Spent, Spent)> {
    let mut progress = LoopProgress::start(r, what, n, n * 1500 / SELECT_RATE_PER_S);
    let cpu = || process_cpu_seconds(server_pid);
    let (mut tables, mut floor) = (Spent::new(), Spent::new());
    let mut first = 1;
    while first <= n {
        let last = (first + CHUNK - 1).min(n);
        let cpu_before = cpu();
        let started = std::time::Instant::now();
        for i in first..=last {
            client.execute(&format!("SELECT {}", (pass - 1) * n + i))?;
        }
        let cpu_between = cpu();
        floor.add(started.elapsed().as_secs_f64(), cpu_before, cpu_between);
        let started = std::time::Instant::now();
        for i in first..=last {
            client.execute(&format!("SELECT * FROM t{i}"))?;
        }
        tables.add(started.elapsed().as_secs_f64(), cpu_between, cpu());
        progress.at(r, last);
        first = last + 1;
    }
    progress.done(r);
    Ok((tables, floor))
}

fn run_engine(
    r: &mut Runner,
    launcher: &Launcher,
    engine: Option<Engine>,
    n: u64,
    caches: &[u64],
) -> Result<()> {
    let target = launcher.target;
    let label = engine_label(target, engine);
    let engine_clause = engine.map_or(String::new(), |e| format!(" ENGINE={}", e.sql_name()));
    let datadir = launcher.create_datadir()?;

    // Create the tables once, under the smallest cache.
    let settings = settings_with(&[("table_open_cache", caches[0].to_string())]);
    let server = r.start(launcher, &datadir, &format!("{label} create"), &settings)?;
    let mut client = server.connect(None)?;
    client.execute("CREATE DATABASE IF NOT EXISTS many")?;
    client.execute("USE many")?;
    let before = client.global_status()?;
    let cpu_before = process_cpu_seconds(server.pid());
    let seconds = table_loop(
        r,
        &mut client,
        n,
        n / CREATE_RATE_PER_S,
        &format!("{target} {label}: creating {n} tables"),
        |i| format!("CREATE TABLE t{i} (i INT){engine_clause}"),
    )?;
    let mut row = Row::new(target, &label).param("step", "create");
    row.metric("seconds", seconds);
    row.metric("tables_per_s", n as f64 / seconds);
    if let (Some(a), Some(b)) = (cpu_before, process_cpu_seconds(server.pid())) {
        row.metric("server_cpu_us_per_create", (b - a) / n as f64 * 1e6);
    }
    row.status_delta = before.delta(&client.global_status()?);
    r.push(row);
    drop(client);
    server.stop()?;

    for &cache in caches {
        let estimate = 5 + 3 * n / SELECT_RATE_PER_S;
        let settings = settings_with(&[("table_open_cache", cache.to_string())]);
        let base = Row::new(target, &label)
            .param("step", "select")
            .param("table_open_cache", cache);
        let result = (|| -> Result<Vec<Row>> {
            let server = r.start(
                launcher,
                &datadir,
                &format!("{label} toc={cache}"),
                &settings,
            )?;
            let mut client = server.connect(Some("many"))?;
            let effective = client
                .global_variables(&["table_open_cache"])?
                .get("table_open_cache")
                .cloned()
                .unwrap_or_default();
            let mut rows = Vec::new();
            for pass in 1..=2 {
                let before = client.global_status()?;
                let (tables, floor) = interleaved_pass(
                    r,
                    &mut client,
                    server.pid(),
                    n,
                    pass,
                    &format!("{target} {label} toc={cache}: select pass {pass}"),
                )?;
                let (seconds, pass_cpu) = (tables.seconds, tables.cpu);
                let (floor, floor_cpu) = (floor.seconds, floor.cpu);
                let mut row = base
                    .clone()
                    .param("effective_table_open_cache", effective.clone())
                    .param("pass", pass);
                row.metric("seconds", seconds);
                row.metric("tables_per_s", n as f64 / seconds);
                row.metric("select1_floor_s", floor);
                // A pass faster than its floor (noise larger than the cost) has no cost:
                // the raw figures, the pass's and the floor's, stay in the row instead.
                row.metric("server_us_per_statement", seconds / n as f64 * 1e6);
                row.metric("floor_us_per_statement", floor / n as f64 * 1e6);
                if let Some(cost) = cost_above_floor(seconds, floor, n) {
                    row.metric("server_us_per_open", cost * 1e6);
                }
                if let (Some(pass_cpu), Some(floor_cpu)) = (pass_cpu, floor_cpu) {
                    row.metric("server_cpu_us_per_statement", pass_cpu / n as f64 * 1e6);
                    row.metric("floor_cpu_us_per_statement", floor_cpu / n as f64 * 1e6);
                    if let Some(cost) = cost_above_floor(pass_cpu, floor_cpu, n) {
                        row.metric("server_cpu_us_per_open", cost * 1e6);
                    }
                }
                row.status_delta = before.delta(&client.global_status()?);
                for counter in [
                    "Opened_tables",
                    "Table_open_cache_misses",
                    "Table_open_cache_overflows",
                ] {
                    let value = *row.status_delta.get(counter).unwrap_or(&0);
                    row.count(counter, value);
                }
                rows.push(row);
            }
            drop(client);
            server.stop()?;
            Ok(rows)
        })();
        match result {
            Ok(rows) => rows.into_iter().for_each(|row| r.push(row)),
            Err(e) => {
                r.push(base.failed(&e));
                r.progress.advance(estimate);
            }
        }
    }
    r.keep_until_end(datadir);
    Ok(())
}

fn summarise(r: &mut Runner, caches: &[u64]) {
    let owned_rows: Vec<Row> = ok_rows(&r.record).cloned().collect();
    let rows: Vec<&Row> = owned_rows.iter().collect();
    let selects = rows_where(&rows, "step", "select");
    let mut summary = Vec::new();
    let mut keys: Vec<(String, String)> = Vec::new();
    for row in &rows {
        let key = (row.target.clone(), row.config.clone());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    for (target, config) in &keys {
        let create = rows
            .iter()
            .find(|row| {
                &row.target == target
                    && &row.config == config
                    && param_text(row, "step") == "create"
            })
            .map(|row| {
                (
                    row.get_metric("tables_per_s"),
                    row.get_metric("server_cpu_us_per_create"),
                )
            });
        let pass2 = |cache: u64, metric: &str| {
            selects
                .iter()
                .find(|row| {
                    &row.target == target
                        && &row.config == config
                        && param_f64(row, "table_open_cache") == Some(cache as f64)
                        && param_text(row, "pass") == "2"
                })
                .and_then(|row| row.get_metric(metric))
        };
        let mut line = vec![
            target.clone(),
            config.clone(),
            match create {
                Some((Some(rate), Some(cpu))) => {
                    format!("{} (CPU {} us)", format_number(rate), format_number(cpu))
                }
                Some((Some(rate), None)) => format_number(rate),
                _ => "-".into(),
            },
        ];
        for &cache in caches {
            line.push(
                match (
                    pass2(cache, "tables_per_s"),
                    pass2(cache, "server_us_per_statement"),
                    pass2(cache, "floor_us_per_statement"),
                ) {
                    (Some(rate), Some(raw), Some(floor)) => {
                        let cost = pass2(cache, "server_us_per_open");
                        let cpu = match (
                            pass2(cache, "server_cpu_us_per_statement"),
                            pass2(cache, "floor_cpu_us_per_statement"),
                        ) {
                            (Some(raw), Some(floor)) => format!(
                                " (CPU {})",
                                format_cost(
                                    pass2(cache, "server_cpu_us_per_open"),
                                    raw,
                                    floor,
                                    "us"
                                )
                            ),
                            _ => String::new(),
                        };
                        format!(
                            "{} /s, {}{cpu}",
                            format_number(rate),
                            format_cost(cost, raw, floor, "us")
                        )
                    }
                    _ => "-".into(),
                },
            );
        }
        let smallest = pass2(caches[0], "tables_per_s");
        let largest = pass2(caches[caches.len() - 1], "tables_per_s");
        line.push(match (largest, smallest) {
            (Some(a), Some(b)) => ratio_text(a, b),
            _ => "-".into(),
        });
        summary.push(line);
    }
    let mut header = vec![
        "target".to_string(),
        "engine".to_string(),
        "create tables/s (server CPU/create)".to_string(),
    ];
    header.extend(
        caches
            .iter()
            .map(|c| format!("toc={c}: pass 2 rate, server cost/open (server CPU/open)")),
    );
    header.push(format!(
        "rate at {} / at {}",
        caches[caches.len() - 1],
        caches[0]
    ));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    r.record.tables.push(table(
        "Tables per second (second pass) and server-side cost per open by table_open_cache",
        &header,
        summary,
    ));
    let pass2 = rows_where(&selects, "pass", "2");
    let name = |row: &Row| {
        if row.target == Target::Myriad.name() {
            row.target.clone()
        } else {
            format!("{} {}", row.target, row.config)
        }
    };
    r.pending_plots.push(PlotSpec {
        file: "many-tables-rate.png".into(),
        title: "SELECT * FROM tN over every table once (second pass)".into(),
        x_label: "table_open_cache".into(),
        y_label: "tables/s".into(),
        series: series_by(&pass2, name, "table_open_cache", "tables_per_s"),
    });
    r.pending_plots.push(PlotSpec {
        file: "many-tables-cost.png".into(),
        title: "Server-side cost per table open (second pass, distinct SELECT k floor subtracted)"
            .into(),
        x_label: "table_open_cache".into(),
        y_label: "microseconds per open".into(),
        series: series_by(&pass2, name, "table_open_cache", "server_us_per_open"),
    });
}
