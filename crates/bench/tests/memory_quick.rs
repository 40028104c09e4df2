//! `myriad-bench run memory` end to end against the real MariaDB (Debian's mariadb-server):
//! every cell is measured (and, but for the connections cell, measured again on the same
//! server), the slow readers really read slowly and get every row, the readings are
//! consistent, and the record, table and plot are written.

use myriad_bench::report::Record;

mod common;

use common::run_bench;

#[test]
fn quick_memory_against_mariadb_measures_every_cell() {
    let out = tempfile::tempdir().expect("tempdir");
    let work = tempfile::tempdir().expect("tempdir");
    let stdout = run_bench(
        &[
            "run",
            "memory",
            "--quick",
            "--target",
            "mariadb",
            "--rows",
            "800",
            "--threads",
            "1,3",
            "--time",
            "1",
        ],
        out.path(),
        work.path(),
    );
    let text = std::fs::read_to_string(out.path().join("memory.json")).expect("memory.json");
    let record: Record = serde_json::from_str(&text).expect("a record");
    assert_eq!(record.error_rows, 0, "{stdout}");
    let cells: Vec<String> = record
        .rows
        .iter()
        .map(|row| row.params["cell"].as_str().expect("cell").to_string())
        .collect();
    assert_eq!(
        cells,
        [
            "1 slow reader",
            "3 slow readers",
            "20 connections",
            "ORDER BY k",
            "ORDER BY k LIMIT 3",
            "join without index",
            "IN list"
        ],
        "one row per cell, in order"
    );
    for row in &record.rows {
        let metric = |name: &str| {
            row.get_metric(name)
                .unwrap_or_else(|| panic!("{name} of {row:?}"))
        };
        assert!(metric("baseline_mb") > 10.0, "a running MariaDB: {row:?}");
        assert!(metric("peak_mb") >= metric("baseline_mb"), "{row:?}");
        assert!(
            (metric("growth_mb") - (metric("peak_mb") - metric("baseline_mb"))).abs() < 1e-9,
            "{row:?}"
        );
        assert!(metric("rss_readings") >= 1.0, "{row:?}");
        assert_eq!(metric("hwm_reset"), 1.0, "VmHWM reset: {row:?}");
        // Every cell but the connections cell runs a second time on the same server.
        if row.params["cell"] == "20 connections" {
            assert!(row.get_metric("again_growth_mb").is_none(), "{row:?}");
        } else {
            assert!(
                metric("again_peak_mb") >= metric("again_baseline_mb"),
                "{row:?}"
            );
            assert!(
                (metric("again_growth_mb")
                    - (metric("again_peak_mb") - metric("again_baseline_mb")))
                .abs()
                    < 1e-9,
                "{row:?}"
            );
        }
    }
    let readers = &record.rows[1];
    assert_eq!(
        readers.get_metric("rows"),
        Some(3.0 * 800.0),
        "every row, each reader"
    );
    // One row per millisecond for up to 1 s: 800 rows take at least 0.8 s (read at full
    // speed, a few ms).
    assert!(
        readers.get_metric("seconds").expect("seconds") >= 0.8,
        "{readers:?}"
    );
    assert!(readers.get_metric("first_row_s").is_some());
    let connections = &record.rows[2];
    assert_eq!(
        connections.get_metric("rows"),
        Some(20.0),
        "{connections:?}"
    );
    assert!(connections.get_metric("growth_kb_per_connection").is_some());
    assert_eq!(record.rows[3].get_metric("rows"), Some(800.0));
    assert_eq!(record.rows[4].get_metric("rows"), Some(3.0));
    let md = std::fs::read_to_string(out.path().join("memory.md")).expect("memory.md");
    assert!(md.contains("Server RSS growth"), "{md}");
    let png = std::fs::read(out.path().join("memory-slow-readers.png")).expect("the plot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}
