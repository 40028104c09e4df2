//! The `myriad` binary's options: --help lists options with defaults and the system
//! variables; --defaults-file groups; system variables as --name=value (dashes or
//! underscores) reach SELECT @@name; a bad variable stops start-up with a message;
//! --socket serves the mariadb client; --log-error receives the log; SIGTERM, SIGINT
//! and the SHUTDOWN statement shut the server down cleanly.

mod common;

use common::{require_program, run_ok, run_with_timeout, runtime, scratch_dir, Server};
use mysql_async::prelude::Queryable;
use std::process::Command;
use std::time::Duration;

fn mariadb(args: &[&str]) -> String {
    require_program("mariadb");
    let output = run_with_timeout(Command::new("mariadb").args(args), Duration::from_secs(20));
    assert!(
        output.status.success(),
        "mariadb {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn query(server: &Server, sql: &str) -> String {
    require_program("mariadb");
    run_ok(
        server
            .client("mariadb")
            .args(["--batch", "--skip-column-names", "-e", sql]),
        Duration::from_secs(20),
        "mariadb",
    )
}

/// Run `client`, which shuts the server down (`how`), and wait for a clean exit.
fn shut_down_by(server: &mut Server, client: &mut Command, how: &str) {
    run_ok(client, Duration::from_secs(20), how);
    let status = server
        .wait_exit(Duration::from_secs(20))
        .unwrap_or_else(|| panic!("the server exits after {how}"));
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn help_lists_options_with_defaults_and_system_variables() {
    let output = run_with_timeout(
        Command::new(env!("CARGO_BIN_EXE_myriad")).arg("--help"),
        Duration::from_secs(10),
    );
    assert!(output.status.success());
    // clap wraps long lines at the terminal width: compare with whitespace runs collapsed.
    let help = String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for needle in [
        "--port",
        "[default: 3307]",
        "--bind-address",
        "[default: 127.0.0.1]",
        "--socket",
        "--datadir",
        "[default: ./data]",
        "--max-connections",
        "--defaults-file",
        "--log-error",
        "System variables",
        "--wait_timeout",
        "--max_allowed_packet",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}

#[test]
fn option_file_and_command_line_variables() {
    let dir = scratch_dir("options");
    let file = dir.path().join("my.cnf");
    std::fs::write(
        &file,
        "[client]\nport=1\n\n[mysqld]\nmax-connections = 77\nwait_timeout=1234\n\n[myriad]\nmax_allowed_packet=\"8388608\"\n",
    )
    .unwrap();
    let server = Server::start_in(
        dir,
        &[
            &format!("--defaults-file={}", file.display()),
            "--interactive-timeout=4321",
            "--wait_timeout=999",
            "--thread-pool-size=3",
        ],
    );
    let out = query(&server, "SELECT @@max_connections, @@wait_timeout, @@max_allowed_packet, @@interactive_timeout, @@port, @@thread_pool_size");
    assert_eq!(
        out,
        format!("77\t999\t8388608\t4321\t{}\t3\n", server.port),
        "the command line wins over the file"
    );
    let threads = std::fs::read_dir(format!("/proc/{}/task", server.pid()))
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "myriad-worker")
        .count();
    // Three workers, plus the blocking-pool threads start-up handed work to (fewer than the
    // default of 8).
    assert!(
        (3..8).contains(&threads),
        "{threads} worker threads for thread_pool_size=3"
    );
}

#[test]
fn bad_system_variables_stop_start_up() {
    let dir = scratch_dir("badvar");
    for bad in [
        "--no-such-variable=1",
        "--max-connections=abc",
        "--wait-timeout=notanumber",
        "--thread-pool-size=lots",
    ] {
        let output = run_with_timeout(
            Command::new(env!("CARGO_BIN_EXE_myriad")).args([
                "--port=1",
                &format!("--datadir={}", dir.path().join("data").display()),
                bad,
            ]),
            Duration::from_secs(20),
        );
        assert!(!output.status.success(), "{bad} was accepted");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("myriad:"), "{bad}: no message: {stderr}");
    }
}

#[test]
fn unix_socket_and_log_file() {
    let dir = scratch_dir("socket");
    let socket = dir.path().join("myriad.sock");
    let log = dir.path().join("error.log");
    let mut server = Server::start_in(
        dir,
        &[
            &format!("--socket={}", socket.display()),
            &format!("--log-error={}", log.display()),
        ],
    );
    let out = mariadb(&[
        "-S",
        socket.to_str().unwrap(),
        "-uroot",
        "--batch",
        "--skip-column-names",
        "-e",
        "SELECT CURRENT_USER(), @@socket",
    ]);
    assert_eq!(out, format!("root@localhost\t{}\n", socket.display()));
    server.signal("TERM");
    let status = server
        .wait_exit(Duration::from_secs(20))
        .expect("the server exits after SIGTERM");
    assert!(status.success(), "exit status {status:?}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("ready for connections"), "{text}");
    assert!(
        text.contains("SIGTERM received") && text.contains("shutdown complete"),
        "{text}"
    );
    assert!(!socket.exists(), "the socket file is removed at shutdown");
}

#[test]
fn sigint_and_shutdown_statement_stop_the_server() {
    let mut server = Server::start(&[]);
    assert_eq!(query(&server, "SELECT 1"), "1\n");
    server.signal("INT");
    let status = server
        .wait_exit(Duration::from_secs(20))
        .expect("the server exits after SIGINT");
    assert!(status.success(), "exit status {status:?}");

    let mut server = Server::start(&[]);
    // Another client is connected and idle while SHUTDOWN runs.
    let runtime = runtime();
    let mut idle = runtime.block_on(server.connect_root());
    let mut client = server.client("mariadb");
    client.args(["-e", "SHUTDOWN"]);
    shut_down_by(&mut server, &mut client, "SHUTDOWN");
    assert!(server.log_text().contains("shutdown complete"));
    assert!(
        !server.log_text().contains('\u{1b}'),
        "no terminal colour codes in a log written to a file"
    );
    assert!(
        !server
            .log_text()
            .contains("connections still busy at shutdown"),
        "the idle connection was told to stop, not waited for"
    );
    runtime.block_on(async {
        assert!(idle.ping().await.is_err(), "the idle connection was closed");
    });

    // mariadb-admin shutdown sends COM_SHUTDOWN.
    let mut server = Server::start(&[]);
    let mut client = server.client("mariadb-admin");
    client.arg("shutdown");
    shut_down_by(&mut server, &mut client, "mariadb-admin shutdown");
}

#[test]
fn idle_connections_close_after_wait_timeout() {
    let server = Server::start(&["--wait-timeout=2"]);
    runtime().block_on(async {
        let opts = server.root_opts();
        let mut idle = server.connect_root().await;
        let mut busy = server.connect_root().await;
        // SET SESSION wait_timeout applies to its own connection, as in MySQL.
        let mut extended = mysql_async::Conn::new(opts.clone()).await.unwrap();
        extended
            .query_drop("SET SESSION wait_timeout = 100")
            .await
            .unwrap();
        // RESET CONNECTION takes the session's limit back to the connection's own.
        let mut reverted = mysql_async::Conn::new(opts.clone()).await.unwrap();
        reverted
            .query_drop("SET SESSION wait_timeout = 100")
            .await
            .unwrap();
        reverted.reset().await.unwrap();
        // Pings 0.3 s apart keep one connection alive for 3.6 s, well past the other's
        // 2 s limit, with room for a slow machine.
        for _ in 0..12 {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            busy.ping()
                .await
                .expect("a connection that keeps talking stays open");
        }
        assert!(
            idle.ping().await.is_err(),
            "the idle connection was closed after wait_timeout"
        );
        extended
            .ping()
            .await
            .expect("a connection that set a longer session wait_timeout stays open");
        assert!(
            reverted.ping().await.is_err(),
            "a connection reset after SET SESSION wait_timeout was closed after the global one"
        );
        let aborted: Option<(String, u64)> = busy
            .query_first("SHOW GLOBAL STATUS LIKE 'Aborted_clients'")
            .await
            .unwrap();
        assert!(aborted.map(|(_, n)| n).unwrap_or(0) >= 1);
    });
}

#[test]
fn set_global_max_connections_applies_to_the_next_connection() {
    let server = Server::start(&["--max-connections=100"]);
    runtime().block_on(async {
        let opts = server.root_opts();
        let mut first = mysql_async::Conn::new(opts.clone()).await.unwrap();
        // 10 is MariaDB's smallest max_connections.
        first
            .query_drop("SET GLOBAL max_connections = 10")
            .await
            .unwrap();
        let mut others = Vec::new();
        for _ in 0..9 {
            others.push(
                mysql_async::Conn::new(opts.clone())
                    .await
                    .expect("ten connections are admitted"),
            );
        }
        match mysql_async::Conn::new(opts.clone()).await {
            Err(mysql_async::Error::Server(err)) => assert_eq!(err.code, 1040),
            other => panic!(
                "the eleventh connection should get 1040, got {:?}",
                other.map(|_| ())
            ),
        }
        for conn in others {
            conn.disconnect().await.unwrap();
        }
        first.disconnect().await.unwrap();
    });
}
