//! Responses: OK, EOF and ERR packets, column definitions, and [`ResultSink`], through which
//! a session handler writes the results of one command.
//!
//! A result set on the wire:
//!
//! ```text
//! column count (lenenc) | column definition x N | [EOF] | row x M | EOF, or OK with 0xFE
//! ```
//!
//! The EOF after the column definitions disappears and the final EOF becomes an OK packet
//! with an 0xFE header when CLIENT_DEPRECATE_EOF was negotiated. Rows are text (every value
//! a length-encoded string, 0xFB for NULL) for COM_QUERY and binary (a NULL bitmap with an
//! offset of 2, then each value in its type's fixed or length-encoded form) for
//! COM_STMT_EXECUTE. Every result but the last of a multi-statement query carries
//! SERVER_MORE_RESULTS_EXISTS.

use crate::buf::{put_lenenc_bytes, put_lenenc_int};
use crate::constants::capabilities::CLIENT_DEPRECATE_EOF;
use crate::constants::column_type;
use crate::constants::status::*;
use crate::drain::{Drain, DrainError, FLUSH_BYTES};
use crate::local_infile::{InfileError, LocalInfile};
use crate::packet::FrameBuffer;
use crate::value::{put_binary_value, put_text_value};
use myriad_types::Value;

/// An error as an ERR packet carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    pub code: u16,
    pub sqlstate: [u8; 5],
    pub message: String,
}

impl ErrorInfo {
    /// An error from the table of codes with its message.
    pub fn new(code: myriad_types::ErrorCode, message: impl Into<String>) -> ErrorInfo {
        ErrorInfo {
            code: code.code,
            sqlstate: code.sqlstate_bytes(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ErrorInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code,
            String::from_utf8_lossy(&self.sqlstate),
            self.message
        )
    }
}

/// What an OK packet reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OkInfo<'a> {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub warnings: u16,
    pub info: &'a str,
}

/// One column's metadata, borrowed from the engine's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnDef<'a> {
    pub schema: &'a str,
    pub table: &'a str,
    pub org_table: &'a str,
    pub name: &'a str,
    pub org_name: &'a str,
    pub charset: u16,
    pub length: u32,
    pub column_type: u8,
    pub flags: u16,
    pub decimals: u8,
}

/// One column's metadata, owned (kept for prepared statements and field lists).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDefinition {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    pub charset: u16,
    pub length: u32,
    pub column_type: u8,
    pub flags: u16,
    pub decimals: u8,
}

impl ColumnDefinition {
    pub fn as_def(&self) -> ColumnDef<'_> {
        ColumnDef {
            schema: &self.schema,
            table: &self.table,
            org_table: &self.org_table,
            name: &self.name,
            org_name: &self.org_name,
            charset: self.charset,
            length: self.length,
            column_type: self.column_type,
            flags: self.flags,
            decimals: self.decimals,
        }
    }
}

pub(crate) fn put_ok(frames: &mut FrameBuffer, header: u8, ok: &OkInfo<'_>, status: u16) {
    let start = frames.start_packet();
    let out = frames.payload();
    out.push(header);
    put_lenenc_int(out, ok.affected_rows);
    put_lenenc_int(out, ok.last_insert_id);
    out.extend_from_slice(&status.to_le_bytes());
    out.extend_from_slice(&ok.warnings.to_le_bytes());
    // The info string is length-encoded, and left out when empty, as MariaDB's and
    // MySQL's net_send_ok write it whatever the capabilities. libmariadb
    // (ma_read_ok_packet) always reads a length prefix here: a bare "Records: 1000 ..."
    // made it take 'R' (82) as a length past the packet's end and fail with 2027.
    if !ok.info.is_empty() {
        put_lenenc_bytes(out, ok.info.as_bytes());
    }
    frames.finish_packet(start);
}

pub(crate) fn put_eof(frames: &mut FrameBuffer, warnings: u16, status: u16) {
    let start = frames.start_packet();
    let out = frames.payload();
    out.push(0xFE);
    out.extend_from_slice(&warnings.to_le_bytes());
    out.extend_from_slice(&status.to_le_bytes());
    frames.finish_packet(start);
}

/// The end of a result set: EOF, or OK with an 0xFE header under CLIENT_DEPRECATE_EOF.
pub(crate) fn put_end_of_rows(
    frames: &mut FrameBuffer,
    capabilities: u32,
    warnings: u16,
    status: u16,
) {
    if capabilities & CLIENT_DEPRECATE_EOF != 0 {
        put_ok(
            frames,
            0xFE,
            &OkInfo {
                warnings,
                ..OkInfo::default()
            },
            status,
        );
    } else {
        put_eof(frames, warnings, status);
    }
}

/// An ERR packet. Messages are cut at 512 bytes like MySQL's (MYSQL_ERRMSG_SIZE).
pub fn put_err(frames: &mut FrameBuffer, err: &ErrorInfo) {
    let start = frames.start_packet();
    let out = frames.payload();
    out.push(0xFF);
    out.extend_from_slice(&err.code.to_le_bytes());
    out.push(b'#');
    out.extend_from_slice(&err.sqlstate);
    let mut message = err.message.as_bytes();
    if message.len() > 512 {
        let mut cut = 512;
        while !err.message.is_char_boundary(cut) {
            cut -= 1;
        }
        message = &message[..cut];
    }
    out.extend_from_slice(message);
    frames.finish_packet(start);
}

/// A column definition packet; `default_value` only for COM_FIELD_LIST.
pub(crate) fn put_column(frames: &mut FrameBuffer, column: &ColumnDef<'_>, field_list: bool) {
    let start = frames.start_packet();
    let out = frames.payload();
    put_lenenc_bytes(out, b"def");
    put_lenenc_bytes(out, column.schema.as_bytes());
    put_lenenc_bytes(out, column.table.as_bytes());
    put_lenenc_bytes(out, column.org_table.as_bytes());
    put_lenenc_bytes(out, column.name.as_bytes());
    put_lenenc_bytes(out, column.org_name.as_bytes());
    out.push(0x0C);
    out.extend_from_slice(&column.charset.to_le_bytes());
    out.extend_from_slice(&column.length.to_le_bytes());
    out.push(column.column_type);
    out.extend_from_slice(&column.flags.to_le_bytes());
    out.push(column.decimals);
    out.extend_from_slice(&[0, 0]);
    if field_list {
        // No default value known: an empty length-encoded string is what MySQL sends
        // for columns without a default, and 0xFB (NULL) would do as well.
        out.push(0xFB);
    }
    frames.finish_packet(start);
}

/// Row encoding of a result set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFormat {
    Text,
    Binary,
}

/// A result set's packets as a sink wrote them (column count, column definitions, rows),
/// kept so that the same result can be sent again without encoding its values: the query
/// cache's hits ([`ResultSink::record_next`], [`ResultSink::replay`]). The packets that
/// depend on the connection (the EOF after the definitions, the end of rows) are not in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedRows {
    format: RowFormat,
    columns: usize,
    /// Each packet's payload, preceded by its length as 4 little-endian bytes.
    packets: Vec<u8>,
}

impl EncodedRows {
    /// Bytes held.
    pub fn byte_len(&self) -> usize {
        self.packets.len()
    }

    fn push(&mut self, payload: &[u8]) {
        self.packets
            .extend_from_slice(&(payload.len() as u32).to_le_bytes());
        self.packets.extend_from_slice(payload);
    }

    fn payloads(&self) -> impl Iterator<Item = &[u8]> {
        let mut rest = &self.packets[..];
        std::iter::from_fn(move || {
            let (len, tail) = rest.split_first_chunk::<4>()?;
            let (payload, tail) = tail.split_at(u32::from_le_bytes(*len) as usize);
            rest = tail;
            Some(payload)
        })
    }
}

/// Binary rows withheld for COM_STMT_FETCH (a cursor opened by COM_STMT_EXECUTE).
#[derive(Debug, Default)]
pub struct CursorRows {
    /// Encoded binary-row payloads, in order.
    pub rows: std::collections::VecDeque<Vec<u8>>,
    pub warnings: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SinkState {
    /// Ready for the next result.
    Between,
    /// Column definitions sent; rows may follow.
    InRows,
    /// An error was sent; nothing may follow.
    Failed,
}

/// Where a handler writes one command's results, in order.
///
/// Each result is an [`ResultSink::ok`], an [`ResultSink::error`] (which ends the
/// command), or [`ResultSink::begin_rows`], [`ResultSink::row`] x N,
/// [`ResultSink::end_rows`]. `more_results` says another result follows; `status` carries
/// the session's SERVER_STATUS_IN_TRANS and SERVER_STATUS_AUTOCOMMIT bits.
pub struct ResultSink<'a> {
    frames: &'a mut FrameBuffer,
    capabilities: u32,
    format: RowFormat,
    state: SinkState,
    results: usize,
    /// The binary row encoder's view of each column: type code and decimals.
    column_types: Vec<(u8, u8)>,
    /// Some when COM_STMT_EXECUTE asked for a cursor: rows go here instead of the wire.
    cursor: Option<CursorRows>,
    cursor_requested: bool,
    scratch: Vec<u8>,
    /// The next result set is recorded ([`ResultSink::record_next`]).
    record_requested: bool,
    /// The result set being recorded; dropped if a packet of it had to be split.
    recording: Option<EncodedRows>,
    recorded: Option<EncodedRows>,
    /// The session's status when the command started: for the packets the handler does
    /// not give a status to (the EOF after column definitions, answers the sink makes up).
    initial_status: u16,
    /// Writes the buffer out while rows are produced ([`ResultSink::flush_if_full`]); None
    /// without one, or once the client was lost.
    drain: Option<&'a mut dyn Drain>,
    /// A drain failed (socket error, net_write_timeout): the connection must end.
    lost: bool,
    /// Asks the client for a file (LOAD DATA LOCAL INFILE); None when it may not.
    infile: Option<&'a mut dyn LocalInfile>,
}

impl<'a> ResultSink<'a> {
    pub(crate) fn new(
        frames: &'a mut FrameBuffer,
        capabilities: u32,
        format: RowFormat,
        initial_status: u16,
    ) -> ResultSink<'a> {
        ResultSink {
            frames,
            capabilities,
            format,
            state: SinkState::Between,
            results: 0,
            column_types: Vec::new(),
            cursor: None,
            cursor_requested: false,
            scratch: Vec::new(),
            record_requested: false,
            recording: None,
            recorded: None,
            initial_status,
            drain: None,
            lost: false,
            infile: None,
        }
    }

    /// Let the statement ask the client for a file ([`crate::local_infile`]).
    pub(crate) fn with_infile(mut self, infile: &'a mut dyn LocalInfile) -> Self {
        self.infile = Some(infile);
        self
    }

    /// LOAD DATA LOCAL INFILE: ask the client for `name`, handing its bytes to `data`
    /// (see [`crate::local_infile`]). Refused when the client did not allow it; after a
    /// read or write failure the connection ends after the command.
    pub fn local_infile(
        &mut self,
        name: &str,
        data: &mut dyn FnMut(&[u8]) -> Result<(), String>,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), InfileError> {
        let (Some(infile), Some(drain)) = (self.infile.as_mut(), self.drain.as_mut()) else {
            return Err(InfileError::Refused);
        };
        let result = infile.request(self.frames, &mut **drain, name, data, stop);
        if matches!(
            result,
            Err(InfileError::Read(_) | InfileError::Write(DrainError::Io(_) | DrainError::TimedOut))
        ) {
            self.drain = None;
            self.infile = None;
            self.lost = true;
        }
        result
    }

    /// Let the sink write to the client before the command ends ([`crate::drain`]).
    pub(crate) fn with_drain(mut self, drain: &'a mut dyn Drain) -> Self {
        self.drain = Some(drain);
        self
    }

    /// Once more than [`FLUSH_BYTES`] are buffered, write them to the client and wait for
    /// it to take them, asking `stop` between waits (see [`crate::drain`]). Rows for a
    /// cursor stay with the cursor. After an I/O error or net_write_timeout the sink
    /// writes nothing more out and the connection ends after the command.
    pub fn flush_if_full(&mut self, stop: &dyn Fn() -> bool) -> Result<(), DrainError> {
        if self.frames.len() <= FLUSH_BYTES || self.cursor.is_some() {
            return Ok(());
        }
        let Some(drain) = self.drain.as_mut() else {
            return Ok(());
        };
        let result = drain.drain(self.frames, stop);
        if matches!(result, Err(DrainError::Io(_) | DrainError::TimedOut)) {
            self.drain = None;
            self.lost = true;
        }
        result
    }

    /// [`ResultSink::flush_if_full`] without waiting: once more than [`FLUSH_BYTES`] are
    /// buffered, write what the socket takes now; true when the client left some unread,
    /// and the statement may pause until it reads them (see
    /// [`crate::SessionHandler::resume`]). Without a drain, or for a cursor, never true.
    pub fn flush_or_pause(&mut self) -> Result<bool, DrainError> {
        if self.frames.len() <= FLUSH_BYTES || self.cursor.is_some() {
            return Ok(false);
        }
        let Some(drain) = self.drain.as_mut() else {
            return Ok(false);
        };
        match drain.try_drain(self.frames) {
            Ok(all_written) => Ok(!all_written),
            Err(e) => {
                self.drain = None;
                self.lost = true;
                Err(e)
            }
        }
    }

    /// Whether the statement writing into this sink may pause and go on in another sink
    /// ([`crate::SessionHandler::resume`]): not when its rows go to a cursor.
    pub fn can_pause(&self) -> bool {
        self.cursor.is_none() && !self.cursor_requested
    }

    /// The open result set's view of its columns, kept while its statement pauses
    /// ([`crate::SessionHandler::resume`]) for the sink it goes on in.
    pub(crate) fn take_columns(&mut self) -> Vec<(u8, u8)> {
        std::mem::take(&mut self.column_types)
    }

    /// The sink of a result set that paused, with the columns [`ResultSink::take_columns`]
    /// gave: its column definitions went out, its rows go on.
    pub(crate) fn resumed(mut self, column_types: Vec<(u8, u8)>) -> Self {
        self.state = SinkState::InRows;
        self.column_types = column_types;
        self
    }

    /// Whether a write to the client failed during the command (the connection ends).
    pub(crate) fn client_lost(&self) -> bool {
        self.lost
    }

    pub(crate) fn with_cursor(mut self) -> Self {
        self.cursor_requested = true;
        self
    }

    pub fn format(&self) -> RowFormat {
        self.format
    }

    /// How many results have been written completely (an error counts).
    pub fn results_written(&self) -> usize {
        self.results
    }

    fn flags(status: u16, more_results: bool) -> u16 {
        if more_results {
            status | SERVER_MORE_RESULTS_EXISTS
        } else {
            status & !SERVER_MORE_RESULTS_EXISTS
        }
    }

    fn ready(&mut self) -> bool {
        match self.state {
            SinkState::Between => true,
            SinkState::InRows => {
                // A handler that forgot end_rows: close the result set so the client is
                // not left waiting.
                tracing::error!("result set not ended before the next result");
                self.end_rows(0, self.initial_status, false);
                false
            }
            SinkState::Failed => false,
        }
    }

    pub fn ok(&mut self, ok: &OkInfo<'_>, status: u16, more_results: bool) {
        if self.ready() {
            put_ok(self.frames, 0x00, ok, Self::flags(status, more_results));
            self.results += 1;
        }
    }

    /// An error ends the command: later writes are ignored.
    pub fn error(&mut self, err: &ErrorInfo) {
        if self.state == SinkState::InRows {
            // MySQL can fail in the middle of a result set; the ERR packet then replaces
            // the terminating EOF, which clients accept.
            self.column_types.clear();
        } else if self.state == SinkState::Failed {
            return;
        }
        self.recording = None;
        put_err(self.frames, err);
        self.results += 1;
        self.state = SinkState::Failed;
    }

    pub fn begin_rows(&mut self, columns: &[ColumnDef<'_>]) {
        let record = std::mem::take(&mut self.record_requested);
        if !self.ready() {
            return;
        }
        if record {
            self.recording = Some(EncodedRows {
                format: self.format,
                columns: columns.len(),
                packets: Vec::new(),
            });
        }
        let at = self.frames.len();
        let start = self.frames.start_packet();
        put_lenenc_int(self.frames.payload(), columns.len() as u64);
        self.frames.finish_packet(start);
        self.record_framed(at);
        self.column_types.clear();
        for column in columns {
            let at = self.frames.len();
            put_column(self.frames, column, false);
            self.record_framed(at);
            self.column_types
                .push((column.column_type, column.decimals));
        }
        self.end_of_columns();
    }

    /// The EOF after the column definitions (unless deprecated), or the cursor that takes
    /// the rows instead.
    fn end_of_columns(&mut self) {
        let deprecate_eof = self.capabilities & CLIENT_DEPRECATE_EOF != 0;
        if self.cursor_requested && self.format == RowFormat::Binary {
            self.cursor = Some(CursorRows::default());
        } else if !deprecate_eof {
            put_eof(self.frames, 0, self.initial_status);
        }
        self.state = SinkState::InRows;
    }

    /// One row; missing values are sent as NULL and extra values are ignored, so a short
    /// or long row cannot desynchronise the client.
    pub fn row<'v, I: IntoIterator<Item = &'v Value>>(&mut self, values: I) {
        if self.state != SinkState::InRows {
            return;
        }
        let column_count = self.column_types.len();
        match self.format {
            RowFormat::Text => {
                let at = self.frames.len();
                let start = self.frames.start_packet();
                let out = self.frames.payload();
                let mut written = 0;
                for (value, &(code, decimals)) in values.into_iter().zip(self.column_types.iter()) {
                    put_text_value(out, value, code, decimals);
                    written += 1;
                }
                for _ in written..column_count {
                    out.push(0xFB);
                }
                self.frames.finish_packet(start);
                self.record_framed(at);
            }
            RowFormat::Binary => {
                let mut row = std::mem::take(&mut self.scratch);
                row.clear();
                row.push(0x00);
                let bitmap_at = row.len();
                let bitmap_len = (column_count + 7 + 2) / 8;
                row.resize(bitmap_at + bitmap_len, 0);
                let mut written = 0;
                for (index, (value, &(code, decimals))) in
                    values.into_iter().zip(self.column_types.iter()).enumerate()
                {
                    written += 1;
                    if value.is_null() || code == column_type::NULL {
                        let bit = index + 2;
                        row[bitmap_at + bit / 8] |= 1 << (bit % 8);
                    } else {
                        put_binary_value(&mut row, code, decimals, value);
                    }
                }
                for index in written..column_count {
                    let bit = index + 2;
                    row[bitmap_at + bit / 8] |= 1 << (bit % 8);
                }
                if let Some(recording) = self.recording.as_mut() {
                    recording.push(&row);
                }
                self.binary_row(&row);
                self.scratch = row;
            }
        }
    }

    fn binary_row(&mut self, payload: &[u8]) {
        if let Some(cursor) = self.cursor.as_mut() {
            cursor.rows.push_back(payload.to_vec());
        } else {
            self.frames.packet(payload);
        }
    }

    /// Add the packet framed since `at` to the recording, if one is under way.
    fn record_framed(&mut self, at: usize) {
        if let Some(recording) = self.recording.as_mut() {
            match self.frames.payload_since(at) {
                Some(payload) => recording.push(payload),
                None => self.recording = None,
            }
        }
    }

    /// Record the next result set as it is written; [`ResultSink::take_recorded`] gives it
    /// once it has ended.
    pub fn record_next(&mut self) {
        self.record_requested = true;
    }

    /// The result set recorded since [`ResultSink::record_next`], if it was written whole.
    pub fn take_recorded(&mut self) -> Option<EncodedRows> {
        self.recorded.take()
    }

    /// Write a recorded result set again, ended with `warnings` and `status`. False, with
    /// nothing written, when it was recorded in the other row format.
    pub fn replay(
        &mut self,
        rows: &EncodedRows,
        warnings: u16,
        status: u16,
        more_results: bool,
    ) -> bool {
        if rows.format != self.format {
            return false;
        }
        if !self.ready() {
            return true;
        }
        let mut payloads = rows.payloads();
        for payload in payloads.by_ref().take(1 + rows.columns) {
            self.frames.packet(payload);
        }
        self.column_types.clear();
        self.end_of_columns();
        for payload in payloads {
            match self.format {
                RowFormat::Text => self.frames.packet(payload),
                RowFormat::Binary => self.binary_row(payload),
            }
        }
        self.end_rows(warnings, status, more_results);
        true
    }

    pub fn end_rows(&mut self, warnings: u16, status: u16, more_results: bool) {
        if self.state != SinkState::InRows {
            return;
        }
        self.state = SinkState::Between;
        self.results += 1;
        self.recorded = self.recording.take();
        if let Some(cursor) = self.cursor.as_mut() {
            // The rows wait for COM_STMT_FETCH; the client learns of the cursor from
            // this EOF. MySQL sends it even under CLIENT_DEPRECATE_EOF.
            cursor.warnings = warnings;
            put_eof(
                self.frames,
                warnings,
                Self::flags(status | SERVER_STATUS_CURSOR_EXISTS, more_results),
            );
        } else {
            put_end_of_rows(
                self.frames,
                self.capabilities,
                warnings,
                Self::flags(status, more_results),
            );
        }
    }

    pub(crate) fn take_cursor(&mut self) -> Option<CursorRows> {
        self.cursor.take()
    }

    pub(crate) fn initial_status(&self) -> u16 {
        self.initial_status
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.state != SinkState::InRows
    }
}

#[cfg(test)]
mod tests;
