//! `information_schema` as virtual tables: each is a name, MariaDB's columns and a function
//! that produces its rows from the engine's state when a statement reads it. Nothing is
//! stored. A query is `SELECT * | col [, col ...] FROM information_schema.<table>
//! [WHERE condition]`; the condition is evaluated over every row (the tables are small),
//! as SHOW ... WHERE is. Adding a table is one entry in [`TABLES`].

use crate::catalog::info_schema::{VirtualRows, VirtualTable, TABLES};
use crate::plan::VirtualSelect;
use crate::result::{QueryResult, Rows};
use crate::value::Value;
use crate::Engine;
use std::sync::Arc;

/// The rows of a virtual table, from the engine's state now.
pub(crate) fn rows(engine: &Engine, table: &VirtualTable) -> Vec<Vec<Value>> {
    match table.rows {
        VirtualRows::KeyCaches => crate::exec::key_cache::key_caches_rows(engine),
    }
}

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
