//! DECIMAL in the engine: literals, and values going into a DECIMAL(M,D) column.
//!
//! Expressions compute with [`myriad_types::Decimal`]: exact to 81 digits (MariaDB's
//! expression buffer), scale at most 38, rounding half away from zero. A column is at most
//! DECIMAL(65,38); a value is converted for it by rounding to the column's scale and
//! checking its integer digits ([`to_column`]); storage stores that value as it is.

use crate::error::SqlError;
use crate::expr::eval::{self, SqlValue};
use crate::value::Value;
use myriad_types::decimal::{Decimal, DecimalError};
use myriad_types::errors::{ER_M_BIGGER_THAN_D, ER_TOO_BIG_PRECISION, ER_TOO_BIG_SCALE};

/// MariaDB's largest DECIMAL precision (ER_TOO_BIG_PRECISION above it).
pub const MARIADB_MAX_PRECISION: u64 = 65;

/// MariaDB's largest DECIMAL scale (ER_TOO_BIG_SCALE above it).
pub const MARIADB_MAX_SCALE: u64 = 38;

/// MariaDB's limits on DECIMAL(M,D): M <= 65 (1426), D <= 38 (1425), D <= M (1427);
/// `name` is the column (or `CAST`) the messages name.
pub fn check_type(precision: u32, scale: u32, name: &str) -> Result<(), SqlError> {
    if u64::from(precision) > MARIADB_MAX_PRECISION {
        return Err(SqlError::new(
            ER_TOO_BIG_PRECISION,
            format!("Too big precision specified for '{name}'. Maximum is {MARIADB_MAX_PRECISION}"),
        ));
    }
    if u64::from(scale) > MARIADB_MAX_SCALE {
        return Err(SqlError::new(
            ER_TOO_BIG_SCALE,
            format!("Too big scale specified for '{name}'. Maximum is {MARIADB_MAX_SCALE}"),
        ));
    }
    if scale > precision {
        return Err(SqlError::new(
            ER_M_BIGGER_THAN_D,
            format!(
                "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{name}')"
            ),
        ));
    }
    Ok(())
}

/// A numeric literal with a decimal point or an exponent-free integer too big for u64:
/// its exact DECIMAL. `Err(Overflow)` past 81 significant digits, `Err(Invalid)` when the
/// text is not `[+-]digits[.digits]`.
pub fn literal(text: &str) -> Result<Value, DecimalError> {
    Decimal::parse(text.trim()).map(Value::Decimal)
}

/// The largest DECIMAL(precision, scale) value of the given sign.
fn largest(precision: u8, scale: u8, negative: bool) -> Decimal {
    let max = Decimal::max_of(u32::from(precision), u32::from(scale));
    if negative {
        max.neg()
    } else {
        max
    }
}

/// The value as a DECIMAL(precision, scale) column holds it (rounded half away from zero
/// to the scale), and whether it fits; a value that does not fit is the column's largest
/// value of its sign. Strings are read as MariaDB reads them into a DECIMAL: the longest
/// numeric prefix, exponent included, exactly.
pub fn to_column(value: &Value, precision: u8, scale: u8) -> (Decimal, bool) {
    let exact = match value {
        Value::Bytes(s) => {
            let text = String::from_utf8_lossy(s);
            let (prefix, _) = eval::numeric_prefix(&text);
            Decimal::parse(prefix)
        }
        Value::Double(f) => Decimal::from_f64(*f).unwrap_or(Err(DecimalError::Overflow)),
        other => Ok(other.to_decimal(&mut Vec::new()).unwrap_or(Decimal::ZERO)),
    };
    let negative = match (&exact, value) {
        (Ok(d), _) => d.is_negative(),
        (Err(_), Value::Double(f)) => *f < 0.0,
        (Err(_), Value::Bytes(s)) => s.trim_ascii_start().starts_with(b"-"),
        (Err(_), _) => false,
    };
    match exact.and_then(|d| d.to_column(u32::from(precision), u32::from(scale))) {
        Ok(d) => (d, true),
        Err(_) => (largest(precision, scale, negative), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(d: &Value) -> String {
        String::from_utf8(d.to_text().unwrap()).unwrap()
    }

    /// The column's unscaled integer of the converted value, and whether it fitted.
    fn to_unscaled(value: &Value, precision: u8, scale: u8) -> (i128, bool) {
        let (d, fits) = to_column(value, precision, scale);
        assert_eq!(d.scale(), u32::from(scale), "{d} at the column's scale");
        (d.unscaled_i128().unwrap(), fits)
    }

    #[test]
    fn literals_keep_every_digit() {
        for (lit, want) in [
            (
                "12345678901234567890.1234567891",
                "12345678901234567890.1234567891",
            ),
            ("-0001.50", "-1.50"),
            ("7.", "7"),
            ("-0.000", "0.000"),
            (".5", "0.5"),
            (
                "12345678901234567890123456789012345678901234567890123456789012345",
                "12345678901234567890123456789012345678901234567890123456789012345",
            ),
        ] {
            assert_eq!(text(&literal(lit).unwrap()), want, "{lit}");
        }
        assert_eq!(
            literal(&"1".repeat(82)).unwrap_err(),
            DecimalError::Overflow
        );
        assert_eq!(literal("1x").unwrap_err(), DecimalError::Invalid);
    }

    #[test]
    fn values_convert_exactly_with_range_checks() {
        let wide = literal("12345678901234567890.1234567891").unwrap();
        assert_eq!(
            to_unscaled(&wide, 30, 10),
            (123456789012345678901234567891, true)
        );
        // 20 integer digits do not fit DECIMAL(29,10) (19 integer digits).
        assert_eq!(to_unscaled(&wide, 29, 10), (10i128.pow(29) - 1, false));
        // Rounding into the 21st integer digit overflows DECIMAL(30,10).
        let nines = literal("-99999999999999999999.99999999999").unwrap();
        assert_eq!(to_unscaled(&nines, 30, 10), (-(10i128.pow(30) - 1), false));
        assert_eq!(to_unscaled(&Value::Int(-7), 5, 2), (-700, true));
        assert_eq!(to_unscaled(&Value::Double(2.345), 5, 2), (235, true));
        assert_eq!(
            to_unscaled(&Value::Bytes(b"1e3".to_vec()), 6, 2),
            (100000, true)
        );
        assert_eq!(
            to_unscaled(&Value::Bytes(b"1e9".to_vec()), 6, 2),
            (999999, false)
        );
        assert_eq!(
            to_unscaled(&Value::Bytes(b" -12.345abc".to_vec()), 6, 2),
            (-1235, true)
        );
        let huge = Value::Bytes(b"1".repeat(90));
        assert_eq!(to_unscaled(&huge, 38, 0), (10i128.pow(38) - 1, false));
        let (d, fits) = to_column(&Value::Double(-1e300), 65, 30);
        assert!(!fits);
        assert_eq!(d, largest(65, 30, true));
        let (d, fits) = to_column(&literal(&"9".repeat(65)).unwrap(), 65, 0);
        assert!(fits);
        assert_eq!(d.to_string(), "9".repeat(65));
    }
}
