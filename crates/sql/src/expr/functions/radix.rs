//! CONV(n, from_base, to_base), and BIN(n) and OCT(n), which are CONV(n, 10, 2) and
//! CONV(n, 10, 8) in MariaDB. The number is read as text in `from_base` (a negative base
//! reads it signed) and written in `to_base` (a negative base writes it signed); both
//! bases lie in 2..=36 by absolute value.

use super::Args;
use crate::expr::eval::{SqlValue, Warning};
use crate::value::Value;

/// The bases a base may name, by absolute value.
const BASES: std::ops::RangeInclusive<i64> = 2..=36;

/// CONV of argument 0 from base `from` to base `to`: NULL for a NULL argument, an empty
/// number, or a base outside 2..=36.
pub(super) fn conv(a: &Args, from: i64, to: i64) -> Value {
    let Some(text) = a.v[0].to_text() else {
        return Value::Null;
    };
    if !BASES.contains(&from.abs()) || !BASES.contains(&to.abs()) || text.is_empty() {
        return Value::Null;
    }
    let n = if from < 0 {
        read_signed(&text, from.unsigned_abs() as u32) as u64
    } else {
        read_unsigned(&text, from as u32)
    };
    Value::Bytes(write(n, to).into_bytes())
}

/// CONV(n, from, to) with the bases from arguments 1 and 2.
pub(super) fn conv_args(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    // MariaDB reads the bases as 32-bit integers, cut from 64 bits (an unsigned value
    // wraps: 18446744073709551606 is -10).
    let base = |i: usize, w: &mut Vec<Warning>| i64::from(a.v[i].to_int(w).unwrap_or(0) as i32);
    let (from, to) = (base(1, w), base(2, w));
    conv(a, from, to)
}

/// The sign and digits of a number's text in `base` (MariaDB's my_strntoull: leading
/// blanks, one sign, then digits until the first that is not one), with whether the
/// digits overflowed 64 bits; None when there are no digits.
fn digits(text: &[u8], base: u32) -> Option<(bool, u64, bool)> {
    let blanks = text
        .iter()
        .take_while(|b| b" \t\n\x0B\x0C\r".contains(b))
        .count();
    let mut rest = &text[blanks..];
    let negative = match rest.first() {
        Some(b'-') => {
            rest = &rest[1..];
            true
        }
        Some(b'+') => {
            rest = &rest[1..];
            false
        }
        _ => false,
    };
    let (mut n, mut overflow, mut read) = (0u64, false, 0);
    for &b in rest {
        let Some(d) = (b as char).to_digit(36).filter(|&d| d < base) else {
            break;
        };
        read += 1;
        match n
            .checked_mul(u64::from(base))
            .and_then(|m| m.checked_add(u64::from(d)))
        {
            Some(m) if !overflow => n = m,
            _ => overflow = true,
        }
    }
    (read > 0).then_some((negative, n, overflow))
}

/// The text as an unsigned 64-bit number: a minus sign wraps it, overflow is the largest.
fn read_unsigned(text: &[u8], base: u32) -> u64 {
    match digits(text, base) {
        None => 0,
        Some((_, _, true)) => u64::MAX,
        Some((negative, n, false)) if negative => n.wrapping_neg(),
        Some((_, n, false)) => n,
    }
}

/// The text as a signed 64-bit number, clamped to its range.
fn read_signed(text: &[u8], base: u32) -> i64 {
    match digits(text, base) {
        None => 0,
        Some((true, n, overflow)) if overflow || n > 1 << 63 => i64::MIN,
        Some((true, n, _)) => (n as i64).wrapping_neg(),
        Some((false, n, overflow)) if overflow || n > i64::MAX as u64 => i64::MAX,
        Some((false, n, _)) => n as i64,
    }
}

/// `n` in `base` with upper-case digits: unsigned for a positive base, signed for a
/// negative one.
fn write(n: u64, base: i64) -> String {
    let (negative, mut magnitude) = if base < 0 && (n as i64) < 0 {
        (true, (n as i64).unsigned_abs())
    } else {
        (false, n)
    };
    let base = base.unsigned_abs();
    let mut digits = Vec::new();
    loop {
        digits.push(char::from_digit((magnitude % base) as u32, 36).unwrap_or('0'));
        magnitude /= base;
        if magnitude == 0 {
            break;
        }
    }
    if negative {
        digits.push('-');
    }
    digits.iter().rev().collect::<String>().to_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_and_write_as_mariadb_does() {
        assert_eq!(read_unsigned(b"ff", 16), 255);
        assert_eq!(read_unsigned(b"-ff", 16), 18_446_744_073_709_551_361);
        assert_eq!(read_unsigned(b"  12abc", 10), 12);
        assert_eq!(read_unsigned(b"abc", 10), 0);
        assert_eq!(read_unsigned(b"99999999999999999999", 10), u64::MAX);
        assert_eq!(read_signed(b"-99999999999999999999", 10), i64::MIN);
        assert_eq!(read_signed(b"99999999999999999999", 10), i64::MAX);
        assert_eq!(write(255, 16), "FF");
        assert_eq!(write(u64::MAX, 16), "FFFFFFFFFFFFFFFF");
        assert_eq!(write(u64::MAX, -16), "-1");
        assert_eq!(write(0, 2), "0");
        assert_eq!(write(1295, 36), "ZZ");
    }
}
