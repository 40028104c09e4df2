//! `x IN (c1, c2, ...)` over constants, looked up instead of scanned: an IN list of a
//! million constants answered each row by comparing it with every constant, so a scan of a
//! large table ran for minutes. The constants are put, once at compile time, into a
//! structure whose equality is exactly the one [`crate::expr::eval::compare`] applies to the
//! pairs it covers:
//! - integers (signed and unsigned) in a hash set, for an integer operand (MySQL compares
//!   two integers as integers);
//! - strings sorted by the comparison's collation, binary-searched for a string operand
//!   (two strings compare by collation); only valid UTF-8 on both sides, so that every
//!   collation's order holds.
//!
//! Any other pairing (a string operand against integers, a DECIMAL or a date operand, a
//! list that mixes kinds) is not covered, and the caller compares pair by pair as before;
//! the answer is the same either way.

use crate::value::Value;
use myriad_types::Collation;
use std::collections::HashSet;

/// Lists shorter than this are scanned: a few comparisons cost less than a lookup.
pub const MIN_SET_LEN: usize = 8;

/// The constants of one IN list, ready for lookups.
#[derive(Debug)]
pub struct ConstSet {
    kind: Kind,
    /// Whether the list holds a NULL (a miss then answers NULL, not false).
    has_null: bool,
    /// The collation the IN comparison uses.
    collation: Collation,
}

#[derive(Debug)]
enum Kind {
    Ints(HashSet<i128, foldhash::fast::RandomState>),
    /// Sorted by collation, duplicates (under the collation) removed.
    Strings(Vec<Vec<u8>>),
}

fn wide(d: &Value) -> Option<i128> {
    match d {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    }
}

impl ConstSet {
    /// A set for `constants` when they are all constants (None is an item that is not),
    /// all integers or all strings (NULLs aside) and at least [`MIN_SET_LEN`] long; None
    /// otherwise. Strings are compared under `collation`.
    pub fn build<'a>(
        constants: impl ExactSizeIterator<Item = Option<&'a Value>>,
        collation: Collation,
    ) -> Option<ConstSet> {
        if constants.len() < MIN_SET_LEN {
            return None;
        }
        let mut has_null = false;
        let mut ints = HashSet::with_hasher(foldhash::fast::RandomState::default());
        let mut strings = Vec::new();
        let mut constants = constants;
        while let Some(d) = constants.next() {
            match d? {
                Value::Null => has_null = true,
                // Bytes that are not UTF-8 compare byte by byte against any string, and
                // the collation's order would not hold for them: such lists are scanned.
                Value::Bytes(s) if ints.is_empty() && std::str::from_utf8(s).is_ok() => {
                    strings.push(s.clone())
                }
                d if strings.is_empty() => {
                    if ints.capacity() == 0 {
                        // Sized for the rest of the list at its first integer: growing it
                        // would hold the old table beside the new one at each doubling.
                        ints.reserve(constants.len() + 1);
                    }
                    ints.insert(wide(d)?);
                }
                _ => return None,
            }
        }
        let kind = if strings.is_empty() {
            Kind::Ints(ints)
        } else {
            strings.sort_by(|a, b| collation.compare(a, b));
            strings.dedup_by(|a, b| collation.eq(a, b));
            Kind::Strings(strings)
        };
        Some(ConstSet {
            kind,
            has_null,
            collation,
        })
    }

    /// `Some(found)` when the set decides whether non-NULL `v` equals a constant, None when
    /// `v`'s kind needs the pairwise comparison.
    pub fn contains(&self, v: &Value) -> Option<bool> {
        match (&self.kind, v) {
            (Kind::Ints(set), v) => wide(v).map(|k| set.contains(&k)),
            (Kind::Strings(sorted), Value::Bytes(s)) if std::str::from_utf8(s).is_ok() => Some(
                sorted
                    .binary_search_by(|c| self.collation.compare(c, s))
                    .is_ok(),
            ),
            (Kind::Strings(_), _) => None,
        }
    }

    pub fn has_null(&self) -> bool {
        self.has_null
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval::{compare, SqlValue};
    use proptest::prelude::*;

    fn value_of(kind: u8, n: i64) -> Value {
        match kind % 6 {
            0 => Value::Int(n),
            1 => Value::UInt(n.unsigned_abs()),
            2 => Value::Null,
            3 => Value::text(&format!("k{}", n.rem_euclid(50))),
            4 => Value::Bytes(vec![b'k', 0xFF, n.rem_euclid(50) as u8]),
            _ => Value::text(&format!("K{} ", n.rem_euclid(50))),
        }
    }

    /// The reference: the pairwise comparison the set replaces.
    fn scan(list: &[Value], v: &Value, collation: Collation) -> (bool, bool) {
        let mut w = Vec::new();
        let found = list
            .iter()
            .any(|x| compare(v, x, collation, &mut w).is_some_and(|o| o.is_eq()));
        (found, list.iter().any(Value::is_null))
    }

    proptest! {
        /// Wherever the set answers, it answers as the pairwise scan does.
        #[test]
        fn lookups_agree_with_the_scan(
            list in prop::collection::vec((any::<u8>(), -60i64..60), 0..40),
            probes in prop::collection::vec((any::<u8>(), -60i64..60), 1..20),
            collation in prop_oneof![
                Just(Collation::Utf8mb4GeneralCi),
                Just(Collation::Utf8mb4Bin),
                Just(Collation::Binary),
            ],
        ) {
            let list: Vec<Value> = list.into_iter().map(|(k, n)| value_of(k, n)).collect();
            let Some(set) = ConstSet::build(list.iter().map(Some), collation) else { return Ok(()) };
            for (k, n) in probes {
                let v = value_of(k, n);
                if v.is_null() {
                    continue;
                }
                if let Some(found) = set.contains(&v) {
                    prop_assert_eq!((found, set.has_null()), scan(&list, &v, collation), "probe {:?}", v);
                }
            }
        }
    }

    #[test]
    fn mixed_or_short_lists_are_scanned() {
        let short: Vec<Value> = (0..3).map(Value::Int).collect();
        assert!(ConstSet::build(short.iter().map(Some), Collation::default()).is_none());
        let mut mixed: Vec<Value> = (0..10).map(Value::Int).collect();
        mixed.push(Value::text("a"));
        assert!(ConstSet::build(mixed.iter().map(Some), Collation::default()).is_none());
        let ints: Vec<Value> = (0..10).map(Value::Int).collect();
        let set = ConstSet::build(ints.iter().map(Some), Collation::default()).unwrap();
        assert_eq!(set.contains(&Value::UInt(9)), Some(true));
        assert_eq!(set.contains(&Value::Int(10)), Some(false));
        assert_eq!(set.contains(&Value::text("1")), None);
    }
}
