//! `SELECT SQL_CALC_FOUND_ROWS`: its LIMIT becomes the plan's [`FoundRowsWindow`].

use crate::expr::Expr;
use crate::plan::FoundRowsWindow;
use sqlparser::ast;

/// Whether a SELECT says `SQL_CALC_FOUND_ROWS`.
pub(super) fn calc_found_rows(select: &ast::Select) -> bool {
    select
        .select_modifiers
        .as_ref()
        .is_some_and(|m| m.sql_calc_found_rows)
}

/// LIMIT and OFFSET of the query, and, under `SQL_CALC_FOUND_ROWS`, the window they make
/// instead (see [`FoundRowsWindow`]).
#[allow(clippy::type_complexity)]
pub(super) fn window(
    select: &ast::Select,
    (limit, offset): (Option<Expr>, Option<Expr>),
) -> (Option<Expr>, Option<Expr>, Option<Box<FoundRowsWindow>>) {
    if calc_found_rows(select) {
        (
            None,
            None,
            Some(Box::new(FoundRowsWindow { limit, offset })),
        )
    } else {
        (limit, offset, None)
    }
}
