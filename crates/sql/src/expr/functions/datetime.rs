//! The date and time functions: date arithmetic with an interval (DATE_ADD, DATE_SUB,
//! ADDDATE, SUBDATE and `d +/- INTERVAL n unit`) and the extractors of one field (YEAR,
//! MONTH, DAYOFWEEK, TO_DAYS ...).
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

/// CONVERT_TZ(dt, from, to): `dt` read in zone `from`, shown in zone `to`. A zone is an
/// offset (`'+05:30'`, `'-08:00'`) or SYSTEM (the server's, UTC); a zone name is NULL, as
/// in MariaDB whose time zone tables are not loaded (myriad has none). NULL for a NULL
/// operand or a `dt` that is no date; a result outside the DATETIME range keeps `dt`, as
/// MariaDB does. A string `dt` with fractional seconds is refused (1235): the result's
/// type has none.
pub(crate) fn convert_tz(dt: &Value, from: &Value, to: &Value) -> Result<Value, SqlError> {
    let (Some(from), Some(to)) = (zone_offset(from), zone_offset(to)) else {
        return Ok(Value::Null);
    };
    let value = match dt {
        Value::Bytes(text) => {
            let parsed = std::str::from_utf8(text)
                .ok()
                .and_then(|t| crate::expr::datetime::parse_datetime(t.trim()));
            if let Some(Value::DateTime(d)) = &parsed {
                if d.micros != 0 {
                    return Err(SqlError::not_supported(
                        "CONVERT_TZ of a string with fractional seconds",
                    ));
                }
            }
            parsed
        }
        Value::Date(_) | Value::DateTime(_) => Some(dt.clone()),
        _ => None,
    };
    let dt = match value {
        Some(Value::Date(d)) if d.is_valid() => d.at_midnight(),
        Some(Value::DateTime(d)) if d.is_valid() => d,
        _ => return Ok(Value::Null),
    };
    Ok(Value::DateTime(
        add_interval(dt, IntervalUnit::Second, to - from).unwrap_or(dt),
    ))
}

/// A CONVERT_TZ zone's offset from UTC in seconds (None: not a zone myriad knows).
fn zone_offset(zone: &Value) -> Option<i64> {
    let text = match zone {
        Value::Bytes(t) => std::str::from_utf8(t).ok()?.trim().to_string(),
        _ => return None,
    };
    if text.eq_ignore_ascii_case("SYSTEM") {
        return Some(0);
    }
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let (hours, minutes) = rest.split_once(':')?;
    let (hours, minutes): (i64, i64) = (hours.parse().ok()?, minutes.parse().ok()?);
    // MariaDB's range: -12:59 to +13:00.
    let seconds = sign * (hours * 3600 + minutes * 60);
    let valid = minutes < 60 && (-(12 * 3600 + 59 * 60)..=13 * 3600).contains(&seconds);
    valid.then_some(seconds)
}

/// A field that an extractor function reads from a DATE or DATETIME.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatePart {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Microsecond,
    Quarter,
    /// DAYOFWEEK: 1 for Sunday to 7 for Saturday.
    DayOfWeek,
    /// WEEKDAY: 0 for Monday to 6 for Sunday.
    Weekday,
    DayOfYear,
    ToDays,
}

impl DatePart {
    /// The part a function of this name (upper case) extracts.
    pub(crate) fn by_name(name: &str) -> Option<DatePart> {
        Some(match name {
            "YEAR" => DatePart::Year,
            "MONTH" => DatePart::Month,
            "DAY" | "DAYOFMONTH" => DatePart::Day,
            "HOUR" => DatePart::Hour,
            "MINUTE" => DatePart::Minute,
            "SECOND" => DatePart::Second,
            "MICROSECOND" => DatePart::Microsecond,
            "QUARTER" => DatePart::Quarter,
            "DAYOFWEEK" => DatePart::DayOfWeek,
            "WEEKDAY" => DatePart::Weekday,
            "DAYOFYEAR" => DatePart::DayOfYear,
            "TO_DAYS" => DatePart::ToDays,
            _ => return None,
        })
    }

    /// The result's display width, as MariaDB reports it.
    pub(crate) fn width(self) -> u32 {
        match self {
            DatePart::Year => 4,
            DatePart::Microsecond => 6,
            DatePart::DayOfYear => 3,
            DatePart::ToDays => 6,
            DatePart::Quarter | DatePart::DayOfWeek | DatePart::Weekday => 1,
            _ => 2,
        }
    }

    /// Whether MariaDB's grammar names the function `name` (upper case): a wrong argument
    /// count is then a syntax error (1064) rather than 1582.
    pub(crate) fn is_keyword(name: &str) -> bool {
        matches!(
            name,
            "YEAR" | "MONTH" | "DAY" | "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND"
        )
    }

    /// Whether the part is a plain field (read as stored, zero parts included) rather
    /// than one counted from the calendar.
    fn is_field(self) -> bool {
        !matches!(
            self,
            DatePart::DayOfWeek | DatePart::Weekday | DatePart::DayOfYear | DatePart::ToDays
        )
    }
}

/// Days from 0000-01-01 as TO_DAYS counts them, for 1970-01-01 (proleptic Gregorian).
const TO_DAYS_EPOCH: i64 = 719_528;

/// `part` of `date`: NULL for NULL. A TIME's hours (past 23 too), minutes, seconds and
/// microseconds, unsigned as MariaDB gives them. Strings, numbers, a TIME's date parts,
/// and the calendar parts of zero dates or dates before year 1 (where MariaDB's day count
/// differs from the proleptic calendar) are refused with 1235.
pub(crate) fn date_part(part: DatePart, date: &Value) -> Result<Value, SqlError> {
    let dt = match date {
        Value::Null => return Ok(Value::Null),
        Value::Time(t) => {
            return match part {
                DatePart::Hour => Ok(Value::Int(i64::from(t.hours))),
                DatePart::Minute => Ok(Value::Int(i64::from(t.minute))),
                DatePart::Second => Ok(Value::Int(i64::from(t.second))),
                DatePart::Microsecond => Ok(Value::Int(i64::from(t.micros))),
                _ => Err(SqlError::not_supported("date parts of a TIME value")),
            }
        }
        Value::Date(d) => d.at_midnight(),
        Value::DateTime(dt) => *dt,
        _ => {
            return Err(SqlError::not_supported(
                "date parts of a value that is not a DATE or DATETIME",
            ))
        }
    };
    if !part.is_field() && (dt.date().has_zero_part() || dt.year < 1) {
        return Err(SqlError::not_supported(
            "calendar parts of a zero date or of year 0",
        ));
    }
    let days = || {
        myriad_types::datetime::days_from_civil(
            i64::from(dt.year),
            u32::from(dt.month),
            u32::from(dt.day),
        )
    };
    let n = match part {
        DatePart::Year => i64::from(dt.year),
        DatePart::Month => i64::from(dt.month),
        DatePart::Day => i64::from(dt.day),
        DatePart::Hour => i64::from(dt.hour),
        DatePart::Minute => i64::from(dt.minute),
        DatePart::Second => i64::from(dt.second),
        DatePart::Microsecond => i64::from(dt.micros),
        DatePart::Quarter => (i64::from(dt.month) + 2) / 3,
        DatePart::DayOfWeek => (days() + 4).rem_euclid(7) + 1,
        DatePart::Weekday => (days() + 3).rem_euclid(7),
        DatePart::DayOfYear => {
            days() - myriad_types::datetime::days_from_civil(i64::from(dt.year), 1, 1) + 1
        }
        DatePart::ToDays => days() + TO_DAYS_EPOCH,
    };
    Ok(Value::Int(n))
}

/// A DATE or DATETIME operand's date, for the functions that read only the day; NULL
/// gives None. Other values and zero dates are refused with 1235.
fn day_of(v: &Value) -> Result<Option<myriad_types::Date>, SqlError> {
    let d = match v {
        Value::Null => return Ok(None),
        Value::Date(d) => *d,
        Value::DateTime(dt) => dt.date(),
        _ => {
            return Err(SqlError::not_supported(
                "this function on a value that is not a DATE or DATETIME",
            ))
        }
    };
    if !d.is_valid() || d.year < 1 {
        return Err(SqlError::not_supported(
            "this function on a zero date or year 0",
        ));
    }
    Ok(Some(d))
}

/// LAST_DAY(d): the last day of `d`'s month.
pub(crate) fn last_day(v: &Value) -> Result<Value, SqlError> {
    Ok(match day_of(v)? {
        None => Value::Null,
        Some(d) => Value::Date(myriad_types::Date {
            day: myriad_types::datetime::days_in_month(d.year, d.month),
            ..d
        }),
    })
}

/// DATEDIFF(a, b): days from `b` to `a`, times of day ignored.
pub(crate) fn date_diff(a: &Value, b: &Value) -> Result<Value, SqlError> {
    let days = |d: myriad_types::Date| {
        myriad_types::datetime::days_from_civil(
            i64::from(d.year),
            u32::from(d.month),
            u32::from(d.day),
        )
    };
    Ok(match (day_of(a)?, day_of(b)?) {
        (Some(a), Some(b)) => Value::Int(days(a) - days(b)),
        _ => Value::Null,
    })
}

/// The day number of 0001-01-01, the first that FROM_DAYS counts from the calendar.
const FIRST_DAY_NUMBER: i64 = 366;

/// The highest day number a date has (9999-12-31).
const MAX_DAY_NUMBER: i64 = 3_652_424;

/// An integer argument, NULL as None; other values are refused with 1235.
fn int_arg(v: &Value, what: &str) -> Result<Option<i64>, SqlError> {
    match v {
        Value::Null => Ok(None),
        Value::Int(n) => Ok(Some(*n)),
        Value::UInt(n) => Ok(Some(i64::try_from(*n).unwrap_or(i64::MAX))),
        _ => Err(SqlError::not_supported(&format!(
            "{what} of a value that is not an integer"
        ))),
    }
}

/// The date of day number `n` (TO_DAYS numbering), for 1 <= year <= 9999.
fn date_of_day(n: i64) -> myriad_types::Date {
    let (y, m, d) = myriad_types::datetime::civil_from_days(n - TO_DAYS_EPOCH);
    myriad_types::Date {
        year: y as u16,
        month: m as u8,
        day: d as u8,
    }
}

/// FROM_DAYS(n): the date of day number `n`; 0000-00-00 before year 1 or after 9999.
pub(crate) fn from_days(n: &Value) -> Result<Value, SqlError> {
    Ok(match int_arg(n, "FROM_DAYS")? {
        None => Value::Null,
        Some(n) if (FIRST_DAY_NUMBER..=MAX_DAY_NUMBER).contains(&n) => Value::Date(date_of_day(n)),
        Some(_) => Value::Date(myriad_types::Date::default()),
    })
}

/// MAKEDATE(year, day_of_year): years 0..69 are 2000..2069 and 70..99 are 1970..1999;
/// NULL for a day below 1, a negative year or a result after 9999.
pub(crate) fn make_date(year: &Value, day: &Value) -> Result<Value, SqlError> {
    let (Some(y), Some(d)) = (int_arg(year, "MAKEDATE")?, int_arg(day, "MAKEDATE")?) else {
        return Ok(Value::Null);
    };
    if y < 0 || d <= 0 || y > 9999 {
        return Ok(Value::Null);
    }
    let y = match y {
        0..=69 => y + 2000,
        70..=99 => y + 1900,
        _ => y,
    };
    let first = myriad_types::datetime::days_from_civil(y, 1, 1) + TO_DAYS_EPOCH;
    Ok(match first.checked_add(d - 1) {
        Some(n) if n <= MAX_DAY_NUMBER => Value::Date(date_of_day(n)),
        _ => Value::Null,
    })
}

/// Years below 70 in a two-digit period or month count are 20xx, the others 19xx.
const YY_PART_YEAR: u64 = 70;

/// Months since year 0 of a YYMM or YYYYMM period (0 for 0 and for periods past 999999).
fn period_to_month(period: u64) -> u64 {
    if period == 0 || period > 999_999 {
        return 0;
    }
    let year = match period / 100 {
        y if y < YY_PART_YEAR => y + 2000,
        y if y < 100 => y + 1900,
        y => y,
    };
    year * 12 + period % 100 - 1
}

/// The YYYYMM period of a month count (a 32-bit count, wrapped as MariaDB's).
fn month_to_period(month: u32) -> u64 {
    if month == 0 {
        return 0;
    }
    let month = u64::from(month);
    let year = match month / 12 {
        y if y < YY_PART_YEAR => y + 2000,
        y if y < 100 => y + 1900,
        y => y,
    };
    year * 100 + month % 12 + 1
}

/// PERIOD_ADD(period, n): `period` (YYMM or YYYYMM) plus `n` months, as YYYYMM; 0 for
/// period 0.
pub(crate) fn period_add(period: &Value, n: &Value) -> Result<Value, SqlError> {
    let (Some(p), Some(n)) = (int_arg(period, "PERIOD_ADD")?, int_arg(n, "PERIOD_ADD")?) else {
        return Ok(Value::Null);
    };
    let p = p as u64;
    if p == 0 {
        return Ok(Value::Int(0));
    }
    let month = (period_to_month(p) as u32).wrapping_add(n as i32 as u32);
    Ok(Value::Int(month_to_period(month) as i64))
}

/// PERIOD_DIFF(a, b): months from period `b` to period `a`.
pub(crate) fn period_diff(a: &Value, b: &Value) -> Result<Value, SqlError> {
    let (Some(a), Some(b)) = (int_arg(a, "PERIOD_DIFF")?, int_arg(b, "PERIOD_DIFF")?) else {
        return Ok(Value::Null);
    };
    let diff = period_to_month(a as u64).wrapping_sub(period_to_month(b as u64));
    Ok(Value::Int(diff as i64))
}

/// A DATE or DATETIME operand as microseconds from 0000-01-01 (proleptic), NULL as None;
/// other values, zero dates and year 0 are refused with 1235.
fn micros_of(v: &Value) -> Result<Option<(i64, myriad_types::DateTime)>, SqlError> {
    let Some(d) = day_of(v)? else {
        return Ok(None);
    };
    let dt = v.as_datetime().unwrap_or_else(|| d.at_midnight());
    let days = myriad_types::datetime::days_from_civil(
        i64::from(d.year),
        u32::from(d.month),
        u32::from(d.day),
    );
    let secs = days * 86_400
        + i64::from(dt.hour) * 3600
        + i64::from(dt.minute) * 60
        + i64::from(dt.second);
    Ok(Some((secs * 1_000_000 + i64::from(dt.micros), dt)))
}

/// Whole months from `beg` to `end` (`beg` <= `end`), counted as MariaDB does: a month is
/// complete when `end`'s day and time of day reach `beg`'s.
fn whole_months(beg: &myriad_types::DateTime, end: &myriad_types::DateTime) -> i64 {
    let time = |t: &myriad_types::DateTime| {
        (
            u32::from(t.hour) * 3600 + u32::from(t.minute) * 60 + u32::from(t.second),
            t.micros,
        )
    };
    let months = (i64::from(end.year) - i64::from(beg.year)) * 12 + i64::from(end.month)
        - i64::from(beg.month);
    let short = end.day < beg.day || (end.day == beg.day && time(end) < time(beg));
    months - i64::from(short)
}

/// TIMESTAMPDIFF(unit, a, b): whole units from `a` to `b`, negative when `b` is earlier.
pub(crate) fn timestamp_diff(a: &Value, b: &Value, unit: &Value) -> Result<Value, SqlError> {
    let unit = unit_of(unit).ok_or_else(|| SqlError::not_supported("this TIMESTAMPDIFF unit"))?;
    let (Some((ma, ta)), Some((mb, tb))) = (micros_of(a)?, micros_of(b)?) else {
        return Ok(Value::Null);
    };
    let neg = if mb < ma { -1 } else { 1 };
    let micros = (mb - ma).abs();
    let secs = micros / 1_000_000;
    let months = || {
        if neg < 0 {
            whole_months(&tb, &ta)
        } else {
            whole_months(&ta, &tb)
        }
    };
    let n = match unit {
        IntervalUnit::Year => months() / 12,
        IntervalUnit::Quarter => months() / 3,
        IntervalUnit::Month => months(),
        IntervalUnit::Week => secs / 86_400 / 7,
        IntervalUnit::Day => secs / 86_400,
        IntervalUnit::Hour => secs / 3600,
        IntervalUnit::Minute => secs / 60,
        IntervalUnit::Second => secs,
        IntervalUnit::Microsecond => micros,
    };
    Ok(Value::Int(n * neg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use myriad_types::{Date, DateTime};

    fn date(y: u16, m: u8, d: u8) -> Value {
        Value::Date(Date::new(y, m, d).unwrap())
    }

    #[test]
    fn calendar_parts_count_from_the_calendar() {
        let part = |p, v: &Value| date_part(p, v).unwrap();
        // 2024-03-03 was a Sunday.
        assert_eq!(part(DatePart::DayOfWeek, &date(2024, 3, 3)), Value::Int(1));
        assert_eq!(part(DatePart::Weekday, &date(2024, 3, 3)), Value::Int(6));
        assert_eq!(
            part(DatePart::DayOfYear, &date(2024, 12, 31)),
            Value::Int(366)
        );
        assert_eq!(
            part(DatePart::ToDays, &date(1970, 1, 1)),
            Value::Int(719_528)
        );
        assert_eq!(part(DatePart::Quarter, &date(2024, 10, 1)), Value::Int(4));
        let dt = DateTime::new(Date::new(2024, 1, 2).unwrap(), 3, 4, 5, 6).unwrap();
        assert_eq!(
            part(DatePart::Microsecond, &Value::DateTime(dt)),
            Value::Int(6)
        );
        assert!(date_part(DatePart::Year, &Value::Bytes(b"2024".to_vec())).is_err());
    }

    #[test]
    fn timestamp_diff_counts_whole_units() {
        let unit = |u: IntervalUnit| Value::Int(u.code());
        let diff = |a: &Value, b: &Value, u| timestamp_diff(a, b, &unit(u)).unwrap();
        let (jan31, feb29) = (date(2024, 1, 31), date(2024, 2, 29));
        assert_eq!(diff(&jan31, &feb29, IntervalUnit::Month), Value::Int(0));
        assert_eq!(diff(&feb29, &jan31, IntervalUnit::Day), Value::Int(-29));
        assert_eq!(
            diff(&date(2020, 2, 29), &date(2024, 2, 29), IntervalUnit::Year),
            Value::Int(4)
        );
        assert_eq!(diff(&Value::Null, &jan31, IntervalUnit::Day), Value::Null);
    }

    #[test]
    fn day_numbers_round_trip() {
        assert_eq!(from_days(&Value::Int(366)).unwrap(), date(1, 1, 1));
        assert_eq!(
            from_days(&Value::Int(3_652_424)).unwrap(),
            date(9999, 12, 31)
        );
        assert_eq!(
            from_days(&Value::Int(365)).unwrap(),
            Value::Date(Date::default())
        );
        assert_eq!(
            make_date(&Value::Int(24), &Value::Int(60)).unwrap(),
            date(2024, 2, 29)
        );
        assert_eq!(
            make_date(&Value::Int(9999), &Value::Int(366)).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn periods_count_months() {
        let int = Value::Int;
        assert_eq!(period_add(&int(2401), &int(13)).unwrap(), int(202_502));
        assert_eq!(period_add(&int(9912), &int(1)).unwrap(), int(200_001));
        assert_eq!(period_add(&int(-1), &int(1)).unwrap(), int(200_002));
        assert_eq!(period_diff(&int(7001), &int(6912)).unwrap(), int(-1199));
    }

    #[test]
    fn date_plus_interval_types() {
        let day = Some(IntervalUnit::Day);
        assert_eq!(date_add_type(SqlType::Date, day), SqlType::Date);
        assert_eq!(
            date_add_type(SqlType::Date, Some(IntervalUnit::Hour)),
            SqlType::DateTime { fsp: 0 }
        );
        assert_eq!(
            date_add_type(
                SqlType::DateTime { fsp: 2 },
                Some(IntervalUnit::Microsecond)
            ),
            SqlType::DateTime { fsp: 6 }
        );
    }
}
