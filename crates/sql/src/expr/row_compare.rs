//! Rows of values compared as MariaDB compares rows, in three-valued logic:
//! - `=` holds when every pair is equal; a pair that differs makes it false, else a pair
//!   with a NULL makes it NULL; `<>` is its negation; `<=>` compares NULLs as values;
//! - `<`, `<=`, `>`, `>=` decide on the first pair that differs (the last pair under the
//!   operator itself); a pair with a NULL before that makes them NULL;
//! - `IN` over rows is true when a row is equal, else NULL when a row compared as NULL,
//!   else false (an empty set: false); `NOT IN` its negation.

use crate::expr::eval::{compare, Warning};
use crate::expr::{CmpOp, Collation, RowTest};
use crate::value::Value;
use std::cmp::Ordering;

/// `l op r` for two rows of one width; None for NULL.
pub fn compare_rows(
    l: &[Value],
    r: &[Value],
    op: CmpOp,
    collations: &[Collation],
    w: &mut Vec<Warning>,
) -> Option<bool> {
    let collation = |i: usize| collations.get(i).copied().unwrap_or_default();
    let pairs = l.iter().zip(r).enumerate();
    match op {
        CmpOp::NullSafeEq => {
            Some(
                pairs
                    .into_iter()
                    .all(|(i, (a, b))| match (a.is_null(), b.is_null()) {
                        (true, true) => true,
                        (false, false) => compare(a, b, collation(i), w) == Some(Ordering::Equal),
                        _ => false,
                    }),
            )
        }
        CmpOp::Eq | CmpOp::NotEq => {
            let mut null = false;
            for (i, (a, b)) in pairs {
                match compare(a, b, collation(i), w) {
                    None => null = true,
                    Some(Ordering::Equal) => {}
                    Some(_) => return Some(op == CmpOp::NotEq),
                }
            }
            (!null).then_some(op == CmpOp::Eq)
        }
        CmpOp::Lt | CmpOp::LtEq | CmpOp::Gt | CmpOp::GtEq => {
            let last = l.len().min(r.len()).saturating_sub(1);
            for (i, (a, b)) in pairs {
                let o = compare(a, b, collation(i), w)?;
                if o != Ordering::Equal || i == last {
                    return Some(match op {
                        CmpOp::Lt => o == Ordering::Less,
                        CmpOp::LtEq => o != Ordering::Greater,
                        CmpOp::Gt => o == Ordering::Greater,
                        _ => o != Ordering::Less,
                    });
                }
            }
            Some(matches!(op, CmpOp::LtEq | CmpOp::GtEq))
        }
    }
}

/// `row test rows`, the rows of a subquery of the row's width (see [`RowTest`]). A
/// comparison with more than one row is an error the caller reports; with none, it compares
/// with a row of NULLs.
pub fn test_rows(
    row: &[Value],
    rows: &[Vec<Value>],
    test: RowTest,
    collations: &[Collation],
    w: &mut Vec<Warning>,
) -> Value {
    let truth = match test {
        RowTest::Compare(op) => match rows.first() {
            Some(r) => compare_rows(row, r, op, collations, w),
            None => compare_rows(row, &vec![Value::Null; row.len()], op, collations, w),
        },
        RowTest::In { negated } => {
            let mut null = false;
            let mut found = false;
            for r in rows {
                match compare_rows(row, r, CmpOp::Eq, collations, w) {
                    Some(true) => {
                        found = true;
                        break;
                    }
                    Some(false) => {}
                    None => null = true,
                }
            }
            match (found, null) {
                (true, _) => Some(!negated),
                (false, true) => None,
                (false, false) => Some(negated),
            }
        }
    };
    truth.map_or(Value::Null, |t| Value::Int(i64::from(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[Option<i64>]) -> Vec<Value> {
        v.iter()
            .map(|x| x.map_or(Value::Null, Value::Int))
            .collect()
    }

    fn cmp(l: &[Option<i64>], op: CmpOp, r: &[Option<i64>]) -> Option<bool> {
        compare_rows(&ints(l), &ints(r), op, &[], &mut Vec::new())
    }

    #[test]
    fn equality_is_false_on_a_difference_despite_nulls() {
        assert_eq!(
            cmp(&[Some(1), Some(2)], CmpOp::Eq, &[Some(1), Some(2)]),
            Some(true)
        );
        assert_eq!(
            cmp(&[None, Some(2)], CmpOp::Eq, &[Some(1), Some(3)]),
            Some(false)
        );
        assert_eq!(cmp(&[None, Some(2)], CmpOp::Eq, &[Some(1), Some(2)]), None);
        assert_eq!(
            cmp(&[None, Some(2)], CmpOp::NotEq, &[Some(1), Some(3)]),
            Some(true)
        );
        assert_eq!(
            cmp(&[None, Some(2)], CmpOp::NullSafeEq, &[None, Some(2)]),
            Some(true)
        );
        assert_eq!(
            cmp(&[None, Some(2)], CmpOp::NullSafeEq, &[Some(1), Some(2)]),
            Some(false)
        );
    }

    #[test]
    fn ordering_decides_on_the_first_difference() {
        assert_eq!(
            cmp(&[Some(1), Some(2)], CmpOp::Lt, &[Some(1), Some(3)]),
            Some(true)
        );
        assert_eq!(
            cmp(&[Some(1), None], CmpOp::Lt, &[Some(2), Some(3)]),
            Some(true)
        );
        assert_eq!(cmp(&[Some(1), None], CmpOp::Lt, &[Some(1), Some(3)]), None);
        assert_eq!(cmp(&[None, Some(1)], CmpOp::Gt, &[Some(1), Some(3)]), None);
        assert_eq!(
            cmp(&[Some(1), Some(3)], CmpOp::LtEq, &[Some(1), Some(3)]),
            Some(true)
        );
        assert_eq!(
            cmp(&[Some(1), Some(3)], CmpOp::GtEq, &[Some(1), Some(4)]),
            Some(false)
        );
    }

    #[test]
    fn in_over_rows_is_null_only_without_a_match() {
        let rows = vec![ints(&[Some(1), Some(3)]), ints(&[None, Some(2)])];
        let t = |row: &[Option<i64>], negated| {
            test_rows(
                &ints(row),
                &rows,
                RowTest::In { negated },
                &[],
                &mut Vec::new(),
            )
        };
        assert_eq!(t(&[Some(1), Some(3)], false), Value::Int(1));
        assert_eq!(t(&[Some(5), Some(2)], false), Value::Null);
        assert_eq!(t(&[Some(5), Some(2)], true), Value::Null);
        assert_eq!(t(&[Some(5), Some(5)], true), Value::Int(1));
        let none = test_rows(
            &ints(&[None, None]),
            &[],
            RowTest::In { negated: false },
            &[],
            &mut Vec::new(),
        );
        assert_eq!(none, Value::Int(0));
    }
}
