//! Replays one mysqltest script against MariaDB and myriad in lockstep.
//!
//! Every SQL statement (and every query a command runs: `let $v = \`...\``, `if (\`...\`)`,
//! `connect`) goes to MariaDB first, then to myriad, on the connection of the same name;
//! the two answers are shaped alike and classified ([`Class`]). Control flow (`if`, `while`,
//! `skip`) follows MariaDB's answers, the reference; each server keeps its own variables, so
//! `eval` sends each server the text its own answers made.
//!
//! A statement is *clean* when no earlier statement of the file that could change state
//! (anything but a plain read) diverged; a divergence after that is counted as follow-on.
//! The file stops at `exit`, `skip`, `die`, a hang, a broken connection or a crash, at
//! commands this runner does not emulate that change the server (`shutdown_server`), and at
//! its time limit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::outcome::{abbreviate, classify, Class, Outcome, Shaping};
use super::script::{self, Line, Step};
use super::session::{Login, Side};

/// Includes nest at most this deep.
const MAX_SOURCE_DEPTH: usize = 16;
/// A `while` loop runs at most this many rounds.
const MAX_ROUNDS: usize = 100_000;
/// `sleep n` sleeps at most this long.
const MAX_SLEEP: Duration = Duration::from_secs(2);

/// Commands that do things outside SQL (files, processes, replication, restarts) which the
/// runner does not emulate; the statements after them run anyway.
const HARNESS: &[&str] = &[
    "append_file",
    "cat_file",
    "change_user",
    "chmod",
    "copy_file",
    "copy_files_wildcard",
    "diff_files",
    "exec",
    "exec_in_background",
    "execw",
    "file_exists",
    "list_files",
    "list_files_append_file",
    "list_files_write_file",
    "mkdir",
    "move_file",
    "output",
    "perl",
    "remove_file",
    "remove_files_wildcard",
    "reset_connection",
    "rmdir",
    "save_master_pos",
    "sync_slave_with_master",
    "sync_with_master",
    "wait_for_slave_to_stop",
    "write_file",
];

/// Why a file stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// `exit`.
    Exit,
    /// `skip` (a requirement MariaDB does not meet, such as a debug build).
    Skip(String),
    /// `die`, or a script error.
    Die(String),
    /// myriad hung, lost the connection or crashed.
    Myriad(String),
    /// MariaDB hung or lost the connection: the script needs what the runner lacks.
    Reference(String),
    /// A command that restarts or stops a server.
    Harness(String),
    /// The file's time limit.
    TimeLimit,
}

/// One statement whose answers differ.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub file: String,
    pub line: usize,
    pub class: Class,
    pub clean: bool,
    pub sql: String,
    pub mariadb: String,
    pub myriad: String,
    /// myriad's error code, for the shape of an error.
    #[serde(skip)]
    pub myriad_error: Option<(u16, String)>,
}

/// What replaying one file found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FileResult {
    pub name: String,
    /// Statements per class, clean context.
    pub clean: BTreeMap<Class, usize>,
    /// Differences after an earlier state-changing divergence, per class.
    pub follow_on: BTreeMap<Class, usize>,
    pub differences: Vec<Difference>,
    /// Harness commands not emulated.
    pub harness_skipped: usize,
    pub stop: Option<Stop>,
    pub seconds: f64,
}

impl FileResult {
    pub fn statements(&self) -> usize {
        self.clean.values().sum::<usize>() + self.follow_on.values().sum::<usize>()
    }

    pub fn agreed(&self) -> usize {
        self.clean.get(&Class::Agree).copied().unwrap_or(0)
            + self.follow_on.get(&Class::Agree).copied().unwrap_or(0)
    }
}

/// The replay of one file: both servers' sides and the state of the script.
pub struct Replay<'a> {
    /// MariaDB, then myriad.
    sides: [Side; 2],
    shaping: Shaping,
    dirty: bool,
    send_next: bool,
    suite: PathBuf,
    depth: usize,
    deadline: Instant,
    stop: Option<Stop>,
    myriad_alive: &'a dyn Fn() -> bool,
    result: FileResult,
    /// The file (or include) being read, for locations.
    place: String,
}

impl<'a> Replay<'a> {
    pub fn new(
        name: &str,
        sides: [Side; 2],
        suite: &Path,
        limit: Duration,
        myriad_alive: &'a dyn Fn() -> bool,
    ) -> Replay<'a> {
        Replay {
            sides,
            shaping: Shaping::default(),
            dirty: false,
            send_next: false,
            suite: suite.to_path_buf(),
            depth: 0,
            deadline: Instant::now() + limit,
            stop: None,
            myriad_alive,
            result: FileResult {
                name: name.to_string(),
                ..FileResult::default()
            },
            place: name.to_string(),
        }
    }

    /// Opens the default connections and runs the script; returns what it found.
    pub fn run(mut self, steps: &[Line]) -> FileResult {
        let started = Instant::now();
        let outcomes = self.both(|side| side.connect("default", &Login::root()));
        if !matches!(outcomes[0], Outcome::Ok { .. }) || !matches!(outcomes[1], Outcome::Ok { .. })
        {
            self.stop = Some(Stop::Die(format!(
                "the default connection failed: MariaDB {}, myriad {}",
                outcomes[0].summary(),
                outcomes[1].summary()
            )));
        } else {
            self.steps(steps);
        }
        for side in &mut self.sides {
            side.close_all();
        }
        self.result.stop = self.stop;
        self.result.seconds = started.elapsed().as_secs_f64();
        self.result
    }

    fn both<F: FnMut(&mut Side) -> Outcome>(&mut self, mut f: F) -> [Outcome; 2] {
        let a = f(&mut self.sides[0]);
        let b = f(&mut self.sides[1]);
        [a, b]
    }

    fn steps(&mut self, steps: &[Line]) {
        for line in steps {
            if self.stop.is_some() {
                return;
            }
            if Instant::now() > self.deadline {
                self.stop = Some(Stop::TimeLimit);
                return;
            }
            self.step(line);
        }
    }

    fn step(&mut self, line: &Line) {
        match &line.step {
            Step::Sql(sql) => {
                if std::mem::take(&mut self.send_next) {
                    self.send([sql.clone(), sql.clone()]);
                } else {
                    self.statement(line.line, [sql.clone(), sql.clone()]);
                }
            }
            Step::If {
                cond,
                then,
                otherwise,
            } => {
                if self.condition(line.line, cond) {
                    self.steps(then);
                } else {
                    self.steps(otherwise);
                }
            }
            Step::While { cond, body } => {
                let mut rounds = 0;
                while self.stop.is_none() && rounds < MAX_ROUNDS && self.condition(line.line, cond)
                {
                    self.steps(body);
                    rounds += 1;
                    if Instant::now() > self.deadline {
                        self.stop = Some(Stop::TimeLimit);
                    }
                }
            }
            Step::Command { name, arg } => self.command(line.line, name, arg),
        }
    }

    /// Runs one statement (each server's own text) on both servers and records the answers.
    fn statement(&mut self, line: usize, sql: [String; 2]) -> [Outcome; 2] {
        let mut outcomes = [self.sides[0].query(&sql[0]), self.sides[1].query(&sql[1])];
        self.record(line, &sql[1], &mut outcomes);
        outcomes
    }

    fn send(&mut self, sql: [String; 2]) {
        self.sides[0].send(&sql[0]);
        self.sides[1].send(&sql[1]);
        self.shaping = Shaping::default();
    }

    /// Shapes and classifies a statement's two answers, counts them, and stops the file when
    /// a server can no longer go on.
    fn record(&mut self, line: usize, sql: &str, outcomes: &mut [Outcome; 2]) {
        let shaping = std::mem::take(&mut self.shaping);
        for (side, outcome) in self.sides.iter().zip(outcomes.iter_mut()) {
            // Each server's own datadir reads as the same word on both.
            if let Some(datadir) = side.vars.get("MYSQLD_DATADIR").filter(|d| !d.is_empty()) {
                Shaping {
                    results: vec![(datadir.clone(), "$MYSQLD_DATADIR/".into())],
                    ..Shaping::default()
                }
                .apply(outcome);
            }
            shaping.apply(outcome);
        }
        for (side, outcome) in self.sides.iter_mut().zip(outcomes.iter()) {
            let errno = match outcome {
                Outcome::Error { code, .. } => code.to_string(),
                _ => "0".to_string(),
            };
            side.vars.insert("mysql_errno".into(), errno);
        }
        let [mariadb, myriad] = &*outcomes;
        let mut class = classify(mariadb, myriad);
        if class == Class::Crash && (self.myriad_alive)() {
            class = Class::LostConnection;
        }
        let clean = !self.dirty;
        let counts = if clean {
            &mut self.result.clean
        } else {
            &mut self.result.follow_on
        };
        *counts.entry(class).or_default() += 1;
        if class != Class::Agree {
            if changes_state(sql) {
                self.dirty = true;
            }
            self.result.differences.push(Difference {
                file: self.place.clone(),
                line,
                class,
                clean,
                sql: abbreviate(sql, 400),
                mariadb: mariadb.summary(),
                myriad: myriad.summary(),
                myriad_error: match myriad {
                    Outcome::Error { code, message } => Some((*code, message.clone())),
                    _ => None,
                },
            });
        }
        match (mariadb, myriad) {
            (Outcome::Lost(_) | Outcome::Timeout, _) => {
                self.stop = Some(Stop::Reference(mariadb.summary()));
            }
            (_, Outcome::Lost(_) | Outcome::Timeout) => {
                self.stop = Some(Stop::Myriad(format!(
                    "{}: {}",
                    class.name(),
                    myriad.summary()
                )));
            }
            _ => {}
        }
    }

    /// A mysqltest condition, decided by MariaDB's values.
    fn condition(&mut self, line: usize, cond: &str) -> bool {
        let cond = cond.trim();
        if let Some(rest) = cond.strip_prefix('!') {
            return !self.condition(line, rest);
        }
        if cond.len() >= 2 && cond.starts_with('`') && cond.ends_with('`') {
            let outcomes = self.query_in_command(line, &cond[1..cond.len() - 1]);
            return truthy(&outcomes[0].first_value());
        }
        let text = self.sides[0].expand(cond);
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if let Some((left, right)) = text.split_once(op) {
                let (l, r) = (left.trim(), right.trim());
                let numbers = l.parse::<f64>().ok().zip(r.parse::<f64>().ok());
                return match (op, numbers) {
                    ("==", Some((a, b))) => a == b,
                    ("!=", Some((a, b))) => a != b,
                    ("==", None) => l == r,
                    ("!=", None) => l != r,
                    ("<=", Some((a, b))) => a <= b,
                    (">=", Some((a, b))) => a >= b,
                    ("<", Some((a, b))) => a < b,
                    (">", Some((a, b))) => a > b,
                    _ => false,
                };
            }
        }
        truthy(&text)
    }

    /// A query a command runs (each server's expansion of it), counted as a statement.
    fn query_in_command(&mut self, line: usize, query: &str) -> [Outcome; 2] {
        let sql = [self.sides[0].expand(query), self.sides[1].expand(query)];
        self.statement(line, sql)
    }

    fn command(&mut self, line: usize, name: &str, arg: &str) {
        let arg = arg.trim().trim_end_matches(';').trim();
        match name {
            "eval" | "query" | "query_vertical" | "query_horizontal" => {
                if arg.is_empty() {
                    return;
                }
                let sql = self.expanded(arg);
                self.statement(line, sql);
            }
            "send" | "send_eval" => {
                if arg.is_empty() {
                    self.send_next = true;
                } else if name == "send" {
                    self.send([arg.to_string(), arg.to_string()]);
                } else {
                    let sql = self.expanded(arg);
                    self.send(sql);
                }
            }
            "reap" => {
                let mut outcomes = [self.sides[0].reap(), self.sides[1].reap()];
                self.record(line, "reap", &mut outcomes);
            }
            "let" => self.let_(line, arg),
            "inc" | "dec" => {
                let delta = if name == "inc" { 1 } else { -1 };
                let var = arg.trim_start_matches('$').to_string();
                for side in &mut self.sides {
                    let value = side
                        .vars
                        .get(&var)
                        .and_then(|v| v.trim().parse::<i64>().ok());
                    side.vars
                        .insert(var.clone(), (value.unwrap_or(0) + delta).to_string());
                }
            }
            "expr" => self.expr(arg),
            "connect" => self.connect(line, arg),
            "connection" => {
                let name = self.sides[0].expand(arg);
                let found = self.sides.iter_mut().all(|s| s.switch(&name));
                if !found {
                    self.stop = Some(Stop::Die(format!("no connection `{name}`")));
                }
            }
            "disconnect" | "dirty_close" => {
                let name = self.sides[0].expand(arg);
                for side in &mut self.sides {
                    side.disconnect(&name);
                }
            }
            "source" => self.source(arg),
            "sleep" | "real_sleep" => {
                let seconds = self.sides[0].expand(arg).parse::<f64>().unwrap_or(0.0);
                std::thread::sleep(
                    Duration::from_secs_f64(seconds.clamp(0.0, 60.0)).min(MAX_SLEEP),
                );
            }
            "exit" => self.stop = Some(Stop::Exit),
            "skip" => self.stop = Some(Stop::Skip(self.sides[0].expand(arg))),
            "die" => self.stop = Some(Stop::Die(self.sides[0].expand(arg))),
            "shutdown_server" | "send_shutdown" | "send_quit" | "require" => {
                self.stop = Some(Stop::Harness(name.to_string()));
            }
            "sorted_result" => self.shaping.sorted = true,
            "lowercase_result" => self.shaping.lowercase = true,
            "replace_column" => {
                let words: Vec<&str> = split_words(arg);
                for pair in words.chunks(2) {
                    if let [col, with] = pair {
                        if let Ok(col) = col.parse() {
                            self.shaping.columns.push((col, with.to_string()));
                        }
                    }
                }
            }
            "replace_result" => {
                let expanded = self.sides[0].expand(arg);
                let words: Vec<&str> = split_words(&expanded);
                for pair in words.chunks(2) {
                    if let [from, to] = pair {
                        self.shaping
                            .results
                            .push((from.to_string(), to.to_string()));
                    }
                }
            }
            "replace_regex" => self.shaping.regexes.extend(regexes(arg)),
            _ if HARNESS.contains(&name) => self.result.harness_skipped += 1,
            _ => {}
        }
    }

    fn expanded(&self, text: &str) -> [String; 2] {
        [self.sides[0].expand(text), self.sides[1].expand(text)]
    }

    /// `let $name = value`, value being text, `` `query` `` or `query_get_value(q, col, row)`.
    fn let_(&mut self, line: usize, arg: &str) {
        let Some((name, value)) = arg.split_once('=') else {
            return;
        };
        let name = name.trim().trim_start_matches('$').to_string();
        let value = value.trim_start();
        let values: [String; 2] =
            if value.len() >= 2 && value.starts_with('`') && value.ends_with('`') {
                let outcomes = self.query_in_command(line, &value[1..value.len() - 1]);
                [outcomes[0].first_value(), outcomes[1].first_value()]
            } else if let Some(inner) = value
                .strip_prefix("query_get_value(")
                .and_then(|v| v.trim_end().strip_suffix(')'))
            {
                let mut parts = inner.rsplitn(3, ',');
                let row = parts.next().unwrap_or("").trim().to_string();
                let column = parts.next().unwrap_or("").trim().to_string();
                let query = parts.next().unwrap_or("").trim().to_string();
                let outcomes = self.query_in_command(line, &query);
                let row: usize = self.sides[0].expand(&row).parse().unwrap_or(1);
                [
                    outcomes[0].value_at(&column, row),
                    outcomes[1].value_at(&column, row),
                ]
            } else {
                self.expanded(value)
            };
        for (side, value) in self.sides.iter_mut().zip(values) {
            side.vars.insert(name.clone(), value);
        }
    }

    /// `expr $v = a op b`.
    fn expr(&mut self, arg: &str) {
        let Some((name, value)) = arg.split_once('=') else {
            return;
        };
        let name = name.trim().trim_start_matches('$').to_string();
        for side in &mut self.sides {
            let text = side.expand(value);
            let words: Vec<&str> = text.split_whitespace().collect();
            let number = |w: &str| w.parse::<f64>().unwrap_or(0.0);
            let result = match words.as_slice() {
                [a] => number(a),
                [a, op, b] => {
                    let (a, b) = (number(a), number(b));
                    match *op {
                        "+" => a + b,
                        "-" => a - b,
                        "*" => a * b,
                        "/" if b != 0.0 => a / b,
                        "%" if b != 0.0 => a % b,
                        "&&" => f64::from(u8::from(a != 0.0 && b != 0.0)),
                        "||" => f64::from(u8::from(a != 0.0 || b != 0.0)),
                        _ => 0.0,
                    }
                }
                _ => 0.0,
            };
            side.vars.insert(name.clone(), format_number(result));
        }
    }

    /// `connect (name, host, user, password, db, port, socket, options)`.
    fn connect(&mut self, line: usize, arg: &str) {
        let inner = arg.trim().trim_start_matches('(').trim_end_matches(')');
        let expanded = self.sides[0].expand(inner);
        let parts: Vec<String> = expanded
            .split(',')
            .map(|p| p.trim().trim_matches('\'').trim_matches('"').to_string())
            .collect();
        let part = |i: usize| parts.get(i).cloned().unwrap_or_default();
        let name = part(0);
        let host = part(1);
        let database = match part(4).as_str() {
            "" => Some("test".to_string()),
            "*NO-ONE*" => None,
            db => Some(db.to_string()),
        };
        let login = Login {
            user: if part(2).is_empty() {
                "root".into()
            } else {
                part(2)
            },
            password: part(3),
            database,
            tcp: host == "127.0.0.1" || part(7).to_ascii_uppercase().contains("TCP"),
        };
        let mut outcomes = self.both(|side| side.connect(&name, &login));
        self.record(line, &format!("connect({expanded})"), &mut outcomes);
    }

    /// `source file`: reads and runs an include.
    fn source(&mut self, arg: &str) {
        let path = self.sides[0].expand(arg);
        let candidates = [
            self.suite.join(&path),
            self.suite.join("main").join(&path),
            PathBuf::from(&path),
        ];
        let Some(found) = candidates.iter().find(|p| p.is_file()) else {
            self.result.harness_skipped += 1;
            return;
        };
        if self.depth >= MAX_SOURCE_DEPTH {
            self.stop = Some(Stop::Die(format!(
                "includes nest deeper than {MAX_SOURCE_DEPTH}"
            )));
            return;
        }
        let Ok(text) = std::fs::read(found) else {
            self.result.harness_skipped += 1;
            return;
        };
        let steps = script::parse(&String::from_utf8_lossy(&text));
        let outer = std::mem::replace(&mut self.place, path);
        self.depth += 1;
        self.steps(&steps);
        self.depth -= 1;
        self.place = outer;
    }
}

/// Whether a statement can change what later statements see: anything but a plain read.
pub fn changes_state(sql: &str) -> bool {
    let word = script::first_word(sql.trim_start_matches('('));
    let reads = matches!(
        word.as_str(),
        "select" | "show" | "explain" | "describe" | "desc" | "values" | "table" | "with" | "help"
    );
    let lower = sql.to_ascii_lowercase();
    // SELECT ... INTO and assignments to user variables (@v := x) change state too.
    !reads || lower.contains(" into ") || lower.contains(":=")
}

/// mysqltest's truth of a value: non-empty and, if a number, not zero.
fn truthy(text: &str) -> bool {
    let text = text.trim();
    match text.parse::<f64>() {
        Ok(n) => n != 0.0,
        Err(_) => !text.is_empty(),
    }
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// Words separated by spaces, a quoted word ('..' or "..") kept whole without its quotes.
fn split_words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let (word, tail) = match rest.as_bytes()[0] {
            q @ (b'\'' | b'"') => match rest[1..].find(q as char) {
                Some(end) => (&rest[1..=end], &rest[end + 2..]),
                None => (&rest[1..], ""),
            },
            _ => {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                (&rest[..end], &rest[end..])
            }
        };
        words.push(word);
        rest = tail.trim_start();
    }
    words
}

/// `/from/to/[i] /from2/to2/` as regexes; a pattern the regex crate refuses is left out.
fn regexes(arg: &str) -> Vec<(regex::Regex, String)> {
    let mut out = Vec::new();
    let mut rest = arg.trim();
    while let Some(sep) = rest.chars().next() {
        let parts: Vec<&str> = rest[sep.len_utf8()..].splitn(3, sep).collect();
        if parts.len() < 3 {
            break;
        }
        let (flags, tail) = parts[2]
            .split_once(char::is_whitespace)
            .unwrap_or((parts[2], ""));
        let pattern = if flags.contains('i') {
            format!("(?i){}", parts[0])
        } else {
            parts[0].to_string()
        };
        if let Ok(re) = regex::Regex::new(&pattern) {
            out.push((re, parts[1].replace("\\", "$")));
        }
        rest = tail.trim();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_do_not_change_state_and_writes_do() {
        assert!(!changes_state("select 1"));
        assert!(!changes_state("(select 1) union (select 2)"));
        assert!(!changes_state("SHOW TABLES"));
        assert!(changes_state("select 1 into @a"));
        assert!(changes_state("select @a := 1"));
        assert!(changes_state("insert into t values (1)"));
        assert!(changes_state("set @a = 1"));
    }

    #[test]
    fn words_and_regexes_read_as_mysqltest_reads_them() {
        assert_eq!(split_words("a 'b c' \"d\""), ["a", "b c", "d"]);
        let res = regexes("/a+/X/ /B/y/i");
        assert_eq!(res.len(), 2);
        assert_eq!(res[0].0.replace_all("caab", res[0].1.as_str()), "cXb");
        assert_eq!(res[1].0.replace_all("b", res[1].1.as_str()), "y");
        assert!(truthy("1") && truthy("abc") && !truthy("0") && !truthy(""));
        assert_eq!(format_number(3.0), "3");
    }
}
