//! A Python client: runs tests/pymysql_client.py (PyMySQL from PyPI) against
//! the real server; the script checks every value and exits non-zero on the first failure.

mod common;

use std::time::Duration;

#[test]
fn pymysql_client_script_passes() {
    let (success, stdout, stderr) =
        common::run_python("pymysql_client.py", Duration::from_secs(60));
    assert!(
        !stderr.contains("No module named 'pymysql'"),
        "PyMySQL is not installed: `python3 -m pip install pymysql` (.ci/run does it)"
    );
    assert!(
        success,
        "pymysql_client.py failed\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stdout.contains("pymysql: all checks passed"), "{stdout}");
}
