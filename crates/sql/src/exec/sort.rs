//! ORDER BY over materialized rows.

use crate::expr::eval::SqlValue;

use crate::value::Value;
use myriad_types::Collation;
use std::cmp::Ordering;

/// Sort rows by ORDER BY keys (NULLs first ascending, as MySQL does), the strings of key
/// `i` under `collations[i]`. The keys are consumed: a key column whose values are all
/// ASCII strings (or NULL) is folded once to its collation key ([`fold_ascii`]) and then
/// compared as bytes, which orders exactly as [`Collation::compare`] does without folding
/// per comparison.
///
/// A key column mixing kinds (an expression giving numbers for some rows and strings for
/// others) is first brought to one kind, as MySQL gives such an expression one result
/// type: text when any value is a string or temporal, else DOUBLE when any is one, else
/// DECIMAL. Pairwise mixed comparisons are not transitive (`'A' = 0`, `0 = ''`,
/// `'A' > ''`), and a sort with such a comparison may panic.
pub fn sort_rows<T>(rows: &mut [(Vec<Value>, T)], desc: &[bool], collations: &[Collation]) {
    for i in 0..desc.len() {
        unify_key_kind(rows, i);
    }
    let folded: Vec<bool> = (0..desc.len())
        .map(|i| {
            let ascii = rows.iter().all(|(keys, _)| match keys.get(i) {
                Some(Value::Bytes(s)) => s.is_ascii(),
                Some(Value::Null) => true,
                _ => false,
            });
            if ascii {
                for (keys, _) in rows.iter_mut() {
                    if let Some(Value::Bytes(s)) = keys.get_mut(i) {
                        fold_ascii(s, collations[i]);
                    }
                }
            }
            ascii
        })
        .collect();
    // An interrupted sort finishes at once (every pair equal); the statement then ends
    // with the interrupt's error (see crate::interrupt).
    let mut interrupted = false;
    rows.sort_by(|a, b| {
        if interrupted || crate::interrupt::tick().is_err() {
            interrupted = true;
            return Ordering::Equal;
        }
        for (i, d) in desc.iter().enumerate() {
            let (x, y) = (&a.0[i], &b.0[i]);
            let o = match (x, y) {
                (Value::Null, Value::Null) => Ordering::Equal,
                (Value::Null, _) => Ordering::Less,
                (_, Value::Null) => Ordering::Greater,
                (Value::Bytes(x), Value::Bytes(y)) if folded[i] => x.cmp(y),
                _ => crate::expr::eval::compare(x, y, collations[i], &mut Vec::new())
                    .unwrap_or(Ordering::Equal),
            };
            let o = if *d { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
}

/// Fold an ASCII string in place to its key under `collation` (see
/// [`Collation::push_key`]): trailing spaces off unless binary, upper case under
/// general_ci.
pub fn fold_ascii(s: &mut Vec<u8>, collation: Collation) {
    if collation == Collation::Binary {
        return;
    }
    let end = s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
    s.truncate(end);
    if collation == Collation::Utf8mb4GeneralCi {
        s.make_ascii_uppercase();
    }
}

/// Bring key column `i` of every row to one kind of value (see [`sort_rows`]).
pub(crate) fn unify_key_kind<T>(rows: &mut [(Vec<Value>, T)], i: usize) {
    use crate::exec::spill::keys::{kind_of, Kind};
    let mut first: Option<Kind> = None;
    let mut mixed = false;
    let mut widest = Kind::Integer;
    for (keys, _) in rows.iter() {
        let Some(k) = keys.get(i).and_then(kind_of) else {
            continue;
        };
        mixed |= first.is_some_and(|f| f != k);
        first.get_or_insert(k);
        widest = match (widest, k) {
            (Kind::Text, _) | (_, Kind::Text) => Kind::Text,
            (Kind::Double, _) | (_, Kind::Double) => Kind::Double,
            (Kind::Decimal, _) | (_, Kind::Decimal) => Kind::Decimal,
            _ => Kind::Integer,
        };
    }
    if !mixed {
        return;
    }
    let mut warnings = Vec::new();
    for (keys, _) in rows.iter_mut() {
        let Some(d) = keys.get_mut(i) else {
            continue;
        };
        if d.is_null() {
            continue;
        }
        *d = match widest {
            Kind::Text => d.to_text().map_or(Value::Null, Value::Bytes),
            Kind::Double => d
                .to_double(&mut warnings)
                .map_or(Value::Null, Value::Double),
            Kind::Decimal => d
                .to_decimal(&mut warnings)
                .map_or(Value::Null, Value::Decimal),
            Kind::Integer => continue,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;
    use myriad_types::decimal::Decimal;
    use proptest::prelude::*;

    /// The comparison sort_rows made before folding: crate::expr::eval::compare per pair.
    fn reference_sort(rows: &mut [(Vec<Value>, usize)], desc: &[bool], collations: &[Collation]) {
        rows.sort_by(|a, b| {
            for (i, d) in desc.iter().enumerate() {
                let (x, y) = (&a.0[i], &b.0[i]);
                let o = match (x.is_null(), y.is_null()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    _ => crate::expr::eval::compare(x, y, collations[i], &mut Vec::new())
                        .unwrap_or(Ordering::Equal),
                };
                let o = if *d { o.reverse() } else { o };
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
    }

    /// Keys of one column share a kind (strings, some non-ASCII, or integers), as a
    /// column's values do; NULLs anywhere.
    fn sort_keys() -> impl Strategy<Value = Vec<Vec<Value>>> {
        let strings = prop_oneof![
            Just(Value::Null),
            "[aAbB ]{0,3}".prop_map(|s| Value::Bytes(s.into_bytes())),
        ];
        let accented = prop_oneof![
            Just(Value::Null),
            "[aAé ]{0,2}".prop_map(|s| Value::Bytes(s.into_bytes())),
        ];
        let numbers = prop_oneof![Just(Value::Null), (-2i64..3).prop_map(Value::Int)];
        let rows = |a: BoxedStrategy<Value>, b: BoxedStrategy<Value>| {
            proptest::collection::vec((a, b).prop_map(|(a, b)| vec![a, b]), 0..30)
        };
        prop_oneof![
            rows(strings.clone().boxed(), numbers.clone().boxed()),
            rows(accented.clone().boxed(), strings.boxed()),
            rows(numbers.boxed(), accented.boxed()),
        ]
    }

    #[test]
    fn mixed_kind_keys_sort_as_text_without_panicking() {
        let keys = [
            Value::Int(0),
            Value::text("A"),
            Value::text(""),
            Value::Int(10),
            Value::Null,
            Value::text("9"),
            Value::Double(1.5),
        ];
        // The positions of `keys` in the order sort_rows puts one-key rows of them.
        let order = |keys: Vec<Value>, descending: bool| -> Vec<usize> {
            let mut rows: Vec<(Vec<Value>, usize)> = keys
                .into_iter()
                .enumerate()
                .map(|(n, k)| (vec![k], n))
                .collect();
            sort_rows(&mut rows, &[descending], &[Collation::Utf8mb4GeneralCi]);
            rows.iter().map(|r| r.1).collect()
        };
        // NULL, '', '0', '1.5', '10', '9', 'A'
        assert_eq!(order(keys.to_vec(), false), vec![4, 2, 0, 6, 3, 5, 1]);
        let numbers = vec![
            Value::Decimal(Decimal::from_i128_scaled(25, 1).unwrap()),
            Value::Int(2),
            Value::Double(2.25),
            Value::UInt(3),
        ];
        assert_eq!(order(numbers, true), vec![3, 0, 2, 1]);
    }

    proptest! {
        /// Folding ASCII string keys once orders rows exactly as comparing them pairwise
        /// (the sort is stable, so equal keys keep their input order in both).
        #[test]
        fn sort_rows_matches_pairwise_collation(
            keys in sort_keys(),
            desc in proptest::collection::vec(any::<bool>(), 2),
            collations in proptest::collection::vec(
                prop_oneof![
                    Just(Collation::Utf8mb4GeneralCi),
                    Just(Collation::Utf8mb4Bin),
                    Just(Collation::Binary),
                ],
                2,
            ),
        ) {
            let mut expected: Vec<(Vec<Value>, usize)> =
                keys.iter().cloned().enumerate().map(|(n, k)| (k, n)).collect();
            reference_sort(&mut expected, &desc, &collations);
            let mut sorted: Vec<(Vec<Value>, usize)> =
                keys.iter().cloned().enumerate().map(|(n, k)| (k, n)).collect();
            sort_rows(&mut sorted, &desc, &collations);
            let order = |rows: &[(Vec<Value>, usize)]| rows.iter().map(|r| r.1).collect::<Vec<_>>();
            prop_assert_eq!(order(&sorted), order(&expected));
        }
    }
}
