//! The clauses that describe a data file, for LOAD DATA INFILE (`crate::plan::load_data`)
//! and SELECT ... INTO OUTFILE (`crate::plan::select_into`): one parser for both.
//!
//! `[{CHARACTER SET | CHARSET} name] [{FIELDS | COLUMNS} [TERMINATED BY 's'] [[OPTIONALLY]
//! ENCLOSED BY 'c'] [ESCAPED BY 'c']] [LINES [STARTING BY 's'] [TERMINATED BY 's']]`.
//! An empty LINES TERMINATED BY means the field terminator, as in MariaDB. ENCLOSED BY and
//! ESCAPED BY take one byte; a longer string is kept aside, for the statement to answer
//! 1083 where MariaDB does (LOAD DATA at once, OUTFILE after it made the file).

use crate::error::SqlError;
use crate::parser::source::Cursor;

/// The FIELDS and LINES clauses.
#[derive(Debug, Clone, PartialEq)]
pub struct Format {
    pub field_end: Vec<u8>,
    pub enclosure: Option<u8>,
    /// OPTIONALLY ENCLOSED BY: SELECT ... INTO OUTFILE encloses only string values
    /// (LOAD DATA reads an enclosed field or a bare one either way).
    pub optionally: bool,
    pub escape: Option<u8>,
    /// ESCAPED BY was written: under sql_mode NO_BACKSLASH_ESCAPES the default `\` is no
    /// escape for OUTFILE, a written one is.
    pub escape_given: bool,
    pub line_end: Vec<u8>,
    pub line_start: Vec<u8>,
}

impl Default for Format {
    fn default() -> Format {
        Format {
            field_end: b"\t".to_vec(),
            enclosure: None,
            optionally: false,
            escape: Some(b'\\'),
            escape_given: false,
            line_end: b"\n".to_vec(),
            line_start: Vec::new(),
        }
    }
}

impl Format {
    /// Fixed-width rows: no field terminator and no enclosure.
    pub fn fixed_width(&self) -> bool {
        self.field_end.is_empty() && self.enclosure.is_none()
    }
}

/// The FIELDS and LINES clauses as parsed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Clauses {
    pub format: Format,
    /// Each ENCLOSED BY or ESCAPED BY string of more than one byte, as written (the
    /// format keeps no enclosure or escape for it).
    pub wide: Vec<String>,
}

/// The CHARACTER SET clause's name, lower-cased, if there is one.
pub(crate) fn character_set(c: &mut Cursor) -> Result<Option<String>, SqlError> {
    if c.eat_word("CHARACTER") {
        c.expect_word("SET")?;
    } else if !c.eat_word("CHARSET") {
        return Ok(None);
    }
    Ok(Some(c.name()?.to_ascii_lowercase()))
}

/// The FIELDS and LINES clauses, where they stand.
pub(crate) fn clauses(c: &mut Cursor) -> Result<Clauses, SqlError> {
    let mut clauses = Clauses::default();
    if c.eat_word("FIELDS") || c.eat_word("COLUMNS") {
        fields_clause(c, &mut clauses)?;
    }
    if c.eat_word("LINES") {
        lines_clause(c, &mut clauses.format)?;
    }
    let format = &mut clauses.format;
    if format.line_end.is_empty() {
        format.line_end = format.field_end.clone();
    }
    Ok(clauses)
}

/// MariaDB's 1083, for an ENCLOSED BY or ESCAPED BY longer than one character.
pub(crate) fn wrong_field_terminators() -> SqlError {
    SqlError::new(
        myriad_types::errors::ER_WRONG_FIELD_TERMINATORS,
        "Field separator argument is not what is expected; check the manual",
    )
}

/// One byte of ENCLOSED BY or ESCAPED BY ('' for none); a longer string is noted in `wide`.
fn one_byte(c: &mut Cursor, wide: &mut Vec<String>) -> Result<Option<u8>, SqlError> {
    let s = c.string()?;
    match s.as_bytes() {
        [] => Ok(None),
        [b] => Ok(Some(*b)),
        _ => {
            wide.push(s);
            Ok(None)
        }
    }
}

fn fields_clause(c: &mut Cursor, clauses: &mut Clauses) -> Result<(), SqlError> {
    let format = &mut clauses.format;
    let mut any = false;
    loop {
        if c.eat_word("TERMINATED") {
            c.expect_word("BY")?;
            format.field_end = c.string()?.into_bytes();
        } else if c.eat_word("OPTIONALLY") {
            c.expect_word("ENCLOSED")?;
            c.expect_word("BY")?;
            format.enclosure = one_byte(c, &mut clauses.wide)?;
            format.optionally = true;
        } else if c.eat_word("ENCLOSED") {
            c.expect_word("BY")?;
            format.enclosure = one_byte(c, &mut clauses.wide)?;
        } else if c.eat_word("ESCAPED") {
            c.expect_word("BY")?;
            format.escape = one_byte(c, &mut clauses.wide)?;
            format.escape_given = true;
        } else if any {
            return Ok(());
        } else {
            return Err(c.error());
        }
        any = true;
    }
}

fn lines_clause(c: &mut Cursor, format: &mut Format) -> Result<(), SqlError> {
    let mut any = false;
    loop {
        if c.eat_word("STARTING") {
            c.expect_word("BY")?;
            format.line_start = c.string()?.into_bytes();
        } else if c.eat_word("TERMINATED") {
            c.expect_word("BY")?;
            format.line_end = c.string()?.into_bytes();
        } else if any {
            return Ok(());
        } else {
            return Err(c.error());
        }
        any = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::source::{first_statement_tokens, SourceMap};

    fn parse(sql: &str) -> (Option<String>, Clauses, bool) {
        let tokens = first_statement_tokens(sql);
        let map = SourceMap::new(sql);
        let mut c = Cursor {
            tokens: &tokens,
            pos: 0,
            map: &map,
            text: 0..sql.len(),
        };
        let charset = character_set(&mut c).unwrap();
        let clauses = clauses(&mut c).unwrap();
        (charset, clauses, c.at_end())
    }

    #[test]
    fn defaults_and_every_option() {
        let (charset, clauses, end) = parse("x");
        assert_eq!(
            (charset, clauses.format, end),
            (None, Format::default(), false)
        );
        let (charset, clauses, end) = parse(
            "CHARACTER SET Binary FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' \
             ESCAPED BY '!' LINES STARTING BY '>' TERMINATED BY '\\r\\n'",
        );
        assert!(end);
        assert_eq!(charset.as_deref(), Some("binary"));
        assert_eq!(
            clauses.format,
            Format {
                field_end: b",".to_vec(),
                enclosure: Some(b'"'),
                optionally: true,
                escape: Some(b'!'),
                escape_given: true,
                line_end: b"\r\n".to_vec(),
                line_start: b">".to_vec(),
            }
        );
        assert!(clauses.wide.is_empty());
    }

    #[test]
    fn an_empty_line_terminator_is_the_field_terminator_and_long_separators_are_kept_aside() {
        let (_, clauses, end) = parse(
            "CHARSET utf8mb4 COLUMNS TERMINATED BY ';' ENCLOSED BY 'ab' LINES TERMINATED BY ''",
        );
        assert!(end);
        assert_eq!(clauses.format.line_end, b";");
        assert_eq!(clauses.format.enclosure, None);
        assert_eq!(clauses.wide, ["ab"]);
        assert!(!clauses.format.fixed_width());
        let (_, clauses, _) = parse("FIELDS TERMINATED BY ''");
        assert!(clauses.format.fixed_width());
    }
}
