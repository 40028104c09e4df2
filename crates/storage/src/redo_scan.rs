//! Reading the redo log back at recovery, and telling a torn tail from damage.
//!
//! **What is read.** Groups from the checkpoint on, segment by segment, each verified in
//! full: magic, a length within [`MAX_GROUP_BYTES`], the start LSN it carries equal to its
//! position in the log, and the crc32c over length, LSN and payload. Reading stops at the
//! first group that fails; everything before it is replayed.
//!
//! **Where it stopped.** Three cases, told apart by what follows the stop:
//! - *the end*: nothing but zeros follows in the last segment (the preallocated zeros, see
//!   `redo`), and no later segment: a clean end.
//! - *a torn tail*: bytes follow, but not one valid group among them and no valid group in
//!   a later segment: the last write was cut short by a crash. It never completed, so no
//!   client was told it committed; recovery replays up to it and starts.
//! - *damage*: a valid group follows (in the same segment, or a later one). Such a group
//!   was durable, so its statement may have been acknowledged, and so may every statement
//!   between the stop and it: replaying only up to the stop would silently lose them.
//!
//! **Looking past.** After a stop the rest of the log is searched for the group magic at
//! every byte offset; a hit counts as a valid group only when its LSN equals its position
//! (segment start + offset) and its crc verifies, so a stray magic in a payload is not one.
//! The search costs one pass over the bytes after the stop: bounded by the log's length,
//! not by the number of tables.

use crate::redo::{segment_path, GROUP_HEADER, GROUP_MAGIC};
use std::path::{Path, PathBuf};

/// The largest group recovery accepts (a statement's pages; a sanity bound on the length
/// field of a torn header).
pub(crate) const MAX_GROUP_BYTES: usize = 1 << 30;

/// One group read back by recovery.
pub(crate) struct Group {
    pub end_lsn: u64,
    pub payload: Vec<u8>,
}

/// Why the bytes at a position are not a valid group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// Fewer bytes than a header, or than the header's length says.
    Short,
    /// No group magic (zeros after the last group read this way too).
    Magic,
    /// The start LSN in the header is not the group's position.
    Lsn,
    /// A length above [`MAX_GROUP_BYTES`].
    Length,
    /// The crc32c does not match.
    Checksum,
}

impl Invalid {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Invalid::Short => "the group is cut short",
            Invalid::Magic => "no group magic",
            Invalid::Lsn => "the group's LSN is not its position",
            Invalid::Length => "an impossible group length",
            Invalid::Checksum => "the group fails its crc32c",
        }
    }
}

/// Verify the group at `off` of a segment's `bytes`, which should start at log position
/// `lsn`. Returns the payload.
pub(crate) fn group_at(bytes: &[u8], off: usize, lsn: u64) -> Result<&[u8], Invalid> {
    let header = bytes
        .get(off..off.saturating_add(GROUP_HEADER))
        .ok_or(Invalid::Short)?;
    let word = |range: std::ops::Range<usize>| {
        let mut b = [0u8; 8];
        b[..range.len()].copy_from_slice(&header[range]);
        u64::from_le_bytes(b)
    };
    if word(0..4) as u32 != GROUP_MAGIC {
        return Err(Invalid::Magic);
    }
    let len = word(4..8) as usize;
    if word(8..16) != lsn {
        return Err(Invalid::Lsn);
    }
    if len > MAX_GROUP_BYTES {
        return Err(Invalid::Length);
    }
    let start = off + GROUP_HEADER;
    let payload = bytes.get(start..start + len).ok_or(Invalid::Short)?;
    let crc = crc32c::crc32c_append(crc32c::crc32c(&header[4..16]), payload);
    if crc != word(16..20) as u32 {
        return Err(Invalid::Checksum);
    }
    Ok(payload)
}

/// What a search past a stop found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PastStop {
    /// Valid groups after the stop (each at its own position, crc verified).
    pub groups: u64,
    /// The start LSN of the first of them and the end LSN of the last.
    pub first_lsn: Option<u64>,
    pub last_end_lsn: Option<u64>,
    /// Bytes from the stop to the last non-zero byte of the log (what a torn write or the
    /// damage left; the preallocated zeros after it are not counted).
    pub bytes: u64,
    /// Bytes searched so far.
    searched: u64,
}

impl PastStop {
    /// Count the valid groups in `bytes` (a segment starting at `start`) from `from` on.
    pub(crate) fn search(&mut self, bytes: &[u8], start: u64, from: usize) {
        let magic = GROUP_MAGIC.to_le_bytes();
        let mut off = from;
        while off + GROUP_HEADER <= bytes.len() {
            if bytes[off..off + 4] != magic {
                off += 1;
                continue;
            }
            let lsn = start + off as u64;
            match group_at(bytes, off, lsn) {
                Ok(payload) => {
                    let end = lsn + (GROUP_HEADER + payload.len()) as u64;
                    self.groups += 1;
                    self.first_lsn.get_or_insert(lsn);
                    self.last_end_lsn = Some(end);
                    off += GROUP_HEADER + payload.len();
                }
                Err(_) => off += 1,
            }
        }
        let tail = &bytes[from.min(bytes.len())..];
        if let Some(last) = tail.iter().rposition(|&b| b != 0) {
            // Bytes in an earlier segment count up to that segment's end.
            self.bytes = self.searched + last as u64 + 1;
        }
        self.searched += tail.len() as u64;
    }
}

/// Where reading stopped short of the end of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stop {
    /// The segment (its start LSN) and the offset in it.
    pub segment: u64,
    pub offset: u64,
    pub lsn: u64,
    pub why: String,
    pub past: PastStop,
}

/// The log read from the checkpoint on.
pub(crate) struct Scan {
    pub groups: Vec<Group>,
    /// The end of the last valid group (the checkpoint if none): where appends go on.
    pub valid_end: u64,
    /// Where reading stopped, unless it stopped at a clean end.
    pub stop: Option<Stop>,
    /// The end of every byte in the log's files (the last segment's start plus its
    /// length): no page can carry a higher LSN.
    pub log_end: u64,
}

/// Read every group after `checkpoint` from the `segments` (start LSNs, sorted) in `dir`.
/// Reads only; changes nothing.
pub(crate) fn scan(dir: &Path, segments: &[u64], checkpoint: u64) -> std::io::Result<Scan> {
    let mut groups = Vec::new();
    let mut lsn = checkpoint;
    let mut stop: Option<Stop> = None;
    let mut log_end = checkpoint;
    for (i, &start) in segments.iter().enumerate() {
        let next = segments.get(i + 1).copied();
        if next.is_some_and(|n| n <= checkpoint) {
            continue;
        }
        let bytes = std::fs::read(segment_path(dir, start))?;
        log_end = log_end.max(start + bytes.len() as u64);
        if let Some(stop) = stop.as_mut() {
            stop.past.search(&bytes, start, 0);
            continue;
        }
        if lsn < start {
            // A segment is missing: nothing in this one can follow what was read.
            let mut past = PastStop::default();
            past.search(&bytes, start, 0);
            stop = Some(Stop {
                segment: start,
                offset: 0,
                lsn,
                why: format!("no segment holds LSN {lsn}"),
                past,
            });
            continue;
        }
        let mut off = (lsn - start) as usize;
        let why = loop {
            match group_at(&bytes, off, lsn) {
                Ok(payload) => {
                    let len = (GROUP_HEADER + payload.len()) as u64;
                    off += len as usize;
                    lsn += len;
                    groups.push(Group {
                        end_lsn: lsn,
                        payload: payload.to_vec(),
                    });
                }
                Err(why) => break why,
            }
        };
        // The search starts at the stop itself (the group there fails the same check).
        let mut past = PastStop::default();
        past.search(&bytes, start, off);
        let why = match (past.bytes, next) {
            // The zeros after the last group of the last segment: a clean end.
            (0, None) => break,
            // A segment ends exactly where the next begins (rotation cuts its zeros).
            (0, Some(n)) if n == lsn => continue,
            (0, Some(_)) => "the segment ends before the next one begins".to_string(),
            _ => why.describe().to_string(),
        };
        stop = Some(Stop {
            segment: start,
            offset: off as u64,
            lsn,
            why,
            past,
        });
    }
    Ok(Scan {
        groups,
        valid_end: lsn,
        stop,
        log_end,
    })
}

/// Where the damaged bytes of a segment are kept aside: `<segment>.damaged-<lsn>`.
pub(crate) fn aside_path(dir: &Path, segment: u64, lsn: u64) -> PathBuf {
    let mut name = segment_path(dir, segment).into_os_string();
    name.push(format!(".damaged-{lsn:016x}"));
    PathBuf::from(name)
}

/// What recovery read from the redo log, and what it found after it.
#[derive(Debug, Clone, Default)]
pub struct RedoRecovery {
    /// The LSN range replayed: from the checkpoint to the end of the last valid group.
    pub from_lsn: u64,
    pub to_lsn: u64,
    /// Bytes after the last valid group that are not the log's clean end.
    pub damage: Option<RedoDamage>,
}

/// Where reading the redo log stopped before its end, and what follows.
#[derive(Debug, Clone)]
pub struct RedoDamage {
    /// The segment file holding the stop, and the offset in it.
    pub segment: PathBuf,
    pub offset: u64,
    /// The log position of the stop: every statement from it on was not replayed.
    pub lsn: u64,
    /// Why the bytes there are not a group.
    pub reason: String,
    /// Bytes from the stop to the last non-zero byte of the log.
    pub bytes_after: u64,
    /// Valid groups after the stop (0: a torn last write, the normal crash case).
    pub valid_groups_after: u64,
    /// The start LSN of the first of them and the end LSN of the last.
    pub valid_lsn_after: Option<(u64, u64)>,
    /// Valid groups after the stop, and the server was told to start anyway.
    pub forced: bool,
    /// Where the bytes after the stop were kept.
    pub kept_aside: Vec<PathBuf>,
}

impl RedoDamage {
    pub(crate) fn new(dir: &Path, stop: &Stop) -> RedoDamage {
        RedoDamage {
            segment: segment_path(dir, stop.segment),
            offset: stop.offset,
            lsn: stop.lsn,
            reason: stop.why.clone(),
            bytes_after: stop.past.bytes,
            valid_groups_after: stop.past.groups,
            valid_lsn_after: stop.past.first_lsn.zip(stop.past.last_end_lsn),
            forced: false,
            kept_aside: Vec::new(),
        }
    }

    /// Whether this is a torn last write (nothing valid after it).
    pub fn is_torn_tail(&self) -> bool {
        self.valid_groups_after == 0
    }

    /// Where and why reading stopped, and what follows.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "redo log {} stops at offset {} (LSN {}): {}; {} bytes follow",
            self.segment.display(),
            self.offset,
            self.lsn,
            self.reason,
            self.bytes_after
        );
        match self.valid_lsn_after {
            Some((first, last)) => text.push_str(&format!(
                ", holding {} valid groups (LSN {first} to {last})",
                self.valid_groups_after
            )),
            None => text.push_str(", holding no valid group (a torn last write)"),
        }
        text
    }

    /// The error that refuses to start on damage.
    pub(crate) fn refusal(&self) -> String {
        format!(
            "{}. Those groups were durable, so their statements may have been acknowledged: \
             replaying only up to the damage would lose them. Nothing was changed. To start \
             anyway, losing every statement from LSN {} on, start with --force-recovery \
             (the damaged bytes are then kept aside in the redo directory)",
            self.describe(),
            self.lsn
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redo::{RedoLog, FIRST_LSN};
    use std::fs;

    /// A group as `RedoLog::append` writes it.
    fn group(lsn: u64, payload: &[u8]) -> Vec<u8> {
        let len = payload.len() as u32;
        let mut crc = crc32c::crc32c(&len.to_le_bytes());
        crc = crc32c::crc32c_append(crc, &lsn.to_le_bytes());
        crc = crc32c::crc32c_append(crc, payload);
        let mut out = GROUP_MAGIC.to_le_bytes().to_vec();
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&lsn.to_le_bytes());
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(payload);
        out
    }

    /// `count` groups from `start`, then `zeros` zero bytes; returns the bytes and each
    /// group's start LSN.
    fn segment(start: u64, count: usize, zeros: usize) -> (Vec<u8>, Vec<u64>) {
        let mut bytes = Vec::new();
        let mut starts = Vec::new();
        for i in 0..count {
            let lsn = start + bytes.len() as u64;
            starts.push(lsn);
            bytes.extend(group(lsn, &vec![i as u8 + 1; 40 + i * 7]));
        }
        bytes.extend(vec![0u8; zeros]);
        (bytes, starts)
    }

    /// Every file in `dir` with its bytes (to show that nothing changed).
    fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                let b = fs::read(&p).unwrap();
                (p, b)
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_clean_end_is_the_zeros_after_the_last_group() {
        let dir = tempfile::tempdir().unwrap();
        let (bytes, starts) = segment(FIRST_LSN, 5, 4096);
        fs::write(segment_path(dir.path(), FIRST_LSN), &bytes).unwrap();
        let scan = scan(dir.path(), &[FIRST_LSN], FIRST_LSN).unwrap();
        assert_eq!(scan.groups.len(), 5);
        assert!(scan.stop.is_none(), "zeros are the end, not damage");
        assert_eq!(scan.valid_end, FIRST_LSN + (bytes.len() - 4096) as u64);
        // From a checkpoint in the middle, only the groups after it.
        let scan2 = super::scan(dir.path(), &[FIRST_LSN], starts[3]).unwrap();
        assert_eq!(scan2.groups.len(), 2);
    }

    #[test]
    fn a_torn_last_group_is_a_tail_with_nothing_valid_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let (mut bytes, starts) = segment(FIRST_LSN, 6, 0);
        bytes.truncate((starts[5] - FIRST_LSN) as usize + 30);
        bytes.extend(vec![0u8; 1000]);
        fs::write(segment_path(dir.path(), FIRST_LSN), &bytes).unwrap();
        let scan = scan(dir.path(), &[FIRST_LSN], FIRST_LSN).unwrap();
        assert_eq!(scan.groups.len(), 5);
        let stop = scan.stop.expect("a torn group is a stop");
        assert_eq!(stop.lsn, starts[5]);
        assert_eq!(stop.offset, starts[5] - FIRST_LSN);
        assert_eq!(stop.past.groups, 0);
        assert_eq!(
            stop.past.bytes, 30,
            "the torn bytes, not the zeros after them"
        );
        // The zeros after the torn bytes read as its payload: the crc fails.
        assert_eq!(stop.why, Invalid::Checksum.describe());
    }

    #[test]
    fn a_flipped_byte_in_the_middle_has_valid_groups_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let (mut bytes, starts) = segment(FIRST_LSN, 8, 512);
        let end = FIRST_LSN + (bytes.len() - 512) as u64;
        // A payload byte of the fourth group: its crc fails.
        bytes[(starts[3] - FIRST_LSN) as usize + GROUP_HEADER + 5] ^= 0x40;
        fs::write(segment_path(dir.path(), FIRST_LSN), &bytes).unwrap();
        let scan = scan(dir.path(), &[FIRST_LSN], FIRST_LSN).unwrap();
        assert_eq!(scan.groups.len(), 3);
        let stop = scan.stop.unwrap();
        assert_eq!(
            (stop.lsn, stop.why.as_str()),
            (starts[3], "the group fails its crc32c")
        );
        assert_eq!(stop.past.groups, 4);
        assert_eq!(stop.past.first_lsn, Some(starts[4]));
        assert_eq!(stop.past.last_end_lsn, Some(end));
        assert_eq!(stop.past.bytes, end - starts[3]);
    }

    #[test]
    fn a_magic_inside_a_payload_is_not_a_group() {
        // A payload that holds a whole group, but one written for another position: the
        // search must not count it (its LSN is not where it lies).
        let fake = group(FIRST_LSN, b"fake");
        let mut payload = vec![1u8; 16];
        payload.extend(&fake);
        let mut bytes = group(FIRST_LSN, b"first");
        let torn_at = bytes.len();
        let mut torn = group(FIRST_LSN + torn_at as u64, &payload);
        torn.truncate(torn.len() - 3);
        bytes.extend(torn);
        let mut past = PastStop::default();
        past.search(&bytes, FIRST_LSN, torn_at);
        assert_eq!(
            past.groups, 0,
            "a stray group in the torn bytes is not valid"
        );
        // The same group at its own position counts.
        let mut past = PastStop::default();
        past.search(&bytes, FIRST_LSN, 0);
        assert_eq!(past.groups, 1);
    }

    #[test]
    fn damage_before_a_later_segment_is_found_there() {
        let dir = tempfile::tempdir().unwrap();
        let (mut first, starts) = segment(FIRST_LSN, 4, 0);
        let second_start = FIRST_LSN + first.len() as u64;
        // The header of the last group of the first segment loses its magic.
        first[(starts[3] - FIRST_LSN) as usize] ^= 0xff;
        let (second, _) = segment(second_start, 3, 100);
        fs::write(segment_path(dir.path(), FIRST_LSN), &first).unwrap();
        fs::write(segment_path(dir.path(), second_start), &second).unwrap();
        let segments = [FIRST_LSN, second_start];
        let scan = scan(dir.path(), &segments, FIRST_LSN).unwrap();
        assert_eq!(scan.groups.len(), 3);
        let stop = scan.stop.unwrap();
        assert_eq!((stop.lsn, stop.why.as_str()), (starts[3], "no group magic"));
        assert_eq!(stop.past.groups, 3, "the later segment's groups");
        assert_eq!(stop.past.first_lsn, Some(second_start));
        assert_eq!(scan.log_end, second_start + second.len() as u64);
        // A missing middle: the first segment cut short of the second.
        let (first, _) = segment(FIRST_LSN, 3, 0);
        fs::write(segment_path(dir.path(), FIRST_LSN), &first).unwrap();
        let scan = super::scan(dir.path(), &segments, FIRST_LSN).unwrap();
        let stop = scan.stop.unwrap();
        assert_eq!(stop.why, "the segment ends before the next one begins");
        assert_eq!(stop.past.groups, 3);
    }

    #[test]
    fn open_refuses_damage_and_changes_nothing_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        let (log, _, _) = RedoLog::open(dir.path(), false, crate::redo::Ack::Durable).unwrap();
        let ends: Vec<u64> = (0..10u8)
            .map(|i| {
                let end = log.append(&[i; 100], log.horizon()).unwrap().unwrap();
                log.flush_to(end, true).unwrap();
                end
            })
            .collect();
        drop(log);
        let seg = segment_path(dir.path(), FIRST_LSN);
        let mut bytes = fs::read(&seg).unwrap();
        bytes[(ends[3] - FIRST_LSN) as usize + GROUP_HEADER + 50] ^= 1;
        fs::write(&seg, &bytes).unwrap();
        let before = snapshot(dir.path());
        let Err(e) = RedoLog::open(dir.path(), false, crate::redo::Ack::Durable) else {
            panic!("damage before valid groups must refuse to open");
        };
        let text = e.to_string();
        for part in [
            format!("offset {}", ends[3] - FIRST_LSN),
            format!("LSN {}", ends[3]),
            "5 valid groups".to_string(),
            "--force-recovery".to_string(),
        ] {
            assert!(text.contains(&part), "{part:?} missing in: {text}");
        }
        assert_eq!(
            snapshot(dir.path()),
            before,
            "a refused open changed the log"
        );

        // Forced: the groups before the damage, the damaged bytes kept aside, and appends
        // in a new segment past every LSN the log held.
        let (log, groups, report) =
            RedoLog::open(dir.path(), true, crate::redo::Ack::Durable).unwrap();
        assert_eq!(groups.len(), 4);
        assert_eq!((report.from_lsn, report.to_lsn), (FIRST_LSN, ends[3]));
        let damage = report.damage.unwrap();
        assert!(damage.forced && !damage.is_torn_tail());
        assert_eq!(damage.valid_groups_after, 5);
        let aside = aside_path(dir.path(), FIRST_LSN, ends[3]);
        assert_eq!(damage.kept_aside, vec![aside.clone()]);
        let log_end = FIRST_LSN + bytes.len() as u64;
        let kept = fs::read(&aside).unwrap();
        assert_eq!(
            kept,
            bytes[(ends[3] - FIRST_LSN) as usize..(ends[9] - FIRST_LSN) as usize]
        );
        assert_eq!(
            fs::read(&seg).unwrap(),
            bytes,
            "the damaged segment stays as it was"
        );
        assert_eq!(log.current_lsn(), log_end);
        let after = log.append(b"after", log.horizon()).unwrap().unwrap();
        log.flush_to(after, true).unwrap();
        // Until a checkpoint retires the damaged segment, a restart refuses again.
        drop(log);
        assert!(RedoLog::open(dir.path(), false, crate::redo::Ack::Durable).is_err());
        let (log, groups, _) = RedoLog::open(dir.path(), true, crate::redo::Ack::Durable).unwrap();
        assert_eq!(
            groups.len(),
            4,
            "the new segment's group lies past the damage"
        );
        let ck = log.begin_checkpoint();
        log.finish_checkpoint(ck).unwrap();
        let e = log.append(b"next", log.horizon()).unwrap().unwrap();
        log.flush_to(e, true).unwrap();
        drop(log);
        assert!(!seg.exists(), "the checkpoint retired the damaged segment");
        assert!(aside.exists(), "the kept bytes outlive it");
        let (_log, groups, report) =
            RedoLog::open(dir.path(), false, crate::redo::Ack::Durable).unwrap();
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].payload, b"next");
        assert!(report.damage.is_none());
    }

    #[test]
    fn open_keeps_a_torn_tail_aside_and_goes_on_after_the_last_group() {
        let dir = tempfile::tempdir().unwrap();
        let (log, _, _) = RedoLog::open(dir.path(), false, crate::redo::Ack::Durable).unwrap();
        let e1 = log.append(b"first", log.horizon()).unwrap().unwrap();
        let e2 = log.append(&[5u8; 300], log.horizon()).unwrap().unwrap();
        log.flush_to(e2, true).unwrap();
        drop(log);
        let seg = segment_path(dir.path(), FIRST_LSN);
        let bytes = fs::read(&seg).unwrap();
        fs::OpenOptions::new()
            .write(true)
            .open(&seg)
            .unwrap()
            .set_len(e2 - FIRST_LSN - 100)
            .unwrap();
        let (log, groups, report) =
            RedoLog::open(dir.path(), false, crate::redo::Ack::Durable).unwrap();
        assert_eq!(groups.len(), 1);
        let damage = report.damage.unwrap();
        assert!(damage.is_torn_tail() && !damage.forced);
        assert_eq!(damage.lsn, e1);
        let aside = aside_path(dir.path(), FIRST_LSN, e1);
        assert_eq!(
            fs::read(&aside).unwrap(),
            bytes[(e1 - FIRST_LSN) as usize..(e2 - FIRST_LSN - 100) as usize]
        );
        assert!(damage.describe().contains("a torn last write"));
        let e3 = log.append(b"third", log.horizon()).unwrap().unwrap();
        assert!(e3 > e1);
        log.flush_to(e3, true).unwrap();
        drop(log);
        let (_log, groups, report) =
            RedoLog::open(dir.path(), false, crate::redo::Ack::Durable).unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[1].payload, b"third");
        assert!(report.damage.is_none());
    }

    #[test]
    fn a_forced_open_renames_later_segments_aside_and_appends_past_them() {
        let dir = tempfile::tempdir().unwrap();
        let (mut first, starts) = segment(FIRST_LSN, 4, 0);
        let second_start = FIRST_LSN + first.len() as u64;
        first[(starts[2] - FIRST_LSN) as usize + GROUP_HEADER] ^= 1;
        let (second, _) = segment(second_start, 2, 64);
        let first_path = segment_path(dir.path(), FIRST_LSN);
        let second_path = segment_path(dir.path(), second_start);
        fs::write(&first_path, &first).unwrap();
        fs::write(&second_path, &second).unwrap();
        let before = snapshot(dir.path());
        assert!(RedoLog::open(dir.path(), false, crate::redo::Ack::Durable).is_err());
        assert_eq!(snapshot(dir.path()), before);
        let (log, groups, report) =
            RedoLog::open(dir.path(), true, crate::redo::Ack::Durable).unwrap();
        assert_eq!(groups.len(), 2);
        let damage = report.damage.unwrap();
        assert_eq!(
            damage.valid_groups_after, 3,
            "one in the first segment, two in the second"
        );
        let tail_aside = aside_path(dir.path(), FIRST_LSN, starts[2]);
        let second_aside = aside_path(dir.path(), second_start, starts[2]);
        assert_eq!(
            damage.kept_aside,
            vec![tail_aside.clone(), second_aside.clone()]
        );
        assert_eq!(
            fs::read(&tail_aside).unwrap(),
            first[(starts[2] - FIRST_LSN) as usize..]
        );
        assert_eq!(
            fs::read(&second_aside).unwrap(),
            second,
            "renamed, not rewritten"
        );
        assert!(!second_path.exists());
        let log_end = second_start + second.len() as u64;
        assert_eq!(log.current_lsn(), log_end);
        assert!(segment_path(dir.path(), log_end).exists());
    }
}
