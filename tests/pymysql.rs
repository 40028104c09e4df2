//! A Python client: runs tests/pymysql_client.py (PyMySQL from PyPI) against
//! the real server; the script checks every value and exits non-zero on the first failure.

mod common;

use common::{require_program, run_with_timeout, Server};
use std::process::Command;
use std::time::Duration;

#[test]
fn pymysql_client_script_passes() {
    require_program("python3");
    let server = Server::start(&[]);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pymysql_client.py");
    let output = run_with_timeout(
        Command::new("python3")
            .arg(script)
            .arg(server.port.to_string()),
        Duration::from_secs(60),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("No module named 'pymysql'"),
        "PyMySQL is not installed: `python3 -m pip install pymysql` (.ci/run does it)"
    );
    assert!(
        output.status.success(),
        "pymysql_client.py failed\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stdout.contains("pymysql: all checks passed"), "{stdout}");
}
