//! The servers under test, started through `myriad-testkit` (the one launcher shared with
//! the test suites): a fresh datadir in a temporary directory, a free loopback port, the
//! settings as an option file (MariaDB) or `--name=value` arguments (myriad), every server
//! in its own process group and killed when its guard drops.
//!
//! What this module adds for benchmarks: the base settings each target runs with (so that
//! MariaDB runs as a benchmark server rather than as Debian's defaults), CPU pinning of the
//! servers (`--server-cpus`), the generous startup limit that crash recovery over 100,000
//! tables needs, client connections, and the Ctrl-C handler: Ctrl-C, SIGTERM and SIGHUP
//! kill every server and sysbench this process started and remove their datadirs before
//! exiting with status 130.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use crate::client::Client;

pub use myriad_testkit::{
    free_port, interrupted, kill_all_registered, myriad_arguments, process_alive,
    registered_groups, tail_of_file, Datadir, GroupChild, Launcher, Server, Settings, Target,
};

/// How long a server may take to answer after it was spawned. Crash recovery over 100,000
/// InnoDB tables took minutes in seed 003, so this is generous.
const STARTUP_LIMIT: Duration = Duration::from_secs(900);

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

fn pinned(program: &Path) -> std::process::Command {
    crate::pinning::command(program, crate::pinning::Side::Server)
}

/// Debian's MariaDB as a benchmark server, its datadirs under `work_dir`.
pub fn mariadb_launcher(work_dir: &Path) -> Result<Launcher> {
    Ok(Launcher::mariadb(work_dir)?
        .base_settings(MARIADB_BASE_OPTIONS)
        .wrap(pinned)
        .startup_limit(STARTUP_LIMIT))
}

/// The `myriad` binary: `explicit`, else `$MYRIAD_BIN`, else next to this executable (both
/// live in the same cargo target directory).
pub fn myriad_launcher(explicit: Option<&Path>, work_dir: &Path) -> Result<Launcher> {
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
    Ok(Launcher::myriad(&candidate, work_dir)?
        .base_settings(MYRIAD_BASE_OPTIONS)
        .wrap(pinned)
        .myriad_socket()
        .startup_limit(STARTUP_LIMIT))
}

/// A new client connection to a server.
pub trait Connect {
    fn connect(&self, database: Option<&str>) -> Result<Client>;
}

impl Connect for Server {
    fn connect(&self, database: Option<&str>) -> Result<Client> {
        Client::connect(self.port(), database)
    }
}

/// Makes Ctrl-C (and SIGTERM, SIGHUP) kill every server and sysbench this process started,
/// remove their temporary datadirs and exit with status 130. Call once, early in `main`.
pub fn install_interrupt_handler() -> Result<()> {
    ctrlc::set_handler(|| {
        myriad_testkit::mark_interrupted();
        eprintln!("\nmyriad-bench: interrupted; stopping the servers it started");
        kill_all_registered();
        // Exit holding the registry: the main thread, which sees its servers die, must not
        // be halfway through removing (or making) a datadir when the process ends.
        let _registry = myriad_testkit::registry_lock();
        std::process::exit(130);
    })
    .context("installing the Ctrl-C handler")
}
