//! Numeric functions: each reads a call's [`Args`] and keeps the argument's type where
//! MariaDB does (an integer stays an integer, a DECIMAL a DECIMAL).

use super::{round, Args};
use crate::error::SqlError;
use crate::expr::eval::{self, compare, SqlValue, Warning};
use crate::value::Value;
use myriad_types::errors::{ER_DATA_OUT_OF_RANGE, ER_INVALID_ARGUMENT_FOR_LOGARITHM};
use std::cmp::Ordering;

/// ABS; the smallest BIGINT has no absolute value and is out of range.
pub(super) fn abs(a: &Args, w: &mut Vec<Warning>) -> Result<Value, SqlError> {
    Ok(match &a.v[0] {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Int(
            i.checked_abs()
                .ok_or_else(|| eval::err_out_of_range(false, "abs(...)"))?,
        ),
        Value::UInt(u) => Value::UInt(*u),
        Value::Decimal(d) => Value::Decimal(d.abs()),
        other => Value::Double(other.to_double(w).unwrap_or(0.0).abs()),
    })
}

/// ROUND or TRUNCATE (`truncate`) to the second argument's places (0 without one).
pub(super) fn round_to(a: &Args, truncate: bool, w: &mut Vec<Warning>) -> Result<Value, SqlError> {
    if a.any_null {
        return Ok(Value::Null);
    }
    let places = if a.v.len() > 1 { a.int(1, w) } else { 0 };
    round(&a.v[0], places, truncate, w)
}

/// FLOOR (`floor`) or CEIL; a DECIMAL whose result fits a BIGINT gives the BIGINT.
pub(super) fn floor_ceil(a: &Args, floor: bool, w: &mut Vec<Warning>) -> Result<Value, SqlError> {
    let v = &a.v;
    Ok(match &v[0] {
        Value::Null => Value::Null,
        Value::Int(_) | Value::UInt(_) => v[0].clone(),
        Value::Decimal(d) => {
            let r = if floor { d.floor() } else { d.ceil() };
            let r = r.map_err(|_| eval::err_decimal_out_of_range("floor(...)"))?;
            r.to_i64().map(Value::Int).unwrap_or(Value::Decimal(r))
        }
        other => {
            let f = other.to_double(w).unwrap_or(0.0);
            Value::Double(if floor { f.floor() } else { f.ceil() })
        }
    })
}

/// GREATEST (`greatest`) or LEAST: the first of the largest (smallest) arguments.
pub(super) fn greatest_least(a: &Args, greatest: bool, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let v = &a.v;
    let mut best = v[0].clone();
    for x in &v[1..] {
        let o = compare(x, &best, a.collation, w).unwrap_or(Ordering::Equal);
        if (greatest && o == Ordering::Greater) || (!greatest && o == Ordering::Less) {
            best = x.clone();
        }
    }
    best
}

/// POW; a result that is not finite is out of range.
pub(super) fn pow(a: &Args, w: &mut Vec<Warning>) -> Result<Value, SqlError> {
    if a.any_null {
        return Ok(Value::Null);
    }
    let r = a.v[0]
        .to_double(w)
        .unwrap_or(0.0)
        .powf(a.v[1].to_double(w).unwrap_or(0.0));
    if !r.is_finite() {
        return Err(SqlError::new(
            ER_DATA_OUT_OF_RANGE,
            "DOUBLE value is out of range in 'pow(...)'",
        ));
    }
    Ok(Value::Double(r))
}

/// SQRT; NULL for a negative argument.
pub(super) fn sqrt(a: &Args, w: &mut Vec<Warning>) -> Value {
    match a.v[0].to_double(w) {
        Some(f) if f >= 0.0 => Value::Double(f.sqrt()),
        _ => Value::Null,
    }
}

/// EXP.
pub(super) fn exp(a: &Args, w: &mut Vec<Warning>) -> Value {
    match a.v[0].to_double(w) {
        Some(f) => Value::Double(f.exp()),
        None => Value::Null,
    }
}

/// LN, LOG10 or LOG2 (`log`); an argument not above 0 gives NULL and a warning.
pub(super) fn log(a: &Args, log: fn(f64) -> f64, w: &mut Vec<Warning>) -> Value {
    match a.v[0].to_double(w) {
        Some(f) if f > 0.0 => Value::Double(log(f)),
        Some(_) => {
            w.push(Warning {
                level: "Warning",
                code: ER_INVALID_ARGUMENT_FOR_LOGARITHM.code,
                message: "Invalid argument for logarithm".into(),
            });
            Value::Null
        }
        None => Value::Null,
    }
}

/// SIGN: -1, 0 or 1.
pub(super) fn sign(a: &Args, w: &mut Vec<Warning>) -> Value {
    match a.v[0].to_double(w) {
        None => Value::Null,
        Some(f) => Value::Int(if f > 0.0 {
            1
        } else if f < 0.0 {
            -1
        } else {
            0
        }),
    }
}

/// BIT_COUNT(n): the set bits of n's 64-bit two's complement. A string is read as a
/// decimal number (as MariaDB reads it, with its warning), rounded.
pub(super) fn bit_count(a: &Args, w: &mut Vec<Warning>) -> Value {
    let bits = match &a.v[0] {
        Value::Bytes(_) => a.v[0].to_decimal(w).map(|d| {
            let r = d.round_dp(0).unwrap_or(d);
            r.to_i64()
                .map(|i| i as u64)
                .or_else(|| r.to_u64())
                .unwrap_or(if r.is_negative() { 1 << 63 } else { u64::MAX })
        }),
        v => super::to_u64_bits(v, w),
    };
    match bits {
        Some(bits) => Value::Int(i64::from(bits.count_ones())),
        None => Value::Null,
    }
}
