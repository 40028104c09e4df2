//! SET STATEMENT ... FOR, CALL, DROP PROCEDURE / FUNCTION and the plugin listings, where
//! the answers are myriad's own (the differential corpora set_statement.sql, routines.sql
//! and plugins.sql compare the rest with MariaDB).

mod common;
use common::*;
use myriad_sql::QueryResult;

fn warning_count(s: &mut myriad_sql::Session, sql: &str) -> u16 {
    match one(s, sql) {
        Ok(QueryResult::Rows { warnings, .. } | QueryResult::Ok { warnings, .. }) => warnings,
        Err(e) => panic!("{sql}: {e}"),
    }
}

#[test]
fn set_statement_restores_the_variables_after_success_and_failure() {
    let (_t, mut s) = engine_and_session();
    exec_ok(&mut s, "SET div_precision_increment = 3");
    let results = s.execute(
        "SET STATEMENT div_precision_increment = 9 FOR SELECT 1/3; SELECT 1/3",
        true,
    );
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(scalar(&mut s, "SELECT @@div_precision_increment"), "3");
    assert_eq!(
        error_code(
            &mut s,
            "SET STATEMENT div_precision_increment = 9 FOR SELECT * FROM no_such_table"
        ),
        1046
    );
    // The statement's error is what SHOW WARNINGS shows next.
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1046");
    assert_eq!(scalar(&mut s, "SELECT @@div_precision_increment"), "3");
    // A session value set before (here none: the global one) comes back too.
    exec_ok(&mut s, "SET div_precision_increment = DEFAULT");
    exec_ok(
        &mut s,
        "SET STATEMENT div_precision_increment = 9 FOR SELECT 1",
    );
    assert_eq!(scalar(&mut s, "SELECT @@div_precision_increment"), "4");
}

#[test]
fn set_statement_warnings_come_first_and_are_counted() {
    let (_t, mut s) = engine_and_session();
    let sql = "SET STATEMENT group_concat_max_len = 1 FOR SELECT @@group_concat_max_len";
    assert_eq!(warning_count(&mut s, sql), 1);
    let warnings = rows(&mut s, "SHOW WARNINGS");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0][1], "1292");
}

#[test]
fn set_statement_bounds_one_statement_with_max_statement_time() {
    let (_t, mut s) = engine_and_session();
    assert_eq!(
        error_code(
            &mut s,
            "SET STATEMENT max_statement_time = 0.05 FOR SELECT SLEEP(5)"
        ),
        1969
    );
    assert_eq!(scalar(&mut s, "SELECT @@max_statement_time = 0"), "1");
}

#[test]
fn set_statement_is_not_prepared() {
    let (_t, mut s) = engine_and_session();
    let e = s
        .prepare("SET STATEMENT div_precision_increment = 9 FOR SELECT 1/3")
        .unwrap_err();
    assert_eq!(e.code, 1235);
    // `SET statement = 1` is an assignment of a variable of that name.
    assert_eq!(error_code(&mut s, "SET statement = 1"), 1193);
}

#[test]
fn routines_do_not_exist() {
    let (_t, mut s) = engine_and_session();
    exec_ok(&mut s, "CREATE DATABASE r");
    exec_ok(&mut s, "USE r");
    let e = one(&mut s, "CALL mtr.add_suppression('x')").unwrap_err();
    assert_eq!(e.code, 1305);
    assert_eq!(e.message, "PROCEDURE mtr.add_suppression does not exist");
    let e = one(&mut s, "CALL p(1)").unwrap_err();
    assert_eq!(e.message, "PROCEDURE r.p does not exist");
    let e = one(&mut s, "CALL p(nope)").unwrap_err();
    assert_eq!(e.code, 1054);
    assert_eq!(e.message, "Unknown column 'nope' in 'CALL'");
    assert_eq!(warning_count(&mut s, "DROP PROCEDURE IF EXISTS p"), 1);
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        vec![vec![
            "Note".to_string(),
            "1305".to_string(),
            "PROCEDURE r.p does not exist".to_string()
        ]]
    );
    let e = one(&mut s, "DROP FUNCTION f").unwrap_err();
    assert_eq!(e.message, "FUNCTION r.f does not exist");
    let count = |s: &mut myriad_sql::Session, name: &str| {
        scalar(
            s,
            &format!("SELECT variable_value FROM information_schema.session_status WHERE variable_name = '{name}'"),
        )
    };
    assert_eq!(count(&mut s, "COM_DROP_PROCEDURE"), "1");
    assert_eq!(count(&mut s, "COM_DROP_FUNCTION"), "1");
}

#[test]
fn plugins_agree_with_engines_and_accounts() {
    let (_t, mut s) = engine_and_session();
    let engines = rows(&mut s, "SELECT engine FROM information_schema.engines");
    let listed = rows(
        &mut s,
        "SELECT plugin_name FROM information_schema.plugins WHERE plugin_type = 'STORAGE ENGINE'",
    );
    assert_eq!(engines, listed);
    assert_eq!(
        scalar(
            &mut s,
            "SELECT plugin_status FROM information_schema.plugins WHERE plugin_name = 'mysql_native_password'"
        ),
        "ACTIVE"
    );
    assert_eq!(
        scalar(
            &mut s,
            "SELECT COUNT(*) FROM information_schema.plugins WHERE plugin_name = 'partition'"
        ),
        "0"
    );
    let shown = rows(&mut s, "SHOW PLUGINS");
    assert_eq!(
        shown.len().to_string(),
        scalar(
            &mut s,
            "SELECT COUNT(*) FROM information_schema.all_plugins"
        )
    );
    assert_eq!(error_code(&mut s, "SHOW PLUGINS SONAME"), 1235);
}
