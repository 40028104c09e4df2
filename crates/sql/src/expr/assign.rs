//! `@name := value`, the assignment of a user variable inside an expression.
//!
//! The assignment evaluates its value, keeps it in the session's user variable (as
//! `SET @name = value` would: a date or time as its text, with its type's fraction digits)
//! and yields it. It runs each time the expression is evaluated: once per row produced in
//! a select list (left to right, so that a later item reads what an earlier one assigned),
//! once per row examined in WHERE, once per row written in UPDATE's SET. Nothing that
//! assigns is folded to a constant ([`crate::expr::Env::assign_user_variable`] refuses
//! where there is no session), served from or kept in the query cache, or read by an
//! index lookup as a constant ([`assigns`]).
//!
//! Where MariaDB evaluates an assignment in an order or a number of times of its own plan
//! (ORDER BY, GROUP BY, HAVING, aggregate and window arguments, joins, subqueries, OFFSET,
//! LIMIT past grouping, UPDATE and DELETE with LIMIT), the statement is refused with 1235
//! (`plan::query::assignments`, `refuse_in_subquery`) rather than answered with other
//! values; in a view's definition it is MariaDB's 1351.

use crate::error::{err_syntax, SqlError};
use crate::expr::eval::{SqlType, SqlValue};
use crate::expr::*;
use sqlparser::ast::{self, visit_expressions, Visit};
use std::ops::ControlFlow;

impl Compiler<'_> {
    /// `target := value`: `target` must be a user variable (`@name`); anything else is a
    /// syntax error, as in MariaDB's grammar.
    pub(crate) fn assignment(
        &self,
        target: &ast::Expr,
        value: &ast::Expr,
    ) -> Result<Expr, SqlError> {
        let name = match target {
            ast::Expr::Identifier(id)
                if id.quote_style.is_none()
                    && id.value.starts_with('@')
                    && !id.value.starts_with("@@") =>
            {
                match self.identifier(None, id)? {
                    Expr::UserVar(name) => name,
                    _ => return Err(err_syntax(&format!(":= {value}"))),
                }
            }
            _ => return Err(err_syntax(&format!(":= {value}"))),
        };
        let value = self.compile(value)?;
        // A date or time is kept as its text with its type's digits.
        let value = match self.text_form(&value) {
            Some(TextForm::Temporal { .. }) => self.text_operand(value),
            _ => value,
        };
        Ok(Expr::AssignVar {
            name,
            value: Box::new(value),
        })
    }
}

/// The type of `@v := x` given x's: a user variable holds numbers and strings only, so a
/// date or time is a string of its text's length, and NULL a string (MariaDB: VARCHAR(0)).
pub(crate) fn value_type(ty: SqlType) -> SqlType {
    match ty {
        SqlType::Null | SqlType::Date | SqlType::DateTime { .. } | SqlType::Time { .. } => {
            SqlType::Str {
                chars: crate::expr::eval::display_chars(ty),
            }
        }
        other => other,
    }
}

/// Whether `e` assigns a user variable (outside its subqueries, which run apart).
pub fn assigns(e: &Expr) -> bool {
    matches!(e, Expr::AssignVar { .. }) || !e.all_operands(|x| !assigns(x))
}

/// Whether a condition that assigns can never hold because one of its top-level AND
/// operands is a constant that is not true (`NULL AND (@a := 1)`, `(@a := 1) AND 0`):
/// MariaDB finds such a WHERE impossible before it reads a row, so nothing in it runs.
pub(crate) fn never_holds(condition: &Expr) -> bool {
    fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        match e {
            Expr::And(l, r) => {
                conjuncts(l, out);
                conjuncts(r, out);
            }
            other => out.push(other),
        }
    }
    if !assigns(condition) {
        return false;
    }
    let mut all = Vec::new();
    conjuncts(condition, &mut all);
    all.into_iter().any(|c| {
        literal_only(c)
            && crate::expr::text::eval_const(c, &mut Vec::new())
                .is_some_and(|v| v.truth(&mut Vec::new()) != Some(true))
    })
}

/// Whether `e` is built of literals by operators alone (no columns, variables,
/// parameters, functions or subqueries).
fn literal_only(e: &Expr) -> bool {
    match e {
        Expr::Literal(_) | Expr::HexLiteral(_) => true,
        Expr::Column(_)
        | Expr::Outer(_)
        | Expr::Param(_)
        | Expr::SysVar { .. }
        | Expr::UserVar(_)
        | Expr::AssignVar { .. }
        | Expr::Call { .. }
        | Expr::Subquery(_)
        | Expr::InSubquery { .. }
        | Expr::Exists { .. }
        | Expr::RowSubquery { .. } => false,
        other => other.all_operands(literal_only),
    }
}

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

/// 1235 for an assignment at `place`.
pub(crate) fn refused(place: &str) -> SqlError {
    SqlError::not_supported(&format!("assigning a user variable (:=) in {place}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    #[test]
    fn a_temporal_value_is_typed_as_its_text() {
        assert_eq!(value_type(SqlType::Date), SqlType::Str { chars: 10 });
        assert_eq!(
            value_type(SqlType::DateTime { fsp: 3 }),
            SqlType::Str { chars: 23 }
        );
        assert_eq!(value_type(SqlType::Null), SqlType::Str { chars: 0 });
        assert_eq!(SqlType::Double, value_type(SqlType::Double));
    }

    #[test]
    fn assignments_are_found_inside_operands() {
        let set = Expr::AssignVar {
            name: "a".into(),
            value: Box::new(Expr::Literal(Value::Int(1))),
        };
        let sum = Expr::Neg(Box::new(set));
        assert!(assigns(&sum));
        assert!(!assigns(&Expr::UserVar("a".into())));
    }

    #[test]
    fn a_constant_false_conjunct_makes_an_assigning_condition_impossible() {
        let set = || {
            Box::new(Expr::AssignVar {
                name: "a".into(),
                value: Box::new(Expr::Literal(Value::Int(1))),
            })
        };
        let null = || Box::new(Expr::Literal(Value::Null));
        assert!(never_holds(&Expr::And(null(), set())));
        assert!(never_holds(&Expr::And(set(), null())));
        assert!(!never_holds(&Expr::And(
            Box::new(Expr::Literal(Value::Int(1))),
            set()
        )));
        assert!(!never_holds(&Expr::And(null(), null())));
        assert!(!never_holds(&Expr::Or(null(), set())));
    }

    #[test]
    fn folding_never_assigns() {
        let set = Expr::AssignVar {
            name: "a".into(),
            value: Box::new(Expr::Literal(Value::Int(1))),
        };
        assert!(crate::expr::text::eval_const(&set, &mut Vec::new()).is_none());
    }
}
