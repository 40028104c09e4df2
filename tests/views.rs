//! Views end to end: who may create, read and show a view, on myriad and on MariaDB 10.11
//! in the same test, statement by statement; then, on myriad, views surviving a restart
//! and going with DROP DATABASE.

mod common;

use common::mariadb::{run, start_mariadb, Differences, Peer};
use common::Server;

const SCHEMA: &str = "SET NAMES utf8mb4; CREATE DATABASE app; \
    CREATE TABLE app.t (a INT, b INT); INSERT INTO app.t VALUES (1, 2), (3, 4); \
    CREATE DEFINER = root@localhost SQL SECURITY INVOKER VIEW app.vi AS SELECT a FROM app.t; \
    CREATE DEFINER = root@localhost VIEW app.vd AS SELECT a, b FROM app.t WHERE a > 1; \
    CREATE USER vr@localhost; GRANT SELECT ON app.vi TO vr@localhost; \
    GRANT SELECT ON app.vd TO vr@localhost; \
    CREATE USER vt@localhost; GRANT SELECT ON app.t TO vt@localhost; \
    GRANT SELECT ON app.vi TO vt@localhost; \
    CREATE USER vn@localhost; GRANT SELECT ON app.t TO vn@localhost; \
    CREATE USER vc@localhost; GRANT CREATE VIEW ON app.* TO vc@localhost; \
    CREATE USER vs@localhost; GRANT SELECT, SHOW VIEW ON app.vi TO vs@localhost; \
    GRANT SELECT ON app.t TO vs@localhost";

#[test]
fn view_privileges_match_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let peers = [Peer::Myriad(&server), Peer::Maria(&maria)];
    for peer in &peers {
        assert_eq!(run(peer, SCHEMA), "", "schema");
    }
    let mut differences = Differences::default();
    for (user, sql) in [
        // SELECT on the view and on its table (SQL SECURITY INVOKER).
        ("vt", "SELECT * FROM app.vi ORDER BY a"),
        // SELECT on an INVOKER view but not on its table: 1356, naming the view alone.
        ("vr", "SELECT * FROM app.vi"),
        (
            "vr",
            "SELECT COUNT(*) FROM app.vi JOIN app.vi AS w ON vi.a = w.a",
        ),
        // SELECT on the table but not on the view.
        ("vn", "SELECT * FROM app.vi"),
        ("vn", "SELECT a FROM app.vd"),
        // SELECT on a DEFINER view alone: its table is read with the definer's privileges.
        ("vr", "SELECT * FROM app.vd"),
        // CREATE VIEW needs SELECT on what the view reads.
        ("vc", "CREATE VIEW app.x AS SELECT a FROM app.t"),
        ("vc", "CREATE VIEW app.y AS SELECT 1 AS one"),
        ("vc", "CREATE OR REPLACE VIEW app.y AS SELECT 2 AS two"),
        ("vn", "CREATE VIEW app.z AS SELECT a FROM app.t"),
        // SHOW CREATE VIEW needs SHOW VIEW and SELECT on the view.
        ("vs", "SHOW CREATE VIEW app.vi"),
        ("vr", "SHOW CREATE VIEW app.vi"),
        ("vt", "SHOW CREATE TABLE app.vi"),
        (
            "vs",
            "SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS \
             WHERE TABLE_SCHEMA = 'app'",
        ),
        ("vr", "SHOW TABLES FROM app"),
        ("vn", "SHOW FULL TABLES FROM app"),
        ("root", "SHOW FULL TABLES FROM app"),
    ] {
        differences.run_as(&peers, user, None, sql);
    }
    differences.assert_none();
    let out = common::mariadb::run_as(&peers[0], "vr", None, "SELECT * FROM app.vd");
    assert!(!out.contains("ERROR"), "{out}");
}

#[test]
fn views_survive_a_restart_and_go_with_their_database() {
    let server = Server::start(&[]);
    let peer = Peer::Myriad(&server);
    let setup = "CREATE DATABASE keep; CREATE TABLE keep.t (a INT, b VARCHAR(5)); \
        INSERT INTO keep.t VALUES (1, 'x'), (2, 'y'); \
        CREATE VIEW keep.v (n, s) AS SELECT a * 10, b FROM keep.t WHERE a > 1; \
        CREATE VIEW keep.vv AS SELECT n FROM keep.v";
    assert_eq!(run(&peer, setup), "");
    let shown = run(&peer, "SHOW CREATE VIEW keep.v");
    assert!(
        shown.contains("VIEW `keep`.`v` AS select `keep`.`t`.`a` * 10 AS `n`"),
        "{shown}"
    );
    assert_eq!(run(&peer, "SHUTDOWN"), "");
    let mut server = server;
    assert!(server
        .wait_exit(std::time::Duration::from_secs(30))
        .is_some());
    let server = Server::start_in(server.into_dir(), &[]);
    let peer = Peer::Myriad(&server);
    assert_eq!(run(&peer, "SELECT * FROM keep.v"), "20\ty\n");
    assert_eq!(run(&peer, "SELECT * FROM keep.vv"), "20\n");
    assert_eq!(run(&peer, "SHOW CREATE VIEW keep.v"), shown);
    assert_eq!(
        run(&peer, "SHOW FULL TABLES FROM keep"),
        "t\tBASE TABLE\nv\tVIEW\nvv\tVIEW\n"
    );
    let created = run(&peer, "CREATE TABLE keep.v (a INT)");
    assert!(created.contains("ERROR 1050"), "{created}");
    assert_eq!(run(&peer, "DROP DATABASE keep; CREATE DATABASE keep"), "");
    assert_eq!(run(&peer, "SHOW TABLES FROM keep"), "");
    let gone = run(&peer, "SELECT * FROM keep.v");
    assert!(gone.contains("ERROR 1146"), "{gone}");
}
