//! A stress run (60 s in CI; `MYRIAD_STRESS_SECS` changes it) of many
//! connections querying and updating thousands of tables through a small table cache while
//! other connections CREATE, RENAME, DROP and FLUSH TABLES. It checks:
//! - zero wrong results: every read of a stable table returns its own value, and the update
//!   counters survive eviction (each definition's pages are written when it leaves);
//! - zero errors but "table doesn't exist" (1146) on the tables that come and go;
//! - `Open_tables` never above `table_open_cache` plus the handles in use;
//! - no descriptor leak: /proc/<server pid>/fd counted before and after, each after FLUSH
//!   TABLES with the same connections open.

mod common;

use common::Server;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts, OptsBuilder};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const STABLE_TABLES: usize = 2000;
const CHURN_TABLES: usize = 40;
const READERS: usize = 12;
const DDL_WORKERS: usize = 3;
const TABLE_OPEN_CACHE: u64 = 200;

fn opts(server: &Server) -> Opts {
    common::async_opts(server, Some("s"))
}

fn fd_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

fn is_missing_table(e: &mysql_async::Error) -> bool {
    matches!(e, mysql_async::Error::Server(s) if s.code == 1146)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_connections_query_while_ddl_churns_the_table_cache() {
    let secs: u64 = common::env_number("MYRIAD_STRESS_SECS", 60);
    let server = Server::start(&[
        &format!("--table-open-cache={TABLE_OPEN_CACHE}"),
        "--table-open-cache-instances=4",
        "--table-definition-cache=400",
        "--open-files-limit=64",
        "--lock-wait-timeout=30",
        "--max-connections=200",
    ]);
    let mut admin = Conn::new(OptsBuilder::from_opts(opts(&server)).db_name(None::<String>))
        .await
        .unwrap();
    admin.query_drop("CREATE DATABASE s").await.unwrap();
    admin.query_drop("USE s").await.unwrap();
    // The stable tables, created by 4 connections side by side.
    let mut creators = Vec::new();
    for part in 0..4 {
        let opts = opts(&server);
        creators.push(tokio::spawn(async move {
            let mut c = Conn::new(opts).await.unwrap();
            for i in (part..STABLE_TABLES).step_by(4) {
                c.query_drop(format!(
                    "CREATE TABLE t{i} (id INT PRIMARY KEY, v INT NOT NULL, n INT NOT NULL)"
                ))
                .await
                .unwrap();
                c.query_drop(format!("INSERT INTO t{i} VALUES (1, {i}, 0)"))
                    .await
                    .unwrap();
            }
        }));
    }
    for c in creators {
        c.await.unwrap();
    }

    let pid = server.pid();
    let mut conns = Vec::new();
    for _ in 0..READERS + DDL_WORKERS {
        conns.push(Conn::new(opts(&server)).await.unwrap());
    }
    admin.query_drop("FLUSH TABLES").await.unwrap();
    let fds_before = fd_count(pid);

    let stop = Arc::new(AtomicBool::new(false));
    let updates: Arc<Vec<AtomicU64>> =
        Arc::new((0..STABLE_TABLES).map(|_| AtomicU64::new(0)).collect());
    let reads = Arc::new(AtomicU64::new(0));
    let ddl_cycles = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    let mut conns = conns.into_iter();
    for r in 0..READERS {
        let mut c = conns.next().unwrap();
        let (stop, updates, reads) = (stop.clone(), updates.clone(), reads.clone());
        tasks.push(tokio::spawn(async move {
            let mut x = 0x9E37_79B9u64.wrapping_mul(r as u64 + 1);
            while !stop.load(Ordering::Relaxed) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let roll = x % 10;
                if roll < 7 {
                    let i = (x >> 8) as usize % STABLE_TABLES;
                    let v: Option<i64> = c
                        .query_first(format!("SELECT v FROM t{i} WHERE id = 1"))
                        .await
                        .unwrap_or_else(|e| panic!("read of t{i}: {e}"));
                    assert_eq!(v, Some(i as i64), "wrong result from t{i}");
                    reads.fetch_add(1, Ordering::Relaxed);
                } else if roll < 9 {
                    let i = (x >> 8) as usize % STABLE_TABLES;
                    c.query_drop(format!("UPDATE t{i} SET n = n + 1 WHERE id = 1"))
                        .await
                        .unwrap_or_else(|e| panic!("update of t{i}: {e}"));
                    updates[i].fetch_add(1, Ordering::Relaxed);
                } else {
                    // A table that comes and goes: its own value, no row yet, or 1146.
                    let k = (x >> 8) as usize % CHURN_TABLES;
                    let name = if x & 1 == 0 { "c" } else { "r" };
                    match c
                        .query_first::<i64, _>(format!("SELECT v FROM {name}{k}"))
                        .await
                    {
                        Ok(v) => assert!(v.is_none() || v == Some(k as i64), "{name}{k}: {v:?}"),
                        Err(e) if is_missing_table(&e) => {}
                        Err(e) => panic!("read of {name}{k}: {e}"),
                    }
                }
            }
            c.disconnect().await.unwrap();
        }));
    }
    for w in 0..DDL_WORKERS {
        let mut c = conns.next().unwrap();
        let (stop, ddl_cycles) = (stop.clone(), ddl_cycles.clone());
        tasks.push(tokio::spawn(async move {
            let mut round = 0usize;
            while !stop.load(Ordering::Relaxed) {
                round += 1;
                // Each worker owns the churn tables k with k % DDL_WORKERS == w.
                let k = w + DDL_WORKERS * (round % (CHURN_TABLES / DDL_WORKERS));
                c.query_drop(format!(
                    "CREATE TABLE c{k} (id INT PRIMARY KEY, v INT NOT NULL)"
                ))
                .await
                .unwrap_or_else(|e| panic!("create c{k}: {e}"));
                c.query_drop(format!("INSERT INTO c{k} VALUES (1, {k})"))
                    .await
                    .unwrap();
                c.query_drop(format!("RENAME TABLE c{k} TO r{k}"))
                    .await
                    .unwrap_or_else(|e| panic!("rename c{k}: {e}"));
                let v: Option<i64> = c.query_first(format!("SELECT v FROM r{k}")).await.unwrap();
                assert_eq!(v, Some(k as i64));
                c.query_drop(format!("DROP TABLE r{k}"))
                    .await
                    .unwrap_or_else(|e| panic!("drop r{k}: {e}"));
                match round % 7 {
                    0 if w == 0 => c.query_drop("FLUSH TABLES").await.unwrap(),
                    3 => c
                        .query_drop(format!(
                            "FLUSH TABLES t{}, t{}",
                            round % STABLE_TABLES,
                            (round * 7) % STABLE_TABLES
                        ))
                        .await
                        .unwrap(),
                    _ => {}
                }
                ddl_cycles.fetch_add(1, Ordering::Relaxed);
            }
            c.disconnect().await.unwrap();
        }));
    }
    // The watcher: Open_tables within capacity plus the handles in use (each statement of
    // a connection holds at most one here).
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut max_open = 0;
    while Instant::now() < deadline {
        if tasks.iter().any(|t| t.is_finished()) {
            break; // a worker failed: its panic is reported below
        }
        let open = common::async_status(&mut admin, "Open_tables").await;
        max_open = max_open.max(open);
        assert!(
            open <= TABLE_OPEN_CACHE + (READERS + DDL_WORKERS + 1) as u64,
            "Open_tables {open} above capacity plus handles in use"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.expect("a stress connection failed");
    }
    assert!(
        reads.load(Ordering::Relaxed) > 1000,
        "readers made no progress"
    );
    assert!(
        ddl_cycles.load(Ordering::Relaxed) > 10,
        "DDL made no progress"
    );

    // Every update is there, whatever was evicted and flushed meanwhile.
    admin.query_drop("FLUSH TABLES").await.unwrap();
    for (i, expected) in updates.iter().enumerate() {
        let n: Option<i64> = admin
            .query_first(format!("SELECT n FROM t{i} WHERE id = 1"))
            .await
            .unwrap();
        assert_eq!(
            n,
            Some(expected.load(Ordering::Relaxed) as i64),
            "lost updates in t{i}"
        );
    }
    let opened = common::async_status(&mut admin, "Opened_tables").await;
    let defs = common::async_status(&mut admin, "Open_table_definitions").await;
    assert!(opened > STABLE_TABLES as u64);
    assert!(defs <= 400 + 1, "Open_table_definitions {defs}");
    // Same connections (admin and a fresh set of workers' worth) as before.
    let mut again = Vec::new();
    for _ in 0..READERS + DDL_WORKERS {
        again.push(Conn::new(opts(&server)).await.unwrap());
    }
    admin.query_drop("FLUSH TABLES").await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let fds_after = fd_count(pid);
    assert!(
        fds_after <= fds_before + 2,
        "descriptors leaked: {fds_before} before, {fds_after} after (max Open_tables {max_open})"
    );
    for c in again {
        c.disconnect().await.unwrap();
    }
    admin.disconnect().await.unwrap();
}
