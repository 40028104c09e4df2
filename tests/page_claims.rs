//! Autocommit writes beside an open transaction, on myriad and on MariaDB (InnoDB) in the
//! same test: a write to a page the transaction does not hold goes on at once; a write to
//! the transaction's row waits for its COMMIT and then builds on the committed value (no
//! lost update); AUTO_INCREMENT values a rolled-back transaction took are not given again.

mod common;

use common::mariadb::start_mariadb;
use common::{exec_all, first_row, root_at, Server};
use mysql_async::prelude::Queryable;
use std::time::{Duration, Instant};

/// What one server did: how long the far write took, the contended row's final value, and
/// the id the insert after a rolled-back one got.
async fn scenario(port: u16) -> (Duration, i64, u64) {
    let mut a = mysql_async::Conn::new(root_at(port)).await.unwrap();
    let mut b = mysql_async::Conn::new(root_at(port)).await.unwrap();
    exec_all(
        &mut a,
        &[
            "DROP DATABASE IF EXISTS pc",
            "CREATE DATABASE pc",
            "CREATE TABLE pc.t (id INT PRIMARY KEY, v INT, pad CHAR(200)) ENGINE=InnoDB",
            "CREATE TABLE pc.a (id INT AUTO_INCREMENT PRIMARY KEY, x INT) ENGINE=InnoDB",
        ],
    )
    .await;
    // 2,000 rows of 200-odd bytes: the first and the last lie on different pages.
    for chunk in 0..20 {
        let values: Vec<String> = (1..=100)
            .map(|i| format!("({}, 0, 'p')", chunk * 100 + i))
            .collect();
        let sql = format!("INSERT INTO pc.t VALUES {}", values.join(","));
        a.query_drop(sql).await.unwrap();
    }
    exec_all(&mut a, &["BEGIN", "UPDATE pc.t SET v = v + 1 WHERE id = 1"]).await;
    let started = Instant::now();
    b.query_drop("UPDATE pc.t SET v = v + 1 WHERE id = 2000")
        .await
        .unwrap();
    let far = started.elapsed();
    // The same row: waits for the transaction, then adds to what it committed.
    let waiting = tokio::spawn(async move {
        b.query_drop("UPDATE pc.t SET v = v + 10 WHERE id = 1")
            .await
            .unwrap();
        b
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "the write to the held row waits");
    exec_all(&mut a, &["COMMIT"]).await;
    let mut b = waiting.await.unwrap();
    let v: i64 = first_row(&mut a, "SELECT v FROM pc.t WHERE id = 1").await;
    exec_all(
        &mut b,
        &[
            "INSERT INTO pc.a (x) VALUES (1)",
            "BEGIN",
            "INSERT INTO pc.a (x) VALUES (2), (3)",
            "ROLLBACK",
            "INSERT INTO pc.a (x) VALUES (4)",
        ],
    )
    .await;
    let id: u64 = first_row(&mut b, "SELECT id FROM pc.a WHERE x = 4").await;
    (far, v, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn autocommit_writes_go_on_beside_a_transaction_and_lose_nothing() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let (_, theirs_v, theirs_id) = scenario(maria.port()).await;
    let (far, v, id) = scenario(server.port).await;
    assert!(
        far < Duration::from_secs(2),
        "a write to a page the transaction does not hold waited {far:?}"
    );
    assert_eq!((v, id), (theirs_v, theirs_id));
    assert_eq!((v, id), (11, 4));
}
