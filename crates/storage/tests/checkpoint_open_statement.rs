//! A statement left open (a SQL transaction whose client is thinking) never holds up a
//! checkpoint: the checkpoint writes the committed images of the statement's pages and
//! returns. Recovery from that checkpoint is right whether the statement then stays open
//! (the process dies), commits, or rolls back.
//!
//! A crash is `std::mem::forget` of the engine: no shutdown, no checkpoint, no page flush.

mod common;

use common::*;
use myriad_storage::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Rows the first statement commits (and leaves dirty: no checkpoint after it).
const COMMITTED: i64 = 400;
/// Rows the open statement inserts after them (new pages: the meta page and fresh ones).
const OPEN_INSERTS: i64 = 200;
/// How long a checkpoint may take here; it never waited for a statement before this limit
/// was set, only forever.
const CHECKPOINT_PATIENCE: Duration = Duration::from_secs(5);

/// `k` of row `id` once the first statement committed it.
fn committed_k(id: i64) -> i64 {
    id * 10
}

/// A datadir whose table `d.t` holds rows 1..=COMMITTED, committed and not flushed, and a
/// statement still open that changed `k` of every one of them (so it holds those dirty
/// pages write-pending) and inserted OPEN_INSERTS rows after them.
fn committed_then_open(dir: &Path) -> (Storage, Table, Statement) {
    let (s, t) = open_sbtest_t(dir);
    let mut st = s.begin();
    for id in 1..=COMMITTED {
        t.insert(&mut st, &sb_row(id, committed_k(id))).unwrap();
    }
    st.commit().unwrap();
    let mut open = s.begin();
    for id in 1..=COMMITTED {
        let (row_id, _) = t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap();
        t.update(&mut open, row_id, &sb_row(id, -id)).unwrap();
    }
    for id in COMMITTED + 1..=COMMITTED + OPEN_INSERTS {
        t.insert(&mut open, &sb_row(id, -id)).unwrap();
    }
    (s, t, open)
}

/// Run a checkpoint on another thread; fails the test if it has not returned within
/// [`CHECKPOINT_PATIENCE`] (the thread is left behind, so the test fails, not hangs).
fn checkpoint_returns(s: &Storage) {
    let engine = s.clone();
    let started = Instant::now();
    let checkpoint = std::thread::spawn(move || engine.checkpoint());
    while !checkpoint.is_finished() && started.elapsed() < CHECKPOINT_PATIENCE {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        checkpoint.is_finished(),
        "the checkpoint waited {CHECKPOINT_PATIENCE:?} for an open statement"
    );
    checkpoint.join().unwrap().unwrap();
}

/// A checkpoint while the statement is open; it must have written committed images: the
/// statement's pages that were dirty stay dirty (their content is not what was written).
fn checkpoint_under_open_statement(s: &Storage) {
    checkpoint_returns(s);
    assert!(
        s.key_cache().stats().key_blocks_not_flushed > 0,
        "no page was dirty and write-pending at the checkpoint: the test misses its case"
    );
}

/// `(id, k)` of every row, in id order.
fn rows(t: &Table) -> Vec<(i64, i64)> {
    t.scan()
        .unwrap()
        .map(|r| match &r.unwrap().1[..2] {
            [Value::Int(id), Value::Int(k)] => (*id, *k),
            other => panic!("unexpected row {other:?}"),
        })
        .collect()
}

/// [`committed_then_open`], a checkpoint under the open statement, then `then` (with the
/// engine, the table and the statement), then a crash. Returns the datadir, reopened.
fn crash_after(then: impl FnOnce(&Storage, &Table, Statement)) -> (tempfile::TempDir, Storage) {
    let dir = tempfile::tempdir().unwrap();
    let (s, t, open) = committed_then_open(dir.path());
    checkpoint_under_open_statement(&s);
    then(&s, &t, open);
    drop(t);
    std::mem::forget(s);
    let s = Storage::open(config(dir.path())).unwrap();
    (dir, s)
}

fn assert_committed_rows_only(t: &Table) {
    let expected: Vec<(i64, i64)> = (1..=COMMITTED).map(|id| (id, committed_k(id))).collect();
    assert_eq!(rows(t), expected);
    let report = t.check().unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
}

#[test]
fn a_checkpoint_returns_while_a_statement_holds_dirty_pages_and_a_crash_keeps_only_committed_rows()
{
    // The process dies with the statement open.
    let (_dir, s) = crash_after(|_, _, open| std::mem::forget(open));
    // Nothing was logged after the checkpoint: every committed row comes from the pages
    // it wrote.
    assert_eq!(s.recovery_stats().groups_replayed, 0);
    assert_committed_rows_only(&s.open_table("d", "t").unwrap());
}

#[test]
fn a_statement_that_commits_after_the_checkpoint_is_replayed_over_its_committed_images() {
    let (_dir, s) = crash_after(|_, _, open| open.commit().unwrap());
    assert!(s.recovery_stats().groups_replayed >= 1);
    let t = s.open_table("d", "t").unwrap();
    let expected: Vec<(i64, i64)> = (1..=COMMITTED + OPEN_INSERTS).map(|id| (id, -id)).collect();
    assert_eq!(rows(&t), expected);
    let report = t.check().unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
}

#[test]
fn a_statement_that_rolls_back_after_the_checkpoint_leaves_the_committed_pages() {
    let (_dir, s) = crash_after(|s, t, open| {
        open.rollback();
        assert_committed_rows_only(t);
        // The pages stayed dirty through the rollback: this one writes them for good.
        checkpoint_returns(s);
        assert_eq!(s.key_cache().stats().key_blocks_not_flushed, 0);
    });
    assert_eq!(s.recovery_stats().groups_replayed, 0);
    assert_committed_rows_only(&s.open_table("d", "t").unwrap());
}

/// Commits racing back-to-back checkpoints, which write the images of the pages a statement
/// holds while it builds and commits (each round updates every row): after a crash every
/// row has the last round's value and the pages check. (The one ordering that matters, a
/// checkpoint that begins after a group's append, is pinned down deterministically by the
/// crate's `checkpoint_race_tests`.)
#[test]
fn commits_racing_checkpoints_leave_every_committed_row_after_a_crash() {
    const ROWS: i64 = 300;
    const ROUNDS: i64 = 150;
    let dir = tempfile::tempdir().unwrap();
    {
        let mut cfg = config(dir.path());
        cfg.flush_log_at_trx_commit = 2;
        let s = Storage::open(cfg).unwrap();
        s.create_database("d").unwrap();
        s.create_table("d", "t", &sbtest_def()).unwrap();
        let t = s.open_table("d", "t").unwrap();
        let mut st = s.begin();
        for id in 1..=ROWS {
            t.insert(&mut st, &sb_row(id, 0)).unwrap();
        }
        st.commit().unwrap();
        let done = std::sync::atomic::AtomicBool::new(false);
        let checkpoints = std::thread::scope(|scope| {
            let checkpointer = scope.spawn(|| {
                let mut n = 0u64;
                while !done.load(std::sync::atomic::Ordering::Acquire) {
                    s.checkpoint().unwrap();
                    n += 1;
                }
                n
            });
            let row_ids: Vec<RowId> = (1..=ROWS)
                .map(|id| t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap().0)
                .collect();
            for round in 1..=ROUNDS {
                let mut st = s.begin();
                for (id, &row_id) in (1..=ROWS).zip(&row_ids) {
                    t.update(&mut st, row_id, &sb_row(id, round)).unwrap();
                }
                st.commit().unwrap();
            }
            done.store(true, std::sync::atomic::Ordering::Release);
            checkpointer.join().unwrap()
        });
        assert!(
            checkpoints > 1,
            "{checkpoints} checkpoint(s) raced the commits"
        );
        drop(t);
        std::mem::forget(s);
    }
    let s = Storage::open(config(dir.path())).unwrap();
    let t = s.open_table("d", "t").unwrap();
    let expected: Vec<(i64, i64)> = (1..=ROWS).map(|id| (id, ROUNDS)).collect();
    assert_eq!(rows(&t), expected);
    let report = t.check().unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
}
