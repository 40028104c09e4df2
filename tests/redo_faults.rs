//! Faults in the redo log, end to end: the real binary writes acknowledged rows, is killed
//! with SIGKILL, its log is damaged, and it is started again.
//!
//! - a torn last group (the segment cut mid-group): it starts, every row acknowledged
//!   before that group is there, and the torn bytes are kept aside;
//! - a flipped byte in a group with valid groups after it: it refuses to start (exit status
//!   1, a message naming segment, offset, LSN and what follows) and leaves every byte of the
//!   datadir as it was; with `--force-recovery` it starts, says what it did not replay, and
//!   a later start needs no force;
//! - `kill -9` at random points of a write load: every acknowledged row is there and no
//!   statement is half-applied (the load of `common/write_load.rs`);
//! - a failed final checkpoint at shutdown: an error in the log and exit status 1;
//! - the datadir is 0700 and every file in it 0600, and a looser datadir is reported.

mod common;
#[path = "common/write_load.rs"]
mod write_load;

use common::{run_with_timeout, runtime, Datadir, Server};
use mysql_async::prelude::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const GROUP_MAGIC: u32 = 0x4D59_524C;
const GROUP_HEADER: usize = 20;

/// Rows the log tests insert, one acknowledged statement each.
const ROWS: i64 = 40;

fn redo_dir(datadir: &Path) -> PathBuf {
    datadir.join("#redo")
}

/// The log segments, by start LSN.
fn segments(datadir: &Path) -> Vec<(u64, PathBuf)> {
    let mut out: Vec<(u64, PathBuf)> = std::fs::read_dir(redo_dir(datadir))
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name()?.to_str()?.to_string();
            let start = u64::from_str_radix(name.strip_suffix(".log")?, 16).ok()?;
            Some((start, path))
        })
        .collect();
    out.sort();
    out
}

/// One group in a segment: its offset, total length, and payload.
struct GroupAt {
    offset: usize,
    len: usize,
    payload: Vec<u8>,
}

/// The groups of the last segment at or after the checkpoint (the ones recovery replays),
/// read the way the format describes them.
fn groups_after_checkpoint(datadir: &Path) -> (PathBuf, Vec<GroupAt>) {
    let checkpoint = std::fs::read(redo_dir(datadir).join("checkpoint"))
        .map(|b| u64::from_le_bytes(b[8..16].try_into().unwrap()))
        .unwrap_or(16);
    let segs = segments(datadir);
    let (start, path) = segs.last().cloned().expect("a redo segment");
    let bytes = std::fs::read(&path).unwrap();
    let mut out = Vec::new();
    let mut off = 0;
    while off + GROUP_HEADER <= bytes.len() {
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        if word(off) != GROUP_MAGIC {
            break;
        }
        let len = word(off + 4) as usize;
        if start + off as u64 >= checkpoint {
            out.push(GroupAt {
                offset: off,
                len: GROUP_HEADER + len,
                payload: bytes[off + GROUP_HEADER..off + GROUP_HEADER + len].to_vec(),
            });
        }
        off += GROUP_HEADER + len;
    }
    (path, out)
}

/// The first group whose payload holds `marker`.
fn group_with(groups: &[GroupAt], marker: &str) -> usize {
    groups
        .iter()
        .position(|g| {
            g.payload
                .windows(marker.len())
                .any(|w| w == marker.as_bytes())
        })
        .unwrap_or_else(|| panic!("no redo group holds {marker:?}"))
}

fn marker(id: i64) -> String {
    format!("row-{id:05}-written")
}

/// Create `f.t` and insert rows 1..=ROWS, one statement each, all acknowledged.
fn write_rows(server: &Server) {
    let url = server.url("root", "", None);
    runtime().block_on(async {
        let mut conn = mysql_async::Conn::from_url(url.as_str()).await.unwrap();
        conn.query_drop("CREATE DATABASE f").await.unwrap();
        conn.query_drop("CREATE TABLE f.t (id BIGINT PRIMARY KEY, v VARCHAR(40) NOT NULL)")
            .await
            .unwrap();
        for id in 1..=ROWS {
            conn.query_drop(format!("INSERT INTO f.t VALUES ({id}, '{}')", marker(id)))
                .await
                .unwrap();
        }
        conn.disconnect().await.unwrap();
    });
}

/// The rows of `f.t`, checked against what was written.
fn stored_ids(server: &Server) -> Vec<i64> {
    let url = server.url("root", "", None);
    let rows: Vec<(i64, String)> = runtime().block_on(async {
        let mut conn = mysql_async::Conn::from_url(url.as_str()).await.unwrap();
        let rows = conn
            .query("SELECT id, v FROM f.t ORDER BY id")
            .await
            .unwrap();
        conn.disconnect().await.unwrap();
        rows
    });
    for (id, v) in &rows {
        assert_eq!(v, &marker(*id), "row {id} holds another row's value");
    }
    rows.into_iter().map(|(id, _)| id).collect()
}

/// Kill the server with SIGKILL and hand back its directory.
fn kill_9(mut server: Server) -> Datadir {
    server.signal("KILL");
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
    server.into_dir()
}

/// Every file under `dir` with its bytes.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

/// Start the binary on `dir`'s datadir and wait for it to exit by itself (it must refuse
/// to start); returns its exit code and its log.
fn start_expecting_exit(dir: &Datadir, extra: &[&str]) -> (Option<i32>, String) {
    let datadir = dir.path().join("data");
    let output = run_with_timeout(
        Command::new(env!("CARGO_BIN_EXE_myriad"))
            .arg(format!(
                "--port={}",
                myriad_testkit::free_port().expect("a free port")
            ))
            .arg(format!("--datadir={}", datadir.display()))
            .args(extra)
            .env("MYRIAD_LOG", "info"),
        Duration::from_secs(30),
    );
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code(), log)
}

/// A server that wrote [`ROWS`] rows, killed with SIGKILL: its directory, its datadir, the
/// log segment after the checkpoint and that segment's groups.
fn rows_written_then_killed() -> (Datadir, PathBuf, PathBuf, Vec<GroupAt>) {
    let server = Server::start(&[]);
    write_rows(&server);
    let datadir = server.datadir.clone();
    let dir = kill_9(server);
    let (path, groups) = groups_after_checkpoint(&datadir);
    (dir, datadir, path, groups)
}

#[test]
fn a_torn_last_group_starts_with_every_row_before_it() {
    let (dir, datadir, path, groups) = rows_written_then_killed();
    let last = groups.last().unwrap();
    assert_eq!(
        group_with(&groups, &marker(ROWS)),
        groups.len() - 1,
        "the last group is the last INSERT"
    );
    // Cut the segment in the middle of its last group, zeros after it included.
    let cut = last.offset + last.len / 2;
    let torn = std::fs::read(&path).unwrap()[last.offset..cut].to_vec();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(cut as u64)
        .unwrap();
    let server = Server::start_in(dir, &[]);
    let ids = stored_ids(&server);
    for id in 1..ROWS {
        assert!(ids.contains(&id), "acknowledged row {id} is lost: {ids:?}");
    }
    let log = server.log_text();
    assert!(log.contains("a torn last write"), "{log}");
    assert!(
        log.contains(&format!("stops at offset {}", last.offset)),
        "{log}"
    );
    assert!(log.contains("redo recovery: replayed"), "{log}");
    let aside = PathBuf::from(format!("{}.damaged-", path.display()));
    let kept: Vec<_> = std::fs::read_dir(redo_dir(&datadir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().starts_with(&*aside.to_string_lossy()))
        .collect();
    assert_eq!(kept.len(), 1, "the torn bytes are kept aside: {kept:?}");
    // Up to the last non-zero byte (zeros read like the log's preallocated end).
    let nonzero = torn.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    assert!(nonzero > 0);
    assert_eq!(std::fs::read(&kept[0]).unwrap(), torn[..nonzero]);
}

#[test]
fn a_damaged_group_before_valid_ones_refuses_to_start_unless_forced() {
    let (dir, datadir, path, groups) = rows_written_then_killed();
    let damaged_row = ROWS / 2;
    let g = &groups[group_with(&groups, &marker(damaged_row))];
    let after = groups.iter().filter(|x| x.offset > g.offset).count();
    assert!(after >= (ROWS - damaged_row) as usize, "groups follow");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[g.offset + GROUP_HEADER + g.len / 3] ^= 0x08;
    std::fs::write(&path, &bytes).unwrap();
    let before = tree(&datadir);

    let (code, log) = start_expecting_exit(&dir, &[]);
    assert_eq!(code, Some(1), "a damaged log must stop the start:\n{log}");
    let segment_name = path.file_name().unwrap().to_string_lossy().into_owned();
    for part in [
        "cannot start",
        segment_name.as_str(),
        &format!("stops at offset {}", g.offset),
        "the group fails its crc32c",
        &format!("holding {after} valid groups"),
        "--force-recovery",
    ] {
        assert!(log.contains(part), "{part:?} is not in the log:\n{log}");
    }
    assert!(
        tree(&datadir) == before,
        "a refused start changed the datadir"
    );

    // Forced: it starts, says what it did not replay, and keeps the damaged bytes.
    let server = Server::start_in(dir, &["--force-recovery"]);
    let log = server.log_text();
    assert!(log.contains("force_recovery:"), "{log}");
    assert!(log.contains("NOT replayed"), "{log}");
    assert!(log.contains(".damaged-"), "{log}");
    let ids = stored_ids(&server);
    for id in 1..damaged_row {
        assert!(
            ids.contains(&id),
            "row {id} before the damage is lost: {ids:?}"
        );
    }
    // The damaged segment was retired by the checkpoint after recovery; a clean shutdown
    // and a start without the force option then need nothing more.
    let mut server = server;
    server.signal("TERM");
    let status = server.wait_exit(Duration::from_secs(30)).unwrap();
    assert!(status.success(), "{}", server.log_text());
    let dir = server.into_dir();
    let server = Server::start_in(dir, &[]);
    assert_eq!(
        stored_ids(&server),
        ids,
        "the second start changed the rows"
    );
}

#[test]
fn kill_9_at_random_points_replays_every_acknowledged_statement() {
    const ROUNDS: usize = 6;
    let started = Instant::now();
    let mut server = Server::start(&[]);
    let mut load = write_load::CrashLoad::new(&server);
    let mut replayed_rounds = 0;
    for round in 0..ROUNDS {
        let run_ms = 50 + load.rng.below(400);
        let dir = load.load_and_kill(server, run_ms);
        server = Server::start_in(dir, &[]);
        let rows = load.verify_after_restart(&server, round);
        let log = server.log_text();
        assert!(!log.contains("force_recovery"), "{log}");
        if log.contains("redo recovery: replayed") {
            replayed_rounds += 1;
        }
        eprintln!("round {round}: {rows} rows verified after kill -9 at {run_ms} ms");
    }
    assert!(load.statements > 0, "the load wrote nothing");
    assert!(replayed_rounds > 0, "no restart replayed the log");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_failed_final_checkpoint_exits_non_zero() {
    let mut server = Server::start(&[]);
    write_rows(&server);
    // The checkpoint writes #redo/checkpoint.tmp first: a directory there fails it.
    let blocker = redo_dir(&server.datadir).join("checkpoint.tmp");
    std::fs::create_dir_all(blocker.join("in-the-way")).unwrap();
    server.signal("TERM");
    let status = server.wait_exit(Duration::from_secs(30)).expect("it exits");
    let log = server.log_text();
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(log.contains("final checkpoint at shutdown failed"), "{log}");
    assert!(!log.contains("shutdown complete"), "{log}");
    // The log still holds every row: the next start recovers them.
    std::fs::remove_dir_all(&blocker).unwrap();
    let dir = server.into_dir();
    let server = Server::start_in(dir, &[]);
    assert_eq!(stored_ids(&server), (1..=ROWS).collect::<Vec<_>>());
}

#[test]
fn the_datadir_is_private_and_a_loose_one_is_reported() {
    let dir = common::scratch_dir("modes");
    // The server makes the datadir itself (the test kit made an empty one).
    std::fs::remove_dir(dir.data()).unwrap();
    let socket = dir.path().join("myriad.sock");
    let server = Server::start_in(dir, &[&format!("--socket={}", socket.display())]);
    write_rows(&server);
    let url = server.url("root", "", None);
    runtime().block_on(async {
        let mut conn = mysql_async::Conn::from_url(url.as_str()).await.unwrap();
        conn.query_drop("CREATE USER 'alice'@'localhost' IDENTIFIED BY 'secret'")
            .await
            .unwrap();
        conn.query_drop("FLUSH TABLES").await.unwrap();
        conn.disconnect().await.unwrap();
    });
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&server.datadir), 0o700, "the datadir");
    let mut files = 0;
    let mut stack = vec![server.datadir.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                assert_eq!(mode(&path), 0o700, "{}", path.display());
                stack.push(path);
            } else {
                assert_eq!(mode(&path), 0o600, "{}", path.display());
                files += 1;
            }
        }
    }
    assert!(
        files >= 4,
        "tables, redo, checkpoint and accounts: {files} files"
    );
    assert!(!server.log_text().contains("the datadir has mode"));
    // The socket is outside the datadir and open to every local user, as MariaDB's.
    assert_eq!(mode(&socket), 0o777, "the unix socket");
    drop(server);

    // A datadir made by hand with 0755 is used as it is, with a warning.
    let dir = common::scratch_dir("loose");
    let datadir = dir.path().join("data");
    std::fs::set_permissions(&datadir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = Server::start_in(dir, &[]);
    let log = server.log_text();
    assert!(log.contains("the datadir has mode 755"), "{log}");
    assert_eq!(
        mode(&server.datadir),
        0o755,
        "an existing mode is not changed"
    );
}
