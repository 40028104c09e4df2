//! SQL values as they cross the engine boundary (results and prepared-statement parameters).

/// One value. Strings and blobs are bytes; the column says which.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    /// A DECIMAL in its canonical text form (`-12.50`).
    Decimal(String),
    Bytes(Vec<u8>),
    Date {
        year: u16,
        month: u8,
        day: u8,
    },
    DateTime {
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micros: u32,
    },
    Time {
        negative: bool,
        hours: u32,
        minute: u8,
        second: u8,
        micros: u32,
    },
}

impl Value {
    /// The value as the text protocol carries it (None for NULL): integers in decimal,
    /// doubles in MySQL's shortest round-trip form (`1e15`, `0.30000000000000004`),
    /// decimals as given, dates as `YYYY-MM-DD[ HH:MM:SS[.ffffff]]`, times as
    /// `[-]HH:MM:SS[.ffffff]`.
    pub fn to_text(&self) -> Option<Vec<u8>> {
        Some(match self {
            Value::Null => return None,
            Value::Int(i) => i.to_string().into_bytes(),
            Value::UInt(u) => u.to_string().into_bytes(),
            Value::Double(f) => crate::expr::eval::format_double(*f).into_bytes(),
            Value::Decimal(d) => d.clone().into_bytes(),
            Value::Bytes(b) => b.clone(),
            Value::Date { year, month, day } => {
                format!("{year:04}-{month:02}-{day:02}").into_bytes()
            }
            Value::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micros,
            } => crate::expr::eval::format_datetime(
                *year, *month, *day, *hour, *minute, *second, *micros,
            )
            .into_bytes(),
            Value::Time {
                negative,
                hours,
                minute,
                second,
                micros,
            } => {
                let sign = if *negative { "-" } else { "" };
                let mut s = format!("{sign}{hours:02}:{minute:02}:{second:02}");
                if *micros > 0 {
                    s.push_str(&format!(".{micros:06}"));
                }
                s.into_bytes()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Value;

    #[test]
    fn text_forms() {
        assert_eq!(Value::Null.to_text(), None);
        assert_eq!(Value::Int(-3).to_text().unwrap(), b"-3");
        assert_eq!(Value::Double(1e15).to_text().unwrap(), b"1e15");
        assert_eq!(Value::Double(2.5).to_text().unwrap(), b"2.5");
        let dt = Value::DateTime {
            year: 2024,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second: 5,
            micros: 60,
        };
        assert_eq!(dt.to_text().unwrap(), b"2024-01-02 03:04:05.000060");
        let t = Value::Time {
            negative: true,
            hours: 100,
            minute: 2,
            second: 3,
            micros: 0,
        };
        assert_eq!(t.to_text().unwrap(), b"-100:02:03");
    }
}
