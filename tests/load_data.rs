//! LOAD DATA [LOCAL] INFILE and mariadb-import on myriad and on MariaDB 10.11 in the same
//! test, through the real `mariadb` client: field and line formats, NULLs, enclosures,
//! IGNORE n LINES, column lists, duplicate keys (error, IGNORE, REPLACE, LOCAL's skip),
//! strict mode against LOCAL's warnings, too few and too many fields, rollback, and the
//! errors (FILE privilege, a missing file, bad separators, unknown columns). Every step's
//! output must be the same on both servers.

mod common;

use common::mariadb::{assert_same_steps, run, run_as, run_steps, start_mariadb, Peer};
use common::{require_program, run_with_timeout, Server};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const SETUP: &str = "CREATE DATABASE ld; \
     CREATE TABLE ld.t (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(6,2), d DATE); \
     CREATE TABLE ld.n (a INT NOT NULL, b VARCHAR(5)); \
     CREATE TABLE ld.imported (id INT, word VARCHAR(10)); \
     CREATE USER nofile IDENTIFIED BY 'pw'; GRANT SELECT, INSERT ON ld.* TO nofile";

/// The files, written into the test's directory: (name, bytes).
const FILES: &[(&str, &[u8])] = &[
    (
        "rows.tsv",
        b"1\tapple\t1.50\t2024-01-02\n2\tpear\t\\N\t2024-02-30\n3\tfig\n4\tkiwi\t2\t2024-03-04\textra\n",
    ),
    (
        "rows.csv",
        b"id,name\n10,\"a, b\"\n11,\"say \"\"hi\"\"\"\n12,NULL\n13,\"NULL\"\n",
    ),
    ("rows.crlf", b"20;x\\;y\r\n21;\\N\r\n22;last"),
    ("dups.tsv", b"1\tdup\n5\tnew\n"),
    ("bad.tsv", b"x\ty\n7\tlonger than five\n"),
    ("imported", b"1\tone\n2\ttwo\n"),
];

fn steps(dir: &Path) -> Vec<(&'static str, String)> {
    let f = |name: &str| dir.join(name).display().to_string();
    let (tsv, csv, crlf, dups, bad) = (
        f("rows.tsv"),
        f("rows.csv"),
        f("rows.crlf"),
        f("dups.tsv"),
        f("bad.tsv"),
    );
    vec![
        ("root", format!("LOAD DATA LOCAL INFILE '{tsv}' INTO TABLE ld.t; SHOW WARNINGS; SELECT * FROM ld.t ORDER BY id")),
        ("root", format!("LOAD DATA INFILE '{tsv}' INTO TABLE ld.t")),
        ("root", format!("LOAD DATA INFILE '{tsv}' IGNORE INTO TABLE ld.t; SHOW WARNINGS; SELECT COUNT(*) FROM ld.t")),
        ("root", format!("LOAD DATA LOCAL INFILE '{dups}' INTO TABLE ld.t (id, name); SHOW WARNINGS; SELECT COUNT(*) FROM ld.t")),
        ("root", format!("LOAD DATA LOCAL INFILE '{dups}' REPLACE INTO TABLE ld.t (id, name); SELECT id, name FROM ld.t WHERE id IN (1, 5)")),
        (
            "root",
            format!(
                "LOAD DATA LOCAL INFILE '{csv}' INTO TABLE ld.t FIELDS TERMINATED BY ',' \
                 OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\n' IGNORE 1 LINES (id, name); \
                 SELECT id, name, name IS NULL FROM ld.t WHERE id >= 10 ORDER BY id"
            ),
        ),
        (
            "root",
            format!(
                "LOAD DATA LOCAL INFILE '{crlf}' INTO TABLE ld.t COLUMNS TERMINATED BY ';' \
                 LINES TERMINATED BY '\\r\\n' (id, name); \
                 SELECT id, name, name IS NULL FROM ld.t WHERE id >= 20 ORDER BY id"
            ),
        ),
        ("root", format!("LOAD DATA INFILE '{bad}' INTO TABLE ld.n")),
        ("root", format!("LOAD DATA INFILE '{bad}' IGNORE INTO TABLE ld.n; SHOW WARNINGS; SELECT * FROM ld.n")),
        ("root", format!("LOAD DATA LOCAL INFILE '{bad}' INTO TABLE ld.n; SHOW WARNINGS; SELECT COUNT(*) FROM ld.n")),
        (
            "root",
            format!(
                "SET autocommit = 0; LOAD DATA LOCAL INFILE '{dups}' REPLACE INTO TABLE ld.t \
                 (id, name); ROLLBACK; SELECT id, name FROM ld.t WHERE id IN (1, 5)"
            ),
        ),
        ("root", format!("LOAD DATA LOCAL INFILE '{tsv}' INTO TABLE ld.t FIELDS TERMINATED BY ',' ENCLOSED BY 'ab'")),
        ("root", format!("LOAD DATA LOCAL INFILE '{tsv}' INTO TABLE ld.t (id, nosuch)")),
        ("root", format!("LOAD DATA LOCAL INFILE '{tsv}' INTO TABLE ld.nosuch")),
        ("root", format!("LOAD DATA INFILE '{}' INTO TABLE ld.t", f("missing.tsv"))),
        ("nofile", format!("LOAD DATA INFILE '{tsv}' INTO TABLE ld.t")),
        ("nofile", format!("LOAD DATA LOCAL INFILE '{dups}' IGNORE INTO TABLE ld.t (id, name); SELECT COUNT(*) FROM ld.t")),
    ]
}

fn on(peer: &Peer, dir: &Path) -> (Vec<String>, String) {
    let setup = run(peer, SETUP);
    assert!(setup.trim().is_empty(), "setup: {setup}");
    let owned = steps(dir);
    let steps: Vec<(&str, &str)> = owned.iter().map(|(w, s)| (*w, s.as_str())).collect();
    let outputs = run_steps(peer, &steps);
    // mariadb-import: the file's name names the table.
    require_program("mariadb-import");
    let mut import = Command::new("mariadb-import");
    match peer {
        Peer::Myriad(server) => import.args(["-h127.0.0.1", &format!("-P{}", server.port)]),
        Peer::Maria(maria) => import.arg(format!("-S{}", maria.socket().display())),
    };
    import
        .args(["-uroot", "--local", "ld"])
        .arg(dir.join("imported"));
    let out = run_with_timeout(&mut import, Duration::from_secs(60));
    assert!(
        out.status.success(),
        "mariadb-import: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let imported = run(peer, "SELECT * FROM ld.imported ORDER BY id");
    (outputs, imported)
}

/// The test's directory of files, removed at the end.
struct Files(std::path::PathBuf);

impl Files {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn load_data_answers_as_mariadb() {
    let dir = Files(std::env::temp_dir().join(format!("load-data-{}", std::process::id())));
    std::fs::create_dir_all(dir.path()).expect("a directory for the files");
    for (name, bytes) in FILES {
        std::fs::write(dir.path().join(name), bytes).expect("write a file");
    }
    let server = Server::start(&[]);
    let maria = start_mariadb();
    let (ours, ours_imported) = on(&Peer::Myriad(&server), dir.path());
    let (theirs, theirs_imported) = on(&Peer::Maria(&maria), dir.path());
    assert_same_steps(&ours, &theirs);
    assert_eq!(ours_imported, theirs_imported);
    assert_eq!(ours_imported.trim(), "1\tone\n2\ttwo");

    // A client that does not allow LOCAL INFILE, and what is not built yet.
    let tsv = dir.path().join("rows.tsv");
    let mut refused = server.client("mariadb");
    refused.args(["--local-infile=0", "-e"]).arg(format!(
        "LOAD DATA LOCAL INFILE '{}' INTO TABLE ld.t",
        tsv.display()
    ));
    let out = run_with_timeout(&mut refused, Duration::from_secs(30));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("ERROR 4166"),
        "{out:?}"
    );
    let set = run_as(
        &Peer::Myriad(&server),
        "root",
        None,
        &format!(
            "LOAD DATA LOCAL INFILE '{}' INTO TABLE ld.t (id, @n) SET name = @n",
            tsv.display()
        ),
    );
    assert!(set.contains("ERROR 1235"), "{set}");
}

/// With `--secure-file-priv=DIR` the server reads files under DIR only (1290 otherwise,
/// `..` included); LOCAL loads are the client's files and are not limited.
#[test]
fn secure_file_priv_limits_the_server_s_files() {
    let dir = Files(std::env::temp_dir().join(format!("load-priv-{}", std::process::id())));
    let inside = dir.path().join("inside");
    std::fs::create_dir_all(&inside).expect("a directory for the files");
    std::fs::write(inside.join("rows.tsv"), b"1\ta\n2\tb\n").expect("write a file");
    std::fs::write(dir.path().join("outside.tsv"), b"3\tc\n").expect("write a file");
    let option = format!("--secure-file-priv={}", inside.display());
    let server = Server::start(&[option.as_str()]);
    let peer = Peer::Myriad(&server);
    let setup = run(
        &peer,
        "CREATE DATABASE ld; CREATE TABLE ld.t (id INT, name VARCHAR(5))",
    );
    assert!(setup.trim().is_empty(), "{setup}");
    let load = |path: &Path, local: &str| {
        run(
            &peer,
            &format!(
                "LOAD DATA {local} INFILE '{}' INTO TABLE ld.t",
                path.display()
            ),
        )
    };
    assert!(load(&inside.join("rows.tsv"), "").trim().is_empty());
    assert!(load(&dir.path().join("outside.tsv"), "").contains("ERROR 1290"));
    assert!(load(&inside.join("../outside.tsv"), "").contains("ERROR 1290"));
    assert!(load(&dir.path().join("outside.tsv"), "LOCAL")
        .trim()
        .is_empty());
    assert_eq!(
        run(&peer, "SELECT @@secure_file_priv, COUNT(*) FROM ld.t").trim(),
        format!("{}\t3", inside.display())
    );
}
