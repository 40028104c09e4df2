//! Sorts, groupings, DISTINCT and rows gathered in arrival order past their memory budget
//! give the same rows as within it: through the real server with a tiny session sort_buffer_size
//! and tmp_table_size, against the same statements with large budgets and against MariaDB
//! 10.11; the spill shows in Sort_merge_passes, Created_tmp_files and
//! Created_tmp_disk_tables, and leaves no file.

mod common;

use common::mariadb::{run, start_mariadb, Peer};
use common::{async_opts, runtime, Server};
use mysql_async::prelude::*;
use mysql_async::{Conn, Row};

const ROWS: usize = 3000;

/// Rows with ties, NULLs, case and accent variants, so that order and grouping are tested
/// where they are delicate.
fn inserts() -> Vec<String> {
    let words = [
        "alpha", "Alpha", "beta", "BETA ", "gamma", "émile", "Zoe", "zoe",
    ];
    let rows: Vec<String> = (0..ROWS)
        .map(|i| {
            let k = if i % 17 == 0 {
                "NULL".to_string()
            } else {
                ((i * 7919) % 211).to_string()
            };
            let w = words[(i * 31) % words.len()];
            format!("({i}, {k}, '{w}', '{}')", "x".repeat(i % 50))
        })
        .collect();
    rows.chunks(500)
        .map(|c| format!("INSERT INTO t VALUES {}", c.join(",")))
        .collect()
}

const STATEMENTS: &[&str] = &[
    "SELECT id, k, w FROM t ORDER BY k, id",
    "SELECT id, k, w FROM t ORDER BY k DESC, w, id LIMIT 7",
    "SELECT id, k FROM t ORDER BY w, k, id LIMIT 40, 25",
    "SELECT k, COUNT(*), MIN(id), MAX(pad), SUM(id) FROM t GROUP BY k",
    "SELECT w, COUNT(*), AVG(k) FROM t GROUP BY w ORDER BY COUNT(*) DESC, MIN(id)",
    "SELECT k, COUNT(*) FROM t WHERE id > 100 GROUP BY k HAVING COUNT(*) > 13 ORDER BY k DESC LIMIT 5",
    RANGE_READ,
    "SELECT id, w FROM t WHERE id > 5 AND k < 100",
    DISTINCT_ROWS,
    "SELECT DISTINCT w, pad FROM t LIMIT 100, 40",
    "SELECT DISTINCT k, w FROM t ORDER BY k DESC, w LIMIT 30, 20",
    "SELECT DISTINCT COUNT(*) FROM t GROUP BY k",
    "SELECT DISTINCT k, COUNT(*) FROM t GROUP BY k LIMIT 20, 150",
    "SELECT DISTINCT w, k FROM t WHERE id BETWEEN 10 AND 2900",
];

/// A DISTINCT without ORDER BY over a full scan: its rows stream in the order first met,
/// and past tmp_table_size the rows after the set froze are sorted on disk.
const DISTINCT_ROWS: &str = "SELECT DISTINCT k, w FROM t";

/// An index range read without ORDER BY: its rows gather in arrival order, spooled to a
/// file past sort_buffer_size.
const RANGE_READ: &str = "SELECT id, k, w, pad FROM t WHERE id BETWEEN 10 AND 2900";

async fn rows_of(conn: &mut Conn, sql: &str) -> Vec<Vec<Option<Vec<u8>>>> {
    let rows: Vec<Row> = conn
        .query(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.into_iter()
        .map(|r| {
            r.unwrap()
                .into_iter()
                .map(|v| match v {
                    mysql_async::Value::NULL => None,
                    mysql_async::Value::Bytes(b) => Some(b),
                    other => Some(other.as_sql(true).into_bytes()),
                })
                .collect()
        })
        .collect()
}

async fn session_status(conn: &mut Conn, name: &str) -> u64 {
    let row: Option<(String, String)> = conn
        .query_first(format!("SHOW SESSION STATUS LIKE '{name}'"))
        .await
        .expect("SHOW STATUS");
    row.unwrap_or_else(|| panic!("no status variable {name}"))
        .1
        .parse()
        .expect("a number")
}

#[test]
fn spilled_sorts_and_groupings_match_in_memory_ones() {
    let server = Server::start(&[]);
    runtime().block_on(async {
        let mut setup = Conn::new(async_opts(&server, None)).await.expect("connect");
        setup.query_drop("CREATE DATABASE s").await.expect("db");
        setup.query_drop("USE s").await.expect("use");
        setup
            .query_drop("CREATE TABLE t (id INT PRIMARY KEY, k INT, w VARCHAR(20), pad VARCHAR(60))")
            .await
            .expect("table");
        for sql in inserts() {
            setup.query_drop(sql).await.expect("insert");
        }
        let mut roomy = Conn::new(async_opts(&server, Some("s"))).await.expect("connect");
        roomy
            .query_drop("SET SESSION sort_buffer_size = 1073741824, tmp_table_size = 1073741824, max_heap_table_size = 1073741824")
            .await
            .expect("set");
        let mut tight = Conn::new(async_opts(&server, Some("s"))).await.expect("connect");
        tight
            .query_drop("SET SESSION sort_buffer_size = 1024, tmp_table_size = 1024")
            .await
            .expect("set");
        for sql in STATEMENTS {
            let expected = rows_of(&mut roomy, sql).await;
            let got = rows_of(&mut tight, sql).await;
            assert!(!expected.is_empty(), "{sql} returns rows");
            assert_eq!(got, expected, "{sql}: spilled and in-memory answers differ");
        }
        assert_eq!(session_status(&mut roomy, "Sort_merge_passes").await, 0);
        assert_eq!(session_status(&mut roomy, "Created_tmp_disk_tables").await, 0);
        assert!(session_status(&mut roomy, "Sort_rows").await >= ROWS as u64);
        assert!(session_status(&mut tight, "Sort_merge_passes").await > 1);
        assert!(session_status(&mut tight, "Created_tmp_files").await > 10);
        assert!(session_status(&mut tight, "Created_tmp_disk_tables").await >= 3);
        assert!(session_status(&mut tight, "Created_tmp_tables").await >= 3);
        let disk_tables = session_status(&mut tight, "Created_tmp_disk_tables").await;
        let files = session_status(&mut tight, "Created_tmp_files").await;
        assert_eq!(rows_of(&mut tight, DISTINCT_ROWS).await.len(), 1055);
        assert_eq!(
            session_status(&mut tight, "Created_tmp_disk_tables").await,
            disk_tables + 1,
            "a DISTINCT past tmp_table_size goes to disk"
        );
        assert!(session_status(&mut tight, "Created_tmp_files").await > files);
        let files = session_status(&mut tight, "Created_tmp_files").await;
        assert_eq!(rows_of(&mut tight, RANGE_READ).await.len(), 2891);
        assert!(
            session_status(&mut tight, "Created_tmp_files").await > files,
            "a range read past sort_buffer_size spools its rows"
        );
        let tmpdir: String = tight
            .query_first("SELECT @@tmpdir")
            .await
            .expect("tmpdir")
            .expect("a row");
        let left: Vec<_> = std::fs::read_dir(&tmpdir)
            .unwrap_or_else(|e| panic!("tmpdir {tmpdir}: {e}"))
            .collect();
        assert!(left.is_empty(), "files left in {tmpdir}: {left:?}");
    });
}

#[test]
fn spilled_sorts_and_groupings_match_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    for peer in [Peer::Myriad(&server), Peer::Maria(&maria)] {
        let create = "CREATE DATABASE s; USE s; CREATE TABLE t (id INT PRIMARY KEY, k INT, w VARCHAR(20), pad VARCHAR(60))";
        assert_eq!(run(&peer, create), "", "setup");
        for insert in inserts() {
            assert_eq!(run(&peer, &format!("USE s; {insert}")), "", "insert");
        }
    }
    // Total orders only (ties may come out in either order on different engines), and
    // AVG rounded as both print it.
    let statements = [
        "SELECT id, k, w FROM t ORDER BY k, id",
        "SELECT id, k FROM t ORDER BY k DESC, id LIMIT 40, 25",
        "SELECT k, COUNT(*), MIN(id), MAX(pad), SUM(id) FROM t GROUP BY k",
        "SELECT k, COUNT(*) FROM t WHERE id > 100 GROUP BY k HAVING COUNT(*) > 13 ORDER BY k DESC LIMIT 5",
        // The first row met of each (k, w) in the order met: case and trailing spaces
        // ignored, so 'alpha' and 'Alpha', 'beta' and 'BETA ' are one.
        "SELECT DISTINCT k, w FROM t",
        "SELECT DISTINCT w, k FROM t LIMIT 200, 50",
        "SELECT DISTINCT k, w FROM t ORDER BY k DESC, w LIMIT 30, 20",
        "SELECT DISTINCT w, k FROM t WHERE id BETWEEN 10 AND 2900",
        "SELECT DISTINCT k, COUNT(*) FROM t GROUP BY k LIMIT 20, 150",
    ];
    for sql in statements {
        let tight =
            format!("SET SESSION sort_buffer_size = 1024, tmp_table_size = 1024; USE s; {sql}");
        let mine = run(&Peer::Myriad(&server), &tight);
        let theirs = run(&Peer::Maria(&maria), &tight);
        assert!(mine.lines().count() > 3, "{sql}: {mine}");
        assert_eq!(mine, theirs, "{sql}: myriad and MariaDB differ");
    }
}

/// Rows wider than max_length_for_sort_data, keyed by numbers, decimals and dates with
/// ties and NULLs, negative primary keys among them.
fn wide_inserts() -> Vec<String> {
    let rows: Vec<String> = (0..ROWS as i64)
        .map(|i| {
            let id = if i % 5 == 0 { -i - 1 } else { i };
            let null_or = |v: String| if i % 13 == 0 { "NULL".to_string() } else { v };
            format!(
                "({id}, {}, {}, {}, {}, {}, {}, '{}')",
                null_or(((i * 7919) % 97 - 40).to_string()),
                null_or(format!("{}", (i * 104_729) % 1_000_003 - 500_000)),
                null_or(format!("{}", ((i * 31) % 41) as f64 / 4.0 - 3.0)),
                null_or(format!("{}.{:02}", (i * 17) % 23 - 11, i % 100)),
                null_or(format!(
                    "'20{:02}-{:02}-{:02}'",
                    i % 30,
                    i % 12 + 1,
                    i % 28 + 1
                )),
                null_or(format!(
                    "'2024-01-01 00:{:02}:{:02}.{}'",
                    i % 60,
                    (i * 7) % 60,
                    i % 3
                )),
                "w".repeat(i as usize % 300),
            )
        })
        .collect();
    rows.chunks(300)
        .map(|c| format!("INSERT INTO wide VALUES {}", c.join(",")))
        .collect()
}

const WIDE_TABLE: &str = "CREATE TABLE wide (id INT PRIMARY KEY, small SMALLINT, big BIGINT, \
    d DOUBLE, amount DECIMAL(12,2), day DATE, at_time DATETIME(1), pad VARCHAR(1000))";

const WIDE_STATEMENTS: &[&str] = &[
    "SELECT * FROM wide ORDER BY small",
    "SELECT id, pad, small FROM wide ORDER BY small DESC, big",
    "SELECT * FROM wide ORDER BY d DESC, amount",
    "SELECT * FROM wide WHERE id % 3 = 1 ORDER BY day, at_time DESC",
    "SELECT pad, at_time, id FROM wide ORDER BY at_time",
    "SELECT * FROM wide ORDER BY amount DESC, day DESC, small",
    "SELECT * FROM wide ORDER BY big",
];

#[test]
fn wide_rows_sorted_by_row_id_match_whole_row_sorts() {
    let server = Server::start(&[]);
    runtime().block_on(async {
        let mut setup = Conn::new(async_opts(&server, None)).await.expect("connect");
        setup.query_drop("CREATE DATABASE s").await.expect("db");
        setup.query_drop("USE s").await.expect("use");
        setup.query_drop(WIDE_TABLE).await.expect("table");
        for sql in wide_inserts() {
            setup.query_drop(sql).await.expect("insert");
        }
        let mut whole = Conn::new(async_opts(&server, Some("s")))
            .await
            .expect("connect");
        whole
            .query_drop(
                "SET SESSION max_length_for_sort_data = 8388608, sort_buffer_size = 1073741824",
            )
            .await
            .expect("set");
        // The default max_length_for_sort_data: these rows (VARCHAR(1000)) sort by row id;
        // a budget of 1 KiB holds 60 entries, so 3,000 rows make 50 runs and two merges.
        let mut by_id = Conn::new(async_opts(&server, Some("s")))
            .await
            .expect("connect");
        by_id
            .query_drop("SET SESSION sort_buffer_size = 1024")
            .await
            .expect("set");
        let mut by_id_roomy = Conn::new(async_opts(&server, Some("s")))
            .await
            .expect("connect");
        for sql in WIDE_STATEMENTS {
            let expected = rows_of(&mut whole, sql).await;
            assert!(expected.len() > 500, "{sql} returns rows");
            let files = session_status(&mut by_id, "Created_tmp_files").await;
            let passes = session_status(&mut by_id, "Sort_merge_passes").await;
            assert_eq!(
                rows_of(&mut by_id, sql).await,
                expected,
                "{sql}: spilled by row id"
            );
            assert!(session_status(&mut by_id, "Created_tmp_files").await > files + 16);
            assert!(session_status(&mut by_id, "Sort_merge_passes").await > passes + 1);
            let files = session_status(&mut by_id_roomy, "Created_tmp_files").await;
            let rows = session_status(&mut by_id_roomy, "Sort_rows").await;
            assert_eq!(
                rows_of(&mut by_id_roomy, sql).await,
                expected,
                "{sql}: by row id"
            );
            assert_eq!(
                session_status(&mut by_id_roomy, "Created_tmp_files").await,
                files
            );
            assert!(session_status(&mut by_id_roomy, "Sort_rows").await > rows + 500);
        }
        assert_eq!(session_status(&mut whole, "Created_tmp_files").await, 0);
    });
}

#[test]
fn wide_rows_sorted_by_row_id_match_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    for peer in [Peer::Myriad(&server), Peer::Maria(&maria)] {
        let create = format!("CREATE DATABASE s; USE s; {WIDE_TABLE}");
        assert_eq!(run(&peer, &create), "", "setup");
        for insert in wide_inserts() {
            assert_eq!(run(&peer, &format!("USE s; {insert}")), "", "insert");
        }
    }
    // Total orders: each ends with the primary key.
    for sql in [
        "SELECT * FROM wide ORDER BY small, id",
        "SELECT id, small, big FROM wide ORDER BY d DESC, amount, id DESC",
        "SELECT * FROM wide WHERE id % 3 = 1 ORDER BY day, at_time DESC, id",
    ] {
        let tight = format!("SET SESSION sort_buffer_size = 32768; USE s; {sql}");
        let mine = run(&Peer::Myriad(&server), &tight);
        let theirs = run(&Peer::Maria(&maria), &tight);
        assert!(mine.lines().count() > 500, "{sql}: {mine}");
        if let Some((n, (a, b))) = mine
            .lines()
            .zip(theirs.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
        {
            panic!("{sql}: row {n} differs\nmyriad:  {a}\nMariaDB: {b}");
        }
        assert_eq!(mine.lines().count(), theirs.lines().count(), "{sql}: rows");
    }
}
