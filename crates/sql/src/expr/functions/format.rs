//! FORMAT(x, d[, locale]): x rounded to d decimals (0 to 38) and written with the
//! locale's decimal point and digit grouping (en_US's by default; see [`super::locales`]).
//! An integer or decimal x is rounded exactly, half away from zero; any other x (a double,
//! a string) is rounded as a double, half to even, as MariaDB does. An unknown locale is
//! en_US with warning 1649, as in MariaDB.

use super::locales::{number_format, NumberFormat};
use super::Args;
use crate::error::SqlError;
use crate::expr::eval::{SqlValue, Warning};
use crate::value::Value;
use myriad_types::errors::{ER_UNKNOWN_LOCALE, ER_WARN_DEPRECATED_SYNTAX};

/// The most decimals FORMAT writes (MariaDB's FORMAT_MAX_DECIMALS).
const DECIMALS_MAX: i64 = 38;

pub(super) fn format(a: &Args, w: &mut Vec<Warning>) -> Result<Value, SqlError> {
    let locale =
        a.v.get(2)
            .map(|v| v.to_text().unwrap_or_else(|| b"NULL".to_vec()));
    let format = locale
        .as_deref()
        .map_or(Some(EN_US), |name| locale_format(name, w))
        .unwrap_or(EN_US);
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
    Ok(Value::Bytes(grouped(&plain, &format)))
}

/// en_US's format: a point, commas between groups of three.
const EN_US: NumberFormat = NumberFormat {
    decimal_point: b'.',
    thousands_separator: b',',
    first_group: 3,
    later_groups: 3,
};

/// The format of the locale named `name`, with MariaDB's warnings: 1287 for the old name
/// sr_YU (sr_RS's format), 1649 and None for a name it does not know.
fn locale_format(name: &[u8], w: &mut Vec<Warning>) -> Option<NumberFormat> {
    let shown = String::from_utf8_lossy(name).into_owned();
    if name.eq_ignore_ascii_case(b"sr_YU") {
        w.push(Warning {
            level: "Warning",
            code: ER_WARN_DEPRECATED_SYNTAX.code,
            message: ER_WARN_DEPRECATED_SYNTAX.message(&[&shown, &"sr_RS"]),
        });
        return number_format(b"sr_RS");
    }
    let format = number_format(name);
    if format.is_none() {
        w.push(Warning {
            level: "Warning",
            code: ER_UNKNOWN_LOCALE.code,
            message: ER_UNKNOWN_LOCALE.message(&[&shown]),
        });
    }
    format
}

/// A number's plain text (`-`, digits, `.`, digits) in a locale's format: its decimal
/// point, and its separator between groups of integer digits when the text is long enough
/// for one group (MariaDB's test, which counts the sign); a zero has no sign.
fn grouped(plain: &str, format: &NumberFormat) -> Vec<u8> {
    let zero = !plain.bytes().any(|b| matches!(b, b'1'..=b'9'));
    let unsigned = plain.strip_prefix('-').unwrap_or(plain);
    let (int, fraction) = unsigned.split_at(unsigned.find('.').unwrap_or(unsigned.len()));
    let mut out = Vec::with_capacity(plain.len() + int.len() / 2 + 1);
    if !zero && unsigned.len() < plain.len() {
        out.push(b'-');
    }
    let first = usize::from(format.first_group);
    if first > 0 && plain.len() > fraction.len() + first {
        // Group sizes from the point leftwards: the first, then the later ones.
        let mut breaks = Vec::new();
        let mut at = first;
        while at < int.len() {
            breaks.push(int.len() - at);
            at += usize::from(format.later_groups.max(1));
        }
        for (i, b) in int.bytes().enumerate() {
            if breaks.contains(&i) {
                out.push(format.thousands_separator);
            }
            out.push(b);
        }
    } else {
        out.extend(int.bytes());
    }
    if let Some(digits) = fraction.strip_prefix('.') {
        out.push(format.decimal_point);
        out.extend(digits.bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{grouped, number_format, EN_US};

    #[test]
    fn groups_integer_digits_as_the_locale_does() {
        let en = |s| String::from_utf8(grouped(s, &EN_US)).unwrap();
        assert_eq!(en("1234567.89"), "1,234,567.89");
        assert_eq!(en("-1234"), "-1,234");
        assert_eq!(en("123"), "123");
        assert_eq!(en("-0.00"), "0.00");
        assert_eq!(en("100000.5"), "100,000.5");
        let india = number_format(b"en_IN").unwrap();
        assert_eq!(grouped("-1234567.5", &india), b"-12,34,567.5");
        let german = number_format(b"DE_de").unwrap();
        assert_eq!(grouped("12.5", &german), b"12,5");
        assert_eq!(grouped("1234.5", &german), b"1.234,5");
    }
}
