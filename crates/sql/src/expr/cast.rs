//! CAST and CONVERT.

use crate::expr::datetime::*;
use crate::expr::eval::SqlValue;
use crate::expr::eval::Warning;
use crate::expr::text::*;
use crate::expr::*;
use crate::value::Value;
use myriad_types::errors::{ER_TRUNCATED_WRONG_VALUE, ER_WARN_DATA_OUT_OF_RANGE};

/// `text` cut to `n` characters (bytes, where it is not UTF-8), with MariaDB's warning
/// when anything is cut.
fn cut_to_chars(text: Vec<u8>, n: u32, w: &mut Vec<Warning>) -> Vec<u8> {
    let end = match std::str::from_utf8(&text) {
        Ok(s) => s.char_indices().nth(n as usize).map(|(at, _)| at),
        Err(_) => (text.len() > n as usize).then_some(n as usize),
    };
    let Some(end) = end else {
        return text;
    };
    w.push(Warning {
        level: "Warning",
        code: ER_TRUNCATED_WRONG_VALUE.code,
        message: format!(
            "Truncated incorrect CHAR({n}) value: '{}'",
            String::from_utf8_lossy(&text)
        ),
    });
    text[..end].to_vec()
}

/// A number read as a date or datetime, as MariaDB reads one: its whole part as YYMMDD,
/// YYYYMMDD, YYMMDDhhmmss or YYYYMMDDhhmmss by its size (`10203101112` is 2001-02-03
/// 10:11:12), its fraction as the microseconds; None for a number of no such form.
pub(crate) fn number_as_datetime(v: &Value) -> Option<Value> {
    let text = text_of(v)?;
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let n: u64 = whole.parse().ok()?;
    let digits = match n {
        0 => return parse_datetime("0000-00-00"),
        101..=991_231 => format!("{n:06}"),
        10_000_101..=99_991_231 => format!("{n:08}"),
        101_000_000..=991_231_235_959 => format!("{n:012}"),
        10_000_101_000_000..=99_991_231_235_959 => format!("{n:014}"),
        _ => return None,
    };
    match parse_datetime(&digits)? {
        Value::DateTime(mut dt) if !fraction.is_empty() => {
            let six: String = fraction
                .chars()
                .chain(std::iter::repeat('0'))
                .take(6)
                .collect();
            dt.micros = six.parse().ok()?;
            Some(Value::DateTime(dt))
        }
        other => Some(other),
    }
}

/// A date, datetime or time as its text with `digits` fraction digits (None: the value's
/// own, none for a whole second, else six); other values unchanged. Also what a user
/// variable keeps of one: MariaDB's variables hold numbers and strings only, so `@d + 0`
/// reads the text as a number.
pub(crate) fn temporal_as_text(v: Value, digits: Option<u8>) -> Value {
    match v {
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => {
            let mut text = Vec::new();
            v.write_text(&mut text, digits);
            Value::Bytes(text)
        }
        other => other,
    }
}

pub(crate) fn cast(v: Value, to: CastTo, w: &mut Vec<Warning>) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match to {
        CastTo::Signed => match &v {
            Value::UInt(u) => Value::Int(*u as i64),
            // The 64 bits of what the string holds: past 2^63-1 it wraps, as in MariaDB.
            Value::Bytes(s) => Value::Int(crate::expr::eval::str_to_int_bits(s, w) as i64),
            _ => Value::Int(v.to_int(w).unwrap_or(0)),
        },
        CastTo::Unsigned => match &v {
            Value::Int(i) => Value::UInt(*i as u64),
            Value::UInt(u) => Value::UInt(*u),
            Value::Bytes(s) => Value::UInt(crate::expr::eval::str_to_int_bits(s, w) as u64),
            Value::Double(f) if *f < 0.0 => Value::UInt(0),
            _ => Value::UInt(v.to_int(w).unwrap_or(0) as u64),
        },
        CastTo::Char { len } => {
            let text = v.to_text().unwrap_or_default();
            match len {
                Some(n) => Value::Bytes(cut_to_chars(text, n, w)),
                None => Value::Bytes(text),
            }
        }
        CastTo::Decimal { precision, scale } => {
            // The target's limits were checked when the statement was compiled.
            let (d, fits) = crate::expr::decimal::to_column(&v, precision as u8, scale as u8);
            if !fits {
                w.push(Warning {
                    level: "Warning",
                    code: ER_WARN_DATA_OUT_OF_RANGE.code,
                    message: format!(
                        "Out of range value for column 'CAST(... AS DECIMAL({precision},{scale}))' at row 1"
                    ),
                });
            }
            Value::Decimal(d)
        }
        CastTo::Double => Value::Double(v.to_double(w).unwrap_or(0.0)),
        CastTo::TypedText(form) => match (form, v) {
            (TextForm::Temporal { fsp }, v) => temporal_as_text(v, Some(fsp)),
            (TextForm::Float, Value::Double(d)) => {
                let mut text = Vec::new();
                myriad_types::value::write_float(d, &mut text);
                Value::Bytes(text)
            }
            (_, other) => other,
        },
        // What reads as no time is NULL with MariaDB's warning (from `to_time`).
        CastTo::Time { fsp } => match crate::expr::functions::to_time(&v, w) {
            Some(mut t) => {
                t.micros = myriad_types::datetime::truncate_micros(t.micros, fsp);
                Value::Time(t)
            }
            None => Value::Null,
        },
        CastTo::Date | CastTo::DateTime { .. } => {
            let parsed = match &v {
                Value::Date { .. } | Value::DateTime { .. } => Some(v.clone()),
                Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
                    number_as_datetime(&v)
                }
                other => parse_datetime(&text_of(other).unwrap_or_default()),
            };
            match (parsed, to) {
                (Some(Value::DateTime(dt)), CastTo::Date) => Value::Date(dt.date()),
                (Some(Value::Date(d)), CastTo::DateTime { .. }) => Value::DateTime(d.at_midnight()),
                (Some(Value::DateTime(mut dt)), CastTo::DateTime { fsp }) => {
                    dt.micros = myriad_types::datetime::truncate_micros(dt.micros, fsp);
                    Value::DateTime(dt)
                }
                (Some(d), _) => d,
                (None, _) => {
                    w.push(Warning {
                        level: "Warning",
                        code: ER_TRUNCATED_WRONG_VALUE.code,
                        message: format!("Incorrect datetime value: '{}'", v.to_text_lossy()),
                    });
                    Value::Null
                }
            }
        }
    }
}
