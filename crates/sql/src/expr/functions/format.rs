//! FORMAT(x, d[, locale]): x rounded to d decimals (0 to 38) and written with a comma
//! between each group of three integer digits, en_US's way. An integer or decimal x is
//! rounded exactly, half away from zero; any other x (a double, a string) is rounded as
//! a double, half to even, as MariaDB does. Only the en_US locale is built: another
//! locale is refused with 1235 rather than formatted the English way.

use super::Args;
use crate::error::SqlError;
use crate::expr::eval::{SqlValue, Warning};
use crate::value::Value;
use myriad_types::errors::ER_UNKNOWN_LOCALE;

/// The most decimals FORMAT writes (MariaDB's FORMAT_MAX_DECIMALS).
const DECIMALS_MAX: i64 = 38;

pub(super) fn format(a: &Args, w: &mut Vec<Warning>) -> Result<Value, SqlError> {
    match a.v.get(2) {
        None => {}
        Some(Value::Bytes(b)) if b.eq_ignore_ascii_case(b"en_US") => {}
        // MariaDB falls back to en_US for an unknown locale; NULL is one.
        Some(Value::Null) => w.push(Warning {
            level: "Warning",
            code: ER_UNKNOWN_LOCALE.code,
            message: ER_UNKNOWN_LOCALE.message(&[&"NULL"]),
        }),
        Some(_) => {
            return Err(SqlError::not_supported(
                "FORMAT in a locale other than en_US",
            ))
        }
    }
    if a.v[0].is_null() || a.v[1].is_null() {
        return Ok(Value::Null);
    }
    let decimals = a.int(1, w).clamp(0, DECIMALS_MAX);
    let plain = match &a.v[0] {
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
            let d = a.v[0].to_decimal(w).unwrap_or_default();
            match d
                .round_dp(decimals as i32)
                .and_then(|r| r.rescale(decimals as u32))
            {
                Ok(r) => r.to_string(),
                Err(_) => return Err(SqlError::not_supported("FORMAT of this decimal")),
            }
        }
        v => {
            let f = v.to_double(w).unwrap_or(0.0);
            match super::round(&Value::Double(f), decimals, false, w)? {
                Value::Double(r) => format!("{r:.0$}", decimals as usize),
                _ => return Err(SqlError::not_supported("FORMAT of this number")),
            }
        }
    };
    Ok(Value::Bytes(grouped(&plain).into_bytes()))
}

/// A number's plain text with commas between groups of three integer digits; a zero
/// has no sign.
fn grouped(plain: &str) -> String {
    let zero = !plain.bytes().any(|b| matches!(b, b'1'..=b'9'));
    let (negative, digits) = match plain.strip_prefix('-') {
        Some(rest) => (!zero, rest),
        None => (false, plain),
    };
    let (int, fraction) = digits.split_at(digits.find('.').unwrap_or(digits.len()));
    let mut out = String::with_capacity(plain.len() + int.len() / 3 + 1);
    if negative {
        out.push('-');
    }
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push_str(fraction);
    out
}

#[cfg(test)]
mod tests {
    use super::grouped;

    #[test]
    fn groups_of_three_integer_digits() {
        assert_eq!(grouped("1234567.89"), "1,234,567.89");
        assert_eq!(grouped("-1234"), "-1,234");
        assert_eq!(grouped("123"), "123");
        assert_eq!(grouped("-0.00"), "0.00");
        assert_eq!(grouped("100000.5"), "100,000.5");
    }
}
