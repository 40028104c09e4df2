//! Statement text as the SQL layer reads it: a `&str`, whatever bytes the client sent.
//!
//! The client sends a statement as bytes. Clients that bind a binary value into the text
//! (PyMySQL's `_binary'...'`, mysqldump without `--hex-blob`, the C API's
//! `mysql_real_escape_string`) put the value's raw bytes between quotes, escaping only
//! `\0 \n \r \Z ' " \`. Such a statement is not valid UTF-8, and the parser reads `&str`.
//! Replacing the bad bytes with U+FFFD (what `from_utf8_lossy` does) would store a
//! different value without a word, so instead every quoted literal whose bytes are not
//! UTF-8 is rewritten as the hexadecimal literal `X'..'` of the bytes it denotes: the
//! value is the same, byte for byte, and the statement is text.
//!
//! Valid UTF-8 (nearly every statement) is passed through borrowed, after one validation.
//! Invalid bytes outside a quoted literal (in a comment or an identifier) are replaced
//! with U+FFFD: a comment's bytes never reach a value, and an identifier with invalid
//! bytes names no table or column myriad could have created.

use std::borrow::Cow;

/// The statement as text, with every non-UTF-8 string literal rewritten as `X'..'`.
/// NUL bytes that end it are left out (mariadb-slap sends its statements with the C
/// string's terminator; MariaDB's parser stops at it).
pub fn statement_text(sql: &[u8]) -> Cow<'_, str> {
    let end = sql.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let sql = &sql[..end];
    match std::str::from_utf8(sql) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(rewrite(sql)),
    }
}

fn rewrite(sql: &[u8]) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(sql.len() * 2);
    let mut i = 0;
    while i < sql.len() {
        let b = sql[i];
        match b {
            b'\'' | b'"' => {
                let (end, closed) = literal_end(sql, i);
                let raw = &sql[i..end];
                if !closed || std::str::from_utf8(raw).is_ok() {
                    // An unclosed literal stays as it is, for the parser to report.
                    lossy(raw, &mut out);
                } else {
                    if out
                        .last()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    {
                        // `_binary'..'` becomes `_binary X'..'`, not one word.
                        out.push(b' ');
                    }
                    hex_literal(&unescape(raw), &mut out);
                }
                i = end;
            }
            b'`' => {
                let end = sql[i + 1..]
                    .iter()
                    .position(|&c| c == b'`')
                    .map_or(sql.len(), |p| i + 2 + p);
                lossy(&sql[i..end], &mut out);
                i = end;
            }
            b'#' => {
                let end = line_end(sql, i);
                lossy(&sql[i..end], &mut out);
                i = end;
            }
            b'-' if sql[i..].starts_with(b"-- ") || sql[i..] == *b"--" => {
                let end = line_end(sql, i);
                lossy(&sql[i..end], &mut out);
                i = end;
            }
            b'/' if sql[i..].starts_with(b"/*") => {
                let end = sql[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(sql.len(), |p| i + 4 + p);
                lossy(&sql[i..end], &mut out);
                i = end;
            }
            _ => {
                // Plain text up to the next character that may open a literal or comment.
                let end = sql[i + 1..]
                    .iter()
                    .position(|c| matches!(c, b'\'' | b'"' | b'`' | b'#' | b'-' | b'/'))
                    .map_or(sql.len(), |p| i + 1 + p);
                lossy(&sql[i..end], &mut out);
                i = end;
            }
        }
    }
    // Every piece written is UTF-8 (lossy text or hex digits); the fallback is never taken.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The position just past the literal opened by the quote at `start`, and whether it is
/// closed (an unclosed one runs to the end of the text).
fn literal_end(sql: &[u8], start: usize) -> (usize, bool) {
    let quote = sql[start];
    let mut i = start + 1;
    while i < sql.len() {
        match sql[i] {
            b'\\' => i += 2,
            c if c == quote => {
                if sql.get(i + 1) == Some(&quote) {
                    i += 2;
                } else {
                    return (i + 1, true);
                }
            }
            _ => i += 1,
        }
    }
    (sql.len(), false)
}

fn line_end(sql: &[u8], start: usize) -> usize {
    sql[start..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(sql.len(), |p| start + p)
}

/// The bytes a closed quoted literal (quotes included) denotes, with MySQL's escapes: `\0 \b \n
/// \r \t \Z` are control bytes, `\%` and `\_` keep their backslash (for LIKE), any other
/// escaped byte stands for itself, and a doubled quote is one quote.
fn unescape(raw: &[u8]) -> Vec<u8> {
    let quote = raw[0];
    let body = &raw[1..raw.len() - 1];
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'\\' if i + 1 < body.len() => {
                match body[i + 1] {
                    b'0' => out.push(0),
                    b'b' => out.push(8),
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'Z' => out.push(0x1A),
                    c @ (b'%' | b'_') => out.extend_from_slice(&[b'\\', c]),
                    c => out.push(c),
                }
                i += 2;
            }
            c if c == quote && body.get(i + 1) == Some(&quote) => {
                out.push(quote);
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn hex_literal(bytes: &[u8], out: &mut Vec<u8>) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    out.extend_from_slice(b"X'");
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize]);
        out.push(DIGITS[(b & 0x0F) as usize]);
    }
    out.push(b'\'');
}

fn lossy(bytes: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(String::from_utf8_lossy(bytes).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::statement_text;

    #[test]
    fn a_terminating_nul_is_left_out() {
        assert_eq!(statement_text(b"SELECT 1\0"), "SELECT 1");
        assert_eq!(statement_text(b"SELECT 1\0\0"), "SELECT 1");
        assert_eq!(statement_text(b"SELECT '\0'"), "SELECT '\0'");
        assert_eq!(statement_text(b"\0"), "");
    }

    #[test]
    fn valid_text_is_borrowed_unchanged() {
        let sql = "SELECT 'ÿ', \"a\\'b\" -- ü\n";
        assert!(matches!(
            statement_text(sql.as_bytes()),
            std::borrow::Cow::Borrowed(s) if s == sql
        ));
    }

    #[test]
    fn invalid_literals_become_hex_of_their_bytes() {
        let sql = b"INSERT INTO t VALUES (_binary'\xff\\0\\'\\\\\x80', 'ok', '\xfe''x')";
        assert_eq!(
            statement_text(sql),
            "INSERT INTO t VALUES (_binary X'FF00275C80', 'ok', X'FE2778')"
        );
    }

    #[test]
    fn every_byte_value_survives_the_escapes_pymysql_applies() {
        let all: Vec<u8> = (0..=255u8).collect();
        let mut sql = b"SELECT _binary".to_vec();
        sql.extend(crate::client::escaped_literal(&all));
        let text = statement_text(&sql).into_owned();
        let hex: String = all.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(text, format!("SELECT _binary X'{hex}'"));
    }

    proptest::proptest! {
        /// Any bytes give text without a panic; a single literal of any bytes, escaped
        /// as the C API escapes, becomes exactly the hex of those bytes when it is not
        /// UTF-8.
        #[test]
        fn any_bytes_are_read_and_literals_keep_their_bytes(
            noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
            value in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        ) {
            let _ = statement_text(&noise);
            let mut sql = b"SELECT '".to_vec();
            for &b in &value {
                match b {
                    0 => sql.extend_from_slice(b"\\0"),
                    b'\'' | b'\\' => sql.extend_from_slice(&[b'\\', b]),
                    _ => sql.push(b),
                }
            }
            sql.push(b'\'');
            let text = statement_text(&sql);
            if std::str::from_utf8(&value).is_err() {
                let hex: String = value.iter().map(|b| format!("{b:02X}")).collect();
                proptest::prop_assert_eq!(text.into_owned(), format!("SELECT X'{hex}'"));
            }
        }
    }

    #[test]
    fn invalid_bytes_outside_literals_are_replaced_not_rewritten() {
        assert_eq!(
            statement_text(b"SELECT 1 /* \xff */ # \xfe\n, `a\xffb`"),
            "SELECT 1 /* \u{FFFD} */ # \u{FFFD}\n, `a\u{FFFD}b`"
        );
        // An unclosed literal stays unclosed, for the parser to report.
        assert_eq!(statement_text(b"SELECT '\xff"), "SELECT '\u{FFFD}");
    }
}
