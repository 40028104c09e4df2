//! What privilege checks cost: sysbench oltp_point_select as root (every privilege: the
//! checks are skipped) and as an account holding only `SELECT` on the sysbench table (every
//! statement checked against its table grant), on the same server, cells alternated.

use super::{
    ok_rows, param_text, ratio_text, run_sysbench_plan, settings_with, table, Engine, Runner,
    SysbenchCell, SysbenchPlan,
};
use crate::report::{format_number, Row};
use crate::server::Target;

const TEST: &str = "oltp_point_select";
/// The account the second cell of each pair connects as.
const ACCOUNT: &str = "granted";
const PASSWORD: &str = "granted-pw";
const ACCOUNTS: &[&str] = &["root", ACCOUNT];

pub fn run(r: &mut Runner) {
    let threads = r.threads(&[1, 16], &[1, 4]);
    let rows = r.pick(r.opts.rows, 100_000, 10_000);
    let time_s = r.pick(r.opts.time_s, 10, 3);
    let mut cells = Vec::new();
    for &t in &threads {
        for account in ACCOUNTS {
            let extra = match *account {
                "root" => vec![],
                _ => vec![
                    format!("--mysql-user={ACCOUNT}"),
                    format!("--mysql-password={PASSWORD}"),
                ],
            };
            cells.push(SysbenchCell {
                test: TEST.to_string(),
                extra,
                threads: t,
                tables: None,
                params: vec![("account".into(), (*account).into())],
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
        // A table-level grant: the narrowest an account can hold and still run the test.
        after_start: vec![
            format!("CREATE USER IF NOT EXISTS '{ACCOUNT}'@'%' IDENTIFIED BY '{PASSWORD}'"),
            format!("GRANT SELECT ON sbtest.sbtest1 TO '{ACCOUNT}'@'%'"),
        ],
        warmup_s: if r.opts.quick { 0 } else { 5 },
    };
    run_sysbench_plan(r, &plan);

    let owned: Vec<Row> = ok_rows(&r.record).cloned().collect();
    let mut summary = Vec::new();
    for target in [Target::Myriad, Target::Mariadb] {
        for &t in &threads {
            let tps = |account: &str| {
                owned
                    .iter()
                    .find(|row| {
                        row.target == target.name()
                            && param_text(row, "account") == account
                            && param_text(row, "threads") == t.to_string()
                    })
                    .and_then(|row| row.get_metric("tps"))
            };
            let (root, granted) = (tps("root"), tps(ACCOUNT));
            if root.is_none() && granted.is_none() {
                continue;
            }
            summary.push(vec![
                target.name().to_string(),
                t.to_string(),
                root.map_or("-".into(), format_number),
                granted.map_or("-".into(), format_number),
                match (granted, root) {
                    (Some(a), Some(b)) => ratio_text(a, b),
                    _ => "-".into(),
                },
            ]);
        }
    }
    r.record.tables.push(table(
        "oltp_point_select TPS as root and as an account with a table grant",
        &["target", "threads", "root", ACCOUNT, "granted/root"],
        summary,
    ));
}
