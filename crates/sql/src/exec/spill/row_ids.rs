//! The sort of wide rows by (ORDER BY columns, row id), within sort_buffer_size bytes.
//!
//! A sort of whole rows holds as many rows as its budget takes, and a table of wide rows
//! then goes through temporary files row by row. For such rows the sort keeps a short
//! fixed-width *entry* per row instead: each ORDER BY column in a memcomparable form, then
//! the row's id, and the caller reads the rows again by id as they leave the sort (MariaDB
//! does the same for rows wider than max_length_for_sort_data). An entry of one INT key
//! is 9 bytes: 100,000 rows sort in 0.9 MB.
//!
//! The entry of a row:
//! - per ORDER BY column, its value's encoding padded to the column's width (below),
//!   every byte inverted for a descending column: NULL is `0x00` then zeros, so it comes
//!   first ascending and last descending, as in MariaDB;
//! - the row id: its distance from the first row id pushed, 4 bytes big-endian, while
//!   every row id pushed is within 2^32 above the first (a scan feeds them ascending, and
//!   a table's ids span less than that unless its clustered key does); else the row id
//!   itself, 8 bytes. The first row id that does not fit widens the held entries in place,
//!   once; entries written to a run are always 8-byte ones, so runs merge alike.
//!
//! Column encodings, `0x01` then: INT of at most 32 bits, the i32 with its sign bit
//! flipped (unsigned: the u32), big-endian; wider integers, DOUBLE, DECIMAL, DATE and
//! DATETIME as in index keys (`myriad_storage::keycode`), whose byte order is the values'
//! order. Strings and temporal values compared as text are not keyed here: ORDER BY
//! compares them with the rules of the whole-row sort.
//!
//! Entries are distinct (row ids are), so bytewise order is a total order. The caller
//! feeds rows in row id order (a full scan), so rows with equal keys leave in arrival
//! order, as from the whole-row sort.
//!
//! Memory: the entries, within the budget, in one buffer sized once from the table's row
//! count; they are sorted in place. Past the budget the entries are sorted and written to a
//! temporary file as a run, and at the end the runs are merged [`MERGE_FAN_IN`] at a time,
//! holding one entry and one read buffer per run.

use super::file::{RunReader, RunWriter};
use super::sort::{SortStats, MERGE_FAN_IN};
use crate::error::SqlError;
use crate::value::Value;
use myriad_storage::{keycode, ColumnType, RowId};
use myriad_types::errors::ER_UNKNOWN_ERROR;
use std::path::Path;

const NULL_TAG: u8 = 0x00;
const VALUE_TAG: u8 = 0x01;
const ROW_ID_BYTES: usize = 8;
/// Bytes of a row id kept as its distance from the first row id.
const NEAR_ROW_ID_BYTES: usize = 4;

/// One ORDER BY column of the sort: its stored type, and whether it sorts descending.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyColumn {
    pub ty: ColumnType,
    pub desc: bool,
}

/// Bytes of a column's encoding (its tag included), None for a type not keyed here.
pub fn key_width(ty: &ColumnType) -> Option<usize> {
    let sample = match ty {
        ColumnType::Int { width, .. } if width.bits() <= 32 => return Some(5),
        ColumnType::Int { unsigned: true, .. } => Value::UInt(0),
        ColumnType::Int { .. } => Value::Int(0),
        ColumnType::Float | ColumnType::Double => Value::Double(0.0),
        ColumnType::Decimal { .. } => Value::Decimal(Default::default()),
        ColumnType::Date => Value::Date(Default::default()),
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => {
            Value::DateTime(Default::default())
        }
        ColumnType::Time { .. } => Value::Time(Default::default()),
        _ => return None,
    };
    let mut out = Vec::new();
    keycode::encode_key_part(&mut out, ty, &sample).ok()?;
    Some(out.len())
}

fn mismatch(ty: &ColumnType, v: &Value) -> SqlError {
    SqlError::new(
        ER_UNKNOWN_ERROR,
        format!("a sort key {v:?} does not fit its column type {ty:?}"),
    )
}

/// Append the encoding of `v` as a value of `ty`, `width` bytes long.
fn encode(out: &mut Vec<u8>, ty: &ColumnType, width: usize, v: &Value) -> Result<(), SqlError> {
    let start = out.len();
    match (ty, v) {
        (_, Value::Null) => out.push(NULL_TAG),
        (ColumnType::Int { width: w, unsigned }, _) if w.bits() <= 32 => {
            let n = match (unsigned, v) {
                (false, Value::Int(i)) => i32::try_from(*i).map(|i| i as u32 ^ (1 << 31)).ok(),
                (false, Value::UInt(u)) => i32::try_from(*u).map(|i| i as u32 ^ (1 << 31)).ok(),
                (true, Value::Int(i)) => u32::try_from(*i).ok(),
                (true, Value::UInt(u)) => u32::try_from(*u).ok(),
                _ => None,
            };
            let n = n.ok_or_else(|| mismatch(ty, v))?;
            out.push(VALUE_TAG);
            out.extend_from_slice(&n.to_be_bytes());
        }
        _ => keycode::encode_key_part(out, ty, v).map_err(|_| mismatch(ty, v))?,
    }
    match out.len() - start {
        n if n == width => Ok(()),
        1 if out[start] == NULL_TAG => {
            out.resize(start + width, 0);
            Ok(())
        }
        _ => Err(mismatch(ty, v)),
    }
}

/// The sort being fed.
pub struct RowIdSort<'d> {
    columns: Vec<KeyColumn>,
    widths: Vec<usize>,
    /// Bytes of an entry's ORDER BY columns.
    key_width: usize,
    /// Bytes of an entry: `key_width` and its row id's.
    width: usize,
    /// The first row id pushed while row ids are held as distances from it
    /// ([`NEAR_ROW_ID_BYTES`]); None once they are whole.
    near: Option<Option<RowId>>,
    budget_bytes: usize,
    dir: &'d Path,
    /// The entries not yet written, `width` bytes each, in arrival order.
    entries: Vec<u8>,
    runs: Vec<RunReader<'d>>,
    stats: SortStats,
}

impl<'d> RowIdSort<'d> {
    /// A sort by `columns` within `budget_bytes`, spilling to `dir`; None when a column's
    /// type is not keyed here.
    /// `expected_rows`, when known, sizes the buffer once (no copy as it grows).
    pub fn new(
        columns: Vec<KeyColumn>,
        budget_bytes: usize,
        expected_rows: Option<u64>,
        dir: &'d Path,
    ) -> Option<Self> {
        let widths = columns
            .iter()
            .map(|c| key_width(&c.ty))
            .collect::<Option<Vec<usize>>>()?;
        let key_width = widths.iter().sum::<usize>();
        let width = key_width + NEAR_ROW_ID_BYTES;
        // The buffer passes the budget by one entry before it is written out.
        let most = budget_bytes.saturating_add(width);
        let expected = expected_rows.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
        let entries = Vec::with_capacity(expected.saturating_mul(width).min(most));
        Some(RowIdSort {
            columns,
            widths,
            key_width,
            width,
            near: Some(None),
            budget_bytes,
            dir,
            entries,
            runs: Vec::new(),
            stats: SortStats::default(),
        })
    }

    /// The row `row_id` with these ORDER BY values (one per column).
    pub fn push(&mut self, keys: &[Value], row_id: RowId) -> Result<(), SqlError> {
        debug_assert_eq!(
            keys.len(),
            self.columns.len(),
            "one key per ORDER BY column"
        );
        self.stats.rows += 1;
        let start = self.entries.len();
        for ((column, &width), v) in self.columns.iter().zip(&self.widths).zip(keys) {
            let part = self.entries.len();
            if let Err(e) = encode(&mut self.entries, &column.ty, width, v) {
                self.entries.truncate(start);
                return Err(e);
            }
            if column.desc {
                self.entries[part..].iter_mut().for_each(|b| *b = !*b);
            }
        }
        self.push_row_id(row_id);
        if self.entries.len() > self.budget_bytes {
            self.spill()?;
        }
        Ok(())
    }

    /// Append `row_id` to the entry being pushed: as its distance from the first row id
    /// while that fits, else whole (widening the held entries first).
    fn push_row_id(&mut self, row_id: RowId) {
        if let Some(first) = self.near {
            let first = first.unwrap_or(row_id);
            self.near = Some(Some(first));
            if let Some(near) = row_id
                .checked_sub(first)
                .and_then(|d| u32::try_from(d).ok())
            {
                self.entries.extend_from_slice(&near.to_be_bytes());
                return;
            }
            // The entry being pushed has its keys only: widen the others around it.
            let keys = self.entries.split_off(self.entries.len() - self.key_width);
            self.widen();
            self.entries.extend_from_slice(&keys);
        }
        self.entries.extend_from_slice(&row_id.to_be_bytes());
    }

    /// Hold row ids whole from now on: rewrite the held entries (distances from the first
    /// row id) with their whole row ids, in place, from the last entry back.
    fn widen(&mut self) {
        let Some(near) = self.near.take() else {
            return;
        };
        let first = near.unwrap_or(0);
        let (old, new) = (self.width, self.key_width + ROW_ID_BYTES);
        let n = self.entries.len() / old;
        self.entries.resize(n * new, 0);
        let mut entry = Vec::with_capacity(old);
        for i in (0..n).rev() {
            entry.clear();
            entry.extend_from_slice(&self.entries[i * old..(i + 1) * old]);
            let mut near = [0u8; NEAR_ROW_ID_BYTES];
            near.copy_from_slice(&entry[self.key_width..]);
            let row_id = first + RowId::from(u32::from_be_bytes(near));
            let at = i * new;
            self.entries[at..at + self.key_width].copy_from_slice(&entry[..self.key_width]);
            self.entries[at + self.key_width..at + new].copy_from_slice(&row_id.to_be_bytes());
        }
        self.width = new;
    }

    /// Forget every row pushed so far.
    pub fn reset(&mut self) {
        self.near = Some(None);
        self.width = self.key_width + NEAR_ROW_ID_BYTES;
        self.entries = Vec::new();
        self.runs.clear();
        self.stats = SortStats::default();
    }

    /// Sort the held entries in place.
    fn sort_held(&mut self) -> Result<(), SqlError> {
        sort_records(&mut self.entries, self.width)
    }

    /// Write the held entries as a sorted run (of whole row ids).
    fn spill(&mut self) -> Result<(), SqlError> {
        self.widen();
        self.sort_held()?;
        let mut w = RunWriter::create(self.dir)?;
        self.stats.tmp_files += 1;
        for entry in self.entries.chunks_exact(self.width) {
            w.push_record(entry)?;
        }
        self.entries.clear();
        self.runs.push(w.finish()?);
        Ok(())
    }

    /// End the input: the row ids in order.
    pub fn finish(mut self) -> Result<(RowIds<'d>, SortStats), SqlError> {
        if self.runs.is_empty() {
            self.sort_held()?;
            let ids = RowIds::Memory {
                entries: std::mem::take(&mut self.entries),
                width: self.width,
                first: self.near.flatten(),
                next: 0,
            };
            return Ok((ids, self.stats));
        }
        if !self.entries.is_empty() {
            self.spill()?;
        }
        let mut ready = std::mem::take(&mut self.runs);
        while ready.len() > MERGE_FAN_IN {
            let mut next = Vec::with_capacity(ready.len().div_ceil(MERGE_FAN_IN));
            let mut groups = ready.into_iter().peekable();
            while groups.peek().is_some() {
                let group: Vec<RunReader<'d>> = groups.by_ref().take(MERGE_FAN_IN).collect();
                let mut merge = Merge::new(group)?;
                self.stats.merge_passes += 1;
                let mut w = RunWriter::create(self.dir)?;
                self.stats.tmp_files += 1;
                while let Some(entry) = merge.next_entry()? {
                    w.push_record(&entry)?;
                }
                next.push(w.finish()?);
            }
            ready = next;
        }
        self.stats.merge_passes += 1;
        Ok((RowIds::Merge(Merge::new(ready)?), self.stats))
    }
}

/// Sort the `width`-byte records of `buf` bytewise, in place (a heapsort: no memory beyond
/// the records, O(n log n) comparisons whatever the input).
fn sort_records(buf: &mut [u8], width: usize) -> Result<(), SqlError> {
    let n = buf.len() / width;
    for root in (0..n / 2).rev() {
        sift_down(buf, width, root, n);
    }
    for end in (1..n).rev() {
        crate::interrupt::tick()?;
        swap_records(buf, width, 0, end);
        sift_down(buf, width, 0, end);
    }
    Ok(())
}

fn record(buf: &[u8], width: usize, i: usize) -> &[u8] {
    &buf[i * width..(i + 1) * width]
}

/// Swap records `i` < `j`.
fn swap_records(buf: &mut [u8], width: usize, i: usize, j: usize) {
    let (low, high) = buf.split_at_mut(j * width);
    low[i * width..(i + 1) * width].swap_with_slice(&mut high[..width]);
}

/// Restore the max-heap order below `root` among the first `end` records.
fn sift_down(buf: &mut [u8], width: usize, mut root: usize, end: usize) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && record(buf, width, child) < record(buf, width, child + 1) {
            child += 1;
        }
        if record(buf, width, root) >= record(buf, width, child) {
            return;
        }
        swap_records(buf, width, root, child);
        root = child;
    }
}

/// A merge of sorted runs: the next entry is the least of the runs' heads.
pub struct Merge<'d> {
    readers: Vec<RunReader<'d>>,
    heads: Vec<Option<Vec<u8>>>,
}

impl<'d> Merge<'d> {
    fn new(mut readers: Vec<RunReader<'d>>) -> Result<Merge<'d>, SqlError> {
        let heads = readers
            .iter_mut()
            .map(|r| r.read::<Vec<u8>>())
            .collect::<Result<_, _>>()?;
        Ok(Merge { readers, heads })
    }

    fn next_entry(&mut self) -> Result<Option<Vec<u8>>, SqlError> {
        crate::interrupt::tick()?;
        let best = self
            .heads
            .iter()
            .enumerate()
            .filter_map(|(i, h)| h.as_ref().map(|h| (i, h)))
            .min_by(|a, b| a.1.cmp(b.1))
            .map(|(i, _)| i);
        let Some(b) = best else {
            return Ok(None);
        };
        let next = self.readers[b].read::<Vec<u8>>()?;
        Ok(std::mem::replace(&mut self.heads[b], next))
    }
}

fn row_id_of(entry: &[u8]) -> RowId {
    let mut id = [0u8; ROW_ID_BYTES];
    id.copy_from_slice(&entry[entry.len() - ROW_ID_BYTES..]);
    RowId::from_be_bytes(id)
}

/// The sorted row ids, one at a time.
pub enum RowIds<'d> {
    Memory {
        entries: Vec<u8>,
        width: usize,
        /// The first row id, when entries hold distances from it.
        first: Option<RowId>,
        /// Byte offset of the next entry.
        next: usize,
    },
    Merge(Merge<'d>),
}

impl Iterator for RowIds<'_> {
    type Item = Result<RowId, SqlError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            RowIds::Memory {
                entries,
                width,
                first,
                next,
            } => {
                let entry = entries.get(*next..*next + *width)?;
                *next += *width;
                Some(Ok(match first {
                    Some(first) => {
                        let mut near = [0u8; NEAR_ROW_ID_BYTES];
                        near.copy_from_slice(&entry[entry.len() - NEAR_ROW_ID_BYTES..]);
                        *first + RowId::from(u32::from_be_bytes(near))
                    }
                    None => row_id_of(entry),
                }))
            }
            RowIds::Merge(m) => m.next_entry().transpose().map(|e| e.map(|e| row_id_of(&e))),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The sort by row id against a reference model: the rows sorted by their typed values
    //! (NULL first ascending, last descending), ties by row id.
    use super::*;
    use myriad_storage::IntWidth;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    fn columns() -> Vec<ColumnType> {
        vec![
            ColumnType::Int {
                width: IntWidth::Int,
                unsigned: false,
            },
            ColumnType::Int {
                width: IntWidth::Big,
                unsigned: true,
            },
            ColumnType::Double,
        ]
    }

    /// One value of column `c` of [`columns`], with ties and NULLs.
    fn value(c: usize) -> BoxedStrategy<Value> {
        let some = match c {
            0 => prop_oneof![
                Just(i64::from(i32::MIN)),
                Just(i64::from(i32::MAX)),
                -3i64..3
            ]
            .prop_map(Value::Int)
            .boxed(),
            1 => prop_oneof![Just(u64::MAX), 0u64..3]
                .prop_map(Value::UInt)
                .boxed(),
            _ => prop_oneof![Just(-0.0), Just(f64::MIN), -2.0f64..2.0]
                .prop_map(Value::Double)
                .boxed(),
        };
        prop_oneof![1 => Just(Value::Null), 4 => some].boxed()
    }

    fn typed_cmp(a: &Value, b: &Value) -> Ordering {
        match (a, b) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Less,
            (_, Value::Null) => Ordering::Greater,
            (Value::Int(x), Value::Int(y)) => x.cmp(y),
            (Value::UInt(x), Value::UInt(y)) => x.cmp(y),
            (Value::Double(x), Value::Double(y)) => x.partial_cmp(y).expect("no NaN"),
            _ => unreachable!("one kind per column"),
        }
    }

    fn case() -> impl Strategy<Value = (Vec<usize>, Vec<bool>, Vec<Vec<Value>>, usize)> {
        let keys = proptest::sample::subsequence(vec![0usize, 1, 2], 1..=3).prop_shuffle();
        keys.prop_flat_map(|keys| {
            let row = keys.iter().map(|&c| value(c)).collect::<Vec<_>>();
            (
                Just(keys.clone()),
                proptest::collection::vec(any::<bool>(), keys.len()),
                proptest::collection::vec(row, 0..300),
                prop_oneof![Just(64usize), Just(400), Just(1 << 20)],
            )
        })
    }

    proptest! {
        #[test]
        fn orders_as_the_typed_values_then_the_row_id(
            (keys, desc, rows, budget) in case()
        ) {
            let dir = tempfile::tempdir().expect("tempdir");
            let types = columns();
            let columns = keys
                .iter()
                .zip(&desc)
                .map(|(&c, &desc)| KeyColumn { ty: types[c].clone(), desc })
                .collect();
            let mut sort = RowIdSort::new(columns, budget, None, dir.path()).expect("keyed types");
            // Row ids ascending in arrival order, with gaps, as a scan meets them.
            let ids: Vec<RowId> = (0..rows.len() as u64).map(|i| i * 3 + 1).collect();
            for (row, &id) in rows.iter().zip(&ids) {
                sort.push(row, id).expect("push");
            }
            let (sorted, stats) = sort.finish().expect("finish");
            let got: Vec<RowId> = sorted.collect::<Result<_, _>>().expect("rows");
            let mut expected: Vec<(&Vec<Value>, RowId)> = rows.iter().zip(ids).collect();
            expected.sort_by(|a, b| {
                for (i, &d) in desc.iter().enumerate() {
                    let o = typed_cmp(&a.0[i], &b.0[i]);
                    let o = if d { o.reverse() } else { o };
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.1.cmp(&b.1)
            });
            let expected: Vec<RowId> = expected.into_iter().map(|(_, id)| id).collect();
            prop_assert_eq!(got, expected);
            prop_assert_eq!(stats.rows, rows.len() as u64);
            if budget == 64 && rows.len() > 100 {
                prop_assert!(stats.merge_passes > 1, "{:?}", stats);
            }
        }
    }

    #[test]
    fn row_ids_far_apart_widen_the_entries_in_place() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ty = ColumnType::Int {
            width: IntWidth::Int,
            unsigned: false,
        };
        for budget in [1 << 20, 40] {
            let mut sort = RowIdSort::new(
                vec![KeyColumn {
                    ty: ty.clone(),
                    desc: false,
                }],
                budget,
                Some(6),
                dir.path(),
            )
            .expect("keyed type");
            // Near the first, then past 2^32 above it, then below it.
            let rows = [
                (5, 10),
                (3, 11),
                (5, 11 + (1 << 32)),
                (4, 7),
                (1, u64::MAX),
                (3, 2),
            ];
            for (k, id) in rows {
                sort.push(&[Value::Int(k)], id).expect("push");
            }
            let (ids, _) = sort.finish().expect("finish");
            assert_eq!(
                ids.collect::<Result<Vec<_>, _>>().expect("ids"),
                vec![u64::MAX, 2, 11, 7, 10, 11 + (1 << 32)],
                "budget {budget}"
            );
        }
    }

    #[test]
    fn an_int_key_takes_nine_bytes_an_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ty = ColumnType::Int {
            width: IntWidth::Int,
            unsigned: false,
        };
        let mut sort = RowIdSort::new(
            vec![KeyColumn { ty, desc: true }],
            1 << 20,
            Some(1000),
            dir.path(),
        )
        .expect("keyed type");
        for id in 0..1000u64 {
            sort.push(&[Value::Int((id % 7) as i64)], 1 << 40 | id)
                .expect("push");
        }
        assert_eq!(sort.entries.len(), 9 * 1000);
        assert!(sort.entries.capacity() <= 9 * 1000 + 9);
        let (ids, _) = sort.finish().expect("finish");
        let ids: Vec<u64> = ids.collect::<Result<_, _>>().expect("ids");
        assert_eq!(ids.len(), 1000);
        assert_eq!(ids[0], 1 << 40 | 6, "descending key, then ascending id");
        assert_eq!(ids[999], 1 << 40 | 994);
    }

    #[test]
    fn a_value_outside_its_column_type_is_an_error_not_a_wrong_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ty = ColumnType::Int {
            width: IntWidth::Small,
            unsigned: true,
        };
        let mut sort = RowIdSort::new(
            vec![KeyColumn { ty, desc: false }],
            1024,
            Some(2),
            dir.path(),
        )
        .expect("keyed type");
        sort.push(&[Value::Int(7)], 1).expect("in range");
        assert!(sort.push(&[Value::Int(-1)], 2).is_err());
        assert!(sort.push(&[Value::Bytes(b"x".to_vec())], 3).is_err());
        let (ids, _) = sort.finish().expect("finish");
        assert_eq!(ids.collect::<Result<Vec<_>, _>>().expect("ids"), vec![1]);
    }

    #[test]
    fn strings_and_blobs_are_not_keyed_here() {
        use myriad_storage::{Collation, LobSize};
        for ty in [
            ColumnType::Varchar {
                len: 10,
                collation: Collation::Utf8mb4GeneralCi,
            },
            ColumnType::Blob {
                size: LobSize::Regular,
            },
        ] {
            assert_eq!(key_width(&ty), None);
        }
        assert_eq!(key_width(&ColumnType::Date), Some(5));
        assert_eq!(key_width(&ColumnType::DateTime { fsp: 3 }), Some(12));
    }
}
