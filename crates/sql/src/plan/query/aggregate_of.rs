//! The aggregate calls of a query: which call is an aggregate, of what argument.

use crate::error::SqlError;
use crate::expr::{Collation, ColumnScope, Compiler, Expr};
use crate::plan::tables::AggKind;
use sqlparser::ast;
use std::borrow::Cow;

/// The aggregate `e` calls: its kind, argument and whether it is DISTINCT; None for any
/// other expression. The arguments of `COUNT(DISTINCT a, b, ...)` are one row
/// constructor; GROUP_CONCAT's argument is the whole call.
pub(crate) fn aggregate_of(e: &ast::Expr) -> Option<(AggKind, Option<Cow<'_, ast::Expr>>, bool)> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    if f.over.is_some() {
        // A window function, not an aggregate: compiling it as a call refuses it.
        return None;
    }
    let name = f.name.to_string().to_ascii_uppercase();
    let ast::FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let distinct = matches!(
        list.duplicate_treatment,
        Some(ast::DuplicateTreatment::Distinct)
    );
    if name == "GROUP_CONCAT" {
        // The whole call: its clauses are compiled with its arguments.
        return Some((AggKind::GroupConcat, Some(Cow::Borrowed(e)), distinct));
    }
    if !list.clauses.is_empty() {
        // ORDER BY, SEPARATOR or LIMIT inside another call: the expression compiler
        // refuses it with 1064, as MariaDB's parser does.
        return None;
    }
    let arg = match list.args.as_slice() {
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)] if name == "COUNT" => {
            return Some((AggKind::CountStar, None, false))
        }
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))] => Cow::Borrowed(x),
        // COUNT(DISTINCT a, b, ...): its arguments as one row.
        args if name == "COUNT" && distinct && args.len() > 1 => Cow::Owned(ast::Expr::Tuple(
            args.iter()
                .map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => Some(x.clone()),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        )),
        _ => return None,
    };
    let kind = match name.as_str() {
        "COUNT" => AggKind::Count,
        "SUM" => AggKind::Sum,
        "MIN" => AggKind::Min,
        "MAX" => AggKind::Max,
        "AVG" => AggKind::Avg,
        "STD" | "STDDEV" | "STDDEV_POP" => AggKind::Variance {
            sample: false,
            root: true,
        },
        "STDDEV_SAMP" => AggKind::Variance {
            sample: true,
            root: true,
        },
        "VARIANCE" | "VAR_POP" => AggKind::Variance {
            sample: false,
            root: false,
        },
        "VAR_SAMP" => AggKind::Variance {
            sample: true,
            root: false,
        },
        "BIT_AND" => AggKind::BitAnd,
        "BIT_OR" => AggKind::BitOr,
        "BIT_XOR" => AggKind::BitXor,
        _ => return None,
    };
    Some((kind, Some(arg), distinct))
}

/// The further arguments of `COUNT(DISTINCT a, b, ...)`, each with the collation its strings
/// compare under (see [`crate::plan::tables::Aggregate::more`]).
pub(crate) type MoreArgs = Vec<(Expr, Collation)>;

/// An aggregate's argument compiled with `tc` over the columns of `scope`; with it, the
/// further arguments of `COUNT(DISTINCT a, b, ...)`, each with the collation its strings
/// compare under.
pub(super) fn compile_args(
    arg: Option<&ast::Expr>,
    tc: &Compiler,
    scope: &ColumnScope,
) -> Result<(Option<Expr>, MoreArgs), SqlError> {
    let Some(ast::Expr::Tuple(items)) = arg else {
        return Ok((arg.map(|a| tc.compile(a)).transpose()?, Vec::new()));
    };
    let mut args = items
        .iter()
        .map(|a| tc.compile(a))
        .collect::<Result<Vec<_>, _>>()?;
    if args.iter().any(Expr::reads_outer) {
        // MariaDB aggregates such an argument in the enclosing query.
        return Err(SqlError::not_supported(
            "aggregate functions over columns of an enclosing query",
        ));
    }
    let first = args.remove(0);
    let more = args
        .into_iter()
        .map(|e| {
            let collation = e.collation(&scope.collations).collation;
            (e, collation)
        })
        .collect();
    Ok((Some(first), more))
}
