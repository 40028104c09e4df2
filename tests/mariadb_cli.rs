//! The `mariadb` command-line client (Debian package mariadb-client), in
//! batch mode and interactively through a pseudo-terminal (tmux), with and without a
//! database: `status`, `use`, `SHOW VARIABLES LIKE 'version%'` work and nothing hangs.

mod common;

use common::{require_program, run_ok, run_with_timeout, Server};
use std::process::Command;
use std::time::{Duration, Instant};

fn mariadb_batch(server: &Server, database: Option<&str>, sql: &str) -> String {
    require_program("mariadb");
    let mut command = server.client("mariadb");
    command.args(["--batch", "-e", sql]);
    if let Some(db) = database {
        command.arg(db);
    }
    run_ok(
        &mut command,
        Duration::from_secs(20),
        &format!("mariadb -e {sql:?}"),
    )
}

#[test]
fn batch_mode_without_and_with_a_database() {
    let server = Server::start(&[]);

    let out = mariadb_batch(
        &server,
        None,
        "status; SHOW VARIABLES LIKE 'version%'; SELECT DATABASE() AS db",
    );
    assert!(out.contains("Server version:"), "status output:\n{out}");
    assert!(
        out.contains("Protocol version:\t10"),
        "status output:\n{out}"
    );
    assert!(
        out.contains(&format!("TCP port:\t\t{}", server.port)),
        "status output:\n{out}"
    );
    assert!(
        out.contains("Current database:\t\n"),
        "no database selected:\n{out}"
    );
    let variables: Vec<&str> = out.lines().filter(|l| l.starts_with("version")).collect();
    assert!(
        variables.iter().any(|l| l.starts_with("version\t")),
        "SHOW VARIABLES: {variables:?}"
    );
    assert!(
        variables.iter().any(|l| l.starts_with("version_comment\t")),
        "SHOW VARIABLES: {variables:?}"
    );
    assert!(
        out.contains("db\nNULL\n"),
        "DATABASE() without a database is NULL:\n{out}"
    );

    let out = mariadb_batch(&server, Some("mysql"), "SELECT DATABASE() AS db;\nstatus");
    assert!(
        out.contains("db\nmysql\n"),
        "connected with a database:\n{out}"
    );
    assert!(
        out.contains("Current database:\tmysql"),
        "status with a database:\n{out}"
    );

    let out = mariadb_batch(
        &server,
        None,
        "use information_schema\nSELECT DATABASE() AS db",
    );
    assert!(
        out.contains("db\ninformation_schema\n"),
        "after use:\n{out}"
    );

    // Statements piped on standard input, as scripts do.
    let output = run_with_timeout(
        Command::new("bash").arg("-c").arg(format!(
            "printf 'SELECT 1+1 AS two;\\nSELECT CONCAT(\"a\",\"b\") AS ab;\\n' | mariadb -h127.0.0.1 -P{} -uroot --batch",
            server.port
        )),
        Duration::from_secs(20),
    );
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        out,
        "two\n2\nab\nab\n",
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );

    // A wrong password is refused with 1045.
    let output = run_with_timeout(
        server.client("mariadb").args(["-pwrong", "-e", "SELECT 1"]),
        Duration::from_secs(20),
    );
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("ERROR 1045"),
        "{:?}",
        output
    );
}

/// A tmux session on a private socket, killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(command: &str) -> Tmux {
        require_program("tmux");
        let socket = format!("myriad-e2e-{}-{}", std::process::id(), rand_suffix());
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "cli",
                "-x",
                "200",
                "-y",
                "50",
                command,
            ])
            .env_remove("TMUX")
            .status()
            .expect("run tmux");
        assert!(status.success(), "tmux new-session failed");
        Tmux { socket }
    }

    fn screen(&self) -> String {
        let output = Command::new("tmux")
            .args([
                "-L",
                &self.socket,
                "capture-pane",
                "-p",
                "-J",
                "-t",
                "cli",
                "-S",
                "-1000",
            ])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn send_line(&self, line: &str) {
        // tmux reads a trailing ';' as its own command separator; "\\;" is a literal one.
        let literal = match line.strip_suffix(';') {
            Some(head) => format!("{head}\\;"),
            None => line.to_string(),
        };
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "cli", "-l", &literal])
            .status()
            .expect("tmux send-keys");
        assert!(status.success());
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "cli", "Enter"])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Wait until `needle` appears `count` times on the screen; panic with the screen if
    /// it does not within the limit (the client hung or printed something else).
    fn wait_for(&self, needle: &str, count: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            if screen.matches(needle).count() >= count {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("waited 20 s for {count} x {needle:?}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn interactive_session(server: &Server, database: Option<&str>) {
    require_program("mariadb");
    let command = format!(
        "mariadb -h127.0.0.1 -P{} -uroot {}; echo CLIENT-EXITED-$?; sleep 60",
        server.port,
        database.unwrap_or("")
    );
    let tmux = Tmux::start(&command);
    // "MariaDB [db]>" or "MySQL [db]>", depending on the server's version string.
    let prompt = format!(" [{}]>", database.unwrap_or("(none)"));
    let screen = tmux.wait_for(&prompt, 1);
    assert!(
        screen.contains("Welcome to the MariaDB monitor"),
        "{screen}"
    );
    assert!(screen.contains("Server version:"), "{screen}");

    tmux.send_line("status");
    let screen = tmux.wait_for("Uptime:", 1);
    tmux.wait_for(&prompt, 2);
    // The terminal renders tabs as spaces.
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("Current user:") && l.trim_end().ends_with("root@localhost")),
        "{screen}"
    );

    tmux.send_line("use mysql");
    tmux.wait_for("Database changed", 1);
    tmux.wait_for(" [mysql]>", 1);

    tmux.send_line("SHOW VARIABLES LIKE 'version%';");
    let screen = tmux.wait_for("rows in set", 1);
    assert!(screen.contains("| version_comment"), "{screen}");
    tmux.wait_for(" [mysql]>", 2);

    tmux.send_line("SELECT 6*7 AS answer, DATABASE() AS db;");
    let screen = tmux.wait_for("1 row in set", 1);
    assert!(screen.contains("|     42 | mysql |"), "{screen}");

    tmux.send_line("quit");
    tmux.wait_for("CLIENT-EXITED-0", 1);
}

#[test]
fn interactive_client_through_a_pseudo_terminal() {
    let server = Server::start(&[]);
    interactive_session(&server, None);
    interactive_session(&server, Some("mysql"));
}

/// With a database that has tables, the interactive client builds its completion list at
/// connect time: SHOW DATABASES, SHOW TABLES, then COM_FIELD_LIST for every table. This
/// is where another server crate hangs the client.
#[test]
fn interactive_client_reads_table_fields_without_hanging() {
    let server = Server::start(&[]);
    mariadb_batch(
        &server,
        None,
        "CREATE DATABASE shop; CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20)); \
         CREATE TABLE shop.prices (item INT, amount DOUBLE); INSERT INTO shop.items VALUES (1, 'pen')",
    );
    let command = format!(
        "mariadb -h127.0.0.1 -P{} -uroot shop; echo CLIENT-EXITED-$?; sleep 60",
        server.port
    );
    let tmux = Tmux::start(&command);
    let screen = tmux.wait_for(" [shop]>", 1);
    assert!(
        screen.contains("Reading table information"),
        "auto-rehash ran:\n{screen}"
    );
    tmux.send_line("SELECT name FROM items WHERE id = 1;");
    let screen = tmux.wait_for("1 row in set", 1);
    assert!(screen.contains("| pen  |"), "{screen}");
    tmux.send_line("use mysql");
    tmux.wait_for("Database changed", 1);
    tmux.send_line("use shop");
    tmux.wait_for("Database changed", 2);
    tmux.wait_for(" [shop]>", 2);
    tmux.send_line("quit");
    tmux.wait_for("CLIENT-EXITED-0", 1);
}
