//! Values on the wire: how a result value is written in the text protocol (COM_QUERY) and
//! the binary protocol (COM_STMT_EXECUTE), and how binary prepared-statement parameters
//! are decoded.
//!
//! In a binary row the encoding follows the *column's* type code, not the value's variant:
//! a client binds a LONG column to a 4-byte buffer, whatever the engine computed. So every
//! encoder here converts the value to what the column promises.

use crate::buf::{put_lenenc_bytes, DecodeError, DecodeResult, Reader};
use crate::constants::column_type as ty;
use std::borrow::Cow;

/// A result value, borrowed from the engine's row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueRef<'a> {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    /// A DECIMAL in canonical text form.
    Decimal(&'a str),
    Bytes(&'a [u8]),
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
    Time {
        negative: bool,
        hours: u32,
        minute: u8,
        second: u8,
        micros: u32,
    },
}

/// A decoded prepared-statement parameter, owned (it outlives the packet).
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    Decimal(String),
    Bytes(Vec<u8>),
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
    Time {
        negative: bool,
        hours: u32,
        minute: u8,
        second: u8,
        micros: u32,
    },
}

/// A parameter's type as the client bound it: the type code and whether it is unsigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamType {
    pub code: u8,
    pub unsigned: bool,
}

/// Format a double the way MySQL prints one: shortest round-trip digits, exponent
/// notation for very large or very small magnitudes (`1e20`, `1.5e-7`).
pub fn format_double(value: f64, out: &mut Vec<u8>) {
    use std::io::Write;
    if value.is_nan() || value.is_infinite() {
        // MySQL has no such values; the closest honest text is NULL-like, but a result
        // must still be a number, so print what the engine produced.
        let _ = write!(out, "{value}");
        return;
    }
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-6..1e15).contains(&magnitude) {
        let text = format!("{value:e}");
        // Rust writes `1e20` and `1.5e-7`; MySQL writes the same, but `e+` for positive
        // exponents beyond the simple cases is not used by MariaDB either.
        out.extend_from_slice(text.as_bytes());
    } else {
        let _ = write!(out, "{value}");
    }
}

fn write_two(out: &mut Vec<u8>, v: u32) {
    out.push(b'0' + (v / 10 % 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

fn write_fraction(out: &mut Vec<u8>, micros: u32, decimals: u8) {
    // 31 is NOT_FIXED_DEC: the column does not promise a scale; print micros if any.
    let digits = match decimals {
        1..=6 => decimals as usize,
        31 if micros != 0 => 6,
        _ => 0,
    };
    if digits > 0 {
        let text = format!("{:06}", micros % 1_000_000);
        out.push(b'.');
        out.extend_from_slice(&text.as_bytes()[..digits]);
    }
}

/// The text-protocol representation of a value (None for NULL), for a column with
/// `decimals` fractional digits.
pub fn text_value<'a>(value: &ValueRef<'a>, decimals: u8) -> Option<Cow<'a, [u8]>> {
    let mut out = Vec::new();
    match *value {
        ValueRef::Null => return None,
        ValueRef::Int(v) => out.extend_from_slice(v.to_string().as_bytes()),
        ValueRef::UInt(v) => out.extend_from_slice(v.to_string().as_bytes()),
        ValueRef::Double(v) => format_double(v, &mut out),
        ValueRef::Decimal(s) => return Some(Cow::Borrowed(s.as_bytes())),
        ValueRef::Bytes(b) => return Some(Cow::Borrowed(b)),
        ValueRef::Date { year, month, day } => {
            out.extend_from_slice(format!("{year:04}-").as_bytes());
            write_two(&mut out, month.into());
            out.push(b'-');
            write_two(&mut out, day.into());
        }
        ValueRef::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        } => {
            out.extend_from_slice(format!("{year:04}-").as_bytes());
            write_two(&mut out, month.into());
            out.push(b'-');
            write_two(&mut out, day.into());
            out.push(b' ');
            write_two(&mut out, hour.into());
            out.push(b':');
            write_two(&mut out, minute.into());
            out.push(b':');
            write_two(&mut out, second.into());
            write_fraction(&mut out, micros, decimals);
        }
        ValueRef::Time {
            negative,
            hours,
            minute,
            second,
            micros,
        } => {
            if negative {
                out.push(b'-');
            }
            if hours < 100 {
                write_two(&mut out, hours);
            } else {
                out.extend_from_slice(hours.to_string().as_bytes());
            }
            out.push(b':');
            write_two(&mut out, minute.into());
            out.push(b':');
            write_two(&mut out, second.into());
            write_fraction(&mut out, micros, decimals);
        }
    }
    Some(Cow::Owned(out))
}

/// Append one value of a text row: a length-encoded string, or 0xFB for NULL. Numbers are
/// formatted straight into the row (their text is always shorter than 251 bytes, so the
/// length prefix is one byte patched afterwards): no allocation per value.
pub fn put_text_value(out: &mut Vec<u8>, value: &ValueRef<'_>, decimals: u8) {
    use std::io::Write;
    let length_at = out.len();
    match *value {
        ValueRef::Null => {
            out.push(0xFB);
            return;
        }
        ValueRef::Bytes(b) => return put_lenenc_bytes(out, b),
        ValueRef::Decimal(s) => return put_lenenc_bytes(out, s.as_bytes()),
        ValueRef::Int(v) => {
            out.push(0);
            let _ = write!(out, "{v}");
        }
        ValueRef::UInt(v) => {
            out.push(0);
            let _ = write!(out, "{v}");
        }
        ValueRef::Double(v) => {
            out.push(0);
            format_double(v, out);
        }
        _ => {
            if let Some(text) = text_value(value, decimals) {
                put_lenenc_bytes(out, &text);
            }
            return;
        }
    }
    let len = out.len() - length_at - 1;
    debug_assert!(len < 0xFB, "a number's text fits a one-byte length");
    out[length_at] = len.min(0xFA) as u8;
}

fn as_i64(value: &ValueRef<'_>) -> i64 {
    match *value {
        ValueRef::Null => 0,
        ValueRef::Int(v) => v,
        ValueRef::UInt(v) => v as i64,
        ValueRef::Double(v) => v.round() as i64,
        ValueRef::Decimal(s) => parse_number_prefix(s.as_bytes()).round() as i64,
        ValueRef::Bytes(b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok())
            .unwrap_or_else(|| parse_number_prefix(b).round() as i64),
        ValueRef::Date { year, month, day } => {
            i64::from(year) * 10_000 + i64::from(month) * 100 + i64::from(day)
        }
        ValueRef::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            ..
        } => {
            (i64::from(year) * 10_000 + i64::from(month) * 100 + i64::from(day)) * 1_000_000
                + i64::from(hour) * 10_000
                + i64::from(minute) * 100
                + i64::from(second)
        }
        ValueRef::Time {
            negative,
            hours,
            minute,
            second,
            ..
        } => {
            let v = i64::from(hours) * 10_000 + i64::from(minute) * 100 + i64::from(second);
            if negative {
                -v
            } else {
                v
            }
        }
    }
}

fn as_f64(value: &ValueRef<'_>) -> f64 {
    match *value {
        ValueRef::Int(v) => v as f64,
        ValueRef::UInt(v) => v as f64,
        ValueRef::Double(v) => v,
        ValueRef::Decimal(s) => parse_number_prefix(s.as_bytes()),
        ValueRef::Bytes(b) => parse_number_prefix(b),
        other => as_i64(&other) as f64,
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

fn put_date_parts(
    out: &mut Vec<u8>,
    year: u16,
    month: u8,
    day: u8,
    hms: Option<(u8, u8, u8, u32)>,
) {
    match hms {
        None | Some((0, 0, 0, 0)) if year == 0 && month == 0 && day == 0 => out.push(0),
        None | Some((0, 0, 0, 0)) => {
            out.push(4);
            out.extend_from_slice(&year.to_le_bytes());
            out.extend_from_slice(&[month, day]);
        }
        Some((h, m, s, 0)) => {
            out.push(7);
            out.extend_from_slice(&year.to_le_bytes());
            out.extend_from_slice(&[month, day, h, m, s]);
        }
        Some((h, m, s, micros)) => {
            out.push(11);
            out.extend_from_slice(&year.to_le_bytes());
            out.extend_from_slice(&[month, day, h, m, s]);
            out.extend_from_slice(&micros.to_le_bytes());
        }
    }
}

/// Append one non-NULL value of a binary row, encoded as the column type `code` promises.
pub fn put_binary_value(out: &mut Vec<u8>, code: u8, decimals: u8, value: &ValueRef<'_>) {
    match code {
        ty::TINY => out.push(as_i64(value) as u8),
        ty::SHORT | ty::YEAR => out.extend_from_slice(&(as_i64(value) as u16).to_le_bytes()),
        ty::LONG | ty::INT24 => out.extend_from_slice(&(as_i64(value) as u32).to_le_bytes()),
        ty::LONGLONG => {
            let bits = match *value {
                ValueRef::UInt(v) => v,
                ValueRef::Double(d) if d >= 9.223_372_036_854_776e18 => d as u64,
                ref other => as_i64(other) as u64,
            };
            out.extend_from_slice(&bits.to_le_bytes());
        }
        ty::FLOAT => out.extend_from_slice(&(as_f64(value) as f32).to_le_bytes()),
        ty::DOUBLE => out.extend_from_slice(&as_f64(value).to_le_bytes()),
        ty::DATE | ty::DATETIME | ty::TIMESTAMP | ty::NEWDATE | ty::DATETIME2 | ty::TIMESTAMP2 => {
            match *value {
                ValueRef::Date { year, month, day } => put_date_parts(out, year, month, day, None),
                ValueRef::DateTime {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    micros,
                } => {
                    let hms = if code == ty::DATE {
                        None
                    } else {
                        Some((hour, minute, second, micros))
                    };
                    put_date_parts(out, year, month, day, hms)
                }
                _ => {
                    // Not a temporal value: the client still expects a date structure; send
                    // the zero date rather than bytes it would misread.
                    out.push(0)
                }
            }
        }
        ty::TIME | ty::TIME2 => match *value {
            ValueRef::Time {
                negative,
                hours,
                minute,
                second,
                micros,
            } => {
                if hours == 0 && minute == 0 && second == 0 && micros == 0 {
                    out.push(0);
                    return;
                }
                let days = hours / 24;
                let hour = (hours % 24) as u8;
                out.push(if micros == 0 { 8 } else { 12 });
                out.push(u8::from(negative));
                out.extend_from_slice(&days.to_le_bytes());
                out.extend_from_slice(&[hour, minute, second]);
                if micros != 0 {
                    out.extend_from_slice(&micros.to_le_bytes());
                }
            }
            _ => out.push(0),
        },
        _ => {
            // Strings, blobs, decimals, bit, enum, set, json: a length-encoded string of
            // the text form.
            let text = text_value(value, decimals).unwrap_or(Cow::Borrowed(b""));
            put_lenenc_bytes(out, &text);
        }
    }
}

/// Decode one binary parameter value of type `param`.
pub fn read_binary_param(reader: &mut Reader<'_>, param: ParamType) -> DecodeResult<ParamValue> {
    const WHAT: &str = "parameter value";
    let int = |v: i64, u: u64| {
        if param.unsigned {
            ParamValue::UInt(u)
        } else {
            ParamValue::Int(v)
        }
    };
    Ok(match param.code {
        ty::NULL => ParamValue::Null,
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
            ParamValue::Double(f64::from(f32::from_bits(bits)))
        }
        ty::DOUBLE => ParamValue::Double(f64::from_bits(reader.u64(WHAT)?)),
        ty::DATE | ty::DATETIME | ty::TIMESTAMP | ty::NEWDATE | ty::DATETIME2 | ty::TIMESTAMP2 => {
            let len = reader.u8(WHAT)?;
            let body = reader.take(len as usize, WHAT)?;
            let mut r = Reader::new(body);
            let (mut year, mut month, mut day, mut hour, mut minute, mut second, mut micros) =
                (0, 0, 0, 0, 0, 0, 0);
            if len >= 4 {
                year = r.u16(WHAT)?;
                month = r.u8(WHAT)?;
                day = r.u8(WHAT)?;
            }
            if len >= 7 {
                hour = r.u8(WHAT)?;
                minute = r.u8(WHAT)?;
                second = r.u8(WHAT)?;
            }
            if len >= 11 {
                micros = r.u32(WHAT)?;
            }
            if !matches!(len, 0 | 4 | 7 | 11) {
                return Err(DecodeError("temporal parameter length"));
            }
            if param.code == ty::DATE {
                ParamValue::Date { year, month, day }
            } else {
                ParamValue::DateTime {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    micros,
                }
            }
        }
        ty::TIME | ty::TIME2 => {
            let len = reader.u8(WHAT)?;
            let body = reader.take(len as usize, WHAT)?;
            let mut r = Reader::new(body);
            let (mut negative, mut hours, mut minute, mut second, mut micros) =
                (false, 0u32, 0, 0, 0);
            if len >= 8 {
                negative = r.u8(WHAT)? != 0;
                let days = r.u32(WHAT)?;
                let hour = r.u8(WHAT)?;
                hours = days.saturating_mul(24).saturating_add(u32::from(hour));
                minute = r.u8(WHAT)?;
                second = r.u8(WHAT)?;
            }
            if len >= 12 {
                micros = r.u32(WHAT)?;
            }
            if !matches!(len, 0 | 8 | 12) {
                return Err(DecodeError("time parameter length"));
            }
            ParamValue::Time {
                negative,
                hours,
                minute,
                second,
                micros,
            }
        }
        ty::DECIMAL | ty::NEWDECIMAL => {
            let text = reader.lenenc_bytes(WHAT)?;
            ParamValue::Decimal(String::from_utf8_lossy(text).into_owned())
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
        | ty::GEOMETRY => ParamValue::Bytes(reader.lenenc_bytes(WHAT)?.to_vec()),
        _ => return Err(DecodeError("unknown parameter type")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: ValueRef<'_>, decimals: u8) -> String {
        String::from_utf8(text_value(&v, decimals).unwrap().into_owned()).unwrap()
    }

    #[test]
    fn text_forms_match_mysql() {
        assert_eq!(text(ValueRef::Int(-5), 0), "-5");
        assert_eq!(text(ValueRef::UInt(u64::MAX), 0), "18446744073709551615");
        assert_eq!(text(ValueRef::Double(0.1), 31), "0.1");
        assert_eq!(text(ValueRef::Double(1e20), 31), "1e20");
        assert_eq!(text(ValueRef::Double(2.5), 31), "2.5");
        assert_eq!(
            text(
                ValueRef::Date {
                    year: 2024,
                    month: 2,
                    day: 9
                },
                0
            ),
            "2024-02-09"
        );
        let dt = ValueRef::DateTime {
            year: 2024,
            month: 12,
            day: 31,
            hour: 23,
            minute: 5,
            second: 7,
            micros: 120,
        };
        assert_eq!(text(dt, 0), "2024-12-31 23:05:07");
        assert_eq!(text(dt, 6), "2024-12-31 23:05:07.000120");
        assert_eq!(text(dt, 3), "2024-12-31 23:05:07.000");
        let t = ValueRef::Time {
            negative: true,
            hours: 838,
            minute: 59,
            second: 59,
            micros: 0,
        };
        assert_eq!(text(t, 0), "-838:59:59");
        assert_eq!(text_value(&ValueRef::Null, 0), None);
    }

    #[test]
    fn text_row_values_match_text_value() {
        let values = [
            ValueRef::Null,
            ValueRef::Int(i64::MIN),
            ValueRef::UInt(u64::MAX),
            ValueRef::Double(-1.5e-300),
            ValueRef::Decimal("12.50"),
            ValueRef::Bytes(&[7u8; 300]),
            ValueRef::Date {
                year: 1,
                month: 2,
                day: 3,
            },
        ];
        for value in values {
            let mut fast = Vec::new();
            put_text_value(&mut fast, &value, 0);
            let mut reference = Vec::new();
            match text_value(&value, 0) {
                Some(text) => put_lenenc_bytes(&mut reference, &text),
                None => reference.push(0xFB),
            }
            assert_eq!(fast, reference, "{value:?}");
        }
    }

    #[test]
    fn binary_values_follow_the_column_type() {
        let mut out = Vec::new();
        put_binary_value(&mut out, ty::LONG, 0, &ValueRef::Int(-2));
        assert_eq!(out, (-2i32).to_le_bytes());
        out.clear();
        put_binary_value(&mut out, ty::LONGLONG, 0, &ValueRef::Bytes(b"42"));
        assert_eq!(out, 42i64.to_le_bytes());
        out.clear();
        put_binary_value(&mut out, ty::DOUBLE, 31, &ValueRef::Int(3));
        assert_eq!(out, 3f64.to_le_bytes());
        out.clear();
        put_binary_value(&mut out, ty::VAR_STRING, 0, &ValueRef::Int(12));
        assert_eq!(out, b"\x0212");
        out.clear();
        let dt = ValueRef::DateTime {
            year: 2020,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second: 5,
            micros: 6,
        };
        put_binary_value(&mut out, ty::DATETIME, 6, &dt);
        assert_eq!(out, [11, 0xE4, 0x07, 1, 2, 3, 4, 5, 6, 0, 0, 0]);
        out.clear();
        let t = ValueRef::Time {
            negative: false,
            hours: 25,
            minute: 1,
            second: 2,
            micros: 0,
        };
        put_binary_value(&mut out, ty::TIME, 0, &t);
        assert_eq!(out, [8, 0, 1, 0, 0, 0, 1, 1, 2]);
    }

    #[test]
    fn binary_params_decode() {
        let p = |code, unsigned| ParamType { code, unsigned };
        let bytes = (-7i64).to_le_bytes();
        assert_eq!(
            read_binary_param(&mut Reader::new(&bytes), p(ty::LONGLONG, false)),
            Ok(ParamValue::Int(-7))
        );
        assert_eq!(
            read_binary_param(&mut Reader::new(&[0xFF]), p(ty::TINY, true)),
            Ok(ParamValue::UInt(255))
        );
        assert_eq!(
            read_binary_param(&mut Reader::new(b"\x03abc"), p(ty::VAR_STRING, false)),
            Ok(ParamValue::Bytes(b"abc".to_vec()))
        );
        assert_eq!(
            read_binary_param(&mut Reader::new(&[4, 0xE8, 0x07, 5, 6]), p(ty::DATE, false)),
            Ok(ParamValue::Date {
                year: 2024,
                month: 5,
                day: 6
            })
        );
        assert!(read_binary_param(&mut Reader::new(&[5, 0, 0]), p(ty::DATETIME, false)).is_err());
        assert!(read_binary_param(&mut Reader::new(&[1, 2]), p(ty::LONG, false)).is_err());
        assert!(read_binary_param(&mut Reader::new(&[1]), p(100, false)).is_err());
    }
}
