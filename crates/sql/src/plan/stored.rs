//! Conversion between evaluated values and stored values (with the MySQL warnings and
//! errors for values that do not fit a column).

use crate::error::SqlError;
use crate::expr::eval::{SqlValue, Warning};
use crate::plan::tables::*;
use crate::value::Value;
use myriad_storage as st;
use myriad_types::errors::{
    ER_BAD_NULL_ERROR, ER_DATA_TOO_LONG, ER_WARN_DATA_OUT_OF_RANGE, WARN_DATA_TRUNCATED,
};
use myriad_types::ErrorCode;

/// A stored value as the evaluator takes it, moving its bytes: every stored value is
/// already one.
pub fn from_stored_owned(d: st::Value, _ty: &st::ColumnType) -> Value {
    d
}

/// A stored row as the evaluator takes it (see [`from_stored_owned`]), a value per column
/// of `def`.
pub fn row_values(stored: st::Row, def: &st::TableDef) -> Vec<Value> {
    stored
        .into_iter()
        .zip(&def.columns)
        .map(|(d, c)| from_stored_owned(d, &c.ty))
        .collect()
}

/// A stored value (or a prepared-statement parameter, or a result cell read back) as the
/// evaluator takes it: a copy. Each stored value carries its own kind and a DECIMAL its
/// column's scale, so the column type is not needed to read one.
pub fn from_stored(d: &st::Value, _ty: &st::ColumnType) -> Value {
    evaluable(d)
}

/// A value as the evaluator takes it: a copy (the evaluator computes on every kind of
/// value, TIME included).
pub fn evaluable(d: &Value) -> Value {
    d.clone()
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
    pub(crate) fn qualified_column(&self) -> String {
        match self.table {
            Some(t) => format!("`{}`.`{}`.`{}`", t.database, t.name, self.column.name),
            None => format!("`{}`", self.column.name),
        }
    }

    /// Invalid UTF-8 into a utf8mb4 column: error 1366 in strict mode, otherwise a
    /// warning and the valid prefix.
    pub(crate) fn invalid_string(
        &self,
        bytes: &[u8],
        at: usize,
        w: &mut Vec<Warning>,
    ) -> Result<(), SqlError> {
        let message = format!(
            "Incorrect string value: '{}' for column {} at row {}",
            crate::catalog::charset::incorrect_string_text(bytes, at),
            self.qualified_column(),
            self.row
        );
        let code = crate::error::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD;
        self.fail_or_warn(code, message, w)
    }

    pub(crate) fn out_of_range(&self, w: &mut Vec<Warning>) -> Result<(), SqlError> {
        let message = format!(
            "Out of range value for column '{}' at row {}",
            self.column.name, self.row
        );
        self.fail_or_warn(ER_WARN_DATA_OUT_OF_RANGE, message, w)
    }

    pub(crate) fn incorrect(
        &self,
        kind: &str,
        value: &Value,
        w: &mut Vec<Warning>,
    ) -> Result<(), SqlError> {
        let code = if matches!(kind, "date" | "datetime" | "time") {
            if !self.strict {
                // Outside strict mode MariaDB stores the zero date and says it truncated.
                self.truncated(w);
                return Ok(());
            }
            crate::error::ER_TRUNCATED_WRONG_VALUE
        } else {
            crate::error::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
        };
        let message = format!(
            "Incorrect {kind} value: '{}' for column {} at row {}",
            value.to_text_lossy(),
            self.qualified_column(),
            self.row
        );
        self.fail_or_warn(code, message, w)
    }

    /// In strict mode the error `code`; otherwise the same as a warning, and the caller
    /// stores the value adjusted.
    fn fail_or_warn(
        &self,
        code: ErrorCode,
        message: String,
        w: &mut Vec<Warning>,
    ) -> Result<(), SqlError> {
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

    pub(crate) fn too_long(&self, w: &mut Vec<Warning>) -> Result<(), SqlError> {
        if self.strict {
            return Err(SqlError::new(
                ER_DATA_TOO_LONG,
                format!(
                    "Data too long for column '{}' at row {}",
                    self.column.name, self.row
                ),
            ));
        }
        self.truncated(w);
        Ok(())
    }

    /// 1265 "Data truncated" as an error in strict mode, otherwise as a warning (a value
    /// that is no element of an ENUM or SET column).
    pub(crate) fn data_truncated_or_fail(&self, w: &mut Vec<Warning>) -> Result<(), SqlError> {
        if self.strict {
            let warning = self.data_truncated("Error");
            return Err(SqlError::new(WARN_DATA_TRUNCATED, warning.message));
        }
        self.truncated(w);
        Ok(())
    }

    /// Note 1265: digits of fractional seconds the column does not keep were dropped.
    fn fraction_cut(&self, w: &mut Vec<Warning>) {
        w.push(self.data_truncated("Note"));
    }

    /// Warning 1265: the value stored is not the one given.
    fn truncated(&self, w: &mut Vec<Warning>) {
        w.push(self.data_truncated("Warning"));
    }

    /// 1265 "Data truncated" for this column and row, at `level`.
    fn data_truncated(&self, level: &'static str) -> Warning {
        Warning {
            level,
            code: WARN_DATA_TRUNCATED.code,
            message: format!(
                "Data truncated for column '{}' at row {}",
                self.column.name, self.row
            ),
        }
    }
}

/// Convert a value for storing in a column, with MySQL's checks: strict mode errors
/// (1264 out of range, 1366 incorrect value, 1406 too long, 1048 NULL), otherwise the value
/// is adjusted and a warning recorded.
pub fn to_stored(
    value: &Value,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Value, SqlError> {
    let col = target.column;
    if value.is_null() {
        if !col.nullable && !col.auto_increment {
            return Err(SqlError::new(
                ER_BAD_NULL_ERROR,
                format!("Column '{}' cannot be null", col.name),
            ));
        }
        return Ok(st::Value::Null);
    }
    Ok(match &col.ty {
        st::ColumnType::Int { width, unsigned } => int_value(value, *width, *unsigned, target, w)?,
        st::ColumnType::Decimal { precision, scale } => {
            if let Value::Bytes(s) = value {
                let text = String::from_utf8_lossy(s);
                if !crate::expr::eval::numeric_prefix(&text).1 {
                    target.incorrect("decimal", value, w)?;
                }
            }
            let (d, fits) = crate::expr::decimal::to_column(value, *precision, *scale);
            if !fits {
                target.out_of_range(w)?;
            }
            st::Value::Decimal(d)
        }
        st::ColumnType::Float | st::ColumnType::Double => double_value(value, target, w)?,
        st::ColumnType::Char {
            len,
            collation: st::Collation::Binary,
        }
        | st::ColumnType::Varchar {
            len,
            collation: st::Collation::Binary,
        } => binary_value(value, *len, target, w)?,
        st::ColumnType::Char { len, .. } | st::ColumnType::Varchar { len, .. } => {
            char_value(value, *len, target, w)?
        }
        st::ColumnType::Text { size, .. } | st::ColumnType::Blob { size } => {
            long_value(value, *size, target, w)?
        }
        st::ColumnType::Date
        | st::ColumnType::DateTime { .. }
        | st::ColumnType::Timestamp { .. } => datetime_value(value, target, w)?,
        st::ColumnType::Time { fsp } => time_value(value, *fsp, target, w)?,
        st::ColumnType::Enum { .. } | st::ColumnType::Set { .. } => {
            crate::plan::stored_elements::element_value(value, target, w)?
        }
    })
}

/// An integer column's value, clamped to its range (1264 where it did not fit).
fn int_value(
    value: &Value,
    width: st::IntWidth,
    unsigned: bool,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Value, SqlError> {
    let mut scratch = Vec::new();
    let wide: i128 = match value {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        Value::Bytes(s) => {
            let text = String::from_utf8_lossy(s);
            let (prefix, complete) = crate::expr::eval::numeric_prefix(&text);
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
        Value::Decimal(d) => match d.round_dp(0).map(|r| r.trunc_to_i128()) {
            Ok(Some(i)) => i,
            _ if d.is_negative() => i128::MIN,
            _ => i128::MAX,
        },
        other => other
            .to_double(&mut scratch)
            .map(|f| f.round() as i128)
            .unwrap_or(0),
    };
    let (lo, hi) = if unsigned {
        (0i128, width.unsigned_max() as i128)
    } else {
        let (l, h) = width.signed_range();
        (l as i128, h as i128)
    };
    let clamped = wide.clamp(lo, hi);
    if clamped != wide {
        target.out_of_range(w)?;
    }
    Ok(if unsigned {
        st::Value::UInt(clamped as u64)
    } else {
        st::Value::Int(clamped as i64)
    })
}

/// A FLOAT or DOUBLE column's value; one that is not finite is out of range.
fn double_value(
    value: &Value,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Value, SqlError> {
    let mut scratch = Vec::new();
    if let Value::Bytes(s) = value {
        let text = String::from_utf8_lossy(s);
        if !crate::expr::eval::numeric_prefix(&text).1 {
            target.incorrect("double", value, w)?;
        }
    }
    let f = value.to_double(&mut scratch).unwrap_or(0.0);
    let f = if matches!(target.column.ty, st::ColumnType::Float) {
        f as f32 as f64
    } else {
        f
    };
    if !f.is_finite() {
        target.out_of_range(w)?;
    }
    Ok(st::Value::Double(f))
}

/// A BINARY(len) or VARBINARY(len) column's bytes, cut to `len` (1406 where more).
fn binary_value(
    value: &Value,
    len: u32,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Value, SqlError> {
    let mut bytes = value.to_text().unwrap_or_default();
    if bytes.len() > len as usize {
        target.too_long(w)?;
        bytes.truncate(len as usize);
    }
    if matches!(target.column.ty, st::ColumnType::Char { .. }) {
        // BINARY(n) pads with zero bytes to its length, as MariaDB stores it.
        bytes.resize(len as usize, 0);
    }
    Ok(st::Value::Bytes(bytes))
}

/// A CHAR(len) or VARCHAR(len) column's text, cut to `len` characters.
fn char_value(
    value: &Value,
    len: u32,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Value, SqlError> {
    let text = utf8_text(value, target, w)?;
    let s = String::from_utf8(text).expect("utf8_text keeps valid UTF-8 only");
    let mut s = if matches!(target.column.ty, st::ColumnType::Char { .. }) {
        s.trim_end_matches(' ').to_string()
    } else {
        s
    };
    if s.chars().count() > len as usize {
        // Only trailing spaces may be cut silently.
        let kept: String = s.chars().take(len as usize).collect();
        if s[kept.len()..].chars().any(|c| c != ' ') {
            target.too_long(w)?;
        }
        s = kept;
    }
    Ok(st::Value::Bytes(s.into_bytes()))
}

/// A TEXT or BLOB column's bytes, cut to its size class (TEXT at a character boundary).
fn long_value(
    value: &Value,
    size: st::LobSize,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Value, SqlError> {
    let mut bytes = if matches!(target.column.ty, st::ColumnType::Blob { .. }) {
        value.to_text().unwrap_or_default()
    } else {
        utf8_text(value, target, w)?
    };
    let max_bytes = usize::try_from(size.max_bytes()).unwrap_or(usize::MAX);
    if bytes.len() > max_bytes {
        target.too_long(w)?;
        bytes.truncate(max_bytes);
        if matches!(target.column.ty, st::ColumnType::Text { .. }) {
            // Cut at a character boundary.
            let valid = crate::catalog::charset::first_invalid_utf8(&bytes).unwrap_or(bytes.len());
            bytes.truncate(valid);
        }
    }
    Ok(st::Value::Bytes(bytes))
}

/// A DATE, DATETIME or TIMESTAMP column's value; one that does not read is an
/// incorrect value, stored as the zero date.
fn datetime_value(
    value: &Value,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Value, SqlError> {
    let impossible = match value {
        Value::Date(d) => !d.is_valid(),
        Value::DateTime(dt) => !dt.date().is_valid(),
        _ => false,
    };
    let date_only = matches!(target.column.ty, st::ColumnType::Date);
    let zero = || match date_only {
        true => st::Value::Date(st::Date::default()),
        false => st::Value::DateTime(st::DateTime::default()),
    };
    if impossible {
        // A day its month does not have (STR_TO_DATE makes them): an error in strict
        // mode, else the zero date with 1265, as MariaDB does.
        if target.strict {
            target.incorrect(if date_only { "date" } else { "datetime" }, value, w)?;
        } else {
            target.truncated(w);
        }
        return Ok(zero());
    }
    let parsed = match value {
        Value::Date { .. } | Value::DateTime { .. } => Some(value.clone()),
        // A TIME would take the current date; not built.
        Value::Time(_) => {
            return Err(SqlError::not_supported(
                "storing a TIME value in a DATE or DATETIME column",
            ))
        }
        Value::Bytes(s) => crate::expr::datetime::parse_datetime(&String::from_utf8_lossy(s)),
        _ => None,
    };
    Ok(match parsed.as_ref().and_then(Value::as_datetime) {
        Some(dt) if date_only => st::Value::Date(dt.date()),
        Some(mut dt) => {
            dt.micros = st::truncate_micros(dt.micros, target.column.ty.fsp());
            st::Value::DateTime(dt)
        }
        None => {
            target.incorrect(if date_only { "date" } else { "datetime" }, value, w)?;
            zero()
        }
    })
}

/// A TIME column's value: what reads as a time of MariaDB's range (a string as a time,
/// a datetime or `HHMMSS`, a number as `HHMMSS`, a DATETIME's time of day), cut to the
/// column's digits of fractional seconds; anything else is an incorrect value (1292),
/// stored as 00:00:00 outside strict mode.
fn time_value(
    value: &Value,
    fsp: u8,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Value, SqlError> {
    let mut cut = Vec::new();
    let Some(mut t) = crate::expr::functions::to_time(value, &mut cut) else {
        target.incorrect("time", value, w)?;
        return Ok(st::Value::Time(Default::default()));
    };
    if !cut.is_empty() {
        // Past the range: `to_time` cut it to the range's end, which is what is stored
        // outside strict mode (with 1264); strict mode refuses the value, as MariaDB does.
        if target.strict {
            target.incorrect("time", value, w)?;
        }
        target.out_of_range(w)?;
        // The range's end with as many nines as the column keeps, as MariaDB stores it.
        t.micros = st::truncate_micros(999_999, fsp);
    }
    let kept = st::truncate_micros(t.micros, fsp);
    if kept != t.micros {
        target.fraction_cut(w);
        t.micros = kept;
    }
    if t.total_micros() == 0 {
        t.negative = false;
    }
    Ok(st::Value::Time(t))
}

/// A value's bytes for a utf8mb4 column: error 1366 (strict) or a warning and the valid
/// prefix when they are not UTF-8.
pub(crate) fn utf8_text(
    value: &Value,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<Vec<u8>, SqlError> {
    let mut bytes = value.to_text().unwrap_or_default();
    if let Some(at) = crate::catalog::charset::first_invalid_utf8(&bytes) {
        target.invalid_string(&bytes, at, w)?;
        bytes.truncate(at);
    }
    Ok(bytes)
}
