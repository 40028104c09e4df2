//! `myriad-bench` end to end against the real MariaDB (Debian's mariadb-server and sysbench
//! must be installed): a quick experiment writes its JSON record, markdown table and plot;
//! a target that cannot start becomes error rows and exit status 2; Ctrl-C leaves no server
//! behind.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use myriad_bench::report::Record;

mod common;

use common::{assert_nothing_left, processes_mentioning, run_bench, BIN};

fn read_record(path: &Path) -> Record {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

fn assert_png(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is a PNG",
        path.display()
    );
    assert!(
        bytes.len() > 10_000,
        "{} has only {} bytes",
        path.display(),
        bytes.len()
    );
}

#[test]
fn quick_query_cache_against_mariadb_writes_json_table_and_plot() {
    let out = tempfile::tempdir().expect("tempdir");
    let work = tempfile::tempdir().expect("tempdir");
    let started = Instant::now();
    let stdout = run_bench(
        &[
            "run",
            "query-cache",
            "--quick",
            "--target",
            "mariadb",
            "--time",
            "2",
        ],
        out.path(),
        work.path(),
    );
    eprintln!(
        "quick query-cache took {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let record = read_record(&out.path().join("query-cache.json"));
    assert_eq!(record.experiment, "query-cache");
    assert!(record.quick);
    assert_eq!(record.error_rows, 0);
    assert!(record.machine.cores >= 1 && record.machine.memory_bytes > 0);
    let mariadb = &record.targets[0];
    assert_eq!(mariadb.target, "mariadb");
    assert!(
        mariadb
            .server_version
            .as_deref()
            .is_some_and(|v| v.contains("MariaDB")),
        "{mariadb:?}"
    );
    // Three cache configurations per workload (low hit ratio, hot set), each with its
    // settings as the server reported them.
    assert_eq!(
        mariadb.configurations.len(),
        6,
        "{:?}",
        mariadb.configurations
    );
    let big = mariadb
        .configurations
        .iter()
        .find(|c| c.label == "qc 256MB")
        .expect("256 MB configuration");
    assert_eq!(big.effective["query_cache_size"], "268435456");
    // 2 workloads x 3 configurations x 2 thread counts, every one measured, with counters.
    assert_eq!(record.rows.len(), 12, "{:#?}", record.rows);
    for row in &record.rows {
        assert!(row.error.is_none(), "{row:?}");
        assert!(row.get_metric("tps").unwrap_or(0.0) > 0.0, "{row:?}");
        assert!(row.get_metric("lat_p95_ms").unwrap_or(0.0) > 0.0, "{row:?}");
        assert!(
            row.status_delta.get("Com_select").copied().unwrap_or(0) > 0,
            "{row:?}"
        );
        assert!(row
            .command
            .as_deref()
            .unwrap_or("")
            .contains("sysbench oltp_read_only"));
    }
    let cached = record
        .rows
        .iter()
        .filter(|r| !r.config.ends_with("qc off"))
        .all(|r| r.get_metric("qc_hit_ratio").is_some());
    assert!(cached, "hit ratios of the cache-on cells");
    // Interleaved: one sample per cell (no --repeat), and the three cache configurations of
    // one workload and thread count ran one right after the other (switched at run time).
    for row in &record.rows {
        assert_eq!(row.samples.len(), 1, "{row:?}");
        assert!(row.samples[0].load_average_1m >= 0.0);
        assert!(
            row.get_metric("server_cpu_us_per_txn").unwrap_or(0.0) > 0.0,
            "{row:?}"
        );
    }
    for workload in ["", "hot "] {
        for threads in [1u64, 16] {
            let mut sequences: Vec<u64> = record
                .rows
                .iter()
                .filter(|r| {
                    r.config.starts_with(&format!("{workload}qc "))
                        && r.params["threads"].as_u64() == Some(threads)
                })
                .map(|r| r.samples[0].sequence)
                .collect();
            sequences.sort();
            assert_eq!(sequences.len(), 3, "{workload}{threads}");
            assert_eq!(
                sequences[2] - sequences[0],
                2,
                "off, 64 MB and 256 MB back to back: {sequences:?}"
            );
        }
    }

    // The markdown table, printed and written.
    assert!(
        stdout.contains("| target | threads | off | 64 MB | 256 MB |"),
        "{stdout}"
    );
    let md = std::fs::read_to_string(out.path().join("query-cache.md")).expect("md");
    assert!(md.contains("| mariadb | qc 256MB |"), "{md}");
    assert_eq!(
        record.plots,
        vec![
            "query-cache.png".to_string(),
            "query-cache-hot.png".to_string()
        ]
    );
    assert_png(&out.path().join("query-cache.png"));
    assert_png(&out.path().join("query-cache-hot.png"));

    // Nothing left running, nothing left on disk.
    assert_nothing_left(work.path());
}

#[test]
fn a_target_that_cannot_start_becomes_error_rows_and_exit_status_2() {
    let out = tempfile::tempdir().expect("tempdir");
    let work = tempfile::tempdir().expect("tempdir");
    // A stand-in for a myriad that exits at once, as the placeholder binary does.
    let fake = work.path().join("fake-myriad");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'myriad: not built yet' >&2\nexit 1\n",
    )
    .expect("script");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let output = Command::new(BIN)
        .args([
            "run",
            "many-tables",
            "--quick",
            "--target",
            "both",
            "--tables",
            "150",
        ])
        .args(["--engine", "myisam"])
        .arg("--myriad-bin")
        .arg(&fake)
        .arg("--out")
        .arg(out.path())
        .arg("--work-dir")
        .arg(work.path())
        .stdin(Stdio::null())
        .output()
        .expect("myriad-bench runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(2),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let record = read_record(&out.path().join("many-tables.json"));
    let errors: Vec<_> = record.rows.iter().filter(|r| r.error.is_some()).collect();
    assert_eq!(errors.len(), record.error_rows);
    assert!(!errors.is_empty());
    for row in &errors {
        assert_eq!(row.target, "myriad", "{row:?}");
        assert!(
            row.error.as_deref().unwrap_or("").contains("not built yet"),
            "{row:?}"
        );
    }
    // MariaDB's side was measured in full: create, then 2 passes at 64 and at 150.
    let mariadb: Vec<_> = record
        .rows
        .iter()
        .filter(|r| r.target == "mariadb" && r.error.is_none())
        .collect();
    assert_eq!(mariadb.len(), 1 + 2 * 2, "{mariadb:#?}");
    assert!(mariadb
        .iter()
        .all(|r| r.get_metric("tables_per_s").unwrap_or(0.0) > 0.0));
    assert!(
        stdout.contains("| myriad | myriad |") && stdout.contains("not built yet"),
        "error row in the table: {stdout}"
    );
    assert_png(&out.path().join("many-tables-rate.png"));
    assert!(processes_mentioning(&work.path().to_string_lossy()).is_empty());
}

#[test]
fn ctrl_c_stops_the_servers_and_removes_their_datadirs() {
    let out = tempfile::tempdir().expect("tempdir");
    let work = tempfile::tempdir().expect("tempdir");
    let work_path = work.path().to_string_lossy().to_string();
    let mut child = Command::new(BIN)
        .args([
            "run", "oltp", "--target", "mariadb", "--time", "60", "--rows", "1000",
        ])
        .arg("--out")
        .arg(out.path())
        .arg("--work-dir")
        .arg(work.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(out.path().join("stderr.log")).expect("stderr log"))
        .spawn()
        .expect("myriad-bench starts");
    // Wait until a sysbench run is under way against a server of ours.
    let deadline = Instant::now() + Duration::from_secs(60);
    let ours = |child: &std::process::Child| {
        let me = child.id();
        processes_mentioning(&work_path)
            .into_iter()
            .filter(|pid| *pid != me)
            .collect::<Vec<_>>()
    };
    loop {
        let running = ours(&child);
        let sysbench = processes_mentioning("--time=60");
        if !running.is_empty() && !sysbench.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "no server and sysbench appeared");
        assert!(
            child.try_wait().expect("wait").is_none(),
            "myriad-bench exited early: {}",
            std::fs::read_to_string(out.path().join("stderr.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let servers = ours(&child);
    // Safety: SIGINT to our own child, as Ctrl-C in a terminal would send.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().expect("exits");
    assert_eq!(status.code(), Some(130));
    std::thread::sleep(Duration::from_millis(200));
    for pid in servers {
        assert!(
            !myriad_bench::server::process_alive(pid),
            "server {pid} survived Ctrl-C"
        );
    }
    assert_nothing_left(work.path());
}

#[test]
fn list_names_every_experiment_and_usage_errors_exit_1() {
    let list = Command::new(BIN).arg("list").output().expect("runs");
    assert!(list.status.success());
    let text = String::from_utf8_lossy(&list.stdout);
    for name in [
        "many-tables",
        "key-cache",
        "query-cache",
        "open-files",
        "table-cache-instances",
        "oltp",
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
    for args in [
        &["run", "no-such-experiment"][..],
        &["run", "oltp", "--bogus"][..],
    ] {
        let out = Command::new(BIN).args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?} explains itself");
    }
}
