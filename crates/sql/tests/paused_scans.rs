//! A streamed scan that pauses when its sink asks ([`RowSink::row_or_pause`]) and goes on
//! in `Session::resume_rows`: the rows after every pause are the rows the statement gives
//! without pausing, once each and in order, with the statement's clock, warnings, KILL
//! and max_statement_time carried over; a long scan also stops after each slice of its
//! running time; statements that are not plain scans never pause.

mod common;
use common::*;
use myriad_sql::interrupt::KillTarget;
use myriad_sql::{Column, QueryResult, RowSink, Session, SqlError, Value};
use std::sync::Arc;

/// Rows of table `t`.
const ROWS: usize = 500;

/// A sink that asks for a pause after every `every` rows, as a client that reads slowly.
struct Pausing {
    every: usize,
    rows: Vec<Vec<String>>,
}

impl RowSink for Pausing {
    fn begin(&mut self, _columns: &Arc<Vec<Column>>) -> Result<(), SqlError> {
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        let shown = row
            .iter()
            .map(|v| text(v).unwrap_or_else(|| "NULL".into()))
            .collect();
        self.rows.push(shown);
        Ok(())
    }

    fn row_or_pause(&mut self, row: &[Value]) -> Result<bool, SqlError> {
        self.row(row)?;
        Ok(self.rows.len().is_multiple_of(self.every))
    }

    fn can_pause(&self) -> bool {
        true
    }
}

/// What a run through [`Pausing`] gave: the rows, the pauses, the final result.
struct Run {
    rows: Vec<Vec<String>>,
    pauses: usize,
    result: Result<QueryResult, SqlError>,
}

/// Run `sql` through a [`Pausing`] sink, calling `between` at each pause, resuming until
/// the statement ends.
fn run_pausing(s: &mut Session, sql: &str, every: usize, mut between: impl FnMut(&Session)) -> Run {
    let mut sink = Pausing {
        every,
        rows: Vec::new(),
    };
    let mut results = s.execute_streaming(sql, false, &mut sink);
    assert_eq!(results.len(), 1, "one result for {sql}");
    let mut result = results.remove(0);
    let mut pauses = 0;
    while s.has_paused_rows() {
        pauses += 1;
        between(s);
        if let Some(ended) = s.resume_rows(&mut sink) {
            result = ended;
        }
    }
    Run {
        rows: sink.rows,
        pauses,
        result,
    }
}

fn setup() -> (TestEngine, Session) {
    let (t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE t (id INT PRIMARY KEY, k INT, name VARCHAR(20))",
            "CREATE TABLE u (k INT PRIMARY KEY, label VARCHAR(10))",
            "INSERT INTO u VALUES (1, 'one'), (2, 'two'), (3, 'three')",
        ],
    );
    let values: Vec<String> = (1..=ROWS)
        .map(|i| format!("({i}, {}, 'n{i}')", i % 7))
        .collect();
    exec_ok(
        &mut s,
        &format!("INSERT INTO t VALUES {}", values.join(", ")),
    );
    (t, s)
}

#[test]
fn a_paused_scan_gives_the_rows_it_gives_without_pausing() {
    let (_t, mut s) = setup();
    for sql in [
        "SELECT * FROM t",
        "SELECT id, name FROM t WHERE k = 3",
        "SELECT id, k + 1, CONCAT(name, '!') FROM t WHERE k > 1 LIMIT 120",
        "SELECT id FROM t LIMIT 50 OFFSET 333",
        "SELECT name FROM t WHERE k = 3 LIMIT 7, 40",
    ] {
        let whole = rows(&mut s, sql);
        for every in [1, 3, 16] {
            let run = run_pausing(&mut s, sql, every, |_| {});
            assert!(run.result.is_ok(), "{sql}: {:?}", run.result.err());
            assert_eq!(run.rows, whole, "{sql}, a pause every {every} rows");
            assert!(
                run.pauses >= whole.len().saturating_sub(1) / every,
                "{sql}: {} pauses for {} rows, one every {every}",
                run.pauses,
                whole.len()
            );
        }
    }
}

#[test]
fn statements_that_are_not_plain_scans_do_not_pause() {
    let (_t, mut s) = setup();
    for sql in [
        "SELECT id FROM t ORDER BY name DESC",
        "SELECT k, COUNT(*) FROM t GROUP BY k",
        "SELECT t.id, u.label FROM t JOIN u ON u.k = t.k",
        "SELECT id FROM t WHERE k IN (SELECT k FROM u WHERE label <> 'two')",
        "SELECT id, (SELECT label FROM u WHERE u.k = 1) FROM t",
        "SELECT id FROM t WHERE id BETWEEN 10 AND 90",
    ] {
        let whole = rows(&mut s, sql);
        let run = run_pausing(&mut s, sql, 1, |_| {});
        assert_eq!(run.pauses, 0, "{sql} paused");
        assert_eq!(run.rows, whole, "{sql}");
    }
}

#[test]
fn the_clock_and_the_warnings_of_a_statement_go_on_across_pauses() {
    let (_t, mut s) = setup();
    let run = run_pausing(
        &mut s,
        "SELECT id, NOW(), SYSDATE() FROM t LIMIT 40",
        10,
        |_| std::thread::sleep(std::time::Duration::from_millis(400)),
    );
    assert_eq!(run.pauses, 3);
    // 1.2 s of pauses: the clock moved (SYSDATE), the statement's time did not (NOW).
    let now: Vec<&String> = run.rows.iter().map(|r| &r[1]).collect();
    assert!(now.iter().all(|n| *n == now[0]), "NOW() changed: {now:?}");
    assert_ne!(run.rows[0][2], run.rows[39][2], "SYSDATE() reads the clock");

    // One truncation warning per row, before and after each pause.
    let sql = "SELECT CAST(name AS SIGNED) FROM t WHERE id <= 30";
    let whole = one(&mut s, sql).unwrap();
    let QueryResult::Rows { warnings, .. } = whole else {
        panic!("rows")
    };
    assert_eq!(warnings, 30);
    let run = run_pausing(&mut s, sql, 4, |_| {});
    match run.result {
        Ok(QueryResult::Rows { warnings, .. }) => assert_eq!(warnings, 30),
        other => panic!("{other:?}"),
    }
    assert_eq!(rows(&mut s, "SHOW WARNINGS").len(), 30);
}

#[test]
fn kill_query_and_max_statement_time_end_a_paused_scan_with_their_errors() {
    let (_t, mut s) = setup();
    let run = run_pausing(&mut s, "SELECT * FROM t", 10, |s| {
        s.interrupt().kill(KillTarget::Query);
        assert!(s.paused_rows_must_stop());
    });
    assert_eq!(run.pauses, 1);
    assert_eq!(run.result.err().map(|e| e.code), Some(1317));
    assert_eq!(run.rows.len(), 10, "no row after the KILL");
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM t"), ROWS.to_string());

    exec_ok(&mut s, "SET SESSION max_statement_time = 0.05");
    let run = run_pausing(&mut s, "SELECT * FROM t", 10, |s| {
        std::thread::sleep(std::time::Duration::from_millis(30));
        let _ = s.paused_rows_must_stop();
    });
    assert_eq!(run.result.err().map(|e| e.code), Some(1969));
    assert!(run.rows.len() < ROWS, "{} rows", run.rows.len());
    exec_ok(&mut s, "SET SESSION max_statement_time = 0");
    assert_eq!(
        run_pausing(&mut s, "SELECT * FROM t", 100, |_| {})
            .rows
            .len(),
        ROWS
    );
}

#[test]
fn a_long_scan_stops_after_each_slice_and_gives_the_same_rows() {
    let (_t, mut s) = setup();
    // Slow per row: the scan runs far longer than one slice (2 ms).
    let sql = "SELECT id, k FROM t WHERE LOCATE('zz', REPEAT(name, 20000)) = 0";
    let whole = rows(&mut s, sql);
    assert_eq!(whole.len(), ROWS);
    let started = std::time::Instant::now();
    let run = run_pausing(&mut s, sql, usize::MAX, |_| {});
    let took = started.elapsed();
    assert!(run.result.is_ok(), "{:?}", run.result.err());
    assert_eq!(run.rows, whole);
    let slices = took.as_millis() as usize / 2;
    assert!(
        run.pauses >= 1 && run.pauses <= slices + 1,
        "{} pauses in {took:?}",
        run.pauses
    );
}

#[test]
fn a_paused_prepared_scan_keeps_its_parameters() {
    let (_t, mut s) = setup();
    let prepared = s
        .prepare("SELECT id, name FROM t WHERE k = ? AND name <> ? LIMIT ?, 30")
        .unwrap();
    let params = [Value::Int(3), Value::Bytes(b"n10".to_vec()), Value::Int(2)];
    let whole = match s.execute_prepared(prepared.statement_id, &params).unwrap() {
        QueryResult::Rows { rows, .. } => rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|v| text(v).unwrap_or_else(|| "NULL".into()))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(whole.len(), 30);
    let mut sink = Pausing {
        every: 4,
        rows: Vec::new(),
    };
    let mut result = s.execute_prepared_streaming(prepared.statement_id, &params, &mut sink);
    let mut pauses = 0;
    while s.has_paused_rows() {
        pauses += 1;
        if let Some(ended) = s.resume_rows(&mut sink) {
            result = ended;
        }
    }
    assert!(result.is_ok(), "{:?}", result.err());
    assert_eq!(pauses, 7);
    assert_eq!(sink.rows, whole);
}

#[test]
fn an_execute_of_a_named_statement_streams_and_pauses() {
    let (_t, mut s) = setup();
    exec_ok(
        &mut s,
        "PREPARE s FROM 'SELECT id, name FROM t WHERE k = ?'",
    );
    exec_ok(&mut s, "SET @k = 3");
    let whole = rows(&mut s, "SELECT id, name FROM t WHERE k = 3");
    let run = run_pausing(&mut s, "EXECUTE s USING @k", 10, |_| {});
    assert!(run.result.is_ok(), "{:?}", run.result.err());
    assert!(run.pauses >= 1);
    assert_eq!(run.rows, whole);
}
