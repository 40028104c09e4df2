//! Calendar arithmetic for the date and time functions.

use crate::expr::eval::Datum;

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn datetime_from_micros(micros: i64, keep_micros: bool) -> Datum {
    let secs = micros.div_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    Datum::DateTime {
        year: y.clamp(0, 9999) as u16,
        month: m as u8,
        day: d as u8,
        hour: (rem / 3600) as u8,
        minute: (rem % 3600 / 60) as u8,
        second: (rem % 60) as u8,
        micros: if keep_micros {
            micros.rem_euclid(1_000_000) as u32
        } else {
            0
        },
    }
}

/// Parse 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]'.
/// The last day of a month (31 for month 0: a zero month, allowed without
/// NO_ZERO_IN_DATE, bounds the day by 31 as MariaDB does).
pub fn days_in_month(year: u16, month: u8) -> u8 {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

pub fn parse_datetime(text: &str) -> Option<Datum> {
    let text = text.trim();
    let (date, time) = match text.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (text, None),
    };
    let mut parts = date.split('-');
    let year: u16 = parts.next()?.parse().ok()?;
    let month: u8 = parts.next()?.parse().ok()?;
    let day: u8 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || month > 12 || day > days_in_month(year, month) {
        return None;
    }
    let Some(time) = time else {
        return Some(Datum::Date { year, month, day });
    };
    let (hms, frac) = match time.split_once('.') {
        Some((h, f)) => (h, Some(f)),
        None => (time, None),
    };
    let mut t = hms.split(':');
    let hour: u8 = t.next()?.parse().ok()?;
    let minute: u8 = t.next().unwrap_or("0").parse().ok()?;
    let second: u8 = t.next().unwrap_or("0").parse().ok()?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let micros = match frac {
        Some(f) if !f.is_empty() && f.len() <= 6 && f.bytes().all(|b| b.is_ascii_digit()) => {
            f.parse::<u32>().ok()? * 10u32.pow(6 - f.len() as u32)
        }
        Some(_) => return None,
        None => 0,
    };
    Some(Datum::DateTime {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micros,
    })
}
