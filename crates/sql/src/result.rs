//! What a statement returns: an OK (affected rows) or a result set.

use crate::value::Value;
use std::sync::Arc;

/// MySQL's column type codes (the `type` byte of a column definition).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ColumnType {
    Decimal = 0,
    Tiny = 1,
    Short = 2,
    Long = 3,
    Float = 4,
    Double = 5,
    Null = 6,
    Timestamp = 7,
    LongLong = 8,
    Int24 = 9,
    Date = 10,
    Time = 11,
    DateTime = 12,
    Year = 13,
    VarChar = 15,
    Bit = 16,
    NewDecimal = 246,
    Blob = 252,
    VarString = 253,
    String = 254,
}

/// Column definition flags (NOT_NULL, PRI_KEY, UNSIGNED, BINARY, ...), MySQL's bits.
pub mod column_flags {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const ENUM: u16 = 256;
    pub const AUTO_INCREMENT: u16 = 512;
    pub const TIMESTAMP: u16 = 1024;
    pub const SET: u16 = 2048;
    pub const NO_DEFAULT_VALUE: u16 = 4096;
    pub const NUM: u16 = 32768;
}

/// Character set ids used in column definitions.
pub mod charsets {
    pub const UTF8MB4_GENERAL_CI: u16 = 45;
    pub const BINARY: u16 = 63;
}

/// One result column's metadata, as the column definition packet carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    pub charset: u16,
    pub length: u32,
    pub column_type: ColumnType,
    pub flags: u16,
    pub decimals: u8,
}

/// The outcome of one statement.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryResult {
    Ok {
        affected_rows: u64,
        last_insert_id: u64,
        warnings: u16,
        /// The OK packet's human-readable info (`Rows matched: 1  Changed: 1  Warnings: 0`).
        info: String,
    },
    Rows {
        columns: Arc<Vec<Column>>,
        rows: Vec<Vec<Value>>,
        warnings: u16,
    },
}
