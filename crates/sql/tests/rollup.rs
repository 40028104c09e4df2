//! GROUP BY ... WITH ROLLUP past its sort budget: the rows go through a sort that spills
//! to temporary files, and the result is the same as within the budget and as a model
//! computed here, super rows included.

mod common;

use myriad_sql::Session;
use std::collections::BTreeMap;

const ROWS: i64 = 3000;

fn setup(s: &mut Session) {
    common::exec_all(
        s,
        &[
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, w VARCHAR(40))",
        ],
    );
    let rows: Vec<String> = (1..=ROWS)
        .map(|i| format!("({i}, {}, {}, 'padding text {i}')", i % 7, i % 11))
        .collect();
    common::exec_ok(s, &format!("INSERT INTO t VALUES {}", rows.join(",")));
}

/// The expected rows of `SELECT a, b, COUNT(*), SUM(id) ... GROUP BY a, b WITH ROLLUP`.
fn model() -> Vec<Vec<String>> {
    let mut groups: BTreeMap<(i64, i64), (i64, i64)> = BTreeMap::new();
    for i in 1..=ROWS {
        let e = groups.entry((i % 7, i % 11)).or_default();
        e.0 += 1;
        e.1 += i;
    }
    let mut out = Vec::new();
    let mut total = (0, 0);
    for a in 0..7 {
        let mut sub = (0, 0);
        for b in 0..11 {
            let (n, sum) = groups[&(a, b)];
            out.push(vec![
                a.to_string(),
                b.to_string(),
                n.to_string(),
                sum.to_string(),
            ]);
            sub = (sub.0 + n, sub.1 + sum);
        }
        out.push(vec![
            a.to_string(),
            "NULL".into(),
            sub.0.to_string(),
            sub.1.to_string(),
        ]);
        total = (total.0 + sub.0, total.1 + sub.1);
    }
    out.push(vec![
        "NULL".into(),
        "NULL".into(),
        total.0.to_string(),
        total.1.to_string(),
    ]);
    out
}

fn tmp_files(s: &mut Session) -> u64 {
    let rows = common::rows(s, "SHOW SESSION STATUS LIKE 'Created_tmp_files'");
    rows[0][1].parse().expect("a count")
}

#[test]
fn rollup_past_the_sort_budget_spills_and_answers_the_same() {
    let (_t, mut s) = common::engine_and_session();
    setup(&mut s);
    let sql = "SELECT a, b, COUNT(*), SUM(id) FROM t GROUP BY a, b WITH ROLLUP";
    let expected = model();
    common::exec_ok(&mut s, "SET SESSION sort_buffer_size = 16777216");
    let before = tmp_files(&mut s);
    assert_eq!(common::rows(&mut s, sql), expected);
    assert_eq!(
        tmp_files(&mut s),
        before,
        "within the budget nothing is written"
    );
    common::exec_ok(&mut s, "SET SESSION sort_buffer_size = 32768");
    let before = tmp_files(&mut s);
    assert_eq!(common::rows(&mut s, sql), expected);
    assert!(tmp_files(&mut s) > before, "the rollup's sort went to disk");
    let limited = format!("{sql} LIMIT 10, 5");
    assert_eq!(common::rows(&mut s, &limited), expected[10..15].to_vec());
}

/// Window functions over a grouping WITH ROLLUP are not built: 1235, and the session goes
/// on (they once panicked on the super rows' shorter input).
#[test]
fn window_functions_with_rollup_are_refused() {
    let (_t, mut s) = common::engine_and_session();
    common::exec_all(
        &mut s,
        &[
            "CREATE DATABASE w",
            "USE w",
            "CREATE TABLE t (a INT, b INT)",
            "INSERT INTO t VALUES (1, 2), (3, 4)",
        ],
    );
    for sql in [
        "SELECT a, ROW_NUMBER() OVER () FROM t GROUP BY a WITH ROLLUP",
        "SELECT SUM(b) OVER (PARTITION BY a) FROM t GROUP BY LEFT(SYSDATE(), 'foo') WITH ROLLUP",
    ] {
        assert_eq!(common::error_code(&mut s, sql), 1235, "{sql}");
    }
    assert_eq!(
        common::rows(&mut s, "SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP").len(),
        3
    );
}
