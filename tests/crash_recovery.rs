//! `kill -9` under a write load loses no acknowledged write and half-applies none (the load
//! and the checks: `common/write_load.rs`).
//!
//! 25 rounds of 50..350 ms of load; the whole test takes well under a minute.

mod common;
#[path = "common/write_load.rs"]
mod write_load;

use common::Server;
use std::time::Instant;
use write_load::CrashLoad;

const ROUNDS: usize = 25;

#[test]
fn kill_9_under_write_load_loses_no_acknowledged_write() {
    let mut server = Server::start(&[]);
    let mut load = CrashLoad::new(&server);
    let started = Instant::now();
    for round in 0..ROUNDS {
        let run_ms = 50 + load.rng.below(300);
        let dir = load.load_and_kill(server, run_ms);
        server = Server::start_in(dir, &[]);
        let rows = load.verify_after_restart(&server, round);
        eprintln!("round {round}: {rows} rows verified after kill -9");
    }
    assert!(load.statements > 0, "the load wrote nothing");
    eprintln!(
        "{ROUNDS} rounds, {} acknowledged statements, {:?}",
        load.statements,
        started.elapsed()
    );
}
