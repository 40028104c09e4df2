//! Row constructors compared as rows: `(a, b) = (1, 2)`, `<>`, `<`, `<=`, `>`, `>=`, `<=>`
//! and `(a, b) [NOT] IN ((1, 2), (3, 4))`, each written out as comparisons of the rows'
//! values, which answer as MariaDB's row comparisons do, NULLs included:
//! - `=` is the AND of the pairs' equalities, `<=>` of their `<=>`, `<>` the NOT of `=`;
//! - `<` (and `<=`, `>`, `>=`) compare the first pair, and on equality the rest:
//!   `a < c OR (a = c AND (b < d))`, the last pair under the operator itself;
//! - `IN` is the OR of the list rows' equalities, `NOT IN` its NOT.
//!
//! A row of another width than its counterpart answers 1241; a row compared with a value
//! answers 4078, as in MariaDB.

use crate::error::SqlError;
use crate::expr::*;
use myriad_types::errors::{ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION, ER_OPERAND_COLUMNS};
use sqlparser::ast::{self, BinaryOperator};

/// The values of a row constructor (`(a, b)`), None for any other expression.
fn row_items(e: &ast::Expr) -> Option<&[ast::Expr]> {
    match e {
        ast::Expr::Tuple(items) => Some(items),
        ast::Expr::Nested(inner) => row_items(inner),
        _ => None,
    }
}

/// 1241: an operand of `width` columns was expected.
fn err_width(width: usize) -> SqlError {
    SqlError::new(
        ER_OPERAND_COLUMNS,
        format!("Operand should contain {width} column(s)"),
    )
}

/// 4078: a row compared with a value by `op`. The value's type is named as MariaDB names
/// a literal's (`int`, `varchar`); another expression is named by what it most often is.
fn err_row_and_value(row_left: bool, value: &ast::Expr, op: &str) -> SqlError {
    let value = match value {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) if n.contains(['.', 'e', 'E']) => "decimal",
            ast::Value::Number(..) => "int",
            ast::Value::Null => "null",
            _ => "varchar",
        },
        _ => "int",
    };
    let (l, r) = if row_left {
        ("row", value)
    } else {
        (value, "row")
    };
    SqlError::of(
        ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION,
        &[&l, &r, &op],
    )
}

/// Whether `op` compares its operands (`=`, `<>`, `<`, `<=`, `>`, `>=`, `<=>`).
pub(super) fn is_comparison(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
            | BinaryOperator::Spaceship
    )
}

fn binary(left: &ast::Expr, op: BinaryOperator, right: &ast::Expr) -> ast::Expr {
    ast::Expr::BinaryOp {
        left: Box::new(left.clone()),
        op,
        right: Box::new(right.clone()),
    }
}

fn and(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    }
}

fn or(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::Or,
        right: Box::new(b),
    }
}

fn not(e: ast::Expr) -> ast::Expr {
    ast::Expr::UnaryOp {
        op: ast::UnaryOperator::Not,
        expr: Box::new(ast::Expr::Nested(Box::new(e))),
    }
}

/// `l op r` for two rows of one width, written out (see the module doc); None for an
/// operator that does not compare.
fn rows_compared(l: &[ast::Expr], op: &BinaryOperator, r: &[ast::Expr]) -> Option<ast::Expr> {
    let pairs = || l.iter().zip(r);
    let all = |op: BinaryOperator| pairs().map(|(a, b)| binary(a, op.clone(), b)).reduce(and);
    match op {
        BinaryOperator::Eq => all(BinaryOperator::Eq),
        BinaryOperator::Spaceship => all(BinaryOperator::Spaceship),
        BinaryOperator::NotEq => all(BinaryOperator::Eq).map(not),
        BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq => {
            let strict = match op {
                BinaryOperator::Lt | BinaryOperator::LtEq => BinaryOperator::Lt,
                _ => BinaryOperator::Gt,
            };
            // From the last pair back: last `op`, then `a strict c OR (a = c AND rest)`.
            let mut rest: Option<ast::Expr> = None;
            for (a, b) in pairs().rev() {
                rest = Some(match rest {
                    None => binary(a, op.clone(), b),
                    Some(rest) => or(
                        binary(a, strict.clone(), b),
                        ast::Expr::Nested(Box::new(and(binary(a, BinaryOperator::Eq, b), rest))),
                    ),
                });
            }
            rest
        }
        _ => None,
    }
}

impl Compiler<'_> {
    /// A comparison with a row constructor on either side, written out; None when neither
    /// side is a row.
    pub(super) fn row_comparison(
        &self,
        left: &ast::Expr,
        op: &BinaryOperator,
        right: &ast::Expr,
    ) -> Option<Result<Expr, SqlError>> {
        let comparison = is_comparison(op);
        let subquery = |e: &ast::Expr| matches!(e, ast::Expr::Subquery(_));
        let (l, r) = match (row_items(left), row_items(right)) {
            (None, None) => return None,
            (Some(l), Some(r)) if comparison => (l, r),
            (Some(_), None) | (None, Some(_))
                if comparison && (subquery(left) || subquery(right)) =>
            {
                return Some(Err(SqlError::not_supported("row subqueries")));
            }
            // A row against a value, or in arithmetic, logic or string operators: 4078.
            (Some(_), _) => return Some(Err(err_row_and_value(true, right, &op.to_string()))),
            (None, Some(_)) => return Some(Err(err_row_and_value(false, left, &op.to_string()))),
        };
        if l.len() != r.len() {
            return Some(Err(err_width(l.len())));
        }
        let written = rows_compared(l, op, r)?;
        Some(self.compile(&ast::Expr::Nested(Box::new(written))))
    }

    /// `row [NOT] IN (row, ...)`, written out; None when `expr` is not a row.
    pub(super) fn row_in_list(
        &self,
        expr: &ast::Expr,
        list: &[ast::Expr],
        negated: bool,
    ) -> Option<Result<Expr, SqlError>> {
        let l = row_items(expr)?;
        let mut any: Option<ast::Expr> = None;
        for item in list {
            let r = match row_items(item) {
                Some(r) if r.len() == l.len() => r,
                Some(_) => return Some(Err(err_width(l.len()))),
                None => return Some(Err(err_row_and_value(true, item, "in"))),
            };
            let equal = rows_compared(l, &BinaryOperator::Eq, r)?;
            let equal = ast::Expr::Nested(Box::new(equal));
            any = Some(match any {
                None => equal,
                Some(any) => or(any, equal),
            });
        }
        let any = any?;
        let written = if negated { not(any) } else { any };
        Some(self.compile(&ast::Expr::Nested(Box::new(written))))
    }
}
