//! The privilege matrix: accounts holding grants at global, database and table level, each
//! running a list of reads, writes, DDL and admin statements through the real `mariadb`
//! client, on myriad and on MariaDB 10.11 in the same test. Every cell (account ×
//! statement) must have the same outcome: the same rows, or the same error code.
//! Then GRANT / REVOKE themselves, SHOW GRANTS, and grants surviving a restart.

mod common;

use common::mariadb::{outcome, outcomes_as, run, run_as, start_mariadb, Differences, Peer};
use common::Server;

/// (account, the grants root gives it).
const ACCOUNTS: &[(&str, &str)] = &[
    ("nobody", ""),
    ("reader", "GRANT SELECT ON app.* TO reader"),
    (
        "writer",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON app.* TO writer",
    ),
    ("owner", "GRANT ALL PRIVILEGES ON app.* TO owner"),
    (
        "pattern",
        "GRANT SELECT, CREATE, DROP ON `ap_`.* TO pattern",
    ),
    (
        "tabler",
        "GRANT SELECT, UPDATE ON app.t TO tabler; GRANT INSERT ON other.s TO tabler",
    ),
    (
        "operator",
        "GRANT PROCESS, RELOAD, SHUTDOWN ON *.* TO operator",
    ),
    ("updater", "GRANT UPDATE, DELETE ON app.t TO updater"),
    ("admin", "GRANT ALL PRIVILEGES ON *.* TO admin"),
    // Column privileges: on some columns only, alone or beside table-level ones.
    (
        "colreader",
        "GRANT SELECT (v) ON app.t TO colreader; GRANT SELECT (id), INSERT (id) ON other.s TO colreader",
    ),
    (
        "colwriter",
        "GRANT SELECT (id), INSERT (v), UPDATE (v), DELETE ON app.t TO colwriter",
    ),
];

const PASSWORD: &str = "pw";

/// Statements each account runs, `{u}` replaced by the account's name so that CREATEs do
/// not collide.
const STATEMENTS: &[&str] = &[
    "SELECT id, v FROM app.t ORDER BY id",
    "SELECT COUNT(*) FROM other.s",
    "SELECT (SELECT COUNT(*) FROM other.s) AS n",
    "SELECT id FROM app.t WHERE id IN (SELECT id FROM other.s)",
    "INSERT INTO app.t (v) VALUES (7)",
    "UPDATE app.t SET v = v + 1 WHERE id = 1",
    "DELETE FROM app.t WHERE id = -1",
    "REPLACE INTO app.t (id, v) VALUES (-5, 5)",
    "INSERT INTO other.s VALUES (9)",
    "CREATE TABLE app.c_{u} (a INT)",
    "ALTER TABLE app.t ADD COLUMN w_{u} INT",
    "CREATE INDEX iv ON app.t (v)",
    "DROP TABLE app.c_{u}",
    "TRUNCATE TABLE other.s",
    "CREATE DATABASE db_{u}",
    "DROP DATABASE db_{u}",
    "USE app",
    "USE other",
    "SHOW DATABASES LIKE 'a%'",
    "SHOW TABLES FROM app",
    "SHOW TABLES FROM other",
    "SHOW COLUMNS FROM other.s",
    "SHOW INDEX FROM other.s",
    "SET GLOBAL max_connections = 300",
    "SET sql_log_bin = 0",
    "SET sql_log_bin = DEFAULT",
    "SET GLOBAL sql_log_bin = 0",
    "SET SESSION sort_buffer_size = 65536",
    "FLUSH TABLES",
    "CREATE USER made_by_{u}",
    "DROP USER made_by_{u}",
    "SHOW GRANTS",
    "SELECT COUNT(*) FROM ap1.x",
    "CREATE TABLE ap1.c_{u} (a INT)",
    "DROP TABLE ap1.c_{u}",
    "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('app', 'other', 'ap1')",
    "SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('app', 'other', 'ap1')",
    "SELECT table_name, column_name, privileges FROM information_schema.columns WHERE table_schema IN ('app', 'other', 'ap1')",
    "SELECT table_name, index_name FROM information_schema.statistics WHERE table_schema = 'app'",
    "SELECT user FROM information_schema.processlist WHERE id = CONNECTION_ID()",
    "INSERT INTO information_schema.tables (table_name) VALUES ('x')",
    "SELECT COUNT(*) FROM (SELECT id FROM other.s) AS d",
    "SELECT id FROM app.t UNION SELECT id FROM other.s",
    "INSERT INTO app.t (v) SELECT id FROM other.s",
    "SELECT id FROM app.t WHERE id IN (SELECT id FROM app.t UNION ALL SELECT id FROM other.s)",
    // The grant views: every account's rows to an account that may read `mysql`, its own
    // to any other (the servers' own root accounts left out: MariaDB has more of them).
    "SELECT grantee, table_catalog, privilege_type, is_grantable FROM information_schema.user_privileges WHERE grantee NOT LIKE '%root%' AND grantee NOT LIKE '%mariadb.sys%'",
    "SELECT grantee, table_schema, privilege_type, is_grantable FROM information_schema.schema_privileges WHERE grantee NOT LIKE '%PUBLIC%'",
    "SELECT grantee, table_schema, table_name, privilege_type, is_grantable FROM information_schema.table_privileges WHERE grantee NOT LIKE '%mariadb.sys%'",
    "SELECT COUNT(*) FROM information_schema.column_privileges",
    "SELECT user, select_priv, process_priv FROM mysql.user WHERE user IN ('reader', 'operator')",
    // A table that does not exist: 1142 to an account without the privilege (MariaDB checks
    // privileges first, so no account learns which tables exist), 1146 to one with it.
    "SELECT * FROM app.nosuch",
    "SELECT * FROM nosuchdb.x",
    "INSERT INTO other.nosuch VALUES (1)",
    "UPDATE app.nosuch SET a = 1",
    "DELETE FROM other.nosuch",
    "SELECT db, user, select_priv, insert_priv FROM mysql.db WHERE user = 'writer'",
    // Column privileges: the columns read anywhere in a statement, those written, `*`.
    "SELECT v FROM app.t ORDER BY v",
    "SELECT id FROM app.t WHERE v > 0",
    "SELECT * FROM app.t",
    "SELECT COUNT(*) FROM app.t",
    "SELECT v FROM app.t WHERE id IN (SELECT id FROM other.s)",
    "UPDATE app.t SET v = 3 WHERE id = 1",
    "UPDATE app.t SET v = 4",
    "DELETE FROM app.t WHERE v = -1",
    "DELETE FROM app.t WHERE id = -1 AND v = -1",
    "INSERT INTO app.t (id, v) VALUES (-3, 3)",
    "INSERT INTO other.s (id) VALUES (5)",
    "SHOW COLUMNS FROM app.t",
    "SELECT grantee, table_name, column_name, privilege_type, is_grantable FROM information_schema.column_privileges",
    "SELECT user, table_name, column_name, column_priv FROM mysql.columns_priv",
];

fn setup(peer: &Peer) {
    let schema = "CREATE DATABASE app; CREATE DATABASE other; CREATE DATABASE ap1; \
        CREATE TABLE app.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT); \
        INSERT INTO app.t (v) VALUES (1), (2); \
        CREATE TABLE other.s (id INT); INSERT INTO other.s VALUES (1); \
        CREATE TABLE ap1.x (a INT); INSERT INTO ap1.x VALUES (1)";
    assert_eq!(run(peer, schema), "", "schema");
    for (user, grant) in ACCOUNTS {
        let mut sql = format!("CREATE USER {user} IDENTIFIED BY '{PASSWORD}'");
        if !grant.is_empty() {
            sql.push_str(&format!("; {grant}"));
        }
        assert_eq!(run(peer, &sql), "", "{user}");
    }
}

#[test]
fn every_account_and_statement_has_mariadbs_outcome() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let peers = [Peer::Myriad(&server), Peer::Maria(&maria)];
    for peer in &peers {
        setup(peer);
    }
    let mut differences = Differences::default();
    let mut denied = 0;
    for (user, _) in ACCOUNTS {
        for template in STATEMENTS {
            let sql = template.replace("{u}", user);
            let mine = differences.run_as(&peers, user, Some(PASSWORD), &sql);
            denied += usize::from(
                mine.starts_with("ERROR 1142")
                    || mine.starts_with("ERROR 1044")
                    || mine.starts_with("ERROR 1227"),
            );
        }
    }
    differences.assert_none();
    assert!(denied > 50, "the matrix denies something ({denied} cells)");
}

#[test]
fn grant_and_revoke_errors_match_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let peers = [Peer::Myriad(&server), Peer::Maria(&maria)];
    let statements = [
        "GRANT SELECT ON app.* TO ghost",
        "GRANT SHUTDOWN ON app.* TO u1",
        "REVOKE SELECT ON app.* FROM u1",
        "GRANT SELECT ON app.* TO u1",
        "REVOKE INSERT ON app.* FROM u1",
        "SHOW GRANTS FOR u1",
        "GRANT INSERT, UPDATE ON *.* TO u1 WITH GRANT OPTION",
        "SHOW GRANTS FOR u1",
        "REVOKE ALL PRIVILEGES, GRANT OPTION FROM u1",
        "SHOW GRANTS FOR u1",
        "SHOW GRANTS FOR nobody_at_all",
        "GRANT SELECT ON app.nope TO u1",
        "GRANT SUPER ON app.t TO u1",
        "GRANT SELECT, INSERT ON app.t TO u1",
        "GRANT UPDATE ON app.t TO u1 WITH GRANT OPTION",
        "SHOW GRANTS FOR u1",
        "REVOKE INSERT ON app.t FROM u1",
        "SHOW GRANTS FOR u1",
        "REVOKE ALL PRIVILEGES, GRANT OPTION FROM u1",
        "SHOW GRANTS FOR u1",
        "REVOKE SELECT ON app.t FROM u1",
        "SET PASSWORD FOR u2 = PASSWORD('secret2')",
        "SET PASSWORD FOR ghost = PASSWORD('x')",
        "SET PASSWORD FOR u2 = 'not-a-hash'",
        "SHOW GRANTS FOR u2",
        "RENAME USER u2 TO u3, ghost TO g2",
        "SHOW GRANTS FOR u3",
        "RENAME USER u3 TO u1",
        "RENAME USER u3 TO u2",
    ];
    for peer in &peers {
        assert_eq!(
            run(
                peer,
                "CREATE DATABASE app; CREATE TABLE app.t (a INT); CREATE USER u1 IDENTIFIED BY 'pw'; CREATE USER u2"
            ),
            ""
        );
    }
    for sql in statements {
        let (mine, theirs) = outcomes_as(&peers, "root", None, sql);
        assert_eq!(mine, theirs, "{sql}");
    }
    // The new password signs in; an account sets its own, not another's.
    for peer in &peers {
        let mine = outcome(&run_as(
            peer,
            "u2",
            Some("secret2"),
            "SET PASSWORD = PASSWORD('third')",
        ));
        assert_eq!(mine, "", "own password");
        let other = outcome(&run_as(
            peer,
            "u2",
            Some("third"),
            "SET PASSWORD FOR u1 = PASSWORD('x')",
        ));
        assert_eq!(other, "ERROR 1044", "another's password");
    }
    // A grantor without GRANT OPTION cannot hand privileges on.
    for peer in &peers {
        run(peer, "GRANT SELECT ON app.* TO u1");
    }
    let mine = outcome(&run_as(
        &peers[0],
        "u1",
        Some("pw"),
        "GRANT SELECT ON app.* TO u2",
    ));
    let theirs = outcome(&run_as(
        &peers[1],
        "u1",
        Some("pw"),
        "GRANT SELECT ON app.* TO u2",
    ));
    assert_eq!(mine, theirs, "GRANT without GRANT OPTION");
    assert!(mine.starts_with("ERROR"), "{mine}");
}

#[test]
fn grants_survive_a_restart_and_apply_at_once() {
    let server = Server::start(&[]);
    let peer = Peer::Myriad(&server);
    assert_eq!(
        run(
            &peer,
            "CREATE DATABASE app; CREATE TABLE app.t (a INT); CREATE USER u IDENTIFIED BY 'pw'"
        ),
        ""
    );
    let denied = run_as(&peer, "u", Some("pw"), "SELECT COUNT(*) FROM app.t");
    assert!(denied.contains("ERROR 1142"), "{denied}");
    run(&peer, "GRANT SELECT ON app.* TO u");
    assert_eq!(
        run_as(&peer, "u", Some("pw"), "SELECT COUNT(*) FROM app.t"),
        "0\n"
    );
    assert_eq!(run(&peer, "SHUTDOWN"), "");
    let mut server = server;
    assert!(server
        .wait_exit(std::time::Duration::from_secs(30))
        .is_some());
    let server = Server::start_in(server.into_dir(), &[]);
    let peer = Peer::Myriad(&server);
    assert_eq!(
        run_as(&peer, "u", Some("pw"), "SELECT COUNT(*) FROM app.t"),
        "0\n"
    );
    let denied = run_as(&peer, "u", Some("pw"), "INSERT INTO app.t VALUES (1)");
    assert!(denied.contains("ERROR 1142"), "{denied}");
    run(&peer, "REVOKE SELECT ON app.* FROM u");
    let denied = run_as(&peer, "u", Some("pw"), "SELECT COUNT(*) FROM app.t");
    assert!(denied.contains("ERROR 1142"), "{denied}");
}

#[test]
fn read_only_refuses_writes_of_accounts_without_read_only_admin() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let peers = [Peer::Myriad(&server), Peer::Maria(&maria)];
    for peer in &peers {
        setup(peer);
        assert_eq!(run(peer, "SET GLOBAL read_only = ON"), "");
    }
    for (user, _) in ACCOUNTS {
        for sql in [
            "INSERT INTO app.t (v) VALUES (8)",
            "DELETE FROM app.t WHERE id = -9",
            "CREATE TABLE app.ro_{u} (a INT)",
            "SELECT COUNT(*) > 0 FROM app.t",
        ] {
            let sql = sql.replace("{u}", user);
            let (mine, theirs) = outcomes_as(&peers, user, Some(PASSWORD), &sql);
            assert_eq!(mine, theirs, "{user}: {sql}");
        }
    }
    let refused = outcome(&run_as(
        &peers[0],
        "writer",
        Some(PASSWORD),
        "DELETE FROM app.t",
    ));
    assert_eq!(refused, "ERROR 1290");
    assert_eq!(
        run(&peers[0], "INSERT INTO app.t (v) VALUES (9)"),
        "",
        "root writes"
    );
}

#[test]
fn show_grants_output_reapplies_and_password_hashes_are_kept() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let peers = [Peer::Myriad(&server), Peer::Maria(&maria)];
    let hash = "*D821809F681A40A6E379B50D0463EFAE20BDD122"; // the hash of 'pw'
    for peer in &peers {
        let setup = format!(
            "CREATE DATABASE app; CREATE TABLE app.t (a INT); \
             CREATE USER h IDENTIFIED BY PASSWORD '{hash}'; \
             GRANT SELECT, INSERT ON app.* TO h; GRANT UPDATE ON app.t TO h WITH GRANT OPTION; \
             GRANT PROCESS ON *.* TO h"
        );
        assert_eq!(run(peer, &setup), "");
    }
    for sql in [
        "CREATE USER bad IDENTIFIED BY PASSWORD 'not-a-hash'",
        "SHOW GRANTS FOR h",
    ] {
        assert_eq!(
            outcome(&run(&peers[0], sql)),
            outcome(&run(&peers[1], sql)),
            "{sql}"
        );
    }
    // The stored hash is the password's: 'pw' signs in.
    assert_eq!(
        run_as(&peers[0], "h", Some("pw"), "SELECT COUNT(*) FROM app.t"),
        "0\n"
    );
    // SHOW GRANTS, run again after DROP USER, gives the account back as it was.
    let before = run(&peers[0], "SHOW GRANTS FOR h");
    assert_eq!(run(&peers[0], "DROP USER h"), "");
    let reapply: Vec<&str> = before.lines().collect();
    assert_eq!(run(&peers[0], &reapply.join("; ")), "", "{before}");
    assert_eq!(run(&peers[0], "SHOW GRANTS FOR h"), before);
    assert_eq!(
        run_as(&peers[0], "h", Some("pw"), "SELECT COUNT(*) FROM app.t"),
        "0\n"
    );
}

#[test]
fn a_prepared_statement_is_checked_again_after_a_revoke() {
    use mysql_async::prelude::*;
    let server = Server::start(&[]);
    let peer = Peer::Myriad(&server);
    let setup = "CREATE DATABASE app; CREATE TABLE app.t (a INT); \
                 CREATE DATABASE other; CREATE TABLE other.s (a INT); \
                 CREATE USER p IDENTIFIED BY 'pw'; GRANT SELECT ON app.* TO p";
    assert_eq!(run(&peer, setup), "");
    common::runtime().block_on(async {
        let opts = mysql_async::Opts::from_url(&server.url("p", "pw", None)).unwrap();
        let mut conn = mysql_async::Conn::new(opts).await.expect("p connects");
        let refused = conn.prep("SELECT COUNT(*) FROM other.s").await;
        assert_eq!(common::error_code(refused), 1142, "refused at PREPARE");
        let count = conn.prep("SELECT COUNT(*) FROM app.t").await.unwrap();
        let n: Option<u64> = conn.exec_first(&count, ()).await.unwrap();
        assert_eq!(n, Some(0));
        assert_eq!(run(&peer, "REVOKE SELECT ON app.* FROM p"), "");
        let denied = conn.exec_first::<u64, _, _>(&count, ()).await;
        assert_eq!(
            common::error_code(denied),
            1142,
            "revoked: the plan is checked again"
        );
        assert_eq!(run(&peer, "GRANT SELECT ON app.t TO p"), "");
        let n: Option<u64> = conn.exec_first(&count, ()).await.unwrap();
        assert_eq!(n, Some(0), "a table grant is enough");
    });
}

/// COM_FIELD_LIST (the interactive client's completion list) and SHOW OPEN TABLES show an
/// account only the tables it holds a privilege on; another table's columns are 1142.
#[test]
fn field_lists_and_open_tables_show_only_granted_tables() {
    use myriad_protocol::client::{parse_err, RawClient, CLIENT_DEFAULT_CAPABILITIES};
    let server = Server::start(&[]);
    let peer = Peer::Myriad(&server);
    run(
        &peer,
        "CREATE DATABASE app; CREATE TABLE app.mine (a INT); CREATE TABLE app.other (secret INT); \
         CREATE USER f IDENTIFIED BY 'pw'; GRANT SELECT ON app.mine TO f; \
         SELECT * FROM app.mine; SELECT * FROM app.other",
    );
    let open = run_as(&peer, "f", Some("pw"), "SHOW OPEN TABLES FROM app");
    assert!(open.contains("mine"), "{open}");
    assert!(!open.contains("other"), "{open}");
    let everything = run(&peer, "SHOW OPEN TABLES FROM app");
    assert!(
        everything.contains("other"),
        "root sees every table: {everything}"
    );
    common::runtime().block_on(async {
        let mut client = RawClient::connect(
            &server.addr(),
            "f",
            "pw",
            Some("app"),
            CLIENT_DEFAULT_CAPABILITIES,
        )
        .await
        .expect("connect as f");
        client.send_command(b"\x04other\x00").await.unwrap();
        let reply = client.read_packet().await.unwrap();
        let error = parse_err(&reply).expect("an error for a table without privileges");
        assert_eq!(error.code, 1142, "{error:?}");
        client.send_command(b"\x04mine\x00").await.unwrap();
        let reply = client.read_packet().await.unwrap();
        assert!(
            parse_err(&reply).is_none(),
            "the granted table's columns are listed"
        );
    });
}

#[test]
fn the_query_cache_serves_accounts_that_may_read_every_table_of_the_result() {
    let server = Server::start(&[
        "--query-cache-type=ON",
        "--query-cache-size=1048576",
        "--query-cache-min-execution-us=0",
    ]);
    let peer = Peer::Myriad(&server);
    setup(&peer);
    let hits = |peer: &Peer| -> u64 {
        let out = run(peer, "SHOW GLOBAL STATUS LIKE 'Qcache_hits'");
        out.split_whitespace()
            .nth(1)
            .unwrap_or("0")
            .parse()
            .unwrap()
    };
    let query = "SELECT t.id, t.v FROM app.t AS t WHERE t.id IN (SELECT id FROM app.t) \
                 ORDER BY t.id";
    let first = run(&peer, query);
    assert!(first.starts_with("1\t1\n"), "{first}");
    // The cache admits a statement on its second miss.
    assert_eq!(run(&peer, query), first);
    let before = hits(&peer);
    assert_eq!(run(&peer, query), first);
    let after_root = hits(&peer);
    assert_eq!(after_root, before + 1, "root is served from the cache");
    // An account with SELECT on the database is served too.
    assert_eq!(run_as(&peer, "reader", Some(PASSWORD), query), first);
    assert_eq!(
        hits(&peer),
        after_root + 1,
        "reader is served from the cache"
    );
    // One without is not: its statement runs, and fails as it should.
    let denied = run_as(&peer, "nobody", Some(PASSWORD), query);
    assert!(denied.contains("ERROR 1142"), "{denied}");
    let denied = run_as(&peer, "operator", Some(PASSWORD), query);
    assert!(denied.contains("ERROR 1142"), "{denied}");
    assert_eq!(hits(&peer), after_root + 1);
}
