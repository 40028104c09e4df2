//! Finding a server binary, starting it on a datadir with settings, and the running server.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::Read;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};

use crate::datadir::Datadir;
use crate::process::GroupChild;

/// System variables for a server, in MySQL's underscore spelling (`table_open_cache`),
/// sorted by name. An empty value writes a bare flag (`skip_grant_tables`) for MariaDB.
pub type Settings = BTreeMap<String, String>;

/// How long a server may take to answer after it was spawned, unless the launcher says
/// otherwise. A fresh datadir starts in about a second; a loaded shared machine can take
/// tens of seconds.
const STARTUP_LIMIT_DEFAULT: Duration = Duration::from_secs(120);
/// How long a graceful shutdown may take before the group is killed. InnoDB flushing
/// 10,000 dirty tablespaces through innodb_open_files=64 took over 120 s.
const SHUTDOWN_LIMIT: Duration = Duration::from_secs(600);
/// How long mariadb-install-db may take.
const INSTALL_DB_LIMIT: Duration = Duration::from_secs(300);
/// How often a starting server is probed.
const PROBE_INTERVAL: Duration = Duration::from_millis(50);
/// How many ports a start tries when the port found free was taken before the bind.
const PORT_ATTEMPTS: usize = 3;

/// The servers that can be started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "bench",
    derive(serde::Serialize, serde::Deserialize, clap::ValueEnum),
    serde(rename_all = "lowercase")
)]
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
    /// Settings every start gets unless the start's own settings name them.
    base: Vec<(String, String)>,
    /// Arguments every start gets after the settings (raw, as the binary reads them).
    args: Vec<String>,
    /// Environment variables of the server process.
    env: Vec<(String, String)>,
    /// Makes the command that runs the binary (a CPU-pinning wrapper, say).
    wrap: Option<fn(&Path) -> Command>,
    /// Whether myriad also listens on a unix socket in its datadir (MariaDB always does).
    myriad_socket: bool,
    startup_limit: Duration,
}

fn find_in_path(name: &str, extra_dirs: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra_dirs.iter().map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

impl Launcher {
    fn new(target: Target, server_bin: PathBuf, work_dir: &Path) -> Launcher {
        Launcher {
            target,
            server_bin,
            install_db: None,
            work_dir: work_dir.to_path_buf(),
            base: Vec::new(),
            args: Vec::new(),
            env: Vec::new(),
            wrap: None,
            myriad_socket: false,
            startup_limit: STARTUP_LIMIT_DEFAULT,
        }
    }

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
        let mut launcher = Launcher::new(Target::Mariadb, server_bin, work_dir);
        launcher.install_db = Some(install_db);
        Ok(launcher)
    }

    /// The `myriad` binary at `bin`.
    pub fn myriad(bin: &Path, work_dir: &Path) -> Result<Launcher> {
        if !bin.is_file() {
            bail!(
                "myriad binary not found at {}; build it with `cargo build --bin myriad` or pass \
                 --myriad-bin PATH",
                bin.display()
            );
        }
        Ok(Launcher::new(Target::Myriad, bin.to_path_buf(), work_dir))
    }

    /// Settings every start gets unless its own settings name them.
    pub fn base_settings(mut self, base: &[(&str, &str)]) -> Launcher {
        self.base = base
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        self
    }

    /// Raw arguments every start passes after the settings.
    pub fn args<S: AsRef<str>>(mut self, args: &[S]) -> Launcher {
        self.args
            .extend(args.iter().map(|a| a.as_ref().to_string()));
        self
    }

    /// An environment variable of the server process.
    pub fn env(mut self, name: &str, value: &str) -> Launcher {
        self.env.push((name.to_string(), value.to_string()));
        self
    }

    /// Runs the binary through the command `wrap` makes (it must exec the binary, so that
    /// the process id stays the server's: `taskset -c 0 BIN`).
    pub fn wrap(mut self, wrap: fn(&Path) -> Command) -> Launcher {
        self.wrap = Some(wrap);
        self
    }

    /// Makes myriad listen on a unix socket in its datadir as well ([`Server::socket`]).
    pub fn myriad_socket(mut self) -> Launcher {
        self.myriad_socket = true;
        self
    }

    /// How long a start may take before it is an error.
    pub fn startup_limit(mut self, limit: Duration) -> Launcher {
        self.startup_limit = limit;
        self
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

    /// The settings this launcher adds to every start, as `name=value` strings.
    pub fn base_options(&self) -> Vec<String> {
        self.base.iter().map(|(k, v)| format!("{k}={v}")).collect()
    }

    /// Creates an empty, initialised datadir for this target.
    pub fn create_datadir(&self) -> Result<Datadir> {
        let datadir = Datadir::create(&self.work_dir, self.target.name())?;
        let Some(install_db) = &self.install_db else {
            return Ok(datadir);
        };
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
            .wait_timeout(INSTALL_DB_LIMIT)?
            .ok_or_else(|| anyhow!("mariadb-install-db did not finish in 300 s"))?;
        if !status.success() {
            bail!(
                "mariadb-install-db failed ({status}): {}",
                tail_of_file(&log_path, 15)
            );
        }
        Ok(datadir)
    }

    /// Starts the server on `datadir` with `settings` and a fresh free port, and waits until
    /// it answers.
    pub fn start(&self, datadir: &Datadir, settings: &Settings) -> Result<Server> {
        // A port found free can be taken before the server binds it (another server, or a
        // client connection's ephemeral port): then try another.
        let mut attempts = 1;
        loop {
            let port = free_port()?;
            match self.start_on_port(datadir, settings, port) {
                Err(e) if attempts < PORT_ATTEMPTS && format!("{e:#}").contains("in use") => {
                    attempts += 1
                }
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
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        let started = Instant::now();
        let child = GroupChild::spawn(&mut command)
            .with_context(|| format!("starting {}", self.server_bin.display()))?;
        let socket = match self.target {
            Target::Mariadb => Some(datadir.root().join("mysqld.sock")),
            Target::Myriad => self
                .myriad_socket
                .then(|| datadir.root().join("myriad.sock")),
        };
        let mut server = Server {
            target: self.target,
            child,
            port,
            socket,
            log_path,
            startup: Duration::ZERO,
        };
        server.wait_until_answering(started, self.startup_limit)?;
        Ok(server)
    }

    fn command(&self) -> Command {
        match self.wrap {
            Some(wrap) => wrap(&self.server_bin),
            None => Command::new(&self.server_bin),
        }
    }

    /// The base settings under `settings`: the start's own setting of a name wins.
    fn merged(&self, settings: &Settings) -> Settings {
        let mut merged: Settings = self.base.iter().cloned().collect();
        merged.extend(settings.iter().map(|(k, v)| (k.clone(), v.clone())));
        merged
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
        cnf += &format!("socket={}\n", root.join("mysqld.sock").display());
        cnf += &format!("pid_file={}\n", root.join("mysqld.pid").display());
        cnf += &format!("tmpdir={}\n", datadir.tmp().display());
        cnf += &format!("log_error={}\n", log_path.display());
        if running_as_root() {
            cnf += "user=root\n";
        }
        for (name, value) in self.merged(settings) {
            if value.is_empty() {
                cnf += &format!("{name}\n");
            } else {
                cnf += &format!("{name}={value}\n");
            }
        }
        let cnf_path = root.join("my.cnf");
        fs::write(&cnf_path, cnf)?;
        let out = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(root.join("mariadbd.out"))?;
        let mut command = self.command();
        command
            .arg(format!("--defaults-file={}", cnf_path.display()))
            .args(&self.args)
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
        let mut command = self.command();
        command
            .arg("--port")
            .arg(port.to_string())
            .arg("--datadir")
            .arg(datadir.data());
        if self.myriad_socket {
            command
                .arg("--socket")
                .arg(datadir.root().join("myriad.sock"));
        }
        command
            .args(myriad_arguments(&self.merged(settings)))
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out);
        Ok((command, log_path))
    }
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

/// Whether process `pid` holds a TCP socket listening on `port` (from /proc: the socket
/// inodes of its descriptors against the LISTEN entries of /proc/net/tcp and tcp6).
pub fn listens_on(pid: u32, port: u16) -> bool {
    let suffix = format!(":{port:04X}");
    let mut listening = std::collections::HashSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            if fields.len() > 9 && fields[1].ends_with(&suffix) && fields[3] == "0A" {
                listening.insert(format!("socket:[{}]", fields[9]));
            }
        }
    }
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        fs::read_link(fd.path())
            .is_ok_and(|target| listening.contains(&target.to_string_lossy().into_owned()))
    })
}

/// Whether the loopback `port` sends a MySQL protocol version 10 greeting: the server has
/// finished starting and accepts clients (an error packet, such as "too many connections",
/// is not a greeting).
pub fn greets(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(500)) else {
        return false;
    };
    if stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .is_err()
    {
        return false;
    }
    // A packet: 3-byte little-endian length, sequence id, payload; the greeting's first
    // payload byte is the protocol version.
    let mut head = [0u8; 5];
    stream.read_exact(&mut head).is_ok() && head[4] == 10
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

/// A running server; dropping it kills its process group (and prints its log when the
/// thread is panicking).
pub struct Server {
    pub target: Target,
    child: GroupChild,
    port: u16,
    /// The unix socket it also listens on, if any.
    socket: Option<PathBuf>,
    log_path: PathBuf,
    startup: Duration,
}

impl Server {
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The unix socket it also listens on. Panics for a myriad started without one (see
    /// [`Launcher::myriad_socket`]).
    pub fn socket(&self) -> &Path {
        self.socket
            .as_deref()
            .expect("this server was started without a unix socket")
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Time from spawning the process until it first greeted a client.
    pub fn startup_time(&self) -> Duration {
        self.startup
    }

    /// Where the server writes its log (myriad's stdout and stderr, MariaDB's error log).
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// The whole log.
    pub fn log_text(&self) -> String {
        fs::read_to_string(&self.log_path).unwrap_or_default()
    }

    /// The last lines of the server's log.
    pub fn log_tail(&self, lines: usize) -> String {
        tail_of_file(&self.log_path, lines)
    }

    /// Resident memory of the server process in bytes (from /proc), if readable.
    pub fn resident_bytes(&self) -> Option<u64> {
        let kb: u64 = self.status_field("VmRSS")?.parse().ok()?;
        Some(kb * 1024)
    }

    /// The first word of field `name` in the process's `/proc/<pid>/status` (`VmRSS`'s
    /// kB, `THP_enabled`'s flag); None where the kernel shows no such field.
    pub fn status_field(&self, name: &str) -> Option<String> {
        let status = fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = status.lines().find(|l| l.split(':').next() == Some(name))?;
        Some(line.split_whitespace().nth(1)?.to_string())
    }

    fn wait_until_answering(&mut self, started: Instant, limit: Duration) -> Result<()> {
        let deadline = started + limit;
        loop {
            if let Some(status) = self.child.try_wait()? {
                bail!(
                    "{} exited ({status}) before answering on port {}: {}",
                    self.target,
                    self.port,
                    self.log_tail(12)
                );
            }
            // Our own child must hold the listening socket: another server that took the
            // same port first would greet as well.
            if listens_on(self.pid(), self.port) && greets(self.port) {
                self.startup = started.elapsed();
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!(
                    "{} did not answer on port {} within {} s: {}",
                    self.target,
                    self.port,
                    limit.as_secs(),
                    self.log_tail(12)
                );
            }
            std::thread::sleep(PROBE_INTERVAL);
        }
    }

    /// Sends `signal` (libc::SIGTERM, ...) to the server process.
    pub fn signal(&self, signal: i32) {
        self.child.signal_leader(signal);
    }

    /// Waits up to `limit` for the process to exit by itself (after SHUTDOWN or a signal).
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        self.child.wait_timeout(limit).ok().flatten()
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

    /// Kills the server with SIGKILL, as a crash would.
    pub fn kill(mut self) {
        self.child.kill_group();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.child.kill_group();
        if std::thread::panicking() {
            eprintln!(
                "---- {} log ({}) ----\n{}",
                self.target,
                self.log_path.display(),
                self.log_text()
            );
        }
    }
}

/// A server with a datadir of its own, for a test: on drop the process is killed first,
/// then the directory removed (or kept, when the test failed).
pub struct Owned {
    pub server: Server,
    pub dir: Datadir,
}

impl Owned {
    /// A fresh MariaDB in the system's temporary directory with `settings` (an empty value
    /// is a bare flag such as `skip_grant_tables`). A loaded machine can miss the first
    /// start, so a failed start is tried once more on a new datadir.
    pub fn mariadb(settings: &[(&str, &str)]) -> Result<Owned> {
        let launcher = Launcher::mariadb(&std::env::temp_dir())?;
        let settings: Settings = settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let once = || -> Result<Owned> {
            let dir = launcher.create_datadir()?;
            let server = launcher.start(&dir, &settings)?;
            Ok(Owned { server, dir })
        };
        once().or_else(|first| once().map_err(|second| anyhow!("{first:#}; retry: {second:#}")))
    }

    pub fn port(&self) -> u16 {
        self.server.port()
    }

    pub fn socket(&self) -> &Path {
        self.server.socket()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_nobody_listens_on_does_not_greet() {
        let port = free_port().expect("a free port");
        assert!(!greets(port));
        assert!(!listens_on(std::process::id(), port));
    }

    #[test]
    fn a_listener_is_found_in_proc_and_must_send_a_greeting() {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
        let port = listener.local_addr().expect("addr").port();
        assert!(listens_on(std::process::id(), port));
        let server = std::thread::spawn(move || {
            use std::io::Write;
            // First a client that gets an error packet, then one that gets a greeting.
            let (mut first, _) = listener.accept().expect("accept");
            first
                .write_all(&[9, 0, 0, 0, 0xff, 0x10, 0x04])
                .expect("write");
            let (mut second, _) = listener.accept().expect("accept");
            second.write_all(&[74, 0, 0, 0, 10, b'1']).expect("write");
        });
        assert!(!greets(port), "an error packet is not a greeting");
        assert!(greets(port), "protocol version 10 is a greeting");
        server.join().expect("listener thread");
    }

    #[test]
    fn settings_override_the_base_and_become_myriad_arguments() {
        let launcher = Launcher::new(Target::Myriad, PathBuf::from("/bin/true"), Path::new("/"))
            .base_settings(&[("table_open_cache", "10"), ("max_connections", "5")]);
        let mut settings = Settings::new();
        settings.insert("table_open_cache".into(), "64".into());
        assert_eq!(
            myriad_arguments(&launcher.merged(&settings)),
            ["--max-connections=5", "--table-open-cache=64"]
        );
        assert_eq!(
            launcher.base_options(),
            ["table_open_cache=10", "max_connections=5"]
        );
    }
}
