//! CAST and CONVERT.

use crate::expr::datetime::*;
use crate::expr::eval::Datum;
use crate::expr::eval::Warning;
use crate::expr::text::*;
use crate::expr::*;
use myriad_types::errors::{ER_TRUNCATED_WRONG_VALUE, ER_WARN_DATA_OUT_OF_RANGE};

pub(crate) fn cast(v: Datum, to: CastTo, w: &mut Vec<Warning>) -> Datum {
    if v.is_null() {
        return Datum::Null;
    }
    match to {
        CastTo::Signed => match &v {
            Datum::UInt(u) => Datum::Int(*u as i64),
            _ => Datum::Int(v.to_int(w).unwrap_or(0)),
        },
        CastTo::Unsigned => match &v {
            Datum::Int(i) => Datum::UInt(*i as u64),
            Datum::UInt(u) => Datum::UInt(*u),
            Datum::Double(f) if *f < 0.0 => Datum::UInt(0),
            _ => Datum::UInt(v.to_int(w).unwrap_or(0) as u64),
        },
        CastTo::Char => Datum::Str(v.to_text().unwrap_or_default()),
        CastTo::Decimal { precision, scale } => {
            // The target's limits were checked when the statement was compiled.
            let (d, fits) = crate::expr::decimal::to_column(&v, precision as u8, scale as u8);
            if !fits {
                w.push(Warning {
                    level: "Warning",
                    code: ER_WARN_DATA_OUT_OF_RANGE.code,
                    message: format!(
                        "Out of range value for column 'CAST(... AS DECIMAL({precision},{scale}))' at row 1"
                    ),
                });
            }
            Datum::Dec(d)
        }
        CastTo::Double => Datum::Double(v.to_double(w).unwrap_or(0.0)),
        CastTo::Date | CastTo::DateTime => {
            let parsed = match &v {
                Datum::Date { .. } | Datum::DateTime { .. } => Some(v.clone()),
                other => parse_datetime(&text_of(other).unwrap_or_default()),
            };
            match (parsed, to) {
                (Some(Datum::DateTime(dt)), CastTo::Date) => Datum::Date(dt.date()),
                (Some(Datum::Date(d)), CastTo::DateTime) => Datum::DateTime(d.at_midnight()),
                (Some(d), _) => d,
                (None, _) => {
                    w.push(Warning {
                        level: "Warning",
                        code: ER_TRUNCATED_WRONG_VALUE.code,
                        message: format!("Incorrect datetime value: '{}'", v.to_text_lossy()),
                    });
                    Datum::Null
                }
            }
        }
    }
}
