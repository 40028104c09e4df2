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
