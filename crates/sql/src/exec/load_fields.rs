//! The rows of a LOAD DATA file, read as MariaDB reads them.
//!
//! A file is lines ending in LINES TERMINATED BY (default `\n`), each starting after LINES
//! STARTING BY (default empty: a line without that prefix is skipped), of fields
//! separated by FIELDS TERMINATED BY (default `\t`). A field may be enclosed in FIELDS
//! ENCLOSED BY (default none): inside, a doubled enclosure or an escaped one is the
//! character itself, and separators are text. FIELDS ESCAPED BY (default `\`) before `0 b
//! n r t Z` gives NUL, backspace, newline, carriage return, tab and Ctrl-Z, before `N`
//! alone in a field gives NULL, and before any other character (a separator included)
//! that character. With an enclosure, an unenclosed `NULL` field is NULL too.
//!
//! SELECT ... INTO OUTFILE writes this format (`crate::exec::outfile_fields`), escaping
//! with [`escaped_as`].
//!
//! [`Splitter`] takes the file in pieces as they arrive (a LOCAL file comes in packets)
//! and hands out complete rows; the last line needs no terminator. Only the current
//! line's bytes are kept.

pub use crate::plan::file_format::Format;

/// One field: its bytes, or None for NULL.
pub type Field = Option<Vec<u8>>;

/// Cuts a file's bytes, given in pieces, into rows of fields.
pub struct Splitter {
    format: Format,
    pending: Vec<u8>,
}

impl Splitter {
    pub fn new(format: Format) -> Splitter {
        Splitter {
            format,
            pending: Vec::new(),
        }
    }

    /// Take the next piece of the file; `row` gets each row it completes.
    pub fn feed<E>(
        &mut self,
        bytes: &[u8],
        row: &mut dyn FnMut(Vec<Field>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.pending.extend_from_slice(bytes);
        let mut start = 0;
        while let Some((fields, used)) = self.next_row(&self.pending[start..], false) {
            start += used;
            if let Some(fields) = fields {
                row(fields)?;
            }
        }
        self.pending.drain(..start);
        Ok(())
    }

    /// The end of the file: the last line, if it had no terminator.
    pub fn finish<E>(&mut self, row: &mut dyn FnMut(Vec<Field>) -> Result<(), E>) -> Result<(), E> {
        let rest = std::mem::take(&mut self.pending);
        let mut start = 0;
        while start < rest.len() {
            let Some((fields, used)) = self.next_row(&rest[start..], true) else {
                break;
            };
            start += used;
            if let Some(fields) = fields {
                row(fields)?;
            }
        }
        Ok(())
    }

    /// The row at the start of `bytes` and the bytes it took, or None when its line is
    /// not complete yet (unless `at_end`). A row of None is a line skipped for want of
    /// LINES STARTING BY.
    fn next_row(&self, bytes: &[u8], at_end: bool) -> Option<(Option<Vec<Field>>, usize)> {
        let f = &self.format;
        let mut i = 0;
        if !f.line_start.is_empty() {
            match find(bytes, &f.line_start) {
                Some(at) => i = at + f.line_start.len(),
                None if at_end => return Some((None, bytes.len())),
                None => return None,
            }
        }
        let mut fields = Vec::new();
        loop {
            let (field, next, ended) = self.field(bytes, i, at_end)?;
            fields.push(field);
            i = next;
            if ended {
                return Some((Some(fields), i));
            }
        }
    }

    /// The field starting at `i`: its value, where the next one starts, and whether the
    /// line ended after it. None when the line is not complete yet.
    fn field(&self, bytes: &[u8], mut i: usize, at_end: bool) -> Option<(Field, usize, bool)> {
        let f = &self.format;
        let enclosed = f.enclosure.is_some() && bytes.get(i) == f.enclosure.as_ref();
        if enclosed {
            i += 1;
        }
        let mut value = Vec::new();
        let mut escaped_n = false;
        let mut raw_len = 0;
        loop {
            if i >= bytes.len() {
                // The end of the file ends the field and the line.
                return at_end.then(|| (self.value(value, escaped_n, raw_len, enclosed), i, true));
            }
            let b = bytes[i];
            if enclosed && Some(b) == f.enclosure {
                if bytes.get(i + 1) == f.enclosure.as_ref() {
                    value.push(b);
                    i += 2;
                    raw_len += 2;
                    continue;
                }
                if i + 1 >= bytes.len() && !at_end {
                    return None;
                }
                let after = i + 1;
                if let Some(end) = self.separator(bytes, after, at_end)? {
                    let (next, ended) = end;
                    return Some((Some(value), next, ended));
                }
                // An enclosure inside the field, not before a separator: text.
                value.push(b);
                i += 1;
                raw_len += 1;
                continue;
            }
            if !enclosed {
                if let Some((next, ended)) = self.separator(bytes, i, at_end)? {
                    return Some((self.value(value, escaped_n, raw_len, false), next, ended));
                }
            }
            if Some(b) == f.escape {
                let Some(&c) = bytes.get(i + 1) else {
                    if at_end {
                        value.push(b);
                        i += 1;
                        continue;
                    }
                    return None;
                };
                escaped_n = c == b'N' && raw_len == 0;
                value.push(unescape(c));
                i += 2;
                raw_len += 2;
                continue;
            }
            value.push(b);
            i += 1;
            raw_len += 1;
        }
    }

    /// Whether a field or line separator starts at `i`: where the next field starts and
    /// whether the line ended. Some(None): no separator there. None: cannot tell yet.
    fn separator(&self, bytes: &[u8], i: usize, at_end: bool) -> Option<Option<(usize, bool)>> {
        let f = &self.format;
        let rest = &bytes[i.min(bytes.len())..];
        if rest.is_empty() {
            return at_end.then_some(Some((i, true)));
        }
        for (sep, ends_line) in [(&f.line_end, true), (&f.field_end, false)] {
            if sep.is_empty() {
                continue;
            }
            if rest.starts_with(sep) {
                return Some(Some((i + sep.len(), ends_line)));
            }
            if !at_end && sep.starts_with(rest) {
                return None;
            }
        }
        Some(None)
    }

    /// A field's value: NULL for `\N` alone, and for an unenclosed `NULL` when fields
    /// may be enclosed.
    fn value(&self, value: Vec<u8>, escaped_n: bool, raw_len: usize, enclosed: bool) -> Field {
        if escaped_n && raw_len == 2 {
            return None;
        }
        if !enclosed && self.format.enclosure.is_some() && value == b"NULL" {
            return None;
        }
        Some(value)
    }
}

fn unescape(c: u8) -> u8 {
    match c {
        b'0' => 0,
        b'b' => 8,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'Z' => 26,
        other => other,
    }
}

/// The byte written after the escape character for `b` (by SELECT ... INTO OUTFILE): `0`
/// for NUL, else `b` itself, which `unescape` reads back unless it is one of the letters
/// an escape gives a meaning to.
pub fn escaped_as(b: u8) -> u8 {
    match b {
        0 => b'0',
        other => other,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(format: Format, pieces: &[&[u8]]) -> Vec<Vec<Field>> {
        let mut out = Vec::new();
        let mut s = Splitter::new(format);
        let mut push = |r: Vec<Field>| -> Result<(), ()> {
            out.push(r);
            Ok(())
        };
        for p in pieces {
            s.feed(p, &mut push).unwrap();
        }
        s.finish(&mut push).unwrap();
        out
    }

    fn f(s: &str) -> Field {
        Some(s.as_bytes().to_vec())
    }

    #[test]
    fn tabs_newlines_escapes_and_null() {
        let got = rows(Format::default(), &[b"1\ta\n2\t\\N\n3\tx\\ty\\\\\n\n4"]);
        assert_eq!(
            got,
            vec![
                vec![f("1"), f("a")],
                vec![f("2"), None],
                vec![f("3"), f("x\ty\\")],
                vec![f("")],
                vec![f("4")],
            ]
        );
    }

    #[test]
    fn pieces_split_anywhere_give_the_same_rows() {
        let text: &[u8] = b"1,\"a,b\",\"say \"\"hi\"\"\"\r\n2,NULL,\"NULL\"\r\n3,\\N,x\r\n";
        let format = Format {
            field_end: b",".to_vec(),
            enclosure: Some(b'"'),
            line_end: b"\r\n".to_vec(),
            ..Format::default()
        };
        let whole = rows(format.clone(), &[text]);
        assert_eq!(
            whole,
            vec![
                vec![f("1"), f("a,b"), f("say \"hi\"")],
                vec![f("2"), None, f("NULL")],
                vec![f("3"), None, f("x")],
            ]
        );
        for cut in 1..text.len() {
            let (a, b) = text.split_at(cut);
            assert_eq!(rows(format.clone(), &[a, b]), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(rows(format, &bytes), whole);
    }

    #[test]
    fn escaped_bytes_read_back_as_themselves() {
        for b in 0..=255u8 {
            if !b"0bnrtZ".contains(&b) {
                assert_eq!(unescape(escaped_as(b)), b, "byte {b}");
            }
        }
        assert_eq!(unescape(escaped_as(0)), 0);
    }

    #[test]
    fn lines_starting_by_skip_lines_without_the_prefix() {
        let format = Format {
            line_start: b"xxx".to_vec(),
            ..Format::default()
        };
        let got = rows(format, &[b"xxx1\ta\nnothing\nzzxxx2\tb\n"]);
        assert_eq!(got, vec![vec![f("1"), f("a")], vec![f("2"), f("b")]]);
    }
}
