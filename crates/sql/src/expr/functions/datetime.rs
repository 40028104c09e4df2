//! The date and time functions: date arithmetic with an interval (DATE_ADD, DATE_SUB,
//! ADDDATE, SUBDATE and `d +/- INTERVAL n unit`).
//!
//! The arithmetic itself is the types crate's ([`myriad_types::interval`]); this file turns
//! the evaluator's values into its operands and its result back into a value.

use crate::error::SqlError;
use crate::expr::eval::{SqlType, Warning};
use crate::value::Value;
use myriad_types::errors::ER_DATETIME_FUNCTION_OVERFLOW;
use myriad_types::interval::{add_interval, IntervalUnit};

/// The unit that a compiled DATE_ADD carries as its third argument.
pub(crate) fn unit_of(code: &Value) -> Option<IntervalUnit> {
    match code {
        Value::Int(c) => IntervalUnit::from_code(*c),
        _ => None,
    }
}

/// The type of `date` plus an interval of `unit`: a DATE stays a DATE for a day or longer,
/// a DATETIME keeps its precision; MICROSECOND gives six digits.
pub(crate) fn date_add_type(date: SqlType, unit: Option<IntervalUnit>) -> SqlType {
    let micro = unit == Some(IntervalUnit::Microsecond);
    match date {
        SqlType::Date if unit.is_some_and(IntervalUnit::is_date_unit) => SqlType::Date,
        SqlType::Date => SqlType::DateTime {
            fsp: if micro { 6 } else { 0 },
        },
        SqlType::DateTime { fsp } => SqlType::DateTime {
            fsp: if micro { 6 } else { fsp },
        },
        SqlType::Null => SqlType::DateTime { fsp: 0 },
        // A string or number date gives a string in MariaDB; evaluating it is refused.
        _ => SqlType::Str { chars: 29 },
    }
}

/// `date` plus (or minus, `negate`) `count` units. NULL for a NULL operand, NULL and
/// warning 1441 for a result outside years 0..=9999; operands whose MariaDB result this
/// evaluator does not reproduce (strings, numbers, zero dates, fractional counts) are
/// refused with 1235.
pub(crate) fn date_add(
    date: &Value,
    count: &Value,
    unit: &Value,
    negate: bool,
    w: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    let unit = unit_of(unit).ok_or_else(|| SqlError::not_supported("this INTERVAL unit"))?;
    let n = match count {
        Value::Null => return Ok(Value::Null),
        Value::Int(n) => *n,
        Value::UInt(n) => i64::try_from(*n)
            .map_err(|_| SqlError::not_supported("an INTERVAL count beyond BIGINT"))?,
        _ => {
            return Err(SqlError::not_supported(
                "an INTERVAL count that is not an integer",
            ))
        }
    };
    let n = if negate {
        n.checked_neg()
            .ok_or_else(|| SqlError::not_supported("an INTERVAL count beyond BIGINT"))?
    } else {
        n
    };
    let (dt, was_date) = match date {
        Value::Null => return Ok(Value::Null),
        Value::Date(d) if d.is_valid() => (d.at_midnight(), true),
        Value::DateTime(dt) if dt.is_valid() => (*dt, false),
        _ => {
            return Err(SqlError::not_supported(
                "date arithmetic on a value that is not a valid DATE or DATETIME",
            ))
        }
    };
    Ok(match add_interval(dt, unit, n) {
        None => {
            w.push(Warning {
                level: "Warning",
                code: ER_DATETIME_FUNCTION_OVERFLOW.code,
                message: "Datetime function: datetime field overflow".to_string(),
            });
            Value::Null
        }
        Some(r) if was_date && unit.is_date_unit() => Value::Date(r.date()),
        Some(r) => Value::DateTime(r),
    })
}
