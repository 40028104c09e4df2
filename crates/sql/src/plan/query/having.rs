//! HAVING's names, and HAVING in a query that does not group.
//!
//! Outside aggregate calls, a name in HAVING must be a select item (its alias, or a
//! column the select list names as it is) or a column GROUP BY names; any other column
//! answers 1054 "Unknown column 'x' in 'HAVING'", as in MariaDB (`SELECT COUNT(*) FROM t
//! GROUP BY b HAVING a > 1`). A query with neither GROUP BY nor aggregates does not group
//! because of its HAVING: HAVING then keeps the rows it holds for, each on its own, as a
//! second WHERE that sees the select list's aliases.

use crate::error::SqlError;
use crate::expr::{Compiler, Expr};
use myriad_types::errors::ER_BAD_FIELD_ERROR;
use sqlparser::ast;

/// The name a select item or GROUP BY expression gives as a plain column, if it is one.
fn column_name(e: &ast::Expr) -> Option<&str> {
    match e {
        ast::Expr::Identifier(id) => Some(&id.value),
        ast::Expr::CompoundIdentifier(parts) => parts.last().map(|p| p.value.as_str()),
        ast::Expr::Nested(inner) => column_name(inner),
        _ => None,
    }
}

/// Names that read no column: variables, and the niladic functions written bare.
fn reads_no_column(name: &str) -> bool {
    name.starts_with('@') || crate::expr::func_names::niladic(name).is_some()
}

/// 1054 for the first name of HAVING that is neither a select item nor a GROUP BY column.
pub(super) fn check_names(select: &ast::Select) -> Result<(), SqlError> {
    let Some(having) = &select.having else {
        return Ok(());
    };
    let mut names: Vec<&str> = Vec::new();
    for item in &select.projection {
        match item {
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => return Ok(()),
            ast::SelectItem::ExprWithAlias { expr, alias } => {
                names.push(&alias.value);
                names.extend(column_name(expr));
            }
            ast::SelectItem::UnnamedExpr(e) => names.extend(column_name(e)),
            // Not MariaDB's syntax: the select list fails on its own.
            _ => return Ok(()),
        }
    }
    if let ast::GroupByExpr::Expressions(list, _) = &select.group_by {
        names.extend(list.iter().filter_map(column_name));
    }
    let mut unknown: Option<String> = None;
    visit_names(having, &mut |written, name| {
        let known = reads_no_column(name) || names.iter().any(|n| n.eq_ignore_ascii_case(name));
        if !known && unknown.is_none() {
            unknown = Some(written.to_string());
        }
    });
    match unknown {
        Some(name) => Err(SqlError::new(
            ER_BAD_FIELD_ERROR,
            format!("Unknown column '{name}' in 'HAVING'"),
        )),
        None => Ok(()),
    }
}

/// Call `f` with each column name of `e` (as written, and its last part) outside
/// aggregate calls and subqueries.
fn visit_names(e: &ast::Expr, f: &mut dyn FnMut(&str, &str)) {
    match e {
        ast::Expr::Identifier(id) => f(&id.value, &id.value),
        ast::Expr::CompoundIdentifier(parts) => {
            let written = parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join(".");
            if let Some(last) = parts.last() {
                f(&written, &last.value);
            }
        }
        _ if crate::plan::query::aggregate_of(e).is_some() => {}
        _ => {
            crate::plan::query::map_children(e, &mut |x| {
                visit_names(x, f);
                x.clone()
            });
        }
    }
}

/// WHERE and, in a query that does not group, HAVING (`having`, its aliases replaced by
/// their expressions): the condition each row must meet.
pub(super) fn row_filter(
    filter: Option<Expr>,
    having: Option<&ast::Expr>,
    tc: &Compiler,
) -> Result<Option<Expr>, SqlError> {
    let Some(having) = having else {
        return Ok(filter);
    };
    let having = tc.condition(having)?;
    Ok(Some(match filter {
        Some(f) => Expr::And(Box::new(f), Box::new(having)),
        None => having,
    }))
}
