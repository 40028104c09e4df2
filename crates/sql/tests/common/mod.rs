//! Helpers shared by the SQL layer's integration tests: an engine on a temporary datadir,
//! and results rendered as text the way the mariadb client prints them.

#![allow(dead_code)]

use myriad_sql::{Engine, EngineConfig, QueryResult, Session, SessionInfo, SqlError, Value};
use std::sync::Arc;

pub struct TestEngine {
    pub engine: Arc<Engine>,
    pub dir: tempfile::TempDir,
}

pub fn engine() -> TestEngine {
    engine_with(Vec::new())
}

pub fn engine_with(variables: Vec<(&str, &str)>) -> TestEngine {
    let dir = tempfile::tempdir().expect("temp datadir");
    let config = EngineConfig {
        datadir: dir.path().to_path_buf(),
        variables: variables
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    };
    let engine = Engine::open(config).expect("engine opens");
    TestEngine { engine, dir }
}

pub fn session(engine: &Arc<Engine>) -> Session {
    engine
        .new_session(SessionInfo {
            connection_id: 7,
            user: "root".into(),
            host: "localhost".into(),
            database: None,
            interactive: false,
            tls: None,
            handles_expired_password: false,
        })
        .expect("session")
}

/// A fresh engine and one root session on it.
pub fn engine_and_session() -> (TestEngine, Session) {
    let t = engine();
    let s = session(&t.engine);
    (t, s)
}

/// A value as the text protocol would carry it (None for NULL).
pub fn text(v: &Value) -> Option<String> {
    v.to_text()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// A value as the text protocol carries it in `column` (None for NULL).
pub fn text_in_column(v: &Value, column: &myriad_sql::result::Column) -> Option<String> {
    if v.is_null() {
        return None;
    }
    let mut out = Vec::new();
    let float = column.column_type == myriad_sql::result::ColumnType::Float;
    v.write_text_in_typed_column(&mut out, float, column.decimals);
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Run one statement; rows as text ("NULL" for NULL).
pub fn rows(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    match one(s, sql) {
        Ok(QueryResult::Rows { rows, .. }) => rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|v| text(v).unwrap_or_else(|| "NULL".into()))
                    .collect()
            })
            .collect(),
        Ok(other) => panic!("{sql}: expected rows, got {other:?}"),
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// The single value of a one-row, one-column result.
pub fn scalar(s: &mut Session, sql: &str) -> String {
    let r = rows(s, sql);
    assert_eq!(r.len(), 1, "{sql}: one row expected, got {r:?}");
    assert_eq!(r[0].len(), 1, "{sql}: one column expected");
    r[0][0].clone()
}

pub fn one(s: &mut Session, sql: &str) -> Result<QueryResult, SqlError> {
    let mut results = s.execute(sql, false);
    assert_eq!(results.len(), 1, "{sql}: one result expected");
    results.remove(0)
}

pub fn error_code(s: &mut Session, sql: &str) -> u16 {
    match one(s, sql) {
        Err(e) => e.code,
        Ok(r) => panic!("{sql}: expected an error, got {r:?}"),
    }
}

pub fn exec_ok(s: &mut Session, sql: &str) {
    match one(s, sql) {
        Ok(_) => {}
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// Asserts that `indexed` and `scanned` (the same query answered another way) give the same
/// rows; `what` names the case.
pub fn assert_same_rows(s: &mut Session, indexed: &str, scanned: &str, what: &str) {
    let (indexed, scanned) = (rows(s, indexed), rows(s, scanned));
    assert_eq!(indexed, scanned, "{what}");
}

/// Asserts that `test` holds for every statement of `yes` and for none of `no`.
pub fn assert_tells_apart(mut test: impl FnMut(&str) -> bool, yes: &[&str], no: &[&str]) {
    for sql in yes {
        assert!(test(sql), "{sql}");
    }
    for sql in no {
        assert!(!test(sql), "{sql}");
    }
}

/// Run each statement in turn; panics, naming the statement, on an error.
pub fn exec_all(s: &mut Session, statements: &[&str]) {
    for sql in statements {
        exec_ok(s, sql);
    }
}
