//! Kill -9 in the middle of a write load: every acknowledged statement is present after
//! recovery, no statement is half-applied, CHECK TABLE passes.
//!
//! The test re-executes its own binary as the child (`crash_child`, active only when
//! `MYRIAD_CRASH_CHILD_DIR` is set). The child runs writer threads; each statement inserts
//! three rows and updates one row of the previous statement, and after `commit` returns the
//! child prints `ACK <table> <n>`. The parent kills the child with SIGKILL at a random moment,
//! reopens the datadir and checks every acknowledgement.

mod common;

use common::*;
use myriad_storage::*;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::ops::Bound;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "MYRIAD_CRASH_CHILD_DIR";
const MODE_ENV: &str = "MYRIAD_CRASH_CHILD_FLUSH_MODE";
const WRITERS: usize = 4;
const ROUNDS: usize = 6;

fn table_name(w: usize) -> String {
    format!("load{w}")
}

/// Highest id in the table (reverse primary-key scan).
fn max_id(t: &Table) -> i64 {
    match t
        .index_scan(0, Bound::Unbounded, Bound::Unbounded, Direction::Backward)
        .unwrap()
        .next()
    {
        Some(r) => match r.unwrap().1[0] {
            Value::Int(v) => v,
            _ => panic!("id is not an INT"),
        },
        None => 0,
    }
}

#[test]
fn crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut cfg = config(std::path::Path::new(&dir));
    // Mode 2 writes the log at commit (fsync once a second): a killed process loses
    // nothing it acknowledged, since the kernel still has the writes.
    cfg.flush_log_at_trx_commit = std::env::var(MODE_ENV)
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(1);
    // Checkpoints every half MiB of log and a small block cache: the kill also lands during
    // checkpoints and eviction write-backs, the moments pages are written (and can tear).
    cfg.checkpoint_log_bytes = 512 << 10;
    cfg.block_cache_bytes = 1 << 20;
    let s = Storage::open(cfg).unwrap();
    let out = std::sync::Mutex::new(std::io::stdout());
    std::thread::scope(|scope| {
        for w in 0..WRITERS {
            let (s, out) = (&s, &out);
            scope.spawn(move || {
                let t = s.open_table("crash", &table_name(w)).unwrap();
                let mut n = max_id(&t) / 3;
                loop {
                    n += 1;
                    let mut st = s.begin();
                    for j in 1..=3 {
                        let id = 3 * (n - 1) + j;
                        t.insert(&mut st, &sb_row(id, n)).unwrap();
                    }
                    if n > 1 {
                        let prev = 3 * (n - 2) + 1;
                        let (row_id, _) = t.lookup_primary(&[Value::Int(prev)]).unwrap().unwrap();
                        t.update(&mut st, row_id, &sb_row(prev, -n)).unwrap();
                    }
                    st.commit().unwrap();
                    let mut o = out.lock().unwrap();
                    writeln!(o, "ACK {w} {n}").unwrap();
                    o.flush().unwrap();
                }
            });
        }
        // DDL alongside: create a table and fill it, drop the one created two steps before.
        // `CREATED n` and `DROPPED n` are printed once the calls returned.
        scope.spawn(|| {
            let existing = s.list_tables("crash").unwrap();
            let mut n = existing
                .iter()
                .filter_map(|t| t.strip_prefix("ddl")?.parse::<i64>().ok())
                .max()
                .unwrap_or(0);
            loop {
                n += 1;
                let name = format!("ddl{n}");
                s.create_table("crash", &name, &sbtest_def()).unwrap();
                let t = s.open_table("crash", &name).unwrap();
                let mut st = s.begin();
                t.insert(&mut st, &sb_row(n, n)).unwrap();
                st.commit().unwrap();
                writeln!(out.lock().unwrap(), "CREATED {n}").unwrap();
                match s.drop_table("crash", &format!("ddl{}", n - 2)) {
                    Ok(()) => writeln!(out.lock().unwrap(), "DROPPED {}", n - 2).unwrap(),
                    Err(StorageError::NoSuchTable(..)) => {}
                    Err(e) => panic!("drop: {e}"),
                }
            }
        });
        // A reader alongside, so the kill also lands during reads.
        scope.spawn(|| loop {
            let t = s.open_table("crash", &table_name(0)).unwrap();
            let _ = t.scan().unwrap().count();
        });
    });
}

#[test]
fn acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = Storage::open(config(dir.path())).unwrap();
        s.create_database("crash").unwrap();
        for w in 0..WRITERS {
            s.create_table("crash", &table_name(w), &sbtest_def())
                .unwrap();
        }
        s.shutdown().unwrap();
    }
    let mut acked: HashMap<usize, i64> = HashMap::new();
    let mut created_tables: std::collections::BTreeSet<i64> = Default::default();
    let mut dropped_tables: std::collections::BTreeSet<i64> = Default::default();
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let started = Instant::now();
    for round in 0..ROUNDS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["crash_child", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, dir.path())
            .env(MODE_ENV, if round % 2 == 0 { "1" } else { "2" })
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut acks: Vec<(usize, i64)> = Vec::new();
            let mut ddl: Vec<(bool, i64)> = Vec::new();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let mut parts = line.split_whitespace();
                match parts.next() {
                    Some("ACK") => {
                        let w: usize = parts.next().unwrap().parse().unwrap();
                        let n: i64 = parts.next().unwrap().parse().unwrap();
                        acks.push((w, n));
                    }
                    Some(kind @ ("CREATED" | "DROPPED")) => {
                        ddl.push((kind == "CREATED", parts.next().unwrap().parse().unwrap()));
                    }
                    _ => {}
                }
            }
            (acks, ddl)
        });
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let delay_ms = 150 + (seed >> 33) % 500;
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let (acks, ddl) = reader.join().unwrap();
        for (w, n) in acks {
            let e = acked.entry(w).or_insert(0);
            *e = (*e).max(n);
        }
        for (created, n) in ddl {
            if created {
                created_tables.insert(n);
            } else {
                dropped_tables.insert(n);
            }
        }
        // Recover and verify.
        let killed_at = Instant::now();
        let s = Storage::open(config(dir.path())).unwrap();
        let reopened_in = killed_at.elapsed();
        let mut total_statements = 0;
        for w in 0..WRITERS {
            let t = s.open_table("crash", &table_name(w)).unwrap();
            let rows: Vec<Row> = t.scan().unwrap().map(|r| r.unwrap().1).collect();
            let max = max_id(&t);
            assert_eq!(
                max % 3,
                0,
                "round {round}, table {w}: a statement was half-applied (max id {max})"
            );
            let statements = max / 3;
            total_statements += statements;
            let want_acked = acked.get(&w).copied().unwrap_or(0);
            assert!(statements >= want_acked, "round {round}, table {w}: acknowledged {want_acked} statements, found {statements}");
            assert_eq!(
                rows.len() as i64,
                max,
                "round {round}, table {w}: ids are not 1..={max}"
            );
            for (i, row) in rows.iter().enumerate() {
                let id = i as i64 + 1;
                let n = (id - 1) / 3 + 1;
                assert_eq!(row[0], Value::Int(id));
                // The first row of statement n was updated by statement n + 1, if it exists.
                let want_k = if id % 3 == 1 && n < statements {
                    -(n + 1)
                } else {
                    n
                };
                assert_eq!(
                    row[1],
                    Value::Int(want_k),
                    "round {round}, table {w}, id {id}"
                );
            }
            let report = t.check().unwrap();
            assert!(
                report.is_ok(),
                "round {round}, table {w}: {:?}",
                report.problems
            );
        }
        assert!(
            total_statements > 0,
            "round {round}: the child wrote nothing before the kill"
        );
        // Acknowledged DDL: created tables exist with their row, dropped ones are gone;
        // every table there passes CHECK.
        let present = s.list_tables("crash").unwrap();
        for n in &created_tables {
            let name = format!("ddl{n}");
            if dropped_tables.contains(n) {
                assert!(
                    !present.contains(&name),
                    "round {round}: dropped {name} is back"
                );
            } else if created_tables.contains(&(n + 2)) {
                // Its drop was started (after CREATED n+2) and not acknowledged: either way.
                continue;
            } else {
                assert!(
                    present.contains(&name),
                    "round {round}: created {name} is missing"
                );
                let t = s.open_table("crash", &name).unwrap();
                assert!(
                    t.lookup_primary(&[Value::Int(*n)]).unwrap().is_some(),
                    "round {round}: {name} lost its row"
                );
            }
        }
        for name in present.iter().filter(|t| t.starts_with("ddl")) {
            let report = s.open_table("crash", name).unwrap().check().unwrap();
            assert!(
                report.is_ok(),
                "round {round}: {name}: {:?}",
                report.problems
            );
        }
        eprintln!(
            "round {round}: killed after {delay_ms} ms, {total_statements} statements recovered, \
             acknowledged {acked:?}, reopened in {reopened_in:?}, verified in {:?}, {:?}",
            killed_at.elapsed() - reopened_in,
            s.recovery_stats()
        );
        drop(s);
    }
    // A guard against hangs (a killed child stuck in fsync dies only when it returns).
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "crash test hangs"
    );
}
