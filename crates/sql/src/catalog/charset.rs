//! What bytes a string column accepts: utf8mb4 columns (CHAR, VARCHAR, TEXT) take valid
//! UTF-8 only; binary columns (BINARY, VARBINARY, BLOB) take any bytes.
//!
//! Values carry no character set of their own (a `Value::Bytes` is bytes), so the check is
//! made where a value enters a column. Invalid UTF-8 into a utf8mb4 column is MariaDB's
//! error 1366 in strict mode ("Incorrect string value: '\xFF...'"); outside strict mode
//! it is a warning and the value is cut before the first invalid byte, as MariaDB does.

/// How many bytes of the offending value an "Incorrect string value" message shows,
/// starting at the first invalid byte (MariaDB shows six, then `...`).
const SHOWN_BYTES: usize = 6;

/// Where `bytes` stop being UTF-8: the offset of the first invalid byte, or None when
/// the whole value is valid.
pub fn first_invalid_utf8(bytes: &[u8]) -> Option<usize> {
    std::str::from_utf8(bytes).err().map(|e| e.valid_up_to())
}

/// The value as MariaDB quotes it in error 1366: from the first invalid byte, six bytes,
/// printable ASCII as itself and any other byte as `\xHH`, then `...` when more follow.
pub fn incorrect_string_text(bytes: &[u8], from: usize) -> String {
    let rest = &bytes[from.min(bytes.len())..];
    let mut text = String::new();
    for &b in rest.iter().take(SHOWN_BYTES) {
        if (0x20..0x7F).contains(&b) {
            text.push(b as char);
        } else {
            text.push_str(&format!("\\x{b:02X}"));
        }
    }
    if rest.len() > SHOWN_BYTES {
        text.push_str("...");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_quote_bytes_as_mariadb_does() {
        // The texts MariaDB 10.11 gives for the same values.
        let cases: [(&[u8], &str); 4] = [
            (b"\xffA", "\\xFFA"),
            (b"abc\xe2\x82xyzxyz", "\\xE2\\x82xyzx..."),
            (b"A\xf0\x9f\x98\x80\xffABCDEFGHI", "\\xFFABCDE..."),
            (b"\xc3(", "\\xC3("),
        ];
        for (bytes, want) in cases {
            let at = first_invalid_utf8(bytes).expect("invalid");
            assert_eq!(incorrect_string_text(bytes, at), want);
        }
        assert_eq!(first_invalid_utf8("ÿ€😀".as_bytes()), None);
    }
}
