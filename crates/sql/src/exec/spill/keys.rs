//! ORDER BY keys as the spilled sort and the top-N selection compare them: exactly the
//! order of [`crate::exec::sort::sort_rows`], computed without seeing every row at once.
//!
//! `sort_rows` looks at a whole key column before comparing: a column mixing kinds of
//! values (numbers and strings from one expression) is first brought to one kind, and a
//! column of ASCII strings is folded once (trimmed, upper-cased) and compared as bytes.
//! Both depend on all the rows. Here a [`KeyStats`] gathers what those decisions need
//! as rows pass, a [`KeyPlan`] is the decisions for the rows seen so far, and
//! [`prepare`] applies a plan to one row's keys, so that rows prepared under the same
//! plan compare as `sort_rows` compares them.
//!
//! Folding never changes the order (folded ASCII keys order as the collation does; the
//! property test of `sort_rows` checks this), so rows prepared with different folding
//! decisions still merge correctly. Bringing a column to one kind does change it: a run
//! sorted before its column turned out mixed is sorted again (see [`super::sort`]).

use crate::expr::compare as eval;
use crate::expr::eval::SqlValue;
use crate::value::Value;
use myriad_types::Collation;
use std::cmp::Ordering;

/// The kind a mixed key column is brought to, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Integer,
    Decimal,
    Double,
    Text,
}

/// The kind a key value is brought to in a mixed column; None for NULL.
pub(crate) fn kind_of(d: &Value) -> Option<Kind> {
    match d {
        Value::Null => None,
        Value::Int(_) | Value::UInt(_) => Some(Kind::Integer),
        Value::Decimal(_) => Some(Kind::Decimal),
        Value::Double(_) => Some(Kind::Double),
        Value::Bytes(_) | Value::Date { .. } | Value::DateTime { .. } | Value::Time(_) => {
            Some(Kind::Text)
        }
    }
}

/// What one key column held so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ColumnStats {
    first: Option<Kind>,
    mixed: bool,
    widest: Option<Kind>,
    /// Every non-NULL value is an ASCII string.
    ascii_strings_only: bool,
    /// Every string is ASCII (numbers and dates aside).
    strings_ascii: bool,
    seen: bool,
    /// The collation the column's strings order under.
    collation: Collation,
}

/// What the keys of the rows seen so far need (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyStats {
    columns: Vec<ColumnStats>,
    /// Keys compare as they are: strings as bytes (see [`KeyPlan::binary`]).
    binary: bool,
}

/// How to prepare each key column: the kind a mixed column is brought to, and whether
/// its strings are folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPlan {
    pub convert: Vec<Option<Kind>>,
    pub fold: Vec<bool>,
    pub collations: Vec<Collation>,
    /// Keys are compared as they are, strings byte by byte: the order of a grouping's
    /// canonical keys, where only equal keys must meet.
    pub binary: bool,
}

impl KeyStats {
    /// Stats of keys whose strings order under `collations` (one per key).
    pub fn new(collations: &[Collation]) -> KeyStats {
        let fresh = |collation| ColumnStats {
            ascii_strings_only: true,
            strings_ascii: true,
            collation,
            ..ColumnStats::default()
        };
        KeyStats {
            columns: collations.iter().map(|c| fresh(*c)).collect(),
            binary: false,
        }
    }

    /// Stats whose plan compares keys as they are (see [`KeyPlan::binary`]).
    pub fn binary(width: usize) -> KeyStats {
        KeyStats {
            binary: true,
            ..KeyStats::new(&vec![Collation::Binary; width])
        }
    }

    /// Empty stats of the same mode.
    pub fn fresh(&self) -> KeyStats {
        KeyStats {
            binary: self.binary,
            ..KeyStats::new(&self.collations())
        }
    }

    /// Each key's collation.
    pub fn collations(&self) -> Vec<Collation> {
        self.columns.iter().map(|c| c.collation).collect()
    }

    pub fn observe(&mut self, keys: &[Value]) {
        for (c, d) in self.columns.iter_mut().zip(keys) {
            let Some(k) = kind_of(d) else {
                continue;
            };
            c.seen = true;
            c.mixed |= c.first.is_some_and(|f| f != k);
            c.first.get_or_insert(k);
            c.widest = Some(c.widest.map_or(k, |w| w.max(k)));
            let ascii = matches!(d, Value::Bytes(s) if s.is_ascii());
            c.ascii_strings_only &= ascii;
            c.strings_ascii &= ascii || !matches!(d, Value::Bytes(_));
        }
    }

    pub fn merge(&mut self, other: &KeyStats) {
        for (c, o) in self.columns.iter_mut().zip(&other.columns) {
            if !o.seen {
                continue;
            }
            c.mixed |= o.mixed || c.first.zip(o.first).is_some_and(|(a, b)| a != b);
            c.first = c.first.or(o.first);
            c.widest = c.widest.max(o.widest);
            c.ascii_strings_only &= o.ascii_strings_only;
            c.strings_ascii &= o.strings_ascii;
            c.seen = true;
        }
    }

    pub fn plan(&self) -> KeyPlan {
        if self.binary {
            return KeyPlan {
                convert: vec![None; self.columns.len()],
                fold: vec![false; self.columns.len()],
                collations: self.collations(),
                binary: true,
            };
        }
        let convert: Vec<Option<Kind>> = self
            .columns
            .iter()
            .map(|c| match (c.mixed, c.widest) {
                (true, Some(Kind::Integer)) | (false, _) | (_, None) => None,
                (true, w) => w,
            })
            .collect();
        let fold = self
            .columns
            .iter()
            .zip(&convert)
            .map(|(c, conv)| match conv {
                Some(Kind::Text) => c.strings_ascii,
                Some(_) => false,
                None => c.ascii_strings_only,
            })
            .collect();
        KeyPlan {
            convert,
            fold,
            collations: self.collations(),
            binary: false,
        }
    }
}

impl KeyPlan {
    /// Whether rows sorted under `self` are in the order `other` gives them: each column
    /// is brought to the same kind (folding never changes the order).
    pub fn orders_as(&self, other: &KeyPlan) -> bool {
        self.convert == other.convert
    }
}

/// A row's keys prepared under `plan` (converted, then folded where the plan folds).
pub fn prepare(keys: &[Value], plan: &KeyPlan) -> Vec<Value> {
    if plan.binary {
        return keys.to_vec();
    }
    let mut warnings = Vec::new();
    keys.iter()
        .enumerate()
        .map(|(i, d)| {
            let d = match (plan.convert.get(i).copied().flatten(), d) {
                (_, Value::Null) | (None | Some(Kind::Integer), _) => d.clone(),
                (Some(Kind::Text), _) => d.to_text().map_or(Value::Null, Value::Bytes),
                (Some(Kind::Double), _) => d
                    .to_double(&mut warnings)
                    .map_or(Value::Null, Value::Double),
                (Some(Kind::Decimal), _) => d
                    .to_decimal(&mut warnings)
                    .map_or(Value::Null, Value::Decimal),
            };
            match d {
                Value::Bytes(mut s) if plan.fold.get(i) == Some(&true) && s.is_ascii() => {
                    crate::exec::sort::fold_ascii(&mut s, plan.collations[i]);
                    Value::Bytes(s)
                }
                other => other,
            }
        })
        .collect()
}

/// Compare prepared keys as `sort_rows` does (NULLs first ascending; `desc` per column).
pub fn compare(a: &[Value], b: &[Value], desc: &[bool], plan: &KeyPlan) -> Ordering {
    for (i, d) in desc.iter().enumerate() {
        let (x, y) = (&a[i], &b[i]);
        let o = match (x, y) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Less,
            (_, Value::Null) => Ordering::Greater,
            (Value::Bytes(x), Value::Bytes(y)) if plan.fold[i] || plan.binary => x.cmp(y),
            (Value::UInt(x), Value::UInt(y)) if plan.binary => x.cmp(y),
            _ => {
                eval::compare(x, y, plan.collations[i], &mut Vec::new()).unwrap_or(Ordering::Equal)
            }
        };
        let o = if *d { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}
