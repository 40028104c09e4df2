//! GROUP_CONCAT's state over a group's rows, as MariaDB 10.11 builds the result:
//!
//! - A row with a NULL in any argument is skipped; a group with no row left is NULL.
//! - Without ORDER BY or DISTINCT the rows' texts join in the order they arrive. With
//!   ORDER BY they join in its order, equal keys the later row first (MariaDB's tree puts
//!   a new row before its equals). DISTINCT keeps the first row of equal arguments and,
//!   without ORDER BY, joins them in the order of the arguments.
//! - `LIMIT [offset,] n` counts joined rows; the result is cut at group_concat_max_len
//!   bytes, at the end of a character, with warning 1260 naming the row whose text
//!   crossed the limit: counted from 1 in joined order, after the rows joined by the
//!   statement's earlier groups (MariaDB's counter is not reset between groups).
//!
//! Memory: the unordered text never holds more than the limit and one row's text (rows
//! after the cut are not read); the ordered rows are trimmed, past a budget, to those that
//! can still reach the result (the first `offset + n`, and those up to the row that
//! crosses the limit). DISTINCT keeps the key of every distinct argument list, as
//! COUNT(DISTINCT) does.

use crate::exec::aggregate::group_key_text;
use crate::expr::eval::Warning;
use crate::expr::Env;
use crate::plan::tables::GroupConcat;
use crate::value::Value;
use crate::SqlError;
use myriad_types::errors::ER_CUT_VALUE_GROUP_CONCAT;
use myriad_types::Collation;
use std::cmp::Ordering;
use std::collections::HashSet;

/// Kept ordered rows are trimmed once their texts hold this many times the limit.
const TRIM_FACTOR: usize = 4;

/// Bytes the ordered rows may hold before a trim, whatever the limit.
const TRIM_FLOOR_BYTES: usize = 64 * 1024;

#[derive(Clone, Default)]
pub(crate) struct ConcatState {
    /// Rows taken (not skipped for NULL or as a duplicate).
    taken: u64,
    /// Unordered: the result so far.
    text: Vec<u8>,
    /// Rows joined into the result (up to the one cut), and the one cut (from 1).
    joined: u64,
    cut_row: Option<u64>,
    /// Ordered (ORDER BY or DISTINCT): each row's sort keys, arrival number and text.
    rows: Vec<(Vec<Value>, u64, Vec<u8>)>,
    rows_bytes: usize,
    /// Bytes past which the ordered rows are trimmed next: at least twice what a trim
    /// kept, so that each trim is paid for by as many new rows as it kept.
    trim_at_bytes: usize,
    /// DISTINCT: the canonical keys of the argument lists taken.
    seen: Option<HashSet<Vec<u8>>>,
}

impl ConcatState {
    pub(crate) fn new(distinct: bool) -> ConcatState {
        ConcatState {
            seen: distinct.then(HashSet::new),
            ..ConcatState::default()
        }
    }

    fn ordered(spec: &GroupConcat, distinct: bool) -> bool {
        !spec.order.is_empty() || distinct
    }

    /// Fold one input row.
    pub(crate) fn add(
        &mut self,
        spec: &GroupConcat,
        row: &[Value],
        max_len: u64,
        env: &mut dyn Env,
    ) -> Result<(), SqlError> {
        let distinct = self.seen.is_some();
        if !Self::ordered(spec, distinct) && self.cut_row.is_some() {
            // The result is complete: no later row reaches it.
            self.taken += 1;
            return Ok(());
        }
        let mut values = Vec::with_capacity(spec.args.len());
        for a in &spec.args {
            let v = a.eval(env, row)?;
            if v.is_null() {
                return Ok(());
            }
            values.push(v);
        }
        if let Some(seen) = &mut self.seen {
            let mut key = Vec::new();
            for (v, c) in values.iter().zip(&spec.arg_collations) {
                let part = group_key_text(v, *c);
                key.extend_from_slice(&(part.len() as u64).to_le_bytes());
                key.extend_from_slice(&part);
            }
            if !seen.insert(key) {
                return Ok(());
            }
        }
        let seq = self.taken;
        self.taken += 1;
        let text: Vec<u8> = values.iter().filter_map(Value::to_text).flatten().collect();
        if !Self::ordered(spec, distinct) {
            let (offset, count) = spec.limit.unwrap_or((0, u64::MAX));
            if seq < offset || seq - offset >= count {
                return Ok(());
            }
            if seq > offset {
                self.text.extend_from_slice(&spec.separator);
            }
            self.text.extend_from_slice(&text);
            self.joined += 1;
            if cut(&mut self.text, max_len, spec.collation) {
                self.cut_row = Some(self.joined);
            }
            return Ok(());
        }
        let keys = if spec.order.is_empty() {
            values
        } else {
            let mut keys = Vec::with_capacity(spec.order.len());
            for (e, ..) in &spec.order {
                keys.push(e.eval(env, row)?);
            }
            keys
        };
        self.rows_bytes += text.len() + 64;
        self.rows.push((keys, seq, text));
        let budget = (max_len as usize)
            .saturating_mul(4 * TRIM_FACTOR)
            .max(TRIM_FLOOR_BYTES);
        if self.rows_bytes > budget.max(self.trim_at_bytes) {
            self.trim(spec, max_len, env.warnings());
            self.trim_at_bytes = self.rows_bytes.saturating_mul(2);
        }
        Ok(())
    }

    /// Sort the ordered rows and drop those that cannot reach the result.
    fn trim(&mut self, spec: &GroupConcat, max_len: u64, warnings: &mut Vec<Warning>) {
        self.sort(spec, warnings);
        let (offset, count) = spec.limit.unwrap_or((0, u64::MAX));
        let mut keep = offset.saturating_add(count).min(self.rows.len() as u64) as usize;
        // Past the offset, the rows up to the one whose text crosses the limit.
        let mut chars = 0u64;
        for (i, (_, _, text)) in self.rows.iter().enumerate().skip(offset as usize) {
            if i >= keep {
                break;
            }
            chars += (text.len() + spec.separator.len()) as u64;
            if chars > max_len {
                keep = i + 1;
                break;
            }
        }
        self.rows.truncate(keep);
        self.rows_bytes = self.rows.iter().map(|r| r.2.len() + 64).sum();
    }

    fn sort(&mut self, spec: &GroupConcat, warnings: &mut Vec<Warning>) {
        let order: Vec<(bool, Collation)> = if spec.order.is_empty() {
            spec.arg_collations.iter().map(|c| (false, *c)).collect()
        } else {
            spec.order.iter().map(|(_, desc, c)| (*desc, *c)).collect()
        };
        self.rows.sort_by(|a, b| {
            for ((x, y), (desc, c)) in a.0.iter().zip(&b.0).zip(&order) {
                let o = match (x.is_null(), y.is_null()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    _ => crate::expr::eval::compare(x, y, *c, warnings).unwrap_or(Ordering::Equal),
                };
                let o = if *desc { o.reverse() } else { o };
                if o != Ordering::Equal {
                    return o;
                }
            }
            // Equal keys: the later row first.
            b.1.cmp(&a.1)
        });
    }

    /// The result: NULL when no row was taken; warning 1260 when it was cut, naming the
    /// row by `rows_before` (the rows joined in earlier groups, which this group's are
    /// added to).
    pub(crate) fn finish(
        mut self,
        spec: &GroupConcat,
        max_len: u64,
        (warnings, rows_before): (&mut Vec<Warning>, &mut u64),
    ) -> Value {
        if self.taken == 0 {
            return Value::Null;
        }
        if Self::ordered(spec, self.seen.is_some()) {
            self.sort(spec, warnings);
            let (offset, count) = spec.limit.unwrap_or((0, u64::MAX));
            for (n, (_, _, text)) in self
                .rows
                .iter()
                .skip(offset as usize)
                .take(count.min(usize::MAX as u64) as usize)
                .enumerate()
            {
                if n > 0 {
                    self.text.extend_from_slice(&spec.separator);
                }
                self.text.extend_from_slice(text);
                self.joined += 1;
                if cut(&mut self.text, max_len, spec.collation) {
                    self.cut_row = Some(self.joined);
                    break;
                }
            }
        }
        if let Some(row) = self.cut_row {
            let row = *rows_before + row;
            warnings.push(Warning {
                level: "Warning",
                code: ER_CUT_VALUE_GROUP_CONCAT.code,
                message: ER_CUT_VALUE_GROUP_CONCAT.message(&[&row]),
            });
        }
        *rows_before += self.joined;
        Value::Bytes(self.text)
    }
}

/// Cut `text` to at most `max_len` bytes, at the end of a character (MariaDB keeps the
/// well-formed prefix; a binary string's bytes are all whole); whether it was longer.
fn cut(text: &mut Vec<u8>, max_len: u64, collation: Collation) -> bool {
    if (text.len() as u64) <= max_len {
        return false;
    }
    let mut end = max_len as usize;
    while collation != Collation::Binary && end > 0 && (text[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    text.truncate(end);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::text::ConstEnv;
    use crate::expr::Expr;

    /// GROUP_CONCAT(column 0 ORDER BY column 1 [DESC]) over `rows`, with its warnings.
    fn ordered(
        rows: &[(Vec<u8>, i64)],
        (desc, limit, max_len): (bool, Option<(u64, u64)>, u64),
    ) -> (Value, Vec<Warning>) {
        let spec = GroupConcat {
            args: vec![Expr::Column(0)],
            arg_collations: vec![Collation::Utf8mb4GeneralCi],
            order: vec![(Expr::Column(1), desc, Collation::Utf8mb4GeneralCi)],
            separator: b",".to_vec(),
            limit,
            collation: Collation::Utf8mb4GeneralCi,
        };
        let mut warnings = Vec::new();
        let mut state = ConcatState::new(false);
        for (text, n) in rows {
            let row = [Value::Bytes(text.clone()), Value::Int(*n)];
            let mut env = ConstEnv::folding(&mut warnings);
            state.add(&spec, &row, max_len, &mut env).expect("add");
        }
        let mut before = 0;
        let v = state.finish(&spec, max_len, (&mut warnings, &mut before));
        (v, warnings)
    }

    #[test]
    fn equal_keys_put_the_later_row_first_in_both_directions() {
        let rows: Vec<(Vec<u8>, i64)> = [("a", 1), ("b", 2), ("c", 1), ("d", 2)]
            .iter()
            .map(|(t, n)| (t.as_bytes().to_vec(), *n))
            .collect();
        let (asc, _) = ordered(&rows, (false, None, 100));
        assert_eq!(asc, Value::Bytes(b"c,a,d,b".to_vec()));
        let (desc, _) = ordered(&rows, (true, None, 100));
        assert_eq!(desc, Value::Bytes(b"d,b,c,a".to_vec()));
        let (limited, _) = ordered(&rows, (false, Some((1, 2)), 100));
        assert_eq!(limited, Value::Bytes(b"a,d".to_vec()));
    }

    /// Enough rows to trim the kept ones many times: the result and the cut row are those
    /// of sorting every row.
    #[test]
    fn trimming_keeps_what_reaches_the_result() {
        let rows: Vec<(Vec<u8>, i64)> = (0..6000)
            .map(|i| {
                let n = (i * 7919) % 6000;
                (format!("{n:040}").into_bytes(), n)
            })
            .collect();
        for (desc, limit, max_len) in [
            (false, None, 100u64),
            (true, None, 1000),
            (false, Some((3000, 2)), 100),
            (true, Some((10, 5000)), 500),
        ] {
            let mut sorted: Vec<&(Vec<u8>, i64)> = rows.iter().collect();
            sorted.sort_by_key(|r| r.1);
            if desc {
                sorted.reverse();
            }
            let (offset, count) = limit.unwrap_or((0, u64::MAX));
            let mut expected = Vec::new();
            let mut cut_row = None;
            for (k, r) in sorted
                .iter()
                .skip(offset as usize)
                .take(count as usize)
                .enumerate()
            {
                if k > 0 {
                    expected.push(b',');
                }
                expected.extend_from_slice(&r.0);
                if expected.len() as u64 > max_len {
                    expected.truncate(max_len as usize);
                    cut_row = Some(k + 1);
                    break;
                }
            }
            let (v, warnings) = ordered(&rows, (desc, limit, max_len));
            assert_eq!(v, Value::Bytes(expected), "desc {desc} limit {limit:?}");
            let message = cut_row.map(|r| format!("Row {r} was cut by GROUP_CONCAT()"));
            assert_eq!(warnings.first().map(|w| w.message.clone()), message);
        }
    }

    #[test]
    fn cut_keeps_whole_characters_within_the_bytes() {
        let text = Collation::Utf8mb4GeneralCi;
        let mut t = "zzé,cé".as_bytes().to_vec();
        assert!(cut(&mut t, 4, text));
        assert_eq!(t, "zzé".as_bytes());
        let mut t = "é,É".as_bytes().to_vec();
        assert!(cut(&mut t, 4, text));
        assert_eq!(t, "é,".as_bytes());
        let mut b = "é,É".as_bytes().to_vec();
        assert!(cut(&mut b, 4, Collation::Binary));
        assert_eq!(b, &"é,É".as_bytes()[..4]);
        let mut short = b"abcd".to_vec();
        assert!(!cut(&mut short, 4, text));
        assert_eq!(short, b"abcd");
    }
}
