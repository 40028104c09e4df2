//! Server memory under results and sorts larger than every budget: whether a statement's
//! working memory stays bounded (by sort_buffer_size, by a network buffer per client) or
//! grows with the data, myriad against MariaDB.
//!
//! Each target gets one datadir with two tables: `big`, rows of about 1 KiB (an `INT`
//! primary key, an unindexed `INT` `k` in a scrambled order, a 1,000-byte `VARCHAR`),
//! 100,000 rows by default (`--rows`; about 100 MB, fifty times the default sort buffer),
//! and `small`, 2,000 short rows with `k = id`. Every cell then runs on a freshly started
//! server (memory a previous cell left with the allocator would hide the next cell's
//! growth), after an unmeasured aggregate over both tables (so that the filling of the
//! buffer pool or block cache is not counted). The server's resident memory (VmRSS of
//! /proc/PID/status) is read every 100 ms: the baseline is the median of the half second
//! before the cell, the peak the highest reading during it or the VmHWM after it (reset to
//! the baseline when the cell starts, so that a peak shorter than 100 ms is seen), the
//! growth their difference, and "after" the median of the half second after it.
//!
//! The cells:
//! - slow readers: N clients (`--threads`, default 1, 5, 20), connected before the
//!   baseline, each run `SELECT * FROM big` and read one row per millisecond for the slow
//!   phase (`--time`, default 8 s, counted from its first row), then the rest at full
//!   speed. A server that streams the result holds a few network buffers per client while
//!   the clients lag; one that builds the whole result before sending holds it all, once
//!   per client. The time to each client's first row is kept: a server that builds the
//!   result first answers late.
//!   Each client has run `SELECT 1` before the baseline: the session state a connection
//!   sets up for its first statement is the connections cell's, not the result's.
//! - connections: N clients (100; quick: 20) connect and each run `SELECT 1`: what a
//!   connection costs the server, per connection. MariaDB builds its session at connect,
//!   myriad at the first statement; the cell counts both.
//! - sorts: `SELECT * FROM big ORDER BY k` and the same with `LIMIT 3`, read at full
//!   speed, sort_buffer_size at its default; the time to the last row.
//! - statements: a comma join of `small` with itself on `a.k = b.k + 1` (no usable index)
//!   and `COUNT(*)` over `small` with `k IN (<1,000,000 integer constants>)`.
//!
//! Every cell but the connections cell then runs a second time on the same server, with
//! the same clients, from a baseline read after the first run settled: "again". The first
//! run's growth depends on what the allocator happens to hold free when the cell starts
//! (MariaDB's glibc arenas keep memory that its warm-up freed, and a sort of 1.3 MB then
//! grows it by 0.03 MB; on an allocator holding no free memory, by 1.34 MB), the second
//! run's on what the statement holds beyond what the same statement left behind: the cost
//! of running it again, as a server runs its statements. Both are reported; neither hides
//! the other.
//!
//! Targets alternate from cell to cell (ABBA). The summary gives each cell's growth on both
//! servers and myriad's over MariaDB's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};

use super::{alternating, common_settings, ok_rows, param_text, ratio_text, table, Runner};
use crate::client::Client;
use crate::report::{format_number, PlotSpec, Row, Series};
use crate::server::{Connect, Datadir, Launcher, Target};

/// The configuration label of every row: both servers run their defaults (plus
/// `max_connections`), sort_buffer_size included.
const CONFIG: &str = "default";
/// Bytes of `pad` in each row of `big`: rows of about 1 KiB, so that the row count gives
/// the table's size at a glance and a row is far above any per-row overhead.
const PAD_BYTES: usize = 1_000;
/// Rows per INSERT while loading `big`: about 100 KB per statement, far below both servers'
/// default max_allowed_packet (16 MB), and few enough round trips to load 100,000 rows in
/// seconds.
const LOAD_BATCH: u64 = 100;
/// Rows per statement of the warm-up: about 5 MB of rows, the most a server that gathers
/// them first holds at once during it.
const WARM_CHUNK: u64 = 5_000;
/// How often the server's resident memory is read: a result built in memory grows over
/// seconds, so ten readings a second see its shape; shorter peaks are caught by VmHWM.
const SAMPLE_EVERY: Duration = Duration::from_millis(100);
/// Readings before (the baseline) and after a cell, `SAMPLE_EVERY` apart: their median
/// over half a second ignores a lone reading taken while a background thread allocated.
const SETTLE_READINGS: usize = 6;
/// A slow reader's pause after each row during its slow phase: about 1 MB/s of 1 KiB rows,
/// far slower than any server sends, so the socket buffers (a few MB) fill within seconds
/// and the server must then either wait for the client or keep the rest itself.
const ROW_PACE: Duration = Duration::from_millis(1);
/// Growth within this many MB of MariaDB's counts as "no more than MariaDB's": the
/// allocator's arenas and thread stacks of up to 20 connections move RSS by a few MB
/// between otherwise equal runs.
const TOLERANCE_MB: f64 = 16.0;
/// MariaDB growth below which myriad's over it is not a ratio worth printing.
const RATIO_FLOOR_MB: f64 = 1.0;
/// The big sort; its second cell adds `LIMIT 3`.
const SORT_SQL: &str = "SELECT id, k, pad FROM big ORDER BY k";
const SLOW_SQL: &str = "SELECT id, k, pad FROM big";
/// Clients of the connections cell: enough that a per-connection cost of a few KB shows
/// above the allocator's noise, below both servers' max_connections.
const CONNECTIONS: u32 = 100;
/// A connection's first statement, run before a cell's baseline by every client the cell
/// uses, and by each client of the connections cell.
const FIRST_SQL: &str = "SELECT 1";
const JOIN_SQL: &str = "SELECT COUNT(*) FROM small a, small b WHERE a.k = b.k + 1";

/// What one run measures.
struct Sizes {
    rows: u64,
    small_rows: u64,
    in_list: u64,
    slow: Duration,
    readers: Vec<u32>,
}

/// One measurement on one server.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cell {
    SlowReaders(u32),
    Connections(u32),
    Sort,
    SortLimit,
    Join,
    InList,
}

impl Cell {
    fn label(self) -> String {
        match self {
            Cell::SlowReaders(n) => format!("{n} slow reader{}", if n == 1 { "" } else { "s" }),
            Cell::Connections(n) => format!("{n} connections"),
            Cell::Sort => "ORDER BY k".to_string(),
            Cell::SortLimit => "ORDER BY k LIMIT 3".to_string(),
            Cell::Join => "join without index".to_string(),
            Cell::InList => "IN list".to_string(),
        }
    }

    fn part(self) -> &'static str {
        match self {
            Cell::SlowReaders(_) => "slow readers",
            Cell::Connections(_) => "connections",
            Cell::Sort | Cell::SortLimit => "sort",
            Cell::Join | Cell::InList => "statement",
        }
    }
}

/// One target with its tables loaded.
struct Loaded {
    target: Target,
    launcher: Launcher,
    datadir: Datadir,
}

pub fn run(r: &mut Runner) {
    let quick = r.opts.quick;
    let sizes = Sizes {
        rows: r.pick(r.opts.rows, 100_000, 2_000),
        small_rows: if quick { 300 } else { 2_000 },
        in_list: if quick { 10_000 } else { 1_000_000 },
        slow: Duration::from_secs_f64(
            r.opts
                .time_s
                .map_or(if quick { 0.5 } else { 8.0 }, |s| s as f64),
        ),
        readers: r.threads(&[1, 5, 20], &[1, 5]),
    };
    r.parameter("rows", sizes.rows);
    r.parameter("row_bytes", PAD_BYTES as u64 + 8);
    r.parameter("small_rows", sizes.small_rows);
    r.parameter("in_list_constants", sizes.in_list);
    r.parameter("slow_phase_s", sizes.slow.as_secs_f64());
    r.parameter("slow_reader_pause_ms_per_row", ROW_PACE.as_secs_f64() * 1e3);
    r.parameter("readers", serde_json::json!(sizes.readers));
    r.parameter("rss_sample_interval_ms", SAMPLE_EVERY.as_millis() as u64);
    let mut cells: Vec<Cell> = sizes
        .readers
        .iter()
        .map(|&n| Cell::SlowReaders(n))
        .collect();
    cells.extend([
        Cell::Connections(if quick { 20 } else { CONNECTIONS }),
        Cell::Sort,
        Cell::SortLimit,
        Cell::Join,
        Cell::InList,
    ]);
    let targets = r.opts.targets.len() as u64;
    // Each cell runs twice (see the module documentation).
    let per_cell = 2 * (6 + sizes.slow.as_secs() + sizes.rows / 20_000);
    r.progress
        .set_total(targets * (load_estimate_s(&sizes) + cells.len() as u64 * per_cell));

    let mut loaded = Vec::new();
    for target in r.opts.targets.clone() {
        match load(r, target, &sizes) {
            Ok(l) => loaded.push(l),
            Err(e) => r.push(Row::new(target, "load").failed(&e)),
        }
        r.progress.advance(load_estimate_s(&sizes));
    }
    for (index, cell) in cells.iter().enumerate() {
        for i in alternating(loaded.len(), index) {
            let row = measure(r, &loaded[i], *cell, &sizes);
            r.push(row);
            r.progress.advance(per_cell);
        }
    }
    for l in loaded {
        r.keep_until_end(l.datadir);
    }
    summarise(r, &cells);
}

fn load_estimate_s(sizes: &Sizes) -> u64 {
    sizes.rows / 2_000 + 5
}

/// The text of `pad` for row `id`: its number in hex, repeated to `PAD_BYTES`.
fn pad_of(id: u64) -> String {
    let unit = format!("{id:08x}-");
    unit.repeat(PAD_BYTES / unit.len() + 1)[..PAD_BYTES].to_string()
}

/// The unindexed sort key of row `id`: the ids' order scrambled (most values taken once),
/// so that the sort has to move every row.
fn k_of(id: u64, rows: u64) -> u64 {
    (id.wrapping_mul(2_654_435_761)) % rows.max(1)
}

/// Creates the datadir and loads both tables on a server that is stopped afterwards.
fn load(r: &mut Runner, target: Target, sizes: &Sizes) -> Result<Loaded> {
    let launcher = r.launcher(target)?;
    let datadir = launcher.create_datadir()?;
    let server = r.start(&launcher, &datadir, CONFIG, &common_settings())?;
    r.progress
        .step(&format!("{target}: loading {} rows of ~1 KiB", sizes.rows));
    let mut client = server.connect(None)?;
    client.execute("CREATE DATABASE mem")?;
    client.execute("USE mem")?;
    client.execute(&format!(
        "CREATE TABLE big (id INT PRIMARY KEY, k INT NOT NULL, pad VARCHAR({PAD_BYTES}) NOT NULL)"
    ))?;
    client.execute(
        "CREATE TABLE small (id INT PRIMARY KEY, k INT NOT NULL, pad VARCHAR(40) NOT NULL)",
    )?;
    let mut id = 0;
    while id < sizes.rows {
        let end = (id + LOAD_BATCH).min(sizes.rows);
        let values: Vec<String> = (id..end)
            .map(|i| format!("({i},{},'{}')", k_of(i, sizes.rows), pad_of(i)))
            .collect();
        client.execute(&format!("INSERT INTO big VALUES {}", values.join(",")))?;
        id = end;
    }
    let values: Vec<String> = (0..sizes.small_rows)
        .map(|i| format!("({i},{i},'{}')", &pad_of(i)[..30]))
        .collect();
    client.execute(&format!("INSERT INTO small VALUES {}", values.join(",")))?;
    drop(client);
    server.stop()?;
    Ok(Loaded {
        target,
        launcher,
        datadir,
    })
}

/// Measures `cell` on a fresh server of `l`; a failure becomes an error row.
fn measure(r: &mut Runner, l: &Loaded, cell: Cell, sizes: &Sizes) -> Row {
    let mut row = Row::new(l.target, CONFIG)
        .param("part", cell.part())
        .param("cell", cell.label());
    if let Cell::SlowReaders(n) = cell {
        row = row.param("readers", n);
    }
    r.progress.step(&format!("{}: {}", l.target, cell.label()));
    let server = match r.start(&l.launcher, &l.datadir, CONFIG, &common_settings()) {
        Ok(server) => server,
        Err(e) => return row.failed(&e),
    };
    let measured = measure_on(&server, cell, sizes, row.clone());
    let stopped = server.stop();
    match (measured, stopped) {
        (Ok(row), Ok(_)) => row,
        (Err(e), _) => row.failed(&e),
        (Ok(_), Err(e)) => row.failed(&e.context("stopping the server after the cell")),
    }
}

/// The workload's own figures, besides memory.
#[derive(Default)]
struct Workload {
    seconds: f64,
    rows: u64,
    /// The slowest client's time to its first row.
    first_row_s: Option<f64>,
}

fn measure_on(
    server: &crate::server::Server,
    cell: Cell,
    sizes: &Sizes,
    mut row: Row,
) -> Result<Row> {
    let pid = server.pid();
    let start_rss = rss_bytes(pid).context("reading the server's VmRSS")?;
    warm_up(server, sizes)?;
    // Connections are made, and their sessions set up, before the baseline: the growth
    // is the statement's. The connections cell measures that set-up itself.
    let clients = match cell {
        Cell::SlowReaders(n) => n as usize,
        Cell::Connections(_) => 0,
        _ => 1,
    };
    let mut connected = Vec::with_capacity(clients);
    for _ in 0..clients {
        connected.push(first_statement(server.connect(Some("mem"))?)?);
    }
    let first = run_measured(server, cell, sizes, &mut connected)?;
    let mb = |bytes: u64| bytes as f64 / (1u64 << 20) as f64;
    row.metric("baseline_mb", mb(first.baseline));
    row.metric("peak_mb", mb(first.peak));
    row.metric("growth_mb", mb(first.peak) - mb(first.baseline));
    if let Cell::Connections(n) = cell {
        row.metric(
            "growth_kb_per_connection",
            first.peak.saturating_sub(first.baseline) as f64 / 1024.0 / f64::from(n),
        );
    }
    row.metric("after_mb", mb(first.after));
    row.metric("seconds", first.workload.seconds);
    if let Some(first_row) = first.workload.first_row_s {
        row.metric("first_row_s", first_row);
    }
    row.count("rows", first.workload.rows as i64);
    row.metric("start_mb", mb(start_rss));
    row.metric("sampled_peak_mb", mb(first.sampled_peak));
    row.count("rss_readings", first.readings as i64);
    row.count("hwm_reset", i64::from(first.hwm_reset));
    if !matches!(cell, Cell::Connections(_)) {
        // The same cell again, same clients, from the settled memory after the first run.
        let again = run_measured(server, cell, sizes, &mut connected)?;
        row.metric("again_baseline_mb", mb(again.baseline));
        row.metric("again_peak_mb", mb(again.peak));
        row.metric("again_growth_mb", mb(again.peak) - mb(again.baseline));
        row.metric("again_after_mb", mb(again.after));
        row.metric("again_seconds", again.workload.seconds);
    }
    row.command = Some(command_text(cell, sizes));
    Ok(row)
}

/// One run of a cell, with the server's memory around it.
struct Measured {
    /// Settled resident bytes before the run.
    baseline: u64,
    /// The highest of the readings, VmHWM and the baseline.
    peak: u64,
    sampled_peak: u64,
    readings: usize,
    hwm_reset: bool,
    /// Settled resident bytes after the run.
    after: u64,
    workload: Workload,
}

/// Runs `cell` once on `server` with the clients `connected` (handed back after the run),
/// reading the server's memory around it and during it.
fn run_measured(
    server: &crate::server::Server,
    cell: Cell,
    sizes: &Sizes,
    connected: &mut Vec<Client>,
) -> Result<Measured> {
    let pid = server.pid();
    let baseline = settled_rss(pid)?;
    let hwm_reset = reset_hwm(pid);
    let sampler = Sampler::start(pid);
    let workload = match cell {
        Cell::SlowReaders(_) => slow_readers(connected, sizes),
        Cell::Connections(n) => connections(server, n),
        Cell::Sort | Cell::SortLimit | Cell::Join | Cell::InList => {
            let client = connected.last_mut().context("one connection")?;
            statement(client, cell, sizes)
        }
    };
    let readings = sampler.finish();
    let hwm = hwm_reset.then(|| hwm_bytes(pid)).flatten();
    let workload = workload?;
    let after = settled_rss(pid)?;
    let sampled_peak = readings.iter().copied().max().unwrap_or(baseline);
    let peak = sampled_peak.max(hwm.unwrap_or(0)).max(baseline);
    Ok(Measured {
        baseline,
        peak,
        sampled_peak,
        readings: readings.len(),
        hwm_reset: hwm.is_some(),
        after,
        workload,
    })
}

fn command_text(cell: Cell, sizes: &Sizes) -> String {
    match cell {
        Cell::SlowReaders(n) => format!(
            "{n} x `{SLOW_SQL}`, one row per {} ms for {} s after the first row, then at full speed",
            ROW_PACE.as_millis(),
            sizes.slow.as_secs_f64()
        ),
        Cell::Connections(n) => format!("{n} clients connect and each run `{FIRST_SQL}`"),
        Cell::Sort => SORT_SQL.to_string(),
        Cell::SortLimit => format!("{SORT_SQL} LIMIT 3"),
        Cell::Join => JOIN_SQL.to_string(),
        Cell::InList => format!(
            "SELECT COUNT(*) FROM small WHERE k IN (0, 3, 6, ... <{} constants>)",
            sizes.in_list
        ),
    }
}

/// Reads both tables once through aggregates over primary-key ranges of `WARM_CHUNK` rows
/// (the caches fill; a server that gathers a scan's rows before aggregating them holds one
/// chunk at a time, not the table, so that little of the warm-up's own memory is left in
/// the baseline) and checks that the load is complete.
fn warm_up(server: &crate::server::Server, sizes: &Sizes) -> Result<()> {
    let mut client = server.connect(Some("mem"))?;
    for (table, rows) in [("big", sizes.rows), ("small", sizes.small_rows)] {
        let mut count = 0u64;
        let mut from = 0;
        while from < rows {
            let to = from + WARM_CHUNK;
            let text = client.scalar(&format!(
                "SELECT COUNT(*) FROM {table} WHERE id >= {from} AND id < {to} AND pad <> ''"
            ))?;
            count += text
                .as_deref()
                .unwrap_or("")
                .parse::<u64>()
                .unwrap_or(u64::MAX / 2);
            from = to;
        }
        ensure!(
            count == rows,
            "{table} holds {count} rows, {rows} were loaded"
        );
    }
    Ok(())
}

/// Runs a connection's first statement on `client` and hands it back.
fn first_statement(mut client: Client) -> Result<Client> {
    let one = client.scalar(FIRST_SQL)?;
    ensure!(one.as_deref() == Some("1"), "{FIRST_SQL} gave {one:?}");
    Ok(client)
}

/// `n` clients connect and run their first statement; they stay connected until the peak
/// is read.
fn connections(server: &crate::server::Server, n: u32) -> Result<Workload> {
    let started = Instant::now();
    let mut clients = Vec::with_capacity(n as usize);
    for _ in 0..n {
        clients.push(first_statement(server.connect(Some("mem"))?)?);
    }
    std::thread::sleep(SAMPLE_EVERY * 2);
    Ok(Workload {
        seconds: started.elapsed().as_secs_f64(),
        rows: u64::from(n),
        first_row_s: None,
    })
}

/// `clients` each read `SELECT * FROM big`, slowly during the slow phase; those whose
/// read succeeded are put back.
fn slow_readers(clients: &mut Vec<Client>, sizes: &Sizes) -> Result<Workload> {
    let started = Instant::now();
    let slow = sizes.slow;
    let handles: Vec<JoinHandle<Result<(u64, f64, Client)>>> = std::mem::take(clients)
        .into_iter()
        .map(|mut client| {
            std::thread::spawn(move || {
                let begun = Instant::now();
                let mut first: Option<Instant> = None;
                let rows = client.stream(SLOW_SQL, |_, _| {
                    let now = Instant::now();
                    if now.duration_since(*first.get_or_insert(now)) < slow {
                        std::thread::sleep(ROW_PACE);
                    }
                })?;
                let first_s = first.map_or(f64::NAN, |f| f.duration_since(begun).as_secs_f64());
                Ok((rows, first_s, client))
            })
        })
        .collect();
    let mut workload = Workload::default();
    let mut errors = Vec::new();
    for handle in handles {
        match handle.join() {
            Ok(Ok((rows, first_s, client))) => {
                clients.push(client);
                if rows != sizes.rows {
                    errors.push(format!("a reader got {rows} rows of {}", sizes.rows));
                }
                workload.rows += rows;
                workload.first_row_s =
                    Some(workload.first_row_s.map_or(first_s, |f| f.max(first_s)));
            }
            Ok(Err(e)) => errors.push(format!("{e:#}")),
            Err(_) => errors.push("a reader thread panicked".to_string()),
        }
    }
    workload.seconds = started.elapsed().as_secs_f64();
    if let Some(first) = errors.first() {
        bail!("{} of the readers failed: {first}", errors.len());
    }
    Ok(workload)
}

/// One of the single statements, read at full speed, its answer checked.
fn statement(client: &mut Client, cell: Cell, sizes: &Sizes) -> Result<Workload> {
    let started = Instant::now();
    let (rows, expected) = match cell {
        Cell::Sort => (client.stream(SORT_SQL, |_, _| {})?, sizes.rows),
        Cell::SortLimit => (
            client.stream(&format!("{SORT_SQL} LIMIT 3"), |_, _| {})?,
            sizes.rows.min(3),
        ),
        Cell::Join | Cell::InList => {
            let (sql, expected) = if cell == Cell::Join {
                (JOIN_SQL.to_string(), sizes.small_rows.saturating_sub(1))
            } else {
                (
                    in_list_sql(sizes.in_list),
                    sizes.small_rows.div_ceil(3).min(sizes.in_list),
                )
            };
            let count = client.scalar(&sql)?.unwrap_or_default();
            let count: u64 = count
                .parse()
                .with_context(|| format!("COUNT(*) gave `{count}`"))?;
            ensure!(
                count == expected,
                "COUNT(*) gave {count}, expected {expected}"
            );
            (1, 1)
        }
        Cell::SlowReaders(_) | Cell::Connections(_) => bail!("not a single statement"),
    };
    ensure!(
        rows == expected,
        "{} returned {rows} rows, expected {expected}",
        cell.label()
    );
    Ok(Workload {
        seconds: started.elapsed().as_secs_f64(),
        rows,
        first_row_s: None,
    })
}

fn in_list_sql(constants: u64) -> String {
    let mut sql = String::with_capacity(constants as usize * 8 + 64);
    sql.push_str("SELECT COUNT(*) FROM small WHERE k IN (");
    for i in 0..constants {
        if i > 0 {
            sql.push(',');
        }
        sql.push_str(&(i * 3).to_string());
    }
    sql.push(')');
    sql
}

/// VmRSS of `pid` in bytes.
fn rss_bytes(pid: u32) -> Option<u64> {
    status_bytes(
        &std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?,
        "VmRSS:",
    )
}

/// VmHWM (the peak resident memory since the last reset) of `pid` in bytes.
fn hwm_bytes(pid: u32) -> Option<u64> {
    status_bytes(
        &std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?,
        "VmHWM:",
    )
}

/// Resets `pid`'s VmHWM to its current VmRSS (`echo 5 > /proc/PID/clear_refs`, Linux 4.0
/// and later; needs the process's owner), so that the peak of a statement shorter than the
/// sampling interval is still seen. False where the kernel refused.
fn reset_hwm(pid: u32) -> bool {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok()
}

/// A `kB` line (`field` with its colon) of a /proc/PID/status text, in bytes.
fn status_bytes(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The median of `SETTLE_READINGS` readings, `SAMPLE_EVERY` apart.
fn settled_rss(pid: u32) -> Result<u64> {
    let mut readings = Vec::with_capacity(SETTLE_READINGS);
    for i in 0..SETTLE_READINGS {
        if i > 0 {
            std::thread::sleep(SAMPLE_EVERY);
        }
        readings.push(rss_bytes(pid).context("reading the server's VmRSS")?);
    }
    readings.sort_unstable();
    Ok(readings[readings.len() / 2])
}

/// Reads a process's resident memory every `SAMPLE_EVERY` on its own thread.
struct Sampler {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Vec<u64>>,
}

impl Sampler {
    fn start(pid: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::spawn(move || {
            let mut readings = Vec::new();
            loop {
                let last = flag.load(Ordering::Acquire);
                if let Some(bytes) = rss_bytes(pid) {
                    readings.push(bytes);
                }
                if last {
                    return readings;
                }
                std::thread::sleep(SAMPLE_EVERY);
            }
        });
        Sampler { stop, handle }
    }

    /// Stops sampling (after one last reading) and returns the readings.
    fn finish(self) -> Vec<u64> {
        self.stop.store(true, Ordering::Release);
        self.handle.join().unwrap_or_default()
    }
}

/// myriad's growth over MariaDB's as "1.04x"; against a growth under `RATIO_FLOOR_MB` (a
/// ratio of noise) it says so.
fn growth_ratio(myriad: Option<f64>, mariadb: Option<f64>) -> String {
    match (myriad, mariadb) {
        (Some(a), Some(b)) if b >= RATIO_FLOOR_MB => ratio_text(a, b),
        (Some(_), Some(_)) => format!("n/a (MariaDB < {RATIO_FLOOR_MB} MB)"),
        _ => "-".to_string(),
    }
}

fn summarise(r: &mut Runner, cells: &[Cell]) {
    let owned: Vec<Row> = ok_rows(&r.record).cloned().collect();
    let find = |target: Target, cell: Cell| {
        owned
            .iter()
            .find(|row| row.target == target.name() && param_text(row, "cell") == cell.label())
    };
    let metric = |row: Option<&Row>, name: &str| {
        row.and_then(|row| row.get_metric(name))
            .map_or("-".to_string(), format_number)
    };
    let mut versus = Vec::new();
    for &cell in cells {
        let (maria, myriad) = (find(Target::Mariadb, cell), find(Target::Myriad, cell));
        let growth = |row: Option<&Row>| row.and_then(|row| row.get_metric("growth_mb"));
        let (g_maria, g_myriad) = (growth(maria), growth(myriad));
        if g_maria.is_none() && g_myriad.is_none() {
            continue;
        }
        let within = match (g_myriad, g_maria) {
            (Some(a), Some(b)) => if a <= b + TOLERANCE_MB { "yes" } else { "no" }.to_string(),
            _ => "-".to_string(),
        };
        versus.push(vec![
            cell.label(),
            metric(maria, "growth_mb"),
            metric(myriad, "growth_mb"),
            growth_ratio(g_myriad, g_maria),
            within,
            metric(maria, "again_growth_mb"),
            metric(myriad, "again_growth_mb"),
            metric(maria, "seconds"),
            metric(myriad, "seconds"),
        ]);
    }
    r.record.tables.push(table(
        &format!(
            "Server RSS growth (MB, peak - baseline) per cell, myriad over MariaDB; \
             \"within\": myriad's growth at most MariaDB's + {TOLERANCE_MB} MB; \
             \"again\": the growth of the same cell run a second time on the same server"
        ),
        &[
            "cell",
            "mariadb growth",
            "myriad growth",
            "myriad/mariadb",
            "within",
            "mariadb again",
            "myriad again",
            "mariadb s",
            "myriad s",
        ],
        versus,
    ));
    let mut detail = Vec::new();
    for &cell in cells {
        for target in &r.opts.targets {
            let Some(row) = find(*target, cell) else {
                continue;
            };
            let some = Some(row);
            detail.push(vec![
                target.name().to_string(),
                cell.label(),
                metric(some, "baseline_mb"),
                metric(some, "peak_mb"),
                metric(some, "growth_mb"),
                metric(some, "after_mb"),
                metric(some, "again_baseline_mb"),
                metric(some, "again_peak_mb"),
                metric(some, "again_growth_mb"),
                metric(some, "first_row_s"),
                metric(some, "seconds"),
            ]);
        }
    }
    r.record.tables.push(table(
        "Server resident memory (MB) and time (s) of each cell (\"again\": its second run)",
        &[
            "target",
            "cell",
            "baseline",
            "peak",
            "growth",
            "after",
            "again baseline",
            "again peak",
            "again growth",
            "first row s",
            "seconds",
        ],
        detail,
    ));
    let mut series: Vec<Series> = Vec::new();
    for target in &r.opts.targets {
        let points: Vec<(f64, f64)> = owned
            .iter()
            .filter(|row| row.target == target.name() && param_text(row, "part") == "slow readers")
            .filter_map(|row| {
                Some((
                    super::param_f64(row, "readers")?,
                    row.get_metric("growth_mb")?,
                ))
            })
            .collect();
        series.push(Series {
            name: target.name().to_string(),
            points,
        });
    }
    r.pending_plots.push(PlotSpec {
        file: "memory-slow-readers.png".to_string(),
        title: "Server RSS growth while N clients read a large result slowly".to_string(),
        x_label: "slow readers".to_string(),
        y_label: "RSS growth, MB".to_string(),
        series,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_rss_is_read_in_bytes() {
        let status = "Name:\tmyriad\nVmHWM:\t  900 kB\nVmRSS:\t  2048 kB\nThreads:\t3\n";
        assert_eq!(status_bytes(status, "VmRSS:"), Some(2048 * 1024));
        assert_eq!(status_bytes(status, "VmHWM:"), Some(900 * 1024));
        assert_eq!(status_bytes("Name:\tx\n", "VmRSS:"), None);
        assert!(rss_bytes(std::process::id()).expect("our own VmRSS") > 0);
    }

    #[test]
    fn the_peak_is_reset_to_the_current_resident_memory() {
        // A child that touches 64 MB, frees it and waits: its peak stays until reset.
        let mut child = std::process::Command::new("python3")
            .args([
                "-c",
                "x = bytearray(64 << 20); del x; import time; time.sleep(30)",
            ])
            .spawn()
            .expect("python3 runs");
        let pid = child.id();
        let deadline = Instant::now() + Duration::from_secs(10);
        while hwm_bytes(pid).unwrap_or(0) < 64 << 20 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(200));
        let before = hwm_bytes(pid).expect("VmHWM");
        let reset = reset_hwm(pid);
        let after = hwm_bytes(pid).expect("VmHWM");
        let _ = child.kill();
        let _ = child.wait();
        assert!(before >= 64 << 20, "the child touched 64 MB: {before}");
        assert!(reset, "clear_refs accepted");
        assert!(after < before - (32 << 20), "reset: {before} -> {after}");
    }

    #[test]
    fn rows_have_the_planned_size_and_a_scrambled_key() {
        assert_eq!(pad_of(7).len(), PAD_BYTES);
        assert!(pad_of(7).starts_with("00000007-00000007-"));
        let rows = 1_000;
        let mut keys: Vec<u64> = (0..rows).map(|i| k_of(i, rows)).collect();
        assert!(keys.windows(2).any(|w| w[0] > w[1]), "k is not in id order");
        keys.sort_unstable();
        keys.dedup();
        assert!(keys.len() > 900, "k takes most values once: {}", keys.len());
        assert!(keys.iter().all(|&k| k < rows));
    }

    #[test]
    fn the_in_list_has_the_asked_constants() {
        assert_eq!(
            in_list_sql(3),
            "SELECT COUNT(*) FROM small WHERE k IN (0,3,6)"
        );
        assert_eq!(in_list_sql(1_000).matches(',').count(), 999);
    }

    #[test]
    fn the_sampler_reads_until_finished() {
        let sampler = Sampler::start(std::process::id());
        std::thread::sleep(SAMPLE_EVERY * 2);
        let readings = sampler.finish();
        assert!(readings.len() >= 2, "{} readings", readings.len());
        assert!(readings.iter().all(|&b| b > 0));
        assert!(settled_rss(std::process::id()).expect("settled") > 0);
    }

    #[test]
    fn ratios_need_a_measurable_denominator() {
        assert_eq!(growth_ratio(Some(302.0), Some(291.0)), "1.04x");
        assert_eq!(
            growth_ratio(Some(246.0), Some(0.03)),
            "n/a (MariaDB < 1 MB)"
        );
        assert_eq!(growth_ratio(None, Some(3.0)), "-");
    }

    #[test]
    fn labels_are_distinct() {
        let cells = [
            Cell::SlowReaders(1),
            Cell::SlowReaders(5),
            Cell::Connections(100),
            Cell::Sort,
            Cell::SortLimit,
            Cell::Join,
            Cell::InList,
        ];
        let mut labels: Vec<String> = cells.iter().map(|c| c.label()).collect();
        labels.sort();
        labels.dedup();
        assert_eq!(labels.len(), cells.len());
        assert_eq!(Cell::SlowReaders(1).label(), "1 slow reader");
    }
}
