//! The sort of a statement's rows within sort_buffer_size bytes, and its top-N form.
//!
//! Rows arrive one at a time with their raw ORDER BY keys and a payload (the result row).
//! They gather in a buffer; when its rows' heap bytes pass the budget the buffer is
//! sorted and written to a temporary file as a *run*, and a new buffer starts. At the
//! end, if nothing was written, the buffer is sorted in memory; otherwise the last buffer
//! becomes a run too and the runs are merged, [`MERGE_FAN_IN`] at a time, until one
//! merge streams the rows out (a [`Sorted`] iterator: the caller's row sink takes them
//! one by one, no second copy of the result is built).
//!
//! With a limit of `k` rows (ORDER BY ... LIMIT), a buffer that reaches `2k` rows is
//! sorted and cut to its first `k` rows: memory stays O(k) whatever the table's size,
//! and each row costs O(log k) amortized. A run is cut to `k` rows as it is written.
//!
//! The order is exactly [`crate::exec::sort::sort_rows`]'s, a stable sort: each row carries
//! its arrival number, which breaks ties. Keys are prepared per row under a
//! [`KeyPlan`] (see [`super::keys`]); when a key column turns out to mix kinds of values
//! after a run was sorted, the run is sorted again under the final plan before the merge.
//! Rows dropped by a cut cannot be sorted again: a sort that cut rows and then sees its
//! order change answers [`Outcome::Restart`], and the caller runs the statement again
//! without the limit (it takes an expression yielding numbers for some rows and strings
//! for others to get there).
//!
//! Memory: the buffer (at most the budget plus one row, or `2k` rows), and during a merge
//! one row and one read buffer per merged run.

use super::codec::{allocation_overhead, value_heap_bytes, SpillRow};
use super::file::{RunReader, RunWriter};
use super::keys::{compare, prepare, KeyPlan, KeyStats};
use crate::error::SqlError;
use crate::value::Value;
use myriad_types::Collation;
use std::cmp::Ordering;
use std::path::Path;

/// Runs merged at once: each holds a read buffer and one row, and the number of merge
/// passes over n runs is log_16(n); 16 keeps a merge's buffers near a default
/// sort_buffer_size while a 2 GB sort with the default budget needs two passes.
pub const MERGE_FAN_IN: usize = 16;

/// Counters of one sort, for the status variables with MariaDB's names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SortStats {
    /// Merges of runs (Sort_merge_passes).
    pub merge_passes: u64,
    /// Rows sorted (Sort_rows).
    pub rows: u64,
    /// Temporary files created (Created_tmp_files).
    pub tmp_files: u64,
}

/// A row in the sort: raw keys, arrival number, payload.
type Entry<P> = (Vec<Value>, u64, P);

/// Bytes a row is charged: its slot in the buffer (counted twice: a Vec grows by
/// doubling), its keys and payload with the allocator's overhead on each.
fn entry_bytes<P: SpillRow>(keys: &[Value], payload: &P) -> usize {
    2 * std::mem::size_of::<Entry<P>>()
        + keys.iter().map(value_heap_bytes).sum::<usize>()
        + allocation_overhead(keys)
        + payload.heap_bytes()
}

struct Run<'d> {
    reader: RunReader<'d>,
    /// The plan the run was sorted under.
    plan: KeyPlan,
}

/// The sort being fed.
pub struct ExternalSort<'d, P: SpillRow> {
    desc: Vec<bool>,
    budget_bytes: usize,
    limit: Option<usize>,
    dir: &'d Path,
    buffer: Vec<Entry<P>>,
    buffer_bytes: usize,
    buffer_stats: KeyStats,
    total_stats: KeyStats,
    /// The plan under which rows were dropped by a cut (their order must not change).
    cut_under: Option<KeyPlan>,
    restart: bool,
    runs: Vec<Run<'d>>,
    next_seq: u64,
    stats: SortStats,
}

/// How a sort ends.
pub enum Outcome<'d, P: SpillRow> {
    Sorted(Sorted<'d, P>),
    /// The limit dropped rows whose order then changed: sort again without a limit.
    Restart,
}

impl<'d, P: SpillRow> ExternalSort<'d, P> {
    /// A sort by keys with `desc[i]` per key, strings under `collations[i]`, within
    /// `budget_bytes`, spilling to `dir`; with `limit`, only the first `limit` rows are
    /// wanted.
    pub fn new(
        (desc, collations): (Vec<bool>, &[Collation]),
        budget_bytes: usize,
        limit: Option<usize>,
        dir: &'d Path,
    ) -> ExternalSort<'d, P> {
        debug_assert_eq!(desc.len(), collations.len(), "one collation per key");
        ExternalSort {
            desc,
            budget_bytes,
            limit,
            dir,
            buffer: Vec::new(),
            buffer_bytes: 0,
            buffer_stats: KeyStats::new(collations),
            total_stats: KeyStats::new(collations),
            cut_under: None,
            restart: false,
            runs: Vec::new(),
            next_seq: 0,
            stats: SortStats::default(),
        }
    }

    /// Forget every row pushed so far (their files close, and so vanish).
    pub fn reset(&mut self) {
        let width = self.desc.len();
        let collations = self.total_stats.collations();
        let mut fresh = ExternalSort::new(
            (std::mem::take(&mut self.desc), &collations),
            self.budget_bytes,
            self.limit,
            self.dir,
        );
        if self.total_stats.plan().binary {
            fresh.buffer_stats = KeyStats::binary(width);
            fresh.total_stats = KeyStats::binary(width);
        }
        *self = fresh;
    }

    /// A sort whose keys compare as they are, strings byte by byte, ascending (see
    /// [`KeyPlan::binary`]).
    pub fn binary(width: usize, budget_bytes: usize, dir: &'d Path) -> ExternalSort<'d, P> {
        let keys = (vec![false; width], &vec![Collation::Binary; width][..]);
        let mut sort = ExternalSort::new(keys, budget_bytes, None, dir);
        sort.buffer_stats = KeyStats::binary(width);
        sort.total_stats = KeyStats::binary(width);
        sort
    }

    /// The counters so far (files written, rows taken).
    pub fn stats(&self) -> SortStats {
        self.stats
    }

    pub fn push(&mut self, keys: Vec<Value>, payload: P) -> Result<(), SqlError> {
        let seq = self.next_seq;
        self.push_at(keys, seq, payload)
    }

    /// Push a row that ties with others after those of a lower `seq` (each seq once).
    pub fn push_at(&mut self, keys: Vec<Value>, seq: u64, payload: P) -> Result<(), SqlError> {
        debug_assert_eq!(keys.len(), self.desc.len(), "one key per ORDER BY term");
        if self.restart {
            return Ok(());
        }
        self.stats.rows += 1;
        if self.limit == Some(0) {
            return Ok(());
        }
        self.buffer_stats.observe(&keys);
        self.buffer_bytes += entry_bytes(&keys, &payload);
        self.buffer.push((keys, seq, payload));
        self.next_seq = self.next_seq.max(seq + 1);
        if let Some(k) = self.limit {
            if self.buffer.len() >= k.saturating_mul(2).max(16) {
                self.cut_buffer(k);
            }
        }
        if self.buffer_bytes > self.budget_bytes && !self.restart {
            self.spill_buffer()?;
        }
        Ok(())
    }

    /// Sort the buffer and keep its first `k` rows.
    fn cut_buffer(&mut self, k: usize) {
        let plan = self.plan_with_buffer();
        if self.cut_under.as_ref().is_some_and(|p| !p.orders_as(&plan)) {
            self.restart = true;
            return;
        }
        sort_entries(&mut self.buffer, &self.desc, &plan);
        if self.buffer.len() > k {
            self.buffer.truncate(k);
            self.cut_under = Some(plan);
            self.buffer_bytes = self
                .buffer
                .iter()
                .map(|(keys, _, p)| entry_bytes(keys, p))
                .sum();
        }
    }

    /// The plan of every row seen, the buffer's included.
    fn plan_with_buffer(&self) -> KeyPlan {
        let mut all = self.total_stats.clone();
        all.merge(&self.buffer_stats);
        all.plan()
    }

    /// Write the buffer as a sorted run (cut to the limit).
    fn spill_buffer(&mut self) -> Result<(), SqlError> {
        crate::interrupt::tick()?;
        let plan = self.buffer_stats.plan();
        let mut buffer = std::mem::take(&mut self.buffer);
        sort_entries(&mut buffer, &self.desc, &plan);
        if let Some(k) = self.limit {
            if buffer.len() > k {
                let whole = self.plan_with_buffer();
                if self
                    .cut_under
                    .as_ref()
                    .is_some_and(|p| !p.orders_as(&whole))
                {
                    self.restart = true;
                    return Ok(());
                }
                buffer.truncate(k);
                self.cut_under = Some(whole);
            }
        }
        let reader = self.write_run(buffer)?;
        let fresh = self.buffer_stats.fresh();
        let stats = std::mem::replace(&mut self.buffer_stats, fresh);
        self.total_stats.merge(&stats);
        self.buffer_bytes = 0;
        self.runs.push(Run { reader, plan });
        Ok(())
    }

    fn write_run(&mut self, rows: Vec<Entry<P>>) -> Result<RunReader<'d>, SqlError> {
        let mut w = RunWriter::create(self.dir)?;
        self.stats.tmp_files += 1;
        for (keys, seq, payload) in rows {
            crate::interrupt::tick()?;
            w.push(&(keys, (seq, payload)))?;
        }
        w.finish()
    }

    /// End the input: the rows in order, or [`Outcome::Restart`].
    pub fn finish(mut self) -> Result<(Outcome<'d, P>, SortStats), SqlError> {
        let plan = self.plan_with_buffer();
        if self.restart || self.cut_under.as_ref().is_some_and(|p| !p.orders_as(&plan)) {
            return Ok((Outcome::Restart, self.stats));
        }
        if self.runs.is_empty() {
            let mut buffer = std::mem::take(&mut self.buffer);
            sort_entries(&mut buffer, &self.desc, &plan);
            crate::interrupt::tick()?;
            if let Some(k) = self.limit {
                buffer.truncate(k);
            }
            let sorted = Sorted::Memory(buffer.into_iter());
            return Ok((Outcome::Sorted(sorted), self.stats));
        }
        if !self.buffer.is_empty() {
            self.spill_buffer()?;
        }
        // Runs sorted before a key column turned out mixed are sorted again.
        let runs = std::mem::take(&mut self.runs);
        let mut ready = Vec::with_capacity(runs.len());
        for mut run in runs {
            if run.plan.orders_as(&plan) {
                ready.push(run.reader);
                continue;
            }
            let mut rows = Vec::new();
            while let Some((keys, (seq, payload))) = run.reader.read::<(Vec<Value>, (u64, P))>()? {
                rows.push((keys, seq, payload));
            }
            sort_entries(&mut rows, &self.desc, &plan);
            ready.push(self.write_run(rows)?);
        }
        while ready.len() > MERGE_FAN_IN {
            let mut next = Vec::with_capacity(ready.len().div_ceil(MERGE_FAN_IN));
            let mut groups = ready.into_iter().peekable();
            while groups.peek().is_some() {
                let group: Vec<RunReader<'d>> = groups.by_ref().take(MERGE_FAN_IN).collect();
                let mut merge: Merge<P> = Merge::new(group, self.desc.clone(), plan.clone())?;
                self.stats.merge_passes += 1;
                let mut w = RunWriter::create(self.dir)?;
                self.stats.tmp_files += 1;
                while let Some((keys, seq, payload)) = merge.next_entry()? {
                    w.push(&(keys, (seq, payload)))?;
                }
                next.push(w.finish()?);
            }
            ready = next;
        }
        self.stats.merge_passes += 1;
        let mut merge = Merge::new(ready, self.desc.clone(), plan)?;
        merge.left = self.limit;
        Ok((Outcome::Sorted(Sorted::Merge(merge)), self.stats))
    }
}

/// Stable sort of entries by their keys prepared under `plan`, then arrival.
fn sort_entries<P>(rows: &mut Vec<Entry<P>>, desc: &[bool], plan: &KeyPlan) {
    let mut keyed: Vec<(Vec<Value>, u64, usize)> = rows
        .iter()
        .enumerate()
        .map(|(n, (keys, seq, _))| (prepare(keys, plan), *seq, n))
        .collect();
    // An interrupted sort finishes at once; the next tick of the caller reports it.
    let mut interrupted = false;
    keyed.sort_by(|a, b| {
        if interrupted || crate::interrupt::tick().is_err() {
            interrupted = true;
            return Ordering::Equal;
        }
        compare(&a.0, &b.0, desc, plan).then(a.1.cmp(&b.1))
    });
    let mut slots: Vec<Option<Entry<P>>> = std::mem::take(rows).into_iter().map(Some).collect();
    rows.extend(keyed.into_iter().filter_map(|(_, _, n)| slots[n].take()));
}

/// A merge of sorted runs: the next row is the least of the runs' heads (a linear pick
/// over at most [`MERGE_FAN_IN`] heads).
pub struct Merge<'d, P: SpillRow> {
    readers: Vec<RunReader<'d>>,
    /// Each run's next row, with its prepared keys.
    heads: Vec<Option<(Vec<Value>, Entry<P>)>>,
    desc: Vec<bool>,
    plan: KeyPlan,
    /// Rows still wanted (a limit), None for all.
    left: Option<usize>,
}

impl<'d, P: SpillRow> Merge<'d, P> {
    fn new(
        mut readers: Vec<RunReader<'d>>,
        desc: Vec<bool>,
        plan: KeyPlan,
    ) -> Result<Merge<'d, P>, SqlError> {
        let mut heads = Vec::with_capacity(readers.len());
        for r in readers.iter_mut() {
            heads.push(read_head(r, &plan)?);
        }
        Ok(Merge {
            readers,
            heads,
            desc,
            plan,
            left: None,
        })
    }

    fn next_entry(&mut self) -> Result<Option<Entry<P>>, SqlError> {
        if self.left == Some(0) {
            return Ok(None);
        }
        crate::interrupt::tick()?;
        let mut best: Option<usize> = None;
        for (i, h) in self.heads.iter().enumerate() {
            let Some((prepared, (_, seq, _))) = h else {
                continue;
            };
            let better = match best.and_then(|b| self.heads[b].as_ref()) {
                None => true,
                Some((bp, (_, bseq, _))) => {
                    compare(prepared, bp, &self.desc, &self.plan).then(seq.cmp(bseq))
                        == Ordering::Less
                }
            };
            if better {
                best = Some(i);
            }
        }
        let Some(b) = best else {
            return Ok(None);
        };
        let next = read_head(&mut self.readers[b], &self.plan)?;
        let taken = std::mem::replace(&mut self.heads[b], next);
        if let Some(left) = self.left.as_mut() {
            *left -= 1;
        }
        Ok(taken.map(|(_, entry)| entry))
    }
}

type Head<P> = Option<(Vec<Value>, Entry<P>)>;

fn read_head<P: SpillRow>(r: &mut RunReader<'_>, plan: &KeyPlan) -> Result<Head<P>, SqlError> {
    Ok(r.read::<(Vec<Value>, (u64, P))>()?
        .map(|(keys, (seq, payload))| (prepare(&keys, plan), (keys, seq, payload))))
}

/// The sorted rows, streamed: each item is a row's raw keys and its payload.
pub enum Sorted<'d, P: SpillRow> {
    Memory(std::vec::IntoIter<Entry<P>>),
    Merge(Merge<'d, P>),
}

impl<P: SpillRow> Iterator for Sorted<'_, P> {
    type Item = Result<(Vec<Value>, P), SqlError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Sorted::Memory(rows) => rows.next().map(|(keys, _, p)| Ok((keys, p))),
            Sorted::Merge(m) => m
                .next_entry()
                .transpose()
                .map(|r| r.map(|(k, _, p)| (k, p))),
        }
    }
}
