//! CAST and CONVERT.

use crate::expr::datetime::*;
use crate::expr::eval::Datum;
use crate::expr::eval::Warning;
use crate::expr::text::*;
use crate::expr::*;
use rust_decimal::{Decimal, RoundingStrategy};

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
        CastTo::Decimal { scale, .. } => {
            let d = v.to_decimal(w).unwrap_or(Decimal::ZERO);
            let mut r =
                d.round_dp_with_strategy(scale.min(28), RoundingStrategy::MidpointAwayFromZero);
            r.rescale(scale.min(28));
            Datum::Dec(r)
        }
        CastTo::Double => Datum::Double(v.to_double(w).unwrap_or(0.0)),
        CastTo::Date | CastTo::DateTime => {
            let parsed = match &v {
                Datum::Date { .. } | Datum::DateTime { .. } => Some(v.clone()),
                other => parse_datetime(&text_of(other).unwrap_or_default()),
            };
            match (parsed, to) {
                (
                    Some(Datum::DateTime {
                        year, month, day, ..
                    }),
                    CastTo::Date,
                ) => Datum::Date { year, month, day },
                (Some(Datum::Date { year, month, day }), CastTo::DateTime) => Datum::DateTime {
                    year,
                    month,
                    day,
                    hour: 0,
                    minute: 0,
                    second: 0,
                    micros: 0,
                },
                (Some(d), _) => d,
                (None, _) => {
                    w.push(Warning {
                        level: "Warning",
                        code: 1292,
                        message: format!("Incorrect datetime value: '{}'", v.to_text_lossy()),
                    });
                    Datum::Null
                }
            }
        }
    }
}
