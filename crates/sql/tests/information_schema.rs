//! information_schema read as tables: every table MariaDB has and myriad fills answers
//! `SELECT *` with rows of its own width, the others answer 1235 or 1109, and the rows
//! follow what the server holds (MariaDB's answers are compared in the differential
//! corpus `information_schema.sql`, and per account in tests/privileges.rs).

mod common;
use common::*;

#[test]
fn every_table_reads_as_a_table() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE shop",
            "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(10) UNIQUE, price DECIMAL(6,2))",
            "INSERT INTO shop.items VALUES (1, 'pen', 1.50), (2, 'ink', 3.00)",
        ],
    );
    for (i, table) in myriad_sql::catalog::info_schema::TABLES.iter().enumerate() {
        let sql = format!("SELECT * FROM information_schema.{}", table.name);
        let listed = rows(&mut s, &sql);
        let width = myriad_sql::plan::info_schema::definition(i)
            .unwrap()
            .columns
            .len();
        for row in &listed {
            assert_eq!(row.len(), width, "{sql}: {row:?}");
        }
        let count = scalar(
            &mut s,
            &format!("SELECT COUNT(*) FROM information_schema.{}", table.name),
        );
        assert_eq!(count, listed.len().to_string(), "{sql}");
    }
    assert_eq!(
        error_code(&mut s, "SELECT * FROM information_schema.keywords"),
        1235
    );
    assert_eq!(
        error_code(&mut s, "SELECT * FROM information_schema.no_such"),
        1109
    );
    assert_eq!(
        error_code(&mut s, "EXPLAIN SELECT * FROM information_schema.tables"),
        1235
    );
}

#[test]
fn rows_follow_what_the_server_holds() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE shop",
            "CREATE TABLE shop.items (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(10) NOT NULL, KEY (name)) COMMENT 'goods'",
            "INSERT INTO shop.items (name) VALUES ('pen'), ('ink'), ('cap')",
        ],
    );
    let tables = "SELECT table_name, table_rows, auto_increment, table_comment FROM \
        information_schema.tables WHERE table_schema = 'shop'";
    assert_eq!(rows(&mut s, tables), [["items", "3", "4", "goods"]]);
    let listed = "SELECT column_name, column_key, extra FROM information_schema.columns \
        WHERE table_schema = 'shop' ORDER BY ordinal_position";
    assert_eq!(
        rows(&mut s, listed),
        [["id", "PRI", "auto_increment"], ["name", "MUL", ""]]
    );
    exec_ok(&mut s, "ALTER TABLE shop.items ADD COLUMN price INT");
    assert_eq!(rows(&mut s, listed).len(), 3);
    exec_ok(&mut s, "DROP TABLE shop.items");
    assert!(rows(&mut s, tables).is_empty());
    assert_eq!(
        scalar(
            &mut s,
            "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'shop'"
        ),
        "1"
    );
    exec_ok(&mut s, "DROP DATABASE shop");
    assert_eq!(
        scalar(
            &mut s,
            "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'shop'"
        ),
        "0"
    );
    // A variable set in the session shows in SESSION_VARIABLES at once.
    exec_ok(&mut s, "SET SESSION sort_buffer_size = 65536");
    assert_eq!(
        scalar(&mut s, "SELECT variable_value FROM information_schema.session_variables WHERE variable_name = 'SORT_BUFFER_SIZE'"),
        "65536"
    );
}
