//! Statements that nest deep or build huge strings, sent through a real client to the real
//! server: each is answered (a result, or error 1436 / NULL with warning 1301 as MariaDB
//! does), only on its own connection, and the server goes on serving everyone.

mod common;

use common::{runtime, Server};
use mysql_async::prelude::*;
use mysql_async::Conn;

fn chain(terms: usize, op: &str) -> String {
    vec!["1"; terms].join(op)
}

async fn error_code(conn: &mut Conn, sql: &str) -> Option<u16> {
    match conn.query_drop(sql).await {
        Ok(()) => None,
        Err(mysql_async::Error::Server(e)) => Some(e.code),
        Err(other) => panic!(
            "{}...: not a server error: {other}",
            &sql[..60.min(sql.len())]
        ),
    }
}

#[test]
fn deep_and_long_statements_are_answered_and_the_server_stays_up() {
    let server = Server::start(&[]);
    runtime().block_on(async {
        let opts = common::async_opts(&server, None);
        let mut conn = Conn::new(opts.clone()).await.unwrap();
        common::exec_all(
            &mut conn,
            &[
                "CREATE DATABASE deep",
                "USE deep",
                "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
                "INSERT INTO t VALUES (1, 10), (500, 20), (899, 30)",
            ],
        )
        .await;

        // A long expression and an ORM's OR chain: answered (MariaDB refuses the first
        // with 1436 at its default thread_stack; myriad's statement threads hold it).
        let sum: Option<i64> = conn
            .query_first(format!("SELECT {}", chain(800, "+")))
            .await
            .unwrap();
        assert_eq!(sum, Some(800));
        let ors = (0..900)
            .map(|i| format!("id={i}"))
            .collect::<Vec<_>>()
            .join(" OR ");
        let hits: Vec<i64> = conn
            .query(format!("SELECT v FROM t WHERE {ors} ORDER BY v"))
            .await
            .unwrap();
        assert_eq!(hits, vec![10, 20, 30]);

        // Past the bounds: error 1436 on this connection, which stays usable.
        for sql in [
            format!("SELECT {}", chain(1_000_000, "+")),
            format!("SELECT {}", chain(100_000, " OR ")),
            format!("SELECT {}1{}", "(".repeat(5_000), ")".repeat(5_000)),
            format!("SELECT {}1{}", "abs(".repeat(1_000), ")".repeat(1_000)),
            format!("SELECT {}1", "-".repeat(100_000)),
            format!(
                "SELECT 1 FROM t WHERE id IN {}(1){}",
                "(SELECT ".repeat(400),
                ")".repeat(400)
            ),
        ] {
            assert_eq!(
                error_code(&mut conn, &sql).await,
                Some(1436),
                "{}...",
                &sql[..40]
            );
            let one: Option<i64> = conn.query_first("SELECT 1").await.unwrap();
            assert_eq!(one, Some(1));
        }

        // Strings past max_allowed_packet: NULL and warning 1301, never gigabytes.
        let huge: Option<Option<String>> = conn
            .query_first("SELECT repeat(repeat(repeat('a', 1000), 1000), 1000)")
            .await
            .unwrap();
        assert_eq!(huge, Some(None));
        let warnings: Vec<(String, u16, String)> = conn.query("SHOW WARNINGS").await.unwrap();
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].1, 1301);
        assert!(warnings[0].2.contains("repeat()"), "{:?}", warnings[0]);
        conn.query_drop("SET GLOBAL max_allowed_packet = 1048576")
            .await
            .unwrap();
        let mut small = Conn::new(opts.clone()).await.unwrap();
        let capped: Option<Option<i64>> = small
            .query_first("SELECT length(concat(repeat('a', 600000), repeat('b', 600000)))")
            .await
            .unwrap();
        assert_eq!(capped, Some(None));

        // Everyone else was served throughout: a fresh connection answers.
        let mut other = Conn::new(opts).await.unwrap();
        let one: Option<i64> = other.query_first("SELECT 1").await.unwrap();
        assert_eq!(one, Some(1));
    });
    assert!(
        !server.log_text().contains("overflowed its stack"),
        "the server's stack overflowed:\n{}",
        server.log_text()
    );
}
