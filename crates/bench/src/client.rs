//! The Rust client loop's connection: the `mysql` crate's synchronous client over TCP.
//!
//! One connection per loop, text protocol, `root` without a password on 127.0.0.1: the same
//! client for myriad and MariaDB, so that a difference in a loop's time is the server's.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Context, Result};
use mysql::prelude::Queryable;

/// How long a single statement may take before the client gives up (a hung server must
/// become an error row, not a hung benchmark).
const READ_TIMEOUT: Duration = Duration::from_secs(600);
/// How long to wait for a TCP connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// One connection to a server under test.
pub struct Client {
    conn: mysql::Conn,
}

fn options(port: u16, database: Option<&str>, connect_timeout: Duration) -> mysql::Opts {
    mysql::OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .user(Some("root"))
        .pass(None::<String>)
        .db_name(database)
        .prefer_socket(false)
        .tcp_connect_timeout(Some(connect_timeout))
        .read_timeout(Some(READ_TIMEOUT))
        .write_timeout(Some(READ_TIMEOUT))
        .into()
}

/// Text of a value as the text protocol would show it; `None` for NULL.
fn value_text(value: &mysql::Value) -> Option<String> {
    use mysql::Value;
    match value {
        Value::NULL => None,
        Value::Bytes(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Double(d) => Some(d.to_string()),
        other => Some(format!("{other:?}")),
    }
}

impl Client {
    /// Connects as root to 127.0.0.1:`port`, optionally into `database`.
    pub fn connect(port: u16, database: Option<&str>) -> Result<Client> {
        let conn = mysql::Conn::new(options(port, database, CONNECT_TIMEOUT))
            .with_context(|| format!("connecting to 127.0.0.1:{port}"))?;
        Ok(Client { conn })
    }

    /// Connects and runs `SELECT 1`: whether a starting server answers yet.
    pub fn probe(port: u16) -> Result<()> {
        let mut conn = mysql::Conn::new(options(port, None, Duration::from_millis(500)))?;
        let one: Option<i64> = conn.query_first("SELECT 1")?;
        anyhow::ensure!(one == Some(1), "SELECT 1 answered {one:?}");
        Ok(())
    }

    /// Runs a statement and discards its result.
    pub fn execute(&mut self, sql: &str) -> Result<()> {
        self.conn
            .query_drop(sql)
            .with_context(|| format!("running `{}`", abbreviate(sql)))
    }

    /// Runs a query and returns its rows as text.
    pub fn rows(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>> {
        let rows: Vec<mysql::Row> = self
            .conn
            .query(sql)
            .with_context(|| format!("running `{}`", abbreviate(sql)))?;
        Ok(rows
            .into_iter()
            .map(|row| {
                (0..row.len())
                    .map(|i| row.as_ref(i).and_then(value_text))
                    .collect()
            })
            .collect())
    }

    /// Runs a query and reads its rows one at a time as they arrive, keeping none: after
    /// each row, `on_row` gets the row's number (from 0) and the bytes of its values, and
    /// may sleep (a slow reader). Returns the number of rows read.
    pub fn stream(&mut self, sql: &str, mut on_row: impl FnMut(u64, usize)) -> Result<u64> {
        let result = self
            .conn
            .query_iter(sql)
            .with_context(|| format!("running `{}`", abbreviate(sql)))?;
        let mut count = 0;
        for row in result {
            let row = row.with_context(|| format!("reading the rows of `{}`", abbreviate(sql)))?;
            let bytes = (0..row.len())
                .filter_map(|i| row.as_ref(i))
                .map(|value| match value {
                    mysql::Value::Bytes(bytes) => bytes.len(),
                    _ => 8,
                })
                .sum();
            on_row(count, bytes);
            count += 1;
        }
        Ok(count)
    }

    /// The first column of the first row, if any.
    pub fn scalar(&mut self, sql: &str) -> Result<Option<String>> {
        Ok(self
            .rows(sql)?
            .into_iter()
            .next()
            .and_then(|row| row.into_iter().next().flatten()))
    }

    /// `SHOW GLOBAL STATUS` as a snapshot.
    pub fn global_status(&mut self) -> Result<StatusSnapshot> {
        Ok(StatusSnapshot(self.name_value_pairs("SHOW GLOBAL STATUS")?))
    }

    /// The named global variables (`SHOW GLOBAL VARIABLES`), those that exist.
    pub fn global_variables(&mut self, names: &[&str]) -> Result<BTreeMap<String, String>> {
        let all = self.name_value_pairs("SHOW GLOBAL VARIABLES")?;
        Ok(names
            .iter()
            .filter_map(|name| {
                all.get(&name.to_ascii_lowercase())
                    .or_else(|| all.get(*name))
                    .map(|value| (name.to_string(), value.clone()))
            })
            .collect())
    }

    fn name_value_pairs(&mut self, sql: &str) -> Result<BTreeMap<String, String>> {
        Ok(self
            .rows(sql)?
            .into_iter()
            .filter_map(|row| {
                let mut cells = row.into_iter();
                let name = cells.next().flatten()?;
                let value = cells.next().flatten().unwrap_or_default();
                Some((name, value))
            })
            .collect())
    }
}

fn abbreviate(sql: &str) -> String {
    if sql.len() <= 80 {
        sql.to_string()
    } else {
        let mut end = 77;
        while !sql.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &sql[..end])
    }
}

/// One reading of `SHOW GLOBAL STATUS`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusSnapshot(pub BTreeMap<String, String>);

impl StatusSnapshot {
    /// The integer counters that changed between `self` and `after`, as `after - self`.
    /// Non-numeric values and gauges that did not move are left out.
    pub fn delta(&self, after: &StatusSnapshot) -> BTreeMap<String, i64> {
        after
            .0
            .iter()
            .filter_map(|(name, value)| {
                let now: i64 = value.trim().parse().ok()?;
                let before: i64 = self.0.get(name)?.trim().parse().ok()?;
                (now != before).then(|| (name.clone(), now - before))
            })
            .collect()
    }

    /// The value of one status variable as a number.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.0.get(name)?.trim().parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(pairs: &[(&str, &str)]) -> StatusSnapshot {
        StatusSnapshot(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn delta_keeps_moved_integer_counters_only() {
        let before = snapshot(&[
            ("Opened_tables", "10"),
            ("Open_tables", "5"),
            ("Uptime", "3"),
            ("Innodb_buffer_pool_dump_status", "Dumping"),
        ]);
        let after = snapshot(&[
            ("Opened_tables", "110"),
            ("Open_tables", "5"),
            ("Uptime", "2"),
            ("Innodb_buffer_pool_dump_status", "Done"),
            ("New_counter", "7"),
        ]);
        let delta = before.delta(&after);
        assert_eq!(delta.get("Opened_tables"), Some(&100));
        assert_eq!(delta.get("Uptime"), Some(&-1));
        assert!(!delta.contains_key("Open_tables"), "unchanged gauge kept");
        assert!(!delta.contains_key("Innodb_buffer_pool_dump_status"));
        assert!(!delta.contains_key("New_counter"), "no before value");
        assert_eq!(after.number("Opened_tables"), Some(110.0));
    }

    #[test]
    fn long_statements_are_abbreviated_on_a_char_boundary() {
        let sql = format!("SELECT '{}'", "é".repeat(100));
        let short = abbreviate(&sql);
        assert!(short.ends_with("..."));
        assert!(short.len() <= 80);
        assert_eq!(abbreviate("SELECT 1"), "SELECT 1");
    }
}
