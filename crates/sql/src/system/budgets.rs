//! The memory budgets of a statement's sorts, groupings and joins, read from the session's
//! variables once per change of them (see [`crate::session::SessionState`]), not per
//! statement.

use crate::sysvars::VarValue;
use std::path::PathBuf;

/// The budgets and the directory of one statement's sorts and groupings.
#[derive(Debug, Clone)]
pub struct SpillConfig {
    /// sort_buffer_size: bytes of rows an ORDER BY keeps in memory.
    pub sort_bytes: usize,
    /// max_length_for_sort_data: rows wider than this are sorted by row id.
    pub max_sort_row_bytes: usize,
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
            max_sort_row_bytes: bytes("max_length_for_sort_data", 1024),
            group_bytes: bytes("tmp_table_size", 16 << 20)
                .min(bytes("max_heap_table_size", 16 << 20)),
            dir,
        }
    }
}
