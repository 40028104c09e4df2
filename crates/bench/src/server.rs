//! Starting and stopping the servers under test: MariaDB from Debian's packages and myriad.
//!
//! Every server gets a fresh datadir in a temporary directory ([`Datadir`]), a free loopback
//! port and its settings as MySQL system variables ([`Settings`]). MariaDB reads them from an
//! option file we write (`--defaults-file`, so nothing from `/etc/mysql` leaks in); myriad
//! gets them as `--name=value` arguments.
//!
//! # No stray servers
//!
//! A benchmark that dies must not leave a `mariadbd` holding a port and gigabytes of memory
//! on a shared machine. Every child (servers and sysbench) is spawned through [`GroupChild`]:
//! it becomes the leader of its own process group, the group id goes into a process-wide
//! registry, and the guard's `Drop` kills the whole group with SIGKILL and reaps the leader.
//! [`install_interrupt_handler`] makes Ctrl-C, SIGTERM and SIGHUP do the same for every
//! registered group (and remove the registered temporary directories) before exiting with
//! status 130. A graceful [`Server::stop`] sends SIGTERM first, so MariaDB shuts down cleanly
//! when the run ends normally.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::io;
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::client::Client;

/// System variables for a server, in MySQL's underscore spelling (`table_open_cache`),
/// sorted by name.
pub type Settings = BTreeMap<String, String>;

/// How long a server may take to answer after it was spawned. Crash recovery over 100,000
/// InnoDB tables took minutes in seed 003, so this is generous.
const STARTUP_LIMIT: Duration = Duration::from_secs(900);
/// How long a graceful shutdown may take before the group is killed. InnoDB flushing
/// 10,000 dirty tablespaces through innodb_open_files=64 took over 120 s here.
const SHUTDOWN_LIMIT: Duration = Duration::from_secs(600);
/// How often a starting server is probed.
const PROBE_INTERVAL: Duration = Duration::from_millis(50);

/// The servers the benchmark can drive.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// This project's server.
    Myriad,
    /// MariaDB from Debian's `mariadb-server` package.
    Mariadb,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Myriad => "myriad",
            Target::Mariadb => "mariadb",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// ---------------------------------------------------------------------------------------
// Process groups and the interrupt handler.

/// Process groups of children still alive, killed by the interrupt handler.
static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Temporary directories to remove when interrupted (Drop does not run on `exit`).
static LIVE_DIRS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the registry must not stop later cleanup.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Kills every registered process group and removes the registered temporary directories.
pub fn kill_all_registered() {
    let groups: Vec<i32> = lock(&LIVE_GROUPS).iter().copied().collect();
    for &pgid in &groups {
        // Safety: kill(2) with a negative pid signals a process group; no memory is touched.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    // Wait for the leaders to die before removing their directories: a server still
    // writing while the directory is removed would leave files behind.
    for &pgid in &groups {
        // Safety: waitpid on our own child; a null status pointer is allowed. If the main
        // thread reaped it first this returns ECHILD at once.
        unsafe {
            libc::waitpid(pgid, std::ptr::null_mut(), 0);
        }
    }
    // Under the registry lock: a datadir the main thread is creating or removing meanwhile
    // is either finished first or not started (see `Datadir`).
    let mut dirs = lock(&LIVE_DIRS);
    for dir in dirs.iter() {
        let _ = fs::remove_dir_all(dir);
    }
    dirs.clear();
}

/// Set first thing by the interrupt handler, so that the main thread, which sees its
/// children die, leaves the exit (and its status 130) to the handler.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether Ctrl-C (or SIGTERM, SIGHUP) has arrived; the handler is then ending the process.
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// Makes Ctrl-C (and SIGTERM, SIGHUP) kill every server and sysbench this process started,
/// remove their temporary datadirs and exit with status 130. Call once, early in `main`.
pub fn install_interrupt_handler() -> Result<()> {
    ctrlc::set_handler(|| {
        INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        eprintln!("\nmyriad-bench: interrupted; stopping the servers it started");
        kill_all_registered();
        // Exit holding the registry: the main thread, which sees its servers die, must not
        // be halfway through removing (or making) a datadir when the process ends.
        let _registry = lock(&LIVE_DIRS);
        std::process::exit(130);
    })
    .context("installing the Ctrl-C handler")
}

/// The process groups currently registered (for tests that check for strays).
pub fn registered_groups() -> Vec<i32> {
    lock(&LIVE_GROUPS).iter().copied().collect()
}

/// Whether a process with this pid exists (and is not a zombie).
pub fn process_alive(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state letter follows the parenthesised command name.
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next());
            !matches!(state, Some("Z") | Some("X") | None)
        }
        Err(_) => false,
    }
}

/// A child process that leads its own process group; dropping it kills the group.
pub struct GroupChild {
    child: Child,
    pgid: i32,
    reaped: Option<ExitStatus>,
}

impl GroupChild {
    /// Spawns `command` as the leader of a new process group and registers the group.
    pub fn spawn(command: &mut Command) -> io::Result<GroupChild> {
        command.process_group(0);
        let child = command.spawn()?;
        let pgid = child.id() as i32;
        lock(&LIVE_GROUPS).insert(pgid);
        Ok(GroupChild {
            child,
            pgid,
            reaped: None,
        })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The exit status if the leader has exited, without blocking.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.reaped {
            return Ok(Some(status));
        }
        let status = self.child.try_wait()?;
        if status.is_some() {
            self.reaped = status;
        }
        Ok(status)
    }

    /// Waits up to `limit` for the leader to exit.
    pub fn wait_timeout(&mut self, limit: Duration) -> io::Result<Option<ExitStatus>> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(Some(status));
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `signal` to the leader only.
    pub fn signal_leader(&self, signal: i32) {
        if self.reaped.is_none() {
            // Safety: kill(2) on our own child's pid; the child is not reaped yet, so the pid
            // cannot have been reused.
            unsafe {
                libc::kill(self.pgid, signal);
            }
        }
    }

    /// Kills the whole group with SIGKILL, reaps the leader and unregisters the group.
    pub fn kill_group(&mut self) {
        // Once the leader is reaped its id may be reused, so the group is only signalled
        // before that (our children do not fork: servers and sysbench are single processes).
        if self.reaped.is_none() {
            // Safety: kill(2) on a process group we created whose leader we have not reaped.
            unsafe {
                libc::kill(-self.pgid, libc::SIGKILL);
            }
            if let Ok(status) = self.child.wait() {
                self.reaped = Some(status);
            }
        }
        lock(&LIVE_GROUPS).remove(&self.pgid);
    }
}

impl Drop for GroupChild {
    fn drop(&mut self) {
        self.kill_group();
    }
}

// ---------------------------------------------------------------------------------------
// Datadirs and launchers.

/// A temporary directory holding a server's datadir (`data/`), its option file, logs,
/// socket and pid file. Removed on drop. It is made and removed under the registry lock
/// that the interrupt handler holds while it cleans up and exits, so an interrupt never
/// leaves one half made or half removed, and none is made once interrupted.
pub struct Datadir {
    root: PathBuf,
}

impl Datadir {
    fn create(work_dir: &Path, target: Target) -> Result<Datadir> {
        fs::create_dir_all(work_dir)
            .with_context(|| format!("creating work directory {}", work_dir.display()))?;
        let mut registry = lock(&LIVE_DIRS);
        if interrupted() {
            bail!("interrupted");
        }
        let root = tempfile::Builder::new()
            .prefix(&format!("myriad-bench-{}-", target.name()))
            .tempdir_in(work_dir)
            .with_context(|| format!("creating a temporary directory in {}", work_dir.display()))?
            .keep();
        registry.insert(root.clone());
        drop(registry);
        let datadir = Datadir { root };
        fs::create_dir_all(datadir.data())?;
        fs::create_dir_all(datadir.tmp())?;
        Ok(datadir)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn data(&self) -> PathBuf {
        self.root.join("data")
    }

    /// A temporary directory of the server's own (MariaDB's tmpdir): servers and
    /// mariadb-install-db runs sharing /tmp collide on their temporary tables' names
    /// (concurrent install-db runs failed 2 in 6 with "Unknown table 'mysql.tmp_user_sys'",
    /// 0 in 12 with their own).
    pub fn tmp(&self) -> PathBuf {
        self.root.join("tmp")
    }
}

impl Drop for Datadir {
    fn drop(&mut self) {
        let mut registry = lock(&LIVE_DIRS);
        let _ = fs::remove_dir_all(&self.root);
        registry.remove(&self.root);
    }
}

/// Knows how to create a datadir for one target and start its server there.
#[derive(Debug, Clone)]
pub struct Launcher {
    pub target: Target,
    /// The server binary (`mariadbd` or `myriad`).
    pub server_bin: PathBuf,
    /// `mariadb-install-db` for MariaDB.
    install_db: Option<PathBuf>,
    /// Where the temporary datadirs go.
    work_dir: PathBuf,
}

/// Settings MariaDB gets in addition to the experiment's, so that it runs as a benchmark
/// server rather than as Debian's defaults: enough buffer pool for the 1M-row tables, no
/// fsync per commit (the seeds' runs were not fsync bound either), no performance schema.
pub const MARIADB_BASE_OPTIONS: &[(&str, &str)] = &[
    ("innodb_buffer_pool_size", "1G"),
    ("innodb_log_file_size", "256M"),
    ("innodb_flush_log_at_trx_commit", "2"),
    ("performance_schema", "OFF"),
    ("skip_name_resolve", "ON"),
];

/// Settings myriad gets in addition to the experiment's: the same durability as MariaDB's
/// (write the redo log at commit, fsync it once a second), so that write figures compare
/// like with like. An experiment's own setting of the same name wins.
pub const MYRIAD_BASE_OPTIONS: &[(&str, &str)] = &[("innodb_flush_log_at_trx_commit", "2")];

fn find_in_path(name: &str, extra_dirs: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra_dirs.iter().map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

impl Launcher {
    /// Finds Debian's MariaDB server (`mariadbd` in PATH or /usr/sbin) and its installer.
    pub fn mariadb(work_dir: &Path) -> Result<Launcher> {
        let sbin = ["/usr/sbin", "/usr/local/sbin", "/usr/local/mysql/bin"];
        let server_bin = find_in_path("mariadbd", &sbin)
            .or_else(|| find_in_path("mysqld", &sbin))
            .ok_or_else(|| {
                anyhow!(
                    "MariaDB server not found (no `mariadbd` in PATH or /usr/sbin); install it \
                     with `apt-get install mariadb-server`"
                )
            })?;
        let install_db = find_in_path("mariadb-install-db", &sbin)
            .or_else(|| find_in_path("mysql_install_db", &sbin))
            .ok_or_else(|| {
                anyhow!(
                    "`mariadb-install-db` not found; install it with `apt-get install \
                     mariadb-server`"
                )
            })?;
        Ok(Launcher {
            target: Target::Mariadb,
            server_bin,
            install_db: Some(install_db),
            work_dir: work_dir.to_path_buf(),
        })
    }

    /// Finds the `myriad` binary: `explicit`, else `$MYRIAD_BIN`, else next to this
    /// executable (both live in the same cargo target directory).
    pub fn myriad(explicit: Option<&Path>, work_dir: &Path) -> Result<Launcher> {
        let candidate = match explicit {
            Some(path) => path.to_path_buf(),
            None => match std::env::var_os("MYRIAD_BIN") {
                Some(path) => PathBuf::from(path),
                None => {
                    let exe = std::env::current_exe().context("locating myriad-bench")?;
                    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
                    // Test binaries live in target/<profile>/deps; the server one level up.
                    let beside = dir.join("myriad");
                    if beside.is_file() {
                        beside
                    } else {
                        dir.parent().map(|d| d.join("myriad")).unwrap_or(beside)
                    }
                }
            },
        };
        if !candidate.is_file() {
            bail!(
                "myriad binary not found at {}; build it with `cargo build --bin myriad` or pass \
                 --myriad-bin PATH",
                candidate.display()
            );
        }
        Ok(Launcher {
            target: Target::Myriad,
            server_bin: candidate,
            install_db: None,
            work_dir: work_dir.to_path_buf(),
        })
    }

    /// The first line of `<server> --version`, or the error it gave.
    pub fn binary_version(&self) -> String {
        let output = Command::new(&self.server_bin)
            .arg("--version")
            .stdin(Stdio::null())
            .output();
        match output {
            Ok(out) => {
                let text = String::from_utf8_lossy(&out.stdout).to_string()
                    + &String::from_utf8_lossy(&out.stderr);
                let first = text.lines().next().unwrap_or("").trim().to_string();
                if out.status.success() && !first.is_empty() {
                    first
                } else {
                    format!("(--version failed: {}: {})", out.status, first)
                }
            }
            Err(e) => format!("(--version failed: {e})"),
        }
    }

    /// The settings this launcher adds to every configuration, as `name=value` strings.
    pub fn base_options(&self) -> Vec<String> {
        match self.target {
            Target::Mariadb => MARIADB_BASE_OPTIONS
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
            Target::Myriad => MYRIAD_BASE_OPTIONS
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
        }
    }

    /// Creates an empty, initialised datadir for this target.
    pub fn create_datadir(&self) -> Result<Datadir> {
        let datadir = Datadir::create(&self.work_dir, self.target)?;
        if let Some(install_db) = &self.install_db {
            let log_path = datadir.root().join("install-db.log");
            let log = fs::File::create(&log_path)?;
            let mut command = Command::new(install_db);
            command
                .arg("--no-defaults")
                .arg(format!("--datadir={}", datadir.data().display()))
                .arg(format!("--tmpdir={}", datadir.tmp().display()))
                .arg("--auth-root-authentication-method=normal")
                .arg("--skip-test-db")
                .stdin(Stdio::null())
                .stdout(log.try_clone()?)
                .stderr(log);
            if running_as_root() {
                command.arg("--user=root");
            }
            let mut child = GroupChild::spawn(&mut command)
                .with_context(|| format!("running {}", install_db.display()))?;
            let status = child
                .wait_timeout(Duration::from_secs(300))?
                .ok_or_else(|| anyhow!("mariadb-install-db did not finish in 300 s"))?;
            if !status.success() {
                bail!(
                    "mariadb-install-db failed ({status}): {}",
                    tail_of_file(&log_path, 15)
                );
            }
        }
        Ok(datadir)
    }

    /// Starts the server on `datadir` with `settings` and a fresh free port, and waits until
    /// it answers `SELECT 1`.
    pub fn start(&self, datadir: &Datadir, settings: &Settings) -> Result<Server> {
        // A port found free can be taken before the server binds it (another server, or a
        // client connection's ephemeral port): then try another, twice.
        let mut attempts = 0;
        loop {
            let port = free_port()?;
            match self.start_on_port(datadir, settings, port) {
                Err(e) if attempts < 2 && format!("{e:#}").contains("in use") => attempts += 1,
                started => return started,
            }
        }
    }

    /// As [`Launcher::start`], on a given port (a restart keeps its port).
    pub fn start_on_port(
        &self,
        datadir: &Datadir,
        settings: &Settings,
        port: u16,
    ) -> Result<Server> {
        let (mut command, log_path) = match self.target {
            Target::Mariadb => self.mariadb_command(datadir, settings, port)?,
            Target::Myriad => self.myriad_command(datadir, settings, port)?,
        };
        let started = Instant::now();
        let child = GroupChild::spawn(&mut command)
            .with_context(|| format!("starting {}", self.server_bin.display()))?;
        let mut server = Server {
            target: self.target,
            child,
            port,
            socket: socket_path(datadir, self.target),
            log_path,
            startup: Duration::ZERO,
        };
        server.wait_until_answering(started)?;
        Ok(server)
    }

    fn mariadb_command(
        &self,
        datadir: &Datadir,
        settings: &Settings,
        port: u16,
    ) -> Result<(Command, PathBuf)> {
        let root = datadir.root();
        let log_path = root.join("error.log");
        let mut cnf = String::from("[mysqld]\n");
        cnf += &format!("datadir={}\n", datadir.data().display());
        cnf += &format!("port={port}\nbind_address=127.0.0.1\n");
        cnf += &format!("socket={}\n", socket_path(datadir, self.target).display());
        cnf += &format!("pid_file={}\n", root.join("mysqld.pid").display());
        cnf += &format!("tmpdir={}\n", datadir.tmp().display());
        cnf += &format!("log_error={}\n", log_path.display());
        if running_as_root() {
            cnf += "user=root\n";
        }
        // The experiment's settings win over the base options.
        for (name, value) in MARIADB_BASE_OPTIONS {
            if !settings.contains_key(*name) {
                cnf += &format!("{name}={value}\n");
            }
        }
        for (name, value) in settings {
            cnf += &format!("{name}={value}\n");
        }
        let cnf_path = root.join("my.cnf");
        fs::write(&cnf_path, cnf)?;
        let out = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(root.join("mariadbd.out"))?;
        let mut command = crate::pinning::command(&self.server_bin, crate::pinning::Side::Server);
        command
            .arg(format!("--defaults-file={}", cnf_path.display()))
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out);
        Ok((command, log_path))
    }

    fn myriad_command(
        &self,
        datadir: &Datadir,
        settings: &Settings,
        port: u16,
    ) -> Result<(Command, PathBuf)> {
        let log_path = datadir.root().join("myriad.log");
        let out = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)?;
        let mut command = crate::pinning::command(&self.server_bin, crate::pinning::Side::Server);
        command
            .arg("--port")
            .arg(port.to_string())
            .arg("--datadir")
            .arg(datadir.data())
            .arg("--socket")
            .arg(socket_path(datadir, self.target))
            .args(myriad_arguments(&with_base(MYRIAD_BASE_OPTIONS, settings)))
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out);
        Ok((command, log_path))
    }
}

/// The unix socket a server listens on besides its TCP port.
fn socket_path(datadir: &Datadir, target: Target) -> PathBuf {
    datadir.root().join(match target {
        Target::Mariadb => "mysqld.sock",
        Target::Myriad => "myriad.sock",
    })
}

/// `base` under `settings`: the experiment's own setting of a name wins.
fn with_base(base: &[(&str, &str)], settings: &Settings) -> Settings {
    let mut merged: Settings = base
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    merged.extend(settings.iter().map(|(k, v)| (k.clone(), v.clone())));
    merged
}

/// The settings as myriad's command-line arguments: `--table-open-cache=64`.
pub fn myriad_arguments(settings: &Settings) -> Vec<String> {
    settings
        .iter()
        .map(|(name, value)| format!("--{}={value}", name.replace('_', "-")))
        .collect()
}

fn running_as_root() -> bool {
    // Safety: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A free TCP port on the loopback interface (bound, then released).
pub fn free_port() -> Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).context("finding a free port")?;
    Ok(listener.local_addr()?.port())
}

/// The last `lines` lines of a log file, joined with " | " to fit in an error row.
pub fn tail_of_file(path: &Path, lines: usize) -> String {
    match fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            let start = all.len().saturating_sub(lines);
            if all.is_empty() {
                format!("({} is empty)", path.display())
            } else {
                all[start..].join(" | ")
            }
        }
        Err(e) => format!("(cannot read {}: {e})", path.display()),
    }
}

// ---------------------------------------------------------------------------------------
// A running server.

/// A running server; dropping it kills its process group.
pub struct Server {
    pub target: Target,
    child: GroupChild,
    port: u16,
    /// The unix socket it also listens on.
    socket: PathBuf,
    log_path: PathBuf,
    startup: Duration,
}

impl Server {
    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Time from spawning the process until it first answered `SELECT 1`.
    pub fn startup_time(&self) -> Duration {
        self.startup
    }

    /// A new client connection to this server.
    pub fn connect(&self, database: Option<&str>) -> Result<Client> {
        Client::connect(self.port, database)
    }

    /// The last lines of the server's log.
    pub fn log_tail(&self, lines: usize) -> String {
        tail_of_file(&self.log_path, lines)
    }

    /// Resident memory of the server process in bytes (from /proc), if readable.
    pub fn resident_bytes(&self) -> Option<u64> {
        let status = fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    fn wait_until_answering(&mut self, started: Instant) -> Result<()> {
        let deadline = started + STARTUP_LIMIT;
        let mut last_error;
        loop {
            if let Some(status) = self.child.try_wait()? {
                bail!(
                    "{} exited ({status}) before answering on port {}: {}",
                    self.target,
                    self.port,
                    self.log_tail(12)
                );
            }
            match Client::probe(self.port) {
                Ok(()) => {
                    self.startup = started.elapsed();
                    return Ok(());
                }
                Err(e) => last_error = format!("{e:#}"),
            }
            if Instant::now() >= deadline {
                bail!(
                    "{} did not answer on port {} within {} s (last error: {last_error}): {}",
                    self.target,
                    self.port,
                    STARTUP_LIMIT.as_secs(),
                    self.log_tail(12)
                );
            }
            std::thread::sleep(PROBE_INTERVAL);
        }
    }

    /// Shuts the server down cleanly (SIGTERM, then SIGKILL after a limit) and checks that
    /// nothing of its process group is left; returns how long the shutdown took.
    pub fn stop(mut self) -> Result<Duration> {
        let started = Instant::now();
        self.child.signal_leader(libc::SIGTERM);
        let exited = self.child.wait_timeout(SHUTDOWN_LIMIT)?;
        let took = started.elapsed();
        self.child.kill_group();
        match exited {
            Some(_) => Ok(took),
            None => bail!(
                "{} did not shut down within {} s and was killed",
                self.target,
                SHUTDOWN_LIMIT.as_secs()
            ),
        }
    }

    /// Kills the server with SIGKILL, as a crash would (seed 003's restart-after-kill).
    pub fn kill(mut self) {
        self.child.kill_group();
    }
}
