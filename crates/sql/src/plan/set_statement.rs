//! `SET STATEMENT var = value [, var = value ...] FOR statement`: the session variables a
//! statement runs with, and that statement's own tokens. The statement is compiled only
//! once the variables are set (`exec::set_statement`): what it means may depend on them
//! (sql_mode).

use crate::error::{err_syntax, SqlError};
use crate::expr::Compiler;
use crate::parser::source::{Cursor, RawStatement, SourceMap};
use crate::plan::statements::{assign_value, parse_set_target};
use crate::plan::{AssignTarget, Assignment, CompileCtx, SetScope};
use myriad_types::errors::{ER_SET_STATEMENT_NOT_SUPPORTED, ER_SUBQUERIES_NOT_SUPPORTED};
use sqlparser::tokenizer::{Token, TokenWithSpan};
use std::collections::HashMap;

/// Variables MariaDB refuses to set for one statement (error 1971): the connection's
/// character sets, autocommit, the isolation level, the timeouts and the query cache type.
const NOT_PER_STATEMENT: &[&str] = &[
    "autocommit",
    "character_set_client",
    "character_set_connection",
    "character_set_filesystem",
    "collation_connection",
    "interactive_timeout",
    "query_cache_type",
    "transaction_isolation",
    "tx_isolation",
    "wait_timeout",
];

/// A compiled `SET STATEMENT ... FOR`.
pub struct SetStatement {
    /// The assignments, each of a session variable.
    pub assignments: Vec<Assignment>,
    /// The statement after FOR, not compiled yet.
    pub inner: RawStatement,
}

fn is_word(t: &TokenWithSpan, word: &str) -> bool {
    matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// Whether a statement is `SET STATEMENT ... FOR ...` (`SET statement = 1` sets a
/// variable of that name).
pub fn is_set_statement(tokens: &[TokenWithSpan]) -> bool {
    tokens.first().is_some_and(|t| is_word(t, "SET"))
        && tokens.get(1).is_some_and(|t| is_word(t, "STATEMENT"))
        && !matches!(
            tokens.get(2).map(|t| &t.token),
            Some(Token::Eq | Token::Assignment)
        )
}

/// The position of the FOR that ends the assignments: the first at the top level.
fn for_position(tokens: &[TokenWithSpan]) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate() {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ if depth == 0 && is_word(t, "FOR") => return Some(i),
            _ => {}
        }
    }
    None
}

/// Compile the assignments of a SET STATEMENT and cut out the statement after FOR.
pub fn compile(
    raw: &RawStatement,
    map: &SourceMap,
    ctx: &CompileCtx,
) -> Result<SetStatement, SqlError> {
    let end = for_position(&raw.tokens).unwrap_or(raw.tokens.len());
    let no_placeholders = HashMap::new();
    let no_columns = crate::expr::ColumnScope::default();
    let compiler = Compiler {
        source: map.source(),
        scope: &no_columns,
        placeholders: &no_placeholders,
        pipes_as_concat: ctx.pipes_as_concat,
        ctx: Some(ctx),
        map: Some(map),
        lists: None,
        outer: None,
    };
    let for_at = raw.tokens.get(end).map_or(raw.text.end, |t| {
        map.offset(t.span.start.line, t.span.start.column)
    });
    let mut c = Cursor {
        tokens: &raw.tokens[..end],
        pos: 2,
        map,
        text: raw.text.clone(),
    };
    // A syntax error at the cut names the text from FOR on, as MariaDB does.
    let fail = |c: &Cursor| match c.pos >= end {
        true => err_syntax(map.source().get(for_at..raw.text.end).unwrap_or("")),
        false => c.error(),
    };
    // Of nested SET STATEMENTs only the innermost sets its variables (and refuses 1971's).
    let nested = is_set_statement(raw.tokens.get(end + 1..).unwrap_or_default());
    let mut assignments = Vec::new();
    loop {
        // Only a variable's plain name: no scope, no `@@`, no user variable.
        match c.peek().map(|t| &t.token) {
            Some(Token::Word(w)) if !w.value.starts_with('@') || w.quote_style.is_some() => {}
            _ => return Err(fail(&c)),
        }
        let scope_word = ["GLOBAL", "SESSION", "LOCAL"]
            .iter()
            .any(|word| c.peek().is_some_and(|t| is_word(t, word)));
        let assigned = matches!(
            c.tokens.get(c.pos + 1).map(|t| &t.token),
            Some(Token::Eq | Token::Assignment)
        );
        if scope_word && !assigned {
            c.pos += 1;
            return Err(fail(&c));
        }
        let target = parse_set_target(&mut c, SetScope::Session)?;
        if let AssignTarget::System { index, .. } = target {
            let name = crate::system::sysvars::def(index).name;
            if NOT_PER_STATEMENT.contains(&name) && !nested {
                return Err(SqlError::of(ER_SET_STATEMENT_NOT_SUPPORTED, &[&name]));
            }
        }
        if !(c.eat_token(&Token::Eq) || c.eat_token(&Token::Assignment)) {
            return Err(fail(&c));
        }
        let start = c.pos;
        let value = assign_value(&mut c, &compiler)?;
        if reads_tables(&c.tokens[start..c.pos]) {
            return Err(SqlError::of(
                ER_SUBQUERIES_NOT_SUPPORTED,
                &[&"SET STATEMENT"],
            ));
        }
        assignments.push(Assignment { target, value });
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    if !c.at_end() {
        return Err(fail(&c));
    }
    let inner_tokens = raw.tokens.get(end + 1..).unwrap_or_default();
    let Some(first) = inner_tokens.first() else {
        // FOR with nothing after it, or no FOR.
        return Err(match end < raw.tokens.len() {
            true => err_syntax(""),
            false => fail(&c),
        });
    };
    let start = map.offset(first.span.start.line, first.span.start.column);
    Ok(SetStatement {
        assignments,
        inner: RawStatement {
            tokens: inner_tokens.to_vec(),
            text: start..raw.text.end,
        },
    })
}

/// Whether a value holds a subquery over tables, which MariaDB refuses in SET STATEMENT
/// (1970); one without FROM is a constant.
fn reads_tables(tokens: &[TokenWithSpan]) -> bool {
    tokens.iter().any(|t| is_word(t, "SELECT")) && tokens.iter().any(|t| is_word(t, "FROM"))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::parser::source::first_statement_tokens as tokens;

    #[test]
    fn recognises_set_statement() {
        assert!(is_set_statement(&tokens("SET STATEMENT a=1 FOR SELECT 1")));
        assert!(is_set_statement(&tokens("set statement for select 1")));
        assert!(!is_set_statement(&tokens("SET statement = 1")));
        assert!(!is_set_statement(&tokens("SET sort_buffer_size = 1")));
        assert!(!is_set_statement(&tokens("SELECT 1")));
    }

    #[test]
    fn finds_the_top_level_for() {
        let t = tokens("SET STATEMENT a = (SELECT 1 FOR UPDATE) FOR SELECT 1");
        assert!(is_word(&t[for_position(&t).unwrap() + 1], "SELECT"));
        assert_eq!(for_position(&tokens("SET STATEMENT a = 1")), None);
    }
}
