//! Dates and times: [`Date`], [`DateTime`] (with microseconds) and [`Time`] (a signed
//! duration whose hours go past 24), with the one implementation of what MariaDB does with
//! them: the text forms it parses, which dates are impossible, the text it prints, how
//! values order, and the conversion to and from microseconds since the Unix epoch.
//!
//! All three are small `Copy` structs held by value in [`crate::Value`]: no allocation per
//! value, and formatting writes straight into the caller's buffer.
//!
//! Validity follows MariaDB without NO_ZERO_DATE / NO_ZERO_IN_DATE: a zero month or day is
//! accepted (`2023-00-00`, `0000-00-00`), a day past the month's last day is not
//! (`2023-02-29`, `2023-04-31`); a zero month bounds the day by 31.

use std::cmp::Ordering;
use std::fmt;

/// Microseconds in one second.
pub const MICROS_PER_SECOND: i64 = 1_000_000;
/// Seconds in one day.
const SECONDS_PER_DAY: i64 = 86_400;
/// Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar: the shift that
/// puts the epoch at day 0 in Hinnant's civil-date algorithms.
const EPOCH_SHIFT_DAYS: i64 = 719_468;
/// Days in a 400-year Gregorian cycle.
const DAYS_PER_ERA: i64 = 146_097;
/// The largest year DATE and DATETIME hold.
pub const YEAR_MAX: u16 = 9999;

/// A calendar date. Fields in significance order, so the derived ordering is the
/// chronological one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

/// A date and a time of day with microseconds. Fields in significance order, so the
/// derived ordering is the chronological one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DateTime {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    /// 0..1_000_000.
    pub micros: u32,
}

/// A TIME: a signed duration, `[-]HHH:MM:SS[.ffffff]`, whose hours may pass 24 (MariaDB's
/// range is -838:59:59.999999..838:59:59.999999; the binary protocol carries days too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Time {
    pub negative: bool,
    pub hours: u32,
    pub minute: u8,
    pub second: u8,
    /// 0..1_000_000.
    pub micros: u32,
}

/// What [`parse_date_or_datetime`] read: a date alone, or a date with a time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Temporal {
    Date(Date),
    DateTime(DateTime),
}

/// Whether `year` is a Gregorian leap year.
pub fn is_leap_year(year: u16) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// The last day of a month (31 for month 0: a zero month, allowed without
/// NO_ZERO_IN_DATE, bounds the day by 31 as MariaDB does).
pub fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 to a civil date `(year, month, day)` (Howard Hinnant's
/// algorithm; proleptic Gregorian, any year).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + EPOCH_SHIFT_DAYS;
    let era = z.div_euclid(DAYS_PER_ERA);
    let doe = z.rem_euclid(DAYS_PER_ERA);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A civil date to days since 1970-01-01 (the inverse of [`civil_from_days`] for valid
/// dates with nonzero month and day).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if month > 2 { month - 3 } else { month + 9 } as i64;
    let doy = (153 * mp + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * DAYS_PER_ERA + doe - EPOCH_SHIFT_DAYS
}

impl Date {
    /// A date MariaDB accepts (zero month and day allowed, impossible days not), or None.
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        (month <= 12 && day <= days_in_month(year, month)).then_some(Date { year, month, day })
    }

    /// Whether MariaDB accepts this date (see [`Date::new`]).
    pub fn is_valid(self) -> bool {
        Date::new(self.year, self.month, self.day).is_some()
    }

    /// Whether a month or day is zero (`2023-00-00`): such a date has no place on the
    /// calendar and no epoch offset.
    pub fn has_zero_part(self) -> bool {
        self.month == 0 || self.day == 0
    }

    /// Midnight of this date.
    pub fn at_midnight(self) -> DateTime {
        DateTime {
            year: self.year,
            month: self.month,
            day: self.day,
            ..DateTime::default()
        }
    }

    /// Days since 1970-01-01 (None for a date with a zero part).
    pub fn days_since_epoch(self) -> Option<i64> {
        (!self.has_zero_part())
            .then(|| days_from_civil(self.year.into(), self.month.into(), self.day.into()))
    }

    /// `YYYY-MM-DD` appended to `out`.
    pub fn write_text(self, out: &mut Vec<u8>) {
        write_year(out, self.year);
        out.push(b'-');
        write_two(out, self.month.into());
        out.push(b'-');
        write_two(out, self.day.into());
    }

    /// `YYYY-MM-DD` as an owned string.
    pub fn to_text(self) -> String {
        self.to_string()
    }
}

impl DateTime {
    /// A date and time MariaDB accepts, or None.
    pub fn new(date: Date, hour: u8, minute: u8, second: u8, micros: u32) -> Option<DateTime> {
        (date.is_valid() && hour <= 23 && minute <= 59 && second <= 59 && micros < 1_000_000)
            .then_some(DateTime {
                year: date.year,
                month: date.month,
                day: date.day,
                hour,
                minute,
                second,
                micros,
            })
    }

    /// The date part.
    pub fn date(self) -> Date {
        Date {
            year: self.year,
            month: self.month,
            day: self.day,
        }
    }

    /// Whether MariaDB accepts this value (see [`DateTime::new`]).
    pub fn is_valid(self) -> bool {
        DateTime::new(
            self.date(),
            self.hour,
            self.minute,
            self.second,
            self.micros,
        )
        .is_some()
    }

    /// The UTC time `micros` microseconds after 1970-01-01 00:00:00; the fraction is
    /// dropped unless `keep_micros`. Years outside 0..=9999 are clamped to that range.
    pub fn from_unix_micros(micros: i64, keep_micros: bool) -> DateTime {
        let secs = micros.div_euclid(MICROS_PER_SECOND);
        let days = secs.div_euclid(SECONDS_PER_DAY);
        let rem = secs.rem_euclid(SECONDS_PER_DAY);
        let (y, m, d) = civil_from_days(days);
        DateTime {
            year: y.clamp(0, YEAR_MAX.into()) as u16,
            month: m as u8,
            day: d as u8,
            hour: (rem / 3600) as u8,
            minute: (rem % 3600 / 60) as u8,
            second: (rem % 60) as u8,
            micros: if keep_micros {
                micros.rem_euclid(MICROS_PER_SECOND) as u32
            } else {
                0
            },
        }
    }

    /// Microseconds since 1970-01-01 00:00:00 UTC (None for a date with a zero part).
    pub fn unix_micros(self) -> Option<i64> {
        let days = self.date().days_since_epoch()?;
        let secs = days * SECONDS_PER_DAY
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second);
        Some(secs * MICROS_PER_SECOND + i64::from(self.micros))
    }

    /// `YYYY-MM-DD HH:MM:SS` and `frac_digits` (0..=6) digits of the fraction appended to
    /// `out`; see [`frac_digits_auto`] for MariaDB's choice when a column promises none.
    pub fn write_text(self, out: &mut Vec<u8>, frac_digits: u8) {
        self.date().write_text(out);
        out.push(b' ');
        write_hms(out, self.hour.into(), self.minute, self.second);
        write_fraction(out, self.micros, frac_digits);
    }

    /// The text form with microseconds only when there are some.
    pub fn to_text(self) -> String {
        self.to_string()
    }
}

impl Time {
    /// A time from its parts, or None when minutes, seconds or micros are out of range.
    pub fn new(negative: bool, hours: u32, minute: u8, second: u8, micros: u32) -> Option<Time> {
        (minute <= 59 && second <= 59 && micros < 1_000_000).then_some(Time {
            negative,
            hours,
            minute,
            second,
            micros,
        })
    }

    /// The time of a signed duration in microseconds (hours as many as it takes).
    pub fn from_total_micros(micros: i64) -> Time {
        let abs = micros.unsigned_abs();
        let secs = abs / MICROS_PER_SECOND as u64;
        Time {
            negative: micros < 0,
            hours: u32::try_from(secs / 3600).unwrap_or(u32::MAX),
            minute: (secs / 60 % 60) as u8,
            second: (secs % 60) as u8,
            micros: (abs % MICROS_PER_SECOND as u64) as u32,
        }
    }

    /// The signed duration in microseconds.
    pub fn total_micros(self) -> i64 {
        let secs =
            i64::from(self.hours) * 3600 + i64::from(self.minute) * 60 + i64::from(self.second);
        let v = secs * MICROS_PER_SECOND + i64::from(self.micros);
        if self.negative {
            -v
        } else {
            v
        }
    }

    /// `[-]HH:MM:SS` (hours with as many digits as they need, at least two) and
    /// `frac_digits` (0..=6) digits of the fraction appended to `out`.
    pub fn write_text(self, out: &mut Vec<u8>, frac_digits: u8) {
        if self.negative {
            out.push(b'-');
        }
        write_hms(out, self.hours, self.minute, self.second);
        write_fraction(out, self.micros, frac_digits);
    }

    /// The text form with microseconds only when there are some.
    pub fn to_text(self) -> String {
        self.to_string()
    }
}

/// Durations order by their signed length; `-00:00:00` sorts just before `00:00:00` (it
/// is a distinct value of the struct, so the order stays consistent with `Eq`).
impl Ord for Time {
    fn cmp(&self, other: &Time) -> Ordering {
        self.total_micros()
            .cmp(&other.total_micros())
            .then(other.negative.cmp(&self.negative))
    }
}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Time) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The most digits of fractional seconds DATETIME and TIMESTAMP keep.
pub const MAX_FSP: u8 = 6;

/// `micros` cut to `fsp` digits of fractional seconds (MariaDB truncates, it does not
/// round, unless sql_mode has TIME_ROUND_FRACTIONAL).
pub fn truncate_micros(micros: u32, fsp: u8) -> u32 {
    let unit = 10u32.pow(u32::from(MAX_FSP.saturating_sub(fsp)));
    micros - micros % unit
}

/// How many fraction digits a DATETIME or TIME prints for a result column with `decimals`
/// fractional digits: that many for 1..=6; 31 is NOT_FIXED_DEC (the column promises no
/// scale: six when there are microseconds, else none, which is `None`); otherwise none.
pub fn frac_digits(decimals: u8) -> Option<u8> {
    match decimals {
        1..=6 => Some(decimals),
        31 => None,
        _ => Some(0),
    }
}

/// How many fraction digits MariaDB prints when the column promises no scale: all six
/// when there are microseconds, none otherwise.
pub fn frac_digits_auto(micros: u32) -> u8 {
    if micros != 0 {
        6
    } else {
        0
    }
}

fn write_two(out: &mut Vec<u8>, v: u32) {
    out.push(b'0' + (v / 10 % 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

fn write_year(out: &mut Vec<u8>, year: u16) {
    if year > YEAR_MAX {
        out.extend_from_slice(year.to_string().as_bytes());
        return;
    }
    write_two(out, u32::from(year) / 100);
    write_two(out, u32::from(year) % 100);
}

/// `HH:MM:SS`, hours in at least two digits.
fn write_hms(out: &mut Vec<u8>, hours: u32, minute: u8, second: u8) {
    if hours < 100 {
        write_two(out, hours);
    } else {
        let mut digits = [0u8; 10];
        let mut n = hours;
        let mut i = digits.len();
        while n > 0 {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        out.extend_from_slice(&digits[i..]);
    }
    out.push(b':');
    write_two(out, minute.into());
    out.push(b':');
    write_two(out, second.into());
}

/// `.` and the first `digits` (0..=6) of the six-digit fraction; nothing for 0 digits.
fn write_fraction(out: &mut Vec<u8>, micros: u32, digits: u8) {
    let digits = digits.min(6);
    if digits == 0 {
        return;
    }
    out.push(b'.');
    let mut divisor = 100_000;
    let micros = micros % 1_000_000;
    for _ in 0..digits {
        out.push(b'0' + (micros / divisor % 10) as u8);
        divisor /= 10;
    }
}

fn fmt_via_bytes(f: &mut fmt::Formatter<'_>, write: impl FnOnce(&mut Vec<u8>)) -> fmt::Result {
    let mut buf = Vec::with_capacity(32);
    write(&mut buf);
    // Only ASCII digits and punctuation are written.
    f.write_str(std::str::from_utf8(&buf).map_err(|_| fmt::Error)?)
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_via_bytes(f, |b| self.write_text(b))
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_via_bytes(f, |b| self.write_text(b, frac_digits_auto(self.micros)))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_via_bytes(f, |b| self.write_text(b, frac_digits_auto(self.micros)))
    }
}

/// A fraction of 1 to 6 digits as microseconds (`5` is 500000).
fn parse_fraction(f: &str) -> Option<u32> {
    if f.is_empty() || f.len() > 6 || !f.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(f.parse::<u32>().ok()? * 10u32.pow(6 - f.len() as u32))
}

/// Parse a date or a date and time as MariaDB reads text: `YYYY-MM-DD` or
/// `YYYY-MM-DD[ T]HH[:MM[:SS[.ffffff]]]`, where any ASCII punctuation may stand for `-` and
/// `:` (`2002.11.12`, `2002/11/12 10.11.12`), a two-digit year means 1970..2069, and digits
/// alone read as `YYYYMMDD`, `YYMMDD`, `YYYYMMDDHHMMSS` or `YYMMDDHHMMSS` (with an optional
/// `.ffffff`). Surrounding spaces are ignored; None for other text and for impossible dates
/// and times.
pub fn parse_date_or_datetime(text: &str) -> Option<Temporal> {
    let text = text.trim();
    if let Some(compact) = parse_compact(text) {
        return Some(compact);
    }
    let (date, time) = match text.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t.trim_start())),
        None => (text, None),
    };
    let mut parts = date.split(|c: char| c.is_ascii_punctuation());
    let year_text = parts.next()?;
    let month: u8 = digits(parts.next()?)?.parse().ok()?;
    let day: u8 = digits(parts.next()?)?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    let year = full_year(digits(year_text)?, month, day)?;
    let date = Date::new(year, month, day)?;
    let Some(time) = time else {
        return Some(Temporal::Date(date));
    };
    let (hms, frac) = split_fraction_after_seconds(time);
    let mut t = hms.split(|c: char| c.is_ascii_punctuation());
    let hour: u8 = digits(t.next()?)?.parse().ok()?;
    let minute: u8 = digits(t.next().unwrap_or("0"))?.parse().ok()?;
    let second: u8 = digits(t.next().unwrap_or("0"))?.parse().ok()?;
    if t.next().is_some() {
        return None;
    }
    let micros = match frac {
        Some(f) => parse_fraction(f)?,
        None => 0,
    };
    DateTime::new(date, hour, minute, second, micros).map(Temporal::DateTime)
}

/// `text` if it is one or more ASCII digits.
fn digits(text: &str) -> Option<&str> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())).then_some(text)
}

/// The year a date's year field names: two digits are 1970..2069 (unless the whole date is
/// zero), more are the year as written.
fn full_year(text: &str, month: u8, day: u8) -> Option<u16> {
    let year: u16 = text.parse().ok()?;
    if text.len() == 2 && (year, month, day) != (0, 0, 0) {
        return Some(if year < 70 { 2000 + year } else { 1900 + year });
    }
    Some(year)
}

/// A time's fields and its fraction: a `.` after the seconds starts the fraction
/// (`10:11:12.5`, `10.11.12.5`); any other punctuation, and a `.` before, is a delimiter.
fn split_fraction_after_seconds(time: &str) -> (&str, Option<&str>) {
    let mut fields = 0;
    for (i, c) in time.char_indices() {
        if c.is_ascii_punctuation() {
            fields += 1;
            if fields == 3 && c == '.' {
                return (&time[..i], Some(&time[i + 1..]));
            }
        }
    }
    (time, None)
}

/// Digits alone: `YYYYMMDD`, `YYMMDD`, `YYYYMMDDHHMMSS[.f]`, `YYMMDDHHMMSS[.f]`.
fn parse_compact(text: &str) -> Option<Temporal> {
    let (whole, frac) = match text.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (text, None),
    };
    digits(whole)?;
    let (year_len, has_time) = match (whole.len(), frac) {
        (8, None) => (4, false),
        (6, None) => (2, false),
        (14, _) => (4, true),
        (12, _) => (2, true),
        _ => return None,
    };
    let num = |from: usize, len: usize| whole[from..from + len].parse::<u8>().ok();
    let month = num(year_len, 2)?;
    let day = num(year_len + 2, 2)?;
    let year = full_year(&whole[..year_len], month, day)?;
    let date = Date::new(year, month, day)?;
    if !has_time {
        return Some(Temporal::Date(date));
    }
    let at = year_len + 4;
    let micros = match frac {
        Some(f) => parse_fraction(f)?,
        None => 0,
    };
    DateTime::new(date, num(at, 2)?, num(at + 2, 2)?, num(at + 4, 2)?, micros)
        .map(Temporal::DateTime)
}

/// Parse a TIME: `[-][D ]H[H...]:MM[:SS[.ffffff]]`, surrounding spaces ignored (a day
/// count adds 24 hours per day); None for other text.
pub fn parse_time(text: &str) -> Option<Time> {
    let text = text.trim();
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (days, clock) = match rest.split_once(' ') {
        Some((d, c)) => (d.parse::<u32>().ok()?, c),
        None => (0, rest),
    };
    let (hms, frac) = match clock.split_once('.') {
        Some((h, f)) => (h, Some(f)),
        None => (clock, None),
    };
    let mut t = hms.split(':');
    let hours: u32 = t.next()?.parse().ok()?;
    let minute: u8 = t.next()?.parse().ok()?;
    let second: u8 = t.next().unwrap_or("0").parse().ok()?;
    if t.next().is_some() {
        return None;
    }
    let micros = match frac {
        Some(f) => parse_fraction(f)?,
        None => 0,
    };
    let hours = days.checked_mul(24)?.checked_add(hours)?;
    Time::new(negative, hours, minute, second, micros)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dt(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> DateTime {
        DateTime {
            year: y,
            month: mo,
            day: d,
            hour: h,
            minute: mi,
            second: s,
            micros: us,
        }
    }

    #[test]
    fn civil_days_round_trip() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(days_from_civil(2024, 1, 1), 19_723);
        assert_eq!(days_from_civil(0, 1, 1), -719_528);
        for days in (-800_000..3_000_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "days {days}");
        }
    }

    #[test]
    fn impossible_dates_are_rejected() {
        let p = parse_date_or_datetime;
        assert_eq!(
            p("2024-02-29 13:14:15.5"),
            Some(Temporal::DateTime(dt(2024, 2, 29, 13, 14, 15, 500_000)))
        );
        assert_eq!(p("2024-13-01"), None);
        assert_eq!(p("2023-02-30"), None);
        assert_eq!(p("2023-02-29 10:00:00"), None);
        assert_eq!(p("2023-04-31"), None);
        assert_eq!(p("1900-02-29"), None);
        assert_eq!(p("2024-01-01 24:00:00"), None);
        assert_eq!(p("2024-01-01 10:60"), None);
        assert_eq!(p("2024-01-01 10:00:00.1234567"), None);
        assert_eq!(p("2024-01-01 10:00:00."), None);
        assert_eq!(p("2024-01-01-01"), None);
        // MariaDB's other spellings.
        let day = |year, month, day| Some(Temporal::Date(Date { year, month, day }));
        assert_eq!(p("2002.11.12"), day(2002, 11, 12));
        assert_eq!(p("2002/011/012"), day(2002, 11, 12));
        assert_eq!(p("02-11-12"), day(2002, 11, 12));
        assert_eq!(p("99-11-12"), day(1999, 11, 12));
        assert_eq!(p("00-00-00"), day(0, 0, 0));
        assert_eq!(p("20021112"), day(2002, 11, 12));
        assert_eq!(p("021112"), day(2002, 11, 12));
        assert_eq!(p("2002111"), None);
        assert_eq!(
            p("20021112101112.5"),
            Some(Temporal::DateTime(dt(2002, 11, 12, 10, 11, 12, 500_000)))
        );
        assert_eq!(
            p("2002/11/12 10.11.12.25"),
            Some(Temporal::DateTime(dt(2002, 11, 12, 10, 11, 12, 250_000)))
        );
        assert_eq!(p("2002-11-12 10:11:12:13"), None);
        assert_eq!(p("2002-1a-12"), None);
        assert!(p("2000-02-29").is_some());
        assert!(p("2023-00-00").is_some());
        assert!(p("0000-00-00 00:00:00").is_some());
        assert_eq!(
            p(" 2024-05-06T07:08 "),
            Some(Temporal::DateTime(dt(2024, 5, 6, 7, 8, 0, 0)))
        );
        assert_eq!(
            p("2024-5-6"),
            Some(Temporal::Date(Date {
                year: 2024,
                month: 5,
                day: 6
            }))
        );
    }

    #[test]
    fn text_forms() {
        let d = dt(2024, 1, 2, 3, 4, 5, 60);
        assert_eq!(d.to_text(), "2024-01-02 03:04:05.000060");
        assert_eq!(dt(2024, 1, 2, 3, 4, 5, 0).to_text(), "2024-01-02 03:04:05");
        let mut out = Vec::new();
        d.write_text(&mut out, 3);
        assert_eq!(out, b"2024-01-02 03:04:05.000");
        assert_eq!(d.date().to_text(), "2024-01-02");
        assert_eq!(Date::default().to_text(), "0000-00-00");
        let t = Time::new(true, 100, 2, 3, 0).unwrap();
        assert_eq!(t.to_text(), "-100:02:03");
        assert_eq!(
            Time::new(false, 5, 0, 1, 120).unwrap().to_text(),
            "05:00:01.000120"
        );
        assert_eq!(
            Time::new(false, 838, 59, 59, 0).unwrap().to_text(),
            "838:59:59"
        );
    }

    #[test]
    fn times_parse_and_order() {
        assert_eq!(parse_time("-838:59:59"), Time::new(true, 838, 59, 59, 0));
        assert_eq!(
            parse_time("1 02:03:04.5"),
            Time::new(false, 26, 3, 4, 500_000)
        );
        assert_eq!(parse_time("10:61:00"), None);
        assert_eq!(parse_time("10"), None);
        assert_eq!(parse_time("1:2:3:4"), None);
        let neg = Time::new(true, 1, 0, 0, 0).unwrap();
        let zero = Time::default();
        assert!(neg < zero);
        assert_eq!(Time::new(true, 0, 0, 0, 0).unwrap().total_micros(), 0);
        assert!(Time::new(true, 0, 0, 0, 0).unwrap() < zero);
        assert!(Time::new(false, 0, 0, 0, 1).unwrap() > zero);
    }

    #[test]
    fn epoch_micros() {
        // 2021-03-04 05:06:07 UTC.
        let micros = 1_614_834_367_000_000;
        assert_eq!(
            DateTime::from_unix_micros(micros + 250, false),
            dt(2021, 3, 4, 5, 6, 7, 0)
        );
        let kept = DateTime::from_unix_micros(micros + 250, true);
        assert_eq!(kept, dt(2021, 3, 4, 5, 6, 7, 250));
        assert_eq!(kept.unix_micros(), Some(micros + 250));
        assert_eq!(
            DateTime::from_unix_micros(-1, true),
            dt(1969, 12, 31, 23, 59, 59, 999_999)
        );
        assert_eq!(dt(2023, 0, 0, 0, 0, 0, 0).unix_micros(), None);
    }

    fn any_datetime() -> impl Strategy<Value = DateTime> {
        (
            0u16..=9999,
            0u8..=12,
            0u8..=31,
            0u8..24,
            0u8..60,
            0u8..60,
            0u32..1_000_000,
        )
            .prop_map(|(y, mo, d, h, mi, s, us)| {
                let d = d.min(days_in_month(y, mo));
                dt(y, mo, d, h, mi, s, us)
            })
    }

    proptest! {
        /// What is printed parses back to the same value.
        #[test]
        fn datetime_text_round_trips(v in any_datetime()) {
            prop_assert_eq!(parse_date_or_datetime(&v.to_text()), Some(Temporal::DateTime(v)));
            prop_assert_eq!(
                parse_date_or_datetime(&v.date().to_text()),
                Some(Temporal::Date(v.date()))
            );
        }

        /// Text order of full-precision datetimes is their chronological order.
        #[test]
        fn order_matches_text_and_epoch(a in any_datetime(), b in any_datetime()) {
            let (mut ta, mut tb) = (Vec::new(), Vec::new());
            a.write_text(&mut ta, 6);
            b.write_text(&mut tb, 6);
            prop_assert_eq!(a.cmp(&b), ta.cmp(&tb));
            if let (Some(ma), Some(mb)) = (a.unix_micros(), b.unix_micros()) {
                prop_assert_eq!(a.cmp(&b), ma.cmp(&mb));
                prop_assert_eq!(DateTime::from_unix_micros(ma, true), a);
            }
        }

        #[test]
        fn time_text_round_trips(
            negative: bool, hours in 0u32..100_000, m in 0u8..60, s in 0u8..60,
            us in 0u32..1_000_000,
        ) {
            let t = Time::new(negative, hours, m, s, us).unwrap();
            prop_assert_eq!(parse_time(&t.to_text()), Some(t));
        }
    }
}
