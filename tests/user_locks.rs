//! User-level locks (GET_LOCK and its family) between connections, against MariaDB with
//! the same steps: recursive holding, case-sensitive names, release by another connection,
//! NULL names and timeouts, a timed-out wait, a cycle of waits ending in 1213 at once,
//! locks that outlive COMMIT and go with their connection.

mod common;

use common::mariadb::start_mariadb;
use common::{root_at, Server};
use mysql_async::prelude::Queryable;
use std::time::{Duration, Instant};

/// `sql`'s first row as text (NULL as "NULL"), or its error code.
async fn answer(conn: &mut mysql_async::Conn, sql: &str) -> String {
    match conn.query_first::<mysql_async::Row, _>(sql).await {
        Ok(Some(row)) => (0..row.len())
            .map(|i| match row.as_ref(i) {
                Some(mysql_async::Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
                Some(mysql_async::Value::Int(n)) => n.to_string(),
                Some(mysql_async::Value::UInt(n)) => n.to_string(),
                _ => "NULL".to_string(),
            })
            .collect::<Vec<_>>()
            .join(" "),
        Ok(None) => "no rows".to_string(),
        Err(mysql_async::Error::Server(e)) => format!("ERROR {}", e.code),
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// The steps on one server: what each answered, in order.
async fn steps(port: u16) -> Vec<String> {
    let connect = || mysql_async::Conn::new(root_at(port));
    let (mut a, mut b) = (connect().await.expect("a"), connect().await.expect("b"));
    let mut out = Vec::new();
    let a_steps = [
        "SELECT GET_LOCK('L1', 0), GET_LOCK('L1', 0), IS_USED_LOCK('L1') = CONNECTION_ID(), IS_FREE_LOCK('L1')",
    ];
    for sql in a_steps {
        out.push(answer(&mut a, sql).await);
    }
    out.push(
        answer(
            &mut b,
            "SELECT GET_LOCK('l1', 0), IS_FREE_LOCK('l1'), RELEASE_LOCK('L1'), RELEASE_LOCK('nope')",
        )
        .await,
    );
    for sql in [
        "SELECT RELEASE_LOCK('L1'), RELEASE_LOCK('L1'), RELEASE_LOCK('L1')",
        "SELECT GET_LOCK(NULL, 0), GET_LOCK('', 0), GET_LOCK('x', NULL), GET_LOCK('x', -1)",
        "SELECT GET_LOCK('x', 'abc'), GET_LOCK('y', 0.5), RELEASE_ALL_LOCKS(), RELEASE_ALL_LOCKS()",
        "SELECT IS_FREE_LOCK(NULL), IS_USED_LOCK(NULL), RELEASE_LOCK(NULL)",
        "SELECT GET_LOCK(1, 0)",
        "SELECT GET_LOCK('d1', 0)",
    ] {
        out.push(answer(&mut a, sql).await);
    }
    out.push(answer(&mut b, "SELECT GET_LOCK('d2', 0)").await);
    // b waits for a's d1; a asking for b's d2 would close the cycle.
    let waiting = tokio::spawn(async move {
        let got = answer(&mut b, "SELECT GET_LOCK('d1', 3)").await;
        (b, got)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    out.push(answer(&mut a, "SELECT GET_LOCK('d2', 10)").await);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "port {port}: at once"
    );
    let (mut b, got) = waiting.await.expect("b");
    out.push(got);
    // A timed-out wait: 0 after its second.
    out.push(answer(&mut b, "SELECT GET_LOCK('t1', 0)").await);
    let started = Instant::now();
    out.push(answer(&mut a, "SELECT GET_LOCK('t1', 1)").await);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "port {port}: waited {waited:?}"
    );
    // Locks outlive COMMIT and go with the connection.
    for sql in ["BEGIN", "SELECT GET_LOCK('tx', 0)", "COMMIT"] {
        out.push(answer(&mut a, sql).await);
    }
    out.push(answer(&mut b, "SELECT IS_FREE_LOCK('tx')").await);
    a.disconnect().await.expect("disconnect");
    let mut free = String::new();
    for _ in 0..50 {
        free = answer(&mut b, "SELECT IS_FREE_LOCK('tx'), IS_FREE_LOCK('d1')").await;
        if free == "1 1" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    out.push(free);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn user_locks_answer_as_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let theirs = steps(maria.port()).await;
    let ours = steps(server.port).await;
    assert_eq!(ours, theirs);
    // What MariaDB answered, so that the comparison cannot pass on two wrong answers.
    assert_eq!(
        ours,
        [
            "1 1 1 0",
            "1 0 0 NULL",
            "1 1 NULL",
            "NULL NULL NULL NULL",
            "1 1 2 0",
            "NULL NULL NULL",
            "ERROR 4079",
            "1",
            "1",
            "ERROR 1213",
            "0",
            "1",
            "0",
            "no rows",
            "1",
            "no rows",
            "0",
            "1 1",
        ]
    );
}
