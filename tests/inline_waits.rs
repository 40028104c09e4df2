//! Statements run inline on the server's worker threads and hand a worker off only when
//! they wait (crates/server/src/handler.rs). With a single worker, a statement that waited
//! while holding it would stall every other connection, including the one that must act
//! to end the wait: the test would then run into the row lock's 50 s timeout (error 1205)
//! instead of finishing at once (checked: it does without the long-wait hook).

mod common;

use common::Server;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};
use std::time::{Duration, Instant};

async fn connect(server: &Server) -> Conn {
    let opts = Opts::from_url(&server.url("root", "", Some("w"))).unwrap();
    Conn::new(opts).await.expect("connect")
}

async fn one_worker_server() -> Server {
    let (server, setup) = common::start_with_setup(
        &["--thread-pool-size=1", "--lock-wait-timeout=20"],
        &[
            "CREATE DATABASE w",
            "CREATE TABLE w.t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO w.t VALUES (1, 0), (2, 0)",
        ],
    )
    .await;
    setup.disconnect().await.unwrap();
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_lock_wait_leaves_the_only_worker_to_the_lock_holder() {
    let server = one_worker_server().await;
    let mut holder = connect(&server).await;
    let mut waiter = connect(&server).await;
    // A DELETE in a transaction locks the row until COMMIT (crates/sql/src/session/row_locks.rs).
    common::exec_all(
        &mut holder,
        &[
            "BEGIN",
            "DELETE FROM t WHERE id = 1",
            "INSERT INTO t VALUES (1, 1)",
        ],
    )
    .await;
    let started = Instant::now();
    let blocked = tokio::spawn(async move {
        waiter.query_drop("BEGIN").await?;
        waiter.query_drop("DELETE FROM t WHERE id = 1").await?;
        waiter.query_drop("INSERT INTO t VALUES (1, 11)").await?;
        waiter.query_drop("COMMIT").await.map(|_| waiter)
    });
    // Let the waiter reach its lock wait, then end the holder's transaction: its COMMIT
    // needs a worker while the waiter is still waiting.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !blocked.is_finished(),
        "the DELETE did not wait for the row lock"
    );
    holder.query_drop("COMMIT").await.unwrap();
    let mut waiter = blocked.await.unwrap().expect("the waiting DELETE failed");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the wait lasted {:?}: the lock holder's COMMIT was not served meanwhile",
        started.elapsed()
    );
    let v: i64 = common::first_row(&mut waiter, "SELECT v FROM t WHERE id = 1").await;
    assert_eq!(v, 11);
}
