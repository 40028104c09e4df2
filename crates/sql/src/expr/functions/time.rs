//! TIME values: MAKETIME, SEC_TO_TIME and TIME_TO_SEC, UNIX_TIMESTAMP of a date, and how a
//! value of any kind reads as a TIME.
//!
//! A TIME spans -838:59:59 to 838:59:59 (MariaDB's range, `TIME_HOURS_MAX`); a value past
//! it is cut to the nearest end with warning 1292 "Truncated incorrect time value". The
//! fractional digits a result shows (its type's `fsp`) come from the argument: none for an
//! integer or a DATE, the scale of a DECIMAL or the `fsp` of a DATETIME or TIME (at most
//! 6), 6 for a DOUBLE or a string that is not a constant, and the digits a constant string
//! is written with ([`temporal_decimals`]).

use crate::error::SqlError;
use crate::expr::eval::{truncated_warning, SqlType, SqlValue, Warning};
use crate::expr::Expr;
use crate::value::Value;
use myriad_types::datetime::{parse_date_or_datetime, parse_time, Temporal};
use myriad_types::errors::ER_TRUNCATED_WRONG_VALUE;
use myriad_types::{Decimal, Time};

/// The largest TIME's hours (838:59:59).
pub(crate) const TIME_HOURS_MAX: u32 = 838;

/// The largest TIME in seconds (838:59:59).
const TIME_SECONDS_MAX: i64 = 838 * 3600 + 59 * 60 + 59;

/// The last second a TIMESTAMP holds, 2038-01-19 03:14:07 UTC.
const TIMESTAMP_SECONDS_MAX: i64 = 2_147_483_647;

/// Warning 1292 with MariaDB's "Incorrect ... value" wording.
fn incorrect(kind: &str, text: &str) -> Warning {
    Warning {
        level: "Warning",
        code: ER_TRUNCATED_WRONG_VALUE.code,
        message: format!("Incorrect {kind} value: '{text}'"),
    }
}

/// The fractional digits a temporal reading of `arg` (of type `ty`) keeps (see the module
/// doc); `time`: a string literal may read as a TIME (else only as a date or datetime).
pub(crate) fn temporal_decimals(arg: &Expr, ty: SqlType, time: bool) -> u8 {
    match ty {
        SqlType::Null | SqlType::Int { .. } | SqlType::Date => 0,
        SqlType::Decimal { scale, .. } => scale.min(6) as u8,
        SqlType::DateTime { fsp } | SqlType::Time { fsp } => fsp,
        SqlType::Double => 6,
        SqlType::Str { .. } => match arg {
            Expr::Literal(Value::Bytes(b)) => literal_decimals(&String::from_utf8_lossy(b), time),
            _ => 6,
        },
    }
}

/// The fraction digits of a constant date, datetime or time text; 6 when it is none.
fn literal_decimals(text: &str, time: bool) -> u8 {
    let text = text.trim();
    let readable = (time && parse_time(text).is_some()) || parse_date_or_datetime(text).is_some();
    if !readable {
        return 6;
    }
    match text.rsplit_once('.') {
        Some((_, frac)) if frac.bytes().all(|b| b.is_ascii_digit()) => frac.len().min(6) as u8,
        _ => 0,
    }
}

/// `s` with the digits of its fraction past the sixth cut off, when it has more than six
/// (and nothing after them).
fn cut_fraction(s: &str) -> Option<&str> {
    let (_, fraction) = s.rsplit_once('.')?;
    let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 6 && digits == fraction.len()).then(|| &s[..s.len() - (digits - 6)])
}

/// A time from a signed count of microseconds, cut to the TIME range (to 838:59:59, or
/// 838:59:59.999999 when `fraction`: the value had fractional digits); the bool says
/// whether it was cut.
fn time_of_micros(micros: i128, fraction: bool) -> (Time, bool) {
    let max = i128::from(TIME_SECONDS_MAX) * 1_000_000;
    let cut = micros.abs() > max + 999_999 || (!fraction && micros.abs() > max);
    let abs = if cut {
        max + if fraction { 999_999 } else { 0 }
    } else {
        micros.abs()
    };
    let secs = (abs / 1_000_000) as u32;
    let time = Time {
        negative: micros < 0,
        hours: secs / 3600,
        minute: (secs / 60 % 60) as u8,
        second: (secs % 60) as u8,
        micros: (abs % 1_000_000) as u32,
    };
    (time, cut)
}

/// A number read as `[-]HHMMSS[.ffffff]`; None when its minutes or seconds are past 59.
fn time_of_number(n: Decimal) -> Option<Time> {
    let negative = n.is_negative();
    let abs = if negative { n.neg() } else { n };
    let whole = i64::try_from(abs.trunc_to_i128()?).ok()?;
    let micros = abs
        .checked_sub(&Decimal::from_i64(whole))
        .ok()?
        .checked_mul(&Decimal::from_i64(1_000_000))
        .ok()?
        .trunc_to_i128()? as i64;
    if !negative && whole > 9_999_999 {
        // Past HHHMMSS a number reads as a datetime (YYYYMMDD[HHMMSS]): its time of day.
        return match crate::expr::cast::number_as_datetime(&Value::Decimal(n))? {
            Value::DateTime(dt) => {
                Time::new(false, dt.hour.into(), dt.minute, dt.second, dt.micros)
            }
            _ => Time::new(false, 0, 0, 0, 0),
        };
    }
    let (hours, minute, second) = (whole / 10_000, whole / 100 % 100, whole % 100);
    if minute > 59 || second > 59 {
        return None;
    }
    // Past the TIME range it stays as read: `to_time` cuts it, with its warning.
    Time::new(
        negative,
        u32::try_from(hours).ok()?,
        minute as u8,
        second as u8,
        micros as u32,
    )
}

/// `v` read as a TIME, MariaDB's way: a DATETIME's time of day, a DATE's midnight, a
/// number as `HHMMSS`, a string as a time, a datetime or a number. Cut to the TIME range
/// with a warning; None (with warning 1292) for what reads as no time.
pub(crate) fn to_time(v: &Value, warnings: &mut Vec<Warning>) -> Option<Time> {
    let text = || String::from_utf8_lossy(&v.to_text().unwrap_or_default()).into_owned();
    let time = match v {
        Value::Null => return None,
        Value::Time(t) => return Some(*t),
        Value::DateTime(dt) => {
            return Some(Time {
                negative: false,
                hours: dt.hour.into(),
                minute: dt.minute,
                second: dt.second,
                micros: dt.micros,
            })
        }
        Value::Date(_) => return Time::new(false, 0, 0, 0, 0),
        Value::Bytes(b) => {
            let s = String::from_utf8_lossy(b);
            let s = s.trim();
            parse_time(s)
                .or_else(|| match parse_date_or_datetime(s)? {
                    Temporal::DateTime(dt) => to_time(&Value::DateTime(dt), warnings),
                    Temporal::Date(_) => Time::new(false, 0, 0, 0, 0),
                })
                .or_else(|| {
                    let n = Decimal::parse(s).ok()?;
                    time_of_number(n)
                })
                .or_else(|| {
                    // Fraction digits past the sixth are dropped, with a note.
                    let cut = cut_fraction(s)?;
                    let t = to_time(&Value::text(cut), &mut Vec::new())?;
                    let mut note = truncated_warning("time", s);
                    note.level = "Note";
                    warnings.push(note);
                    Some(t)
                })
        }
        other => other.to_decimal(&mut Vec::new()).and_then(time_of_number),
    };
    let Some(time) = time else {
        warnings.push(incorrect("time", &text()));
        return None;
    };
    if time.hours > TIME_HOURS_MAX {
        warnings.push(truncated_warning("time", &text()));
        let fraction = time.micros != 0;
        return Some(
            time_of_micros(
                time.total_micros().signum() as i128 * i128::MAX / 2,
                fraction,
            )
            .0,
        );
    }
    Some(time)
}

/// A count of seconds: an integer when whole, else a DECIMAL (the result column's type
/// then gives the digits shown).
fn count_value(whole_micros: i128) -> Value {
    if whole_micros % 1_000_000 == 0 {
        return Value::Int((whole_micros / 1_000_000) as i64);
    }
    let negative = whole_micros < 0;
    let abs = whole_micros.abs();
    let text = format!(
        "{}{}.{:06}",
        if negative { "-" } else { "" },
        abs / 1_000_000,
        abs % 1_000_000
    );
    Decimal::parse(&text)
        .map(Value::Decimal)
        .unwrap_or(Value::Null)
}

/// TIME_TO_SEC(t): the signed seconds of `t` read as a TIME.
pub(crate) fn time_to_sec(v: &Value, w: &mut Vec<Warning>) -> Value {
    match to_time(v, w) {
        Some(t) => count_value(t.total_micros().into()),
        None => Value::Null,
    }
}

/// MAKETIME(hours, minutes, seconds): NULL for minutes or seconds out of 0..59 (seconds of
/// 60 or more warn), hours rounded to an integer and the result cut to the TIME range.
pub(crate) fn make_time((h, m, s): (&Value, &Value, &Value), w: &mut Vec<Warning>) -> Value {
    if h.is_null() || m.is_null() || s.is_null() {
        return Value::Null;
    }
    let hours = match h {
        // An unsigned count past BIGINT is far past the range.
        Value::UInt(u) => i64::try_from(*u).unwrap_or(i64::MAX),
        other => other.to_int(w).unwrap_or(0),
    };
    let minutes = m.to_int(w).unwrap_or(0);
    let seconds = s.to_decimal(w).unwrap_or(Decimal::ZERO);
    if !(0..=59).contains(&minutes) || seconds.is_negative() {
        return Value::Null;
    }
    if seconds >= Decimal::from_i64(60) {
        w.push(truncated_warning("seconds", &seconds.to_string()));
        return Value::Null;
    }
    let micros = seconds
        .checked_mul(&Decimal::from_i64(1_000_000))
        .ok()
        .and_then(|d| d.trunc_to_i128())
        .map_or(0, |m| m as i64);
    let micros = i128::from(micros);
    let total =
        (i128::from(hours.unsigned_abs()) * 3600 + i128::from(minutes) * 60) * 1_000_000 + micros;
    let fraction = micros % 1_000_000 != 0;
    let (time, cut) = time_of_micros(if hours < 0 { -total } else { total }, fraction);
    if cut {
        let sign = if hours < 0 { "-" } else { "" };
        let text = format!(
            "{sign}{}:{minutes:02}:{:02}",
            hours.unsigned_abs(),
            micros / 1_000_000
        );
        w.push(truncated_warning("time", &text));
    }
    Value::Time(time)
}

/// SEC_TO_TIME(n): `n` seconds as a TIME, cut to its range (warning "Truncated incorrect
/// seconds value").
pub(crate) fn sec_to_time(v: &Value, w: &mut Vec<Warning>) -> Value {
    let Some(n) = v.to_decimal(w) else {
        return Value::Null;
    };
    let micros = n
        .checked_mul(&Decimal::from_i64(1_000_000))
        .ok()
        .and_then(|d| d.trunc_to_i128());
    let micros = micros.unwrap_or(if n.is_negative() {
        i128::MIN / 2
    } else {
        i128::MAX / 2
    });
    // A string or a DOUBLE shows six fractional digits, so it is cut to 838:59:59.999999.
    let fraction = n.scale() > 0 || matches!(v, Value::Double(_) | Value::Bytes(_));
    let (time, cut) = time_of_micros(micros, fraction);
    if cut {
        let text = match v {
            Value::Date(_) | Value::DateTime(_) => format!("{}", n.rescale(6).unwrap_or(n)),
            _ => String::from_utf8_lossy(&v.to_text().unwrap_or_default()).into_owned(),
        };
        w.push(truncated_warning("seconds", &text));
    }
    Value::Time(time)
}

/// UNIX_TIMESTAMP(d): the seconds from 1970-01-01 00:00:00 UTC to `d` (read as a
/// datetime); NULL before it, past 2038-01-19 03:14:07 and for a zero date; NULL with
/// warning 1292 for what reads as no date.
pub(crate) fn unix_timestamp(v: &Value, w: &mut Vec<Warning>) -> Result<Value, SqlError> {
    let dt = match v {
        Value::Null => return Ok(Value::Null),
        Value::Date(d) => Some(d.at_midnight()),
        Value::DateTime(dt) => Some(*dt),
        Value::Time(_) => return Err(SqlError::not_supported("UNIX_TIMESTAMP of a TIME")),
        other => {
            let text = String::from_utf8_lossy(&other.to_text().unwrap_or_default()).into_owned();
            let parsed = parse_date_or_datetime(text.trim()).map(|t| match t {
                Temporal::Date(d) => d.at_midnight(),
                Temporal::DateTime(dt) => dt,
            });
            if parsed.is_none() && !is_zero_date(&text) {
                w.push(incorrect("datetime", &text));
            }
            parsed
        }
    };
    let Some(micros) = dt.and_then(|dt| dt.unix_micros()) else {
        return Ok(Value::Null);
    };
    if micros < 0 || micros / 1_000_000 > TIMESTAMP_SECONDS_MAX {
        return Ok(Value::Null);
    }
    Ok(count_value(micros.into()))
}

/// Whether `text` is a zero date ('0000-00-00', with or without a time).
fn is_zero_date(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("0000-00-00") || t == "0" || t.bytes().all(|b| b == b'0')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time_of(v: Value) -> (Option<String>, Vec<u16>) {
        let mut w = Vec::new();
        let t = to_time(&v, &mut w).map(|t| t.to_text());
        (t, w.iter().map(|w| w.code).collect())
    }

    #[test]
    fn values_read_as_times() {
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        assert_eq!(time_of(text("01:02:03")).0.as_deref(), Some("01:02:03"));
        assert_eq!(time_of(text("1 01:00")).0.as_deref(), Some("25:00:00"));
        assert_eq!(
            time_of(text("2024-01-02 10:11:12.5")).0.as_deref(),
            Some("10:11:12.500000")
        );
        assert_eq!(time_of(Value::Int(3601)).0.as_deref(), Some("00:36:01"));
        assert_eq!(time_of(Value::Int(-235959)).0.as_deref(), Some("-23:59:59"));
        assert_eq!(time_of(Value::Int(16000)), (None, vec![1292]));
        assert_eq!(time_of(text("abc")), (None, vec![1292]));
        assert_eq!(
            time_of(text("900:00:00")),
            (Some("838:59:59".to_string()), vec![1292])
        );
    }

    #[test]
    fn seconds_become_times_within_the_range() {
        let mut w = Vec::new();
        let show = |v: Value| v.to_text().map(|b| String::from_utf8(b).unwrap());
        assert_eq!(
            show(sec_to_time(&Value::Int(-3661), &mut w)).as_deref(),
            Some("-01:01:01")
        );
        assert!(w.is_empty());
        assert_eq!(
            show(sec_to_time(&Value::Int(4_000_000), &mut w)).as_deref(),
            Some("838:59:59")
        );
        assert_eq!(w.len(), 1);
        assert_eq!(time_to_sec(&Value::Int(3601), &mut w), Value::Int(2161));
        assert_eq!(
            make_time((&Value::Int(1), &Value::Int(60), &Value::Int(0)), &mut w),
            Value::Null
        );
    }
}
