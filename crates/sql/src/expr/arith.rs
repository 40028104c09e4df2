//! Arithmetic with MySQL's numeric classes, and the result types of operators and
//! aggregates.

use crate::error::SqlError;
use crate::expr::eval::*;
use myriad_types::decimal::{Decimal, DecimalError};
use myriad_types::errors::{ER_DATA_OUT_OF_RANGE, ER_DIVISION_BY_ZERO};

/// Arithmetic operators with MySQL's class rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
}

impl ArithOp {
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::IntDiv => "DIV",
            ArithOp::Mod => "%",
        }
    }
}

/// The numeric class an operand has in arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NumClass {
    Int,
    Decimal,
    Double,
}

pub fn num_class_of_type(ty: SqlType) -> NumClass {
    match ty {
        SqlType::Null
        | SqlType::Int { .. }
        | SqlType::Date
        | SqlType::Time { fsp: 0 }
        | SqlType::DateTime { fsp: 0 } => NumClass::Int,
        SqlType::Time { .. } | SqlType::Decimal { .. } | SqlType::DateTime { .. } => {
            NumClass::Decimal
        }
        SqlType::Double | SqlType::Str { .. } => NumClass::Double,
    }
}

/// Evaluate `a op b`. `text` names the expression for overflow errors; `div_incr` is
/// div_precision_increment. Division by zero gives NULL and warning 1365.
pub fn arith(
    op: ArithOp,
    a: &Value,
    b: &Value,
    div_incr: u32,
    text: &dyn Fn() -> String,
    warnings: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    // A date or time value computes as its number (HHMMSS[.ffffff] ...), exactly.
    let class_of = |v: &Value| match v {
        Value::Time(_) | Value::Date { .. } | Value::DateTime { .. } => NumClass::Decimal,
        other => num_class_of_type(other.sql_type()),
    };
    let class = class_of(a).max(class_of(b));
    let div_zero = |warnings: &mut Vec<Warning>| {
        warnings.push(Warning {
            level: "Warning",
            code: ER_DIVISION_BY_ZERO.code,
            message: "Division by 0".into(),
        });
        Ok(Value::Null)
    };
    match class {
        NumClass::Int if op != ArithOp::Div => {
            let unsigned = matches!(a, Value::UInt(_)) || matches!(b, Value::UInt(_));
            let wide = |d: &Value| match d {
                Value::Int(i) => *i as i128,
                Value::UInt(u) => *u as i128,
                _ => 0,
            };
            let (x, y) = (wide(a), wide(b));
            let result = match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x
                    .checked_mul(y)
                    .ok_or_else(|| err_out_of_range(unsigned, &text()))?,
                ArithOp::IntDiv => {
                    if y == 0 {
                        return div_zero(warnings);
                    }
                    x / y
                }
                ArithOp::Mod => {
                    if y == 0 {
                        return div_zero(warnings);
                    }
                    x % y
                }
                ArithOp::Div => unreachable_div(),
            };
            int_result(result, unsigned, &text)
        }
        NumClass::Int | NumClass::Decimal => {
            let (x, y) = (
                a.to_decimal(warnings).unwrap_or(Decimal::ZERO),
                b.to_decimal(warnings).unwrap_or(Decimal::ZERO),
            );
            // A zero divisor is answered below, before dividing: any error is an overflow.
            let overflow = |_: DecimalError| err_decimal_out_of_range(&text());
            if y.is_zero() && matches!(op, ArithOp::Div | ArithOp::IntDiv | ArithOp::Mod) {
                return div_zero(warnings);
            }
            match op {
                ArithOp::Add => x.checked_add(&y).map(Value::Decimal).map_err(overflow),
                ArithOp::Sub => x.checked_sub(&y).map(Value::Decimal).map_err(overflow),
                ArithOp::Mul => x.checked_mul(&y).map(Value::Decimal).map_err(overflow),
                ArithOp::Div => x
                    .checked_div(&y, div_incr)
                    .map(Value::Decimal)
                    .map_err(overflow),
                ArithOp::IntDiv => {
                    let q = x.checked_div_trunc(&y).map_err(overflow)?;
                    let unsigned = matches!(a, Value::UInt(_)) || matches!(b, Value::UInt(_));
                    let q = q
                        .trunc_to_i128()
                        .ok_or_else(|| err_out_of_range(unsigned, &text()))?;
                    int_result(q, unsigned, &text)
                }
                ArithOp::Mod => x.checked_rem(&y).map(Value::Decimal).map_err(overflow),
            }
        }
        NumClass::Double => {
            let x = a.to_double(warnings).unwrap_or(0.0);
            let y = b.to_double(warnings).unwrap_or(0.0);
            let r = match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x * y,
                ArithOp::Div => {
                    if y == 0.0 {
                        return div_zero(warnings);
                    }
                    x / y
                }
                ArithOp::IntDiv => {
                    if y == 0.0 {
                        return div_zero(warnings);
                    }
                    let q = (x / y).trunc();
                    if q.abs() >= 9.223_372_036_854_776e18 {
                        return Err(err_out_of_range(false, &text()));
                    }
                    return Ok(Value::Int(q as i64));
                }
                ArithOp::Mod => {
                    if y == 0.0 {
                        return div_zero(warnings);
                    }
                    x % y
                }
            };
            if !r.is_finite() {
                return Err(SqlError::new(
                    ER_DATA_OUT_OF_RANGE,
                    format!("DOUBLE value is out of range in '{}'", text()),
                ));
            }
            Ok(Value::Double(r))
        }
    }
}

pub(crate) fn unreachable_div() -> i128 {
    // Integer `/` is routed to the decimal branch above; keep a value rather than panic.
    0
}

pub(crate) fn int_result(
    value: i128,
    unsigned: bool,
    text: &dyn Fn() -> String,
) -> Result<Value, SqlError> {
    if unsigned {
        u64::try_from(value)
            .map(Value::UInt)
            .map_err(|_| err_out_of_range(true, &text()))
    } else {
        i64::try_from(value)
            .map(Value::Int)
            .map_err(|_| err_out_of_range(false, &text()))
    }
}

/// The static result type of `a op b`.
pub fn arith_type(op: ArithOp, a: SqlType, b: SqlType, div_incr: u32) -> SqlType {
    if a == SqlType::Null || b == SqlType::Null {
        return SqlType::Double;
    }
    let class = num_class_of_type(a).max(num_class_of_type(b));
    let scale_of = |t: SqlType| match t {
        SqlType::Decimal { scale, .. } => scale,
        SqlType::Time { fsp } | SqlType::DateTime { fsp } => u32::from(fsp),
        _ => 0,
    };
    // A date or time counts as its number: YYYYMMDD, YYYYMMDDHHMMSS, HHHMMSS.
    let int_digits = |t: SqlType| match t {
        SqlType::Decimal { precision, scale } => precision.saturating_sub(scale),
        SqlType::Int { len, .. } => len,
        SqlType::Date => 8,
        SqlType::DateTime { .. } => 14,
        SqlType::Time { .. } => 7,
        _ => 1,
    };
    // An integer's width counts its sign; so does a date's or time's number.
    let int_len = |t: SqlType| match t {
        SqlType::Date | SqlType::DateTime { .. } | SqlType::Time { .. } => int_digits(t) + 1,
        _ => int_digits(t),
    };
    let unsigned = |t: SqlType| matches!(t, SqlType::Int { unsigned: true, .. });
    let decimal = |precision: u32, scale: u32| SqlType::Decimal {
        precision: precision.min(DECIMAL_PRECISION_MAX),
        scale,
    };
    match (class, op) {
        (NumClass::Double, _) => SqlType::Double,
        (NumClass::Int, ArithOp::Div) | (NumClass::Decimal, ArithOp::Div) => {
            let scale = (scale_of(a) + div_incr).min(DECIMAL_SCALE_MAX);
            decimal(int_digits(a) + scale_of(b) + scale, scale)
        }
        (_, ArithOp::IntDiv) => SqlType::Int {
            unsigned: unsigned(a) || unsigned(b),
            len: int_digits(a).max(1),
        },
        (NumClass::Int, _) => {
            let len = match op {
                ArithOp::Mul => int_len(a) + int_len(b),
                _ => int_len(a).max(int_len(b)) + 1,
            };
            SqlType::Int {
                unsigned: unsigned(a) || unsigned(b),
                len,
            }
        }
        (NumClass::Decimal, ArithOp::Mul) => {
            let scale = (scale_of(a) + scale_of(b)).min(DECIMAL_SCALE_MAX);
            decimal(int_digits(a) + int_digits(b) + scale, scale)
        }
        (NumClass::Decimal, _) => {
            let scale = scale_of(a).max(scale_of(b));
            decimal(int_digits(a).max(int_digits(b)) + 1 + scale, scale)
        }
    }
}

/// The common type of the branches of IF / CASE / COALESCE / GREATEST.
pub fn aggregate_type(types: &[SqlType]) -> SqlType {
    let mut result = SqlType::Null;
    for &t in types {
        result = match (result, t) {
            (SqlType::Null, t) | (t, SqlType::Null) => t,
            (SqlType::Str { chars: a }, other) | (other, SqlType::Str { chars: a }) => {
                SqlType::Str {
                    chars: a.max(display_chars(other)),
                }
            }
            (SqlType::Date, SqlType::Date) => SqlType::Date,
            (SqlType::Time { fsp: a }, SqlType::Time { fsp: b }) => SqlType::Time { fsp: a.max(b) },
            (x @ SqlType::Time { .. }, y) | (y, x @ SqlType::Time { .. }) => SqlType::Str {
                chars: display_chars(x).max(display_chars(y)),
            },
            (
                x @ (SqlType::DateTime { .. } | SqlType::Date),
                y @ (SqlType::DateTime { .. } | SqlType::Date),
            ) => SqlType::DateTime {
                fsp: fsp_of(x).max(fsp_of(y)),
            },
            (x, y)
                if matches!(x, SqlType::Date | SqlType::DateTime { .. })
                    || matches!(y, SqlType::Date | SqlType::DateTime { .. }) =>
            {
                SqlType::Str {
                    chars: display_chars(x).max(display_chars(y)),
                }
            }
            (SqlType::Double, _) | (_, SqlType::Double) => SqlType::Double,
            (
                SqlType::Decimal {
                    precision: p1,
                    scale: s1,
                },
                other,
            )
            | (
                other,
                SqlType::Decimal {
                    precision: p1,
                    scale: s1,
                },
            ) => {
                let (p2, s2) = match other {
                    SqlType::Decimal { precision, scale } => (precision, scale),
                    SqlType::Int { len, .. } => (len, 0),
                    _ => (1, 0),
                };
                let scale = s1.max(s2);
                SqlType::Decimal {
                    precision: (p1 - s1.min(p1)).max(p2 - s2.min(p2)) + scale,
                    scale,
                }
            }
            (
                SqlType::Int {
                    unsigned: u1,
                    len: l1,
                },
                SqlType::Int {
                    unsigned: u2,
                    len: l2,
                },
            ) => SqlType::Int {
                unsigned: u1 && u2,
                len: l1.max(l2),
            },
            (x, y) => SqlType::Str {
                chars: display_chars(x).max(display_chars(y)),
            },
        };
    }
    result
}

/// Digits of fractional seconds of a temporal type (0 for any other).
fn fsp_of(t: SqlType) -> u8 {
    match t {
        SqlType::DateTime { fsp } => fsp,
        _ => 0,
    }
}
