//! Values inside the engine and MySQL's rules for them: conversion between strings and
//! numbers, arithmetic with integer overflow checks and DECIMAL precision, comparison with
//! MySQL's coercions and the utf8mb4_general_ci collation, LIKE, and the text forms of
//! numbers.
//!
//! Strings are UTF-8 bytes; numbers keep MySQL's four classes (signed and unsigned BIGINT,
//! DECIMAL, DOUBLE) because results differ by class: `1/3` is a DECIMAL with four more
//! digits of scale, `9223372036854775807 + 1` is an error, `'1e3' + 0` is a DOUBLE.

use crate::error::SqlError;
use crate::value::Value;
use myriad_types::errors::{ER_DATA_OUT_OF_RANGE, ER_DIVISION_BY_ZERO, ER_TRUNCATED_WRONG_VALUE};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};
use std::cmp::Ordering;

/// A value during evaluation.
#[derive(Debug, Clone, PartialEq)]
pub enum Datum {
    Null,
    Int(i64),
    UInt(u64),
    Dec(Decimal),
    Double(f64),
    Str(Vec<u8>),
    Date {
        year: u16,
        month: u8,
        day: u8,
    },
    DateTime {
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micros: u32,
    },
}

/// The static type of an expression, from which the result column's metadata comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlType {
    Null,
    Int { unsigned: bool, len: u32 },
    Decimal { precision: u32, scale: u32 },
    Double,
    Str { chars: u32 },
    Date,
    DateTime,
}

/// A warning for SHOW WARNINGS: level, code, message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub level: &'static str,
    pub code: u16,
    pub message: String,
}

/// Largest DECIMAL scale rust_decimal holds (MySQL allows 30 in columns, 38 in results).
const DECIMAL_SCALE_MAX: u32 = 28;

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

impl Datum {
    pub fn is_null(&self) -> bool {
        matches!(self, Datum::Null)
    }

    pub fn text(s: &str) -> Datum {
        Datum::Str(s.as_bytes().to_vec())
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Datum::Str(_))
    }

    /// The text form MySQL gives this value (CONCAT, comparisons with strings, the text
    /// protocol).
    pub fn to_text(&self) -> Option<Vec<u8>> {
        Some(match self {
            Datum::Null => return None,
            Datum::Int(i) => i.to_string().into_bytes(),
            Datum::UInt(u) => u.to_string().into_bytes(),
            Datum::Dec(d) => d.to_string().into_bytes(),
            Datum::Double(f) => format_double(*f).into_bytes(),
            Datum::Str(s) => s.clone(),
            Datum::Date { year, month, day } => {
                format!("{year:04}-{month:02}-{day:02}").into_bytes()
            }
            Datum::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micros,
            } => {
                format_datetime(*year, *month, *day, *hour, *minute, *second, *micros).into_bytes()
            }
        })
    }

    pub fn to_text_lossy(&self) -> String {
        self.to_text()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_else(|| "NULL".into())
    }

    /// The value as a double (MySQL's conversion, with warning 1292 for a string that is
    /// not entirely a number).
    pub fn to_double(&self, warnings: &mut Vec<Warning>) -> Option<f64> {
        match self {
            Datum::Null => None,
            Datum::Int(i) => Some(*i as f64),
            Datum::UInt(u) => Some(*u as f64),
            Datum::Dec(d) => d.to_f64(),
            Datum::Double(f) => Some(*f),
            Datum::Str(s) => Some(str_to_double(s, warnings)),
            Datum::Date { .. } | Datum::DateTime { .. } => {
                self.temporal_number().and_then(|d| d.to_f64())
            }
        }
    }

    /// The value as a decimal (strings go through double, as MySQL does).
    pub fn to_decimal(&self, warnings: &mut Vec<Warning>) -> Option<Decimal> {
        match self {
            Datum::Null => None,
            Datum::Int(i) => Some(Decimal::from(*i)),
            Datum::UInt(u) => Some(Decimal::from(*u)),
            Datum::Dec(d) => Some(*d),
            Datum::Double(f) => Decimal::from_f64_retain(*f).or(Some(Decimal::ZERO)),
            Datum::Str(s) => {
                let text = String::from_utf8_lossy(s);
                let (prefix, complete) = numeric_prefix(&text);
                if !complete {
                    warnings.push(truncated_warning("DECIMAL", &text));
                }
                Some(prefix.parse::<Decimal>().unwrap_or_else(|_| {
                    Decimal::from_f64_retain(prefix.parse::<f64>().unwrap_or(0.0))
                        .unwrap_or(Decimal::ZERO)
                }))
            }
            Datum::Date { .. } | Datum::DateTime { .. } => self.temporal_number(),
        }
    }

    /// The value as a signed integer, rounding as MySQL does (half away from zero).
    pub fn to_int(&self, warnings: &mut Vec<Warning>) -> Option<i64> {
        match self {
            Datum::Null => None,
            Datum::Int(i) => Some(*i),
            Datum::UInt(u) => Some(*u as i64),
            Datum::Dec(d) => Some(
                d.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero)
                    .to_i64()
                    .unwrap_or(if d.is_sign_negative() {
                        i64::MIN
                    } else {
                        i64::MAX
                    }),
            ),
            Datum::Double(f) => Some(double_to_i64(f.round())),
            Datum::Str(s) => {
                let text = String::from_utf8_lossy(s);
                let (prefix, complete) = numeric_prefix(&text);
                if !complete {
                    warnings.push(truncated_warning("INTEGER", &text));
                }
                match prefix.parse::<i64>() {
                    Ok(i) => Some(i),
                    Err(_) => Some(double_to_i64(prefix.parse::<f64>().unwrap_or(0.0).round())),
                }
            }
            Datum::Date { .. } | Datum::DateTime { .. } => {
                self.temporal_number().and_then(|d| d.to_i64())
            }
        }
    }

    /// Truth value: None for NULL.
    pub fn truth(&self, warnings: &mut Vec<Warning>) -> Option<bool> {
        match self {
            Datum::Null => None,
            Datum::Int(i) => Some(*i != 0),
            Datum::UInt(u) => Some(*u != 0),
            Datum::Dec(d) => Some(!d.is_zero()),
            Datum::Double(f) => Some(*f != 0.0),
            Datum::Str(_) => self.to_double(warnings).map(|f| f != 0.0),
            Datum::Date { .. } | Datum::DateTime { .. } => Some(true),
        }
    }

    /// Dates in numeric context: 20240131 or 20240131123456.
    fn temporal_number(&self) -> Option<Decimal> {
        match self {
            Datum::Date { year, month, day } => Some(Decimal::from(
                *year as i64 * 10_000 + *month as i64 * 100 + *day as i64,
            )),
            Datum::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                ..
            } => Some(Decimal::from(
                (*year as i64 * 10_000 + *month as i64 * 100 + *day as i64) * 1_000_000
                    + *hour as i64 * 10_000
                    + *minute as i64 * 100
                    + *second as i64,
            )),
            _ => None,
        }
    }

    /// The public value for a result column of type `ty`.
    pub fn into_value(self, ty: SqlType, warnings: &mut Vec<Warning>) -> Value {
        if self.is_null() {
            return Value::Null;
        }
        match ty {
            SqlType::Null => Value::Null,
            SqlType::Int { unsigned: true, .. } => match self {
                Datum::UInt(u) => Value::UInt(u),
                Datum::Int(i) => Value::UInt(i as u64),
                other => Value::UInt(other.to_int(warnings).unwrap_or(0) as u64),
            },
            SqlType::Int {
                unsigned: false, ..
            } => match self {
                Datum::Int(i) => Value::Int(i),
                Datum::UInt(u) if u <= i64::MAX as u64 => Value::Int(u as i64),
                Datum::UInt(u) => Value::UInt(u),
                other => Value::Int(other.to_int(warnings).unwrap_or(0)),
            },
            SqlType::Decimal { scale, .. } => {
                if let Datum::Str(s) = &self {
                    // Digits too wide for the evaluator's decimal (a wide literal or
                    // stored value) are formatted exactly.
                    if let Some(text) = crate::decimal::exact_text(s, scale) {
                        return Value::Decimal(text);
                    }
                }
                let d = self.to_decimal(warnings).unwrap_or(Decimal::ZERO);
                Value::Decimal(decimal_text(d, scale))
            }
            SqlType::Double => Value::Double(self.to_double(warnings).unwrap_or(0.0)),
            SqlType::Str { .. } => match self {
                // The bytes move; only other kinds are formatted.
                Datum::Str(s) => Value::Bytes(s),
                other => Value::Bytes(other.to_text().unwrap_or_default()),
            },
            SqlType::Date => match self {
                Datum::Date { year, month, day } => Value::Date { year, month, day },
                Datum::DateTime {
                    year, month, day, ..
                } => Value::Date { year, month, day },
                other => Value::Bytes(other.to_text().unwrap_or_default()),
            },
            SqlType::DateTime => match self {
                Datum::DateTime {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    micros,
                } => Value::DateTime {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    micros,
                },
                Datum::Date { year, month, day } => Value::DateTime {
                    year,
                    month,
                    day,
                    hour: 0,
                    minute: 0,
                    second: 0,
                    micros: 0,
                },
                other => Value::Bytes(other.to_text().unwrap_or_default()),
            },
        }
    }

    /// A prepared-statement parameter or stored value coming in.
    pub fn from_value(value: &Value) -> Datum {
        match value {
            Value::Null => Datum::Null,
            Value::Int(i) => Datum::Int(*i),
            Value::UInt(u) => Datum::UInt(*u),
            Value::Double(f) => Datum::Double(*f),
            // Exact: a DECIMAL when the evaluator's decimal holds every digit, else the
            // digits themselves (rust_decimal rounds, or shifts, what it cannot hold).
            Value::Decimal(text) => {
                crate::decimal::literal(text).unwrap_or_else(|| Datum::text(text))
            }
            Value::Bytes(b) => Datum::Str(b.clone()),
            Value::Date { year, month, day } => Datum::Date {
                year: *year,
                month: *month,
                day: *day,
            },
            Value::DateTime {
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
            Value::Time {
                negative,
                hours,
                minute,
                second,
                micros,
            } => {
                let sign = if *negative { "-" } else { "" };
                let mut s = format!("{sign}{hours:02}:{minute:02}:{second:02}");
                if *micros > 0 {
                    s.push_str(&format!(".{micros:06}"));
                }
                Datum::Str(s.into_bytes())
            }
        }
    }

    /// The static type of a constant.
    pub fn sql_type(&self) -> SqlType {
        match self {
            Datum::Null => SqlType::Null,
            Datum::Int(i) => SqlType::Int {
                unsigned: false,
                len: i.to_string().len() as u32,
            },
            Datum::UInt(u) => SqlType::Int {
                unsigned: true,
                len: u.to_string().len() as u32,
            },
            Datum::Dec(d) => {
                let digits = d.mantissa().unsigned_abs().to_string().len() as u32;
                SqlType::Decimal {
                    precision: digits.max(d.scale()),
                    scale: d.scale(),
                }
            }
            Datum::Double(_) => SqlType::Double,
            Datum::Str(s) => SqlType::Str {
                chars: String::from_utf8_lossy(s).chars().count() as u32,
            },
            Datum::Date { .. } => SqlType::Date,
            Datum::DateTime { .. } => SqlType::DateTime,
        }
    }
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

/// A decimal's text with exactly `scale` digits after the point (MySQL pads and rounds
/// DECIMAL results to the column's scale).
pub fn decimal_text(d: Decimal, scale: u32) -> String {
    let scale = scale.min(DECIMAL_SCALE_MAX);
    let mut rounded = d.round_dp_with_strategy(scale, RoundingStrategy::MidpointAwayFromZero);
    rounded.rescale(scale);
    let text = rounded.to_string();
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// MySQL's text form of a DOUBLE: the shortest digits that read back to the same value,
/// in plain notation unless the exponent is below -4 or at least 15 (`1e15`, `1.5e-7`).
pub fn format_double(f: f64) -> String {
    if f.is_nan() || f.is_infinite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-5..15).contains(&exp) {
        format!("{mantissa}e{exp}")
    } else {
        let plain = format!("{f}");
        plain
    }
}

/// Which comparison MySQL applies to two operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareAs {
    Int,
    Decimal,
    Double,
    String,
}

pub fn compare_class(a: &Datum, b: &Datum) -> CompareAs {
    use Datum::*;
    let temporal = |d: &Datum| matches!(d, Date { .. } | DateTime { .. });
    match (a, b) {
        (Str(_), Str(_)) => CompareAs::String,
        (x, y) if temporal(x) && (temporal(y) || y.is_string()) => CompareAs::String,
        (x, y) if temporal(y) && x.is_string() => CompareAs::String,
        (Double(_), _) | (_, Double(_)) | (Str(_), _) | (_, Str(_)) => CompareAs::Double,
        (Dec(_), _) | (_, Dec(_)) => CompareAs::Decimal,
        (Date { .. } | DateTime { .. }, _) | (_, Date { .. } | DateTime { .. }) => {
            CompareAs::Decimal
        }
        _ => CompareAs::Int,
    }
}

/// Compare two non-NULL values as MySQL would; None when either is NULL.
pub fn compare(a: &Datum, b: &Datum, warnings: &mut Vec<Warning>) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    Some(match compare_class(a, b) {
        CompareAs::String => match (a, b) {
            // Two strings compare in place; only other kinds are formatted as text first.
            (Datum::Str(x), Datum::Str(y)) => collate_cmp(x, y),
            _ => collate_cmp(&a.to_text()?, &b.to_text()?),
        },
        CompareAs::Int => int_cmp(a, b),
        CompareAs::Decimal => a.to_decimal(warnings)?.cmp(&b.to_decimal(warnings)?),
        CompareAs::Double => {
            let (x, y) = (a.to_double(warnings)?, b.to_double(warnings)?);
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
    })
}

fn int_cmp(a: &Datum, b: &Datum) -> Ordering {
    let wide = |d: &Datum| match d {
        Datum::Int(i) => *i as i128,
        Datum::UInt(u) => *u as i128,
        _ => 0,
    };
    wide(a).cmp(&wide(b))
}

/// utf8mb4_general_ci: case-insensitive by simple upper-casing, trailing spaces ignored
/// (PAD SPACE).
pub fn collate_cmp(a: &[u8], b: &[u8]) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        // The common case, byte by byte: on ASCII, fold_char is ASCII upper-casing and a
        // char's order is its byte's.
        let a = trim_trailing_spaces(a);
        let b = trim_trailing_spaces(b);
        for (x, y) in a.iter().zip(b) {
            let (x, y) = (x.to_ascii_uppercase(), y.to_ascii_uppercase());
            if x != y {
                return x.cmp(&y);
            }
        }
        return a.len().cmp(&b.len());
    }
    collate_cmp_chars(a, b)
}

/// [`collate_cmp`] char by char. Bytes that are not UTF-8 can only be a binary string
/// (utf8mb4 columns refuse them), and binary strings compare byte by byte: reading them
/// as U+FFFD would make `x'FF' = x'FE'` true.
fn collate_cmp_chars(a: &[u8], b: &[u8]) -> Ordering {
    let (Ok(a), Ok(b)) = (std::str::from_utf8(a), std::str::from_utf8(b)) else {
        return a.cmp(b);
    };
    let a = a.trim_end_matches(' ');
    let b = b.trim_end_matches(' ');
    let mut left = a.chars().map(fold_char);
    let mut right = b.chars().map(fold_char);
    loop {
        match (left.next(), right.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x != y => return x.cmp(&y),
            _ => {}
        }
    }
}

fn trim_trailing_spaces(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|&c| c != b' ').map_or(0, |i| i + 1);
    &bytes[..end]
}

/// general_ci folds case and a few accents; upper-casing one char keeps it one char here.
pub fn fold_char(c: char) -> char {
    let mut upper = c.to_uppercase();
    let first = upper.next().unwrap_or(c);
    if upper.next().is_some() {
        return c;
    }
    match first {
        'À'..='Å' => 'A',
        'È'..='Ë' => 'E',
        'Ì'..='Ï' => 'I',
        'Ò'..='Ö' => 'O',
        'Ù'..='Ü' => 'U',
        'Ç' => 'C',
        'Ñ' => 'N',
        other => other,
    }
}

/// SQL LIKE with `%`, `_` and an escape character; case-insensitive unless `binary`.
pub fn like_match(text: &[u8], pattern: &[u8], escape: u8, binary: bool) -> bool {
    let (text, pattern, binary): (Vec<char>, Vec<char>, bool) =
        match (std::str::from_utf8(text), std::str::from_utf8(pattern)) {
            (Ok(t), Ok(p)) => (
                t.chars().collect::<Vec<char>>(),
                p.chars().collect(),
                binary,
            ),
            // Bytes that are not UTF-8 are a binary string's: matched byte by byte (each byte
            // as the char of the same number), never as U+FFFD.
            _ => (
                text.iter().map(|&b| char::from(b)).collect(),
                pattern.iter().map(|&b| char::from(b)).collect(),
                true,
            ),
        };
    let escape = escape as char;
    let eq = |a: char, b: char| {
        if binary {
            a == b
        } else {
            fold_char(a) == fold_char(b)
        }
    };
    // Iterative matcher with backtracking to the last `%` (linear in practice, no recursion).
    let (mut t, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() {
            let pc = pattern[p];
            if pc == '%' {
                star = Some((p, t));
                p += 1;
                continue;
            }
            if pc == '_' {
                t += 1;
                p += 1;
                continue;
            }
            let (literal, width) = if pc == escape && p + 1 < pattern.len() {
                (pattern[p + 1], 2)
            } else {
                (pc, 1)
            };
            if eq(literal, text[t]) {
                t += 1;
                p += width;
                continue;
            }
        }
        match star {
            Some((sp, st)) => {
                p = sp + 1;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    while p < pattern.len() && pattern[p] == '%' {
        p += 1;
    }
    p == pattern.len()
}

/// Arithmetic operators with MySQL's class rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
}

impl ArithOp {
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::IntDiv => "DIV",
            ArithOp::Mod => "%",
        }
    }
}

/// The numeric class an operand has in arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NumClass {
    Int,
    Decimal,
    Double,
}

pub fn num_class_of_type(ty: SqlType) -> NumClass {
    match ty {
        SqlType::Null | SqlType::Int { .. } => NumClass::Int,
        SqlType::Decimal { .. } | SqlType::Date | SqlType::DateTime => NumClass::Decimal,
        SqlType::Double | SqlType::Str { .. } => NumClass::Double,
    }
}

/// Evaluate `a op b`. `text` names the expression for overflow errors; `div_incr` is
/// div_precision_increment. Division by zero gives NULL and warning 1365.
pub fn arith(
    op: ArithOp,
    a: &Datum,
    b: &Datum,
    div_incr: u32,
    text: &dyn Fn() -> String,
    warnings: &mut Vec<Warning>,
) -> Result<Datum, SqlError> {
    if a.is_null() || b.is_null() {
        return Ok(Datum::Null);
    }
    let class = num_class_of_type(a.sql_type()).max(num_class_of_type(b.sql_type()));
    let div_zero = |warnings: &mut Vec<Warning>| {
        warnings.push(Warning {
            level: "Warning",
            code: ER_DIVISION_BY_ZERO.code,
            message: "Division by 0".into(),
        });
        Ok(Datum::Null)
    };
    match class {
        NumClass::Int if op != ArithOp::Div => {
            let unsigned = matches!(a, Datum::UInt(_)) || matches!(b, Datum::UInt(_));
            let wide = |d: &Datum| match d {
                Datum::Int(i) => *i as i128,
                Datum::UInt(u) => *u as i128,
                _ => 0,
            };
            let (x, y) = (wide(a), wide(b));
            let result = match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x
                    .checked_mul(y)
                    .ok_or_else(|| err_out_of_range(unsigned, &text()))?,
                ArithOp::IntDiv => {
                    if y == 0 {
                        return div_zero(warnings);
                    }
                    x / y
                }
                ArithOp::Mod => {
                    if y == 0 {
                        return div_zero(warnings);
                    }
                    x % y
                }
                ArithOp::Div => unreachable_div(),
            };
            int_result(result, unsigned, &text)
        }
        NumClass::Int | NumClass::Decimal => {
            let (x, y) = (
                a.to_decimal(warnings).unwrap_or(Decimal::ZERO),
                b.to_decimal(warnings).unwrap_or(Decimal::ZERO),
            );
            let overflow = || {
                SqlError::new(
                    ER_DATA_OUT_OF_RANGE,
                    format!("DECIMAL value is out of range in '{}'", text()),
                )
            };
            match op {
                ArithOp::Add => x.checked_add(y).map(Datum::Dec).ok_or_else(overflow),
                ArithOp::Sub => x.checked_sub(y).map(Datum::Dec).ok_or_else(overflow),
                ArithOp::Mul => x.checked_mul(y).map(Datum::Dec).ok_or_else(overflow),
                ArithOp::Div => {
                    if y.is_zero() {
                        return div_zero(warnings);
                    }
                    let scale = (x.scale() + div_incr).min(DECIMAL_SCALE_MAX);
                    let q = x.checked_div(y).ok_or_else(overflow)?;
                    let mut q =
                        q.round_dp_with_strategy(scale, RoundingStrategy::MidpointAwayFromZero);
                    q.rescale(scale);
                    Ok(Datum::Dec(q))
                }
                ArithOp::IntDiv => {
                    if y.is_zero() {
                        return div_zero(warnings);
                    }
                    let q = x.checked_div(y).ok_or_else(overflow)?.trunc();
                    let unsigned = matches!(a, Datum::UInt(_)) || matches!(b, Datum::UInt(_));
                    int_result(q.to_i128().ok_or_else(overflow)?, unsigned, &text)
                }
                ArithOp::Mod => {
                    if y.is_zero() {
                        return div_zero(warnings);
                    }
                    x.checked_rem(y).map(Datum::Dec).ok_or_else(overflow)
                }
            }
        }
        NumClass::Double => {
            let x = a.to_double(warnings).unwrap_or(0.0);
            let y = b.to_double(warnings).unwrap_or(0.0);
            let r = match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x * y,
                ArithOp::Div => {
                    if y == 0.0 {
                        return div_zero(warnings);
                    }
                    x / y
                }
                ArithOp::IntDiv => {
                    if y == 0.0 {
                        return div_zero(warnings);
                    }
                    let q = (x / y).trunc();
                    if q.abs() >= 9.223_372_036_854_776e18 {
                        return Err(err_out_of_range(false, &text()));
                    }
                    return Ok(Datum::Int(q as i64));
                }
                ArithOp::Mod => {
                    if y == 0.0 {
                        return div_zero(warnings);
                    }
                    x % y
                }
            };
            if !r.is_finite() {
                return Err(SqlError::new(
                    ER_DATA_OUT_OF_RANGE,
                    format!("DOUBLE value is out of range in '{}'", text()),
                ));
            }
            Ok(Datum::Double(r))
        }
    }
}

fn unreachable_div() -> i128 {
    // Integer `/` is routed to the decimal branch above; keep a value rather than panic.
    0
}

fn int_result(value: i128, unsigned: bool, text: &dyn Fn() -> String) -> Result<Datum, SqlError> {
    if unsigned {
        u64::try_from(value)
            .map(Datum::UInt)
            .map_err(|_| err_out_of_range(true, &text()))
    } else {
        i64::try_from(value)
            .map(Datum::Int)
            .map_err(|_| err_out_of_range(false, &text()))
    }
}

/// The static result type of `a op b`.
pub fn arith_type(op: ArithOp, a: SqlType, b: SqlType, div_incr: u32) -> SqlType {
    if a == SqlType::Null || b == SqlType::Null {
        return SqlType::Double;
    }
    let class = num_class_of_type(a).max(num_class_of_type(b));
    let scale_of = |t: SqlType| match t {
        SqlType::Decimal { scale, .. } => scale,
        _ => 0,
    };
    let int_digits = |t: SqlType| match t {
        SqlType::Decimal { precision, scale } => precision.saturating_sub(scale),
        SqlType::Int { len, .. } => len,
        _ => 1,
    };
    let unsigned = |t: SqlType| matches!(t, SqlType::Int { unsigned: true, .. });
    match (class, op) {
        (NumClass::Double, _) => SqlType::Double,
        (NumClass::Int, ArithOp::Div) | (NumClass::Decimal, ArithOp::Div) => {
            let scale = (scale_of(a) + div_incr).min(DECIMAL_SCALE_MAX);
            SqlType::Decimal {
                precision: int_digits(a) + scale_of(b) + scale,
                scale,
            }
        }
        (_, ArithOp::IntDiv) => SqlType::Int {
            unsigned: unsigned(a) || unsigned(b),
            len: int_digits(a).max(1),
        },
        (NumClass::Int, _) => {
            let len = match op {
                ArithOp::Mul => int_digits(a) + int_digits(b),
                _ => int_digits(a).max(int_digits(b)) + 1,
            };
            SqlType::Int {
                unsigned: unsigned(a) || unsigned(b),
                len,
            }
        }
        (NumClass::Decimal, ArithOp::Mul) => {
            let scale = (scale_of(a) + scale_of(b)).min(DECIMAL_SCALE_MAX);
            SqlType::Decimal {
                precision: int_digits(a) + int_digits(b) + scale,
                scale,
            }
        }
        (NumClass::Decimal, _) => {
            let scale = scale_of(a).max(scale_of(b));
            SqlType::Decimal {
                precision: int_digits(a).max(int_digits(b)) + 1 + scale,
                scale,
            }
        }
    }
}

/// The common type of the branches of IF / CASE / COALESCE / GREATEST.
pub fn aggregate_type(types: &[SqlType]) -> SqlType {
    let mut result = SqlType::Null;
    for &t in types {
        result = match (result, t) {
            (SqlType::Null, t) | (t, SqlType::Null) => t,
            (SqlType::Str { chars: a }, other) | (other, SqlType::Str { chars: a }) => {
                SqlType::Str {
                    chars: a.max(display_chars(other)),
                }
            }
            (SqlType::Date, SqlType::Date) => SqlType::Date,
            (SqlType::DateTime | SqlType::Date, SqlType::DateTime | SqlType::Date) => {
                SqlType::DateTime
            }
            (x, y)
                if matches!(x, SqlType::Date | SqlType::DateTime)
                    || matches!(y, SqlType::Date | SqlType::DateTime) =>
            {
                SqlType::Str {
                    chars: display_chars(x).max(display_chars(y)),
                }
            }
            (SqlType::Double, _) | (_, SqlType::Double) => SqlType::Double,
            (
                SqlType::Decimal {
                    precision: p1,
                    scale: s1,
                },
                other,
            )
            | (
                other,
                SqlType::Decimal {
                    precision: p1,
                    scale: s1,
                },
            ) => {
                let (p2, s2) = match other {
                    SqlType::Decimal { precision, scale } => (precision, scale),
                    SqlType::Int { len, .. } => (len, 0),
                    _ => (1, 0),
                };
                let scale = s1.max(s2);
                SqlType::Decimal {
                    precision: (p1 - s1.min(p1)).max(p2 - s2.min(p2)) + scale,
                    scale,
                }
            }
            (
                SqlType::Int {
                    unsigned: u1,
                    len: l1,
                },
                SqlType::Int {
                    unsigned: u2,
                    len: l2,
                },
            ) => SqlType::Int {
                unsigned: u1 && u2,
                len: l1.max(l2),
            },
            (x, y) => SqlType::Str {
                chars: display_chars(x).max(display_chars(y)),
            },
        };
    }
    result
}

/// Characters a value of this type needs when shown as text.
pub fn display_chars(t: SqlType) -> u32 {
    match t {
        SqlType::Null => 0,
        SqlType::Int { len, .. } => len,
        SqlType::Decimal { precision, scale } => precision + u32::from(scale > 0) + 1,
        SqlType::Double => 22,
        SqlType::Str { chars } => chars,
        SqlType::Date => 10,
        SqlType::DateTime => 19,
    }
}

/// A DATETIME in MySQL's text form, with microseconds only when there are some.
pub(crate) fn format_datetime(
    year: u16,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    micros: u32,
) -> String {
    let mut s = format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}");
    if micros > 0 {
        s.push_str(&format!(".{micros:06}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The ASCII fast path orders exactly as the general char-by-char comparison.
        #[test]
        fn ascii_collation_fast_path_matches_the_general_one(
            a in "[ a-cA-C0-9_~]{0,12}",
            b in "[ a-cA-C0-9_~]{0,12}",
        ) {
            prop_assert_eq!(
                collate_cmp(a.as_bytes(), b.as_bytes()),
                collate_cmp_chars(a.as_bytes(), b.as_bytes())
            );
        }
    }

    #[test]
    fn collation_ignores_case_and_trailing_spaces() {
        assert_eq!(collate_cmp(b"abc  ", b"ABC"), Ordering::Equal);
        assert_eq!(collate_cmp(b"ab", b"abc"), Ordering::Less);
        // Bytes that are not UTF-8 compare byte by byte, not as U+FFFD.
        assert_eq!(collate_cmp(b"\xff", b"\xfe"), Ordering::Greater);
        assert_eq!(collate_cmp(b"\xc3\x28", b"\xc3\x29"), Ordering::Less);
        assert_eq!(collate_cmp(b"\xff", b"\xff"), Ordering::Equal);
        assert_eq!(collate_cmp("é".as_bytes(), b"E"), Ordering::Equal);
        assert_eq!(collate_cmp("éa".as_bytes(), b"EB"), Ordering::Less);
    }

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
            &Datum::Int(i64::MAX),
            &Datum::Int(1),
            4,
            &no_text,
            &mut w,
        )
        .unwrap_err();
        assert_eq!(e.code, 1690);
        let e = arith(
            ArithOp::Sub,
            &Datum::UInt(1),
            &Datum::Int(2),
            4,
            &no_text,
            &mut w,
        )
        .unwrap_err();
        assert!(e.message.contains("UNSIGNED"));
        assert_eq!(
            arith(
                ArithOp::Add,
                &Datum::UInt(u64::MAX),
                &Datum::Int(-1),
                4,
                &no_text,
                &mut w
            )
            .unwrap(),
            Datum::UInt(u64::MAX - 1)
        );
    }

    #[test]
    fn division_gives_decimal_and_null_on_zero() {
        let mut w = Vec::new();
        let q = arith(
            ArithOp::Div,
            &Datum::Int(1),
            &Datum::Int(3),
            4,
            &no_text,
            &mut w,
        )
        .unwrap();
        assert_eq!(q.to_text_lossy(), "0.3333");
        assert_eq!(
            arith(
                ArithOp::Div,
                &Datum::Int(1),
                &Datum::Int(0),
                4,
                &no_text,
                &mut w
            )
            .unwrap(),
            Datum::Null
        );
        assert_eq!(w[0].code, 1365);
        assert_eq!(
            arith(
                ArithOp::Mod,
                &Datum::Int(-7),
                &Datum::Int(2),
                4,
                &no_text,
                &mut w
            )
            .unwrap(),
            Datum::Int(-1)
        );
        assert_eq!(
            arith(
                ArithOp::IntDiv,
                &Datum::Int(7),
                &Datum::Int(2),
                4,
                &no_text,
                &mut w
            )
            .unwrap(),
            Datum::Int(3)
        );
    }

    #[test]
    fn comparisons_follow_mysql_coercion() {
        let mut w = Vec::new();
        assert_eq!(
            compare(&Datum::text("a"), &Datum::text("A "), &mut w),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&Datum::text("10"), &Datum::Int(9), &mut w),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&Datum::text("abc"), &Datum::Int(0), &mut w),
            Some(Ordering::Equal)
        );
        assert_eq!(w.len(), 1, "the string that is not a number warns");
        assert_eq!(
            compare(&Datum::UInt(u64::MAX), &Datum::Int(-1), &mut w),
            Some(Ordering::Greater)
        );
        assert_eq!(compare(&Datum::Null, &Datum::Int(1), &mut w), None);
    }

    #[test]
    fn like_patterns() {
        assert!(like_match(b"Hello", b"h%o", b'\\', false));
        assert!(like_match(b"Hello", b"_ello", b'\\', false));
        assert!(!like_match(b"Hello", b"h%x", b'\\', false));
        assert!(like_match(b"a%b", b"a\\%b", b'\\', false));
        assert!(!like_match(b"axb", b"a\\%b", b'\\', false));
        assert!(like_match(b"", b"%", b'\\', false));
        assert!(like_match(b"abcabc", b"%abc", b'\\', false));
        assert!(!like_match(b"abc", b"ABC", b'\\', true));
        // Bytes that are not UTF-8 match byte by byte, not as U+FFFD.
        assert!(!like_match(b"\xff", b"\xfe", b'\\', false));
        assert!(like_match(b"a\xff\x00b", b"a_\x00%", b'\\', false));
        assert!(!like_match(b"A\xff", b"a%", b'\\', false));
    }

    #[test]
    fn double_text_forms() {
        assert_eq!(format_double(1000.0), "1000");
        assert_eq!(format_double(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(format_double(1e15), "1e15");
        assert_eq!(format_double(1.5e-7), "1.5e-7");
        assert_eq!(format_double(-2.5), "-2.5");
    }
}
