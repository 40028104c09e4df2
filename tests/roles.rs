//! Roles on myriad and on MariaDB 10.11 in the same test, through the real `mariadb`
//! client: CREATE / DROP ROLE, GRANT of privileges to a role and of a role to an account
//! or another role, SET ROLE, SET DEFAULT ROLE, CURRENT_ROLE(), SHOW GRANTS, the
//! `mysql` tables and information_schema rows that show them. Every step's output must be
//! the same on both servers.

mod common;

use common::mariadb::{assert_steps_as_in_mariadb, run, run_as, Peer};
use common::Server;

/// The steps: (as whom, statements). `root` runs as root; `ru` logs in with password `pw`.
const STEPS: &[(&str, &str)] = &[
    (
        "root",
        "CREATE DATABASE rdb; CREATE TABLE rdb.t (a INT); INSERT INTO rdb.t VALUES (1)",
    ),
    ("root", "CREATE ROLE reader"),
    ("root", "CREATE ROLE reader"),
    ("root", "CREATE ROLE IF NOT EXISTS reader; SHOW WARNINGS"),
    ("root", "CREATE ROLE none"),
    ("root", "GRANT SELECT ON rdb.* TO reader"),
    ("root", "SHOW GRANTS FOR reader"),
    ("root", "CREATE USER ru IDENTIFIED BY 'pw'"),
    ("root", "GRANT reader TO ru"),
    ("root", "SHOW GRANTS FOR ru"),
    ("ru", "SELECT CURRENT_ROLE()"),
    ("ru", "SELECT * FROM rdb.t"),
    (
        "ru",
        "SET ROLE reader; SELECT CURRENT_ROLE(), COUNT(*) FROM rdb.t; SHOW GRANTS",
    ),
    ("ru", "SET ROLE nosuch"),
    ("root", "SET DEFAULT ROLE reader FOR ru"),
    ("root", "SHOW GRANTS FOR ru"),
    ("ru", "SELECT CURRENT_ROLE(), COUNT(*) FROM rdb.t"),
    (
        "ru",
        "SET ROLE NONE; SELECT CURRENT_ROLE(); SELECT * FROM rdb.t",
    ),
    ("ru", "SET ROLE DEFAULT; SELECT CURRENT_ROLE()"),
    ("root", "SET DEFAULT ROLE nosuch FOR ru"),
    (
        "root",
        "CREATE ROLE writer; GRANT INSERT ON rdb.t TO writer; GRANT writer TO reader",
    ),
    ("root", "SHOW GRANTS FOR reader"),
    (
        "ru",
        "INSERT INTO rdb.t VALUES (2); SELECT COUNT(*) FROM rdb.t",
    ),
    (
        "root",
        "SELECT * FROM mysql.roles_mapping WHERE user IN ('ru', 'reader') ORDER BY user, role",
    ),
    (
        "root",
        "SELECT user, host, password, plugin, is_role, default_role FROM mysql.user \
         WHERE user IN ('reader', 'writer', 'ru') ORDER BY user",
    ),
    (
        "root",
        "SELECT grantee, table_schema, privilege_type FROM information_schema.schema_privileges \
         WHERE grantee LIKE '%reader%'",
    ),
    (
        "root",
        "SELECT COUNT(*) FROM information_schema.user_privileges WHERE grantee LIKE '%reader%'",
    ),
    ("ru", "CREATE ROLE mine"),
    ("ru", "GRANT reader TO ru"),
    ("root", "REVOKE reader FROM ru"),
    ("root", "REVOKE reader FROM ru"),
    ("root", "SHOW GRANTS FOR ru"),
    ("ru", "SELECT CURRENT_ROLE(), COUNT(*) FROM rdb.t"),
    ("root", "GRANT nosuch TO ru"),
    ("root", "GRANT reader TO nosuchuser@'%'"),
    ("root", "DROP ROLE writer"),
    ("root", "SHOW GRANTS FOR reader"),
    ("root", "DROP ROLE writer"),
    ("root", "DROP ROLE IF EXISTS writer; SHOW WARNINGS"),
    ("root", "DROP ROLE reader"),
    ("root", "SHOW GRANTS FOR ru"),
];

#[test]
fn roles_behave_as_in_mariadb() {
    assert_steps_as_in_mariadb(
        STEPS,
        &[
            "ru: SELECT * FROM rdb.t\n  -> ERROR 1142",
            "ru: SELECT CURRENT_ROLE(), COUNT(*) FROM rdb.t\n  -> reader\t1",
            "ru: SET ROLE nosuch\n  -> ERROR 1959",
            "root: REVOKE reader FROM ru\n  -> ERROR 1962",
        ],
    );
}

#[test]
fn roles_survive_a_restart() {
    let server = Server::start(&[]);
    let peer = Peer::Myriad(&server);
    let setup = "CREATE DATABASE k; CREATE TABLE k.t (a INT); CREATE ROLE kr; \
                 GRANT SELECT ON k.* TO kr; CREATE USER ku IDENTIFIED BY 'pw'; \
                 GRANT kr TO ku; SET DEFAULT ROLE kr FOR ku";
    assert_eq!(run(&peer, setup), "");
    let server = Server::start_in(server.into_dir(), &[]);
    let peer = Peer::Myriad(&server);
    assert_eq!(
        run_as(
            &peer,
            "ku",
            Some("pw"),
            "SELECT CURRENT_ROLE(), COUNT(*) FROM k.t"
        ),
        "kr\t0\n"
    );
}
