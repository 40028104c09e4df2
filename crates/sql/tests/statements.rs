//! Session statements: SET with MySQL's errors and clamping, SHOW STATUS counters,
//! multi-statement text, prepared statements, accounts, databases, SHUTDOWN, transactions.

mod common;
use common::*;
use myriad_sql::catalog::auth_plugins::native_hash;
use myriad_sql::{QueryResult, Session, SessionInfo, Value};
use myriad_types::auth::Credential;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn set_checks_scope_type_and_range() {
    let (t, mut s) = engine_and_session();
    assert_eq!(error_code(&mut s, "SET no_such_thing = 1"), 1193);
    assert_eq!(error_code(&mut s, "SET autocommit = 'maybe'"), 1231);
    assert_eq!(error_code(&mut s, "SET wait_timeout = 'abc'"), 1232);
    assert_eq!(error_code(&mut s, "SET GLOBAL version = 'x'"), 1238);
    assert_eq!(error_code(&mut s, "SET max_connections = 100"), 1229);
    assert_eq!(error_code(&mut s, "SET GLOBAL warning_count = 1"), 1238);
    assert_eq!(error_code(&mut s, "SELECT @@session.max_connections"), 1238);
    // Out of range: clamped with a warning.
    exec_ok(&mut s, "SET GLOBAL max_connections = 1");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1292");
    assert_eq!(scalar(&mut s, "SELECT @@global.max_connections"), "10");
    exec_ok(
        &mut s,
        "SET @@global.max_connections = 500, SESSION wait_timeout = 60",
    );
    assert_eq!(
        t.engine.global_variable("max_connections"),
        Some(Value::UInt(500))
    );
    assert_eq!(scalar(&mut s, "SELECT @@wait_timeout"), "60");
    assert_eq!(scalar(&mut s, "SELECT @@global.wait_timeout"), "28800");
    exec_ok(&mut s, "SET wait_timeout = DEFAULT");
    assert_eq!(scalar(&mut s, "SELECT @@session.wait_timeout"), "28800");
    // A failing assignment applies none of the list.
    assert_eq!(
        error_code(&mut s, "SET wait_timeout = 99, autocommit = 7"),
        1231
    );
    assert_eq!(scalar(&mut s, "SELECT @@wait_timeout"), "28800");
}

/// Settings whose effect is not built are refused, not accepted and ignored: a
/// `sql_select_limit` would cut results, `sql_safe_updates` refuse keyless updates.
#[test]
fn settings_without_their_effect_are_refused() {
    let (_t, mut s) = engine_and_session();
    assert_eq!(error_code(&mut s, "SET sql_select_limit = 10"), 1235);
    assert_eq!(error_code(&mut s, "SET GLOBAL sql_safe_updates = ON"), 1235);
    assert_eq!(
        error_code(&mut s, "SET sql_safe_updates = 1, wait_timeout = 5"),
        1235
    );
    assert_eq!(error_code(&mut s, "SET auto_increment_increment = 2"), 1235);
    assert_eq!(
        error_code(&mut s, "SET GLOBAL auto_increment_offset = 3"),
        1235
    );
    exec_ok(
        &mut s,
        "SET auto_increment_increment = 1, auto_increment_offset = 1",
    );
    assert_eq!(scalar(&mut s, "SELECT @@wait_timeout"), "28800");
    exec_ok(
        &mut s,
        "SET sql_select_limit = DEFAULT, sql_safe_updates = OFF",
    );
    exec_ok(&mut s, "SET sql_select_limit = 18446744073709551615");
    assert_eq!(
        scalar(&mut s, "SELECT @@sql_select_limit"),
        "18446744073709551615"
    );
}

#[test]
fn set_global_does_not_change_running_sessions() {
    let t = engine();
    let mut a = session(&t.engine);
    exec_ok(&mut a, "SET GLOBAL sql_mode = 'ANSI_QUOTES'");
    assert_eq!(
        scalar(&mut a, "SELECT @@sql_mode"),
        "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
    );
    let mut b = session(&t.engine);
    assert_eq!(scalar(&mut b, "SELECT @@sql_mode"), "ANSI_QUOTES");
    assert_eq!(scalar(&mut b, "SELECT @@global.sql_mode"), "ANSI_QUOTES");
}

#[test]
fn autocommit_sql_mode_and_transactions() {
    let (_t, mut s) = engine_and_session();
    assert!(s.autocommit());
    type State = fn(&Session) -> bool;
    let steps: [(&str, State, bool); 6] = [
        ("SET autocommit = 0", Session::autocommit, false),
        ("SET autocommit = ON", Session::autocommit, true),
        ("BEGIN", Session::in_transaction, true),
        ("COMMIT", Session::in_transaction, false),
        ("START TRANSACTION", Session::in_transaction, true),
        ("ROLLBACK", Session::in_transaction, false),
    ];
    for (sql, state, want) in steps {
        exec_ok(&mut s, sql);
        assert_eq!(state(&s), want, "after {sql}");
    }
    exec_ok(&mut s, "SET sql_mode = 'PIPES_AS_CONCAT'");
    assert_eq!(scalar(&mut s, "SELECT 'a' || 'b'"), "ab");
    exec_ok(&mut s, "SET sql_mode = ''");
    assert_eq!(scalar(&mut s, "SELECT 'a' || 'b'"), "0");
    exec_ok(
        &mut s,
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
    );
    assert_eq!(scalar(&mut s, "SELECT @@tx_isolation"), "READ-COMMITTED");
    assert_eq!(
        scalar(&mut s, "SELECT @@transaction_isolation"),
        "READ-COMMITTED"
    );
}

#[test]
fn show_variables_like_and_where() {
    let (_t, mut s) = engine_and_session();
    let r = rows(&mut s, "SHOW VARIABLES LIKE 'version%'");
    let names: Vec<&str> = r.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(
        names,
        [
            "version",
            "version_comment",
            "version_compile_machine",
            "version_compile_os",
            "version_ssl_library"
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SHOW GLOBAL VARIABLES WHERE Variable_name = 'autocommit' OR Variable_name = 'port'"
        ),
        vec![vec!["autocommit", "ON"], vec!["port", "3307"]]
    );
    // Session-only variables are not global.
    assert!(rows(&mut s, "SHOW GLOBAL VARIABLES LIKE 'warning_count'").is_empty());
    assert_eq!(
        rows(&mut s, "SHOW SESSION VARIABLES LIKE 'warning_count'").len(),
        1
    );
}

#[test]
fn status_counters_count_statements_and_flush() {
    let (t, mut s) = engine_and_session();
    for _ in 0..3 {
        rows(&mut s, "SELECT 1");
    }
    exec_ok(&mut s, "SET @x = 1");
    let status = |s: &mut myriad_sql::Session, sql: &str| -> u64 {
        rows(s, sql)[0][1].parse().expect("a number")
    };
    assert_eq!(status(&mut s, "SHOW STATUS LIKE 'Com_select'"), 3);
    assert_eq!(
        status(&mut s, "SHOW GLOBAL STATUS LIKE 'Com_set_option'"),
        1
    );
    assert!(status(&mut s, "SHOW GLOBAL STATUS LIKE 'Questions'") >= 5);
    assert_eq!(status(&mut s, "SHOW STATUS LIKE 'Com_show_status'"), 4);
    t.engine
        .counters()
        .bytes_sent
        .store(1234, Ordering::Relaxed);
    assert_eq!(status(&mut s, "SHOW GLOBAL STATUS LIKE 'Bytes_sent'"), 1234);
    let names: Vec<String> = rows(&mut s, "SHOW GLOBAL STATUS")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    for needed in [
        "Uptime",
        "Threads_connected",
        "Threads_running",
        "Connections",
        "Questions",
        "Queries",
        "Bytes_received",
        "Aborted_connects",
        "Com_show_variables",
    ] {
        assert!(
            names.iter().any(|n| n == needed),
            "{needed} missing from SHOW STATUS"
        );
    }
    exec_ok(&mut s, "FLUSH STATUS");
    assert_eq!(status(&mut s, "SHOW GLOBAL STATUS LIKE 'Com_select'"), 0);
    assert_eq!(status(&mut s, "SHOW GLOBAL STATUS LIKE 'Bytes_sent'"), 0);
    assert!(t.engine.statistics().starts_with("Uptime: "));
}

#[test]
fn multi_statements_stop_at_the_first_error() {
    let (_t, mut s) = engine_and_session();
    let results = s.execute("SELECT 1; SELECT 2; SELEC 3; SELECT 4", true);
    assert_eq!(results.len(), 3);
    assert!(results[0].is_ok() && results[1].is_ok());
    assert_eq!(results[2].as_ref().unwrap_err().code, 1064);
    let results = s.execute("SELECT 1; SELECT 2", false);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].as_ref().unwrap_err().code, 1064);
    // A trailing semicolon is not a second statement.
    assert_eq!(s.execute("SELECT 1;", false).len(), 1);
    assert!(s.execute("SELECT 1;", false)[0].is_ok());
    // Each statement keeps its own tokens, in order, whatever its neighbours hold.
    let results = s.execute(
        "SELECT 1 AS a ; SELECT SQL_NO_CACHE 2 AS b;SELECT 'x;y' AS c, 3 IN (1, 3) AS d",
        true,
    );
    let texts: Vec<Vec<String>> = results
        .iter()
        .map(|r| match r.as_ref().unwrap() {
            QueryResult::Rows { rows, .. } => rows
                .iter()
                .flat_map(|r| r.iter().map(|v| text(v).unwrap_or_default()))
                .collect(),
            other => panic!("not rows: {other:?}"),
        })
        .collect();
    assert_eq!(texts, vec![vec!["1"], vec!["2"], vec!["x;y", "1"]]);
}

#[test]
fn prepared_statements_plan_once_and_bind_each_time() {
    let (_t, mut s) = engine_and_session();
    let info = s.prepare("SELECT ? + 1 AS n, CONCAT(?, 'x')").unwrap();
    assert_eq!(info.param_count, 2);
    assert_eq!(info.columns.len(), 2);
    assert_eq!(info.columns[0].name, "n");
    for i in 0..100i64 {
        let r = s
            .execute_prepared(
                info.statement_id,
                &[Value::Int(i), Value::Bytes(b"ab".to_vec())],
            )
            .unwrap();
        let QueryResult::Rows { rows, .. } = r else {
            panic!("rows")
        };
        assert_eq!(rows[0][0], Value::Int(i + 1));
        assert_eq!(rows[0][1], Value::Bytes(b"abx".to_vec()));
    }
    assert_eq!(
        s.execute_prepared(info.statement_id, &[Value::Int(1)])
            .unwrap_err()
            .code,
        1210
    );
    s.close_prepared(info.statement_id);
    assert_eq!(
        s.execute_prepared(info.statement_id, &[]).unwrap_err().code,
        1243
    );
    // A placeholder in a text query is a syntax error.
    assert_eq!(error_code(&mut s, "SELECT ?"), 1064);
    let set = s.prepare("SET @v = ?").unwrap();
    s.execute_prepared(set.statement_id, &[Value::Double(2.5)])
        .unwrap();
    assert_eq!(scalar(&mut s, "SELECT @v"), "2.5");
}

#[test]
fn databases_are_directories() {
    let (t, mut s) = engine_and_session();
    exec_ok(&mut s, "CREATE DATABASE shop");
    assert_eq!(error_code(&mut s, "CREATE DATABASE shop"), 1007);
    exec_ok(&mut s, "CREATE DATABASE IF NOT EXISTS shop");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1007");
    assert!(t.dir.path().join("shop").is_dir());
    assert_eq!(
        rows(&mut s, "SHOW DATABASES LIKE 'sh%'"),
        vec![vec!["shop"]]
    );
    s.use_database("shop").unwrap();
    assert_eq!(s.use_database("nope").unwrap_err().code, 1049);
    assert_eq!(error_code(&mut s, "USE nope"), 1049);
    exec_ok(&mut s, "DROP DATABASE shop");
    assert_eq!(s.current_database(), None);
    assert_eq!(error_code(&mut s, "DROP DATABASE shop"), 1008);
    exec_ok(&mut s, "DROP DATABASE IF EXISTS shop");
    let info = SessionInfo {
        connection_id: 9,
        user: "root".into(),
        host: "localhost".into(),
        database: Some("gone".into()),
        interactive: false,
        tls: None,
        handles_expired_password: false,
    };
    assert_eq!(t.engine.new_session(info).err().map(|e| e.code), Some(1049));
}

#[test]
fn accounts_by_sql_are_durable() {
    let (t, mut s) = engine_and_session();
    exec_ok(&mut s, "CREATE USER 'app'@'%' IDENTIFIED BY 'secret'");
    assert_eq!(
        error_code(&mut s, "CREATE USER 'app'@'%' IDENTIFIED BY 'x'"),
        1396
    );
    exec_ok(
        &mut s,
        "CREATE USER IF NOT EXISTS 'app'@'%' IDENTIFIED BY 'x'",
    );
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        vec![vec![
            "Note".to_string(),
            "1973".to_string(),
            "Can't create user 'app'@'%'; it already exists".to_string(),
        ]]
    );
    let auth = t
        .engine
        .account("app", "10.1.2.3")
        .expect("account matches any host");
    assert_eq!(
        auth.credential,
        Credential::NativePassword(native_hash("secret"))
    );
    exec_ok(&mut s, "ALTER USER 'app'@'%' IDENTIFIED BY 'other'");
    assert_eq!(
        error_code(&mut s, "ALTER USER 'ghost'@'%' IDENTIFIED BY 'x'"),
        1396
    );
    let reopened = myriad_sql::Engine::open(myriad_sql::EngineConfig {
        datadir: t.dir.path().to_path_buf(),
        variables: Vec::new(),
    })
    .unwrap();
    assert_eq!(
        reopened.account("app", "h").unwrap().credential,
        Credential::NativePassword(native_hash("other"))
    );
    exec_ok(&mut s, "DROP USER 'app'@'%'");
    assert_eq!(error_code(&mut s, "DROP USER 'app'@'%'"), 1396);
    exec_ok(&mut s, "DROP USER IF EXISTS 'app'@'%'");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        vec![vec![
            "Note".to_string(),
            "1974".to_string(),
            "Can't drop user 'app'@'%'; it doesn't exist".to_string(),
        ]]
    );
    assert!(t.engine.account("app", "h").is_none());
    assert!(t.engine.account("root", "127.0.0.1").is_some());
    assert_eq!(scalar(&mut s, "SELECT CURRENT_USER()"), "root@localhost");
    assert_eq!(scalar(&mut s, "SELECT USER()"), "root@localhost");
}

#[test]
fn shutdown_calls_the_hook() {
    let t = engine();
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&calls);
    t.engine.set_shutdown_hook(Box::new(move || {
        seen.fetch_add(1, Ordering::SeqCst);
    }));
    let mut s = session(&t.engine);
    exec_ok(&mut s, "SHUTDOWN");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn user_variables_keep_their_type() {
    let (_t, mut s) = engine_and_session();
    exec_ok(&mut s, "SET @a = 1, @b := 'x', @c = 1.50");
    assert_eq!(
        rows(&mut s, "SELECT @a, @b, @c, @unset"),
        vec![vec!["1", "x", "1.50", "NULL"]]
    );
    assert_eq!(scalar(&mut s, "SELECT @A + 1"), "2");
    assert_eq!(error_code(&mut s, "SET @a = nosuchcolumn"), 1054);
}

#[test]
fn field_list_and_reset() {
    let (_t, mut s) = engine_and_session();
    assert_eq!(s.field_list("t").unwrap_err().code, 1046);
    s.use_database("mysql").unwrap();
    assert_eq!(s.field_list("t").unwrap_err().code, 1146);
    exec_ok(&mut s, "SET @a = 5");
    let p = s.prepare("SELECT 1").unwrap();
    s.reset();
    assert_eq!(scalar(&mut s, "SELECT @a"), "NULL");
    assert!(s.execute_prepared(p.statement_id, &[]).is_err());
}

#[test]
fn comments_and_version_comments() {
    let (_t, mut s) = engine_and_session();
    exec_ok(&mut s, "/*!40101 SET @a = 5 */");
    assert_eq!(scalar(&mut s, "SELECT @a"), "5");
    assert_eq!(scalar(&mut s, "SELECT /* inline */ 1 -- trailing"), "1");
    assert_eq!(scalar(&mut s, "# hash comment\nSELECT 2"), "2");
    assert_eq!(error_code(&mut s, "/* nothing */"), 1065);
    assert_eq!(error_code(&mut s, ""), 1065);
    exec_ok(&mut s, "SET NAMES 'utf8mb4'");
    exec_ok(&mut s, "SET AUTOCOMMIT = 0");
    assert!(!s.autocommit());
}

/// Random statements built from SQL fragments, unicode and junk never panic the engine,
/// always answer with a result or a MySQL error, and leave the session usable.
#[test]
fn random_input_never_panics() {
    const FRAGMENTS: &[&str] = &[
        "SELECT",
        "FROM",
        "WHERE",
        "SET",
        "SHOW",
        "CREATE",
        "DROP",
        "TABLE",
        "DATABASE",
        "INSERT",
        "INTO",
        "VALUES",
        "UPDATE",
        "DELETE",
        "GROUP BY",
        "ORDER BY",
        "LIMIT",
        "JOIN",
        "ON",
        "AND",
        "OR",
        "NOT",
        "IN",
        "BETWEEN",
        "LIKE",
        "IS",
        "NULL",
        "(",
        ")",
        ",",
        ";",
        "*",
        "+",
        "-",
        "/",
        "%",
        "=",
        "<",
        ">",
        "<=>",
        "!",
        "~",
        "@",
        "@@",
        "@@global.",
        "?",
        "'",
        "\"",
        "`",
        "1",
        "-1",
        "18446744073709551616",
        "1e308",
        "1.5",
        "'é'",
        "'\\'",
        "x'4",
        "0x",
        "b'2'",
        "t",
        "t1",
        "sbtest.t",
        "COUNT(*)",
        "SUM(",
        "CONCAT(",
        "SUBSTRING(",
        "CAST(",
        "AS",
        "CHAR",
        "DECIMAL(65,30)",
        "INT",
        "VARCHAR(3)",
        "PRIMARY KEY",
        "AUTO_INCREMENT",
        "DEFAULT",
        "CASE",
        "WHEN",
        "THEN",
        "END",
        "/*",
        "*/",
        "--",
        "#",
        "\n",
        "ünï",
        "😀",
        "\\",
        "DIV",
        "MOD",
        "XOR",
        "EXISTS",
        "(SELECT 1)",
        "USE",
        "NAMES",
        "GLOBAL",
        "SESSION",
        "autocommit",
        "sql_mode",
        "max_connections",
        "SHUTDOWN_NOT",
        "FLUSH",
    ];
    let (_t, mut s) = engine_and_session();
    exec_ok(&mut s, "CREATE DATABASE sbtest");
    exec_ok(
        &mut s,
        "CREATE TABLE sbtest.t (id INT PRIMARY KEY, c VARCHAR(3))",
    );
    exec_ok(&mut s, "USE sbtest");
    let mut seed = 0x1234_5678_9abc_def1u64;
    for _ in 0..3000 {
        let mut sql = String::new();
        let len = 1 + (seed % 12) as usize;
        for _ in 0..len {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            sql.push_str(FRAGMENTS[(seed % FRAGMENTS.len() as u64) as usize]);
            sql.push(' ');
        }
        for result in s.execute(&sql, true) {
            if let Err(e) = result {
                assert!(e.code >= 1000, "{sql}: error without a MySQL code: {e}");
            }
        }
        if let Ok(p) = s.prepare(&sql) {
            let params = vec![myriad_sql::Value::Int(1); p.param_count as usize];
            let _ = s.execute_prepared(p.statement_id, &params);
            s.close_prepared(p.statement_id);
        }
    }
    assert_eq!(scalar(&mut s, "SELECT 1"), "1");
}

fn session_with_id(
    engine: &Arc<myriad_sql::Engine>,
    connection_id: u32,
    database: Option<&str>,
) -> myriad_sql::Session {
    engine
        .new_session(SessionInfo {
            connection_id,
            user: "root".into(),
            host: "localhost".into(),
            database: database.map(str::to_string),
            interactive: false,
            tls: None,
            handles_expired_password: false,
        })
        .expect("session")
}

/// sysbench oltp_read_write's `DELETE id=X; INSERT id=X` inside BEGIN..COMMIT: a second
/// transaction deleting the same key waits for the first to commit, then deletes the row
/// the first re-inserted, so its own INSERT does not collide (no 1062).
#[test]
fn delete_in_a_transaction_locks_its_key_until_commit() {
    let t = engine();
    let mut a = session_with_id(&t.engine, 1, None);
    exec_ok(&mut a, "CREATE DATABASE d");
    exec_ok(&mut a, "USE d");
    exec_ok(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    exec_ok(&mut a, "INSERT INTO t VALUES (5, 0)");
    exec_ok(&mut a, "BEGIN");
    exec_ok(&mut a, "DELETE FROM t WHERE id = 5");
    let engine = Arc::clone(&t.engine);
    let second = std::thread::spawn(move || {
        let mut b = session_with_id(&engine, 2, Some("d"));
        exec_ok(&mut b, "BEGIN");
        let deleted = match b.execute("DELETE FROM t WHERE id = 5", false).remove(0) {
            Ok(QueryResult::Ok { affected_rows, .. }) => affected_rows,
            other => panic!("{other:?}"),
        };
        exec_ok(&mut b, "INSERT INTO t VALUES (5, 2)");
        exec_ok(&mut b, "COMMIT");
        deleted
    });
    std::thread::sleep(std::time::Duration::from_millis(100));
    exec_ok(&mut a, "INSERT INTO t VALUES (5, 1)");
    exec_ok(&mut a, "COMMIT");
    assert_eq!(
        second.join().unwrap(),
        1,
        "the waiting DELETE found A's row"
    );
    assert_eq!(scalar(&mut a, "SELECT v FROM t WHERE id = 5"), "2");
}

/// `k BETWEEN .. OR k BETWEEN ..` on an indexed column reads one index range per
/// disjunct; overlapping ranges yield each row once. Compared with the same filter over
/// `k + 0`, which no index serves.
#[test]
fn or_ranges_on_an_index_match_a_full_scan() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE r (id INT PRIMARY KEY, k INT, KEY k_1 (k))",
        ],
    );
    let values: Vec<String> = (1..=200)
        .map(|i| {
            format!(
                "({i}, {})",
                if i % 17 == 0 {
                    "NULL".to_string()
                } else {
                    ((i * 37) % 50).to_string()
                }
            )
        })
        .collect();
    exec_ok(
        &mut s,
        &format!("INSERT INTO r VALUES {}", values.join(",")),
    );
    for filter in [
        "k BETWEEN 3 AND 9 OR k BETWEEN 7 AND 12",
        "k BETWEEN 40 AND 45 OR k = 2 OR k > 47",
        "k < 3 OR k >= 48 OR k BETWEEN 20 AND 20",
        "k BETWEEN 10 AND 5 OR k = NULL",
        "(k BETWEEN 1 AND 4 OR k BETWEEN 30 AND 33) AND id > 50",
    ] {
        assert_same_rows(
            &mut s,
            &format!("SELECT id, k FROM r WHERE {filter} ORDER BY id"),
            &format!(
                "SELECT id, k FROM r WHERE {} ORDER BY id",
                filter.replace('k', "k + 0")
            ),
            filter,
        );
    }
    assert_eq!(
        scalar(
            &mut s,
            "SELECT COUNT(k) FROM r WHERE k BETWEEN 0 AND 49 OR k BETWEEN 0 AND 49"
        ),
        scalar(&mut s, "SELECT COUNT(k) FROM r")
    );
}

#[test]
fn division_by_zero_in_a_stored_value_is_an_error_in_strict_mode() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE z (id INT PRIMARY KEY, v INT)",
            "INSERT INTO z VALUES (1, 1)",
        ],
    );
    assert_eq!(error_code(&mut s, "INSERT INTO z VALUES (2, 1/0)"), 1365);
    assert_eq!(error_code(&mut s, "UPDATE z SET v = v / 0"), 1365);
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM z WHERE v = 1"), "1");
    exec_ok(&mut s, "SET sql_mode = ''");
    exec_ok(&mut s, "INSERT INTO z VALUES (2, 1/0)");
    assert_eq!(
        scalar(&mut s, "SELECT COUNT(*) FROM z WHERE v IS NULL"),
        "1"
    );
}

/// CREATE TABLE runs on the network thread like DML (its waits go through long_wait); other
/// DDL and anything holding several statements hand the thread off first.
#[test]
fn create_table_runs_inline_and_other_ddl_does_not() {
    use myriad_sql::Session;
    assert_tells_apart(
        Session::text_runs_inline,
        &[
            "SELECT 1",
            "insert into t values (1)",
            "CREATE TABLE t (i INT)",
            "  create   table if not exists d.t (i INT);",
            "COMMIT",
        ],
        &[
            "CREATE DATABASE d",
            "CREATE TEMPORARY TABLE t (i INT)",
            "CREATE INDEX i ON t (i)",
            "DROP TABLE t",
            "ALTER TABLE t ADD COLUMN j INT",
            "SET GLOBAL table_open_cache = 10",
            "CREATE TABLE t (i INT); DROP TABLE t",
            "CREATE",
            "/* SELECT */ DROP TABLE t",
            "CREATE /* TABLE */ DATABASE d",
        ],
    );
}

/// CREATE TABLE finds a missing database from the file it cannot make (no stat first), and
/// answers as MySQL does.
#[test]
fn create_table_in_a_missing_or_system_database_is_unknown_database() {
    let (_t, mut s) = engine_and_session();
    assert_eq!(error_code(&mut s, "CREATE TABLE nope.t (i INT)"), 1049);
    assert_eq!(error_code(&mut s, "CREATE TABLE mysql.t (i INT)"), 1049);
    exec_ok(&mut s, "CREATE DATABASE d");
    exec_ok(&mut s, "CREATE TABLE d.t (i INT)");
    assert_eq!(error_code(&mut s, "CREATE TABLE d.t (i INT)"), 1050);
    exec_ok(&mut s, "CREATE TABLE IF NOT EXISTS d.t (i INT)");
    exec_ok(&mut s, "DROP DATABASE d");
    assert_eq!(error_code(&mut s, "CREATE TABLE d.t (i INT)"), 1049);
}

/// An index range read while other connections move rows' keys past its cursor (each
/// UPDATE moves one row from its place in `k` to the end) returns every row exactly once:
/// the read takes the table's latch once per batch, and starts again (each range in one
/// hold) when an entry of its index moved between two of them. Without that, rows moved
/// ahead of the cursor were met twice and the row count came out above the table's.
#[test]
fn an_index_range_read_meets_each_row_once_while_keys_move() {
    const ROWS: i64 = 3000;
    let t = engine();
    let mut a = session_with_id(&t.engine, 1, None);
    exec_ok(&mut a, "CREATE DATABASE d");
    exec_ok(&mut a, "USE d");
    exec_ok(
        &mut a,
        "CREATE TABLE t (id INT PRIMARY KEY, k INT, KEY k_1 (k))",
    );
    for chunk in (1..=ROWS).collect::<Vec<_>>().chunks(500) {
        let values: Vec<String> = chunk.iter().map(|i| format!("({i}, {i})")).collect();
        exec_ok(
            &mut a,
            &format!("INSERT INTO t VALUES {}", values.join(",")),
        );
    }
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = (0..2u32)
        .map(|w| {
            let (engine, stop) = (Arc::clone(&t.engine), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut s = session_with_id(&engine, 10 + w, Some("d"));
                let mut moves = 0u64;
                let mut id = 1 + i64::from(w) * 7;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    id = (id * 48271 + 11) % ROWS + 1;
                    exec_ok(
                        &mut s,
                        &format!("UPDATE t SET k = k + {ROWS} WHERE id = {id}"),
                    );
                    moves += 1;
                }
                moves
            })
        })
        .collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(1500);
    let mut reads = 0;
    while std::time::Instant::now() < deadline {
        let ids = rows(&mut a, "SELECT id FROM t WHERE k >= 0");
        let distinct: std::collections::BTreeSet<&str> =
            ids.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            (ids.len(), distinct.len()),
            (ROWS as usize, ROWS as usize),
            "read {reads}: rows met twice or missed"
        );
        reads += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let moves: u64 = writers.into_iter().map(|w| w.join().unwrap()).sum();
    assert!(
        reads >= 5 && moves >= 100,
        "too little ran: {reads} reads, {moves} moves"
    );
}

/// NOW() is the statement's start, SYSDATE() the time of each call (MariaDB's rule), and a
/// precision asks for fractional seconds, which values do not keep yet: an error, not a
/// time without its fraction.
#[test]
fn now_is_the_statements_time_and_sysdate_each_calls() {
    let (_t, mut s) = engine_and_session();
    assert_eq!(
        rows(&mut s, "SELECT NOW() = NOW(0), SYSDATE(0) >= NOW()"),
        vec![vec!["1", "1"]]
    );
    let times = rows(
        &mut s,
        "SELECT NOW(), SYSDATE(), SLEEP(1.2), NOW(), SYSDATE()",
    );
    let [now1, sys1, _, now2, sys2] = &times[0][..] else {
        panic!("{times:?}")
    };
    assert_eq!(now1, now2, "NOW() stays the statement's start");
    assert_ne!(sys1, sys2, "SYSDATE() reads the clock at each call");
    for sql in [
        "SELECT NOW(6)",
        "SELECT SYSDATE(3)",
        "SELECT CURRENT_TIMESTAMP(1)",
    ] {
        assert_eq!(error_code(&mut s, sql), 1235, "{sql}");
    }
    assert_eq!(error_code(&mut s, "SELECT NOW(7)"), 1426);
}

#[test]
fn clauses_not_built_are_refused_not_ignored() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE t (a INT, b INT)",
            "INSERT INTO t VALUES (1, 10), (1, 20), (2, 30)",
        ],
    );
    for sql in [
        // The window functions and frames not built.
        "SELECT a, GROUP_CONCAT(b) OVER () FROM t",
        "SELECT a, STD(b) OVER (PARTITION BY a) FROM t",
        "SELECT a, SUM(b) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
        "SELECT DISTINCT a, ROW_NUMBER() OVER () FROM t",
        "SELECT ROW_NUMBER() OVER ()",
        "UPDATE t SET b = ROW_NUMBER() OVER ()",
        "SELECT a, ROW_NUMBER() OVER (ORDER BY a) FROM t HAVING a > 1",
        "EXPLAIN SELECT a, ROW_NUMBER() OVER (ORDER BY a) FROM t",
        "SELECT a, SUM(b) FROM t GROUP BY a WITH CUBE",
        "SELECT a FROM t ORDER BY a FETCH FIRST 1 ROWS WITH TIES",
        "SET sql_mode = 'HIGH_NOT_PRECEDENCE'",
        "SET sql_mode = 'MYSQL40'",
        "SET sql_mode = 'PAD_CHAR_TO_FULL_LENGTH'",
        "SET sql_mode = 'EMPTY_STRING_IS_NULL'",
        "SET sql_mode = 536870912",
    ] {
        assert_eq!(error_code(&mut s, sql), 1235, "{sql}");
    }
    // The refused modes left sql_mode as it was.
    assert_eq!(
        scalar(&mut s, "SELECT @@sql_mode"),
        "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
    );
    // The standard row limit is built: FETCH FIRST n ROWS ONLY is LIMIT n.
    assert_eq!(
        rows(
            &mut s,
            "SELECT b FROM t ORDER BY b OFFSET 1 ROWS FETCH NEXT 1 ROW ONLY"
        ),
        [["20"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT b FROM t ORDER BY b FETCH FIRST ROW ONLY"),
        [["10"]]
    );
    // Executable comments for a later version are comments.
    assert_eq!(scalar(&mut s, "SELECT 1 /*!999999 + 1 */"), "1");
    assert_eq!(scalar(&mut s, "SELECT 1 /*!40101 + 1 */"), "2");
}

#[test]
fn nested_hex_stops_at_max_allowed_packet() {
    let (_t, mut s) = engine_and_session();
    // Each HEX doubles the bytes: 45 levels would be 35 TB; past max_allowed_packet the
    // answer is NULL with warning 1301, as in MariaDB.
    let mut sql = "'\\\\'".to_string();
    for _ in 0..45 {
        sql = format!("hex({sql})");
    }
    assert_eq!(rows(&mut s, &format!("SELECT {sql} AS x")), [["NULL"]]);
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1301");
}

#[test]
fn a_mariadb_dump_header_runs() {
    let (_t, mut s) = engine_and_session();
    // The first lines of a MariaDB 10.11 dump: a version comment no server runs, then
    // settings saved and changed for the load.
    exec_all(
        &mut s,
        &[
            "/*!999999\\- enable the sandbox mode */ SELECT 1",
            "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */",
            "/*M!100616 SET @OLD_NOTE_VERBOSITY=@@NOTE_VERBOSITY, NOTE_VERBOSITY=0 */",
        ],
    );
    assert_eq!(
        scalar(&mut s, "SELECT @OLD_NOTE_VERBOSITY"),
        "basic,explain"
    );
    assert_eq!(scalar(&mut s, "SELECT @@note_verbosity"), "");
    exec_ok(
        &mut s,
        "/*M!100616 SET NOTE_VERBOSITY=@OLD_NOTE_VERBOSITY */",
    );
    assert_eq!(scalar(&mut s, "SELECT @@note_verbosity"), "basic,explain");
}

/// Window functions over more rows than sort_buffer_size holds: the window's sort spills to
/// files and the values are the same as in memory.
#[test]
fn window_functions_over_a_spilled_sort() {
    let (_t, mut s) = engine_and_session();
    exec_all(
        &mut s,
        &[
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE t0 (a INT)",
            "INSERT INTO t0 VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)",
            "CREATE TABLE t1 (a INT, b INT)",
            "INSERT INTO t1 SELECT A.a + 10 * B.a + 100 * C.a + 1000 * D.a, A.a FROM t0 A, t0 B, t0 C, t0 D",
            "SET sort_buffer_size = 1024",
        ],
    );
    let started = std::time::Instant::now();
    let sql = "SELECT a, SUM(a) OVER (ORDER BY a ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS s, \
               ROW_NUMBER() OVER (PARTITION BY b ORDER BY a DESC) AS rn FROM t1 ORDER BY a LIMIT 3";
    assert_eq!(
        rows(&mut s, sql),
        [["0", "3", "1000"], ["1", "6", "1000"], ["2", "10", "1000"]]
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "a spilled window sort took {:?}",
        started.elapsed()
    );
}

/// A subquery nested 40 deep answers at once: each walk over the plan (the tables a
/// statement reads, for the query cache, privileges and locks) enters a subquery once,
/// though the plan names it twice (a WHERE and the index range it gives). Entering it at
/// each name doubled the walk per level: 26 levels took minutes.
#[test]
fn deeply_nested_subqueries_are_walked_once() {
    let (_t, mut s) = engine_and_session();
    exec_ok(&mut s, "CREATE DATABASE nest");
    exec_ok(&mut s, "USE nest");
    exec_ok(&mut s, "CREATE TABLE t1 (a INT, b INT, KEY (a), KEY (b))");
    exec_ok(
        &mut s,
        "INSERT INTO t1 VALUES (1,2),(2,1),(2,3),(3,4),(5,4),(5,5),(6,7),(7,4),(5,3)",
    );
    let mut sql = "SELECT SUM(a), a FROM t1 WHERE a > (SELECT SUM(a) FROM t1".to_string();
    let mut end = ") GROUP BY a".to_string();
    for _ in 0..40 {
        sql.push_str(" WHERE a > (SELECT SUM(a) FROM t1");
        end = format!(") GROUP BY b LIMIT 1{end}");
    }
    assert!(rows(&mut s, &format!("{sql}{end}")).is_empty());
    // One level, with rows: the a under 3 sum to 5.
    let one = "SELECT a FROM t1 WHERE a > (SELECT SUM(a) FROM t1 WHERE a < 3) ORDER BY a";
    assert_eq!(
        rows(&mut s, one),
        vec![vec!["6".to_string()], vec!["7".to_string()]]
    );
}
