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
    // A literal in parentheses is named by the literal alone, as in MariaDB.
    if let ast::Expr::Nested(inner) = e {
        if innermost_is_literal(inner) {
            return item_text(inner, map);
        }
    }
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
    // Some forms' spans leave out their leading keyword, operator or parenthesis (and
    // IS NULL its trailing words); the name has them.
    start = true_start(e, source, start);
    end = end.max(start);
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
    end = true_end(e, source, end);
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

/// Where `e`'s text begins when its span (beginning at `start`) leaves out what leads it:
/// `CAST(`, `CONVERT(`, `TRIM(`, `EXISTS(`, `SUBSTRING(`, `POSITION(`, `EXTRACT(`, a unary
/// operator, the parenthesis of a nested expression or scalar subquery, `DATE` of a typed
/// literal. Only text that is there moves it.
fn true_start(e: &ast::Expr, source: &str, start: usize) -> usize {
    use ast::Expr as E;
    let call = |keywords: &[&str], inner: usize| {
        back_over(source, back_over_paren(source, inner), keywords).unwrap_or(start)
    };
    match e {
        E::Cast { expr, .. } => call(&["CAST"], true_start(expr, source, start)),
        E::Convert { expr, .. } => call(&["CONVERT"], true_start(expr, source, start)),
        E::Trim { .. } => {
            let side = back_over(source, start, &["LEADING", "TRAILING", "BOTH"]);
            call(&["TRIM"], side.unwrap_or(start))
        }
        E::Exists { negated, .. } => {
            let exists = call(&["EXISTS"], start);
            match negated {
                true => back_over(source, exists, &["NOT"]).unwrap_or(exists),
                false => exists,
            }
        }
        E::BinaryOp { left, .. } => true_start(left, source, start),
        E::Substring { expr, .. } => call(
            &["SUBSTRING", "SUBSTR", "MID"],
            true_start(expr, source, start),
        ),
        E::Position { expr, .. } => call(&["POSITION"], true_start(expr, source, start)),
        E::Extract { .. } => call(&["EXTRACT"], start),
        E::Nested(inner) => {
            let inner = true_start(inner, source, start);
            let paren = back_over_paren(source, inner);
            if paren < inner {
                paren
            } else {
                start
            }
        }
        E::Subquery(_) => {
            let before = source[..start].trim_end();
            if before.ends_with('(') && !source[start..].starts_with('(') {
                before.len() - 1
            } else {
                start
            }
        }
        E::UnaryOp { op, expr } => {
            let inner = true_start(expr, source, start);
            let op = op.to_string();
            back_over(source, inner, &[op.as_str(), "!"]).unwrap_or(inner)
        }
        E::TypedString(_) => {
            back_over(source, start, &["DATE", "TIMESTAMP", "TIME", "DATETIME"]).unwrap_or(start)
        }
        E::IsNull(inner) | E::IsNotNull(inner) | E::IsTrue(inner) | E::IsFalse(inner) => {
            true_start(inner, source, start)
        }
        _ => start,
    }
}

/// Whether `e` is a literal, in parentheses or not.
fn innermost_is_literal(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Nested(inner) => innermost_is_literal(inner),
        ast::Expr::Value(_) => true,
        _ => false,
    }
}

/// Where `e`'s text ends when its span (ending at `end`) leaves out trailing words:
/// `IS [NOT] NULL | TRUE | FALSE`.
fn true_end(e: &ast::Expr, source: &str, end: usize) -> usize {
    use ast::Expr as E;
    let words: &[&str] = match e {
        E::IsNull(_) => &["IS", "NULL"],
        E::IsNotNull(_) => &["IS", "NOT", "NULL"],
        E::IsTrue(_) => &["IS", "TRUE"],
        E::IsFalse(_) => &["IS", "FALSE"],
        _ => return end,
    };
    let mut at = end;
    for word in words {
        let rest = source.get(at..).unwrap_or("");
        let skipped = rest.len() - rest.trim_start().len();
        let candidate = rest.trim_start();
        let matches = candidate.len() >= word.len()
            && candidate[..word.len()].eq_ignore_ascii_case(word)
            && !candidate[word.len()..]
                .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if !matches {
            return end;
        }
        at += skipped + word.len();
    }
    at
}

/// The position of the `(` just before `at` (spaces between), or `at` when there is none.
fn back_over_paren(source: &str, at: usize) -> usize {
    let before = source[..at].trim_end();
    if before.ends_with('(') {
        before.len() - 1
    } else {
        at
    }
}

/// The position of one of `words` (case-insensitive, a whole word) just before `at`
/// (spaces between); None when none is there.
fn back_over(source: &str, at: usize, words: &[&str]) -> Option<usize> {
    let before = source[..at].trim_end();
    words.iter().find_map(|word| {
        let from = before.len().checked_sub(word.len())?;
        let candidate = before.get(from..)?;
        let alone = !before[..from].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            || !word.starts_with(|c: char| c.is_ascii_alphanumeric());
        (candidate.eq_ignore_ascii_case(word) && alone).then_some(from)
    })
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
