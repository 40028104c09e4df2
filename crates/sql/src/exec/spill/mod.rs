//! Sorting and grouping within a memory budget, spilling to temporary files beyond it.
//!
//! A statement's ORDER BY keeps at most `sort_buffer_size` bytes of rows in memory (the
//! rows' heap bytes, counted as the query cache counts result rows); beyond that it
//! writes sorted runs to files and merges them ([`sort`]). ORDER BY with a LIMIT keeps
//! only the rows that can still be among the first OFFSET + LIMIT. GROUP BY keeps at
//! most min(`tmp_table_size`, `max_heap_table_size`) bytes of rows before they, too, go
//! through the spilled sort ([`group`]); DISTINCT keeps the keys it has seen within the
//! same budget and sorts the rows that come after ([`distinct`]).
//!
//! Files go to `tmpdir` when set, else to the `#tmp` folder of the datadir; each is
//! created 0600 and unlinked at once ([`mod@file`]), so none outlives its statement. A full
//! disk fails the statement with ER_DISK_FULL, another I/O error with ER_GET_ERRNO.

pub mod codec;
pub mod collect;
pub mod distinct;
pub mod file;
pub mod group;
pub mod keys;
pub mod row_ids;
pub mod sort;

pub use crate::system::budgets::SpillConfig;

#[cfg(test)]
mod tests;

use crate::system::status::Counter;

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
