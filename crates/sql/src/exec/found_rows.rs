//! FOUND_ROWS(): how many rows the last result set had, or, after `SELECT
//! SQL_CALC_FOUND_ROWS ... LIMIT`, how many the query found before its LIMIT.
//!
//! A SELECT over tables may send its rows to the client as it makes them, and pause
//! between them (see [`crate::row_sink`]); so its rows are counted on their way out, by
//! `Counting` around the client's sink, into the session's `rows_produced`. Under
//! `SQL_CALC_FOUND_ROWS` the query was compiled without its LIMIT (the plan's
//! [`crate::plan::FoundRowsWindow`]): every row it makes is counted, and only those in the
//! window go on to the client, as MariaDB finds them all too. A result held whole (no
//! sink, or a statement that does not stream) is cut to the window after it is made
//! (`window_rows`). The count becomes FOUND_ROWS() when the result set ends; statements
//! that answer no result set leave it as it was. A plain SELECT with OFFSET skips rows
//! without counting them, where MariaDB counts them: FOUND_ROWS() after it answers 1235.

use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::plan::{FoundRowsWindow, Stmt};
use crate::result::{Column, QueryResult, Rows};
use crate::value::Value;
use crate::RowSink;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The LIMIT window of `stmt` under SQL_CALC_FOUND_ROWS, if it has one.
pub(crate) fn window_of(stmt: &Stmt) -> Option<&FoundRowsWindow> {
    match stmt {
        Stmt::Select(plan) => plan.found_rows_window.as_deref(),
        Stmt::SelectTable(plan) => plan.found_rows_window.as_deref(),
        _ => None,
    }
}

/// Whether `stmt` is a SELECT whose OFFSET skips rows that are not counted (MariaDB counts
/// them in FOUND_ROWS(): that count is then not known here).
pub(crate) fn skips_rows(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Select(plan) => plan.offset.is_some(),
        Stmt::SelectTable(plan) => plan.offset.is_some(),
        _ => false,
    }
}

/// The window's rows to skip and rows to send.
pub(crate) fn window_bounds(
    window: &FoundRowsWindow,
    env: &mut ExecEnv,
) -> Result<(u64, u64), SqlError> {
    let offset = match &window.offset {
        Some(o) => crate::exec::select::limit_value(o, env)?,
        None => 0,
    };
    let limit = match &window.limit {
        Some(l) => crate::exec::select::limit_value(l, env)?,
        None => u64::MAX,
    };
    Ok((offset, limit))
}

/// A result held whole, cut to the window `(skip, take)`: the rows it had before, and the
/// result.
pub(crate) fn window_rows(result: QueryResult, (skip, take): (u64, u64)) -> (u64, QueryResult) {
    match result {
        QueryResult::Rows {
            columns,
            rows,
            warnings,
        } if !rows.was_streamed() => {
            let found = rows.len() as u64;
            let kept: Vec<Vec<Value>> = rows
                .iter()
                .skip(usize::try_from(skip).unwrap_or(usize::MAX))
                .take(usize::try_from(take).unwrap_or(usize::MAX))
                .cloned()
                .collect();
            let rows = Rows::shared(kept);
            (
                found,
                QueryResult::Rows {
                    columns,
                    rows,
                    warnings,
                },
            )
        }
        other => (0, other),
    }
}

/// A sink that counts the rows on their way to `inner` into `produced`, and passes on only
/// those in the window `(skip, take)` (all of them outside SQL_CALC_FOUND_ROWS).
pub(crate) struct Counting<'s> {
    pub(crate) inner: &'s mut dyn RowSink,
    pub(crate) produced: &'s AtomicU64,
    pub(crate) window: (u64, u64),
}

impl<'s> Counting<'s> {
    /// The sink around `inner` for the session's running statement: its count and window.
    pub(crate) fn of_statement(
        state: &'s crate::session::SessionState,
        inner: &'s mut dyn RowSink,
    ) -> Counting<'s> {
        Counting {
            inner,
            produced: &state.rows_produced,
            window: state.found_rows_window.unwrap_or((0, u64::MAX)),
        }
    }

    /// Count a row: whether it goes to the client.
    fn passes(&self) -> bool {
        let n = self.produced.fetch_add(1, Ordering::Relaxed);
        let (skip, take) = self.window;
        n >= skip && n - skip < take
    }
}

impl RowSink for Counting<'_> {
    fn begin(&mut self, columns: &Arc<Vec<Column>>) -> Result<(), SqlError> {
        self.inner.begin(columns)
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        if self.passes() {
            self.inner.row(row)
        } else {
            Ok(())
        }
    }

    fn row_or_pause(&mut self, row: &[Value]) -> Result<bool, SqlError> {
        if self.passes() {
            self.inner.row_or_pause(row)
        } else {
            Ok(false)
        }
    }

    fn can_pause(&self) -> bool {
        self.inner.can_pause()
    }

    fn local_file(
        &mut self,
        name: &str,
        data: &mut dyn FnMut(&[u8]) -> Result<(), SqlError>,
    ) -> Result<(), SqlError> {
        self.inner.local_file(name, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect(Vec<i64>);

    impl RowSink for Collect {
        fn begin(&mut self, _: &Arc<Vec<Column>>) -> Result<(), SqlError> {
            Ok(())
        }
        fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
            if let Value::Int(i) = row[0] {
                self.0.push(i);
            }
            Ok(())
        }
    }

    #[test]
    fn every_row_is_counted_and_only_the_window_passes() {
        for (skip, take, expected) in [
            (0, u64::MAX, vec![0, 1, 2, 3, 4]),
            (1, 2, vec![1, 2]),
            (4, 10, vec![4]),
            (7, 1, vec![]),
            (0, 0, vec![]),
        ] {
            let produced = AtomicU64::new(0);
            let mut out = Collect::default();
            let mut sink = Counting {
                inner: &mut out,
                produced: &produced,
                window: (skip, take),
            };
            for i in 0..5 {
                sink.row(&[Value::Int(i)]).unwrap();
            }
            assert_eq!(out.0, expected, "window ({skip}, {take})");
            assert_eq!(produced.load(Ordering::Relaxed), 5);
        }
    }
}
