//! The end-to-end harness: start the real `myriad` binary on a free loopback port with a
//! temporary datadir, wait until it accepts connections, and kill it when the test ends,
//! whether it passed or panicked (the [`Server`] guard's Drop). On a failing test the
//! server's log is printed.

#![allow(dead_code)]

pub mod mariadb;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A scratch directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "myriad-e2e-{label}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).expect("create the temporary directory");
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Whether process `pid` holds a TCP socket listening on `port` (from /proc: the socket
/// inodes of its descriptors against the LISTEN entries of /proc/net/tcp and tcp6).
pub fn listens_on(pid: u32, port: u16) -> bool {
    let suffix = format!(":{port:04X}");
    let mut listening = std::collections::HashSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            if fields.len() > 9 && fields[1].ends_with(&suffix) && fields[3] == "0A" {
                listening.insert(format!("socket:[{}]", fields[9]));
            }
        }
    }
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path())
            .is_ok_and(|target| listening.contains(&target.to_string_lossy().into_owned()))
    })
}

/// A running `myriad` process.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    pub dir: TempDir,
    pub datadir: PathBuf,
    pub log: PathBuf,
}

impl Server {
    /// Start with default options plus `extra_args`.
    pub fn start(extra_args: &[&str]) -> Server {
        Server::start_in(TempDir::new("server"), extra_args)
    }

    pub fn start_in(mut dir: TempDir, extra_args: &[&str]) -> Server {
        let datadir = dir.path().join("data");
        let log = dir.path().join("server.log");
        for _attempt in 0..3 {
            let port = free_port();
            let log_file = std::fs::File::create(&log).expect("create the server log");
            let child = Command::new(env!("CARGO_BIN_EXE_myriad"))
                .arg(format!("--port={port}"))
                .arg(format!("--datadir={}", datadir.display()))
                .args(extra_args)
                .env("MYRIAD_LOG", "info")
                .stdin(Stdio::null())
                .stdout(log_file.try_clone().expect("log handle"))
                .stderr(log_file)
                .spawn()
                .expect("start the myriad binary");
            let mut server = Server {
                child: Some(child),
                port,
                dir,
                datadir: datadir.clone(),
                log: log.clone(),
            };
            if server.wait_ready(Duration::from_secs(30)) {
                return server;
            }
            // The port may have been taken between probing and binding: try another.
            let log_text = server.log_text();
            server.kill();
            if !log_text.contains("cannot listen") {
                panic!("myriad did not start:\n{log_text}");
            }
            dir = std::mem::replace(&mut server.dir, TempDir(PathBuf::new()));
        }
        panic!("myriad did not start after three ports");
    }

    fn wait_ready(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(_)) = child.try_wait() {
                    return false;
                }
            }
            // Our own child must hold the listening socket: a connect alone can reach another
            // test's server that took the same free port first (this child then fails to
            // listen), or a socket connected to itself, and a test then talks to the wrong
            // server.
            if listens_on(self.pid(), self.port)
                && std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok()
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
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
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(Child::id).unwrap_or(0)
    }

    /// Wait for the process to exit by itself (after SHUTDOWN or a signal).
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        let child = self.child.as_mut()?;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = child.try_wait() {
                self.child = None;
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
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

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
        if std::thread::panicking() {
            eprintln!(
                "---- myriad log ({}) ----\n{}",
                self.log.display(),
                self.log_text()
            );
        }
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
