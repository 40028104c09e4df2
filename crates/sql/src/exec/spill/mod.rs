//! Sorting and grouping within a memory budget, spilling to temporary files beyond it.
//!
//! A statement's ORDER BY keeps at most `sort_buffer_size` bytes of rows in memory (the
//! rows' heap bytes, counted as the query cache counts result rows); beyond that it
//! writes sorted runs to files and merges them ([`sort`]). ORDER BY with a LIMIT keeps
//! only the rows that can still be among the first OFFSET + LIMIT. GROUP BY and
//! DISTINCT keep at most min(`tmp_table_size`, `max_heap_table_size`) bytes of rows before
//! they, too, go through the spilled sort ([`group`]).
//!
//! Files go to `tmpdir` when set, else to the `#tmp` folder of the datadir; each is
//! created 0600 and unlinked at once ([`mod@file`]), so none outlives its statement. A full
//! disk fails the statement with ER_DISK_FULL, another I/O error with ER_GET_ERRNO.

pub mod codec;
pub mod collect;
pub mod file;
pub mod group;
pub mod keys;
pub mod sort;

#[cfg(test)]
mod tests;

use crate::system::status::Counter;
use crate::sysvars::VarValue;
use std::path::PathBuf;

/// The budgets and the directory of one statement's sorts and groupings.
#[derive(Debug, Clone)]
pub struct SpillConfig {
    /// sort_buffer_size: bytes of rows an ORDER BY keeps in memory.
    pub sort_bytes: usize,
    /// min(tmp_table_size, max_heap_table_size): bytes of rows a grouping keeps.
    pub group_bytes: usize,
    /// Where the files go.
    pub dir: PathBuf,
}

impl SpillConfig {
    /// The budgets a session's variables give, and the server's tmpdir; `var` reads a
    /// variable's session value by name.
    pub fn from_variables(var: impl Fn(&str) -> Option<VarValue>) -> SpillConfig {
        let bytes = |name: &str, default: u64| match var(name) {
            Some(VarValue::UInt(n)) => usize::try_from(n).unwrap_or(usize::MAX),
            _ => usize::try_from(default).unwrap_or(usize::MAX),
        };
        let dir = match var("tmpdir") {
            Some(VarValue::Str(Some(dir))) if !dir.is_empty() => PathBuf::from(dir),
            _ => std::env::temp_dir(),
        };
        SpillConfig {
            sort_bytes: bytes("sort_buffer_size", 2 << 20),
            group_bytes: bytes("tmp_table_size", 16 << 20)
                .min(bytes("max_heap_table_size", 16 << 20)),
            dir,
        }
    }
}

/// What one statement's sorts and groupings did, for the status counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpillCounters {
    pub sort: sort::SortStats,
    /// Sorts of rows read by a full scan (Sort_scan) or an index range (Sort_range).
    pub sort_scans: u64,
    pub sort_ranges: u64,
    /// Groupings (GROUP BY, DISTINCT) made, and those that went to disk.
    pub tmp_tables: u64,
    pub tmp_disk_tables: u64,
}

impl SpillCounters {
    pub fn add_sort(&mut self, stats: sort::SortStats, range: bool) {
        self.sort.merge_passes += stats.merge_passes;
        self.sort.rows += stats.rows;
        self.sort.tmp_files += stats.tmp_files;
        if range {
            self.sort_ranges += 1;
        } else {
            self.sort_scans += 1;
        }
    }

    /// Each status counter and what to add to it.
    pub fn counts(&self) -> [(Counter, u64); 7] {
        [
            (Counter::SortMergePasses, self.sort.merge_passes),
            (Counter::SortRows, self.sort.rows),
            (Counter::CreatedTmpFiles, self.sort.tmp_files),
            (Counter::SortScan, self.sort_scans),
            (Counter::SortRange, self.sort_ranges),
            (Counter::CreatedTmpTables, self.tmp_tables),
            (Counter::CreatedTmpDiskTables, self.tmp_disk_tables),
        ]
    }
}
