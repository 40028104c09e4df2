//! Seed 001: the segmented key cache. sysbench select_random_points (10, 50, 100 points in
//! an IN list over the secondary index) on one MyISAM table with the key cache preloaded
//! (`LOAD INDEX INTO CACHE`), at 1 to 128 threads, key_cache_segments 0 against 64. The
//! seed printed the gain of segments over one mutex per thread count; so does this.

use super::{
    gain_text, ok_rows, param_text, rows_where, run_sysbench_plan, settings_with, table, tps_plot,
    Engine, Runner, SysbenchCell, SysbenchPlan,
};
use crate::report::{format_number, Row};

const SEGMENTS: &[u32] = &[0, 64];

pub fn run(r: &mut Runner) {
    let threads = r.threads(&[1, 4, 8, 16, 32, 64, 128], &[1, 4]);
    let rows = r.pick(r.opts.rows, 1_000_000, 20_000);
    let time_s = r.pick(r.opts.time_s, 20, 3);
    let points: Vec<u32> = match &r.opts.points {
        Some(points) => points.clone(),
        None if r.opts.quick => vec![10],
        None => vec![10, 50, 100],
    };
    let mut cells = Vec::new();
    for &p in &points {
        for &t in &threads {
            cells.push(SysbenchCell {
                test: "select_random_points".into(),
                extra: vec![format!("--random-points={p}")],
                threads: t,
                tables: None,
                params: vec![("points".into(), p.into())],
            });
        }
    }
    let plan = SysbenchPlan {
        engine: Engine::Myisam,
        tables: 1,
        table_size: rows,
        // sysbench 1.0's default "special" distribution puts 75% of the k values of the
        // load in 1% of the range, at its middle; select_random_points splits the range
        // between threads, so at 1 thread most IN lists would hit that dense middle (hundreds
        // of rows per statement) and at 2 or more threads none would. Uniform keys keep
        // every statement at about `points` rows, as in the seed.
        extra: vec!["--rand-type=uniform".to_string()],
        configs: SEGMENTS
            .iter()
            .map(|s| {
                (
                    format!("segments={s}"),
                    // The seed's server options.
                    settings_with(&[
                        ("key_buffer_size", "536870912".to_string()),
                        ("key_cache_segments", s.to_string()),
                        ("table_open_cache", "512".to_string()),
                        ("query_cache_type", "0".to_string()),
                        ("query_cache_size", "0".to_string()),
                    ]),
                )
            })
            .collect(),
        cells,
        time_s,
        after_start: vec!["LOAD INDEX INTO CACHE sbtest1".to_string()],
        warmup_s: if r.opts.quick { 0 } else { 10 },
    };
    r.parameter("random_points", serde_json::json!(points));
    run_sysbench_plan(r, &plan);

    let owned_rows: Vec<Row> = ok_rows(&r.record).cloned().collect();
    let rows: Vec<&Row> = owned_rows.iter().collect();
    let tps = |target: &str, segments: u32, p: u32, t: u32| {
        rows.iter()
            .find(|row| {
                row.target == target
                    && row.config == format!("segments={segments}")
                    && param_text(row, "points") == p.to_string()
                    && param_text(row, "threads") == t.to_string()
            })
            .and_then(|row| row.get_metric("tps"))
    };
    let mut header: Vec<String> = vec!["target".into(), "points".into(), "".into()];
    header.extend(threads.iter().map(|t| t.to_string()));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut gains = Vec::new();
    let mut absolute = Vec::new();
    let mut kept = Vec::new();
    for target in &r.opts.targets {
        for &p in &points {
            for &s in SEGMENTS {
                let values: Vec<Option<f64>> = threads
                    .iter()
                    .map(|&t| tps(target.name(), s, p, t))
                    .collect();
                if values.iter().all(Option::is_none) {
                    continue;
                }
                let mut line = vec![
                    target.name().to_string(),
                    p.to_string(),
                    format!("segments={s}"),
                ];
                line.extend(values.iter().map(|v| v.map_or("-".into(), format_number)));
                absolute.push(line);
                let peak = values.iter().flatten().fold(0.0f64, |a, b| a.max(*b));
                if let (Some(Some(last)), true) = (values.last(), peak > 0.0) {
                    kept.push(vec![
                        target.name().to_string(),
                        p.to_string(),
                        format!("segments={s}"),
                        format_number(peak),
                        format_number(*last),
                        format!("{:.0}%", last / peak * 100.0),
                    ]);
                }
            }
            let mut line = vec![
                target.name().to_string(),
                p.to_string(),
                "(64/off)".to_string(),
            ];
            line.extend(threads.iter().map(|&t| {
                match (tps(target.name(), 64, p, t), tps(target.name(), 0, p, t)) {
                    (Some(on), Some(off)) => gain_text(on, off),
                    _ => "-".into(),
                }
            }));
            gains.push(line);
        }
    }
    // myriad against MariaDB, each at its best segments setting per cell (the target:
    // at least 2x at 16 threads with 10 points).
    let mut versus = Vec::new();
    for &p in &points {
        let best = |target: &str, t: u32| {
            SEGMENTS
                .iter()
                .filter_map(|&s| tps(target, s, p, t))
                .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))))
        };
        let mut line = vec!["myriad/mariadb".to_string(), p.to_string(), "(best)".into()];
        line.extend(
            threads
                .iter()
                .map(|&t| match (best("myriad", t), best("mariadb", t)) {
                    (Some(m), Some(d)) if d > 0.0 => format!("{:.2}x", m / d),
                    _ => "-".into(),
                }),
        );
        versus.push(line);
    }
    r.record.tables.push(table(
        "myriad over MariaDB (TPS ratio, best segments setting of each), by threads",
        &header,
        versus,
    ));
    r.record.tables.push(table(
        "Relative gain of key_cache_segments=64 over 0 (the seed's layout), by threads",
        &header,
        gains,
    ));
    r.record
        .tables
        .push(table("Transactions/s by threads", &header, absolute));
    r.record.tables.push(table(
        "Throughput kept at the highest thread count",
        &[
            "target",
            "points",
            "config",
            "peak TPS",
            "TPS at max threads",
            "kept",
        ],
        kept,
    ));
    for &p in &points {
        let point_rows = rows_where(&rows, "points", &p.to_string());
        r.pending_plots.push(tps_plot(
            format!("key-cache-rp{p}.png"),
            format!("select_random_points --random-points={p}, MyISAM key cache preloaded"),
            &point_rows,
            |row| format!("{} {}", row.target, row.config),
        ));
    }
}
