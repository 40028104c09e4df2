//! MariaDB's command-line tools against myriad, unchanged and without extra flags:
//! mariadb-slap (its own generated schema, inserts and selects), mariadb-check and
//! mariadb-show. (mariadb-dump is in `dump_reload.rs`.)

mod common;

use common::{require_program, run_ok, Server};
use std::time::Duration;

fn tool(server: &Server, program: &str, args: &[&str]) -> String {
    require_program(program);
    let mut command = server.client(program);
    command.args(args);
    run_ok(
        &mut command,
        Duration::from_secs(120),
        &format!("{program} {args:?}"),
    )
}

#[test]
fn mariadb_slap_runs_its_generated_load() {
    let server = Server::start(&[]);
    // Its statements end with the C string's NUL, and its CREATE TABLE says INT(32).
    let out = tool(
        &server,
        "mariadb-slap",
        &[
            "--auto-generate-sql",
            "--auto-generate-sql-load-type=mixed",
            "--concurrency=4",
            "--iterations=2",
            "--number-of-queries=200",
        ],
    );
    assert!(
        out.contains("Number of clients running queries: 4")
            && out.contains("Average number of queries per client: 50"),
        "{out}"
    );
}

#[test]
fn mariadb_check_and_mariadb_show_read_a_database() {
    let server = Server::start(&[]);
    tool(
        &server,
        "mariadb",
        &[
            "-e",
            "CREATE DATABASE shop; CREATE TABLE shop.items (id INT PRIMARY KEY, name \
             VARCHAR(20)); CREATE TABLE shop.orders (id INT); INSERT INTO shop.items VALUES (1, 'a')",
        ],
    );
    let check = tool(&server, "mariadb-check", &["shop"]);
    for table in ["shop.items", "shop.orders"] {
        assert!(
            check
                .lines()
                .any(|l| l.starts_with(table) && l.trim_end().ends_with("OK")),
            "{check}"
        );
    }
    let databases = tool(&server, "mariadb-show", &[]);
    assert!(databases.contains("| shop "), "{databases}");
    let tables = tool(&server, "mariadb-show", &["shop"]);
    assert!(
        tables.contains("| items ") && tables.contains("| orders "),
        "{tables}"
    );
    let columns = tool(&server, "mariadb-show", &["shop", "items"]);
    assert!(
        columns.contains("| id ") && columns.contains("| name "),
        "{columns}"
    );
}
