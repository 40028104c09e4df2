//! Seed 004: LOCK_open and table cache instances. sysbench oltp_read_only and
//! oltp_point_select on 1 and 2 tables at 1, 16 and 64 threads, with
//! table_open_cache_instances 1 against 16, and the table cache counters (hits, misses,
//! overflows) of each cell. MySQL 5.6 measured +70% from instances, more with 2 tables.
//! The two configurations run on servers side by side (one datadir each), alternating cell by
//! cell, so that with `--repeat N` each repetition gives a pair of samples seconds apart: the
//! paired changes decide "at most 3 % at 1 thread" where single samples drift by more.

use super::{
    gain_text, ok_rows, paired_ratios, paired_text, param_text, run_sysbench_plan_side_by_side,
    settings_with, table, tps_plot_per_test, Engine, Runner, SysbenchCell, SysbenchPlan,
};
use crate::report::{format_number, Row};

const INSTANCES: &[u32] = &[1, 16];
const TESTS: &[&str] = &["oltp_read_only", "oltp_point_select"];
const TABLE_COUNTS: &[u32] = &[1, 2];

pub fn run(r: &mut Runner) {
    let threads = r.threads(&[1, 16, 64], &[1, 16]);
    let rows = r.pick(r.opts.rows, 100_000, 10_000);
    let time_s = r.pick(r.opts.time_s, 20, 2);
    let mut cells = Vec::new();
    for test in TESTS {
        for &tables in TABLE_COUNTS {
            for &t in &threads {
                cells.push(SysbenchCell {
                    test: test.to_string(),
                    extra: vec![],
                    threads: t,
                    tables: Some(tables),
                    params: vec![
                        ("test".into(), (*test).into()),
                        ("tables".into(), tables.into()),
                    ],
                });
            }
        }
    }
    let plan = SysbenchPlan {
        engine: Engine::Innodb,
        tables: 2,
        table_size: rows,
        extra: vec![],
        configs: INSTANCES
            .iter()
            .map(|n| {
                (
                    format!("instances={n}"),
                    settings_with(&[
                        ("table_open_cache", "2000".to_string()),
                        ("table_open_cache_instances", n.to_string()),
                    ]),
                )
            })
            .collect(),
        cells,
        time_s,
        after_start: vec![],
        warmup_s: if r.opts.quick { 0 } else { 5 },
    };
    run_sysbench_plan_side_by_side(r, &plan);

    for row in r.record.rows.iter_mut().filter(|r| r.error.is_none()) {
        for (counter, metric) in [
            ("Table_open_cache_hits", "toc_hits"),
            ("Table_open_cache_misses", "toc_misses"),
            ("Table_open_cache_overflows", "toc_overflows"),
        ] {
            let value = *row.status_delta.get(counter).unwrap_or(&0) as f64;
            row.metric(metric, value);
        }
    }

    let owned_rows: Vec<Row> = ok_rows(&r.record).cloned().collect();
    let rows: Vec<&Row> = owned_rows.iter().collect();
    let mut summary = Vec::new();
    for target in &r.opts.targets {
        for test in TESTS {
            for &tables in TABLE_COUNTS {
                for &t in &threads {
                    let find = |n: u32| {
                        rows.iter().copied().find(|row| {
                            row.target == target.name()
                                && row.config == format!("instances={n}")
                                && param_text(row, "test") == *test
                                && param_text(row, "tables") == tables.to_string()
                                && param_text(row, "threads") == t.to_string()
                        })
                    };
                    let (Some(one), Some(sixteen)) = (find(1), find(16)) else {
                        continue;
                    };
                    let (Some(one_tps), Some(sixteen_tps)) =
                        (one.get_metric("tps"), sixteen.get_metric("tps"))
                    else {
                        continue;
                    };
                    summary.push(vec![
                        target.name().to_string(),
                        test.to_string(),
                        tables.to_string(),
                        t.to_string(),
                        format_number(one_tps),
                        format_number(sixteen_tps),
                        gain_text(sixteen_tps, one_tps),
                        paired_text(&paired_ratios(sixteen, one, "tps")),
                        paired_text(&paired_ratios(sixteen, one, "server_cpu_us_per_txn")),
                    ]);
                }
            }
        }
    }
    r.record.tables.push(table(
        "TPS with table_open_cache_instances 1 and 16 (gain of 16 over 1; paired: 16 over 1 \
         within each repetition, median and range, for TPS and for server CPU per transaction)",
        &[
            "target",
            "test",
            "tables",
            "threads",
            "instances=1",
            "instances=16",
            "gain",
            "paired TPS change",
            "paired server CPU change",
        ],
        summary,
    ));
    let title = |test: &str| format!("sysbench {test}: table_open_cache_instances 1 vs 16");
    let key = |row: &Row| {
        let tables = param_text(row, "tables");
        format!("{} {} tables={tables}", row.target, row.config)
    };
    tps_plot_per_test(r, &rows, TESTS, "table-cache-instances", title, key);
}
