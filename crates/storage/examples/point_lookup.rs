//! Cost of a primary-key point lookup on a cached table (the sysbench point-select path
//! without SQL), and of a small index range scan.
//!
//! `cargo run -p myriad-storage --example point_lookup [rows] [threads]`

#[path = "../tests/common/mod.rs"]
mod common;

use myriad_storage::*;
use std::ops::Bound;
use std::time::Instant;

/// Command-line argument `n`, or `default` when it is absent or not a number.
fn arg<T: std::str::FromStr>(n: usize, default: T) -> T {
    std::env::args()
        .nth(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), StorageError> {
    let rows: i64 = arg(1, 100_000);
    let threads: usize = arg(2, 1);
    let dir = tempfile::tempdir()?;
    let s = Storage::open(StorageConfig {
        datadir: dir.path().into(),
        block_cache_bytes: 512 << 20,
        ..Default::default()
    })?;
    s.create_database("sb")?;
    let int = ColumnType::Int {
        width: IntWidth::Int,
        unsigned: false,
    };
    let ch = |len| ColumnType::Char {
        len,
        collation: Collation::Utf8mb4GeneralCi,
    };
    let def = TableDef {
        columns: vec![
            ColumnDef::new("id", int.clone()).not_null(),
            ColumnDef::new("k", int).not_null(),
            ColumnDef::new("c", ch(120)).not_null(),
            ColumnDef::new("pad", ch(60)).not_null(),
        ],
        indexes: vec![
            common::index("PRIMARY", IndexKind::Primary, &[0]),
            common::index("k_1", IndexKind::NonUnique, &[1]),
        ],
        options: vec![],
        checks: Vec::new(),
        foreign_keys: Vec::new(),
    };
    s.create_table("sb", "sbtest1", &def)?;
    let t = s.open_table("sb", "sbtest1")?;
    let started = Instant::now();
    let mut st = s.begin();
    for id in 1..=rows {
        let row = vec![
            Value::Int(id),
            Value::Int(id % 5000),
            Value::Bytes(format!("{id:0>119}").into_bytes()),
            Value::Bytes(format!("{id:0>59}").into_bytes()),
        ];
        t.insert(&mut st, &row)?;
        if id % 10_000 == 0 {
            st.commit()?;
            st = s.begin();
        }
    }
    st.commit()?;
    println!(
        "insert: {:.2} us/row",
        started.elapsed().as_secs_f64() * 1e6 / rows as f64
    );
    let lookups = 1_000_000usize;
    let started = Instant::now();
    std::thread::scope(|scope| {
        for th in 0..threads {
            let s = &s;
            scope.spawn(move || {
                let mut x = th as u64 + 7;
                for _ in 0..lookups / threads {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let id = 1 + (x >> 33) as i64 % rows;
                    // Open through the table cache each time, as a statement would.
                    let t = s.open_table("sb", "sbtest1").unwrap();
                    let (_, row) = t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap();
                    assert_eq!(row[0], Value::Int(id));
                }
            });
        }
    });
    let secs = started.elapsed().as_secs_f64();
    println!(
        "point lookup ({threads} threads): {:.2} us each, {:.0} lookups/s",
        secs * 1e6 * threads as f64 / lookups as f64,
        lookups as f64 / secs
    );
    let started = Instant::now();
    let scans = 100_000;
    for i in 0..scans {
        let lo = [Value::Int(i % 5000)];
        let hi = [Value::Int(i % 5000 + 5)];
        let n = common::scan_count(&t, 1, &lo, Bound::Excluded(&hi));
        assert!(n > 0);
    }
    println!(
        "index range of ~{} rows: {:.2} us each",
        5 * rows / 5000,
        started.elapsed().as_secs_f64() * 1e6 / scans as f64
    );
    let started = Instant::now();
    for i in 0..scans {
        let lo = [Value::Int(1 + (i * 7919) % (rows - 100))];
        let hi = [Value::Int(1 + (i * 7919) % (rows - 100) + 99)];
        let n = common::scan_count(&t, 0, &lo, Bound::Included(&hi));
        assert_eq!(n, 100);
    }
    println!(
        "primary key range of 100 rows: {:.2} us each",
        started.elapsed().as_secs_f64() * 1e6 / scans as f64
    );
    let stats = s.block_cache_stats();
    println!(
        "Key_read_requests {} Key_reads {}",
        stats.key_read_requests, stats.key_reads
    );
    Ok(())
}
