//! Statement text: splitting at `;`, the map from offsets back to the source, and the
//! token cursor of the hand-written parsers.

use crate::error::err_syntax;
use crate::error::SqlError;
use crate::parser::dialect::MyriadDialect;

use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

/// One statement's tokens (whitespace and comments removed) and its place in the text.
pub struct RawStatement {
    pub tokens: Vec<TokenWithSpan>,
    /// Byte range of the statement in the source text.
    pub text: std::ops::Range<usize>,
}

/// Maps sqlparser's (line, column) locations to byte offsets.
pub struct SourceMap {
    pub(crate) line_starts: Vec<usize>,
    /// Per line: byte offsets of its characters when it is not plain ASCII (an ASCII
    /// line maps column n to byte n - 1 directly). Makes every lookup O(1), which matters
    /// for 512 KiB INSERT statements with hundreds of thousands of tokens on one line.
    pub(crate) char_offsets: Vec<Option<Vec<u32>>>,
    pub(crate) source: String,
    /// The long literal lists left out of the tokens (see
    /// [`crate::parser::text_lists`]), by the index their placeholder names.
    pub(crate) lists: Vec<crate::parser::text_lists::List>,
}

impl SourceMap {
    pub fn new(source: &str) -> SourceMap {
        let mut line_starts = vec![0];
        for (i, b) in source.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        let char_offsets = line_starts
            .iter()
            .enumerate()
            .map(|(n, &start)| {
                let end = line_starts.get(n + 1).copied().unwrap_or(source.len());
                let line = &source[start..end];
                (!line.is_ascii()).then(|| line.char_indices().map(|(i, _)| i as u32).collect())
            })
            .collect();
        SourceMap {
            line_starts,
            char_offsets,
            source: source.to_string(),
            lists: Vec::new(),
        }
    }

    /// Byte offset of a 1-based (line, column-in-chars) location.
    pub fn offset(&self, line: u64, column: u64) -> usize {
        if line == 0 {
            return 0;
        }
        let n = line as usize - 1;
        let Some(&start) = self.line_starts.get(n) else {
            return self.source.len();
        };
        let end = self
            .line_starts
            .get(n + 1)
            .copied()
            .unwrap_or(self.source.len());
        let col = column.saturating_sub(1) as usize;
        let within = match self.char_offsets.get(n).and_then(|o| o.as_ref()) {
            None => col,
            Some(offsets) => offsets.get(col).map(|&o| o as usize).unwrap_or(end - start),
        };
        (start + within).min(end).min(self.source.len())
    }

    pub fn source(&self) -> &str {
        &self.source
    }
}

/// Words after which SQL_CACHE / SQL_NO_CACHE are SELECT modifiers: SELECT and the other
/// modifiers.
pub(crate) const SELECT_MODIFIERS: &[&str] = &[
    "SELECT",
    "ALL",
    "DISTINCT",
    "DISTINCTROW",
    "HIGH_PRIORITY",
    "STRAIGHT_JOIN",
    "SQL_SMALL_RESULT",
    "SQL_BIG_RESULT",
    "SQL_BUFFER_RESULT",
    "SQL_CALC_FOUND_ROWS",
];

/// Tokenize and split at `;`. A trailing empty statement after the last `;` is dropped.
/// Long literal lists become one placeholder token each, their ranges kept in `map`.
pub fn split(sql: &str, map: &mut SourceMap) -> Result<Vec<RawStatement>, SqlError> {
    map.lists = crate::parser::text_lists::find(sql);
    let listed = match map.lists.is_empty() {
        true => None,
        false => crate::parser::text_lists::tokenize(sql, &map.lists),
    };
    let mut tokens = match listed {
        Some(tokens) => tokens,
        None => {
            map.lists.clear();
            Tokenizer::new(&MyriadDialect::default(), sql)
                .tokenize_with_location()
                .map_err(|e| err_syntax(&near_from_error(sql, map, &e.to_string())))?
        }
    };
    // The tokens each statement keeps are compacted to the front of the tokenizer's own
    // vector (no second vector of a long statement's tokens); `bounds` marks where each
    // statement's tokens end and its text.
    let mut kept = 0usize;
    let mut bounds: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    let mut start: Option<usize> = None;
    let mut end = 0usize;
    for i in 0..tokens.len() {
        let keep = match &tokens[i].token {
            Token::Whitespace(_) | Token::EOF => false,
            Token::SemiColon => {
                let s = start.unwrap_or(end);
                bounds.push((kept, s..end));
                start = None;
                false
            }
            // SQL_CACHE / SQL_NO_CACHE after SELECT steer the query cache (which reads them
            // from the text before parsing); sqlparser does not know them.
            Token::Word(w)
                if (w.value.eq_ignore_ascii_case("SQL_CACHE")
                    || w.value.eq_ignore_ascii_case("SQL_NO_CACHE"))
                    && kept > bounds.last().map_or(0, |b| b.0)
                    && matches!(&tokens[kept - 1].token, Token::Word(p) if SELECT_MODIFIERS.iter().any(|m| p.value.eq_ignore_ascii_case(m))) =>
            {
                false
            }
            _ => true,
        };
        if keep {
            let t = &tokens[i];
            let here = map.offset(t.span.start.line, t.span.start.column);
            start.get_or_insert(here);
            end = map.offset(t.span.end.line, t.span.end.column);
            tokens.swap(kept, i);
            kept += 1;
        }
    }
    let last_bound = bounds.last().map_or(0, |b| b.0);
    if kept > last_bound || bounds.is_empty() {
        let s = start.unwrap_or(end);
        bounds.push((kept, s..end));
    }
    tokens.truncate(kept);
    // Split from the last statement back: the first keeps the tokenizer's vector.
    let mut out = Vec::with_capacity(bounds.len());
    for i in (0..bounds.len()).rev() {
        let from = if i == 0 { 0 } else { bounds[i - 1].0 };
        let text = bounds[i].1.clone();
        let statement = if i == 0 {
            std::mem::take(&mut tokens)
        } else {
            tokens.split_off(from)
        };
        out.push(RawStatement {
            tokens: statement,
            text,
        });
    }
    out.reverse();
    Ok(out)
}

/// The byte offset named by sqlparser's "... at Line: L, Column: C".
pub(crate) fn error_offset(map: &SourceMap, message: &str) -> Option<usize> {
    let parse = |key: &str| -> Option<u64> {
        let at = message.rfind(key)? + key.len();
        message[at..]
            .trim_start()
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    Some(map.offset(parse("Line:")?, parse("Column:")?))
}

/// Turn sqlparser's error position into MySQL's "near '...'" text.
pub(crate) fn near_from_error(sql: &str, map: &SourceMap, message: &str) -> String {
    match error_offset(map, message) {
        Some(at) => sql.get(at..).unwrap_or("").to_string(),
        None => String::new(),
    }
}

/// An unquoted word as written (compare with `eq_ignore_ascii_case`: no copy).
pub(crate) fn bare_word(t: &TokenWithSpan) -> Option<&str> {
    match &t.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.as_str()),
        _ => None,
    }
}

pub(crate) fn word_upper(t: &TokenWithSpan) -> Option<String> {
    bare_word(t).map(str::to_ascii_uppercase)
}

/// A cursor over one statement's tokens for the hand-written front path.
pub(crate) struct Cursor<'a> {
    pub(crate) tokens: &'a [TokenWithSpan],
    pub(crate) pos: usize,
    pub(crate) map: &'a SourceMap,
    pub(crate) text: std::ops::Range<usize>,
}

impl<'a> Cursor<'a> {
    pub(crate) fn peek(&self) -> Option<&'a TokenWithSpan> {
        self.tokens.get(self.pos)
    }

    pub(crate) fn peek_word(&self) -> Option<String> {
        self.peek().and_then(word_upper)
    }

    pub(crate) fn peek_word_at(&self, ahead: usize) -> Option<String> {
        self.tokens.get(self.pos + ahead).and_then(word_upper)
    }

    pub(crate) fn eat_word(&mut self, w: &str) -> bool {
        if self
            .peek()
            .and_then(bare_word)
            .is_some_and(|x| x.eq_ignore_ascii_case(w))
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(crate) fn eat_token(&mut self, tok: &Token) -> bool {
        if self.peek().map(|t| &t.token) == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.tokens.len()
    }

    /// A syntax error pointing at the current token.
    pub(crate) fn error(&self) -> SqlError {
        let at = match self.peek() {
            Some(t) => self.map.offset(t.span.start.line, t.span.start.column),
            None => self.text.end,
        };
        err_syntax(self.map.source().get(at..self.text.end).unwrap_or(""))
    }

    pub(crate) fn expect_end(&self) -> Result<(), SqlError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    pub(crate) fn expect_word(&mut self, w: &str) -> Result<(), SqlError> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// An identifier or a quoted string used as a name.
    pub(crate) fn name(&mut self) -> Result<String, SqlError> {
        let t = self.peek().ok_or_else(|| self.error())?;
        let name = match &t.token {
            Token::Word(w) => w.value.clone(),
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s.clone(),
            _ => return Err(self.error()),
        };
        self.pos += 1;
        Ok(name)
    }

    pub(crate) fn string(&mut self) -> Result<String, SqlError> {
        match self.peek().map(|t| &t.token) {
            Some(Token::SingleQuotedString(s)) | Some(Token::DoubleQuotedString(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }

    /// A numeric literal (`5`, `2.5`).
    pub(crate) fn number(&mut self) -> Result<f64, SqlError> {
        match self.peek().map(|t| &t.token) {
            Some(Token::Number(text, _)) => {
                let value = text.parse::<f64>().map_err(|_| self.error())?;
                self.pos += 1;
                Ok(value)
            }
            _ => Err(self.error()),
        }
    }

    /// `[IF NOT] EXISTS` after IF.
    pub(crate) fn if_exists(&mut self, not: bool) -> Result<bool, SqlError> {
        if !self.eat_word("IF") {
            return Ok(false);
        }
        if not {
            self.expect_word("NOT")?;
        }
        self.expect_word("EXISTS")?;
        Ok(true)
    }

    /// The tokens up to the next comma at parenthesis depth 0 (not consumed).
    pub(crate) fn until_comma(&mut self) -> &'a [TokenWithSpan] {
        let start = self.pos;
        let mut depth = 0i32;
        while let Some(t) = self.tokens.get(self.pos) {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                Token::Comma if depth == 0 => break,
                _ => {}
            }
            self.pos += 1;
        }
        &self.tokens[start..self.pos]
    }
}

/// The tokens of the first statement of `sql`, for tests of the statement forms.
#[cfg(test)]
pub(crate) fn first_statement_tokens(sql: &str) -> Vec<TokenWithSpan> {
    let mut map = SourceMap::new(sql);
    split(sql, &mut map).unwrap().remove(0).tokens
}
