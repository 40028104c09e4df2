//! DISTINCT within min(tmp_table_size, max_heap_table_size), then through the spilled sort.
//!
//! Rows arrive one at a time with their canonical key (the bytes that make two rows one
//! under DISTINCT's equality, see `crate::exec::distinct`). The first row of each key is
//! the one kept, and the kept rows leave in the order they arrived, as MariaDB's DISTINCT
//! gives them.
//!
//! While the keys seen stay within the budget they sit in a hash set, and a row whose
//! key is new passes at once ([`Distinct::push`] hands it back), so that a caller without
//! ORDER BY sends it to the client before the next row is read, and a LIMIT stops the
//! read early. Once the set passes the budget it is frozen: a later row whose key is in
//! the set is dropped, and any other row is held back in a sort by (key, arrival)
//! ([`ExternalSort::binary`]), which spills past sort_buffer_size. At the end
//! ([`Distinct::finish`]) the first row of each key in that sort goes into a second sort,
//! by arrival alone, and the rows leave in that order. Every row held back arrived after
//! every row that passed at once (the set only grew before it froze), so the whole output
//! is in arrival order.
//!
//! Memory: the frozen set (the budget), then the two sorts' buffers (sort_buffer_size
//! each) and the merge's read buffers.

use super::codec::SpillRow;
use super::codec::ALLOCATION_HEADER_BYTES;
use super::sort::{ExternalSort, Outcome, SortStats};
use super::SpillConfig;
use crate::error::SqlError;
use crate::value::Value;
use myriad_types::errors::ER_UNKNOWN_ERROR;
use std::collections::HashSet;

/// The rows first met under their key, within a budget (see the module doc).
pub struct Distinct<'d, P: SpillRow> {
    config: &'d SpillConfig,
    /// Keys of the rows that passed; frozen once `held` exists. foldhash (seeded per
    /// process) hashes a key in a fraction of SipHash's time.
    seen: HashSet<Vec<u8>, foldhash::fast::RandomState>,
    /// What `seen` holds, estimated as the groupings count their keys.
    bytes: usize,
    /// The next row's arrival number.
    next: u64,
    /// Past the budget: the rows whose key `seen` lacks, by (key, arrival).
    held: Option<Box<ExternalSort<'d, P>>>,
}

/// How the rows held back past the budget were made distinct: the two sorts' counters
/// (files, merges, rows), and whether any row was held back at all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spilled {
    pub stats: SortStats,
    pub spilled: bool,
}

impl<'d, P: SpillRow> Distinct<'d, P> {
    pub fn new(config: &'d SpillConfig) -> Distinct<'d, P> {
        Distinct {
            config,
            seen: HashSet::default(),
            bytes: 0,
            next: 0,
            held: None,
        }
    }

    /// Forget every row (an index read starts again).
    pub fn reset(&mut self) {
        *self = Distinct::new(self.config);
    }

    /// `item` with its arrival number when it is the first row of `key` and passes now;
    /// None when a row of the same key came before (`item` is dropped) or when the set is
    /// frozen and lacks `key` (`item` is held back for [`Distinct::finish`]).
    pub fn push(&mut self, key: Vec<u8>, item: P) -> Result<Option<(u64, P)>, SqlError> {
        let seq = self.next;
        self.next += 1;
        if self.seen.contains(&key) {
            return Ok(None);
        }
        if let Some(held) = self.held.as_mut() {
            held.push_at(vec![Value::Bytes(key), Value::UInt(seq)], seq, item)?;
            return Ok(None);
        }
        // A key costs its bytes, its allocation's header and its slot in the set (counted
        // twice: the set grows by doubling).
        self.bytes += key.capacity() + ALLOCATION_HEADER_BYTES + 2 * std::mem::size_of::<Vec<u8>>();
        self.seen.insert(key);
        if self.bytes > self.config.group_bytes {
            self.held = Some(Box::new(ExternalSort::binary(
                2,
                self.config.sort_bytes,
                &self.config.dir,
            )));
        }
        Ok(Some((seq, item)))
    }

    /// End without the rows held back (a LIMIT was reached): their files close unread.
    /// What holding them cost so far.
    pub fn abandon(self) -> Spilled {
        Spilled {
            stats: self.held.as_ref().map(|h| h.stats()).unwrap_or_default(),
            spilled: self.held.is_some(),
        }
    }

    /// Hand the rows held back to `each`, the first of each key, in arrival order with
    /// their arrival numbers, until `each` answers false.
    pub fn finish(
        self,
        each: &mut dyn FnMut(u64, P) -> Result<bool, SqlError>,
    ) -> Result<Spilled, SqlError> {
        let Some(held) = self.held else {
            return Ok(Spilled::default());
        };
        // The set's memory goes back before the sorts take theirs.
        drop(self.seen);
        let (outcome, mut stats) = (*held).finish()?;
        let Outcome::Sorted(rows) = outcome else {
            return Err(broken("the sort by key restarted"));
        };
        let mut firsts: ExternalSort<'d, P> =
            ExternalSort::binary(1, self.config.sort_bytes, &self.config.dir);
        let mut last: Option<Vec<u8>> = None;
        for row in rows {
            crate::interrupt::tick()?;
            let (mut key, item) = row?;
            let (Some(Value::UInt(seq)), Some(Value::Bytes(canonical))) = (key.pop(), key.pop())
            else {
                return Err(broken("a key lost its shape"));
            };
            if last.as_ref() == Some(&canonical) {
                continue;
            }
            last = Some(canonical);
            firsts.push_at(vec![Value::UInt(seq)], seq, item)?;
        }
        let (outcome, second) = firsts.finish()?;
        stats.merge_passes += second.merge_passes;
        stats.rows += second.rows;
        stats.tmp_files += second.tmp_files;
        let Outcome::Sorted(rows) = outcome else {
            return Err(broken("the sort by arrival restarted"));
        };
        for row in rows {
            crate::interrupt::tick()?;
            let (key, item) = row?;
            let Some(&Value::UInt(seq)) = key.first() else {
                return Err(broken("an arrival number lost its shape"));
            };
            if !each(seq, item)? {
                break;
            }
        }
        Ok(Spilled {
            stats,
            spilled: true,
        })
    }
}

/// An internal inconsistency, reported as an error of the statement, not a panic.
fn broken(what: &str) -> SqlError {
    SqlError::new(
        ER_UNKNOWN_ERROR,
        format!("Internal error in DISTINCT: {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval::SqlValue;
    use proptest::prelude::*;

    fn config(dir: &std::path::Path, group_bytes: usize, sort_bytes: usize) -> SpillConfig {
        SpillConfig {
            sort_bytes,
            max_sort_row_bytes: 1024,
            group_bytes,
            dir: dir.to_path_buf(),
        }
    }

    /// Every row through a [`Distinct`]: the arrival numbers of the rows kept, in the
    /// order they left, and how it spilled.
    fn kept(keys: &[u8], config: &SpillConfig) -> (Vec<u64>, Spilled) {
        let mut distinct: Distinct<'_, Vec<Value>> = Distinct::new(config);
        let mut out = Vec::new();
        for (n, k) in keys.iter().enumerate() {
            let row = vec![Value::Int(n as i64), Value::text("payload")];
            if let Some((seq, row)) = distinct.push(vec![*k], row).expect("push") {
                assert_eq!(
                    row[0],
                    Value::Int(seq as i64),
                    "a row keeps its arrival number"
                );
                out.push(seq);
            }
        }
        let spilled = distinct
            .finish(&mut |seq, row| {
                assert_eq!(
                    row[0],
                    Value::Int(seq as i64),
                    "a row keeps its arrival number"
                );
                out.push(seq);
                Ok(true)
            })
            .expect("finish");
        (out, spilled)
    }

    /// The reference model: the first row of each key, in arrival order.
    fn first_of_each(keys: &[u8]) -> Vec<u64> {
        let mut seen = HashSet::new();
        (0..keys.len() as u64)
            .filter(|&n| seen.insert(keys[n as usize]))
            .collect()
    }

    #[test]
    fn past_the_budget_the_rows_held_back_come_out_first_of_each_key_in_arrival_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Room for about two keys; each sort spills every few rows.
        let config = config(dir.path(), 100, 200);
        let keys: Vec<u8> = (0..400u32).map(|n| ((n * 37) % 101) as u8).collect();
        let (out, spilled) = kept(&keys, &config);
        assert_eq!(out, first_of_each(&keys));
        assert!(spilled.spilled, "a set of 101 keys outgrows 100 bytes");
        assert!(spilled.stats.tmp_files > 2, "both sorts spill: {spilled:?}");
        assert_eq!(
            std::fs::read_dir(dir.path()).expect("list").count(),
            0,
            "no file outlives the statement"
        );
    }

    #[test]
    fn within_the_budget_every_row_kept_passes_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = config(dir.path(), 1 << 20, 1 << 20);
        let keys = [3, 1, 3, 2, 1, 3, 4];
        let mut distinct: Distinct<'_, Vec<Value>> = Distinct::new(&config);
        let passed: Vec<u64> = keys
            .iter()
            .filter_map(|k| distinct.push(vec![*k], Vec::new()).expect("push"))
            .map(|(seq, _)| seq)
            .collect();
        assert_eq!(passed, vec![0, 1, 3, 6]);
        let spilled = distinct.finish(&mut |_, _| Ok(true)).expect("finish");
        assert_eq!(spilled, Spilled::default());
    }

    #[test]
    fn finish_stops_when_told() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = config(dir.path(), 0, 1 << 20);
        let mut distinct: Distinct<'_, Vec<Value>> = Distinct::new(&config);
        for k in [1u8, 2, 3, 4, 2, 5] {
            distinct.push(vec![k], Vec::new()).expect("push");
        }
        let mut taken = Vec::new();
        distinct
            .finish(&mut |seq, _| {
                taken.push(seq);
                Ok(taken.len() < 2)
            })
            .expect("finish");
        // Key 1 passed at once; 2, 3, 4 and 5 were held back.
        assert_eq!(taken, vec![1, 2]);
    }

    #[test]
    fn an_abandoned_distinct_reports_the_files_it_wrote() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = config(dir.path(), 0, 200);
        let mut distinct: Distinct<'_, Vec<Value>> = Distinct::new(&config);
        for k in 0..50u8 {
            distinct
                .push(vec![k], vec![Value::text("payload")])
                .expect("push");
        }
        let spilled = distinct.abandon();
        assert!(spilled.spilled);
        assert!(
            spilled.stats.tmp_files > 0,
            "runs were written: {spilled:?}"
        );
        let untouched: Distinct<'_, Vec<Value>> = Distinct::new(&config);
        assert_eq!(untouched.abandon(), Spilled::default());
    }

    proptest! {
        /// With any budget, the rows kept are the reference's: the first of each key, in
        /// arrival order.
        #[test]
        fn keeps_the_first_row_of_each_key_in_arrival_order(
            keys in proptest::collection::vec(0u8..40, 0..300),
            group_bytes in 0usize..2000,
            sort_bytes in 100usize..3000,
        ) {
            let dir = tempfile::tempdir().expect("tempdir");
            let config = config(dir.path(), group_bytes, sort_bytes);
            let (out, _) = kept(&keys, &config);
            prop_assert_eq!(out, first_of_each(&keys));
        }
    }
}
