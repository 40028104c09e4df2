//! `myriad-bench`: the seed experiments, run against myriad and MariaDB side by side.
//!
//! The seeds in `shared/seeds/` are field measurements of MySQL and MariaDB caches that
//! collapsed as they grew (table cache, key cache, query cache, open files, LOCK_open). Each
//! experiment here repeats one of them, the same way, against both servers in one run, so
//! that every claim is a ratio taken on one machine at one time. On the shared 2-core
//! machines absolute times drift; ratios from one run do not.
//!
//! # How one run goes
//!
//! 1. [`experiments`] turns the experiment name, `--quick` and the overrides into a plan:
//!    for each target a list of server configurations (system variables such as
//!    `table_open_cache=64`) and, for each configuration, the cells to measure.
//! 2. [`server`] starts each server itself: a fresh datadir under a temporary directory, a
//!    free loopback port, the configuration as an option file (MariaDB) or as `--name=value`
//!    arguments (myriad). Every server runs in its own process group, registered with a
//!    Ctrl-C handler; a guard's `Drop` kills the group, so no server outlives the run, even
//!    on a panic or an error.
//! 3. The workload runs through real clients: `sysbench` (the Debian package; see
//!    [`sysbench`]) where the seed used it, and a Rust loop over the `mysql` crate's
//!    synchronous client ([`client`]) for loops over many tables. The same client drives
//!    both servers.
//! 4. Every cell reads `SHOW GLOBAL STATUS` before and after and keeps the counters that
//!    moved. A failing cell (or a server that will not start) becomes an error row with the
//!    error's text; the run goes on.
//! 5. [`report`] writes the record as JSON, prints markdown tables, and draws PNG plots
//!    (plotters, bitmap backend, a TTF font read at run time) of each sweep, both servers on
//!    the same axes.
//!
//! `myriad-bench compat` is the other half: MariaDB's own regression tests replayed
//! statement by statement against both servers, every difference classified ([`compat`]).

pub mod client;
pub mod compat;
pub mod experiments;
pub mod machine;
pub mod pinning;
pub mod progress;
pub mod report;
pub mod server;
pub mod sysbench;
