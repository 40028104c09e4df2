//! ENUM and SET values: an ENUM holds one element of its list, a SET any of them. Both are
//! stored as text (an ENUM its element, a SET its elements in list order joined by commas),
//! so a row reads back without its definition; their numbers (an ENUM's position, a SET's
//! bitmask) are what index keys and numeric contexts use.

use crate::types::Collation;
use std::cmp::Ordering;

/// Most elements a SET may have (its bitmask is 64 bits).
pub const SET_MAX_ELEMENTS: usize = 64;

/// Most elements an ENUM may have.
pub const ENUM_MAX_ELEMENTS: usize = 65_535;

/// The position (1 for the first) of the element `text` is, exactly; 0 when it is none
/// (the empty string an invalid value is stored as).
pub fn enum_position(elements: &[String], text: &[u8]) -> u64 {
    elements
        .iter()
        .position(|e| e.as_bytes() == text)
        .map_or(0, |i| i as u64 + 1)
}

/// The bitmask of the elements of a stored SET text (bit 0 for the first element).
pub fn set_bits(elements: &[String], text: &[u8]) -> u64 {
    if text.is_empty() {
        return 0;
    }
    text.split(|&b| b == b',')
        .map(|part| enum_position(elements, part))
        .filter(|&p| p > 0)
        .fold(0, |bits, p| bits | (1 << (p - 1)))
}

/// The element `text` names under `collation` (trailing spaces aside), as MariaDB matches
/// a value stored into an ENUM or SET column: its index in the list.
pub fn find(elements: &[String], collation: Collation, text: &[u8]) -> Option<usize> {
    elements
        .iter()
        .position(|e| collation.compare(e.as_bytes(), text) == Ordering::Equal)
}

/// Characters the longest value can have: an ENUM's longest element, a SET's elements all
/// joined by commas (MariaDB's column length).
pub fn max_chars(elements: &[String], set: bool) -> u32 {
    let chars = elements.iter().map(|e| e.chars().count() as u32);
    if set {
        chars.sum::<u32>() + elements.len().saturating_sub(1) as u32
    } else {
        chars.max().unwrap_or(0)
    }
}

/// Bytes MariaDB packs the number in (its key image): an ENUM 1 or 2, a SET 1 to 4 or 8.
pub fn packed_bytes(elements: &[String], set: bool) -> u32 {
    let n = elements.len();
    if !set {
        return if n < 256 { 1 } else { 2 };
    }
    match n.div_ceil(8) {
        0 | 1 => 1,
        b @ 2..=4 => b as u32,
        _ => 8,
    }
}

/// The stored text of the SET whose bitmask is `bits` (elements past the list ignored).
pub fn set_text(elements: &[String], bits: u64) -> String {
    let mut out = String::new();
    for (i, e) in elements.iter().enumerate().take(SET_MAX_ELEMENTS) {
        if bits & (1 << i) != 0 {
            if !out.is_empty() {
                out.push(',');
            }
            out.push_str(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn positions_count_from_one_and_invalid_is_zero() {
        let l = list(&["x", "Y", "z'q"]);
        assert_eq!(enum_position(&l, b"x"), 1);
        assert_eq!(enum_position(&l, b"z'q"), 3);
        assert_eq!(enum_position(&l, b""), 0);
        assert_eq!(enum_position(&l, b"y"), 0, "stored text is exact");
    }

    #[test]
    fn set_bits_and_text_round_trip_in_list_order() {
        let l = list(&["r", "g", "b"]);
        assert_eq!(set_bits(&l, b"r,b"), 5);
        assert_eq!(set_bits(&l, b""), 0);
        assert_eq!(set_text(&l, 5), "r,b");
        assert_eq!(set_text(&l, 0), "");
        assert_eq!(set_text(&l, 7), "r,g,b");
    }

    #[test]
    fn input_matches_under_the_collation() {
        let l = list(&["x", "Y"]);
        assert_eq!(find(&l, Collation::Utf8mb4GeneralCi, b"y"), Some(1));
        assert_eq!(find(&l, Collation::Utf8mb4GeneralCi, b"X  "), Some(0));
        assert_eq!(find(&l, Collation::Utf8mb4Bin, b"y"), None);
        assert_eq!(find(&l, Collation::Utf8mb4GeneralCi, b"w"), None);
    }
}
