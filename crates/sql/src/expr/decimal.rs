//! DECIMAL values wider than the evaluator's decimal.
//!
//! Expressions compute with `rust_decimal` (a 96-bit mantissa: every value of up to 28
//! significant digits is exact); a stored DECIMAL is an `i128` unscaled value (up to 38
//! digits, the widest column myriad creates). A value between those widths, such as a
//! DECIMAL(30,10) with 20 integer digits, must still go in and come out exactly, so:
//!
//! - a numeric literal that `rust_decimal` cannot hold exactly is kept as its digits (a
//!   string datum) instead of being rounded: [`literal`];
//! - a value is converted for a column from its decimal digits, straight to the `i128`
//!   unscaled value with the column's scale, rounding half away from zero and reporting
//!   whether it fits the column's precision: [`to_unscaled`];
//! - a stored value too wide for `rust_decimal` is read back as its digits:
//!   [`from_unscaled`].
//!
//! Arithmetic on such wide values goes through DOUBLE (docs/compatibility.md); storing
//! and reading them is exact.

use crate::expr::eval::Datum;
use myriad_storage as st;
use rust_decimal::Decimal;

/// The most digits a DECIMAL column may have in myriad: what an `i128` holds.
pub const MAX_STORED_PRECISION: u8 = 38;

/// MariaDB's largest DECIMAL precision (ER_TOO_BIG_PRECISION above it).
pub const MARIADB_MAX_PRECISION: u64 = 65;

/// MariaDB's largest DECIMAL scale (ER_TOO_BIG_SCALE above it).
pub const MARIADB_MAX_SCALE: u64 = 38;

/// A numeric literal with a decimal point (or an integer too big for u64): a DECIMAL
/// when `rust_decimal` holds it exactly, else its canonical digits as a string, so that
/// no digit is lost on the way to a column. None when the text is not a plain decimal.
pub fn literal(text: &str) -> Option<Datum> {
    let canonical = canonical_text(text)?;
    match text.parse::<Decimal>() {
        Ok(d) if d.to_string() == canonical => Some(Datum::Dec(d)),
        _ => Some(Datum::Str(canonical.into_bytes())),
    }
}

/// `[-]digits[.digits]` with leading zeros of the integer part removed (one kept), or
/// None when the text is not of the form `[+-]digits[.digits]` / `[+-].digits`.
fn canonical_text(text: &str) -> Option<String> {
    let text = text.trim();
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let zero = int == "0" && frac.bytes().all(|b| b == b'0');
    let sign = if negative && !zero { "-" } else { "" };
    Some(if !frac.is_empty() {
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}{int}")
    })
}

/// The value as a DECIMAL(precision, scale) column's unscaled integer, and whether it
/// fits; a value that does not fit is the column's largest value of its sign.
pub fn to_unscaled(value: &Datum, precision: u8, scale: u8) -> (i128, bool) {
    let limit = 10i128.pow(u32::from(precision.min(MAX_STORED_PRECISION)));
    // A finite double's Display form is plain digits (Rust never writes an exponent).
    let double_digits = |f: Option<f64>| f.filter(|f| f.is_finite()).map(|f| format!("{f}"));
    let digits = match value {
        Datum::Str(s) => {
            let text = String::from_utf8_lossy(s);
            let (prefix, _) = crate::expr::eval::numeric_prefix(&text);
            // A prefix with an exponent ('1e3') goes through DOUBLE, as in MariaDB.
            canonical_text(prefix).or_else(|| double_digits(value.to_double(&mut Vec::new())))
        }
        Datum::Double(f) => double_digits(Some(*f)),
        other => other
            .to_decimal(&mut Vec::new())
            .and_then(|d| canonical_text(&d.to_string())),
    };
    let largest = |negative: bool| if negative { -(limit - 1) } else { limit - 1 };
    let Some(digits) = digits else {
        // An infinite double.
        let negative = value.to_double(&mut Vec::new()).is_some_and(|f| f < 0.0);
        return (largest(negative), false);
    };
    match st::Datum::decimal_from_str(&digits, scale) {
        Some(st::Datum::Decimal(u)) if u.abs() < limit => (u, true),
        // Valid digits that overflow 38 digits or the column's precision.
        _ => (largest(digits.starts_with('-')), false),
    }
}

/// Decimal digits (a wide value carried as a string) written with `scale` digits after
/// the point, exactly; None when the bytes are not plain decimal digits of up to 38 digits.
pub fn exact_text(bytes: &[u8], scale: u32) -> Option<String> {
    let digits = canonical_text(std::str::from_utf8(bytes).ok()?)?;
    let scale = u8::try_from(scale).ok()?;
    let unscaled = st::Datum::decimal_from_str(&digits, scale)?;
    let ty = st::ColumnType::Decimal {
        precision: MAX_STORED_PRECISION,
        scale,
    };
    Some(st::codec::format_datum(&ty, &unscaled))
}

/// A stored unscaled DECIMAL as an engine value: a DECIMAL when `rust_decimal` holds it,
/// else its exact digits.
pub fn from_unscaled(unscaled: i128, scale: u32) -> Datum {
    match Decimal::try_from_i128_with_scale(unscaled, scale) {
        Ok(d) => Datum::Dec(d),
        Err(_) => {
            let ty = st::ColumnType::Decimal {
                precision: MAX_STORED_PRECISION,
                scale: scale as u8,
            };
            Datum::Str(st::codec::format_datum(&ty, &st::Datum::Decimal(unscaled)).into_bytes())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(d: &Datum) -> String {
        String::from_utf8(d.to_text().unwrap()).unwrap()
    }

    #[test]
    fn wide_literals_keep_every_digit() {
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
                "12345678901234567890123456789012345678",
                "12345678901234567890123456789012345678",
            ),
        ] {
            assert_eq!(text(&literal(lit).unwrap()), want, "{lit}");
        }
        assert!(matches!(literal("1.5"), Some(Datum::Dec(_))));
        assert!(literal("1e5").is_none());
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
        assert_eq!(to_unscaled(&Datum::Int(-7), 5, 2), (-700, true));
        assert_eq!(to_unscaled(&Datum::Double(2.345), 5, 2), (235, true));
        assert_eq!(
            to_unscaled(&Datum::Str(b"1e3".to_vec()), 6, 2),
            (100000, true)
        );
        assert_eq!(
            to_unscaled(&Datum::Str(b"1e9".to_vec()), 6, 2),
            (999999, false)
        );
        // A binary-protocol DECIMAL parameter keeps its digits too.
        let param = Datum::from_value(&crate::value::Value::Decimal(
            "-12345678901234567890.1234567891".into(),
        ));
        assert_eq!(
            to_unscaled(&param, 30, 10),
            (-123456789012345678901234567891, true)
        );
        let huge = Datum::Str(b"1".repeat(50));
        assert_eq!(to_unscaled(&huge, 38, 0), (10i128.pow(38) - 1, false));
    }

    #[test]
    fn wide_stored_values_read_back_as_their_digits() {
        assert_eq!(
            text(&from_unscaled(123456789012345678901234567891, 10)),
            "12345678901234567890.1234567891"
        );
        assert_eq!(text(&from_unscaled(-150, 2)), "-1.50");
        assert_eq!(
            exact_text(b"-12345678901234567890.1234567891", 12).unwrap(),
            "-12345678901234567890.123456789100"
        );
        assert_eq!(exact_text(b"abc", 2), None);
    }
}
