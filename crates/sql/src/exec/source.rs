//! A table as a running statement reads it: a stored table opened through the table
//! cache, or an `information_schema` table whose rows were made for this statement from
//! the server's state (`crate::exec::info_schema`). Reads go through `Opened::scan`;
//! index reads exist only for stored tables (made rows have no index, so the planner never
//! chooses one for them).

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::plan::tables::{Made, TableRef};
use crate::result::QueryResult;
use crate::row_sink::RowSink;
use crate::value::Value;
use myriad_storage as st;
use myriad_types::errors::{ER_RECORD_FILE_FULL, ER_UNKNOWN_ERROR};
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
    /// narrowed by what `filter` says of them; a derived table's query runs now.
    pub(crate) fn open(
        table: &TableRef,
        filter: Option<&crate::expr::Expr>,
        env: &mut ExecEnv,
    ) -> Result<Opened, SqlError> {
        let rows = match &table.made {
            None => return table.open(env.engine.catalog.storage()).map(Opened::Stored),
            Some(Made::InfoSchema(kind)) => {
                crate::exec::info_schema::rows(*kind, table, filter, env)?
            }
            Some(Made::Query(query)) => query_rows(query.as_ref(), &table.alias, env)?,
        };
        // A row of another width would be read out of bounds: refuse it here.
        if rows.iter().any(|r| r.len() != table.def.columns.len()) {
            return Err(SqlError::new(
                ER_UNKNOWN_ERROR,
                format!(
                    "the rows made for table '{}' have the wrong width",
                    table.alias
                ),
            ));
        }
        Ok(Opened::Made(rows))
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

/// The rows of a derived table's query, kept while they take at most the grouping budget
/// (min(`tmp_table_size`, `max_heap_table_size`)); a larger result is MariaDB's 1114
/// "The table is full" (MariaDB would write it to a temporary table on disk).
pub(crate) fn query_rows(
    query: &dyn crate::expr::SubqueryPlan,
    name: &str,
    env: &mut ExecEnv,
) -> Result<Vec<st::Row>, SqlError> {
    query_rows_kept(query, name, env, &mut |_| true)
}

/// [`query_rows`], each row first shaped by `keep`, which may also drop it (false): a
/// dropped row takes no memory and counts against no budget.
pub(crate) fn query_rows_kept(
    query: &dyn crate::expr::SubqueryPlan,
    name: &str,
    env: &mut ExecEnv,
    keep: &mut dyn FnMut(&mut st::Row) -> bool,
) -> Result<Vec<st::Row>, SqlError> {
    let mut sink = Materialized {
        rows: Vec::new(),
        bytes: 0,
        limit: env.spill_config().group_bytes,
        name,
        keep,
    };
    env.spill.tmp_tables += 1;
    let result = match crate::plan::Stmt::of_subquery(query) {
        Some(crate::plan::Stmt::Select(plan)) => crate::exec::select::select(plan, env)?,
        Some(crate::plan::Stmt::Union(plan)) => {
            let mut rows = crate::exec::set_ops::rows(plan, name, env)?;
            rows.retain_mut(|row| (sink.keep)(row));
            return Ok(rows);
        }
        Some(crate::plan::Stmt::SelectTable(plan)) => {
            let mut nested = env.nested(&mut sink);
            let result = crate::Session::select_table(plan, &mut nested);
            env.absorb(nested);
            result?
        }
        _ => return Err(SqlError::not_supported("this derived table")),
    };
    // Rows built rather than streamed (no table, or a plan that does not stream).
    if let QueryResult::Rows { rows, .. } = &result {
        for row in rows.iter() {
            sink.row(row)?;
        }
    }
    Ok(sink.rows)
}

/// Keeps a derived table's rows within a budget of heap bytes.
struct Materialized<'n, 'k> {
    rows: Vec<st::Row>,
    bytes: usize,
    limit: usize,
    name: &'n str,
    keep: &'k mut dyn FnMut(&mut st::Row) -> bool,
}

impl RowSink for Materialized<'_, '_> {
    fn begin(&mut self, _: &Arc<Vec<crate::result::Column>>) -> Result<(), SqlError> {
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        let mut row: st::Row = row.iter().map(crate::plan::stored::evaluable).collect();
        if !(self.keep)(&mut row) {
            return Ok(());
        }
        self.bytes = self
            .bytes
            .saturating_add(crate::result::Rows::row_heap_bytes(&row));
        if self.bytes > self.limit {
            return Err(SqlError::new(
                ER_RECORD_FILE_FULL,
                format!("The table '{}' is full", self.name),
            ));
        }
        self.rows.push(row);
        Ok(())
    }
}
