//! Django's ORM: tests/django_orm.py (Django and PyMySQL from PyPI) runs Django's own
//! migrations and ORM calls against myriad and against MariaDB, and both must print the
//! same: tables made with FOREIGN KEY and CHECK constraints and altered with ADD
//! CONSTRAINT, MODIFY and RENAME COLUMN, many-to-many links, 1452 / 1451 from the
//! constraints, a rolled-back transaction, and inspectdb reading the foreign keys back.

mod common;

use common::mariadb::start_mariadb;
use common::{run_with_timeout, Server};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn run_script(target: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("django_orm.py");
    let output = run_with_timeout(
        Command::new("python3").arg(script).arg(target),
        Duration::from_secs(120),
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("No module named 'django'"),
        "Django is not installed: `python3 -m pip install django` (.ci/run does it)"
    );
    assert!(
        output.status.success() && stdout.contains("django: done"),
        "django_orm.py against {target} failed\nstdout: {stdout}\nstderr: {stderr}"
    );
    stdout
}

#[test]
fn django_migrations_and_orm_answer_as_on_mariadb() {
    common::require_program("python3");
    let server = Server::start(&[]);
    let ours = run_script(&server.port.to_string());
    let maria = start_mariadb();
    let theirs = run_script(&maria.socket().display().to_string());
    assert_eq!(
        ours, theirs,
        "Django saw myriad (left) and MariaDB (right) differently"
    );
    // The facts the comparison rests on, so that a script that printed less would fail.
    for fact in [
        "orphan link: refused 1452",
        "raw delete of a referenced user: refused 1451",
        "user = models.ForeignKey('AuthUser', models.DO_NOTHING)",
        "users: ['ann', 'bob']",
    ] {
        assert!(ours.contains(fact), "missing {fact:?} in\n{ours}");
    }
}
