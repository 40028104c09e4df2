//! The rows of a SELECT ... INTO OUTFILE file, written as MariaDB writes them: the
//! inverse of [`crate::exec::load_fields`], with the same [`Format`].
//!
//! Each row is LINES STARTING BY, the fields separated by FIELDS TERMINATED BY, then LINES
//! TERMINATED BY. A field is its value's text (a number as the text protocol shows it, a
//! string's bytes as they are), enclosed in FIELDS ENCLOSED BY when there is one (only
//! string values with OPTIONALLY, never NULL). With an escape character (ESCAPED BY,
//! default `\`), NULL is the escape and `N`, and in a string the escape character, the
//! enclosure (in an enclosed field) or else the field terminator's first byte, the line
//! terminator's first byte and NUL are written after the escape character (NUL as `0`,
//! see [`crate::exec::load_fields::escaped_as`]); other bytes, tabs and newlines
//! included, are written as they are. Without one NULL is `NULL` and nothing is escaped.
//! Numbers are escaped only when the separator could be read as part of one.
//!
//! MariaDB's corner cases are kept: when the separator is one of the letters an escape
//! gives meaning to (`ntrb0ZN`), the separator is doubled instead of escaped; when the
//! field terminator's first byte is ambiguous (such a letter without an enclosure, or a
//! character of a number with numbers unenclosed), it is not escaped at all and warning
//! 1475 says so ([`Joiner::ambiguous`]). In a UTF-8 text value a multi-byte character is
//! never escaped, as MariaDB skips them; a binary value is escaped byte by byte.

use crate::exec::load_fields::escaped_as;
use crate::plan::file_format::Format;

/// The letters an escape character gives a meaning to.
const ESCAPE_CHARS: &[u8] = b"ntrb0ZN";
/// The characters of a number.
const NUMERIC_CHARS: &[u8] = b".0123456789e+-";

/// How a column's values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    /// A string (a date and a time are strings too): enclosed with OPTIONALLY, escaped.
    pub string: bool,
    /// UTF-8 text (not binary): its multi-byte characters are not escaped.
    pub utf8: bool,
    /// A column of LONGBLOB or LONGTEXT width: MariaDB's check for warning 1475 stops at
    /// the first one.
    pub long: bool,
}

/// Whether `set` holds `c`, as C's `strchr` tells it (NUL is in every set).
fn in_set(set: &[u8], c: Option<u8>) -> bool {
    c.is_some_and(|c| c == 0 || set.contains(&c))
}

/// Writes the rows of one result in one format.
pub struct Joiner {
    field_end: Vec<u8>,
    line_end: Vec<u8>,
    line_start: Vec<u8>,
    enclosure: Option<u8>,
    /// Only strings are enclosed.
    optionally: bool,
    escape: Option<u8>,
    field_term_char: Option<u8>,
    /// The enclosure, or without one the field terminator's first byte.
    field_sep_char: Option<u8>,
    line_sep_char: Option<u8>,
    ambiguous_field_sep: bool,
    unsafe_field_sep: bool,
    ambiguous_field_term: bool,
    kinds: Vec<Kind>,
}

impl Joiner {
    /// A writer of rows of columns `kinds` in `format`; `escape` is the escape character
    /// in use (see [`Format::escape_given`]).
    pub fn new(format: &Format, escape: Option<u8>, kinds: Vec<Kind>) -> Joiner {
        let field_term_char = format.field_end.first().copied();
        let field_sep_char = format.enclosure.or(field_term_char);
        // MariaDB: no field terminator encloses every field, no enclosure is "optional".
        let optionally =
            format.enclosure.is_none() || (format.optionally && !format.field_end.is_empty());
        let ambiguous_field_sep = in_set(ESCAPE_CHARS, field_sep_char);
        let unsafe_field_sep = in_set(NUMERIC_CHARS, field_sep_char);
        let before_long = kinds.iter().take_while(|k| !k.long);
        let (mut strings, mut numbers) = (false, false);
        for kind in before_long {
            strings |= kind.string;
            numbers |= !kind.string;
        }
        let ambiguous_field_term =
            (ambiguous_field_sep && format.enclosure.is_none() && (strings || unsafe_field_sep))
                || (optionally && numbers && in_set(NUMERIC_CHARS, field_term_char));
        Joiner {
            field_end: format.field_end.clone(),
            line_end: format.line_end.clone(),
            line_start: format.line_start.clone(),
            enclosure: format.enclosure,
            optionally,
            escape,
            field_term_char,
            field_sep_char,
            line_sep_char: format.line_end.first().copied(),
            ambiguous_field_sep,
            unsafe_field_sep,
            ambiguous_field_term,
            kinds,
        }
    }

    /// Whether the field terminator's first byte is left unescaped: MariaDB warns 1475.
    pub fn ambiguous(&self) -> bool {
        self.ambiguous_field_term
    }

    /// The start of a row.
    pub fn start_row(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.line_start);
    }

    /// The end of a row.
    pub fn end_row(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.line_end);
    }

    /// The value of column `column` (None for NULL), after its field terminator unless it
    /// is the first.
    pub fn field(&self, out: &mut Vec<u8>, column: usize, value: Option<&[u8]>) {
        if column > 0 {
            out.extend_from_slice(&self.field_end);
        }
        let kind = self.kinds.get(column).copied().unwrap_or(Kind {
            string: true,
            utf8: false,
            long: false,
        });
        let Some(value) = value else {
            match self.escape {
                Some(escape) => out.extend_from_slice(&[escape, b'N']),
                None => out.extend_from_slice(b"NULL"),
            }
            return;
        };
        let enclosure = self.enclosure.filter(|_| !self.optionally || kind.string);
        out.extend(enclosure);
        match self.escape {
            Some(escape) if kind.string || self.unsafe_field_sep => {
                self.escape_into(out, value, escape, enclosure.is_some(), kind.utf8)
            }
            _ => out.extend_from_slice(value),
        }
        out.extend(enclosure);
    }

    fn escape_into(&self, out: &mut Vec<u8>, value: &[u8], escape: u8, enclosed: bool, utf8: bool) {
        let mut i = 0;
        while i < value.len() {
            let b = value[i];
            if utf8 && b >= 0x80 {
                // A whole multi-byte character goes as it is; a stray byte is one byte.
                let len = utf8_char_len(&value[i..]);
                out.extend_from_slice(&value[i..i + len]);
                i += len;
                continue;
            }
            let separator = match enclosed {
                true => self.field_sep_char,
                false => self.field_term_char,
            };
            let special =
                b == escape || Some(b) == separator || Some(b) == self.line_sep_char || b == 0;
            let left_alone =
                !enclosed && self.ambiguous_field_term && Some(b) == self.field_term_char;
            if special && !left_alone {
                let doubled = Some(b) == self.field_sep_char && self.ambiguous_field_sep;
                out.push(if doubled { b } else { escape });
                out.push(escaped_as(b));
            } else {
                out.push(b);
            }
            i += 1;
        }
    }
}

/// The length of the UTF-8 character at the start of `bytes` (1 for a byte that starts
/// none).
fn utf8_char_len(bytes: &[u8]) -> usize {
    let len = match bytes[0] {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return 1,
    };
    match bytes.get(..len).map(std::str::from_utf8) {
        Some(Ok(_)) => len,
        _ => 1,
    }
}

/// `bytes` as UTF-8 with each byte that starts no character written as `?`, as MariaDB
/// converts a binary value for CHARACTER SET utf8mb4; whether any was replaced.
pub fn utf8_or_question_marks(bytes: &[u8], out: &mut Vec<u8>) -> bool {
    let mut replaced = false;
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.extend_from_slice(valid.as_bytes());
                return replaced;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.extend_from_slice(&rest[..good]);
                out.push(b'?');
                replaced = true;
                rest = &rest[good + 1..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRING: Kind = Kind {
        string: true,
        utf8: true,
        long: false,
    };
    const BINARY: Kind = Kind {
        string: true,
        utf8: false,
        long: false,
    };
    const NUMBER: Kind = Kind {
        string: false,
        utf8: false,
        long: false,
    };

    fn rows(format: &Format, kinds: &[Kind], rows: &[&[Option<&[u8]>]]) -> Vec<u8> {
        let joiner = Joiner::new(format, format.escape, kinds.to_vec());
        let mut out = Vec::new();
        for row in rows {
            joiner.start_row(&mut out);
            for (i, v) in row.iter().enumerate() {
                joiner.field(&mut out, i, *v);
            }
            joiner.end_row(&mut out);
        }
        out
    }

    fn csv() -> Format {
        Format {
            field_end: b",".to_vec(),
            enclosure: Some(b'"'),
            optionally: true,
            line_end: b"\r\n".to_vec(),
            line_start: b"S>".to_vec(),
            ..Format::default()
        }
    }

    #[test]
    fn defaults_escape_separators_and_write_null_as_backslash_n() {
        let got = rows(
            &Format::default(),
            &[NUMBER, STRING, STRING],
            &[
                &[Some(b"1"), Some(b"a\tb\nc\\d\"e"), None],
                &[Some(b"-2.50"), Some(b"x\0y"), Some(b"")],
            ],
        );
        assert_eq!(got, b"1\ta\\\tb\\\nc\\\\d\"e\t\\N\n-2.50\tx\\0y\t\n");
    }

    #[test]
    fn optionally_enclosed_encloses_strings_and_escapes_only_the_enclosure_inside() {
        let got = rows(
            &csv(),
            &[NUMBER, STRING, STRING],
            &[&[Some(b"1.5"), Some(b"a,\"b\"\r\n\\"), None]],
        );
        assert_eq!(got, b"S>1.5,\"a,\\\"b\\\"\\\r\n\\\\\",\\N\r\n");
        // Enclosed without OPTIONALLY: numbers too; without an escape NULL is NULL and the
        // enclosure stays as it is.
        let format = Format {
            optionally: false,
            escape: None,
            ..csv()
        };
        let got = rows(
            &format,
            &[NUMBER, STRING],
            &[&[Some(b"7"), Some(b"a\"b")], &[None, None]],
        );
        assert_eq!(got, b"S>\"7\",\"a\"b\"\r\nS>NULL,NULL\r\n");
    }

    #[test]
    fn letters_with_an_escape_meaning_are_doubled_or_left_alone() {
        // Terminated by 't' and lines by 'n': the 't' of a string is ambiguous and left
        // alone, the 'n' escaped.
        let format = Format {
            field_end: b"t".to_vec(),
            line_end: b"n".to_vec(),
            ..Format::default()
        };
        let joiner = Joiner::new(&format, Some(b'\\'), vec![STRING, STRING]);
        assert!(joiner.ambiguous());
        assert_eq!(
            rows(&format, &[STRING, STRING], &[&[Some(b"atb"), Some(b"xnx")]]),
            b"atbtx\\nxn"
        );
        // Enclosed by 'N': the enclosure is doubled.
        let format = Format {
            enclosure: Some(b'N'),
            ..Format::default()
        };
        assert_eq!(rows(&format, &[STRING], &[&[Some(b"aNb")]]), b"NaNNbN\n");
        // A numeric terminator escapes numbers too, but leaves its own character.
        let format = Format {
            field_end: b"e".to_vec(),
            ..Format::default()
        };
        let joiner = Joiner::new(&format, Some(b'\\'), vec![STRING, NUMBER]);
        assert!(joiner.ambiguous());
        assert_eq!(
            rows(
                &format,
                &[STRING, NUMBER],
                &[&[Some(b"1e5"), Some(b"1e+5")]]
            ),
            b"1e5e1e+5\n"
        );
        assert!(!Joiner::new(&Format::default(), Some(b'\\'), vec![STRING]).ambiguous());
    }

    #[test]
    fn multi_byte_characters_are_not_escaped_in_text_but_bytes_are_in_binary() {
        let format = Format {
            field_end: "§".as_bytes().to_vec(),
            ..Format::default()
        };
        let value: &[u8] = "a§b".as_bytes();
        assert_eq!(
            rows(&format, &[STRING], &[&[Some(value)]]),
            "a§b\n".as_bytes()
        );
        assert_eq!(
            rows(&format, &[BINARY], &[&[Some(value)]]),
            b"a\\\xC2\xA7b\n"
        );
    }

    #[test]
    fn every_byte_comes_back_through_load_data() {
        let all: Vec<u8> = (0..=255).collect();
        for format in [Format::default(), csv()] {
            let written = rows(&format, &[BINARY, NUMBER], &[&[Some(&all), None]]);
            let mut read = Vec::new();
            let mut splitter = crate::exec::load_fields::Splitter::new(format);
            let mut take = |fields| -> Result<(), ()> {
                read.push(fields);
                Ok(())
            };
            splitter.feed(&written, &mut take).unwrap();
            splitter.finish(&mut take).unwrap();
            assert_eq!(read, vec![vec![Some(all.clone()), None]]);
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_become_question_marks() {
        let mut out = Vec::new();
        assert!(!utf8_or_question_marks("é€".as_bytes(), &mut out));
        assert_eq!(out, "é€".as_bytes());
        out.clear();
        assert!(utf8_or_question_marks(b"a\x80\xC3\xA9\xFF\xC3", &mut out));
        assert_eq!(out, "a?é??".as_bytes());
    }
}
