//! Where a query may assign a user variable (`@v := x`, see [`crate::expr::assign`]).
//!
//! An assignment runs each time its expression is evaluated, so its effect shows the order
//! rows are evaluated in. In a select list without ORDER BY, in WHERE and in a derived
//! table that order is MariaDB's. Elsewhere it is not: MariaDB sorts rows before it
//! evaluates the select list, evaluates a subquery per row, and computes GROUP BY, ORDER
//! BY, HAVING, aggregate and window arguments in orders of its own. There the query is
//! refused with 1235, never answered with other values.

use crate::error::SqlError;
use crate::expr::assign::{contains_assignment, refused};
use sqlparser::ast::{self, visit_expressions};
use std::ops::ControlFlow;

/// 1235 for an assignment where the order it runs in would differ from MariaDB's.
pub(super) fn refuse_misplaced(q: &ast::Query, select: &ast::Select) -> Result<(), SqlError> {
    if let ast::GroupByExpr::Expressions(keys, _) = &select.group_by {
        if contains_assignment(keys) {
            return Err(refused("GROUP BY"));
        }
    }
    if contains_assignment(&select.having) {
        return Err(refused("HAVING"));
    }
    if contains_assignment(&q.order_by) {
        return Err(refused("ORDER BY"));
    }
    if contains_assignment(&select.named_window) {
        return Err(refused("a window"));
    }
    let mut window = false;
    let mut in_aggregate = false;
    let _ = visit_expressions(&select.projection, |e| {
        if let ast::Expr::Function(f) = e {
            window |= f.over.is_some();
            let aggregate = f.over.is_some()
                || AGGREGATES.contains(&f.name.to_string().to_ascii_uppercase().as_str());
            in_aggregate |= aggregate && contains_assignment(&f.args);
        }
        ControlFlow::<()>::Continue(())
    });
    if in_aggregate {
        return Err(refused("an aggregate or window function's argument"));
    }
    if contains_assignment(&select.projection) {
        refuse_in_select_list(q, select, window)?;
    }
    refuse_in_joins(select)
}

/// An assigning select list: refused where its items are evaluated in another order or
/// more than once per row (sorted rows, windows, a HAVING or GROUP BY that names an
/// item, every row counted under SQL_CALC_FOUND_ROWS).
fn refuse_in_select_list(
    q: &ast::Query,
    select: &ast::Select,
    window: bool,
) -> Result<(), SqlError> {
    if q.order_by.is_some() {
        return Err(refused("the select list of a query with ORDER BY"));
    }
    if window {
        return Err(refused("the select list of a query with window functions"));
    }
    if select.having.is_some() {
        return Err(refused("the select list of a query with HAVING"));
    }
    if super::found_rows::calc_found_rows(select) {
        return Err(refused("the select list of a SQL_CALC_FOUND_ROWS query"));
    }
    // MariaDB evaluates the select list of the rows it sends only; rows an OFFSET skips,
    // and groups or duplicates past a LIMIT, may be computed here.
    let (limit, offset) = match &q.limit_clause {
        None => (false, false),
        Some(ast::LimitClause::OffsetCommaLimit { .. }) => (true, true),
        Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => {
            (limit.is_some(), offset.is_some())
        }
    };
    if offset {
        return Err(refused("the select list of a query with OFFSET"));
    }
    let grouped = !matches!(&select.group_by, ast::GroupByExpr::Expressions(k, _) if k.is_empty());
    if limit && (grouped || select.distinct.is_some()) {
        return Err(refused(
            "the select list of a query with LIMIT and GROUP BY or DISTINCT",
        ));
    }
    let ast::GroupByExpr::Expressions(keys, _) = &select.group_by else {
        return Ok(());
    };
    let assigning_aliases: Vec<&str> = select
        .projection
        .iter()
        .filter_map(|item| match item {
            ast::SelectItem::ExprWithAlias { expr, alias } if contains_assignment(expr) => {
                Some(alias.value.as_str())
            }
            _ => None,
        })
        .collect();
    let names_item = |key: &ast::Expr| match key {
        ast::Expr::Value(v) => matches!(v.value, ast::Value::Number(..)),
        ast::Expr::Identifier(id) => assigning_aliases
            .iter()
            .any(|a| a.eq_ignore_ascii_case(&id.value)),
        _ => false,
    };
    if keys.iter().any(names_item) {
        return Err(refused("a select item GROUP BY names"));
    }
    Ok(())
}

/// Assignments in a join's conditions, or in the WHERE of a query over several tables:
/// MariaDB evaluates each condition part at the table its join order reaches first, so
/// how many times it runs is its plan's.
fn refuse_in_joins(select: &ast::Select) -> Result<(), SqlError> {
    let tables: usize = select.from.iter().map(|t| 1 + t.joins.len()).sum();
    for join in select.from.iter().flat_map(|t| &t.joins) {
        if contains_assignment(&join.join_operator) {
            return Err(refused("a join condition"));
        }
    }
    if tables > 1 && contains_assignment(&select.selection) {
        return Err(refused("the WHERE of a join"));
    }
    Ok(())
}

/// The aggregate functions, whose arguments MariaDB evaluates as it groups.
const AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "MIN",
    "MAX",
    "AVG",
    "GROUP_CONCAT",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
    "JSON_ARRAYAGG",
    "JSON_OBJECTAGG",
];
