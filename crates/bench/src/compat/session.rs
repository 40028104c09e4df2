//! One server's side of a replay: its named connections (mysqltest's `connect`,
//! `connection`, `disconnect`, `send` and `reap`) and the script variables as this server's
//! answers set them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Duration;

use super::outcome::{self, Outcome};

/// The largest packet the client sends or accepts (1 GiB, the protocol's largest setting).
const CLIENT_PACKET_LIMIT: usize = 1 << 30;

/// Where a server listens.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub socket: PathBuf,
    pub port: u16,
    /// The limit on one statement, in seconds.
    pub statement_limit: u64,
}

impl Endpoint {
    /// The client options for `login` on this server.
    pub fn opts(&self, login: &Login) -> mysql::Opts {
        let limit = outcome::limit(self.statement_limit);
        let builder = mysql::OptsBuilder::new()
            .user(Some(login.user.clone()))
            .pass(Some(login.password.clone()))
            .db_name(login.database.clone())
            .read_timeout(limit)
            .write_timeout(limit)
            // The client's own packet limit: the server's is what is compared, so the client
            // neither asks (a test may have shrunk the global) nor refuses anything itself.
            .max_allowed_packet(Some(CLIENT_PACKET_LIMIT))
            .tcp_connect_timeout(Some(Duration::from_secs(5)));
        if login.tcp {
            builder
                .ip_or_hostname(Some("127.0.0.1"))
                .tcp_port(self.port)
                .prefer_socket(false)
                .into()
        } else {
            builder
                .socket(Some(self.socket.to_string_lossy().into_owned()))
                .prefer_socket(true)
                .into()
        }
    }
}

/// How a connection was opened, to open it again.
#[derive(Debug, Clone)]
pub struct Login {
    pub user: String,
    pub password: String,
    /// `None`: no default database.
    pub database: Option<String>,
    /// TCP to 127.0.0.1 instead of the unix socket.
    pub tcp: bool,
}

impl Login {
    /// root over the socket into `test`, as mysqltest's `default` connection.
    pub fn root() -> Login {
        Login {
            user: "root".into(),
            password: String::new(),
            database: Some("test".into()),
            tcp: false,
        }
    }
}

enum Slot {
    Idle(mysql::Conn),
    /// A statement sent with `send`, not reaped yet.
    Busy(JoinHandle<(mysql::Conn, Outcome)>),
}

/// One server's connections and variables.
pub struct Side {
    endpoint: Endpoint,
    conns: HashMap<String, Slot>,
    pub current: String,
    pub vars: HashMap<String, String>,
}

impl Side {
    pub fn new(endpoint: Endpoint) -> Side {
        Side {
            endpoint,
            conns: HashMap::new(),
            current: "default".into(),
            vars: HashMap::new(),
        }
    }

    /// Opens connection `name` and makes it current; the outcome is an empty success or the
    /// server's refusal.
    pub fn connect(&mut self, name: &str, login: &Login) -> Outcome {
        match mysql::Conn::new(self.endpoint.opts(login)) {
            Ok(conn) => {
                self.conns.insert(name.to_string(), Slot::Idle(conn));
                self.current = name.to_string();
                Outcome::Ok {
                    sets: Vec::new(),
                    affected: 0,
                }
            }
            Err(e) => outcome::from_error(e),
        }
    }

    /// Makes `name` current; false when there is no such connection.
    pub fn switch(&mut self, name: &str) -> bool {
        if self.conns.contains_key(name) {
            self.current = name.to_string();
            true
        } else {
            false
        }
    }

    pub fn disconnect(&mut self, name: &str) {
        if let Some(Slot::Busy(handle)) = self.conns.remove(name) {
            let _ = handle.join();
        }
    }

    /// Runs `sql` on the current connection. A connection that broke or timed out is
    /// dropped: later statements on it answer `Lost`.
    pub fn query(&mut self, sql: &str) -> Outcome {
        let name = self.current.clone();
        let conn = match self.conns.remove(&name) {
            Some(Slot::Idle(conn)) => conn,
            Some(Slot::Busy(handle)) => match handle.join() {
                Ok((conn, _)) => conn,
                Err(_) => return Outcome::Lost("the sending thread failed".into()),
            },
            None => return Outcome::Lost(format!("no connection `{name}`")),
        };
        let mut conn = conn;
        let result = outcome::execute(&mut conn, sql);
        if !matches!(result, Outcome::Lost(_) | Outcome::Timeout) {
            self.conns.insert(name, Slot::Idle(conn));
        }
        result
    }

    /// Sends `sql` on the current connection without waiting for its answer.
    pub fn send(&mut self, sql: &str) {
        let name = self.current.clone();
        if let Some(Slot::Idle(mut conn)) = self.conns.remove(&name) {
            let sql = sql.to_string();
            let handle = std::thread::spawn(move || {
                let result = outcome::execute(&mut conn, &sql);
                (conn, result)
            });
            self.conns.insert(name, Slot::Busy(handle));
        }
    }

    /// The answer to the statement sent on the current connection.
    pub fn reap(&mut self) -> Outcome {
        let name = self.current.clone();
        match self.conns.remove(&name) {
            Some(Slot::Busy(handle)) => match handle.join() {
                Ok((conn, result)) => {
                    if !matches!(result, Outcome::Lost(_) | Outcome::Timeout) {
                        self.conns.insert(name, Slot::Idle(conn));
                    }
                    result
                }
                Err(_) => Outcome::Lost("the sending thread failed".into()),
            },
            Some(idle) => {
                self.conns.insert(name, idle);
                Outcome::Error {
                    code: 0,
                    message: "reap without send".into(),
                }
            }
            None => Outcome::Lost(format!("no connection `{name}`")),
        }
    }

    /// Closes every connection, waiting for statements in flight.
    pub fn close_all(&mut self) {
        for (_, slot) in self.conns.drain() {
            if let Slot::Busy(handle) = slot {
                let _ = handle.join();
            }
        }
        self.current = "default".into();
    }

    /// `text` with this side's `$variables` put in (unknown ones stay as written).
    pub fn expand(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '\\' && text[i + 1..].starts_with('$') {
                out.push('$');
                chars.next();
                continue;
            }
            if c != '$' {
                out.push(c);
                continue;
            }
            let rest = &text[i + 1..];
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let name = &rest[..len];
            match self.vars.get(name) {
                Some(value) if !name.is_empty() => {
                    out.push_str(value);
                    for _ in 0..name.chars().count() {
                        chars.next();
                    }
                }
                _ => out.push('$'),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_expand_by_longest_name() {
        let mut side = Side::new(Endpoint {
            socket: PathBuf::from("/nonexistent"),
            port: 1,
            statement_limit: 1,
        });
        side.vars.insert("a".into(), "1".into());
        side.vars.insert("ab".into(), "2".into());
        assert_eq!(
            side.expand("select $a, $ab, $abc, \\$a, $"),
            "select 1, 2, $abc, $a, $"
        );
    }
}
