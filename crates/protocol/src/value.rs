//! Values on the wire: how a result value is written in the text protocol (COM_QUERY) and
//! the binary protocol (COM_STMT_EXECUTE), and how binary prepared-statement parameters
//! are decoded.
//!
//! In a binary row the encoding follows the *column's* type code, not the value's variant:
//! a client binds a LONG column to a 4-byte buffer, whatever the engine computed. So every
//! encoder here converts the value to what the column promises.

use crate::buf::{put_lenenc_bytes, DecodeError, DecodeResult, Reader};
use crate::constants::column_type as ty;
use myriad_types::{Date, DateTime, Decimal, Time, Value};

/// A parameter's type as the client bound it: the type code and whether it is unsigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamType {
    pub code: u8,
    pub unsigned: bool,
}

/// Append the text-protocol form of a non-NULL value for a column of type `code` with
/// `decimals` fractional digits (nothing for NULL).
pub fn write_text_value(out: &mut Vec<u8>, value: &Value, code: u8, decimals: u8) {
    value.write_text_in_typed_column(out, code == ty::FLOAT, decimals);
}

/// Append one value of a text row for a column of type `code` with `decimals`: a
/// length-encoded string, or 0xFB for NULL. Everything but strings is formatted straight
/// into the row (its text is always shorter than 251 bytes, so the length prefix is one
/// byte patched afterwards): no allocation per value.
pub fn put_text_value(out: &mut Vec<u8>, value: &Value, code: u8, decimals: u8) {
    match value {
        Value::Null => out.push(0xFB),
        Value::Bytes(b) => put_lenenc_bytes(out, b),
        _ => {
            let length_at = out.len();
            out.push(0);
            write_text_value(out, value, code, decimals);
            let len = out.len() - length_at - 1;
            debug_assert!(
                len < 0xFB,
                "a non-string value's text fits a one-byte length"
            );
            out[length_at] = len.min(0xFA) as u8;
        }
    }
}

fn as_i64(value: &Value) -> i64 {
    match value {
        Value::Null => 0,
        Value::Int(v) => *v,
        Value::UInt(v) => *v as i64,
        Value::Double(v) => v.round() as i64,
        Value::Decimal(d) => d.to_f64().round() as i64,
        Value::Bytes(b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok())
            .unwrap_or_else(|| parse_number_prefix(b).round() as i64),
        Value::Date(d) => date_number(*d),
        Value::DateTime(dt) => {
            date_number(dt.date()) * 1_000_000
                + i64::from(dt.hour) * 10_000
                + i64::from(dt.minute) * 100
                + i64::from(dt.second)
        }
        Value::Time(t) => {
            let v = i64::from(t.hours) * 10_000 + i64::from(t.minute) * 100 + i64::from(t.second);
            if t.negative {
                -v
            } else {
                v
            }
        }
    }
}

/// A date as the number MySQL reads it as: YYYYMMDD.
fn date_number(d: Date) -> i64 {
    i64::from(d.year) * 10_000 + i64::from(d.month) * 100 + i64::from(d.day)
}

fn as_f64(value: &Value) -> f64 {
    match value {
        Value::Int(v) => *v as f64,
        Value::UInt(v) => *v as f64,
        Value::Double(v) => *v,
        Value::Decimal(d) => d.to_f64(),
        Value::Bytes(b) => parse_number_prefix(b),
        other => as_i64(other) as f64,
    }
}

/// MySQL's string-to-number rule: the longest numeric prefix, 0 when there is none.
fn parse_number_prefix(bytes: &[u8]) -> f64 {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let s = &bytes[start..];
    let digits_from = |mut i: usize| {
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut end = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    end = digits_from(end);
    if s.get(end) == Some(&b'.') {
        end = digits_from(end + 1);
    }
    if matches!(s.get(end), Some(b'e' | b'E')) {
        let mut exp = end + 1;
        if matches!(s.get(exp), Some(b'+' | b'-')) {
            exp += 1;
        }
        let exp_end = digits_from(exp);
        if exp_end > exp {
            end = exp_end;
        }
    }
    std::str::from_utf8(&s[..end])
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0.0)
}

/// A DATE or DATETIME in the binary protocol: a length byte (0, 4, 7 or 11, the shortest
/// that holds the nonzero parts) and the parts.
fn put_datetime(out: &mut Vec<u8>, dt: DateTime) {
    let DateTime {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micros,
    } = dt;
    if micros != 0 {
        out.push(11);
    } else if (hour, minute, second) != (0, 0, 0) {
        out.push(7);
    } else if (year, month, day) != (0, 0, 0) {
        out.push(4);
    } else {
        out.push(0);
        return;
    }
    out.extend_from_slice(&year.to_le_bytes());
    out.extend_from_slice(&[month, day]);
    if micros != 0 || (hour, minute, second) != (0, 0, 0) {
        out.extend_from_slice(&[hour, minute, second]);
    }
    if micros != 0 {
        out.extend_from_slice(&micros.to_le_bytes());
    }
}

/// A TIME in the binary protocol: 0, or 8 or 12 bytes (sign, days, hour, minute, second,
/// micros when there are some).
fn put_time(out: &mut Vec<u8>, t: Time) {
    if t.hours == 0 && t.minute == 0 && t.second == 0 && t.micros == 0 {
        out.push(0);
        return;
    }
    out.push(if t.micros == 0 { 8 } else { 12 });
    out.push(u8::from(t.negative));
    out.extend_from_slice(&(t.hours / 24).to_le_bytes());
    out.extend_from_slice(&[(t.hours % 24) as u8, t.minute, t.second]);
    if t.micros != 0 {
        out.extend_from_slice(&t.micros.to_le_bytes());
    }
}

/// Append one non-NULL value of a binary row, encoded as the column type `code` promises.
pub fn put_binary_value(out: &mut Vec<u8>, code: u8, decimals: u8, value: &Value) {
    match code {
        ty::TINY => out.push(as_i64(value) as u8),
        ty::SHORT | ty::YEAR => out.extend_from_slice(&(as_i64(value) as u16).to_le_bytes()),
        ty::LONG | ty::INT24 => out.extend_from_slice(&(as_i64(value) as u32).to_le_bytes()),
        ty::LONGLONG => {
            let bits = match *value {
                Value::UInt(v) => v,
                Value::Double(d) if d >= 9.223_372_036_854_776e18 => d as u64,
                ref other => as_i64(other) as u64,
            };
            out.extend_from_slice(&bits.to_le_bytes());
        }
        ty::FLOAT => out.extend_from_slice(&(as_f64(value) as f32).to_le_bytes()),
        ty::DOUBLE => out.extend_from_slice(&as_f64(value).to_le_bytes()),
        ty::DATE | ty::DATETIME | ty::TIMESTAMP | ty::NEWDATE | ty::DATETIME2 | ty::TIMESTAMP2 => {
            match value {
                Value::Date(d) => put_datetime(out, d.at_midnight()),
                Value::DateTime(dt) if code == ty::DATE => {
                    put_datetime(out, dt.date().at_midnight())
                }
                Value::DateTime(dt) => put_datetime(out, *dt),
                // Not a temporal value: the client still expects a date structure; send
                // the zero date rather than bytes it would misread.
                _ => out.push(0),
            }
        }
        ty::TIME | ty::TIME2 => match value {
            Value::Time(t) => put_time(out, *t),
            _ => out.push(0),
        },
        _ => {
            // Strings, blobs, decimals, bit, enum, set, json: a length-encoded string of
            // the text form.
            match value {
                Value::Bytes(b) => put_lenenc_bytes(out, b),
                other => {
                    let mut text = Vec::new();
                    write_text_value(&mut text, other, ty::VAR_STRING, decimals);
                    put_lenenc_bytes(out, &text);
                }
            }
        }
    }
}

/// The parts of a binary DATE/DATETIME parameter (length 0, 4, 7 or 11).
fn read_datetime(reader: &mut Reader<'_>, what: &'static str) -> DecodeResult<DateTime> {
    let len = reader.u8(what)?;
    let body = reader.take(len as usize, what)?;
    let mut r = Reader::new(body);
    let mut dt = DateTime::default();
    if !matches!(len, 0 | 4 | 7 | 11) {
        return Err(DecodeError("temporal parameter length"));
    }
    if len >= 4 {
        dt.year = r.u16(what)?;
        dt.month = r.u8(what)?;
        dt.day = r.u8(what)?;
    }
    if len >= 7 {
        dt.hour = r.u8(what)?;
        dt.minute = r.u8(what)?;
        dt.second = r.u8(what)?;
    }
    if len >= 11 {
        dt.micros = r.u32(what)?;
    }
    Ok(dt)
}

/// The parts of a binary TIME parameter (length 0, 8 or 12).
fn read_time(reader: &mut Reader<'_>, what: &'static str) -> DecodeResult<Time> {
    let len = reader.u8(what)?;
    let body = reader.take(len as usize, what)?;
    let mut r = Reader::new(body);
    let mut t = Time::default();
    if !matches!(len, 0 | 8 | 12) {
        return Err(DecodeError("time parameter length"));
    }
    if len >= 8 {
        t.negative = r.u8(what)? != 0;
        let days = r.u32(what)?;
        let hour = r.u8(what)?;
        t.hours = days.saturating_mul(24).saturating_add(u32::from(hour));
        t.minute = r.u8(what)?;
        t.second = r.u8(what)?;
    }
    if len >= 12 {
        t.micros = r.u32(what)?;
    }
    Ok(t)
}

/// Decode one binary parameter value of type `param`. A DECIMAL parameter whose text is
/// not a decimal number (or has more digits than DECIMAL holds) arrives as its bytes, to be
/// read as a string.
pub fn read_binary_param(reader: &mut Reader<'_>, param: ParamType) -> DecodeResult<Value> {
    const WHAT: &str = "parameter value";
    let int = |v: i64, u: u64| {
        if param.unsigned {
            Value::UInt(u)
        } else {
            Value::Int(v)
        }
    };
    Ok(match param.code {
        ty::NULL => Value::Null,
        ty::TINY => {
            let b = reader.u8(WHAT)?;
            int(i64::from(b as i8), u64::from(b))
        }
        ty::SHORT | ty::YEAR => {
            let v = reader.u16(WHAT)?;
            int(i64::from(v as i16), u64::from(v))
        }
        ty::LONG | ty::INT24 => {
            let v = reader.u32(WHAT)?;
            int(i64::from(v as i32), u64::from(v))
        }
        ty::LONGLONG => {
            let v = reader.u64(WHAT)?;
            int(v as i64, v)
        }
        ty::FLOAT => {
            let bits = reader.u32(WHAT)?;
            Value::Double(f64::from(f32::from_bits(bits)))
        }
        ty::DOUBLE => Value::Double(f64::from_bits(reader.u64(WHAT)?)),
        ty::DATE => Value::Date(read_datetime(reader, WHAT)?.date()),
        ty::DATETIME | ty::TIMESTAMP | ty::NEWDATE | ty::DATETIME2 | ty::TIMESTAMP2 => {
            Value::DateTime(read_datetime(reader, WHAT)?)
        }
        ty::TIME | ty::TIME2 => Value::Time(read_time(reader, WHAT)?),
        ty::DECIMAL | ty::NEWDECIMAL => {
            let text = reader.lenenc_bytes(WHAT)?;
            match std::str::from_utf8(text).ok().map(Decimal::parse) {
                Some(Ok(d)) => Value::Decimal(d),
                _ => Value::Bytes(text.to_vec()),
            }
        }
        ty::VARCHAR
        | ty::BIT
        | ty::JSON
        | ty::ENUM
        | ty::SET
        | ty::TINY_BLOB
        | ty::MEDIUM_BLOB
        | ty::LONG_BLOB
        | ty::BLOB
        | ty::VAR_STRING
        | ty::STRING
        | ty::GEOMETRY => Value::Bytes(reader.lenenc_bytes(WHAT)?.to_vec()),
        _ => return Err(DecodeError("unknown parameter type")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: Value, decimals: u8) -> String {
        let mut out = Vec::new();
        write_text_value(&mut out, &v, ty::DOUBLE, decimals);
        String::from_utf8(out).unwrap()
    }

    fn datetime(year: u16, month: u8, day: u8, hms: (u8, u8, u8), micros: u32) -> DateTime {
        DateTime {
            year,
            month,
            day,
            hour: hms.0,
            minute: hms.1,
            second: hms.2,
            micros,
        }
    }

    #[test]
    fn text_forms_match_mysql() {
        assert_eq!(text(Value::Int(-5), 0), "-5");
        assert_eq!(text(Value::UInt(u64::MAX), 0), "18446744073709551615");
        assert_eq!(text(Value::Double(0.1), 31), "0.1");
        assert_eq!(text(Value::Double(1e20), 31), "1e20");
        assert_eq!(text(Value::Double(2.5), 31), "2.5");
        let date = Date {
            year: 2024,
            month: 2,
            day: 9,
        };
        assert_eq!(text(Value::Date(date), 0), "2024-02-09");
        let dt = Value::DateTime(datetime(2024, 12, 31, (23, 5, 7), 120));
        assert_eq!(text(dt.clone(), 0), "2024-12-31 23:05:07");
        assert_eq!(text(dt.clone(), 6), "2024-12-31 23:05:07.000120");
        assert_eq!(text(dt.clone(), 3), "2024-12-31 23:05:07.000");
        assert_eq!(text(dt, 31), "2024-12-31 23:05:07.000120");
        let t = Value::Time(Time::new(true, 838, 59, 59, 0).unwrap());
        assert_eq!(text(t, 0), "-838:59:59");
        assert_eq!(
            text(Value::Decimal(Decimal::parse("-12.50").unwrap()), 2),
            "-12.50"
        );
    }

    #[test]
    fn text_row_values_are_length_prefixed() {
        let values = [
            (Value::Null, &b"\xFB"[..]),
            (Value::Int(i64::MIN), b"\x14-9223372036854775808"),
            (Value::UInt(u64::MAX), b"\x1418446744073709551615"),
            (Value::Double(-1.5e-300), b"\x09-1.5e-300"),
            (
                Value::Decimal(Decimal::parse("12.50").unwrap()),
                b"\x0512.50",
            ),
            (
                Value::Date(Date {
                    year: 1,
                    month: 2,
                    day: 3,
                }),
                b"\x0a0001-02-03",
            ),
        ];
        for (value, expected) in values {
            let mut row = Vec::new();
            put_text_value(&mut row, &value, ty::VAR_STRING, 0);
            assert_eq!(row, expected, "{value:?}");
        }
        let long = Value::Bytes(vec![7u8; 300]);
        let mut row = Vec::new();
        put_text_value(&mut row, &long, ty::VAR_STRING, 0);
        assert_eq!(&row[..3], &[0xFC, 0x2C, 0x01]);
        assert_eq!(row.len(), 303);
    }

    #[test]
    fn binary_values_follow_the_column_type() {
        let mut out = Vec::new();
        put_binary_value(&mut out, ty::LONG, 0, &Value::Int(-2));
        assert_eq!(out, (-2i32).to_le_bytes());
        out.clear();
        put_binary_value(&mut out, ty::LONGLONG, 0, &Value::Bytes(b"42".to_vec()));
        assert_eq!(out, 42i64.to_le_bytes());
        out.clear();
        put_binary_value(&mut out, ty::DOUBLE, 31, &Value::Int(3));
        assert_eq!(out, 3f64.to_le_bytes());
        out.clear();
        put_binary_value(&mut out, ty::VAR_STRING, 0, &Value::Int(12));
        assert_eq!(out, b"\x0212");
        out.clear();
        let dt = datetime(2020, 1, 2, (3, 4, 5), 6);
        put_binary_value(&mut out, ty::DATETIME, 6, &Value::DateTime(dt));
        assert_eq!(out, [11, 0xE4, 0x07, 1, 2, 3, 4, 5, 6, 0, 0, 0]);
        out.clear();
        put_binary_value(&mut out, ty::DATE, 0, &Value::DateTime(dt));
        assert_eq!(out, [4, 0xE4, 0x07, 1, 2]);
        out.clear();
        let seconds_only = datetime(2020, 1, 2, (3, 4, 5), 0);
        put_binary_value(&mut out, ty::DATETIME, 0, &Value::DateTime(seconds_only));
        assert_eq!(out, [7, 0xE4, 0x07, 1, 2, 3, 4, 5]);
        out.clear();
        put_binary_value(&mut out, ty::DATETIME, 0, &Value::Date(Date::default()));
        assert_eq!(out, [0]);
        out.clear();
        let t = Time::new(false, 25, 1, 2, 0).unwrap();
        put_binary_value(&mut out, ty::TIME, 0, &Value::Time(t));
        assert_eq!(out, [8, 0, 1, 0, 0, 0, 1, 1, 2]);
    }

    #[test]
    fn binary_params_decode() {
        let p = |code, unsigned| ParamType { code, unsigned };
        let bytes = (-7i64).to_le_bytes();
        assert_eq!(
            read_binary_param(&mut Reader::new(&bytes), p(ty::LONGLONG, false)),
            Ok(Value::Int(-7))
        );
        assert_eq!(
            read_binary_param(&mut Reader::new(&[0xFF]), p(ty::TINY, true)),
            Ok(Value::UInt(255))
        );
        assert_eq!(
            read_binary_param(&mut Reader::new(b"\x03abc"), p(ty::VAR_STRING, false)),
            Ok(Value::Bytes(b"abc".to_vec()))
        );
        assert_eq!(
            read_binary_param(&mut Reader::new(&[4, 0xE8, 0x07, 5, 6]), p(ty::DATE, false)),
            Ok(Value::Date(Date {
                year: 2024,
                month: 5,
                day: 6
            }))
        );
        assert_eq!(
            read_binary_param(&mut Reader::new(b"\x041.50"), p(ty::NEWDECIMAL, false)),
            Ok(Value::Decimal(Decimal::parse("1.50").unwrap()))
        );
        assert_eq!(
            read_binary_param(&mut Reader::new(b"\x03abc"), p(ty::NEWDECIMAL, false)),
            Ok(Value::Bytes(b"abc".to_vec()))
        );
        let time = [12, 1, 1, 0, 0, 0, 2, 3, 4, 5, 0, 0, 0];
        assert_eq!(
            read_binary_param(&mut Reader::new(&time), p(ty::TIME, false)),
            Ok(Value::Time(Time::new(true, 26, 3, 4, 5).unwrap()))
        );
        assert!(read_binary_param(&mut Reader::new(&[5, 0, 0]), p(ty::DATETIME, false)).is_err());
        assert!(read_binary_param(&mut Reader::new(&[1, 2]), p(ty::LONG, false)).is_err());
        assert!(read_binary_param(&mut Reader::new(&[1]), p(100, false)).is_err());
    }
}
