//! Where a query may assign a user variable (`@v := x`, see [`crate::expr::assign`]).
//!
//! An assignment runs each time its expression is evaluated, so its effect shows the order
//! rows are evaluated in. In a select list without ORDER BY, in WHERE and in a derived
//! table that order is MariaDB's. Elsewhere it is not: MariaDB sorts rows before it
//! evaluates the select list, evaluates a subquery per row, and computes GROUP BY, ORDER
//! BY, HAVING, aggregate and window arguments in orders of its own. There the query is
//! refused with 1235, never answered with other values.

use crate::error::SqlError;
use sqlparser::ast::{self, visit_expressions, Visit};
use std::ops::ControlFlow;

/// Whether `node` holds an assignment anywhere, its subqueries included.
pub(crate) fn contains_assignment<V: Visit>(node: &V) -> bool {
    visit_expressions(node, |e| match e {
        ast::Expr::BinaryOp {
            op: ast::BinaryOperator::Assignment,
            ..
        } => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// 1235 for an assignment in a subquery expression (MariaDB evaluates one per row; its
/// result is kept here).
pub(crate) fn refuse_in_subquery(q: &ast::Query) -> Result<(), SqlError> {
    if contains_assignment(q) {
        return Err(refused("a subquery"));
    }
    Ok(())
}

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
        if q.order_by.is_some() {
            return Err(refused("the select list of a query with ORDER BY"));
        }
        if window {
            return Err(refused("the select list of a query with window functions"));
        }
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

fn refused(place: &str) -> SqlError {
    SqlError::not_supported(&format!("assigning a user variable (:=) in {place}"))
}
