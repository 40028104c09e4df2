//! What the end-to-end tests of `myriad-bench` share: running the binary on a pair of
//! temporary directories and checking what it left behind.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_myriad-bench");

/// Run `myriad-bench` with `args`, writing its results to `out` and its servers' datadirs
/// under `work`; asserts that it exited successfully and returns its standard output.
pub fn run_bench(args: &[&str], out: &Path, work: &Path) -> String {
    let output = Command::new(BIN)
        .args(args)
        .arg("--out")
        .arg(out)
        .arg("--work-dir")
        .arg(work)
        .stdin(Stdio::null())
        .output()
        .expect("myriad-bench runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    stdout
}

/// Processes whose command line mentions `needle` (our servers carry their temporary
/// directory in `--defaults-file=` or `--datadir`).
pub fn processes_mentioning(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(needle)
            && myriad_bench::server::process_alive(pid)
        {
            found.push(pid);
        }
    }
    found
}

/// Asserts that no server runs from `work` and that nothing is left in it.
pub fn assert_nothing_left(work: &Path) {
    let work_path = work.to_string_lossy().to_string();
    assert!(processes_mentioning(&work_path).is_empty());
    let left: Vec<PathBuf> = std::fs::read_dir(work)
        .expect("work dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "datadirs left behind: {left:?}");
}
