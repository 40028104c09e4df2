//! The streamed read path of single-table SELECTs (projection into the row decoder, LIMIT
//! pushed into the scan, hashed DISTINCT, aggregates over index ranges): every query runs
//! on a table with indexes (the index paths) and on a copy without any (the full scan), and
//! the answers must agree; a few answers are also checked by value.

mod common;
use common::*;
use myriad_sql::Session;

fn setup() -> (TestEngine, myriad_sql::Session) {
    let t = engine();
    let mut s = session(&t.engine);
    exec_ok(&mut s, "CREATE DATABASE r");
    exec_ok(&mut s, "USE r");
    exec_ok(
        &mut s,
        "CREATE TABLE t (id INT NOT NULL, k INT, c CHAR(20), pad VARCHAR(30) NOT NULL DEFAULT '', \
         PRIMARY KEY (id), KEY k_1 (k))",
    );
    exec_ok(
        &mut s,
        "CREATE TABLE plain (id INT NOT NULL, k INT, c CHAR(20), pad VARCHAR(30) NOT NULL DEFAULT '')",
    );
    let mut values = Vec::new();
    for id in 1..=200 {
        // k repeats (secondary-index duplicates) and is NULL now and then; c repeats in
        // different cases and with trailing spaces (equal under the collation).
        let k = if id % 17 == 0 {
            "NULL".to_string()
        } else {
            (id % 23).to_string()
        };
        let c = match id % 7 {
            0 => "NULL".to_string(),
            1 => format!("'Val-{}'", id % 5),
            2 => format!("'val-{}  '", id % 5),
            _ => format!("'c{:03}'", id % 40),
        };
        values.push(format!("({id}, {k}, {c}, 'pad{id}')"));
    }
    let rows = values.join(", ");
    exec_ok(&mut s, &format!("INSERT INTO t VALUES {rows}"));
    exec_ok(&mut s, &format!("INSERT INTO plain VALUES {rows}"));
    (t, s)
}

/// The query's rows on the indexed table and on the plain one. `ordered`: the query's
/// ORDER BY decides the order completely; otherwise the rows are compared as multisets.
fn same_answer(s: &mut myriad_sql::Session, query: &str, ordered: bool) -> Vec<Vec<String>> {
    let mut indexed = rows(s, &query.replace("{t}", "t"));
    let mut scanned = rows(s, &query.replace("{t}", "plain"));
    if !ordered {
        indexed.sort();
        scanned.sort();
    }
    assert_eq!(indexed, scanned, "{query}");
    indexed
}

#[test]
fn ranges_orders_distinct_and_aggregates_agree_with_a_full_scan() {
    let (_t, mut s) = setup();
    for (lo, hi) in [
        (1, 100),
        (50, 149),
        (150, 400),
        (300, 400),
        (10, 9),
        (-5, 3),
    ] {
        let between = format!("id BETWEEN {lo} AND {hi}");
        same_answer(
            &mut s,
            &format!("SELECT c FROM {{t}} WHERE {between}"),
            false,
        );
        same_answer(
            &mut s,
            &format!("SELECT SUM(k), COUNT(*), COUNT(k), MIN(c), MAX(k), AVG(k) FROM {{t}} WHERE {between}"),
            true,
        );
        same_answer(
            &mut s,
            &format!("SELECT c, id FROM {{t}} WHERE {between} ORDER BY c, id"),
            true,
        );
        same_answer(
            &mut s,
            &format!("SELECT DISTINCT c FROM {{t}} WHERE {between} ORDER BY c"),
            false,
        );
        same_answer(
            &mut s,
            &format!("SELECT DISTINCT k FROM {{t}} WHERE {between}"),
            false,
        );
        same_answer(
            &mut s,
            &format!("SELECT id, pad FROM {{t}} WHERE {between} ORDER BY id DESC LIMIT 7 OFFSET 3"),
            true,
        );
        same_answer(
            &mut s,
            &format!(
                "SELECT k, COUNT(*) FROM {{t}} WHERE {between} GROUP BY k HAVING COUNT(*) > 1"
            ),
            false,
        );
    }
    // Secondary-index equality, IN lists and ranges, with duplicates and NULLs.
    for query in [
        "SELECT id, c FROM {t} WHERE k = 5",
        "SELECT id FROM {t} WHERE k IN (1, 5, 5, 22, NULL)",
        // IN lists the index answers alone (integers), and ones it only narrows (a string,
        // a decimal, values out of the column's range, a second condition).
        "SELECT id, k FROM {t} WHERE k IN (22, 1, 9, 1)",
        "SELECT id FROM {t} WHERE k IN (22, '5', 2.0, ' 7')",
        "SELECT id FROM {t} WHERE k IN (7, -3, 3000000000, 18446744073709551615)",
        "SELECT id FROM {t} WHERE k IN (3, 4) AND id > 100",
        "SELECT k, COUNT(*) FROM {t} WHERE k IN (NULL, 3, 4) GROUP BY k",
        "SELECT id, k FROM {t} WHERE k BETWEEN 3 AND 6",
        "SELECT id FROM {t} WHERE k > 20 OR k < 2",
        "SELECT id FROM {t} WHERE k IS NULL",
        "SELECT id FROM {t} WHERE k = NULL",
        "SELECT SUM(id) FROM {t} WHERE k BETWEEN NULL AND 5",
        "SELECT id FROM {t} WHERE k BETWEEN 2 AND 4 OR k BETWEEN 3 AND 8",
        "SELECT id FROM {t} WHERE id IN (5, 3, 1000) AND c IS NOT NULL",
        "SELECT COUNT(*) FROM {t} WHERE id > 190 AND pad LIKE 'pad19%'",
        "SELECT UPPER(c), id + k FROM {t} WHERE id BETWEEN 20 AND 30 AND k <> 3",
    ] {
        same_answer(&mut s, query, false);
    }
}

#[test]
fn limit_stops_the_scan_at_the_right_rows() {
    let (_t, mut s) = setup();
    // Without ORDER BY, the indexed table returns rows in key order: the first ones.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE id BETWEEN 10 AND 100 LIMIT 3"
        ),
        vec![vec!["10"], vec!["11"], vec!["12"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE id >= 10 LIMIT 2, 2"),
        vec![vec!["12"], vec!["13"]]
    );
    // The filter applies before the limit counts a row.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE id BETWEEN 1 AND 50 AND k = 5 LIMIT 5"
        ),
        vec![vec!["5"], vec!["28"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE k IN (4, 2) LIMIT 3"),
        vec![vec!["2"], vec!["25"], vec!["48"]]
    );
    assert!(rows(&mut s, "SELECT id FROM t WHERE id > 0 LIMIT 0").is_empty());
    assert!(rows(&mut s, "SELECT id FROM t WHERE id > 195 LIMIT 10 OFFSET 10").is_empty());
    // A limit over a full scan.
    assert_eq!(rows(&mut s, "SELECT id FROM plain LIMIT 2").len(), 2);
    // DISTINCT, ORDER BY and GROUP BY see every row before the limit applies.
    assert_eq!(
        rows(
            &mut s,
            "SELECT DISTINCT k FROM t WHERE id BETWEEN 1 AND 46 LIMIT 30"
        )
        .len(),
        24
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE id BETWEEN 1 AND 100 ORDER BY id DESC LIMIT 2"
        ),
        vec![vec!["100"], vec!["99"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM t WHERE id BETWEEN 1 AND 100 LIMIT 1"
        ),
        vec![vec!["100"]]
    );
}

#[test]
fn projected_rows_still_answer_every_clause() {
    let (_t, mut s) = setup();
    // sysbench's read-only range queries, by value.
    assert_eq!(
        rows(&mut s, "SELECT SUM(k) FROM t WHERE id BETWEEN 1 AND 10"),
        vec![vec!["55"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT DISTINCT c FROM t WHERE id BETWEEN 1 AND 9 ORDER BY c"
        ),
        vec![
            vec!["NULL"],
            vec!["c003"],
            vec!["c004"],
            vec!["c005"],
            vec!["c006"],
            vec!["Val-1"],
            vec!["val-2"],
            vec!["Val-3"],
            vec!["val-4"],
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT c FROM t WHERE id BETWEEN 3 AND 5 ORDER BY c DESC"
        ),
        vec![vec!["c005"], vec!["c004"], vec!["c003"]]
    );
    // A column read only by ORDER BY, HAVING or the filter is decoded all the same.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE id BETWEEN 1 AND 4 ORDER BY pad DESC"
        ),
        vec![vec!["4"], vec!["3"], vec!["2"], vec!["1"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT k FROM t WHERE id BETWEEN 1 AND 40 GROUP BY k HAVING MAX(pad) = 'pad9'"
        ),
        vec![vec!["9"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE pad = 'pad7'"),
        vec![vec!["7"]]
    );
    // Keys of mixed kinds sort as text (they used to break the sort's total order).
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE id BETWEEN 3 AND 12 ORDER BY CASE WHEN id > 9 THEN id ELSE c END LIMIT 4"
        ),
        vec![vec!["7"], vec!["10"], vec!["11"], vec!["12"]]
    );
    // A subquery may read any column: the row is decoded whole.
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM t WHERE id IN (SELECT id FROM plain WHERE pad = 'pad8')"
        ),
        vec![vec!["8"]]
    );
}

#[test]
fn integer_ranges_answered_by_the_index_alone_match_a_full_scan() {
    let (_t, mut s) = setup();
    exec_ok(
        &mut s,
        "CREATE TABLE u (id BIGINT UNSIGNED NOT NULL, k SMALLINT, PRIMARY KEY (id), KEY k_1 (k))",
    );
    exec_ok(
        &mut s,
        "CREATE TABLE uplain (id BIGINT UNSIGNED NOT NULL, k SMALLINT)",
    );
    let rows_text = "(0, -3), (1, NULL), (2, 2), (9223372036854775807, 7), \
                     (9223372036854775808, -32768), (18446744073709551615, 32767)";
    exec_ok(&mut s, &format!("INSERT INTO u VALUES {rows_text}"));
    exec_ok(&mut s, &format!("INSERT INTO uplain VALUES {rows_text}"));
    for range in [
        "id BETWEEN 0 AND 2",
        "id BETWEEN -5 AND 1",
        "id BETWEEN 2 AND 0",
        "id BETWEEN 9223372036854775807 AND 18446744073709551615",
        "id BETWEEN 1 AND 9223372036854775808",
        "id BETWEEN '1' AND '2'",
        "id BETWEEN 0.5 AND 2.5",
        "id BETWEEN NULL AND 3",
        "k BETWEEN -32768 AND 2",
        "k BETWEEN -3 AND -3",
        "k BETWEEN 3 AND 32767",
        "k BETWEEN 1.5 AND 7",
    ] {
        assert_same_rows(
            &mut s,
            &format!("SELECT id, k FROM u WHERE {range} ORDER BY id"),
            &format!("SELECT id, k FROM uplain WHERE {range} ORDER BY id"),
            range,
        );
    }
    assert_eq!(
        rows(&mut s, "SELECT id FROM u WHERE id BETWEEN -5 AND 1"),
        vec![vec!["0"], vec!["1"]]
    );
    // Keys outside the column's domain find nothing instead of failing.
    assert!(rows(&mut s, "SELECT id FROM u WHERE id = -1").is_empty());
    assert_eq!(
        rows(&mut s, "SELECT id FROM u WHERE id IN (-1, 2)"),
        vec![vec!["2"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM t WHERE id BETWEEN 10 AND 19"),
        vec![vec!["10"]]
    );
}

#[test]
fn index_reads_are_told_apart_for_inline_execution() {
    let (_t, mut s) = setup();
    let index_read = |sql: &str| {
        let info = s.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e:?}"));
        s.prepared_is_index_read(info.statement_id)
    };
    assert_tells_apart(
        index_read,
        &[
            "SELECT c FROM t WHERE id = ?",
            "SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
            "SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?",
            "SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
            "SELECT id, k FROM t WHERE k IN (?, ?, ?)",
            "SELECT * FROM t WHERE id = ?",
        ],
        &[
            "SELECT c FROM plain WHERE id = ?",
            "SELECT c FROM t WHERE pad = ?",
            "SELECT c FROM t WHERE id IN (SELECT id FROM plain WHERE k = ?)",
            "SELECT t.c FROM t JOIN plain ON plain.id = t.id WHERE t.id = ?",
            "UPDATE t SET k = k + 1 WHERE id = ?",
            "DELETE FROM t WHERE id = ?",
            "SELECT ?",
        ],
    );
    assert!(!s.prepared_is_index_read(9999));
}

#[test]
fn transaction_boundaries_are_told_apart_for_inline_execution() {
    assert_tells_apart(
        Session::text_is_transaction_boundary,
        &[
            "BEGIN",
            "begin;",
            " COMMIT ",
            "Rollback",
            "START TRANSACTION",
            "commit ;",
        ],
        &[
            "BEGIN WORK",
            "COMMIT AND CHAIN",
            "SELECT 1",
            "BEGIN; SELECT SLEEP(1)",
            "ROLLBACK TO SAVEPOINT a",
            "",
        ],
    );
}
