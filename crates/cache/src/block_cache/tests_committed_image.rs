//! A write-pending block with a committed image: a waiting flush writes the image (after
//! its log) and goes on, leaving the block dirty; without an image it waits for the writer.
//! Under `--features shuttle`, a committer and a checkpoint under explored schedules.

// Under `--features shuttle` only the schedule exploration runs.
#![cfg_attr(feature = "shuttle", allow(dead_code, unused_imports))]

use super::tests::{write_value, MemIo};
use super::*;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

fn on_disk(io: &MemIo, file: FileId, block: u64) -> Option<u8> {
    io.disk.lock().get(&(file, block)).map(|d| d[0])
}

/// Start `flush_all` on another thread and give it up to `patience`: whether it finished,
/// and the thread (a flush that never ends is left behind: the test fails, not hangs).
fn flush_all_within(cache: &Arc<BlockCache>, patience: Duration) -> (bool, JoinHandle<()>) {
    let flushing = Arc::clone(cache);
    let flusher = std::thread::spawn(move || flushing.flush_all().unwrap());
    (ends_within(&flusher, patience), flusher)
}

/// Wait up to `patience` for `thread` to end; whether it did.
fn ends_within<T>(thread: &JoinHandle<T>, patience: Duration) -> bool {
    let deadline = Instant::now() + patience;
    while !thread.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    thread.is_finished()
}

/// Block 0 of `file` in a cache over `io`: committed at `committed` (LSN 5, dirty), then
/// changed to `uncommitted` by a writer that handed over the committed image.
fn pending_with_image<I: BlockIo + 'static>(
    io: &Arc<I>,
    file: FileId,
    committed: u8,
    uncommitted: u8,
) -> (Arc<BlockCache>, Block) {
    let cache = Arc::new(BlockCache::new(64 * 64, 64, io.clone()));
    let b = cache.create(file, 0).unwrap();
    write_value(&cache, &b, committed.into(), 5);
    b.begin_write_with(Arc::from(&b.read()[..]));
    b.write()[0] = uncommitted;
    (cache, b)
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn a_waiting_flush_writes_the_committed_image_of_a_pending_block_and_leaves_it_dirty() {
    let io = Arc::new(MemIo::default());
    let (cache, b) = pending_with_image(&io, 2, 1, 0xAA);
    // Background write-back and eviction still leave it.
    assert!(!cache.write_back(b.slot(), false).unwrap());
    assert_eq!(on_disk(&io, 2, 0), None);
    // A checkpoint writes the committed value, after its log, and does not wait (the
    // writer only moves on once the flush gave up waiting for it).
    let (finished, flusher) = flush_all_within(&cache, Duration::from_secs(5));
    assert!(finished, "the flush did not wait for the pending writer");
    flusher.join().unwrap();
    assert_eq!(on_disk(&io, 2, 0), Some(1));
    assert_eq!(io.durable_lsn.load(Ordering::SeqCst), 5);
    assert_eq!(io.violations.load(Ordering::SeqCst), 0);
    assert!(
        b.is_dirty(),
        "the image is not the block's content: it stays dirty"
    );
    assert_eq!(cache.stats().key_blocks_not_flushed, 1);
    cache.validate();

    // Rolled back: the image is restored and let go with the last end_write; the next
    // flush writes the block itself and cleans it.
    b.write()[0] = 1;
    b.end_write();
    cache.validate();
    io.disk.lock().clear();
    cache.flush_file(2).unwrap();
    assert_eq!(on_disk(&io, 2, 0), Some(1));
    assert!(!b.is_dirty());
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn a_pending_block_without_an_image_still_holds_a_waiting_flush_until_its_end_write() {
    let io = Arc::new(MemIo::default());
    let (cache, b) = pending_with_image(&io, 3, 1, 2);
    // Committing: the image stops being the committed content before the log record.
    b.drop_committed_image();
    cache.mark_dirty(&b, 9);
    b.write()[8..16].copy_from_slice(&9u64.to_le_bytes());
    let (finished_early, flusher) = flush_all_within(&cache, Duration::from_millis(200));
    assert!(!finished_early, "the flush waited for the committer");
    b.end_write();
    flusher.join().unwrap();
    assert_eq!(on_disk(&io, 3, 0), Some(2));
    assert!(!b.is_dirty());
    assert_eq!(io.violations.load(Ordering::SeqCst), 0);
    cache.validate();
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn a_second_pending_writer_keeps_the_first_writers_image() {
    let io = Arc::new(MemIo::default());
    let (cache, b) = pending_with_image(&io, 4, 7, 8);
    b.begin_write_with(Arc::from(&b.read()[..]));
    b.end_write();
    cache.flush_all().unwrap();
    assert_eq!(on_disk(&io, 4, 0), Some(7));
    b.end_write();
    cache.validate();
}

/// A disk that records the first byte (the version) of each write as it completes, and
/// whose first write of version `gated` waits, once it began, until the test says go.
struct GatedIo {
    gated: u8,
    written: parking_lot::Mutex<Vec<u8>>,
    entered: parking_lot::Mutex<Option<std::sync::mpsc::Sender<()>>>,
    release: parking_lot::Mutex<std::sync::mpsc::Receiver<()>>,
}

impl BlockIo for GatedIo {
    fn read_block(&self, _: FileId, _: u64, _: &mut [u8]) -> io::Result<()> {
        Err(io::Error::other("the block is created, never read"))
    }
    fn write_block(&self, _: FileId, _: u64, buf: &[u8]) -> io::Result<()> {
        if buf[0] == self.gated {
            if let Some(entered) = self.entered.lock().take() {
                entered.send(()).unwrap();
                self.release.lock().recv().unwrap();
            }
        }
        self.written.lock().push(buf[0]);
        Ok(())
    }
    fn flush_log(&self, _: u64) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(not(feature = "shuttle"))]
#[test]
fn an_image_write_in_flight_holds_back_the_commit_so_an_older_image_never_lands_last() {
    let (entered, checkpoint_writing) = std::sync::mpsc::channel();
    let (go, release) = std::sync::mpsc::channel();
    let io = Arc::new(GatedIo {
        gated: 1,
        written: Default::default(),
        entered: parking_lot::Mutex::new(Some(entered)),
        release: parking_lot::Mutex::new(release),
    });
    let (cache, b) = pending_with_image(&io, 5, 1, 2);
    // A checkpoint writes the image (version 1) and is held in the middle of that write.
    let checkpoint = {
        let cache = Arc::clone(&cache);
        std::thread::spawn(move || cache.flush_all().unwrap())
    };
    checkpoint_writing
        .recv_timeout(Duration::from_secs(5))
        .expect("the checkpoint writes the committed image");
    // The writer commits meanwhile; then a flush would write its version 2.
    let committer = {
        let cache = Arc::clone(&cache);
        std::thread::spawn(move || {
            b.drop_committed_image();
            cache.mark_dirty(&b, 9);
            b.write()[8..16].copy_from_slice(&9u64.to_le_bytes());
            b.raise_flush_lsn(9);
            b.end_write();
        })
    };
    let stamped_during_the_write = ends_within(&committer, Duration::from_millis(100));
    let flush = {
        let cache = Arc::clone(&cache);
        std::thread::spawn(move || cache.flush_file(5).unwrap())
    };
    ends_within(&flush, Duration::from_millis(100));
    go.send(()).unwrap();
    for thread in [checkpoint, committer, flush] {
        thread.join().unwrap();
    }
    assert!(
        !stamped_during_the_write,
        "the commit stamped the block while its image was being written"
    );
    assert_eq!(*io.written.lock(), [1, 2], "writes landed out of order");
    cache.validate();
}

#[cfg(feature = "shuttle")]
mod schedules {
    use super::*;

    const COMMITTED: u64 = 1;
    const COMMITTED_LSN: u64 = 5;
    const NEW: u64 = 2;
    const NEW_LSN: u64 = 9;
    /// Schedule points the writer spends between its change and its commit or rollback
    /// (more than a flush takes to find the block among the cache's 64 slots).
    const OPEN_STEPS: usize = 300;

    /// A disk that keeps the (version, LSN) of every write of its one block (bytes 0..8 and
    /// 8..16, as `write_value` puts them) and checks each against what came before.
    #[derive(Default)]
    struct VersionIo {
        written: parking_lot::Mutex<Vec<(u64, u64)>>,
        durable_lsn: std::sync::atomic::AtomicU64,
    }

    impl BlockIo for VersionIo {
        fn read_block(&self, _: FileId, _: u64, _: &mut [u8]) -> io::Result<()> {
            Err(io::Error::other("the block is created, never read"))
        }
        fn write_block(&self, _: FileId, _: u64, buf: &[u8]) -> io::Result<()> {
            // A write takes time: other threads run meanwhile (a schedule point).
            shuttle::thread::yield_now();
            let version = u64::from_le_bytes(buf[0..8].try_into().unwrap());
            let lsn = u64::from_le_bytes(buf[8..16].try_into().unwrap());
            assert!(
                lsn <= self.durable_lsn.load(std::sync::atomic::Ordering::SeqCst),
                "written before its log"
            );
            assert!(
                version != NEW || lsn == NEW_LSN,
                "uncommitted bytes were written"
            );
            let mut written = self.written.lock();
            if let Some(&(last, _)) = written.last() {
                assert!(version >= last, "an older image landed over a newer write");
            }
            written.push((version, lsn));
            Ok(())
        }
        fn flush_log(&self, lsn: u64) -> io::Result<()> {
            self.durable_lsn
                .fetch_max(lsn, std::sync::atomic::Ordering::SeqCst);
            Ok(())
        }
    }

    /// A writer changes a dirty block with its committed image handed over, then commits
    /// (as storage does: dirty, image dropped, group appended, stamped, end_write) or rolls
    /// back; a checkpoint reads the log's end, then flushes everything, and another flush
    /// races them. A checkpoint that
    /// saw the group appended must leave the new version on disk; no write is uncommitted
    /// or older than one before it; in the end the block holds what the writer left.
    fn scenario(commit: bool) {
        let io = Arc::new(VersionIo::default());
        let cache = Arc::new(BlockCache::new(SHARD_COUNT * 64, 64, io.clone()));
        let b = cache.create(1, 0).unwrap();
        write_value(&cache, &b, COMMITTED, COMMITTED_LSN);
        let log_end = Arc::new(AtomicU64::new(COMMITTED_LSN));
        let writer = {
            let (cache, log_end) = (cache.clone(), log_end.clone());
            shuttle::thread::spawn(move || {
                let image: Arc<[u8]> = Arc::from(&b.read()[..]);
                b.begin_write_with(Arc::clone(&image));
                b.write()[0..8].copy_from_slice(&NEW.to_le_bytes());
                // The statement stays open a while: the flushes reach the block meanwhile.
                for _ in 0..OPEN_STEPS {
                    shuttle::thread::yield_now();
                }
                if commit {
                    cache.mark_dirty(&b, 0);
                    b.drop_committed_image();
                    log_end.store(NEW_LSN, Ordering::SeqCst);
                    b.write()[8..16].copy_from_slice(&NEW_LSN.to_le_bytes());
                    b.raise_flush_lsn(NEW_LSN);
                } else {
                    b.write().copy_from_slice(&image);
                }
                b.end_write();
            })
        };
        let checkpoint = {
            let cache = cache.clone();
            let io = io.clone();
            shuttle::thread::spawn(move || {
                let horizon = log_end.load(Ordering::SeqCst);
                cache.flush_all().unwrap();
                (horizon, io.written.lock().last().copied())
            })
        };
        // A second flush (DDL's flush_file) racing both: writes never go back in time.
        let other = {
            let cache = cache.clone();
            shuttle::thread::spawn(move || cache.flush_file(1).unwrap())
        };
        writer.join().unwrap();
        let (horizon, last) = checkpoint.join().unwrap();
        other.join().unwrap();
        let expected = if commit { NEW } else { COMMITTED };
        if horizon >= NEW_LSN {
            assert_eq!(
                last,
                Some((NEW, NEW_LSN)),
                "the checkpoint missed a logged group"
            );
        } else {
            assert!(
                last.is_some(),
                "the checkpoint left a dirty block unwritten"
            );
        }
        cache.flush_all().unwrap();
        assert_eq!(io.written.lock().last().map(|w| w.0), Some(expected));
        cache.validate();
    }

    #[test]
    fn a_committer_and_a_checkpoint_under_random_and_pct_schedules() {
        crate::sync::explore_schedules(|| scenario(true), 150, 150);
    }

    #[test]
    fn a_rollback_and_a_checkpoint_under_random_and_pct_schedules() {
        crate::sync::explore_schedules(|| scenario(false), 150, 150);
    }
}
