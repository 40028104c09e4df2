//! Grouped queries without tables (`SELECT COUNT(*)`, `SELECT SUM(1) WHERE 0`,
//! `SELECT 1 HAVING 1`, `SELECT 1 GROUP BY 1`): MariaDB groups one row that has no
//! columns. Such a query is compiled as the same query over a derived table of one row,
//! whose one column no name written in a query reaches.

use crate::error::SqlError;
use crate::expr::Compiler;
use myriad_types::errors::ER_NO_TABLES_USED;
use sqlparser::ast;

/// The derived table's alias and its column's name.
const ONE_ROW: &str = "`\u{1}one row`";

/// The query over one row, for a query without tables that aggregates (`aggregates`),
/// groups or has HAVING; None for any other query.
pub(super) fn over_one_row(
    q: &ast::Query,
    select: &ast::Select,
    aggregates: bool,
    compiler: &Compiler,
) -> Result<Option<ast::Query>, SqlError> {
    let grouped = matches!(&select.group_by, ast::GroupByExpr::Expressions(list, _) if !list.is_empty())
        || matches!(select.group_by, ast::GroupByExpr::All(_));
    if !aggregates && !grouped && select.having.is_none() {
        return Ok(None);
    }
    if select.projection.iter().any(|item| {
        matches!(
            item,
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..)
        )
    }) {
        return Err(SqlError::new(ER_NO_TABLES_USED, "No tables used"));
    }
    let condition = select.selection.as_ref().map(|w| compiler.condition(w));
    if condition.transpose()?.is_some_and(|w| w.reads_outer()) {
        // MariaDB filters such a row before the enclosing query's row is known.
        return Err(SqlError::not_supported(
            "a WHERE that reads an enclosing query's columns in a grouped query without tables",
        ));
    }
    let from = crate::plan::union::parse_query(&format!(
        "SELECT 1 FROM (SELECT 1 AS {ONE_ROW}) AS {ONE_ROW}"
    ))?;
    let ast::SetExpr::Select(from) = *from.body else {
        return Err(SqlError::not_supported("this query without tables"));
    };
    let mut select = select.clone();
    select.from = from.from;
    let mut q = q.clone();
    q.body = Box::new(ast::SetExpr::Select(Box::new(select)));
    Ok(Some(q))
}
