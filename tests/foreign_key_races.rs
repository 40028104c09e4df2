//! FOREIGN KEY constraints under concurrent writers: clients add children of the parent
//! that another client is deleting, or of the next one (autocommit, and in transactions
//! that stay open a while, some rolled back), while that client deletes the parents one
//! after the other for good (RESTRICT refuses while a child holds one, CASCADE deletes the
//! children). However the statements interleave, no child is left without its parent: the
//! constraint's reads claim what they found, so a delete and an insert that would cross
//! wait for each other. (Without those claims this test finds orphans.)

mod common;

use common::{first_row, Server};
use mysql_async::prelude::Queryable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const PARENTS: u64 = 400;

/// What the clients did, for the test to check that each kind of event happened.
#[derive(Default)]
struct Counts {
    children_added: AtomicU64,
    refused_child: AtomicU64,
    parents_deleted: AtomicU64,
    refused_delete: AtomicU64,
}

/// The server error code of a failed statement (0 for other failures).
fn code(e: &mysql_async::Error) -> u16 {
    match e {
        mysql_async::Error::Server(e) => e.code,
        _ => 0,
    }
}

/// Adds children of random parents to `fkr.child` (RESTRICT) and `fkr.cascaded`; every
/// third one in a transaction that waits a little before it ends (committed or rolled
/// back), so that deletes of the parent come while it is open.
async fn adder(
    opts: mysql_async::Opts,
    seed: u64,
    (target, stop): (Arc<AtomicU64>, Arc<AtomicBool>),
    counts: Arc<Counts>,
) {
    let mut conn = mysql_async::Conn::new(opts).await.expect("connect");
    let mut n = seed;
    while !stop.load(Ordering::Relaxed) {
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let parent = target.load(Ordering::Relaxed) + (n >> 33) % 2;
        let table = if (n >> 35) & 1 == 0 {
            "child"
        } else {
            "cascaded"
        };
        let sql = format!("INSERT INTO fkr.{table} (pid) VALUES ({parent})");
        if (n >> 40).is_multiple_of(3) {
            let steps = ["BEGIN".to_string(), sql, "DO SLEEP(0.01)".to_string()];
            let mut ok = true;
            for step in steps {
                if let Err(e) = conn.query_drop(step).await {
                    if code(&e) == 1452 {
                        counts.refused_child.fetch_add(1, Ordering::Relaxed);
                    }
                    ok = false;
                    break;
                }
            }
            let end = if ok && (n >> 50).is_multiple_of(2) {
                "COMMIT"
            } else {
                "ROLLBACK"
            };
            conn.query_drop(end).await.expect(end);
            if ok && end == "COMMIT" {
                counts.children_added.fetch_add(1, Ordering::Relaxed);
            }
            continue;
        }
        match conn.query_drop(sql).await {
            Ok(()) => {
                counts.children_added.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) if code(&e) == 1452 => {
                counts.refused_child.fetch_add(1, Ordering::Relaxed);
            }
            // A lock wait that timed out or a deadlock victim: the statement did nothing.
            Err(e) if matches!(code(&e), 1205 | 1213) => {}
            Err(e) => panic!("adding a child: {e}"),
        }
    }
}

/// Deletes the parents in order, for good: the `target` one until it is gone (first its
/// RESTRICT children every other try; refused while a child holds it; its CASCADE children
/// go with it), then the next.
async fn deleter(
    opts: mysql_async::Opts,
    (target, stop): (Arc<AtomicU64>, Arc<AtomicBool>),
    counts: Arc<Counts>,
) {
    let mut conn = mysql_async::Conn::new(opts).await.expect("connect");
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) && target.load(Ordering::Relaxed) <= PARENTS {
        n += 1;
        let parent = target.load(Ordering::Relaxed);
        if n.is_multiple_of(2) {
            let _ = conn
                .query_drop(format!("DELETE FROM fkr.child WHERE pid = {parent}"))
                .await;
        }
        match conn
            .query_drop(format!("DELETE FROM fkr.parent WHERE id = {parent}"))
            .await
        {
            Ok(()) => {
                counts
                    .parents_deleted
                    .fetch_add(conn.affected_rows(), Ordering::Relaxed);
                target.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) if code(&e) == 1451 => {
                counts.refused_delete.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) if matches!(code(&e), 1205 | 1213) => {}
            Err(e) => panic!("deleting a parent: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[test]
fn no_child_outlives_its_parent_under_concurrent_writers() {
    common::runtime().block_on(async {
        let server = Server::start(&["--innodb-lock-wait-timeout=5"]);
        let mut conn = server.connect_root().await;
        let parents: Vec<String> = (1..=PARENTS).map(|i| format!("({i})")).collect();
        common::exec_all(
            &mut conn,
            &[
                "CREATE DATABASE fkr",
                "CREATE TABLE fkr.parent (id INT PRIMARY KEY)",
                "CREATE TABLE fkr.child (id INT AUTO_INCREMENT PRIMARY KEY, pid INT, \
                 FOREIGN KEY (pid) REFERENCES fkr.parent (id))",
                "CREATE TABLE fkr.cascaded (id INT AUTO_INCREMENT PRIMARY KEY, pid INT, \
                 FOREIGN KEY (pid) REFERENCES fkr.parent (id) ON DELETE CASCADE)",
                &format!("INSERT INTO fkr.parent VALUES {}", parents.join(",")),
            ],
        )
        .await;
        let stop = Arc::new(AtomicBool::new(false));
        let target = Arc::new(AtomicU64::new(1));
        let counts = Arc::new(Counts::default());
        let shared = || (Arc::clone(&target), Arc::clone(&stop));
        let mut tasks = Vec::new();
        for seed in 0..3u64 {
            let counts = Arc::clone(&counts);
            tasks.push(tokio::spawn(adder(
                server.root_opts(),
                seed + 1,
                shared(),
                counts,
            )));
        }
        let counts_of_deleter = Arc::clone(&counts);
        tasks.push(tokio::spawn(deleter(
            server.root_opts(),
            shared(),
            counts_of_deleter,
        )));
        tokio::time::sleep(Duration::from_secs(3)).await;
        stop.store(true, Ordering::Relaxed);
        for task in tasks {
            task.await.expect("client");
        }
        for table in ["child", "cascaded"] {
            let orphans: u64 = first_row(
                &mut conn,
                &format!(
                    "SELECT COUNT(*) FROM fkr.{table} c LEFT JOIN fkr.parent p ON c.pid = p.id \
                     WHERE p.id IS NULL"
                ),
            )
            .await;
            assert_eq!(orphans, 0, "children of fkr.{table} without their parent");
        }
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        eprintln!(
            "children added {}, refused {}; parents deleted {}, refused {}",
            get(&counts.children_added),
            get(&counts.refused_child),
            get(&counts.parents_deleted),
            get(&counts.refused_delete)
        );
        assert!(get(&counts.children_added) > 0, "no child was added");
        assert!(get(&counts.parents_deleted) > 0, "no parent was deleted");
        assert!(
            get(&counts.refused_child) + get(&counts.refused_delete) > 0,
            "the constraints never refused anything: the race was not exercised"
        );
    });
}
