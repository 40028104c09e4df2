//! Memcomparable index keys and the string collations.
//!
//! An index key is the concatenation of its columns' encodings; comparing two keys with
//! `memcmp` gives the order MySQL gives the column values (NULL first, then by value in the
//! column's collation). Each column's encoding is self-delimiting, so the encoding of a
//! prefix of an index's columns is a byte prefix of the full key: a range over a prefix of a
//! multi-column index is a byte range.
//!
//! Per column: `0x00` for NULL, or `0x01` followed by
//! - signed integers: the i64 with its sign bit flipped, 8 bytes big-endian;
//! - unsigned integers: the u64, 8 bytes big-endian;
//! - DOUBLE/FLOAT: the IEEE bits, all flipped for negatives, sign flipped for positives
//!   (-0.0 is encoded as 0.0); NaN is rejected;
//! - DECIMAL: the unscaled integer at the column's scale with its sign bit flipped, 16 bytes
//!   big-endian up to 38 digits, 32 beyond (`decimal_codec`);
//! - DATE: year (2 bytes), month, day; DATETIME/TIMESTAMP: year, month, day, hour, minute,
//!   second (1 byte each but the 2-byte year), micros (4 bytes), all big-endian;
//! - strings: the collation's weight string, escaped so it terminates: every `0x00` byte is
//!   written `0x00 0xFF`, and the string ends with `0x00 0x01` (so "a" < "a\0" < "a\x01").
//!   `utf8mb4_general_ci` weights are 2 bytes per character (simple upper-case folding,
//!   Latin-1 accents folded to their base letter, characters beyond the BMP weigh U+FFFD),
//!   `utf8mb4_bin` weights are 3-byte code points; both drop trailing spaces (PAD SPACE).
//!   `binary` is the bytes themselves.

use crate::decimal_codec::{self, KEY_FORM};
use crate::types::{Collation, ColumnType, DateTime, StorageError, Value};
use std::cmp::Ordering;

const NULL_TAG: u8 = 0x00;
const VALUE_TAG: u8 = 0x01;

use myriad_types::collation::{chars_lossy, general_ci_weight, trim_trailing_spaces};

fn push_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
}

fn encode_string(out: &mut Vec<u8>, collation: Collation, s: &[u8]) {
    match collation {
        Collation::Binary => push_escaped(out, s),
        Collation::Utf8mb4Bin => {
            for c in chars_lossy(trim_trailing_spaces(s)) {
                push_escaped(out, &(c as u32).to_be_bytes()[1..]);
            }
        }
        Collation::Utf8mb4GeneralCi => {
            for c in chars_lossy(trim_trailing_spaces(s)) {
                push_escaped(out, &general_ci_weight(c).to_be_bytes());
            }
        }
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

fn mismatch(ty: &ColumnType, d: &Value) -> StorageError {
    StorageError::TypeMismatch(format!("{d:?} for a {ty:?} key column"))
}

/// Append the memcomparable encoding of `d` as a value of a column of type `ty`.
pub fn encode_key_part(out: &mut Vec<u8>, ty: &ColumnType, d: &Value) -> Result<(), StorageError> {
    if d.is_null() {
        out.push(NULL_TAG);
        return Ok(());
    }
    out.push(VALUE_TAG);
    match (ty, d) {
        (
            ColumnType::Int {
                unsigned: false, ..
            },
            Value::Int(v),
        ) => out.extend_from_slice(&((*v as u64) ^ (1 << 63)).to_be_bytes()),
        (
            ColumnType::Int {
                unsigned: false, ..
            },
            Value::UInt(v),
        ) => {
            let v = i64::try_from(*v).map_err(|_| mismatch(ty, d))?;
            out.extend_from_slice(&((v as u64) ^ (1 << 63)).to_be_bytes())
        }
        (ColumnType::Int { unsigned: true, .. }, Value::UInt(v)) => {
            out.extend_from_slice(&v.to_be_bytes())
        }
        (ColumnType::Int { unsigned: true, .. }, Value::Int(v)) => {
            let v = u64::try_from(*v).map_err(|_| mismatch(ty, d))?;
            out.extend_from_slice(&v.to_be_bytes())
        }
        (ColumnType::Float | ColumnType::Double, Value::Double(v)) => {
            if v.is_nan() {
                return Err(mismatch(ty, d));
            }
            let v = if *v == 0.0 { 0.0f64 } else { *v };
            let bits = v.to_bits();
            let bits = if bits >> 63 == 1 {
                !bits
            } else {
                bits ^ (1 << 63)
            };
            out.extend_from_slice(&bits.to_be_bytes())
        }
        (ColumnType::Decimal { precision, scale }, Value::Decimal(v)) => {
            decimal_codec::encode::<KEY_FORM>(*precision, *scale, v, out)
                .map_err(|_| mismatch(ty, d))?
        }
        (ColumnType::Date, Value::Date(date)) => put_datetime_key(out, date.at_midnight(), 4),
        (ColumnType::DateTime { .. } | ColumnType::Timestamp { .. }, Value::DateTime(dt)) => {
            put_datetime_key(out, *dt, 11)
        }
        (ColumnType::DateTime { .. } | ColumnType::Timestamp { .. }, Value::Date(date)) => {
            put_datetime_key(out, date.at_midnight(), 11)
        }
        (ColumnType::Time { .. }, Value::Time(t)) => {
            out.extend_from_slice(&((t.total_micros() as u64) ^ (1 << 63)).to_be_bytes())
        }
        (ColumnType::Enum { elements, .. }, Value::Bytes(b)) => {
            let position = crate::elements::enum_position(elements, b) as u16;
            out.extend_from_slice(&position.to_be_bytes())
        }
        (ColumnType::Set { elements, .. }, Value::Bytes(b)) => {
            out.extend_from_slice(&crate::elements::set_bits(elements, b).to_be_bytes())
        }
        (t, Value::Bytes(b)) if t.is_string() => encode_string(out, t.collation(), b),
        _ => return Err(mismatch(ty, d)),
    }
    Ok(())
}

/// The first `len` bytes (4 for DATE, 11 for DATETIME) of year (big-endian), month, day,
/// hour, minute, second, micros (big-endian): bytewise order is chronological order.
fn put_datetime_key(out: &mut Vec<u8>, dt: DateTime, len: usize) {
    let mut key = [0u8; 11];
    key[..2].copy_from_slice(&dt.year.to_be_bytes());
    key[2..7].copy_from_slice(&[dt.month, dt.day, dt.hour, dt.minute, dt.second]);
    key[7..].copy_from_slice(&dt.micros.to_be_bytes());
    out.extend_from_slice(&key[..len]);
}

/// Compare two datums of one column the way index keys order them (NULL first).
pub fn compare_datums(ty: &ColumnType, a: &Value, b: &Value) -> Result<Ordering, StorageError> {
    if let (Value::Bytes(x), Value::Bytes(y)) = (a, b) {
        if ty.elements().is_none() {
            return Ok(ty.collation().compare(x, y));
        }
    }
    let mut ka = Vec::new();
    let mut kb = Vec::new();
    encode_key_part(&mut ka, ty, a)?;
    encode_key_part(&mut kb, ty, b)?;
    Ok(ka.cmp(&kb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::IntWidth;
    use proptest::prelude::*;

    fn key(ty: &ColumnType, d: &Value) -> Vec<u8> {
        let mut v = Vec::new();
        encode_key_part(&mut v, ty, d).unwrap();
        v
    }

    /// The reference comparator: written directly from the SQL semantics, not the encoding.
    fn reference_cmp(ty: &ColumnType, a: &Value, b: &Value) -> Ordering {
        match (a, b) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Less,
            (_, Value::Null) => Ordering::Greater,
            (Value::Int(x), Value::Int(y)) => x.cmp(y),
            (Value::UInt(x), Value::UInt(y)) => x.cmp(y),
            (Value::Double(x), Value::Double(y)) => x.partial_cmp(y).unwrap(),
            (Value::Decimal(x), Value::Decimal(y)) => x.cmp(y),
            (Value::Bytes(x), Value::Bytes(y)) => {
                let trim = |s: &str| s.trim_end_matches(' ').to_string();
                match ty.collation() {
                    Collation::Binary => x.cmp(y),
                    Collation::Utf8mb4Bin => trim(std::str::from_utf8(x).unwrap())
                        .cmp(&trim(std::str::from_utf8(y).unwrap())),
                    Collation::Utf8mb4GeneralCi => {
                        let fold = |s: &[u8]| -> Vec<u16> {
                            trim(std::str::from_utf8(s).unwrap())
                                .chars()
                                .map(general_ci_weight)
                                .collect()
                        };
                        fold(x).cmp(&fold(y))
                    }
                }
            }
            _ => unreachable!(),
        }
    }

    fn string_strategy() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                Just('a'),
                Just('A'),
                Just('b'),
                Just('B'),
                Just(' '),
                Just('\0'),
                Just('\u{1}'),
                Just('é'),
                Just('E'),
                Just('ß'),
                Just('s'),
                Just('Ж'),
                Just('ж'),
                Just('😀'),
                Just('z'),
            ],
            0..6,
        )
        .prop_map(|cs| cs.into_iter().collect::<String>().into_bytes())
    }

    proptest! {
        #[test]
        fn signed_ints_order(a in any::<i64>(), b in any::<i64>()) {
            let ty = ColumnType::Int { width: IntWidth::Big, unsigned: false };
            let (da, db) = (Value::Int(a), Value::Int(b));
            prop_assert_eq!(key(&ty, &da).cmp(&key(&ty, &db)), reference_cmp(&ty, &da, &db));
        }

        #[test]
        fn unsigned_and_decimal_order(
            a in any::<u64>(),
            b in any::<u64>(),
            x in -(10i128.pow(38) - 1)..10i128.pow(38),
            y in -(10i128.pow(38) - 1)..10i128.pow(38),
        ) {
            let ty = ColumnType::Int { width: IntWidth::Big, unsigned: true };
            prop_assert_eq!(key(&ty, &Value::UInt(a)).cmp(&key(&ty, &Value::UInt(b))), a.cmp(&b));
            let dt = ColumnType::Decimal { precision: 38, scale: 2 };
            let dec = |u: i128| Value::Decimal(crate::types::decimal_from_unscaled(u, 2));
            prop_assert_eq!(key(&dt, &dec(x)).cmp(&key(&dt, &dec(y))), x.cmp(&y));
        }

        #[test]
        fn times_order(a in -3_020_399_999_999i64..=3_020_399_999_999,
                       b in -3_020_399_999_999i64..=3_020_399_999_999) {
            let ty = ColumnType::Time { fsp: 6 };
            let t = |m| Value::Time(myriad_types::Time::from_total_micros(m));
            prop_assert_eq!(key(&ty, &t(a)).cmp(&key(&ty, &t(b))), a.cmp(&b));
        }

        #[test]
        fn doubles_order(a in any::<f64>().prop_filter("not nan", |v| !v.is_nan()),
                         b in any::<f64>().prop_filter("not nan", |v| !v.is_nan())) {
            let ty = ColumnType::Double;
            let (da, db) = (Value::Double(a), Value::Double(b));
            prop_assert_eq!(key(&ty, &da).cmp(&key(&ty, &db)), reference_cmp(&ty, &da, &db));
        }

        #[test]
        fn strings_order_in_every_collation(a in string_strategy(), b in string_strategy(), n in 0u8..3) {
            let collation = [Collation::Utf8mb4GeneralCi, Collation::Utf8mb4Bin, Collation::Binary][n as usize];
            let ty = ColumnType::Varchar { len: 100, collation };
            let (da, db) = (Value::Bytes(a), Value::Bytes(b));
            let expected = reference_cmp(&ty, &da, &db);
            prop_assert_eq!(key(&ty, &da).cmp(&key(&ty, &db)), expected);
            prop_assert_eq!(compare_datums(&ty, &da, &db).unwrap(), expected);
        }

        /// Composite keys order lexicographically by column, NULL first, and a key prefix
        /// is a byte prefix.
        #[test]
        fn composite_keys_order(a in (proptest::option::of(any::<i32>()), string_strategy()),
                                b in (proptest::option::of(any::<i32>()), string_strategy())) {
            let t1 = ColumnType::Int { width: IntWidth::Int, unsigned: false };
            let t2 = ColumnType::Char { len: 10, collation: Collation::Utf8mb4GeneralCi };
            let d = |v: Option<i32>| v.map(|x| Value::Int(x as i64)).unwrap_or(Value::Null);
            let enc = |v: &(Option<i32>, Vec<u8>)| {
                let mut k = key(&t1, &d(v.0));
                k.extend(key(&t2, &Value::Bytes(v.1.clone())));
                k
            };
            let expected = reference_cmp(&t1, &d(a.0), &d(b.0))
                .then(reference_cmp(&t2, &Value::Bytes(a.1.clone()), &Value::Bytes(b.1.clone())));
            prop_assert_eq!(enc(&a).cmp(&enc(&b)), expected);
            prop_assert!(enc(&a).starts_with(&key(&t1, &d(a.0))));
        }
    }

    #[test]
    fn general_ci_folds_case_accents_and_trailing_spaces() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(ci.compare(b"abc", b"ABC  "), Ordering::Equal);
        assert_eq!(ci.compare("caf\u{e9}".as_bytes(), b"CAFE"), Ordering::Equal);
        assert_eq!(ci.compare(b"a", b"b"), Ordering::Less);
        assert_eq!(Collation::Binary.compare(b"a", b"A"), Ordering::Greater);
        assert_eq!(Collation::Binary.compare(b"a ", b"a"), Ordering::Greater);
    }

    #[test]
    fn enum_and_set_keys_order_by_position_and_bitmask_not_text() {
        let elements: std::sync::Arc<[String]> = vec!["z".to_string(), "a".to_string()].into();
        let collation = Collation::Utf8mb4GeneralCi;
        let e = ColumnType::Enum {
            elements: elements.clone(),
            collation,
        };
        let s = ColumnType::Set {
            elements,
            collation,
        };
        let text = |t: &str| Value::Bytes(t.as_bytes().to_vec());
        assert!(key(&e, &text("z")) < key(&e, &text("a")));
        assert!(
            key(&e, &text("")) < key(&e, &text("z")),
            "the invalid value sorts first"
        );
        assert!(key(&s, &text("a")) > key(&s, &text("z")));
        assert!(key(&s, &text("z,a")) > key(&s, &text("a")));
        assert_eq!(
            compare_datums(&e, &text("a"), &text("z")).unwrap(),
            Ordering::Greater
        );
    }
}
