//! Golden plan tests: the EXPLAIN output of each access path myriad has, checked in under
//! `tests/explain/`, one file per family, so that plans are tested rather than guessed.
//!
//! A file opens with a `#` line saying what it shows. Then, line by line:
//! - `# ...` and blank lines are comments;
//! - any other line is a setup statement, run on myriad (and on MariaDB) and required to
//!   succeed;
//! - `> SQL` runs SQL on myriad; the lines after it, up to a blank line, a comment or the
//!   next statement, are its expected
//!   output (a header line and one line per row, values joined by ` | `, or `ok N`, or
//!   `error CODE`);
//! - `>> SQL` is the same, and MariaDB 10.11 must also agree on the result's column names
//!   and types and on the columns a plan's shape is made of: id, select_type, table, type
//!   and key. Plans where myriad does something
//!   else than MariaDB (no join reordering, no full index scan) use `>`, with a comment
//!   saying how MariaDB's differs.
//!
//! Each file runs in a fresh database named after it. `UPDATE_GOLDEN=1 cargo test -p
//! myriad-sql --test explain_plans` rewrites the expected outputs from what myriad
//! returns (review the diff). MariaDB is started as in `differential.rs`; set
//! MYRIAD_SKIP_MARIADB=1 to skip that comparison where it is not installed.

mod common;
mod mariadb;

use mariadb::{outcome_of, MariaDb, Outcome};
use std::path::PathBuf;

/// The columns MariaDB must agree on for `>>` statements: id, select_type, table, type, key.
const SHAPE_COLUMNS: [usize; 5] = [0, 1, 2, 3, 5];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/explain")
}

fn render(o: &Outcome) -> Vec<String> {
    match o {
        Outcome::Error { code } => vec![format!("error {code}")],
        Outcome::Ok { affected } => vec![format!("ok {affected}")],
        Outcome::Rows { names, rows, .. } => {
            let mut out = vec![names.join(" | ")];
            for r in rows {
                let cells: Vec<&str> = r.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect();
                out.push(cells.join(" | ").trim_end().to_string());
            }
            out
        }
    }
}

/// The column names and type codes, and the shape columns of each row.
type Shape = (Vec<String>, Vec<u8>, Vec<Vec<Option<String>>>);

fn shape(o: &Outcome) -> Option<Shape> {
    let Outcome::Rows { names, types, rows } = o else {
        return None;
    };
    let rows = rows
        .iter()
        .map(|r| {
            SHAPE_COLUMNS
                .iter()
                .map(|&i| r.get(i).cloned().flatten())
                .collect()
        })
        .collect();
    Some((names.clone(), types.clone(), rows))
}

/// Runs one golden file; returns its text with the outputs myriad gave, and the
/// differences from the expected outputs and from MariaDB.
fn run_file(name: &str, text: &str, maria: &mut Option<MariaDb>) -> (String, Vec<String>) {
    let t = common::engine();
    let mut session = common::session(&t.engine);
    let mut failures = Vec::new();
    let mut out = String::new();
    let mut both = |sql: &str, maria: &mut Option<MariaDb>| {
        let ours = outcome_of(&session.execute(sql, false).remove(0));
        let theirs = maria.as_mut().map(|m| m.run(sql));
        (ours, theirs)
    };
    for setup in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
        format!("USE {name}"),
    ] {
        both(&setup, maria);
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let (sql, compare) = if let Some(sql) = line.strip_prefix(">> ") {
            (sql, true)
        } else if let Some(sql) = line.strip_prefix("> ") {
            (sql, false)
        } else {
            out.push_str(line);
            out.push('\n');
            if !line.trim().is_empty() && !line.starts_with('#') {
                let (ours, theirs) = both(line, maria);
                for (who, o) in [("myriad", Some(ours)), ("MariaDB", theirs)] {
                    if let Some(Outcome::Error { code }) = o {
                        failures.push(format!("{name}: setup `{line}` failed on {who}: {code}"));
                    }
                }
            }
            continue;
        };
        let mut expected = Vec::new();
        // The output runs to a blank line, the next statement or a comment.
        let ends = |l: &str| l.trim().is_empty() || l.starts_with('>') || l.starts_with('#');
        while i < lines.len() && !ends(lines[i]) {
            expected.push(lines[i].to_string());
            i += 1;
        }
        let (ours, theirs) = both(sql, maria);
        let got = render(&ours);
        if got != expected {
            failures.push(format!(
                "{name}: `{sql}`\n  expected:\n    {}\n  got:\n    {}",
                expected.join("\n    "),
                got.join("\n    ")
            ));
        }
        if let (true, Some(theirs)) = (compare, theirs) {
            if shape(&ours) != shape(&theirs) || shape(&ours).is_none() {
                failures.push(format!(
                    "{name}: `{sql}`: MariaDB's columns or plan differ (names, types, id/select_type/table/type/key)\n  myriad:\n    {}\n  MariaDB:\n    {}",
                    got.join("\n    "),
                    render(&theirs).join("\n    ")
                ));
            }
        }
        out.push_str(line);
        out.push('\n');
        for g in got {
            out.push_str(&g);
            out.push('\n');
        }
    }
    (out, failures)
}

/// Every golden file under `tests/explain/`, against one MariaDB.
#[test]
fn explain_plans_match_golden_files() {
    let mut maria = MariaDb::start_or_skip();
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/explain")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "test"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "the golden files are found: {files:?}");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for path in &files {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("file name");
        let text = std::fs::read_to_string(path).expect("golden file");
        assert!(
            text.starts_with("# "),
            "{name}: a golden file opens with a line saying what it shows"
        );
        let (actual, found) = run_file(name, &text, &mut maria);
        if update {
            std::fs::write(path, &actual).expect("rewrite golden file");
            // Only differences from the checked-in outputs are fixed by rewriting them.
            failures.extend(found.into_iter().filter(|f| !f.contains("\n  expected:")));
        } else {
            failures.extend(found);
        }
    }
    assert!(
        failures.is_empty(),
        "{} difference(s) (UPDATE_GOLDEN=1 rewrites the expected outputs):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
