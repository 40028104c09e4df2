//! Column privileges (`GRANT SELECT (a, b) ON db.t`), on myriad and on MariaDB 10.11 in the
//! same test: GRANT and REVOKE with their errors, SHOW GRANTS, the grant views, and what
//! an account holding column privileges may read and write, statement by statement. Then,
//! on myriad, column grants surviving a restart, DROP USER and RENAME USER, and SHOW
//! GRANTS output applied again.

mod common;

use common::mariadb::{run, run_as, start_mariadb, Differences, Peer};
use common::Server;

const SCHEMA: &str = "CREATE DATABASE app; \
    CREATE TABLE app.t (id INT PRIMARY KEY, a INT, b INT, c INT); \
    INSERT INTO app.t VALUES (1, 1, 1, 1), (2, 2, 2, 2); \
    CREATE TABLE app.u (id INT, x INT, KEY (x)); INSERT INTO app.u VALUES (1, 1)";

/// Each statement run as root on both servers, in order, with the same outcome.
fn same_as_root(peers: &[Peer; 2], statements: &[&str]) {
    let mut differences = Differences::default();
    for sql in statements {
        differences.run_as(peers, "root", None, sql);
    }
    differences.assert_none();
}

#[test]
fn grant_and_revoke_of_columns_match_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let peers = [Peer::Myriad(&server), Peer::Maria(&maria)];
    for peer in &peers {
        assert_eq!(run(peer, SCHEMA), "", "schema");
        assert_eq!(run(peer, "CREATE USER cu IDENTIFIED BY 'pw'"), "");
    }
    same_as_root(
        &peers,
        &[
            "GRANT SELECT (a), INSERT (c), UPDATE (a), REFERENCES (b) ON app.t TO cu",
            "SHOW GRANTS FOR cu",
            // A column the table lacks, a privilege without columns, a level above tables.
            "GRANT SELECT (zz) ON app.t TO cu",
            "GRANT SELECT (zz) ON app.t TO ghost",
            "GRANT DELETE (a) ON app.t TO cu",
            "GRANT ALL (a) ON app.t TO cu",
            "GRANT SELECT (a) ON app.* TO cu",
            "GRANT SELECT (a) ON *.* TO cu",
            "GRANT SELECT (id) ON app.nosuch TO cu",
            "GRANT SELECT (a), INSERT ON app.u TO cu",
            // Columns and table-level privileges in one statement.
            "GRANT SELECT (x), INSERT ON app.u TO cu",
            "SHOW GRANTS FOR cu",
            "GRANT UPDATE ON app.u TO cu WITH GRANT OPTION",
            "SHOW GRANTS FOR cu",
            "SELECT grantee, table_name, column_name, privilege_type, is_grantable \
             FROM information_schema.column_privileges",
            "SELECT grantee, table_name, privilege_type, is_grantable \
             FROM information_schema.table_privileges WHERE grantee LIKE '%cu%'",
            "SELECT user, db, table_name, column_name, column_priv FROM mysql.columns_priv",
            // REVOKE: of a column with no grant, on a table with none, of some.
            "REVOKE SELECT (id) ON app.t FROM cu",
            "REVOKE SELECT (a) ON app.nosuch FROM cu",
            "REVOKE DELETE (a) ON app.t FROM cu",
            "REVOKE SELECT (c) ON app.t FROM cu",
            "SHOW GRANTS FOR cu",
            "REVOKE SELECT (a) ON app.t FROM cu",
            "SHOW GRANTS FOR cu",
            // A table-level REVOKE takes the privilege from the columns too.
            "REVOKE UPDATE ON app.t FROM cu",
            "SHOW GRANTS FOR cu",
            "REVOKE INSERT (c), REFERENCES (b) ON app.t FROM cu",
            "SHOW GRANTS FOR cu",
            "REVOKE SELECT (a) ON app.t FROM cu",
            "REVOKE ALL PRIVILEGES ON app.u FROM cu",
            "SHOW GRANTS FOR cu",
            "GRANT SELECT (a) ON app.t TO cu WITH GRANT OPTION",
            "REVOKE SELECT (a) ON app.t FROM cu",
            "SHOW GRANTS FOR cu",
            "GRANT SELECT (b) ON app.t TO cu",
            "REVOKE ALL PRIVILEGES, GRANT OPTION FROM cu",
            "SHOW GRANTS FOR cu",
            "SELECT COUNT(*) FROM information_schema.column_privileges",
        ],
    );
    // Several columns: listed in the order granted (MariaDB: its hash table's order).
    run(&peers[0], "GRANT SELECT (b, a), UPDATE (c) ON app.t TO cu");
    assert_eq!(
        run(&peers[0], "SHOW GRANTS FOR cu").lines().nth(1),
        Some("GRANT SELECT (`b`, `a`), UPDATE (`c`) ON `app`.`t` TO `cu`@`%`")
    );
}

/// The account of the statement matrix: column privileges on `app`.`t`, the table
/// `app`.`u` whole.
const COLUMN_GRANTS: &str = "GRANT SELECT (id, a), INSERT (id, a), UPDATE (b) ON app.t TO c6; \
    GRANT SELECT ON app.u TO c6";

/// Statements of the account, each with MariaDB's outcome: the columns read in each
/// clause, in subqueries, joins, unions and derived tables, those written, and `*`.
const STATEMENTS: &[&str] = &[
    "SELECT id, a FROM app.t ORDER BY id",
    "SELECT * FROM app.t",
    "SELECT t.* FROM app.t",
    "SELECT b FROM app.t",
    "SELECT c, b FROM app.t",
    "SELECT id, a, b, c FROM app.t",
    "SELECT id FROM app.t WHERE b = 1",
    "SELECT id FROM app.t WHERE id = 1 AND c = 1",
    "SELECT id FROM app.t ORDER BY c",
    "SELECT id FROM app.t GROUP BY c",
    "SELECT a, COUNT(*) FROM app.t GROUP BY a HAVING MAX(b) > 0",
    "SELECT COUNT(*) FROM app.t",
    "SELECT COUNT(b) FROM app.t",
    "SELECT MAX(a), c FROM app.t",
    "SELECT a AS z FROM app.t ORDER BY z",
    "SELECT t.id FROM app.t JOIN app.u ON t.b = u.x",
    "SELECT t1.a FROM app.t t1 JOIN app.t t2 ON t1.id = t2.c",
    "SELECT t.a FROM app.t JOIN app.u ON t.id = u.id ORDER BY t.a",
    "SELECT * FROM app.u, app.t",
    "SELECT u.* FROM app.u, app.t WHERE t.a = u.x",
    "SELECT id FROM app.t WHERE a IN (SELECT c FROM app.t)",
    "SELECT a FROM app.t WHERE EXISTS (SELECT 1 FROM app.u WHERE u.x = t.c)",
    "SELECT x FROM app.u WHERE EXISTS (SELECT 1 FROM app.t WHERE u.x = t.c)",
    "SELECT x FROM app.u WHERE x IN (SELECT a FROM app.t)",
    "SELECT (SELECT MAX(c) FROM app.t) FROM app.u",
    "SELECT a FROM app.t UNION SELECT c FROM app.t",
    "SELECT a FROM app.t UNION SELECT x FROM app.u",
    "SELECT d.a FROM (SELECT a, b FROM app.t) d",
    "SELECT d.a FROM (SELECT id, a FROM app.t) d ORDER BY d.a",
    "UPDATE app.t SET a = 5 WHERE c = 1",
    "UPDATE app.t SET b = c WHERE b = 1",
    "UPDATE app.t SET b = a WHERE c = 1",
    "UPDATE app.t SET b = c WHERE a = 1",
    "UPDATE app.t SET b = 1 WHERE id = 1 ORDER BY c",
    "UPDATE app.t SET a = 5",
    "UPDATE app.t SET b = a + 1 WHERE id = 1",
    "DELETE FROM app.t WHERE c = 1",
    "INSERT INTO app.t (id, a) VALUES (20, 1) ON DUPLICATE KEY UPDATE b = c",
    "INSERT INTO app.t (a, id) VALUES (20, 30)",
    "INSERT INTO app.t (id, a, c) VALUES (21, 1, 1)",
    "INSERT INTO app.t (b, id) VALUES (11, 22)",
    "INSERT INTO app.t VALUES (23, 12, 12, 12)",
    "INSERT INTO app.t (id, a) SELECT id + 100, c FROM app.t",
    "INSERT INTO app.t (id, a) SELECT id + 200, a FROM app.t WHERE id < 3",
    "REPLACE INTO app.t (id, a) VALUES (10, 10)",
    "SELECT id, a FROM app.t ORDER BY id",
    "SHOW COLUMNS FROM app.t",
    "SHOW FULL COLUMNS FROM app.t",
    "SHOW TABLES FROM app",
    "SELECT index_name, column_name FROM information_schema.statistics WHERE table_schema = 'app'",
    "SHOW CREATE TABLE app.t",
    "USE app",
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'app'",
    "SELECT table_name, column_name, privileges FROM information_schema.columns \
     WHERE table_schema = 'app'",
    "SELECT table_name, column_name, privilege_type FROM information_schema.column_privileges",
    "SELECT COUNT(*) FROM mysql.columns_priv",
    // Unknown columns: denied as columns not granted, so no account learns which exist.
    "SELECT nosuch FROM app.t",
    "SELECT id FROM app.t WHERE nosuch = 1",
    "SELECT id FROM app.t ORDER BY nosuch",
    "SELECT t.nosuch FROM app.t",
    "SELECT x.a FROM app.t",
    "SELECT nosuch FROM app.u",
    "UPDATE app.t SET nosuch = 1",
    "INSERT INTO app.t (nosuch) VALUES (1)",
    "DELETE FROM app.t WHERE nosuch = 1",
];

#[test]
fn statements_of_an_account_with_column_privileges_match_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let peers = [Peer::Myriad(&server), Peer::Maria(&maria)];
    for peer in &peers {
        assert_eq!(run(peer, SCHEMA), "", "schema");
        let sql = format!(
            "CREATE USER c6 IDENTIFIED BY 'pw'; {COLUMN_GRANTS}; \
             CREATE USER dd IDENTIFIED BY 'pw'; GRANT DELETE ON app.u TO dd"
        );
        assert_eq!(run(peer, &sql), "", "grants");
    }
    let mut differences = Differences::default();
    let mut denied = 0;
    // An account with a table-level privilege but no column one on `app`.`u`: it sees no
    // column, and every index.
    let others = [
        "SHOW COLUMNS FROM app.u",
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'app'",
        "SELECT table_name, column_name FROM information_schema.statistics WHERE table_schema = 'app'",
        "SELECT nosuch FROM app.t",
        "SELECT nosuch FROM app.u",
        "SELECT x.a FROM app.u",
        "DELETE FROM app.u WHERE nosuch = 1",
        "UPDATE app.u SET nosuch = 1",
    ];
    let cells = STATEMENTS.iter().map(|sql| ("c6", *sql));
    for (user, sql) in cells.chain(others.iter().map(|sql| ("dd", *sql))) {
        let mine = differences.run_as(&peers, user, Some("pw"), sql);
        denied += usize::from(mine.starts_with("ERROR 1143"));
    }
    differences.assert_none();
    assert!(denied > 15, "columns are refused ({denied} statements)");
}

#[test]
fn column_grants_survive_a_restart_and_follow_the_account() {
    let server = Server::start(&[]);
    let peer = Peer::Myriad(&server);
    assert_eq!(run(&peer, SCHEMA), "");
    let grants = "CREATE USER u IDENTIFIED BY 'pw'; \
        GRANT SELECT (id, a), UPDATE (b) ON app.t TO u; GRANT INSERT ON app.t TO u";
    assert_eq!(run(&peer, grants), "");
    let before = run(&peer, "SHOW GRANTS FOR u");
    assert_eq!(run(&peer, "SHUTDOWN"), "");
    let mut server = server;
    assert!(server
        .wait_exit(std::time::Duration::from_secs(30))
        .is_some());
    let server = Server::start_in(server.into_dir(), &[]);
    let peer = Peer::Myriad(&server);
    assert_eq!(run(&peer, "SHOW GRANTS FOR u"), before);
    assert_eq!(
        run_as(
            &peer,
            "u",
            Some("pw"),
            "SELECT id, a FROM app.t ORDER BY id"
        ),
        "1\t1\n2\t2\n"
    );
    let denied = run_as(&peer, "u", Some("pw"), "SELECT b FROM app.t");
    assert!(denied.contains("ERROR 1143"), "{denied}");
    // SHOW GRANTS applied again after DROP USER gives the same grants.
    assert_eq!(run(&peer, "DROP USER u"), "");
    assert_eq!(
        run(&peer, "SELECT COUNT(*) FROM mysql.columns_priv"),
        "0\n",
        "DROP USER takes the column grants"
    );
    let reapply: Vec<&str> = before.lines().collect();
    assert_eq!(run(&peer, &reapply.join("; ")), "", "{before}");
    assert_eq!(run(&peer, "SHOW GRANTS FOR u"), before);
    // RENAME USER moves them.
    assert_eq!(run(&peer, "RENAME USER u TO v"), "");
    assert_eq!(
        run(
            &peer,
            "SELECT user, column_name, column_priv FROM mysql.columns_priv ORDER BY 2"
        ),
        "v\ta\tSelect\nv\tb\tUpdate\nv\tid\tSelect\n"
    );
    assert_eq!(
        run_as(&peer, "v", Some("pw"), "SELECT a FROM app.t WHERE id = 2"),
        "2\n"
    );
    assert_eq!(
        run_as(
            &peer,
            "v",
            Some("pw"),
            "UPDATE app.t SET b = 7 WHERE id = 2; SELECT 1"
        ),
        "1\n"
    );
    // A REVOKE applies to a running session's next statement.
    assert_eq!(run(&peer, "REVOKE SELECT (a) ON app.t FROM v"), "");
    let denied = run_as(&peer, "v", Some("pw"), "SELECT a FROM app.t");
    assert!(denied.contains("ERROR 1143"), "{denied}");
}
