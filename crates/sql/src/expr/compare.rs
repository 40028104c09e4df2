//! Comparison under MySQL's coercions and a collation, and LIKE.

use crate::expr::eval::*;
use crate::value::Value;
use myriad_types::Collation;
use std::cmp::Ordering;

/// Which comparison MySQL applies to two operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareAs {
    Int,
    Decimal,
    Double,
    String,
}

pub fn compare_class(a: &Value, b: &Value) -> CompareAs {
    use Value::*;
    let temporal = |d: &Value| matches!(d, Date { .. } | DateTime { .. } | Time(_));
    match (a, b) {
        (Bytes(_), Bytes(_)) => CompareAs::String,
        (x, y) if temporal(x) && (temporal(y) || y.is_string()) => CompareAs::String,
        (x, y) if temporal(y) && x.is_string() => CompareAs::String,
        (Double(_), _) | (_, Double(_)) | (Bytes(_), _) | (_, Bytes(_)) => CompareAs::Double,
        (Decimal(_), _) | (_, Decimal(_)) => CompareAs::Decimal,
        (Date { .. } | DateTime { .. }, _) | (_, Date { .. } | DateTime { .. }) => {
            CompareAs::Decimal
        }
        _ => CompareAs::Int,
    }
}

/// Compare two non-NULL values as MySQL would, strings under `collation`; None when either
/// is NULL.
pub fn compare(
    a: &Value,
    b: &Value,
    collation: Collation,
    warnings: &mut Vec<Warning>,
) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    if let (Value::Time(_), _) | (_, Value::Time(_)) = (a, b) {
        // A TIME compares with what reads as a TIME as a duration.
        let mut quiet = Vec::new();
        if let (Some(x), Some(y)) = (
            crate::expr::functions::to_time(a, &mut quiet),
            crate::expr::functions::to_time(b, &mut quiet),
        ) {
            return Some(x.total_micros().cmp(&y.total_micros()));
        }
    }
    Some(match compare_class(a, b) {
        CompareAs::String => match (a, b) {
            // Two strings compare in place; only other kinds are formatted as text first.
            (Value::Bytes(x), Value::Bytes(y)) => collation.compare(x, y),
            _ => match (temporal_of(a), temporal_of(b)) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => collation.compare(&a.to_text()?, &b.to_text()?),
            },
        },
        CompareAs::Int => int_cmp(a, b),
        CompareAs::Decimal => a.to_decimal(warnings)?.cmp(&b.to_decimal(warnings)?),
        CompareAs::Double => {
            let (x, y) = (a.to_double(warnings)?, b.to_double(warnings)?);
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
    })
}

/// A DATE, a DATETIME, or a string that reads as one, as a point in time: a temporal
/// value compared with a string compares as a temporal value when the string is one
/// (`'2024-1-1 0:30:30.2'` equals DATETIME `2024-01-01 00:30:30.2`), as in MariaDB; a
/// string that is no date compares as text.
fn temporal_of(v: &Value) -> Option<myriad_types::DateTime> {
    match v {
        Value::Bytes(s) => {
            crate::expr::datetime::parse_datetime(std::str::from_utf8(s).ok()?)?.as_datetime()
        }
        other => other.as_datetime(),
    }
}

pub(crate) fn int_cmp(a: &Value, b: &Value) -> Ordering {
    let wide = |d: &Value| match d {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        _ => 0,
    };
    wide(a).cmp(&wide(b))
}

/// SQL LIKE with `%`, `_` and an escape character, characters compared under `collation`
/// (LIKE pads nothing: trailing spaces count).
pub fn like_match(text: &[u8], pattern: &[u8], escape: u8, collation: Collation) -> bool {
    // A binary string, or bytes that are not UTF-8 (only a binary string holds them), is
    // matched byte by byte: each byte as the char of the same number, never as U+FFFD.
    let (text, pattern, bytes): (Vec<char>, Vec<char>, bool) =
        match (std::str::from_utf8(text), std::str::from_utf8(pattern)) {
            (Ok(t), Ok(p)) if collation != Collation::Binary => {
                (t.chars().collect(), p.chars().collect(), false)
            }
            _ => (
                text.iter().map(|&b| char::from(b)).collect(),
                pattern.iter().map(|&b| char::from(b)).collect(),
                true,
            ),
        };
    let escape = escape as char;
    let eq = |a: char, b: char| {
        if bytes {
            a == b
        } else {
            collation.char_eq(a, b)
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
