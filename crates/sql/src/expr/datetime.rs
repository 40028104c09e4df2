//! Calendar rules for the date and time functions, and the evaluator's dates and times in
//! terms of the workspace's one date/time implementation (`myriad_types::datetime`): what
//! the evaluator parses, prints and stores goes through the types structs, so each rule is
//! written once.

use crate::value::Value;
pub use myriad_types::datetime::{civil_from_days, days_in_month};
use myriad_types::datetime::{parse_date_or_datetime, Temporal};
use myriad_types::DateTime;

/// Microseconds since the epoch by the system clock now.
pub(crate) fn wall_clock_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

/// Parse `YYYY-MM-DD[ HH:MM:SS[.ffffff]]` into a DATE or DATETIME value (None for text
/// that is neither, or an impossible date).
pub fn parse_datetime(text: &str) -> Option<Value> {
    Some(match parse_date_or_datetime(text)? {
        Temporal::Date(d) => Value::Date(d),
        Temporal::DateTime(dt) => Value::DateTime(dt),
    })
}

/// The UTC DATETIME `micros` microseconds after the epoch (fraction kept if asked).
pub fn datetime_from_micros(micros: i64, keep_micros: bool) -> Value {
    Value::DateTime(DateTime::from_unix_micros(micros, keep_micros))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_values_cross_to_the_types_structs() {
        let dt = DateTime::from_unix_micros(1_614_834_367_000_250, true);
        let value = Value::DateTime(dt);
        assert_eq!(value.as_datetime(), Some(dt));
        assert_eq!(
            Value::Date(dt.date()).as_datetime(),
            Some(dt.date().at_midnight())
        );
        assert_eq!(Value::Int(1).as_datetime(), None);
        assert_eq!(
            parse_datetime("2021-03-04 05:06:07.00025"),
            Some(value.clone())
        );
        assert_eq!(parse_datetime("2021-02-29"), None);
        assert_eq!(datetime_from_micros(1_614_834_367_000_250, true), value);
    }
}
