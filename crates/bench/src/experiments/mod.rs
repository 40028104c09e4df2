//! The experiments, one per seed, and the machinery they share.
//!
//! An experiment is a function over a [`Runner`]: for each target it creates a datadir,
//! starts the server under each configuration, measures cells and pushes one
//! [`Row`](crate::report::Row) per cell. Whatever fails (a missing binary, a server that
//! will not start, a sysbench that cannot connect) becomes an error row carrying the error's
//! text, and the experiment goes on with the next configuration or target. At the end the
//! experiment adds its summary tables and plots from the rows.
//!
//! Both servers get the same settings ([`common_settings`] plus the configuration's), the
//! same data (loaded by the same client) and the same workload.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::machine::Machine;
use crate::progress::Progress;
use crate::report::{self, Configuration, PlotSpec, Record, Row, Series, Table};
use crate::server::{Datadir, Launcher, Server, Settings, Target};
use crate::sysbench::Sysbench;

mod key_cache;
mod many_tables;
mod oltp;
mod open_files;
mod query_cache;
mod table_cache_instances;

/// Storage engines of MariaDB an experiment can run on (myriad has its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    Myisam,
    Innodb,
}

impl Engine {
    pub fn sql_name(self) -> &'static str {
        match self {
            Engine::Myisam => "MyISAM",
            Engine::Innodb => "InnoDB",
        }
    }
}

/// What the command line asked for.
#[derive(Debug, Clone)]
pub struct Options {
    pub targets: Vec<Target>,
    pub quick: bool,
    pub out_dir: PathBuf,
    pub work_dir: PathBuf,
    pub myriad_bin: Option<PathBuf>,
    /// Overrides of the experiment's defaults.
    pub tables: Option<u64>,
    pub rows: Option<u64>,
    pub time_s: Option<u64>,
    pub threads: Option<Vec<u32>>,
    pub engines: Option<Vec<Engine>>,
    /// System variables added to (or replacing) every configuration's (`--set`).
    pub extra_settings: Vec<(String, String)>,
    /// The command line, for the record.
    pub command: String,
}

/// One experiment of `myriad-bench list`.
pub struct Experiment {
    pub name: &'static str,
    pub seed: &'static str,
    /// One line for `list`.
    pub summary: &'static str,
    /// What it measures, for `list --verbose` and the record.
    pub measures: &'static str,
    run: fn(&mut Runner),
}

/// Every experiment, in seed order.
pub static EXPERIMENTS: &[Experiment] = &[
    Experiment {
        name: "many-tables",
        seed: "000",
        summary: "create N one-column tables, select each once (two passes) at table_open_cache 64 / 8000 / N",
        measures: "Tables created per second; tables selected per second in each pass; the SELECT 1 \
                   round-trip floor over the same number of statements; server-side cost per open = \
                   (pass time - floor) / tables. MariaDB with MyISAM and InnoDB.",
        run: many_tables::run,
    },
    Experiment {
        name: "key-cache",
        seed: "001",
        summary: "sysbench select_random_points thread sweep, MyISAM key cache preloaded, key_cache_segments 0 vs 64",
        measures: "Transactions per second of select_random_points (10/50/100 points) at 1..128 \
                   threads with key_cache_segments 0 and 64, the seed's relative-gain table \
                   (64/off) and the share of peak throughput kept at the highest thread count.",
        run: key_cache::run,
    },
    Experiment {
        name: "query-cache",
        seed: "002",
        summary: "sysbench oltp_read_only at 1/16/100 threads, query cache off / 64 MB / 256 MB",
        measures: "Transactions per second and 95th percentile latency of oltp_read_only with the \
                   query cache off, at 64 MB and at 256 MB; the hit ratio Qcache_hits / \
                   (Qcache_hits + Com_select); throughput with the cache on relative to off.",
        run: query_cache::run,
    },
    Experiment {
        name: "open-files",
        seed: "003",
        summary: "N tables read and written at open_files_limit 64 vs 16384, then restart after kill -9",
        measures: "Tables per second of a select pass (twice) and an insert pass over N InnoDB \
                   tables at each open_files_limit (MariaDB also gets innodb_open_files), the \
                   server's resident memory before and after, and the time to answer again after \
                   SIGKILL (crash recovery).",
        run: open_files::run,
    },
    Experiment {
        name: "table-cache-instances",
        seed: "004",
        summary: "sysbench oltp_read_only and oltp_point_select, 1 and 2 tables, table_open_cache_instances 1 vs 16",
        measures: "Transactions per second at 1/16/64 threads for each test, table count and \
                   instance count, with Table_open_cache_hits, _misses and _overflows, and the \
                   gain of 16 instances over 1.",
        run: table_cache_instances::run,
    },
    Experiment {
        name: "oltp",
        seed: "-",
        summary: "sysbench oltp_point_select, oltp_read_only, oltp_read_write thread sweeps",
        measures: "Transactions per second, queries per second and latency of the three standard \
                   sysbench OLTP tests across thread counts: the general speed comparison.",
        run: oltp::run,
    },
];

pub fn find(name: &str) -> Option<&'static Experiment> {
    EXPERIMENTS.iter().find(|e| e.name == name)
}

/// Settings every server gets in every experiment: enough connections for 128 sysbench
/// threads plus the status client.
pub fn common_settings() -> Settings {
    [("max_connections", "400")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// `common_settings` plus `extra`.
pub fn settings_with(extra: &[(&str, String)]) -> Settings {
    let mut settings = common_settings();
    for (k, v) in extra {
        settings.insert(k.to_string(), v.clone());
    }
    settings
}

/// Variables read back after every start, besides the ones set.
const ALWAYS_REPORTED: &[&str] = &[
    "version",
    "table_open_cache",
    "table_open_cache_instances",
    "table_definition_cache",
    "open_files_limit",
    "max_connections",
    "query_cache_type",
    "query_cache_size",
    "key_buffer_size",
    "key_cache_segments",
];

/// The state of one experiment run.
pub struct Runner<'a> {
    pub opts: &'a Options,
    pub record: Record,
    pub progress: Progress,
    /// Plots the experiment asks for, drawn into the output directory at the end.
    pub pending_plots: Vec<PlotSpec>,
}

impl<'a> Runner<'a> {
    /// Finds the launcher of `target` and records its binary and version.
    pub fn launcher(&mut self, target: Target) -> Result<Launcher> {
        let launcher = match target {
            Target::Mariadb => Launcher::mariadb(&self.opts.work_dir),
            Target::Myriad => {
                Launcher::myriad(self.opts.myriad_bin.as_deref(), &self.opts.work_dir)
            }
        }?;
        let version = launcher.binary_version();
        let base = launcher.base_options();
        let entry = self.record.target_mut(target);
        entry.binary = launcher.server_bin.display().to_string();
        entry.binary_version = version;
        entry.base_options = base;
        Ok(launcher)
    }

    /// Starts `launcher`'s server on `datadir` with `settings`, records the configuration
    /// under `label` with the values the server reports.
    pub fn start(
        &mut self,
        launcher: &Launcher,
        datadir: &Datadir,
        label: &str,
        settings: &Settings,
    ) -> Result<Server> {
        self.progress
            .step(&format!("{}: starting ({label})", launcher.target));
        let settings = self.with_overrides(settings);
        let server = launcher.start(datadir, &settings)?;
        self.note_configuration(&server, label, &settings)?;
        Ok(server)
    }

    /// `settings` with the command line's `--set` values applied.
    pub fn with_overrides(&self, settings: &Settings) -> Settings {
        let mut settings = settings.clone();
        for (name, value) in &self.opts.extra_settings {
            settings.insert(name.clone(), value.clone());
        }
        settings
    }

    /// Records `label`'s settings and what `server` reports for them.
    pub fn note_configuration(
        &mut self,
        server: &Server,
        label: &str,
        settings: &Settings,
    ) -> Result<()> {
        let mut client = server.connect(None)?;
        let version = client.scalar("SELECT VERSION()")?;
        let names: Vec<&str> = settings
            .keys()
            .map(String::as_str)
            .chain(ALWAYS_REPORTED.iter().copied())
            .collect();
        // A server without SHOW GLOBAL VARIABLES still runs; the record says so.
        let effective = client.global_variables(&names).unwrap_or_else(|e| {
            [("error".to_string(), format!("{e:#}"))]
                .into_iter()
                .collect()
        });
        let entry = self.record.target_mut(server.target);
        entry.server_version = version;
        if !entry.configurations.iter().any(|c| c.label == label) {
            entry.configurations.push(Configuration {
                label: label.to_string(),
                settings: settings.clone(),
                effective,
            });
        }
        Ok(())
    }

    /// Adds a row; an error row is also shown above the progress bar.
    pub fn push(&mut self, row: Row) {
        if let Some(error) = &row.error {
            self.progress
                .note(&format!("error: {} {}: {error}", row.target, row.config));
        }
        self.record.rows.push(row);
    }

    /// The engines to run for `target`: MariaDB's from `--engine` or `default`; myriad runs
    /// its own engine once (`None`).
    pub fn engines(&self, target: Target, default: &[Engine]) -> Vec<Option<Engine>> {
        match target {
            Target::Myriad => vec![None],
            Target::Mariadb => self
                .opts
                .engines
                .clone()
                .unwrap_or_else(|| default.to_vec())
                .into_iter()
                .map(Some)
                .collect(),
        }
    }

    pub fn threads(&self, full: &[u32], quick: &[u32]) -> Vec<u32> {
        self.opts.threads.clone().unwrap_or_else(|| {
            if self.opts.quick {
                quick.to_vec()
            } else {
                full.to_vec()
            }
        })
    }

    pub fn pick(&self, over: Option<u64>, full: u64, quick: u64) -> u64 {
        over.unwrap_or(if self.opts.quick { quick } else { full })
    }

    pub fn parameter(&mut self, name: &str, value: impl Into<Value>) {
        self.record
            .parameters
            .insert(name.to_string(), value.into());
    }
}

/// The label of a configuration on `target` with `engine`.
pub fn engine_label(target: Target, engine: Option<Engine>) -> String {
    match engine {
        Some(engine) => engine.sql_name().to_string(),
        None => target.name().to_string(),
    }
}

/// Runs the named experiment and returns its record (rows may hold errors).
pub fn run(experiment: &Experiment, opts: &Options) -> Record {
    let started = std::time::Instant::now();
    let record = Record {
        experiment: experiment.name.to_string(),
        seed: experiment.seed.to_string(),
        description: experiment.measures.to_string(),
        command: opts.command.clone(),
        quick: opts.quick,
        started_at: utc_now(),
        machine: Machine::detect(),
        ..Record::default()
    };
    let mut runner = Runner {
        opts,
        record,
        progress: Progress::new(experiment.name, 1),
        pending_plots: Vec::new(),
    };
    for target in &opts.targets {
        // Make sure every target appears in the record, even one that never started.
        runner.record.target_mut(*target);
    }
    (experiment.run)(&mut runner);
    runner.progress.finish();
    let mut record = runner.record;
    match std::fs::create_dir_all(&opts.out_dir) {
        Ok(()) => draw_plots(&mut record, &opts.out_dir, runner.pending_plots),
        Err(e) => {
            let mut row = Row::new(Target::Mariadb, "plots");
            row.target = "-".to_string();
            record
                .rows
                .push(row.failed(&anyhow::anyhow!("creating {}: {e}", opts.out_dir.display())));
        }
    }
    record.duration_s = started.elapsed().as_secs_f64();
    record.count_errors();
    record
}

/// Draws the plots into the output directory; a plot that fails becomes an error row.
pub fn draw_plots(record: &mut Record, dir: &std::path::Path, plots: Vec<PlotSpec>) {
    for spec in plots {
        if spec.series.iter().all(|s| s.points.is_empty()) {
            continue;
        }
        match report::draw_plot(dir, &spec) {
            Ok(_) => record.plots.push(spec.file.clone()),
            Err(e) => {
                let mut row = Row::new(Target::Mariadb, "plot");
                row.target = "-".to_string();
                record
                    .rows
                    .push(row.param("plot", spec.file.clone()).failed(&e));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Helpers for the sysbench experiments.

/// A sysbench experiment's plan: load once per target, then for each configuration start
/// the server and run every cell.
pub struct SysbenchPlan {
    /// `--mysql-storage-engine` for MariaDB (myriad gets the same command).
    pub engine: Engine,
    pub tables: u32,
    pub table_size: u64,
    /// sysbench options for the load and every run (e.g. `--rand-type=uniform`).
    pub extra: Vec<String>,
    /// (label, settings) of each server configuration.
    pub configs: Vec<(String, Settings)>,
    /// The cells run under every configuration.
    pub cells: Vec<SysbenchCell>,
    pub time_s: u64,
    /// Run after every start, before the cells (e.g. `LOAD INDEX INTO CACHE`).
    pub after_start: Vec<String>,
    /// Seconds of an unmeasured warm-up run before each configuration's cells.
    pub warmup_s: u64,
}

/// One sysbench measurement.
#[derive(Clone)]
pub struct SysbenchCell {
    pub test: String,
    pub extra: Vec<String>,
    pub threads: u32,
    /// `--tables` of the run when it differs from the plan's (seed 004 runs 1 of 2).
    pub tables: Option<u32>,
    /// Shown as the row's parameters, before `threads`.
    pub params: Vec<(String, Value)>,
}

impl SysbenchPlan {
    fn estimated_s(&self, targets: usize) -> u64 {
        let load = self.table_size * self.tables as u64 / 20_000 + 5;
        let per_config = 4 + self.warmup_s + self.cells.len() as u64 * (self.time_s + 2);
        targets as u64 * (load + self.configs.len() as u64 * per_config)
    }
}

/// Runs `plan` on every target; rows go to the runner's record.
pub fn run_sysbench_plan(r: &mut Runner, plan: &SysbenchPlan) {
    r.progress.set_total(plan.estimated_s(r.opts.targets.len()));
    r.parameter("sysbench_tables", plan.tables);
    r.parameter("sysbench_table_size", plan.table_size);
    r.parameter("sysbench_time_s", plan.time_s);
    r.parameter("warmup_s", plan.warmup_s);
    r.parameter("mariadb_engine", plan.engine.sql_name());
    let targets = r.opts.targets.clone();
    for target in targets {
        if let Err(e) = run_sysbench_target(r, target, plan) {
            // Cells not measured because the target failed as a whole.
            r.push(Row::new(target, "all").failed(&e));
        }
    }
}

fn sysbench_for(plan: &SysbenchPlan, port: u16, cell: Option<&SysbenchCell>) -> Sysbench {
    let mut extra = vec![format!(
        "--mysql-storage-engine={}",
        plan.engine.sql_name().to_ascii_lowercase()
    )];
    extra.extend(plan.extra.iter().cloned());
    if let Some(cell) = cell {
        extra.extend(cell.extra.iter().cloned());
    }
    Sysbench {
        test: cell.map_or("oltp_read_only".to_string(), |c| c.test.clone()),
        port,
        database: "sbtest".to_string(),
        tables: cell.and_then(|c| c.tables).unwrap_or(plan.tables),
        table_size: plan.table_size,
        extra,
    }
}

fn run_sysbench_target(r: &mut Runner, target: Target, plan: &SysbenchPlan) -> Result<()> {
    let launcher = r.launcher(target)?;
    crate::sysbench::binary()?;
    let datadir = launcher.create_datadir()?;
    let load_estimate = plan.table_size * plan.tables as u64 / 20_000 + 5;
    // Load with the first configuration's settings.
    let (first_label, first_settings) =
        plan.configs.first().context("plan has no configurations")?;
    let server = r.start(&launcher, &datadir, first_label, first_settings)?;
    r.progress.step(&format!(
        "{target}: loading {} x {} rows",
        plan.tables, plan.table_size
    ));
    server
        .connect(None)?
        .execute("CREATE DATABASE IF NOT EXISTS sbtest")?;
    sysbench_for(plan, server.port(), None).prepare()?;
    r.progress.advance(load_estimate);
    server.stop()?;

    for (label, settings) in &plan.configs {
        let per_config = 4 + plan.warmup_s + plan.cells.len() as u64 * (plan.time_s + 2);
        let server = match r.start(&launcher, &datadir, label, settings) {
            Ok(server) => server,
            Err(e) => {
                r.push(Row::new(target, label).failed(&e));
                r.progress.advance(per_config);
                continue;
            }
        };
        let setup = (|| -> Result<()> {
            let mut client = server.connect(Some("sbtest"))?;
            for sql in &plan.after_start {
                client.execute(sql)?;
            }
            if plan.warmup_s > 0 {
                if let Some(cell) = plan.cells.first() {
                    r.progress
                        .step(&format!("{target} {label}: warm-up {} s", plan.warmup_s));
                    sysbench_for(plan, server.port(), Some(cell))
                        .run(cell.threads, plan.warmup_s)?;
                }
            }
            Ok(())
        })();
        r.progress.advance(4 + plan.warmup_s);
        if let Err(e) = setup {
            r.push(Row::new(target, label).failed(&e));
            r.progress
                .advance(plan.cells.len() as u64 * (plan.time_s + 2));
            let _ = server.stop();
            continue;
        }
        for cell in &plan.cells {
            let mut row = Row::new(target, label);
            for (name, value) in &cell.params {
                row = row.param(name, value.clone());
            }
            row = row.param("threads", cell.threads);
            r.progress.step(&format!(
                "{target} {label}: {} {} threads {}",
                cell.test,
                cell.params
                    .iter()
                    .map(|(k, v)| match v {
                        Value::String(text) => format!("{k}={text}"),
                        other => format!("{k}={other}"),
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
                cell.threads
            ));
            let sysbench = sysbench_for(plan, server.port(), Some(cell));
            let row = measure_sysbench(&server, &sysbench, cell.threads, plan.time_s, row);
            r.push(row);
            r.progress.advance(plan.time_s + 2);
        }
        if let Err(e) = server.stop() {
            r.push(Row::new(target, label).param("step", "shutdown").failed(&e));
        }
    }
    Ok(())
}

/// Runs one sysbench cell with status counters read before and after.
pub fn measure_sysbench(
    server: &Server,
    sysbench: &Sysbench,
    threads: u32,
    time_s: u64,
    row: Row,
) -> Row {
    let command = sysbench.run_command(threads, time_s).join(" ");
    let result = (|| -> Result<(crate::sysbench::SysbenchResult, std::collections::BTreeMap<String, i64>)> {
        let mut status_client = server.connect(None)?;
        let before = status_client.global_status()?;
        let result = sysbench.run(threads, time_s)?;
        let after = status_client.global_status()?;
        Ok((result, before.delta(&after)))
    })();
    let mut row = row;
    row.command = Some(command);
    match result {
        Ok((result, delta)) => {
            row.metric("tps", result.tps);
            row.metric("qps", result.qps);
            row.metric("lat_avg_ms", result.latency_avg_ms);
            row.metric("lat_p95_ms", result.latency_p95_ms);
            row.metric("errors", result.ignored_errors as f64);
            row.metric("reconnects", result.reconnects as f64);
            row.status_delta = delta;
            row
        }
        Err(e) => row.failed(&e),
    }
}

// ---------------------------------------------------------------------------------------
// Helpers for summaries.

/// Rows without errors.
pub fn ok_rows(record: &Record) -> impl Iterator<Item = &Row> {
    record.rows.iter().filter(|r| r.error.is_none())
}

/// A parameter as a number (for plot axes).
pub fn param_f64(row: &Row, name: &str) -> Option<f64> {
    row.get_param(name).and_then(Value::as_f64)
}

/// A parameter as text (for grouping).
pub fn param_text(row: &Row, name: &str) -> String {
    match row.get_param(name) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

/// One series per distinct value of `key(row)`, points (x param, y metric), in row order.
pub fn series_by(
    rows: &[&Row],
    key: impl Fn(&Row) -> String,
    x_param: &str,
    y_metric: &str,
) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for row in rows {
        let (Some(x), Some(y)) = (param_f64(row, x_param), row.get_metric(y_metric)) else {
            continue;
        };
        let name = key(row);
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((x, y)),
            None => series.push(Series {
                name,
                points: vec![(x, y)],
            }),
        }
    }
    series
}

/// A relative change as the seeds print it: "+53%", "-6%".
pub fn gain_text(new: f64, old: f64) -> String {
    if old > 0.0 && new.is_finite() {
        format!("{:+.0}%", (new / old - 1.0) * 100.0)
    } else {
        "n/a".to_string()
    }
}

/// A ratio "0.48x".
pub fn ratio_text(num: f64, den: f64) -> String {
    if den > 0.0 && num.is_finite() {
        format!("{:.2}x", num / den)
    } else {
        "n/a".to_string()
    }
}

/// Builds a table from a header and rows of cells.
pub fn table(title: &str, header: &[&str], rows: Vec<Vec<String>>) -> Table {
    Table {
        title: title.to_string(),
        header: header.iter().map(|h| h.to_string()).collect(),
        rows,
    }
}

/// Seconds since the epoch as an ISO 8601 UTC time.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gains_and_ratios_read_like_the_seeds() {
        assert_eq!(gain_text(153.0, 100.0), "+53%");
        assert_eq!(gain_text(94.0, 100.0), "-6%");
        assert_eq!(gain_text(1.0, 0.0), "n/a");
        assert_eq!(ratio_text(2891.0, 5966.0), "0.48x");
    }

    #[test]
    fn series_group_rows_by_key_in_order() {
        let mut a = Row::new(Target::Mariadb, "off").param("threads", 1);
        a.metric("tps", 10.0);
        let mut b = Row::new(Target::Mariadb, "off").param("threads", 16);
        b.metric("tps", 20.0);
        let mut c = Row::new(Target::Myriad, "off").param("threads", 1);
        c.metric("tps", 30.0);
        let rows = [&a, &b, &c];
        let series = series_by(&rows, |r| r.target.clone(), "threads", "tps");
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].name, "mariadb");
        assert_eq!(series[0].points, vec![(1.0, 10.0), (16.0, 20.0)]);
        assert_eq!(series[1].points, vec![(1.0, 30.0)]);
    }

    #[test]
    fn utc_now_is_iso_8601() {
        let now = utc_now();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.starts_with("20"), "{now}");
        assert!(now.ends_with('Z'));
    }

    #[test]
    fn every_experiment_is_listed_once() {
        for e in EXPERIMENTS {
            assert!(std::ptr::eq(find(e.name).expect("found"), e));
        }
        assert!(find("nope").is_none());
    }
}
