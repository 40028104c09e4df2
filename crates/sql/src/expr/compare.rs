//! Comparison under MySQL's coercions, the utf8mb4_general_ci collation and LIKE.

use crate::expr::eval::*;
use crate::value::Value;
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
    let temporal = |d: &Value| matches!(d, Date { .. } | DateTime { .. });
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

/// Compare two non-NULL values as MySQL would; None when either is NULL.
pub fn compare(a: &Value, b: &Value, warnings: &mut Vec<Warning>) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    Some(match compare_class(a, b) {
        CompareAs::String => match (a, b) {
            // Two strings compare in place; only other kinds are formatted as text first.
            (Value::Bytes(x), Value::Bytes(y)) => collate_cmp(x, y),
            _ => match (temporal_of(a), temporal_of(b)) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => collate_cmp(&a.to_text()?, &b.to_text()?),
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
pub(crate) fn collate_cmp_chars(a: &[u8], b: &[u8]) -> Ordering {
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

pub(crate) fn trim_trailing_spaces(bytes: &[u8]) -> &[u8] {
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
