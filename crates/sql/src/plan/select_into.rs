//! `SELECT ... INTO @a, @b`: a query whose one row goes into user variables.
//!
//! The INTO clause may stand after the select list or at the end of the statement, as in
//! MariaDB. It is taken out of the statement's tokens and the rest compiles as any query;
//! `crate::exec::select_into` runs it. `INTO OUTFILE` and `INTO DUMPFILE` answer 1235, and
//! a name without `@` (a stored program's variable) answers MariaDB's 1327.

use crate::error::SqlError;
use crate::expr::Compiler;
use crate::parser::source::{RawStatement, SourceMap};
use crate::plan::{CompileCtx, Stmt};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// A compiled `SELECT ... INTO`.
#[derive(Debug, Clone)]
pub struct SelectInto {
    pub query: Stmt,
    /// The user variables, lower-cased, without `@`.
    pub vars: Vec<String>,
    /// INTO came last, after FROM: MariaDB warns 1287 that this order is deprecated.
    pub trailing: bool,
}

/// Where the INTO of a SELECT starts among `tokens` (outside parentheses), if it has one.
pub(crate) fn into_at(tokens: &[TokenWithSpan]) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate() {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Word(w) if depth == 0 && w.value.eq_ignore_ascii_case("INTO") => return Some(i),
            _ => {}
        }
    }
    None
}

/// Compile a SELECT with an INTO clause.
pub(crate) fn compile(
    raw: &RawStatement,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    let at = into_at(&raw.tokens).expect("the caller found INTO");
    let mut vars = Vec::new();
    let mut end = at + 1;
    loop {
        let Some(Token::Word(w)) = raw.tokens.get(end).map(|t| &t.token) else {
            return Err(crate::expr::err_syntax("INTO"));
        };
        let upper = w.value.to_ascii_uppercase();
        if upper == "OUTFILE" || upper == "DUMPFILE" {
            return Err(SqlError::not_supported(&format!("SELECT ... INTO {upper}")));
        }
        let Some(name) = w.value.strip_prefix('@') else {
            return Err(SqlError::new(
                myriad_types::errors::ER_SP_UNDECLARED_VAR,
                format!("Undeclared variable: {}", w.value),
            ));
        };
        vars.push(name.trim_matches(['`', '\'', '"']).to_ascii_lowercase());
        end += 1;
        if raw.tokens.get(end).map(|t| &t.token) != Some(&Token::Comma) {
            break;
        }
        end += 1;
    }
    let trailing = end == raw.tokens.len()
        && raw.tokens[..at]
            .iter()
            .any(|t| matches!(&t.token, Token::Word(w) if w.value.eq_ignore_ascii_case("FROM")));
    let mut tokens = raw.tokens[..at].to_vec();
    tokens.extend_from_slice(&raw.tokens[end..]);
    let query = RawStatement {
        tokens,
        text: raw.text.clone(),
    };
    let stmt = crate::plan::from_ast::parse_with_sqlparser(&query, map, compiler, ctx)?;
    match stmt {
        Stmt::Select(_) | Stmt::SelectTable(_) => Ok(Stmt::SelectInto(Box::new(SelectInto {
            query: stmt,
            vars,
            trailing,
        }))),
        _ => Err(crate::expr::err_syntax("INTO")),
    }
}
