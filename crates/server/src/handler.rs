//! The bridge between the protocol and the SQL engine: [`MyriadServer`] implements
//! [`ServerHandler`] over the shared [`Engine`], [`MyriadSession`] implements
//! [`SessionHandler`] over one [`Session`].
//!
//! The engine is synchronous and may block (locks, fsync). A statement must never hold a
//! worker thread while it waits, or the worker's other connections (one of which may hold
//! the lock) would stall. The hand-off is `tokio::task::block_in_place` (the worker hands
//! its other connections to a fresh worker and runs the statement itself), and it costs a
//! thread wake-up and two context switches, more than a point select. So:
//! - SELECT, INSERT, UPDATE, DELETE, REPLACE, CREATE TABLE and transaction boundaries,
//!   text or prepared (`Session::text_runs_inline`, `Session::prepared_runs_inline`), run
//!   inline; their long waits (row locks, a DDL's metadata lock, another statement's writer
//!   lock, the catalog lock behind another DDL, the redo log's fsync) call
//!   `myriad_cache::long_wait`, whose hook ([`install_long_wait_hook`]) hands the worker off
//!   at that moment, so only a statement that waits pays for it (a CREATE handed off up
//!   front cost 10-20 us more server CPU: 135-149 against 116-127 us per CREATE);
//! - every other engine call that executes statements (DDL, SET, SHOW, ...) hands off
//!   up front; cheap calls (status flags, account lookup) run inline.
//!
//! CPU, not only waiting, must leave the workers: a join or a full scan that ran inline
//! held its worker for seconds, and with two of them a new connection could not finish its
//! handshake. Whether a statement is long is not known from its text, and its plan does not
//! tell exactly either (a range of an index may hold three rows or all of them), so the
//! statement decides while it runs: the row loops tick `myriad_sql::interrupt`, which
//! reads the clock every 256 rows and, once the statement has run for 2 ms, hands the worker
//! off through the same `long_wait` hook. The rest of the statement runs on a thread of
//! its own, and [`install_long_wait_hook`] also lowers that thread's CPU priority (nice +10)
//! until the statement ends, so that the kernel runs the workers (handshakes, point
//! selects) first when the cores are busy: eight such statements on two cores left a new
//! connection's `SELECT 1` answered in milliseconds (tests/fair_execution.rs). A point
//! select never reaches a clock read and stays inline, at no cost. The lowered priority
//! needs the right to raise it back (CAP_SYS_NICE or RLIMIT_NICE), else threads keep theirs.
//!
//! A SELECT's rows go to the client while it runs: `WireRows` is the engine's
//! `RowSink`, writing each row into the command's `ResultSink`, which writes to the socket
//! past 16 KiB and waits for the client to read (the protocol crate's `drain`). A slow
//! reader therefore holds its statement, not the server's memory. A SELECT that is a
//! plain scan does not even hold a thread: when the client leaves rows unread, the sink
//! pauses the statement (`RowSink::row_or_pause`), the connection waits for the client
//! without a thread, and `SessionHandler::resume` goes on with it. Such a scan does not
//! hand its worker off when it runs long either: it stops after each 2 ms slice
//! (`myriad_sql::interrupt::yield_instead`) and the connection resumes it after the
//! other ready connections, so that twenty long scans run on the network threads, not
//! on twenty threads of their own.
//!
//! The same ticks stop a statement: KILL, max_statement_time, and the client hanging up
//! (the session's probe, `peer_connected`, polls the socket every 100 ms of a running
//! statement); KILL CONNECTION also ends the connection through the protocol's
//! `CloseHandle`.

use myriad_protocol::constants::error_code::{ER_NET_ERROR_ON_WRITE, ER_NET_WRITE_INTERRUPTED};
use myriad_protocol::constants::status::{SERVER_STATUS_AUTOCOMMIT, SERVER_STATUS_IN_TRANS};
use myriad_protocol::drain::DrainError;
use myriad_protocol::local_infile::InfileError;
use myriad_protocol::{
    ColumnDef, ColumnDefinition, EncodedRows, ErrorInfo, OkInfo, Prepared, ResultSink,
    ServerHandler, SessionHandler, SessionRequest,
};
use myriad_sql::{Column, Engine, QueryResult, RowSink, Session, SessionInfo, SqlError, Value};
use myriad_types::errors::{ER_NET_READ_ERROR, ER_UNKNOWN_ERROR};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The server-wide handler.
pub struct MyriadServer {
    pub engine: Arc<Engine>,
    version: String,
}

impl MyriadServer {
    pub fn new(engine: Arc<Engine>) -> MyriadServer {
        let version = match engine.global_variable("version") {
            Some(Value::Bytes(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            _ => format!("8.0.36-myriad-{}", env!("CARGO_PKG_VERSION")),
        };
        MyriadServer { engine, version }
    }
}

/// Route the engine's long waits through `blocking` (see the module documentation),
/// and let statements that left the workers run at a lower CPU priority where the process
/// may raise it back afterwards.
pub fn install_long_wait_hook() {
    myriad_cache::long_wait::set_hook(|wait| blocking(wait));
    if priority::can_restore() {
        myriad_sql::interrupt::set_priority_hook(priority::lower);
    } else {
        tracing::info!(
            "long statements keep the network threads' CPU priority (raising a thread's priority back needs CAP_SYS_NICE or RLIMIT_NICE)"
        );
    }
}

/// CPU priority of the threads that run long statements (see the module documentation).
mod priority {
    use std::sync::OnceLock;

    /// How much nicer than the network workers a long statement's thread runs: at +10 the
    /// kernel's weights are 1024 against 110, so a worker woken by a packet gets the core
    /// about ten times as readily as a long statement keeps it.
    const LONG_STATEMENT_NICE: i32 = 10;

    /// The nice value threads start with (the process's).
    static BASE_NICE: OnceLock<i32> = OnceLock::new();

    fn thread_id() -> libc::id_t {
        // Safety: gettid takes no arguments and cannot fail.
        unsafe { libc::syscall(libc::SYS_gettid) as libc::id_t }
    }

    fn set_nice(nice: i32) -> bool {
        // Safety: setpriority on this thread's own id (Linux applies PRIO_PROCESS with a
        // thread id to that one thread).
        unsafe { libc::setpriority(libc::PRIO_PROCESS, thread_id(), nice) == 0 }
    }

    /// Whether a thread may lower its nice value again after raising it (privileged, or
    /// RLIMIT_NICE allows it): tried once on a scratch thread.
    pub fn can_restore() -> bool {
        std::thread::spawn(|| {
            // Safety: getpriority on this thread's own id; errno is reset first, as a
            // return of -1 is a valid nice value.
            let base = unsafe {
                *libc::__errno_location() = 0;
                let nice = libc::getpriority(libc::PRIO_PROCESS, thread_id());
                (*libc::__errno_location() == 0).then_some(nice)
            };
            let Some(base) = base else {
                return false;
            };
            let ok = set_nice(base + 1) && set_nice(base);
            if ok {
                let _ = BASE_NICE.set(base);
            }
            ok
        })
        .join()
        .unwrap_or(false)
    }

    /// The priority hook: `true` lowers this thread's priority, `false` restores it.
    pub fn lower(lowered: bool) {
        let base = BASE_NICE.get().copied().unwrap_or(0);
        let nice = if lowered {
            base + LONG_STATEMENT_NICE
        } else {
            base
        };
        if !set_nice(nice) {
            tracing::debug!(nice, "could not change a statement thread's priority");
        }
    }
}

fn blocking<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// Whether the client at the other end of socket `fd` is still connected: one
/// non-blocking poll. A hang-up, a reset or a half-close (the client shut its side, which
/// a client waiting for an answer never does) counts as gone.
///
/// `fd` is the connection's socket, owned by the connection's task; the probe is asked
/// only by a statement of that connection, which runs inside that task, so the socket is
/// open for the whole call.
fn peer_connected(fd: i32) -> bool {
    let mut poll_fd = libc::pollfd {
        fd,
        events: libc::POLLRDHUP,
        revents: 0,
    };
    // Safety: one valid pollfd, a count of one and a zero timeout; `fd` is open (see above).
    let ready = unsafe { libc::poll(&mut poll_fd, 1, 0) };
    ready <= 0 || poll_fd.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) == 0
}

pub fn error_info(err: &SqlError) -> ErrorInfo {
    ErrorInfo {
        code: err.code,
        sqlstate: err.sqlstate,
        message: err.message.clone(),
    }
}

pub fn column_def(column: &Column) -> ColumnDef<'_> {
    ColumnDef {
        schema: &column.schema,
        table: &column.table,
        org_table: &column.org_table,
        name: &column.name,
        org_name: &column.org_name,
        charset: column.charset,
        length: column.length,
        column_type: column.column_type as u8,
        flags: column.flags,
        decimals: column.decimals,
    }
}

fn column_definition(column: &Column) -> ColumnDefinition {
    ColumnDefinition {
        schema: column.schema.to_string(),
        table: column.table.to_string(),
        org_table: column.org_table.to_string(),
        name: column.name.clone(),
        org_name: column.org_name.clone(),
        charset: column.charset,
        length: column.length,
        column_type: column.column_type as u8,
        flags: column.flags,
        decimals: column.decimals,
    }
}

impl ServerHandler for MyriadServer {
    type Session = MyriadSession;

    fn server_version(&self) -> String {
        self.version.clone()
    }

    fn account(
        &self,
        user: &str,
        host: &str,
        tls: Option<&myriad_types::tls::TlsInfo>,
    ) -> Option<myriad_types::auth::Credential> {
        self.engine
            .account(user, host)
            .filter(|auth| auth.require.admits(tls))
            .map(|auth| auth.credential)
    }

    fn secure_transport_required(&self) -> bool {
        matches!(
            self.engine.global_variable("require_secure_transport"),
            Some(Value::Int(1) | Value::UInt(1))
        )
    }

    fn tls_handshake(&self, finished: bool) {
        let counters = self.engine.counters();
        let counter = if finished {
            &counters.ssl_finished_accepts
        } else {
            &counters.ssl_accepts
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn open_session(&self, request: &SessionRequest<'_>) -> Result<MyriadSession, ErrorInfo> {
        let info = SessionInfo {
            connection_id: request.connection_id,
            user: request.user.to_string(),
            host: request.host.to_string(),
            database: request.database.map(str::to_string),
            interactive: request.capabilities
                & myriad_protocol::constants::capabilities::CLIENT_INTERACTIVE
                != 0,
            tls: request.tls.cloned(),
            handles_expired_password: request.capabilities
                & myriad_protocol::constants::capabilities::CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS
                != 0,
        };
        let engine = Arc::clone(&self.engine);
        let session = blocking(|| engine.new_session(info)).map_err(|e| error_info(&e))?;
        let closer = request.closer.clone();
        session
            .interrupt()
            .set_close_hook(Box::new(move || closer.close()));
        if let Some(fd) = request.socket_fd {
            session
                .interrupt()
                .set_peer_probe(Box::new(move || peer_connected(fd)));
        }
        Ok(MyriadSession {
            engine: Arc::clone(&self.engine),
            session,
        })
    }

    fn command_started(&self) {
        self.engine
            .counters()
            .threads_running
            .fetch_add(1, Ordering::Relaxed);
    }

    fn command_finished(&self) {
        self.engine
            .counters()
            .threads_running
            .fetch_sub(1, Ordering::Relaxed);
    }

    fn traffic(&self, received: u64, sent: u64) {
        let counters = self.engine.counters();
        counters
            .bytes_received
            .fetch_add(received, Ordering::Relaxed);
        counters.bytes_sent.fetch_add(sent, Ordering::Relaxed);
    }
}

/// The engine's [`RowSink`] for one command: a SELECT that streams writes its column
/// definitions and rows straight into the command's [`ResultSink`], which writes them to the
/// client once they pass its bound and waits for the client to read (back-pressure on the
/// statement). While it waits, a KILL, max_statement_time or the client hanging up ends
/// the statement (`myriad_sql::interrupt::check`, asked between waits).
///
/// A SELECT's sink may also pause its statement (`pausable`, unless its rows go to a
/// cursor): when the client has
/// not made room for the buffered rows, [`RowSink::row_or_pause`] asks the statement to
/// stop there instead of waiting on a thread, and the connection resumes it once the
/// client has read them ([`SessionHandler::resume`]).
struct WireRows<'s, 'a> {
    out: &'s mut ResultSink<'a>,
    pausable: bool,
}

impl RowSink for WireRows<'_, '_> {
    fn begin(&mut self, columns: &Arc<Vec<Column>>) -> Result<(), SqlError> {
        let defs: Vec<ColumnDef<'_>> = columns.iter().map(column_def).collect();
        self.out.begin_rows(&defs);
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        self.out.row(row);
        self.out
            .flush_if_full(&|| myriad_sql::interrupt::check().is_err())
            .map_err(|e| drain_error(e, myriad_sql::interrupt::check().err()))
    }

    fn row_or_pause(&mut self, row: &[Value]) -> Result<bool, SqlError> {
        if !self.can_pause() {
            return self.row(row).map(|()| false);
        }
        self.out.row(row);
        self.out
            .flush_or_pause()
            .map_err(|e| drain_error(e, myriad_sql::interrupt::check().err()))
    }

    fn can_pause(&self) -> bool {
        self.pausable && self.out.can_pause()
    }

    fn local_file(
        &mut self,
        name: &str,
        data: &mut dyn FnMut(&[u8]) -> Result<(), SqlError>,
    ) -> Result<(), SqlError> {
        // The statement's own error travels beside the protocol's message of it.
        let mut refused: Option<SqlError> = None;
        let result = self.out.local_infile(
            name,
            &mut |bytes| {
                data(bytes).map_err(|e| {
                    let message = e.message.clone();
                    refused = Some(e);
                    message
                })
            },
            &|| myriad_sql::interrupt::check().is_err(),
        );
        match result {
            Ok(()) => Ok(()),
            Err(InfileError::Refused) => Err(myriad_sql::row_sink::infile_disabled()),
            Err(InfileError::Data(message)) => {
                Err(refused.unwrap_or_else(|| SqlError::new(ER_UNKNOWN_ERROR, message)))
            }
            Err(InfileError::Write(e)) => Err(drain_error(e, myriad_sql::interrupt::check().err())),
            Err(InfileError::Read(_)) => Err(SqlError::new(
                ER_NET_READ_ERROR,
                "Got an error reading communication packets",
            )),
        }
    }
}

/// The error a statement ends with when writing its rows to the client failed; `stopped`
/// is the reason the stop probe saw, if it still holds.
fn drain_error(err: DrainError, stopped: Option<SqlError>) -> SqlError {
    match err {
        DrainError::Stopped => stopped.unwrap_or_else(|| {
            SqlError::new(
                myriad_sql::interrupt::ER_QUERY_INTERRUPTED,
                "Query execution was interrupted",
            )
        }),
        DrainError::TimedOut => SqlError::new(
            ER_NET_WRITE_INTERRUPTED,
            "Got timeout writing communication packets",
        ),
        DrainError::Io(_) => SqlError::new(
            ER_NET_ERROR_ON_WRITE,
            "Got an error writing communication packets",
        ),
    }
}

/// One connection's session.
pub struct MyriadSession {
    engine: Arc<Engine>,
    session: Session,
}

impl MyriadSession {
    fn write_result(
        &self,
        result: &Result<QueryResult, SqlError>,
        more_results: bool,
        out: &mut ResultSink<'_>,
    ) {
        let status = self.status_flags();
        match result {
            Ok(QueryResult::Ok {
                affected_rows,
                last_insert_id,
                warnings,
                info,
            }) => {
                let ok = OkInfo {
                    affected_rows: *affected_rows,
                    last_insert_id: *last_insert_id,
                    warnings: *warnings,
                    info,
                };
                out.ok(&ok, status, more_results);
            }
            // Its columns and rows went out while it ran.
            Ok(QueryResult::Rows { rows, warnings, .. }) if rows.was_streamed() => {
                out.end_rows(*warnings, status, more_results);
            }
            Ok(
                result @ QueryResult::Rows {
                    columns,
                    rows,
                    warnings,
                },
            ) => {
                // A query cache hit sends the bytes kept by its first send.
                if let Some(encoded) = rows.wire_form::<EncodedRows>() {
                    if out.replay(encoded, *warnings, status, more_results) {
                        return;
                    }
                }
                let record = rows.is_cached();
                if record {
                    out.record_next();
                }
                let defs: Vec<ColumnDef<'_>> = columns.iter().map(column_def).collect();
                out.begin_rows(&defs);
                // Built rows (a sort, a grouping, an index read, a multi-statement text) are
                // written out through the same bounded buffer; KILL stops the sending.
                let control = self.session.interrupt();
                for row in rows.iter() {
                    out.row(row);
                    if let Err(e) = out.flush_if_full(&|| control.error().is_some()) {
                        out.error(&error_info(&drain_error(e, control.error())));
                        return;
                    }
                }
                out.end_rows(*warnings, status, more_results);
                if let Some(encoded) = record.then(|| out.take_recorded()).flatten() {
                    result.set_wire_form(encoded.byte_len(), Box::new(encoded));
                }
            }
            Err(err) => out.error(&error_info(err)),
        }
    }
}

impl SessionHandler for MyriadSession {
    fn status_flags(&self) -> u16 {
        let mut flags = 0;
        if self.session.autocommit() {
            flags |= SERVER_STATUS_AUTOCOMMIT;
        }
        if self.session.in_transaction() {
            flags |= SERVER_STATUS_IN_TRANS;
        }
        flags
    }

    fn query(&mut self, sql: &str, multi_statements: bool, out: &mut ResultSink<'_>) {
        let mut wire = WireRows {
            out: &mut *out,
            pausable: true,
        };
        let results = if Session::text_runs_inline(sql) {
            self.session
                .execute_streaming(sql, multi_statements, &mut wire)
        } else {
            blocking(|| {
                self.session
                    .execute_streaming(sql, multi_statements, &mut wire)
            })
        };
        if self.session.has_paused_rows() {
            // Its rows go on in `resume`; the result set stays open.
            return;
        }
        let count = results.len();
        for (index, result) in results.iter().enumerate() {
            self.write_result(result, index + 1 < count, out);
        }
    }

    fn paused(&self) -> bool {
        self.session.has_paused_rows()
    }

    fn resume(&mut self, out: &mut ResultSink<'_>) {
        let mut wire = WireRows {
            out: &mut *out,
            pausable: true,
        };
        if let Some(result) = self.session.resume_rows(&mut wire) {
            self.write_result(&result, false, out);
        }
    }

    fn stop_requested(&self) -> bool {
        self.session.paused_rows_must_stop()
    }

    fn init_db(&mut self, database: &str) -> Result<(), ErrorInfo> {
        blocking(|| self.session.use_database(database)).map_err(|e| error_info(&e))
    }

    fn field_list(
        &mut self,
        table: &str,
        _wildcard: &str,
    ) -> Result<Vec<ColumnDefinition>, ErrorInfo> {
        let columns = blocking(|| self.session.field_list(table)).map_err(|e| error_info(&e))?;
        Ok(columns.iter().map(column_definition).collect())
    }

    fn statistics(&mut self) -> String {
        self.engine.statistics()
    }

    fn shutdown(&mut self) -> Result<(), ErrorInfo> {
        // The statement carries the privilege check and the shutdown hook.
        let results = blocking(|| self.session.execute("SHUTDOWN", false));
        match results.into_iter().next() {
            Some(Err(err)) => Err(error_info(&err)),
            _ => Ok(()),
        }
    }

    fn prepare(&mut self, sql: &str) -> Result<Prepared, ErrorInfo> {
        let info = blocking(|| self.session.prepare(sql)).map_err(|e| error_info(&e))?;
        Ok(Prepared {
            statement_id: info.statement_id,
            param_count: info.param_count,
            columns: info.columns.iter().map(column_definition).collect(),
        })
    }

    fn execute(&mut self, statement_id: u32, params: Vec<Value>, out: &mut ResultSink<'_>) {
        let mut wire = WireRows {
            out: &mut *out,
            pausable: true,
        };
        let result = if self.session.prepared_runs_inline(statement_id) {
            self.session
                .execute_prepared_streaming(statement_id, &params, &mut wire)
        } else {
            blocking(|| {
                self.session
                    .execute_prepared_streaming(statement_id, &params, &mut wire)
            })
        };
        if self.session.has_paused_rows() {
            // Its rows go on in `resume`; the result set stays open.
            return;
        }
        self.write_result(&result, false, out);
    }

    fn close_prepared_statement(&mut self, statement_id: u32) {
        self.session.close_prepared(statement_id);
    }

    fn reset_connection(&mut self) -> Result<(), ErrorInfo> {
        blocking(|| self.session.reset());
        Ok(())
    }

    fn idle_timeout(&self) -> Option<std::time::Duration> {
        self.session
            .session_wait_timeout()
            .map(std::time::Duration::from_secs)
    }

    fn change_user(
        &mut self,
        user: &str,
        host: &str,
        database: Option<&str>,
    ) -> Result<(), ErrorInfo> {
        blocking(|| self.session.change_user(user, host, database)).map_err(|e| error_info(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use myriad_sql::ColumnType;
    use myriad_types::errors::ER_UNKNOWN_SYSTEM_VARIABLE;

    #[test]
    fn columns_keep_type_codes_and_flags() {
        let column = Column {
            schema: "db".into(),
            table: "t".into(),
            org_table: "t".into(),
            name: "c".into(),
            org_name: "c".into(),
            charset: 63,
            length: 20,
            column_type: ColumnType::LongLong,
            flags: 32,
            decimals: 0,
        };
        let def = column_def(&column);
        assert_eq!(
            (def.column_type, def.flags, def.charset, def.name),
            (8, 32, 63, "c")
        );
        assert_eq!(column_definition(&column).as_def(), def);
        let err = error_info(&SqlError::new(
            ER_UNKNOWN_SYSTEM_VARIABLE,
            "Unknown system variable 'x'",
        ));
        assert_eq!((err.code, &err.sqlstate), (1193, b"HY000"));
    }
}
