//! Disk full and I/O errors, injected at each point where the engine writes (see
//! `myriad_cache::fault`): the redo group write, the redo fsync, the segment's extension,
//! the checkpoint file, table-file write-back and table-file creation. For each:
//! - a statement that gets the error left no trace: its rows are not read, nothing later
//!   writes them, and a restart (the process state a `kill -9` leaves) does not bring them
//!   back;
//! - every acknowledged statement is kept, reads go on during the fault, and writes
//!   succeed again once the fault is cleared, by themselves;
//! - a datadir opens on a "full disk" (recovery's checkpoint failing), serving reads.
//!
//! The fault state is global to the process, so these tests run one at a time
//! ([`one_at_a_time`]) in this binary of their own.

mod common;

use common::*;
use myriad_cache::fault::{self, FaultPoint, EIO, ENOSPC};
use myriad_storage::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    fault::clear();
    guard
}

/// Disarms every fault when a test ends, passed or panicked.
struct Disarm;
impl Drop for Disarm {
    fn drop(&mut self) {
        fault::clear();
    }
}

/// The fault points belong to one test at a time: taken and cleared when a test starts,
/// cleared and then released when it ends, passed or panicked.
struct FaultTest {
    // Dropped in this order: the faults are cleared before the next test may take them.
    _disarm: Disarm,
    _serial: MutexGuard<'static, ()>,
}

fn fault_test() -> FaultTest {
    FaultTest {
        _serial: one_at_a_time(),
        _disarm: Disarm,
    }
}

/// A fault test's start: the fault points (see [`FaultTest`]), a temporary datadir and a
/// storage whose sbtest table d.t holds rows 1..=`rows`, each written by
/// [`insert_and_touch`].
fn sbtest_with_rows(rows: i64) -> (FaultTest, tempfile::TempDir, Storage, Table) {
    let faults = fault_test();
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    for id in 1..=rows {
        insert_and_touch(&s, &t, id).unwrap();
    }
    (faults, dir, s, t)
}

fn ids(t: &Table) -> BTreeSet<i64> {
    t.scan()
        .unwrap()
        .map(|r| match r.unwrap().1[0] {
            Value::Int(v) => v,
            ref d => panic!("id is {d:?}"),
        })
        .collect()
}

fn k_of(t: &Table, id: i64) -> Option<i64> {
    t.lookup_primary(&[Value::Int(id)])
        .unwrap()
        .map(|(_, row)| match row[1] {
            Value::Int(k) => k,
            ref d => panic!("k is {d:?}"),
        })
}

/// One statement: insert `id` and set row 1's k to `id` (two pages' worth of change on a
/// table that has row 1).
fn insert_and_touch(s: &Storage, t: &Table, id: i64) -> Result<()> {
    loop {
        let mut stmt = s.begin();
        let _reads = s.reads_from_now(true);
        let done = (|| {
            t.insert(&mut stmt, &sb_row(id, id))?;
            if let Some((row_id, _)) = t.lookup_primary(&[Value::Int(1)])? {
                t.update(&mut stmt, row_id, &sb_row(1, id))?;
            }
            Ok(())
        })();
        match done {
            // Another writer holds a page: undo, wait for it, and run again (as the SQL
            // layer does).
            Err(StorageError::Busy) => {
                drop(stmt);
                if let Some(Retry::Wait(busy)) = take_retry() {
                    s.wait_page(busy, std::time::Duration::from_secs(20))?;
                }
            }
            Err(e) => return Err(e),
            Ok(()) => return stmt.commit(),
        }
    }
}

fn errno(e: &StorageError) -> Option<i32> {
    match e {
        StorageError::Io(io) => io.raw_os_error(),
        _ => None,
    }
}

/// Reopen the datadir as a process killed now would find it: nothing is flushed or
/// checkpointed on the way (dropping the engine writes what was buffered, as the kernel
/// keeps a killed process's writes).
fn restart(s: Storage, t: Table, dir: &Path) -> (Storage, Table) {
    drop(t);
    drop(s);
    let s = Storage::open(config(dir)).unwrap();
    let t = s.open_table("d", "t").unwrap();
    (s, t)
}

/// A failed redo write (or fsync) at commit: the statement errs and is undone, including
/// the change it made to a row that earlier statements had written; reads never see it;
/// writes fail while the fault lasts and succeed once it is cleared; a restart finds
/// exactly the acknowledged rows.
fn failed_commit_leaves_no_trace(point: FaultPoint, errno_injected: i32) {
    let (_faults, dir, s, t) = sbtest_with_rows(5);
    assert_eq!(k_of(&t, 1), Some(5));
    let hits_before = fault::hits(point);
    let lsn_before = status(&s, "Innodb_lsn_current");
    fault::inject(point, errno_injected);
    let e = insert_and_touch(&s, &t, 6).unwrap_err();
    assert_eq!(errno(&e), Some(errno_injected), "the commit reports {e}");
    // The undone group's LSNs are padded over, never handed out again.
    assert!(status(&s, "Innodb_lsn_current") > lsn_before);
    assert!(fault::hits(point) > hits_before, "the fault was met");
    // Not applied: neither the new row nor the change to row 1.
    assert_eq!(ids(&t), (1..=5).collect());
    assert_eq!(k_of(&t, 1), Some(5));
    assert!(t.check().unwrap().is_ok());
    // Still failing while the fault lasts, and still without a trace.
    assert!(insert_and_touch(&s, &t, 7).is_err());
    assert_eq!(ids(&t), (1..=5).collect());
    // Cleared: the next statement succeeds by itself.
    fault::clear();
    insert_and_touch(&s, &t, 8).unwrap();
    assert_eq!(ids(&t), [1, 2, 3, 4, 5, 8].into());
    assert_eq!(k_of(&t, 1), Some(8));
    let (s, t) = restart(s, t, dir.path());
    assert_eq!(ids(&t), [1, 2, 3, 4, 5, 8].into());
    assert_eq!(k_of(&t, 1), Some(8));
    assert!(t.check().unwrap().is_ok());
    s.shutdown().unwrap();
}

#[test]
fn a_failed_redo_write_leaves_no_trace() {
    failed_commit_leaves_no_trace(FaultPoint::RedoWrite, EIO);
}

#[test]
fn a_full_disk_at_the_redo_write_leaves_no_trace() {
    failed_commit_leaves_no_trace(FaultPoint::RedoWrite, ENOSPC);
}

#[test]
fn a_failed_redo_fsync_leaves_no_trace() {
    failed_commit_leaves_no_trace(FaultPoint::RedoSync, EIO);
}

/// A failed fsync whose group did reach the file: a restart before the fault clears
/// must not replay it (a padding record was written over it when it was undone).
#[test]
fn a_group_whose_fsync_failed_is_not_replayed_after_a_restart() {
    let (_faults, dir, s, t) = sbtest_with_rows(3);
    fault::inject(FaultPoint::RedoSync, EIO);
    assert!(insert_and_touch(&s, &t, 4).is_err());
    // Restarted with the fault still there (the log cannot be synced, but it is read).
    let (s, t) = restart(s, t, dir.path());
    assert_eq!(ids(&t), (1..=3).collect());
    assert_eq!(k_of(&t, 1), Some(3));
    fault::clear();
    insert_and_touch(&s, &t, 5).unwrap();
    let (s, t) = restart(s, t, dir.path());
    assert_eq!(ids(&t), [1, 2, 3, 5].into());
    assert!(t.check().unwrap().is_ok());
    s.shutdown().unwrap();
}

/// The log cannot grow (ENOSPC when extending its segment): the statement fails before
/// anything is logged or applied, reads go on, and writes resume once space returns.
#[test]
fn a_log_that_cannot_grow_refuses_the_statement_up_front() {
    let (_faults, dir, s, t) = sbtest_with_rows(3);
    // Reopened, the segment holds exactly its groups: the next group needs an extension.
    let (s, t) = restart(s, t, dir.path());
    let lsn_before = status(&s, "Innodb_lsn_current");
    fault::inject(FaultPoint::RedoExtend, ENOSPC);
    let e = insert_and_touch(&s, &t, 4).unwrap_err();
    assert_eq!(errno(&e), Some(ENOSPC));
    assert!(is_disk_full(match &e {
        StorageError::Io(io) => io,
        _ => unreachable!(),
    }));
    assert_eq!(
        status(&s, "Innodb_lsn_current"),
        lsn_before,
        "nothing was logged"
    );
    assert_eq!(ids(&t), (1..=3).collect());
    assert_eq!(k_of(&t, 1), Some(3));
    // DDL that logs fails the same way, and leaves nothing.
    assert!(s.create_table("d", "t2", &sbtest_def()).is_err());
    assert!(!s.table_exists("d", "t2"));
    fault::clear();
    insert_and_touch(&s, &t, 5).unwrap();
    s.create_table("d", "t2", &sbtest_def()).unwrap();
    let (s, t) = restart(s, t, dir.path());
    assert_eq!(ids(&t), [1, 2, 3, 5].into());
    assert!(s.table_exists("d", "t2"));
    s.shutdown().unwrap();
}

fn status(s: &Storage, name: &str) -> u64 {
    s.status()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no status {name}"))
}

/// A checkpoint that cannot write its file fails and changes nothing: statements go on,
/// and the next checkpoint succeeds once the fault is cleared.
#[test]
fn a_failed_checkpoint_write_keeps_every_row() {
    let (_faults, dir, s, t) = sbtest_with_rows(3);
    let checkpoint_before = status(&s, "Innodb_lsn_last_checkpoint");
    fault::inject(FaultPoint::CheckpointWrite, ENOSPC);
    assert!(s.checkpoint().is_err());
    assert_eq!(status(&s, "Innodb_lsn_last_checkpoint"), checkpoint_before);
    insert_and_touch(&s, &t, 4).unwrap();
    assert_eq!(ids(&t), (1..=4).collect());
    fault::clear();
    s.checkpoint().unwrap();
    assert!(status(&s, "Innodb_lsn_last_checkpoint") > checkpoint_before);
    let (s, t) = restart(s, t, dir.path());
    assert_eq!(ids(&t), (1..=4).collect());
    s.shutdown().unwrap();
}

/// Table files that cannot be written (EIO, then ENOSPC): write-back and checkpoints fail,
/// the pages stay dirty and in the log, statements and reads go on; cleared, a checkpoint
/// writes them, and a restart finds every row.
#[test]
fn failed_table_write_back_loses_nothing() {
    let (_faults, dir, s, t) = sbtest_with_rows(0);
    // A table's first write completes its header page in the file (an extension, which
    // would fail up front, with nothing changed): done before the fault.
    insert_and_touch(&s, &t, 1).unwrap();
    for errno_injected in [EIO, ENOSPC] {
        fault::inject(FaultPoint::TableWrite, errno_injected);
        let first = ids(&t).last().copied().unwrap_or(0) + 1;
        for id in first..first + 50 {
            insert_and_touch(&s, &t, id).unwrap();
        }
        let e = s.checkpoint().unwrap_err();
        assert_eq!(errno(&e), Some(errno_injected));
        assert!(s.write_back_round().is_err() || s.block_cache_stats().key_blocks_not_flushed > 0);
        assert_eq!(ids(&t), (1..first + 50).collect());
        fault::clear();
    }
    // A restart before any checkpoint succeeded: the log still holds everything.
    let (s, t) = restart(s, t, dir.path());
    assert_eq!(ids(&t), (1..=101).collect());
    assert!(t.check().unwrap().is_ok());
    s.checkpoint().unwrap();
    assert_eq!(s.block_cache_stats().key_blocks_not_flushed, 0);
    s.shutdown().unwrap();
}

/// A table file that cannot be created: CREATE TABLE fails and leaves no table; cleared,
/// it succeeds.
#[test]
fn a_failed_table_create_leaves_no_table() {
    let _faults = fault_test();
    let dir = tempfile::tempdir().unwrap();
    let s = Storage::open(config(dir.path())).unwrap();
    s.create_database("d").unwrap();
    for errno_injected in [ENOSPC, EIO] {
        fault::inject(FaultPoint::TableCreate, errno_injected);
        let e = s.create_table("d", "t", &sbtest_def()).unwrap_err();
        assert_eq!(errno(&e), Some(errno_injected));
        assert!(!s.table_exists("d", "t"));
        assert!(s.list_tables("d").unwrap().is_empty());
        assert!(matches!(
            s.open_table("d", "t"),
            Err(StorageError::NoSuchTable(..))
        ));
        fault::clear();
    }
    s.create_table("d", "t", &sbtest_def()).unwrap();
    assert_eq!(s.list_tables("d").unwrap(), ["t"]);
    // The directory listing holds no half-made file either.
    let names: Vec<String> = std::fs::read_dir(dir.path().join("d"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["t.myt"]);
    s.shutdown().unwrap();
}

/// A datadir that needs recovery opens on a full disk: recovery's checkpoint cannot write
/// the table files, but the engine starts, serves every acknowledged row, refuses writes
/// while the log cannot grow, and takes them once space returns.
#[test]
fn a_datadir_opens_on_a_full_disk() {
    let (_faults, dir, s, t) = sbtest_with_rows(20);
    drop(t);
    drop(s);
    for point in [
        FaultPoint::RedoExtend,
        FaultPoint::TableWrite,
        FaultPoint::TableSync,
        FaultPoint::CheckpointWrite,
        FaultPoint::SegmentCreate,
    ] {
        fault::inject(point, ENOSPC);
    }
    let s = Storage::open(config(dir.path())).unwrap();
    assert!(s.recovery_stats().groups_replayed > 0);
    let t = s.open_table("d", "t").unwrap();
    assert_eq!(ids(&t), (1..=20).collect());
    let e = insert_and_touch(&s, &t, 21).unwrap_err();
    assert_eq!(errno(&e), Some(ENOSPC));
    assert_eq!(ids(&t), (1..=20).collect());
    fault::clear();
    insert_and_touch(&s, &t, 22).unwrap();
    s.checkpoint().unwrap();
    let (s, t) = restart(s, t, dir.path());
    let mut want: BTreeSet<i64> = (1..=20).collect();
    want.insert(22);
    assert_eq!(ids(&t), want);
    s.shutdown().unwrap();
}

/// Writers on one table while the log fsync fails on and off: statements share groups
/// and build on each other's pages, so a failure undoes several at once, newest first.
/// Afterwards, and after a restart, the table holds exactly the acknowledged rows, and
/// every row's k is the last acknowledged update of it.
#[test]
fn concurrent_writers_keep_exactly_their_acknowledged_rows() {
    let (_faults, dir, s, t) = sbtest_with_rows(0);
    drop(t);
    const WRITERS: i64 = 4;
    let stop = Arc::new(AtomicBool::new(false));
    let acked: Vec<_> = (0..WRITERS)
        .map(|w| {
            let s = s.clone();
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                let mut failed = 0u32;
                let mut n = 0i64;
                while !stop.load(Ordering::Acquire) {
                    n += 1;
                    let id = w * 1_000_000 + n;
                    let t = s.open_table("d", "t").unwrap();
                    match insert_and_touch(&s, &t, id) {
                        Ok(()) => acked.push(id),
                        Err(StorageError::Io(_)) => failed += 1,
                        Err(e) => panic!("unexpected {e}"),
                    }
                }
                (acked, failed)
            })
        })
        .collect();
    let started = Instant::now();
    for round in 0..6 {
        std::thread::sleep(Duration::from_millis(60));
        let point = [FaultPoint::RedoSync, FaultPoint::RedoWrite][round % 2];
        fault::inject(point, [EIO, ENOSPC][round % 2]);
        std::thread::sleep(Duration::from_millis(40));
        fault::clear();
    }
    std::thread::sleep(Duration::from_millis(60));
    stop.store(true, Ordering::Release);
    let mut want = BTreeSet::new();
    let mut failures = 0;
    for h in acked {
        let (a, f) = h.join().unwrap();
        want.extend(a);
        failures += f;
    }
    assert!(failures > 0, "some statements met a fault");
    assert!(started.elapsed() < Duration::from_secs(20));
    let t = s.open_table("d", "t").unwrap();
    assert_eq!(
        ids(&t),
        want,
        "the table holds exactly the acknowledged rows"
    );
    assert!(t.check().unwrap().is_ok());
    let k1 = k_of(&t, 1);
    let (s, t) = restart(s, t, dir.path());
    assert_eq!(ids(&t), want, "and so does the log after a restart");
    assert_eq!(k_of(&t, 1), k1);
    assert!(t.check().unwrap().is_ok());
    s.shutdown().unwrap();
}

/// DDL while the log fsync fails: CREATE TABLE fails and leaves no table (not after a
/// restart either: its record was padded over with the failed group), DROP TABLE fails and
/// leaves the table whole; cleared, both succeed.
#[test]
fn ddl_whose_log_fsync_fails_leaves_no_trace() {
    let (_faults, dir, s, t) = sbtest_with_rows(3);
    drop(t);
    fault::inject(FaultPoint::RedoSync, EIO);
    let e = s.create_table("d", "t2", &sbtest_def()).unwrap_err();
    assert_eq!(errno(&e), Some(EIO));
    assert!(!s.table_exists("d", "t2"));
    let e = s.drop_table("d", "t").unwrap_err();
    assert_eq!(errno(&e), Some(EIO));
    let t = s.open_table("d", "t").unwrap();
    assert_eq!(ids(&t), (1..=3).collect());
    // Restarted while the fault lasts: the failed CREATE is not replayed.
    let (s, t) = restart(s, t, dir.path());
    assert!(!s.table_exists("d", "t2"));
    assert_eq!(ids(&t), (1..=3).collect());
    drop(t);
    fault::clear();
    s.create_table("d", "t2", &sbtest_def()).unwrap();
    s.drop_table("d", "t").unwrap();
    let s2 = {
        drop(s);
        Storage::open(config(dir.path())).unwrap()
    };
    assert_eq!(s2.list_tables("d").unwrap(), ["t2"]);
    s2.shutdown().unwrap();
}
