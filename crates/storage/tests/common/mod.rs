//! Helpers shared by the storage integration tests.
#![allow(dead_code)]

use myriad_storage::*;
use std::ops::Bound;
use std::path::Path;

pub fn config(dir: &Path) -> StorageConfig {
    StorageConfig {
        datadir: dir.to_path_buf(),
        block_cache_bytes: 8 << 20,
        ..Default::default()
    }
}

pub fn int() -> ColumnType {
    ColumnType::Int {
        width: IntWidth::Int,
        unsigned: false,
    }
}

/// sysbench's table: id INT AUTO_INCREMENT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60),
/// KEY k_1 (k).
pub fn sbtest_def() -> TableDef {
    let mut id = ColumnDef::new("id", int()).not_null();
    id.auto_increment = true;
    let mut k = ColumnDef::new("k", int()).not_null();
    k.default = Some(Value::Int(0));
    TableDef {
        columns: vec![
            id,
            k,
            ColumnDef::new(
                "c",
                ColumnType::Char {
                    len: 120,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            )
            .not_null(),
            ColumnDef::new(
                "pad",
                ColumnType::Char {
                    len: 60,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            )
            .not_null(),
        ],
        indexes: vec![
            index("PRIMARY", IndexKind::Primary, &[0]),
            index("k_1", IndexKind::NonUnique, &[1]),
        ],
        options: vec![("ENGINE".into(), "InnoDB".into())],
        checks: Vec::new(),
        foreign_keys: Vec::new(),
    }
}

/// An index named `name` of `kind` over the columns at `columns`.
pub fn index(name: &str, kind: IndexKind, columns: &[usize]) -> IndexDef {
    IndexDef {
        name: name.into(),
        kind,
        columns: columns.to_vec(),
    }
}

/// How many rows index `index` of `t` holds from `lo` (included) up to `hi`, read forward.
pub fn scan_count(t: &Table, index: usize, lo: &[Value], hi: Bound<&[Value]>) -> usize {
    t.index_scan(index, Bound::Included(lo), hi, Direction::Forward)
        .unwrap()
        .count()
}

pub fn sb_row(id: i64, k: i64) -> Vec<Value> {
    vec![
        Value::Int(id),
        Value::Int(k),
        Value::Bytes(format!("c-{id:08}-{k}").into_bytes()),
        Value::Bytes(b"pad".to_vec()),
    ]
}

/// A storage in `dir` whose database `d` holds a table of sbtest's definition under each
/// of `tables`' names.
pub fn sbtest_tables(dir: &Path, tables: &[&str]) -> Storage {
    let s = Storage::open(config(dir)).unwrap();
    s.create_database("d").unwrap();
    for name in tables {
        s.create_table("d", name, &sbtest_def()).unwrap();
    }
    s
}

/// A storage in `dir` whose database `d` holds sbtest's table `t`, opened.
pub fn open_sbtest_t(dir: &Path) -> (Storage, Table) {
    let s = sbtest_tables(dir, &["t"]);
    let t = s.open_table("d", "t").unwrap();
    (s, t)
}
