//! The `mariadb` client run against a MariaDB 10.11 peer (started by the test kit) or
//! against a myriad [`Server`] with the same options, so that both answers can be compared.

use super::{require_program, run_with_timeout, Server};
use std::collections::HashMap;
use std::process::Command;
use std::time::Duration;

/// A fresh MariaDB for a test, from the test kit; killed and removed on drop.
pub fn start_mariadb() -> myriad_testkit::Owned {
    require_program("mariadbd");
    myriad_testkit::Owned::mariadb(&[]).unwrap_or_else(|e| panic!("MariaDB did not start: {e:#}"))
}

/// Where the `mariadb` client connects.
pub enum Peer<'a> {
    Myriad(&'a Server),
    Maria(&'a myriad_testkit::Owned),
}

/// Run `sql` as root with `mariadb --batch --silent`: what it printed on standard output
/// followed by its error line, if any ("ERROR 1094 (HY000) at line 1: Unknown thread id: 9").
/// The client's echo of the failed statement (between two lines of dashes) is left out: it
/// prints it when the error ends the query's first reply, not when it ends a result set
/// whose columns had come (MariaDB sends the columns of `SELECT SLEEP(1)` before its
/// max_statement_time error), and the error is the same.
pub fn run(peer: &Peer, sql: &str) -> String {
    run_as(peer, "root", None, sql)
}

/// [`run`] as account `user` with `password`.
pub fn run_as(peer: &Peer, user: &str, password: Option<&str>, sql: &str) -> String {
    require_program("mariadb");
    let mut command = Command::new("mariadb");
    match peer {
        Peer::Myriad(server) => command.args(["-h127.0.0.1", &format!("-P{}", server.port)]),
        Peer::Maria(maria) => command.arg(format!("-S{}", maria.socket().display())),
    };
    command.arg(format!("-u{user}"));
    if let Some(password) = password {
        command.arg(format!("-p{password}"));
    }
    command.args(["--batch", "--silent", "-e", sql]);
    let out = run_with_timeout(&mut command, Duration::from_secs(60));
    let mut errors = String::new();
    let mut in_echo = false;
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        if line == "--------------" {
            in_echo = !in_echo;
        } else if !in_echo && !line.is_empty() {
            errors.push_str(line);
        }
    }
    format!("{}{errors}", String::from_utf8_lossy(&out.stdout))
}

/// An outcome as the comparisons take it: the error code alone (messages name hosts,
/// which differ between a socket and TCP), else the output's lines, sorted (MariaDB lists
/// grants in its hash tables' order).
pub fn outcome(output: &str) -> String {
    match output.find("ERROR ") {
        Some(at) => output[at..]
            .split(' ')
            .take(2)
            .collect::<Vec<_>>()
            .join(" "),
        None => {
            let mut lines: Vec<&str> = output.lines().collect();
            lines.sort_unstable();
            lines.join("\n")
        }
    }
}

/// `sql` run as `user` with `password` on myriad (`peers[0]`) and on MariaDB (`peers[1]`):
/// both [`outcome`]s.
pub fn outcomes_as(
    peers: &[Peer; 2],
    user: &str,
    password: Option<&str>,
    sql: &str,
) -> (String, String) {
    let of = |peer| outcome(&run_as(peer, user, password, sql));
    (of(&peers[0]), of(&peers[1]))
}

/// The statements whose outcome on myriad is not MariaDB's, gathered for one assertion.
#[derive(Default)]
pub struct Differences(Vec<String>);

impl Differences {
    /// [`outcomes_as`], noting a difference; myriad's outcome.
    pub fn run_as(
        &mut self,
        peers: &[Peer; 2],
        user: &str,
        password: Option<&str>,
        sql: &str,
    ) -> String {
        let (mine, theirs) = outcomes_as(peers, user, password, sql);
        if mine != theirs {
            self.0.push(format!(
                "{user}: {sql}\n  myriad:  {mine}\n  MariaDB: {theirs}"
            ));
        }
        mine
    }

    /// Fails with every difference noted.
    pub fn assert_none(&self) {
        assert!(
            self.0.is_empty(),
            "{} statements differ from MariaDB:\n{}",
            self.0.len(),
            self.0.join("\n")
        );
    }
}

/// The rows of a two-column `--batch` result with its header line (`SHOW STATUS`: a name, a
/// tab, a number) as a map; a row whose value is not a number is left out.
pub fn counters(batch: &str) -> HashMap<String, u64> {
    batch
        .lines()
        .skip(1)
        .filter_map(|l| {
            let (k, v) = l.split_once('\t')?;
            Some((k.to_string(), v.parse().ok()?))
        })
        .collect()
}

/// Run each `(who, statements)` step on `peer` (`root`, or the account `who` with
/// password `pw`): per step, who ran what and what came back, for comparing two servers.
pub fn run_steps(peer: &Peer, steps: &[(&str, &str)]) -> Vec<String> {
    steps
        .iter()
        .map(|(who, sql)| {
            let out = if *who == "root" {
                run(peer, sql)
            } else {
                run_as(peer, who, Some("pw"), sql)
            };
            format!("{who}: {sql}\n  -> {}", out.trim())
        })
        .collect()
}

/// Run `steps` on a fresh myriad and a fresh MariaDB ([`run_steps`]), fail with every step
/// whose output differs, and check that each of `expected` begins some step of myriad's
/// (`"who: statements\n  -> output"`), so that agreeing on an error everywhere cannot pass.
pub fn assert_steps_as_in_mariadb(steps: &[(&str, &str)], expected: &[&str]) {
    let maria = start_mariadb();
    let server = Server::start(&[]);
    let ours = run_steps(&Peer::Myriad(&server), steps);
    let theirs = run_steps(&Peer::Maria(&maria), steps);
    assert_same_steps(&ours, &theirs);
    for expected in expected {
        assert!(
            ours.iter().any(|line| line.starts_with(expected)),
            "{expected} in {ours:#?}"
        );
    }
}

/// Fail with every step whose output differs between myriad (`ours`) and MariaDB.
pub fn assert_same_steps(ours: &[String], theirs: &[String]) {
    let differ: Vec<String> = ours
        .iter()
        .zip(theirs)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("myriad:  {a}\nMariaDB: {b}"))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
