//! Functions that write a string's bytes in another form and read them back: QUOTE,
//! UNHEX, TO_BASE64 and FROM_BASE64 (MariaDB's base64: lines of 76 characters, blanks
//! skipped when reading), CRC32, CHAR, ORD and BIT_LENGTH. Each works on bytes, so a
//! binary string and a text string go through the same code.

use super::{over_packet, Args};
use crate::expr::eval::{SqlValue, Warning};
use crate::value::Value;
use myriad_types::errors::{ER_BAD_BASE64_DATA, ER_INVALID_CHARACTER_STRING};

/// QUOTE(s): s between single quotes, with `\`, `'`, NUL and Ctrl-Z escaped; NULL gives
/// the word NULL (not a NULL).
pub(super) fn quote(a: &Args, w: &mut Vec<Warning>) -> Value {
    let Some(s) = a.v[0].to_text() else {
        return Value::text("NULL");
    };
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(b'\'');
    for &b in &s {
        match b {
            b'\\' | b'\'' => out.extend([b'\\', b]),
            0 => out.extend(b"\\0"),
            0x1A => out.extend(b"\\Z"),
            _ => out.push(b),
        }
    }
    out.push(b'\'');
    if over_packet("quote", out.len() as u64, a.limit, w) {
        return Value::Null;
    }
    Value::Bytes(out)
}

/// A hexadecimal digit's value.
fn hex_digit(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// UNHEX(s): the bytes that pairs of hexadecimal digits write (an odd first digit stands
/// alone); NULL for any other character.
pub(super) fn unhex(a: &Args) -> Value {
    let Some(s) = a.v[0].to_text() else {
        return Value::Null;
    };
    let (head, pairs) = s.split_at(s.len() % 2);
    let mut out = Vec::with_capacity(s.len().div_ceil(2));
    for &d in head {
        match hex_digit(d) {
            Some(v) => out.push(v),
            None => return Value::Null,
        }
    }
    for pair in pairs.chunks(2) {
        match (hex_digit(pair[0]), hex_digit(pair[1])) {
            (Some(h), Some(l)) => out.push(h << 4 | l),
            _ => return Value::Null,
        }
    }
    Value::Bytes(out)
}

const BASE64_DIGITS: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The characters of a line of MariaDB's base64 before a line break.
const BASE64_LINE_CHARS: usize = 76;

/// TO_BASE64(s): base64 with `=` padding and a line break after every 76 characters.
pub(super) fn to_base64(a: &Args, w: &mut Vec<Warning>) -> Value {
    let Some(s) = a.v[0].to_text() else {
        return Value::Null;
    };
    let chars = s.len().div_ceil(3) * 4;
    let bytes = chars + chars.saturating_sub(1) / BASE64_LINE_CHARS;
    if over_packet("to_base64", bytes as u64, a.limit, w) {
        return Value::Null;
    }
    let mut out = Vec::with_capacity(bytes);
    for (i, group) in s.chunks(3).enumerate() {
        if i > 0 && i * 4 % BASE64_LINE_CHARS == 0 {
            out.push(b'\n');
        }
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (k, &b)| n | u32::from(b) << (16 - 8 * k));
        for k in 0..4 {
            out.push(if k <= group.len() {
                BASE64_DIGITS[(n >> (18 - 6 * k) & 0x3F) as usize]
            } else {
                b'='
            });
        }
    }
    Value::Bytes(out)
}

/// A byte read by FROM_BASE64.
enum Base64Byte {
    Digit(u8),
    /// Skipped: the blanks `\t \n \v \f \r`, space, and 0xA0.
    Blank,
    Other,
}

fn base64_byte(b: u8) -> Base64Byte {
    match b {
        b'A'..=b'Z' => Base64Byte::Digit(b - b'A'),
        b'a'..=b'z' => Base64Byte::Digit(b - b'a' + 26),
        b'0'..=b'9' => Base64Byte::Digit(b - b'0' + 52),
        b'+' => Base64Byte::Digit(62),
        b'/' => Base64Byte::Digit(63),
        0x09..=0x0D | b' ' | 0xA0 => Base64Byte::Blank,
        _ => Base64Byte::Other,
    }
}

/// FROM_BASE64(s): the bytes base64 text writes, blanks skipped; NULL and warning 1958
/// (naming the offset where reading stopped) for anything else, as MariaDB's decoder
/// reads it: groups of four, `=` only in a group's last two places, nothing but blanks
/// after a padded group.
pub(super) fn from_base64(a: &Args, w: &mut Vec<Warning>) -> Value {
    let Some(s) = a.v[0].to_text() else {
        return Value::Null;
    };
    match decode_base64(&s) {
        Ok(bytes) => Value::Bytes(bytes),
        Err(at) => {
            w.push(Warning {
                level: "Warning",
                code: ER_BAD_BASE64_DATA.code,
                message: ER_BAD_BASE64_DATA.message(&[&at]),
            });
            Value::Null
        }
    }
}

/// The bytes of base64 text, or the offset at which it stops being base64.
fn decode_base64(s: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let mut at = 0;
    let skip_blanks = |at: &mut usize| {
        while *at < s.len() && matches!(base64_byte(s[*at]), Base64Byte::Blank) {
            *at += 1;
        }
    };
    loop {
        let (mut n, mut pads) = (0u32, 0usize);
        for place in 0..4 {
            skip_blanks(&mut at);
            let Some(&b) = s.get(at) else {
                // The input ends: between groups that is the end, within one an error.
                return if place == 0 { Ok(out) } else { Err(at) };
            };
            match base64_byte(b) {
                Base64Byte::Digit(d) if pads == 0 => n = n << 6 | u32::from(d),
                // Padding: only in a group's last two places, and only padding after it.
                _ if b == b'=' && place >= 2 => {
                    n <<= 6;
                    pads += 1;
                }
                _ => return Err(at),
            }
            at += 1;
        }
        out.extend(&n.to_be_bytes()[1..4 - pads]);
        if pads > 0 {
            skip_blanks(&mut at);
            return if at == s.len() { Ok(out) } else { Err(at) };
        }
    }
}

/// CRC32(s): the IEEE CRC-32 of s's bytes.
pub(super) fn crc32(a: &Args) -> Value {
    let Some(s) = a.v[0].to_text() else {
        return Value::Null;
    };
    let crc = s.iter().fold(!0u32, |crc, &b| {
        (0..8).fold(crc ^ u32::from(b), |c, _| {
            if c & 1 == 1 {
                c >> 1 ^ 0xEDB8_8320
            } else {
                c >> 1
            }
        })
    });
    Value::UInt(u64::from(!crc))
}

/// CHAR(n, ...): each argument's low 32 bits as one to four big-endian bytes (leading
/// zero bytes left out); NULL arguments are skipped.
pub(super) fn char_of(a: &Args, w: &mut Vec<Warning>) -> Value {
    let mut out = Vec::with_capacity(a.v.len());
    for v in &a.v {
        let Some(n) = v.to_int(w) else { continue };
        let bytes = (n as u32).to_be_bytes();
        let first = bytes.iter().position(|&b| b != 0).unwrap_or(3);
        out.extend(&bytes[first..]);
    }
    Value::Bytes(out)
}

/// A string built from bytes that must be well-formed utf8mb4 (`mb4`) or utf8mb3, which
/// has no four-byte characters (MariaDB's check_well_formed_result): when it is not,
/// warning 1300 names up to three bytes from the first bad one, and the result is NULL in
/// strict mode, else cut before them.
pub(super) fn well_formed(bytes: Vec<u8>, mb4: bool, strict: bool, w: &mut Vec<Warning>) -> Value {
    let utf8 = match std::str::from_utf8(&bytes) {
        Ok(text) => text.len(),
        Err(e) => e.valid_up_to(),
    };
    let valid = if mb4 {
        utf8
    } else {
        let text = std::str::from_utf8(&bytes[..utf8]).unwrap_or_default();
        text.char_indices()
            .find(|(_, c)| c.len_utf8() == 4)
            .map_or(utf8, |(i, _)| i)
    };
    if valid == bytes.len() {
        return Value::Bytes(bytes);
    }
    let charset = if mb4 { "utf8mb4" } else { "utf8mb3" };
    let bad: String = bytes[valid..]
        .iter()
        .take(3)
        .map(|b| format!("{b:02X}"))
        .collect();
    w.push(Warning {
        level: "Warning",
        code: ER_INVALID_CHARACTER_STRING.code,
        message: ER_INVALID_CHARACTER_STRING.message(&[&charset, &bad]),
    });
    if strict {
        return Value::Null;
    }
    let mut bytes = bytes;
    bytes.truncate(valid);
    Value::Bytes(bytes)
}

/// CHR(n): CHAR(n) as utf8mb4 text.
pub(super) fn chr(a: &Args, strict: bool, w: &mut Vec<Warning>) -> Value {
    match char_of(a, w) {
        Value::Bytes(b) if !a.any_null => well_formed(b, true, strict, w),
        _ => Value::Null,
    }
}

/// `CHAR(n, ... USING utf8mb4)` (`mb4`) or `USING utf8mb3`.
pub(super) fn char_using(a: &Args, mb4: bool, strict: bool, w: &mut Vec<Warning>) -> Value {
    match char_of(a, w) {
        Value::Bytes(b) => well_formed(b, mb4, strict, w),
        other => other,
    }
}

/// ORD(s): the first character's bytes read as a big-endian number (its one byte for a
/// binary string, or when the text does not start with a well-formed character).
pub(super) fn ord(a: &Args) -> Value {
    let Some(s) = a.v[0].to_text() else {
        return Value::Null;
    };
    if s.is_empty() {
        return Value::Int(0);
    }
    let width = if a.binary {
        1
    } else {
        match std::str::from_utf8(&s[..s.len().min(4)]) {
            Ok(t) => t.chars().next().map_or(1, char::len_utf8),
            Err(e) if e.valid_up_to() > 0 => std::str::from_utf8(&s[..e.valid_up_to()])
                .ok()
                .and_then(|t| t.chars().next())
                .map_or(1, char::len_utf8),
            Err(_) => 1,
        }
    };
    let n = s[..width].iter().fold(0i64, |n, &b| n << 8 | i64::from(b));
    Value::Int(n)
}

/// BIT_LENGTH(s): s's bytes times eight.
pub(super) fn bit_length(a: &Args) -> Value {
    a.v[0]
        .to_text()
        .map_or(Value::Null, |s| Value::Int(s.len() as i64 * 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_reads_what_mariadb_reads() {
        assert_eq!(decode_base64(b"YWJj"), Ok(b"abc".to_vec()));
        assert_eq!(decode_base64(b" YW\nJj "), Ok(b"abc".to_vec()));
        assert_eq!(decode_base64(b"YQ=="), Ok(b"a".to_vec()));
        assert_eq!(decode_base64(b"YWI="), Ok(b"ab".to_vec()));
        assert_eq!(decode_base64(b""), Ok(Vec::new()));
        assert_eq!(decode_base64(b"YWJ"), Err(3));
        assert_eq!(decode_base64(b"!!"), Err(0));
        assert_eq!(decode_base64(b"YQ"), Err(2));
        assert_eq!(decode_base64(b"YQ="), Err(3));
        assert_eq!(decode_base64(b"YQ==YQ=="), Err(4));
        assert_eq!(decode_base64(b"YWJj!"), Err(4));
        assert_eq!(decode_base64(b"Y=Jj"), Err(1));
        assert_eq!(decode_base64(b"YQ=j"), Err(3));
    }
}
