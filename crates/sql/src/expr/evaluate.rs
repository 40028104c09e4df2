//! Evaluating an expression over a row.

use crate::error::SqlError;
use crate::expr::cast::*;
use crate::expr::eval::arith;
use crate::expr::eval::compare;
use crate::expr::eval::SqlValue;
use crate::expr::eval::Warning;
use crate::expr::functions::*;
use crate::expr::text::*;
use crate::expr::*;
use crate::value::Value;
use myriad_types::errors::{ER_OPERAND_COLUMNS, ER_SUBQUERY_NO_1_ROW};
use sqlparser::ast::BinaryOperator;
use std::borrow::Cow;
use std::cmp::Ordering;

impl Expr {
    /// Whether this condition is true for `row` (false and NULL are not), as WHERE, ON,
    /// HAVING and LIKE's WHERE form take it.
    pub fn holds(&self, env: &mut dyn Env, row: &[Value]) -> Result<bool, SqlError> {
        Ok(self.eval(env, row)?.truth(env.warnings()) == Some(true))
    }

    pub fn eval(&self, env: &mut dyn Env, row: &[Value]) -> Result<Value, SqlError> {
        // Leaves do not recurse (their parent checked the stack): no check per row for them.
        if !matches!(
            self,
            Expr::Literal(_)
                | Expr::HexLiteral(_)
                | Expr::Column(_)
                | Expr::Param(_)
                | Expr::Outer(_)
        ) {
            crate::depth::check_stack()?;
        }
        Ok(match self {
            Expr::Literal(d) => d.clone(),
            Expr::HexLiteral(bytes) => Value::Bytes(bytes.clone()),
            Expr::Param(i) => env.param(*i),
            Expr::Outer(n) => env.outer_value(*n),
            Expr::Column(i) => row.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Elements {
                expr,
                list,
                set,
                number,
            } => {
                let v = expr.eval(env, row)?;
                match (v, number) {
                    (Value::Bytes(text), true) if *set => {
                        Value::UInt(myriad_storage::elements::set_bits(list, &text))
                    }
                    (Value::Bytes(text), true) => {
                        Value::UInt(myriad_storage::elements::enum_position(list, &text))
                    }
                    (v, _) => v,
                }
            }
            Expr::SysVar { scope, index } => env.system_variable(*scope, *index)?,
            Expr::UserVar(name) => env.user_variable(name),
            Expr::AssignVar { name, value } => {
                let v = crate::expr::cast::temporal_as_text(value.eval(env, row)?, None);
                env.assign_user_variable(name, v.clone())?;
                v
            }
            Expr::Neg(x) => {
                let v = x.eval(env, row)?;
                neg(v, env.warnings())?
            }
            Expr::Not(x) => {
                let v = x.eval(env, row)?;
                bool_value(v.truth(env.warnings()).map(|b| !b))
            }
            Expr::BitNot(x) => {
                let v = x.eval(env, row)?;
                match to_u64_bits(&v, env.warnings()) {
                    None => Value::Null,
                    Some(u) => Value::UInt(!u),
                }
            }
            Expr::Arith {
                op,
                left,
                right,
                text,
                intermediate,
            } => {
                let a = left.eval(env, row)?;
                let b = right.eval(env, row)?;
                let mut incr = env.div_precision_increment();
                if *intermediate {
                    let scale = if let Value::Decimal(d) = &a {
                        d.scale()
                    } else {
                        0
                    };
                    incr = (scale + incr).div_ceil(9) * 9 - scale;
                }
                arith(*op, &a, &b, incr, &|| text.clone(), env.warnings())?
            }
            Expr::Cmp {
                op,
                left,
                right,
                collation,
            } => {
                let (a, b) = (left.eval(env, row)?, right.eval(env, row)?);
                // A hexadecimal literal left a string may meet a number only now.
                let (a, b) = (
                    crate::expr::hex::compared_value(left, &a, &b),
                    crate::expr::hex::compared_value(right, &b, &a),
                );
                if *op == CmpOp::NullSafeEq {
                    return Ok(Value::Int(i64::from(match (a.is_null(), b.is_null()) {
                        (true, true) => true,
                        (false, false) => {
                            compare(&a, &b, *collation, env.warnings()) == Some(Ordering::Equal)
                        }
                        _ => false,
                    })));
                }
                bool_value(
                    compare(&a, &b, *collation, env.warnings()).map(|o| match op {
                        CmpOp::Eq => o == Ordering::Equal,
                        CmpOp::NotEq => o != Ordering::Equal,
                        CmpOp::Lt => o == Ordering::Less,
                        CmpOp::LtEq => o != Ordering::Greater,
                        CmpOp::Gt => o == Ordering::Greater,
                        CmpOp::GtEq => o != Ordering::Less,
                        CmpOp::NullSafeEq => o == Ordering::Equal,
                    }),
                )
            }
            Expr::And(l, r) => and_or(l, r, false, env, row)?,
            Expr::Or(l, r) => and_or(l, r, true, env, row)?,
            Expr::Xor(l, r) => {
                let a = l.eval(env, row)?.truth(env.warnings());
                let b = r.eval(env, row)?.truth(env.warnings());
                bool_value(match (a, b) {
                    (Some(x), Some(y)) => Some(x != y),
                    _ => None,
                })
            }
            Expr::Bit { op, left, right } => {
                let a = left.eval(env, row)?;
                let b = right.eval(env, row)?;
                bits(op, &a, &b, env.warnings())
            }
            s @ (Expr::IsNull { .. }
            | Expr::IsBool { .. }
            | Expr::InList { .. }
            | Expr::Between { .. }
            | Expr::Like { .. }
            | Expr::Case { .. }) => return s.eval_predicate(env, row),
            Expr::TrimChars {
                expr,
                what,
                leading,
                trailing,
            } => {
                let v = expr.eval(env, row)?;
                let w = what.eval(env, row)?;
                trim_chars(&v, &w, *leading, *trailing)
            }
            Expr::Cast { expr, to } => {
                let v = expr.eval(env, row)?;
                if matches!(v, Value::Time(_))
                    && matches!(to, CastTo::Date | CastTo::DateTime { .. })
                {
                    return Err(SqlError::not_supported(
                        "CAST of a TIME value AS DATE or DATETIME (MariaDB adds the current date)",
                    ));
                }
                cast(v, *to, env.warnings())
            }
            Expr::Call {
                func,
                args,
                collation,
            } => self.call(*func, args, *collation, env, row)?,
            Expr::Collate { expr, .. } => expr.eval(env, row)?,
            s @ (Expr::Subquery(..)
            | Expr::InSubquery { .. }
            | Expr::Exists { .. }
            | Expr::RowSubquery { .. }) => return s.eval_subquery(env, row),
        })
    }
}

/// The outer values a correlated subquery runs with: columns of the row, and outer values
/// of the subquery running now.
fn outer_values(query: &dyn SubqueryPlan, env: &dyn Env, row: &[Value]) -> Vec<Value> {
    query
        .outer_columns()
        .iter()
        .map(|&source| match source {
            OuterSource::Column(i) => row.get(i).cloned().unwrap_or(Value::Null),
            OuterSource::Outer(n) => env.outer_value(n),
        })
        .collect()
}

/// `-v`: an integer that has no negation is out of range.
fn neg(v: Value, w: &mut Vec<Warning>) -> Result<Value, SqlError> {
    Ok(match v {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Int(
            i.checked_neg()
                .ok_or_else(|| crate::expr::eval::err_out_of_range(false, "-(...)"))?,
        ),
        Value::UInt(u) if u <= 1 << 63 => Value::Int((u as i128).wrapping_neg() as i64),
        Value::UInt(_) => return Err(crate::expr::eval::err_out_of_range(true, "-(...)")),
        Value::Decimal(d) => Value::Decimal(-d),
        other => Value::Double(-other.to_double(w).unwrap_or(0.0)),
    })
}

/// `l AND r` (`stop` false) or `l OR r` (`stop` true), in three-valued logic: a left side
/// of `stop` decides without evaluating the right.
fn and_or(
    l: &Expr,
    r: &Expr,
    stop: bool,
    env: &mut dyn Env,
    row: &[Value],
) -> Result<Value, SqlError> {
    let a = l.eval(env, row)?.truth(env.warnings());
    if a == Some(stop) {
        return Ok(Value::Int(i64::from(stop)));
    }
    let b = r.eval(env, row)?.truth(env.warnings());
    Ok(bool_value(match (a, b) {
        (_, Some(y)) if y == stop => Some(stop),
        (Some(_), Some(_)) => Some(!stop),
        _ => None,
    }))
}

/// `&`, `|`, `^`, `<<` and `>>` on the operands' 64 bits; a shift of 64 or more gives 0.
fn bits(op: &BinaryOperator, a: &Value, b: &Value, w: &mut Vec<Warning>) -> Value {
    let (Some(x), Some(y)) = (to_u64_bits(a, w), to_u64_bits(b, w)) else {
        return Value::Null;
    };
    Value::UInt(match op {
        BinaryOperator::BitwiseAnd => x & y,
        BinaryOperator::BitwiseOr => x | y,
        BinaryOperator::PGBitwiseShiftLeft => {
            if y >= 64 {
                0
            } else {
                x << y
            }
        }
        BinaryOperator::PGBitwiseShiftRight => {
            if y >= 64 {
                0
            } else {
                x >> y
            }
        }
        _ => x ^ y,
    })
}

/// `TRIM([LEADING | TRAILING | BOTH] what FROM v)`: every repeat of `what` cut from the
/// ends asked for.
fn trim_chars(v: &Value, what: &Value, leading: bool, trailing: bool) -> Value {
    // On bytes: for UTF-8 text a byte-wise prefix is a char-wise one, and a binary string
    // keeps bytes that are not UTF-8.
    match (v.to_text(), what.to_text()) {
        (Some(s), Some(w)) => {
            let mut s = &s[..];
            if !w.is_empty() {
                if leading {
                    while s.starts_with(&w) {
                        s = &s[w.len()..];
                    }
                }
                if trailing {
                    while s.ends_with(&w) {
                        s = &s[..s.len() - w.len()];
                    }
                }
            }
            Value::Bytes(s.to_vec())
        }
        _ => Value::Null,
    }
}

impl Expr {
    /// IS, IN, BETWEEN, LIKE and CASE.
    pub(crate) fn eval_predicate(
        &self,
        env: &mut dyn Env,
        row: &[Value],
    ) -> Result<Value, SqlError> {
        Ok(match self {
            Expr::IsNull { expr, negated } => {
                Value::Int(i64::from(expr.eval(env, row)?.is_null() != *negated))
            }
            Expr::IsBool {
                expr,
                value,
                negated,
            } => {
                let t = expr.eval(env, row)?.truth(env.warnings());
                Value::Int(i64::from((t == Some(*value)) != *negated))
            }
            Expr::InList {
                expr,
                list,
                negated,
                set,
                collation,
            } => {
                let v = expr.eval(env, row)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                if let Some(found) = set.as_ref().and_then(|s| s.contains(&v)) {
                    let has_null = set.as_ref().is_some_and(|s| s.has_null());
                    return Ok(match (found, has_null) {
                        (true, _) => Value::Int(i64::from(!*negated)),
                        (false, true) => Value::Null,
                        (false, false) => Value::Int(i64::from(*negated)),
                    });
                }
                in_items(&v, list.len(), *negated, *collation, env, |env, i| {
                    list[i].eval(env, row).map(Cow::Owned)
                })?
            }
            Expr::Between {
                expr,
                low,
                high,
                negated,
                collation,
            } => {
                let v = expr.eval(env, row)?;
                let lo = low.eval(env, row)?;
                let hi = high.eval(env, row)?;
                // MySQL picks one comparison for all three operands: as strings only when
                // all are strings, as numbers when strings and numbers mix.
                let mixed = [&v, &lo, &hi].iter().any(|d| d.is_string())
                    && [&v, &lo, &hi].iter().any(|d| {
                        matches!(
                            d,
                            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)
                        )
                    });
                let (v, lo, hi) = if mixed {
                    let w = env.warnings();
                    let as_double = |d: &Value, w: &mut Vec<Warning>| match d.to_double(w) {
                        Some(f) => Value::Double(f),
                        None => Value::Null,
                    };
                    (as_double(&v, w), as_double(&lo, w), as_double(&hi, w))
                } else {
                    (v, lo, hi)
                };
                let ge = compare(&v, &lo, *collation, env.warnings()).map(|o| o != Ordering::Less);
                let le =
                    compare(&v, &hi, *collation, env.warnings()).map(|o| o != Ordering::Greater);
                let inside = match (ge, le) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                bool_value(inside.map(|b| b != *negated))
            }
            Expr::Like {
                expr,
                pattern,
                escape,
                negated,
                collation,
            } => {
                let v = expr.eval(env, row)?;
                let p = pattern.eval(env, row)?;
                match (v.to_text(), p.to_text()) {
                    (Some(t), Some(p)) => Value::Int(i64::from(
                        crate::expr::eval::like_match(&t, &p, *escape, *collation) != *negated,
                    )),
                    _ => Value::Null,
                }
            }
            Expr::Case {
                operand,
                whens,
                otherwise,
                collation,
            } => {
                let subject = match operand {
                    Some(o) => Some(o.eval(env, row)?),
                    None => None,
                };
                for (cond, result) in whens {
                    let c = cond.eval(env, row)?;
                    let hit = match &subject {
                        Some(s) => {
                            compare(s, &c, *collation, env.warnings()) == Some(Ordering::Equal)
                        }
                        None => c.truth(env.warnings()) == Some(true),
                    };
                    if hit {
                        return result.eval(env, row);
                    }
                }
                match otherwise {
                    Some(o) => o.eval(env, row)?,
                    None => Value::Null,
                }
            }
            _ => return Err(SqlError::not_supported("this expression here")),
        })
    }

    /// Scalar, IN, EXISTS and row subqueries.
    pub(crate) fn eval_subquery(
        &self,
        env: &mut dyn Env,
        row: &[Value],
    ) -> Result<Value, SqlError> {
        Ok(match self {
            Expr::Subquery(q) => {
                let rows = env.subquery(q.as_ref(), outer_values(q.as_ref(), env, row))?;
                if rows.len() > 1 {
                    return Err(SqlError::new(
                        ER_SUBQUERY_NO_1_ROW,
                        "Subquery returns more than 1 row",
                    ));
                }
                match rows.into_iter().next() {
                    Some(row) if row.len() != 1 => {
                        return Err(SqlError::new(
                            ER_OPERAND_COLUMNS,
                            "Operand should contain 1 column(s)",
                        ))
                    }
                    Some(mut row) => row.remove(0),
                    None => Value::Null,
                }
            }
            Expr::InSubquery {
                expr,
                query,
                negated,
                collation,
            } => {
                let v = expr.eval(env, row)?;
                let rows = env.subquery(query.as_ref(), outer_values(query.as_ref(), env, row))?;
                if rows.first().is_some_and(|r| r.len() != 1) {
                    return Err(SqlError::new(
                        ER_OPERAND_COLUMNS,
                        "Operand should contain 1 column(s)",
                    ));
                }
                if v.is_null() {
                    return Ok(if rows.is_empty() {
                        Value::Int(i64::from(*negated))
                    } else {
                        Value::Null
                    });
                }
                in_items(&v, rows.len(), *negated, *collation, env, |_, i| {
                    Ok(Cow::Borrowed(&rows[i][0]))
                })?
            }
            Expr::Exists { query, negated } => {
                let rows = env.subquery(query.as_ref(), outer_values(query.as_ref(), env, row))?;
                Value::Int(i64::from(rows.is_empty() == *negated))
            }
            Expr::RowSubquery {
                row: items,
                query,
                test,
                collations,
            } => {
                let values = items
                    .iter()
                    .map(|e| e.eval(env, row))
                    .collect::<Result<Vec<_>, _>>()?;
                let rows = env.subquery(query.as_ref(), outer_values(query.as_ref(), env, row))?;
                if matches!(test, RowTest::Compare(_)) && rows.len() > 1 {
                    return Err(SqlError::new(
                        ER_SUBQUERY_NO_1_ROW,
                        "Subquery returns more than 1 row",
                    ));
                }
                crate::expr::row_compare::test_rows(
                    &values,
                    &rows,
                    *test,
                    collations,
                    env.warnings(),
                )
            }
            _ => return Err(SqlError::not_supported("this expression here")),
        })
    }
}

/// MySQL's three-valued `v IN (...)` over `n` items, `item(env, i)` giving the i-th (read
/// only until one equals `v`): true when one equals `v`, else NULL when one compared as
/// NULL, else false; the opposite for NOT IN (`negated`), NULL staying NULL.
fn in_items<'a>(
    v: &Value,
    n: usize,
    negated: bool,
    collation: Collation,
    env: &mut dyn Env,
    mut item: impl FnMut(&mut dyn Env, usize) -> Result<Cow<'a, Value>, SqlError>,
) -> Result<Value, SqlError> {
    let mut saw_null = false;
    for i in 0..n {
        let x = item(env, i)?;
        match compare(v, &x, collation, env.warnings()) {
            None => saw_null = true,
            Some(Ordering::Equal) => return Ok(Value::Int(i64::from(!negated))),
            Some(_) => {}
        }
    }
    Ok(if saw_null {
        Value::Null
    } else {
        Value::Int(i64::from(negated))
    })
}
