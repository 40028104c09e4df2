//! The query cache under concurrent writes and DDL (runs 60 s, set
//! MYRIAD_QC_STRESS_SECS to change): writers update, delete and re-insert rows, a DDL
//! thread drops and re-creates a table and alters another, while readers repeat cached
//! queries (text and prepared) and check every answer. Zero stale results are allowed.
//!
//! How an answer is checked. Rows are `(id, ver, val)` with `val = id * 1_000_000 + ver`,
//! and a writer bumps `ver` on every change. Each row has a sequence number (odd while a
//! writer's statement on it is in flight) and the state the last finished write left
//! (exists, ver). A reader reads both before and the sequence after its query:
//! - no write overlapped (same even sequence): the answer is exactly that state;
//! - a write overlapped: the answer is at least as new (absent or ver >= the floor).
//!
//! The aggregate `SUM(ver), COUNT(*)` is checked the same way with global counters of
//! started and finished writes (the invariant sum of the vers of existing rows). The
//! re-created table holds its generation number; a reader sees at least the generation
//! finished before its query, or nothing/an error while a DDL cycle overlaps.

mod common;

use common::Server;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROWS: u64 = 48;
const WRITERS: u64 = 2;
const READERS: usize = 8;

fn opts(server: &Server) -> Opts {
    common::async_opts(server, Some("qc"))
}

fn val_of(id: u64, ver: u64) -> u64 {
    id * 1_000_000 + ver
}

/// What the last finished write left, per row, and the sequence around each write.
struct Truth {
    seq: Vec<AtomicU64>,
    /// ver << 1 | exists.
    state: Vec<AtomicU64>,
    writes_started: AtomicU64,
    writes_finished: AtomicU64,
    /// Odd while a DDL cycle on `g` is in flight.
    ddl_seq: AtomicU64,
    generation: AtomicU64,
}

impl Truth {
    fn begin(&self, id: u64) {
        self.writes_started.fetch_add(1, Ordering::SeqCst);
        self.seq[id as usize].fetch_add(1, Ordering::SeqCst);
    }
    fn end(&self, id: u64, ver: u64, exists: bool) {
        self.state[id as usize].store(ver << 1 | u64::from(exists), Ordering::SeqCst);
        self.seq[id as usize].fetch_add(1, Ordering::SeqCst);
        self.writes_finished.fetch_add(1, Ordering::SeqCst);
    }
}

/// Errors a statement may meet while DDL runs beside it (retried or accepted).
fn transient(e: &mysql_async::Error) -> bool {
    matches!(e, mysql_async::Error::Server(s) if matches!(s.code, 1412 | 1146 | 1205 | 1213))
}

async fn retry(conn: &mut Conn, sql: &str) {
    loop {
        match conn.query_drop(sql).await {
            Ok(()) => return,
            Err(e) if transient(&e) => tokio::time::sleep(Duration::from_millis(1)).await,
            Err(e) => panic!("{sql}: {e}"),
        }
    }
}

#[derive(Default, Debug)]
struct Tally {
    checked: u64,
    exact: u64,
    stale: Vec<String>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_stale_result_under_concurrent_writes_and_ddl() {
    let secs: u64 = common::env_number("MYRIAD_QC_STRESS_SECS", 60);
    let server = Server::start(&[
        "--query-cache-type=ON",
        "--query-cache-size=67108864",
        "--query-cache-min-execution-us=0",
    ]);
    let mut admin = Conn::new(common::async_opts(&server, None)).await.unwrap();
    for sql in [
        "CREATE DATABASE qc",
        "USE qc",
        "CREATE TABLE r (id BIGINT PRIMARY KEY, ver BIGINT NOT NULL, val BIGINT NOT NULL)",
        "CREATE TABLE g (gen BIGINT)",
        "INSERT INTO g VALUES (0)",
    ] {
        admin.query_drop(sql).await.unwrap();
    }
    let values: Vec<String> = (0..ROWS)
        .map(|id| format!("({id}, 0, {})", val_of(id, 0)))
        .collect();
    admin
        .query_drop(format!("INSERT INTO r VALUES {}", values.join(",")))
        .await
        .unwrap();
    let truth = Arc::new(Truth {
        seq: (0..ROWS).map(|_| AtomicU64::new(0)).collect(),
        state: (0..ROWS).map(|_| AtomicU64::new(1)).collect(),
        writes_started: AtomicU64::new(0),
        writes_finished: AtomicU64::new(0),
        ddl_seq: AtomicU64::new(0),
        generation: AtomicU64::new(0),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut tasks = Vec::new();

    // Writers: each owns the rows id % WRITERS == w, so it knows every row's ver.
    for w in 0..WRITERS {
        let (truth, stop) = (Arc::clone(&truth), Arc::clone(&stop));
        let mut conn = Conn::new(opts(&server)).await.unwrap();
        tasks.push(tokio::spawn(async move {
            let mut vers = vec![0u64; ROWS as usize];
            let mut n = w;
            while !stop.load(Ordering::Relaxed) {
                n = n
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let id = ((n >> 33) % (ROWS / WRITERS)) * WRITERS + w;
                let ver = vers[id as usize] + 1;
                truth.begin(id);
                let write = if (n >> 20) % 5 == 0 {
                    retry(&mut conn, &format!("DELETE FROM r WHERE id = {id}")).await;
                    truth.end(id, ver, false);
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    truth.begin(id);
                    format!(
                        "INSERT INTO r (id, ver, val) VALUES ({id}, {ver}, {})",
                        val_of(id, ver)
                    )
                } else {
                    format!(
                        "UPDATE r SET ver = {ver}, val = {} WHERE id = {id}",
                        val_of(id, ver)
                    )
                };
                retry(&mut conn, &write).await;
                truth.end(id, ver, true);
                vers[id as usize] = ver;
                tokio::time::sleep(Duration::from_millis(3)).await;
            }
        }));
    }

    // DDL: re-create g with the next generation; now and then rebuild r (ALTER TABLE).
    {
        let (truth, stop) = (Arc::clone(&truth), Arc::clone(&stop));
        let mut conn = Conn::new(opts(&server)).await.unwrap();
        tasks.push(tokio::spawn(async move {
            let mut cycle = 0u64;
            while !stop.load(Ordering::Relaxed) {
                cycle += 1;
                truth.ddl_seq.fetch_add(1, Ordering::SeqCst);
                retry(&mut conn, "DROP TABLE g").await;
                retry(&mut conn, "CREATE TABLE g (gen BIGINT)").await;
                retry(&mut conn, &format!("INSERT INTO g VALUES ({cycle})")).await;
                truth.generation.store(cycle, Ordering::SeqCst);
                truth.ddl_seq.fetch_add(1, Ordering::SeqCst);
                if cycle.is_multiple_of(5) {
                    let sql = if cycle.is_multiple_of(10) {
                        "ALTER TABLE r DROP COLUMN pad"
                    } else {
                        "ALTER TABLE r ADD COLUMN pad INT"
                    };
                    retry(&mut conn, sql).await;
                }
                tokio::time::sleep(Duration::from_millis(150)).await;
            }
        }));
    }

    let mut readers = Vec::new();
    for r in 0..READERS {
        let truth = Arc::clone(&truth);
        let mut conn = Conn::new(opts(&server)).await.unwrap();
        readers.push(tokio::spawn(async move {
            let mut tally = Tally::default();
            let point = conn.prep("SELECT id, ver, val FROM r WHERE id = ?").await.unwrap();
            let mut n = r as u64 + 99;
            while Instant::now() < deadline {
                n = n.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let id = (n >> 33) % ROWS;
                match (n >> 24) % 8 {
                    0..=5 => {
                        let seq0 = truth.seq[id as usize].load(Ordering::SeqCst);
                        let state0 = truth.state[id as usize].load(Ordering::SeqCst);
                        let answer: Result<Option<(u64, u64, u64)>, _> = if (n >> 30).is_multiple_of(2) {
                            conn.query_first(format!("SELECT id, ver, val FROM r WHERE id = {id}")).await
                        } else {
                            conn.exec_first(&point, (id,)).await
                        };
                        let seq1 = truth.seq[id as usize].load(Ordering::SeqCst);
                        let answer = match answer {
                            Ok(a) => a,
                            Err(e) if transient(&e) => continue,
                            Err(e) => panic!("point read: {e}"),
                        };
                        tally.checked += 1;
                        let (ver0, exists0) = (state0 >> 1, state0 & 1 == 1);
                        if let Some((rid, ver, val)) = answer {
                            if rid != id || val != val_of(id, ver) {
                                tally.stale.push(format!("row {id}: torn answer {answer:?}"));
                            }
                        }
                        if seq0 == seq1 && seq0.is_multiple_of(2) {
                            tally.exact += 1;
                            let expected = exists0.then_some(ver0);
                            let got = answer.map(|a| a.1);
                            if got != expected {
                                tally.stale.push(format!(
                                    "row {id}: got ver {got:?}, the committed state was {expected:?}"
                                ));
                            }
                        } else if let Some((_, ver, _)) = answer {
                            if ver < ver0 {
                                tally.stale.push(format!("row {id}: got ver {ver} < floor {ver0}"));
                            }
                        }
                    }
                    6 => {
                        let finished0 = truth.writes_finished.load(Ordering::SeqCst);
                        let started0 = truth.writes_started.load(Ordering::SeqCst);
                        let floor: Vec<u64> = truth.state.iter().map(|s| s.load(Ordering::SeqCst)).collect();
                        let answer: Result<Option<(u64, u64)>, _> =
                            conn.query_first("SELECT SUM(ver), COUNT(*) FROM r").await;
                        let started1 = truth.writes_started.load(Ordering::SeqCst);
                        let Ok(Some((sum, count))) = answer else {
                            match answer {
                                Err(e) if transient(&e) => continue,
                                other => panic!("aggregate: {other:?}"),
                            }
                        };
                        tally.checked += 1;
                        if finished0 == started0 && started1 == started0 {
                            tally.exact += 1;
                            let want_sum: u64 = floor.iter().filter(|s| *s & 1 == 1).map(|s| s >> 1).sum();
                            let want_count = floor.iter().filter(|s| *s & 1 == 1).count() as u64;
                            if (sum, count) != (want_sum, want_count) {
                                tally.stale.push(format!(
                                    "aggregate: got ({sum}, {count}), the committed state was ({want_sum}, {want_count})"
                                ));
                            }
                        }
                    }
                    _ => {
                        let ddl0 = truth.ddl_seq.load(Ordering::SeqCst);
                        let gen0 = truth.generation.load(Ordering::SeqCst);
                        let answer: Result<Option<u64>, _> = conn.query_first("SELECT gen FROM g").await;
                        let ddl1 = truth.ddl_seq.load(Ordering::SeqCst);
                        let quiet = ddl0 == ddl1 && ddl0.is_multiple_of(2);
                        tally.checked += 1;
                        match answer {
                            Ok(Some(gen)) if gen >= gen0 => {}
                            Ok(Some(gen)) => tally.stale.push(format!("g: got generation {gen} < {gen0}")),
                            Ok(None) | Err(_) if !quiet => {}
                            other => tally.stale.push(format!("g: got {other:?} with no DDL in flight")),
                        }
                        if quiet {
                            tally.exact += 1;
                        }
                    }
                }
            }
            tally
        }));
    }

    let mut total = Tally::default();
    for reader in readers {
        let tally = reader.await.unwrap();
        total.checked += tally.checked;
        total.exact += tally.exact;
        total.stale.extend(tally.stale);
    }
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await.unwrap();
    }
    let hits = common::async_status(&mut admin, "Qcache_hits").await;
    let inserts = common::async_status(&mut admin, "Qcache_inserts").await;
    let invalidations = common::async_status(&mut admin, "Qcache_invalidations").await;
    let races = common::async_status(&mut admin, "Qcache_insert_races").await;
    eprintln!(
        "checked {} answers ({} exactly), {} stale; Qcache_hits {hits}, inserts {inserts}, invalidations {invalidations}, insert races {races}; {} writes",
        total.checked,
        total.exact,
        total.stale.len(),
        truth.writes_finished.load(Ordering::SeqCst),
    );
    assert!(
        total.stale.is_empty(),
        "stale results: {:?}",
        &total.stale[..total.stale.len().min(20)]
    );
    assert!(total.checked > 1000, "readers made progress");
    assert!(
        hits * 10 >= total.checked,
        "the cache answered at least a tenth of the reads ({hits} hits)"
    );
    assert!(invalidations > 0, "writes invalidated entries");
}
