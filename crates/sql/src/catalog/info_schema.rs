//! `information_schema` as virtual tables: each is a name, MariaDB's columns and a function
//! that produces its rows from the engine's state when a statement reads it. Nothing is
//! stored. A query is `SELECT * | col [, col ...] FROM information_schema.<table>
//! [WHERE condition]`; the condition is evaluated over every row (the tables are small),
//! as SHOW ... WHERE is. Adding a table is one entry in [`TABLES`].

use crate::expr::eval::Datum;
use crate::plan::ShowFilter;
use crate::result::{QueryResult, Rows};
use crate::Engine;
use std::sync::Arc;

/// A virtual table of `information_schema`.
pub struct VirtualTable {
    /// The name in upper case (matched case-insensitively).
    pub name: &'static str,
    /// `(column, width)`: width 0 is an unsigned integer column, else a string of that many
    /// characters (the convention of SHOW listings).
    pub columns: &'static [(&'static str, u32)],
    pub rows: fn(&Engine) -> Vec<Vec<Datum>>,
}

/// Every virtual table.
pub static TABLES: &[VirtualTable] = &[VirtualTable {
    name: "KEY_CACHES",
    columns: crate::exec::key_cache::KEY_CACHES_COLUMNS,
    rows: crate::exec::key_cache::key_caches_rows,
}];

/// The virtual table with this name.
pub fn find(name: &str) -> Option<usize> {
    TABLES
        .iter()
        .position(|t| t.name.eq_ignore_ascii_case(name))
}

/// A compiled `SELECT ... FROM information_schema.<table>`.
#[derive(Debug, Clone)]
pub struct VirtualSelect {
    /// Index into [`TABLES`].
    pub table: usize,
    /// The selected columns (indexes into the table's columns) with the names to show.
    pub projection: Vec<(usize, String)>,
    pub filter: ShowFilter,
}

/// Keep the projected columns of a full listing of the table, renamed as selected.
pub(crate) fn project(select: &VirtualSelect, full: QueryResult) -> QueryResult {
    match full {
        QueryResult::Rows {
            columns,
            rows,
            warnings,
        } => {
            let table = &TABLES[select.table];
            let columns = select
                .projection
                .iter()
                .map(|(i, name)| {
                    let mut c = columns[*i].clone();
                    c.name = name.clone();
                    c.schema = "information_schema".into();
                    c.table = table.name.into();
                    c.org_table = table.name.into();
                    c
                })
                .collect();
            let rows = rows
                .iter()
                .map(|row| {
                    select
                        .projection
                        .iter()
                        .map(|(i, _)| row[*i].clone())
                        .collect()
                })
                .collect();
            QueryResult::Rows {
                columns: Arc::new(columns),
                rows: Rows::shared(rows),
                warnings,
            }
        }
        other => other,
    }
}
