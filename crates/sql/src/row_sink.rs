//! Where a SELECT's rows go as they are produced.
//!
//! A statement that returns rows either builds them ([`QueryResult::Rows`] with its
//! [`Rows`]) or, given a [`RowSink`] by [`crate::Session::execute_streaming`], hands each
//! row to the sink as soon as it exists, after the column definitions. Then no list of the
//! result's rows exists anywhere: the server's sink encodes each row into the connection's
//! buffer and writes the buffer to the client once it holds more than a bound, waiting for
//! the client to read (see the protocol crate's `drain`). The statement's outcome is then a
//! [`QueryResult::Rows`] whose rows are [`Rows::was_streamed`]: empty, already sent; the
//! server ends the result set with it (the EOF with the warning count and status), or with
//! an ERR packet when the statement failed after rows were sent, as MariaDB does.
//!
//! Which statements stream: one SELECT per command text (a multi-statement text keeps
//! its results in order by building them). Over one table read by a full scan, or over a
//! join, without ORDER BY, GROUP BY or aggregates, every row is final when the scan or the
//! join yields it and goes to the sink at once; with DISTINCT, so does each row unlike
//! every row before it, and the rows held back once the set of rows seen outgrew its
//! budget follow at the end, in the order met (see `exec::distinct`). With ORDER BY or
//! grouping the rows exist only once all are read: they go to the sink as they come out
//! of the sort (each dropped once sent), the point where a sort that spills to disk feeds
//! its merge, and a DISTINCT over grouped rows drops the repeats there. The rest (an
//! index read without a sort) build their rows, and the server writes them out through
//! the same bounded buffer. An index read does not stream: it starts again when its index
//! moved under it, which rows already sent could not follow.
//!
//! A client that stops reading would hold its statement's thread while the statement waits
//! for room in the socket. A plain scan (one table read in full, without a subquery) does
//! not wait: its sink answers [`RowSink::row_or_pause`] with true once the client left rows
//! unread, the scan stops after that row and keeps what it needs to go on (its place in the
//! table, OFFSET and LIMIT counts, the statement's clock, warnings and deadline) in the
//! session ([`crate::Session::has_paused_rows`]), and the server calls
//! [`crate::Session::resume_rows`] once the client has read the buffered rows. No thread
//! waits for a slow reader of such a scan: twenty of them hold twenty small states, not
//! twenty threads with their stacks and allocator caches. KILL QUERY and max_statement_time
//! end a paused scan when it resumes, which the server does at once when either comes
//! ([`crate::Session::paused_rows_must_stop`]). Such a scan also stops by itself after
//! each 2 ms slice of running time ([`crate::interrupt::yield_instead`]) rather than move
//! to a thread of its own. Joins, sorted and grouped results, and rows for a cursor
//! (COM_STMT_FETCH) wait for their client, and run long, on their thread.
//!
//! The query cache sees a streamed result through `CacheCopy`: a copy of the rows kept
//! only while it stays within query_cache_limit (a statement does not pause while its copy
//! lasts); a result that outgrows it goes on streaming and is not cached.

use crate::error::SqlError;
use crate::result::{Column, QueryResult, Rows};
use crate::value::Value;
use std::sync::Arc;

/// Takes a result set's column definitions, then its rows, while the statement runs.
pub trait RowSink {
    /// The result's columns, before any row. Err ends the statement with that error.
    fn begin(&mut self, columns: &Arc<Vec<Column>>) -> Result<(), SqlError>;
    /// One row, with a value per column. Err ends the statement with that error (the
    /// client went away, KILL, net_write_timeout).
    fn row(&mut self, row: &[Value]) -> Result<(), SqlError>;
    /// [`RowSink::row`] for a statement that can stop between rows and go on later
    /// ([`crate::Session::resume_rows`]): true asks it to stop after this row, because the
    /// client is not taking rows and the statement need not hold a thread while it waits.
    /// A sink that cannot wait without blocking takes the row as [`RowSink::row`] does.
    fn row_or_pause(&mut self, row: &[Value]) -> Result<bool, SqlError> {
        self.row(row).map(|()| false)
    }
    /// Whether the statement may stop between rows and go on later for its own reasons:
    /// a long scan stops after each slice of [`crate::interrupt::INLINE_BUDGET`] instead of
    /// holding a thread ([`crate::interrupt::yield_instead`]). False unless the sink's
    /// owner resumes paused statements.
    fn can_pause(&self) -> bool {
        false
    }
    /// LOAD DATA LOCAL INFILE: ask the client for file `name` and hand its bytes to
    /// `data` as they arrive. A sink that cannot ask answers 4166, as MariaDB does when
    /// the client did not allow it.
    fn local_file(
        &mut self,
        name: &str,
        data: &mut dyn FnMut(&[u8]) -> Result<(), SqlError>,
    ) -> Result<(), SqlError> {
        let _ = (name, data);
        Err(infile_disabled())
    }
}

/// A [`RowSink`] that forwards to another and keeps a copy of the rows for the query cache
/// while the copy's heap bytes stay within `limit_bytes`.
pub(crate) struct CacheCopy<'s> {
    inner: &'s mut dyn RowSink,
    limit_bytes: usize,
    bytes: usize,
    columns: Option<Arc<Vec<Column>>>,
    /// None once the copy outgrew the limit.
    rows: Option<Vec<Vec<Value>>>,
}

impl<'s> CacheCopy<'s> {
    pub(crate) fn new(inner: &'s mut dyn RowSink, limit_bytes: usize) -> CacheCopy<'s> {
        CacheCopy {
            inner,
            limit_bytes,
            bytes: 0,
            columns: None,
            rows: Some(Vec::new()),
        }
    }

    /// The streamed result as the cache keeps it: `streamed` (its warnings), with the
    /// copied rows. None when nothing streamed or the copy outgrew the limit.
    pub(crate) fn into_result(self, streamed: &QueryResult) -> Option<QueryResult> {
        let QueryResult::Rows { rows, warnings, .. } = streamed else {
            return None;
        };
        if !rows.was_streamed() {
            return None;
        }
        Some(QueryResult::Rows {
            columns: self.columns?,
            rows: Rows::shared(self.rows?),
            warnings: *warnings,
        })
    }
}

impl RowSink for CacheCopy<'_> {
    fn begin(&mut self, columns: &Arc<Vec<Column>>) -> Result<(), SqlError> {
        self.columns = Some(Arc::clone(columns));
        self.inner.begin(columns)
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        if let Some(rows) = self.rows.as_mut() {
            self.bytes += Rows::row_heap_bytes(row);
            if self.bytes > self.limit_bytes {
                self.rows = None;
            } else {
                rows.push(row.to_vec());
            }
        }
        self.inner.row(row)
    }

    /// While the copy lasts the rows go on without a pause: a paused statement keeps no
    /// copy, and one the cache could keep is small enough to send without waiting long.
    fn row_or_pause(&mut self, row: &[Value]) -> Result<bool, SqlError> {
        if self.rows.is_some() {
            return self.row(row).map(|()| false);
        }
        self.inner.row_or_pause(row)
    }

    fn can_pause(&self) -> bool {
        self.rows.is_none() && self.inner.can_pause()
    }
}

/// 4166: LOCAL INFILE is not allowed (by the server's local_infile or by the client).
pub fn infile_disabled() -> SqlError {
    SqlError::new(
        myriad_types::errors::ER_LOAD_INFILE_CAPABILITY_DISABLED,
        "The used command is not allowed because the MariaDB server or client has \
         disabled the local infile capability",
    )
}

/// A sink that drops every row: a locking read's first runs, which only find the pages
/// to claim (see `exec::transaction`).
pub(crate) struct Discard;

impl RowSink for Discard {
    fn begin(&mut self, _columns: &Arc<Vec<Column>>) -> Result<(), SqlError> {
        Ok(())
    }
    fn row(&mut self, _row: &[Value]) -> Result<(), SqlError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect {
        columns: usize,
        rows: Vec<Vec<Value>>,
    }

    impl RowSink for Collect {
        fn begin(&mut self, columns: &Arc<Vec<Column>>) -> Result<(), SqlError> {
            self.columns = columns.len();
            Ok(())
        }
        fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
            self.rows.push(row.to_vec());
            Ok(())
        }
    }

    fn streamed() -> QueryResult {
        QueryResult::Rows {
            columns: Arc::new(Vec::new()),
            rows: Arc::new(Rows::streamed()),
            warnings: 0,
        }
    }

    fn feed(copy: &mut CacheCopy<'_>, rows: usize) {
        let column =
            crate::exec::select::result_column("a", crate::expr::eval::SqlType::Str { chars: 10 });
        copy.begin(&Arc::new(vec![column])).unwrap();
        for n in 0..rows {
            copy.row(&[Value::Bytes(format!("row {n}").into_bytes())])
                .unwrap();
        }
    }

    #[test]
    fn a_copy_within_the_limit_is_the_streamed_rows() {
        let mut inner = Collect::default();
        let mut copy = CacheCopy::new(&mut inner, 1 << 20);
        feed(&mut copy, 3);
        let cached = copy.into_result(&streamed()).expect("within the limit");
        let QueryResult::Rows { rows, .. } = cached else {
            panic!("rows expected");
        };
        assert!(!rows.was_streamed());
        assert_eq!(rows.len(), 3);
        assert_eq!(inner.rows, **rows, "the client got the same rows");
        assert_eq!(inner.columns, 1);
    }

    #[test]
    fn a_copy_over_the_limit_is_dropped_and_the_rows_still_go_out() {
        let mut inner = Collect::default();
        let mut copy = CacheCopy::new(&mut inner, 200);
        feed(&mut copy, 100);
        assert!(copy.into_result(&streamed()).is_none());
        assert_eq!(inner.rows.len(), 100);
    }
}
