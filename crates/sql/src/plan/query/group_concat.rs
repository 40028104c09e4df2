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
use myriad_types::errors::ER_BAD_FIELD_ERROR;
use myriad_types::Collation;
use sqlparser::ast;

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
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => args.push(tc.compile(x)?),
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
                    let e = order_expr(&o.expr, &spec.args, tc)?;
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
