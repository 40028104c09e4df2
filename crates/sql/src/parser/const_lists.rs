//! Long IN lists of literals skip sqlparser's syntax tree. A generator's
//! `WHERE k IN (1, 2, ..., 1000000)` became a million sqlparser expressions (a couple of
//! hundred bytes each) beside a copy of the statement's tokens for the parser, close to a
//! gigabyte for a 7.6 MB statement. Before sqlparser sees the tokens, each run
//! `IN ( literal, literal, ... )` of at least [`MIN_LIST_LEN`] plain literals (numbers,
//! optionally negated, single-quoted strings, NULL) is replaced by one placeholder token
//! that names the run; the compiler turns the run's tokens into constants one at a time,
//! through the same literal rules as any other literal ([`crate::expr::Compiler`]).
//!
//! Anything else inside the parentheses (an expression, a subquery, `_charset'...'`,
//! adjacent strings, a `?`) leaves the list to sqlparser as before.

use sqlparser::tokenizer::{Token, TokenWithSpan};
use std::ops::Range;

/// Lists shorter than this go through sqlparser: the saving only matters for long ones.
pub const MIN_LIST_LEN: usize = 64;

/// The text of a placeholder that stands for a list: `?` then a control character no
/// client's `?` can carry, then the list's index.
const MARK: &str = "?\u{1}";

/// The tokens of each list taken out of a statement, by index.
pub type ConstLists = Vec<Range<usize>>;

/// What the compiler needs to read the lists of one statement: its tokens and the ranges.
pub struct ListSource<'a> {
    pub tokens: &'a [TokenWithSpan],
    pub lists: ConstLists,
}

/// One literal of a list: its token and whether a `-` came before it.
pub struct Item<'a> {
    pub negative: bool,
    pub token: &'a TokenWithSpan,
}

/// The statement's tokens for sqlparser, with each long literal list replaced by a
/// placeholder, and the ranges of `tokens` the placeholders stand for.
pub fn extract(tokens: &[TokenWithSpan]) -> (Vec<TokenWithSpan>, ConstLists) {
    let mut out = Vec::with_capacity(tokens.len());
    let mut lists = ConstLists::new();
    let mut i = 0;
    while i < tokens.len() {
        let opens_list = matches!(&tokens[i].token, Token::Word(w)
                if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("IN"))
            && matches!(tokens.get(i + 1).map(|t| &t.token), Some(Token::LParen));
        if opens_list {
            if let Some((end, count)) = scan(tokens, i + 2) {
                if count >= MIN_LIST_LEN {
                    let range = i + 2..end;
                    let span = tokens[range.start].span.union(&tokens[range.end - 1].span);
                    out.push(tokens[i].clone());
                    out.push(tokens[i + 1].clone());
                    out.push(TokenWithSpan::new(
                        Token::Placeholder(format!("{MARK}{}", lists.len())),
                        span,
                    ));
                    out.push(tokens[end].clone());
                    lists.push(range);
                    i = end + 1;
                    continue;
                }
            }
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    (out, lists)
}

/// From `start` (just after `IN (`): the index of the closing parenthesis and the number
/// of literals, when everything up to it is `literal (, literal)*`.
fn scan(tokens: &[TokenWithSpan], start: usize) -> Option<(usize, usize)> {
    let mut i = start;
    let mut count = 0;
    loop {
        i += usize::from(matches!(tokens.get(i)?.token, Token::Minus));
        if !is_literal(&tokens.get(i)?.token) {
            return None;
        }
        count += 1;
        i += 1;
        match tokens.get(i)?.token {
            Token::Comma => i += 1,
            Token::RParen => return Some((i, count)),
            _ => return None,
        }
    }
}

fn is_literal(token: &Token) -> bool {
    match token {
        Token::Number(..) | Token::SingleQuotedString(_) => true,
        Token::Word(w) => w.quote_style.is_none() && w.value.eq_ignore_ascii_case("NULL"),
        _ => false,
    }
}

/// The list a placeholder stands for, if `placeholder` is one of ours.
pub fn list_index(placeholder: &str) -> Option<usize> {
    placeholder.strip_prefix(MARK)?.parse().ok()
}

/// The literals of a list's tokens, in order.
pub fn items(tokens: &[TokenWithSpan]) -> impl Iterator<Item = Item<'_>> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let negative = matches!(tokens.get(i)?.token, Token::Minus);
        i += usize::from(negative);
        let token = tokens.get(i)?;
        i += 2; // the literal and the comma after it
        Some(Item { negative, token })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::dialect::MyriadDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn tokens(sql: &str) -> Vec<TokenWithSpan> {
        Tokenizer::new(&MyriadDialect::default(), sql)
            .tokenize_with_location()
            .unwrap()
            .into_iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect()
    }

    fn list(n: usize, item: impl Fn(usize) -> String) -> String {
        (0..n).map(item).collect::<Vec<_>>().join(", ")
    }

    #[test]
    fn long_literal_lists_become_one_placeholder() {
        let sql = format!(
            "SELECT a FROM t WHERE a IN ({}) OR b NOT IN ({})",
            list(100, |i| format!("-{i}")),
            list(70, |i| if i == 3 {
                "NULL".into()
            } else {
                format!("'s{i}'")
            })
        );
        let all = tokens(&sql);
        let (out, lists) = extract(&all);
        assert_eq!(lists.len(), 2);
        assert_eq!(out.len(), all.len() - (100 * 3 - 1) - (70 * 2 - 1) + 2);
        let first: Vec<_> = items(&all[lists[0].clone()]).collect();
        assert_eq!(first.len(), 100);
        assert!(first.iter().all(|i| i.negative));
        assert_eq!(first[99].token.token, Token::Number("99".into(), false));
        let second: Vec<_> = items(&all[lists[1].clone()]).collect();
        assert_eq!(second.len(), 70);
        assert!(matches!(&second[3].token.token, Token::Word(w) if w.value == "NULL"));
        let marks: Vec<usize> = out
            .iter()
            .filter_map(|t| match &t.token {
                Token::Placeholder(p) => list_index(p),
                _ => None,
            })
            .collect();
        assert_eq!(marks, vec![0, 1]);
    }

    #[test]
    fn short_lists_and_anything_but_literals_stay() {
        for sql in [
            format!("SELECT 1 IN ({})", list(10, |i| i.to_string())),
            format!("SELECT 1 IN ({}, 1 + 1)", list(100, |i| i.to_string())),
            format!("SELECT 1 IN ({}, ?)", list(100, |i| i.to_string())),
            format!(
                "SELECT 'a' IN ({}, 'b' 'c')",
                list(100, |i| format!("'{i}'"))
            ),
            format!(
                "SELECT 'a' IN ({}, _latin1'b')",
                list(100, |i| format!("'{i}'"))
            ),
            format!("SELECT 1 IN ({}", list(100, |i| i.to_string())),
            "SELECT 1 IN (SELECT 1)".to_string(),
            "SELECT 1 IN (".to_string(),
        ] {
            let all = tokens(&sql);
            let (out, lists) = extract(&all);
            assert!(lists.is_empty(), "{sql}");
            assert_eq!(out, all, "{sql}");
        }
    }

    #[test]
    fn no_client_placeholder_is_taken_for_a_list() {
        assert_eq!(list_index("?"), None);
        assert_eq!(list_index("?1"), None);
        assert_eq!(list_index(&format!("{MARK}12")), Some(12));
    }
}
