//! A real MariaDB server for differential tests: started through `myriad-testkit` (its own
//! temporary datadir, port and socket), queried through PyMySQL (raw text values, no
//! conversion), stopped when dropped. Reusable by any test that compares myriad's answers with MariaDB's.
//!
//! Needs Debian's mariadb-server (mariadbd, mariadb-install-db) and python3 with pymysql;
//! `.ci/run` installs both. Outcomes are rendered the way [`Outcome`] describes, so the
//! same renderer can be applied to myriad's results.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use myriad_testkit::Owned;

/// What one statement returned, in a form both servers' results map to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Column names, MySQL type codes, rows of text values (None = NULL).
    Rows {
        names: Vec<String>,
        types: Vec<u8>,
        rows: Vec<Vec<Option<String>>>,
    },
    Ok {
        affected: u64,
    },
    Error {
        code: u16,
    },
}

pub struct MariaDb {
    client: Child,
    client_in: ChildStdin,
    client_out: BufReader<ChildStdout>,
    // Declared after the client: the client goes first, then the server and its datadir.
    server: Owned,
}

/// The PyMySQL side: one JSON request per line in, one JSON answer per line out.
const CLIENT_PY: &str = r#"
import json, sys, pymysql
conn = pymysql.connect(unix_socket=sys.argv[1], user='root', conv={}, autocommit=True,
                       client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
cur = conn.cursor()
for line in sys.stdin:
    sql = json.loads(line)
    try:
        affected = cur.execute(sql)
        if cur.description is None:
            out = {"ok": affected}
        else:
            rows = [[None if v is None else (v.decode('utf-8', 'replace') if isinstance(v, (bytes, bytearray)) else str(v)) for v in r] for r in cur.fetchall()]
            out = {"names": [d[0] for d in cur.description], "types": [d[1] for d in cur.description], "rows": rows}
    except pymysql.err.MySQLError as e:
        out = {"error": e.args[0] if e.args and isinstance(e.args[0], int) else 0}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"#;

impl MariaDb {
    /// [`MariaDb::start`] for a test that compares with MariaDB: a server that cannot start
    /// fails the test, unless MYRIAD_SKIP_MARIADB is set, which gives None (the comparison
    /// is skipped, with the reason on stderr).
    pub fn start_or_skip() -> Option<MariaDb> {
        match MariaDb::start() {
            Ok(m) => Some(m),
            Err(why) if std::env::var_os("MYRIAD_SKIP_MARIADB").is_some() => {
                eprintln!("skipping the MariaDB comparison: {why}");
                None
            }
            Err(why) => {
                panic!("MariaDB is needed for this test (set MYRIAD_SKIP_MARIADB=1 to skip): {why}")
            }
        }
    }

    /// Start a fresh server (the testkit retries a start that fails once). Err says what
    /// is missing or what failed.
    pub fn start() -> Result<MariaDb, String> {
        let server = Owned::mariadb(&[
            ("skip_grant_tables", ""),
            ("innodb_buffer_pool_size", "16M"),
            // myriad stores text as utf8mb4 with utf8mb4_general_ci; compare like with like.
            ("character_set_server", "utf8mb4"),
            ("collation_server", "utf8mb4_general_ci"),
        ])
        .map_err(|e| format!("{e:#}"))?;
        let script = server.dir.path().join("client.py");
        std::fs::write(&script, CLIENT_PY).map_err(|e| e.to_string())?;
        let mut client = Command::new("python3")
            .arg(&script)
            .arg(server.socket())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("python3: {e}"))?;
        let client_in = client.stdin.take().ok_or("no stdin")?;
        let client_out = BufReader::new(client.stdout.take().ok_or("no stdout")?);
        Ok(MariaDb {
            client,
            client_in,
            client_out,
            server,
        })
    }

    /// Run one statement on MariaDB.
    pub fn run(&mut self, sql: &str) -> Outcome {
        let request = json_string(sql);
        writeln!(self.client_in, "{request}").expect("client stdin");
        let mut line = String::new();
        self.client_out.read_line(&mut line).expect("client stdout");
        parse_answer(&line).unwrap_or_else(|| panic!("unreadable answer for {sql}: {line}"))
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        let _ = self.client.kill();
        let _ = self.client.wait();
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A minimal JSON reader for the client's answers (objects, arrays, strings, ints, null).
#[derive(Debug, Clone)]
enum Json {
    Null,
    Num(i64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

/// Moves `i` past white space; None at the end of the text.
fn skip_whitespace(s: &[char], i: &mut usize) -> Option<()> {
    while s.get(*i)?.is_whitespace() {
        *i += 1;
    }
    Some(())
}

/// The comma-separated items, each read by `item`, of the list that opens at `i` and ends
/// with `close`.
fn parse_items<T>(
    s: &[char],
    i: &mut usize,
    close: char,
    mut item: impl FnMut(&[char], &mut usize) -> Option<T>,
) -> Option<Vec<T>> {
    *i += 1;
    let mut items = Vec::new();
    loop {
        skip_whitespace(s, i)?;
        if s[*i] == close {
            *i += 1;
            return Some(items);
        }
        items.push(item(s, i)?);
        skip_whitespace(s, i)?;
        if s[*i] == ',' {
            *i += 1;
        }
    }
}

fn parse_json(s: &[char], i: &mut usize) -> Option<Json> {
    while *i < s.len() && s[*i].is_whitespace() {
        *i += 1;
    }
    match *s.get(*i)? {
        'n' => {
            *i += 4;
            Some(Json::Null)
        }
        '"' => {
            *i += 1;
            let mut out = String::new();
            loop {
                let c = *s.get(*i)?;
                *i += 1;
                match c {
                    '"' => return Some(Json::Str(out)),
                    '\\' => {
                        let e = *s.get(*i)?;
                        *i += 1;
                        match e {
                            'n' => out.push('\n'),
                            't' => out.push('\t'),
                            'r' => out.push('\r'),
                            'b' => out.push('\u{8}'),
                            'f' => out.push('\u{c}'),
                            'u' => {
                                let hex: String = s.get(*i..*i + 4)?.iter().collect();
                                *i += 4;
                                let mut code = u32::from_str_radix(&hex, 16).ok()?;
                                if (0xD800..0xDC00).contains(&code) && s.get(*i) == Some(&'\\') {
                                    let low: String = s.get(*i + 2..*i + 6)?.iter().collect();
                                    let low = u32::from_str_radix(&low, 16).ok()?;
                                    *i += 6;
                                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                                }
                                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                            }
                            other => out.push(other),
                        }
                    }
                    c => out.push(c),
                }
            }
        }
        '[' => parse_items(s, i, ']', parse_json).map(Json::Arr),
        '{' => parse_items(s, i, '}', |s, i| {
            let Json::Str(key) = parse_json(s, i)? else {
                return None;
            };
            while s.get(*i)?.is_whitespace() || s[*i] == ':' {
                *i += 1;
            }
            Some((key, parse_json(s, i)?))
        })
        .map(Json::Obj),
        _ => {
            let start = *i;
            while *i < s.len() && (s[*i] == '-' || s[*i].is_ascii_digit()) {
                *i += 1;
            }
            let text: String = s[start..*i].iter().collect();
            text.parse().ok().map(Json::Num)
        }
    }
}

fn parse_answer(line: &str) -> Option<Outcome> {
    let chars: Vec<char> = line.chars().collect();
    let Json::Obj(fields) = parse_json(&chars, &mut 0)? else {
        return None;
    };
    let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    if let Some(Json::Num(code)) = get("error") {
        return Some(Outcome::Error { code: code as u16 });
    }
    if let Some(Json::Num(n)) = get("ok") {
        return Some(Outcome::Ok { affected: n as u64 });
    }
    let Some(Json::Arr(names)) = get("names") else {
        return None;
    };
    let Some(Json::Arr(types)) = get("types") else {
        return None;
    };
    let Some(Json::Arr(rows)) = get("rows") else {
        return None;
    };
    let names = names
        .into_iter()
        .filter_map(|n| if let Json::Str(s) = n { Some(s) } else { None })
        .collect();
    let types = types
        .into_iter()
        .filter_map(|n| {
            if let Json::Num(t) = n {
                Some(t as u8)
            } else {
                None
            }
        })
        .collect();
    let rows = rows
        .into_iter()
        .filter_map(|r| match r {
            Json::Arr(values) => Some(
                values
                    .into_iter()
                    .map(|v| match v {
                        Json::Str(s) => Some(s),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    Some(Outcome::Rows { names, types, rows })
}

/// myriad's result in the same form.
pub fn outcome_of(result: &Result<myriad_sql::QueryResult, myriad_sql::SqlError>) -> Outcome {
    match result {
        Err(e) => Outcome::Error { code: e.code },
        Ok(myriad_sql::QueryResult::Ok { affected_rows, .. }) => Outcome::Ok {
            affected: *affected_rows,
        },
        Ok(myriad_sql::QueryResult::Rows { columns, rows, .. }) => Outcome::Rows {
            names: columns.iter().map(|c| c.name.clone()).collect(),
            types: columns.iter().map(|c| c.column_type as u8).collect(),
            rows: rows
                .iter()
                .map(|r| {
                    r.iter()
                        .zip(columns.iter())
                        .map(|(v, c)| crate::common::text_in_column(v, c))
                        .collect()
                })
                .collect(),
        },
    }
}

/// Statements of a corpus file: one per line; blank lines and `--` comment lines skipped.
pub fn corpus(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("--"))
        .map(str::to_string)
        .collect()
}
