//! Seed 003: open-file limits with many tables. N InnoDB tables, read (two passes) and
//! written (one INSERT each) at open_files_limit 64 and 16,384; MariaDB also gets
//! innodb_open_files at the same value, the knob the seed turned. The seed found no
//! difference between the limits, a first read pass 20x slower than the second (the
//! dictionary filling), a dictionary of about 4 KB per table and a crash recovery that
//! scanned every tablespace file. So this also records the server's resident memory and
//! the time to answer again after SIGKILL, against the time after a clean shutdown.
//!
//! The two limits run interleaved, 64, 16,384, 64, 16,384 (two rounds; one with
//! `--quick`), each a fresh server on the same datadir, so that a load that drifts during
//! the run moves both limits alike; the summary gives each round and the mean ratio. Each
//! table gets its first row on the creating server (reported as "first insert"), and is read
//! once there ("first select"): the first write of a new table costs more (its file grows),
//! and the first reads of 100,000 new files touch memory nothing has touched (costly on a
//! VM); either would otherwise fall on the first limit's first round.

use anyhow::Result;

use super::{
    engine_label, many_tables::table_loop, ok_rows, param_text, ratio_text, rows_where, series_by,
    settings_with, table, Engine, Runner,
};
use crate::report::{format_number, PlotSpec, Row};
use crate::server::{Connect, Launcher, Server, Settings, Target};

const CREATE_RATE_PER_S: u64 = 150;
const LOOP_RATE_PER_S: u64 = 2_000;
/// A timed loop of the setup: pass name, time estimate (s), progress text, statement of table i.
type SetupLoop<'a> = (&'static str, u64, String, &'a dyn Fn(u64) -> String);
/// Rounds of the limits (64, 16,384, 64, 16,384, ...).
const ROUNDS: u64 = 2;

fn limit_settings(target: Target, limit: u64) -> Settings {
    let mut settings = settings_with(&[
        ("open_files_limit", limit.to_string()),
        ("table_open_cache", "64".to_string()),
    ]);
    if target == Target::Mariadb {
        settings.insert("innodb_open_files".into(), limit.to_string());
    }
    settings
}

pub fn run(r: &mut Runner) {
    r.pin_client_loop();
    // InnoDB creates only 30 to 80 tables/s on a loaded 2-core machine: quick stays small.
    let n = r.pick(r.opts.tables, 100_000, 500);
    let limits: Vec<u64> = vec![64, 16_384];
    let rounds = if r.opts.quick { 1 } else { ROUNDS };
    r.parameter("tables", n);
    r.parameter("open_files_limits", serde_json::json!(limits));
    r.parameter("rounds", rounds);
    let runs: u64 = r
        .opts
        .targets
        .iter()
        .map(|t| r.engines(*t, &[Engine::Innodb]).len() as u64)
        .sum();
    let per_run = n / CREATE_RATE_PER_S
        + 2 * n / LOOP_RATE_PER_S
        + rounds * limits.len() as u64 * (5 + 3 * n / LOOP_RATE_PER_S)
        + 30;
    r.progress.set_total(runs * per_run);

    r.run_engines(&[Engine::Innodb], |r, launcher, engine| {
        run_engine(r, launcher, engine, n, &limits, rounds)
    });
    summarise(r, &limits);
}

fn pass_row(
    r: &Runner,
    server: &Server,
    base: &Row,
    pass: &str,
    n: u64,
    statement: impl Fn(u64) -> String,
) -> Result<Row> {
    let mut client = server.connect(Some("many"))?;
    let before = client.global_status()?;
    let seconds = table_loop(
        r,
        &mut client,
        n,
        n / LOOP_RATE_PER_S,
        &format!("{} {}: {pass} pass", base.target, base.config),
        statement,
    )?;
    let mut row = base.clone().param("pass", pass);
    row.metric("seconds", seconds);
    row.metric("tables_per_s", n as f64 / seconds);
    row.status_delta = before.delta(&client.global_status()?);
    if let Some(rss) = server.resident_bytes() {
        row.metric("server_rss_mb", rss as f64 / (1 << 20) as f64);
    }
    for counter in ["Opened_files", "Opened_tables", "Innodb_data_reads"] {
        if let Some(v) = row.status_delta.get(counter) {
            row.count(counter, *v);
        }
    }
    Ok(row)
}

fn run_engine(
    r: &mut Runner,
    launcher: &Launcher,
    engine: Option<Engine>,
    n: u64,
    limits: &[u64],
    rounds: u64,
) -> Result<()> {
    let target = launcher.target;
    let label = engine_label(target, engine);
    let engine_clause = engine.map_or(String::new(), |e| format!(" ENGINE={}", e.sql_name()));
    let datadir = launcher.create_datadir()?;
    let settings = limit_settings(target, limits[0]);
    let server = r.start(launcher, &datadir, &format!("{label} create"), &settings)?;
    let mut client = server.connect(None)?;
    client.execute("CREATE DATABASE IF NOT EXISTS many")?;
    client.execute("USE many")?;
    // Each table's first write extends its file (myriad's CREATE writes only the
    // definition): done here, timed apart, so that it does not fall on whichever limit
    // runs first and every measured round meets tables in the same state.
    // Likewise each table's first read after it was written (on a VM, the page cache's
    // first touch of new memory).
    let setup: [SetupLoop; 3] = [
        (
            "create",
            n / CREATE_RATE_PER_S,
            format!("creating {n} tables"),
            &|i| format!("CREATE TABLE t{i} (i INT){engine_clause}"),
        ),
        (
            "first insert",
            n / LOOP_RATE_PER_S,
            "first insert into each table".to_string(),
            &|i| format!("INSERT INTO t{i} VALUES ({i})"),
        ),
        (
            "first select",
            n / LOOP_RATE_PER_S,
            "first select of each table".to_string(),
            &|i| format!("SELECT * FROM t{i}"),
        ),
    ];
    for (pass, estimate_s, what, statement) in setup {
        let seconds = table_loop(
            r,
            &mut client,
            n,
            estimate_s,
            &format!("{target} {label}: {what}"),
            statement,
        )?;
        let mut row = Row::new(target, &label).param("pass", pass);
        row.metric("seconds", seconds);
        row.metric("tables_per_s", n as f64 / seconds);
        r.push(row);
    }
    drop(client);
    server.stop()?;
    settle_disk(r, &format!("{target} {label}"));

    // The last configuration's server stays up for the kill -9 below; the others stop
    // before the next starts (two servers cannot share a datadir).
    let mut last: Option<(Server, Settings)> = None;
    let order = (1..=rounds).flat_map(|round| limits.iter().map(move |&limit| (round, limit)));
    let cells = rounds as usize * limits.len();
    for (index, (round, limit)) in order.enumerate() {
        let settings = limit_settings(target, limit);
        let base = Row::new(target, &label)
            .param("open_files_limit", limit)
            .param("round", round);
        let server = match r.start(
            launcher,
            &datadir,
            &format!("{label} open_files_limit={limit}"),
            &settings,
        ) {
            Ok(server) => server,
            Err(e) => {
                r.push(base.failed(&e));
                continue;
            }
        };
        let rss_start = server.resident_bytes();
        for pass in ["select 1", "select 2", "insert"] {
            let result = if pass == "insert" {
                pass_row(r, &server, &base, pass, n, |i| {
                    format!("INSERT INTO t{i} VALUES ({i})")
                })
            } else {
                pass_row(r, &server, &base, pass, n, |i| {
                    format!("SELECT * FROM t{i}")
                })
            };
            match result {
                Ok(mut row) => {
                    if let (Some(start), Some(rss)) = (rss_start, row.get_metric("server_rss_mb")) {
                        let grown = rss - start as f64 / (1 << 20) as f64;
                        row.metric(
                            "rss_growth_bytes_per_table",
                            grown * (1 << 20) as f64 / n as f64,
                        );
                    }
                    r.push(row)
                }
                Err(e) => r.push(base.clone().param("pass", pass).failed(&e)),
            }
        }
        if index + 1 < cells {
            // A clean shutdown flushes every dirty tablespace: timed, it shows what the
            // descriptor limit costs there.
            r.progress.step(&format!("{target} {label}: shutdown"));
            let row = base.clone().param("pass", "shutdown");
            match server.stop() {
                Ok(took) => {
                    let mut row = row;
                    row.metric("shutdown_s", took.as_secs_f64());
                    r.push(row);
                }
                Err(e) => r.push(row.failed(&e)),
            }
            settle_disk(r, &format!("{target} {label}"));
        } else {
            last = Some((server, settings));
        }
    }

    // Crash recovery: SIGKILL right after the last insert pass, then time the restart; a
    // clean shutdown and restart follows for comparison.
    if let Some((server, settings)) = last {
        let settings = r.with_overrides(&settings);
        let restart_label = format!("{label} restart");
        r.progress
            .step(&format!("{target} {label}: kill -9 and restart"));
        server.kill();
        let mut row = Row::new(target, &label).param("pass", "restart after kill");
        match launcher.start(&datadir, &settings) {
            Ok(server) => {
                row.metric("restart_s", server.startup_time().as_secs_f64());
                let check = server
                    .connect(Some("many"))
                    .and_then(|mut c| c.scalar(&format!("SELECT COUNT(*) FROM t{n}")));
                match check {
                    Ok(Some(count)) => {
                        row.metric("rows_in_last_table", count.parse().unwrap_or(f64::NAN));
                        r.push(row);
                    }
                    Ok(None) => r.push(row.failed(&anyhow::anyhow!("COUNT(*) returned no row"))),
                    Err(e) => r.push(row.failed(&e)),
                }
                match server.stop() {
                    Ok(took) => {
                        let mut shutdown = Row::new(target, &label)
                            .param("open_files_limit", limits[limits.len() - 1])
                            .param("pass", "shutdown");
                        shutdown.metric("shutdown_s", took.as_secs_f64());
                        r.push(shutdown);
                        let mut clean =
                            Row::new(target, &label).param("pass", "restart after shutdown");
                        match launcher.start(&datadir, &settings) {
                            Ok(server) => {
                                clean.metric("restart_s", server.startup_time().as_secs_f64());
                                r.push(clean);
                                let _ = server.stop();
                            }
                            Err(e) => r.push(clean.failed(&e)),
                        }
                    }
                    Err(e) => r.push(Row::new(target, &restart_label).failed(&e)),
                }
            }
            Err(e) => r.push(row.failed(&e)),
        }
        r.progress.advance(30);
    }
    r.keep_until_end(datadir);
    Ok(())
}

/// Wait until the kernel has written what the last server left in the page cache (GBs after
/// a pass over 100,000 tables), so that its write-back does not run into the next
/// measurement: every round then starts from the same state.
fn settle_disk(r: &mut Runner, who: &str) {
    r.progress
        .step(&format!("{who}: sync (the page cache to disk)"));
    // SAFETY: sync(2) takes no arguments and cannot fail.
    unsafe { libc::sync() };
}

fn summarise(r: &mut Runner, limits: &[u64]) {
    let owned_rows: Vec<Row> = ok_rows(&r.record).cloned().collect();
    let rows: Vec<&Row> = owned_rows.iter().collect();
    let mut keys: Vec<(String, String)> = Vec::new();
    for row in &rows {
        let key = (row.target.clone(), row.config.clone());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let mut summary = Vec::new();
    for (target, config) in &keys {
        let find = |pass: &str, limit: Option<u64>| {
            rows.iter().find(|row| {
                &row.target == target
                    && &row.config == config
                    && param_text(row, "pass") == pass
                    && limit.is_none_or(|l| param_text(row, "open_files_limit") == l.to_string())
            })
        };
        // Each pass's rate in every round (in round order) at one limit.
        let rates = |pass: &str, limit: u64| -> Vec<f64> {
            rows.iter()
                .filter(|row| {
                    &row.target == target
                        && &row.config == config
                        && param_text(row, "pass") == pass
                        && param_text(row, "open_files_limit") == limit.to_string()
                })
                .filter_map(|row| row.get_metric("tables_per_s"))
                .collect()
        };
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let cell = |v: &[f64]| match v.len() {
            0 => "-".to_string(),
            1 => format_number(v[0]),
            _ => format!(
                "{} ({})",
                format_number(mean(v).unwrap_or(f64::NAN)),
                v.iter()
                    .map(|x| format_number(*x))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        for &limit in limits {
            let (s1, s2, ins) = (
                rates("select 1", limit),
                rates("select 2", limit),
                rates("insert", limit),
            );
            if s1.is_empty() && s2.is_empty() && ins.is_empty() {
                continue;
            }
            let rss = find("insert", Some(limit)).and_then(|row| row.get_metric("server_rss_mb"));
            let shutdown =
                find("shutdown", Some(limit)).and_then(|row| row.get_metric("shutdown_s"));
            summary.push(vec![
                target.clone(),
                config.clone(),
                limit.to_string(),
                cell(&s1),
                cell(&s2),
                cell(&ins),
                match (mean(&ins), mean(&s2)) {
                    (Some(a), Some(b)) => ratio_text(a, b),
                    _ => "-".into(),
                },
                rss.map_or("-".into(), format_number),
                shutdown.map_or("-".into(), |s| format!("{s:.2}")),
            ]);
        }
        // The smallest limit against the largest, per pass (means over the rounds).
        if let (Some(&low), Some(&high)) = (limits.first(), limits.last()) {
            let ratio = |pass: &str| match (mean(&rates(pass, low)), mean(&rates(pass, high))) {
                (Some(a), Some(b)) => ratio_text(a, b),
                _ => "-".into(),
            };
            summary.push(vec![
                target.clone(),
                config.clone(),
                format!("{low} / {high}"),
                ratio("select 1"),
                ratio("select 2"),
                ratio("insert"),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
        let restart = |pass| find(pass, None).and_then(|row| row.get_metric("restart_s"));
        if let Some(killed) = restart("restart after kill") {
            summary.push(vec![
                target.clone(),
                config.clone(),
                "restart".into(),
                format!("after kill -9: {killed:.2} s"),
                format!(
                    "after shutdown: {}",
                    restart("restart after shutdown").map_or("-".into(), |s| format!("{s:.2} s"))
                ),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
    }
    r.record.tables.push(table(
        "Tables per second by open_files_limit, resident memory, restart times",
        &[
            "target",
            "engine",
            "open_files_limit",
            "select pass 1 /s (mean (rounds))",
            "select pass 2 /s (mean (rounds))",
            "insert pass /s (mean (rounds))",
            "insert / select 2",
            "server RSS MB",
            "clean shutdown s",
        ],
        summary,
    ));
    for pass in ["select 2", "insert"] {
        let pass_rows = rows_where(&rows, "pass", pass);
        r.pending_plots.push(PlotSpec {
            file: format!("open-files-{}.png", pass.replace(' ', "")),
            title: format!("{pass} pass over every table, by open_files_limit"),
            x_label: "open_files_limit".into(),
            y_label: "tables/s".into(),
            series: series_by(
                &pass_rows,
                |row| format!("{} {}", row.target, row.config),
                "open_files_limit",
                "tables_per_s",
            ),
        });
    }
}
