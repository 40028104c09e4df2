//! SELECT DISTINCT streamed to a row sink: the first row met of each value goes out in
//! the order met, within tmp_table_size and past it alike, the same rows a built result
//! holds; and a LIMIT ends the read, so rows after it are never evaluated.

mod common;

use myriad_sql::{Column, QueryResult, RowSink, Session, SqlError, Value};
use std::sync::Arc;

/// A sink that keeps the rows it is handed, as text.
#[derive(Default)]
struct Collect {
    rows: Vec<Vec<Option<String>>>,
}

impl RowSink for Collect {
    fn begin(&mut self, _: &Arc<Vec<Column>>) -> Result<(), SqlError> {
        Ok(())
    }
    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        self.rows.push(row.iter().map(common::text).collect());
        Ok(())
    }
}

/// The rows `sql` streams to a sink, or its error code.
fn streamed(s: &mut Session, sql: &str) -> Result<Vec<Vec<Option<String>>>, u16> {
    let mut sink = Collect::default();
    let mut results = s.execute_streaming(sql, false, &mut sink);
    match results.remove(0) {
        Ok(QueryResult::Rows { rows, .. }) => {
            assert!(rows.was_streamed(), "{sql} streams");
            Ok(sink.rows)
        }
        Ok(other) => panic!("{sql}: rows expected, got {other:?}"),
        Err(e) => Err(e.code),
    }
}

/// The rows of `sql` built into its result.
fn built(s: &mut Session, sql: &str) -> Vec<Vec<Option<String>>> {
    match common::one(s, sql) {
        Ok(QueryResult::Rows { rows, .. }) => rows
            .iter()
            .map(|r| r.iter().map(common::text).collect())
            .collect(),
        other => panic!("{sql}: rows expected, got {other:?}"),
    }
}

fn setup(s: &mut Session) {
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (id INT PRIMARY KEY, k INT, w VARCHAR(20))",
    ] {
        common::one(s, sql).unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    }
    let words = ["alpha", "Alpha ", "BETA", "beta", "gamma", "GAMMA  "];
    let rows: Vec<String> = (1..=600)
        .map(|i| {
            // k is 2 only in the last row: k * i64::MAX overflows there alone.
            let k = if i == 600 { 2 } else { 1 };
            format!("({i}, {k}, '{}{}')", i % 97, words[i % words.len()])
        })
        .collect();
    common::one(s, &format!("INSERT INTO t VALUES {}", rows.join(","))).expect("insert");
}

/// The first `w` of each value under the general collation (case and trailing spaces
/// ignored), in id order: the reference model.
fn first_of_each_w() -> Vec<Vec<Option<String>>> {
    let words = ["alpha", "Alpha ", "BETA", "beta", "gamma", "GAMMA  "];
    let mut seen = std::collections::HashSet::new();
    let mut kept = Vec::new();
    for i in 1..=600usize {
        let w = format!("{}{}", i % 97, words[i % words.len()]);
        if seen.insert(w.trim_end().to_lowercase()) {
            kept.push(vec![Some(w)]);
        }
    }
    kept
}

/// The session's Created_tmp_disk_tables.
fn disk_tables(s: &mut Session) -> u64 {
    let rows = common::rows(s, "SHOW SESSION STATUS LIKE 'Created_tmp_disk_tables'");
    rows[0][1].parse().expect("a count")
}

#[test]
fn streamed_rows_are_the_first_met_of_each_value_within_and_past_the_budget() {
    let (_t, mut s) = common::engine_and_session();
    setup(&mut s);
    let expected = first_of_each_w();
    assert!(expected.len() > 200, "enough values to pass a 1 KiB budget");
    let sql = "SELECT DISTINCT w FROM t";
    assert_eq!(streamed(&mut s, sql).unwrap(), expected);
    assert_eq!(built(&mut s, sql), expected);
    common::one(&mut s, "SET SESSION tmp_table_size = 1024").expect("set");
    let before = disk_tables(&mut s);
    assert_eq!(streamed(&mut s, sql).unwrap(), expected);
    assert_eq!(disk_tables(&mut s), before + 1, "the DISTINCT went to disk");
    assert_eq!(built(&mut s, sql), expected);
    let page = streamed(&mut s, "SELECT DISTINCT w FROM t LIMIT 150, 40").unwrap();
    assert_eq!(page, expected[150..190].to_vec());
}

#[test]
fn a_streamed_distinct_stops_reading_at_its_limit() {
    let (_t, mut s) = common::engine_and_session();
    setup(&mut s);
    // The last row's value overflows BIGINT (error 1690): reading it fails the statement.
    let overflow = "SELECT DISTINCT k * 9223372036854775807 FROM t";
    assert_eq!(streamed(&mut s, overflow), Err(1690));
    let first = streamed(&mut s, &format!("{overflow} LIMIT 1")).unwrap();
    assert_eq!(first, vec![vec![Some("9223372036854775807".to_string())]]);
}
