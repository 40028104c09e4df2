//! SQL's prepared statements in a session: names are the session's own (a reset drops
//! them, another session does not see them), they live beside the binary protocol's, an
//! EXECUTE gives what the statement run directly gives (rows, affected rows, the last
//! insert id, warnings), the errors before a run are what SHOW WARNINGS shows, and the
//! Com_* counters count them.

mod common;
use common::*;
use myriad_sql::{QueryResult, Value};

#[test]
fn names_are_per_session_and_a_reset_drops_them() {
    let (t, mut s) = engine_and_session();
    exec_ok(&mut s, "PREPARE Mine FROM 'SELECT 1 + ?'");
    assert_eq!(scalar(&mut s, "EXECUTE mine USING 41"), "42");
    let mut other = session(&t.engine);
    assert_eq!(error_code(&mut other, "EXECUTE mine USING 1"), 1243);
    s.reset();
    assert_eq!(error_code(&mut s, "EXECUTE mine USING 1"), 1243);
}

#[test]
fn sql_and_binary_statements_live_side_by_side() {
    let (_t, mut s) = engine_and_session();
    let binary = s.prepare("SELECT ? * 2").unwrap();
    exec_ok(&mut s, "PREPARE s FROM 'SELECT ? * 3'");
    let doubled = s
        .execute_prepared(binary.statement_id, &[Value::Int(5)])
        .unwrap();
    let QueryResult::Rows { rows, .. } = doubled else {
        panic!("rows expected");
    };
    assert_eq!(text(&rows[0][0]).as_deref(), Some("10"));
    assert_eq!(scalar(&mut s, "EXECUTE s USING 5"), "15");
    exec_ok(&mut s, "DEALLOCATE PREPARE s");
    assert!(s
        .execute_prepared(binary.statement_id, &[Value::Int(1)])
        .is_ok());
}

#[test]
fn execute_answers_as_the_statement_run_directly() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(5))",
            "PREPARE ins FROM 'INSERT INTO t (v) VALUES (?), (?)'",
        ],
    );
    match one(&mut s, "EXECUTE ins USING 'a', 'b'").unwrap() {
        QueryResult::Ok {
            affected_rows,
            last_insert_id,
            ..
        } => assert_eq!((affected_rows, last_insert_id), (2, 1)),
        other => panic!("{other:?}"),
    }
    assert_eq!(scalar(&mut s, "SELECT ROW_COUNT()"), "2");
    exec_ok(
        &mut s,
        "PREPARE div FROM 'SELECT v, 1 / ? FROM t ORDER BY id'",
    );
    assert_eq!(
        rows(&mut s, "EXECUTE div USING 0"),
        [["a", "NULL"], ["b", "NULL"]]
    );
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1365");
    // An error before the run is what SHOW WARNINGS shows.
    assert_eq!(error_code(&mut s, "EXECUTE div USING 1, 2"), 1210);
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1210");
    assert_eq!(error_code(&mut s, "EXECUTE nothing"), 1243);
    assert_eq!(scalar(&mut s, "SELECT ROW_COUNT()"), "-1");
    // A PREPARE of a name in use drops its statement, even when the new text fails.
    assert_eq!(
        error_code(&mut s, "PREPARE div FROM 'SELECT * FROM nosuch'"),
        1146
    );
    assert_eq!(error_code(&mut s, "EXECUTE div USING 1"), 1243);
}

#[test]
fn counters_count_each_form() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "PREPARE s FROM 'SELECT ?'",
            "EXECUTE s USING 1",
            "EXECUTE IMMEDIATE 'SELECT 2'",
            "DEALLOCATE PREPARE s",
        ],
    );
    let status = |s: &mut myriad_sql::Session, name: &str| {
        rows(s, &format!("SHOW SESSION STATUS LIKE '{name}'"))[0][1].clone()
    };
    assert_eq!(status(&mut s, "Com_prepare_sql"), "1");
    assert_eq!(status(&mut s, "Com_execute_sql"), "1");
    assert_eq!(status(&mut s, "Com_execute_immediate"), "1");
    assert_eq!(status(&mut s, "Com_dealloc_sql"), "1");
    assert_eq!(status(&mut s, "Com_select"), "2");
}

#[test]
fn plans_follow_the_tables_they_read() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE t (a INT)",
            "INSERT INTO t VALUES (1), (2)",
            "PREPARE sub FROM 'SELECT a FROM t WHERE a IN (SELECT a FROM t) ORDER BY a'",
            "PREPARE copy FROM 'CREATE TABLE c LIKE t'",
        ],
    );
    assert_eq!(rows(&mut s, "EXECUTE sub"), [["1"], ["2"]]);
    exec_all(&mut s, &["ALTER TABLE t ADD COLUMN b INT", "EXECUTE copy"]);
    assert_eq!(rows(&mut s, "SHOW COLUMNS FROM c").len(), 2);
    exec_ok(&mut s, "DROP TABLE t");
    // Compiled again before it runs: the error is the statement's, and SHOW WARNINGS's.
    assert_eq!(error_code(&mut s, "EXECUTE sub"), 1146);
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1146");
    exec_ok(&mut s, "DROP TABLE c");
    assert_eq!(error_code(&mut s, "EXECUTE copy"), 1146);
    // Column types that would follow the values bound: not built.
    assert_eq!(
        error_code(&mut s, "PREPARE s FROM 'CREATE TABLE n AS SELECT ? AS i'"),
        1235
    );
    // A column the statement defines keeps its type.
    exec_all(
        &mut s,
        &[
            "PREPARE s FROM 'CREATE TABLE n (i INT) SELECT ? AS i'",
            "EXECUTE s USING 7",
        ],
    );
    assert_eq!(scalar(&mut s, "SELECT i FROM n"), "7");
}
