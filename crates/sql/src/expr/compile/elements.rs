//! ENUM and SET values in expressions: a column of either type compiles to
//! [`Expr::Elements`], its text, which numeric contexts (see [`crate::expr::hex`]), ORDER BY
//! and GROUP BY take as its number (position or bitmask); and FIND_IN_SET of a SET column
//! answers as MariaDB's does.

use crate::expr::{Collation, Compiler, Expr};
use crate::value::Value;

impl Compiler<'_> {
    /// The value of the row's column `i`: wrapped as [`Expr::Elements`] for an ENUM or SET
    /// column.
    pub(crate) fn column_ref(&self, i: usize) -> Expr {
        match self.scope.elements.get(i).cloned().flatten() {
            Some((list, set)) => Expr::Elements {
                expr: Box::new(Expr::Column(i)),
                list,
                set,
                number: false,
            },
            None => Expr::Column(i),
        }
    }

    /// An ORDER BY key: a value of an ENUM or SET column sorts by its number (a select
    /// item named by position or alias comes back as its bare column).
    pub(crate) fn sort_key(&self, e: Expr) -> Expr {
        let e = match e {
            Expr::Column(i) => self.column_ref(i),
            other => other,
        };
        match e {
            Expr::Elements { .. } => e.numeric(),
            other => other,
        }
    }
}

/// `FIND_IN_SET('name', s)` of a SET column `s` and a constant that is one of its
/// elements: as MariaDB computes it, the element's position in the column's list when `s`
/// holds it (else 0, and NULL for NULL), not its position in `s`'s text.
pub(super) fn set_member(args: &[Expr], collation: Collation) -> Option<Expr> {
    let [Expr::Literal(Value::Bytes(name)), set @ Expr::Elements {
        list, set: true, ..
    }] = args
    else {
        return None;
    };
    let position = myriad_storage::elements::find(list, collation, name)?;
    let bits = set.clone().numeric();
    Some(Expr::Case {
        operand: None,
        whens: vec![
            (
                Expr::IsNull {
                    expr: Box::new(set.clone()),
                    negated: false,
                },
                Expr::Literal(Value::Null),
            ),
            (
                Expr::Bit {
                    op: sqlparser::ast::BinaryOperator::BitwiseAnd,
                    left: Box::new(bits),
                    right: Box::new(Expr::Literal(Value::UInt(1 << position))),
                },
                Expr::Literal(Value::Int(position as i64 + 1)),
            ),
        ],
        otherwise: Some(Box::new(Expr::Literal(Value::Int(0)))),
        collation,
    })
}
