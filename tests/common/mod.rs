//! The end-to-end harness: start the real `myriad` binary through `myriad-testkit` (a
//! temporary datadir, a free loopback port, ready once its own process listens and greets)
//! and kill it when the test ends, whether it passed or panicked. On a failing test the
//! server's log is printed and its directory kept.
//!
//! Around it, what the tests share: connections and setup statements through mysql_async
//! ([`Server::connect_root`], [`start_in_database`], [`exec_all`], [`first_row`],
//! [`insert_rows`]), the code of a server error ([`error_code`], [`server_code`]), and the
//! client programs run against a server ([`Server::client`], [`Server::sysbench`],
//! [`run_ok`], [`run_python`]).

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

    /// The server process's resident memory in bytes (VmRSS), if /proc could be read.
    pub fn resident_bytes(&self) -> Option<u64> {
        self.server.resident_bytes()
    }

    /// A field of the server's `/proc/<pid>/status` (see the launcher's `status_field`).
    pub fn status_field(&self, name: &str) -> Option<String> {
        self.server.status_field(name)
    }

    /// A MariaDB client program (`mariadb`, `mariadb-admin`) that connects as root over
    /// TCP to this server; the caller adds the rest of its arguments.
    pub fn client(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.args(["-h127.0.0.1", &format!("-P{}", self.port), "-uroot"]);
        command
    }

    /// sysbench running `script` against this server as root in database `sbtest`; the
    /// caller adds the rest of its options and the phase.
    pub fn sysbench(&self, script: &str) -> Command {
        let mut command = Command::new("sysbench");
        command.arg(script).args([
            "--mysql-host=127.0.0.1",
            &format!("--mysql-port={}", self.port),
            "--mysql-user=root",
            "--mysql-db=sbtest",
        ]);
        command
    }

    /// mysql_async options for root without a database, from [`Server::url`].
    pub fn root_opts(&self) -> mysql_async::Opts {
        mysql_async::Opts::from_url(&self.url("root", "", None)).expect("a mysql_async URL")
    }

    /// A mysql_async connection as root without a database, from [`Server::root_opts`].
    pub async fn connect_root(&self) -> mysql_async::Conn {
        mysql_async::Conn::new(self.root_opts())
            .await
            .expect("connect as root")
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
/// that hangs fails the test instead of hanging it. Its output is read while it runs, so a
/// client printing more than a pipe holds does not wait on the test.
pub fn run_with_timeout(command: &mut Command, limit: Duration) -> Output {
    use std::io::Read;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = pipe.read_to_end(&mut out);
            out
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let stdout = stdout.join().expect("stdout reader");
    let stderr = stderr.join().expect("stderr reader");
    let Some(status) = status else {
        panic!(
            "{command:?} did not finish within {limit:?} (hung?)\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&stderr)
        );
    };
    Output {
        status,
        stdout,
        stderr,
    }
}

/// Run a command with a time limit (see [`run_with_timeout`]) and assert that it succeeded;
/// what it printed on standard output. `what` names it in the failure message.
pub fn run_ok(command: &mut Command, limit: Duration, what: &str) -> String {
    let output = run_with_timeout(command, limit);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what} failed\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Start a server with default options and run the Python script tests/`script` with its
/// port as the argument: whether the script exited successfully, its standard output and
/// its standard error. On a failure the server's log goes to standard error.
pub fn run_python(script: &str, limit: Duration) -> (bool, String, String) {
    require_program("python3");
    let server = Server::start(&[]);
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(script);
    let output = run_with_timeout(
        Command::new("python3")
            .arg(path)
            .arg(server.port.to_string()),
        limit,
    );
    if !output.status.success() {
        eprintln!("{script} failed; the server's log:\n{}", server.log_text());
    }
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The first line of a report (sysbench's, a client's) that contains `label`; empty if none.
pub fn line_with<'a>(report: &'a str, label: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.contains(label))
        .unwrap_or_default()
}

/// Asserts that a sysbench `run` report counts `events` events and no ignored errors.
pub fn assert_sysbench_ran(report: &str, events: u32) {
    let total = line_with(report, "total number of events:");
    assert!(
        total.trim().ends_with(&events.to_string()),
        "all events ran: {report}"
    );
    let ignored = line_with(report, "ignored errors:");
    assert_eq!(
        ignored.split_whitespace().nth(2),
        Some("0"),
        "no ignored errors: {report}"
    );
}

/// A number from the environment (a stress test's length, a table count), or `default`
/// when the variable is unset or not a number.
pub fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
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

/// The code of a server error (ER_*); None for any other error.
pub fn server_code(error: &mysql_async::Error) -> Option<u16> {
    match error {
        mysql_async::Error::Server(e) => Some(e.code),
        _ => None,
    }
}

/// The code of the server error that `result` must be; panics on success or another error.
pub fn error_code<T: std::fmt::Debug>(result: Result<T, mysql_async::Error>) -> u16 {
    match result {
        Err(mysql_async::Error::Server(e)) => e.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

/// Start a server with `extra_args` (see [`Server::start`]) and run `statements` on it as
/// root: the server and the root connection, for more setup.
pub async fn start_with_setup(
    extra_args: &[&str],
    statements: &[&str],
) -> (Server, mysql_async::Conn) {
    let server = Server::start(extra_args);
    let mut conn = server.connect_root().await;
    exec_all(&mut conn, statements).await;
    (server, conn)
}

/// Start a server with default options, create `database` and connect to it as root over
/// TCP (see [`async_opts`]); `statements` run on that connection first.
pub async fn start_in_database(database: &str, statements: &[&str]) -> (Server, mysql_async::Conn) {
    let server = Server::start(&[]);
    let mut root = mysql_async::Conn::new(async_opts(&server, None))
        .await
        .expect("connect");
    exec_all(
        &mut root,
        &[&format!("CREATE DATABASE IF NOT EXISTS {database}")],
    )
    .await;
    drop(root);
    let mut conn = mysql_async::Conn::new(async_opts(&server, Some(database)))
        .await
        .unwrap_or_else(|e| panic!("connect to {database}: {e}"));
    exec_all(&mut conn, statements).await;
    (server, conn)
}

/// Run each statement in turn on `conn`; panics, naming the statement, on an error.
pub async fn exec_all(conn: &mut mysql_async::Conn, statements: &[&str]) {
    use mysql_async::prelude::Queryable;
    for sql in statements {
        if let Err(e) = conn.query_drop(*sql).await {
            panic!("{sql}: {e}");
        }
    }
}

/// The first row of `sql`'s result; panics on an error or an empty result.
pub async fn first_row<T>(conn: &mut mysql_async::Conn, sql: &str) -> T
where
    T: mysql_async::prelude::FromRow + Send + 'static,
{
    use mysql_async::prelude::Queryable;
    conn.query_first(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .unwrap_or_else(|| panic!("{sql}: no row"))
}

/// Insert rows `ids` into `table` in multi-row INSERTs of `chunk` rows each; `values`
/// writes one row's parenthesised values from its id.
pub async fn insert_rows(
    conn: &mut mysql_async::Conn,
    table: &str,
    ids: std::ops::RangeInclusive<usize>,
    chunk: usize,
    values: impl Fn(usize) -> String,
) {
    use mysql_async::prelude::Queryable;
    for part in ids.collect::<Vec<_>>().chunks(chunk) {
        let rows: Vec<String> = part.iter().map(|&i| values(i)).collect();
        conn.query_drop(format!("INSERT INTO {table} VALUES {}", rows.join(",")))
            .await
            .unwrap();
    }
}

/// Root over TCP at `port` (MariaDB's or myriad's), for mysql_async.
#[allow(dead_code)]
pub fn root_at(port: u16) -> mysql_async::OptsBuilder {
    mysql_async::OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(port)
        .user(Some("root"))
        .prefer_socket(false)
}
