//! How fast one session answers sysbench-style point selects through the SQL layer alone
//! (no network): a prepared `SELECT c FROM sbtest1 WHERE id=?` and the same as text.
//!
//! `cargo run --release -p myriad-sql --example point_select -- [rows] [queries]`

use myriad_sql::{Engine, EngineConfig, QueryResult, SessionInfo, Value};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let rows: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let queries: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = Engine::open(EngineConfig {
        datadir: dir.path().to_path_buf(),
        variables: Vec::new(),
    })
    .expect("engine");
    let info = SessionInfo {
        connection_id: 1,
        user: "root".into(),
        host: "localhost".into(),
        database: None,
        interactive: false,
        tls: None,
        handles_expired_password: false,
    };
    let mut s = engine.new_session(info).expect("session");
    let run = |s: &mut myriad_sql::Session, sql: &str| {
        if let Some(Err(e)) = s.execute(sql, false).into_iter().next() {
            panic!("{sql}: {e}");
        }
    };
    run(&mut s, "CREATE DATABASE sbtest");
    run(&mut s, "USE sbtest");
    run(
        &mut s,
        "CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT '0', \
         c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id))",
    );
    let started = Instant::now();
    for chunk in (1..=rows).collect::<Vec<_>>().chunks(1000) {
        let values: Vec<String> = chunk
            .iter()
            .map(|i| format!("({}, 'c-{i:0>100}', 'pad-{i}')", i % 1000))
            .collect();
        run(
            &mut s,
            &format!(
                "INSERT INTO sbtest1 (k, c, pad) VALUES {}",
                values.join(",")
            ),
        );
    }
    println!(
        "loaded {rows} rows in {:.2} s",
        started.elapsed().as_secs_f64()
    );

    let p = s
        .prepare("SELECT c FROM sbtest1 WHERE id=?")
        .expect("prepare");
    let started = Instant::now();
    let mut id = 1u64;
    for _ in 0..queries {
        id = id.wrapping_mul(6364136223846793005) % rows + 1;
        match s.execute_prepared(p.statement_id, &[Value::UInt(id)]) {
            Ok(QueryResult::Rows { rows, .. }) => assert_eq!(rows.len(), 1),
            other => panic!("{other:?}"),
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "prepared point selects: {queries} in {secs:.2} s = {:.0}/s",
        queries as f64 / secs
    );

    let started = Instant::now();
    let text_queries = queries / 4;
    for _ in 0..text_queries {
        id = id.wrapping_mul(6364136223846793005) % rows + 1;
        run(&mut s, &format!("SELECT c FROM sbtest1 WHERE id={id}"));
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "text point selects: {text_queries} in {secs:.2} s = {:.0}/s",
        text_queries as f64 / secs
    );
}
