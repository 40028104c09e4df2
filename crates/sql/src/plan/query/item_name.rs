//! The names MariaDB gives unaliased select items: the expression's text as written, cut
//! at [`ITEM_NAME_MAX_BYTES`].

use crate::parser::source::SourceMap;
use sqlparser::ast::{self, Spanned};

/// The longest name MariaDB gives an unaliased column, in bytes: a longer text is cut at
/// the last character that fits.
pub(crate) const ITEM_NAME_MAX_BYTES: usize = 255;

/// MySQL names an unaliased column by the expression's text as written (at most
/// [`ITEM_NAME_MAX_BYTES`]), except that a string literal is named by its value.
pub(crate) fn item_name(e: &ast::Expr, map: &SourceMap) -> String {
    cut_item_name(item_text(e, map))
}

pub(crate) fn cut_item_name(mut name: String) -> String {
    if name.len() > ITEM_NAME_MAX_BYTES {
        let mut cut = ITEM_NAME_MAX_BYTES;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        name.truncate(cut);
    }
    name
}

pub(crate) fn item_text(e: &ast::Expr, map: &SourceMap) -> String {
    if let ast::Expr::Value(v) = e {
        match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                return s.clone()
            }
            ast::Value::Null => return "NULL".to_string(),
            _ => {}
        }
    }
    let span = e.span();
    if span.start.line == 0 {
        return e.to_string();
    }
    let source = map.source();
    let mut start = map.offset(span.start.line, span.start.column);
    let mut end = map.offset(span.end.line, span.end.column).max(start);
    // A scalar subquery's span may leave out its parentheses; its name has them.
    if matches!(e, ast::Expr::Subquery(_)) {
        let before = source[..start].trim_end();
        if before.ends_with('(') && !source[start..].starts_with('(') {
            start = before.len() - 1;
        }
    }
    // Spans of calls may stop before the closing parenthesis: extend to balance them.
    let bytes = source.as_bytes();
    let (mut depth, mut quote) = (0i32, None::<u8>);
    let mut i = start;
    while i < bytes.len() && (i < end || depth > 0 || quote.is_some()) {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' | b'`' => quote = Some(b),
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            },
        }
        i += 1;
    }
    end = end.max(i.min(bytes.len()));
    // A call's span may end at its name: take the argument list that follows.
    let after = source.get(end..).unwrap_or("").trim_start();
    if matches!(e, ast::Expr::Function(_)) && after.starts_with('(') {
        end = balanced_end(source, source.len() - after.len()).unwrap_or(end);
    }
    // A window function's name takes its OVER clause too.
    if matches!(e, ast::Expr::Function(f) if f.over.is_some()) {
        end = super::window::over_end(source, end);
    }
    let text = source
        .get(start..end.min(source.len()))
        .unwrap_or("")
        .trim_end();
    if text.is_empty() {
        e.to_string()
    } else {
        text.to_string()
    }
}

/// One past the parenthesis that closes the one at `open` (quotes skipped).
pub(crate) fn balanced_end(source: &str, open: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    for (k, &b) in bytes.get(open..)?.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' | b'`' => quote = Some(b),
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(open + k + 1);
                    }
                }
                _ => {}
            },
        }
    }
    None
}
