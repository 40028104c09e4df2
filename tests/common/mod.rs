//! The end-to-end harness: start the real `myriad` binary through `myriad-testkit` (a
//! temporary datadir, a free loopback port, ready once its own process listens and greets)
//! and kill it when the test ends, whether it passed or panicked. On a failing test the
//! server's log is printed and its directory kept.

#![allow(dead_code)]

pub mod mariadb;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub use myriad_testkit::{scratch_dir, Datadir};

/// How long the binary may take to answer: a fresh datadir opens in well under a second.
const STARTUP_LIMIT: Duration = Duration::from_secs(30);

/// A running `myriad` process.
pub struct Server {
    // Declared before `dir`: the process is killed before its directory is removed.
    server: myriad_testkit::Server,
    pub port: u16,
    pub dir: Datadir,
    pub datadir: PathBuf,
    pub log: PathBuf,
}

impl Server {
    /// Start with default options plus `extra_args`.
    pub fn start(extra_args: &[&str]) -> Server {
        Server::start_in(scratch_dir("server"), extra_args)
    }

    /// Start on `dir`'s datadir (a restart keeps the data of the server that used it).
    pub fn start_in(dir: Datadir, extra_args: &[&str]) -> Server {
        let bin = Path::new(env!("CARGO_BIN_EXE_myriad"));
        let launcher = myriad_testkit::Launcher::myriad(bin, &std::env::temp_dir())
            .unwrap_or_else(|e| panic!("{e:#}"))
            .args(extra_args)
            .env("MYRIAD_LOG", "info")
            .startup_limit(STARTUP_LIMIT);
        let server = launcher
            .start(&dir, &Default::default())
            .unwrap_or_else(|e| panic!("myriad did not start: {e:#}"));
        Server {
            port: server.port(),
            datadir: dir.data(),
            log: server.log_path().to_path_buf(),
            server,
            dir,
        }
    }

    /// Kills the server and hands back its directory, for a restart on the same data.
    pub fn into_dir(self) -> Datadir {
        drop(self.server);
        self.dir
    }

    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A mysql_async URL for `user`:`password`, optionally with a database.
    pub fn url(&self, user: &str, password: &str, database: Option<&str>) -> String {
        let auth = if password.is_empty() {
            user.to_string()
        } else {
            format!("{user}:{password}")
        };
        format!(
            "mysql://{auth}@127.0.0.1:{}/{}",
            self.port,
            database.unwrap_or("")
        )
    }

    pub fn log_text(&self) -> String {
        self.server.log_text()
    }

    pub fn pid(&self) -> u32 {
        self.server.pid()
    }

    /// Wait for the process to exit by itself (after SHUTDOWN or a signal).
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        self.server.wait_exit(limit)
    }

    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status();
        assert!(
            status.map(|s| s.success()).unwrap_or(false),
            "kill -{signal} failed"
        );
    }
}

/// Run a command with a time limit; the child is killed when the limit passes, so a client
/// that hangs fails the test instead of hanging it.
pub fn run_with_timeout(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let output = child.wait_with_output().expect("collect output");
                panic!(
                    "{command:?} did not finish within {limit:?} (hung?)\nstdout: {}\nstderr: {}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
            }
        }
    }
    child.wait_with_output().expect("collect output")
}

/// Whether a program is on PATH (the tests that need one fail with a clear message if not).
pub fn require_program(name: &str) {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "`{name}` is not installed; .ci/run installs it (see README)"
    );
}

/// A single-threaded tokio runtime for a test's clients.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// mysql_async options for root on `server`'s TCP port, in `database` when given.
pub fn async_opts(server: &Server, database: Option<&str>) -> mysql_async::Opts {
    mysql_async::OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(server.port)
        .user(Some("root"))
        .db_name(database)
        .prefer_socket(false)
        .into()
}

/// A global status counter read through mysql_async; panics when the server lacks it.
pub async fn async_status(conn: &mut mysql_async::Conn, name: &str) -> u64 {
    use mysql_async::prelude::Queryable;
    let row: Option<(String, String)> = conn
        .query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))
        .await
        .expect("SHOW GLOBAL STATUS");
    let (_, value) = row.unwrap_or_else(|| panic!("no status variable {name}"));
    value
        .parse()
        .unwrap_or_else(|_| panic!("{name} = {value:?} is not a number"))
}
