//! SQL over stored tables: CREATE / DROP TABLE, INSERT, SELECT, UPDATE and DELETE on one
//! table, with index selection.
//!
//! A statement is compiled against the table's definition (columns become row positions,
//! the WHERE clause is analysed for an access path) and keeps that definition; at execution
//! it opens the table through the storage's table cache and checks the definition is still
//! the one it was compiled for (a prepared statement is recompiled otherwise).
//!
//! Access paths, best first: all columns of a unique index equal to constants (one lookup);
//! an equality prefix of an index, optionally followed by an IN list or a range on the next
//! column (index scans); otherwise a full scan. "Constant" means anything that does not read
//! the row: literals, `?` parameters, variables, functions of those. The full WHERE clause
//! is applied to the rows an index returns, so an index only narrows, never decides; the one
//! exception is a WHERE that is exactly `int_col BETWEEN a AND b` or `int_col IN (a, ...)`
//! with integer values over an index led by that column, where the index range or keys are
//! the answer (`range_is_the_filter`). An IN list reads the whole list in one pass over
//! the index (`Table::index_lookup_many`) unless it matches many rows.
//!
//! Reading is streamed (`read_rows_with`): each row is decoded as the scan yields it, only
//! the columns the statement reads (`columns_read`: the others stay NULL), converted, and
//! filtered at once; a LIMIT with nothing after the filter that reorders or drops rows
//! stops the scan. ORDER BY sorts once per statement with ASCII string keys folded to their
//! collation form first (`sort_rows`), and DISTINCT hashes (`retain_distinct`).

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::eval::{self, Datum, SqlType, Warning};
use crate::expr::{CmpOp, ColumnScope, Compiler, Env, Expr};
use crate::result::{charsets, column_flags, Column, ColumnType as WireType};
use myriad_storage as st;
use myriad_types::errors::{
    ER_BAD_FIELD_ERROR, ER_BAD_NULL_ERROR, ER_CANT_DROP_FIELD_OR_KEY, ER_CANT_REMOVE_ALL_FIELDS,
    ER_DATA_TOO_LONG, ER_DUP_FIELDNAME, ER_DUP_KEYNAME, ER_INVALID_DEFAULT,
    ER_KEY_COLUMN_DOES_NOT_EXIST, ER_MULTIPLE_PRI_KEY, ER_M_BIGGER_THAN_D, ER_NO_DB_ERROR,
    ER_NO_SUCH_TABLE, ER_TABLE_DEF_CHANGED, ER_TOO_BIG_FIELDLENGTH, ER_TOO_BIG_PRECISION,
    ER_TOO_BIG_SCALE, ER_WARN_DATA_OUT_OF_RANGE, ER_WRONG_AUTO_KEY, WARN_DATA_TRUNCATED,
};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use sqlparser::ast;
use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::Arc;

/// A table reference resolved at compile time.
#[derive(Debug, Clone)]
pub struct TableRef {
    // Shared, not copied: a plan clones its table references.
    pub database: Arc<str>,
    pub name: Arc<str>,
    /// The alias (or the name) columns are qualified with.
    pub alias: Arc<str>,
    pub def: Arc<st::TableDef>,
}

#[derive(Debug, Clone)]
pub enum Tail {
    None,
    In(Vec<Expr>),
    Range {
        lower: Option<(Expr, bool)>,
        upper: Option<(Expr, bool)>,
    },
    /// Several ranges OR'ed on one column (`k BETWEEN 1 AND 5 OR k BETWEEN 9 AND 12`, as
    /// sysbench's select_random_ranges sends): one index scan per range, rows deduplicated
    /// where ranges overlap.
    Ranges(Vec<RangeBounds>),
}

/// The (lower, upper) bounds of one range; `bool` is whether the bound is inclusive.
pub type RangeBounds = (Option<(Expr, bool)>, Option<(Expr, bool)>);

#[derive(Debug, Clone)]
pub enum Access {
    Full,
    Index {
        index_no: usize,
        eq: Vec<Expr>,
        tail: Tail,
    },
}

/// Which rows a statement reads: a table, an access path and the full filter.
#[derive(Debug, Clone)]
pub struct RowSource {
    pub table: TableRef,
    pub access: Access,
    pub filter: Option<Expr>,
}

#[derive(Debug, Clone)]
pub enum OutputItem {
    /// A stored column shown as is (its metadata comes from the definition).
    Column {
        index: usize,
        name: String,
    },
    Expr {
        expr: Expr,
        name: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggKind {
    CountStar,
    Count,
    Sum,
    Min,
    Max,
    Avg,
}

/// One aggregate of a grouped select; its value is column `table columns + N` of the
/// group's row.
#[derive(Debug, Clone)]
pub struct Aggregate {
    pub kind: AggKind,
    pub arg: Option<Expr>,
    pub distinct: bool,
}

/// GROUP BY keys (none: the whole input is one group), the aggregates, and HAVING.
#[derive(Debug, Clone)]
pub struct Grouping {
    pub keys: Vec<Expr>,
    pub aggregates: Vec<Aggregate>,
    pub having: Option<Expr>,
}

/// One more table joined to the rows so far (nested loop; an index lookup on the joined
/// table when the ON clause equates its index's first column with earlier columns).
#[derive(Debug, Clone)]
pub struct JoinStep {
    pub table: TableRef,
    /// Position of this table's first column in the joined row.
    pub offset: usize,
    /// LEFT JOIN: keep a row with NULLs when nothing matches.
    pub left: bool,
    pub on: Option<Expr>,
    /// (index number, expression over earlier columns) to look the joined rows up by.
    pub lookup: Option<(usize, Expr)>,
}

#[derive(Debug, Clone)]
pub struct TableSelect {
    pub source: RowSource,
    /// Further tables; with joins, `source` reads the first table whole and the WHERE clause
    /// is `post_filter`, applied to the joined rows.
    pub joins: Vec<JoinStep>,
    pub post_filter: Option<Expr>,
    pub items: Vec<OutputItem>,
    pub grouping: Option<Grouping>,
    pub distinct: bool,
    pub order_by: Vec<(Expr, bool)>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    /// The result's column metadata, made at the first execution and kept when the list
    /// shows stored columns only (their metadata depends on the definition alone, and a
    /// changed definition means a new plan).
    pub shown_columns: std::sync::OnceLock<Arc<Vec<Column>>>,
}

#[derive(Debug, Clone)]
pub struct InsertPlan {
    pub table: TableRef,
    /// Row positions of the listed columns.
    pub columns: Vec<usize>,
    pub rows: Vec<Vec<Option<Expr>>>,
    pub ignore: bool,
    pub replace: bool,
    /// ON DUPLICATE KEY UPDATE assignments, over the existing row followed by the new one.
    pub on_duplicate: Option<Vec<(usize, Expr)>>,
}

#[derive(Debug, Clone)]
pub struct UpdatePlan {
    pub source: RowSource,
    pub assignments: Vec<(usize, Expr)>,
    pub order_by: Vec<(Expr, bool)>,
    pub limit: Option<Expr>,
}

#[derive(Debug, Clone)]
pub struct DeletePlan {
    pub source: RowSource,
    pub order_by: Vec<(Expr, bool)>,
    pub limit: Option<Expr>,
}

pub fn err_no_database() -> SqlError {
    SqlError::new(ER_NO_DB_ERROR, "No database selected")
}

/// `db.table` or `table` in the current database.
pub fn resolve_name(
    name: &ast::ObjectName,
    database: Option<&str>,
) -> Result<(String, String), SqlError> {
    let (db, table) = resolve_name_in_place(name, database)?;
    Ok((db.to_string(), table.to_string()))
}

/// [`resolve_name`] without copies, for the statements that only look the table up.
pub fn resolve_name_in_place<'a>(
    name: &'a ast::ObjectName,
    database: Option<&'a str>,
) -> Result<(&'a str, &'a str), SqlError> {
    let part = |p: &'a ast::ObjectNamePart| match p {
        ast::ObjectNamePart::Identifier(i) => Ok(i.value.as_str()),
        other => Err(crate::expr::err_syntax(&other.to_string())),
    };
    match name.0.as_slice() {
        [table] => Ok((database.ok_or_else(err_no_database)?, part(table)?)),
        [db, table] => Ok((part(db)?, part(table)?)),
        _ => Err(crate::expr::err_syntax(&name.to_string())),
    }
}

pub fn open_ref(
    storage: &st::Storage,
    db: &str,
    name: &str,
    alias: Option<&str>,
) -> Result<TableRef, SqlError> {
    let def = storage.table_def(db, name).map_err(|e| match e {
        st::StorageError::NoSuchDatabase(_) => SqlError::new(
            ER_NO_SUCH_TABLE,
            format!("Table '{db}.{name}' doesn't exist"),
        ),
        other => storage_error(other),
    })?;
    let name: Arc<str> = name.into();
    Ok(TableRef {
        database: db.into(),
        alias: alias.map_or_else(|| Arc::clone(&name), Into::into),
        name,
        def,
    })
}

impl TableRef {
    pub fn scope(&self) -> ColumnScope {
        ColumnScope {
            columns: self
                .def
                .columns
                .iter()
                .map(|c| (Some(Arc::clone(&self.alias)), c.name.clone()))
                .collect(),
        }
    }

    pub fn column_types(&self) -> Vec<SqlType> {
        self.def
            .columns
            .iter()
            .map(|c| sql_type_of(&c.ty))
            .collect()
    }

    /// Open the table and check it still has the definition this plan was compiled for.
    pub fn open(&self, storage: &st::Storage) -> Result<st::Table, SqlError> {
        let table = storage
            .open_table(&self.database, &self.name)
            .map_err(storage_error)?;
        // The same Arc is the common case (the definition cache hands out one per table);
        // compare contents only when it differs.
        if !Arc::ptr_eq(table.def(), &self.def) && **table.def() != *self.def {
            return Err(SqlError::new(
                ER_TABLE_DEF_CHANGED,
                "Table definition has changed, please retry transaction",
            ));
        }
        Ok(table)
    }
}

// ---- types ----

fn int_digits(width: st::IntWidth, unsigned: bool) -> u32 {
    match (width, unsigned) {
        (st::IntWidth::Tiny, _) => 4,
        (st::IntWidth::Small, _) => 6,
        (st::IntWidth::Medium, _) => 9,
        (st::IntWidth::Int, _) => 11,
        (st::IntWidth::Big, true) => 20,
        (st::IntWidth::Big, false) => 20,
    }
}

pub fn sql_type_of(ty: &st::ColumnType) -> SqlType {
    match ty {
        st::ColumnType::Int { width, unsigned } => SqlType::Int {
            unsigned: *unsigned,
            len: int_digits(*width, *unsigned),
        },
        st::ColumnType::Decimal { precision, scale } => SqlType::Decimal {
            precision: *precision as u32,
            scale: *scale as u32,
        },
        st::ColumnType::Float | st::ColumnType::Double => SqlType::Double,
        st::ColumnType::Char { len, .. } | st::ColumnType::Varchar { len, .. } => {
            SqlType::Str { chars: *len }
        }
        st::ColumnType::Text { size, .. } | st::ColumnType::Blob { size } => SqlType::Str {
            chars: size.max_bytes().min(u64::from(u32::MAX)) as u32,
        },
        st::ColumnType::Date => SqlType::Date,
        st::ColumnType::DateTime | st::ColumnType::Timestamp => SqlType::DateTime,
    }
}

/// Result metadata of a stored column.
pub fn column_meta(table: &TableRef, index: usize, name: &str) -> Column {
    let c = &table.def.columns[index];
    let mut flags = 0u16;
    if !c.nullable {
        flags |= column_flags::NOT_NULL;
    }
    for ix in &table.def.indexes {
        if ix.columns.first() == Some(&index) {
            flags |= match ix.kind {
                st::IndexKind::Primary => column_flags::PRI_KEY,
                st::IndexKind::Unique => column_flags::UNIQUE_KEY,
                st::IndexKind::NonUnique => column_flags::MULTIPLE_KEY,
            };
        }
    }
    if c.auto_increment {
        flags |= column_flags::AUTO_INCREMENT;
    }
    let (wire, length, charset, decimals) = match &c.ty {
        st::ColumnType::Int { width, unsigned } => {
            if *unsigned {
                flags |= column_flags::UNSIGNED;
            }
            flags |= column_flags::NUM | column_flags::BINARY;
            let wire = match width {
                st::IntWidth::Tiny => WireType::Tiny,
                st::IntWidth::Small => WireType::Short,
                st::IntWidth::Medium => WireType::Int24,
                st::IntWidth::Int => WireType::Long,
                st::IntWidth::Big => WireType::LongLong,
            };
            (wire, int_digits(*width, *unsigned), charsets::BINARY, 0)
        }
        st::ColumnType::Decimal { precision, scale } => {
            flags |= column_flags::NUM | column_flags::BINARY;
            (
                WireType::NewDecimal,
                *precision as u32 + 2,
                charsets::BINARY,
                *scale,
            )
        }
        st::ColumnType::Float => {
            flags |= column_flags::NUM | column_flags::BINARY;
            (WireType::Float, 12, charsets::BINARY, 31)
        }
        st::ColumnType::Double => {
            flags |= column_flags::NUM | column_flags::BINARY;
            (WireType::Double, 22, charsets::BINARY, 31)
        }
        st::ColumnType::Char {
            len,
            collation: st::Collation::Binary,
        } => {
            flags |= column_flags::BINARY;
            (WireType::String, *len, charsets::BINARY, 0)
        }
        st::ColumnType::Varchar {
            len,
            collation: st::Collation::Binary,
        } => {
            flags |= column_flags::BINARY;
            (WireType::VarString, *len, charsets::BINARY, 0)
        }
        st::ColumnType::Char { len, .. } => {
            (WireType::String, len * 4, charsets::UTF8MB4_GENERAL_CI, 0)
        }
        st::ColumnType::Varchar { len, .. } => (
            WireType::VarString,
            len * 4,
            charsets::UTF8MB4_GENERAL_CI,
            0,
        ),
        // Every size is sent as BLOB (252), told apart by its length, as MariaDB does.
        st::ColumnType::Text { size, .. } => {
            flags |= column_flags::BLOB;
            let length = (size.max_bytes() * 4).min(u64::from(u32::MAX)) as u32;
            (WireType::Blob, length, charsets::UTF8MB4_GENERAL_CI, 0)
        }
        st::ColumnType::Blob { size } => {
            flags |= column_flags::BLOB | column_flags::BINARY;
            (WireType::Blob, size.max_bytes() as u32, charsets::BINARY, 0)
        }
        st::ColumnType::Date => {
            flags |= column_flags::BINARY;
            (WireType::Date, 10, charsets::BINARY, 0)
        }
        st::ColumnType::DateTime => {
            flags |= column_flags::BINARY;
            (WireType::DateTime, 19, charsets::BINARY, 0)
        }
        st::ColumnType::Timestamp => {
            flags |= column_flags::BINARY | column_flags::TIMESTAMP;
            (WireType::Timestamp, 19, charsets::BINARY, 0)
        }
    };
    Column {
        schema: Arc::clone(&table.database),
        table: Arc::clone(&table.alias),
        org_table: Arc::clone(&table.name),
        name: name.to_string(),
        org_name: c.name.clone(),
        charset,
        length,
        column_type: wire,
        flags,
        decimals,
    }
}

/// A stored value as an engine value, taking its bytes instead of copying them.
pub fn from_stored_owned(d: st::Datum, ty: &st::ColumnType) -> Datum {
    match d {
        st::Datum::Bytes(b) => Datum::Str(b),
        other => from_stored(&other, ty),
    }
}

/// A stored value as an engine value.
pub fn from_stored(d: &st::Datum, ty: &st::ColumnType) -> Datum {
    match d {
        st::Datum::Null => Datum::Null,
        st::Datum::Int(i) => Datum::Int(*i),
        st::Datum::UInt(u) => Datum::UInt(*u),
        st::Datum::Double(f) => Datum::Double(*f),
        st::Datum::Decimal(unscaled) => {
            let scale = match ty {
                st::ColumnType::Decimal { scale, .. } => *scale as u32,
                _ => 0,
            };
            crate::decimal::from_unscaled(*unscaled, scale)
        }
        st::Datum::Bytes(b) => Datum::Str(b.clone()),
        st::Datum::Date { year, month, day } => Datum::Date {
            year: *year,
            month: *month,
            day: *day,
        },
        st::Datum::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        } => Datum::DateTime {
            year: *year,
            month: *month,
            day: *day,
            hour: *hour,
            minute: *minute,
            second: *second,
            micros: *micros,
        },
    }
}

/// Where a value is being stored, for error messages.
pub struct Target<'a> {
    pub column: &'a st::ColumnDef,
    /// The column's table, for messages that name it (`db`.`t`.`c`); None where the
    /// column has no table yet (a DEFAULT checked at CREATE TABLE).
    pub table: Option<&'a TableRef>,
    pub row: usize,
    pub strict: bool,
}

impl Target<'_> {
    /// The column as MariaDB names it in 1292 and 1366 messages.
    fn qualified_column(&self) -> String {
        match self.table {
            Some(t) => format!("`{}`.`{}`.`{}`", t.database, t.name, self.column.name),
            None => format!("`{}`", self.column.name),
        }
    }

    /// Invalid UTF-8 into a utf8mb4 column: error 1366 in strict mode, otherwise a
    /// warning and the valid prefix.
    fn invalid_string(
        &self,
        bytes: &[u8],
        at: usize,
        w: &mut Vec<Warning>,
    ) -> Result<(), SqlError> {
        let message = format!(
            "Incorrect string value: '{}' for column {} at row {}",
            crate::charset::incorrect_string_text(bytes, at),
            self.qualified_column(),
            self.row
        );
        let code = crate::error::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD;
        if self.strict {
            return Err(SqlError::new(code, message));
        }
        w.push(Warning {
            level: "Warning",
            code: code.code,
            message,
        });
        Ok(())
    }

    fn out_of_range(&self, w: &mut Vec<Warning>) -> Result<(), SqlError> {
        let message = format!(
            "Out of range value for column '{}' at row {}",
            self.column.name, self.row
        );
        if self.strict {
            return Err(SqlError::new(ER_WARN_DATA_OUT_OF_RANGE, message));
        }
        w.push(Warning {
            level: "Warning",
            code: ER_WARN_DATA_OUT_OF_RANGE.code,
            message,
        });
        Ok(())
    }

    fn incorrect(&self, kind: &str, value: &Datum, w: &mut Vec<Warning>) -> Result<(), SqlError> {
        let (code, message) = if matches!(kind, "date" | "datetime") {
            (
                crate::error::ER_TRUNCATED_WRONG_VALUE,
                format!(
                    "Incorrect {kind} value: '{}' for column {} at row {}",
                    value.to_text_lossy(),
                    self.qualified_column(),
                    self.row
                ),
            )
        } else {
            (
                crate::error::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
                format!(
                    "Incorrect {kind} value: '{}' for column `{}` at row {}",
                    value.to_text_lossy(),
                    self.column.name,
                    self.row
                ),
            )
        };
        if self.strict {
            return Err(SqlError::new(code, message));
        }
        w.push(Warning {
            level: "Warning",
            code: code.code,
            message,
        });
        Ok(())
    }

    fn too_long(&self, w: &mut Vec<Warning>) -> Result<(), SqlError> {
        if self.strict {
            return Err(SqlError::new(
                ER_DATA_TOO_LONG,
                format!(
                    "Data too long for column '{}' at row {}",
                    self.column.name, self.row
                ),
            ));
        }
        w.push(Warning {
            level: "Warning",
            code: WARN_DATA_TRUNCATED.code,
            message: format!(
                "Data truncated for column '{}' at row {}",
                self.column.name, self.row
            ),
        });
        Ok(())
    }
}

/// Convert a value for storing in a column, with MySQL's checks: strict mode errors
/// (1264 out of range, 1366 incorrect value, 1406 too long, 1048 NULL), otherwise the value
/// is adjusted and a warning recorded.
pub fn to_stored(
    value: &Datum,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Datum, SqlError> {
    let col = target.column;
    if value.is_null() {
        if !col.nullable && !col.auto_increment {
            return Err(SqlError::new(
                ER_BAD_NULL_ERROR,
                format!("Column '{}' cannot be null", col.name),
            ));
        }
        return Ok(st::Datum::Null);
    }
    Ok(match &col.ty {
        st::ColumnType::Int { width, unsigned } => {
            let mut scratch = Vec::new();
            let wide: i128 = match value {
                Datum::Int(i) => *i as i128,
                Datum::UInt(u) => *u as i128,
                Datum::Str(s) => {
                    let text = String::from_utf8_lossy(s);
                    let (prefix, complete) = eval::numeric_prefix(&text);
                    if !complete || text.trim().is_empty() {
                        target.incorrect("integer", value, w)?;
                    }
                    match prefix.parse::<i128>() {
                        Ok(i) => i,
                        Err(_) => prefix
                            .parse::<f64>()
                            .map(|f| f.round() as i128)
                            .unwrap_or(0),
                    }
                }
                Datum::Dec(d) => d
                    .round_dp_with_strategy(0, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
                    .to_i128()
                    .unwrap_or(i128::MAX),
                other => other
                    .to_double(&mut scratch)
                    .map(|f| f.round() as i128)
                    .unwrap_or(0),
            };
            let (lo, hi) = if *unsigned {
                (0i128, width.unsigned_max() as i128)
            } else {
                let (l, h) = width.signed_range();
                (l as i128, h as i128)
            };
            let clamped = wide.clamp(lo, hi);
            if clamped != wide {
                target.out_of_range(w)?;
            }
            if *unsigned {
                st::Datum::UInt(clamped as u64)
            } else {
                st::Datum::Int(clamped as i64)
            }
        }
        st::ColumnType::Decimal { precision, scale } => {
            if let Datum::Str(s) = value {
                let text = String::from_utf8_lossy(s);
                if !eval::numeric_prefix(&text).1 {
                    target.incorrect("decimal", value, w)?;
                }
            }
            let (unscaled, fits) = crate::decimal::to_unscaled(value, *precision, *scale);
            if !fits {
                target.out_of_range(w)?;
            }
            st::Datum::Decimal(unscaled)
        }
        st::ColumnType::Float | st::ColumnType::Double => {
            let mut scratch = Vec::new();
            if let Datum::Str(s) = value {
                let text = String::from_utf8_lossy(s);
                if !eval::numeric_prefix(&text).1 {
                    target.incorrect("double", value, w)?;
                }
            }
            let f = value.to_double(&mut scratch).unwrap_or(0.0);
            let f = if matches!(col.ty, st::ColumnType::Float) {
                f as f32 as f64
            } else {
                f
            };
            if !f.is_finite() {
                target.out_of_range(w)?;
            }
            st::Datum::Double(f)
        }
        st::ColumnType::Char {
            len,
            collation: st::Collation::Binary,
        }
        | st::ColumnType::Varchar {
            len,
            collation: st::Collation::Binary,
        } => {
            let mut bytes = value.to_text().unwrap_or_default();
            if bytes.len() > *len as usize {
                target.too_long(w)?;
                bytes.truncate(*len as usize);
            }
            if matches!(col.ty, st::ColumnType::Char { .. }) {
                // BINARY(n) pads with zero bytes to its length, as MariaDB stores it.
                bytes.resize(*len as usize, 0);
            }
            st::Datum::Bytes(bytes)
        }
        st::ColumnType::Char { len, .. } | st::ColumnType::Varchar { len, .. } => {
            let text = utf8_text(value, target, w)?;
            let s = String::from_utf8(text).expect("utf8_text keeps valid UTF-8 only");
            let mut s = if matches!(col.ty, st::ColumnType::Char { .. }) {
                s.trim_end_matches(' ').to_string()
            } else {
                s
            };
            if s.chars().count() > *len as usize {
                // Only trailing spaces may be cut silently.
                let kept: String = s.chars().take(*len as usize).collect();
                if s[kept.len()..].chars().any(|c| c != ' ') {
                    target.too_long(w)?;
                }
                s = kept;
            }
            st::Datum::Bytes(s.into_bytes())
        }
        st::ColumnType::Text { size, .. } | st::ColumnType::Blob { size } => {
            let mut bytes = if matches!(col.ty, st::ColumnType::Blob { .. }) {
                value.to_text().unwrap_or_default()
            } else {
                utf8_text(value, target, w)?
            };
            let max_bytes = usize::try_from(size.max_bytes()).unwrap_or(usize::MAX);
            if bytes.len() > max_bytes {
                target.too_long(w)?;
                bytes.truncate(max_bytes);
                if matches!(col.ty, st::ColumnType::Text { .. }) {
                    // Cut at a character boundary.
                    let valid = crate::charset::first_invalid_utf8(&bytes).unwrap_or(bytes.len());
                    bytes.truncate(valid);
                }
            }
            st::Datum::Bytes(bytes)
        }
        st::ColumnType::Date | st::ColumnType::DateTime | st::ColumnType::Timestamp => {
            let parsed = match value {
                Datum::Date { .. } | Datum::DateTime { .. } => Some(value.clone()),
                Datum::Str(s) => crate::expr::parse_datetime(&String::from_utf8_lossy(s)),
                _ => None,
            };
            let date_only = matches!(col.ty, st::ColumnType::Date);
            match parsed {
                Some(Datum::Date { year, month, day }) if date_only => {
                    st::Datum::Date { year, month, day }
                }
                Some(Datum::DateTime {
                    year, month, day, ..
                }) if date_only => st::Datum::Date { year, month, day },
                Some(Datum::Date { year, month, day }) => st::Datum::DateTime {
                    year,
                    month,
                    day,
                    hour: 0,
                    minute: 0,
                    second: 0,
                    micros: 0,
                },
                Some(Datum::DateTime {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    micros,
                }) => st::Datum::DateTime {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    micros,
                },
                _ => {
                    target.incorrect(if date_only { "date" } else { "datetime" }, value, w)?;
                    if date_only {
                        st::Datum::Date {
                            year: 0,
                            month: 0,
                            day: 0,
                        }
                    } else {
                        st::Datum::DateTime {
                            year: 0,
                            month: 0,
                            day: 0,
                            hour: 0,
                            minute: 0,
                            second: 0,
                            micros: 0,
                        }
                    }
                }
            }
        }
    })
}

/// A value's bytes for a utf8mb4 column: error 1366 (strict) or a warning and the valid
/// prefix when they are not UTF-8.
fn utf8_text(value: &Datum, target: &Target, w: &mut Vec<Warning>) -> Result<Vec<u8>, SqlError> {
    let mut bytes = value.to_text().unwrap_or_default();
    if let Some(at) = crate::charset::first_invalid_utf8(&bytes) {
        target.invalid_string(&bytes, at, w)?;
        bytes.truncate(at);
    }
    Ok(bytes)
}

/// An index key value for a column, only when the conversion is exact (otherwise the
/// comparison MySQL applies is not the index order, and the caller scans instead).
fn key_value(value: &Datum, ty: &st::ColumnType) -> Option<st::Datum> {
    match ty {
        st::ColumnType::Int { .. } => match value {
            Datum::Int(i) => Some(st::Datum::Int(*i)),
            Datum::UInt(u) => Some(st::Datum::UInt(*u)),
            Datum::Dec(d) if d.fract().is_zero() => d.to_i64().map(st::Datum::Int),
            Datum::Double(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => {
                Some(st::Datum::Int(*f as i64))
            }
            Datum::Str(s) => String::from_utf8_lossy(s)
                .trim()
                .parse::<i64>()
                .ok()
                .map(st::Datum::Int),
            _ => None,
        },
        st::ColumnType::Decimal { scale, .. } => {
            let d = match value {
                Datum::Int(i) => Decimal::from(*i),
                Datum::UInt(u) => Decimal::from(*u),
                Datum::Dec(d) => *d,
                _ => return None,
            };
            let mut r = d;
            r.rescale(*scale as u32);
            (r == d).then(|| st::Datum::Decimal(r.mantissa()))
        }
        st::ColumnType::Float | st::ColumnType::Double => match value {
            Datum::Int(_) | Datum::UInt(_) | Datum::Dec(_) | Datum::Double(_) => {
                value.to_double(&mut Vec::new()).map(st::Datum::Double)
            }
            _ => None,
        },
        st::ColumnType::Char { .. }
        | st::ColumnType::Varchar { .. }
        | st::ColumnType::Text { .. }
        | st::ColumnType::Blob { .. } => match value {
            Datum::Str(s) => Some(st::Datum::Bytes(s.clone())),
            _ => None,
        },
        st::ColumnType::Date => match value {
            Datum::Date { year, month, day } => Some(st::Datum::Date {
                year: *year,
                month: *month,
                day: *day,
            }),
            Datum::Str(s) => match crate::expr::parse_datetime(&String::from_utf8_lossy(s)) {
                Some(Datum::Date { year, month, day }) => {
                    Some(st::Datum::Date { year, month, day })
                }
                _ => None,
            },
            _ => None,
        },
        st::ColumnType::DateTime | st::ColumnType::Timestamp => match value {
            Datum::Str(s) => match crate::expr::parse_datetime(&String::from_utf8_lossy(s)) {
                Some(Datum::DateTime {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    micros,
                }) => Some(st::Datum::DateTime {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    micros,
                }),
                _ => None,
            },
            Datum::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micros,
            } => Some(st::Datum::DateTime {
                year: *year,
                month: *month,
                day: *day,
                hour: *hour,
                minute: *minute,
                second: *second,
                micros: *micros,
            }),
            _ => None,
        },
    }
}

// ---- access path selection ----

/// Does the expression read the row?
fn reads_row(e: &Expr) -> bool {
    match e {
        Expr::Column(_) => true,
        Expr::Literal(_) | Expr::Param(_) | Expr::SysVar { .. } | Expr::UserVar(_) => false,
        Expr::Neg(x) | Expr::Not(x) | Expr::BitNot(x) => reads_row(x),
        Expr::Arith { left, right, .. }
        | Expr::Cmp { left, right, .. }
        | Expr::Bit { left, right, .. } => reads_row(left) || reads_row(right),
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Xor(a, b) => reads_row(a) || reads_row(b),
        Expr::IsNull { expr, .. } | Expr::IsBool { expr, .. } | Expr::Cast { expr, .. } => {
            reads_row(expr)
        }
        Expr::InList { expr, list, .. } => reads_row(expr) || list.iter().any(reads_row),
        Expr::Between {
            expr, low, high, ..
        } => reads_row(expr) || reads_row(low) || reads_row(high),
        Expr::Like { expr, pattern, .. } => reads_row(expr) || reads_row(pattern),
        Expr::Case {
            operand,
            whens,
            otherwise,
        } => {
            operand.as_deref().is_some_and(reads_row)
                || whens.iter().any(|(a, b)| reads_row(a) || reads_row(b))
                || otherwise.as_deref().is_some_and(reads_row)
        }
        Expr::Call { args, .. } => args.iter().any(reads_row),
        Expr::TrimChars { expr, what, .. } => reads_row(expr) || reads_row(what),
        // Subqueries are uncorrelated: they read no column of this row.
        Expr::Subquery(_) | Expr::Exists { .. } => false,
        Expr::InSubquery { expr, .. } => reads_row(expr),
    }
}

#[derive(Default, Clone)]
struct ColumnFacts {
    eq: Option<Expr>,
    in_list: Option<Vec<Expr>>,
    lower: Option<(Expr, bool)>,
    upper: Option<(Expr, bool)>,
    /// From a conjunct that ORs ranges or equalities on this column only.
    ranges: Option<Vec<RangeBounds>>,
}

fn disjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    if let Expr::Or(a, b) = e {
        disjuncts(a, out);
        disjuncts(b, out);
    } else {
        out.push(e);
    }
}

/// When every disjunct of `e` bounds one and the same column by values that do not read
/// the row, that column and one range per disjunct.
fn or_ranges(e: &Expr) -> Option<(usize, Vec<RangeBounds>)> {
    let mut list = Vec::new();
    disjuncts(e, &mut list);
    let mut column = None;
    let mut ranges = Vec::with_capacity(list.len());
    for d in list {
        let (col, range): (usize, RangeBounds) = match d {
            Expr::Between {
                expr,
                low,
                high,
                negated: false,
            } => match expr.as_ref() {
                Expr::Column(i) if !reads_row(low) && !reads_row(high) => (
                    *i,
                    (
                        Some(((**low).clone(), true)),
                        Some(((**high).clone(), true)),
                    ),
                ),
                _ => return None,
            },
            Expr::Cmp { op, left, right } => {
                let (col, value, op) = match (left.as_ref(), right.as_ref()) {
                    (Expr::Column(i), v) if !reads_row(v) => (*i, v, *op),
                    (v, Expr::Column(i)) if !reads_row(v) => (
                        *i,
                        v,
                        match op {
                            CmpOp::Lt => CmpOp::Gt,
                            CmpOp::LtEq => CmpOp::GtEq,
                            CmpOp::Gt => CmpOp::Lt,
                            CmpOp::GtEq => CmpOp::LtEq,
                            other => *other,
                        },
                    ),
                    _ => return None,
                };
                let v = value.clone();
                let range = match op {
                    CmpOp::Eq => (Some((v.clone(), true)), Some((v, true))),
                    CmpOp::Gt => (Some((v, false)), None),
                    CmpOp::GtEq => (Some((v, true)), None),
                    CmpOp::Lt => (None, Some((v, false))),
                    CmpOp::LtEq => (None, Some((v, true))),
                    CmpOp::NotEq | CmpOp::NullSafeEq => return None,
                };
                (col, range)
            }
            _ => return None,
        };
        if column.is_some_and(|c| c != col) {
            return None;
        }
        column = Some(col);
        ranges.push(range);
    }
    Some((column?, ranges))
}

fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    if let Expr::And(a, b) = e {
        conjuncts(a, out);
        conjuncts(b, out);
    } else {
        out.push(e);
    }
}

fn collect_facts(filter: &Expr, columns: usize) -> Vec<ColumnFacts> {
    let mut facts = vec![ColumnFacts::default(); columns];
    let mut list = Vec::new();
    conjuncts(filter, &mut list);
    for c in list {
        match c {
            Expr::Cmp { op, left, right } => {
                let (col, value, op) = match (left.as_ref(), right.as_ref()) {
                    (Expr::Column(i), v) if !reads_row(v) => (*i, v, *op),
                    (v, Expr::Column(i)) if !reads_row(v) => (
                        *i,
                        v,
                        match op {
                            CmpOp::Lt => CmpOp::Gt,
                            CmpOp::LtEq => CmpOp::GtEq,
                            CmpOp::Gt => CmpOp::Lt,
                            CmpOp::GtEq => CmpOp::LtEq,
                            other => *other,
                        },
                    ),
                    _ => continue,
                };
                let Some(f) = facts.get_mut(col) else {
                    continue;
                };
                match op {
                    CmpOp::Eq => f.eq = Some(value.clone()),
                    CmpOp::Gt => f.lower = Some((value.clone(), false)),
                    CmpOp::GtEq => f.lower = Some((value.clone(), true)),
                    CmpOp::Lt => f.upper = Some((value.clone(), false)),
                    CmpOp::LtEq => f.upper = Some((value.clone(), true)),
                    CmpOp::NotEq | CmpOp::NullSafeEq => {}
                }
            }
            Expr::InList {
                expr,
                list,
                negated: false,
                ..
            } => {
                if let Expr::Column(i) = expr.as_ref() {
                    if list.iter().all(|v| !reads_row(v)) {
                        if let Some(f) = facts.get_mut(*i) {
                            f.in_list = Some(list.clone());
                        }
                    }
                }
            }
            Expr::Or(..) => {
                if let Some((col, ranges)) = or_ranges(c) {
                    if let Some(f) = facts.get_mut(col) {
                        f.ranges = Some(ranges);
                    }
                }
            }
            Expr::Between {
                expr,
                low,
                high,
                negated: false,
            } => {
                if let Expr::Column(i) = expr.as_ref() {
                    if !reads_row(low) && !reads_row(high) {
                        if let Some(f) = facts.get_mut(*i) {
                            f.lower = Some(((**low).clone(), true));
                            f.upper = Some(((**high).clone(), true));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    facts
}

/// Pick the access path for a filter over a table.
pub fn choose_access(def: &st::TableDef, filter: Option<&Expr>) -> Access {
    let Some(filter) = filter else {
        return Access::Full;
    };
    let facts = collect_facts(filter, def.columns.len());
    let mut best: Option<(u32, Access)> = None;
    for (index_no, ix) in def.indexes.iter().enumerate() {
        let mut eq = Vec::new();
        for &c in &ix.columns {
            match &facts[c].eq {
                Some(v) => eq.push(v.clone()),
                None => break,
            }
        }
        let prefix = eq.len() as u32;
        let (score, tail) = if prefix as usize == ix.columns.len() {
            (
                if ix.is_unique() {
                    1000
                } else {
                    100 + prefix * 10 + 8
                },
                Tail::None,
            )
        } else {
            let next = &facts[ix.columns[prefix as usize]];
            if let Some(list) = &next.in_list {
                (100 + prefix * 10 + 5, Tail::In(list.clone()))
            } else if next.lower.is_some() || next.upper.is_some() {
                (
                    100 + prefix * 10 + 3,
                    Tail::Range {
                        lower: next.lower.clone(),
                        upper: next.upper.clone(),
                    },
                )
            } else if let Some(ranges) = &next.ranges {
                (100 + prefix * 10 + 2, Tail::Ranges(ranges.clone()))
            } else if prefix > 0 {
                (100 + prefix * 10, Tail::None)
            } else {
                continue;
            }
        };
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, Access::Index { index_no, eq, tail }));
        }
    }
    best.map(|(_, a)| a).unwrap_or(Access::Full)
}

// ---- reading rows ----

/// Rows of a source that pass its filter, as (row id, engine values).
pub fn read_rows(
    source: &RowSource,
    table: &st::Table,
    env: &mut dyn Env,
) -> Result<Vec<(st::RowId, Vec<Datum>)>, SqlError> {
    read_rows_with(source, table, env, &ReadOptions::default())
}

/// How [`read_rows_with`] reads: which columns to decode and how many rows to keep.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The columns the statement reads (None: all). The others are not decoded and read
    /// as NULL, so only a statement whose every expression was checked may narrow this.
    pub wanted: Option<Arc<[bool]>>,
    /// Stop after this many rows passed the filter (LIMIT pushed into the scan: only where
    /// nothing after the filter reorders, groups or drops rows).
    pub max_rows: Option<usize>,
}

/// Rows of a source that pass its filter, streamed from the scan: each row is decoded
/// (only the wanted columns), converted and filtered as it arrives, and the scan stops
/// once `max_rows` rows passed.
pub fn read_rows_with(
    source: &RowSource,
    table: &st::Table,
    env: &mut dyn Env,
    options: &ReadOptions,
) -> Result<Vec<(st::RowId, Vec<Datum>)>, SqlError> {
    let def = &source.table.def;
    // Room for a short range or a LIMIT at once, instead of doubling from one row.
    let mut out = Vec::with_capacity(options.max_rows.unwrap_or(16).min(256));
    if options.max_rows == Some(0) {
        return Ok(out);
    }
    // An index range that is exactly the filter answers it: rows need no second check.
    // Only the index path may skip it (a full scan, the fallback, always filters).
    let range_decides = std::cell::Cell::new(range_is_the_filter(source, env)?);
    let max_rows = options.max_rows.unwrap_or(usize::MAX);
    let accept = |out: &mut Vec<(st::RowId, Vec<Datum>)>,
                  row_id: st::RowId,
                  row: st::Row,
                  env: &mut dyn Env|
     -> Result<bool, SqlError> {
        crate::interrupt::tick()?;
        let filter = match range_decides.get() {
            true => None,
            false => source.filter.as_ref(),
        };
        let values: Vec<Datum> = row
            .into_iter()
            .zip(&def.columns)
            .map(|(d, c)| from_stored_owned(d, &c.ty))
            .collect();
        let keep = match filter {
            Some(f) => {
                let v = f.eval(env, &values)?;
                v.truth(env.warnings()) == Some(true)
            }
            None => true,
        };
        if keep {
            out.push((row_id, values));
        }
        Ok(out.len() < max_rows)
    };
    if let Access::Index { index_no, eq, tail } = &source.access {
        // An index read takes the table's latch once per batch or range: if an entry of
        // the index moved between two holds, a row may have been met twice or missed, so
        // the read starts again, each range now in one hold (no statement snapshot else).
        for attempt in 0..=INDEX_READ_RETRIES {
            let moves = table.index_moves(*index_no);
            let warnings = env.warnings().len();
            out.clear();
            let sink: &mut RowSink = &mut |row_id, row, env| accept(&mut out, row_id, row, env);
            let fed = index_rows(
                table,
                def,
                *index_no,
                eq,
                tail,
                env,
                options.wanted.as_ref(),
                attempt > 0,
                sink,
            )?;
            if !fed {
                break;
            }
            if attempt == INDEX_READ_RETRIES || table.index_moves(*index_no) == moves {
                return Ok(out);
            }
            env.warnings().truncate(warnings);
        }
    }
    range_decides.set(false);
    let mut scan = table.scan().map_err(storage_error)?;
    if let Some(w) = &options.wanted {
        scan = scan.project(Arc::clone(w));
    }
    for item in scan {
        let (row_id, row) = item.map_err(storage_error)?;
        if !accept(&mut out, row_id, row, env)? {
            break;
        }
    }
    Ok(out)
}

fn as_ref(b: &Bound<Vec<st::Datum>>) -> Bound<&[st::Datum]> {
    match b {
        Bound::Included(k) => Bound::Included(k.as_slice()),
        Bound::Excluded(k) => Bound::Excluded(k.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Whether the whole filter is `col BETWEEN low AND high` or `col IN (v, ...)` on an
/// integer column that the access path reads as a range or a list of keys of an index led
/// by that column, with integer values that are exact keys (or NULL, which matches
/// nothing either way): then the index returns exactly the rows the filter keeps, as for
/// sysbench's range queries (`id BETWEEN ? AND ?`) and select_random_points
/// (`k IN (?, ...)`), and the filter need not run per row.
fn range_is_the_filter(source: &RowSource, env: &mut dyn Env) -> Result<bool, SqlError> {
    let Access::Index { index_no, eq, tail } = &source.access else {
        return Ok(false);
    };
    let (column, values): (&Expr, Vec<&Expr>) = match (&source.filter, tail) {
        (
            Some(Expr::Between {
                expr,
                low,
                high,
                negated: false,
            }),
            Tail::Range {
                lower: Some((_, true)),
                upper: Some((_, true)),
            },
        ) => (expr, vec![low, high]),
        (
            Some(Expr::InList {
                expr,
                list,
                negated: false,
                ..
            }),
            Tail::In(_),
        ) => (expr, list.iter().collect()),
        _ => return Ok(false),
    };
    let def = &source.table.def;
    let Expr::Column(column) = column else {
        return Ok(false);
    };
    if !eq.is_empty() || def.indexes[*index_no].columns.first() != Some(column) {
        return Ok(false);
    }
    let st::ColumnType::Int { unsigned, .. } = def.columns[*column].ty else {
        return Ok(false);
    };
    let is_in = matches!(tail, Tail::In(_));
    // Integers of the column's signedness compare exactly as their keys order.
    let exact = |d: &Datum| match d {
        Datum::Int(i) => !unsigned || *i >= 0,
        Datum::UInt(u) => unsigned || i64::try_from(*u).is_ok(),
        Datum::Null => is_in,
        _ => false,
    };
    for value in values {
        if !exact(&value.eval(env, &[])?) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The most rows an IN list reads in one batch ([`st::Table::index_lookup_many`]: row ids
/// and rows held at once); a list matching more streams key by key instead, so a LIMIT
/// still stops it early and memory stays bounded.
const IN_LIST_BATCH_ROWS_MAX: usize = 4096;

/// How many times an index read starts again when entries of its index moved under it
/// (the later reads take each range in one hold of the table's latch).
const INDEX_READ_RETRIES: usize = 3;

/// Takes each row a scan yields; returns whether the scan should go on.
type RowSink<'a> = dyn FnMut(st::RowId, st::Row, &mut dyn Env) -> Result<bool, SqlError> + 'a;

/// Feed the rows an index path yields to `sink`, in index order (IN lists in value order).
/// Returns false, having fed nothing, when a value cannot be an exact key (scan instead).
#[allow(clippy::too_many_arguments)]
fn index_rows(
    table: &st::Table,
    def: &st::TableDef,
    index_no: usize,
    eq: &[Expr],
    tail: &Tail,
    env: &mut dyn Env,
    wanted: Option<&Arc<[bool]>>,
    one_read: bool,
    sink: &mut RowSink,
) -> Result<bool, SqlError> {
    let ix = &def.indexes[index_no];
    let key_of = |e: &Expr,
                  position: usize,
                  env: &mut dyn Env|
     -> Result<Option<Option<st::Datum>>, SqlError> {
        let v = e.eval(env, &[])?;
        if v.is_null() {
            // `col = NULL` matches nothing.
            return Ok(Some(None));
        }
        let ty = &def.columns[ix.columns[position]].ty;
        Ok(key_value(&v, ty).map(Some))
    };
    let mut prefix = Vec::with_capacity(eq.len() + 1);
    for (i, e) in eq.iter().enumerate() {
        match key_of(e, i, env)? {
            None => return Ok(false),
            Some(None) => return Ok(true),
            Some(Some(k)) => prefix.push(k),
        }
    }
    // Feed one index scan to the sink; false when the sink wants no more rows.
    let feed = |scan: st::IndexScan,
                env: &mut dyn Env,
                sink: &mut RowSink,
                seen: &mut Option<std::collections::HashSet<st::RowId>>|
     -> Result<bool, SqlError> {
        let scan = match wanted {
            Some(w) => scan.project(Arc::clone(w)),
            None => scan,
        };
        let scan = if one_read { scan.in_one_read() } else { scan };
        for item in scan {
            let (row_id, row) = item.map_err(storage_error)?;
            if let Some(seen) = seen.as_mut() {
                if !seen.insert(row_id) {
                    continue;
                }
            }
            if !sink(row_id, row, env)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let scan_eq =
        |key: &[st::Datum], env: &mut dyn Env, sink: &mut RowSink| -> Result<bool, SqlError> {
            if key.len() == ix.columns.len() && ix.is_unique() {
                let hit = table
                    .lookup_unique_columns(index_no, key, wanted.map(|w| &w[..]))
                    .map_err(storage_error)?;
                return match hit {
                    Some((row_id, row)) => sink(row_id, row, env),
                    None => Ok(true),
                };
            }
            let scan = table
                .index_scan(
                    index_no,
                    Bound::Included(key),
                    Bound::Included(key),
                    st::Direction::Forward,
                )
                .map_err(storage_error)?;
            feed(scan, env, sink, &mut None)
        };
    // The (lower, upper) keys of a range; None when a bound cannot be an exact key, and
    // Some(None) when a bound is NULL (the comparison is never true).
    type Keys = Option<Option<(Bound<Vec<st::Datum>>, Bound<Vec<st::Datum>>)>>;
    let range_keys = |lower: &Option<(Expr, bool)>,
                      upper: &Option<(Expr, bool)>,
                      env: &mut dyn Env|
     -> Result<Keys, SqlError> {
        let bound = |b: &Option<(Expr, bool)>,
                     env: &mut dyn Env|
         -> Result<Option<Option<Bound<Vec<st::Datum>>>>, SqlError> {
            Ok(match b {
                None if prefix.is_empty() => Some(Some(Bound::Unbounded)),
                None => Some(Some(Bound::Included(prefix.clone()))),
                Some((e, inclusive)) => match key_of(e, eq.len(), env)? {
                    None => None,
                    Some(None) => Some(None),
                    Some(Some(k)) => {
                        let mut key = prefix.clone();
                        key.push(k);
                        Some(Some(if *inclusive {
                            Bound::Included(key)
                        } else {
                            Bound::Excluded(key)
                        }))
                    }
                },
            })
        };
        let (Some(lo), Some(hi)) = (bound(lower, env)?, bound(upper, env)?) else {
            return Ok(None);
        };
        Ok(Some(lo.zip(hi)))
    };
    match tail {
        Tail::None => {
            scan_eq(&prefix, env, sink)?;
        }
        Tail::In(list) => {
            let ty = &def.columns[ix.columns[eq.len()]].ty;
            // A number beyond the column's sign (a negative for an UNSIGNED column, one
            // past i64::MAX for a signed one) equals no stored value: it is no key.
            let outside = |k: &st::Datum| match (ty, k) {
                (
                    st::ColumnType::Int {
                        unsigned: false, ..
                    },
                    st::Datum::UInt(u),
                ) => i64::try_from(*u).is_err(),
                (st::ColumnType::Int { unsigned: true, .. }, st::Datum::Int(i)) => *i < 0,
                _ => false,
            };
            let mut values: Vec<st::Datum> = Vec::with_capacity(list.len());
            for e in list {
                match key_of(e, eq.len(), env)? {
                    None => return Ok(false),
                    Some(None) => {}
                    Some(Some(k)) if outside(&k) => {}
                    Some(Some(k)) => values.push(k),
                }
            }
            let full_unique = eq.len() + 1 == ix.columns.len() && ix.is_unique();
            if !full_unique {
                // The whole list in one pass over the index (see Table::index_lookup_many).
                let batch = table
                    .index_lookup_many(
                        index_no,
                        &prefix,
                        &values,
                        wanted.map(|w| &w[..]),
                        IN_LIST_BATCH_ROWS_MAX,
                    )
                    .map_err(storage_error)?;
                if let Some(rows) = batch {
                    for (row_id, row) in rows {
                        if !sink(row_id, row, env)? {
                            break;
                        }
                    }
                    return Ok(true);
                }
            }
            // One lookup or scan per value, in value order; values equal under the
            // column's collation ('a' and 'A ') are one key.
            values.sort_by(|a, b| st::compare_datums(ty, a, b).unwrap_or(Ordering::Equal));
            values
                .dedup_by(|a, b| st::compare_datums(ty, a, b).is_ok_and(|o| o == Ordering::Equal));
            let mut key = prefix.clone();
            for value in values {
                key.truncate(eq.len());
                key.push(value);
                if !scan_eq(&key, env, sink)? {
                    break;
                }
            }
        }
        Tail::Range { lower, upper } => {
            let Some(keys) = range_keys(lower, upper, env)? else {
                return Ok(false);
            };
            if let Some((lo, hi)) = keys {
                let scan = table
                    .index_scan(index_no, as_ref(&lo), as_ref(&hi), st::Direction::Forward)
                    .map_err(storage_error)?;
                feed(scan, env, sink, &mut None)?;
            }
        }
        Tail::Ranges(ranges) => {
            // Every bound is computed before the first row is fed: a bound that cannot be
            // a key means a full scan, and nothing may have been fed by then.
            let mut all = Vec::with_capacity(ranges.len());
            for (lower, upper) in ranges {
                match range_keys(lower, upper, env)? {
                    None => return Ok(false),
                    Some(keys) => all.push(keys),
                }
            }
            let mut seen = Some(std::collections::HashSet::new());
            for (lo, hi) in all.into_iter().flatten() {
                let scan = table
                    .index_scan(index_no, as_ref(&lo), as_ref(&hi), st::Direction::Forward)
                    .map_err(storage_error)?;
                if !feed(scan, env, sink, &mut seen)? {
                    break;
                }
            }
        }
    }
    Ok(true)
}

/// Choose how a join step finds its rows: an equality in ON between the first column of
/// one of the joined table's indexes and an expression over earlier columns only.
pub fn join_lookup(on: Option<&Expr>, def: &st::TableDef, offset: usize) -> Option<(usize, Expr)> {
    let on = on?;
    let mut list = Vec::new();
    conjuncts(on, &mut list);
    let earlier_only = |e: &Expr| max_column(e).is_none_or(|m| m < offset);
    for c in list {
        let Expr::Cmp {
            op: CmpOp::Eq,
            left,
            right,
        } = c
        else {
            continue;
        };
        for (col, other) in [(left, right), (right, left)] {
            let Expr::Column(i) = col.as_ref() else {
                continue;
            };
            if *i < offset || *i >= offset + def.columns.len() || !earlier_only(other) {
                continue;
            }
            let local = *i - offset;
            // Prefer a unique single-column index, then any index starting with the column.
            let best = def
                .indexes
                .iter()
                .position(|ix| ix.is_unique() && ix.columns == [local])
                .or_else(|| {
                    def.indexes
                        .iter()
                        .position(|ix| ix.columns.first() == Some(&local))
                });
            if let Some(index_no) = best {
                return Some((index_no, (**other).clone()));
            }
        }
    }
    None
}

/// The highest column position an expression reads (None: it reads no column).
fn max_column(e: &Expr) -> Option<usize> {
    let mut best: Option<usize> = None;
    let mut note = |x: Option<usize>| {
        if let Some(v) = x {
            best = Some(best.map_or(v, |b: usize| b.max(v)));
        }
    };
    match e {
        Expr::Column(i) => note(Some(*i)),
        _ => {
            e.all_operands(|x| {
                note(max_column(x));
                true
            });
        }
    }
    best
}

/// Calls `note` with every column position `e` reads. False when that cannot be known
/// (a subquery may read the outer row).
pub(crate) fn visit_columns(e: &Expr, note: &mut dyn FnMut(usize)) -> bool {
    match e {
        Expr::Column(i) => {
            note(*i);
            true
        }
        Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => false,
        _ => e.all_operands(|x| visit_columns(x, note)),
    }
}

impl TableSelect {
    /// Whether this SELECT only reads through an index of one table (a point lookup, an
    /// IN list or a key range) with no subquery: a statement short enough that a server may
    /// run it on the thread that read its packet rather than hand the thread off first.
    pub fn is_index_read(&self) -> bool {
        let no_subquery = columns_read(self).is_some() || {
            // columns_read gives None both for "every column" and for subqueries; tell apart.
            let mut exprs: Vec<&Expr> = Vec::new();
            for item in &self.items {
                if let OutputItem::Expr { expr, .. } = item {
                    exprs.push(expr);
                }
            }
            exprs.extend(self.source.filter.as_ref());
            exprs.extend(self.order_by.iter().map(|(e, _)| e));
            if let Some(g) = &self.grouping {
                exprs.extend(g.keys.iter());
                exprs.extend(g.aggregates.iter().filter_map(|a| a.arg.as_ref()));
                exprs.extend(g.having.as_ref());
            }
            exprs.iter().all(|e| visit_columns(e, &mut |_| {}))
        };
        self.joins.is_empty()
            && self.post_filter.is_none()
            && matches!(self.source.access, Access::Index { .. })
            && no_subquery
    }
}

/// The table columns a single-table SELECT reads (its list, WHERE, GROUP BY, aggregates,
/// HAVING and ORDER BY), for projection into the row decoder. None when every column is
/// needed or that cannot be told (joins, subqueries).
pub fn columns_read(plan: &TableSelect) -> Option<Arc<[bool]>> {
    if !plan.joins.is_empty() {
        return None;
    }
    let ncols = plan.source.table.def.columns.len();
    let mut wanted = vec![false; ncols];
    // Positions past the table's columns are aggregate values, not stored columns.
    let mut note = |i: usize| {
        if let Some(w) = wanted.get_mut(i) {
            *w = true;
        }
    };
    let mut exprs: Vec<&Expr> = Vec::new();
    for item in &plan.items {
        match item {
            OutputItem::Column { index, .. } => note(*index),
            OutputItem::Expr { expr, .. } => exprs.push(expr),
        }
    }
    exprs.extend(plan.source.filter.as_ref());
    exprs.extend(plan.post_filter.as_ref());
    exprs.extend(plan.order_by.iter().map(|(e, _)| e));
    if let Some(g) = &plan.grouping {
        exprs.extend(g.keys.iter());
        exprs.extend(g.aggregates.iter().filter_map(|a| a.arg.as_ref()));
        exprs.extend(g.having.as_ref());
    }
    for e in exprs {
        if !visit_columns(e, &mut note) {
            return None;
        }
    }
    if wanted.iter().all(|&w| w) {
        return None;
    }
    Some(wanted.into())
}

/// Rows of a joined table whose `index_no` key equals `value` (None: the value cannot be an
/// exact key; scan instead).
pub fn lookup_rows(
    table: &st::Table,
    def: &st::TableDef,
    index_no: usize,
    value: Datum,
    env: &mut dyn Env,
) -> Result<Option<Vec<Vec<Datum>>>, SqlError> {
    let mut rows = Vec::new();
    let mut collect = |_: st::RowId, row: st::Row, _: &mut dyn Env| -> Result<bool, SqlError> {
        rows.push(
            row.into_iter()
                .zip(&def.columns)
                .map(|(d, c)| from_stored_owned(d, &c.ty))
                .collect(),
        );
        Ok(true)
    };
    let found = index_rows(
        table,
        def,
        index_no,
        &[Expr::Literal(value)],
        &Tail::None,
        env,
        None,
        false,
        &mut collect,
    )?;
    Ok(found.then_some(rows))
}

/// Every row of a table as engine values.
pub fn all_rows(table: &st::Table, def: &st::TableDef) -> Result<Vec<Vec<Datum>>, SqlError> {
    let mut out = Vec::new();
    for item in table.scan().map_err(storage_error)? {
        crate::interrupt::tick()?;
        let (_, row) = item.map_err(storage_error)?;
        out.push(
            row.iter()
                .zip(&def.columns)
                .map(|(d, c)| from_stored(d, &c.ty))
                .collect(),
        );
    }
    Ok(out)
}

/// Keep the first of each run of equal result rows (DISTINCT), in order, with the same
/// equality as before (`Value`'s): rows are bucketed by a hash, so the cost is linear.
pub fn retain_distinct(rows: &mut Vec<Vec<crate::value::Value>>) {
    use std::collections::HashMap;
    use std::hash::{BuildHasher, Hash, Hasher};
    let state = std::collections::hash_map::RandomState::new();
    let hash_row = |row: &[crate::value::Value]| {
        let mut h = state.build_hasher();
        for v in row {
            hash_value(v, &mut h);
        }
        h.finish()
    };
    // hash -> positions (in the kept prefix) of the rows with that hash.
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::with_capacity(rows.len());
    let mut kept = 0;
    for i in 0..rows.len() {
        if crate::interrupt::tick().is_err() {
            // The statement ends with the interrupt's error (see crate::interrupt).
            break;
        }
        let h = hash_row(&rows[i]);
        let bucket = buckets.entry(h).or_default();
        if bucket.iter().any(|&k| rows[k] == rows[i]) {
            continue;
        }
        bucket.push(kept);
        rows.swap(kept, i);
        kept += 1;
    }
    rows.truncate(kept);

    /// Hashes agree wherever `Value`'s `==` does (both zeros of a double hash alike).
    fn hash_value(v: &crate::value::Value, h: &mut impl Hasher) {
        use crate::value::Value as V;
        std::mem::discriminant(v).hash(h);
        match v {
            V::Null => {}
            V::Int(i) => i.hash(h),
            V::UInt(u) => u.hash(h),
            V::Double(f) => {
                let bits = if *f == 0.0 { 0 } else { f.to_bits() };
                bits.hash(h)
            }
            V::Decimal(text) => text.hash(h),
            V::Bytes(b) => b.hash(h),
            V::Date { year, month, day } => (year, month, day).hash(h),
            V::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micros,
            } => (year, month, day, hour, minute, second, micros).hash(h),
            V::Time {
                negative,
                hours,
                minute,
                second,
                micros,
            } => (negative, hours, minute, second, micros).hash(h),
        }
    }
}

/// Sort rows by ORDER BY keys (NULLs first ascending, as MySQL does). The keys are
/// consumed: a key column whose values are all ASCII strings (or NULL) is folded once to
/// its collation form (trailing spaces trimmed, upper-cased) and then compared as bytes,
/// which orders exactly as [`eval::collate_cmp`] does without folding per comparison.
///
/// A key column mixing kinds (an expression giving numbers for some rows and strings for
/// others) is first brought to one kind, as MySQL gives such an expression one result
/// type: text when any value is a string or temporal, else DOUBLE when any is one, else
/// DECIMAL. Pairwise mixed comparisons are not transitive (`'A' = 0`, `0 = ''`,
/// `'A' > ''`), and a sort with such a comparison may panic.
pub fn sort_rows<T>(rows: &mut [(Vec<Datum>, T)], desc: &[bool]) {
    for i in 0..desc.len() {
        unify_key_kind(rows, i);
    }
    let folded: Vec<bool> = (0..desc.len())
        .map(|i| {
            let ascii = rows.iter().all(|(keys, _)| match keys.get(i) {
                Some(Datum::Str(s)) => s.is_ascii(),
                Some(Datum::Null) => true,
                _ => false,
            });
            if ascii {
                for (keys, _) in rows.iter_mut() {
                    if let Some(Datum::Str(s)) = keys.get_mut(i) {
                        let end = s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
                        s.truncate(end);
                        s.make_ascii_uppercase();
                    }
                }
            }
            ascii
        })
        .collect();
    // An interrupted sort finishes at once (every pair equal); the statement then ends
    // with the interrupt's error (see crate::interrupt).
    let mut interrupted = false;
    rows.sort_by(|a, b| {
        if interrupted || crate::interrupt::tick().is_err() {
            interrupted = true;
            return Ordering::Equal;
        }
        for (i, d) in desc.iter().enumerate() {
            let (x, y) = (&a.0[i], &b.0[i]);
            let o = match (x, y) {
                (Datum::Null, Datum::Null) => Ordering::Equal,
                (Datum::Null, _) => Ordering::Less,
                (_, Datum::Null) => Ordering::Greater,
                (Datum::Str(x), Datum::Str(y)) if folded[i] => x.cmp(y),
                _ => eval::compare(x, y, &mut Vec::new()).unwrap_or(Ordering::Equal),
            };
            let o = if *d { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
}

/// Bring key column `i` of every row to one kind of value (see [`sort_rows`]).
fn unify_key_kind<T>(rows: &mut [(Vec<Datum>, T)], i: usize) {
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Integer,
        Decimal,
        Double,
        Text,
    }
    let kind_of = |d: &Datum| match d {
        Datum::Null => None,
        Datum::Int(_) | Datum::UInt(_) => Some(Kind::Integer),
        Datum::Dec(_) => Some(Kind::Decimal),
        Datum::Double(_) => Some(Kind::Double),
        Datum::Str(_) | Datum::Date { .. } | Datum::DateTime { .. } => Some(Kind::Text),
    };
    let mut first: Option<Kind> = None;
    let mut mixed = false;
    let mut widest = Kind::Integer;
    for (keys, _) in rows.iter() {
        let Some(k) = keys.get(i).and_then(kind_of) else {
            continue;
        };
        mixed |= first.is_some_and(|f| f != k);
        first.get_or_insert(k);
        widest = match (widest, k) {
            (Kind::Text, _) | (_, Kind::Text) => Kind::Text,
            (Kind::Double, _) | (_, Kind::Double) => Kind::Double,
            (Kind::Decimal, _) | (_, Kind::Decimal) => Kind::Decimal,
            _ => Kind::Integer,
        };
    }
    if !mixed {
        return;
    }
    let mut warnings = Vec::new();
    for (keys, _) in rows.iter_mut() {
        let Some(d) = keys.get_mut(i) else {
            continue;
        };
        if d.is_null() {
            continue;
        }
        *d = match widest {
            Kind::Text => d.to_text().map_or(Datum::Null, Datum::Str),
            Kind::Double => d
                .to_double(&mut warnings)
                .map_or(Datum::Null, Datum::Double),
            Kind::Decimal => d.to_decimal(&mut warnings).map_or(Datum::Null, Datum::Dec),
            Kind::Integer => continue,
        };
    }
}

// ---- compiling ----

/// A compiler for expressions over one table.
pub fn table_compiler<'a>(base: &Compiler<'a>, scope: &'a ColumnScope) -> Compiler<'a> {
    Compiler { scope, ..*base }
}

/// CREATE TABLE's definition from sqlparser's AST.
pub fn table_def(ct: &ast::CreateTable, compiler: &Compiler) -> Result<st::TableDef, SqlError> {
    let mut columns = Vec::new();
    let mut indexes: Vec<st::IndexDef> = Vec::new();
    let mut primary: Option<Vec<usize>> = None;
    for (position, c) in ct.columns.iter().enumerate() {
        let (def, is_primary, is_unique) = column_from_ast(c, compiler)?;
        if is_primary {
            primary = Some(vec![position]);
        }
        if is_unique {
            indexes.push(st::IndexDef {
                name: c.name.value.clone(),
                kind: st::IndexKind::Unique,
                columns: vec![position],
            });
        }
        columns.push(def);
    }
    let position_of = |name: &str, columns: &[st::ColumnDef]| -> Result<usize, SqlError> {
        columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                SqlError::new(
                    ER_KEY_COLUMN_DOES_NOT_EXIST,
                    format!("Key column '{name}' doesn't exist in table"),
                )
            })
    };
    let index_columns =
        |cols: &[ast::IndexColumn], columns: &[st::ColumnDef]| -> Result<Vec<usize>, SqlError> {
            cols.iter()
                .map(|ic| match &ic.column.expr {
                    ast::Expr::Identifier(id) => position_of(&id.value, columns),
                    ast::Expr::Function(f) => position_of(&f.name.to_string(), columns),
                    other => Err(crate::expr::err_syntax(&other.to_string())),
                })
                .collect()
        };
    for constraint in &ct.constraints {
        match constraint {
            ast::TableConstraint::PrimaryKey(pk) => {
                if primary.is_some() {
                    return Err(SqlError::new(
                        ER_MULTIPLE_PRI_KEY,
                        "Multiple primary key defined",
                    ));
                }
                let cols = index_columns(&pk.columns, &columns)?;
                for &c in &cols {
                    columns[c].nullable = false;
                }
                primary = Some(cols);
            }
            ast::TableConstraint::Unique(u) => {
                let cols = index_columns(&u.columns, &columns)?;
                let name = u
                    .index_name
                    .as_ref()
                    .or(u.name.as_ref())
                    .map(|n| n.value.clone())
                    .unwrap_or_else(|| columns[cols[0]].name.clone());
                indexes.push(st::IndexDef {
                    name,
                    kind: st::IndexKind::Unique,
                    columns: cols,
                });
            }
            ast::TableConstraint::Index(ix) => {
                let cols = index_columns(&ix.columns, &columns)?;
                let name = ix
                    .name
                    .as_ref()
                    .map(|n| n.value.clone())
                    .unwrap_or_else(|| columns[cols[0]].name.clone());
                indexes.push(st::IndexDef {
                    name,
                    kind: st::IndexKind::NonUnique,
                    columns: cols,
                });
            }
            other => return Err(SqlError::not_supported(&format!("constraint {other}"))),
        }
    }
    if let Some(cols) = primary {
        indexes.insert(
            0,
            st::IndexDef {
                name: "PRIMARY".into(),
                kind: st::IndexKind::Primary,
                columns: cols,
            },
        );
    }
    // Index names must be unique; MySQL suffixes _2, _3 for unnamed duplicates.
    for i in 1..indexes.len() {
        let base = indexes[i].name.clone();
        let mut n = 2;
        while indexes[..i]
            .iter()
            .any(|x| x.name.eq_ignore_ascii_case(&indexes[i].name))
        {
            indexes[i].name = format!("{base}_{n}");
            n += 1;
        }
    }
    if columns.iter().filter(|c| c.auto_increment).count() > 1
        || columns.iter().enumerate().any(|(i, c)| {
            c.auto_increment && !indexes.iter().any(|ix| ix.columns.first() == Some(&i))
        })
    {
        return Err(SqlError::new(ER_WRONG_AUTO_KEY,
            "Incorrect table definition; there can be only one auto column and it must be defined as a key",
        ));
    }
    let mut options = Vec::new();
    if let ast::CreateTableOptions::Plain(list) | ast::CreateTableOptions::With(list) =
        &ct.table_options
    {
        for o in list {
            let text = o.to_string();
            match text.split_once('=') {
                Some((k, v)) => options.push((k.trim().to_string(), v.trim().to_string())),
                None => match text.split_once(' ') {
                    Some((k, v)) if !k.is_empty() => {
                        options.push((k.trim().to_string(), v.trim().to_string()))
                    }
                    _ => options.push((text, String::new())),
                },
            }
        }
    }
    order_indexes(&mut indexes);
    let def = st::TableDef {
        columns,
        indexes,
        options,
    };
    def.validate().map_err(storage_error)?;
    Ok(def)
}

/// One column of CREATE TABLE or ALTER TABLE ADD COLUMN: its definition, and whether it is
/// declared PRIMARY KEY or UNIQUE inline.
pub fn column_from_ast(
    c: &ast::ColumnDef,
    compiler: &Compiler,
) -> Result<(st::ColumnDef, bool, bool), SqlError> {
    let mut primary = false;
    let mut unique = false;
    let ty = column_type(&c.data_type, &c.name.value)?;
    let mut def = st::ColumnDef::new(&c.name.value, ty);
    let mut default_expr = None;
    for option in &c.options {
        match &option.option {
            ast::ColumnOption::Null => def.nullable = true,
            ast::ColumnOption::NotNull => def.nullable = false,
            ast::ColumnOption::Default(e) if crate::timestamps::is_current_timestamp(e) => {
                def.default_now = true
            }
            ast::ColumnOption::Default(e) => default_expr = Some(e.clone()),
            ast::ColumnOption::OnUpdate(e) => {
                crate::timestamps::on_update(&mut def, e)?;
            }
            ast::ColumnOption::PrimaryKey(_) => {
                def.nullable = false;
                primary = true;
            }
            ast::ColumnOption::Unique(_) => unique = true,
            ast::ColumnOption::DialectSpecific(tokens)
                if tokens
                    .iter()
                    .any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")) =>
            {
                def.auto_increment = true
            }
            ast::ColumnOption::Comment(text) => def.comment = text.clone(),
            ast::ColumnOption::CharacterSet(_) | ast::ColumnOption::Collation(_) => {}
            other => return Err(SqlError::not_supported(&format!("column option {other}"))),
        }
    }
    crate::timestamps::check_column(&def)?;
    if let Some(e) = default_expr {
        let expr = compiler.compile(&e)?;
        let mut w = Vec::new();
        let v = expr.eval(&mut ConstEnv(&mut w, 0), &[])?;
        // A default that reads the clock other than as CURRENT_TIMESTAMP itself
        // (`NOW() + INTERVAL 1 DAY`) would need evaluating per insert.
        if v != expr.eval(&mut ConstEnv(&mut Vec::new(), DISTANT_MICROS), &[])? {
            return Err(SqlError::not_supported(
                "a DEFAULT expression that reads the clock, other than CURRENT_TIMESTAMP",
            ));
        }
        if v.is_null() {
            def.default = if def.nullable {
                Some(st::Datum::Null)
            } else {
                return Err(SqlError::new(
                    ER_INVALID_DEFAULT,
                    format!("Invalid default value for '{}'", def.name),
                ));
            };
        } else {
            let target = Target {
                column: &def,
                table: None,
                row: 1,
                strict: true,
            };
            let stored = to_stored(&v, &target, &mut w).map_err(|_| {
                SqlError::new(
                    ER_INVALID_DEFAULT,
                    format!("Invalid default value for '{}'", def.name),
                )
            })?;
            def.default = Some(stored);
        }
    }
    Ok((def, primary, unique))
}

fn column_type(dt: &ast::DataType, name: &str) -> Result<st::ColumnType, SqlError> {
    use ast::DataType as D;
    let int = |width, unsigned| st::ColumnType::Int { width, unsigned };
    let char_len = |l: &Option<ast::CharacterLength>, default: u32| match l {
        Some(ast::CharacterLength::IntegerLength { length, .. }) => {
            (*length).min(u32::MAX as u64) as u32
        }
        _ => default,
    };
    let general = st::Collation::Utf8mb4GeneralCi;
    let text = |size| st::ColumnType::Text {
        collation: general,
        size,
    };
    let blob = |size| st::ColumnType::Blob { size };
    Ok(match dt {
        D::TinyInt(_) => int(st::IntWidth::Tiny, false),
        D::TinyIntUnsigned(_) | D::UTinyInt => int(st::IntWidth::Tiny, true),
        D::SmallInt(_) => int(st::IntWidth::Small, false),
        D::SmallIntUnsigned(_) | D::USmallInt => int(st::IntWidth::Small, true),
        D::MediumInt(_) => int(st::IntWidth::Medium, false),
        D::MediumIntUnsigned(_) => int(st::IntWidth::Medium, true),
        D::Int(_) | D::Integer(_) => int(st::IntWidth::Int, false),
        D::IntUnsigned(_) | D::IntegerUnsigned(_) => int(st::IntWidth::Int, true),
        D::BigInt(_) => int(st::IntWidth::Big, false),
        D::BigIntUnsigned(_) | D::UBigInt => int(st::IntWidth::Big, true),
        D::Bool | D::Boolean => int(st::IntWidth::Tiny, false),
        D::Decimal(info)
        | D::Numeric(info)
        | D::Dec(info)
        | D::DecimalUnsigned(info)
        | D::DecUnsigned(info) => {
            let (precision, scale) = match info {
                ast::ExactNumberInfo::None => (10, 0),
                ast::ExactNumberInfo::Precision(p) => (*p, 0),
                ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, (*s).max(0) as u64),
            };
            use crate::decimal::{MARIADB_MAX_PRECISION, MARIADB_MAX_SCALE, MAX_STORED_PRECISION};
            if precision > MARIADB_MAX_PRECISION {
                return Err(SqlError::new(ER_TOO_BIG_PRECISION,
                    format!("Too big precision specified for '{name}'. Maximum is {MARIADB_MAX_PRECISION}"),
                ));
            }
            if scale > MARIADB_MAX_SCALE {
                return Err(SqlError::new(
                    ER_TOO_BIG_SCALE,
                    format!("Too big scale specified for '{name}'. Maximum is {MARIADB_MAX_SCALE}"),
                ));
            }
            if scale > precision {
                return Err(SqlError::new(ER_M_BIGGER_THAN_D,
                    format!("For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{name}')"),
                ));
            }
            if precision > u64::from(MAX_STORED_PRECISION) {
                return Err(SqlError::not_supported(&format!(
                    "DECIMAL precision above {MAX_STORED_PRECISION} digits (column '{name}')"
                )));
            }
            // DECIMAL(0) is DECIMAL(10,0), as in MariaDB.
            let precision = if precision == 0 { 10 } else { precision };
            st::ColumnType::Decimal {
                precision: precision as u8,
                scale: scale as u8,
            }
        }
        D::Float(_) | D::FloatUnsigned(_) | D::Real | D::RealUnsigned => st::ColumnType::Float,
        D::Double(_) | D::DoubleUnsigned(_) | D::DoublePrecision | D::DoublePrecisionUnsigned => {
            st::ColumnType::Double
        }
        D::Char(l) | D::Character(l) => st::ColumnType::Char {
            len: char_len(l, 1),
            collation: general,
        },
        D::Varchar(l) | D::CharacterVarying(l) | D::CharVarying(l) | D::Nvarchar(l) => {
            let len = char_len(l, 0);
            if l.is_none() {
                return Err(crate::expr::err_syntax("VARCHAR"));
            }
            st::ColumnType::Varchar {
                len,
                collation: general,
            }
        }
        D::Text => text(st::LobSize::Regular),
        D::TinyText => text(st::LobSize::Tiny),
        D::MediumText => text(st::LobSize::Medium),
        D::LongText => text(st::LobSize::Long),
        D::Blob(None) => blob(st::LobSize::Regular),
        D::Blob(Some(bytes)) => blob(st::LobSize::for_bytes(*bytes)),
        D::TinyBlob => blob(st::LobSize::Tiny),
        D::MediumBlob => blob(st::LobSize::Medium),
        D::LongBlob => blob(st::LobSize::Long),
        D::Binary(len) => binary_type(len.unwrap_or(1), false)?,
        D::Varbinary(Some(ast::BinaryLength::IntegerLength { length })) => {
            binary_type(*length, true)?
        }
        D::Varbinary(_) => return Err(crate::expr::err_syntax("VARBINARY")),
        D::Date => st::ColumnType::Date,
        D::Datetime(_) => st::ColumnType::DateTime,
        D::Timestamp(_, _) => st::ColumnType::Timestamp,
        other => return Err(SqlError::not_supported(&format!("column type {other}"))),
    })
}

/// BINARY(n) and VARBINARY(n): CHAR and VARCHAR of bytes (the `binary` collation), with
/// MariaDB's length limits (ER_TOO_BIG_FIELDLENGTH, 1074).
fn binary_type(len: u64, varying: bool) -> Result<st::ColumnType, SqlError> {
    const BINARY_MAX_BYTES: u64 = 255;
    const VARBINARY_MAX_BYTES: u64 = 65_532;
    let (name, max) = if varying {
        ("VARBINARY", VARBINARY_MAX_BYTES)
    } else {
        ("BINARY", BINARY_MAX_BYTES)
    };
    if len > max {
        return Err(SqlError::new(
            ER_TOO_BIG_FIELDLENGTH,
            format!(
                "Column length too big for column '{name}' (max = {max}); use BLOB or TEXT instead"
            ),
        ));
    }
    let (len, collation) = (len as u32, st::Collation::Binary);
    Ok(if varying {
        st::ColumnType::Varchar { len, collation }
    } else {
        st::ColumnType::Char { len, collation }
    })
}

/// An environment for constant expressions (DEFAULT values), with a fixed clock.
struct ConstEnv<'a>(&'a mut Vec<Warning>, i64);

/// A second clock reading for telling clock-dependent DEFAULT expressions apart: a
/// different year, month, day and time of day from the epoch.
const DISTANT_MICROS: i64 = 1_000_000_000_000_000;

impl Env for ConstEnv<'_> {
    fn param(&self, _: usize) -> Datum {
        Datum::Null
    }
    fn system_variable(&self, _: crate::expr::VarScope, _: usize) -> Result<Datum, SqlError> {
        Err(SqlError::new(ER_INVALID_DEFAULT, "Invalid default value"))
    }
    fn user_variable(&self, _: &str) -> Datum {
        Datum::Null
    }
    fn database(&self) -> Option<String> {
        None
    }
    fn user(&self) -> String {
        String::new()
    }
    fn current_user(&self) -> String {
        String::new()
    }
    fn connection_id(&self) -> u32 {
        0
    }
    fn last_insert_id(&self) -> u64 {
        0
    }
    fn now_micros(&self) -> i64 {
        self.1
    }
    fn div_precision_increment(&self) -> u32 {
        4
    }
    fn sql_mode(&self) -> u64 {
        0
    }
    fn warnings(&mut self) -> &mut Vec<Warning> {
        self.0
    }
}

// ---- describing tables ----

/// The column type as SHOW COLUMNS and SHOW CREATE TABLE print it.
pub fn type_text(ty: &st::ColumnType) -> String {
    match ty {
        st::ColumnType::Int { width, unsigned } => {
            let (name, signed_len, unsigned_len) = match width {
                st::IntWidth::Tiny => ("tinyint", 4, 3),
                st::IntWidth::Small => ("smallint", 6, 5),
                st::IntWidth::Medium => ("mediumint", 9, 8),
                st::IntWidth::Int => ("int", 11, 10),
                st::IntWidth::Big => ("bigint", 20, 20),
            };
            if *unsigned {
                format!("{name}({unsigned_len}) unsigned")
            } else {
                format!("{name}({signed_len})")
            }
        }
        st::ColumnType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
        st::ColumnType::Float => "float".into(),
        st::ColumnType::Double => "double".into(),
        st::ColumnType::Char {
            len,
            collation: st::Collation::Binary,
        } => format!("binary({len})"),
        st::ColumnType::Varchar {
            len,
            collation: st::Collation::Binary,
        } => format!("varbinary({len})"),
        st::ColumnType::Char { len, .. } => format!("char({len})"),
        st::ColumnType::Varchar { len, .. } => format!("varchar({len})"),
        st::ColumnType::Text { size, .. } => format!("{}text", size.prefix()),
        st::ColumnType::Blob { size } => format!("{}blob", size.prefix()),
        st::ColumnType::Date => "date".into(),
        st::ColumnType::DateTime => "datetime".into(),
        st::ColumnType::Timestamp => "timestamp".into(),
    }
}

/// A stored default as text (None for NULL).
pub fn default_text(c: &st::ColumnDef) -> Option<String> {
    if c.default_now {
        return Some(crate::timestamps::CURRENT_TIMESTAMP_TEXT.to_string());
    }
    let d = c.default.as_ref()?;
    if d.is_null() {
        return None;
    }
    from_stored(d, &c.ty)
        .to_text()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The `Extra` column of SHOW COLUMNS.
pub fn extra_text(c: &st::ColumnDef) -> String {
    if c.auto_increment {
        "auto_increment".into()
    } else if c.on_update_now {
        format!("on update {}", crate::timestamps::CURRENT_TIMESTAMP_TEXT)
    } else {
        String::new()
    }
}

/// The `Key` column of SHOW COLUMNS.
pub fn key_text(def: &st::TableDef, column: usize) -> &'static str {
    let first_of = |kind: fn(&st::IndexDef) -> bool| {
        def.indexes
            .iter()
            .any(|ix| kind(ix) && ix.columns.first() == Some(&column))
    };
    if first_of(|ix| ix.kind == st::IndexKind::Primary) {
        "PRI"
    } else if first_of(|ix| ix.kind == st::IndexKind::Unique && ix.columns.len() == 1) {
        "UNI"
    } else if first_of(|_| true) {
        "MUL"
    } else {
        ""
    }
}

/// SHOW CREATE TABLE's text.
pub fn create_table_text(name: &str, def: &st::TableDef) -> String {
    let mut lines = Vec::new();
    for c in &def.columns {
        let mut line = format!("  `{}` {}", c.name, type_text(&c.ty));
        if !c.nullable {
            line.push_str(" NOT NULL");
        } else if matches!(c.ty, st::ColumnType::Timestamp) {
            // MariaDB names a nullable TIMESTAMP's NULL (TIMESTAMP was NOT NULL by default).
            line.push_str(" NULL");
        }
        match (&c.default, c.auto_increment) {
            (_, true) => line.push_str(" AUTO_INCREMENT"),
            _ if c.default_now => line.push_str(&format!(
                " DEFAULT {}",
                crate::timestamps::CURRENT_TIMESTAMP_TEXT
            )),
            (Some(st::Datum::Null), _) | (None, false) if c.nullable => {
                line.push_str(" DEFAULT NULL")
            }
            (Some(d), _) if !d.is_null() => {
                let text = default_text(c).unwrap_or_default();
                if matches!(
                    c.ty,
                    st::ColumnType::Int { .. }
                        | st::ColumnType::Decimal { .. }
                        | st::ColumnType::Float
                        | st::ColumnType::Double
                ) {
                    line.push_str(&format!(" DEFAULT {text}"));
                } else {
                    line.push_str(&format!(" DEFAULT '{}'", text.replace('\'', "''")));
                }
            }
            _ => {}
        }
        if c.on_update_now {
            line.push_str(&format!(
                " ON UPDATE {}",
                crate::timestamps::CURRENT_TIMESTAMP_TEXT
            ));
        }
        if !c.comment.is_empty() {
            line.push_str(&format!(" COMMENT '{}'", c.comment.replace('\'', "''")));
        }
        lines.push(line);
    }
    for ix in &def.indexes {
        let cols: Vec<String> = ix
            .columns
            .iter()
            .map(|&i| format!("`{}`", def.columns[i].name))
            .collect();
        lines.push(match ix.kind {
            st::IndexKind::Primary => format!("  PRIMARY KEY ({})", cols.join(",")),
            st::IndexKind::Unique => format!("  UNIQUE KEY `{}` ({})", ix.name, cols.join(",")),
            st::IndexKind::NonUnique => format!("  KEY `{}` ({})", ix.name, cols.join(",")),
        });
    }
    let engine = def
        .options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("ENGINE"))
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| "InnoDB".into());
    format!(
        "CREATE TABLE `{name}` (\n{}\n) ENGINE={engine} DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
        lines.join(",\n")
    )
}

/// MySQL keeps keys in the order PRIMARY, unique keys, other keys (each group as declared).
pub fn order_indexes(indexes: &mut [st::IndexDef]) {
    indexes.sort_by_key(|ix| match ix.kind {
        st::IndexKind::Primary => 0,
        st::IndexKind::Unique => 1,
        st::IndexKind::NonUnique => 2,
    });
}

/// The definition ALTER TABLE produces, and for each new column the old column it is
/// copied from (None: filled with the new column's default).
pub fn alter_def(
    old: &st::TableDef,
    operations: &[ast::AlterTableOperation],
    compiler: &Compiler,
) -> Result<(st::TableDef, Vec<Option<usize>>), SqlError> {
    let mut def = old.clone();
    let mut sources: Vec<Option<usize>> = (0..old.columns.len()).map(Some).collect();
    let find = |def: &st::TableDef, name: &str| {
        def.column_index(name).ok_or_else(|| {
            SqlError::new(
                ER_BAD_FIELD_ERROR,
                format!("Unknown column '{name}' in '{}'", "table"),
            )
        })
    };
    for op in operations {
        match op {
            ast::AlterTableOperation::AddColumn {
                column_def,
                column_position,
                if_not_exists,
                ..
            } => {
                if def.column_index(&column_def.name.value).is_some() {
                    if *if_not_exists {
                        continue;
                    }
                    return Err(SqlError::new(
                        ER_DUP_FIELDNAME,
                        format!("Duplicate column name '{}'", column_def.name.value),
                    ));
                }
                let (column, is_primary, is_unique) = column_from_ast(column_def, compiler)?;
                if column.auto_increment {
                    return Err(SqlError::not_supported("adding an AUTO_INCREMENT column"));
                }
                let at = match column_position {
                    None => def.columns.len(),
                    Some(ast::MySQLColumnPosition::First) => 0,
                    Some(ast::MySQLColumnPosition::After(after)) => find(&def, &after.value)? + 1,
                };
                def.columns.insert(at, column);
                sources.insert(at, None);
                for ix in &mut def.indexes {
                    for c in &mut ix.columns {
                        if *c >= at {
                            *c += 1;
                        }
                    }
                }
                if is_primary {
                    def.indexes.insert(
                        0,
                        st::IndexDef {
                            name: "PRIMARY".into(),
                            kind: st::IndexKind::Primary,
                            columns: vec![at],
                        },
                    );
                }
                if is_unique {
                    let name = column_def.name.value.clone();
                    def.indexes.push(st::IndexDef {
                        name,
                        kind: st::IndexKind::Unique,
                        columns: vec![at],
                    });
                }
            }
            ast::AlterTableOperation::DropColumn {
                column_names,
                if_exists,
                ..
            } => {
                for name in column_names {
                    let Some(at) = def.column_index(&name.value) else {
                        if *if_exists {
                            continue;
                        }
                        return Err(SqlError::new(
                            ER_CANT_DROP_FIELD_OR_KEY,
                            format!("Can't DROP COLUMN `{}`; check that it exists", name.value),
                        ));
                    };
                    if def.columns.len() == 1 {
                        return Err(SqlError::new(
                            ER_CANT_REMOVE_ALL_FIELDS,
                            "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
                        ));
                    }
                    def.columns.remove(at);
                    sources.remove(at);
                    for ix in &mut def.indexes {
                        ix.columns.retain(|c| *c != at);
                        for c in &mut ix.columns {
                            if *c > at {
                                *c -= 1;
                            }
                        }
                    }
                    def.indexes.retain(|ix| !ix.columns.is_empty());
                }
            }
            ast::AlterTableOperation::AddConstraint { constraint, .. } => {
                let columns_of = |cols: &[ast::IndexColumn],
                                  def: &st::TableDef|
                 -> Result<Vec<usize>, SqlError> {
                    cols.iter()
                        .map(|ic| match &ic.column.expr {
                            ast::Expr::Identifier(id) => {
                                def.column_index(&id.value).ok_or_else(|| {
                                    SqlError::new(
                                        ER_KEY_COLUMN_DOES_NOT_EXIST,
                                        format!("Key column '{}' doesn't exist in table", id.value),
                                    )
                                })
                            }
                            other => Err(crate::expr::err_syntax(&other.to_string())),
                        })
                        .collect()
                };
                let index = match constraint {
                    ast::TableConstraint::PrimaryKey(pk) => {
                        if def.primary_key().is_some() {
                            return Err(SqlError::new(
                                ER_MULTIPLE_PRI_KEY,
                                "Multiple primary key defined",
                            ));
                        }
                        let cols = columns_of(&pk.columns, &def)?;
                        for &c in &cols {
                            def.columns[c].nullable = false;
                        }
                        st::IndexDef {
                            name: "PRIMARY".into(),
                            kind: st::IndexKind::Primary,
                            columns: cols,
                        }
                    }
                    ast::TableConstraint::Unique(u) => {
                        let cols = columns_of(&u.columns, &def)?;
                        let name = u
                            .index_name
                            .as_ref()
                            .or(u.name.as_ref())
                            .map(|n| n.value.clone())
                            .unwrap_or_else(|| def.columns[cols[0]].name.clone());
                        st::IndexDef {
                            name,
                            kind: st::IndexKind::Unique,
                            columns: cols,
                        }
                    }
                    ast::TableConstraint::Index(ix) => {
                        let cols = columns_of(&ix.columns, &def)?;
                        let name = ix
                            .name
                            .as_ref()
                            .map(|n| n.value.clone())
                            .unwrap_or_else(|| def.columns[cols[0]].name.clone());
                        st::IndexDef {
                            name,
                            kind: st::IndexKind::NonUnique,
                            columns: cols,
                        }
                    }
                    other => return Err(SqlError::not_supported(&format!("constraint {other}"))),
                };
                if def.index_named(&index.name).is_some() {
                    return Err(SqlError::new(
                        ER_DUP_KEYNAME,
                        format!("Duplicate key name '{}'", index.name),
                    ));
                }
                if index.kind == st::IndexKind::Primary {
                    def.indexes.insert(0, index);
                } else {
                    def.indexes.push(index);
                }
            }
            ast::AlterTableOperation::DropIndex { name } => {
                let Some(at) = def.index_named(&name.value) else {
                    return Err(SqlError::new(
                        ER_CANT_DROP_FIELD_OR_KEY,
                        format!("Can't DROP INDEX `{}`; check that it exists", name.value),
                    ));
                };
                def.indexes.remove(at);
            }
            ast::AlterTableOperation::DropPrimaryKey { .. } => match def.primary_key() {
                Some(at) => {
                    def.indexes.remove(at);
                }
                None => {
                    return Err(SqlError::new(
                        ER_CANT_DROP_FIELD_OR_KEY,
                        "Can't DROP INDEX `PRIMARY`; check that it exists",
                    ))
                }
            },
            other => return Err(SqlError::not_supported(&format!("ALTER TABLE {other}"))),
        }
    }
    order_indexes(&mut def.indexes);
    def.validate().map_err(storage_error)?;
    Ok((def, sources))
}

// ---- row lock keys ----

/// The primary-key values a point statement (`WHERE pk = ..` or `pk IN (..)` over the whole
/// primary key) searches for, as row-lock keys, whether or not such rows exist. Empty when
/// the access path is not a primary-key point lookup.
pub fn primary_point_keys(source: &RowSource, env: &mut dyn Env) -> Result<Vec<String>, SqlError> {
    let def = &source.table.def;
    let Access::Index { index_no, eq, tail } = &source.access else {
        return Ok(Vec::new());
    };
    let Some(ix) = def.indexes.get(*index_no) else {
        return Ok(Vec::new());
    };
    if ix.kind != st::IndexKind::Primary {
        return Ok(Vec::new());
    }
    let mut prefix = Vec::with_capacity(ix.columns.len());
    for (position, e) in eq.iter().enumerate() {
        let v = e.eval(env, &[])?;
        match key_value(&v, &def.columns[ix.columns[position]].ty) {
            Some(k) => prefix.push(k),
            None => return Ok(Vec::new()),
        }
    }
    let mut keys = Vec::new();
    match tail {
        Tail::None if prefix.len() == ix.columns.len() => keys.push(lock_text(&prefix)),
        Tail::In(list) if prefix.len() + 1 == ix.columns.len() => {
            let ty = &def.columns[ix.columns[prefix.len()]].ty;
            for e in list {
                let v = e.eval(env, &[])?;
                if let Some(k) = key_value(&v, ty) {
                    let mut key = prefix.clone();
                    key.push(k);
                    keys.push(lock_text(&key));
                }
            }
        }
        _ => {}
    }
    Ok(keys)
}

/// The row-lock key of a row (its primary-key values); None without a primary key.
pub fn primary_key_of(def: &st::TableDef, values: &[Datum]) -> Option<String> {
    let ix = &def.indexes[def.primary_key()?];
    let mut key = Vec::with_capacity(ix.columns.len());
    for &c in &ix.columns {
        key.push(key_value(values.get(c)?, &def.columns[c].ty)?);
    }
    Some(lock_text(&key))
}

/// One text per key value: an unsigned value that fits reads like the signed one.
fn lock_text(key: &[st::Datum]) -> String {
    let normal: Vec<st::Datum> = key
        .iter()
        .map(|d| match d {
            st::Datum::UInt(u) if i64::try_from(*u).is_ok() => st::Datum::Int(*u as i64),
            other => other.clone(),
        })
        .collect();
    format!("{normal:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            (0i64..4).prop_map(Value::Int),
            (0u64..4).prop_map(Value::UInt),
            prop_oneof![Just(0.0), Just(-0.0), Just(1.5)].prop_map(Value::Double),
            "[ab]{0,2}".prop_map(|s| Value::Bytes(s.into_bytes())),
        ]
    }

    /// The comparison sort_rows made before folding: eval::compare per pair.
    fn reference_sort(rows: &mut [(Vec<Datum>, usize)], desc: &[bool]) {
        rows.sort_by(|a, b| {
            for (i, d) in desc.iter().enumerate() {
                let (x, y) = (&a.0[i], &b.0[i]);
                let o = match (x.is_null(), y.is_null()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    _ => eval::compare(x, y, &mut Vec::new()).unwrap_or(Ordering::Equal),
                };
                let o = if *d { o.reverse() } else { o };
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
    }

    /// Keys of one column share a kind (strings, some non-ASCII, or integers), as a
    /// column's values do; NULLs anywhere.
    fn sort_keys() -> impl Strategy<Value = Vec<Vec<Datum>>> {
        let strings = prop_oneof![
            Just(Datum::Null),
            "[aAbB ]{0,3}".prop_map(|s| Datum::Str(s.into_bytes())),
        ];
        let accented = prop_oneof![
            Just(Datum::Null),
            "[aAé ]{0,2}".prop_map(|s| Datum::Str(s.into_bytes())),
        ];
        let numbers = prop_oneof![Just(Datum::Null), (-2i64..3).prop_map(Datum::Int)];
        let rows = |a: BoxedStrategy<Datum>, b: BoxedStrategy<Datum>| {
            proptest::collection::vec((a, b).prop_map(|(a, b)| vec![a, b]), 0..30)
        };
        prop_oneof![
            rows(strings.clone().boxed(), numbers.clone().boxed()),
            rows(accented.clone().boxed(), strings.boxed()),
            rows(numbers.boxed(), accented.boxed()),
        ]
    }

    #[test]
    fn mixed_kind_keys_sort_as_text_without_panicking() {
        let keys = [
            Datum::Int(0),
            Datum::text("A"),
            Datum::text(""),
            Datum::Int(10),
            Datum::Null,
            Datum::text("9"),
            Datum::Double(1.5),
        ];
        let mut rows: Vec<(Vec<Datum>, usize)> = keys
            .iter()
            .cloned()
            .enumerate()
            .map(|(n, k)| (vec![k], n))
            .collect();
        sort_rows(&mut rows, &[false]);
        let order: Vec<usize> = rows.iter().map(|r| r.1).collect();
        // NULL, '', '0', '1.5', '10', '9', 'A'
        assert_eq!(order, vec![4, 2, 0, 6, 3, 5, 1]);
        let mut numbers: Vec<(Vec<Datum>, usize)> = [
            Datum::Dec(Decimal::new(25, 1)),
            Datum::Int(2),
            Datum::Double(2.25),
            Datum::UInt(3),
        ]
        .into_iter()
        .enumerate()
        .map(|(n, k)| (vec![k], n))
        .collect();
        sort_rows(&mut numbers, &[true]);
        let order: Vec<usize> = numbers.iter().map(|r| r.1).collect();
        assert_eq!(order, vec![3, 0, 2, 1]);
    }

    proptest! {
        /// Folding ASCII string keys once orders rows exactly as comparing them pairwise
        /// (the sort is stable, so equal keys keep their input order in both).
        #[test]
        fn sort_rows_matches_pairwise_collation(
            keys in sort_keys(),
            desc in proptest::collection::vec(any::<bool>(), 2),
        ) {
            let mut expected: Vec<(Vec<Datum>, usize)> =
                keys.iter().cloned().enumerate().map(|(n, k)| (k, n)).collect();
            reference_sort(&mut expected, &desc);
            let mut sorted: Vec<(Vec<Datum>, usize)> =
                keys.iter().cloned().enumerate().map(|(n, k)| (k, n)).collect();
            sort_rows(&mut sorted, &desc);
            let order = |rows: &[(Vec<Datum>, usize)]| rows.iter().map(|r| r.1).collect::<Vec<_>>();
            prop_assert_eq!(order(&sorted), order(&expected));
        }

        /// Hashed DISTINCT keeps exactly what the quadratic reference keeps, in order.
        #[test]
        fn retain_distinct_matches_the_reference(
            rows in proptest::collection::vec(proptest::collection::vec(value(), 2), 0..40)
        ) {
            let mut reference: Vec<Vec<Value>> = Vec::new();
            for r in &rows {
                if !reference.contains(r) {
                    reference.push(r.clone());
                }
            }
            let mut hashed = rows.clone();
            retain_distinct(&mut hashed);
            prop_assert_eq!(hashed, reference);
        }
    }
}
