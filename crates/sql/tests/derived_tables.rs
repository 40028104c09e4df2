//! Derived tables and set operations keep their rows within the grouping budget
//! (min(tmp_table_size, max_heap_table_size)): past it the statement fails with MariaDB's
//! 1114 instead of growing without bound (MariaDB writes such a result to disk). Their
//! answers are compared with MariaDB's in the differential corpus
//! `derived_and_set_operations.sql`.

mod common;
use common::*;

#[test]
fn a_derived_table_past_its_budget_is_refused_not_grown() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(200))",
        ],
    );
    for chunk in 0..20 {
        let values: Vec<String> = (0..100)
            .map(|i| format!("({}, REPEAT('x', 200))", chunk * 100 + i))
            .collect();
        exec_ok(
            &mut s,
            &format!("INSERT INTO big VALUES {}", values.join(", ")),
        );
    }
    let whole = "SELECT COUNT(*), SUM(LENGTH(pad)) FROM (SELECT * FROM big) AS d";
    assert_eq!(rows(&mut s, whole), [["2000", "400000"]]);
    let union =
        "SELECT COUNT(*) FROM (SELECT id, pad FROM big UNION ALL SELECT id, pad FROM big) AS u";
    assert_eq!(scalar(&mut s, union), "4000");
    exec_ok(
        &mut s,
        "SET SESSION tmp_table_size = 65536, max_heap_table_size = 65536",
    );
    assert_eq!(error_code(&mut s, whole), 1114);
    assert_eq!(error_code(&mut s, union), 1114);
    // A small result still fits, and the session goes on.
    let small = "SELECT COUNT(*) FROM (SELECT id FROM big WHERE id < 10) AS d";
    assert_eq!(scalar(&mut s, small), "10");
    let distinct =
        "SELECT COUNT(*) FROM (SELECT id % 7 FROM big UNION SELECT id % 5 FROM big) AS u";
    assert_eq!(scalar(&mut s, distinct), "7");
}
