//! The redo log: one append-only log shared by all tables.
//!
//! **Files.** `<datadir>/redo/<start LSN, 16 hex digits>.log` segments. An LSN is a byte
//! position in the endless log: byte `lsn` lives in the segment with the greatest start
//! `<= lsn`, at offset `lsn - start`. `<datadir>/redo/checkpoint` holds the checkpoint LSN
//! (magic, LSN, crc32c), replaced atomically (write, fsync, rename, fsync directory).
//!
//! **Records.** One statement is one *group*: a 20-byte header `magic u32 | payload length
//! u32 | start LSN u64 | crc32c u32` (the crc covers length, LSN and payload) and a payload of
//! entries. A group either verifies completely or recovery stops before it: a statement's
//! writes are all or nothing. Entries:
//! - `FILE (1)`: space id u64, database and table name (u16 length + bytes each): the file a
//!   space lives in when the group was written. Recovery opens only the files these name.
//! - `PAGE (2)`: space id u64, page u32, flags u8 (1 = full image), range count u16, then
//!   per range offset u16, length u16, bytes. A full image starts from a zero page (runs of
//!   zeros are skipped, so a half-empty page logs half a page); a delta patches the page.
//!   Bytes 0..4 (checksum) and 16..24 (page LSN) are never logged; replay sets the page LSN
//!   to the group's end LSN and applies a record only to pages whose LSN is below it.
//!
//! - `CREATE (3)`: space id, database, table: a table file was created at that name; its
//!   initial pages follow as full images. The file and its directory entry are not synced
//!   by CREATE TABLE (the log is): recovery recreates a missing file, or rebuilds one whose
//!   header page never reached the disk, unless a later DROP or RENAME moved the space on.
//! - `DROP (4)`: space id, database, table: logged before the file is unlinked; replay
//!   finishes the unlink.
//! - `RENAME (5)`: space id, database, table, new database, new table: logged after the
//!   table was flushed and synced and before the rename; replay finishes the rename
//!   (replacing the destination, as ALTER's swap does).
//! - `PAD (6)`: no space id; the rest of the group is padding. Written over groups that
//!   were undone after a failed write (see below), so that LSNs never go back.
//!
//! **Torn pages.** A page's first change after a checkpoint starts is logged as a full image
//! (PostgreSQL's full_page_writes): replay from the checkpoint never needs a page that might
//! have been torn by a crash during its write. The checkpoint start ("horizon") is read by
//! committers before building their records and re-checked under the append mutex.
//!
//! **Group commit.** Appends copy into one buffer under a short mutex. `flush_to(lsn)` takes
//! the I/O mutex, and whoever holds it writes (and fsyncs) everything appended so far, so
//! concurrent committers share one fsync.
//!
//! **Recovery** (`redo_scan`) reads the groups from the checkpoint on and stops at the first
//! that fails its checks. Zeros there are the log's end. Other bytes with no valid group
//! after them are a torn last write: they are copied to `<segment>.log.damaged-<lsn>` and
//! appends go on after the last valid group. Valid groups after them are damage that would
//! lose durable statements: the open fails and changes nothing, unless forced.
//!
//! **Preallocation and reservation.** The segment being written is kept up to
//! [`PREALLOCATE_BYTES`] longer than its groups, the extra bytes written as zeros and synced
//! (recovery stops at them: no group starts with a zero magic, and it cuts the file at the
//! last valid group). A commit's write then lands on blocks the file already has, so its
//! fdatasync writes only that data; a write that grew the file also made the fsync write
//! the inode, a second I/O per commit (ext4 without a journal; InnoDB preallocates its log
//! files for the same reason). The zeros are also the log's *reservation*: [`RedoLog::append`]
//! admits a group only into bytes the file already holds, and extends the file first when
//! the group does not fit. On a full disk that extension fails, and so the statement fails
//! *before* anything is logged or stamped: it rolls back from its before-images, and no
//! group write ever meets `ENOSPC` (on file systems that overwrite in place: ext4, xfs,
//! tmpfs; a copy-on-write one may still fail the write, which the next paragraph covers).
//!
//! **Failed writes and fsyncs.** A group write or an fsync that fails puts the log in the
//! *failed* state: appends are refused with the error, and no byte is written until the
//! state is repaired. What happens to the groups not yet durable depends on what was
//! acknowledged ([`Ack`]): with `Durable` (flush_log_at_trx_commit = 1) none of them was,
//! so the engine undoes their page changes (see `Shared::undo_failed` in the crate root)
//! and then [`RedoLog::rewind`]s the log: the buffered groups are dropped, and one PAD group
//! covering exactly their LSNs (from the durable LSN to the log's end) is written in their
//! place before any new group, over whatever of them reached the file, so recovery skips
//! them. LSNs are never reused: a page that kept an undone LSN (a bulk copy's, which keeps
//! no before-images) stays below every later group, and the page-LSN checks of replay and
//! of the WAL rule stay true. A checkpoint that began before a rewind fails (its LSN may
//! lie inside the PAD) and a later one retries. With `Written` (2)
//! the same happens above the written LSN; with `Buffered` (0) everything was acknowledged,
//! so nothing is undone and the buffered bytes are kept. [`RedoLog::repair`] then retries
//! the PAD or the buffered bytes, and the fsync; when they succeed the state clears and
//! appends go on (the next statement or the background thread tries, so writes resume by
//! themselves once space returns). Entering and leaving the state is logged once each.

use crate::redo_scan::{self, Group};
pub use crate::redo_scan::{RedoDamage, RedoRecovery};
use crate::types::StorageError;
use myriad_cache::fault::{self, FaultPoint};
use parking_lot::Mutex;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

#[path = "redo_failed.rs"]
mod failed;
use failed::Failure;

type Result<T> = std::result::Result<T, StorageError>;

pub(crate) const GROUP_MAGIC: u32 = 0x4D59_524C;
pub(crate) const GROUP_HEADER: usize = 20;
pub(crate) const ENTRY_FILE: u8 = 1;
pub(crate) const ENTRY_PAGE: u8 = 2;
pub(crate) const ENTRY_CREATE: u8 = 3;
pub(crate) const ENTRY_DROP: u8 = 4;
pub(crate) const ENTRY_RENAME: u8 = 5;
pub(crate) const ENTRY_PAD: u8 = 6;
const CHECKPOINT_MAGIC: &[u8; 8] = b"MYRIADCK";
/// The first LSN of a fresh log: above 0, so a fresh page (LSN 0) is always below the
/// horizon and logs a full image.
pub(crate) const FIRST_LSN: u64 = 16;
/// A new segment starts at a checkpoint once the current one is this large.
const SEGMENT_ROTATE_BYTES: u64 = 64 << 20;
/// How far ahead of its groups the current segment is extended with zeros.
const PREALLOCATE_BYTES: u64 = 1 << 20;

/// What a commit has been told when its group is in a given state (the
/// `flush_log_at_trx_commit` policy): decides which groups a failed write may undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ack {
    /// Acknowledged once durable (1): every group above the durable LSN may be undone.
    Durable,
    /// Acknowledged once written to the kernel (2): groups above the written LSN.
    Written,
    /// Acknowledged at once (0): nothing may be undone; failed bytes are retried.
    Buffered,
}

struct AppendState {
    buf: Vec<u8>,
    next_lsn: u64,
    horizon: u64,
    failed: Option<Failure>,
    /// Rewinds so far, and at the start of the checkpoint in progress (see
    /// [`RedoLog::finish_checkpoint`]).
    rewinds: u64,
    checkpoint_rewinds: u64,
}

struct Segment {
    file: File,
    start_lsn: u64,
    /// The file's length: its groups, then zeros (see "Preallocation").
    len: u64,
}

impl Segment {
    fn new(file: File, start_lsn: u64, len: u64) -> Segment {
        Segment {
            file,
            start_lsn,
            len,
        }
    }

    /// The LSN up to which the file holds bytes (groups, then reserved zeros).
    fn end_lsn(&self) -> u64 {
        self.start_lsn + self.len
    }

    /// Write `bytes` at log position `lsn`, inside the bytes the file already holds (the
    /// reservation made by [`RedoLog::append`]).
    fn write_at(&mut self, bytes: &[u8], lsn: u64) -> std::io::Result<()> {
        let offset = lsn - self.start_lsn;
        assert!(
            offset + bytes.len() as u64 <= self.len,
            "a redo write stays inside the reserved bytes of its segment"
        );
        fault::check(FaultPoint::RedoWrite)?;
        self.file.write_all_at(bytes, offset)
    }

    fn sync(&self) -> std::io::Result<()> {
        fault::check(FaultPoint::RedoSync)?;
        self.file.sync_data()
    }

    /// Extend the file with zeros (synced) so that it holds at least up to `lsn`, in
    /// [`PREALLOCATE_BYTES`] steps: the next commits' writes and fdatasyncs change no size.
    fn reserve_to(&mut self, lsn: u64) -> std::io::Result<()> {
        if lsn <= self.end_lsn() {
            return Ok(());
        }
        let want = lsn - self.start_lsn;
        let extended = (want / PREALLOCATE_BYTES + 1) * PREALLOCATE_BYTES;
        fault::check(FaultPoint::RedoExtend)?;
        let zeros = vec![0u8; (extended - self.len) as usize];
        let written = self
            .file
            .write_all_at(&zeros, self.len)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            // Whatever part of the zeros did land is cut again: the file stays as it was.
            let _ = self.file.set_len(self.len);
            return Err(e);
        }
        self.len = extended;
        Ok(())
    }
}

pub(crate) struct RedoLog {
    dir: PathBuf,
    state: Mutex<AppendState>,
    io: Mutex<Segment>,
    written_lsn: AtomicU64,
    durable_lsn: AtomicU64,
    checkpoint_lsn: AtomicU64,
    /// The segment's end (groups and reserved zeros), read by appends without the I/O mutex.
    reserved_lsn: AtomicU64,
    ack: Ack,
    /// An extension failed and has not succeeded since (logged once each way).
    short_of_space: std::sync::atomic::AtomicBool,
    /// Counters: Innodb_log_writes-like.
    pub(crate) fsyncs: AtomicU64,
    pub(crate) groups: AtomicU64,
}

/// Append one group (header and payload) starting at `lsn` to `out`.
fn encode_group(out: &mut Vec<u8>, lsn: u64, payload: &[u8]) {
    let len = payload.len() as u32;
    let mut crc = crc32c::crc32c(&len.to_le_bytes());
    crc = crc32c::crc32c_append(crc, &lsn.to_le_bytes());
    crc = crc32c::crc32c_append(crc, payload);
    out.extend_from_slice(&GROUP_MAGIC.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&lsn.to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(payload);
}

pub(crate) fn segment_path(dir: &Path, start: u64) -> PathBuf {
    dir.join(format!("{start:016x}.log"))
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Segments in the log directory, by start LSN.
fn list_segments(dir: &Path) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir)? {
        let name = e?.file_name();
        let name = name.to_string_lossy();
        if let Some(hex) = name.strip_suffix(".log") {
            if let Ok(v) = u64::from_str_radix(hex, 16) {
                out.push(v);
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

impl RedoLog {
    /// Open the log in `dir` (created if missing) and return it with the groups after the
    /// checkpoint, for replay, and what recovery found (see `redo_scan`). A clean end or a
    /// torn tail: appends go on after the last valid group, the torn bytes first kept
    /// aside. Damage (valid groups after the stop): an error that changes nothing, unless
    /// `force`; then the damaged bytes are kept aside and appends go to a new segment
    /// past every LSN the log held (no page can carry a higher one).
    pub(crate) fn open(
        dir: &Path,
        force: bool,
        ack: Ack,
    ) -> Result<(RedoLog, Vec<Group>, RedoRecovery)> {
        create_private_dir(dir)?;
        let checkpoint = read_checkpoint(dir)?.unwrap_or(FIRST_LSN);
        let mut segments = list_segments(dir)?;
        if segments.is_empty() {
            create_private_file(&segment_path(dir, checkpoint))?;
            sync_dir(dir)?;
            segments.push(checkpoint);
        }
        let scan = redo_scan::scan(dir, &segments, checkpoint)?;
        let valid_end = scan.valid_end;
        let mut report = RedoRecovery {
            from_lsn: checkpoint,
            to_lsn: valid_end,
            damage: None,
        };
        // The segment appends go on in: the one holding the valid end, or a new one.
        let mut last_start = segments
            .iter()
            .copied()
            .filter(|&s| s <= valid_end)
            .max()
            .unwrap_or(checkpoint);
        let mut next_lsn = valid_end;
        if let Some(stop) = &scan.stop {
            let mut damage = RedoDamage::new(dir, stop);
            if damage.valid_groups_after > 0 && !force {
                return Err(StorageError::Corrupt(damage.refusal()));
            }
            damage.forced = damage.valid_groups_after > 0;
            // Keep the bytes after the stop: the tail of the segment holding it is copied,
            // later segments (which hold nothing before the stop) are renamed.
            if stop.segment == last_start {
                let bytes = fs::read(segment_path(dir, stop.segment))?;
                let tail = &bytes[(stop.offset as usize).min(bytes.len())..];
                // Up to its last non-zero byte: the zeros after it are preallocation.
                if let Some(last) = tail.iter().rposition(|&b| b != 0) {
                    let aside = redo_scan::aside_path(dir, stop.segment, stop.lsn);
                    write_private_file(&aside, &tail[..=last])?;
                    damage.kept_aside.push(aside);
                }
            }
            for &s in segments.iter().filter(|&&s| s > last_start) {
                let aside = redo_scan::aside_path(dir, s, stop.lsn);
                fs::rename(segment_path(dir, s), &aside)?;
                damage.kept_aside.push(aside);
            }
            sync_dir(dir)?;
            if damage.forced {
                // The stop segment stays as it is (the checkpoint after recovery removes
                // it); appends start past everything it held.
                last_start = scan.log_end.max(valid_end);
                next_lsn = last_start;
            }
            report.damage = Some(damage);
        }
        // Everything in the segment after `next_lsn` is zeros or kept aside: cut it.
        let path = segment_path(dir, last_start);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(PRIVATE_FILE_MODE)
            .open(&path)?;
        let len = next_lsn - last_start;
        file.set_len(len)?;
        file.sync_all()?;
        sync_dir(dir)?;
        let valid_end = next_lsn;
        let log = RedoLog {
            dir: dir.to_path_buf(),
            state: Mutex::new(AppendState {
                buf: Vec::new(),
                next_lsn: valid_end,
                horizon: checkpoint,
                failed: None,
                rewinds: 0,
                checkpoint_rewinds: 0,
            }),
            io: Mutex::new(Segment::new(file, last_start, len)),
            written_lsn: AtomicU64::new(valid_end),
            durable_lsn: AtomicU64::new(valid_end),
            checkpoint_lsn: AtomicU64::new(checkpoint),
            reserved_lsn: AtomicU64::new(last_start + len),
            ack,
            short_of_space: std::sync::atomic::AtomicBool::new(false),
            fsyncs: AtomicU64::new(0),
            groups: AtomicU64::new(0),
        };
        Ok((log, scan.groups, report))
    }

    /// The LSN of the latest checkpoint start: a page whose LSN (the end of the group that
    /// last changed it) is at or below it logs a full image on its next change.
    pub(crate) fn horizon(&self) -> u64 {
        self.state.lock().horizon
    }

    pub(crate) fn current_lsn(&self) -> u64 {
        self.state.lock().next_lsn
    }

    pub(crate) fn durable_lsn(&self) -> u64 {
        self.durable_lsn.load(Ordering::Acquire)
    }

    pub(crate) fn checkpoint_lsn(&self) -> u64 {
        self.checkpoint_lsn.load(Ordering::Acquire)
    }

    /// Append one group. Returns its end LSN, or None when the horizon moved since the
    /// caller read it (the caller rebuilds its records with the new horizon). Fails, with
    /// nothing appended, while the log is failed and cannot be repaired, or when the
    /// segment cannot be extended to hold the group (a full disk: see "Preallocation and
    /// reservation").
    pub(crate) fn append(&self, payload: &[u8], horizon_seen: u64) -> Result<Option<u64>> {
        let size = (GROUP_HEADER + payload.len()) as u64;
        let mut st = loop {
            let st = self.state.lock();
            if st.failed.is_some() {
                drop(st);
                self.repair()?;
                continue;
            }
            if st.horizon != horizon_seen {
                return Ok(None);
            }
            if st.next_lsn + size <= self.reserved_lsn.load(Ordering::Acquire) {
                break st;
            }
            let want = st.next_lsn + size;
            drop(st);
            self.reserve_to(want)?;
        };
        let lsn = st.next_lsn;
        encode_group(&mut st.buf, lsn, payload);
        st.next_lsn += size;
        self.groups.fetch_add(1, Ordering::Relaxed);
        Ok(Some(st.next_lsn))
    }

    /// Extend the segment so that it holds up to `lsn`; on failure the statement asking
    /// fails (nothing of it was logged). The first failure and the recovery are logged.
    fn reserve_to(&self, lsn: u64) -> std::io::Result<()> {
        let mut seg = self.io.lock();
        match seg.reserve_to(lsn) {
            Ok(()) => {
                self.reserved_lsn.store(seg.end_lsn(), Ordering::Release);
                if self.short_of_space.swap(false, Ordering::AcqRel) {
                    tracing::warn!("redo log: space available again, writes resume");
                }
                Ok(())
            }
            Err(e) => {
                if !self.short_of_space.swap(true, Ordering::AcqRel) {
                    tracing::error!(
                        "redo log: cannot extend {} ({e}); statements that write fail \
                         until space is freed, reads go on",
                        segment_path(&self.dir, seg.start_lsn).display()
                    );
                }
                Err(e)
            }
        }
    }

    /// Make the log written (and with `sync`, durable) up to `lsn`. Concurrent callers share
    /// one write and one fsync (group commit). A failure puts the log in the failed state.
    pub(crate) fn flush_to(&self, lsn: u64, sync: bool) -> std::io::Result<()> {
        let done = |s: &Self| {
            if sync {
                s.durable_lsn.load(Ordering::Acquire)
            } else {
                s.written_lsn.load(Ordering::Acquire)
            }
        };
        if done(self) >= lsn {
            return Ok(());
        }
        let mut seg = self.io.lock();
        if done(self) >= lsn {
            return Ok(());
        }
        let (bytes, end) = {
            let mut st = self.state.lock();
            if let Some(f) = &st.failed {
                if f.undo_pending {
                    return Err(f.error());
                }
            }
            (std::mem::take(&mut st.buf), st.next_lsn)
        };
        let result = self.write_and_sync(&mut seg, &bytes, end, sync);
        if let Err(e) = &result {
            self.fail(e, bytes);
        } else {
            self.leave_failed_state();
        }
        result
    }

    /// Write what was taken from the buffer (groups, or the PAD over undone ones) and
    /// with `sync` fsync it, moving the written and durable LSNs.
    fn write_and_sync(
        &self,
        seg: &mut Segment,
        bytes: &[u8],
        end: u64,
        sync: bool,
    ) -> std::io::Result<()> {
        let start = end - bytes.len() as u64;
        if !bytes.is_empty() {
            seg.write_at(bytes, start)?;
            self.written_lsn.store(end, Ordering::Release);
        }
        if sync && self.durable_lsn.load(Ordering::Acquire) < end {
            seg.sync()?;
            self.fsyncs.fetch_add(1, Ordering::Relaxed);
            self.durable_lsn.store(end, Ordering::Release);
        }
        Ok(())
    }

    /// Start a new segment at the log's end (the old one then holds exactly its groups).
    /// The new file is made first: when it cannot be, nothing changed and appends go on in
    /// the old segment.
    fn rotate(&self, seg: &mut Segment) -> Result<()> {
        // Appends wait: the old segment must end exactly where the new one begins.
        let mut st = self.state.lock();
        if st.failed.is_some() {
            return Ok(()); // a later checkpoint rotates
        }
        let end = st.next_lsn;
        fault::check(FaultPoint::SegmentCreate)?;
        let path = segment_path(&self.dir, end);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(PRIVATE_FILE_MODE)
            .open(&path)?;
        let finished = (|| -> std::io::Result<()> {
            sync_dir(&self.dir)?;
            let bytes = std::mem::take(&mut st.buf);
            let written = self.write_and_sync(seg, &bytes, end, true);
            if written.is_err() {
                st.buf = bytes;
            }
            written?;
            seg.file.set_len(end - seg.start_lsn)?;
            seg.file.sync_data()
        })();
        if let Err(e) = finished {
            drop(file);
            let _ = fs::remove_file(&path);
            return Err(e.into());
        }
        *seg = Segment::new(file, end, 0);
        self.reserved_lsn.store(end, Ordering::Release);
        Ok(())
    }

    /// Start a checkpoint: from now on every page's first change logs a full image.
    /// Returns the checkpoint LSN.
    pub(crate) fn begin_checkpoint(&self) -> u64 {
        let mut st = self.state.lock();
        st.horizon = st.next_lsn;
        st.checkpoint_rewinds = st.rewinds;
        st.horizon
    }

    /// Finish a checkpoint at `lsn` (every page change below it is on disk and synced):
    /// record it, start a new segment if the current one is large, delete old segments.
    pub(crate) fn finish_checkpoint(&self, lsn: u64) -> Result<()> {
        self.flush_to(lsn, true)?;
        {
            // A rewind since the start: `lsn` may lie past the groups that were undone,
            // and the log now goes on below it. That checkpoint would skip live groups.
            let st = self.state.lock();
            if st.rewinds != st.checkpoint_rewinds || self.durable_lsn() < lsn {
                return Err(StorageError::Io(std::io::Error::other(
                    "the redo log was rewound during the checkpoint; a later one retries",
                )));
            }
        }
        let mut rec = Vec::with_capacity(20);
        rec.extend_from_slice(CHECKPOINT_MAGIC);
        rec.extend_from_slice(&lsn.to_le_bytes());
        rec.extend_from_slice(&crc32c::crc32c(&rec).to_le_bytes());
        let tmp = self.dir.join("checkpoint.tmp");
        fault::check(FaultPoint::CheckpointWrite)?;
        write_private_file(&tmp, &rec)?;
        fs::rename(&tmp, self.dir.join("checkpoint"))?;
        sync_dir(&self.dir)?;
        self.checkpoint_lsn.store(lsn, Ordering::Release);
        {
            let mut seg = self.io.lock();
            let size = self.written_lsn.load(Ordering::Acquire) - seg.start_lsn;
            if size >= SEGMENT_ROTATE_BYTES {
                self.rotate(&mut seg)?;
            }
        }
        // Segments wholly below the checkpoint are no longer needed.
        let segments = list_segments(&self.dir)?;
        for pair in segments.windows(2) {
            if pair[1] <= lsn {
                fs::remove_file(segment_path(&self.dir, pair[0]))?;
            }
        }
        Ok(())
    }
}

/// The mode of every file the engine creates: the datadir is private to the server's user
/// (its accounts file holds password hashes; its tables, the data).
pub const PRIVATE_FILE_MODE: u32 = 0o600;
/// The mode of every directory the engine creates.
pub const PRIVATE_DIR_MODE: u32 = 0o700;

/// Create `dir` and any missing parent with [`PRIVATE_DIR_MODE`].
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR_MODE)
        .create(dir)
}

/// Create (or empty) `path` with [`PRIVATE_FILE_MODE`].
fn create_private_file(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(PRIVATE_FILE_MODE)
        .open(path)
}

/// Write `bytes` as the whole of `path` (a new private file) and sync it.
pub(crate) fn write_private_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = create_private_file(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

fn read_checkpoint(dir: &Path) -> Result<Option<u64>> {
    let bytes = match fs::read(dir.join("checkpoint")) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if bytes.len() != 20 || &bytes[0..8] != CHECKPOINT_MAGIC {
        return Err(StorageError::Corrupt(
            "redo checkpoint file is malformed".into(),
        ));
    }
    let crc = u32::from_le_bytes(bytes[16..20].try_into().unwrap_or_default());
    if crc != crc32c::crc32c(&bytes[..16]) {
        return Err(StorageError::Corrupt(
            "redo checkpoint file fails its checksum".into(),
        ));
    }
    Ok(Some(u64::from_le_bytes(
        bytes[8..16].try_into().unwrap_or_default(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_survive_reopen_and_a_torn_tail_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let (log, groups, _) = RedoLog::open(dir.path(), false, Ack::Durable).unwrap();
        assert!(groups.is_empty());
        let h = log.horizon();
        let e1 = log.append(b"first", h).unwrap().unwrap();
        let e2 = log.append(&vec![7u8; 5000], h).unwrap().unwrap();
        log.flush_to(e2, true).unwrap();
        assert!(log.durable_lsn() >= e2);
        let e3 = log.append(b"third", h).unwrap().unwrap();
        log.flush_to(e3, false).unwrap();
        drop(log);
        // Tear the last group: cut its final byte (and the zeros after it).
        let seg = segment_path(dir.path(), FIRST_LSN);
        OpenOptions::new()
            .write(true)
            .open(&seg)
            .unwrap()
            .set_len(e3 - FIRST_LSN - 1)
            .unwrap();
        let (log, groups, _) = RedoLog::open(dir.path(), false, Ack::Durable).unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].payload, b"first");
        assert_eq!(groups[0].end_lsn, e1);
        assert_eq!(groups[1].end_lsn, e2);
        assert_eq!(log.current_lsn(), e2);
        // A checkpoint moves the horizon; a stale append is refused.
        let ck = log.begin_checkpoint();
        assert!(log.append(b"stale", h).unwrap().is_none());
        log.finish_checkpoint(ck).unwrap();
        let e4 = log.append(b"after", log.horizon()).unwrap().unwrap();
        log.flush_to(e4, true).unwrap();
        drop(log);
        let (_log, groups, _) = RedoLog::open(dir.path(), false, Ack::Durable).unwrap();
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].payload, b"after");
    }

    #[test]
    fn commits_write_into_zeros_already_in_the_file_and_recovery_stops_at_them() {
        let dir = tempfile::tempdir().unwrap();
        let seg = segment_path(dir.path(), FIRST_LSN);
        let (log, _, _) = RedoLog::open(dir.path(), false, Ack::Durable).unwrap();
        let e1 = log.append(b"first", log.horizon()).unwrap().unwrap();
        log.flush_to(e1, true).unwrap();
        let len = fs::metadata(&seg).unwrap().len();
        assert_eq!(
            len, PREALLOCATE_BYTES,
            "the first write extends the file by a chunk"
        );
        // Commits inside the chunk change no file size (their fdatasync writes no inode).
        let mut end = e1;
        for i in 0..100u32 {
            end = log
                .append(&i.to_le_bytes().repeat(50), log.horizon())
                .unwrap()
                .unwrap();
            log.flush_to(end, true).unwrap();
            assert_eq!(fs::metadata(&seg).unwrap().len(), len);
        }
        let bytes = fs::read(&seg).unwrap();
        assert!(bytes[(end - FIRST_LSN) as usize..].iter().all(|&b| b == 0));
        // A group reaching past the zeros extends the file again, a chunk past its end.
        let big = vec![9u8; PREALLOCATE_BYTES as usize];
        let e_big = log.append(&big, log.horizon()).unwrap().unwrap();
        log.flush_to(e_big, true).unwrap();
        let grown = fs::metadata(&seg).unwrap().len();
        assert!(grown > e_big - FIRST_LSN && grown <= e_big - FIRST_LSN + PREALLOCATE_BYTES);
        drop(log);
        // Reopened: every group is found, the zeros are cut, and appends go on from there.
        let (log, groups, _) = RedoLog::open(dir.path(), false, Ack::Durable).unwrap();
        assert_eq!(groups.len(), 102);
        assert_eq!(groups.last().unwrap().end_lsn, e_big);
        assert_eq!(fs::metadata(&seg).unwrap().len(), e_big - FIRST_LSN);
        let e_next = log.append(b"next", log.horizon()).unwrap().unwrap();
        log.flush_to(e_next, true).unwrap();
        drop(log);
        let (_log, groups, _) = RedoLog::open(dir.path(), false, Ack::Durable).unwrap();
        assert_eq!(groups.len(), 103);
        assert_eq!(groups.last().unwrap().payload, b"next");
    }
}
