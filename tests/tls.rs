//! TLS with real clients: the `mariadb` CLI (with server certificate verification),
//! PyMySQL and MySQL's Connector/Python connect to a myriad started with `--ssl-cert/--ssl-key/--ssl-ca`; accounts'
//! `REQUIRE` clauses and `require_secure_transport` admit and refuse the same connections
//! as a MariaDB started with the same certificates, all made by the test (rcgen).

mod common;

use common::{require_program, run_with_timeout, Server};
use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The subject and issuer of the client certificate in OpenSSL's one-line form.
const CLIENT_SUBJECT: &str = "/C=FI/O=myriad tests/CN=client";
const CA_SUBJECT: &str = "/C=FI/O=myriad tests/CN=test CA";

/// PEM files of a CA, a server certificate for localhost and 127.0.0.1, and a client
/// certificate, in `dir`.
struct Certificates {
    ca: PathBuf,
    server_cert: PathBuf,
    server_key: PathBuf,
    client_cert: PathBuf,
    client_key: PathBuf,
    /// A second CA that signed nothing here: a client trusting only it must refuse the
    /// server.
    other_ca: PathBuf,
}

fn name(params: &mut CertificateParams, common_name: &str) {
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.distinguished_name.push(DnType::CountryName, "FI");
    params
        .distinguished_name
        .push(DnType::OrganizationName, "myriad tests");
    params
        .distinguished_name
        .push(DnType::CommonName, common_name);
}

fn make_certificates(dir: &Path) -> Certificates {
    let write = |file: &str, text: String| {
        let path = dir.join(file);
        std::fs::write(&path, text).unwrap();
        path
    };
    let ca = |common_name: &str| {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        name(&mut params, common_name);
        let cert = params.self_signed(&key).unwrap();
        (cert, key)
    };
    let (ca_cert, ca_key) = ca("test CA");
    let (other_ca, _) = ca("another CA");
    let issue = |names: Vec<String>, common_name: &str, usage: ExtendedKeyUsagePurpose| {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(names).unwrap();
        name(&mut params, common_name);
        params.extended_key_usages = vec![usage];
        let cert = params.signed_by(&key, &ca_cert, &ca_key).unwrap();
        (cert.pem(), key.serialize_pem())
    };
    let (server_cert, server_key) = issue(
        vec!["localhost".into(), "127.0.0.1".into()],
        "localhost",
        ExtendedKeyUsagePurpose::ServerAuth,
    );
    let (client_cert, client_key) =
        issue(Vec::new(), "client", ExtendedKeyUsagePurpose::ClientAuth);
    Certificates {
        ca: write("ca.pem", ca_cert.pem()),
        server_cert: write("server-cert.pem", server_cert),
        server_key: write("server-key.pem", server_key),
        client_cert: write("client-cert.pem", client_cert),
        client_key: write("client-key.pem", client_key),
        other_ca: write("other-ca.pem", other_ca.pem()),
    }
}

fn server_args(certs: &Certificates) -> Vec<String> {
    vec![
        format!("--ssl-cert={}", certs.server_cert.display()),
        format!("--ssl-key={}", certs.server_key.display()),
        format!("--ssl-ca={}", certs.ca.display()),
    ]
}

/// Run `sql` with the `mariadb` CLI over TCP to `port` as `user` with `args`: its standard
/// output, or the error line it printed.
fn mariadb(port: u16, user: &str, args: &[String], sql: &str) -> String {
    require_program("mariadb");
    let mut command = Command::new("mariadb");
    command
        .args(["-h127.0.0.1", &format!("-P{port}"), &format!("-u{user}")])
        .args(args)
        .args(["--batch", "--skip-column-names", "-e", sql]);
    let out = run_with_timeout(&mut command, Duration::from_secs(30));
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() {
        return stdout;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .find(|l| l.starts_with("ERROR"))
        .unwrap_or(&stderr)
        .to_string()
}

#[test]
fn mariadb_cli_verifies_the_server_and_reports_the_session_tls() {
    let dir = common::scratch_dir("tls-cli");
    let certs = make_certificates(dir.path());
    let args = server_args(&certs);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = Server::start(&args);
    let verify = vec![
        String::from("--ssl-verify-server-cert"),
        format!("--ssl-ca={}", certs.ca.display()),
    ];
    let sql = "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS \
               WHERE VARIABLE_NAME = 'SSL_VERSION'; SHOW STATUS LIKE 'Ssl_cipher'; \
               SELECT @@have_ssl, @@tls_version";
    let out = mariadb(server.port, "root", &verify, sql);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(matches!(lines[0], "TLSv1.2" | "TLSv1.3"), "{out}");
    let cipher = lines[1].strip_prefix("Ssl_cipher\t").unwrap_or_default();
    assert!(!cipher.is_empty(), "a cipher in use: {out}");
    assert_eq!(lines[2], "YES\tTLSv1.2,TLSv1.3");

    // Each version the client insists on.
    for version in ["TLSv1.2", "TLSv1.3"] {
        let mut pinned = verify.clone();
        pinned.push(format!("--tls-version={version}"));
        let out = mariadb(
            server.port,
            "root",
            &pinned,
            "SHOW STATUS LIKE 'Ssl_version'",
        );
        assert_eq!(out, format!("Ssl_version\t{version}"));
    }
    // A client that trusts another CA refuses the server (its own check, error 2026).
    let distrust = vec![
        String::from("--ssl-verify-server-cert"),
        format!("--ssl-ca={}", certs.other_ca.display()),
    ];
    let out = mariadb(server.port, "root", &distrust, "SELECT 1");
    assert!(out.starts_with("ERROR 2026"), "{out}");
    // Without TLS the session has none, and the server's counters saw the handshakes.
    let plain = mariadb(
        server.port,
        "root",
        &[String::from("--skip-ssl")],
        "SHOW STATUS LIKE 'Ssl_cipher'; SHOW GLOBAL STATUS LIKE 'Ssl_finished_accepts'",
    );
    let mut lines = plain.lines();
    assert_eq!(lines.next(), Some("Ssl_cipher\t"));
    let finished: u64 = lines
        .next()
        .and_then(|l| l.strip_prefix("Ssl_finished_accepts\t"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_default();
    assert!(finished >= 3, "{plain}");
}

/// How each client mode connects: without TLS, with TLS and no certificate, with the
/// client certificate.
fn client_modes(certs: &Certificates) -> Vec<(&'static str, Vec<String>)> {
    vec![
        ("plain", vec![String::from("--skip-ssl")]),
        ("tls", vec![String::from("--ssl")]),
        (
            "tls+cert",
            vec![
                format!("--ssl-cert={}", certs.client_cert.display()),
                format!("--ssl-key={}", certs.client_key.display()),
            ],
        ),
    ]
}

/// Accounts with each kind of REQUIRE clause.
const ACCOUNTS: &[(&str, &str)] = &[
    ("req_none", ""),
    ("req_ssl", "REQUIRE SSL"),
    ("req_x509", "REQUIRE X509"),
    ("req_subject", "REQUIRE SUBJECT '/C=FI/O=myriad tests/CN=client' AND ISSUER '/C=FI/O=myriad tests/CN=test CA'"),
    ("req_other_subject", "REQUIRE SUBJECT '/C=FI/O=myriad tests/CN=someone else'"),
    ("req_cipher", "REQUIRE CIPHER 'EDH-RSA-DES-CBC3-SHA'"),
    // OpenSSL's name of the suite a TLS 1.3 client negotiates first.
    ("req_cipher_in_use", "REQUIRE CIPHER 'TLS_AES_256_GCM_SHA384'"),
];

/// Per account and client mode, what happens when it connects; then the same with
/// require_secure_transport on, for root. `admin` runs a statement as root over a
/// secure transport.
fn outcomes(port: u16, certs: &Certificates, admin: &dyn Fn(&str) -> String) -> Vec<String> {
    for (user, require) in ACCOUNTS {
        let out = admin(&format!(
            "CREATE USER '{user}'@'%' IDENTIFIED BY 'pw' {require}"
        ));
        assert_eq!(out, "", "CREATE USER {user}");
    }
    let mut seen = Vec::new();
    for (user, _) in ACCOUNTS {
        for (mode, args) in client_modes(certs) {
            let mut args = args.clone();
            args.push(String::from("-ppw"));
            let out = mariadb(port, user, &args, "SELECT 'in'");
            seen.push(format!("{user} {mode}: {out}"));
        }
    }
    seen.push(format!(
        "SHOW GRANTS: {}",
        admin("SHOW GRANTS FOR 'req_subject'@'%'")
    ));
    assert_eq!(admin("SET GLOBAL require_secure_transport = ON"), "");
    for (mode, args) in client_modes(certs) {
        let out = mariadb(
            port,
            "req_none",
            &[args, vec!["-ppw".into()]].concat(),
            "SELECT 'in'",
        );
        seen.push(format!("require_secure_transport, req_none {mode}: {out}"));
    }
    assert_eq!(admin("SET GLOBAL require_secure_transport = OFF"), "");
    seen
}

#[test]
fn require_clauses_and_secure_transport_admit_what_mariadb_admits() {
    let dir = common::scratch_dir("tls-require");
    let certs = make_certificates(dir.path());
    let args = server_args(&certs);
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = Server::start(&arg_refs);
    let tls = [String::from("--ssl")];
    let myriad = outcomes(server.port, &certs, &|sql| {
        mariadb(server.port, "root", &tls, sql)
    });

    let settings: Vec<(String, String)> = vec![
        ("ssl_cert".into(), certs.server_cert.display().to_string()),
        ("ssl_key".into(), certs.server_key.display().to_string()),
        ("ssl_ca".into(), certs.ca.display().to_string()),
    ];
    let settings: Vec<(&str, &str)> = settings
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    require_program("mariadbd");
    let maria = myriad_testkit::Owned::mariadb(&settings)
        .unwrap_or_else(|e| panic!("MariaDB did not start: {e:#}"));
    let maria_port = maria.port();
    let mariadb_outcomes = outcomes(maria_port, &certs, &|sql| {
        mariadb(maria_port, "root", &tls, sql)
    });
    assert_eq!(myriad, mariadb_outcomes);
    // The cases this test exists for, spelled out.
    for expected in [
        "req_ssl plain: ERROR 1045",
        "req_ssl tls: in",
        "req_x509 tls: ERROR 1045",
        "req_x509 tls+cert: in",
        "req_subject tls+cert: in",
        "req_cipher_in_use tls: in",
        "req_other_subject tls+cert: ERROR 1045",
        "require_secure_transport, req_none plain: ERROR 1045",
        "require_secure_transport, req_none tls: in",
    ] {
        assert!(
            myriad.iter().any(|line| line.starts_with(expected)),
            "{expected} in {myriad:#?}"
        );
    }
    assert!(
        myriad
            .iter()
            .any(|l| l.contains(&format!("SUBJECT '{CLIENT_SUBJECT}'"))
                && l.contains(&format!("ISSUER '{CA_SUBJECT}'"))),
        "{myriad:#?}"
    );
}

#[test]
fn the_unix_socket_stays_open_under_require_secure_transport() {
    let dir = common::scratch_dir("tls-socket");
    let certs = make_certificates(dir.path());
    let socket = dir.path().join("myriad.sock");
    let mut args = server_args(&certs);
    args.push(format!("--socket={}", socket.display()));
    args.push(String::from("--require-secure-transport=ON"));
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = Server::start(&arg_refs);
    let out = mariadb(
        server.port,
        "root",
        &[String::from("--skip-ssl")],
        "SELECT 1",
    );
    assert!(out.starts_with("ERROR 1045"), "{out}");
    let mut command = Command::new("mariadb");
    command.args([
        &format!("-S{}", socket.display()),
        "-uroot",
        "--skip-ssl",
        "--batch",
        "--skip-column-names",
        "-e",
        "SELECT @@require_secure_transport",
    ]);
    let out = run_with_timeout(&mut command, Duration::from_secs(30));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
}

#[test]
fn python_clients_connect_with_tls_and_a_client_certificate() {
    require_program("python3");
    let dir = common::scratch_dir("tls-pymysql");
    let certs = make_certificates(dir.path());
    let args = server_args(&certs);
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = Server::start(&arg_refs);
    let out = mariadb(
        server.port,
        "root",
        &[String::from("--ssl")],
        "CREATE USER app IDENTIFIED BY 'pw' REQUIRE X509",
    );
    assert_eq!(out, "");
    let script = format!(
        r#"
import pymysql, ssl
ssl_args = {{"ca": {ca:?}, "cert": {cert:?}, "key": {key:?}, "check_hostname": True}}
conn = pymysql.connect(host="127.0.0.1", port={port}, user="app", password="pw", ssl=ssl_args)
cur = conn.cursor()
cur.execute("SHOW STATUS LIKE 'Ssl_version'")
version = cur.fetchone()[1]
cur.execute("SELECT REPEAT('x', 100000)")
assert len(cur.fetchone()[0]) == 100000
print("version", version)
try:
    pymysql.connect(host="127.0.0.1", port={port}, user="app", password="pw")
    print("plain: admitted")
except pymysql.err.OperationalError as e:
    print("plain:", e.args[0])
# MySQL's Connector/Python asks for TLS whenever the server offers it.
import mysql.connector
conn = mysql.connector.connect(host="127.0.0.1", port={port}, user="app", password="pw",
    ssl_ca={ca:?}, ssl_cert={cert:?}, ssl_key={key:?}, ssl_verify_cert=True)
cur = conn.cursor()
cur.execute("SELECT CURRENT_USER(), VARIABLE_VALUE <> '' FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'SSL_CIPHER'")
print("connector", cur.fetchall())
"#,
        ca = certs.ca.display().to_string(),
        cert = certs.client_cert.display().to_string(),
        key = certs.client_key.display().to_string(),
        port = server.port
    );
    let out = run_with_timeout(
        Command::new("python3").args(["-c", &script]),
        Duration::from_secs(60),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("No module named 'pymysql'"),
        "PyMySQL is not installed: `python3 -m pip install pymysql` (.ci/run does it)"
    );
    assert!(
        !stderr.contains("No module named 'mysql'"),
        "Connector/Python is not installed: `python3 -m pip install mysql-connector-python` \
         (.ci/run does it)"
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("version TLSv1.3") || stdout.contains("version TLSv1.2"),
        "{stdout}"
    );
    assert!(stdout.contains("plain: 1045"), "{stdout}");
    assert!(stdout.contains("connector [('app@%', 1)]"), "{stdout}");
}

#[test]
fn a_server_asked_for_tls_it_cannot_give_does_not_start() {
    let bin = env!("CARGO_BIN_EXE_myriad");
    let dir = common::scratch_dir("tls-refused");
    let missing = dir.path().join("missing.pem");
    for (args, says) in [
        (
            vec![
                format!("--ssl-cert={}", missing.display()),
                format!("--ssl-key={}", missing.display()),
            ],
            "ssl_cert",
        ),
        (
            vec![String::from("--ssl-cipher=AES128-SHA")],
            "--ssl-cipher is not supported",
        ),
    ] {
        let out = run_with_timeout(
            Command::new(bin)
                .arg(format!("--datadir={}", dir.path().join("data").display()))
                .arg("--port=0")
                .args(&args),
            Duration::from_secs(30),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} started");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
