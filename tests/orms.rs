//! ORMs against myriad and MariaDB: each script (Python, from PyPI) runs its ORM's own
//! schema management and queries against both servers, and both must print the same.
//!
//! - tests/django_orm.py: Django's migrations (CREATE TABLE with FOREIGN KEY and CHECK
//!   constraints, ALTER TABLE ADD CONSTRAINT, MODIFY, RENAME COLUMN), many-to-many links,
//!   1452 / 1451 from the constraints, a rolled-back transaction, inspectdb reading the
//!   foreign keys back.
//! - tests/sqlalchemy_orm.py: SQLAlchemy's create_all, reflection (columns, foreign keys
//!   with ON DELETE, unique constraints, indexes) and ORM sessions.

mod common;

use common::mariadb::start_mariadb;
use common::{run_with_timeout, Server};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Run `script` against `target` (a port or a socket path); its standard output, after
/// asserting that it ended with `done` (the line each script prints last).
fn run_script(script: &str, module: &str, target: &str, done: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(script);
    let output = run_with_timeout(
        Command::new("python3").arg(path).arg(target),
        Duration::from_secs(120),
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains(&format!("No module named '{module}'")),
        "{module} is not installed: `python3 -m pip install {module}` (.ci/run does it)"
    );
    assert!(
        output.status.success() && stdout.contains(done),
        "{script} against {target} failed\nstdout: {stdout}\nstderr: {stderr}"
    );
    stdout
}

/// `script`'s output against myriad and against MariaDB, asserted equal; myriad's.
fn same_on_both(script: &str, module: &str, done: &str) -> String {
    common::require_program("python3");
    let server = Server::start(&[]);
    let ours = run_script(script, module, &server.port.to_string(), done);
    let maria = start_mariadb();
    let theirs = run_script(script, module, &maria.socket().display().to_string(), done);
    assert_eq!(
        ours, theirs,
        "{script} saw myriad (left) and MariaDB (right) differently"
    );
    ours
}

/// Asserts that `output` holds each of `facts`, so that a script that printed less than
/// it should would fail even when both servers agree.
fn assert_facts(output: &str, facts: &[&str]) {
    for fact in facts {
        assert!(output.contains(fact), "missing {fact:?} in\n{output}");
    }
}

#[test]
fn django_migrations_and_orm_answer_as_on_mariadb() {
    let output = same_on_both("django_orm.py", "django", "django: done");
    assert_facts(
        &output,
        &[
            "orphan link: refused 1452",
            "raw delete of a referenced user: refused 1451",
            "user = models.ForeignKey('AuthUser', models.DO_NOTHING)",
            "users: ['ann', 'bob']",
        ],
    );
}

#[test]
fn sqlalchemy_schema_reflection_and_orm_answer_as_on_mariadb() {
    let output = same_on_both("sqlalchemy_orm.py", "sqlalchemy", "sqlalchemy: done");
    assert_facts(
        &output,
        &[
            "book fks: [(['author_id'], 'author', ['id'], {'ondelete': 'CASCADE'})]",
            "books per author: [('Borges', 0), ('Le Guin', 2)]",
            "books left: 0",
            "cascade on the database: 0",
            "orphan: 1452",
        ],
    );
}
