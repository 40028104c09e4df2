//! STR_TO_DATE(text, format): the text read by DATE_FORMAT's specifiers, as MariaDB's
//! `extract_date_time` reads it.
//!
//! The format is walked once. Before each of its characters, spaces in the text are
//! skipped; a space in the format matches nothing, another literal character must be the
//! text's next one, and a specifier reads its field: numbers take at most their field's
//! digits (`%Y` four, `%j` three, the others two; `%f` six, right-padded), names
//! (`%M %b %W %a`) take the whole word, `%p` needs a 12-hour `%h %I %l` before it. When
//! the text ends first, the rest of the format is ignored (`STR_TO_DATE('2024', '%Y-%m')` is
//! `2024-00-00`). Parts are checked only against their ranges (month 12, day 31, hour 23,
//! minute and second 59): a day the month does not have, and zero parts, are kept as
//! MariaDB keeps them. What does not read answers NULL with warning 1411; text left over
//! after the format, other than spaces, warns 1292 and keeps the value.
//!
//! The result's type comes from a constant format (see [`result_type`]): TIME when it
//! names only time parts, DATETIME when date and time parts, else DATE; `%f` gives six
//! fractional digits. With a format that is not a constant, DATETIME(6). Week numbers
//! (`%U %u %V %v %X %x`) answer 1235.

use crate::error::SqlError;
use crate::expr::eval::{truncated_warning, SqlType, Warning};
use crate::value::Value;
use myriad_types::datetime::{civil_from_days, days_from_civil};
use myriad_types::errors::ER_WRONG_VALUE_FOR_TYPE;
use myriad_types::{Date, DateTime, Time};

use super::date_format::{DAY_NAMES, MONTH_NAMES};

/// What a format names: date parts, time parts, fractional seconds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Names {
    date: bool,
    time: bool,
    fraction: bool,
}

fn names(fmt: &[u8]) -> Names {
    let mut n = Names::default();
    let mut i = 0;
    while i + 1 < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        match fmt[i + 1] {
            b'a' | b'b' | b'c' | b'D' | b'd' | b'e' | b'j' | b'M' | b'm' | b'U' | b'u' | b'V'
            | b'v' | b'W' | b'w' | b'X' | b'x' | b'Y' | b'y' => n.date = true,
            b'f' => {
                n.time = true;
                n.fraction = true;
            }
            b'H' | b'h' | b'I' | b'i' | b'k' | b'l' | b'p' | b'r' | b'S' | b's' | b'T' => {
                n.time = true
            }
            _ => {}
        }
        i += 2;
    }
    n
}

/// The type of STR_TO_DATE(_, format): `format` is the constant format's bytes, None when
/// the format is not a constant string.
pub(crate) fn result_type(format: Option<&[u8]>) -> SqlType {
    let Some(fmt) = format else {
        return SqlType::DateTime { fsp: 6 };
    };
    let n = names(fmt);
    let fsp = if n.fraction { 6 } else { 0 };
    match (n.date, n.time) {
        (true, true) => SqlType::DateTime { fsp },
        (false, true) => SqlType::Time { fsp },
        // A format naming no part reads as a DATE, as in MariaDB.
        _ => SqlType::Date,
    }
}

/// The parts read so far.
#[derive(Debug, Default)]
struct Parts {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    micros: i64,
    /// A 12-hour clock was read (`%h %I %l`), and `%p`'s 12 for PM.
    usa_time: bool,
    day_part: i64,
    year_day: i64,
}

/// A reader over the text.
struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn skip_spaces(&mut self) {
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    /// At most `width` digits as a number; None when there is none.
    fn number(&mut self, width: usize) -> Option<(i64, usize)> {
        let start = self.at;
        let mut n = 0i64;
        while self.at < self.text.len()
            && self.at - start < width
            && self.text[self.at].is_ascii_digit()
        {
            n = n * 10 + i64::from(self.text[self.at] - b'0');
            self.at += 1;
        }
        (self.at > start).then_some((n, self.at - start))
    }

    /// The word of letters at the cursor, matched whole and case-insensitively against
    /// `names` (cut to `len` letters each when given); its 1-based index.
    fn word(&mut self, names: &[&str], len: Option<usize>) -> Option<i64> {
        let start = self.at;
        while self.at < self.text.len() && self.text[self.at].is_ascii_alphabetic() {
            self.at += 1;
        }
        let word = &self.text[start..self.at];
        names
            .iter()
            .position(|n| {
                let n = &n.as_bytes()[..len.unwrap_or(n.len()).min(n.len())];
                n.eq_ignore_ascii_case(word)
            })
            .map(|i| i as i64 + 1)
    }

    fn skip_while(&mut self, keep: fn(&u8) -> bool) {
        while self.at < self.text.len() && keep(&self.text[self.at]) {
            self.at += 1;
        }
    }
}

/// Why a read stopped: the text does not read, or the format needs what is not built.
enum Failed {
    Invalid,
    Unbuilt(&'static str),
}

/// Read `fmt`'s fields from the reader into `p`.
fn read(r: &mut Reader, fmt: &[u8], p: &mut Parts) -> Result<(), Failed> {
    let mut i = 0;
    while i < fmt.len() && r.at < r.text.len() {
        r.skip_spaces();
        if r.at >= r.text.len() {
            break;
        }
        if fmt[i] != b'%' || i + 1 == fmt.len() {
            if !fmt[i].is_ascii_whitespace() {
                if r.text[r.at] != fmt[i] {
                    return Err(Failed::Invalid);
                }
                r.at += 1;
            }
            i += 1;
            continue;
        }
        let spec = fmt[i + 1];
        i += 2;
        specifier(r, spec, p)?;
    }
    Ok(())
}

/// Read one specifier's field.
fn specifier(r: &mut Reader, spec: u8, p: &mut Parts) -> Result<(), Failed> {
    let num = |r: &mut Reader, width| r.number(width).map(|(n, _)| n).ok_or(Failed::Invalid);
    match spec {
        b'Y' => {
            let (n, digits) = r.number(4).ok_or(Failed::Invalid)?;
            p.year = if digits <= 2 { two_digit_year(n) } else { n };
        }
        b'y' => p.year = two_digit_year(num(r, 2)?),
        b'm' | b'c' => p.month = num(r, 2)?,
        b'd' | b'e' => p.day = num(r, 2)?,
        b'H' | b'k' => p.hour = num(r, 2)?,
        b'h' | b'I' | b'l' => {
            p.hour = num(r, 2)?;
            p.usa_time = true;
        }
        b'i' => p.minute = num(r, 2)?,
        b's' | b'S' => p.second = num(r, 2)?,
        b'f' => {
            let (n, digits) = r.number(6).ok_or(Failed::Invalid)?;
            p.micros = n * 10i64.pow(6 - digits as u32);
        }
        b'p' => {
            let rest = &r.text[r.at..];
            if rest.len() < 2 || !p.usa_time {
                return Err(Failed::Invalid);
            }
            p.day_part = match &rest[..2] {
                x if x.eq_ignore_ascii_case(b"PM") => 12,
                x if x.eq_ignore_ascii_case(b"AM") => 0,
                _ => return Err(Failed::Invalid),
            };
            r.at += 2;
        }
        b'M' => p.month = r.word(&MONTH_NAMES, None).ok_or(Failed::Invalid)?,
        b'b' => p.month = r.word(&MONTH_NAMES, Some(3)).ok_or(Failed::Invalid)?,
        b'W' => {
            r.word(&DAY_NAMES, None).ok_or(Failed::Invalid)?;
        }
        b'a' => {
            r.word(&DAY_NAMES, Some(3)).ok_or(Failed::Invalid)?;
        }
        b'w' => {
            if num(r, 1)? >= 7 {
                return Err(Failed::Invalid);
            }
        }
        b'j' => p.year_day = num(r, 3)?,
        b'T' => read(r, b"%H:%i:%s", p)?,
        b'r' => read(r, b"%I:%i:%S %p", p)?,
        b'.' => r.skip_while(u8::is_ascii_punctuation),
        b'@' => r.skip_while(u8::is_ascii_alphabetic),
        b'#' => r.skip_while(u8::is_ascii_digit),
        b'U' | b'u' | b'V' | b'v' | b'X' | b'x' => {
            return Err(Failed::Unbuilt("STR_TO_DATE with week numbers"))
        }
        _ => return Err(Failed::Invalid),
    }
    Ok(())
}

/// A year written with one or two digits: 70..99 are 19xx, 0..69 are 20xx.
fn two_digit_year(n: i64) -> i64 {
    if n < 70 {
        n + 2000
    } else {
        n + 1900
    }
}

/// The parts once read, checked against their ranges; None when one is out of range.
fn finish(mut p: Parts) -> Option<Parts> {
    if p.usa_time {
        if !(1..=12).contains(&p.hour) {
            return None;
        }
        p.hour = p.hour % 12 + p.day_part;
    }
    if p.year_day > 0 {
        let days = days_from_civil(p.year, 1, 1) + p.year_day - 1;
        if days < days_from_civil(0, 1, 1) || days > days_from_civil(9999, 12, 31) {
            return None;
        }
        let (y, m, d) = civil_from_days(days);
        (p.year, p.month, p.day) = (y, i64::from(m), i64::from(d));
    }
    let in_range = p.year <= 9999
        && p.month <= 12
        && p.day <= 31
        && p.hour <= 23
        && p.minute <= 59
        && p.second <= 59;
    in_range.then_some(p)
}

/// STR_TO_DATE(text, format) as a value of `ty` (see [`result_type`]).
pub(crate) fn str_to_date(
    text: &Value,
    format: &Value,
    ty: SqlType,
    w: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    let (Some(bytes), Some(fmt)) = (text.to_text(), format.to_text()) else {
        return Ok(Value::Null);
    };
    let mut r = Reader {
        text: &bytes,
        at: 0,
    };
    let mut parts = Parts::default();
    let read = match read(&mut r, &fmt, &mut parts) {
        Err(Failed::Unbuilt(what)) => return Err(SqlError::not_supported(what)),
        Err(Failed::Invalid) => None,
        Ok(()) => finish(parts),
    };
    let shown = || String::from_utf8_lossy(&bytes).into_owned();
    let Some(p) = read else {
        w.push(Warning {
            level: "Warning",
            code: ER_WRONG_VALUE_FOR_TYPE.code,
            message: format!(
                "Incorrect datetime value: '{}' for function str_to_date",
                shown()
            ),
        });
        return Ok(Value::Null);
    };
    if r.text[r.at..].iter().any(|b| !b.is_ascii_whitespace()) {
        let kind = match ty {
            SqlType::Date => "date",
            SqlType::Time { .. } => "time",
            _ => "datetime",
        };
        w.push(truncated_warning(kind, &shown()));
    }
    let date = Date {
        year: p.year as u16,
        month: p.month as u8,
        day: p.day as u8,
    };
    Ok(match ty {
        SqlType::Date => Value::Date(date),
        SqlType::Time { .. } => Value::Time(Time {
            negative: false,
            hours: (p.day * 24 + p.hour) as u32,
            minute: p.minute as u8,
            second: p.second as u8,
            micros: p.micros as u32,
        }),
        _ => Value::DateTime(DateTime {
            year: date.year,
            month: date.month,
            day: date.day,
            hour: p.hour as u8,
            minute: p.minute as u8,
            second: p.second as u8,
            micros: p.micros as u32,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval::SqlValue;

    fn run(text: &str, fmt: &str) -> (String, Vec<u16>) {
        let ty = result_type(Some(fmt.as_bytes()));
        let mut w = Vec::new();
        let v = str_to_date(&Value::text(text), &Value::text(fmt), ty, &mut w).unwrap();
        let shown = v
            .to_text()
            .map_or("NULL".to_string(), |b| String::from_utf8(b).unwrap());
        (shown, w.iter().map(|w| w.code).collect())
    }

    #[test]
    fn formats_choose_the_result_type() {
        assert_eq!(result_type(Some(b"%Y-%m-%d")), SqlType::Date);
        assert_eq!(result_type(Some(b"%H:%i")), SqlType::Time { fsp: 0 });
        assert_eq!(result_type(Some(b"%T.%f")), SqlType::Time { fsp: 6 });
        assert_eq!(result_type(Some(b"%Y %H")), SqlType::DateTime { fsp: 0 });
        assert_eq!(result_type(Some(b"")), SqlType::Date);
        assert_eq!(result_type(Some(b"%Y %f")), SqlType::DateTime { fsp: 6 });
        assert_eq!(result_type(None), SqlType::DateTime { fsp: 6 });
    }

    #[test]
    fn texts_read_as_mariadb_reads_them() {
        assert_eq!(run("2024-01-02", "%Y-%m-%d").0, "2024-01-02");
        assert_eq!(run("  2024 -  1-2", "%Y-%m-%d").0, "2024-01-02");
        assert_eq!(run("2024", "%Y-%m").0, "2024-00-00");
        assert_eq!(run("2024-02-30", "%Y-%m-%d").0, "2024-02-30");
        assert_eq!(run("69-1-2", "%Y-%m-%d").0, "2069-01-02");
        assert_eq!(run("May 5, 2024", "%M %d, %Y").0, "2024-05-05");
        assert_eq!(run("10:20 PM", "%h:%i %p").0, "22:20:00");
        assert_eq!(run("12:20 AM", "%h:%i %p").0, "00:20:00");
        assert_eq!(run("2024 032", "%Y %j").0, "2024-02-01");
        assert_eq!(run("1:2:3.5", "%H:%i:%s.%f").0, "01:02:03.500000");
    }

    #[test]
    fn bad_texts_warn() {
        assert_eq!(run("bad", "%Y-%m-%d"), ("NULL".into(), vec![1411]));
        assert_eq!(run("13:20 PM", "%h:%i %p"), ("NULL".into(), vec![1411]));
        assert_eq!(run("2024-13-01", "%Y-%m-%d"), ("NULL".into(), vec![1411]));
        assert_eq!(
            run("2024-01-02xyz", "%Y-%m-%d"),
            ("2024-01-02".into(), vec![1292])
        );
        assert_eq!(
            run("2024-01-02  ", "%Y-%m-%d"),
            ("2024-01-02".into(), vec![])
        );
    }
}
