//! Seed 002: the query cache at a low hit ratio. sysbench oltp_read_only at 1, 16 and 100
//! threads with the query cache off, at 64 MB and at 256 MB. At a hit ratio under 10% the
//! MySQL query cache cut throughput 4 to 20x, because every lookup, insert and invalidation
//! took one global mutex.

use super::{
    gain_text, ok_rows, param_text, run_sysbench_plan, series_by, settings_with, table, Engine,
    Runner, SysbenchCell, SysbenchPlan,
};
use crate::report::{PlotSpec, Row};

const CACHES: &[(&str, &str, &str)] = &[
    ("off", "0", "0"),
    ("64MB", "1", "67108864"),
    ("256MB", "1", "268435456"),
];

pub fn run(r: &mut Runner) {
    let threads = r.threads(&[1, 16, 100], &[1, 16]);
    let rows = r.pick(r.opts.rows, 1_000_000, 10_000);
    let time_s = r.pick(r.opts.time_s, 30, 3);
    let plan = SysbenchPlan {
        engine: Engine::Innodb,
        tables: 1,
        table_size: rows,
        extra: vec![],
        configs: CACHES
            .iter()
            .map(|(label, kind, size)| {
                (
                    format!("qc {label}"),
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
        warmup_s: if r.opts.quick { 0 } else { 5 },
    };
    run_sysbench_plan(r, &plan);

    // Hit ratio as the seed computes it: Qcache_hits / (Qcache_hits + Com_select).
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
    let mut summary = Vec::new();
    for target in &r.opts.targets {
        for &t in &threads {
            let find = |label: &str| {
                rows.iter().find(|row| {
                    row.target == target.name()
                        && row.config == format!("qc {label}")
                        && param_text(row, "threads") == t.to_string()
                })
            };
            let Some(off) = find("off").and_then(|row| row.get_metric("tps")) else {
                continue;
            };
            let mut line = vec![
                target.name().to_string(),
                t.to_string(),
                crate::report::format_number(off),
            ];
            for label in ["64MB", "256MB"] {
                let row = find(label);
                let tps = row.and_then(|row| row.get_metric("tps"));
                let hit = row.and_then(|row| row.get_metric("qc_hit_ratio"));
                line.push(match tps {
                    Some(tps) => format!(
                        "{} ({}, hit ratio {})",
                        crate::report::format_number(tps),
                        gain_text(tps, off),
                        hit.map_or("n/a".to_string(), |h| format!("{:.1}%", h * 100.0))
                    ),
                    None => "error".to_string(),
                });
            }
            summary.push(line);
        }
    }
    let summary = table(
        "oltp_read_only TPS: query cache off against on (change from off, Qcache hit ratio)",
        &["target", "threads", "off", "64 MB", "256 MB"],
        summary,
    );
    let plot = PlotSpec {
        file: "query-cache.png".into(),
        title: "sysbench oltp_read_only: query cache off / 64 MB / 256 MB".into(),
        x_label: "threads".into(),
        y_label: "transactions/s".into(),
        series: series_by(
            &rows,
            |row| format!("{} {}", row.target, row.config),
            "threads",
            "tps",
        ),
    };
    r.record.tables.push(summary);
    r.pending_plots.push(plot);
}
