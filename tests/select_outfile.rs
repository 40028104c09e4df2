//! SELECT ... INTO OUTFILE and INTO DUMPFILE on myriad and on MariaDB 10.11 in the same
//! test, through the real `mariadb` client: each server writes into a directory of its
//! own, every step's output must be the same on both (the directory named alike), and so
//! must every file they wrote, byte for byte, with its mode. Covered: the default format,
//! CSV options, enclosures with and without OPTIONALLY, NULLs, numbers, dates, strings
//! with separators, escapes and NULs, a BLOB of every byte value written and loaded back
//! with LOAD DATA, CHARACTER SET utf8mb4, DUMPFILE (one row, two, three), INTO before FROM
//! and after a UNION, the warnings (1287, 1475, 1638, 1366), sql_mode
//! NO_BACKSLASH_ESCAPES, relative names, the affected-row count, a prepared statement,
//! and the errors (1086, 1227, 1142, 1290, 1083, 1064).

mod common;

use common::mariadb::{assert_same_steps, run, run_steps, start_mariadb, Peer};
use common::Server;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Every byte value, in order, as the hex UNHEX takes.
fn all_bytes_hex() -> String {
    (0..=255u8).map(|b| format!("{b:02X}")).collect()
}

fn setup() -> String {
    format!(
        "SET NAMES utf8mb4; CREATE DATABASE so CHARACTER SET utf8mb4; \
         CREATE TABLE so.t (id INT PRIMARY KEY, s VARCHAR(60), n DECIMAL(6,2), d DATE, \
           dt DATETIME(3), f FLOAT, dbl DOUBLE, b BLOB); \
         CREATE TABLE so.copy (id INT PRIMARY KEY, s VARCHAR(60), n DECIMAL(6,2), d DATE, \
           dt DATETIME(3), f FLOAT, dbl DOUBLE, b BLOB); \
         INSERT INTO so.t VALUES \
           (1, 'tab\\there\\nnew\\\\back\"quote''s,comma', 1.50, '2024-01-02', \
             '2024-01-02 03:04:05.678', 1.25, 1e20, 'x'), \
           (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL), \
           (3, '', -2, '2000-02-29', '1999-12-31 23:59:59', -0.5, 3.141592653589793, ''), \
           (4, 'NULL', 0, '1970-01-01', '2038-01-19 03:14:07.1', 0, -1.5e-7, 'nul\\0byte'), \
           (5, 'é€ \\r\\n end', 9999.99, '9999-12-31', '9999-12-31 23:59:59.999', 3e38, 0, 'é'); \
         CREATE TABLE so.kinds (tm TIME(2), ts TIMESTAMP(1) NULL, u BIGINT UNSIGNED, \
           ti TINYINT, c CHAR(5), bn BINARY(3), js TEXT, dbl DOUBLE, f FLOAT); \
         INSERT INTO so.kinds VALUES ('-12:34:56.78', '2024-01-02 03:04:05.6', \
           18446744073709551615, -5, 'ab', 'a\\0', '{{\"k\": \"v\\\\n\"}}', 1.0, 3.14159); \
         CREATE TABLE so.bytes (id INT PRIMARY KEY, b BLOB); \
         INSERT INTO so.bytes VALUES (1, UNHEX('{hex}')), (2, NULL); \
         CREATE TABLE so.back (id INT PRIMARY KEY, b BLOB); \
         CREATE TABLE so.back_csv (id INT PRIMARY KEY, b BLOB); \
         CREATE TABLE so.many (id INT PRIMARY KEY, s VARCHAR(100)); \
         INSERT INTO so.many SELECT id, REPEAT(CONCAT(id, '\\t'), 20) FROM so.t; {double}\
         CREATE USER nofile IDENTIFIED BY 'pw'; GRANT SELECT ON so.* TO nofile; \
         CREATE USER fileonly IDENTIFIED BY 'pw'; GRANT FILE ON *.* TO fileonly",
        hex = all_bytes_hex(),
        double = (0..MANY_DOUBLINGS)
            .map(|k| format!(
                "INSERT INTO so.many SELECT id + {}, s FROM so.many; ",
                5 << k
            ))
            .collect::<String>()
    )
}

/// so.many holds so.t's 5 rows doubled this many times: a file of some hundred KiB.
const MANY_DOUBLINGS: u32 = 10;

const CSV: &str = "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '\\\\' \
                   LINES STARTING BY '> ' TERMINATED BY '\\r\\n'";

/// How many rows of so.copy equal so.t's.
const SAME_COPY: &str = "SELECT COUNT(*) FROM so.t JOIN so.copy c USING (id) WHERE so.t.s <=> c.s \
     AND so.t.n <=> c.n AND so.t.d <=> c.d AND so.t.dt <=> c.dt AND so.t.f <=> c.f \
     AND so.t.dbl <=> c.dbl AND so.t.b <=> c.b";

fn steps(dir: &str) -> Vec<(&'static str, String)> {
    let f = |name: &str| format!("{dir}/{name}");
    let mut steps = vec![
        ("root", format!("SELECT * FROM so.t ORDER BY id INTO OUTFILE '{}'; SHOW WARNINGS", f("defaults.txt"))),
        ("root", format!("SELECT id, s INTO OUTFILE '{}' FROM so.t WHERE id < 3 ORDER BY id; SELECT ROW_COUNT()", f("early.txt"))),
        ("root", format!("SELECT * INTO OUTFILE '{}' {CSV} FROM so.t ORDER BY id; SELECT ROW_COUNT()", f("rows.csv"))),
        ("root", format!("LOAD DATA INFILE '{}' INTO TABLE so.copy CHARACTER SET utf8mb4 {CSV}; \
             SELECT id, HEX(s), n, d, dt, f, dbl, HEX(b) FROM so.copy ORDER BY id", f("rows.csv"))),
        ("root", SAME_COPY.to_string()),
        ("root", format!("SELECT * INTO OUTFILE '{}' FIELDS ENCLOSED BY '\"' ESCAPED BY '' FROM so.t ORDER BY id", f("enclosed.txt"))),
        ("root", format!("SELECT id, s, n INTO OUTFILE '{}' COLUMNS TERMINATED BY '|' ENCLOSED BY '''' ESCAPED BY '!' LINES TERMINATED BY '' FROM so.t ORDER BY id", f("options.txt"))),
        ("root", format!("SELECT * INTO OUTFILE '{}' {CSV} FROM so.kinds", f("kinds.csv"))),
        ("root", format!("SELECT * INTO DUMPFILE '{}' FROM so.kinds", f("kinds.bin"))),
        (
            "root",
            format!(
                "SELECT 1.0, 1e0, 10/3, CAST(1 AS DECIMAL(5,3)), SUM(u), AVG(ti), COUNT(*), NULL, \
                 CAST('2024-01-01' AS DATE), DATE'2024-01-01' + INTERVAL 1 DAY, HEX(bn) \
                 INTO OUTFILE '{}' {CSV} FROM so.kinds",
                f("expressions.csv")
            ),
        ),
        ("root", format!("SELECT id, b INTO OUTFILE '{}' CHARACTER SET utf8mb4 FROM so.bytes ORDER BY id; SHOW WARNINGS", f("utf8mb4.txt"))),
        ("root", format!("SELECT s, b INTO OUTFILE '{}' CHARSET utf8mb4 FROM so.t ORDER BY id; SHOW WARNINGS", f("utf8mb4_text.txt"))),
        ("root", format!("SELECT id, b INTO OUTFILE '{}' CHARACTER SET binary FROM so.bytes ORDER BY id", f("bytes.txt"))),
        ("root", format!("LOAD DATA INFILE '{}' INTO TABLE so.back CHARACTER SET binary; SELECT id, HEX(b) FROM so.back ORDER BY id", f("bytes.txt"))),
        ("root", format!("SELECT id, b INTO OUTFILE '{}' {CSV} FROM so.bytes ORDER BY id", f("bytes.csv"))),
        ("root", format!("LOAD DATA INFILE '{}' INTO TABLE so.back_csv CHARACTER SET binary {CSV}; SELECT COUNT(*) FROM so.back_csv JOIN so.bytes USING (id) WHERE so.back_csv.b <=> so.bytes.b", f("bytes.csv"))),
        ("root", format!("SELECT b INTO DUMPFILE '{}' FROM so.bytes WHERE id = 1; SELECT ROW_COUNT()", f("bytes.bin"))),
        ("root", format!("SELECT id, s, NULL, n INTO DUMPFILE '{}' FROM so.t WHERE id = 1", f("columns.bin"))),
        ("root", format!("SELECT id INTO DUMPFILE '{}' FROM so.t WHERE id < 3 ORDER BY id; SELECT ROW_COUNT()", f("two.bin"))),
        ("root", format!("SELECT id INTO DUMPFILE '{}' FROM so.t ORDER BY id", f("three.bin"))),
        ("root", format!("SELECT id FROM so.t WHERE id > 100 INTO OUTFILE '{}'; SELECT ROW_COUNT()", f("empty.txt"))),
        ("root", format!("SELECT 1 UNION SELECT 2 ORDER BY 1 DESC INTO OUTFILE '{}'; SHOW WARNINGS", f("union.txt"))),
        ("root", format!("SELECT 'atb', 'xnx', 1 INTO OUTFILE '{}' FIELDS TERMINATED BY 't' LINES TERMINATED BY 'n'; SHOW WARNINGS", f("ambiguous.txt"))),
        ("root", format!("SELECT s, n INTO OUTFILE '{}' FIELDS TERMINATED BY '§' FROM so.t ORDER BY id; SHOW WARNINGS", f("non_ascii.txt"))),
        ("root", format!("SELECT 'a.b', 1.5, -2e3 INTO OUTFILE '{}' FIELDS TERMINATED BY '.'; SHOW WARNINGS", f("numeric_separator.txt"))),
        ("root", format!("SET sql_mode = 'NO_BACKSLASH_ESCAPES'; SELECT s, b INTO OUTFILE '{}' FROM so.t ORDER BY id", f("no_backslash.txt"))),
        ("root", format!("SELECT * INTO OUTFILE '{}' FROM so.many ORDER BY id; SELECT ROW_COUNT()", f("many.txt"))),
        (
            "root",
            format!(
                "PREPARE p FROM 'SELECT id, s INTO OUTFILE ''{}'' FROM so.t WHERE id = ?'; \
                 SET @i = 1; EXECUTE p USING @i; SELECT ROW_COUNT(); EXECUTE p USING @i",
                f("prepared.txt")
            ),
        ),
        // Errors: the file exists (a directory too), FILE missing, a table not granted,
        // a directory that is not there, a separator too long (the file stays), the
        // grammar's places for INTO.
        ("root", format!("SELECT 1 INTO OUTFILE '{}'", f("defaults.txt"))),
        ("root", format!("SELECT 1 INTO DUMPFILE '{dir}'")),
        ("nofile", format!("SELECT * FROM so.t INTO OUTFILE '{}'", f("denied.txt"))),
        ("nofile", format!("SELECT * FROM so.nosuch INTO OUTFILE '{}'", f("denied.txt"))),
        ("nofile", format!("SELECT 1 INTO DUMPFILE '{}'", f("denied.txt"))),
        ("fileonly", format!("SELECT * FROM so.t INTO OUTFILE '{}'", f("denied.txt"))),
        ("fileonly", format!("SELECT 'mine' INTO OUTFILE '{}'", f("fileonly.txt"))),
        ("root", format!("SELECT 1 INTO OUTFILE '{}'", f("missing/x.txt"))),
        ("root", format!("SELECT 1 INTO OUTFILE '{}' FIELDS ENCLOSED BY 'ab'", f("wide.txt"))),
        ("root", format!("SELECT 1 INTO OUTFILE '{}' UNION SELECT 2", f("grammar.txt"))),
        ("root", format!("SELECT 1 FROM so.t INTO OUTFILE '{}' ORDER BY 1", f("grammar.txt"))),
        ("root", format!("SELECT 1 INTO OUTFILE '{}' LINES TERMINATED BY 'x' FIELDS TERMINATED BY ','", f("grammar.txt"))),
        ("root", format!("SELECT 1 INTO DUMPFILE '{}' FIELDS TERMINATED BY ','", f("grammar.txt"))),
        ("root", format!("SELECT 1 INTO OUTFILE '{}' INTO @x", f("grammar.txt"))),
    ];
    // Relative names: a bare one in the default database's directory, else the datadir.
    steps.push((
        "root",
        "USE so; SELECT 'in so' INTO OUTFILE 'relative.txt'".into(),
    ));
    steps.push((
        "root",
        "SELECT 'in datadir' INTO OUTFILE 'relative.txt'".into(),
    ));
    steps.push(("root", "SELECT 'again' INTO OUTFILE 'relative.txt'".into()));
    steps
}

/// The step outputs on `peer`, its directory named `DIR`.
fn on(peer: &Peer, dir: &Path) -> Vec<String> {
    let setup = run(peer, &setup());
    assert!(setup.trim().is_empty(), "setup: {setup}");
    let shown = dir.display().to_string();
    let owned = steps(&shown);
    let steps: Vec<(&str, &str)> = owned.iter().map(|(w, s)| (*w, s.as_str())).collect();
    run_steps(peer, &steps)
        .into_iter()
        .map(|out| out.replace(&shown, "DIR"))
        .collect()
}

/// Each file of `dir` with its mode and bytes.
fn files(dir: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    std::fs::read_dir(dir)
        .expect("the files' directory")
        .map(|entry| {
            let path = entry.expect("a directory entry").path();
            let mode = std::fs::metadata(&path)
                .expect("metadata")
                .permissions()
                .mode()
                & 0o7777;
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, (mode, std::fs::read(&path).expect("read a file")))
        })
        .collect()
}

/// The test's directories, removed at the end.
struct Dirs(PathBuf);

impl Dirs {
    fn new(label: &str) -> Dirs {
        let root = std::env::temp_dir().join(format!("{label}-{}", std::process::id()));
        for server in ["myriad", "mariadb"] {
            std::fs::create_dir_all(root.join(server)).expect("a directory for the files");
        }
        Dirs(root)
    }

    fn of(&self, server: &str) -> PathBuf {
        self.0.join(server)
    }
}

impl Drop for Dirs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn select_into_outfile_writes_what_mariadb_writes() {
    let dirs = Dirs::new("select-outfile");
    let server = Server::start(&[]);
    let maria = start_mariadb();
    let ours = on(&Peer::Myriad(&server), &dirs.of("myriad"));
    let theirs = on(&Peer::Maria(&maria), &dirs.of("mariadb"));
    assert_same_steps(&ours, &theirs);
    let copied = ours
        .iter()
        .find(|o| o.contains(SAME_COPY))
        .expect("the copy's step");
    assert!(copied.ends_with("-> 5"), "{copied}");
    let blob = ours
        .iter()
        .find(|o| o.contains("so.back_csv JOIN"))
        .expect("the blob's step");
    assert!(blob.ends_with("-> 2"), "{blob}");

    let (ours, theirs) = (files(&dirs.of("myriad")), files(&dirs.of("mariadb")));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>()
    );
    for (name, (mode, bytes)) in &ours {
        let (their_mode, their_bytes) = &theirs[name];
        assert_eq!(
            (mode, String::from_utf8_lossy(bytes)),
            (their_mode, String::from_utf8_lossy(their_bytes)),
            "{name}"
        );
        assert_eq!(bytes, their_bytes, "{name}");
        assert_eq!(*mode, 0o644, "{name}");
    }
    let all: Vec<u8> = (0..=255).collect();
    assert_eq!(ours["bytes.bin"].1, all);
    assert_eq!(ours["two.bin"].1, b"12");
    assert_eq!(ours["three.bin"].1, b"12");
    assert!(ours["wide.txt"].1.is_empty());
    let lines = ours["many.txt"].1.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(lines, 5 << MANY_DOUBLINGS);

    // Relative names: in the default database's directory, else in the datadir.
    for (datadir, who) in [
        (server.datadir.clone(), "myriad"),
        (maria.dir.data(), "mariadb"),
    ] {
        let read =
            |path: PathBuf| std::fs::read(&path).unwrap_or_else(|e| panic!("{who}: {path:?}: {e}"));
        assert_eq!(
            read(datadir.join("so").join("relative.txt")),
            b"in so\n",
            "{who}"
        );
        assert_eq!(read(datadir.join("relative.txt")), b"in datadir\n", "{who}");
    }
}

/// With `--secure-file-priv=DIR` the server writes files under DIR only (1290 otherwise,
/// `..` and relative names included), as MariaDB does; LOAD DATA reads them back.
#[test]
fn secure_file_priv_limits_the_files_written() {
    let dirs = Dirs::new("select-outfile-priv");
    for server in ["myriad", "mariadb"] {
        std::fs::create_dir_all(dirs.of(server).join("inside")).expect("a directory");
    }
    let inside = |server: &str| dirs.of(server).join("inside").display().to_string();
    let server = Server::start(&[format!("--secure-file-priv={}", inside("myriad")).as_str()]);
    let maria = myriad_testkit::Owned::mariadb(&[("secure_file_priv", inside("mariadb").as_str())])
        .expect("MariaDB starts");
    let steps = |server: &str| -> Vec<(&'static str, String)> {
        let (dir, inside) = (dirs.of(server).display().to_string(), inside(server));
        vec![
            ("root", "CREATE DATABASE sp; CREATE TABLE sp.t (a INT, b VARCHAR(5)); INSERT INTO sp.t VALUES (1, 'x'), (2, NULL)".into()),
            ("root", format!("SELECT * FROM sp.t INTO OUTFILE '{inside}/rows.txt'; SELECT ROW_COUNT()")),
            ("root", format!("SELECT * FROM sp.t INTO DUMPFILE '{inside}/one.bin' ")),
            ("root", format!("SELECT * FROM sp.t INTO OUTFILE '{dir}/outside.txt'")),
            ("root", format!("SELECT * FROM sp.t INTO OUTFILE '{inside}/../outside.txt'")),
            ("root", "USE sp; SELECT * FROM t INTO OUTFILE 'relative.txt'".into()),
            ("root", format!("LOAD DATA INFILE '{inside}/rows.txt' INTO TABLE sp.t; SELECT * FROM sp.t ORDER BY a")),
        ]
    };
    let outputs = |peer: &Peer, server: &str| -> Vec<String> {
        let owned = steps(server);
        let steps: Vec<(&str, &str)> = owned.iter().map(|(w, s)| (*w, s.as_str())).collect();
        let shown = dirs.of(server).display().to_string();
        run_steps(peer, &steps)
            .into_iter()
            .map(|out| out.replace(&shown, "DIR"))
            .collect()
    };
    let ours = outputs(&Peer::Myriad(&server), "myriad");
    let theirs = outputs(&Peer::Maria(&maria), "mariadb");
    assert_same_steps(&ours, &theirs);
    assert!(ours[3].contains("ERROR 1290"), "{}", ours[3]);
    assert!(ours[4].contains("ERROR 1290"), "{}", ours[4]);
    assert!(ours[5].contains("ERROR 1290"), "{}", ours[5]);
    for who in ["myriad", "mariadb"] {
        let written = files(&dirs.of(who).join("inside"));
        assert_eq!(written["rows.txt"].1, b"1\tx\n2\t\\N\n", "{who}");
        assert!(!dirs.of(who).join("outside.txt").exists(), "{who}");
    }
}
