//! A write load that a `kill -9` can interrupt anywhere, and the check that the restarted
//! server lost no acknowledged write and half-applied none (used by `crash_recovery.rs`
//! and `redo_faults.rs`, which include this file by path).
//!
//! Four connections write to one table: multi-row INSERTs of new rows and multi-column
//! UPDATEs of rows they inserted earlier. Every row carries `chk`, a checksum of its other
//! columns, and `a`/`b` are derived from `seq`, so a row whose columns come from two
//! different writes fails the check. Each writer remembers what the server acknowledged
//! and the one statement in flight. After the server is killed and restarted:
//! - every acknowledged row is present with the acknowledged `seq`, or with the `seq` of
//!   the statement in flight (which may or may not have landed);
//! - the rows of an in-flight multi-row INSERT are all present or all absent;
//! - no row exists that no writer wrote;
//! - every row's checksum holds; `CHECK TABLE` answers OK.

#![allow(dead_code)]

use crate::common::{Datadir, Server};
use mysql_async::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const WRITERS: i64 = 4;
pub const ROWS_PER_INSERT: i64 = 3;

/// A small deterministic generator (xorshift64*); the seed is printed for replays.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The columns a write of (`id`, `seq`) stores, checksum last.
pub fn row_values(id: i64, writer: i64, seq: i64) -> (i64, String, i64) {
    let a = seq * 1_000 + id % 1_000;
    let len = 8 + (id + seq) as usize % 40;
    let b: String = format!(
        "{:016x}",
        (seq as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ id as u64
    )
    .chars()
    .cycle()
    .take(len)
    .collect();
    (a, b.clone(), checksum(id, writer, seq, a, &b))
}

/// FNV-1a over the other columns, kept within BIGINT.
pub fn checksum(id: i64, writer: i64, seq: i64, a: i64, b: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &byte in bytes {
            h ^= byte as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    };
    feed(&id.to_le_bytes());
    feed(&writer.to_le_bytes());
    feed(&seq.to_le_bytes());
    feed(&a.to_le_bytes());
    feed(b.as_bytes());
    (h >> 1) as i64
}

/// What one writer knows: the acknowledged `seq` of each of its rows and the statement
/// that was running when the connection broke.
#[derive(Default)]
pub struct WriterState {
    acked: HashMap<i64, i64>,
    in_flight: Vec<(i64, i64)>,
    next_id: i64,
    /// Errors the server answered (not a broken connection): none expected.
    server_errors: Vec<String>,
    statements: u64,
}

pub async fn write_load(url: String, writer: i64, state: Arc<Mutex<WriterState>>, seed: u64) {
    let mut rng = Rng(seed | 1);
    let Ok(mut conn) = mysql_async::Conn::from_url(url).await else {
        return;
    };
    loop {
        let (sql, writes) = {
            let mut st = state.lock().unwrap();
            let update_target = if st.acked.is_empty() || rng.below(3) == 0 {
                None
            } else {
                // Any acknowledged row of ours; HashMap order is arbitrary enough.
                let skip = rng.below(st.acked.len() as u64) as usize;
                st.acked.iter().nth(skip).map(|(&id, &seq)| (id, seq + 1))
            };
            let (sql, writes) = match update_target {
                Some((id, seq)) => {
                    let (a, b, chk) = row_values(id, writer, seq);
                    (
                        format!(
                            "UPDATE crash.t SET seq={seq}, a={a}, b='{b}', chk={chk} WHERE id={id}"
                        ),
                        vec![(id, seq)],
                    )
                }
                None => {
                    let first = st.next_id;
                    st.next_id += ROWS_PER_INSERT;
                    let ids: Vec<i64> = (first..first + ROWS_PER_INSERT).collect();
                    let values: Vec<String> = ids
                        .iter()
                        .map(|&id| {
                            let (a, b, chk) = row_values(id, writer, 0);
                            format!("({id}, {writer}, 0, {a}, '{b}', {chk})")
                        })
                        .collect();
                    (
                        format!(
                            "INSERT INTO crash.t (id, writer, seq, a, b, chk) VALUES {}",
                            values.join(", ")
                        ),
                        ids.iter().map(|&id| (id, 0)).collect(),
                    )
                }
            };
            st.in_flight = writes.clone();
            (sql, writes)
        };
        match conn.query_drop(&sql).await {
            Ok(()) => {
                let mut st = state.lock().unwrap();
                for (id, seq) in writes {
                    st.acked.insert(id, seq);
                }
                st.in_flight.clear();
                st.statements += 1;
            }
            Err(mysql_async::Error::Server(e)) => {
                state
                    .lock()
                    .unwrap()
                    .server_errors
                    .push(format!("{sql}: {e}"));
                return;
            }
            // The server died under us: what was in flight stays unknown.
            Err(_) => return,
        }
    }
}

#[derive(Debug)]
pub struct StoredRow {
    writer: i64,
    seq: i64,
    a: i64,
    b: String,
    chk: i64,
}

/// Check the restarted server's table against every writer's knowledge, then make the
/// stored rows the writers' new acknowledged state.
pub fn verify(rows: &HashMap<i64, StoredRow>, writers: &[Arc<Mutex<WriterState>>], round: usize) {
    for (&id, row) in rows {
        assert_eq!(
            checksum(id, row.writer, row.seq, row.a, &row.b),
            row.chk,
            "round {round}: row {id} is half-applied: {row:?}"
        );
        assert_eq!(
            row_values(id, row.writer, row.seq).1,
            row.b,
            "round {round}: row {id}: {row:?}"
        );
    }
    for (w, state) in writers.iter().enumerate() {
        let mut st = state.lock().unwrap();
        assert!(
            st.server_errors.is_empty(),
            "round {round}: writer {w}: {:?}",
            st.server_errors
        );
        let in_flight: HashMap<i64, i64> = st.in_flight.iter().copied().collect();
        for (&id, &seq) in &st.acked {
            let row = rows.get(&id).unwrap_or_else(|| {
                panic!("round {round}: acknowledged row {id} (writer {w}) is lost")
            });
            assert!(
                row.seq == seq || in_flight.get(&id) == Some(&row.seq),
                "round {round}: row {id} has seq {} but {seq} was acknowledged (in flight: {:?})",
                row.seq,
                st.in_flight
            );
        }
        // A multi-row INSERT in flight: all of its rows or none.
        let new_rows: Vec<i64> = st
            .in_flight
            .iter()
            .map(|&(id, _)| id)
            .filter(|id| !st.acked.contains_key(id))
            .collect();
        let landed = new_rows.iter().filter(|id| rows.contains_key(id)).count();
        assert!(
            landed == 0 || landed == new_rows.len(),
            "round {round}: {landed} of the {} rows of one INSERT survived",
            new_rows.len()
        );
        // Adopt what is stored as acknowledged for the next round.
        st.acked = rows
            .iter()
            .filter(|(_, r)| r.writer == w as i64)
            .map(|(&id, r)| (id, r.seq))
            .collect();
        st.in_flight.clear();
    }
    for (&id, row) in rows {
        let owner = &writers[row.writer as usize];
        assert!(
            owner.lock().unwrap().acked.contains_key(&id),
            "round {round}: row {id} nobody wrote"
        );
        assert_eq!(
            id / 1_000_000,
            row.writer,
            "round {round}: row {id} in the wrong range"
        );
    }
}

/// The load's state across kill rounds: the writers' knowledge and the random source.
pub struct CrashLoad {
    pub runtime: tokio::runtime::Runtime,
    pub writers: Vec<Arc<Mutex<WriterState>>>,
    pub rng: Rng,
    /// Statements acknowledged over all rounds.
    pub statements: u64,
}

impl CrashLoad {
    /// Create the table on `server`; the seed comes from CRASH_SEED or the clock and is
    /// printed for replays.
    pub fn new(server: &Server) -> CrashLoad {
        let seed = std::env::var("CRASH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(7)
            });
        eprintln!("crash test seed: CRASH_SEED={seed}");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let url = server.url("root", "", None);
        runtime.block_on(async {
            let mut conn = mysql_async::Conn::from_url(url.as_str()).await.unwrap();
            conn.query_drop("CREATE DATABASE crash").await.unwrap();
            conn.query_drop(
                "CREATE TABLE crash.t (id BIGINT PRIMARY KEY, writer INT NOT NULL, seq BIGINT NOT NULL, \
                 a BIGINT NOT NULL, b VARCHAR(64) NOT NULL, chk BIGINT NOT NULL, KEY k_writer (writer, seq))",
            )
            .await
            .unwrap();
            conn.disconnect().await.unwrap();
        });
        let writers = (0..WRITERS)
            .map(|w| {
                Arc::new(Mutex::new(WriterState {
                    next_id: w * 1_000_000,
                    ..WriterState::default()
                }))
            })
            .collect();
        CrashLoad {
            runtime,
            writers,
            rng: Rng(seed | 1),
            statements: 0,
        }
    }

    /// Run the load for `run_ms`, SIGKILL the server, wait for the writers to see it die,
    /// and hand back its directory for a restart.
    pub fn load_and_kill(&mut self, mut server: Server, run_ms: u64) -> Datadir {
        let url = server.url("root", "", None);
        let tasks: Vec<_> = self
            .writers
            .iter()
            .enumerate()
            .map(|(w, state)| {
                self.runtime.spawn(write_load(
                    url.clone(),
                    w as i64,
                    Arc::clone(state),
                    self.rng.next(),
                ))
            })
            .collect();
        std::thread::sleep(Duration::from_millis(run_ms));
        server.signal("KILL");
        assert!(
            server.wait_exit(Duration::from_secs(10)).is_some(),
            "the server did not die"
        );
        for task in tasks {
            self.runtime.block_on(task).unwrap();
        }
        server.into_dir()
    }

    /// Check the restarted `server` against every writer's knowledge (see the module) and
    /// make what it stores the writers' acknowledged state. Returns the rows verified.
    pub fn verify_after_restart(&mut self, server: &Server, round: usize) -> usize {
        let url = server.url("root", "", None);
        let (rows, check) = self.runtime.block_on(async {
            let mut conn = mysql_async::Conn::from_url(url.as_str()).await.unwrap();
            let stored: Vec<(i64, i64, i64, i64, String, i64)> = conn
                .query("SELECT id, writer, seq, a, b, chk FROM crash.t")
                .await
                .unwrap();
            let check: Vec<(String, String, String, String)> =
                conn.query("CHECK TABLE crash.t").await.unwrap();
            conn.disconnect().await.unwrap();
            (stored, check)
        });
        assert!(
            !check.is_empty()
                && check.iter().all(|(_, op, kind, text)| op == "check"
                    && (kind != "status" || text == "OK")
                    && kind != "error"),
            "round {round}: CHECK TABLE: {check:?}"
        );
        assert!(
            check
                .iter()
                .any(|(_, _, kind, text)| kind == "status" && text == "OK"),
            "{check:?}"
        );
        let rows: HashMap<i64, StoredRow> = rows
            .into_iter()
            .map(|(id, writer, seq, a, b, chk)| {
                (
                    id,
                    StoredRow {
                        writer,
                        seq,
                        a,
                        b,
                        chk,
                    },
                )
            })
            .collect();
        self.statements += self
            .writers
            .iter()
            .map(|w| std::mem::take(&mut w.lock().unwrap().statements))
            .sum::<u64>();
        verify(&rows, &self.writers, round);
        rows.len()
    }
}
