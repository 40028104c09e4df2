//! The query cache end to end: every never-cached rule, the key
//! (another database, sql_mode, character set or precision never gives a false hit), the
//! memory budget, prepared statements, FLUSH / RESET QUERY CACHE and the variables.

mod common;

use common::Server;
use mysql_async::prelude::*;
use mysql_async::{Conn, Opts};

fn opts(server: &Server, database: Option<&str>) -> Opts {
    common::async_opts(server, database)
}

/// Every admitted result is inserted, however fast it ran: these tests' tables are small,
/// and whether a 2 us result is worth an entry is not what they check.
const CACHE_EVERY_COST: &str = "--query-cache-min-execution-us=0";

fn start() -> Server {
    Server::start(&[
        "--query-cache-type=ON",
        "--query-cache-size=16777216",
        CACHE_EVERY_COST,
    ])
}

/// (hits, inserts) now.
async fn counts(conn: &mut Conn) -> (u64, u64) {
    (
        common::async_status(conn, "Qcache_hits").await,
        common::async_status(conn, "Qcache_inserts").await,
    )
}

/// A database `d` with a table of 200 rows (enough work that execution is worth caching).
async fn setup(conn: &mut Conn) {
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(40))",
    ] {
        conn.query_drop(sql).await.unwrap();
    }
    let values: Vec<String> = (1..=200)
        .map(|i| format!("({i}, {}, 'row {i}')", i * 10))
        .collect();
    conn.query_drop(format!("INSERT INTO t VALUES {}", values.join(",")))
        .await
        .unwrap();
}

/// The row the key tests watch.
async fn read(conn: &mut Conn) -> Option<i64> {
    conn.query_first("SELECT v FROM t WHERE id = 7")
        .await
        .unwrap()
}

/// Run `sql` three times and return what (hits, inserts) moved by.
async fn thrice(conn: &mut Conn, sql: &str) -> (u64, u64) {
    let (h0, i0) = counts(conn).await;
    for _ in 0..3 {
        let _ = conn.query_drop(sql).await;
    }
    let (h1, i1) = counts(conn).await;
    (h1 - h0, i1 - i0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cacheable_selects_hit_and_every_never_cached_rule_holds() {
    let server = start();
    let mut conn = Conn::new(opts(&server, None)).await.unwrap();
    setup(&mut conn).await;

    // The control: a plain SELECT is inserted on its second sighting and hit on its third.
    let sum = "SELECT SUM(v), COUNT(*) FROM t WHERE id > 10";
    assert_eq!(thrice(&mut conn, sum).await, (1, 1), "{sum}");
    let row: (i64, i64) = conn.query_first(sum).await.unwrap().unwrap();
    assert_eq!(row, ((11..=200).map(|i| i * 10).sum::<i64>(), 190));

    conn.query_drop("SET @x = 5").await.unwrap();
    let not_cached_before = common::async_status(&mut conn, "Qcache_not_cached").await;
    for sql in [
        "SELECT SQL_NO_CACHE SUM(v) FROM t",
        "SELECT SUM(v), NOW() FROM t",
        "SELECT SUM(v), UNIX_TIMESTAMP() FROM t",
        "SELECT SUM(v), CURDATE() FROM t",
        "SELECT SUM(v), CONNECTION_ID() FROM t",
        "SELECT SUM(v), LAST_INSERT_ID() FROM t",
        "SELECT SUM(v), USER() FROM t",
        "SELECT SUM(v), CURRENT_USER() FROM t",
        "SELECT SUM(v) + @x FROM t",
        "SELECT SUM(v), @@sql_mode FROM t",
        "SELECT v FROM t WHERE id = 3 FOR UPDATE",
        "SELECT v FROM t WHERE id = 3 LOCK IN SHARE MODE",
        "SELECT COUNT(*) FROM information_schema.tables",
        "SELECT COUNT(*) FROM mysql.user",
    ] {
        assert_eq!(thrice(&mut conn, sql).await, (0, 0), "never cached: {sql}");
    }
    assert!(
        common::async_status(&mut conn, "Qcache_not_cached").await >= not_cached_before + 10 * 3,
        "refused SELECTs count in Qcache_not_cached"
    );

    // Not SELECTs: writes, SHOW, status.
    for sql in [
        "UPDATE t SET v = v WHERE id = 1",
        "SHOW TABLES",
        "SHOW GLOBAL STATUS LIKE 'Qcache_hits'",
        "DO 1",
    ] {
        assert_eq!(thrice(&mut conn, sql).await, (0, 0), "not a SELECT: {sql}");
    }

    // A result with warnings (division by zero), and a statement that fails.
    assert_eq!(thrice(&mut conn, "SELECT SUM(v) / 0 FROM t").await, (0, 0));
    assert_eq!(thrice(&mut conn, "SELECT nosuch FROM t").await, (0, 0));

    // DEMAND: only SQL_CACHE.
    conn.query_drop("SET SESSION query_cache_type = DEMAND")
        .await
        .unwrap();
    assert_eq!(thrice(&mut conn, "SELECT MAX(v) FROM t").await, (0, 0));
    assert_eq!(
        thrice(&mut conn, "SELECT SQL_CACHE MAX(v) FROM t").await,
        (1, 1)
    );
    conn.query_drop("SET SESSION query_cache_type = OFF")
        .await
        .unwrap();
    assert_eq!(
        thrice(&mut conn, "SELECT SQL_CACHE MAX(v) FROM t").await,
        (0, 0),
        "OFF"
    );
    // Back on; then a result larger than query_cache_limit.
    common::exec_all(
        &mut conn,
        &[
            "SET SESSION query_cache_type = ON",
            "SET GLOBAL query_cache_limit = 1024",
        ],
    )
    .await;
    assert_eq!(
        thrice(&mut conn, "SELECT * FROM t").await,
        (0, 0),
        "over the limit"
    );
    conn.query_drop("SET GLOBAL query_cache_limit = 1048576")
        .await
        .unwrap();
    // Seen before, so admitted on its first run now: one insert, two hits.
    assert_eq!(
        thrice(&mut conn, "SELECT * FROM t").await,
        (2, 1),
        "under the limit"
    );

    // Tables written by this session's open transaction (MySQL's rule, per table).
    conn.query_drop("CREATE TABLE u (id INT PRIMARY KEY, w INT)")
        .await
        .unwrap();
    let values: Vec<String> = (1..=100).map(|i| format!("({i}, {i})")).collect();
    conn.query_drop(format!("INSERT INTO u VALUES {}", values.join(",")))
        .await
        .unwrap();
    // A transaction that has not written uses and fills the cache, under its own keys.
    conn.query_drop("BEGIN").await.unwrap();
    assert_eq!(
        thrice(&mut conn, "SELECT MAX(v) FROM t").await,
        (1, 1),
        "read-only so far in the transaction"
    );
    conn.query_drop("UPDATE t SET v = v + 1 WHERE id = 1")
        .await
        .unwrap();
    assert_eq!(
        thrice(&mut conn, "SELECT MIN(v) FROM t").await,
        (0, 0),
        "written in the transaction"
    );
    assert_eq!(
        thrice(&mut conn, "SELECT SUM(w) FROM u WHERE id > 5").await,
        (1, 1),
        "another table, not written in the transaction"
    );
    assert_eq!(
        thrice(&mut conn, "SELECT COUNT(*) FROM t JOIN u ON t.id = u.id").await,
        (0, 0),
        "a join that reads the written table"
    );
    // Another session's transaction (which wrote nothing) caches a result over `t`; this
    // session, which wrote `t`, is not served it.
    let mut other = Conn::new(opts(&server, Some("d"))).await.unwrap();
    other.query_drop("BEGIN").await.unwrap();
    let max_id = "SELECT MAX(id), SUM(v) FROM t WHERE id < 150";
    assert_eq!(
        thrice(&mut other, max_id).await,
        (1, 1),
        "the other session"
    );
    assert_eq!(
        thrice(&mut conn, max_id).await,
        (0, 0),
        "not served to the transaction that wrote t"
    );
    other.query_drop("COMMIT").await.unwrap();
    drop(other);
    conn.query_drop("COMMIT").await.unwrap();
    assert_eq!(
        thrice(&mut conn, "SELECT MIN(v) FROM t").await,
        (1, 1),
        "after COMMIT"
    );
    // autocommit off: the transaction is open from the first statement.
    conn.query_drop("SET autocommit = 0").await.unwrap();
    conn.query_drop("UPDATE u SET w = w + 1 WHERE id = 1")
        .await
        .unwrap();
    assert_eq!(
        thrice(&mut conn, "SELECT MIN(w) FROM u").await,
        (0, 0),
        "written with autocommit off"
    );
    assert_eq!(
        thrice(&mut conn, "SELECT AVG(v) FROM t WHERE id > 3").await,
        (1, 1),
        "not written with autocommit off"
    );
    conn.query_drop("COMMIT").await.unwrap();
    conn.query_drop("SET autocommit = 1").await.unwrap();
    let min: Option<i64> = conn.query_first("SELECT MIN(v) FROM t").await.unwrap();
    assert_eq!(
        min,
        Some(11),
        "the committed write is visible through the cache"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_and_ddl_invalidate_and_the_key_never_gives_a_false_hit() {
    let server = start();
    let mut conn = Conn::new(opts(&server, None)).await.unwrap();
    setup(&mut conn).await;
    let mut other = Conn::new(opts(&server, Some("d"))).await.unwrap();

    for _ in 0..3 {
        assert_eq!(read(&mut conn).await, Some(70));
    }
    other
        .query_drop("UPDATE t SET v = 71 WHERE id = 7")
        .await
        .unwrap();
    assert_eq!(
        read(&mut conn).await,
        Some(71),
        "another session's UPDATE invalidates"
    );
    for _ in 0..2 {
        assert_eq!(read(&mut conn).await, Some(71));
    }
    other
        .query_drop("DELETE FROM t WHERE id = 7")
        .await
        .unwrap();
    assert_eq!(read(&mut conn).await, None, "DELETE invalidates");
    other
        .query_drop("INSERT INTO t VALUES (7, 72, 'again')")
        .await
        .unwrap();
    assert_eq!(read(&mut conn).await, Some(72), "INSERT invalidates");
    for _ in 0..2 {
        assert_eq!(read(&mut conn).await, Some(72));
    }
    other
        .query_drop("ALTER TABLE t ADD COLUMN extra INT DEFAULT 5")
        .await
        .unwrap();
    let cols: Option<(i64, i64)> = conn
        .query_first("SELECT v, extra FROM t WHERE id = 7")
        .await
        .unwrap();
    assert_eq!(cols, Some((72, 5)));
    other.query_drop("TRUNCATE TABLE t").await.unwrap();
    assert_eq!(read(&mut conn).await, None, "TRUNCATE invalidates");
    other
        .query_drop("INSERT INTO t (id, v, s) VALUES (7, 73, 'x')")
        .await
        .unwrap();
    for _ in 0..3 {
        assert_eq!(read(&mut conn).await, Some(73));
    }
    common::exec_all(
        &mut other,
        &[
            "DROP TABLE t",
            "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO t VALUES (7, 74)",
        ],
    )
    .await;
    assert_eq!(read(&mut conn).await, Some(74), "DROP + CREATE invalidates");

    // Same text, another database.
    common::exec_all(
        &mut conn,
        &[
            "CREATE DATABASE e",
            "CREATE TABLE e.t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO e.t VALUES (7, 700)",
        ],
    )
    .await;
    for _ in 0..3 {
        assert_eq!(read(&mut conn).await, Some(74));
    }
    conn.query_drop("USE e").await.unwrap();
    assert_eq!(
        read(&mut conn).await,
        Some(700),
        "another database: no false hit"
    );
    conn.query_drop("USE d").await.unwrap();

    // Same text, another sql_mode.
    let concat = "SELECT 'a' || 'b' FROM t WHERE id = 7";
    for _ in 0..3 {
        let r: Option<i64> = conn.query_first(concat).await.unwrap();
        assert_eq!(r, Some(0), "|| is OR by default");
    }
    conn.query_drop("SET SESSION sql_mode = 'PIPES_AS_CONCAT'")
        .await
        .unwrap();
    let r: Option<String> = conn.query_first(concat).await.unwrap();
    assert_eq!(r.as_deref(), Some("ab"), "another sql_mode: no false hit");
    conn.query_drop("SET SESSION sql_mode = DEFAULT")
        .await
        .unwrap();

    // Same text, another div_precision_increment.
    let div = "SELECT v / 3 FROM t WHERE id = 7";
    for _ in 0..3 {
        let r: Option<String> = conn.query_first(div).await.unwrap();
        assert_eq!(r.as_deref(), Some("24.6667"));
    }
    conn.query_drop("SET SESSION div_precision_increment = 2")
        .await
        .unwrap();
    let r: Option<String> = conn.query_first(div).await.unwrap();
    assert_eq!(
        r.as_deref(),
        Some("24.67"),
        "another precision: no false hit"
    );

    // Same text, another character set: a miss (hits do not move).
    let name = "SELECT SUM(v) FROM t";
    for _ in 0..3 {
        conn.query_drop(name).await.unwrap();
    }
    let hits = common::async_status(&mut conn, "Qcache_hits").await;
    conn.query_drop("SET NAMES latin1").await.unwrap();
    conn.query_drop(name).await.unwrap();
    assert_eq!(
        common::async_status(&mut conn, "Qcache_hits").await,
        hits,
        "another character set: a miss"
    );
    conn.query_drop("SET NAMES utf8mb4").await.unwrap();
    conn.query_drop(name).await.unwrap();
    assert_eq!(
        common::async_status(&mut conn, "Qcache_hits").await,
        hits + 1,
        "back to utf8mb4: a hit"
    );

    // Comments: part of the key unless query_cache_strip_comments.
    let plain = "SELECT COUNT(*) FROM t";
    for _ in 0..3 {
        conn.query_drop(plain).await.unwrap();
    }
    let hits = common::async_status(&mut conn, "Qcache_hits").await;
    conn.query_drop("SELECT /* a comment */ COUNT(*) FROM t")
        .await
        .unwrap();
    assert_eq!(common::async_status(&mut conn, "Qcache_hits").await, hits);
    conn.query_drop("SET SESSION query_cache_strip_comments = ON")
        .await
        .unwrap();
    conn.query_drop("SELECT COUNT(*) FROM t -- counted")
        .await
        .unwrap();
    assert_eq!(
        common::async_status(&mut conn, "Qcache_hits").await,
        hits + 1,
        "with query_cache_strip_comments a trailing comment is not part of the key"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_are_cached_by_parameter_values() {
    let server = start();
    let mut conn = Conn::new(opts(&server, None)).await.unwrap();
    setup(&mut conn).await;
    let stmt = conn
        .prep("SELECT SUM(v), COUNT(*) FROM t WHERE id > ?")
        .await
        .unwrap();
    let (h0, i0) = counts(&mut conn).await;
    for _ in 0..3 {
        let r: Option<(i64, i64)> = conn.exec_first(&stmt, (190,)).await.unwrap();
        assert_eq!(r, Some(((191..=200).map(|i| i * 10).sum(), 10)));
    }
    let (h1, i1) = counts(&mut conn).await;
    assert_eq!((h1 - h0, i1 - i0), (1, 1), "a prepared statement is cached");
    let r: Option<(i64, i64)> = conn.exec_first(&stmt, (195,)).await.unwrap();
    assert_eq!(
        r,
        Some(((196..=200).map(|i| i * 10).sum(), 5)),
        "another parameter: no false hit"
    );
    conn.query_drop("UPDATE t SET v = 0 WHERE id = 200")
        .await
        .unwrap();
    let r: Option<(i64, i64)> = conn.exec_first(&stmt, (190,)).await.unwrap();
    assert_eq!(
        r,
        Some(((191..=199).map(|i| i * 10).sum(), 10)),
        "a write invalidates"
    );
    // The same text as a text query has its own key.
    let r: Option<(i64, i64)> = conn
        .query_first("SELECT SUM(v), COUNT(*) FROM t WHERE id > 190")
        .await
        .unwrap();
    assert_eq!(r, Some(((191..=199).map(|i| i * 10).sum(), 10)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_stays_within_query_cache_size_and_resizes_online() {
    const SIZE: u64 = 8 << 20;
    // What the server may grow by besides the cache: allocator slack, connection buffers,
    // the table's pages in the block cache (the table is read before the baseline).
    const SLACK: u64 = 24 << 20;
    let server = Server::start(&[
        "--query-cache-type=ON",
        &format!("--query-cache-size={SIZE}"),
        CACHE_EVERY_COST,
    ]);
    let mut conn = Conn::new(opts(&server, None)).await.unwrap();
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE big (id INT PRIMARY KEY, s VARCHAR(1000))",
    ] {
        conn.query_drop(sql).await.unwrap();
    }
    for chunk in 0..10 {
        let values: Vec<String> = (0..100)
            .map(|i| format!("({}, REPEAT('x', 900))", chunk * 100 + i))
            .collect();
        conn.query_drop(format!("INSERT INTO big VALUES {}", values.join(",")))
            .await
            .unwrap();
    }
    conn.query_drop("SELECT COUNT(*) FROM big WHERE s <> ''")
        .await
        .unwrap();
    let baseline = server.resident_bytes().unwrap_or(0);
    // 400 distinct results of about 45 KB each (18 MB in all, twice the budget), each
    // queried twice so that it is admitted and inserted.
    for n in 0..400 {
        let sql = format!(
            "SELECT id, s FROM big WHERE id >= {} AND id < {}",
            n % 950,
            n % 950 + 50
        );
        let sql = format!("{sql} AND {n} = {n}");
        for _ in 0..3 {
            conn.query_drop(&sql).await.unwrap();
        }
    }
    let used = common::async_status(&mut conn, "Qcache_used_memory").await;
    let free = common::async_status(&mut conn, "Qcache_free_memory").await;
    assert!(
        used <= SIZE,
        "Qcache_used_memory {used} <= query_cache_size {SIZE}"
    );
    assert_eq!(used + free, SIZE);
    assert!(common::async_status(&mut conn, "Qcache_inserts").await >= 300);
    assert!(
        common::async_status(&mut conn, "Qcache_lowmem_prunes").await > 0,
        "a full cache evicts"
    );
    let grown = server
        .resident_bytes()
        .unwrap_or(0)
        .saturating_sub(baseline);
    assert!(
        grown <= SIZE + SLACK,
        "the server grew by {grown} bytes: more than query_cache_size {SIZE} + {SLACK}"
    );
    conn.query_drop("SET GLOBAL query_cache_size = 1048576")
        .await
        .unwrap();
    assert!(
        common::async_status(&mut conn, "Qcache_used_memory").await <= 1 << 20,
        "shrinking evicts at once"
    );
    conn.query_drop("FLUSH QUERY CACHE").await.unwrap();
    conn.query_drop("RESET QUERY CACHE").await.unwrap();
    assert_eq!(
        common::async_status(&mut conn, "Qcache_queries_in_cache").await,
        0
    );
    conn.query_drop("SET GLOBAL query_cache_size = 0")
        .await
        .unwrap();
    let (h0, i0) = counts(&mut conn).await;
    let sql = "SELECT COUNT(*) FROM big WHERE s <> ''";
    for _ in 0..3 {
        conn.query_drop(sql).await.unwrap();
    }
    assert_eq!(
        counts(&mut conn).await,
        (h0, i0),
        "query_cache_size = 0 disables"
    );
    // The variables are all there and settable.
    for (name, value) in [
        ("query_cache_min_res_unit", "2048"),
        ("query_cache_strip_comments", "ON"),
        ("query_cache_wlock_invalidate", "ON"),
        ("query_cache_type", "DEMAND"),
    ] {
        conn.query_drop(format!("SET GLOBAL {name} = {value}"))
            .await
            .unwrap();
        let row: Option<(String, String)> = conn
            .query_first(format!("SHOW GLOBAL VARIABLES LIKE '{name}'"))
            .await
            .unwrap();
        assert_eq!(row.map(|r| r.1).as_deref(), Some(value), "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_faster_than_query_cache_min_execution_us_are_not_inserted() {
    let server = start();
    let mut conn = Conn::new(opts(&server, None)).await.unwrap();
    setup(&mut conn).await;
    conn.query_drop("SET GLOBAL query_cache_min_execution_us = 1000000")
        .await
        .unwrap();
    assert_eq!(
        thrice(&mut conn, "SELECT SUM(v) FROM t WHERE id < 50").await,
        (0, 0),
        "no result takes a second here: none may be inserted"
    );
    conn.query_drop("SET GLOBAL query_cache_min_execution_us = 0")
        .await
        .unwrap();
    assert_eq!(
        thrice(&mut conn, "SELECT SUM(v) FROM t WHERE id < 60").await,
        (1, 1),
        "with no minimum: inserted on the second sighting, hit on the third"
    );
}

/// Every row and column definition of a result, as the client decoded them.
fn decoded(rows: Vec<mysql_async::Row>) -> Vec<(Vec<String>, Vec<mysql_async::Value>)> {
    rows.into_iter()
        .map(|row| {
            let names = row
                .columns_ref()
                .iter()
                .map(|c| format!("{} {:?} {}", c.name_str(), c.column_type(), c.decimals()))
                .collect();
            (names, row.unwrap())
        })
        .collect()
}

/// A hit sends the bytes its result's first send recorded: they must decode to what
/// executing the statement gives, in the text and in the binary protocol.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hit_answers_what_executing_the_statement_answers() {
    let server = start();
    let mut conn = Conn::new(opts(&server, None)).await.unwrap();
    setup(&mut conn).await;
    conn.query_drop("UPDATE t SET s = NULL WHERE id % 7 = 0")
        .await
        .unwrap();
    let sql = "SELECT id, v, s, v / 3, -id FROM t WHERE id <= 60 ORDER BY id DESC";
    let (h0, _) = counts(&mut conn).await;
    let mut answers = Vec::new();
    for _ in 0..4 {
        answers.push(decoded(conn.query(sql).await.unwrap()));
    }
    let stmt = conn
        .prep("SELECT id, v, s, v / 3, -id FROM t WHERE id <= ? ORDER BY id DESC")
        .await
        .unwrap();
    let mut prepared = Vec::new();
    for _ in 0..4 {
        prepared.push(decoded(conn.exec(&stmt, (60,)).await.unwrap()));
    }
    let (h1, _) = counts(&mut conn).await;
    assert_eq!(h1 - h0, 4, "two hits in each protocol");
    assert_eq!(answers[0].len(), 60);
    assert!(answers.iter().all(|a| *a == answers[0]), "text hits differ");
    assert!(
        prepared.iter().all(|a| *a == prepared[0]),
        "binary hits differ"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cascade_makes_the_child_tables_entries_stale() {
    let server = start();
    let mut conn = Conn::new(opts(&server, None)).await.unwrap();
    for sql in [
        "CREATE DATABASE f",
        "USE f",
        "CREATE TABLE p (id INT PRIMARY KEY)",
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT, \
         FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE ON UPDATE SET NULL)",
        "CREATE TABLE g (id INT PRIMARY KEY, cid INT, \
         FOREIGN KEY (cid) REFERENCES c (id) ON DELETE CASCADE)",
        "INSERT INTO p VALUES (1), (2)",
        "INSERT INTO c VALUES (1, 1), (2, 1), (3, 2)",
        "INSERT INTO g VALUES (1, 1), (2, 3)",
    ] {
        conn.query_drop(sql).await.unwrap();
    }
    let children = "SELECT COUNT(*) FROM c WHERE pid IS NOT NULL";
    let grandchildren = "SELECT COUNT(*) FROM g";
    for _ in 0..2 {
        assert_eq!(conn.query_first::<u64, _>(children).await.unwrap(), Some(3));
        assert_eq!(
            conn.query_first::<u64, _>(grandchildren).await.unwrap(),
            Some(2)
        );
    }
    // Deleting parent 1 deletes children 1 and 2, and child 1's grandchild.
    conn.query_drop("DELETE FROM p WHERE id = 1").await.unwrap();
    assert_eq!(conn.query_first::<u64, _>(children).await.unwrap(), Some(1));
    assert_eq!(
        conn.query_first::<u64, _>(grandchildren).await.unwrap(),
        Some(1)
    );
    // Changing parent 2's key empties child 3's.
    conn.query_drop("UPDATE p SET id = 5 WHERE id = 2")
        .await
        .unwrap();
    assert_eq!(conn.query_first::<u64, _>(children).await.unwrap(), Some(0));
}
