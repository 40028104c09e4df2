//! Account options beyond grants, on myriad and on MariaDB 10.11 in the same test, through
//! the real `mariadb` client: `ACCOUNT LOCK` (4151), resource limits (`MAX_USER_CONNECTIONS`,
//! `MAX_CONNECTIONS_PER_HOUR`, `MAX_QUERIES_PER_HOUR`, `MAX_UPDATES_PER_HOUR`,
//! `MAX_STATEMENT_TIME`), `FLUSH USER_RESOURCES`, password expiry (1820, 1862), and how SHOW CREATE USER and SHOW GRANTS
//! write them. Every step's output must be the same on both servers.

mod common;

use common::mariadb::{assert_same_steps, run, run_as, run_steps, start_mariadb, Peer};
use common::Server;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The steps: (as whom, statement). `root` runs as root; other names log in as that
/// account with password `pw`.
const STEPS: &[(&str, &str)] = &[
    ("root", "CREATE DATABASE lim"),
    ("root", "CREATE TABLE lim.t (a INT)"),
    ("root", "CREATE USER locked IDENTIFIED BY 'pw' ACCOUNT LOCK"),
    ("root", "SHOW CREATE USER locked"),
    ("locked", "SELECT 1"),
    ("root", "ALTER USER locked ACCOUNT UNLOCK"),
    ("locked", "SELECT 'unlocked'"),
    ("root", "SHOW CREATE USER locked"),
    (
        "root",
        "CREATE USER q IDENTIFIED BY 'pw' WITH MAX_QUERIES_PER_HOUR 3 MAX_STATEMENT_TIME 2.5",
    ),
    ("root", "SHOW GRANTS FOR q"),
    ("root", "SHOW CREATE USER q"),
    ("q", "SELECT @@max_statement_time"),
    ("q", "SELECT 2"),
    ("q", "SELECT 3"),
    ("q", "SELECT 4"),
    ("root", "FLUSH USER_RESOURCES"),
    ("q", "SELECT 'after flush'"),
    ("root", "ALTER USER q WITH MAX_QUERIES_PER_HOUR 0"),
    ("root", "SHOW CREATE USER q"),
    ("q", "SELECT 'no limit'"),
    (
        "root",
        "CREATE USER c IDENTIFIED BY 'pw' WITH MAX_CONNECTIONS_PER_HOUR 2",
    ),
    ("c", "SELECT 1"),
    ("c", "SELECT 2"),
    ("c", "SELECT 3"),
    (
        "root",
        "CREATE USER w IDENTIFIED BY 'pw'; GRANT ALL ON lim.* TO w WITH MAX_UPDATES_PER_HOUR 1",
    ),
    ("root", "SHOW GRANTS FOR w"),
    ("w", "INSERT INTO lim.t VALUES (1)"),
    ("w", "SELECT COUNT(*) FROM lim.t"),
    ("w", "INSERT INTO lim.t VALUES (2)"),
    (
        "root",
        "GRANT ALL ON *.* TO g WITH GRANT OPTION MAX_USER_CONNECTIONS 3",
    ),
    ("root", "CREATE USER g IDENTIFIED BY 'pw'"),
    (
        "root",
        "GRANT USAGE ON *.* TO g WITH GRANT OPTION MAX_USER_CONNECTIONS 3",
    ),
    ("root", "SHOW GRANTS FOR g"),
    ("root", "SET GLOBAL max_user_connections = 5"),
    ("root", "SET SESSION max_user_connections = 5"),
    ("root", "ALTER USER g WITH MAX_ROWS 3"),
    ("root", "CREATE USER z REQUIRE CIPHER 'a' AND CIPHER 'b'"),
    (
        "root",
        "CREATE USER s IDENTIFIED BY 'pw' REQUIRE SUBJECT '/CN=x' AND ISSUER '/CN=y'",
    ),
    // An UPDATE or DELETE that reads a column needs SELECT: 1143 names the first one read.
    (
        "root",
        "CREATE USER upd IDENTIFIED BY 'pw'; GRANT UPDATE, DELETE ON lim.t TO upd",
    ),
    ("upd", "UPDATE lim.t SET a = 2 WHERE a = 1"),
    ("upd", "UPDATE lim.t SET a = a + 1"),
    ("upd", "UPDATE lim.t SET a = 3 WHERE 1 = 1"),
    ("upd", "DELETE FROM lim.t WHERE a = 9"),
    ("upd", "DELETE FROM lim.t WHERE 0 = 1"),
    ("upd", "SELECT * FROM lim.nosuch"),
    ("upd", "UPDATE lim.nosuch SET a = 1"),
    // Password expiry: an expired password may only SET until SET PASSWORD renews it.
    ("root", "CREATE USER ex IDENTIFIED BY 'pw' PASSWORD EXPIRE"),
    ("root", "SHOW CREATE USER ex"),
    (
        "root",
        "SELECT password_expired FROM mysql.user WHERE user = 'ex'",
    ),
    ("ex", "SELECT 1"),
    ("ex", "SET @a = 1; SET NAMES utf8mb4; SELECT @a"),
    ("ex", "USE lim"),
    ("ex", "SHOW GRANTS"),
    ("ex", "ALTER USER ex IDENTIFIED BY 'pw'"),
    ("ex", "SET PASSWORD = PASSWORD('pw'); SELECT 'renewed'"),
    ("ex", "SELECT 'still renewed'"),
    (
        "root",
        "SELECT password_expired FROM mysql.user WHERE user = 'ex'",
    ),
    ("root", "ALTER USER ex PASSWORD EXPIRE INTERVAL 30 DAY"),
    ("root", "SHOW CREATE USER ex"),
    ("ex", "SELECT 'thirty days'"),
    ("root", "ALTER USER ex PASSWORD EXPIRE"),
    ("root", "SHOW CREATE USER ex"),
    ("ex", "SELECT 2"),
    ("root", "SET GLOBAL disconnect_on_expired_password = ON"),
    ("ex", "SELECT 3"),
    ("root", "SET GLOBAL disconnect_on_expired_password = OFF"),
    ("root", "ALTER USER ex PASSWORD EXPIRE NEVER ACCOUNT LOCK"),
    ("root", "SHOW CREATE USER ex"),
    (
        "root",
        "ALTER USER ex ACCOUNT UNLOCK PASSWORD EXPIRE DEFAULT",
    ),
    ("root", "SHOW CREATE USER ex"),
    ("root", "SET PASSWORD FOR ex = PASSWORD('pw')"),
    ("ex", "SELECT 'renewed by root'"),
    ("root", "ALTER USER ex PASSWORD EXPIRE INTERVAL 0 DAY"),
    (
        "root",
        "CREATE USER ex2 PASSWORD EXPIRE PASSWORD EXPIRE NEVER",
    ),
    ("root", "GRANT USAGE ON *.* TO ex PASSWORD EXPIRE"),
    (
        "root",
        "SELECT @@default_password_lifetime, @@disconnect_on_expired_password",
    ),
    (
        "root",
        "SET GLOBAL default_password_lifetime = 90; SET GLOBAL default_password_lifetime = DEFAULT",
    ),
    // The account tables tools read, as MariaDB shows them.
    (
        "root",
        "SELECT * FROM mysql.user WHERE user IN ('locked', 'q', 'c', 'w', 'g', 's') ORDER BY user",
    ),
    ("root", "SELECT * FROM mysql.db WHERE user = 'w'"),
    ("root", "SELECT COUNT(*) FROM mysql.roles_mapping"),
    ("w", "SELECT user FROM mysql.user"),
    (
        "w",
        "SELECT 1 FROM lim.t WHERE 0 IN (SELECT max_questions FROM mysql.user)",
    ),
];

/// A connection as `user` held open by `SELECT SLEEP(3)` while `second` runs as the same
/// account: what the second connection got.
fn while_connected(peer: &Peer, user: &str, second: &str) -> String {
    let mut command = Command::new("mariadb");
    match peer {
        Peer::Myriad(server) => command.args(["-h127.0.0.1", &format!("-P{}", server.port)]),
        Peer::Maria(maria) => command.arg(format!("-S{}", maria.socket().display())),
    };
    let mut holder = command
        .args([&format!("-u{user}"), "-ppw", "-e", "SELECT SLEEP(3)"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mariadb client");
    std::thread::sleep(Duration::from_millis(1000));
    let out = run_as(peer, user, Some("pw"), second);
    let _ = holder.wait();
    out.trim().to_string()
}

#[test]
fn account_options_behave_as_in_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let myriad_peer = Peer::Myriad(&server);
    let maria_peer = Peer::Maria(&maria);
    let ours = run_steps(&myriad_peer, STEPS);
    let theirs = run_steps(&maria_peer, STEPS);
    assert_same_steps(&ours, &theirs);
    // The cases this test exists for, spelled out.
    for expected in [
        "locked: SELECT 1\n  -> ERROR 4151",
        "q: SELECT 4\n  -> ERROR 1226",
        "c: SELECT 3\n  -> ERROR 1226",
        "w: INSERT INTO lim.t VALUES (2)\n  -> ERROR 1226",
        "q: SELECT 'after flush'\n  -> after flush",
        "ex: SELECT 1\n  -> ERROR 1820",
        "ex: SELECT 'still renewed'\n  -> still renewed",
        "ex: SELECT 2\n  -> ERROR 1820",
        "ex: SELECT 3\n  -> ERROR 1862",
    ] {
        assert!(
            ours.iter().any(|line| line.starts_with(expected)),
            "{expected} in {ours:#?}"
        );
    }

    // The account tables change only through account statements: writes are refused.
    let out = run(&myriad_peer, "DELETE FROM mysql.db WHERE user = 'nobody'");
    assert!(out.starts_with("ERROR 1235"), "{out}");

    // One connection too many for MAX_USER_CONNECTIONS, while the first is open.
    let setup = "CREATE USER one IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS 1";
    assert_eq!(run(&myriad_peer, setup), "");
    assert_eq!(run(&maria_peer, setup), "");
    let ours = while_connected(&myriad_peer, "one", "SELECT 1");
    let theirs = while_connected(&maria_peer, "one", "SELECT 1");
    assert_eq!(ours, theirs);
    assert!(ours.starts_with("ERROR 1226"), "{ours}");
    // Once it closed, a new one gets in.
    assert_eq!(run_as(&myriad_peer, "one", Some("pw"), "SELECT 1"), "1\n");
}

#[test]
fn limits_and_locks_survive_a_restart() {
    let server = Server::start(&[]);
    let peer = Peer::Myriad(&server);
    let setup = "CREATE USER keep IDENTIFIED BY 'pw' REQUIRE SSL \
                 WITH MAX_USER_CONNECTIONS 2 MAX_STATEMENT_TIME 1.5 ACCOUNT LOCK \
                 PASSWORD EXPIRE INTERVAL 9 DAY; ALTER USER keep PASSWORD EXPIRE";
    assert_eq!(run(&peer, setup), "");
    let before = run(&peer, "SHOW CREATE USER keep");
    let dir = server.into_dir();
    let server = Server::start_in(dir, &[]);
    let peer = Peer::Myriad(&server);
    assert_eq!(run(&peer, "SHOW CREATE USER keep"), before);
    assert!(
        before.contains("REQUIRE SSL WITH MAX_USER_CONNECTIONS 2"),
        "{before}"
    );
    assert!(before.contains("ACCOUNT LOCK PASSWORD EXPIRE"), "{before}");
    assert!(
        before.contains("PASSWORD EXPIRE INTERVAL 9 DAY"),
        "{before}"
    );
}
