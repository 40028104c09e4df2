//! Fault injection for the engine's file I/O: the one place where a write, an fsync, a file
//! extension or a file creation can be made to fail with `ENOSPC` or `EIO` on demand.
//!
//! Every such operation of the engine calls [`check`] with its [`FaultPoint`] just before
//! the system call: the redo log (group writes, fsyncs, preallocation, new segments, the
//! checkpoint file) and, through [`crate::FileCache`], every table-file write, fsync and
//! create. A test arms a point with `inject` and disarms it with `clear`; the next
//! operation at an armed point fails with the armed errno instead of running, and the
//! operation after `clear` runs for real (a retry succeeds once the fault is gone, as
//! it does once a full disk has space again).
//!
//! **Cost.** Without the `fault-injection` feature [`check`] is an empty inline function
//! returning `Ok(())`: release builds carry nothing. With it, a check is one relaxed atomic
//! load of a bit mask while nothing is armed. The state is global to the process: tests
//! that arm faults run one at a time and in their own test binary.

use std::io;

/// Where an operation can be made to fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum FaultPoint {
    /// A redo group's write into the current segment.
    RedoWrite = 0,
    /// The fsync (fdatasync) that makes redo groups durable.
    RedoSync = 1,
    /// Extending the current segment with its preallocated zeros (and their fsync).
    RedoExtend = 2,
    /// Creating a new redo segment (a checkpoint's rotation).
    SegmentCreate = 3,
    /// Writing (and syncing) the checkpoint file.
    CheckpointWrite = 4,
    /// A page write to a table file (write-back, checkpoint, eviction).
    TableWrite = 5,
    /// An fsync of a table file (checkpoint, RENAME, ALTER).
    TableSync = 6,
    /// Creating a table file (CREATE TABLE, TRUNCATE, ALTER).
    TableCreate = 7,
}

#[cfg(feature = "fault-injection")]
mod armed {
    use super::FaultPoint;
    use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

    /// Bit `p` set: point `p` is armed.
    static ARMED: AtomicU32 = AtomicU32::new(0);
    /// The errno each point fails with while armed.
    static ERRNO: [AtomicI32; 8] = [const { AtomicI32::new(0) }; 8];
    /// Failures produced, per point (tests check that a path really met its fault).
    static HITS: [AtomicU32; 8] = [const { AtomicU32::new(0) }; 8];

    pub fn inject(point: FaultPoint, errno: i32) {
        ERRNO[point as usize].store(errno, Ordering::Relaxed);
        ARMED.fetch_or(1 << point as u32, Ordering::SeqCst);
    }

    pub fn clear() {
        ARMED.store(0, Ordering::SeqCst);
    }

    pub fn hits(point: FaultPoint) -> u32 {
        HITS[point as usize].load(Ordering::Relaxed)
    }

    #[inline]
    pub fn check(point: FaultPoint) -> std::io::Result<()> {
        if ARMED.load(Ordering::Relaxed) & (1 << point as u32) == 0 {
            return Ok(());
        }
        HITS[point as usize].fetch_add(1, Ordering::Relaxed);
        Err(std::io::Error::from_raw_os_error(
            ERRNO[point as usize].load(Ordering::Relaxed),
        ))
    }
}

/// `ENOSPC`: no space left on device.
pub const ENOSPC: i32 = 28;
/// `EIO`: input/output error.
pub const EIO: i32 = 5;

/// Make every following operation at `point` fail with `errno` until `clear`.
#[cfg(feature = "fault-injection")]
pub fn inject(point: FaultPoint, errno: i32) {
    armed::inject(point, errno)
}

/// Disarm every point.
#[cfg(feature = "fault-injection")]
pub fn clear() {
    armed::clear()
}

/// How many operations at `point` failed by injection since the process started.
#[cfg(feature = "fault-injection")]
pub fn hits(point: FaultPoint) -> u32 {
    armed::hits(point)
}

/// The injected error for an operation at `point`, if one is armed.
#[cfg(feature = "fault-injection")]
#[inline]
pub fn check(point: FaultPoint) -> io::Result<()> {
    armed::check(point)
}

/// Without the `fault-injection` feature: nothing is ever injected.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn check(_point: FaultPoint) -> io::Result<()> {
    Ok(())
}

/// Whether `e` says the file system is full (`ENOSPC`, or `EDQUOT`: a quota is).
pub fn is_disk_full(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(ENOSPC) | Some(122)) || e.kind() == io::ErrorKind::StorageFull
}
