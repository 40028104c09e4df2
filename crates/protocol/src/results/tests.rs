//! Unit tests of the result packets and the sink.

use super::*;
use crate::buf::Reader;
use myriad_types::errors::ER_QUERY_INTERRUPTED;

/// The payload of the single packet in `frames`.
fn single_payload(frames: &mut FrameBuffer) -> Vec<u8> {
    let bytes = frames.payload().clone();
    let len = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], 0]) as usize;
    assert_eq!(bytes.len(), 4 + len, "exactly one packet");
    bytes[4..].to_vec()
}

/// Decode an OK payload the way libmariadb's ma_read_ok_packet does: the info
/// string, when anything follows the warnings, is length-encoded and must end
/// inside the packet.
fn read_ok_like_libmariadb(payload: &[u8]) -> (u8, u64, u64, u16, u16, Vec<u8>) {
    let mut r = Reader::new(payload);
    let header = r.u8("header").unwrap();
    let affected = r.lenenc_int("affected rows").unwrap();
    let insert_id = r.lenenc_int("insert id").unwrap();
    let status = r.u16("status").unwrap();
    let warnings = r.u16("warnings").unwrap();
    let info = if r.is_empty() {
        Vec::new()
    } else {
        r.lenenc_bytes("info")
            .expect("info ends inside the packet")
            .to_vec()
    };
    assert!(r.is_empty(), "nothing after the info string");
    (header, affected, insert_id, status, warnings, info)
}

#[test]
fn ok_info_string_is_length_encoded() {
    // What a multi-row INSERT reports (sysbench's bulk load of 1000 rows).
    let info = "Records: 1000  Duplicates: 0  Warnings: 0";
    let mut frames = FrameBuffer::default();
    let ok = OkInfo {
        affected_rows: 1000,
        last_insert_id: 1,
        warnings: 0,
        info,
    };
    put_ok(&mut frames, 0x00, &ok, SERVER_STATUS_AUTOCOMMIT);
    let payload = single_payload(&mut frames);
    // Byte for byte what MariaDB 10.11 sends for the same statement.
    let mut expected = vec![0x00, 0xFC, 0xE8, 0x03, 0x01, 0x02, 0x00, 0x00, 0x00];
    expected.push(info.len() as u8);
    expected.extend_from_slice(info.as_bytes());
    assert_eq!(payload, expected);
    assert_eq!(
        read_ok_like_libmariadb(&payload),
        (
            0x00,
            1000,
            1,
            SERVER_STATUS_AUTOCOMMIT,
            0,
            info.as_bytes().to_vec()
        )
    );
}

#[test]
fn ok_without_info_ends_after_warnings() {
    let mut frames = FrameBuffer::default();
    put_ok(
        &mut frames,
        0x00,
        &OkInfo::default(),
        SERVER_STATUS_AUTOCOMMIT,
    );
    assert_eq!(
        single_payload(&mut frames),
        vec![0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]
    );
}

#[test]
fn ok_with_long_info_round_trips() {
    // Longer than 250 bytes: the length needs the 0xFC form.
    let info = "x".repeat(300);
    let mut frames = FrameBuffer::default();
    let ok = OkInfo {
        affected_rows: 3,
        last_insert_id: 0,
        warnings: 2,
        info: &info,
    };
    put_ok(&mut frames, 0x00, &ok, 0);
    let payload = single_payload(&mut frames);
    assert_eq!(
        read_ok_like_libmariadb(&payload),
        (0x00, 3, 0, 0, 2, info.into_bytes())
    );
}

#[test]
fn deprecate_eof_end_of_rows_has_no_info() {
    let mut frames = FrameBuffer::default();
    put_end_of_rows(
        &mut frames,
        CLIENT_DEPRECATE_EOF,
        1,
        SERVER_STATUS_AUTOCOMMIT,
    );
    let payload = single_payload(&mut frames);
    assert_eq!(
        read_ok_like_libmariadb(&payload),
        (0xFE, 0, 0, SERVER_STATUS_AUTOCOMMIT, 1, Vec::new())
    );
}

fn column(name: &'static str, column_type: u8) -> ColumnDef<'static> {
    ColumnDef {
        schema: "db",
        table: "t",
        org_table: "t",
        name,
        org_name: name,
        charset: 45,
        length: 20,
        column_type,
        flags: 0,
        decimals: 0,
    }
}

/// Write one result set directly, or (with `recorded`) by replaying it; the bytes
/// framed and the cursor's rows.
fn write_rows(
    format: RowFormat,
    capabilities: u32,
    cursor: bool,
    recorded: Option<&EncodedRows>,
) -> (Vec<u8>, Option<Vec<Vec<u8>>>, Option<EncodedRows>) {
    let long = vec![b'x'; 300];
    let rows: Vec<Vec<Value>> = vec![
        vec![Value::Int(-7), Value::Bytes(b"abc".to_vec())],
        vec![Value::Null, Value::Bytes(long)],
        vec![Value::UInt(u64::MAX)],
    ];
    let columns = [
        column("a", column_type::LONGLONG),
        column("b", column_type::VAR_STRING),
    ];
    let mut frames = FrameBuffer::default();
    let mut sink = ResultSink::new(&mut frames, capabilities, format, SERVER_STATUS_AUTOCOMMIT);
    if cursor {
        sink = sink.with_cursor();
    }
    let status = SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS;
    match recorded {
        Some(recorded) => assert!(sink.replay(recorded, 2, status, false)),
        None => {
            sink.record_next();
            sink.begin_rows(&columns);
            for row in &rows {
                sink.row(row);
            }
            sink.end_rows(2, status, false);
        }
    }
    let taken = sink.take_recorded();
    let cursor_rows = sink
        .take_cursor()
        .map(|c| c.rows.into_iter().collect::<Vec<_>>());
    (frames.payload().clone(), cursor_rows, taken)
}

#[test]
fn a_replayed_result_set_is_byte_for_byte_the_written_one() {
    for format in [RowFormat::Text, RowFormat::Binary] {
        let (_, _, recorded) = write_rows(format, 0, false, None);
        let recorded = recorded.expect("recorded");
        for capabilities in [0, CLIENT_DEPRECATE_EOF] {
            let cursors: &[bool] = match format {
                RowFormat::Text => &[false],
                RowFormat::Binary => &[false, true],
            };
            for &cursor in cursors {
                let direct = write_rows(format, capabilities, cursor, None);
                let replayed = write_rows(format, capabilities, cursor, Some(&recorded));
                assert_eq!(
                    (&direct.0, &direct.1),
                    (&replayed.0, &replayed.1),
                    "{format:?} capabilities {capabilities:#x} cursor {cursor}"
                );
            }
        }
    }
}

#[test]
fn a_result_set_is_replayed_only_in_its_own_format() {
    let (_, _, text) = write_rows(RowFormat::Text, 0, false, None);
    let mut frames = FrameBuffer::default();
    let mut sink = ResultSink::new(&mut frames, 0, RowFormat::Binary, 0);
    assert!(!sink.replay(&text.unwrap(), 0, 0, false));
    assert!(frames.is_empty());
}

#[test]
fn a_result_set_cut_by_an_error_is_not_recorded() {
    let mut frames = FrameBuffer::default();
    let mut sink = ResultSink::new(&mut frames, 0, RowFormat::Text, 0);
    sink.record_next();
    sink.begin_rows(&[column("a", column_type::LONGLONG)]);
    sink.row(&[Value::Int(1)]);
    sink.error(&ErrorInfo::new(
        ER_QUERY_INTERRUPTED,
        "Query execution was interrupted",
    ));
    assert_eq!(sink.take_recorded(), None);
}

/// A drain that takes everything at once and counts its calls.
#[derive(Default)]
struct CountingDrain {
    calls: usize,
    bytes: usize,
    /// The client reads nothing: `try_drain` writes nothing.
    full: bool,
}

impl Drain for CountingDrain {
    fn drain(
        &mut self,
        frames: &mut FrameBuffer,
        _stop: &dyn Fn() -> bool,
    ) -> Result<(), DrainError> {
        self.calls += 1;
        self.bytes += frames.len();
        frames.consume(frames.len());
        Ok(())
    }

    fn try_drain(&mut self, frames: &mut FrameBuffer) -> Result<bool, DrainError> {
        if self.full {
            return Ok(false);
        }
        self.drain(frames, &|| false).map(|()| true)
    }
}

/// Write `rows` rows of 1000 bytes through a sink with a drain, flushing after each row as
/// a streaming statement does; the bytes framed past the last drain and the drain.
fn stream_rows(rows: usize, cursor: bool) -> (usize, CountingDrain) {
    let mut frames = FrameBuffer::default();
    let mut drain = CountingDrain::default();
    let mut sink = ResultSink::new(&mut frames, 0, RowFormat::Binary, 0).with_drain(&mut drain);
    if cursor {
        sink = sink.with_cursor();
    }
    sink.begin_rows(&[column("b", column_type::VAR_STRING)]);
    let value = [Value::Bytes(vec![b'x'; 1000])];
    for _ in 0..rows {
        sink.row(&value);
        sink.flush_if_full(&|| false).unwrap();
        assert!(
            sink.frames.len() <= FLUSH_BYTES + 1100,
            "the buffer stays bounded"
        );
    }
    sink.end_rows(0, 0, false);
    drop(sink);
    (frames.len(), drain)
}

#[test]
fn a_sink_with_a_drain_writes_out_each_time_its_buffer_passes_the_bound() {
    let (left, drain) = stream_rows(1000, false);
    // About 1 MB of rows, written each time FLUSH_BYTES (plus at most one row) gathered.
    let (fewest, most) = (
        1_000_000 / (FLUSH_BYTES + 1100),
        1_010_000 / FLUSH_BYTES + 1,
    );
    assert!(
        (fewest..=most).contains(&drain.calls),
        "{} drains, not {fewest}..={most}",
        drain.calls
    );
    assert!(left <= FLUSH_BYTES + 1100);
    assert!(
        drain.bytes + left > 1000 * 1000,
        "every row was framed once"
    );
}

#[test]
fn rows_kept_for_a_cursor_are_not_drained() {
    let (_, drain) = stream_rows(1000, true);
    assert_eq!(drain.calls, 0);
}

#[test]
fn a_small_result_never_reaches_the_drain() {
    let (left, drain) = stream_rows(10, false);
    assert_eq!(
        drain.calls, 0,
        "a small result is written by the command loop"
    );
    assert!(left > 10 * 1000);
}

#[test]
fn a_sink_asks_for_a_pause_only_when_the_client_left_rows_unread() {
    let value = [Value::Bytes(vec![b'x'; 1000])];
    for full in [false, true] {
        let mut frames = FrameBuffer::default();
        let mut drain = CountingDrain {
            full,
            ..CountingDrain::default()
        };
        let mut sink = ResultSink::new(&mut frames, 0, RowFormat::Text, 0).with_drain(&mut drain);
        sink.begin_rows(&[column("b", column_type::VAR_STRING)]);
        let mut first_pause = None;
        for n in 0..40 {
            sink.row(&value);
            if sink.flush_or_pause().unwrap() && first_pause.is_none() {
                first_pause = Some(n);
            }
        }
        // Reading everything, the client never makes the statement pause; reading
        // nothing, it does once the buffer passes the bound, and the rows stay buffered.
        let columns = sink.take_columns();
        assert_eq!(columns.len(), 1);
        if full {
            assert_eq!(first_pause, Some(FLUSH_BYTES / 1005));
            assert!(sink.frames.len() > 40 * 1000);
        } else {
            assert_eq!(first_pause, None);
            assert!(sink.frames.len() <= FLUSH_BYTES + 1100);
        }
        // The result set goes on in a sink made for its next rows.
        drop(sink);
        let mut resumed = ResultSink::new(&mut frames, 0, RowFormat::Text, 0).resumed(columns);
        let before = resumed.frames.len();
        resumed.row(&value);
        assert!(
            resumed.frames.len() > before + 1000,
            "a row of the open result set"
        );
        resumed.end_rows(0, 0, false);
        assert_eq!(resumed.results_written(), 1);
    }
}
