//! Correlated subqueries at compile time: a subquery's names that are not its own columns
//! resolve against the queries around it (see [`Expr::Outer`] and [`OuterScope`]).

use crate::error::SqlError;
use crate::expr::collation::Derivation;

use crate::expr::*;
use sqlparser::ast;
use std::sync::Arc;

impl Compiler<'_> {
    /// Compile a subquery: its names that are not its own columns may read this query's
    /// (a correlated subquery, see [`Expr::Outer`]).
    pub(crate) fn subquery(&self, q: &ast::Query) -> Result<Arc<dyn SubqueryPlan>, SqlError> {
        let Some(ctx) = self.ctx else {
            return Err(SqlError::not_supported("subqueries here"));
        };
        let empty = ColumnScope::default();
        let outer = OuterScope {
            scope: self.scope,
            captured: Default::default(),
            parent: self.outer,
        };
        let inner = Compiler {
            scope: &empty,
            outer: Some(&outer),
            ..*self
        };
        ctx.subquery(q, &inner)
    }

    /// [`Compiler::subquery`] for a subquery that is an expression (scalar, IN, EXISTS,
    /// a row's): one that assigns a user variable is refused (see
    /// `plan::query::assignments`).
    pub(crate) fn expr_subquery(&self, q: &ast::Query) -> Result<Arc<dyn SubqueryPlan>, SqlError> {
        crate::expr::assign::refuse_in_subquery(q)?;
        self.subquery(q)
    }
}

/// A name of a subquery that is a column of an enclosing query: that column as the
/// subquery's outer value (keeping the column's collation); None when no enclosing query
/// has such a column. A column of a query further out reaches the subquery as an outer
/// value of each query between.
pub(super) fn outer_column(
    outer: &OuterScope,
    table: Option<&str>,
    name: &str,
) -> Result<Option<Expr>, SqlError> {
    let position = match outer.scope.resolve(table, name) {
        Ok(position) => position,
        Err(e) if e.code != myriad_types::errors::ER_BAD_FIELD_ERROR.code => return Err(e),
        Err(_) => {
            let Some(parent) = outer.parent else {
                return Ok(None);
            };
            return Ok(outer_column(parent, table, name)?.map(|mut x| {
                let value = match &mut x {
                    Expr::Collate { expr, .. } => expr.as_mut(),
                    other => other,
                };
                if let Expr::Outer(n) = value {
                    *n = outer.capture(OuterSource::Outer(*n));
                }
                x
            }));
        }
    };
    let value = Expr::Outer(outer.capture(OuterSource::Column(position)));
    Ok(Some(match outer.scope.collations.get(position) {
        Some(None) => value,
        Some(Some(collation)) => Expr::Collate {
            expr: Box::new(value),
            collation: *collation,
            derivation: Derivation::Implicit,
        },
        None => Expr::Collate {
            expr: Box::new(value),
            collation: Collation::Utf8mb4GeneralCi,
            derivation: Derivation::Implicit,
        },
    }))
}
