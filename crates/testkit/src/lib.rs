//! The one way myriad's tests and `myriad-bench` start servers: myriad itself and MariaDB
//! from Debian's `mariadb-server` package.
//!
//! Every server gets
//! - a fresh temporary directory ([`Datadir`], from the `tempfile` crate) holding its
//!   datadir (`data/`), its own tmpdir, option file, log, socket and pid file;
//! - a free loopback port ([`free_port`]); if another process takes the port between the
//!   probe and the server's bind, the start is retried on another port;
//! - its settings as MySQL system variables ([`Settings`]): an option file for MariaDB
//!   (`--defaults-file`, so nothing from `/etc/mysql` leaks in), `--name=value` arguments
//!   for myriad, plus any raw arguments the caller adds.
//!
//! A server is ready when *its own* process listens on the port and the port answers with a
//! protocol greeting: a bare connect could reach another test's server that took the same
//! port first.
//!
//! # Cleanup and failures
//!
//! Every child runs as the leader of its own process group ([`GroupChild`]); dropping the
//! guard kills the group and reaps the leader, so no `mariadbd` outlives a failed test or
//! benchmark. [`kill_all_registered`] does the same for every live group and removes every
//! live temporary directory: `myriad-bench` calls it from its Ctrl-C handler.
//!
//! When a [`Server`] or a [`Datadir`] is dropped while the thread panics (a failing test),
//! the server's log is printed and the directory is kept, its path printed, for inspection.

mod datadir;
mod launcher;
mod process;

pub use datadir::{scratch_dir, Datadir};
pub use launcher::{
    free_port, greets, listens_on, myriad_arguments, tail_of_file, Launcher, Owned, Server,
    Settings, Target,
};
pub use process::{
    interrupted, kill_all_registered, mark_interrupted, process_alive, registered_groups,
    registry_lock, GroupChild,
};
