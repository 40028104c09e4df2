//! A MariaDB 10.11 peer for differential tests: `mariadbd` with its own datadir and unix
//! socket (no TCP), killed on drop, and the `mariadb` client run against it or against a
//! myriad [`Server`] with the same options, so that both answers can be compared.

use super::{require_program, run_with_timeout, Server, TempDir};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running mariadbd; killed when dropped.
pub struct MariaDb {
    child: Child,
    pub socket: PathBuf,
    dir: TempDir,
}

impl MariaDb {
    /// Install a fresh datadir and start mariadbd on it (`extra_args` are server options).
    pub fn start(extra_args: &[&str]) -> MariaDb {
        require_program("mariadbd");
        require_program("mariadb-install-db");
        let dir = TempDir::new("mariadbd");
        let datadir = dir.path().join("data");
        let socket = dir.path().join("mysqld.sock");
        let user = std::env::var("USER").unwrap_or_else(|_| "root".into());
        // Its own tmpdir: MariaDBs sharing /tmp collide on temporary table names.
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).expect("tmpdir");
        let out = Command::new("mariadb-install-db")
            .args([
                "--no-defaults",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ])
            .arg(format!("--datadir={}", datadir.display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .arg(format!("--user={user}"))
            .output()
            .expect("run mariadb-install-db");
        assert!(
            out.status.success(),
            "mariadb-install-db: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let child = Command::new("mariadbd")
            .arg("--no-defaults")
            .arg(format!("--datadir={}", datadir.display()))
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--pid-file={}", dir.path().join("pid").display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .arg(format!(
                "--log-error={}",
                dir.path().join("error.log").display()
            ))
            .arg(format!("--user={user}"))
            .args(["--skip-networking", "--innodb-buffer-pool-size=16M"])
            .args(extra_args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mariadbd");
        let started = Instant::now();
        while !socket.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "mariadbd did not open its socket: {}",
                std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        MariaDb { child, socket, dir }
    }

    pub fn dir(&self) -> &TempDir {
        &self.dir
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where the `mariadb` client connects.
pub enum Peer<'a> {
    Myriad(&'a Server),
    Maria(&'a MariaDb),
}

/// Run `sql` as root with `mariadb --batch --silent`: what it printed on standard output
/// followed by its error line, if any ("ERROR 1094 (HY000) at line 1: Unknown thread id: 9").
/// The client's echo of the failed statement (between two lines of dashes) is left out: it
/// prints it when the error ends the query's first reply, not when it ends a result set
/// whose columns had come (MariaDB sends the columns of `SELECT SLEEP(1)` before its
/// max_statement_time error), and the error is the same.
pub fn run(peer: &Peer, sql: &str) -> String {
    require_program("mariadb");
    let mut command = Command::new("mariadb");
    match peer {
        Peer::Myriad(server) => command.args(["-h127.0.0.1", &format!("-P{}", server.port)]),
        Peer::Maria(maria) => command.arg(format!("-S{}", maria.socket.display())),
    };
    command.args(["-uroot", "--batch", "--silent", "-e", sql]);
    let out = run_with_timeout(&mut command, Duration::from_secs(60));
    let mut errors = String::new();
    let mut in_echo = false;
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        if line == "--------------" {
            in_echo = !in_echo;
        } else if !in_echo && !line.is_empty() {
            errors.push_str(line);
        }
    }
    format!("{}{errors}", String::from_utf8_lossy(&out.stdout))
}
