//! INET_ATON and INET_NTOA: IPv4 addresses between dotted text and numbers, as MariaDB
//! reads and writes them.
//!
//! INET_ATON reads digits and dots only: each dot ends a part (at most 255), and an
//! address of two or three parts has its last part at the low end (`127.1` is 127.0.0.1,
//! `10.0.5` is 10.0.0.5); more than four parts keep shifting left (MariaDB's result is no
//! address then, but a number). Anything else, an empty text and a text that ends with a
//! dot are NULL. INET_NTOA writes a number of 0..=4294967295 as `a.b.c.d`, NULL otherwise.

use super::Args;
use crate::expr::eval::{SqlValue, Warning};
use crate::value::Value;

/// INET_ATON(text).
pub(super) fn aton(a: &Args) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let text = a.v[0].to_text().unwrap_or_default();
    address_number(&text).map_or(Value::Null, Value::UInt)
}

fn address_number(text: &[u8]) -> Option<u64> {
    let (mut result, mut part, mut dots) = (0u64, 0u64, 0u32);
    for &c in text {
        match c {
            b'0'..=b'9' => {
                part = part * 10 + u64::from(c - b'0');
                if part > 255 {
                    return None;
                }
            }
            b'.' => {
                dots += 1;
                result = (result << 8).wrapping_add(part);
                part = 0;
            }
            _ => return None,
        }
    }
    if text.last().is_none_or(|&c| c == b'.') {
        return None;
    }
    match dots {
        1 => result <<= 16,
        2 => result <<= 8,
        _ => {}
    }
    Some((result << 8).wrapping_add(part))
}

/// INET_NTOA(number).
pub(super) fn ntoa(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let n = match &a.v[0] {
        Value::UInt(u) => i128::from(*u),
        other => other.to_int(w).map_or(-1, i128::from),
    };
    match u32::try_from(n) {
        Ok(n) => Value::text(&std::net::Ipv4Addr::from(n).to_string()),
        Err(_) => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_read_as_mariadb_reads_them() {
        // MariaDB 10.11's answers.
        for (text, want) in [
            ("127.0.0.1", Some(2130706433)),
            ("127.1", Some(2130706433)),
            ("10.0.5", Some(167772165)),
            ("1.2.3.4.5", Some(4328719365)),
            (" 1.2.3.4", None),
            ("1.2.3.4 ", None),
            ("255.255.255.255", Some(4294967295)),
            ("1..2", Some(16777218)),
            ("a", None),
            ("123", Some(123)),
            ("1.2.3.04", Some(16909060)),
            ("122.256", None),
            ("122.226.", None),
            ("", None),
        ] {
            assert_eq!(address_number(text.as_bytes()), want, "{text:?}");
        }
    }
}
