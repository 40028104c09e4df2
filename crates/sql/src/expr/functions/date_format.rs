//! DATE_FORMAT and the names of days and months (DAYNAME, MONTHNAME), in the en_US locale
//! (`lc_time_names`): the caller refuses any other locale.
//!
//! The week numbers (`%U %u %V %v %X %x`) follow MariaDB's week rules: a week starts on
//! Sunday or Monday, and week 1 is either the week holding the year's first such day or
//! the first week with four days or more in the year.

use crate::error::SqlError;
use crate::expr::eval::SqlValue;
use crate::value::Value;
use myriad_types::datetime::days_from_civil;
use myriad_types::{DateTime, Time};

/// Day names in en_US, Monday first (DATE_FORMAT writes them, STR_TO_DATE reads them).
pub(crate) const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Month names in en_US.
pub(crate) const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Week rule flags, as MariaDB combines them.
const WEEK_MONDAY_FIRST: u32 = 1;
const WEEK_YEAR: u32 = 2;
const WEEK_FIRST_WEEKDAY: u32 = 4;

/// A DATE or DATETIME operand as a date and time, for the functions that need a real
/// calendar day; NULL gives None. Other values, zero dates and year 0 are refused with 1235.
fn calendar_day(v: &Value, what: &str) -> Result<Option<DateTime>, SqlError> {
    let dt = match v {
        Value::Null => return Ok(None),
        Value::Date(d) => d.at_midnight(),
        Value::DateTime(dt) => *dt,
        _ => {
            return Err(SqlError::not_supported(&format!(
                "{what} of a value that is not a DATE or DATETIME"
            )))
        }
    };
    if dt.date().has_zero_part() || dt.year < 1 {
        return Err(SqlError::not_supported(&format!(
            "{what} of a zero date or of year 0"
        )));
    }
    Ok(Some(dt))
}

/// The day number MariaDB's calendar counts (TO_DAYS).
fn day_number(year: u32, month: u32, day: u32) -> i64 {
    days_from_civil(i64::from(year), month, day) + 719_528
}

/// 0 for Monday to 6 for Sunday, or 0 for Sunday to 6 for Saturday (`sunday_first`).
fn weekday(daynr: i64, sunday_first: bool) -> u32 {
    (daynr + 5 + i64::from(sunday_first)).rem_euclid(7) as u32
}

/// Days in `year` as MariaDB's week count has them (year 0 has 365).
fn days_in_year(year: u32) -> i64 {
    if year > 0 && u16::try_from(year).is_ok_and(myriad_types::datetime::is_leap_year) {
        366
    } else {
        365
    }
}

/// The week of `dt` under the rule `flags`, and the year that week belongs to.
fn calc_week(dt: &DateTime, flags: u32) -> (u32, u32) {
    let (y, m, d) = (u32::from(dt.year), u32::from(dt.month), u32::from(dt.day));
    let daynr = day_number(y, m, d);
    let mut first_daynr = day_number(y, 1, 1);
    let monday_first = flags & WEEK_MONDAY_FIRST != 0;
    let mut week_year = flags & WEEK_YEAR != 0;
    let first_weekday = flags & WEEK_FIRST_WEEKDAY != 0;
    let mut wd = i64::from(weekday(first_daynr, !monday_first));
    let mut year = y;
    let late_start = |wd: i64| (first_weekday && wd != 0) || (!first_weekday && wd >= 4);
    if m == 1 && i64::from(d) <= 7 - wd {
        if !week_year && late_start(wd) {
            return (0, year);
        }
        week_year = true;
        year -= 1;
        let days = days_in_year(year);
        first_daynr -= days;
        wd = (wd + 53 * 7 - days).rem_euclid(7);
    }
    let days = if late_start(wd) {
        daynr - (first_daynr + (7 - wd))
    } else {
        daynr - (first_daynr - wd)
    };
    if week_year && days >= 52 * 7 {
        let wd2 = (wd + days_in_year(year)) % 7;
        if (!first_weekday && wd2 < 4) || (first_weekday && wd2 == 0) {
            return (1, year + 1);
        }
    }
    ((days / 7 + 1) as u32, year)
}

fn ordinal_suffix(day: u8) -> &'static str {
    match day {
        11..=13 => "th",
        _ => match day % 10 {
            1 => "st",
            2 => "nd",
            3 => "rd",
            _ => "th",
        },
    }
}

/// `fmt` applied to `dt` (MariaDB's specifiers; an unknown letter stands for itself, a
/// trailing `%` for itself).
fn format(dt: &DateTime, fmt: &[u8]) -> Vec<u8> {
    let (y, m, d) = (u32::from(dt.year), u32::from(dt.month), u32::from(dt.day));
    let daynr = day_number(y, m, d);
    let hour12 = (u32::from(dt.hour) + 11) % 12 + 1;
    let ampm = if dt.hour < 12 { "AM" } else { "PM" };
    let mut bytes = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' || i + 1 == fmt.len() {
            bytes.push(fmt[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = fmt[i];
        i += 1;
        let s = match c {
            b'M' => MONTH_NAMES[m as usize - 1].to_string(),
            b'b' => MONTH_NAMES[m as usize - 1][..3].to_string(),
            b'W' => DAY_NAMES[weekday(daynr, false) as usize].to_string(),
            b'a' => DAY_NAMES[weekday(daynr, false) as usize][..3].to_string(),
            b'D' => format!("{d}{}", ordinal_suffix(dt.day)),
            b'Y' => format!("{y:04}"),
            b'y' => format!("{:02}", y % 100),
            b'm' => format!("{m:02}"),
            b'c' => format!("{m}"),
            b'd' => format!("{d:02}"),
            b'e' => format!("{d}"),
            b'f' => format!("{:06}", dt.micros),
            b'H' => format!("{:02}", dt.hour),
            b'k' => format!("{}", dt.hour),
            b'h' | b'I' => format!("{hour12:02}"),
            b'l' => format!("{hour12}"),
            b'i' => format!("{:02}", dt.minute),
            b'j' => format!("{:03}", daynr - day_number(y, 1, 1) + 1),
            b'p' => ampm.to_string(),
            b'r' => format!("{hour12:02}:{:02}:{:02} {ampm}", dt.minute, dt.second),
            b'S' | b's' => format!("{:02}", dt.second),
            b'T' => format!("{:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second),
            b'U' => format!("{:02}", calc_week(dt, WEEK_FIRST_WEEKDAY).0),
            b'u' => format!("{:02}", calc_week(dt, WEEK_MONDAY_FIRST).0),
            b'V' => format!("{:02}", calc_week(dt, WEEK_YEAR | WEEK_FIRST_WEEKDAY).0),
            b'v' => format!("{:02}", calc_week(dt, WEEK_YEAR | WEEK_MONDAY_FIRST).0),
            b'X' => format!("{:04}", calc_week(dt, WEEK_YEAR | WEEK_FIRST_WEEKDAY).1),
            b'x' => format!("{:04}", calc_week(dt, WEEK_YEAR | WEEK_MONDAY_FIRST).1),
            b'w' => format!("{}", weekday(daynr, true)),
            other => {
                bytes.push(other);
                continue;
            }
        };
        bytes.extend_from_slice(s.as_bytes());
    }
    bytes
}

/// DATE_FORMAT(date, fmt): NULL for a NULL operand or an empty format.
pub(crate) fn date_format(date: &Value, fmt: &Value) -> Result<Value, SqlError> {
    let fmt = match fmt {
        Value::Null => return Ok(Value::Null),
        Value::Bytes(b) if b.is_empty() => return Ok(Value::Null),
        Value::Bytes(b) => b,
        _ => {
            return Err(SqlError::not_supported(
                "DATE_FORMAT with a format that is not a string",
            ))
        }
    };
    Ok(match calendar_day(date, "DATE_FORMAT")? {
        None => Value::Null,
        Some(dt) => Value::Bytes(format(&dt, fmt)),
    })
}

/// `fmt` applied to a TIME: None where `fmt` names a part of a date (MariaDB's NULL); a
/// negative time starts with `-`, hours beyond 24 print whole in `%H %k %T`.
fn format_time(t: &Time, fmt: &[u8]) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    if t.negative {
        bytes.push(b'-');
    }
    let hour12 = (t.hours % 24 + 11) % 12 + 1;
    let ampm = if t.hours % 24 < 12 { "AM" } else { "PM" };
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' || i + 1 == fmt.len() {
            bytes.push(fmt[i]);
            i += 1;
            continue;
        }
        let c = fmt[i + 1];
        i += 2;
        let s = match c {
            b'f' => format!("{:06}", t.micros),
            b'H' => format!("{:02}", t.hours),
            b'k' => format!("{}", t.hours),
            b'h' | b'I' => format!("{hour12:02}"),
            b'l' => format!("{hour12}"),
            b'i' => format!("{:02}", t.minute),
            b'p' => ampm.to_string(),
            b'r' => format!("{hour12:02}:{:02}:{:02} {ampm}", t.minute, t.second),
            b'S' | b's' => format!("{:02}", t.second),
            b'T' => format!("{:02}:{:02}:{:02}", t.hours, t.minute, t.second),
            b'a' | b'b' | b'c' | b'D' | b'd' | b'e' | b'j' | b'M' | b'm' | b'U' | b'u' | b'V'
            | b'v' | b'W' | b'w' | b'X' | b'x' | b'Y' | b'y' => return None,
            other => {
                bytes.push(other);
                continue;
            }
        };
        bytes.extend_from_slice(s.as_bytes());
    }
    Some(bytes)
}

/// TIME_FORMAT(time, fmt): NULL for a NULL operand, an empty format or a format naming a
/// part of a date.
/// Other operands are read as a TIME first (see `time::to_time`).
pub(crate) fn time_format(
    time: &Value,
    fmt: &Value,
    warnings: &mut Vec<crate::expr::eval::Warning>,
) -> Result<Value, SqlError> {
    let fmt = match fmt {
        Value::Null => return Ok(Value::Null),
        Value::Bytes(b) if b.is_empty() => return Ok(Value::Null),
        Value::Bytes(b) => b,
        _ => {
            return Err(SqlError::not_supported(
                "TIME_FORMAT with a format that is not a string",
            ))
        }
    };
    match super::time::to_time(time, warnings) {
        None => Ok(Value::Null),
        Some(t) => Ok(format_time(&t, fmt).map_or(Value::Null, Value::Bytes)),
    }
}

/// The largest timestamp FROM_UNIXTIME turns into a date (2038-01-19 03:14:07 UTC).
const MAX_TIMESTAMP: i64 = 2_147_483_647;

/// FROM_UNIXTIME(ts[, fmt]) in UTC: NULL for NULL, a negative timestamp or one past
/// 2038-01-19 03:14:07; with a format, the date formatted as DATE_FORMAT does. Timestamps
/// that are not integers are refused with 1235.
pub(crate) fn from_unixtime(ts: &Value, fmt: Option<&Value>) -> Result<Value, SqlError> {
    let ts = match ts {
        Value::Null => return Ok(Value::Null),
        Value::Int(n) => *n,
        Value::UInt(n) => i64::try_from(*n).unwrap_or(i64::MAX),
        _ => {
            return Err(SqlError::not_supported(
                "FROM_UNIXTIME of a value that is not an integer",
            ))
        }
    };
    if !(0..=MAX_TIMESTAMP).contains(&ts) {
        return Ok(Value::Null);
    }
    let dt = Value::DateTime(DateTime::from_unix_micros(ts * 1_000_000, false));
    match fmt {
        None => Ok(dt),
        Some(fmt) => date_format(&dt, fmt),
    }
}

/// The display width MariaDB gives DATE_FORMAT's result for a literal format.
pub(crate) fn format_width(fmt: &[u8]) -> u32 {
    let mut size = 0;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] == b'%' && i + 1 < fmt.len() {
            i += 1;
            size += match fmt[i] {
                b'M' | b'W' => 64,
                b'D' | b'Y' | b'x' | b'X' => 4,
                b'a' | b'b' => 32,
                b'j' => 3,
                b'U' | b'u' | b'V' | b'v' | b'y' | b'm' | b'd' | b'h' | b'I' | b'i' | b'l'
                | b'p' | b'S' | b's' | b'c' | b'e' => 2,
                b'k' | b'H' => 7,
                b'r' => 11,
                b'T' => 8,
                b'f' => 6,
                _ => 1,
            };
        } else {
            size += 1;
        }
        i += 1;
    }
    size
}

/// WEEK(d, mode) or, `yearweek`, YEARWEEK(d, mode) (year times 100 plus week). The mode's
/// bit 0 starts weeks on Monday, bit 1 counts weeks 1..53 (not 0..53), bit 2 makes week
/// 1 the first with the first day of the week in the year.
pub(crate) fn week(date: &Value, mode: i64, yearweek: bool) -> Result<Value, SqlError> {
    let what = if yearweek { "YEARWEEK" } else { "WEEK" };
    let Some(dt) = calendar_day(date, what)? else {
        return Ok(Value::Null);
    };
    let mut flags = (mode & 7) as u32;
    if flags & WEEK_MONDAY_FIRST == 0 {
        flags ^= WEEK_FIRST_WEEKDAY;
    }
    Ok(Value::Int(if yearweek {
        let (week, year) = calc_week(&dt, flags | WEEK_YEAR);
        i64::from(year) * 100 + i64::from(week)
    } else {
        i64::from(calc_week(&dt, flags).0)
    }))
}

/// DAYNAME(d) (`month` false) or MONTHNAME(d).
pub(crate) fn name_of(date: &Value, month: bool) -> Result<Value, SqlError> {
    let what = if month { "MONTHNAME" } else { "DAYNAME" };
    Ok(match calendar_day(date, what)? {
        None => Value::Null,
        Some(dt) if month => Value::text(MONTH_NAMES[usize::from(dt.month) - 1]),
        Some(dt) => {
            let daynr = day_number(u32::from(dt.year), u32::from(dt.month), u32::from(dt.day));
            Value::text(DAY_NAMES[weekday(daynr, false) as usize])
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use myriad_types::Date;

    fn fmt(y: u16, m: u8, d: u8, f: &str) -> String {
        let dt = Date::new(y, m, d).unwrap().at_midnight();
        String::from_utf8(format(&dt, f.as_bytes())).unwrap()
    }

    #[test]
    fn names_and_numbers() {
        assert_eq!(
            fmt(2024, 3, 3, "%W %a %M %b %D"),
            "Sunday Sun March Mar 3rd"
        );
        assert_eq!(fmt(2024, 3, 11, "%D %e %c %j %w"), "11th 11 3 071 1");
        assert_eq!(
            fmt(2024, 3, 3, "%r %T %p %h %l"),
            "12:00:00 AM 00:00:00 AM 12 12"
        );
        assert_eq!(fmt(2024, 3, 3, "%q %"), "q %");
    }

    #[test]
    fn times_print_whole_hours_and_refuse_date_parts() {
        let t = Time {
            negative: true,
            hours: 838,
            minute: 59,
            second: 59,
            micros: 500_000,
        };
        let f = |s: &str| format_time(&t, s.as_bytes()).map(|b| String::from_utf8(b).unwrap());
        assert_eq!(
            f("%H|%k|%h|%p|%r|%T|%f").unwrap(),
            "-838|838|10|PM|10:59:59 PM|838:59:59|500000"
        );
        assert_eq!(f("%H %d"), None);
    }

    #[test]
    fn weeks_follow_the_rules() {
        // 2021-01-01 was a Friday: week 0 counting from Sunday or Monday, week 53 of
        // 2020 in the ISO rule.
        assert_eq!(
            fmt(2021, 1, 1, "%U %u %V %v %X %x"),
            "00 00 52 53 2020 2020"
        );
        assert_eq!(fmt(2024, 12, 30, "%U %u %v %x"), "52 53 01 2025");
    }
}
