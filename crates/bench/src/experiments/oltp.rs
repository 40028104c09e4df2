//! The general speed comparison: sysbench oltp_point_select, oltp_read_only,
//! oltp_read_write and oltp_write_only across thread counts, same data, same settings,
//! same client.

use super::{
    ok_rows, param_text, ratio_text, run_sysbench_plan, settings_with, table, tps_plot_per_test,
    Engine, Runner, SysbenchCell, SysbenchPlan,
};
use crate::report::{format_number, Row};
use crate::server::Target;

const TESTS: &[&str] = &[
    "oltp_point_select",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_write_only",
];

pub fn run(r: &mut Runner) {
    let threads = r.threads(&[1, 4, 16, 64], &[1, 4]);
    let rows = r.pick(r.opts.rows, 1_000_000, 10_000);
    let time_s = r.pick(r.opts.time_s, 30, 3);
    let mut cells = Vec::new();
    for test in TESTS {
        for &t in &threads {
            cells.push(SysbenchCell {
                test: test.to_string(),
                extra: vec![],
                threads: t,
                tables: None,
                params: vec![("test".into(), (*test).into())],
            });
        }
    }
    let plan = SysbenchPlan {
        engine: Engine::Innodb,
        tables: 1,
        table_size: rows,
        extra: vec![],
        configs: vec![("default".to_string(), settings_with(&[]))],
        cells,
        time_s,
        after_start: vec![],
        warmup_s: if r.opts.quick { 0 } else { 5 },
    };
    run_sysbench_plan(r, &plan);

    let owned_rows: Vec<Row> = ok_rows(&r.record).cloned().collect();
    let rows: Vec<&Row> = owned_rows.iter().collect();
    let mut summary = Vec::new();
    for test in TESTS {
        for &t in &threads {
            let tps = |target: Target| {
                rows.iter()
                    .find(|row| {
                        row.target == target.name()
                            && param_text(row, "test") == *test
                            && param_text(row, "threads") == t.to_string()
                    })
                    .and_then(|row| row.get_metric("tps"))
            };
            let (maria, myriad) = (tps(Target::Mariadb), tps(Target::Myriad));
            if maria.is_none() && myriad.is_none() {
                continue;
            }
            summary.push(vec![
                test.to_string(),
                t.to_string(),
                maria.map_or("-".into(), format_number),
                myriad.map_or("-".into(), format_number),
                match (myriad, maria) {
                    (Some(a), Some(b)) => ratio_text(a, b),
                    _ => "-".into(),
                },
            ]);
        }
    }
    r.record.tables.push(table(
        "TPS by test and threads (myriad / MariaDB)",
        &["test", "threads", "mariadb", "myriad", "myriad/mariadb"],
        summary,
    ));
    let title = |test: &str| format!("sysbench {test}");
    tps_plot_per_test(r, &rows, TESTS, "oltp", title, |row| row.target.clone());
}
