//! Values stored into ENUM and SET columns, by MariaDB's rules: a string names elements
//! (matched under the column's collation, trailing spaces aside), a number is an ENUM's
//! position or a SET's bitmask, and a string that names no element but is a number counts
//! as that number. Anything else is 1265 "Data truncated": an error in strict mode,
//! otherwise a warning with the empty string (an ENUM's invalid value) or the elements
//! that were named (a SET) stored.

use crate::error::SqlError;
use crate::expr::eval::{SqlValue, Warning};
use crate::plan::stored::Target;
use crate::value::Value;
use myriad_storage as st;
use st::elements;

/// The value an ENUM or SET column (`target`'s) stores for `value`.
pub(super) fn element_value(
    value: &Value,
    target: &Target,
    w: &mut Vec<Warning>,
) -> Result<st::Value, SqlError> {
    let (text, valid) = match &target.column.ty {
        st::ColumnType::Enum {
            elements,
            collation,
        } => match enum_position(value, elements, *collation) {
            Some(p) => (elements[p - 1].clone(), true),
            None => (String::new(), false),
        },
        st::ColumnType::Set {
            elements,
            collation,
        } => {
            let (bits, valid) = set_bits(value, elements, *collation);
            (elements::set_text(elements, bits), valid)
        }
        other => unreachable!("an ENUM or SET column, not {other:?}"),
    };
    if !valid {
        target.data_truncated_or_fail(w)?;
    }
    Ok(st::Value::Bytes(text.into_bytes()))
}

/// The position (from 1) of the element of `list` that `value` names or numbers.
fn enum_position(value: &Value, list: &[String], collation: st::Collation) -> Option<usize> {
    let position = match value {
        Value::Bytes(s) => match elements::find(list, collation, s) {
            Some(i) => Some(i as u64 + 1),
            None => integer_text(s),
        },
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => {
            let text = value.to_text().unwrap_or_default();
            elements::find(list, collation, &text).map(|i| i as u64 + 1)
        }
        number => number_of(number),
    };
    position
        .filter(|&p| p >= 1 && p <= list.len() as u64)
        .map(|p| p as usize)
}

/// The bitmask of the elements of `list` that `value` names (or is), and whether it named
/// nothing else.
fn set_bits(value: &Value, list: &[String], collation: st::Collation) -> (u64, bool) {
    let all = if list.len() >= 64 {
        u64::MAX
    } else {
        (1u64 << list.len()) - 1
    };
    match value {
        Value::Bytes(_) | Value::Date(_) | Value::DateTime(_) | Value::Time(_) => {
            let text = value.to_text().unwrap_or_default();
            let (bits, named_all) = named_bits(list, collation, &text);
            match integer_text(&text) {
                Some(n) if !named_all => (n & all, n & !all == 0),
                _ => (bits, named_all),
            }
        }
        number => match number_of(number) {
            Some(n) => (n & all, n & !all == 0),
            None => (0, false),
        },
    }
}

/// The bitmask of the elements a comma-separated text names, and whether it named only
/// elements.
fn named_bits(list: &[String], collation: st::Collation, text: &[u8]) -> (u64, bool) {
    if text.is_empty() {
        return (0, true);
    }
    let mut bits = 0u64;
    let mut named_all = true;
    for part in text.split(|&b| b == b',') {
        match elements::find(list, collation, part) {
            Some(i) if i < elements::SET_MAX_ELEMENTS => bits |= 1 << i,
            _ => named_all = false,
        }
    }
    (bits, named_all)
}

/// A text that is a whole non-negative integer (spaces around it allowed).
fn integer_text(s: &[u8]) -> Option<u64> {
    let t = std::str::from_utf8(s).ok()?.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// A number's integer (rounded), None when it is negative.
fn number_of(v: &Value) -> Option<u64> {
    let i = v.to_int(&mut Vec::new())?;
    match v {
        Value::UInt(u) => Some(*u),
        _ => u64::try_from(i).ok(),
    }
}
