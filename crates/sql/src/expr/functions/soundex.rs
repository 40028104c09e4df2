//! SOUNDEX(s), as MariaDB computes it (`x SOUNDS LIKE y` is `SOUNDEX(x) = SOUNDEX(y)`):
//! the first letter, upper-cased, then the digit of each following letter that has one
//! and differs from the last digit written; vowels, H, W and Y have none and do not
//! separate equal digits. Letters are a..z, A..Z and every character from U+00C0 on (which
//! have no digit); anything else is skipped. The result is padded with zeros to four
//! characters but never cut; a string with no letter gives an empty string.

use super::Args;
use crate::expr::eval::SqlValue;
use crate::value::Value;

/// The digit of each letter A..Z ('0': none).
const DIGITS: &[u8; 26] = b"01230120022455012623010202";

fn is_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || u32::from(c) >= 0xC0
}

fn digit(c: char) -> u8 {
    if c.is_ascii_alphabetic() {
        DIGITS[usize::from(c.to_ascii_uppercase() as u8 - b'A')]
    } else {
        b'0'
    }
}

/// SOUNDEX of argument 0. A binary string is read byte by byte with only ASCII letters
/// as letters.
pub(super) fn soundex(a: &Args) -> Value {
    let Some(bytes) = a.v[0].to_text() else {
        return Value::Null;
    };
    let text: String = if a.binary {
        // Bytes past ASCII are no letters in the binary character set.
        bytes
            .iter()
            .map(|&b| if b.is_ascii() { b as char } else { '\0' })
            .collect()
    } else {
        // MariaDB stops at the first byte sequence that is not UTF-8.
        let valid = match std::str::from_utf8(&bytes) {
            Ok(t) => t.len(),
            Err(e) => e.valid_up_to(),
        };
        String::from_utf8_lossy(&bytes[..valid]).into_owned()
    };
    let mut letters = text.chars().filter(|&c| is_letter(c));
    let Some(first) = letters.next() else {
        return Value::text("");
    };
    let mut out = String::new();
    out.push(first.to_ascii_uppercase());
    let mut last = digit(first);
    let mut written = 1;
    for c in letters {
        let d = digit(c);
        if d != b'0' && d != last {
            out.push(d as char);
            written += 1;
            last = d;
        }
    }
    for _ in written..4 {
        out.push('0');
    }
    Value::Bytes(a.out(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use myriad_types::Collation;

    fn of(s: &str) -> String {
        let a = Args::new(vec![Value::text(s)], u64::MAX, Collation::Utf8mb4GeneralCi);
        match soundex(&a) {
            Value::Bytes(b) => String::from_utf8(b).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn codes_match_mariadb() {
        assert_eq!(of("Robert"), "R163");
        assert_eq!(of("Rupert"), "R163");
        assert_eq!(of("Tymczak"), "T520");
        assert_eq!(of("Pfister"), "P236");
        assert_eq!(of("Ashcraft"), "A2613");
        assert_eq!(of("Lee"), "L000");
        assert_eq!(of("Quadrilateral"), "Q364364");
        assert_eq!(of("héllo"), "H400");
        assert_eq!(of(" x"), "X000");
        assert_eq!(of("a1b"), "A100");
        assert_eq!(of("123"), "");
        assert_eq!(of(""), "");
    }
}
