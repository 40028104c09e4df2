//! Values inside the engine and MySQL's rules for them: conversion between strings and
//! numbers, arithmetic with integer overflow checks and DECIMAL precision, comparison with
//! MySQL's coercions and the utf8mb4_general_ci collation, LIKE, and the text forms of
//! numbers.
//!
//! Strings are UTF-8 bytes; numbers keep MySQL's four classes (signed and unsigned BIGINT,
//! DECIMAL, DOUBLE) because results differ by class: `1/3` is a DECIMAL with four more
//! digits of scale, `9223372036854775807 + 1` is an error, `'1e3' + 0` is a DOUBLE.

use crate::error::SqlError;
pub use crate::expr::arith::*;
pub use crate::expr::compare::*;
pub use crate::value::Value;
use myriad_types::decimal::{Decimal, DecimalError};
use myriad_types::errors::{ER_DATA_OUT_OF_RANGE, ER_TRUNCATED_WRONG_VALUE};
pub use myriad_types::{Date, DateTime};

/// The static type of an expression, from which the result column's metadata comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlType {
    Null,
    Int {
        unsigned: bool,
        len: u32,
    },
    Decimal {
        precision: u32,
        scale: u32,
    },
    Double,
    Str {
        chars: u32,
    },
    Date,
    /// A DATETIME or TIMESTAMP shown with `fsp` digits of fractional seconds.
    DateTime {
        fsp: u8,
    },
    /// A TIME shown with `fsp` digits of fractional seconds.
    Time {
        fsp: u8,
    },
}

/// A warning for SHOW WARNINGS: level, code, message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub level: &'static str,
    pub code: u16,
    pub message: String,
}

/// Largest DECIMAL scale of a value or a result column (MariaDB's DECIMAL_MAX_SCALE).
pub(crate) const DECIMAL_SCALE_MAX: u32 = myriad_types::decimal::MAX_SCALE;

/// Largest DECIMAL precision a result column is described with (MariaDB's
/// DECIMAL_MAX_PRECISION); a value itself may hold up to 81 digits.
pub(crate) const DECIMAL_PRECISION_MAX: u32 = myriad_types::decimal::MAX_PRECISION;

/// Error 1690 for a DECIMAL result past 81 digits.
pub fn err_decimal_out_of_range(expr: &str) -> SqlError {
    SqlError::new(
        ER_DATA_OUT_OF_RANGE,
        format!("DECIMAL value is out of range in '{expr}'"),
    )
}

/// The largest DECIMAL (65 nines) of a sign: what MariaDB makes of a number too wide to
/// read as a decimal.
fn decimal_clamped(negative: bool) -> Decimal {
    let max = Decimal::max_of(DECIMAL_PRECISION_MAX, 0);
    if negative {
        max.neg()
    } else {
        max
    }
}

pub fn err_out_of_range(unsigned: bool, expr: &str) -> SqlError {
    let kind = if unsigned {
        "BIGINT UNSIGNED"
    } else {
        "BIGINT"
    };
    SqlError::new(
        ER_DATA_OUT_OF_RANGE,
        format!("{kind} value is out of range in '{expr}'"),
    )
}

/// MySQL's rules for a value inside the evaluator: its conversions to numbers and truth
/// values (with the warnings they raise), its static type, and its typing for a result
/// column. The evaluator never holds a `Value::Time`: a TIME enters it as its text (see
/// [`crate::plan::stored::evaluable`]); the arms for it here treat it as that text.
pub trait SqlValue: Sized {
    /// A string value holding `s`.
    fn text(s: &str) -> Self;
    /// Whether the value is a string.
    fn is_string(&self) -> bool;
    /// The value as a double (MySQL's conversion, with warning 1292 for a string that is
    /// not entirely a number).
    fn to_double(&self, warnings: &mut Vec<Warning>) -> Option<f64>;
    /// The value as a decimal: a double through its shortest digits, a string through its
    /// numeric prefix read exactly (exponent included); a number past 81 digits is the
    /// largest DECIMAL of its sign, as in MariaDB.
    fn to_decimal(&self, warnings: &mut Vec<Warning>) -> Option<Decimal>;
    /// The value as a signed integer, rounding as MySQL does (half away from zero).
    fn to_int(&self, warnings: &mut Vec<Warning>) -> Option<i64>;
    /// Truth value: None for NULL.
    fn truth(&self, warnings: &mut Vec<Warning>) -> Option<bool>;
    /// The value for a result column of type `ty`.
    fn into_column(self, ty: SqlType, warnings: &mut Vec<Warning>) -> Value;
    /// The static type of a constant.
    fn sql_type(&self) -> SqlType;
}

impl SqlValue for Value {
    fn text(s: &str) -> Value {
        Value::Bytes(s.as_bytes().to_vec())
    }

    fn is_string(&self) -> bool {
        matches!(self, Value::Bytes(_))
    }

    fn to_double(&self, warnings: &mut Vec<Warning>) -> Option<f64> {
        match self {
            Value::Null => None,
            Value::Int(i) => Some(*i as f64),
            Value::UInt(u) => Some(*u as f64),
            Value::Decimal(d) => Some(d.to_f64()),
            Value::Double(f) => Some(*f),
            Value::Bytes(s) => Some(str_to_double(s, warnings)),
            Value::Date { .. } | Value::DateTime { .. } | Value::Time(_) => {
                temporal_number(self).map(|d| d.to_f64())
            }
        }
    }

    fn to_decimal(&self, warnings: &mut Vec<Warning>) -> Option<Decimal> {
        match self {
            Value::Null => None,
            Value::Int(i) => Some(Decimal::from_i64(*i)),
            Value::UInt(u) => Some(Decimal::from_u64(*u)),
            Value::Decimal(d) => Some(*d),
            Value::Double(f) => Some(match Decimal::from_f64(*f) {
                Some(Ok(d)) => d,
                Some(Err(_)) => decimal_clamped(*f < 0.0),
                None => Decimal::ZERO,
            }),
            Value::Bytes(s) => Some(str_to_decimal(s, warnings)),
            Value::Date { .. } | Value::DateTime { .. } | Value::Time(_) => temporal_number(self),
        }
    }

    fn to_int(&self, warnings: &mut Vec<Warning>) -> Option<i64> {
        match self {
            Value::Null => None,
            Value::Int(i) => Some(*i),
            Value::UInt(u) => Some(*u as i64),
            Value::Decimal(d) => {
                Some(
                    d.to_i64()
                        .unwrap_or(if d.is_negative() { i64::MIN } else { i64::MAX }),
                )
            }
            Value::Double(f) => Some(double_to_i64(f.round())),
            Value::Bytes(s) => Some(str_to_int(s, warnings)),
            Value::Date { .. } | Value::DateTime { .. } | Value::Time(_) => {
                temporal_number(self).and_then(|d| d.round_dp(0).ok()?.to_i64())
            }
        }
    }

    fn truth(&self, warnings: &mut Vec<Warning>) -> Option<bool> {
        match self {
            Value::Null => None,
            Value::Int(i) => Some(*i != 0),
            Value::UInt(u) => Some(*u != 0),
            Value::Decimal(d) => Some(!d.is_zero()),
            Value::Double(f) => Some(*f != 0.0),
            Value::Bytes(_) => self.to_double(warnings).map(|f| f != 0.0),
            Value::Time(t) => Some(t.total_micros() != 0),
            Value::Date { .. } | Value::DateTime { .. } => Some(true),
        }
    }

    fn into_column(self, ty: SqlType, warnings: &mut Vec<Warning>) -> Value {
        if self.is_null() {
            return Value::Null;
        }
        match ty {
            SqlType::Null => Value::Null,
            SqlType::Int { unsigned: true, .. } => match self {
                Value::UInt(u) => Value::UInt(u),
                Value::Int(i) => Value::UInt(i as u64),
                other => Value::UInt(other.to_int(warnings).unwrap_or(0) as u64),
            },
            SqlType::Int {
                unsigned: false, ..
            } => match self {
                Value::Int(i) => Value::Int(i),
                Value::UInt(u) if u <= i64::MAX as u64 => Value::Int(u as i64),
                Value::UInt(u) => Value::UInt(u),
                other => Value::Int(other.to_int(warnings).unwrap_or(0)),
            },
            SqlType::Decimal { scale, .. } => {
                let d = self.to_decimal(warnings).unwrap_or(Decimal::ZERO);
                Value::Decimal(decimal_at_scale(d, scale))
            }
            SqlType::Double => Value::Double(self.to_double(warnings).unwrap_or(0.0)),
            SqlType::Str { .. } => match self {
                // The bytes move; only other kinds are formatted.
                Value::Bytes(s) => Value::Bytes(s),
                other => Value::Bytes(other.to_text().unwrap_or_default()),
            },
            SqlType::Date => match self.as_datetime() {
                Some(dt) => Value::Date(dt.date()),
                None => Value::Bytes(self.to_text().unwrap_or_default()),
            },
            SqlType::DateTime { .. } => match self.as_datetime() {
                Some(dt) => Value::DateTime(dt),
                None => Value::Bytes(self.to_text().unwrap_or_default()),
            },
            SqlType::Time { .. } => match self {
                Value::Time(t) => Value::Time(t),
                other => Value::Bytes(other.to_text().unwrap_or_default()),
            },
        }
    }

    fn sql_type(&self) -> SqlType {
        match self {
            Value::Null => SqlType::Null,
            Value::Int(i) => SqlType::Int {
                unsigned: false,
                len: i.to_string().len() as u32,
            },
            Value::UInt(u) => SqlType::Int {
                unsigned: true,
                len: u.to_string().len() as u32,
            },
            Value::Decimal(d) => SqlType::Decimal {
                precision: d.precision().max(1),
                scale: d.scale(),
            },
            Value::Double(_) => SqlType::Double,
            Value::Bytes(s) => SqlType::Str {
                chars: String::from_utf8_lossy(s).chars().count() as u32,
            },
            // The digits its fraction needs (a literal shows those it was written with).
            Value::Time(t) => SqlType::Time {
                fsp: (0..6u8)
                    .find(|&d| t.micros % 10u32.pow(6 - u32::from(d)) == 0)
                    .unwrap_or(6),
            },
            Value::Date { .. } => SqlType::Date,
            Value::DateTime(dt) => SqlType::DateTime {
                fsp: myriad_types::datetime::frac_digits_auto(dt.micros),
            },
        }
    }
}

/// Dates in numeric context: 20240131 or 20240131123456; None for other values.
fn temporal_number(value: &Value) -> Option<Decimal> {
    match value {
        Value::Date(d) => Some(Decimal::from_i64(date_number(*d))),
        Value::DateTime(dt) => Some(Decimal::from_i64(
            date_number(dt.date()) * 1_000_000
                + dt.hour as i64 * 10_000
                + dt.minute as i64 * 100
                + dt.second as i64,
        )),
        Value::Time(t) => {
            let sign = if t.negative { "-" } else { "" };
            let whole =
                u64::from(t.hours) * 10_000 + u64::from(t.minute) * 100 + u64::from(t.second);
            let text = match t.micros {
                0 => format!("{sign}{whole}"),
                micros => format!("{sign}{whole}.{micros:06}"),
            };
            Decimal::parse(&text).ok()
        }
        _ => None,
    }
}

/// A string's numeric prefix as a decimal (warning 1292 when it is not all number).
fn str_to_decimal(s: &[u8], warnings: &mut Vec<Warning>) -> Decimal {
    let text = String::from_utf8_lossy(s);
    let (prefix, complete) = numeric_prefix(&text);
    if !complete {
        warnings.push(truncated_warning("DECIMAL", &text));
    }
    match Decimal::parse(prefix) {
        Ok(d) => d,
        Err(DecimalError::Overflow) => decimal_clamped(prefix.starts_with('-')),
        Err(_) => Decimal::ZERO,
    }
}

/// A string's numeric prefix as a signed integer, rounded half away from zero (warning
/// 1292 when it is not all number).
fn str_to_int(s: &[u8], warnings: &mut Vec<Warning>) -> i64 {
    let text = String::from_utf8_lossy(s);
    let (prefix, complete) = numeric_prefix(&text);
    if !complete {
        warnings.push(truncated_warning("INTEGER", &text));
    }
    match prefix.parse::<i64>() {
        Ok(i) => i,
        Err(_) => double_to_i64(prefix.parse::<f64>().unwrap_or(0.0).round()),
    }
}

/// A string as CAST AS SIGNED / UNSIGNED reads it, as MariaDB does: the leading integer
/// only (`'1.5'` is 1, `'1e3'` is 1, with warning 1292 for the rest), kept in 64 bits: up
/// to 2^64-1 as is (CAST AS SIGNED then wraps it), past it 2^64-1, below -2^63 -2^63, each
/// with warning 1292. The result is the value; the caller takes its 64 bits.
pub(crate) fn str_to_int_bits(s: &[u8], warnings: &mut Vec<Warning>) -> i128 {
    let text = String::from_utf8_lossy(s);
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r']);
    let (negative, digits_from) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let rest = &trimmed[digits_from..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let mut value: i128 = 0;
    let mut clamped = false;
    for b in rest[..digits].bytes() {
        value = value * 10 + i128::from(b - b'0');
        if value > i128::from(u64::MAX) {
            clamped = true;
            value = i128::from(u64::MAX) + 1;
        }
    }
    let value = if negative { -value } else { value };
    let (value, clamped) = if value < i128::from(i64::MIN) {
        (i128::from(i64::MIN), true)
    } else if value > i128::from(u64::MAX) {
        (i128::from(u64::MAX), true)
    } else {
        (value, clamped)
    };
    let complete = rest[digits..]
        .trim_end_matches([' ', '\t', '\n', '\r'])
        .is_empty();
    if clamped || !complete || digits == 0 {
        warnings.push(truncated_warning("INTEGER", &text));
    }
    value
}

/// A date as a number in numeric context: YYYYMMDD.
fn date_number(d: Date) -> i64 {
    d.year as i64 * 10_000 + d.month as i64 * 100 + d.day as i64
}

fn double_to_i64(f: f64) -> i64 {
    if f.is_nan() {
        0
    } else if f >= i64::MAX as f64 {
        i64::MAX
    } else if f <= i64::MIN as f64 {
        i64::MIN
    } else {
        f as i64
    }
}

pub fn truncated_warning(kind: &str, text: &str) -> Warning {
    Warning {
        level: "Warning",
        code: ER_TRUNCATED_WRONG_VALUE.code,
        message: format!("Truncated incorrect {kind} value: '{text}'"),
    }
}

/// The longest prefix of `text` that reads as a number (after leading spaces), and whether
/// it is the whole text (trailing spaces allowed).
pub fn numeric_prefix(text: &str) -> (&str, bool) {
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r']);
    let bytes = trimmed.as_bytes();
    let mut end = 0;
    if end < bytes.len() && (bytes[end] == b'+' || bytes[end] == b'-') {
        end += 1;
    }
    let digits_start = end;
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        end += 1;
    }
    let mut mantissa_digits = end - digits_start;
    if end < bytes.len() && bytes[end] == b'.' {
        let dot = end;
        end += 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
        mantissa_digits += end - dot - 1;
        if mantissa_digits == 0 {
            end = dot;
        }
    }
    if mantissa_digits == 0 {
        return ("0", trimmed.trim().is_empty() && text.is_empty());
    }
    if end < bytes.len() && (bytes[end] == b'e' || bytes[end] == b'E') {
        let mut exp_end = end + 1;
        if exp_end < bytes.len() && (bytes[exp_end] == b'+' || bytes[exp_end] == b'-') {
            exp_end += 1;
        }
        let exp_digits = exp_end;
        while exp_end < bytes.len() && bytes[exp_end].is_ascii_digit() {
            exp_end += 1;
        }
        if exp_end > exp_digits {
            end = exp_end;
        }
    }
    let rest = &trimmed[end..];
    (&trimmed[..end], rest.trim().is_empty())
}

fn str_to_double(bytes: &[u8], warnings: &mut Vec<Warning>) -> f64 {
    let text = String::from_utf8_lossy(bytes);
    let (prefix, complete) = numeric_prefix(&text);
    if !complete {
        warnings.push(truncated_warning("DOUBLE", &text));
    }
    prefix.parse::<f64>().unwrap_or(0.0)
}

/// A decimal with exactly `scale` digits after the point (MySQL pads and rounds DECIMAL
/// results to the column's scale, half away from zero).
pub fn decimal_at_scale(d: Decimal, scale: u32) -> Decimal {
    // Rescaling a value of at most 81 digits to a smaller scale cannot overflow; padding it
    // past 81 digits keeps the value at its own scale.
    d.rescale(scale.min(DECIMAL_SCALE_MAX)).unwrap_or(d)
}

/// A decimal's text with exactly `scale` digits after the point.
pub fn decimal_text(d: Decimal, scale: u32) -> String {
    decimal_at_scale(d, scale).to_string()
}

pub use myriad_types::format_double;

/// Characters a value of this type needs when shown as text.
pub fn display_chars(t: SqlType) -> u32 {
    match t {
        SqlType::Null => 0,
        SqlType::Int { len, .. } => len,
        SqlType::Decimal { precision, scale } => precision + u32::from(scale > 0) + 1,
        SqlType::Double => 22,
        SqlType::Str { chars } => chars,
        SqlType::Date => 10,
        SqlType::DateTime { fsp: 0 } => 19,
        SqlType::DateTime { fsp } => 20 + u32::from(fsp),
        SqlType::Time { fsp: 0 } => 10,
        SqlType::Time { fsp } => 11 + u32::from(fsp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;
    const CI: myriad_types::Collation = myriad_types::Collation::Utf8mb4GeneralCi;

    fn no_text() -> String {
        "x".into()
    }

    #[test]
    fn numeric_prefix_cases() {
        assert_eq!(numeric_prefix("12abc"), ("12", false));
        assert_eq!(numeric_prefix(" 1.5e3 "), ("1.5e3", true));
        assert_eq!(numeric_prefix("abc"), ("0", false));
        assert_eq!(numeric_prefix("-.5"), ("-.5", true));
        assert_eq!(numeric_prefix("1e"), ("1", false));
        assert_eq!(numeric_prefix(""), ("0", true));
    }

    #[test]
    fn integer_overflow_is_an_error() {
        let mut w = Vec::new();
        let e = arith(
            ArithOp::Add,
            &Value::Int(i64::MAX),
            &Value::Int(1),
            4,
            &no_text,
            &mut w,
        )
        .unwrap_err();
        assert_eq!(e.code, 1690);
        let e = arith(
            ArithOp::Sub,
            &Value::UInt(1),
            &Value::Int(2),
            4,
            &no_text,
            &mut w,
        )
        .unwrap_err();
        assert!(e.message.contains("UNSIGNED"));
        assert_eq!(
            arith(
                ArithOp::Add,
                &Value::UInt(u64::MAX),
                &Value::Int(-1),
                4,
                &no_text,
                &mut w
            )
            .unwrap(),
            Value::UInt(u64::MAX - 1)
        );
    }

    #[test]
    fn division_gives_decimal_and_null_on_zero() {
        let mut w = Vec::new();
        let q = arith(
            ArithOp::Div,
            &Value::Int(1),
            &Value::Int(3),
            4,
            &no_text,
            &mut w,
        )
        .unwrap();
        assert_eq!(q.to_text_lossy(), "0.3333");
        assert_eq!(
            arith(
                ArithOp::Div,
                &Value::Int(1),
                &Value::Int(0),
                4,
                &no_text,
                &mut w
            )
            .unwrap(),
            Value::Null
        );
        assert_eq!(w[0].code, 1365);
        assert_eq!(
            arith(
                ArithOp::Mod,
                &Value::Int(-7),
                &Value::Int(2),
                4,
                &no_text,
                &mut w
            )
            .unwrap(),
            Value::Int(-1)
        );
        assert_eq!(
            arith(
                ArithOp::IntDiv,
                &Value::Int(7),
                &Value::Int(2),
                4,
                &no_text,
                &mut w
            )
            .unwrap(),
            Value::Int(3)
        );
    }

    #[test]
    fn comparisons_follow_mysql_coercion() {
        let mut w = Vec::new();
        assert_eq!(
            compare(&Value::text("a"), &Value::text("A "), CI, &mut w),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&Value::text("10"), &Value::Int(9), CI, &mut w),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&Value::text("abc"), &Value::Int(0), CI, &mut w),
            Some(Ordering::Equal)
        );
        assert_eq!(w.len(), 1, "the string that is not a number warns");
        assert_eq!(
            compare(&Value::UInt(u64::MAX), &Value::Int(-1), CI, &mut w),
            Some(Ordering::Greater)
        );
        assert_eq!(compare(&Value::Null, &Value::Int(1), CI, &mut w), None);
    }

    #[test]
    fn like_patterns() {
        assert!(like_match(b"Hello", b"h%o", b'\\', CI));
        assert!(like_match(b"Hello", b"_ello", b'\\', CI));
        assert!(!like_match(b"Hello", b"h%x", b'\\', CI));
        assert!(like_match(b"a%b", b"a\\%b", b'\\', CI));
        assert!(!like_match(b"axb", b"a\\%b", b'\\', CI));
        assert!(like_match(b"", b"%", b'\\', CI));
        assert!(like_match(b"abcabc", b"%abc", b'\\', CI));
        assert!(!like_match(
            b"abc",
            b"ABC",
            b'\\',
            myriad_types::Collation::Utf8mb4Bin
        ));
        assert!(!like_match(
            b"abc",
            b"ABC",
            b'\\',
            myriad_types::Collation::Binary
        ));
        // A binary string's `_` is one byte.
        assert!(!like_match(
            "é".as_bytes(),
            b"_",
            b'\\',
            myriad_types::Collation::Binary
        ));
        assert!(like_match("é".as_bytes(), b"_", b'\\', CI));
        // Bytes that are not UTF-8 match byte by byte, not as U+FFFD.
        assert!(!like_match(b"\xff", b"\xfe", b'\\', CI));
        assert!(like_match(b"a\xff\x00b", b"a_\x00%", b'\\', CI));
        assert!(!like_match(b"A\xff", b"a%", b'\\', CI));
    }

    #[test]
    fn double_text_forms() {
        assert_eq!(format_double(1000.0), "1000");
        assert_eq!(format_double(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(format_double(1e15), "1e15");
        assert_eq!(format_double(1.5e-7), "0.00000015");
        assert_eq!(format_double(-2.5), "-2.5");
    }
}
