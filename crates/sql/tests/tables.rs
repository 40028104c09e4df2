//! SQL over stored tables: DDL, INSERT with MySQL's checks, SELECT with WHERE through
//! indexes, UPDATE, DELETE, and the errors of bad input leaving data untouched.

mod common;
use common::*;
use myriad_sql::{QueryResult, Value};

fn setup() -> (TestEngine, myriad_sql::Session) {
    let t = engine();
    let mut s = session(&t.engine);
    exec_ok(&mut s, "CREATE DATABASE shop");
    exec_ok(&mut s, "USE shop");
    exec_ok(
        &mut s,
        "CREATE TABLE items (id INT UNSIGNED NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT '0', \
         name VARCHAR(10) NOT NULL DEFAULT '', price DECIMAL(6,2), PRIMARY KEY (id), KEY k_1 (k)) \
         ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    );
    (t, s)
}

#[test]
fn create_insert_select_by_primary_key_and_index() {
    let (_t, mut s) = setup();
    assert_eq!(rows(&mut s, "SHOW TABLES"), vec![vec!["items"]]);
    let r = one(&mut s, "INSERT INTO items (k, name, price) VALUES (5, 'apple', 1.5), (7, 'pear', 2.25), (5, 'fig', NULL)").unwrap();
    let QueryResult::Ok {
        affected_rows,
        last_insert_id,
        ..
    } = r
    else {
        panic!("ok expected")
    };
    assert_eq!((affected_rows, last_insert_id), (3, 1));
    assert_eq!(scalar(&mut s, "SELECT LAST_INSERT_ID()"), "1");
    assert_eq!(
        rows(&mut s, "SELECT name, price FROM items WHERE id = 2"),
        vec![vec!["pear", "2.25"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM items WHERE k = 5 ORDER BY id"),
        vec![vec!["1"], vec!["3"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM items WHERE id IN (3, 1, 9) ORDER BY id DESC"
        ),
        vec![vec!["3"], vec!["1"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM items WHERE id BETWEEN 2 AND 3"),
        vec![vec!["2"], vec!["3"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM items WHERE id > 1 AND id < 3"),
        vec![vec!["2"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM items WHERE name LIKE 'P%'"),
        vec![vec!["2"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM items WHERE price IS NULL"),
        vec![vec!["3"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*), SUM(k), MIN(name), MAX(price) FROM items"
        ),
        vec![vec!["3", "17", "apple", "2.25"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT DISTINCT k FROM items ORDER BY k"),
        vec![vec!["5"], vec!["7"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT * FROM items WHERE id = 1"),
        vec![vec!["1", "5", "apple", "1.50"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, k * 2 AS d FROM items ORDER BY d DESC, id LIMIT 1, 1"
        ),
        vec![vec!["1", "10"]]
    );
    // A string compared with the integer key still finds the row.
    assert_eq!(
        rows(&mut s, "SELECT id FROM items WHERE id = '2'"),
        vec![vec!["2"]]
    );
    assert!(rows(&mut s, "SELECT id FROM items WHERE id = NULL").is_empty());
    let cols = s.field_list("items").unwrap();
    assert_eq!(cols.len(), 4);
    assert_eq!(cols[0].name, "id");
}

#[test]
fn prepared_point_select_and_updates() {
    let (_t, mut s) = setup();
    exec_ok(
        &mut s,
        "INSERT INTO items (k, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    );
    let p = s.prepare("SELECT name FROM items WHERE id = ?").unwrap();
    assert_eq!(p.param_count, 1);
    for (id, name) in [(1u64, "a"), (3, "c")] {
        let QueryResult::Rows { rows, .. } = s
            .execute_prepared(p.statement_id, &[Value::UInt(id)])
            .unwrap()
        else {
            panic!("rows")
        };
        assert_eq!(**rows, vec![vec![Value::Bytes(name.as_bytes().to_vec())]]);
    }
    let r = one(&mut s, "UPDATE items SET k = k + 1 WHERE id = 2").unwrap();
    assert!(matches!(
        r,
        QueryResult::Ok {
            affected_rows: 1,
            ..
        }
    ));
    assert_eq!(scalar(&mut s, "SELECT k FROM items WHERE id = 2"), "3");
    let r = one(&mut s, "UPDATE items SET k = 3 WHERE id = 2").unwrap();
    assert!(
        matches!(
            r,
            QueryResult::Ok {
                affected_rows: 0,
                ..
            }
        ),
        "unchanged rows are not affected"
    );
    let r = one(&mut s, "DELETE FROM items WHERE k >= 3").unwrap();
    assert!(matches!(
        r,
        QueryResult::Ok {
            affected_rows: 2,
            ..
        }
    ));
    assert_eq!(rows(&mut s, "SELECT id FROM items"), vec![vec!["1"]]);
}

#[test]
fn bad_input_returns_mysql_errors_and_changes_nothing() {
    let (_t, mut s) = setup();
    exec_ok(&mut s, "INSERT INTO items (id, k, name) VALUES (1, 1, 'a')");
    assert_eq!(
        error_code(
            &mut s,
            "INSERT INTO items (id, k, name) VALUES (2, 1, 'b'), (1, 1, 'dup')"
        ),
        1062
    );
    assert_eq!(
        scalar(&mut s, "SELECT COUNT(*) FROM items"),
        "1",
        "the failed statement left no row"
    );
    assert_eq!(
        error_code(
            &mut s,
            "INSERT INTO items (k, name) VALUES (1, 'much too long')"
        ),
        1406
    );
    assert_eq!(
        error_code(
            &mut s,
            "INSERT INTO items (k, name) VALUES (99999999999, 'x')"
        ),
        1264
    );
    assert_eq!(
        error_code(&mut s, "INSERT INTO items (k, name) VALUES ('abc', 'x')"),
        1366
    );
    assert_eq!(
        error_code(&mut s, "INSERT INTO items (k, name) VALUES (NULL, 'x')"),
        1048
    );
    assert_eq!(
        error_code(&mut s, "INSERT INTO items (k) VALUES (1, 2)"),
        1136
    );
    assert_eq!(
        error_code(&mut s, "INSERT INTO items (nope) VALUES (1)"),
        1054
    );
    assert_eq!(error_code(&mut s, "SELECT nope FROM items"), 1054);
    assert_eq!(error_code(&mut s, "SELECT * FROM missing"), 1146);
    assert_eq!(error_code(&mut s, "SELECT * FROM nodb.items"), 1146);
    assert_eq!(error_code(&mut s, "CREATE TABLE items (a INT)"), 1050);
    exec_ok(&mut s, "CREATE TABLE IF NOT EXISTS items (a INT)");
    assert_eq!(error_code(&mut s, "DROP TABLE missing"), 1051);
    exec_ok(&mut s, "DROP TABLE IF EXISTS missing");
    exec_ok(
        &mut s,
        "INSERT IGNORE INTO items (id, k, name) VALUES (1, 1, 'dup'), (2, 2, 'b')",
    );
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1062");
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM items"), "2");
    exec_ok(&mut s, "SET sql_mode = ''");
    exec_ok(
        &mut s,
        "INSERT INTO items (k, name) VALUES (99999999999, 'much too long')",
    );
    assert_eq!(
        rows(&mut s, "SELECT k, name FROM items WHERE id = 3"),
        vec![vec!["2147483647", "much too l"]]
    );
    exec_ok(
        &mut s,
        "REPLACE INTO items (id, k, name) VALUES (1, 42, 'new')",
    );
    assert_eq!(
        rows(&mut s, "SELECT k, name FROM items WHERE id = 1"),
        vec![vec!["42", "new"]]
    );
    exec_ok(&mut s, "TRUNCATE TABLE items");
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM items"), "0");
    exec_ok(&mut s, "DROP TABLE items");
    assert!(rows(&mut s, "SHOW TABLES").is_empty());
}

#[test]
fn data_survives_reopening_the_engine() {
    let t = engine();
    {
        let mut s = session(&t.engine);
        exec_all(
            &mut s,
            &[
                "CREATE DATABASE d",
                "CREATE TABLE d.t (id BIGINT PRIMARY KEY, v VARCHAR(20), at DATETIME, day DATE, f DOUBLE)",
                "INSERT INTO d.t VALUES (1, 'x', '2024-02-03 04:05:06', '2024-02-03', 1.5)",
            ],
        );
    }
    t.engine.shutdown().unwrap();
    let dir = t.dir.path().to_path_buf();
    let TestEngine {
        engine,
        dir: tempdir,
    } = t;
    drop(engine);
    let reopened = myriad_sql::Engine::open(myriad_sql::EngineConfig {
        datadir: dir,
        variables: Vec::new(),
    })
    .unwrap();
    let mut s = session(&reopened);
    assert_eq!(
        rows(&mut s, "SELECT * FROM d.t"),
        vec![vec!["1", "x", "2024-02-03 04:05:06", "2024-02-03", "1.5"]]
    );
    drop(tempdir);
}

#[test]
fn repeated_text_queries_use_the_plan_cache_and_follow_ddl() {
    let (_t, mut s) = setup();
    exec_ok(
        &mut s,
        "INSERT INTO items (k, name) VALUES (1, 'a'), (2, 'b')",
    );
    for _ in 0..3 {
        assert_eq!(
            rows(&mut s, "SELECT name FROM items WHERE k = 2"),
            vec![vec!["b"]]
        );
    }
    exec_ok(&mut s, "CREATE INDEX by_name ON items (name)");
    assert_eq!(
        rows(&mut s, "SELECT name FROM items WHERE k = 2"),
        vec![vec!["b"]]
    );
    exec_ok(&mut s, "DROP TABLE items");
    assert_eq!(
        error_code(&mut s, "SELECT name FROM items WHERE k = 2"),
        1146
    );
    exec_ok(&mut s, "CREATE TABLE items (k INT, name VARCHAR(3))");
    exec_ok(&mut s, "INSERT INTO items VALUES (2, 'new')");
    assert_eq!(
        rows(&mut s, "SELECT name FROM items WHERE k = 2"),
        vec![vec!["new"]]
    );
}

#[test]
fn rollback_undoes_the_transactions_writes() {
    let (_t, mut s) = setup();
    exec_ok(&mut s, "INSERT INTO items (k, name) VALUES (1, 'kept')");
    exec_ok(&mut s, "BEGIN");
    exec_ok(&mut s, "INSERT INTO items (k, name) VALUES (2, 'a')");
    exec_ok(&mut s, "UPDATE items SET name = 'changed'");
    assert!(s.in_transaction());
    let r = one(&mut s, "ROLLBACK").unwrap();
    assert!(matches!(r, QueryResult::Ok { warnings: 0, .. }));
    assert!(!s.in_transaction());
    assert_eq!(
        rows(&mut s, "SELECT k, name FROM items"),
        vec![vec!["1", "kept"]]
    );
}

#[test]
fn group_by_having_and_aggregate_expressions() {
    let (_t, mut s) = setup();
    exec_ok(&mut s, "INSERT INTO items (k, name, price) VALUES (1, 'a', 1.00), (1, 'B', 2.50), (2, 'b', NULL), (3, 'c', 4.00)");
    assert_eq!(
        rows(
            &mut s,
            "SELECT k, COUNT(*), SUM(price) FROM items GROUP BY k"
        ),
        vec![
            vec!["1", "2", "3.50"],
            vec!["2", "1", "NULL"],
            vec!["3", "1", "4.00"]
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT k, COUNT(*) AS n FROM items GROUP BY k HAVING n > 1"
        ),
        vec![vec!["1", "2"]]
    );
    // Strings group by the collation: 'B' and 'b' are one group.
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM items GROUP BY name ORDER BY COUNT(*) DESC LIMIT 1"
        ),
        vec![vec!["2"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) * 10, MAX(k) - MIN(k) FROM items"),
        vec![vec!["40", "2"]]
    );
    assert!(rows(
        &mut s,
        "SELECT k, COUNT(*) FROM items WHERE k > 9 GROUP BY k"
    )
    .is_empty());
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*), SUM(k) FROM items WHERE k > 9"),
        vec![vec!["0", "NULL"]]
    );
}

#[test]
fn a_512_kib_insert_statement() {
    let t = engine();
    let mut s = session(&t.engine);
    exec_ok(&mut s, "CREATE DATABASE big");
    exec_ok(
        &mut s,
        "CREATE TABLE big.t (id INT PRIMARY KEY, c CHAR(120), note VARCHAR(20))",
    );
    let values: Vec<String> = (1..=4200)
        .map(|i| format!("({i}, '{}', 'héllo {i}')", "x".repeat(110)))
        .collect();
    let sql = format!("INSERT INTO big.t VALUES {}", values.join(","));
    assert!(
        sql.len() > 512 * 1024,
        "the statement is {} bytes",
        sql.len()
    );
    let started = std::time::Instant::now();
    let r = one(&mut s, &sql).unwrap();
    assert!(matches!(
        r,
        QueryResult::Ok {
            affected_rows: 4200,
            ..
        }
    ));
    assert!(
        started.elapsed().as_secs() < 20,
        "a large INSERT must not be quadratic in its length"
    );
    assert_eq!(scalar(&mut s, "SELECT COUNT(*) FROM big.t"), "4200");
    assert_eq!(
        scalar(&mut s, "SELECT note FROM big.t WHERE id = 4200"),
        "héllo 4200"
    );
}

/// A joined table read whole (no index for its ON) is kept in memory while its rows fit
/// in min(tmp_table_size, max_heap_table_size); past that the join reads it again for each
/// row joined to it. Both ways give the same rows in the same order.
#[test]
fn joins_past_the_memory_budget_give_the_same_rows() {
    let (_t, mut s) = setup();
    exec_ok(
        &mut s,
        "CREATE TABLE other (id INT PRIMARY KEY, k INT, tag VARCHAR(20))",
    );
    let other: Vec<(u32, u32)> = (1..=120).map(|i| (i, i % 7)).collect();
    let values: Vec<String> = other
        .iter()
        .map(|(id, k)| format!("({id}, {k}, 'tag-{id}')"))
        .collect();
    exec_ok(
        &mut s,
        &format!("INSERT INTO other VALUES {}", values.join(", ")),
    );
    let items: Vec<u32> = (1..=40).map(|i| i % 9).collect();
    let values: Vec<String> = items.iter().map(|k| format!("({k}, 'n')")).collect();
    exec_ok(
        &mut s,
        &format!("INSERT INTO items (k, name) VALUES {}", values.join(", ")),
    );
    let queries = [
        "SELECT items.id, other.id FROM items JOIN other ON other.k = items.k + 1",
        "SELECT items.id, other.tag FROM items LEFT JOIN other ON other.k = items.k AND other.id > 100",
        "SELECT COUNT(*), SUM(other.id) FROM items, other WHERE items.k = other.k",
        "SELECT other.k, COUNT(*) FROM items JOIN other ON items.k < other.k GROUP BY other.k",
        "SELECT a.id, b.id, c.id FROM other a JOIN items b ON b.k = a.k JOIN other c ON c.k = (b.k + a.k) % 7 WHERE a.id < 20 LIMIT 50",
    ];
    let within: Vec<Vec<Vec<String>>> = queries.iter().map(|q| rows(&mut s, q)).collect();
    let pairs: Vec<(u32, u32)> = items
        .iter()
        .flat_map(|&k| other.iter().filter(move |o| o.1 == k).copied())
        .collect();
    let sum: u32 = pairs.iter().map(|(id, _)| id).sum();
    assert_eq!(
        within[2],
        vec![vec![pairs.len().to_string(), sum.to_string()]]
    );
    assert_eq!(within[4].len(), 50, "the LIMIT stops the join");
    assert!(within.iter().all(|r| !r.is_empty()));
    exec_ok(&mut s, "SET SESSION tmp_table_size = 1024");
    for (q, expected) in queries.iter().zip(&within) {
        assert_eq!(&rows(&mut s, q), expected, "{q}");
    }
}
