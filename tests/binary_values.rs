//! Binary strings keep every byte, and utf8mb4 columns refuse what is not UTF-8, through
//! the real server with real clients: mysql_async over the text protocol (raw bytes in
//! escaped literals, `x'..'`, `_binary'..'`) and the binary protocol (prepared-statement
//! parameters), and PyMySQL (tests/pymysql_binary.py, client-side `_binary'..'`).

mod common;

use common::Server;
use myriad_protocol::client::escaped_literal;
use mysql_async::prelude::*;
use mysql_async::Conn;
use std::time::Duration;

/// A server whose database `database` holds one table, made by `create_table`; a root
/// connection (over TCP) in that database.
async fn server_with_table(database: &str, create_table: &str) -> (Server, Conn) {
    let server = Server::start(&[]);
    let mut conn = Conn::new(common::async_opts(&server, None))
        .await
        .expect("connect");
    let create = format!("CREATE DATABASE {database}");
    let used = format!("USE {database}");
    common::exec_all(&mut conn, &[&create, &used, create_table]).await;
    (server, conn)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

const INVALID_UTF8: &[u8] = b"\xff\xfe\xc3\x28\xe2\x82\x00\x80end";

async fn read_back(conn: &mut Conn, id: i64) -> (Vec<u8>, Vec<u8>, Vec<u8>, String) {
    conn.exec_first("SELECT bl, vb, bi, HEX(bl) FROM t WHERE id = ?", (id,))
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("row {id} missing"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_byte_round_trips_over_text_and_binary_protocols() {
    let (_server, mut conn) = server_with_table(
        "bytes",
        "CREATE TABLE t (id INT PRIMARY KEY, bl BLOB, vb VARBINARY(300), bi BINARY(12))",
    )
    .await;
    let all: Vec<u8> = (0..=255u8).collect();
    let mut values: Vec<Vec<u8>> = vec![all.clone(), INVALID_UTF8.to_vec()];
    values.extend((0..=255u8).map(|b| vec![b]));

    // Text protocol: escaped raw bytes (plain and with _binary), and x'..' literals.
    let mut id = 0i64;
    for value in &values {
        let short = &value[..value.len().min(12)];
        for form in 0..3 {
            id += 1;
            let literal = |bytes: &[u8]| match form {
                0 => escaped_literal(bytes),
                1 => [b"_binary".as_slice(), &escaped_literal(bytes)].concat(),
                _ => format!("x'{}'", hex(bytes)).into_bytes(),
            };
            let mut sql = format!("INSERT INTO t VALUES ({id}, ").into_bytes();
            sql.extend(literal(value));
            sql.extend_from_slice(b", ");
            sql.extend(literal(value));
            sql.extend_from_slice(b", ");
            sql.extend(literal(short));
            sql.extend_from_slice(b")");
            conn.query_drop(sql.as_slice())
                .await
                .unwrap_or_else(|e| panic!("insert form {form} of {}: {e}", hex(value)));
            let mut padded = short.to_vec();
            padded.resize(12, 0);
            assert_eq!(
                read_back(&mut conn, id).await,
                (value.clone(), value.clone(), padded, hex(value)),
                "text protocol, literal form {form}"
            );
        }
    }

    // Binary protocol: the bytes as prepared-statement parameters.
    let insert = conn
        .prep("INSERT INTO t VALUES (?, ?, ?, ?)")
        .await
        .unwrap();
    for value in &values {
        id += 1;
        let short = value[..value.len().min(12)].to_vec();
        conn.exec_drop(&insert, (id, value.clone(), value.clone(), short.clone()))
            .await
            .unwrap();
        let mut padded = short;
        padded.resize(12, 0);
        assert_eq!(
            read_back(&mut conn, id).await,
            (value.clone(), value.clone(), padded, hex(value)),
            "binary protocol"
        );
    }

    // A text query's result, not only a stored value, keeps its bytes.
    let mut sql = b"SELECT ".to_vec();
    sql.extend(escaped_literal(&all));
    let echoed: Vec<u8> = conn.query_first(sql.as_slice()).await.unwrap().unwrap();
    assert_eq!(echoed, all);
    // Binary strings compare by their bytes: 0xFF is not 0xFE.
    let (same, lookup): (i64, i64) = conn
        .query_first(format!(
            "SELECT x'ff' = x'fe', (SELECT COUNT(*) FROM t WHERE vb = x'{}')",
            hex(INVALID_UTF8)
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((same, lookup), (0, 3 + 1), "byte comparison");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_into_a_text_column_is_error_1366() {
    let (_server, mut conn) = server_with_table(
        "texts",
        "CREATE TABLE s (id INT, c VARCHAR(20), x TEXT, h CHAR(5))",
    )
    .await;
    for column in ["c", "x", "h"] {
        let mut texts: Vec<Vec<u8>> = Vec::new();
        let mut raw = format!("INSERT INTO s (id, {column}) VALUES (1, ").into_bytes();
        raw.extend(escaped_literal(b"ab\xffcd"));
        raw.push(b')');
        texts.push(raw);
        texts.push(format!("INSERT INTO s (id, {column}) VALUES (1, x'6162FF6364')").into_bytes());
        for sql in texts {
            match conn.query_drop(sql.as_slice()).await {
                Err(mysql_async::Error::Server(e)) => {
                    assert_eq!(e.code, 1366, "{}", e.message);
                    assert_eq!(e.state, "22007");
                    assert_eq!(
                        e.message,
                        format!(
                            "Incorrect string value: '\\xFFcd' for column `texts`.`s`.`{column}` at row 1"
                        )
                    );
                }
                other => panic!("invalid UTF-8 into {column}: {other:?}"),
            }
        }
        let insert = conn
            .prep(format!("INSERT INTO s (id, {column}) VALUES (2, ?)"))
            .await
            .unwrap();
        let refused = conn.exec_drop(&insert, (b"ab\xffcd".to_vec(),)).await;
        assert!(
            matches!(refused, Err(mysql_async::Error::Server(ref e)) if e.code == 1366),
            "prepared parameter into {column}: {refused:?}"
        );
    }
    let count: i64 = common::first_row(&mut conn, "SELECT COUNT(*) FROM s").await;
    assert_eq!(count, 0, "nothing stored after 1366");
}

#[test]
fn pymysql_binary_script_passes() {
    let (success, stdout, stderr) =
        common::run_python("pymysql_binary.py", Duration::from_secs(120));
    assert!(
        success,
        "pymysql_binary.py failed\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stdout.contains("pymysql binary: all checks passed"),
        "{stdout}"
    );
}

/// A binary string (VARBINARY, or a text column cast with BINARY) and a `utf8mb4_bin`
/// column compare case by case, through prepared-statement parameters and literals, in
/// WHERE (indexed or not), GROUP BY and DISTINCT; a general_ci column ignores case. An API
/// token stored in a VARBINARY column is found only by its exact bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_and_bin_collations_compare_case_by_case() {
    let (_server, mut conn) = server_with_table(
        "tokens",
        "CREATE TABLE t (id INT PRIMARY KEY, vb VARBINARY(32), cb VARCHAR(32) COLLATE utf8mb4_bin, \
         ci VARCHAR(32), KEY (vb))",
    )
    .await;
    conn.query_drop("INSERT INTO t VALUES (1, 'AbC', 'AbC', 'AbC'), (2, 'abc', 'abc', 'abc')")
        .await
        .unwrap();
    for (column, want) in [("vb", vec![2i64]), ("cb", vec![2]), ("ci", vec![1, 2])] {
        let sql = format!("SELECT id FROM t WHERE {column} = ? ORDER BY id");
        let ids: Vec<i64> = conn.exec(&sql, ("abc",)).await.unwrap();
        assert_eq!(ids, want, "{sql} with a parameter");
        let literal = format!("SELECT id FROM t WHERE {column} = 'abc' ORDER BY id");
        let ids: Vec<i64> = conn.query(&literal).await.unwrap();
        assert_eq!(ids, want, "{literal}");
        // Two values that differ in case are two groups unless the collation folds case.
        let values = 3 - want.len();
        let groups: Vec<i64> = conn
            .query(format!("SELECT COUNT(*) FROM t GROUP BY {column}"))
            .await
            .unwrap();
        assert_eq!(groups.len(), values, "GROUP BY {column}");
        let distinct: Option<i64> = conn
            .query_first(format!("SELECT COUNT(DISTINCT {column}) FROM t"))
            .await
            .unwrap();
        assert_eq!(distinct, Some(values as i64), "COUNT(DISTINCT {column})");
    }
    let ids: Vec<i64> = conn
        .exec("SELECT id FROM t WHERE BINARY ci = ? ORDER BY id", ("abc",))
        .await
        .unwrap();
    assert_eq!(ids, vec![2], "BINARY ci = ?");
    // A binary string result is sent as one (character set 63), so clients keep bytes.
    let result = conn
        .query_iter("SELECT BINARY ci, ci FROM t WHERE id = 1")
        .await
        .unwrap();
    let charsets: Vec<u16> = result
        .columns_ref()
        .iter()
        .map(|c| c.character_set())
        .collect();
    drop(result);
    assert_eq!(charsets, vec![63, 45]);
}
