//! What real clients send right after connecting, and the administration statements they
//! rely on: the answers must have the types and values those clients accept.

mod common;
use common::*;
use myriad_sql::{ColumnType, QueryResult, Value};

#[test]
fn mariadb_cli_version_comment_and_databases() {
    let t = engine();
    let mut s = session(&t.engine);
    let r = one(&mut s, "select @@version_comment limit 1").unwrap();
    let QueryResult::Rows {
        columns,
        rows: data,
        ..
    } = r
    else {
        panic!("rows expected")
    };
    assert_eq!(columns[0].name, "@@version_comment");
    assert_eq!(columns[0].column_type, ColumnType::VarString);
    assert_eq!(data.len(), 1);
    assert_eq!(
        rows(&mut s, "show databases"),
        vec![
            vec!["information_schema"],
            vec!["mysql"],
            vec!["performance_schema"]
        ]
    );
    assert_eq!(error_code(&mut s, "show tables"), 1046);
    exec_ok(&mut s, "use mysql");
    assert_eq!(s.current_database(), Some("mysql"));
    assert!(rows(&mut s, "show tables").is_empty());
    assert_eq!(scalar(&mut s, "select database()"), "mysql");
}

#[test]
fn mysql_async_connect_query_gets_integers_and_null_socket() {
    let t = engine();
    let mut s = session(&t.engine);
    let QueryResult::Rows { columns, rows, .. } = one(
        &mut s,
        "SELECT @@max_allowed_packet,@@wait_timeout,@@socket",
    )
    .unwrap() else {
        panic!("rows expected")
    };
    assert_eq!(columns[0].column_type, ColumnType::LongLong);
    assert_eq!(columns[1].column_type, ColumnType::LongLong);
    assert_eq!(rows[0][0], Value::UInt(16 * 1024 * 1024));
    assert_eq!(rows[0][1], Value::UInt(28800));
    assert_eq!(rows[0][2], Value::Null);
}

#[test]
fn set_names_and_charset_variables() {
    let t = engine();
    let mut s = session(&t.engine);
    exec_ok(&mut s, "SET NAMES utf8mb4");
    exec_ok(&mut s, "SET NAMES latin1 COLLATE latin1_bin");
    assert_eq!(
        rows(
            &mut s,
            "select @@character_set_client, @@character_set_results, @@collation_connection"
        ),
        vec![vec!["latin1", "latin1", "latin1_bin"]]
    );
    assert_eq!(error_code(&mut s, "SET NAMES nonesuch"), 1115);
    assert_eq!(
        error_code(&mut s, "SET NAMES utf8mb4 COLLATE latin1_bin"),
        1253
    );
    exec_ok(&mut s, "SET CHARACTER SET utf8mb4");
    assert_eq!(scalar(&mut s, "select @@character_set_client"), "utf8mb4");
}

#[test]
fn engine_open_rejects_unknown_variables_and_bad_values() {
    let dir = tempfile::tempdir().unwrap();
    let open = |vars: Vec<(&str, &str)>| {
        myriad_sql::Engine::open(myriad_sql::EngineConfig {
            datadir: dir.path().to_path_buf(),
            variables: vars
                .into_iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        })
    };
    let err = open(vec![("no-such-variable", "1")])
        .err()
        .expect("unknown variable fails");
    assert!(err.message.contains("no-such-variable"), "{}", err.message);
    let err = open(vec![("max_connections", "lots")])
        .err()
        .expect("bad value fails");
    assert!(err.message.contains("max_connections"), "{}", err.message);
    let engine = open(vec![
        ("max-connections", "1100"),
        ("port", "3399"),
        ("socket", "/tmp/x.sock"),
    ])
    .unwrap();
    assert_eq!(
        engine.global_variable("max_connections"),
        Some(Value::UInt(1100))
    );
    assert_eq!(engine.global_variable("PORT"), Some(Value::UInt(3399)));
    assert_eq!(
        engine.global_variable("socket"),
        Some(Value::Bytes(b"/tmp/x.sock".to_vec()))
    );
    assert!(!myriad_sql::system_variables_help().is_empty());
}
