//! Tables created per second by one client (seed 000's first phase, without SQL).
//!
//! `cargo run -p myriad-storage --example create_tables [tables]`

use myriad_storage::*;
use std::time::Instant;

fn main() -> Result<(), StorageError> {
    let tables: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2000);
    let dir = tempfile::tempdir()?;
    let s = Storage::open(StorageConfig {
        datadir: dir.path().into(),
        ..Default::default()
    })?;
    s.create_database("many")?;
    let def = TableDef {
        columns: vec![ColumnDef::new(
            "a",
            ColumnType::Int {
                width: IntWidth::Int,
                unsigned: false,
            },
        )],
        indexes: vec![],
        options: vec![],
        checks: Vec::new(),
        foreign_keys: Vec::new(),
    };
    let started = Instant::now();
    for i in 0..tables {
        s.create_table("many", &format!("t{i}"), &def)?;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{tables} tables created in {secs:.2} s: {:.0} tables/s",
        tables as f64 / secs
    );
    Ok(())
}
