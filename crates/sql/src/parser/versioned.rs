//! Executable comments, as MariaDB reads them: `/*! code */` is code; `/*!NNNNN code */`
//! and `/*M!NNNNNN code */` are code when the version number (five or six digits,
//! major·minor·patch as in 32301 = 3.23.1 or 100504 = 10.5.4) is at most the version myriad
//! reports ([`VERSION_ID`]), and plain comments otherwise. Dumps rely on this:
//! `/*!40101 SET NAMES utf8mb4 */` runs, `/*!999999 ... */` does not.
//!
//! [`apply`] rewrites a statement text before it is tokenized: the markers of a comment that
//! is code are removed (its text joins the statement), other comments stay as they are; a
//! text whose code comment is never closed stays as it is (an unterminated comment).
//! Quotes, `#` and `-- ` comments are skipped over, so markers inside them are left alone.

use std::borrow::Cow;

/// The version myriad reports (`crate::SERVER_VERSION`, 10.11.0) as MariaDB numbers it.
pub const VERSION_ID: u64 = 101_100;

/// `sql` with each executable comment that applies to this version turned into code.
pub fn apply(sql: &str) -> Cow<'_, str> {
    if !sql.contains("/*!") && !sql.contains("/*M!") {
        return Cow::Borrowed(sql);
    }
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0;
    let mut open_code_comments = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => i = after_quote(b, i, q),
            b'#' => i = line_end(b, i),
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                i = line_end(b, i)
            }
            b'*' if open_code_comments > 0 && b.get(i + 1) == Some(&b'/') => {
                out.push_str(&sql[copied..i]);
                i += 2;
                copied = i;
                open_code_comments -= 1;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let marker = match (b.get(i + 2), b.get(i + 3)) {
                    (Some(b'!'), _) => Some(3),
                    (Some(b'M'), Some(b'!')) => Some(4),
                    _ => None,
                };
                let Some(marker) = marker else {
                    i = comment_end(b, i + 2);
                    continue;
                };
                let digits_at = i + marker;
                let digits = b[digits_at..]
                    .iter()
                    .take(6)
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                // Five digits, or six when a sixth follows at once.
                let digits = if digits >= 6 { 6 } else { digits.min(5) };
                let version: u64 = sql[digits_at..digits_at + digits].parse().unwrap_or(0);
                if digits == 0 || version <= VERSION_ID {
                    out.push_str(&sql[copied..i]);
                    i = digits_at + digits;
                    copied = i;
                    open_code_comments += 1;
                } else {
                    i = comment_end(b, i + 2);
                }
            }
            _ => i += 1,
        }
    }
    if open_code_comments > 0 {
        // A code comment left open is an unterminated comment: the tokenizer refuses it
        // (1064), as MariaDB does.
        return Cow::Borrowed(sql);
    }
    out.push_str(&sql[copied..]);
    Cow::Owned(out)
}

/// The offset after the quote opened at `start` (a backslash escapes inside '' and "").
fn after_quote(b: &[u8], start: usize, q: u8) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        if b[i] == b'\\' && q != b'`' {
            i += 2;
            continue;
        }
        if b[i] == q {
            return i + 1;
        }
        i += 1;
    }
    b.len()
}

fn line_end(b: &[u8], start: usize) -> usize {
    b[start..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| start + p)
}

/// The offset after the `*/` that closes a comment whose text starts at `from`.
fn comment_end(b: &[u8], from: usize) -> usize {
    b[from..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(b.len(), |p| from + p + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_comments_apply_up_to_this_version() {
        assert_eq!(apply("select 1 /*!32301 +1 */"), "select 1  +1 ");
        assert_eq!(
            apply("select 1 /*!952301 +1 */"),
            "select 1 /*!952301 +1 */"
        );
        assert_eq!(apply("select 1 /*! +1 */"), "select 1  +1 ");
        assert_eq!(apply("select 1 /*M!100100 +1 */"), "select 1  +1 ");
        assert_eq!(
            apply("select 1 /*M!101200 +1 */"),
            "select 1 /*M!101200 +1 */"
        );
        assert_eq!(apply("select 1 /*!80000 +1 */"), "select 1  +1 ");
        assert_eq!(apply("select 1 /* plain */"), "select 1 /* plain */");
    }

    #[test]
    fn an_open_code_comment_stays_unterminated() {
        assert_eq!(apply("select 1 /*! +1"), "select 1 /*! +1");
        assert_eq!(
            apply("select 1 /*!1 +1 */ /*! 2"),
            "select 1 /*!1 +1 */ /*! 2"
        );
    }

    #[test]
    fn the_version_number_is_the_reported_version() {
        let mut parts = crate::SERVER_VERSION
            .split(['.', '-'])
            .map(|p| p.parse::<u64>().expect("a number"));
        let mut next = || parts.next().expect("three parts");
        assert_eq!(next() * 10_000 + next() * 100 + next(), VERSION_ID);
    }

    #[test]
    fn markers_in_quotes_and_comments_stay() {
        let text = "select '/*!1 x */', \"*/\" -- /*!2 y */\n# /*!3\n/*!40101 'a*/' */";
        assert_eq!(
            apply(text),
            "select '/*!1 x */', \"*/\" -- /*!2 y */\n# /*!3\n 'a*/' "
        );
    }
}
