//! The record encoding of spill files: values ([`Value`]) in a compact form of our own that round-trips every value exactly (the
//! bits of a double, a decimal's scale, binary bytes, NULL).
//!
//! A record is `len: u32 LE` followed by `len` bytes of body; a body is a sequence of
//! values, each a tag byte and its fields. Integers are LEB128 varints (signed ones
//! zigzag-encoded first), so small numbers and short strings cost a byte or two.

use crate::value::Value;
use myriad_types::{Date, DateTime, Decimal, Time};

/// A record a reader could not decode: a spill file this process wrote and no one else
/// touches (it is unlinked at creation) reads back as written, so this is a bug or a
/// failing disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corrupt;

pub fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

pub fn get_varint(buf: &mut &[u8]) -> Result<u64, Corrupt> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = buf.split_first().ok_or(Corrupt)?;
        *buf = rest;
        n |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(n);
        }
    }
    Err(Corrupt)
}

fn put_signed(out: &mut Vec<u8>, i: i64) {
    put_varint(out, ((i << 1) ^ (i >> 63)) as u64);
}

fn get_signed(buf: &mut &[u8]) -> Result<i64, Corrupt> {
    let z = get_varint(buf)?;
    Ok(((z >> 1) as i64) ^ -((z & 1) as i64))
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn take<'a>(buf: &mut &'a [u8], n: usize) -> Result<&'a [u8], Corrupt> {
    if buf.len() < n {
        return Err(Corrupt);
    }
    let (head, rest) = buf.split_at(n);
    *buf = rest;
    Ok(head)
}

fn get_bytes(buf: &mut &[u8]) -> Result<Vec<u8>, Corrupt> {
    let n = usize::try_from(get_varint(buf)?).map_err(|_| Corrupt)?;
    Ok(take(buf, n)?.to_vec())
}

fn get_u8(buf: &mut &[u8]) -> Result<u8, Corrupt> {
    Ok(take(buf, 1)?[0])
}

fn get_u16(buf: &mut &[u8]) -> Result<u16, Corrupt> {
    u16::try_from(get_varint(buf)?).map_err(|_| Corrupt)
}

fn get_u32(buf: &mut &[u8]) -> Result<u32, Corrupt> {
    u32::try_from(get_varint(buf)?).map_err(|_| Corrupt)
}

fn put_date(out: &mut Vec<u8>, d: &Date) {
    put_varint(out, u64::from(d.year));
    out.extend_from_slice(&[d.month, d.day]);
}

fn put_datetime(out: &mut Vec<u8>, dt: &DateTime) {
    put_varint(out, u64::from(dt.year));
    out.extend_from_slice(&[dt.month, dt.day]);
    put_clock(out, dt.hour, dt.minute, dt.second, dt.micros);
}

fn get_date(buf: &mut &[u8]) -> Result<Date, Corrupt> {
    Ok(Date {
        year: get_u16(buf)?,
        month: get_u8(buf)?,
        day: get_u8(buf)?,
    })
}

fn get_datetime(buf: &mut &[u8]) -> Result<DateTime, Corrupt> {
    Ok(DateTime {
        year: get_u16(buf)?,
        month: get_u8(buf)?,
        day: get_u8(buf)?,
        hour: get_u8(buf)?,
        minute: get_u8(buf)?,
        second: get_u8(buf)?,
        micros: get_u32(buf)?,
    })
}

/// A decimal as its scale and the big-endian bytes of its unscaled integer.
fn put_decimal(out: &mut Vec<u8>, x: &Decimal) {
    out.push(x.scale() as u8);
    out.extend_from_slice(&x.unscaled_be_bytes());
}

fn get_decimal(buf: &mut &[u8]) -> Result<Decimal, Corrupt> {
    let scale = u32::from(get_u8(buf)?);
    let bytes: [u8; 40] = take(buf, 40)?.try_into().map_err(|_| Corrupt)?;
    Decimal::from_unscaled_be_bytes(bytes, scale).map_err(|_| Corrupt)
}

fn put_clock(out: &mut Vec<u8>, hour: u8, minute: u8, second: u8, micros: u32) {
    out.extend_from_slice(&[hour, minute, second]);
    put_varint(out, u64::from(micros));
}

pub fn put_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(0),
        Value::Int(i) => {
            out.push(1);
            put_signed(out, *i);
        }
        Value::UInt(u) => {
            out.push(2);
            put_varint(out, *u);
        }
        Value::Double(f) => {
            out.push(3);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::Decimal(x) => {
            out.push(4);
            put_decimal(out, x);
        }
        Value::Bytes(b) => {
            out.push(5);
            put_bytes(out, b);
        }
        Value::Date(d) => {
            out.push(6);
            put_date(out, d);
        }
        Value::DateTime(dt) => {
            out.push(7);
            put_datetime(out, dt);
        }
        Value::Time(t) => {
            out.push(8);
            out.push(u8::from(t.negative));
            put_varint(out, u64::from(t.hours));
            put_clock(out, 0, t.minute, t.second, t.micros);
        }
    }
}

pub fn get_value(buf: &mut &[u8]) -> Result<Value, Corrupt> {
    Ok(match get_u8(buf)? {
        0 => Value::Null,
        1 => Value::Int(get_signed(buf)?),
        2 => Value::UInt(get_varint(buf)?),
        3 => {
            let bytes: [u8; 8] = take(buf, 8)?.try_into().map_err(|_| Corrupt)?;
            Value::Double(f64::from_bits(u64::from_le_bytes(bytes)))
        }
        4 => Value::Decimal(get_decimal(buf)?),
        5 => Value::Bytes(get_bytes(buf)?),
        6 => Value::Date(get_date(buf)?),
        7 => Value::DateTime(get_datetime(buf)?),
        8 => {
            let negative = match get_u8(buf)? {
                0 => false,
                1 => true,
                _ => return Err(Corrupt),
            };
            let hours = u32::try_from(get_varint(buf)?).map_err(|_| Corrupt)?;
            let _zero_hour = get_u8(buf)?;
            Value::Time(Time {
                negative,
                hours,
                minute: get_u8(buf)?,
                second: get_u8(buf)?,
                micros: get_u32(buf)?,
            })
        }
        _ => return Err(Corrupt),
    })
}

/// Heap bytes of a value as the query cache counts them (see `crate::result`): the value
/// itself plus what it owns.
/// What the allocator adds to each allocation (glibc's chunk header, mimalloc's rounding
/// to its size classes): a row of short strings is mostly such overhead, which the heap
/// byte count of the values leaves out.
pub(crate) const ALLOCATION_HEADER_BYTES: usize = 16;

/// The allocator's overhead on a row held in memory: one allocation for its vector and
/// one for each string value.
pub(crate) fn allocation_overhead(row: &[Value]) -> usize {
    let allocations = 1 + row.iter().filter(|v| matches!(v, Value::Bytes(_))).count();
    allocations * ALLOCATION_HEADER_BYTES
}

pub fn value_heap_bytes(v: &Value) -> usize {
    std::mem::size_of::<Value>()
        + match v {
            Value::Bytes(b) => b.capacity(),
            _ => 0,
        }
}

/// A row of a spilled sort: written to a record and read back whole.
pub trait SpillRow: Sized {
    fn encode(&self, out: &mut Vec<u8>);
    fn decode(buf: &mut &[u8]) -> Result<Self, Corrupt>;
    /// Bytes the row holds in memory, charged against the sort's budget.
    fn heap_bytes(&self) -> usize;
}

impl SpillRow for Vec<Value> {
    fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.len() as u64);
        for v in self {
            put_value(out, v);
        }
    }
    fn decode(buf: &mut &[u8]) -> Result<Self, Corrupt> {
        let n = usize::try_from(get_varint(buf)?).map_err(|_| Corrupt)?;
        // Every value takes at least its tag byte: a longer count is a broken record.
        if n > buf.len() {
            return Err(Corrupt);
        }
        (0..n).map(|_| get_value(buf)).collect()
    }
    fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Vec<Value>>()
            + self.iter().map(value_heap_bytes).sum::<usize>()
            + allocation_overhead(self)
    }
}

/// A record kept as its bytes (a sort entry of [`super::row_ids`]).
impl SpillRow for Vec<u8> {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self);
    }
    fn decode(buf: &mut &[u8]) -> Result<Self, Corrupt> {
        Ok(std::mem::take(buf).to_vec())
    }
    fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Vec<u8>>() + self.capacity()
    }
}

impl SpillRow for u64 {
    fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, *self);
    }
    fn decode(buf: &mut &[u8]) -> Result<Self, Corrupt> {
        get_varint(buf)
    }
    fn heap_bytes(&self) -> usize {
        std::mem::size_of::<u64>()
    }
}

impl<A: SpillRow, B: SpillRow> SpillRow for (A, B) {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
    }
    fn decode(buf: &mut &[u8]) -> Result<Self, Corrupt> {
        Ok((A::decode(buf)?, B::decode(buf)?))
    }
    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes() + self.1.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::Int),
            any::<u64>().prop_map(Value::UInt),
            any::<f64>().prop_map(Value::Double),
            (any::<i64>(), 0u32..=28).prop_map(|(m, s)| {
                Value::Decimal(Decimal::from_i128_scaled(i128::from(m), s).unwrap())
            }),
            proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Bytes),
            (any::<u16>(), any::<u8>(), any::<u8>())
                .prop_map(|(year, month, day)| { Value::Date(Date { year, month, day }) }),
            (any::<bool>(), any::<u32>(), any::<u8>(), any::<u32>()).prop_map(
                |(negative, hours, b, micros)| {
                    Value::Time(Time {
                        negative,
                        hours,
                        minute: b % 60,
                        second: b,
                        micros,
                    })
                }
            ),
            (any::<u16>(), any::<u8>(), any::<u32>()).prop_map(|(year, b, micros)| {
                Value::DateTime(DateTime {
                    year,
                    month: b,
                    day: b / 2,
                    hour: b / 3,
                    minute: b / 4,
                    second: b / 5,
                    micros,
                })
            }),
        ]
    }

    /// Equality that tells apart what `==` does not: a double's bits (NaN, -0.0) and a
    /// decimal's scale.
    fn same_value(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
            (Value::Decimal(x), Value::Decimal(y)) => x.scale() == y.scale() && x == y,
            _ => a == b,
        }
    }

    #[test]
    fn varints_round_trip_at_the_edges() {
        for n in [0, 1, 127, 128, 16383, 16384, u64::MAX / 2, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, n);
            let mut buf = &out[..];
            assert_eq!(get_varint(&mut buf), Ok(n));
            assert!(buf.is_empty(), "the varint of {n} is read whole");
        }
        for i in [0, -1, 1, i64::MIN, i64::MAX] {
            let mut out = Vec::new();
            put_signed(&mut out, i);
            assert_eq!(get_signed(&mut &out[..]), Ok(i));
        }
    }

    #[test]
    fn truncated_records_are_corrupt_not_a_panic() {
        let row = vec![
            Value::Bytes(b"abc".to_vec()),
            Value::Decimal(Decimal::from_i128_scaled(-125, 2).unwrap()),
        ];
        let mut out = Vec::new();
        row.encode(&mut out);
        for cut in 0..out.len() {
            assert_eq!(
                <Vec<Value>>::decode(&mut &out[..cut]),
                Err(Corrupt),
                "a record cut at {cut} is refused"
            );
        }
        assert_eq!(<Vec<Value>>::decode(&mut &[9u8, 1, 0xff][..]), Err(Corrupt));
    }

    proptest! {
        #[test]
        fn values_round_trip_exactly(row in proptest::collection::vec(value(), 0..8)) {
            let mut out = Vec::new();
            (row.clone(), 7u64).encode(&mut out);
            let mut buf = &out[..];
            let (back, seq) = <(Vec<Value>, u64)>::decode(&mut buf).expect("decodes");
            prop_assert!(buf.is_empty());
            prop_assert_eq!(seq, 7);
            prop_assert_eq!(back.len(), row.len());
            for (a, b) in row.iter().zip(&back) {
                prop_assert!(same_value(a, b), "{:?} read back as {:?}", a, b);
            }
        }
    }
}
