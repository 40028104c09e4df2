//! Long IN lists of plain literals found in the statement text, before it is tokenized.
//! [`crate::parser::const_lists`] keeps a long list out of sqlparser's syntax tree, but the
//! tokenizer had still made a token of every literal, comma and space of it (close to
//! 90 bytes each: 300 MB for `k IN (0, 3, ..., <a million numbers>)`). Here the text is
//! scanned first for `IN (` followed by at least [`MIN_LIST_LEN`] literals in their
//! simplest spelling (an integer or decimal number with an optional `-` right before it, a
//! single-quoted string without a quote or backslash inside, NULL), separated by commas and
//! whitespace. The text around such lists is tokenized piece by piece and each list becomes
//! one placeholder token; the compiler reads the list's constants from the text one at a
//! time ([`items`]).
//!
//! The scan only proposes: each piece of text before a list is tokenized by sqlparser, and
//! unless it ends in the tokens `IN` `(`, the whole statement is tokenized the ordinary way
//! (a list inside a comment or a string, or text the scan reads differently). A list with
//! anything else in it (an expression, an escaped string, `1e5`, a comment) is left to
//! the tokenizer and [`crate::parser::const_lists`], as before.

use crate::parser::dialect::MyriadDialect;
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Tokenizer};
use std::ops::Range;

pub use crate::parser::const_lists::MIN_LIST_LEN;

/// The text of a placeholder for a list found in the text: `?`, a control character no
/// client's `?` can carry (not the one of [`crate::parser::const_lists`]), the list's index.
const MARK: &str = "?\u{2}";

/// The list a placeholder stands for, if `placeholder` is one of ours.
pub fn list_index(placeholder: &str) -> Option<usize> {
    placeholder.strip_prefix(MARK)?.parse().ok()
}

/// A list found in the text: the range from its first literal to the end of its last,
/// and how many literals it has.
#[derive(Clone, Debug, PartialEq)]
pub struct List {
    pub text: Range<usize>,
    pub len: usize,
}

/// One literal of a list in the text.
#[derive(Debug, PartialEq)]
pub enum Literal<'a> {
    /// The digits (and point) of a number, without its sign.
    Number(&'a str),
    /// A string's content, between its quotes.
    Str(&'a str),
    Null,
}

/// One literal and whether a `-` came right before it.
#[derive(Debug, PartialEq)]
pub struct Item<'a> {
    pub negative: bool,
    pub literal: Literal<'a>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| is_space(c)) {
        i += 1;
    }
    i
}

/// Whether a literal may end before `b[i]`: whitespace, a comma or `)`.
fn ends_at(b: &[u8], i: usize) -> bool {
    b.get(i)
        .is_some_and(|&c| is_space(c) || c == b',' || c == b')')
}

/// The literal starting at `b[i]` and the offset just past it.
fn literal(b: &[u8], i: usize) -> Option<(Item<'_>, usize)> {
    let text = |r: Range<usize>| std::str::from_utf8(&b[r]).ok();
    let negative = b.get(i) == Some(&b'-');
    let start = i + usize::from(negative);
    let (literal, end) = match *b.get(start)? {
        b'0'..=b'9' => {
            let digits = |mut j: usize| {
                while b.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
                j
            };
            let mut end = digits(start);
            if b.get(end) == Some(&b'.') {
                let fraction = digits(end + 1);
                if fraction == end + 1 {
                    return None;
                }
                end = fraction;
            }
            (Literal::Number(text(start..end)?), end)
        }
        b'\'' if !negative => {
            let close = start + 1 + b[start + 1..].iter().position(|&c| c == b'\'')?;
            if b[start + 1..close].contains(&b'\\') || b.get(close + 1) == Some(&b'\'') {
                return None;
            }
            (Literal::Str(text(start + 1..close)?), close + 1)
        }
        b'n' | b'N' if !negative && b.get(start..start + 4)?.eq_ignore_ascii_case(b"NULL") => {
            (Literal::Null, start + 4)
        }
        _ => return None,
    };
    ends_at(b, end).then_some((Item { negative, literal }, end))
}

/// From just after `IN (`: the list, when the text up to the closing parenthesis is at
/// least [`MIN_LIST_LEN`] literals.
fn list_at(b: &[u8], start: usize) -> Option<List> {
    let first = skip_space(b, start);
    let mut i = first;
    let mut count = 0;
    loop {
        let (_, end) = literal(b, i)?;
        count += 1;
        i = skip_space(b, end);
        match *b.get(i)? {
            b',' => i = skip_space(b, i + 1),
            b')' => {
                return (count >= MIN_LIST_LEN).then_some(List {
                    text: first..end,
                    len: count,
                })
            }
            _ => return None,
        }
    }
}

/// The offset just past a quoted string or name opened at `b[i]` (the end of the text
/// if it is not closed); in strings a backslash escapes the next byte.
fn skip_quoted(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' if quote != b'`' => j += 2,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

fn skip_until(b: &[u8], i: usize, end: &[u8]) -> usize {
    b[i..]
        .windows(end.len())
        .position(|w| w == end)
        .map_or(b.len(), |p| i + p + end.len())
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// The long literal lists of `sql`, in text order. Strings, quoted names and comments are
/// skipped.
pub fn find(sql: &str) -> Vec<List> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' | b'`' => i = skip_quoted(b, i),
            b'#' => i = skip_until(b, i, b"\n"),
            b'-' if b.get(i + 1) == Some(&b'-') => i = skip_until(b, i, b"\n"),
            b'/' if b.get(i + 1) == Some(&b'*') => i = skip_until(b, i + 2, b"*/"),
            c if is_word_byte(c) => {
                let start = i;
                while b.get(i).copied().is_some_and(is_word_byte) {
                    i += 1;
                }
                let open = skip_space(b, i);
                if b[start..i].eq_ignore_ascii_case(b"IN") && b.get(open) == Some(&b'(') {
                    if let Some(list) = list_at(b, open + 1) {
                        i = list.text.end;
                        out.push(list);
                    }
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// The literals of `list` (one [`find`] gave) in `sql`, in order.
pub fn items<'a>(sql: &'a str, list: &List) -> impl Iterator<Item = Item<'a>> + 'a {
    let b = sql.as_bytes();
    let Range { start: mut i, end } = list.text;
    std::iter::from_fn(move || {
        if i >= end {
            return None;
        }
        let (item, end) = literal(b, i)?;
        i = skip_space(b, end);
        if b.get(i) == Some(&b',') {
            i = skip_space(b, i + 1);
        }
        Some(item)
    })
}

/// Line and column (in characters, from 1) of byte offsets met in increasing order.
struct Locator<'a> {
    text: &'a str,
    at: usize,
    line: u64,
    column: u64,
}

impl Locator<'_> {
    fn at(&mut self, offset: usize) -> Location {
        for c in self.text[self.at..offset].chars() {
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
        self.at = offset;
        Location::new(self.line, self.column)
    }
}

/// A location in a piece of text tokenized alone, moved to where the piece starts.
fn shift(loc: &mut Location, origin: Location) {
    if loc.line == 0 {
        return;
    }
    if loc.line == 1 {
        loc.column += origin.column - 1;
    }
    loc.line += origin.line - 1;
}

/// The tokens of `sql` with each list of `lists` (from [`find`]) as one placeholder, or
/// None where a piece does not tokenize or the text before a list does not end in `IN (`.
pub fn tokenize(sql: &str, lists: &[List]) -> Option<Vec<TokenWithSpan>> {
    let dialect = MyriadDialect::default();
    let mut tokens = Vec::new();
    let mut locator = Locator {
        text: sql,
        at: 0,
        line: 1,
        column: 1,
    };
    let mut from = 0;
    let rest = sql.len()..sql.len();
    let ranges = lists.iter().map(|l| &l.text).chain(std::iter::once(&rest));
    for (n, list) in ranges.enumerate() {
        let origin = locator.at(from);
        let piece_start = tokens.len();
        Tokenizer::new(&dialect, &sql[from..list.start])
            .tokenize_with_location_into_buf_with_mapper(&mut tokens, |mut t| {
                shift(&mut t.span.start, origin);
                shift(&mut t.span.end, origin);
                t
            })
            .ok()?;
        if n == lists.len() {
            break;
        }
        let mut last = tokens[piece_start..]
            .iter()
            .rev()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .map(|t| &t.token);
        let opens = matches!(last.next(), Some(Token::LParen))
            && matches!(last.next(), Some(Token::Word(w))
                if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("IN"));
        if !opens {
            return None;
        }
        let span = Span::new(locator.at(list.start), locator.at(list.end));
        tokens.push(TokenWithSpan::new(
            Token::Placeholder(format!("{MARK}{n}")),
            span,
        ));
        from = list.end;
    }
    Some(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ordinary(sql: &str) -> Result<Vec<TokenWithSpan>, String> {
        Tokenizer::new(&MyriadDialect::default(), sql)
            .tokenize_with_location()
            .map(|t| solid(&t))
            .map_err(|e| e.to_string())
    }

    fn solid(tokens: &[TokenWithSpan]) -> Vec<TokenWithSpan> {
        tokens
            .iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .cloned()
            .collect()
    }

    fn list(n: usize, item: impl Fn(usize) -> String) -> String {
        (0..n).map(item).collect::<Vec<_>>().join(", ")
    }

    /// An item as the ordinary path sees it: `-` and the literal's token.
    fn as_tokens(item: &Item) -> (bool, Token) {
        let token = match item.literal {
            Literal::Number(n) => Token::Number(n.to_string(), false),
            Literal::Str(s) => Token::SingleQuotedString(s.to_string()),
            Literal::Null => Token::make_word("NULL", None),
        };
        (item.negative, token)
    }

    /// The lists of `sql` are found, and the tokens with each placeholder spelled out as
    /// the list's literals and commas are the ordinary tokens, spans included.
    fn same_as_ordinary(sql: &str, lists: usize) {
        let found = find(sql);
        assert_eq!(found.len(), lists, "{sql}");
        let ours = solid(&tokenize(sql, &found).expect(sql));
        let all = ordinary(sql).unwrap();
        let (mut i, mut j) = (0, 0);
        while i < ours.len() {
            let Token::Placeholder(p) = &ours[i].token else {
                assert_eq!(ours[i], all[j], "{sql}");
                (i, j) = (i + 1, j + 1);
                continue;
            };
            let n = list_index(p).unwrap();
            let start = all[j].span.start;
            assert_eq!(items(sql, &found[n]).count(), found[n].len, "{sql}");
            for item in items(sql, &found[n]) {
                let (negative, token) = as_tokens(&item);
                if negative {
                    assert_eq!(all[j].token, Token::Minus, "{sql}");
                    j += 1;
                }
                let same = match (&all[j].token, &token) {
                    (Token::Word(a), Token::Word(b)) => a.value.eq_ignore_ascii_case(&b.value),
                    (a, b) => a == b,
                };
                assert!(same, "{sql}: {:?} {token:?}", all[j].token);
                j += 1;
                if all[j].token == Token::Comma {
                    j += 1;
                }
            }
            assert_eq!(ours[i].span, Span::new(start, all[j - 1].span.end), "{sql}");
            assert_eq!(all[j].token, Token::RParen, "{sql}");
            i += 1;
        }
        assert_eq!(j, all.len(), "{sql}");
    }

    #[test]
    fn lists_read_from_the_text_are_the_tokenizers_literals() {
        let numbers = list(100, |i| format!("{}{i}", if i % 3 == 0 { "-" } else { "" }));
        let mixed = list(80, |i| match i % 5 {
            0 => "NULL".into(),
            1 => "null".into(),
            2 => format!("'s{i} é ü'"),
            3 => format!("{i}.25"),
            _ => format!("-0.{i}"),
        });
        let spaced = list(70, |i| format!("\n\t{i} \r\n"));
        for (sql, lists) in [
            (format!("SELECT COUNT(*) FROM t WHERE k IN ({numbers})"), 1),
            (format!("SELECT 'é' IN ({mixed}) AS x FROM t"), 1),
            (
                format!("SELECT a\nFROM t WHERE a in (\n{spaced}\n) AND b NOT IN ({mixed});"),
                2,
            ),
            (
                format!("SELECT 1 IN({numbers}), 2 IN ( {numbers} ) ; SELECT 3 In ({numbers})"),
                3,
            ),
            (
                format!("SELECT `IN ({numbers})`, '\\' IN ({numbers})', 1 IN ({numbers})"),
                1,
            ),
            (
                format!("SELECT 1 /* IN ({numbers}) */ -- IN ({numbers})\n # IN ({numbers})\n"),
                0,
            ),
        ] {
            same_as_ordinary(&sql, lists);
        }
    }

    #[test]
    fn anything_but_plain_literals_is_left_to_the_tokenizer() {
        let numbers = list(100, |i| i.to_string());
        for sql in [
            format!("SELECT 1 IN ({})", list(10, |i| i.to_string())),
            format!("SELECT 1 IN ({numbers}, 1 + 1)"),
            format!("SELECT 1 IN ({numbers}, ?)"),
            format!("SELECT 1 IN ({numbers}, 'it''s')"),
            format!("SELECT 1 IN ({numbers}, 'it\\'s')"),
            format!("SELECT 1 IN ({numbers}, 'a' 'b')"),
            format!("SELECT 1 IN ({numbers}, _latin1'b')"),
            format!("SELECT 1 IN ({numbers}, 1e5)"),
            format!("SELECT 1 IN ({numbers}, 0x1F)"),
            format!("SELECT 1 IN ({numbers}, 1L)"),
            format!("SELECT 1 IN ({numbers}, 2abc)"),
            format!("SELECT 1 IN ({numbers}, - 5)"),
            format!("SELECT 1 IN ({numbers}, --5\n)"),
            format!("SELECT 1 IN ({numbers}, 5.)"),
            format!("SELECT 1 IN ({numbers}, NULLS)"),
            format!("SELECT 1 IN ({numbers} /* c */)"),
            format!("SELECT 1 IN ({numbers},, 2)"),
            format!("SELECT 1 IN ({numbers} 2)"),
            format!("SELECT 1 IN ({numbers}"),
            format!("SELECT 1 IN ({numbers},"),
            format!("SELECT x.INN ({numbers})"),
            format!("SELECT IN_ ({numbers})"),
            "SELECT 1 IN (SELECT 1)".to_string(),
        ] {
            assert_eq!(find(&sql), vec![], "{sql}");
        }
    }

    #[test]
    fn a_list_the_tokenizer_does_not_see_after_in_is_refused() {
        let numbers = list(100, |i| i.to_string());
        // The scan is told of lists inside a string and after a word that is not IN: the
        // tokens before them do not end in `IN (`, so the text is tokenized the usual way.
        let sql = format!("SELECT 'IN ({numbers})', 1");
        let start = sql.find('0').unwrap();
        let end = sql.find(')').unwrap();
        assert!(tokenize(
            &sql,
            &[List {
                text: start..end,
                len: 100
            }]
        )
        .is_none());
        let sql = format!("SELECT ON ({numbers})");
        let start = sql.find('0').unwrap();
        assert!(tokenize(
            &sql,
            &[List {
                text: start..sql.len() - 1,
                len: 100,
            }],
        )
        .is_none());
        // An unterminated string after a list: the piece after it does not tokenize.
        let sql = format!("SELECT 1 IN ({numbers}) 'open");
        assert_eq!(find(&sql).len(), 1);
        assert!(tokenize(&sql, &find(&sql)).is_none());
        assert!(ordinary(&sql).is_err());
    }
}
