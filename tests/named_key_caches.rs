//! Named key caches against a real MariaDB 10.11: the same statements run on
//! myriad and on a mariadbd started by the test (MyISAM tables), through the `mariadb`
//! client, and their outputs are compared where they should match: SET GLOBAL
//! hot.key_buffer_size and the other structured variables, `@@hot.x`, CACHE INDEX rows and
//! errors, KEY_CACHES names, sizes and segment columns, destroying a cache. Then, on myriad
//! alone, that an assigned table's pages go through its cache (KEY_CACHES per cache, the
//! `Key_*` counters staying the default cache's, as in MariaDB) and come back to the
//! default cache, with their changes, when the cache is destroyed.

mod common;

use common::{require_program, run_with_timeout, Server};
use myriad_testkit::Owned;
use std::collections::HashMap;
use std::process::Command;
use std::time::Duration;

/// A MariaDB with MyISAM's key cache large enough for the comparisons.
fn start_mariadb() -> Owned {
    Owned::mariadb(&[
        ("skip_grant_tables", ""),
        ("innodb_buffer_pool_size", "16M"),
        ("key_buffer_size", "128M"),
    ])
    .unwrap_or_else(|e| panic!("MariaDB did not start: {e:#}"))
}

/// Where a statement goes.
enum Target<'a> {
    Myriad(&'a Server),
    Maria(&'a Owned),
}

/// Run statements with `mariadb --batch` (fed from a file: they may be long): stdout, or
/// the error line.
fn run(target: &Target, sql: &str) -> String {
    require_program("mariadb");
    static SCRIPTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SCRIPTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let script =
        std::env::temp_dir().join(format!("named-key-caches-{}-{n}.sql", std::process::id()));
    std::fs::write(&script, sql).expect("write the script");
    let connect = match target {
        Target::Myriad(s) => format!("-h127.0.0.1 -P{}", s.port),
        Target::Maria(m) => format!("-S'{}'", m.socket().display()),
    };
    let mut command = Command::new("sh");
    command.args([
        "-c",
        &format!(
            "exec mariadb {connect} -uroot --batch < '{}'",
            script.display()
        ),
    ]);
    let out = run_with_timeout(&mut command, Duration::from_secs(60));
    let _ = std::fs::remove_file(&script);
    if out.status.success() {
        String::from_utf8_lossy(&out.stdout).into_owned()
    } else {
        // "ERROR 1284 (HY000) at line 1: Unknown key cache 'x'"
        String::from_utf8_lossy(&out.stderr).trim().to_string()
    }
}

/// The same statements on both servers give the same output.
fn same(myriad: &Server, maria: &Owned, sql: &str) -> String {
    let ours = run(&Target::Myriad(myriad), sql);
    let theirs = run(&Target::Maria(maria), sql);
    assert_eq!(ours, theirs, "{sql}: myriad and MariaDB differ");
    ours
}

fn setup(target: &Target) {
    let mut sql = String::from(
        "CREATE DATABASE kc; CREATE TABLE kc.t (id INT PRIMARY KEY, k INT NOT NULL, \
         pad CHAR(60) NOT NULL, KEY k (k)) ENGINE=MyISAM; \
         CREATE TABLE kc.u (id INT PRIMARY KEY) ENGINE=MyISAM;",
    );
    for chunk in (0..20_000).collect::<Vec<u32>>().chunks(1000) {
        let values: Vec<String> = chunk
            .iter()
            .map(|i| format!("({i}, {}, 'pad{i}')", (i * 7919) % 20_000))
            .collect();
        sql.push_str(&format!("INSERT INTO kc.t VALUES {};", values.join(",")));
    }
    let out = run(target, &sql);
    assert!(!out.contains("ERROR "), "{out}");
}

/// KEY_CACHES as name -> column -> value.
fn key_caches(server: &Server) -> HashMap<String, HashMap<String, String>> {
    let out = run(
        &Target::Myriad(server),
        "SELECT * FROM information_schema.KEY_CACHES",
    );
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    lines
        .map(|l| {
            let row: HashMap<String, String> = header
                .iter()
                .zip(l.split('\t'))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            (row["KEY_CACHE_NAME"].clone(), row)
        })
        .collect()
}

fn num(caches: &HashMap<String, HashMap<String, String>>, cache: &str, column: &str) -> u64 {
    caches[cache][column].parse().unwrap()
}

fn key_status(server: &Server) -> HashMap<String, u64> {
    common::mariadb::counters(&run(
        &Target::Myriad(server),
        "SHOW GLOBAL STATUS LIKE 'Key%'",
    ))
}

#[test]
fn named_key_caches_match_mariadb_and_route_their_tables_pages() {
    let maria = start_mariadb();
    let server = Server::start(&["--key-buffer-size=128M"]);
    setup(&Target::Myriad(&server));
    setup(&Target::Maria(&maria));

    // Creating, reading and resizing a named cache.
    same(
        &server,
        &maria,
        "SET GLOBAL hot.key_buffer_size = 16*1024*1024",
    );
    same(
        &server,
        &maria,
        "SELECT @@hot.key_buffer_size, @@global.hot.key_buffer_size, @@hot.key_cache_age_threshold, @@hot.key_cache_segments",
    );
    same(
        &server,
        &maria,
        "SELECT KEY_CACHE_NAME, SEGMENTS, SEGMENT_NUMBER, FULL_SIZE FROM information_schema.KEY_CACHES",
    );
    same(
        &server,
        &maria,
        "SELECT @@zzz.key_buffer_size, @@zzz.key_cache_segments",
    );
    same(
        &server,
        &maria,
        "SET GLOBAL h3.key_buffer_size = 5000000; SELECT @@h3.key_buffer_size",
    );
    same(
        &server,
        &maria,
        "SET GLOBAL h3.key_buffer_size = DEFAULT; SELECT @@h3.key_buffer_size",
    );
    same(
        &server,
        &maria,
        "SET GLOBAL h3.key_cache_division_limit = 50, GLOBAL h3.key_cache_age_threshold = 700; \
         SELECT @@h3.key_cache_division_limit, @@h3.key_cache_age_threshold",
    );
    same(
        &server,
        &maria,
        "SET GLOBAL `default`.key_cache_age_threshold = 500; \
         SELECT @@key_cache_age_threshold, @@global.key_cache_age_threshold",
    );
    // Errors: MySQL's codes and texts.
    for sql in [
        "SELECT @@hot.max_connections",
        "SET GLOBAL hot.max_connections = 5",
        "SELECT @@session.hot.key_buffer_size",
        "SET hot.key_buffer_size = 1048576",
        "SET @@hot.key_buffer_size = 1048576",
        "SET GLOBAL `default`.key_buffer_size = 0",
        "SET GLOBAL hot.key_buffer_size = 'x'",
        "CACHE INDEX kc.t IN nosuch",
    ] {
        let out = same(&server, &maria, sql);
        assert!(out.contains("\nERROR "), "{sql}: {out}");
    }

    // CACHE INDEX: MariaDB's result rows.
    same(&server, &maria, "CACHE INDEX kc.t, kc.u IN hot");
    same(&server, &maria, "CACHE INDEX kc.nosuch IN hot");
    same(
        &server,
        &maria,
        "USE kc; CACHE INDEX t IN `default`; CACHE INDEX t IN hot",
    );

    // On myriad: the table's pages go through `hot` now; Key_* stay the default cache's.
    let before = key_status(&server);
    let caches_before = key_caches(&server);
    assert_eq!(num(&caches_before, "hot", "READS"), 0);
    let out = run(&Target::Myriad(&server), "LOAD INDEX INTO CACHE kc.t");
    assert!(out.contains("kc.t\tpreload_keys\tstatus\tOK"), "{out}");
    run(
        &Target::Myriad(&server),
        "SELECT COUNT(*) FROM kc.t WHERE k BETWEEN 100 AND 5000",
    );
    let caches = key_caches(&server);
    let after = key_status(&server);
    assert!(num(&caches, "hot", "READS") > 0, "{caches:?}");
    assert!(num(&caches, "hot", "USED_BLOCKS") > 0);
    assert!(num(&caches, "hot", "READ_REQUESTS") > num(&caches, "hot", "READS"));
    assert_eq!(
        after["Key_read_requests"], before["Key_read_requests"],
        "the default cache served none of kc.t's pages"
    );
    assert_eq!(after["Key_reads"], before["Key_reads"]);
    assert_eq!(
        num(&caches, "default", "READ_REQUESTS"),
        after["Key_read_requests"]
    );

    // Closing and reopening the table keeps its cache; its changes are dirty blocks there.
    run(&Target::Myriad(&server), "FLUSH TABLES kc.t");
    run(
        &Target::Myriad(&server),
        "UPDATE kc.t SET pad = 'changed' WHERE id < 3000",
    );
    let caches = key_caches(&server);
    assert!(num(&caches, "hot", "WRITE_REQUESTS") > 0, "{caches:?}");
    assert_eq!(
        key_status(&server)["Key_write_requests"],
        after["Key_write_requests"]
    );

    // Destroying: the tables go back to the default cache, with their changes.
    same(&server, &maria, "SET GLOBAL hot.key_buffer_size = 0");
    same(
        &server,
        &maria,
        "SELECT @@hot.key_buffer_size; SELECT KEY_CACHE_NAME FROM information_schema.KEY_CACHES WHERE KEY_CACHE_NAME = 'h3'",
    );
    assert!(!key_caches(&server).contains_key("hot"));
    let before = key_status(&server);
    assert_eq!(
        run(
            &Target::Myriad(&server),
            "SELECT COUNT(*) FROM kc.t WHERE pad = 'changed'"
        ),
        "COUNT(*)\n3000\n"
    );
    assert!(key_status(&server)["Key_read_requests"] > before["Key_read_requests"]);
    // A destroyed cache can take tables again (MariaDB keeps its object) and be resized.
    same(&server, &maria, "CACHE INDEX kc.u IN hot");
    same(
        &server,
        &maria,
        "SET GLOBAL hot.key_buffer_size = 2097152; SELECT @@hot.key_buffer_size",
    );
    let out = run(
        &Target::Myriad(&server),
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_assign_to_keycache', 'Com_set_option')",
    );
    assert!(out.contains("Com_assign_to_keycache\t"), "{out}");
}
