//! `information_schema` as virtual tables: each is a name, MariaDB's columns and the
//! producer of its rows (run by `crate::exec::info_schema` from the engine's state when a
//! statement reads it). Nothing is stored. Adding a table is one entry in [`TABLES`] and
//! one arm of the producer.

/// The producer of a virtual table's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VirtualRows {
    /// The key caches and their counters.
    KeyCaches,
}

/// A virtual table of `information_schema`.
pub struct VirtualTable {
    /// The name in upper case (matched case-insensitively).
    pub name: &'static str,
    /// `(column, width)`: width 0 is an unsigned integer column, else a string of that many
    /// characters (the convention of SHOW listings).
    pub columns: &'static [(&'static str, u32)],
    /// Which producer fills the rows when a statement reads the table.
    pub rows: VirtualRows,
}

/// Every virtual table.
pub static TABLES: &[VirtualTable] = &[VirtualTable {
    name: "KEY_CACHES",
    columns: KEY_CACHES_COLUMNS,
    rows: VirtualRows::KeyCaches,
}];

/// The virtual table with this name.
pub fn find(name: &str) -> Option<usize> {
    TABLES
        .iter()
        .position(|t| t.name.eq_ignore_ascii_case(name))
}

/// `information_schema.KEY_CACHES`: MariaDB's columns (0 = an unsigned integer column).
pub const KEY_CACHES_COLUMNS: &[(&str, u32)] = &[
    ("KEY_CACHE_NAME", 192),
    ("SEGMENTS", 0),
    ("SEGMENT_NUMBER", 0),
    ("FULL_SIZE", 0),
    ("BLOCK_SIZE", 0),
    ("USED_BLOCKS", 0),
    ("UNUSED_BLOCKS", 0),
    ("DIRTY_BLOCKS", 0),
    ("READ_REQUESTS", 0),
    ("READS", 0),
    ("WRITE_REQUESTS", 0),
    ("WRITES", 0),
];
