//! Consistent reads against a model: a snapshot reads every table (by a scan, a secondary
//! index range, point lookups and the row count) exactly as the model stood at the commit
//! it was taken after, while later commits insert, update and delete; versions go once no
//! snapshot needs them; a writer whose table changed under its snapshot gets an error, not
//! a mix; and readers of a table that transfers move between rows always see the same sum.

mod common;

use common::*;
use myriad_storage::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

type Model = BTreeMap<i64, i64>;

#[derive(Debug, Clone)]
enum Op {
    /// Commit one statement: upsert ids `from..from + count` with k = id * 3 + salt.
    Upsert { from: i64, count: i64, salt: i64 },
    /// Commit one statement deleting ids `from..from + count`.
    Delete { from: i64, count: i64 },
    /// Reader `n` (of 3) takes a snapshot now.
    Take(usize),
    /// Reader `n` lets its snapshot go.
    Release(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let range = (1i64..500, 1i64..200);
    prop_oneof![
        3 => (range.clone(), 0i64..1000).prop_map(|((from, count), salt)| Op::Upsert { from, count, salt }),
        2 => range.prop_map(|(from, count)| Op::Delete { from, count }),
        2 => (0usize..3).prop_map(Op::Take),
        1 => (0usize..3).prop_map(Op::Release),
    ]
}

fn commit(t: &Table, s: &Storage, model: &mut Model, op: &Op) {
    let mut stmt = s.begin();
    let _own = stmt.reading_own();
    match *op {
        Op::Upsert { from, count, salt } => {
            for id in from..from + count {
                let row = sb_row(id, id * 3 + salt);
                match t.lookup_primary(&[Value::Int(id)]).unwrap() {
                    Some((row_id, _)) => assert!(t.update(&mut stmt, row_id, &row).unwrap()),
                    None => {
                        t.insert(&mut stmt, &row).unwrap();
                    }
                }
                model.insert(id, id * 3 + salt);
            }
        }
        Op::Delete { from, count } => {
            for id in from..from + count {
                if model.remove(&id).is_some() {
                    let (row_id, _) = t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap();
                    assert!(t.delete(&mut stmt, row_id).unwrap());
                }
            }
        }
        _ => unreachable!(),
    }
    drop(_own);
    stmt.commit().unwrap();
}

/// Commit one statement upserting ids `from..from + count` with k = id * 3 + salt.
fn upsert(t: &Table, s: &Storage, model: &mut Model, from: i64, count: i64, salt: i64) {
    commit(t, s, model, &Op::Upsert { from, count, salt });
}

fn pair(row: &[Value]) -> (i64, i64) {
    match (&row[0], &row[1]) {
        (Value::Int(id), Value::Int(k)) => (*id, *k),
        other => panic!("unexpected row {other:?}"),
    }
}

/// What the table reads as on this thread, every way it can be read.
fn check_reads(t: &Table, model: &Model, what: &str) {
    let scanned: Model = t.scan().unwrap().map(|r| pair(&r.unwrap().1)).collect();
    assert_eq!(&scanned, model, "scan, {what}");
    let mut by_k: Vec<(i64, i64)> = t
        .index_scan(1, Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .unwrap()
        .map(|r| pair(&r.unwrap().1))
        .collect();
    by_k.sort();
    let expected: Vec<(i64, i64)> = model.iter().map(|(a, b)| (*a, *b)).collect();
    assert_eq!(by_k, expected, "index k, {what}");
    assert_eq!(
        t.row_count().unwrap(),
        model.len() as u64,
        "row count, {what}"
    );
    for id in [1, 50, 150, 333, 499, 650] {
        let got = t
            .lookup_primary(&[Value::Int(id)])
            .unwrap()
            .map(|(_, r)| pair(&r).1);
        assert_eq!(got, model.get(&id).copied(), "id {id}, {what}");
    }
}

fn run(ops: &[Op]) {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut model = Model::new();
    let readers: Vec<SnapshotSlot> = (0..3).map(|_| s.snapshot_slot()).collect();
    // Each reader's snapshot and the model as it stood then.
    let mut taken: Vec<Option<(u64, Model)>> = vec![None; 3];
    for (n, op) in ops.iter().enumerate() {
        match *op {
            Op::Take(r) => taken[r] = Some((readers[r].take(), model.clone())),
            Op::Release(r) => {
                readers[r].release();
                taken[r] = None;
            }
            _ => commit(&t, &s, &mut model, op),
        }
        for (r, held) in taken.iter().enumerate() {
            if let Some((at, then)) = held {
                let _at = reading_at(Some(*at));
                check_reads(&t, then, &format!("reader {r} after op {n} {op:?}"));
            }
        }
        check_reads(&t, &model, &format!("latest after op {n} {op:?}"));
    }
    for r in &readers {
        r.release();
    }
    assert_eq!(
        s.page_versions(),
        0,
        "versions left once no snapshot is held"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn a_snapshot_reads_the_commits_before_it_and_none_after(ops in proptest::collection::vec(op(), 1..16)) {
        run(&ops);
    }
}

#[test]
fn versions_are_kept_only_while_a_snapshot_needs_them() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut model = Model::new();
    let upsert = Op::Upsert {
        from: 1,
        count: 10,
        salt: 0,
    };
    commit(&t, &s, &mut model, &upsert);
    assert_eq!(s.page_versions(), 0, "no snapshot: nothing kept");
    let slot = s.snapshot_slot();
    let at = slot.take();
    commit(&t, &s, &mut model, &upsert);
    assert!(
        s.page_versions() > 0,
        "a snapshot older than the commit keeps its pages"
    );
    assert!(s.published_commit() > at);
    slot.release();
    assert_eq!(s.page_versions(), 0);
    // A slot dropped while holding a snapshot lets its versions go too.
    let slot = s.snapshot_slot();
    slot.take();
    commit(&t, &s, &mut model, &upsert);
    assert!(s.page_versions() > 0);
    drop(slot);
    assert_eq!(s.page_versions(), 0);
}

#[test]
fn a_writer_whose_pages_changed_after_its_snapshot_gets_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut model = Model::new();
    upsert(&t, &s, &mut model, 1, 5, 0);
    let slot = s.snapshot_slot();
    let at = slot.take();
    // Another statement changes row 1 after the snapshot.
    upsert(&t, &s, &mut model, 1, 1, 7);
    // This one now writes the table (row 5), then reads it at its snapshot.
    let mut stmt = s.begin();
    let own = stmt.reading_own();
    let (row_id, _) = t.lookup_primary(&[Value::Int(5)]).unwrap().unwrap();
    assert!(t.update(&mut stmt, row_id, &sb_row(5, 99)).unwrap());
    let _at = reading_at(Some(at));
    match t.scan().unwrap().next() {
        Some(Err(StorageError::ChangedSinceSnapshot(name))) => assert_eq!(name, "t"),
        other => panic!("expected ChangedSinceSnapshot, got {other:?}"),
    }
    drop(_at);
    // Read as of the latest commits it sees both changes; others still see neither.
    assert_eq!(
        t.lookup_primary(&[Value::Int(5)])
            .unwrap()
            .map(|(_, r)| pair(&r).1),
        Some(99)
    );
    drop(own);
    assert_eq!(
        t.lookup_primary(&[Value::Int(5)])
            .unwrap()
            .map(|(_, r)| pair(&r).1),
        Some(15)
    );
    stmt.rollback();
    // A writer whose table did not change after its snapshot reads it with its changes.
    let at = slot.take();
    let mut stmt = s.begin();
    let own = stmt.reading_own();
    assert!(t.update(&mut stmt, row_id, &sb_row(5, 98)).unwrap());
    let _at = reading_at(Some(at));
    let rows: Model = t.scan().unwrap().map(|r| pair(&r.unwrap().1)).collect();
    assert_eq!(rows.get(&5), Some(&98));
    assert_eq!(rows.get(&1), Some(&10));
    drop(own);
}

/// Transfers between rows keep the total; readers sum the table by full scans (hundreds of
/// rows: many latch holds each) at snapshots taken throughout, and always find the total.
#[test]
fn readers_at_a_snapshot_always_see_the_same_total() {
    const ROWS: i64 = 600;
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut model = Model::new();
    upsert(&t, &s, &mut model, 1, ROWS, 0);
    let total: i64 = model.values().sum();
    let s = Arc::new(s);
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (s, t, stop) = (Arc::clone(&s), t.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                let slot = s.snapshot_slot();
                let mut sums = 0;
                while !stop.load(Ordering::Relaxed) {
                    let _at = reading_at(Some(slot.take()));
                    let sum: i64 = t.scan().unwrap().map(|r| pair(&r.unwrap().1).1).sum();
                    assert_eq!(sum, total, "a snapshot's sum");
                    sums += 1;
                }
                slot.release();
                sums
            })
        })
        .collect();
    for i in 0..300i64 {
        let (from, to) = (1 + (i * 37) % ROWS, 1 + (i * 101 + 5) % ROWS);
        if from == to {
            continue;
        }
        let mut stmt = s.begin();
        let own = stmt.reading_own();
        for (id, delta) in [(from, -7), (to, 7)] {
            let (row_id, row) = t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap();
            let k = pair(&row).1 + delta;
            assert!(t.update(&mut stmt, row_id, &sb_row(id, k)).unwrap());
        }
        drop(own);
        stmt.commit().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    let sum: i64 = t.scan().unwrap().map(|r| pair(&r.unwrap().1).1).sum();
    assert_eq!(sum, total);
    assert_eq!(s.page_versions(), 0);
}

/// `reading_from` takes the snapshot at the first table read, not before.
#[test]
fn a_snapshot_starts_at_the_first_read() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut model = Model::new();
    let upsert = |salt| Op::Upsert {
        from: 1,
        count: 3,
        salt,
    };
    commit(&t, &s, &mut model, &upsert(0));
    let slot = s.snapshot_slot();
    {
        let _view = reading_from(&slot);
        assert_eq!(slot.held(), None, "no read yet");
        // Another session commits (its reads are its own: another thread).
        std::thread::scope(|scope| {
            scope.spawn(|| commit(&t, &s, &mut model, &upsert(1)));
        });
        check_reads(&t, &model, "first read after the second commit");
        assert_eq!(slot.held(), Some(s.published_commit()));
    }
    let then = model.clone();
    commit(&t, &s, &mut model, &upsert(2));
    assert!(s.published_commit() > slot.held().unwrap());
    // The next statement of the same transaction reads at the snapshot the slot holds.
    let _view = reading_from(&slot);
    check_reads(&t, &then, "a later statement");
    drop(_view);
    check_reads(&t, &model, "outside the view");
    slot.release();
}

/// A writer reads the pages it did not change at its snapshot, even in a table others
/// changed after it: only a page both changed is an error.
#[test]
fn a_writer_reads_at_its_snapshot_the_pages_it_did_not_change() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut model = Model::new();
    upsert(&t, &s, &mut model, 1, 600, 0);
    let slot = s.snapshot_slot();
    let at = slot.take();
    let then = model.clone();
    // Another statement changes row 1 (the first leaf) after the snapshot.
    upsert(&t, &s, &mut model, 1, 1, 7);
    let mut stmt = s.begin();
    let own = stmt.reading_own();
    let (row_id, _) = t.lookup_primary(&[Value::Int(600)]).unwrap().unwrap();
    assert!(t.update(&mut stmt, row_id, &sb_row(600, -1)).unwrap());
    let _at = reading_at(Some(at));
    let mut expected = then.clone();
    expected.insert(600, -1);
    let rows: Model = t.scan().unwrap().map(|r| pair(&r.unwrap().1)).collect();
    assert_eq!(rows, expected, "the snapshot with the writer's own change");
    drop(_at);
    drop(own);
    stmt.rollback();
    slot.release();
}

/// A snapshot from before a table was made anew (TRUNCATE, CREATE) cannot read it: the
/// table's DDL records its commit number while such a snapshot lives.
#[test]
fn a_snapshot_from_before_a_table_was_made_cannot_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut model = Model::new();
    upsert(&t, &s, &mut model, 1, 3, 0);
    drop(t);
    let slot = s.snapshot_slot();
    let at = slot.take();
    s.truncate_table("d", "t").unwrap();
    s.create_table("d", "u", &sbtest_def()).unwrap();
    for name in ["t", "u"] {
        let table = s.open_table("d", name).unwrap();
        let _at = reading_at(Some(at));
        assert!(
            matches!(table.scan().unwrap().next(), Some(Err(StorageError::Stale))),
            "{name} at a snapshot from before it"
        );
        drop(_at);
        assert_eq!(table.scan().unwrap().count(), 0, "{name} now");
        // Another session's snapshot, taken now (this one's stays held).
        let later = s.snapshot_slot();
        let _now = reading_at(Some(later.take()));
        assert_eq!(
            table.scan().unwrap().count(),
            0,
            "{name} at a later snapshot"
        );
    }
    slot.release();
}
