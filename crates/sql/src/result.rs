//! What a statement returns: an OK (affected rows) or a result set.

use crate::value::Value;
use std::any::Any;
use std::sync::{Arc, OnceLock};

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
    MediumBlob = 250,
    LongBlob = 251,
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

/// The empty schema or table name of a column that is no table's, shared (an empty
/// `Arc<str>` would allocate its counts for every column).
pub fn no_table() -> Arc<str> {
    static EMPTY: OnceLock<Arc<str>> = OnceLock::new();
    Arc::clone(EMPTY.get_or_init(|| "".into()))
}

/// One result column's metadata, as the column definition packet carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    // Shared with the statement's table reference: a row of metadata per column per result.
    pub schema: Arc<str>,
    pub table: Arc<str>,
    pub org_table: Arc<str>,
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
        /// Shared, so that a query cache hit hands out the cached rows without copying them.
        rows: Arc<Rows>,
        warnings: u16,
    },
}

impl QueryResult {
    /// Heap bytes of a result set's columns and rows (0 for an OK).
    fn heap_bytes(&self) -> usize {
        let QueryResult::Rows { columns, rows, .. } = self else {
            return 0;
        };
        let column_bytes: usize = columns
            .iter()
            .map(|c| {
                std::mem::size_of::<Column>()
                    + c.schema.len()
                    + c.table.len()
                    + c.org_table.len()
                    + c.name.len()
                    + c.org_name.len()
            })
            .sum();
        column_bytes + rows.heap_bytes()
    }

    /// Mark a result set as kept by the query cache and return its heap bytes, which the
    /// cache charges, and which bound the wire form kept with it.
    pub(crate) fn mark_cached(&self) -> usize {
        let bytes = self.heap_bytes();
        if let QueryResult::Rows { rows, .. } = self {
            let _ = rows.cached_bytes.set(bytes);
        }
        bytes
    }

    /// Keep the server's wire encoding of a cached result set, `bytes` long. Refused
    /// (false) when the result is not cached, when the encoding is larger than the
    /// result's heap bytes (which the query cache charges a second time for it), or when
    /// one is already kept.
    pub fn set_wire_form(&self, bytes: usize, form: Box<dyn Any + Send + Sync>) -> bool {
        match self {
            QueryResult::Rows { rows, .. } => {
                rows.cached_bytes.get().is_some_and(|&limit| bytes <= limit)
                    && rows.wire_form.set(form).is_ok()
            }
            QueryResult::Ok { .. } => false,
        }
    }
}

/// A result set's rows (a `Vec` of rows through `Deref`), shared by a query cache entry
/// and every hit on it. Once cached, the rows also keep the server's encoding of them for
/// the wire, so that later hits send bytes instead of encoding every value again.
#[derive(Default)]
pub struct Rows {
    values: Vec<Vec<Value>>,
    /// Set when the query cache keeps these rows: the result's heap bytes then.
    cached_bytes: OnceLock<usize>,
    /// The server's wire encoding (its own type), set at most once.
    wire_form: OnceLock<Box<dyn Any + Send + Sync>>,
    /// The rows went to a [`crate::RowSink`] as they were produced: none are here.
    streamed: bool,
}

impl Rows {
    pub fn shared(values: Vec<Vec<Value>>) -> Arc<Rows> {
        Arc::new(Rows::from(values))
    }

    /// The rows of a result that went to a [`crate::RowSink`] as they were produced.
    pub fn streamed() -> Rows {
        Rows {
            streamed: true,
            ..Rows::default()
        }
    }

    /// Whether the rows were sent to a [`crate::RowSink`] instead of kept here.
    pub fn was_streamed(&self) -> bool {
        self.streamed
    }

    /// Heap bytes of one row as [`Rows`] would keep it.
    pub(crate) fn row_heap_bytes(row: &[Value]) -> usize {
        std::mem::size_of::<Vec<Value>>() + row.iter().map(value_heap_bytes).sum::<usize>()
    }

    /// Whether the query cache keeps these rows (a wire form is then worth keeping).
    pub fn is_cached(&self) -> bool {
        self.cached_bytes.get().is_some()
    }

    /// The wire form set by [`QueryResult::set_wire_form`], if it is a `T`.
    pub fn wire_form<T: Any>(&self) -> Option<&T> {
        self.wire_form.get()?.downcast_ref()
    }

    /// Heap bytes of the values and the row vectors holding them.
    fn heap_bytes(&self) -> usize {
        self.values.iter().map(|r| Rows::row_heap_bytes(r)).sum()
    }
}

fn value_heap_bytes(v: &Value) -> usize {
    std::mem::size_of::<Value>()
        + match v {
            Value::Bytes(b) => b.capacity(),
            _ => 0,
        }
}

impl From<Vec<Vec<Value>>> for Rows {
    fn from(values: Vec<Vec<Value>>) -> Rows {
        Rows {
            values,
            ..Rows::default()
        }
    }
}

impl std::ops::Deref for Rows {
    type Target = Vec<Vec<Value>>;
    fn deref(&self) -> &Vec<Vec<Value>> {
        &self.values
    }
}

impl Clone for Rows {
    /// The values only: a copy is not the cached rows.
    fn clone(&self) -> Rows {
        Rows::from(self.values.clone())
    }
}

impl PartialEq for Rows {
    fn eq(&self, other: &Rows) -> bool {
        self.values == other.values
    }
}

impl std::fmt::Debug for Rows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.values.fmt(f)
    }
}
