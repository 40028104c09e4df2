//! Results stream to the client as the statement produces them: several clients reading a
//! large result slowly grow the server's memory (VmRSS) by far less than one result; a
//! KILL QUERY of a statement blocked on a client that stopped reading ends it within two
//! seconds, and the client then reads the rows sent before it and the error 1317; an
//! error in the middle of a result reaches the client as an error after the rows before
//! it; the same holds for prepared statements (binary rows). A SELECT DISTINCT over the
//! large table holds its budget, not its result.

mod common;

use common::Server;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts, QueryResult, Row};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Barrier, Notify};

/// Rows of the large table, each with a 1000-byte string: about 100 MB of result.
const ROWS: usize = 100_000;
const PAD_BYTES: usize = 1000;
/// Clients reading the large result at once.
const READERS: usize = 4;

async fn connect(server: &Server) -> Conn {
    Conn::new(Opts::from_url(&server.url("root", "", Some("s"))).unwrap())
        .await
        .expect("connect")
}

/// A server with table s.big of [`ROWS`] rows (id, pad).
async fn server_with_big_table() -> Server {
    // The query cache stays off: these results are far over its limit anyway.
    let (server, mut setup) = common::start_with_setup(
        &["--thread-pool-size=2"],
        &[
            "CREATE DATABASE s",
            "CREATE TABLE s.big (id INT PRIMARY KEY, pad VARCHAR(1000))",
        ],
    )
    .await;
    let pad = "x".repeat(PAD_BYTES);
    common::insert_rows(&mut setup, "s.big", 1..=ROWS, 1000, |i| {
        format!("({i}, '{pad}')")
    })
    .await;
    setup.disconnect().await.unwrap();
    server
}

/// The server's resident memory in bytes.
fn rss_bytes(server: &Server) -> u64 {
    server.resident_bytes().expect("VmRSS of the server")
}

/// The server runs without transparent huge pages (where the kernel reports the flag): with
/// them, each statement that waits for a slow client had its thread's heap region brought
/// in 2 MiB at a time.
fn assert_no_transparent_huge_pages(server: &Server) {
    if let Some(flag) = server.status_field("THP_enabled") {
        assert_eq!(flag, "0", "THP_enabled of the server");
    }
}

/// The Command column of connection `id` in SHOW PROCESSLIST.
async fn command_of(conn: &mut Conn, id: u32) -> String {
    let list: Vec<Row> = conn.query("SHOW PROCESSLIST").await.unwrap();
    list.into_iter()
        .find(|r| r.get::<u64, _>(0) == Some(u64::from(id)))
        .and_then(|r| r.get::<String, _>(4))
        .unwrap_or_else(|| panic!("connection {id} is not in the process list"))
}

/// Wait until connection `id`'s statement has ended (Command goes back to Sleep); the time
/// it took, or None after `limit`.
async fn until_idle(conn: &mut Conn, id: u32, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if command_of(conn, id).await == "Sleep" {
            return Some(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

/// One slow reader: reads a few rows, waits at `paused` until every reader and the
/// sampler are there, waits for `resume`, then reads the rest in steps with pauses.
/// Returns the rows and bytes it read.
async fn slow_reader(
    mut conn: Conn,
    prepared: bool,
    paused: Arc<Barrier>,
    resume: Arc<Notify>,
) -> (usize, usize) {
    let sql = "SELECT id, pad FROM big";
    let counts = if prepared {
        let statement = conn.prep(sql).await.unwrap();
        let result = conn.exec_iter(statement, ()).await.unwrap();
        read_slowly(result, paused, resume).await
    } else {
        let result = conn.query_iter(sql).await.unwrap();
        read_slowly(result, paused, resume).await
    };
    conn.disconnect().await.unwrap();
    counts
}

/// `count` clients each running [`slow_reader`]; returns once every one has its first
/// rows and stopped reading: their tasks and the notification that lets them go on.
async fn stopped_readers(
    server: &Server,
    count: usize,
    prepared: bool,
) -> (Vec<tokio::task::JoinHandle<(usize, usize)>>, Arc<Notify>) {
    let paused = Arc::new(Barrier::new(count + 1));
    let resume = Arc::new(Notify::new());
    let mut readers = Vec::new();
    for _ in 0..count {
        let conn = connect(server).await;
        readers.push(tokio::spawn(slow_reader(
            conn,
            prepared,
            Arc::clone(&paused),
            Arc::clone(&resume),
        )));
    }
    paused.wait().await;
    (readers, resume)
}

/// The highest of ten readings of `read`, 100 ms apart.
async fn highest_for_a_second<T: Ord + Default>(read: impl Fn() -> T) -> T {
    let mut highest = T::default();
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        highest = highest.max(read());
    }
    highest
}

/// [`slow_reader`]'s reading, for either protocol.
async fn read_slowly<P: Protocol>(
    mut result: QueryResult<'_, '_, P>,
    paused: Arc<Barrier>,
    resume: Arc<Notify>,
) -> (usize, usize) {
    let (mut rows, mut bytes) = (0usize, 0usize);
    let read = |row: Row, rows: &mut usize, bytes: &mut usize| {
        let (id, pad): (u64, Vec<u8>) = mysql_async::from_row(row);
        assert_eq!(id as usize, *rows + 1, "rows arrive whole and in order");
        *rows += 1;
        *bytes += pad.len() + 8;
    };
    for _ in 0..10 {
        let row = result.next().await.unwrap().expect("a row");
        read(row, &mut rows, &mut bytes);
    }
    let resumed = resume.notified();
    paused.wait().await;
    resumed.await;
    while let Some(row) = result.next().await.unwrap() {
        read(row, &mut rows, &mut bytes);
        if rows % 5000 == 0 {
            // Slow: the server waits on this client between steps.
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    (rows, bytes)
}

/// Read a result to its end, which must be an error: the rows read and the error.
async fn rows_then_error<P: Protocol>(
    mut result: QueryResult<'_, '_, P>,
    mut rows: usize,
) -> (usize, mysql_async::Error) {
    loop {
        match result.next().await {
            Ok(Some(_)) => rows += 1,
            Ok(None) => panic!("the result ended without an error after {rows} rows"),
            Err(e) => return (rows, e),
        }
    }
}

/// N clients read the large result slowly, in text or binary form: the server's memory
/// grows by far less than one copy of the result, while every client gets every row.
async fn slow_readers_keep_server_memory_bounded(prepared: bool) {
    let server = server_with_big_table().await;
    assert_no_transparent_huge_pages(&server);
    // The table's pages are read once before the baseline, as every reader reads them.
    let mut warm = connect(&server).await;
    let all: Vec<(u64, Vec<u8>)> = warm.query("SELECT id, pad FROM big").await.unwrap();
    assert_eq!(all.len(), ROWS);
    let result_bytes: usize = all.iter().map(|(_, pad)| pad.len() + 8).sum();
    drop(all);
    warm.disconnect().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let baseline = rss_bytes(&server);

    let (readers, resume) = stopped_readers(&server, READERS, prepared).await;
    // Every reader has its first rows and stopped reading: a server that built whole
    // results holds them all now.
    let mut peak = highest_for_a_second(|| rss_bytes(&server)).await;
    let paused_peak = peak;
    resume.notify_waiters();
    let mut totals = Vec::new();
    for reader in readers {
        while !reader.is_finished() {
            peak = peak.max(rss_bytes(&server));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        totals.push(reader.await.unwrap());
    }
    let growth = peak.saturating_sub(baseline);
    println!(
        "{} readers of {result_bytes} bytes each ({}): baseline {baseline}, peak while paused {paused_peak}, peak {peak}, growth {growth} bytes",
        READERS,
        if prepared { "binary" } else { "text" },
    );
    for (rows, bytes) in totals {
        assert_eq!(
            (rows, bytes),
            (ROWS, result_bytes),
            "every reader got every row"
        );
    }
    // A server that buffered whole results would have grown by READERS results (twice
    // over: values and their encoding); a streaming one by its connection buffers.
    assert!(
        (growth as usize) < result_bytes / 4,
        "server memory grew by {growth} bytes for {READERS} slow readers of {result_bytes}-byte results"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_text_readers_keep_server_memory_bounded() {
    slow_readers_keep_server_memory_bounded(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_binary_readers_keep_server_memory_bounded() {
    slow_readers_keep_server_memory_bounded(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_query_ends_a_statement_blocked_on_a_client_that_stopped_reading() {
    let server = server_with_big_table().await;
    let mut reader = connect(&server).await;
    let mut killer = connect(&server).await;
    let id = reader.id();
    let mut result = reader.query_iter("SELECT id, pad FROM big").await.unwrap();
    let mut rows = 0;
    for _ in 0..10 {
        result.next().await.unwrap().expect("a row");
        rows += 1;
    }
    // The reader stops reading; the statement fills the socket and waits on it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        command_of(&mut killer, id).await,
        "Query",
        "blocked, not ended"
    );
    killer.query_drop(format!("KILL QUERY {id}")).await.unwrap();
    let ended = until_idle(&mut killer, id, Duration::from_secs(5)).await;
    println!("KILL QUERY of a statement blocked on its client: it ended after {ended:?}");
    assert!(
        ended.is_some_and(|d| d < Duration::from_secs(2)),
        "the statement ended {ended:?} after the KILL"
    );
    // The client reads what was sent before the KILL, then the error.
    let (rows, error) = rows_then_error(result, rows).await;
    assert!(rows < ROWS, "the statement stopped early ({rows} rows)");
    match error {
        mysql_async::Error::Server(e) => assert_eq!(e.code, 1317, "{e:?}"),
        other => panic!("expected ER_QUERY_INTERRUPTED, got {other:?}"),
    }
    // The connection stays usable.
    let one: Option<i64> = reader.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_after_rows_were_sent_reaches_the_client_as_an_error() {
    let server = server_with_big_table().await;
    let mut conn = connect(&server).await;
    // The subquery runs at the first row past 50,000 and returns two rows.
    let sql = "SELECT id, IF(id <= 50000, pad, (SELECT id FROM big WHERE id < 3)) FROM big";
    for prepared in [false, true] {
        let (rows, error) = if prepared {
            let statement = conn.prep(sql).await.unwrap();
            rows_then_error(conn.exec_iter(statement, ()).await.unwrap(), 0).await
        } else {
            rows_then_error(conn.query_iter(sql).await.unwrap(), 0).await
        };
        assert_eq!(
            rows, 50_000,
            "the rows before the error arrive (prepared {prepared})"
        );
        match error {
            mysql_async::Error::Server(e) => assert_eq!(e.code, 1242, "{e:?}"),
            other => panic!("expected ER_SUBQUERY_NO_1_ROW, got {other:?}"),
        }
        let one: Option<i64> = conn.query_first("SELECT 1").await.unwrap();
        assert_eq!(one, Some(1), "the connection stays usable");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_readers_that_stop_reading_do_not_hold_a_thread_each() {
    readers_that_stop_reading_do_not_hold_a_thread_each(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_readers_that_stop_reading_do_not_hold_a_thread_each() {
    readers_that_stop_reading_do_not_hold_a_thread_each(true).await;
}

/// Readers of the thread test: far more than the server's two network threads.
const STOPPED_READERS: usize = 16;

/// The server's thread count (Threads of /proc/PID/status).
fn threads(server: &Server) -> usize {
    let field = server
        .status_field("Threads")
        .expect("Threads of the server");
    field.trim().parse().expect("a thread count")
}

/// A SELECT whose client stopped reading pauses instead of waiting on a thread, text or
/// prepared: with
/// [`STOPPED_READERS`] clients stopped after their first rows, the server has far fewer new
/// threads than readers (a statement that waited for its client on a thread of its own
/// made one new thread per reader: 7 to 120 threads for 20 readers), and every reader
/// then gets every row, in order.
async fn readers_that_stop_reading_do_not_hold_a_thread_each(prepared: bool) {
    let server = server_with_big_table().await;
    let before = threads(&server);
    let (readers, resume) = stopped_readers(&server, STOPPED_READERS, prepared).await;
    // The statements fill their sockets and stop.
    let most = highest_for_a_second(|| threads(&server)).await;
    resume.notify_waiters();
    for reader in readers {
        let (rows, _) = reader.await.unwrap();
        assert_eq!(rows, ROWS, "every reader got every row");
    }
    println!("{STOPPED_READERS} stopped readers (prepared {prepared}): {before} threads before, at most {most} while they waited");
    assert!(
        most < before + STOPPED_READERS / 2,
        "{STOPPED_READERS} stopped readers took the server from {before} to {most} threads"
    );
}

/// max_statement_time ends a SELECT whose client stopped reading: the statement ends
/// within about a second of its limit, and the client reads the rows sent before it, then
/// error 1969. A client that hangs up in the middle of a result ends its statement too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_waiting_for_its_client_still_ends_on_time_and_on_hang_up() {
    let server = server_with_big_table().await;
    let mut reader = connect(&server).await;
    let mut watcher = connect(&server).await;
    let id = reader.id();
    reader
        .query_drop("SET SESSION max_statement_time = 1")
        .await
        .unwrap();
    let started = Instant::now();
    let mut result = reader.query_iter("SELECT id, pad FROM big").await.unwrap();
    for _ in 0..10 {
        result.next().await.unwrap().expect("a row");
    }
    let ended = until_idle(&mut watcher, id, Duration::from_secs(5)).await;
    println!(
        "max_statement_time 1 s: the statement waiting on its client ended after {:?}",
        started.elapsed()
    );
    assert!(
        ended.is_some(),
        "the statement outlived max_statement_time by 5 s"
    );
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "ended {:?} after it began",
        started.elapsed()
    );
    let (rows, error) = rows_then_error(result, 10).await;
    assert!(rows < ROWS, "the statement stopped early ({rows} rows)");
    assert_eq!(common::server_code(&error), Some(1969), "{error:?}");
    reader
        .query_drop("SET SESSION max_statement_time = 0")
        .await
        .unwrap();

    // A client that reads a little, stops, and dies: its session leaves the process list.
    let mut client = server
        .client("mariadb")
        .args(["--quick", "-e", "SELECT id, pad FROM s.big"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run mariadb");
    let mut head = [0u8; 4096];
    std::io::Read::read_exact(client.stdout.as_mut().unwrap(), &mut head).unwrap();
    let known = [u64::from(id), u64::from(watcher.id())];
    let others = |list: &[Row]| {
        list.iter()
            .filter(|r| r.get::<u64, _>(0).is_some_and(|i| !known.contains(&i)))
            .count()
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let list: Vec<Row> = watcher.query("SHOW PROCESSLIST").await.unwrap();
    assert_eq!(others(&list), 1, "the client's session is listed");
    client.kill().unwrap();
    client.wait().unwrap();
    let started = Instant::now();
    loop {
        let list: Vec<Row> = watcher.query("SHOW PROCESSLIST").await.unwrap();
        if others(&list) == 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the session of a client that hung up was still listed after 5 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let count: Option<u64> = watcher
        .query_first("SELECT COUNT(*) FROM big")
        .await
        .unwrap();
    assert_eq!(count, Some(ROWS as u64), "the server goes on answering");
}

/// Rows of each table of the join test: their cross join has JOIN_ROWS² combinations.
const JOIN_ROWS: usize = 1500;

/// A join holds one combined row per table, not its result: over the cross join of two
/// tables of [`JOIN_ROWS`] rows (2.25 million combinations), COUNT(*), a GROUP BY (its
/// aggregates folded per group) and a client reading every combined row grow the server's
/// memory by a few MB (a join that built its rows grew it by over 1 GB), and every count
/// is right.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joins_hold_one_row_per_table_not_their_result() {
    let (server, mut conn) = common::start_with_setup(
        &[],
        &[
            "CREATE DATABASE j",
            "CREATE TABLE j.a (id INT PRIMARY KEY, k INT, pad VARCHAR(100))",
            "CREATE TABLE j.b (id INT PRIMARY KEY, k INT, pad VARCHAR(100))",
        ],
    )
    .await;
    let pad = "p".repeat(50);
    for table in ["j.a", "j.b"] {
        common::insert_rows(&mut conn, table, 1..=JOIN_ROWS, 500, |i| {
            format!("({i}, {}, '{pad}')", i % 10)
        })
        .await;
    }
    conn.query_drop("USE j").await.unwrap();
    let warm: u64 = conn
        .query_first("SELECT COUNT(*) FROM a JOIN b ON b.id = a.id")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(warm, JOIN_ROWS as u64);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let baseline = rss_bytes(&server);
    let combinations = (JOIN_ROWS * JOIN_ROWS) as u64;
    let joins = tokio::spawn(async move {
        let count: u64 = conn
            .query_first("SELECT COUNT(*) FROM a, b")
            .await
            .unwrap()
            .unwrap();
        let groups: Vec<(u64, u64)> = conn
            .query("SELECT a.k, COUNT(*) FROM a, b WHERE b.k < 5 GROUP BY a.k")
            .await
            .unwrap();
        let mut result = conn
            .query_iter("SELECT a.id, b.id FROM a, b")
            .await
            .unwrap();
        let mut read = 0u64;
        result
            .for_each(|_: Row| read += 1)
            .await
            .expect("every combined row");
        (count, groups, read)
    });
    let mut peak = baseline;
    while !joins.is_finished() {
        peak = peak.max(rss_bytes(&server));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (count, groups, read) = joins.await.unwrap();
    assert_eq!(count, combinations);
    let expected: Vec<(u64, u64)> = (0..10).map(|k| (k, combinations / 20)).collect();
    assert_eq!(groups, expected);
    assert_eq!(read, combinations);
    let growth = peak.saturating_sub(baseline);
    println!("joins over {combinations} combinations: baseline {baseline}, peak {peak}, growth {growth} bytes");
    assert!(
        growth < 64 << 20,
        "server memory grew by {growth} bytes over joins of {combinations} combinations"
    );
}

/// Budget of the DISTINCT test (tmp_table_size): far below its result.
const DISTINCT_BUDGET_BYTES: u64 = 4 << 20;

/// A DISTINCT over [`ROWS`] rows of which a tenth repeat an earlier one (about 90 MB of
/// distinct rows) keeps the keys it has seen within tmp_table_size and sorts the rest on
/// disk: the server's memory grows by a few budgets, not by the result (a DISTINCT that
/// built its result grew it by several times the result), and the rows come in the order
/// first met, those held back past the budget included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distinct_holds_its_budget_not_its_result() {
    let server = server_with_big_table().await;
    let mut conn = connect(&server).await;
    // The table's pages are read once before the baseline.
    let warm: Option<u64> = conn
        .query_first("SELECT COUNT(*) FROM big WHERE pad <> ''")
        .await
        .unwrap();
    assert_eq!(warm, Some(ROWS as u64));
    conn.query_drop(format!(
        "SET SESSION tmp_table_size = {DISTINCT_BUDGET_BYTES}"
    ))
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let baseline = rss_bytes(&server);
    let distinct_rows = ROWS - ROWS / 10;
    let reader = tokio::spawn(async move {
        let mut result = conn
            .query_iter(format!(
                "SELECT DISTINCT id % {distinct_rows}, pad FROM big"
            ))
            .await
            .unwrap();
        // Row n is id n + 1's: ids 1 to distinct_rows give every key once, later ids repeat.
        let mut read = 0usize;
        let mut in_order = true;
        result
            .for_each(|row: Row| {
                read += 1;
                let key: u64 = row.get(0).expect("a key");
                in_order &= key == (read % distinct_rows) as u64;
            })
            .await
            .expect("every distinct row");
        drop(result);
        let disk: (String, u64) = conn
            .query_first("SHOW SESSION STATUS LIKE 'Created_tmp_disk_tables'")
            .await
            .unwrap()
            .unwrap();
        (read, in_order, disk.1)
    });
    let mut peak = baseline;
    while !reader.is_finished() {
        peak = peak.max(rss_bytes(&server));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (read, in_order, disk_tables) = reader.await.unwrap();
    let result_bytes = distinct_rows * (PAD_BYTES + 8);
    let growth = peak.saturating_sub(baseline);
    println!("DISTINCT of {distinct_rows} rows ({result_bytes} bytes) with tmp_table_size {DISTINCT_BUDGET_BYTES}: baseline {baseline}, peak {peak}, growth {growth} bytes");
    assert_eq!(read, distinct_rows, "one row per key");
    assert!(in_order, "the rows come in the order first met");
    assert_eq!(disk_tables, 1, "the DISTINCT went past its budget to disk");
    assert!(
        growth < 8 * DISTINCT_BUDGET_BYTES,
        "server memory grew by {growth} bytes over a DISTINCT of {result_bytes} bytes"
    );
}
