//! The experiments, one per seed, and the machinery they share.
//!
//! An experiment is a function over a [`Runner`]: for each target it creates a datadir,
//! starts the server under each configuration, measures cells and pushes one
//! [`Row`] per cell. Whatever fails (a missing binary, a server that
//! will not start, a sysbench that cannot connect) becomes an error row carrying the error's
//! text, and the experiment goes on with the next configuration or target. At the end the
//! experiment adds its summary tables and plots from the rows.
//!
//! Both servers get the same settings ([`common_settings`] plus the configuration's), the
//! same data (loaded by the same client) and the same workload.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::machine::Machine;
use crate::progress::Progress;
use crate::report::{self, Configuration, PlotSpec, Record, Row, Series, Table};
use crate::server::{
    mariadb_launcher, myriad_launcher, Connect, Datadir, Launcher, Server, Settings, Target,
};
use crate::sysbench::Sysbench;

mod key_cache;
mod many_tables;
mod memory;
mod oltp;
mod open_files;
mod privileges;
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
    /// select_random_points sizes for key-cache (`--points`).
    pub points: Option<Vec<u32>>,
    pub engines: Option<Vec<Engine>>,
    /// System variables added to (or replacing) every configuration's (`--set`).
    pub extra_settings: Vec<(String, String)>,
    /// Measurements of every sysbench cell (`--repeat`): the cells run in rotation and the
    /// row shows the median (every sample is in the record). 1 when not given.
    pub repeat: u32,
    /// sysbench connects through each server's unix socket instead of TCP
    /// (`--client-socket`).
    pub client_socket: bool,
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
        measures: "Tables created per second; tables selected per second in each pass; each pass's \
                   round-trip floor (as many distinct SELECT k, sent in chunks alternating with the \
                   pass's); server-side cost per open = (pass time - floor) / tables, in wall and \
                   server CPU time. MariaDB with MyISAM and InnoDB.",
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
        summary: "sysbench oltp_point_select, oltp_read_only, oltp_read_write, oltp_write_only thread sweeps",
        measures: "Transactions per second, queries per second and latency of the four standard \
                   sysbench OLTP tests across thread counts: the general speed comparison.",
        run: oltp::run,
    },
    Experiment {
        name: "privileges",
        seed: "-",
        summary: "sysbench oltp_point_select as root and as an account holding a table grant",
        measures: "Transactions per second of oltp_point_select at 1 and 16 threads as root \
                   (every privilege) and as an account holding only SELECT on the sysbench \
                   table, cells alternated on one server: what the privilege checks cost.",
        run: privileges::run,
    },
    Experiment {
        name: "memory",
        seed: "-",
        summary: "server RSS while N clients read a large result slowly, and over sorts and statements larger than their budgets",
        measures: "Baseline, peak and growth of the server's resident memory (VmRSS every 100 ms) \
                   while 1 / 5 / 20 clients read SELECT * of a ~100 MB table one row per ms, \
                   during SELECT ... ORDER BY an unindexed column (with and without LIMIT 3) at \
                   the default sort_buffer_size, a join without an index and a million-constant \
                   IN list; the time of each; myriad's growth over MariaDB's.",
        run: memory::run,
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
    "sort_buffer_size",
];

/// The state of one experiment run.
pub struct Runner<'a> {
    pub opts: &'a Options,
    pub record: Record,
    pub progress: Progress,
    /// Plots the experiment asks for, drawn into the output directory at the end.
    pub pending_plots: Vec<PlotSpec>,
    /// Datadirs removed only when the experiment ends (see [`Runner::keep_until_end`]).
    kept_datadirs: Vec<Datadir>,
}

impl<'a> Runner<'a> {
    /// Keep a finished datadir until the experiment ends. Deleting 100,000 files slows the
    /// next few minutes of file creation on ext4 without a journal (the inode allocator
    /// skips inodes deleted in the last 1 to 6 minutes), which would fall on the next
    /// target's CREATE phase.
    pub fn keep_until_end(&mut self, datadir: Datadir) {
        self.kept_datadirs.push(datadir);
    }

    /// Pin this thread, whose statement loops are the experiment's client (many-tables,
    /// open-files), to `--client-cpus` when given; a failure is noted, not fatal.
    pub fn pin_client_loop(&self) {
        if let Err(e) = crate::pinning::pin_this_thread_as_client() {
            self.progress
                .note(&format!("cannot pin the client loop to --client-cpus: {e}"));
        }
    }

    /// Finds the launcher of `target` and records its binary and version.
    pub fn launcher(&mut self, target: Target) -> Result<Launcher> {
        let launcher = match target {
            Target::Mariadb => mariadb_launcher(&self.opts.work_dir),
            Target::Myriad => myriad_launcher(self.opts.myriad_bin.as_deref(), &self.opts.work_dir),
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

    /// Call `run` for each target and each of its [`engines`](Self::engines) with the
    /// target's launcher; a launcher not found, or a run that fails, becomes an error row.
    pub fn run_engines(
        &mut self,
        default: &[Engine],
        mut run: impl FnMut(&mut Self, &Launcher, Option<Engine>) -> Result<()>,
    ) {
        for target in self.opts.targets.clone() {
            let launcher = match self.launcher(target) {
                Ok(l) => l,
                Err(e) => {
                    self.push(Row::new(target, "all").failed(&e));
                    continue;
                }
            };
            for engine in self.engines(target, default) {
                if let Err(e) = run(self, &launcher, engine) {
                    let label = engine_label(target, engine);
                    self.push(Row::new(target, &label).failed(&e));
                }
            }
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
        kept_datadirs: Vec::new(),
    };
    for target in &opts.targets {
        // Make sure every target appears in the record, even one that never started.
        runner.record.target_mut(*target);
    }
    (experiment.run)(&mut runner);
    drop(std::mem::take(&mut runner.kept_datadirs));
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
    fn load_estimate_s(&self) -> u64 {
        self.table_size * self.tables as u64 / 20_000 + 5
    }

    fn estimated_s(&self, targets: usize, repeat: u32, mode: Mode) -> u64 {
        let targets = targets as u64;
        let repeat = u64::from(repeat);
        let configs = self.configs.len() as u64;
        let cells = self.cells.len() as u64 * configs * targets * repeat * (self.time_s + 2);
        let (loads, starts) = match mode {
            Mode::Restarted => (1, configs * repeat),
            Mode::Switched(..) => (1, 1),
            Mode::SideBySide => (configs, configs),
        };
        targets * (loads * self.load_estimate_s() + starts * (4 + self.warmup_s)) + cells
    }
}

/// Runs `plan` on every target; rows go to the runner's record.
///
/// The targets and configurations are interleaved so that a drift of the machine's load
/// affects every side alike: for each repetition (`--repeat N`) and each configuration,
/// every target's server is started side by side with that configuration, and each cell is
/// measured on one target, then the other (the order alternates from cell to cell and from
/// repetition to repetition, ABBA); the configurations run forward in even repetitions and
/// backward in odd ones. Every measurement is kept in the row's `samples`; the row shows the
/// sample with the median TPS.
pub fn run_sysbench_plan(r: &mut Runner, plan: &SysbenchPlan) {
    run_plan(r, plan, Mode::Restarted);
}

/// Like [`run_sysbench_plan`] for configurations that differ in start-up settings only and
/// whose difference is small beside the machine's drift: every configuration gets its own
/// datadir and server, all started once and side by side, and the configurations alternate
/// cell by cell (ABBA) as in [`run_sysbench_plan_switched`], so that the samples of one
/// repetition and cell are seconds apart and can be compared in pairs ([`paired_ratios`]).
pub fn run_sysbench_plan_side_by_side(r: &mut Runner, plan: &SysbenchPlan) {
    run_plan(r, plan, Mode::SideBySide);
}

/// How a plan's configurations reach the servers.
#[derive(Clone, Copy)]
enum Mode<'a> {
    /// Each target's server restarted per repetition and configuration.
    Restarted,
    /// Each target's server started once with the settings, switched with `SET GLOBAL` and
    /// the reset statements.
    Switched(&'a Settings, &'a [&'a str]),
    /// One server per target and configuration, started once.
    SideBySide,
}

/// Like [`run_sysbench_plan`] for configurations that differ only in variables settable at
/// run time: each target's server starts once, with `start` (settings under which every
/// configuration can be reached with `SET GLOBAL`: MariaDB can turn its query cache on at
/// run time only if it did not start with `query_cache_type = 0`), and before each cell the
/// configuration's settings are applied with `SET GLOBAL name = value`, followed by the
/// `reset` statements (e.g. `RESET QUERY CACHE`, so that every cell starts from the same
/// state). The configurations then alternate cell by cell: for each repetition and each
/// cell, every configuration on every target, in an order that alternates (ABBA).
pub fn run_sysbench_plan_switched(
    r: &mut Runner,
    plan: &SysbenchPlan,
    start: &Settings,
    reset: &[&str],
) {
    run_plan(r, plan, Mode::Switched(start, reset));
}

/// One target of a plan, loaded.
struct Loaded {
    target: Target,
    launcher: Launcher,
    datadir: Datadir,
}

/// The measurements of one cell on one target under one configuration.
#[derive(Default)]
struct Measured {
    rows: Vec<Row>,
    samples: Vec<report::Sample>,
}

/// `0..n` forward when `flip` is even, backward when it is odd.
fn alternating(n: usize, flip: usize) -> Vec<usize> {
    if flip.is_multiple_of(2) {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    }
}

/// User plus system CPU seconds `pid` has used, from /proc (None where it cannot be read).
pub fn process_cpu_s(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    cpu_s_of_stat(&stat)
}

/// utime + stime of a /proc/PID/stat line, in seconds.
fn cpu_s_of_stat(stat: &str) -> Option<f64> {
    // The command name (field 2) may hold spaces: count the fields after its ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = if ticks > 0 { ticks as f64 } else { 100.0 };
    Some((utime + stime) / ticks)
}

/// The 1-minute load average now (0 where /proc/loadavg cannot be read).
pub fn load_average_1m() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

fn run_plan(r: &mut Runner, plan: &SysbenchPlan, mode: Mode) {
    let repeat = r.opts.repeat.max(1);
    r.progress
        .set_total(plan.estimated_s(r.opts.targets.len(), repeat, mode));
    r.parameter("sysbench_tables", plan.tables);
    r.parameter("sysbench_table_size", plan.table_size);
    r.parameter("sysbench_time_s", plan.time_s);
    r.parameter("warmup_s", plan.warmup_s);
    r.parameter("mariadb_engine", plan.engine.sql_name());
    r.parameter("repeat", repeat);
    r.parameter(
        "interleaving",
        match mode {
            Mode::Restarted => {
                "servers side by side, restarted per configuration; targets alternated per cell"
            }
            Mode::Switched(..) => {
                "servers side by side, started once; configurations set at run time and alternated per cell"
            }
            Mode::SideBySide => {
                "one server per target and configuration, all started once side by side; configurations and targets alternated per cell"
            }
        },
    );
    let start = match mode {
        Mode::Switched(start, _) => Some(start),
        _ => None,
    };
    let targets = r.opts.targets.clone();
    let mut loaded = Vec::new();
    for target in targets {
        match load_target(r, target, plan, start) {
            Ok(l) => loaded.push(l),
            // Cells not measured because the target failed as a whole.
            Err(e) => r.push(Row::new(target, "all").failed(&e)),
        }
    }
    let mut measured: BTreeMap<(usize, usize, usize), Measured> = BTreeMap::new();
    let mut sequence = 0u64;
    match mode {
        Mode::Restarted => {
            for rep in 0..repeat {
                for ci in alternating(plan.configs.len(), rep as usize) {
                    let (label, settings) = &plan.configs[ci];
                    let servers: Vec<Option<Server>> = loaded
                        .iter()
                        .map(|l| start_configured(r, l, plan, Some(label), settings))
                        .collect();
                    for (k, cell) in plan.cells.iter().enumerate() {
                        for ti in alternating(loaded.len(), rep as usize + k) {
                            let Some(server) = &servers[ti] else {
                                continue;
                            };
                            let m = measured.entry((ti, ci, k)).or_default();
                            measure_into(r, plan, server, label, cell, rep, &mut sequence, m);
                        }
                    }
                    stop_servers(r, &loaded, servers, label);
                }
            }
        }
        Mode::Switched(start, reset) => {
            let servers: Vec<Option<Server>> = loaded
                .iter()
                .map(|l| start_configured(r, l, plan, None, start))
                .collect();
            let mut noted = std::collections::BTreeSet::new();
            // Only what some configuration sets differently from the start is switched.
            let varying: std::collections::BTreeSet<String> = plan
                .configs
                .iter()
                .flat_map(|(_, settings)| settings.iter())
                .filter(|(name, value)| start.get(*name) != Some(*value))
                .map(|(name, _)| name.clone())
                .collect();
            for rep in 0..repeat {
                for (k, cell) in plan.cells.iter().enumerate() {
                    let flip = rep as usize + k;
                    for ci in alternating(plan.configs.len(), flip) {
                        let (label, settings) = &plan.configs[ci];
                        for ti in alternating(loaded.len(), flip + ci) {
                            let Some(server) = &servers[ti] else {
                                continue;
                            };
                            let m = measured.entry((ti, ci, k)).or_default();
                            let settings = r.with_overrides(settings);
                            if let Err(e) = apply_at_run_time(server, &settings, &varying, reset) {
                                let row = cell_row(loaded[ti].target, label, cell);
                                m.rows.push(row.failed(&e));
                                r.progress.advance(plan.time_s + 2);
                                continue;
                            }
                            if noted.insert((ti, ci)) {
                                if let Err(e) = r.note_configuration(server, label, &settings) {
                                    r.push(Row::new(loaded[ti].target, label).failed(&e));
                                }
                            }
                            measure_into(r, plan, server, label, cell, rep, &mut sequence, m);
                        }
                    }
                }
            }
            stop_servers(r, &loaded, servers, "start");
        }
        Mode::SideBySide => {
            // The first configuration runs on the datadirs loaded above; each other one loads
            // datadirs of its own (kept until every server has stopped).
            let mut own_datadirs: Vec<Loaded> = Vec::new();
            let mut servers: Vec<Vec<Option<Server>>> = Vec::new();
            for (ci, (label, settings)) in plan.configs.iter().enumerate() {
                let mut started = Vec::new();
                for l in &loaded {
                    let l = if ci == 0 {
                        l
                    } else {
                        match load_target(r, l.target, plan, Some(settings)) {
                            Ok(own) => {
                                own_datadirs.push(own);
                                &own_datadirs[own_datadirs.len() - 1]
                            }
                            Err(e) => {
                                r.push(Row::new(l.target, label).failed(&e));
                                started.push(None);
                                continue;
                            }
                        }
                    };
                    started.push(start_configured(r, l, plan, Some(label), settings));
                }
                servers.push(started);
            }
            for rep in 0..repeat {
                for (k, cell) in plan.cells.iter().enumerate() {
                    let flip = rep as usize + k;
                    for ci in alternating(plan.configs.len(), flip) {
                        let label = &plan.configs[ci].0;
                        for ti in alternating(loaded.len(), flip + ci) {
                            let Some(server) = &servers[ci][ti] else {
                                continue;
                            };
                            let m = measured.entry((ti, ci, k)).or_default();
                            measure_into(r, plan, server, label, cell, rep, &mut sequence, m);
                        }
                    }
                }
            }
            for (ci, started) in servers.into_iter().enumerate() {
                stop_servers(r, &loaded, started, &plan.configs[ci].0);
            }
            drop(own_datadirs);
        }
    }
    // One row per target, configuration and cell, in that order (as a run of one target
    // after the other would have produced them).
    for ti in 0..loaded.len() {
        for ci in 0..plan.configs.len() {
            for k in 0..plan.cells.len() {
                if let Some(m) = measured.remove(&(ti, ci, k)) {
                    if let Some(row) = median_row(m) {
                        r.push(row);
                    }
                }
            }
        }
    }
    drop(loaded);
}

/// Stops `servers` (one per loaded target); a failed shutdown becomes an error row.
fn stop_servers(r: &mut Runner, loaded: &[Loaded], servers: Vec<Option<Server>>, label: &str) {
    for (ti, server) in servers.into_iter().enumerate() {
        if let Some(server) = server {
            if let Err(e) = server.stop() {
                r.push(
                    Row::new(loaded[ti].target, label)
                        .param("step", "shutdown")
                        .failed(&e),
                );
            }
        }
    }
}

/// The sysbench of `plan` (and `cell`) against `server`, through its unix socket when
/// `socket` (`--client-socket`).
fn sysbench_for(
    plan: &SysbenchPlan,
    server: &Server,
    socket: bool,
    cell: Option<&SysbenchCell>,
) -> Sysbench {
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
        port: server.port(),
        socket: socket.then(|| server.socket().to_path_buf()),
        database: "sbtest".to_string(),
        tables: cell.and_then(|c| c.tables).unwrap_or(plan.tables),
        table_size: plan.table_size,
        extra,
    }
}

/// The row of `cell` before it is measured.
fn cell_row(target: Target, label: &str, cell: &SysbenchCell) -> Row {
    let mut row = Row::new(target, label);
    for (name, value) in &cell.params {
        row = row.param(name, value.clone());
    }
    row.param("threads", cell.threads)
}

/// Measures `cell` once and files the result under `m`.
#[allow(clippy::too_many_arguments)]
fn measure_into(
    r: &mut Runner,
    plan: &SysbenchPlan,
    server: &Server,
    label: &str,
    cell: &SysbenchCell,
    rep: u32,
    sequence: &mut u64,
    m: &mut Measured,
) {
    let repeat = r.opts.repeat.max(1);
    r.progress.step(&format!(
        "{} {label}: {} {} threads {}{}",
        server.target,
        cell.test,
        cell.params
            .iter()
            .map(|(k, v)| match v {
                Value::String(text) => format!("{k}={text}"),
                other => format!("{k}={other}"),
            })
            .collect::<Vec<_>>()
            .join(" "),
        cell.threads,
        if repeat > 1 {
            format!(" (repetition {} of {repeat})", rep + 1)
        } else {
            String::new()
        }
    ));
    let load = load_average_1m();
    let sysbench = sysbench_for(plan, server, r.opts.client_socket, Some(cell));
    let row = measure_sysbench(
        server,
        &sysbench,
        cell.threads,
        plan.time_s,
        cell_row(server.target, label, cell),
    );
    m.samples.push(report::Sample {
        repetition: rep,
        sequence: *sequence,
        load_average_1m: load,
        metrics: row.metrics.clone(),
        error: row.error.clone(),
    });
    *sequence += 1;
    m.rows.push(row);
    r.progress.advance(plan.time_s + 2);
}

/// The sample with the median TPS (the lower middle one for an even count), carrying every
/// sample; an error row when no sample succeeded.
fn median_row(m: Measured) -> Option<Row> {
    let Measured { rows, samples } = m;
    let mut ok: Vec<Row> = rows.iter().filter(|r| r.error.is_none()).cloned().collect();
    let mut row = if ok.is_empty() {
        rows.into_iter().next()?
    } else {
        ok.sort_by(|a, b| {
            let tps = |r: &Row| r.get_metric("tps").unwrap_or(0.0);
            tps(a).total_cmp(&tps(b))
        });
        ok.swap_remove((ok.len() - 1) / 2)
    };
    row.samples = samples;
    Some(row)
}

/// The median of `metric` over a row's samples (the lower middle one for an even count), or
/// the row's own figure when it has no samples with it.
pub fn median_metric(row: &Row, metric: &str) -> Option<f64> {
    let mut values: Vec<f64> = row
        .samples
        .iter()
        .filter_map(|s| s.metrics.get(metric).and_then(Value::as_f64))
        .collect();
    if values.is_empty() {
        return row.get_metric(metric);
    }
    values.sort_by(f64::total_cmp);
    Some(values[(values.len() - 1) / 2])
}

/// Applies the `varying` settings of a configuration to a running server with `SET GLOBAL`,
/// then runs `reset`.
fn apply_at_run_time(
    server: &Server,
    settings: &Settings,
    varying: &std::collections::BTreeSet<String>,
    reset: &[&str],
) -> Result<()> {
    let mut client = server.connect(None)?;
    for (name, value) in settings.iter().filter(|(name, _)| varying.contains(*name)) {
        let value = if value.parse::<f64>().is_ok() {
            value.clone()
        } else {
            format!("'{}'", value.replace('\'', "''"))
        };
        client
            .execute(&format!("SET GLOBAL {name} = {value}"))
            .with_context(|| format!("SET GLOBAL {name} = {value}"))?;
    }
    for sql in reset {
        client.execute(sql).with_context(|| sql.to_string())?;
    }
    Ok(())
}

/// Creates the target's datadir and loads the plan's tables into it (with the first
/// configuration's settings, or `start` for a plan switched at run time).
fn load_target(
    r: &mut Runner,
    target: Target,
    plan: &SysbenchPlan,
    start: Option<&Settings>,
) -> Result<Loaded> {
    let launcher = r.launcher(target)?;
    crate::sysbench::binary()?;
    let datadir = launcher.create_datadir()?;
    let server = match start {
        Some(settings) => {
            r.progress.step(&format!("{target}: starting"));
            launcher.start(&datadir, &r.with_overrides(settings))?
        }
        None => {
            let (first_label, first_settings) =
                plan.configs.first().context("plan has no configurations")?;
            r.start(&launcher, &datadir, first_label, first_settings)?
        }
    };
    r.progress.step(&format!(
        "{target}: loading {} x {} rows",
        plan.tables, plan.table_size
    ));
    server
        .connect(None)?
        .execute("CREATE DATABASE IF NOT EXISTS sbtest")?;
    sysbench_for(plan, &server, r.opts.client_socket, None).prepare()?;
    r.progress.advance(plan.load_estimate_s());
    server.stop()?;
    Ok(Loaded {
        target,
        launcher,
        datadir,
    })
}

/// Starts `l`'s server with a configuration, runs the plan's `after_start` statements and
/// its warm-up; a failure becomes an error row and `None`.
fn start_configured(
    r: &mut Runner,
    l: &Loaded,
    plan: &SysbenchPlan,
    label: Option<&str>,
    settings: &Settings,
) -> Option<Server> {
    // A server switched at run time is recorded under each configuration it is switched to.
    let started = match label {
        None => {
            r.progress.step(&format!("{}: starting", l.target));
            l.launcher.start(&l.datadir, &r.with_overrides(settings))
        }
        Some(label) => r.start(&l.launcher, &l.datadir, label, settings),
    };
    let label = label.unwrap_or("start");
    let server = match started {
        Ok(server) => server,
        Err(e) => {
            r.push(Row::new(l.target, label).failed(&e));
            r.progress.advance(4 + plan.warmup_s);
            return None;
        }
    };
    let setup = (|| -> Result<()> {
        let mut client = server.connect(Some("sbtest"))?;
        for sql in &plan.after_start {
            client.execute(sql)?;
        }
        if plan.warmup_s > 0 {
            if let Some(cell) = plan.cells.first() {
                r.progress.step(&format!(
                    "{} {label}: warm-up {} s",
                    l.target, plan.warmup_s
                ));
                sysbench_for(plan, &server, r.opts.client_socket, Some(cell))
                    .run(cell.threads, plan.warmup_s)?;
            }
        }
        Ok(())
    })();
    r.progress.advance(4 + plan.warmup_s);
    match setup {
        Ok(()) => Some(server),
        Err(e) => {
            r.push(Row::new(l.target, label).failed(&e));
            let _ = server.stop();
            None
        }
    }
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
    let cpu_before = process_cpu_s(server.pid());
    let result = (|| -> Result<(crate::sysbench::SysbenchResult, std::collections::BTreeMap<String, i64>)> {
        let mut status_client = server.connect(None)?;
        let before = status_client.global_status()?;
        let result = sysbench.run(threads, time_s)?;
        let after = status_client.global_status()?;
        Ok((result, before.delta(&after)))
    })();
    let cpu_s = cpu_before.and_then(|b| Some(process_cpu_s(server.pid())? - b));
    let mut row = row;
    row.command = Some(command);
    match result {
        Ok((result, delta)) => {
            row.metric("tps", result.tps);
            row.metric("qps", result.qps);
            row.metric("lat_avg_ms", result.latency_avg_ms);
            row.metric("lat_p95_ms", result.latency_p95_ms);
            row.count("errors", result.ignored_errors as i64);
            row.count("reconnects", result.reconnects as i64);
            // CPU the server spent per transaction: unlike TPS, it does not fall when other
            // processes take the cores, so it shows a cost on a loaded machine.
            if let Some(cpu_s) = cpu_s {
                let transactions = result.tps * time_s as f64;
                if transactions > 0.0 {
                    row.metric("server_cpu_us_per_txn", cpu_s * 1e6 / transactions);
                }
            }
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

/// The rows whose parameter `name` reads `value`.
pub fn rows_where<'r>(rows: &[&'r Row], name: &str, value: &str) -> Vec<&'r Row> {
    rows.iter()
        .copied()
        .filter(|row| param_text(row, name) == value)
        .collect()
}

/// A sysbench plot: transactions per second against client threads, one series per
/// distinct value of `key(row)`.
pub fn tps_plot(
    file: String,
    title: String,
    rows: &[&Row],
    key: impl Fn(&Row) -> String,
) -> PlotSpec {
    PlotSpec {
        file,
        title,
        x_label: "threads".into(),
        y_label: "transactions/s".into(),
        series: series_by(rows, key, "threads", "tps"),
    }
}

/// One [`tps_plot`] per sysbench test of `tests`, over the rows of that test: the file
/// `{name}-{test}.png`, the title `title(test)`, one series per distinct `key(row)`.
pub fn tps_plot_per_test(
    r: &mut Runner,
    rows: &[&Row],
    tests: &[&str],
    name: &str,
    title: impl Fn(&str) -> String,
    key: impl Fn(&Row) -> String,
) {
    for test in tests {
        let test_rows = rows_where(rows, "test", test);
        let file = format!("{name}-{test}.png");
        r.pending_plots
            .push(tps_plot(file, title(test), &test_rows, &key));
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

/// `metric` of `new` over `old`, one ratio per repetition that both measured without error
/// (samples of one repetition and cell are seconds apart in a side-by-side or switched plan,
/// so the machine's drift between repetitions cancels out of each ratio), sorted.
pub fn paired_ratios(new: &Row, old: &Row, metric: &str) -> Vec<f64> {
    let value = |row: &Row, rep: u32| {
        row.samples
            .iter()
            .filter(|s| s.repetition == rep && s.error.is_none())
            .find_map(|s| s.metrics.get(metric).and_then(Value::as_f64))
    };
    let mut ratios: Vec<f64> = new
        .samples
        .iter()
        .filter_map(|s| {
            let (n, o) = (value(new, s.repetition)?, value(old, s.repetition)?);
            (o > 0.0 && n.is_finite()).then(|| n / o)
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios
}

/// Paired ratios as "+1.2% (-3.0% .. +4.1%, 8 pairs)": the median change and its range.
pub fn paired_text(ratios: &[f64]) -> String {
    let Some((first, last)) = ratios.first().zip(ratios.last()) else {
        return "n/a".to_string();
    };
    let n = ratios.len();
    let median = if n % 2 == 1 {
        ratios[n / 2]
    } else {
        (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0
    };
    let pct = |r: f64| format!("{:+.1}%", (r - 1.0) * 100.0);
    format!(
        "{} ({} .. {}, {n} pairs)",
        pct(median),
        pct(*first),
        pct(*last)
    )
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

    fn sampled(tps: &[(u32, Option<f64>)]) -> Row {
        let mut row = Row::new(Target::Myriad, "c");
        for (sequence, &(repetition, value)) in tps.iter().enumerate() {
            let mut metrics = serde_json::Map::new();
            if let Some(v) = value {
                metrics.insert("tps".into(), v.into());
            }
            row.samples.push(report::Sample {
                repetition,
                sequence: sequence as u64,
                load_average_1m: 0.0,
                metrics,
                error: value.is_none().then(|| "failed".to_string()),
            });
        }
        row
    }

    #[test]
    fn paired_ratios_compare_samples_of_the_same_repetition_only() {
        let old = sampled(&[
            (0, Some(100.0)),
            (1, Some(200.0)),
            (2, Some(100.0)),
            (3, None),
        ]);
        let new = sampled(&[
            (0, Some(110.0)),
            (1, Some(180.0)),
            (2, None),
            (3, Some(50.0)),
        ]);
        // Repetition 2 failed on one side, 3 on the other: two pairs, not four.
        let ratios = paired_ratios(&new, &old, "tps");
        assert_eq!(ratios, vec![0.9, 1.1]);
        assert_eq!(paired_text(&ratios), "+0.0% (-10.0% .. +10.0%, 2 pairs)");
        assert_eq!(paired_text(&paired_ratios(&new, &old, "qps")), "n/a");
        let equal = sampled(&[(0, Some(100.0)), (1, Some(100.0)), (2, Some(100.0))]);
        assert_eq!(
            paired_text(&paired_ratios(&equal, &equal, "tps")),
            "+0.0% (+0.0% .. +0.0%, 3 pairs)"
        );
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
    fn cpu_time_is_read_from_proc_stat() {
        let stat = "1234 (my server) S 1 1234 1234 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 9 0 100 1000 200 18446744073709551615";
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        assert_eq!(cpu_s_of_stat(stat), Some(300.0 / ticks));
        assert_eq!(cpu_s_of_stat("garbage"), None);
        let mine = process_cpu_s(std::process::id()).expect("our own /proc/self/stat");
        assert!(mine >= 0.0);
    }

    #[test]
    fn orders_alternate_abba() {
        assert_eq!(alternating(2, 0), vec![0, 1]);
        assert_eq!(alternating(2, 1), vec![1, 0]);
        assert_eq!(alternating(3, 2), vec![0, 1, 2]);
        assert_eq!(alternating(3, 5), vec![2, 1, 0]);
        assert!(alternating(0, 1).is_empty());
    }

    #[test]
    fn a_repeated_cell_shows_its_median_sample_and_keeps_every_sample() {
        let mut m = Measured::default();
        for (n, tps) in [300.0, 100.0, 200.0].into_iter().enumerate() {
            let mut row = Row::new(Target::Myriad, "qc off").param("threads", 1);
            row.metric("tps", tps);
            row.metric("lat_p95_ms", 1000.0 / tps);
            m.samples.push(report::Sample {
                repetition: n as u32,
                sequence: 2 * n as u64,
                load_average_1m: 1.5,
                metrics: row.metrics.clone(),
                error: None,
            });
            m.rows.push(row);
        }
        let failed = Row::new(Target::Myriad, "qc off")
            .param("threads", 1)
            .failed(&anyhow::anyhow!("sysbench died"));
        m.samples.push(report::Sample {
            repetition: 3,
            sequence: 6,
            load_average_1m: 2.0,
            metrics: Default::default(),
            error: failed.error.clone(),
        });
        m.rows.push(failed);
        let row = median_row(m).expect("a row");
        assert!(row.error.is_none());
        assert_eq!(row.get_metric("tps"), Some(200.0));
        assert_eq!(
            row.get_metric("lat_p95_ms"),
            Some(5.0),
            "metrics of one sample"
        );
        assert_eq!(row.samples.len(), 4);
        assert_eq!(row.samples[3].error.as_deref(), Some("sysbench died"));
        assert_eq!(median_metric(&row, "lat_p95_ms"), Some(5.0));
        assert_eq!(median_metric(&row, "tps"), Some(200.0));
        assert_eq!(median_metric(&row, "absent"), None);
        // Even count: the lower middle.
        let mut m = Measured::default();
        for tps in [10.0, 40.0, 20.0, 30.0] {
            let mut row = Row::new(Target::Mariadb, "x");
            row.metric("tps", tps);
            m.rows.push(row);
        }
        assert_eq!(median_row(m).and_then(|r| r.get_metric("tps")), Some(20.0));
        // Only failures: the first error.
        let mut m = Measured::default();
        m.rows
            .push(Row::new(Target::Mariadb, "x").failed(&anyhow::anyhow!("first")));
        m.rows
            .push(Row::new(Target::Mariadb, "x").failed(&anyhow::anyhow!("second")));
        assert_eq!(
            median_row(m).and_then(|r| r.error),
            Some("first".to_string())
        );
        assert!(median_row(Measured::default()).is_none());
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
