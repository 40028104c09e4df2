//! The one value type of the workspace: what storage stores, what the SQL engine computes
//! and returns, and what the protocol sends and receives.
//!
//! | variant    | holds                                     | text form                      |
//! |------------|-------------------------------------------|--------------------------------|
//! | `Null`     | SQL NULL                                  | none                           |
//! | `Int`      | signed integers (TINYINT..BIGINT)         | decimal digits                 |
//! | `UInt`     | unsigned integers                         | decimal digits                 |
//! | `Double`   | FLOAT and DOUBLE                          | [`write_double`]               |
//! | `Decimal`  | DECIMAL                                   | the decimal's own digits       |
//! | `Bytes`    | strings (UTF-8) and blobs: the column says | the bytes                     |
//! | `Date`     | DATE                                      | `YYYY-MM-DD`                   |
//! | `DateTime` | DATETIME, TIMESTAMP                       | `YYYY-MM-DD HH:MM:SS[.ffffff]` |
//! | `Time`     | TIME                                      | `[-]HH:MM:SS[.ffffff]`         |
//!
//! Only `Bytes` owns heap memory; the other variants are held inline, and every text form
//! is written straight into the caller's buffer.

use crate::datetime::{frac_digits_auto, Date, DateTime, Time};
use crate::decimal::Decimal;
use std::io::Write;

/// One value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    Decimal(Decimal),
    Bytes(Vec<u8>),
    Date(Date),
    DateTime(DateTime),
    Time(Time),
}

/// The largest DOUBLE printed with a column's fixed fraction digits: past it the shortest
/// form is kept, so that a value's text stays under the 251 bytes a text row gives a
/// non-string value.
pub const FIXED_DOUBLE_ABS_MAX: f64 = 1e15;

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// A DATE as midnight of its day, a DATETIME as itself; None for other values.
    pub fn as_datetime(&self) -> Option<DateTime> {
        match self {
            Value::Date(d) => Some(d.at_midnight()),
            Value::DateTime(dt) => Some(*dt),
            _ => None,
        }
    }

    /// Append the text form in a result column of type FLOAT (`float`: its values are
    /// DOUBLEs holding a FLOAT, written with six significant digits, see [`write_float`])
    /// or another with `decimals` (see [`Value::write_text_in_column`]).
    pub fn write_text_in_typed_column(&self, out: &mut Vec<u8>, float: bool, decimals: u8) {
        match self {
            Value::Double(v) if float => write_float(*v, out),
            _ => self.write_text_in_column(out, decimals),
        }
    }

    /// Append the text form in a result column with `decimals` (the column definition's
    /// field): a DOUBLE in a column with 1 to 30 decimals prints that many fraction digits,
    /// as MariaDB prints PERCENT_RANK()'s, while it is under [`FIXED_DOUBLE_ABS_MAX`];
    /// everything else as [`Value::write_text`] with the column's fraction digits.
    pub fn write_text_in_column(&self, out: &mut Vec<u8>, decimals: u8) {
        if let Value::Double(v) = self {
            if (1..=30).contains(&decimals) && v.is_finite() && v.abs() < FIXED_DOUBLE_ABS_MAX {
                let _ = write!(out, "{:.*}", usize::from(decimals), v);
                return;
            }
        }
        self.write_text(out, crate::datetime::frac_digits(decimals));
    }

    /// Append the text form (nothing for NULL). `frac_digits` is how many fraction digits
    /// DATETIME and TIME print (0..=6); None prints six when there are microseconds and
    /// none otherwise, as MariaDB does for a value whose column promises no scale.
    pub fn write_text(&self, out: &mut Vec<u8>, frac_digits: Option<u8>) {
        match self {
            Value::Null => {}
            Value::Int(v) => {
                let _ = write!(out, "{v}");
            }
            Value::UInt(v) => {
                let _ = write!(out, "{v}");
            }
            Value::Double(v) => write_double(*v, out),
            Value::Decimal(d) => {
                let _ = write!(out, "{d}");
            }
            Value::Bytes(b) => out.extend_from_slice(b),
            Value::Date(d) => d.write_text(out),
            Value::DateTime(dt) => {
                dt.write_text(out, frac_digits.unwrap_or(frac_digits_auto(dt.micros)))
            }
            Value::Time(t) => t.write_text(out, frac_digits.unwrap_or(frac_digits_auto(t.micros))),
        }
    }

    /// The text form, owned (None for NULL): integers in decimal, doubles as
    /// [`write_double`] writes them, decimals with their scale, dates as
    /// `YYYY-MM-DD[ HH:MM:SS[.ffffff]]`, times as `[-]HH:MM:SS[.ffffff]`.
    pub fn to_text(&self) -> Option<Vec<u8>> {
        match self {
            Value::Null => None,
            Value::Bytes(b) => Some(b.clone()),
            other => {
                let mut out = Vec::new();
                other.write_text(&mut out, None);
                Some(out)
            }
        }
    }

    /// The text form for messages (`NULL` for NULL, bytes that are not UTF-8 replaced).
    pub fn to_text_lossy(&self) -> String {
        self.to_text()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_else(|| "NULL".into())
    }
}

/// A FLOAT's text (its value held as a DOUBLE): six significant digits, as MariaDB prints
/// a FLOAT column (`1.1`, `123457000`), then written as [`write_double`] writes that value.
pub fn write_float(value: f64, out: &mut Vec<u8>) {
    // FLT_DIG significant digits.
    let rounded = format!("{value:.5e}").parse::<f64>().unwrap_or(value);
    write_double(rounded, out);
}

/// A DOUBLE's text as myriad prints it: the shortest digits that read back to the same
/// value, in plain notation for magnitudes in [1e-15, 1e15) and exponent notation outside
/// (`1e15`, `1e-16`), as MariaDB prints them (`1.5e-7` is `0.00000015`), `-0` for negative
/// zero, `NaN`/`inf`/`-inf` for values SQL never produces but a computation might.
/// Appended to `out` without allocating in the plain range.
pub fn write_double(value: f64, out: &mut Vec<u8>) {
    let magnitude = value.abs();
    if value.is_finite() && magnitude != 0.0 && !(1e-15..1e15).contains(&magnitude) {
        let _ = write!(out, "{value:e}");
    } else {
        let _ = write!(out, "{value}");
    }
}

/// [`write_double`] into a new string.
pub fn format_double(value: f64) -> String {
    let mut out = Vec::with_capacity(24);
    write_double(value, &mut out);
    // Only ASCII digits, signs, '.', 'e' and the words NaN/inf are written.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn double_text_forms() {
        assert_eq!(format_double(1000.0), "1000");
        assert_eq!(format_double(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(format_double(1e15), "1e15");
        assert_eq!(format_double(1e14), "100000000000000");
        assert_eq!(format_double(1e20), "1e20");
        assert_eq!(format_double(1.5e-7), "0.00000015");
        assert_eq!(format_double(1e-15), "0.000000000000001");
        assert_eq!(format_double(9.99e-16), "9.99e-16");
        assert_eq!(format_double(5e-6), "0.000005");
        assert_eq!(format_double(-1.5e-300), "-1.5e-300");
        assert_eq!(format_double(-2.5), "-2.5");
        assert_eq!(format_double(0.0), "0");
        assert_eq!(format_double(-0.0), "-0");
        assert_eq!(format_double(f64::NAN), "NaN");
        assert_eq!(format_double(f64::INFINITY), "inf");
        assert_eq!(format_double(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn text_forms() {
        assert_eq!(Value::Null.to_text(), None);
        assert_eq!(Value::Null.to_text_lossy(), "NULL");
        assert_eq!(Value::Int(-3).to_text().unwrap(), b"-3");
        assert_eq!(
            Value::UInt(u64::MAX).to_text().unwrap(),
            b"18446744073709551615"
        );
        assert_eq!(Value::Double(1e15).to_text().unwrap(), b"1e15");
        assert_eq!(Value::Bytes(b"ab".to_vec()).to_text().unwrap(), b"ab");
        let dt = DateTime {
            year: 2024,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second: 5,
            micros: 60,
        };
        assert_eq!(
            Value::DateTime(dt).to_text().unwrap(),
            b"2024-01-02 03:04:05.000060"
        );
        let mut out = Vec::new();
        Value::DateTime(dt).write_text(&mut out, Some(0));
        assert_eq!(out, b"2024-01-02 03:04:05");
        assert_eq!(Value::Date(dt.date()).to_text().unwrap(), b"2024-01-02");
        let t = Time::new(true, 100, 2, 3, 0).unwrap();
        assert_eq!(Value::Time(t).to_text().unwrap(), b"-100:02:03");
    }

    proptest! {
        /// The text of every finite double reads back to the same double.
        #[test]
        fn double_text_reads_back(bits: u64) {
            let v = f64::from_bits(bits);
            prop_assume!(v.is_finite());
            let text = format_double(v);
            prop_assert_eq!(text.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{}", text);
        }
    }
}
