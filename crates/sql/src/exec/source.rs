//! A table as a running statement reads it: a stored table opened through the table
//! cache, or an `information_schema` table whose rows were made for this statement from
//! the server's state (`crate::exec::info_schema`). Reads go through [`Opened::scan`];
//! index reads exist only for stored tables (made rows have no index, so the planner never
//! chooses one for them).

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::plan::tables::TableRef;
use myriad_storage as st;
use myriad_types::errors::ER_UNKNOWN_ERROR;
use std::sync::Arc;

/// An opened table.
pub(crate) enum Opened {
    Stored(st::Table),
    /// The rows of an `information_schema` table, in the order made.
    Made(Vec<st::Row>),
}

impl Opened {
    /// Open `table` for reading: a stored table is checked to still have the definition
    /// the plan was compiled for; an `information_schema` table's rows are made now,
    /// narrowed by what `filter` says of them.
    pub(crate) fn open(
        table: &TableRef,
        filter: Option<&crate::expr::Expr>,
        env: &ExecEnv,
    ) -> Result<Opened, SqlError> {
        match table.virtual_rows {
            Some(kind) => {
                let rows = crate::exec::info_schema::rows(kind, table, filter, env)?;
                // A row of another width would be read out of bounds: refuse it here.
                if rows.iter().any(|r| r.len() != table.def.columns.len()) {
                    return Err(SqlError::new(
                        ER_UNKNOWN_ERROR,
                        format!(
                            "information_schema.{} made a row of the wrong width",
                            table.name
                        ),
                    ));
                }
                Ok(Opened::Made(rows))
            }
            None => table.open(env.engine.catalog.storage()).map(Opened::Stored),
        }
    }

    /// The stored table, for the reads only a stored table has (index reads, reads by row
    /// id); made rows reaching one is a planner error, reported rather than trusted.
    pub(crate) fn stored(&self) -> Result<&st::Table, SqlError> {
        match self {
            Opened::Stored(t) => Ok(t),
            Opened::Made(_) => Err(SqlError::new(
                ER_UNKNOWN_ERROR,
                "an information_schema table was read through an index",
            )),
        }
    }

    /// Every row, with its row id (a made row's id is its position), decoding only the
    /// `wanted` columns of a stored table (None: all).
    pub(crate) fn scan(&self, wanted: Option<&Arc<[bool]>>) -> Result<Scan<'_>, SqlError> {
        Ok(match self {
            Opened::Stored(t) => {
                let mut scan = t.scan().map_err(storage_error)?;
                if let Some(w) = wanted {
                    scan = scan.project(Arc::clone(w));
                }
                Scan::Stored(scan)
            }
            Opened::Made(rows) => Scan::Made(rows.iter().enumerate()),
        })
    }
}

/// The rows of an [`Opened`] table, as [`Opened::scan`] yields them.
pub(crate) enum Scan<'a> {
    Stored(st::RowScan),
    Made(std::iter::Enumerate<std::slice::Iter<'a, st::Row>>),
}

impl Iterator for Scan<'_> {
    type Item = Result<(st::RowId, st::Row), SqlError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Scan::Stored(scan) => scan.next().map(|item| item.map_err(storage_error)),
            Scan::Made(rows) => rows
                .next()
                .map(|(i, row)| Ok((i as st::RowId, row.clone()))),
        }
    }
}
