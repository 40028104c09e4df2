//! Date arithmetic with an `INTERVAL n unit` (DATE_ADD, DATE_SUB, `d + INTERVAL n unit`):
//! the units MariaDB counts in, and adding a count of one to a [`DateTime`].

use crate::datetime::{civil_from_days, days_from_civil, days_in_month, DateTime};

/// A simple interval unit (one number of one field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalUnit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

impl IntervalUnit {
    /// Every unit, in declaration order (a unit's code is its position).
    pub const ALL: [IntervalUnit; 9] = [
        IntervalUnit::Microsecond,
        IntervalUnit::Second,
        IntervalUnit::Minute,
        IntervalUnit::Hour,
        IntervalUnit::Day,
        IntervalUnit::Week,
        IntervalUnit::Month,
        IntervalUnit::Quarter,
        IntervalUnit::Year,
    ];

    /// The unit named `name` (upper case, as SQL writes it), or None.
    pub fn by_name(name: &str) -> Option<IntervalUnit> {
        Some(match name {
            "MICROSECOND" => IntervalUnit::Microsecond,
            "SECOND" => IntervalUnit::Second,
            "MINUTE" => IntervalUnit::Minute,
            "HOUR" => IntervalUnit::Hour,
            "DAY" => IntervalUnit::Day,
            "WEEK" => IntervalUnit::Week,
            "MONTH" => IntervalUnit::Month,
            "QUARTER" => IntervalUnit::Quarter,
            "YEAR" => IntervalUnit::Year,
            _ => return None,
        })
    }

    /// A small number that stands for the unit (the inverse of [`IntervalUnit::from_code`]).
    pub fn code(self) -> i64 {
        self as i64
    }

    /// The unit [`IntervalUnit::code`] gave `code`.
    pub fn from_code(code: i64) -> Option<IntervalUnit> {
        usize::try_from(code)
            .ok()
            .and_then(|i| IntervalUnit::ALL.get(i).copied())
    }

    /// Whether the unit is a day or longer: a DATE plus such an interval stays a DATE.
    pub fn is_date_unit(self) -> bool {
        matches!(
            self,
            IntervalUnit::Day
                | IntervalUnit::Week
                | IntervalUnit::Month
                | IntervalUnit::Quarter
                | IntervalUnit::Year
        )
    }

    /// Months in one unit (None for the units counted in microseconds).
    fn months(self) -> Option<i64> {
        match self {
            IntervalUnit::Month => Some(1),
            IntervalUnit::Quarter => Some(3),
            IntervalUnit::Year => Some(12),
            _ => None,
        }
    }

    /// Microseconds in one unit (for the units below a month).
    fn micros(self) -> i64 {
        const SECOND: i64 = 1_000_000;
        match self {
            IntervalUnit::Microsecond => 1,
            IntervalUnit::Second => SECOND,
            IntervalUnit::Minute => 60 * SECOND,
            IntervalUnit::Hour => 3600 * SECOND,
            IntervalUnit::Day => 86_400 * SECOND,
            _ => 7 * 86_400 * SECOND,
        }
    }
}

/// `dt` plus `n` units, or None when the result leaves years 0..=9999. Month, quarter and
/// year steps keep the day of month, clamped to the new month's last day (2024-01-31 plus
/// one month is 2024-02-29); the smaller units move the instant by a fixed time.
pub fn add_interval(dt: DateTime, unit: IntervalUnit, n: i64) -> Option<DateTime> {
    if let Some(per) = unit.months() {
        let months =
            (i64::from(dt.year) * 12 + i64::from(dt.month) - 1).checked_add(n.checked_mul(per)?)?;
        let year = u16::try_from(months.div_euclid(12))
            .ok()
            .filter(|y| *y <= 9999)?;
        let month = months.rem_euclid(12) as u8 + 1;
        let day = dt.day.min(days_in_month(year, month));
        return Some(DateTime {
            year,
            month,
            day,
            ..dt
        });
    }
    const DAY: i64 = 86_400_000_000;
    let days = days_from_civil(i64::from(dt.year), u32::from(dt.month), u32::from(dt.day));
    let time = ((i64::from(dt.hour) * 60 + i64::from(dt.minute)) * 60 + i64::from(dt.second))
        * 1_000_000
        + i64::from(dt.micros);
    let total = days
        .checked_mul(DAY)?
        .checked_add(time)?
        .checked_add(n.checked_mul(unit.micros())?)?;
    let (year, month, day) = civil_from_days(total.div_euclid(DAY));
    let year = u16::try_from(year).ok().filter(|y| *y <= 9999)?;
    let rest = total.rem_euclid(DAY);
    let secs = rest / 1_000_000;
    Some(DateTime {
        year,
        month: month as u8,
        day: day as u8,
        hour: (secs / 3600) as u8,
        minute: (secs / 60 % 60) as u8,
        second: (secs % 60) as u8,
        micros: (rest % 1_000_000) as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datetime::Date;

    fn at(y: u16, m: u8, d: u8, h: u8, mi: u8, s: u8) -> DateTime {
        DateTime::new(Date::new(y, m, d).unwrap(), h, mi, s, 0).unwrap()
    }

    #[test]
    fn month_steps_clamp_the_day() {
        let jan31 = at(2024, 1, 31, 0, 0, 0);
        assert_eq!(
            add_interval(jan31, IntervalUnit::Month, 1),
            Some(at(2024, 2, 29, 0, 0, 0))
        );
        assert_eq!(
            add_interval(jan31, IntervalUnit::Month, 13),
            Some(at(2025, 2, 28, 0, 0, 0))
        );
        assert_eq!(
            add_interval(at(2024, 2, 29, 1, 2, 3), IntervalUnit::Year, -1),
            Some(at(2023, 2, 28, 1, 2, 3))
        );
        assert_eq!(
            add_interval(jan31, IntervalUnit::Quarter, -1),
            Some(at(2023, 10, 31, 0, 0, 0))
        );
        assert_eq!(add_interval(jan31, IntervalUnit::Year, 7976), None);
    }

    #[test]
    fn time_steps_carry_across_days_and_years() {
        let eve = at(2023, 12, 31, 23, 59, 59);
        assert_eq!(
            add_interval(eve, IntervalUnit::Second, 1),
            Some(at(2024, 1, 1, 0, 0, 0))
        );
        assert_eq!(
            add_interval(eve, IntervalUnit::Week, -1),
            Some(at(2023, 12, 24, 23, 59, 59))
        );
        let micro = add_interval(eve, IntervalUnit::Microsecond, -1).unwrap();
        assert_eq!((micro.second, micro.micros), (58, 999_999));
        assert_eq!(
            add_interval(at(9999, 12, 31, 0, 0, 0), IntervalUnit::Day, 1),
            None
        );
        assert_eq!(add_interval(eve, IntervalUnit::Hour, i64::MAX), None);
    }

    #[test]
    fn units_round_trip_their_codes() {
        for name in ["MICROSECOND", "SECOND", "DAY", "WEEK", "QUARTER", "YEAR"] {
            let unit = IntervalUnit::by_name(name).unwrap();
            assert_eq!(IntervalUnit::from_code(unit.code()), Some(unit));
        }
        assert_eq!(IntervalUnit::by_name("DAY_HOUR"), None);
    }
}
