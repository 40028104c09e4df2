//! Seed 002: the query cache, at a low hit ratio and at a high one.
//!
//! - `low-hit`: sysbench oltp_read_only on 1M rows at 1, 16 and 100 threads with the query
//!   cache off, at 64 MB and at 256 MB. At a hit ratio under 10% the MySQL query cache cut
//!   throughput 4 to 20x, because every lookup, insert and invalidation took one global
//!   mutex. Target for myriad: cache on keeps >= 95% of its cache-off throughput.
//! - `hot`: the same transactions on a 1,000-row table, so that the point and range selects
//!   form a hot set that fits in the cache (about 900 distinct ranges of each kind and
//!   1,000 points). Target for myriad: cache on >= 2x its cache-off throughput.
//!
//! Hit ratio as the seed computes it: Qcache_hits / (Qcache_hits + Com_select).
//!
//! The three cache configurations differ only in variables both servers set at run time, so
//! each server starts once per workload (with `query_cache_type = 1`, `query_cache_size =
//! 0`: MariaDB cannot turn its cache on at run time after starting with type 0) and the
//! configurations alternate cell by cell (`SET GLOBAL query_cache_type, query_cache_size`,
//! then `RESET QUERY CACHE`), myriad and MariaDB in turn: a drift of the machine's load
//! falls on cache off and on alike.

use super::{
    gain_text, ok_rows, paired_ratios, paired_text, param_text, run_sysbench_plan_switched,
    series_by, settings_with, table, Engine, Runner, SysbenchCell, SysbenchPlan,
};
use crate::report::{PlotSpec, Row};

const CACHES: &[(&str, &str, &str)] = &[
    ("off", "0", "0"),
    ("64MB", "1", "67108864"),
    ("256MB", "1", "268435456"),
];

/// Rows of the hot workload's table: its range selects (100 rows each) have about 900
/// distinct starting points, so every distinct result fits in 64 MB.
const HOT_ROWS: u64 = 1_000;

/// One workload: its label prefix and table size.
struct Workload {
    /// Prefix of the configuration labels ("" for the seed's own workload).
    prefix: &'static str,
    title: &'static str,
    rows: u64,
}

pub fn run(r: &mut Runner) {
    let threads = r.threads(&[1, 16, 100], &[1, 16]);
    let low_rows = r.pick(r.opts.rows, 1_000_000, 10_000);
    let time_s = r.pick(r.opts.time_s, 30, 3);
    let warmup_s = if r.opts.quick { 0 } else { 5 };
    let workloads = [
        Workload {
            prefix: "",
            title: "low hit ratio: oltp_read_only",
            rows: low_rows,
        },
        Workload {
            prefix: "hot ",
            title: "hot set: oltp_read_only on 1,000 rows",
            rows: HOT_ROWS,
        },
    ];
    for w in &workloads {
        let plan = SysbenchPlan {
            engine: Engine::Innodb,
            tables: 1,
            table_size: w.rows,
            extra: vec![],
            configs: CACHES
                .iter()
                .map(|(label, kind, size)| {
                    (
                        format!("{}qc {label}", w.prefix),
                        settings_with(&[
                            ("query_cache_type", kind.to_string()),
                            ("query_cache_size", size.to_string()),
                        ]),
                    )
                })
                .collect(),
            cells: threads
                .iter()
                .map(|&t| SysbenchCell {
                    test: "oltp_read_only".into(),
                    extra: vec![],
                    threads: t,
                    tables: None,
                    params: vec![],
                })
                .collect(),
            time_s,
            after_start: vec![],
            warmup_s,
        };
        let start = settings_with(&[
            ("query_cache_type", "1".to_string()),
            ("query_cache_size", "0".to_string()),
        ]);
        run_sysbench_plan_switched(r, &plan, &start, &["RESET QUERY CACHE"]);
    }
    r.parameter("sysbench_table_size", low_rows);
    r.parameter("hot_table_size", HOT_ROWS);

    for row in r.record.rows.iter_mut().filter(|r| r.error.is_none()) {
        let hits = *row.status_delta.get("Qcache_hits").unwrap_or(&0) as f64;
        let selects = *row.status_delta.get("Com_select").unwrap_or(&0) as f64;
        if hits + selects > 0.0 {
            row.metric("qc_hit_ratio", hits / (hits + selects));
        }
        let inserts = *row.status_delta.get("Qcache_inserts").unwrap_or(&0) as f64;
        row.metric("qc_inserts", inserts);
    }

    let owned_rows: Vec<Row> = ok_rows(&r.record).cloned().collect();
    let rows: Vec<&Row> = owned_rows.iter().collect();
    let find = |target: &str, label: &str, t: u32| {
        rows.iter().copied().find(|row| {
            row.target == target
                && row.config == label
                && param_text(row, "threads") == t.to_string()
        })
    };
    let tps = |row: Option<&Row>| row.and_then(|row| row.get_metric("tps"));
    // The median over the repetitions of this metric itself (the row's own figures are
    // those of its median-TPS sample).
    let cpu =
        |row: Option<&Row>| row.and_then(|row| super::median_metric(row, "server_cpu_us_per_txn"));
    for w in &workloads {
        let mut summary = Vec::new();
        let mut versus = Vec::new();
        let mut cpu_lines = Vec::new();
        let mut paired = Vec::new();
        for target in &r.opts.targets {
            for &t in &threads {
                let label = |cache: &str| format!("{}qc {cache}", w.prefix);
                let Some(off_row) = find(target.name(), &label("off"), t) else {
                    continue;
                };
                let Some(off) = tps(Some(off_row)) else {
                    continue;
                };
                let mut line = vec![target.name().to_string(), t.to_string()];
                for cache in ["64MB", "256MB"] {
                    line.push(
                        find(target.name(), &label(cache), t).map_or("n/a".to_string(), |on| {
                            paired_text(&paired_ratios(on, off_row, "tps"))
                        }),
                    );
                }
                paired.push(line);
                let mut line = vec![
                    target.name().to_string(),
                    t.to_string(),
                    crate::report::format_number(off),
                ];
                for cache in ["64MB", "256MB"] {
                    let row = find(target.name(), &label(cache), t);
                    let hit = row.and_then(|row| row.get_metric("qc_hit_ratio"));
                    line.push(match tps(row) {
                        Some(on) => format!(
                            "{} ({:.2}x, {}, hit ratio {})",
                            crate::report::format_number(on),
                            on / off,
                            gain_text(on, off),
                            hit.map_or("n/a".to_string(), |h| format!("{:.1}%", h * 100.0))
                        ),
                        None => "error".to_string(),
                    });
                }
                summary.push(line);
                if let Some(off_cpu) = cpu(Some(off_row)) {
                    let mut line = vec![
                        target.name().to_string(),
                        t.to_string(),
                        format!("{off_cpu:.0}"),
                    ];
                    for cache in ["64MB", "256MB"] {
                        line.push(match cpu(find(target.name(), &label(cache), t)) {
                            Some(on) => format!("{on:.0} ({:.2}x)", on / off_cpu),
                            None => "n/a".to_string(),
                        });
                    }
                    cpu_lines.push(line);
                }
            }
        }
        for &t in &threads {
            for (cache, _, _) in CACHES {
                let label = format!("{}qc {cache}", w.prefix);
                let myriad = tps(find("myriad", &label, t));
                let mariadb = tps(find("mariadb", &label, t));
                if let (Some(m), Some(d)) = (myriad, mariadb) {
                    versus.push(vec![
                        t.to_string(),
                        cache.to_string(),
                        crate::report::format_number(m),
                        crate::report::format_number(d),
                        format!("{:.2}x", m / d),
                    ]);
                }
            }
        }
        // The summary and the CPU table have the same columns: off, then each cache size.
        let columns = ["target", "threads", "off", "64 MB", "256 MB"];
        r.record.tables.push(table(
            &format!(
                "{}: TPS with the query cache off and on (ratio to off, change, Qcache hit ratio)",
                w.title
            ),
            &columns,
            summary,
        ));
        if !cpu_lines.is_empty() {
            r.record.tables.push(table(
                &format!(
                    "{}: server CPU per transaction in µs, median of the repetitions (ratio to off; unlike TPS, not lowered by other processes' load)",
                    w.title
                ),
                &columns,
                cpu_lines,
            ));
        }
        if r.opts.repeat > 1 {
            r.record.tables.push(table(
                &format!(
                    "{}: TPS change with the cache on, paired with cache off within each repetition (median, range)",
                    w.title
                ),
                &["target", "threads", "64 MB", "256 MB"],
                paired,
            ));
        }
        if !versus.is_empty() {
            r.record.tables.push(table(
                &format!("{}: myriad against MariaDB per cell (TPS)", w.title),
                &[
                    "threads",
                    "query cache",
                    "myriad",
                    "MariaDB",
                    "myriad / MariaDB",
                ],
                versus,
            ));
        }
        let mine: Vec<&Row> = rows
            .iter()
            .copied()
            .filter(|row| row.config.starts_with(&format!("{}qc ", w.prefix)))
            .collect();
        r.pending_plots.push(PlotSpec {
            file: format!(
                "query-cache{}.png",
                if w.prefix.is_empty() { "" } else { "-hot" }
            ),
            title: format!("sysbench {}: query cache off / 64 MB / 256 MB", w.title),
            x_label: "threads".into(),
            y_label: "transactions/s".into(),
            series: series_by(
                &mine,
                |row| format!("{} {}", row.target, row.config),
                "threads",
                "tps",
            ),
        });
    }
}
