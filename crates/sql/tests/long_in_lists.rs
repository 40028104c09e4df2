//! IN lists long enough to be read from the statement text instead of its tokens: the
//! answers, column names and errors are those of the same lists taken the ordinary way.

mod common;
use common::*;
use myriad_sql::Session;

fn list(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

/// `small`: ids 1..=2000, `k = id`, `s = 's<id>'`, `d = id / 4` (a decimal), no index on
/// them.
fn small() -> (TestEngine, Session) {
    let (t, mut s) = engine_and_session();
    exec_ok(&mut s, "CREATE DATABASE d");
    exec_ok(&mut s, "USE d");
    exec_ok(
        &mut s,
        "CREATE TABLE small (id INT PRIMARY KEY, k INT, s VARCHAR(10), d DECIMAL(10,2))",
    );
    for chunk in (1..=2000).collect::<Vec<u32>>().chunks(500) {
        let values = list(chunk.iter().map(|i| format!("({i}, {i}, 's{i}', {i} / 4)")));
        exec_ok(&mut s, &format!("INSERT INTO small VALUES {values}"));
    }
    (t, s)
}

#[test]
fn a_million_constants_count_the_rows_they_name() {
    let (_t, mut s) = small();
    let constants = list((0..1_000_000u64).map(|i| (i * 3).to_string()));
    let sql = format!("SELECT COUNT(*) FROM small WHERE k IN ({constants})");
    assert_eq!(scalar(&mut s, &sql), "666");
    // Again (the plan may now come from the session's cache), and negated.
    assert_eq!(scalar(&mut s, &sql), "666");
    let sql = format!("SELECT COUNT(*) FROM small WHERE k NOT IN ({constants})");
    assert_eq!(scalar(&mut s, &sql), "1334");
}

#[test]
fn lists_from_the_text_answer_as_the_ordinary_ones() {
    let (_t, mut s) = small();
    let lists = [
        list((0..200).map(|i| format!("-{}", i * 7))),
        list((0..200).map(|i| (i * 7).to_string())),
        list((0..200).map(|i| format!("'s{}'", i * 5))),
        list((0..200).map(|i| match i % 4 {
            0 => "NULL".to_string(),
            1 => format!("'{}'", i * 3),
            2 => format!("{}.25", i),
            _ => format!("-{i}"),
        })),
        list((0..200).map(|i| format!("{}.5", i * 2))),
    ];
    for items in &lists {
        for column in ["k", "s", "d", "-k"] {
            for not in ["", "NOT "] {
                // A `(...)` item keeps the list from either shortcut: sqlparser takes it.
                let taken = format!("SELECT id FROM small WHERE {column} {not}IN ({items})");
                let ordinary =
                    format!("SELECT id FROM small WHERE {column} {not}IN ({items}, (-99999))");
                assert_eq!(rows(&mut s, &taken), rows(&mut s, &ordinary), "{taken}");
            }
        }
    }
}

#[test]
fn names_and_errors_around_a_list_read_from_the_text() {
    let (_t, mut s) = small();
    let numbers = list((0..100).map(|i| i.to_string()));
    // The column is named by the text, list included.
    let sql = format!("SELECT 5 IN ({numbers}) FROM small WHERE id = 1");
    match one(&mut s, &sql).unwrap() {
        myriad_sql::QueryResult::Rows { columns, rows, .. } => {
            assert_eq!(columns[0].name, format!("5 IN ({numbers})"));
            assert_eq!(rows.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    // A syntax error after the list points where it does in the ordinary path, over lines.
    for after in [") AND AND 1", ")\n  FROM WHERE x", ")\n ORDER BY 'é',, 1"] {
        let taken = format!("SELECT COUNT(*) FROM small\nWHERE k IN (\n{numbers}\n{after}");
        let ordinary = format!("SELECT COUNT(*) FROM small WHERE k IN ({numbers}, (1){after}");
        let e = one(&mut s, &taken).unwrap_err();
        assert_eq!(e.code, 1064, "{taken}");
        assert_eq!(e.message, one(&mut s, &ordinary).unwrap_err().message);
    }
    // One inside the list: the list is left to the tokenizer, which finds it.
    let sql = format!("SELECT COUNT(*) FROM small WHERE k IN ({numbers},, 1)");
    let e = one(&mut s, &sql).unwrap_err();
    assert_eq!((e.code, e.message), (1064, error_near(", 1)")));
    // A list that ends the text but is not closed.
    let sql = format!("SELECT COUNT(*) FROM small WHERE k IN ({numbers}");
    assert_eq!(error_code(&mut s, &sql), 1064);
    // Statements the hand-written parsers take read such lists too.
    exec_ok(
        &mut s,
        &format!("SET @a = 5 IN ({numbers}), @b = -1 NOT IN ({numbers})"),
    );
    assert_eq!(rows(&mut s, "SELECT @a, @b"), vec![vec!["1", "1"]]);
    exec_ok(&mut s, &format!("DO 5 IN ({numbers})"));
    // Two statements, a list in each.
    let sql = format!("SELECT 1 IN ({numbers}); SELECT 'a' IN ({numbers})");
    let results = s.execute(&sql, true);
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r.is_ok()));
}

fn error_near(near: &str) -> String {
    format!(
        "You have an error in your SQL syntax; check the manual that corresponds to your \
         MariaDB server version for the right syntax to use near '{near}' at line 1"
    )
}
