//! SQL's prepared statements, read from their tokens: `PREPARE name FROM text`,
//! `EXECUTE name [USING expr, ...]`, `EXECUTE IMMEDIATE text [USING expr, ...]` and
//! `{DEALLOCATE | DROP} PREPARE name`. The text and the parameters are expressions,
//! evaluated when the statement runs (`exec::sql_prepared`).

use crate::error::SqlError;
use crate::expr::{ColumnScope, Compiler, Expr};
use crate::parser::source::{bare_word, Cursor, RawStatement, SourceMap};
use crate::plan::statements::compile_expr_tokens;
use crate::plan::CompileCtx;
use myriad_types::errors::ER_SUBQUERIES_NOT_SUPPORTED;
use sqlparser::tokenizer::{Token, TokenWithSpan};
use std::collections::HashMap;

/// One of SQL's prepared-statement statements, compiled.
#[derive(Debug, Clone)]
pub enum SqlPrepared {
    /// `PREPARE name FROM text`: the name as written, the text's expression.
    Prepare { name: String, text: Expr },
    /// `EXECUTE name [USING ...]`.
    Execute { name: String, using: Vec<Expr> },
    /// `EXECUTE IMMEDIATE text [USING ...]`.
    Immediate { text: Expr, using: Vec<Expr> },
    /// `DEALLOCATE PREPARE name` or `DROP PREPARE name`.
    Deallocate { name: String },
}

fn is_word(t: Option<&TokenWithSpan>, word: &str) -> bool {
    t.and_then(bare_word)
        .is_some_and(|w| w.eq_ignore_ascii_case(word))
}

/// Whether a statement is one of [`SqlPrepared`]'s forms (told by its first words only; a
/// malformed one is then a syntax error).
pub fn is_sql_prepared(tokens: &[TokenWithSpan]) -> bool {
    let first = tokens.first();
    is_word(first, "PREPARE")
        || is_word(first, "EXECUTE")
        || is_word(first, "DEALLOCATE")
        || (is_word(first, "DROP") && is_word(tokens.get(1), "PREPARE"))
}

/// Compile one of [`SqlPrepared`]'s forms.
pub fn compile(
    raw: &RawStatement,
    map: &SourceMap,
    ctx: &CompileCtx,
) -> Result<SqlPrepared, SqlError> {
    crate::depth::check_tokens(&raw.tokens)?;
    let no_placeholders = HashMap::new();
    let no_columns = ColumnScope::default();
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
    let mut c = Cursor {
        tokens: &raw.tokens,
        pos: 1,
        map,
        text: raw.text.clone(),
    };
    if is_word(raw.tokens.first(), "PREPARE") {
        let name = statement_name(&mut c)?;
        c.expect_word("FROM")?;
        let text = compile_expr_tokens(&raw.tokens[c.pos..], &compiler, &c)?;
        return Ok(SqlPrepared::Prepare { name, text });
    }
    if !is_word(raw.tokens.first(), "EXECUTE") {
        // DEALLOCATE PREPARE or DROP PREPARE.
        c.expect_word("PREPARE")?;
        let name = statement_name(&mut c)?;
        c.expect_end()?;
        return Ok(SqlPrepared::Deallocate { name });
    }
    if c.eat_word("IMMEDIATE") {
        let start = c.pos;
        let end = using_position(&raw.tokens[start..]).map_or(raw.tokens.len(), |at| start + at);
        if end == start {
            return Err(c.error());
        }
        let text = compile_expr_tokens(&raw.tokens[start..end], &compiler, &c)?;
        c.pos = end;
        let using = using_list(&mut c, &compiler)?;
        return Ok(SqlPrepared::Immediate { text, using });
    }
    let name = statement_name(&mut c)?;
    let using = using_list(&mut c, &compiler)?;
    Ok(SqlPrepared::Execute { name, using })
}

/// A statement's name: an identifier, quoted or not.
fn statement_name(c: &mut Cursor) -> Result<String, SqlError> {
    match c.peek().map(|t| &t.token) {
        Some(Token::Word(w)) => {
            c.pos += 1;
            Ok(w.value.clone())
        }
        _ => Err(c.error()),
    }
}

/// Where the USING of an EXECUTE IMMEDIATE starts: the first at parenthesis depth 0.
fn using_position(tokens: &[TokenWithSpan]) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate() {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ if depth == 0 && is_word(Some(t), "USING") => return Some(i),
            _ => {}
        }
    }
    None
}

/// `[USING expr, ...]` to the end of the statement. As in MariaDB, a parameter may not
/// hold a subquery (1970).
fn using_list(c: &mut Cursor, compiler: &Compiler) -> Result<Vec<Expr>, SqlError> {
    let mut using = Vec::new();
    if c.at_end() {
        return Ok(using);
    }
    c.expect_word("USING")?;
    loop {
        let tokens = c.until_comma();
        if tokens.iter().any(|t| is_word(Some(t), "SELECT")) {
            return Err(SqlError::of(
                ER_SUBQUERIES_NOT_SUPPORTED,
                &[&"EXECUTE..USING"],
            ));
        }
        if let [only] = tokens {
            if is_word(Some(only), "DEFAULT") || is_word(Some(only), "IGNORE") {
                return Err(SqlError::not_supported(
                    "DEFAULT or IGNORE as a parameter of EXECUTE",
                ));
            }
        }
        if tokens.is_empty() {
            return Err(c.error());
        }
        using.push(compile_expr_tokens(tokens, compiler, c)?);
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    c.expect_end()?;
    Ok(using)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::parser::source::first_statement_tokens as tokens;

    #[test]
    fn recognises_the_forms() {
        assert!(is_sql_prepared(&tokens("PREPARE s FROM 'SELECT 1'")));
        assert!(is_sql_prepared(&tokens("execute s using @a")));
        assert!(is_sql_prepared(&tokens("EXECUTE IMMEDIATE 'SELECT 1'")));
        assert!(is_sql_prepared(&tokens("deallocate prepare s")));
        assert!(is_sql_prepared(&tokens("DROP PREPARE s")));
        assert!(!is_sql_prepared(&tokens("DROP TABLE prepare")));
        assert!(!is_sql_prepared(&tokens("SELECT 1")));
        assert!(!is_sql_prepared(&tokens("`prepare`")));
    }

    #[test]
    fn finds_using_at_the_top_level() {
        let t = tokens("EXECUTE IMMEDIATE concat('a', (b using c)) USING 1");
        assert_eq!(using_position(&t[2..]), Some(10));
        assert_eq!(using_position(&tokens("EXECUTE IMMEDIATE 'x'")[2..]), None);
    }
}
