//! Authentication plugins, PROXY grants, CURRENT_USER in account statements and PASSWORD()
//! on myriad and on MariaDB 10.11 in the same test, through the real `mariadb` client (and
//! PyMySQL for ed25519): every step's output must be the same on both servers.
//!
//! MariaDB loads its ed25519 plugin with `INSTALL SONAME 'auth_ed25519'`; myriad has it
//! built in and accepts the same statement, so both run the same steps.

mod common;

use common::mariadb::{assert_same_steps, run, run_as, start_mariadb, Peer};
use common::{require_program, run_with_timeout, Server};
use std::process::Command;
use std::time::Duration;

/// The steps: (as whom, with which password, statements).
const STEPS: &[(&str, Option<&str>, &str)] = &[
    ("root", None, "INSTALL SONAME 'auth_ed25519'"),
    (
        "root",
        None,
        "CREATE USER ed@'%' IDENTIFIED VIA ed25519 USING PASSWORD('secret'); \
         SHOW CREATE USER ed@'%'; SHOW GRANTS FOR ed@'%'",
    ),
    ("ed", Some("secret"), "SELECT CURRENT_USER()"),
    ("ed", Some("wrong"), "SELECT CURRENT_USER()"),
    ("ed", None, "SELECT CURRENT_USER()"),
    (
        "root",
        None,
        "CREATE USER ed2 IDENTIFIED WITH ed25519 AS 'ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJY'; \
         CREATE USER ed3 IDENTIFIED VIA ed25519; CREATE USER ed4 IDENTIFIED VIA ed25519 USING PASSWORD('')",
    ),
    ("ed2", Some("secret"), "SELECT CURRENT_USER()"),
    ("ed3", None, "SELECT 1"),
    (
        "root",
        None,
        "SELECT user, host, plugin, authentication_string, password FROM mysql.user \
         WHERE user LIKE 'ed%' ORDER BY user",
    ),
    (
        "root",
        None,
        "CREATE USER bad IDENTIFIED VIA ed25519 USING 'abc'",
    ),
    (
        "root",
        None,
        "CREATE USER bad IDENTIFIED VIA ed25519 USING 'ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJ='",
    ),
    ("root", None, "CREATE USER bad IDENTIFIED VIA pam"),
    ("root", None, "CREATE USER bad IDENTIFIED WITH mysql_native_password BY 'x'"),
    (
        "root",
        None,
        "CREATE USER bad IDENTIFIED VIA mysql_native_password USING 'abc'",
    ),
    (
        "root",
        None,
        "CREATE USER nat IDENTIFIED VIA mysql_native_password USING PASSWORD('pw'); \
         CREATE USER nat2 IDENTIFIED VIA mysql_native_password \
         USING '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'; SHOW GRANTS FOR nat; SHOW GRANTS FOR nat2",
    ),
    (
        "root",
        None,
        "CREATE ROLE gr; CREATE USER gp REQUIRE ISSUER '/CN=b' WITH MAX_QUERIES_PER_HOUR 5 \
         MAX_STATEMENT_TIME 1.5 PASSWORD EXPIRE INTERVAL 30 DAY ACCOUNT LOCK; \
         GRANT SELECT, INSERT, SUPER, GRANT OPTION ON *.* TO gp; GRANT gr TO gp; \
         SET DEFAULT ROLE gr FOR gp; CREATE USER gq REQUIRE SSL PASSWORD EXPIRE",
    ),
    (
        "root",
        None,
        "SELECT Host, User, REGEXP_REPLACE(Priv, '\"(version_id|password_last_changed)\":[0-9]+', '') \
         FROM mysql.global_priv WHERE User LIKE 'ed%' OR User LIKE 'nat%' OR User LIKE 'g_' \
         ORDER BY User",
    ),
    ("nat", Some("pw"), "SELECT CURRENT_USER()"),
    ("nat2", Some("secret"), "SELECT CURRENT_USER()"),
    // SET PASSWORD keeps the account's plugin; IDENTIFIED BY makes it native.
    (
        "root",
        None,
        "SET PASSWORD FOR ed@'%' = PASSWORD('other'); SHOW CREATE USER ed@'%'",
    ),
    ("ed", Some("other"), "SELECT CURRENT_USER()"),
    (
        "root",
        None,
        "SET PASSWORD FOR ed@'%' = '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7'",
    ),
    (
        "root",
        None,
        "ALTER USER ed2 IDENTIFIED BY 'native'; SHOW CREATE USER ed2",
    ),
    ("ed2", Some("native"), "SELECT CURRENT_USER()"),
    (
        "root",
        None,
        "GRANT SELECT ON *.* TO ed5 IDENTIFIED VIA ed25519 USING PASSWORD('q')",
    ),
    (
        "root",
        None,
        "CREATE USER ed5 IDENTIFIED VIA ed25519 USING PASSWORD('q'); \
         GRANT SELECT ON mysql.* TO ed5 IDENTIFIED VIA ed25519 USING PASSWORD('q2'); SHOW GRANTS FOR ed5",
    ),
    ("ed5", Some("q2"), "SELECT COUNT(*) > 0 FROM mysql.user"),
    // PASSWORD().
    (
        "root",
        None,
        "SELECT PASSWORD('secret'), PASSWORD(''), PASSWORD(NULL), PASSWORD(1), PASSWORD(NULL) IS NULL",
    ),
    // Plugin statements.
    ("root", None, "INSTALL PLUGIN ed25519 SONAME 'auth_ed25519'"),
    ("root", None, "UNINSTALL PLUGIN nosuch"),
    ("root", None, "UNINSTALL PLUGIN mysql_native_password"),
    ("root", None, "UNINSTALL SONAME 'auth_nosuch'"),
    ("ed", Some("other"), "INSTALL SONAME 'auth_ed25519'"),
    (
        "root",
        None,
        "SELECT plugin_name, plugin_status, plugin_type FROM information_schema.plugins \
         WHERE plugin_name IN ('ed25519', 'mysql_native_password') ORDER BY 1",
    ),
    // PROXY grants.
    (
        "root",
        None,
        "CREATE USER pa@'%' IDENTIFIED BY 'pw'; CREATE USER pb@'localhost' IDENTIFIED BY 'pw'; \
         CREATE USER pc@'%' IDENTIFIED BY 'pw'",
    ),
    (
        "root",
        None,
        "GRANT PROXY ON pa@'%' TO pb@'localhost'; GRANT PROXY ON 'pa'@'%' TO pc@'%' WITH GRANT OPTION; \
         GRANT PROXY ON nobody@'n%' TO pc@'%'; GRANT PROXY ON zz@'hh%' TO pc@'%'",
    ),
    ("root", None, "GRANT PROXY ON pa TO ghost@'%'"),
    ("root", None, "GRANT SELECT, PROXY ON pa@'%' TO pc@'%'"),
    ("root", None, "GRANT PROXY ON *.* TO pc@'%'"),
    (
        "root",
        None,
        "SHOW GRANTS FOR pb@'localhost'; SHOW GRANTS FOR pc@'%'; SHOW GRANTS FOR root@localhost",
    ),
    (
        "root",
        None,
        "SELECT Host, User, Proxied_host, Proxied_user, With_grant, Grantor, Timestamp \
         FROM mysql.proxies_priv WHERE User <> 'root' ORDER BY User, Proxied_user",
    ),
    // Who may grant: the proxied account itself, or a holder WITH GRANT OPTION.
    ("pb", Some("pw"), "GRANT PROXY ON pa@'%' TO pb@'localhost'"),
    ("pc", Some("pw"), "GRANT PROXY ON pa@'%' TO pb@'localhost'"),
    ("pc", Some("pw"), "GRANT PROXY ON nobody@'n%' TO pb@'localhost'"),
    ("pa", Some("pw"), "GRANT PROXY ON pa@'%' TO pb@'localhost'"),
    ("pc", Some("pw"), "GRANT PROXY ON ''@'%' TO pb@'localhost'"),
    ("root", None, "REVOKE PROXY ON pa@'%' FROM pb@'localhost'"),
    ("root", None, "REVOKE PROXY ON pa@'%' FROM pb@'localhost'"),
    (
        "root",
        None,
        "REVOKE ALL PRIVILEGES, GRANT OPTION FROM pc@'%'; SHOW GRANTS FOR pc@'%'",
    ),
    (
        "root",
        None,
        "RENAME USER pc@'%' TO pd@'%'; SHOW GRANTS FOR pd@'%'; DROP USER pa@'%'; SHOW GRANTS FOR pd@'%'",
    ),
    (
        "root",
        None,
        "DROP USER pd@'%'; SELECT COUNT(*) FROM mysql.proxies_priv WHERE User <> 'root'",
    ),
    // CURRENT_USER names the session's own account.
    (
        "root",
        None,
        "CREATE USER cu@'%' IDENTIFIED BY 'pw'; GRANT CREATE USER ON *.* TO cu@'%'",
    ),
    (
        "cu",
        Some("pw"),
        "GRANT SELECT ON mysql.* TO CURRENT_USER(); SHOW GRANTS FOR CURRENT_USER",
    ),
    (
        "cu",
        Some("pw"),
        "SET PASSWORD FOR CURRENT_USER() = PASSWORD('pw'); \
         ALTER USER CURRENT_USER IDENTIFIED BY 'pw' WITH MAX_QUERIES_PER_HOUR 100; \
         SHOW CREATE USER CURRENT_USER",
    ),
    ("cu", Some("pw"), "CREATE USER CURRENT_USER()"),
    (
        "cu",
        Some("pw"),
        "REVOKE SELECT ON mysql.* FROM CURRENT_USER; SHOW GRANTS",
    ),
    ("cu", Some("pw"), "DROP USER CURRENT_USER()"),
    (
        "root",
        None,
        "SELECT COUNT(*) FROM mysql.user WHERE user = 'cu'",
    ),
];

fn run_all(peer: &Peer) -> Vec<String> {
    STEPS
        .iter()
        .map(|(who, password, sql)| {
            let out = if *who == "root" {
                run(peer, sql)
            } else {
                run_as(peer, who, *password, sql)
            };
            format!("{who} ({password:?}): {sql}\n  -> {}", out.trim())
        })
        .collect()
}

#[test]
fn auth_plugins_proxies_and_current_user_behave_as_in_mariadb() {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let ours = run_all(&Peer::Myriad(&server));
    let theirs = run_all(&Peer::Maria(&maria));
    assert_same_steps(&ours, &theirs);
    for expected in [
        "ed (Some(\"secret\")): SELECT CURRENT_USER()\n  -> ed@%",
        "ed (Some(\"wrong\")): SELECT CURRENT_USER()\n  -> ERROR 1045",
        "ed (Some(\"other\")): SELECT CURRENT_USER()\n  -> ed@%",
        "root (None): CREATE USER bad IDENTIFIED VIA pam\n  -> ERROR 1524",
        "pb (Some(\"pw\")): GRANT PROXY ON pa@'%' TO pb@'localhost'\n  -> ERROR 1698",
        "cu (Some(\"pw\")): CREATE USER CURRENT_USER()\n  -> ERROR 1396",
    ] {
        assert!(
            ours.iter().any(|line| line.starts_with(expected)),
            "{expected} in {ours:#?}"
        );
    }
}

/// PyMySQL signs in to an ed25519 account (with PyNaCl), on both servers.
#[test]
fn pymysql_signs_in_with_ed25519() {
    require_program("python3");
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let setup = "INSTALL SONAME 'auth_ed25519'; \
                 CREATE USER py@'%' IDENTIFIED VIA ed25519 USING PASSWORD('s3cret')";
    for peer in [Peer::Myriad(&server), Peer::Maria(&maria)] {
        assert_eq!(run(&peer, setup), "");
    }
    let script = r#"
import sys, pymysql
def attempt(kw, password):
    try:
        c = pymysql.connect(user='py', password=password, **kw)
        cur = c.cursor(); cur.execute('SELECT CURRENT_USER()')
        return cur.fetchone()[0]
    except pymysql.err.OperationalError as e:
        return 'error %d' % e.args[0]
for kw in ({'host': '127.0.0.1', 'port': int(sys.argv[1])}, {'unix_socket': sys.argv[2]}):
    print(attempt(kw, 's3cret'), attempt(kw, 'nope'))
"#;
    let out = run_with_timeout(
        Command::new("python3").args([
            "-c",
            script,
            &server.port.to_string(),
            &maria.socket().display().to_string(),
        ]),
        Duration::from_secs(60),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout, "py@% error 1045\npy@% error 1045\n");
}

/// ed25519 keys and PROXY grants survive a restart.
#[test]
fn ed25519_accounts_and_proxy_grants_survive_a_restart() {
    let server = Server::start(&[]);
    let setup = "CREATE USER ke IDENTIFIED VIA ed25519 USING PASSWORD('k'); \
                 CREATE USER kp; GRANT PROXY ON ke TO kp WITH GRANT OPTION";
    assert_eq!(run(&Peer::Myriad(&server), setup), "");
    let server = Server::start_in(server.into_dir(), &[]);
    let peer = Peer::Myriad(&server);
    assert_eq!(
        run_as(&peer, "ke", Some("k"), "SELECT CURRENT_USER()"),
        "ke@%\n"
    );
    assert_eq!(
        run(&peer, "SHOW GRANTS FOR kp"),
        "GRANT USAGE ON *.* TO `kp`@`%` WITH GRANT OPTION\n\
         GRANT PROXY ON `ke`@`%` TO `kp`@`%` WITH GRANT OPTION\n"
    );
}
