//! Long statements share the server fairly and stop when asked: CPU-heavy statements leave
//! the network workers (a new connection is answered at once while eight of them run on two
//! workers), and a statement stops within two seconds on KILL QUERY (1317), KILL CONNECTION
//! (1927 or a closed connection), max_statement_time (1969) and when its client hangs up.
//! Error codes and messages are MariaDB 10.11's: the last test runs KILL and
//! max_statement_time statements on a mariadbd and on myriad through the same client and
//! compares the answers (1095 for another user's session was checked by hand).

mod common;

use common::Server;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};
use std::time::{Duration, Instant};

/// Rows of the joined table: one join of it with itself compares 4 M pairs.
const ROWS: usize = 2000;

/// A statement that runs for minutes: 60 x 2000 pairs from the first join, each compared
/// with all 2000 rows of the third table, none matching. It keeps little memory (the first
/// join's 120,000 rows) and ticks once per candidate row.
const ENDLESS: &str =
    "SELECT COUNT(*) FROM t a JOIN t b ON a.id <= 60 JOIN t c ON a.v + b.v + c.v = -1";

/// A self-join with an aggregate over a full scan: about two seconds of CPU on its own.
const HEAVY: &str = "SELECT COUNT(*) FROM t a JOIN t b ON a.v + b.v = -1";

async fn connect(server: &Server, user: &str) -> Conn {
    let opts = Opts::from_url(&server.url(user, "", Some("f"))).unwrap();
    Conn::new(opts).await.expect("connect")
}

/// A server with table f.t of [`ROWS`] rows, on two workers.
async fn server_with_table() -> Server {
    let (server, mut setup) = common::start_with_setup(
        &["--thread-pool-size=2"],
        &[
            "CREATE DATABASE f",
            "CREATE TABLE f.t (id INT PRIMARY KEY, v INT, s VARCHAR(20))",
        ],
    )
    .await;
    common::insert_rows(&mut setup, "f.t", 1..=ROWS, 500, |i| {
        format!("({i}, {}, 'row {i}')", i % 97)
    })
    .await;
    setup.disconnect().await.unwrap();
    server
}

fn code_of(result: &Result<(), mysql_async::Error>) -> Option<u16> {
    result.as_ref().err().and_then(common::server_code)
}

/// A statement running in a task: it gives back the connection, the outcome and how long
/// the statement took.
type Statement = tokio::task::JoinHandle<(Conn, Result<(), mysql_async::Error>, Duration)>;

/// Run `sql` on `conn` in a task; the task gives back the connection, the outcome and
/// how long the statement took.
fn spawn_statement(mut conn: Conn, sql: &'static str) -> Statement {
    tokio::spawn(async move {
        let started = Instant::now();
        let result = conn.query_drop(sql).await;
        (conn, result, started.elapsed())
    })
}

/// Threads_running; bounded, so that a server whose workers are all held fails the test
/// instead of hanging it.
async fn threads_running(conn: &mut Conn) -> u64 {
    tokio::time::timeout(
        Duration::from_secs(10),
        common::async_status(conn, "Threads_running"),
    )
    .await
    .expect("SHOW STATUS answered within 10 s")
}

/// Run `sql` on `conn` in a task (see [`spawn_statement`]) and wait until `observer` counts
/// `running` statements in Threads_running (its own SHOW STATUS included).
async fn spawn_running(
    observer: &mut Conn,
    conn: Conn,
    sql: &'static str,
    running: u64,
) -> Statement {
    let task = spawn_statement(conn, sql);
    assert!(
        wait_threads_running(observer, running, Duration::from_secs(10))
            .await
            .is_some()
    );
    task
}

/// A killer connection and a victim connection running `sql` in a task, once
/// Threads_running counts both: (killer, victim's id, task).
async fn running_victim(server: &Server, sql: &'static str) -> (Conn, u32, Statement) {
    let mut killer = connect(server, "root").await;
    let victim = connect(server, "root").await;
    let id = victim.id();
    let task = spawn_running(&mut killer, victim, sql, 2).await;
    (killer, id, task)
}

/// `KILL <what> <id>` on `killer`, then wait for `statement`: its connection, its outcome
/// and how long after the KILL it ended.
async fn kill(
    killer: &mut Conn,
    what: &str,
    id: u32,
    statement: Statement,
) -> (Conn, Result<(), mysql_async::Error>, Duration) {
    let killed_at = Instant::now();
    killer
        .query_drop(format!("KILL {what} {id}"))
        .await
        .unwrap();
    let (conn, result, _) = statement.await.unwrap();
    (conn, result, killed_at.elapsed())
}

/// Wait until `Threads_running` (the observer's own statement included) is `count`.
async fn wait_threads_running(conn: &mut Conn, count: u64, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if threads_running(conn).await == count {
            return Some(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_new_connection_is_answered_while_eight_heavy_statements_run() {
    let server = server_with_table().await;
    let mut observer = connect(&server, "root").await;
    let mut heavy = Vec::new();
    let mut ids = Vec::new();
    for _ in 0..8 {
        let conn = connect(&server, "root").await;
        ids.push(conn.id());
        heavy.push(spawn_statement(conn, ENDLESS));
    }
    // All eight are running (the observer's SHOW STATUS is the ninth).
    let all_running = wait_threads_running(&mut observer, 9, Duration::from_secs(10)).await;
    assert!(all_running.is_some(), "the eight statements did not start");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut slowest = Duration::ZERO;
    for attempt in 0..5 {
        let started = Instant::now();
        // Bounded: with the workers held by the heavy statements this would never return.
        let answered = tokio::time::timeout(Duration::from_secs(10), async {
            let mut fresh = connect(&server, "root").await;
            let one: Option<i64> = fresh.query_first("SELECT 1").await.unwrap();
            (fresh, one)
        })
        .await;
        let took = started.elapsed();
        let (fresh, one) = answered.expect("no answer within 10 s behind 8 heavy statements");
        assert_eq!(one, Some(1));
        println!("connect + SELECT 1 with 8 heavy statements running: {took:?} (try {attempt})");
        slowest = slowest.max(took);
        fresh.disconnect().await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Still all running: the answers did not come from a server that had finished.
    assert_eq!(threads_running(&mut observer).await, 9);
    assert!(
        slowest < Duration::from_secs(1),
        "a new connection's SELECT 1 took {slowest:?} behind 8 heavy statements (bound 1 s)"
    );
    for id in ids {
        observer
            .query_drop(format!("KILL QUERY {id}"))
            .await
            .unwrap();
    }
    for task in heavy {
        let (_, result, _) = task.await.unwrap();
        assert_eq!(code_of(&result), Some(1317), "{result:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_query_stops_a_heavy_statement_and_keeps_the_connection() {
    let server = server_with_table().await;
    let (mut killer, id, task) = running_victim(&server, ENDLESS).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    // SHOW PROCESSLIST is where an operator finds the id: Id, User, Host, db, Command, ...
    let list: Vec<(u64, String, String, Option<String>, String)> = killer
        .query_map("SHOW PROCESSLIST", |row: mysql_async::Row| {
            let get = |i: usize| row.get::<Option<String>, _>(i).flatten();
            let id: u64 = row.get(0).unwrap();
            (
                id,
                get(1).unwrap(),
                get(2).unwrap(),
                get(3),
                get(4).unwrap(),
            )
        })
        .await
        .unwrap();
    let victim_row = list.iter().find(|r| r.0 == u64::from(id));
    assert_eq!(
        victim_row.map(|r| (r.1.as_str(), r.3.as_deref(), r.4.as_str())),
        Some(("root", Some("f"), "Query")),
        "{list:?}"
    );
    assert!(list.iter().any(|r| r.0 == u64::from(killer.id())));
    let (mut victim, result, stopped_after) = kill(&mut killer, "QUERY", id, task).await;
    println!("KILL QUERY: the statement stopped {stopped_after:?} after the KILL");
    assert_eq!(code_of(&result), Some(1317), "{result:?}");
    assert!(stopped_after < Duration::from_secs(2), "{stopped_after:?}");
    // The connection stays and its next statement runs (the kill is not left over).
    let one: Option<i64> = victim.query_first("SELECT 1").await.unwrap();
    assert_eq!(one, Some(1));
    let rows: Option<i64> = victim.query_first(HEAVY).await.unwrap();
    assert_eq!(rows, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_query_ends_a_row_lock_wait() {
    let server = server_with_table().await;
    let mut holder = connect(&server, "root").await;
    let mut waiter = connect(&server, "root").await;
    // A DELETE inside a transaction locks its key until COMMIT (crates/sql/src/session/row_locks.rs).
    holder.query_drop("BEGIN").await.unwrap();
    holder
        .query_drop("DELETE FROM t WHERE id = 1")
        .await
        .unwrap();
    waiter.query_drop("BEGIN").await.unwrap();
    let id = waiter.id();
    let task = spawn_running(&mut holder, waiter, "DELETE FROM t WHERE id = 1", 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, result, stopped_after) = kill(&mut holder, "QUERY", id, task).await;
    println!("KILL QUERY of a row lock wait: it ended {stopped_after:?} after the KILL");
    assert_eq!(code_of(&result), Some(1317), "{result:?}");
    assert!(stopped_after < Duration::from_secs(2), "{stopped_after:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_connection_stops_the_statement_and_closes_running_and_idle_victims() {
    let server = server_with_table().await;
    let (mut killer, id, task) = running_victim(&server, ENDLESS).await;
    let (mut victim, result, stopped_after) = kill(&mut killer, "CONNECTION", id, task).await;
    println!("KILL CONNECTION: the statement ended {stopped_after:?} after the KILL: {result:?}");
    assert!(stopped_after < Duration::from_secs(2), "{stopped_after:?}");
    match &result {
        Err(mysql_async::Error::Server(e)) => assert_eq!(e.code, 1927, "{e:?}"),
        // The connection dropped under the statement, as MariaDB drops it (client: 2013).
        Err(_) => {}
        Ok(()) => panic!("the killed statement finished"),
    }
    assert!(victim.query_drop("SELECT 1").await.is_err(), "closed");
    // An idle victim is closed at once.
    let mut idle = connect(&server, "root").await;
    let idle_id = idle.id();
    killer.query_drop(format!("KILL {idle_id}")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(idle.query_drop("SELECT 1").await.is_err(), "closed");
    // Unknown ids, someone else's session, one's own connection.
    let unknown = killer.query_drop("KILL 999999").await;
    assert_eq!(code_of(&unknown), Some(1094), "{unknown:?}");
    killer.query_drop("CREATE USER u1").await.unwrap();
    killer.query_drop("CREATE USER u2").await.unwrap();
    // Each may use the database (a database named at connect needs a privilege in it).
    killer
        .query_drop("GRANT SELECT ON f.* TO u1, u2")
        .await
        .unwrap();
    let mut u1 = connect(&server, "u1").await;
    let u2 = connect(&server, "u2").await;
    // A user sees its own sessions only, and may not kill another's.
    let seen: Vec<u64> = u1
        .query_map("SHOW PROCESSLIST", |row: mysql_async::Row| {
            row.get::<u64, _>(0).unwrap()
        })
        .await
        .unwrap();
    assert_eq!(seen, vec![u64::from(u1.id())]);
    let denied = u1.query_drop(format!("KILL QUERY {}", u2.id())).await;
    assert_eq!(code_of(&denied), Some(1095), "{denied:?}");
    let own = u1.query_drop("KILL QUERY CONNECTION_ID()").await;
    assert_eq!(code_of(&own), Some(1317), "{own:?}");
    let own = u1.query_drop("KILL CONNECTION_ID()").await;
    assert_eq!(code_of(&own), Some(1927), "{own:?}");
    assert!(u1.query_drop("SELECT 1").await.is_err(), "closed");
    // The statement counter saw all of them.
    assert!(common::async_status(&mut killer, "Com_kill").await >= 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_stops_when_its_client_hangs_up() {
    common::require_program("mariadb");
    let server = server_with_table().await;
    let mut observer = connect(&server, "root").await;
    let mut client = server
        .client("mariadb")
        .args(["f", "-e", ENDLESS])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the mariadb client");
    assert!(
        wait_threads_running(&mut observer, 2, Duration::from_secs(10))
            .await
            .is_some(),
        "the client's statement did not start"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(threads_running(&mut observer).await, 2, "still running");
    // SIGKILL: the kernel closes the client's socket, no COM_QUIT, no KILL.
    client.kill().unwrap();
    client.wait().unwrap();
    let stopped = wait_threads_running(&mut observer, 1, Duration::from_secs(5)).await;
    println!("client gone: its statement stopped after {stopped:?}");
    let stopped = stopped.expect("the statement kept running after its client left");
    assert!(stopped < Duration::from_secs(2), "{stopped:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_statement_time_ends_statements_with_1969() {
    let server = server_with_table().await;
    let mut conn = connect(&server, "root").await;
    conn.query_drop("SET SESSION max_statement_time = 0.5")
        .await
        .unwrap();
    let started = Instant::now();
    let result = conn.query_drop(ENDLESS).await;
    let took = started.elapsed();
    println!("max_statement_time = 0.5: the statement ended after {took:?}");
    assert_eq!(code_of(&result), Some(1969), "{result:?}");
    match &result {
        Err(mysql_async::Error::Server(e)) => assert_eq!(
            e.message,
            "Query execution was interrupted (max_statement_time exceeded)"
        ),
        other => panic!("{other:?}"),
    }
    assert!(took >= Duration::from_millis(500) && took < Duration::from_millis(2500));
    // SLEEP is cut short too, with the same error (MariaDB does not answer 1 here).
    let started = Instant::now();
    let slept = conn.query_drop("SELECT SLEEP(10)").await;
    assert_eq!(code_of(&slept), Some(1969), "{slept:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    // Short statements are untouched; 0 turns the limit off.
    let slept: Option<i64> = conn.query_first("SELECT SLEEP(0.1)").await.unwrap();
    assert_eq!(slept, Some(0));
    conn.query_drop("SET SESSION max_statement_time = 0")
        .await
        .unwrap();
    let rows: Option<i64> = conn.query_first(HEAVY).await.unwrap();
    assert_eq!(rows, Some(0));
    // Slow_queries counts what ran long_query_time or longer.
    conn.query_drop("SET SESSION long_query_time = 0.2")
        .await
        .unwrap();
    conn.query_drop("SELECT SLEEP(0.3)").await.unwrap();
    conn.query_drop("SELECT 1").await.unwrap();
    let slow: Option<(String, u64)> = conn
        .query_first("SHOW SESSION STATUS LIKE 'Slow_queries'")
        .await
        .unwrap();
    assert_eq!(slow.map(|(_, n)| n), Some(1));
    // The global value is where new sessions start.
    conn.query_drop("SET GLOBAL max_statement_time = 0.25")
        .await
        .unwrap();
    let mut fresh = connect(&server, "root").await;
    let value: Option<f64> = fresh
        .query_first("SELECT @@max_statement_time")
        .await
        .unwrap();
    assert_eq!(value, Some(0.25));
    let result = fresh.query_drop(ENDLESS).await;
    assert_eq!(code_of(&result), Some(1969), "{result:?}");
    // Prepared statements obey it as well.
    let stmt = fresh.prep(ENDLESS).await.unwrap();
    let result = fresh.exec_drop(&stmt, ()).await;
    assert_eq!(code_of(&result), Some(1969), "{result:?}");
    // Max_statement_time_exceeded counts them: two in this session, four in all.
    let exceeded =
        |scope: &'static str| format!("SHOW {scope} STATUS LIKE 'Max_statement_time_exceeded'");
    let session: Option<(String, u64)> = fresh.query_first(exceeded("SESSION")).await.unwrap();
    assert_eq!(session.map(|(_, n)| n), Some(2));
    let global: Option<(String, u64)> = fresh.query_first(exceeded("GLOBAL")).await.unwrap();
    assert_eq!(global.map(|(_, n)| n), Some(4));
}

/// KILL's and max_statement_time's answers, statement by statement, as MariaDB 10.11 gives
/// them through the same client (each statement on a connection of its own, since some
/// end it).
#[test]
fn kill_and_max_statement_time_answer_as_mariadb_does() {
    use common::mariadb::{run, start_mariadb, Peer};
    let maria = start_mariadb();
    let ours = Server::start(&[]);
    for sql in [
        "KILL 999999",
        "KILL QUERY 999999",
        "KILL CONNECTION 999999",
        "KILL HARD QUERY 999999",
        "KILL -1",
        "KILL 'abc'",
        "KILL 1.5",
        "KILL NULL",
        "KILL CONNECTION_ID()",
        "KILL QUERY CONNECTION_ID()",
        "KILL QUERY CONNECTION_ID(); SELECT 2",
        "SET max_statement_time = 0.2; SELECT SLEEP(1)",
        "SET max_statement_time = 0.2; DO SLEEP(1)",
        "SET max_statement_time = 0.2; SELECT SLEEP(0.01)",
        "SELECT SLEEP(0), SLEEP(NULL), SLEEP(-1)",
    ] {
        let theirs = run(&Peer::Maria(&maria), sql);
        let mine = run(&Peer::Myriad(&ours), sql);
        assert_eq!(mine, theirs, "{sql}: myriad and MariaDB differ");
        println!("{sql}: {mine}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_query_and_max_statement_time_end_a_metadata_lock_wait() {
    let server = server_with_table().await;
    let holder = connect(&server, "root").await;
    let waiter = connect(&server, "root").await;
    let mut observer = connect(&server, "root").await;
    // The SELECT keeps t in use for as long as it sleeps; an ALTER of t waits for it.
    let holder_id = holder.id();
    let holding = spawn_running(
        &mut observer,
        holder,
        "SELECT SLEEP(60) FROM t WHERE id = 1",
        2,
    )
    .await;
    let waiter_id = waiter.id();
    let altering = spawn_running(&mut observer, waiter, "ALTER TABLE t ADD COLUMN w INT", 3).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (mut waiter, result, stopped_after) =
        kill(&mut observer, "QUERY", waiter_id, altering).await;
    println!("KILL QUERY of a metadata lock wait: it ended {stopped_after:?} after the KILL");
    assert_eq!(code_of(&result), Some(1317), "{result:?}");
    assert!(stopped_after < Duration::from_secs(2), "{stopped_after:?}");

    // The same wait under max_statement_time ends with 1969.
    waiter
        .query_drop("SET SESSION max_statement_time = 0.5")
        .await
        .unwrap();
    let started = Instant::now();
    let result = waiter.query_drop("ALTER TABLE t ADD COLUMN w INT").await;
    assert_eq!(code_of(&result), Some(1969), "{result:?}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    waiter
        .query_drop("SET SESSION max_statement_time = 0")
        .await
        .unwrap();

    // Nothing of the abandoned ALTERs remains, the table serves, and once the holder is
    // gone the same ALTER goes through.
    observer
        .query_drop(format!("KILL QUERY {holder_id}"))
        .await
        .unwrap();
    let (_, held, _) = holding.await.unwrap();
    assert!(held.is_ok() || code_of(&held) == Some(1317), "{held:?}");
    let no_column = waiter.query_drop("SELECT w FROM t LIMIT 1").await;
    assert_eq!(code_of(&no_column), Some(1054), "{no_column:?}");
    let count: Option<u64> = waiter.query_first("SELECT COUNT(*) FROM t").await.unwrap();
    assert_eq!(count, Some(ROWS as u64));
    waiter
        .query_drop("ALTER TABLE t ADD COLUMN w INT")
        .await
        .unwrap();
}
