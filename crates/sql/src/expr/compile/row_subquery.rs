//! Subqueries compared as rows: `(a, b) [NOT] IN (SELECT x, y ...)` and
//! `(a, b) op (SELECT x, y ...)` (see [`Expr::RowSubquery`]). The subquery must give as
//! many columns as the row has (1241 otherwise); a one-column subquery compared with a row
//! is a value, 4078, as in MariaDB.

use super::rows::{err_width, row_items};
use crate::error::SqlError;
use crate::expr::collation::comparison;
use crate::expr::*;
use myriad_types::errors::ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION;
use sqlparser::ast::{self, BinaryOperator};

impl Compiler<'_> {
    /// `expr [NOT] IN (subquery)`, `expr` a value or a row.
    pub(super) fn in_subquery(
        &self,
        expr: &ast::Expr,
        subquery: &ast::Query,
        negated: bool,
    ) -> Result<Expr, SqlError> {
        if subquery.limit_clause.is_some() || subquery.fetch.is_some() {
            // MariaDB's own answer.
            return Err(SqlError::not_supported("LIMIT & IN/ALL/ANY/SOME subquery"));
        }
        if let Some(row) = row_items(expr) {
            let query = self.expr_subquery(subquery)?;
            return self.row_against(&row, query, RowTest::In { negated }, "in");
        }
        let expr = self.compile(expr)?;
        let query = self.expr_subquery(subquery)?;
        let operands = [self.derived(&expr), query.first_column_collation()];
        Ok(Expr::InSubquery {
            expr: Box::new(expr),
            query,
            negated,
            collation: comparison(&operands, "in")?,
        })
    }

    /// `row op (subquery)`, `op` a comparison operator.
    pub(super) fn row_subquery_comparison(
        &self,
        row: &[ast::Expr],
        op: BinaryOperator,
        subquery: &ast::Expr,
    ) -> Result<Expr, SqlError> {
        let ast::Expr::Subquery(q) = subquery else {
            return Err(SqlError::not_supported("this row comparison"));
        };
        let test = RowTest::Compare(match op {
            BinaryOperator::Eq => CmpOp::Eq,
            BinaryOperator::NotEq => CmpOp::NotEq,
            BinaryOperator::Lt => CmpOp::Lt,
            BinaryOperator::LtEq => CmpOp::LtEq,
            BinaryOperator::Gt => CmpOp::Gt,
            BinaryOperator::GtEq => CmpOp::GtEq,
            BinaryOperator::Spaceship => CmpOp::NullSafeEq,
            _ => return Err(SqlError::not_supported("this row comparison")),
        });
        let query = self.expr_subquery(q)?;
        self.row_against(row, query, test, &op.to_string())
    }

    /// The row `row` tested against the rows of `query`.
    fn row_against(
        &self,
        row: &[ast::Expr],
        query: std::sync::Arc<dyn SubqueryPlan>,
        test: RowTest,
        op: &str,
    ) -> Result<Expr, SqlError> {
        let width = query.column_count();
        if width == 1 && matches!(test, RowTest::Compare(_)) {
            // A one-column subquery is a value (named as MariaDB names most).
            return Err(SqlError::of(
                ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION,
                &[&"row", &"int", &op],
            ));
        }
        if width != row.len() {
            return Err(err_width(row.len()));
        }
        let row: Vec<Expr> = row
            .iter()
            .map(|e| self.compile(e))
            .collect::<Result<_, _>>()?;
        let collations = row
            .iter()
            .zip(query.column_collations())
            .map(|(e, c)| comparison(&[self.derived(e), c], op))
            .collect::<Result<_, _>>()?;
        Ok(Expr::RowSubquery {
            row,
            query,
            test,
            collations,
        })
    }
}
