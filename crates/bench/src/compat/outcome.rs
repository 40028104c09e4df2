//! What one statement answered on one server, and how two answers compare.
//!
//! Results are compared as the text protocol sends them: column names, every value's bytes
//! (NULL apart), and the affected-row count of statements without a result set. Warnings
//! are not compared. mysqltest's `sorted_result`, `replace_column`, `replace_result`,
//! `replace_regex` and `lowercase_result` shape both answers the same way before the
//! comparison, so values a test itself masks (times, ids) do not count as differences.

use std::time::Duration;

use mysql::prelude::Queryable;
use serde::Serialize;

/// One result set as the client received it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResultSet {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<Vec<u8>>>>,
}

/// What a statement answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Success: the result sets (none for a statement without rows) and affected rows.
    Ok { sets: Vec<ResultSet>, affected: u64 },
    /// An error packet.
    Error { code: u16, message: String },
    /// The connection broke (the server closed it, or died).
    Lost(String),
    /// No answer within the statement time limit.
    Timeout,
}

impl Outcome {
    /// A one-line description for reports.
    pub fn summary(&self) -> String {
        match self {
            Outcome::Ok { sets, affected } => match sets.first() {
                None => format!("ok, {affected} affected"),
                Some(set) => {
                    let mut text = format!(
                        "{} row(s) [{}]",
                        set.rows.len(),
                        abbreviate(&set.columns.join(", "), 80)
                    );
                    if let Some(row) = set.rows.first() {
                        let values: Vec<String> = row
                            .iter()
                            .map(|v| match v {
                                None => "NULL".to_string(),
                                Some(b) => String::from_utf8_lossy(b).into_owned(),
                            })
                            .collect();
                        text.push_str(&format!(": {}", abbreviate(&values.join(" | "), 120)));
                    }
                    text
                }
            },
            Outcome::Error { code, message } => {
                format!("error {code}: {}", abbreviate(message, 160))
            }
            Outcome::Lost(why) => format!("connection lost: {}", abbreviate(why, 120)),
            Outcome::Timeout => "no answer in time".to_string(),
        }
    }

    /// The first value of the first row, as mysqltest's `let $v = \`query\`` reads it.
    pub fn first_value(&self) -> String {
        match self {
            Outcome::Ok { sets, .. } => sets
                .first()
                .and_then(|s| s.rows.first())
                .and_then(|r| r.first())
                .map(|v| match v {
                    None => "NULL".to_string(),
                    Some(b) => String::from_utf8_lossy(b).into_owned(),
                })
                .unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// The value of column `name` in row `row` (1-based), as `query_get_value` reads it.
    pub fn value_at(&self, name: &str, row: usize) -> String {
        let Outcome::Ok { sets, .. } = self else {
            return String::new();
        };
        let Some(set) = sets.first() else {
            return String::new();
        };
        let Some(col) = set.columns.iter().position(|c| c == name) else {
            return format!("No such column: {name}");
        };
        match set.rows.get(row.wrapping_sub(1)).and_then(|r| r.get(col)) {
            Some(Some(b)) => String::from_utf8_lossy(b).into_owned(),
            Some(None) => "NULL".to_string(),
            None => "No such row".to_string(),
        }
    }
}

/// Runs `sql` on `conn` and collects everything it answered.
pub fn execute(conn: &mut mysql::Conn, sql: &str) -> Outcome {
    match collect(conn, sql) {
        Ok(outcome) => outcome,
        Err(e) => from_error(e),
    }
}

fn collect(conn: &mut mysql::Conn, sql: &str) -> mysql::Result<Outcome> {
    let mut result = conn.query_iter(sql)?;
    let mut sets = Vec::new();
    let mut affected = 0;
    while let Some(set) = result.iter() {
        let columns: Vec<String> = set
            .columns()
            .as_ref()
            .iter()
            .map(|c| c.name_str().into_owned())
            .collect();
        affected = set.affected_rows();
        let mut rows = Vec::new();
        for row in set {
            let row = row?;
            rows.push(row.unwrap().into_iter().map(value_bytes).collect());
        }
        if !columns.is_empty() {
            sets.push(ResultSet { columns, rows });
        }
    }
    Ok(Outcome::Ok { sets, affected })
}

/// An error from the client library as an outcome.
pub fn from_error(e: mysql::Error) -> Outcome {
    match e {
        mysql::Error::MySqlError(e) => Outcome::Error {
            code: e.code,
            message: e.message,
        },
        mysql::Error::IoError(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
        {
            Outcome::Timeout
        }
        mysql::Error::IoError(io) => Outcome::Lost(io.to_string()),
        mysql::Error::DriverError(mysql::DriverError::ConnectTimeout) => Outcome::Timeout,
        // A read timeout can also arrive wrapped in the packet codec's error.
        other if timed_out(&other.to_string()) => Outcome::Timeout,
        other => Outcome::Lost(other.to_string()),
    }
}

/// Whether an error's text is a socket read or write timeout (EAGAIN, ETIMEDOUT).
fn timed_out(text: &str) -> bool {
    text.contains("os error 11") || text.contains("os error 110") || text.contains("timed out")
}

fn value_bytes(value: mysql::Value) -> Option<Vec<u8>> {
    use mysql::Value;
    match value {
        Value::NULL => None,
        Value::Bytes(b) => Some(b),
        Value::Int(i) => Some(i.to_string().into_bytes()),
        Value::UInt(u) => Some(u.to_string().into_bytes()),
        Value::Float(f) => Some(f.to_string().into_bytes()),
        Value::Double(d) => Some(d.to_string().into_bytes()),
        other => Some(format!("{other:?}").into_bytes()),
    }
}

/// How the next statement's results are shaped before they are compared (mysqltest's
/// one-statement modifiers).
#[derive(Debug, Default, Clone)]
pub struct Shaping {
    pub sorted: bool,
    pub lowercase: bool,
    /// (1-based column, replacement)
    pub columns: Vec<(usize, String)>,
    pub results: Vec<(String, String)>,
    pub regexes: Vec<(regex::Regex, String)>,
}

impl Shaping {
    /// Applies the shaping to an outcome.
    pub fn apply(&self, outcome: &mut Outcome) {
        let Outcome::Ok { sets, .. } = outcome else {
            return;
        };
        for set in sets {
            for row in &mut set.rows {
                for (i, value) in row.iter_mut().enumerate() {
                    if let Some((_, with)) = self.columns.iter().find(|(c, _)| *c == i + 1) {
                        *value = Some(with.clone().into_bytes());
                        continue;
                    }
                    self.replace(value);
                }
            }
            if self.sorted {
                set.rows.sort();
            }
        }
    }

    fn replace(&self, value: &mut Option<Vec<u8>>) {
        if self.results.is_empty() && self.regexes.is_empty() && !self.lowercase {
            return;
        }
        let mut text = match value {
            Some(b) => String::from_utf8_lossy(b).into_owned(),
            None => "NULL".to_string(),
        };
        for (from, to) in &self.results {
            if !from.is_empty() {
                text = text.replace(from.as_str(), to);
            }
        }
        for (re, to) in &self.regexes {
            text = re.replace_all(&text, to.as_str()).into_owned();
        }
        if self.lowercase {
            text = text.to_lowercase();
        }
        *value = if value.is_none() && text == "NULL" {
            None
        } else {
            Some(text.into_bytes())
        };
    }
}

/// How myriad's answer relates to MariaDB's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// The same rows, or the same error code.
    Agree,
    /// The same rows in another order, without ORDER BY making the order part of the answer.
    RowOrder,
    /// myriad answered an error where MariaDB succeeded.
    Unsupported,
    /// Both succeeded with different results: a wrong answer.
    WrongAnswer,
    /// myriad succeeded where MariaDB answered an error.
    AcceptsInvalid,
    /// Both failed, with different error codes.
    WrongError,
    /// myriad did not answer in time while MariaDB did.
    Hang,
    /// myriad closed the connection while MariaDB answered; the server lives on.
    LostConnection,
    /// myriad's connection broke while MariaDB answered and the server died: a crash.
    Crash,
}

impl Class {
    pub const ALL: [Class; 9] = [
        Class::Agree,
        Class::RowOrder,
        Class::Unsupported,
        Class::WrongAnswer,
        Class::AcceptsInvalid,
        Class::WrongError,
        Class::Hang,
        Class::LostConnection,
        Class::Crash,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Agree => "agree",
            Class::RowOrder => "row order",
            Class::Unsupported => "unsupported",
            Class::WrongAnswer => "wrong answer",
            Class::AcceptsInvalid => "accepts invalid",
            Class::WrongError => "wrong error code",
            Class::Hang => "hang",
            Class::LostConnection => "lost connection",
            Class::Crash => "crash",
        }
    }
}

/// Classifies myriad's outcome against MariaDB's (both already shaped).
pub fn classify(mariadb: &Outcome, myriad: &Outcome) -> Class {
    use Outcome::*;
    match (mariadb, myriad) {
        (_, Timeout) => match mariadb {
            Timeout => Class::Agree,
            _ => Class::Hang,
        },
        (Lost(_), Lost(_)) => Class::Agree,
        (_, Lost(_)) => Class::Crash,
        (Error { code: a, .. }, Error { code: b, .. }) => {
            if a == b {
                Class::Agree
            } else {
                Class::WrongError
            }
        }
        (Ok { .. }, Error { .. }) => Class::Unsupported,
        // MariaDB itself failed to answer: nothing to hold myriad's error against.
        (Lost(_) | Timeout, Error { .. }) => Class::WrongError,
        (Error { .. } | Lost(_) | Timeout, Ok { .. }) => Class::AcceptsInvalid,
        (
            Ok {
                sets: a,
                affected: x,
            },
            Ok {
                sets: b,
                affected: y,
            },
        ) => {
            if a == b && (!a.is_empty() || x == y) {
                Class::Agree
            } else if !a.is_empty() && same_rows_in_any_order(a, b) {
                Class::RowOrder
            } else {
                Class::WrongAnswer
            }
        }
    }
}

fn same_rows_in_any_order(a: &[ResultSet], b: &[ResultSet]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            let (mut p, mut q) = (x.rows.clone(), y.rows.clone());
            p.sort();
            q.sort();
            x.columns == y.columns && p == q
        })
}

/// The statement time limit's `Duration` for the client options.
pub fn limit(seconds: u64) -> Option<Duration> {
    Some(Duration::from_secs(seconds.max(1)))
}

/// `text` cut to about `max` characters on a character boundary, with `...` when cut.
pub fn abbreviate(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}...", &flat[..cut]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[&str]) -> Outcome {
        Outcome::Ok {
            sets: vec![ResultSet {
                columns: vec!["a".into()],
                rows: values
                    .iter()
                    .map(|v| vec![Some(v.as_bytes().to_vec())])
                    .collect(),
            }],
            affected: 0,
        }
    }

    fn error(code: u16) -> Outcome {
        Outcome::Error {
            code,
            message: String::new(),
        }
    }

    #[test]
    fn outcomes_classify_by_what_each_server_answered() {
        assert_eq!(classify(&rows(&["1"]), &rows(&["1"])), Class::Agree);
        assert_eq!(
            classify(&rows(&["1", "2"]), &rows(&["2", "1"])),
            Class::RowOrder
        );
        assert_eq!(classify(&rows(&["1"]), &rows(&["2"])), Class::WrongAnswer);
        assert_eq!(classify(&rows(&["1"]), &error(1235)), Class::Unsupported);
        assert_eq!(classify(&error(1064), &rows(&[])), Class::AcceptsInvalid);
        assert_eq!(classify(&error(1064), &error(1064)), Class::Agree);
        assert_eq!(classify(&error(1064), &error(1146)), Class::WrongError);
        assert_eq!(classify(&rows(&[]), &Outcome::Timeout), Class::Hang);
        assert_eq!(
            classify(&rows(&[]), &Outcome::Lost("eof".into())),
            Class::Crash
        );
        let ok = |affected| Outcome::Ok {
            sets: vec![],
            affected,
        };
        assert_eq!(classify(&ok(2), &ok(2)), Class::Agree);
        assert_eq!(classify(&ok(2), &ok(3)), Class::WrongAnswer);
    }

    #[test]
    fn shaping_masks_what_the_test_masks() {
        let mut shaping = Shaping {
            sorted: true,
            columns: vec![],
            results: vec![("b".into(), "X".into())],
            regexes: vec![(regex::Regex::new("[0-9]+").expect("regex"), "#".into())],
            lowercase: false,
        };
        let mut outcome = rows(&["c", "b", "a12"]);
        shaping.apply(&mut outcome);
        assert_eq!(outcome, rows(&["X", "a#", "c"]));
        shaping = Shaping {
            columns: vec![(1, "#".into())],
            ..Shaping::default()
        };
        let mut outcome = rows(&["1", "2"]);
        shaping.apply(&mut outcome);
        assert_eq!(outcome, rows(&["#", "#"]));
    }

    #[test]
    fn values_are_read_as_mysqltest_reads_them() {
        let outcome = rows(&["7", "8"]);
        assert_eq!(outcome.first_value(), "7");
        assert_eq!(outcome.value_at("a", 2), "8");
        assert_eq!(outcome.value_at("a", 3), "No such row");
        assert_eq!(error(1).first_value(), "");
    }
}
