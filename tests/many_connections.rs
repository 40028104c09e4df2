//! 1,000 concurrent connections (open, query, close, repeated) against one
//! server with max_connections=1100 all succeed; with 1,100 open, connection 1,101 gets
//! ER_CON_COUNT_ERROR (1040), and once one closes a new one gets in again.

mod common;

use common::Server;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

const MAX_CONNECTIONS: usize = 1100;
const CONCURRENT: usize = 1000;
const ROUNDS: usize = 3;

async fn connect_all(opts: &Opts, count: usize) -> Vec<Conn> {
    let mut tasks = Vec::with_capacity(count);
    for _ in 0..count {
        let opts = opts.clone();
        tasks.push(tokio::spawn(async move { Conn::new(opts).await }));
    }
    let mut conns = Vec::with_capacity(count);
    for (i, task) in tasks.into_iter().enumerate() {
        conns.push(
            task.await
                .unwrap()
                .unwrap_or_else(|e| panic!("connection {i} of {count} failed: {e}")),
        );
    }
    conns
}

/// Wait until the server has processed every earlier close: a client's disconnect returns
/// before the server's task has seen the COM_QUIT, and a new round of 1,000 connections
/// started too early would find the old ones still counted against max_connections.
async fn wait_until_drained(opts: &Opts) {
    let mut conn = Conn::new(opts.clone()).await.expect("a probe connection");
    for _ in 0..600 {
        let row: Option<(String, u64)> = conn
            .query_first("SHOW GLOBAL STATUS LIKE 'Threads_connected'")
            .await
            .unwrap();
        if row.map(|(_, n)| n) == Some(1) {
            conn.disconnect().await.unwrap();
            // The probe's own close must be processed too.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("connections from the previous round never closed on the server");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousand_concurrent_connections_and_the_limit() {
    let server = Server::start(&[&format!("--max-connections={MAX_CONNECTIONS}")]);
    let opts = common::async_opts(&server, None);

    for round in 0..ROUNDS {
        // Open and query 1,000 connections; none closes until all are open, so all 1,000
        // are connected at once.
        let mut tasks = Vec::with_capacity(CONCURRENT);
        for i in 0..CONCURRENT {
            let opts = opts.clone();
            tasks.push(tokio::spawn(async move {
                let mut conn = Conn::new(opts)
                    .await
                    .map_err(|e| format!("connect {i}: {e}"))?;
                let value: i64 = conn
                    .query_first(format!("SELECT {i} + {round}"))
                    .await
                    .map_err(|e| format!("query {i}: {e}"))?
                    .ok_or("no row")?;
                if value != (i + round) as i64 {
                    return Err(format!("connection {i} got {value}"));
                }
                Ok(conn)
            }));
        }
        let mut open = Vec::with_capacity(CONCURRENT);
        let mut failures = Vec::new();
        for task in tasks {
            match task.await.unwrap() {
                Ok(conn) => open.push(conn),
                Err(e) => failures.push(e),
            }
        }
        let closing: Vec<_> = open
            .into_iter()
            .map(|conn| tokio::spawn(conn.disconnect()))
            .collect();
        for close in closing {
            close.await.unwrap().unwrap();
        }
        assert!(
            failures.is_empty(),
            "round {round}: {} of {CONCURRENT} failed, first: {}",
            failures.len(),
            failures[0]
        );
        wait_until_drained(&opts).await;
    }

    // Fill the server to its limit; one more is refused with 1040.
    let mut held = connect_all(&opts, MAX_CONNECTIONS).await;
    match Conn::new(opts.clone()).await {
        Err(mysql_async::Error::Server(err)) => assert_eq!(err.code, 1040, "{err:?}"),
        Err(other) => panic!(
            "connection {} failed, but not with 1040: {other:?}",
            MAX_CONNECTIONS + 1
        ),
        Ok(_) => panic!(
            "connection {} was accepted over max_connections",
            MAX_CONNECTIONS + 1
        ),
    }
    let (connected, max_used): (String, String) = {
        let conn = &mut held[0];
        let rows: Vec<(String, String)> = conn.query("SHOW STATUS LIKE '%connect%'").await.unwrap();
        let get = |name: &str| {
            rows.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        (get("Threads_connected"), get("Max_used_connections"))
    };
    assert_eq!(connected, MAX_CONNECTIONS.to_string());
    assert_eq!(max_used, MAX_CONNECTIONS.to_string());

    // Freeing one slot lets the next connection in.
    held.pop().unwrap().disconnect().await.unwrap();
    let mut admitted = None;
    for _ in 0..100 {
        match Conn::new(opts.clone()).await {
            Ok(conn) => {
                admitted = Some(conn);
                break;
            }
            // The server may not have seen the close yet.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    }
    let mut conn = admitted.expect("a connection is admitted after one closed");
    conn.ping().await.unwrap();
    held.push(conn);
    for conn in held {
        conn.disconnect().await.unwrap();
    }
}
