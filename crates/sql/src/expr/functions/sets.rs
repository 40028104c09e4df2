//! Functions that pick strings by number: ELT (one by its place), MAKE_SET and EXPORT_SET
//! (one per bit of a number, joined with commas or a separator).

use super::{over_packet, Args};
use crate::expr::eval::{SqlValue, Warning};
use crate::value::Value;

/// ELT(n, s1, s2, ...): the n-th string; NULL when n is NULL or out of range.
pub(super) fn elt(a: &Args, w: &mut Vec<Warning>) -> Value {
    let Some(n) = a.v[0].to_int(w) else {
        return Value::Null;
    };
    match usize::try_from(n) {
        Ok(n) if n >= 1 && n < a.v.len() => match a.v[n].to_text() {
            Some(s) => Value::Bytes(s),
            None => Value::Null,
        },
        _ => Value::Null,
    }
}

/// MAKE_SET(bits, s1, s2, ...): the strings whose bit is set in `bits` (s1 for the lowest),
/// NULL strings left out, joined with commas.
pub(super) fn make_set(a: &Args, w: &mut Vec<Warning>) -> Value {
    let Some(bits) = a.v[0].to_int(w) else {
        return Value::Null;
    };
    let chosen: Vec<Vec<u8>> = a.v[1..]
        .iter()
        .take(64)
        .enumerate()
        .filter(|(i, _)| (bits as u64) >> i & 1 == 1)
        .filter_map(|(_, s)| s.to_text())
        .collect();
    Value::Bytes(chosen.join(&b","[..]))
}

/// The most places EXPORT_SET writes: one per bit of a 64-bit number.
const EXPORT_SET_PLACES_MAX: u64 = 64;

/// EXPORT_SET(bits, on, off[, separator[, places]]): `on` or `off` for each of the lowest
/// `places` bits of `bits` (64 by default and at most), lowest first, joined by the
/// separator (a comma by default). NULL if any argument is.
pub(super) fn export_set(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let bits = super::to_u64_bits(&a.v[0], w).unwrap_or(0);
    let (on, off) = (
        a.v[1].to_text().unwrap_or_default(),
        a.v[2].to_text().unwrap_or_default(),
    );
    let separator = match a.v.get(3) {
        Some(s) => s.to_text().unwrap_or_default(),
        None => b",".to_vec(),
    };
    // MariaDB reads the count as a 32-bit unsigned number.
    let places = match a.v.get(4) {
        Some(_) => u64::from(a.int(4, w) as u32).min(EXPORT_SET_PLACES_MAX),
        None => EXPORT_SET_PLACES_MAX,
    };
    let bytes =
        places * on.len().max(off.len()) as u64 + places.saturating_sub(1) * separator.len() as u64;
    if over_packet("export_set", bytes, a.limit, w) {
        return Value::Null;
    }
    let parts: Vec<&[u8]> = (0..places)
        .map(|i| {
            if bits >> i & 1 == 1 {
                &on[..]
            } else {
                &off[..]
            }
        })
        .collect();
    Value::Bytes(parts.join(&separator[..]))
}
