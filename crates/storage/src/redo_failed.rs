//! The redo log's failed state: entering it when a group write or fsync fails, undoing
//! (with the engine's help) what was not acknowledged, rewinding, and repairing. See the
//! parent module, "Failed writes and fsyncs".

use super::{Ack, RedoLog, ENTRY_PAD, GROUP_HEADER};
use std::sync::atomic::Ordering;

/// The failed state (see "Failed writes and fsyncs").
pub(super) struct Failure {
    /// The error that caused it, as appends report it (the errno is kept).
    pub(super) errno: Option<i32>,
    pub(super) kind: std::io::ErrorKind,
    pub(super) message: String,
    /// The groups above the undo floor still wait to be undone: nothing may be written.
    pub(super) undo_pending: bool,
}

impl Failure {
    pub(super) fn error(&self) -> std::io::Error {
        match self.errno {
            Some(n) => std::io::Error::from_raw_os_error(n),
            None => std::io::Error::new(self.kind, self.message.clone()),
        }
    }
}

/// A group covering exactly `[from, to)` whose payload is one PAD entry: recovery reads it
/// as a valid group and skips its bytes.
fn pad_group(from: u64, to: u64) -> Vec<u8> {
    let total = (to - from) as usize;
    assert!(
        total >= GROUP_HEADER,
        "the undone range holds at least one group"
    );
    let mut payload = vec![0u8; total - GROUP_HEADER];
    if let Some(tag) = payload.first_mut() {
        *tag = ENTRY_PAD;
    }
    let mut out = Vec::with_capacity(total);
    super::encode_group(&mut out, from, &payload);
    out
}

impl RedoLog {
    /// Enter the failed state after `e`, putting back the bytes taken for the write (in
    /// front of any appended since). Called with the I/O mutex held.
    pub(super) fn fail(&self, e: &std::io::Error, taken: Vec<u8>) {
        let mut st = self.state.lock();
        let mut buf = taken;
        buf.append(&mut st.buf);
        st.buf = buf;
        if st.failed.is_none() {
            tracing::error!(
                "redo log: write or fsync failed ({e}) at LSN {}; statements that write \
                 fail until it succeeds again, reads go on",
                self.durable_lsn.load(Ordering::Acquire)
            );
            st.failed = Some(Failure {
                errno: e.raw_os_error(),
                kind: e.kind(),
                message: e.to_string(),
                undo_pending: self.ack != Ack::Buffered,
            });
        }
    }

    pub(super) fn leave_failed_state(&self) {
        let mut st = self.state.lock();
        if st.failed.take().is_some() {
            tracing::warn!("redo log: writes and fsyncs succeed again, writes resume");
        }
    }

    /// Whether the log is failed with groups still to be undone (see `Shared::undo_failed`).
    pub(crate) fn undo_pending(&self) -> bool {
        self.state
            .lock()
            .failed
            .as_ref()
            .is_some_and(|f| f.undo_pending)
    }

    /// The errno of the failure the log is in, if it has one.
    pub(crate) fn failure_errno(&self) -> Option<i32> {
        self.state.lock().failed.as_ref().and_then(|f| f.errno)
    }

    /// Whether the log is in the failed state.
    pub(crate) fn is_failed(&self) -> bool {
        self.state.lock().failed.is_some()
    }

    /// The LSN at and below which groups may have been acknowledged: what a failure may
    /// undo lies above it.
    pub(crate) fn undo_floor(&self) -> u64 {
        let next = self.current_lsn();
        self.floor_given(next)
    }

    /// [`RedoLog::undo_floor`] with the next LSN already read (under the append mutex).
    pub(super) fn floor_given(&self, next_lsn: u64) -> u64 {
        match self.ack {
            Ack::Durable => self.durable_lsn.load(Ordering::Acquire),
            Ack::Written => self.written_lsn.load(Ordering::Acquire),
            Ack::Buffered => next_lsn,
        }
    }

    pub(crate) fn ack(&self) -> Ack {
        self.ack
    }

    /// After the groups above the undo floor were undone in memory: replace them in the
    /// buffer with one PAD group over exactly their LSNs, to be written from the floor on
    /// (over whatever of them reached the file). Then try to [`RedoLog::repair`].
    pub(crate) fn rewind(&self) -> std::io::Result<()> {
        {
            let seg = self.io.lock();
            let mut st = self.state.lock();
            let Some(failed) = &mut st.failed else {
                return Ok(());
            };
            if !failed.undo_pending {
                drop(st);
                drop(seg);
                return self.repair();
            }
            failed.undo_pending = false;
            let floor = self.floor_given(st.next_lsn);
            let end = st.next_lsn;
            // LSNs go on from `end`, never back: a page that kept an undone LSN (a bulk
            // copy's, see `Statement::commit_no_wait`) stays below every later group.
            st.buf = if end > floor {
                pad_group(floor, end)
            } else {
                Vec::new()
            };
            // The pad overwrites whatever of the undone groups reached the file.
            self.written_lsn.store(floor, Ordering::Release);
            // Pages that kept an undone LSN log a full image on their next change (their
            // last logged image was padded away).
            st.horizon = end;
            st.rewinds += 1;
        }
        self.repair()
    }

    /// Retry what the failed state waits for: write the buffered bytes (the PAD over undone
    /// groups, or with `Buffered` the groups themselves), fsync. Success leaves the failed
    /// state.
    pub(crate) fn repair(&self) -> std::io::Result<()> {
        let mut seg = self.io.lock();
        let (bytes, end) = {
            let mut st = self.state.lock();
            match &st.failed {
                None => return Ok(()),
                Some(f) if f.undo_pending => return Err(f.error()),
                Some(_) => {}
            }
            (std::mem::take(&mut st.buf), st.next_lsn)
        };
        match self.write_and_sync(&mut seg, &bytes, end, true) {
            Ok(()) => {
                self.leave_failed_state();
                Ok(())
            }
            Err(e) => {
                self.fail(&e, bytes);
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod fault_tests {
    use super::super::{list_segments, FIRST_LSN, SEGMENT_ROTATE_BYTES};
    use super::*;
    use myriad_cache::fault::{self, FaultPoint};

    /// A checkpoint whose new segment cannot be created changes nothing: appends go on in
    /// the old segment, and a later checkpoint rotates. (Only this point is armed here:
    /// the other unit tests of the crate, running beside it, never rotate.)
    #[test]
    fn a_segment_that_cannot_be_created_leaves_the_log_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let (log, _, _) = RedoLog::open(dir.path(), false, Ack::Durable).unwrap();
        let chunk = vec![3u8; 8 << 20];
        let mut end = 0;
        while end < FIRST_LSN + SEGMENT_ROTATE_BYTES {
            end = log.append(&chunk, log.horizon()).unwrap().unwrap();
        }
        log.flush_to(end, true).unwrap();
        fault::inject(FaultPoint::SegmentCreate, fault::ENOSPC);
        let ck = log.begin_checkpoint();
        let failed = log.finish_checkpoint(ck);
        fault::clear();
        assert!(failed.is_err(), "the rotation met its fault");
        assert_eq!(list_segments(dir.path()).unwrap(), [FIRST_LSN]);
        let e1 = log.append(b"after", log.horizon()).unwrap().unwrap();
        log.flush_to(e1, true).unwrap();
        let ck = log.begin_checkpoint();
        log.finish_checkpoint(ck).unwrap();
        assert_eq!(list_segments(dir.path()).unwrap(), [ck]);
        let e2 = log.append(b"later", log.horizon()).unwrap().unwrap();
        log.flush_to(e2, true).unwrap();
        drop(log);
        let (_log, groups, _) = RedoLog::open(dir.path(), false, Ack::Durable).unwrap();
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].payload, b"later");
    }
}
