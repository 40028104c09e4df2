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
//! created 0600 and unlinked at once ([`file`]), so none outlives its statement. A full
//! disk fails the statement with ER_DISK_FULL, another I/O error with ER_GET_ERRNO.

pub mod codec;
pub mod file;
pub mod keys;
pub mod sort;

#[cfg(test)]
mod tests;

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
