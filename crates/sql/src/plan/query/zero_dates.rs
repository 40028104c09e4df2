//! `WHERE date_column IS NULL` on a DATE or DATETIME column declared NOT NULL also finds
//! the zero date, as in MariaDB (and MySQL, for ODBC's sake): its optimizer reads such a
//! condition of the WHERE, alone or within AND / OR, as `column = '0000-00-00'` (or NULL,
//! for a table on the inner side of an outer join), in SELECT, UPDATE and DELETE; ISNULL(d)
//! too. Only there: `d IS NULL` in the select list, under NOT or as `IS NOT NULL` keeps its
//! plain meaning.

use crate::expr::{CmpOp, Expr, Func};
use crate::plan::tables::TableRef;
use crate::value::Value;
use myriad_storage as st;
use myriad_types::datetime::{Date, DateTime};

/// `filter` (a WHERE over the columns of `refs`, table `n` from column `offsets[n]` on)
/// with each such `IS NULL` widened to the zero date.
pub(crate) fn where_is_null(filter: Expr, refs: &[TableRef], offsets: &[usize]) -> Expr {
    match filter {
        Expr::And(a, b) => Expr::And(
            Box::new(where_is_null(*a, refs, offsets)),
            Box::new(where_is_null(*b, refs, offsets)),
        ),
        Expr::Or(a, b) => Expr::Or(
            Box::new(where_is_null(*a, refs, offsets)),
            Box::new(where_is_null(*b, refs, offsets)),
        ),
        // ISNULL(x) is x IS NULL.
        Expr::Call {
            func: Func::IsNull,
            mut args,
            ..
        } if args.len() == 1 => where_is_null(
            Expr::IsNull {
                expr: Box::new(args.remove(0)),
                negated: false,
            },
            refs,
            offsets,
        ),
        Expr::IsNull {
            expr,
            negated: false,
        } => {
            let zero = match expr.as_ref() {
                Expr::Column(i) => zero_date_of(*i, refs, offsets),
                _ => None,
            };
            let is_null = Expr::IsNull {
                expr: expr.clone(),
                negated: false,
            };
            match zero {
                Some(zero) => {
                    let equal = Expr::Cmp {
                        op: CmpOp::Eq,
                        left: expr,
                        right: Box::new(Expr::Literal(zero)),
                        collation: Default::default(),
                    };
                    Expr::Or(Box::new(equal), Box::new(is_null))
                }
                None => is_null,
            }
        }
        other => other,
    }
}

/// The zero date of column `i` when it is a DATE or DATETIME declared NOT NULL.
fn zero_date_of(i: usize, refs: &[TableRef], offsets: &[usize]) -> Option<Value> {
    let n = offsets.iter().rposition(|&start| start <= i)?;
    let column = refs.get(n)?.def.columns.get(i - offsets[n])?;
    if column.nullable {
        return None;
    }
    match column.ty {
        st::ColumnType::Date => Some(Value::Date(Date::default())),
        st::ColumnType::DateTime { .. } => Some(Value::DateTime(DateTime::default())),
        _ => None,
    }
}
