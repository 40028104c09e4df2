//! Differential test: every statement of the corpus runs on a real MariaDB 10.11 (started
//! here with a temporary datadir) and on myriad's engine; values, column names, column
//! types and error codes must agree, except for the differences listed with their reason
//! in corpus/known_differences.txt (and docs/compatibility.md).
//!
//! Needs mariadb-server and python3-pymysql (installed by .ci/run). Set
//! MYRIAD_SKIP_MARIADB=1 to skip where they are missing; without it a missing MariaDB fails.

mod common;
mod mariadb;

use mariadb::{corpus, outcome_of, MariaDb, Outcome};

fn known_differences() -> Vec<(String, String)> {
    include_str!("corpus/known_differences.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            l.split_once('\t')
                .map(|(q, why)| (q.trim().to_string(), why.trim().to_string()))
        })
        .collect()
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Error { code } => format!("error {code}"),
        Outcome::Ok { affected } => format!("ok {affected}"),
        Outcome::Rows { names, types, rows } => {
            format!("names {names:?} types {types:?} rows {rows:?}")
        }
    }
}

fn run_corpus(name: &str, text: &str) {
    let mut maria = match MariaDb::start() {
        Ok(m) => m,
        Err(why) if std::env::var_os("MYRIAD_SKIP_MARIADB").is_some() => {
            eprintln!("skipping the MariaDB comparison: {why}");
            return;
        }
        Err(why) => {
            panic!("MariaDB is needed for this test (set MYRIAD_SKIP_MARIADB=1 to skip): {why}")
        }
    };
    let t = common::engine();
    let mut session = common::session(&t.engine);
    let known = known_differences();
    let mut unexpected = Vec::new();
    let mut listed = 0;
    let statements = corpus(text);
    for sql in &statements {
        let theirs = maria.run(sql);
        let mut results = session.execute(sql, false);
        let ours = outcome_of(&results.remove(0));
        let unordered = sql.to_ascii_uppercase().starts_with("SELECT")
            && !sql.to_ascii_uppercase().contains("ORDER BY");
        let same = match (&theirs, &ours) {
            (Outcome::Error { code: a }, Outcome::Error { code: b }) => a == b,
            (
                Outcome::Rows {
                    names: n1,
                    types: t1,
                    rows: r1,
                },
                Outcome::Rows {
                    names: n2,
                    types: t2,
                    rows: r2,
                },
            ) if unordered => {
                let (mut a, mut b) = (r1.clone(), r2.clone());
                a.sort();
                b.sort();
                n1 == n2 && t1 == t2 && a == b
            }
            _ => theirs == ours,
        };
        if same {
            continue;
        }
        if known.iter().any(|(q, _)| q == sql) {
            listed += 1;
            continue;
        }
        unexpected.push(format!(
            "{sql}\n  mariadb: {}\n  myriad:  {}",
            describe(&theirs),
            describe(&ours)
        ));
    }
    eprintln!(
        "{name}: {} statements, {} agree, {listed} known differences, {} unexpected",
        statements.len(),
        statements.len() - listed - unexpected.len(),
        unexpected.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} differences from MariaDB:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}

#[test]
fn select_without_tables_matches_mariadb() {
    run_corpus(
        "select_no_tables",
        include_str!("corpus/select_no_tables.sql"),
    );
}

#[test]
fn tables_match_mariadb() {
    run_corpus("tables", include_str!("corpus/tables.sql"));
}
