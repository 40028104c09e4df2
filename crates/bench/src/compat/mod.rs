//! `myriad-bench compat`: MariaDB's own regression tests replayed statement by statement
//! against MariaDB and myriad, each difference classified.
//!
//! The tests are mysqltest scripts from Debian's `mariadb-test` package
//! (`/usr/share/mysql/mysql-test/main/*.test`). The runner starts one MariaDB and one myriad
//! through the test kit (utf8mb4 / utf8mb4_general_ci on both, as myriad stores text) and
//! reads each script itself ([`script`]): every SQL statement goes to both servers on the
//! connection of the same name, and the answers are compared ([`outcome`]) and classified:
//!
//! | class | MariaDB | myriad |
//! |---|---|---|
//! | agree | rows / error code | the same |
//! | row order | rows | the same rows in another order |
//! | unsupported | ok | an error |
//! | wrong answer | ok | ok, other rows or affected count |
//! | accepts invalid | an error | ok |
//! | wrong error code | error a | error b |
//! | hang | answered | no answer within `--statement-limit` |
//! | lost connection / crash | answered | the connection broke (crash: the process died) |
//!
//! A difference after an earlier state-changing divergence in the same file is counted as
//! *follow-on*; the others are *clean*. Before each file both servers set back the global
//! variables the last file changed, drop every database but the system ones and create
//! `test` afresh; a crashed myriad is restarted. Each server's datadir path reads as
//! `$MYSQLD_DATADIR/` in answers. What the
//! runner does not emulate (files, `exec`, replication, restarts) is skipped and counted
//! ([`replay`]).
//!
//! The record: `<out>/compat.json` (every file, every difference), `<out>/compat.md` (totals,
//! whole-file passes, the commonest shapes of each class). `--baseline FILE` fails the run
//! when a file agrees on fewer statements than the baseline lists, or anything hangs or
//! crashes; `--write-baseline FILE` writes one.

pub mod outcome;
pub mod replay;
pub mod report;
pub mod script;
pub mod session;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;

use crate::server::{self, Datadir, Launcher, Server, Settings};
use outcome::Class;
use replay::{FileResult, Replay};
use session::{Endpoint, Side};

/// The tests `--quick` replays: SQL behaviour of the kinds users meet first, each file
/// replayed in seconds.
pub const QUICK: &[&str] = &[
    "alias",
    "bool",
    "case",
    "comments",
    "count_distinct2",
    "create_select",
    "ctype_recoding",
    "delete",
    "distinct",
    "func_concat",
    "func_if",
    "func_in",
    "func_isnull",
    "func_like",
    "func_op",
    "func_str",
    "group_by",
    "having",
    "insert",
    "insert_select",
    "key",
    "limit",
    "null",
    "order_by",
    "select_found",
    "subselect",
    "type_date",
    "type_decimal",
    "type_float",
    "type_varchar",
    "union",
    "update",
    "varbinary",
];

/// Seconds the runner's own statements (the reset between files) may take.
const ADMIN_LIMIT_S: u64 = 30;

/// Databases the reset between files keeps.
const SYSTEM_DATABASES: &[&str] = &["information_schema", "mysql", "performance_schema", "sys"];

/// What to replay and where.
#[derive(Debug, Clone)]
pub struct CompatOptions {
    /// The mysql-test directory (holding `main/` and `include/`).
    pub suite: PathBuf,
    /// Test names (`func_str`) or prefixes ending in `*` (`func_*`); empty: every test in
    /// `main/` (or the quick list).
    pub tests: Vec<String>,
    pub quick: bool,
    pub out_dir: PathBuf,
    pub work_dir: PathBuf,
    pub myriad_bin: Option<PathBuf>,
    /// Seconds one statement may take before it counts as a hang.
    pub statement_limit: u64,
    /// Seconds one file may take.
    pub file_limit: u64,
    pub command: String,
}

/// The test files to replay, in name order.
pub fn select_tests(opts: &CompatOptions) -> Result<Vec<PathBuf>> {
    let main = opts.suite.join("main");
    if !main.is_dir() {
        bail!(
            "no MariaDB test suite at {} (install it with `apt-get install mariadb-test`, or \
             pass --suite DIR)",
            main.display()
        );
    }
    let mut all: Vec<PathBuf> = std::fs::read_dir(&main)
        .with_context(|| format!("reading {}", main.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "test"))
        .collect();
    all.sort();
    let wanted: Vec<String> = if !opts.tests.is_empty() {
        opts.tests.clone()
    } else if opts.quick {
        QUICK.iter().map(|s| s.to_string()).collect()
    } else {
        return Ok(all);
    };
    let mut chosen = Vec::new();
    for want in &wanted {
        let want = want.trim_end_matches(".test");
        let before = chosen.len();
        for path in &all {
            let name = test_name(path);
            let hit = match want.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => name == want,
            };
            if hit && !chosen.contains(path) {
                chosen.push(path.clone());
            }
        }
        if chosen.len() == before {
            bail!("no test `{want}` in {}", main.display());
        }
    }
    Ok(chosen)
}

/// A test's name: its file name without `.test`.
pub fn test_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One server of the pair, restartable.
struct Peer {
    launcher: Launcher,
    settings: Settings,
    running: Option<(Server, Datadir)>,
    /// The global variables as the server started, restored between files.
    globals: Vec<(String, String)>,
    /// `@@datadir`, masked in answers.
    datadir: String,
}

impl Peer {
    fn start(launcher: Launcher, settings: Settings) -> Result<Peer> {
        let mut peer = Peer {
            launcher,
            settings,
            running: None,
            globals: Vec::new(),
            datadir: String::new(),
        };
        peer.restart()?;
        Ok(peer)
    }

    fn restart(&mut self) -> Result<()> {
        if let Some((server, _dir)) = self.running.take() {
            server.kill();
        }
        let dir = self.launcher.create_datadir()?;
        let server = self.launcher.start(&dir, &self.settings)?;
        self.running = Some((server, dir));
        let mut conn = self.admin()?;
        self.globals = conn.query("SHOW GLOBAL VARIABLES")?;
        self.datadir = conn
            .query_first::<Option<String>, _>("SELECT @@datadir")?
            .flatten()
            .unwrap_or_default();
        Ok(())
    }

    /// root over the socket, without a default database, for the runner's own statements.
    fn admin(&self) -> Result<mysql::Conn> {
        let login = session::Login {
            database: None,
            ..session::Login::root()
        };
        mysql::Conn::new(self.endpoint(ADMIN_LIMIT_S).opts(&login)).context("connecting as root")
    }

    /// Sets back every global variable a test changed (one it cannot set is left).
    fn restore_globals(&self, conn: &mut mysql::Conn) -> Result<()> {
        let now: Vec<(String, String)> = conn.query("SHOW GLOBAL VARIABLES")?;
        for (name, value) in now {
            let Some((_, original)) = self.globals.iter().find(|(n, _)| *n == name) else {
                continue;
            };
            if *original == value {
                continue;
            }
            let literal = if original.parse::<f64>().is_ok() {
                original.clone()
            } else {
                format!("'{}'", original.replace('\\', "\\\\").replace('\'', "''"))
            };
            let _ = conn.query_drop(format!("SET GLOBAL `{name}` = {literal}"));
        }
        Ok(())
    }

    fn server(&self) -> &Server {
        &self.running.as_ref().expect("a started server").0
    }

    fn alive(&self) -> bool {
        server::process_alive(self.server().pid())
    }

    fn endpoint(&self, statement_limit: u64) -> Endpoint {
        Endpoint {
            socket: self.server().socket().to_path_buf(),
            port: self.server().port(),
            statement_limit,
        }
    }

    /// Drops every database but the system ones and creates `test`; restarts the server
    /// when it does not answer.
    fn reset(&mut self) -> Result<()> {
        if !self.alive() || self.clean_databases().is_err() {
            self.restart()?;
            self.clean_databases()?;
        }
        Ok(())
    }

    fn clean_databases(&self) -> Result<()> {
        let mut conn = self.admin()?;
        self.restore_globals(&mut conn)?;
        let databases: Vec<String> = conn.query("SHOW DATABASES")?;
        for db in databases {
            if !SYSTEM_DATABASES.contains(&db.to_ascii_lowercase().as_str()) {
                conn.query_drop(format!("DROP DATABASE `{}`", db.replace('`', "``")))?;
            }
        }
        conn.query_drop("CREATE DATABASE test")?;
        Ok(())
    }
}

/// Settings both servers run with: text stored as myriad stores it.
fn settings() -> Settings {
    [
        ("character_set_server", "utf8mb4"),
        ("collation_server", "utf8mb4_general_ci"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Replays the chosen tests; `progress` is told each file's name before it runs.
pub fn run(opts: &CompatOptions, progress: &dyn Fn(&str)) -> Result<report::Report> {
    let tests = select_tests(opts)?;
    let mariadb_launcher = server::mariadb_launcher(&opts.work_dir)?;
    let myriad_launcher = server::myriad_launcher(opts.myriad_bin.as_deref(), &opts.work_dir)?;
    let versions = (
        mariadb_launcher.binary_version(),
        myriad_launcher.binary_version(),
    );
    let mut mariadb = Peer::start(mariadb_launcher, settings()).context("starting MariaDB")?;
    let mut myriad = Peer::start(myriad_launcher, settings()).context("starting myriad")?;
    let mut files = Vec::new();
    let mut restarts = 0;
    for path in &tests {
        let name = test_name(path);
        progress(&name);
        mariadb.reset().context("resetting MariaDB")?;
        if myriad.reset().is_err() {
            restarts += 1;
            myriad.restart().context("restarting myriad")?;
            myriad.clean_databases()?;
        }
        let result = replay_file(opts, path, &name, &mariadb, &myriad);
        if !myriad.alive() {
            restarts += 1;
            myriad
                .restart()
                .context("restarting myriad after a crash")?;
        }
        files.push(result);
    }
    Ok(report::Report::new(opts, versions, files, restarts))
}

fn replay_file(
    opts: &CompatOptions,
    path: &Path,
    name: &str,
    mariadb: &Peer,
    myriad: &Peer,
) -> FileResult {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            return FileResult {
                name: name.to_string(),
                stop: Some(replay::Stop::Die(format!(
                    "reading {}: {e}",
                    path.display()
                ))),
                ..FileResult::default()
            }
        }
    };
    let steps = script::parse(&text);
    let mut sides = [
        Side::new(mariadb.endpoint(opts.statement_limit)),
        Side::new(myriad.endpoint(opts.statement_limit)),
    ];
    let tmp = opts.work_dir.join("compat-vardir");
    for (side, peer) in sides.iter_mut().zip([mariadb, myriad]) {
        let server = peer.server();
        for (var, value) in [
            ("MYSQL_TEST_DIR", opts.suite.display().to_string()),
            ("MYSQLTEST_VARDIR", tmp.display().to_string()),
            ("MYSQL_TMP_DIR", tmp.display().to_string()),
            ("MASTER_MYPORT", server.port().to_string()),
            ("MASTER_MYSOCK", server.socket().display().to_string()),
            ("MYSQLD_DATADIR", peer.datadir.clone()),
        ] {
            side.vars.insert(var.to_string(), value);
        }
    }
    let alive = || myriad.alive();
    Replay::new(
        name,
        sides,
        &opts.suite,
        Duration::from_secs(opts.file_limit),
        &alive,
    )
    .run(&steps)
}

/// Whether a class is a failure the baseline check refuses whatever the baseline says.
pub fn fatal(class: Class) -> bool {
    matches!(class, Class::Hang | Class::Crash)
}
