//! GROUP_CONCAT's clauses compiled over the input row: `GROUP_CONCAT([DISTINCT] expr
//! [, expr ...] [ORDER BY x [ASC | DESC], ...] [SEPARATOR 'str'] [LIMIT [offset,] n])`.
//! The call stays whole in the aggregate list (see `aggregate_of`) until here.

use crate::error::SqlError;
use crate::expr::err_syntax;
use crate::expr::ColumnScope;
use crate::expr::Compiler;
use crate::expr::Expr;
use crate::plan::tables::GroupConcat;
use crate::value::Value;
use myriad_types::errors::{ER_BAD_FIELD_ERROR, ER_INVALID_GROUP_FUNC_USE};
use myriad_types::Collation;
use sqlparser::ast;
use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

/// GROUP_CONCAT's separator when none is given.
const DEFAULT_SEPARATOR: &[u8] = b",";

/// The clauses of the GROUP_CONCAT call `call`, compiled by `tc` over `scope`'s columns.
pub(super) fn compile(
    call: &ast::Expr,
    tc: &Compiler,
    scope: &ColumnScope,
) -> Result<GroupConcat, SqlError> {
    let ast::Expr::Function(f) = call else {
        return Err(err_syntax(&call.to_string()));
    };
    let ast::FunctionArguments::List(list) = &f.args else {
        return Err(err_syntax(&call.to_string()));
    };
    let mut args = Vec::new();
    for a in &list.args {
        match a {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => {
                refuse_nested_aggregate(x)?;
                args.push(tc.compile(x)?)
            }
            _ => return Err(err_syntax(&a.to_string())),
        }
    }
    if args.is_empty() {
        return Err(err_syntax(")"));
    }
    let collation_of = |e: &Expr| e.collation(&scope.collations);
    let arg_collations: Vec<Collation> = args.iter().map(|a| collation_of(a).collation).collect();
    // The result is a binary string when an argument is one, else in the collation of
    // the first string argument.
    let strings: Vec<Collation> = args
        .iter()
        .filter_map(|a| collation_of(a).string_collation())
        .collect();
    let collation = if strings.contains(&Collation::Binary) {
        Collation::Binary
    } else {
        strings.first().copied().unwrap_or_default()
    };
    // ORDER BY n sorts by the argument's value; the text shows a date or time with its
    // type's digits.
    let ordered_args = args.clone();
    let args = args.into_iter().map(|a| tc.text_operand(a)).collect();
    let mut spec = GroupConcat {
        args,
        arg_collations,
        order: Vec::new(),
        separator: DEFAULT_SEPARATOR.to_vec(),
        limit: None,
        collation,
    };
    for clause in &list.clauses {
        match clause {
            ast::FunctionArgumentClause::OrderBy(list) => {
                for o in list {
                    refuse_nested_aggregate(&o.expr)?;
                    let e = tc.sort_key(order_expr(&o.expr, &ordered_args, tc)?);
                    let c = collation_of(&e).collation;
                    let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
                    spec.order.push((e, desc, c));
                }
            }
            ast::FunctionArgumentClause::Separator(v) => {
                spec.separator = separator(&ast::Expr::Value(v.clone()), tc)?;
            }
            ast::FunctionArgumentClause::Limit(e) => spec.limit = Some(limit(e)?),
            other => return Err(err_syntax(&other.to_string())),
        }
    }
    Ok(spec)
}

/// An aggregate inside GROUP_CONCAT's argument: MariaDB's error 1111.
fn refuse_nested_aggregate(e: &ast::Expr) -> Result<(), SqlError> {
    let mut found = Vec::new();
    super::extract_aggregates(e, &mut found);
    if found.is_empty() {
        Ok(())
    } else {
        Err(SqlError::new(
            ER_INVALID_GROUP_FUNC_USE,
            "Invalid use of group function",
        ))
    }
}

/// An ORDER BY expression: a positive integer names an argument by position.
fn order_expr(e: &ast::Expr, args: &[Expr], tc: &Compiler) -> Result<Expr, SqlError> {
    if let ast::Expr::Value(v) = e {
        if let ast::Value::Number(n, _) = &v.value {
            return match n.parse::<usize>() {
                Ok(k) if (1..=args.len()).contains(&k) => Ok(args[k - 1].clone()),
                _ => Err(SqlError::new(
                    ER_BAD_FIELD_ERROR,
                    format!("Unknown column '{n}' in 'order clause'"),
                )),
            };
        }
    }
    tc.compile(e)
}

/// SEPARATOR's string: a string or hexadecimal literal.
fn separator(e: &ast::Expr, tc: &Compiler) -> Result<Vec<u8>, SqlError> {
    match tc.compile(e)? {
        Expr::Literal(Value::Bytes(b)) | Expr::HexLiteral(b) => Ok(b),
        _ => Err(err_syntax(&e.to_string())),
    }
}

/// LIMIT's (offset, row count): `n`, or `offset, n` (read as a pair).
fn limit(e: &ast::Expr) -> Result<(u64, u64), SqlError> {
    let number = |e: &ast::Expr| match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => n.parse::<u64>().ok(),
            _ => None,
        },
        _ => None,
    };
    let parsed = match e {
        ast::Expr::Tuple(pair) if pair.len() == 2 => number(&pair[0]).zip(number(&pair[1])),
        _ => number(e).map(|n| (0, n)),
    };
    parsed.ok_or_else(|| err_syntax(&e.to_string()))
}

/// MariaDB writes GROUP_CONCAT's clauses `[ORDER BY ...] [SEPARATOR s] [LIMIT [offset,]
/// n]`; sqlparser reads LIMIT before SEPARATOR, and one expression after LIMIT. In each
/// call, LIMIT's tokens move before SEPARATOR and `offset, n` becomes the pair
/// `(offset, n)`. A LIMIT written before SEPARATOR, a syntax error in MariaDB, is made
/// one here too.
pub(crate) fn reorder_clauses(tokens: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i < tokens.len() {
        if is_word(&tokens[i], "GROUP_CONCAT") {
            if let Some(open) = (i + 1..tokens.len()).find(|&j| !is_space(&tokens[j])) {
                if tokens[open].token == Token::LParen {
                    reorder_call(tokens, open);
                }
            }
        }
        i += 1;
    }
}

/// [`reorder_clauses`] for the call whose argument list opens at `open`.
fn reorder_call(tokens: &mut Vec<TokenWithSpan>, open: usize) {
    let (mut depth, mut separator, mut limit, mut close) = (0usize, None, None, None);
    for (j, t) in tokens.iter().enumerate().skip(open) {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    close = Some(j);
                    break;
                }
            }
            _ if depth == 1 && is_word(t, "SEPARATOR") => separator = Some(j),
            _ if depth == 1 && is_word(t, "LIMIT") => limit = Some(j),
            _ => {}
        }
    }
    let (Some(limit), Some(close)) = (limit, close) else {
        return;
    };
    let span = tokens[limit].span;
    let paren = |token: Token| TokenWithSpan { token, span };
    let mut clause: Vec<TokenWithSpan> = tokens[limit..close].to_vec();
    if clause.iter().any(|t| t.token == Token::Comma) {
        clause.insert(1, paren(Token::LParen));
        clause.push(paren(Token::RParen));
    }
    match separator {
        Some(s) if s < limit => {
            tokens.splice(limit..close, std::iter::empty());
            clause.push(paren(Token::Whitespace(Whitespace::Space)));
            tokens.splice(s..s, clause);
        }
        // LIMIT before SEPARATOR: a word sqlparser cannot read there.
        Some(s) => tokens[s].token = Token::make_word("SEPARATOR", Some('`')),
        None => {
            tokens.splice(limit..close, clause);
        }
    }
}

fn is_word(t: &TokenWithSpan, word: &str) -> bool {
    matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

fn is_space(t: &TokenWithSpan) -> bool {
    matches!(t.token, Token::Whitespace(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::tokenizer::Tokenizer;

    fn reordered(sql: &str) -> String {
        let dialect = crate::parser::dialect::MyriadDialect::default();
        let mut tokens = Tokenizer::new(&dialect, sql)
            .tokenize_with_location()
            .expect("tokens");
        reorder_clauses(&mut tokens);
        tokens.iter().map(|t| t.token.to_string()).collect()
    }

    #[test]
    fn limit_moves_before_separator_and_pairs_its_offset() {
        assert_eq!(
            reordered("SELECT GROUP_CONCAT(s ORDER BY s SEPARATOR '/' LIMIT 1, 2) FROM t"),
            "SELECT GROUP_CONCAT(s ORDER BY s LIMIT( 1, 2) SEPARATOR '/' ) FROM t"
        );
        assert_eq!(
            reordered("SELECT GROUP_CONCAT(s LIMIT 3) FROM t"),
            "SELECT GROUP_CONCAT(s LIMIT 3) FROM t"
        );
        // LIMIT before SEPARATOR stays a syntax error, as in MariaDB.
        assert!(
            reordered("SELECT GROUP_CONCAT(s LIMIT 3 SEPARATOR '/') FROM t")
                .contains("`SEPARATOR`")
        );
        // A LIMIT outside the call is left alone.
        assert_eq!(
            reordered("SELECT GROUP_CONCAT(s) FROM t LIMIT 1, 2"),
            "SELECT GROUP_CONCAT(s) FROM t LIMIT 1, 2"
        );
    }
}
