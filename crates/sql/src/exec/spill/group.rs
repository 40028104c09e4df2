//! GROUP BY within min(tmp_table_size, max_heap_table_size) bytes, then through the
//! spilled sort.
//!
//! Rows arrive with their group's canonical key (the texts that make two keys one group)
//! and key values. While the rows held stay within the budget, groups are kept in a hash
//! table in the order they were first met. Past it, every row held and every later row
//! goes into a sort by (canonical key, arrival) ([`ExternalSort::binary`]), and groups
//! come out of the sorted stream one at a time, each with its rows in arrival order: a
//! group's first row is its first-met row, and aggregates see rows in the same order as
//! in memory (a sum of doubles is the same sum).
//!
//! Each group carries the arrival number of its first row, so that the caller orders
//! groups that tie in ORDER BY as the in-memory grouping would (first met first).
//! Memory: the budget while in memory; once spilled, the sort's budget and one group's
//! rows.

use super::codec::{put_varint, value_heap_bytes, SpillRow};
use super::sort::{ExternalSort, Outcome, SortStats};
use super::SpillConfig;
use crate::error::SqlError;
use crate::value::Value;
use myriad_types::errors::ER_UNKNOWN_ERROR;
use std::collections::HashMap;

/// One group: its key values (its first row's), the arrival number of its first row,
/// and its rows in arrival order.
pub struct Group {
    pub keys: Vec<Value>,
    pub first: u64,
    pub rows: Vec<Vec<Value>>,
}

struct Held {
    keys: Vec<Value>,
    canonical: Vec<u8>,
    rows: Vec<(u64, Vec<Value>)>,
}

/// The sort of a spilled grouping; a row's payload is its group key values and the row.
type SpilledRows<'d> = ExternalSort<'d, (Vec<Value>, Vec<Value>)>;

pub struct Grouper<'d> {
    config: &'d SpillConfig,
    index: HashMap<Vec<u8>, usize>,
    groups: Vec<Held>,
    bytes: usize,
    next: u64,
    spilled: Option<Box<SpilledRows<'d>>>,
}

/// The canonical key as one byte string (each part length-prefixed, so parts cannot run
/// into each other).
pub fn canonical_bytes(parts: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in parts {
        put_varint(&mut out, p.len() as u64);
        out.extend_from_slice(p);
    }
    out
}

impl<'d> Grouper<'d> {
    pub fn new(config: &'d SpillConfig) -> Grouper<'d> {
        Grouper {
            config,
            index: HashMap::new(),
            groups: Vec::new(),
            bytes: 0,
            next: 0,
            spilled: None,
        }
    }

    /// Forget every row (an index read starts again).
    pub fn reset(&mut self) {
        *self = Grouper::new(self.config);
    }

    pub fn push(
        &mut self,
        canonical: Vec<u8>,
        keys: Vec<Value>,
        row: Vec<Value>,
    ) -> Result<(), SqlError> {
        let seq = self.next;
        self.next += 1;
        if let Some(sort) = self.spilled.as_mut() {
            return sort.push_at(
                vec![Value::Bytes(canonical), Value::UInt(seq)],
                seq,
                (keys, row),
            );
        }
        // A row costs its heap bytes (the allocator's overhead included) and its slot in
        // the group (counted twice: a Vec grows by doubling).
        self.bytes += row.heap_bytes() + 2 * std::mem::size_of::<(u64, Vec<Value>)>();
        match self.index.get(&canonical) {
            Some(&n) => self.groups[n].rows.push((seq, row)),
            None => {
                self.bytes += 2 * canonical.capacity()
                    + keys.iter().map(value_heap_bytes).sum::<usize>()
                    + std::mem::size_of::<Held>();
                self.index.insert(canonical.clone(), self.groups.len());
                self.groups.push(Held {
                    keys,
                    canonical,
                    rows: vec![(seq, row)],
                });
            }
        }
        if self.bytes > self.config.group_bytes {
            self.spill()?;
        }
        Ok(())
    }

    /// Move every row held into the sort.
    fn spill(&mut self) -> Result<(), SqlError> {
        let mut sort = Box::new(ExternalSort::binary(
            2,
            self.config.sort_bytes,
            &self.config.dir,
        ));
        self.index = HashMap::new();
        for held in std::mem::take(&mut self.groups) {
            for (seq, row) in held.rows {
                let key = vec![Value::Bytes(held.canonical.clone()), Value::UInt(seq)];
                sort.push_at(key, seq, (held.keys.clone(), row))?;
            }
        }
        self.bytes = 0;
        self.spilled = Some(sort);
        Ok(())
    }

    /// Hand each group to `each`: in the order first met when the rows stayed in memory,
    /// else in canonical key order. Returns the sort's counters and whether it spilled.
    pub fn finish(
        self,
        each: &mut dyn FnMut(Group) -> Result<(), SqlError>,
    ) -> Result<(SortStats, bool), SqlError> {
        let Some(sort) = self.spilled else {
            for held in self.groups {
                let first = held.rows.first().map_or(0, |r| r.0);
                each(Group {
                    keys: held.keys,
                    first,
                    rows: held.rows.into_iter().map(|(_, r)| r).collect(),
                })?;
            }
            return Ok((SortStats::default(), false));
        };
        let (outcome, stats) = (*sort).finish()?;
        let Outcome::Sorted(rows) = outcome else {
            return Err(broken("a grouping's sort restarted"));
        };
        let mut current: Option<(Vec<u8>, Group)> = None;
        for row in rows {
            let (mut key, (keys, values)) = row?;
            let (Some(Value::UInt(seq)), Some(Value::Bytes(canonical))) = (key.pop(), key.pop())
            else {
                return Err(broken("a grouping's sort key lost its shape"));
            };
            match current.as_mut() {
                Some((c, group)) if *c == canonical => group.rows.push(values),
                _ => {
                    if let Some((_, done)) = current.take() {
                        each(done)?;
                    }
                    let group = Group {
                        keys,
                        first: seq,
                        rows: vec![values],
                    };
                    current = Some((canonical, group));
                }
            }
        }
        if let Some((_, done)) = current {
            each(done)?;
        }
        Ok((stats, true))
    }
}

/// An internal inconsistency, reported as an error of the statement, not a panic.
fn broken(what: &str) -> SqlError {
    SqlError::new(
        ER_UNKNOWN_ERROR,
        format!("Internal error in GROUP BY: {what}"),
    )
}
