//! Readers and writers on one table at once, with checkpoints running: readers never see a
//! broken row, a misordered scan or an index entry that disagrees with its row; the final
//! state equals the writers' models; CHECK TABLE passes.

mod common;

use common::*;
use myriad_storage::*;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const WRITERS: i64 = 2;
const READERS: usize = 4;
const IDS_PER_WRITER: i64 = 1000;

fn k_of(row: &Row) -> i64 {
    match row[1] {
        Value::Int(k) => k,
        _ => panic!("k is not an INT"),
    }
}

/// c always spells the row's id and k: a torn or mixed row shows up as a mismatch.
fn consistent(row: &Row) -> bool {
    let id = match row[0] {
        Value::Int(v) => v,
        _ => return false,
    };
    row[2] == Value::Bytes(format!("c-{id:08}-{}", k_of(row)).into_bytes())
}

#[test]
fn readers_and_writers_keep_every_invariant() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.flush_log_at_trx_commit = 2;
    cfg.block_cache_bytes = 2 << 20; // small: eviction and write-back under load
    let s = Storage::open(cfg).unwrap();
    s.create_database("c").unwrap();
    s.create_table("c", "t", &sbtest_def()).unwrap();
    let t = s.open_table("c", "t").unwrap();
    let mut st = s.begin();
    for id in 1..=WRITERS * IDS_PER_WRITER {
        t.insert(&mut st, &sb_row(id, id % 100)).unwrap();
    }
    st.commit().unwrap();

    let stop = AtomicBool::new(false);
    let reads = AtomicU64::new(0);
    let deadline = Instant::now() + Duration::from_secs(3);
    let models: Vec<BTreeMap<i64, i64>> = std::thread::scope(|scope| {
        for r in 0..READERS {
            let (t, stop, reads) = (&t, &stop, &reads);
            scope.spawn(move || {
                let mut x = r as u64 + 1;
                while !stop.load(Ordering::Relaxed) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let id = 1 + ((x >> 33) as i64 % (WRITERS * IDS_PER_WRITER));
                    if let Some((_, row)) = t.lookup_primary(&[Value::Int(id)]).unwrap() {
                        assert!(consistent(&row), "torn row {row:?}");
                    }
                    let lo = (x >> 40) as i64 % 100;
                    let (a, b) = ([Value::Int(lo)], [Value::Int(lo + 3)]);
                    let mut last = i64::MIN;
                    for item in t
                        .index_scan(
                            1,
                            Bound::Included(&a),
                            Bound::Excluded(&b),
                            Direction::Forward,
                        )
                        .unwrap()
                    {
                        let (_, row) = item.unwrap();
                        let k = k_of(&row);
                        assert!(
                            (lo..lo + 3).contains(&k),
                            "index range returned k {k} outside [{lo}, {})",
                            lo + 3
                        );
                        assert!(k >= last, "index scan out of order");
                        assert!(consistent(&row));
                        last = k;
                    }
                    if r == 0 && x.is_multiple_of(16) {
                        let mut prev = 0;
                        for item in t.scan().unwrap() {
                            let (row_id, row) = item.unwrap();
                            assert!(row_id > prev, "scan out of row id order");
                            assert!(consistent(&row));
                            prev = row_id;
                        }
                    }
                    reads.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        {
            let (s, stop) = (&s, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    s.checkpoint().unwrap();
                    std::thread::sleep(Duration::from_millis(100));
                }
            });
        }
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (s, t) = (&s, &t);
                scope.spawn(move || {
                    // Each writer owns ids w*IDS+1 ..= (w+1)*IDS; model: id -> k.
                    let base = w * IDS_PER_WRITER;
                    let mut model: BTreeMap<i64, i64> = (base + 1..=base + IDS_PER_WRITER)
                        .map(|id| (id, id % 100))
                        .collect();
                    let mut x = 1000 + w as u64;
                    while Instant::now() < deadline {
                        // Writers meet on shared pages (the index, the root): a statement
                        // that meets another's page undoes its work, waits for the page and
                        // runs again, as the SQL layer does.
                        let mut changes = Vec::new();
                        let mut st = s.begin();
                        let done = (|| -> myriad_storage::Result<()> {
                            // Its lookups see its own changes (others see the committed rows).
                            let _own = st.reading_own();
                            for _ in 0..4 {
                                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                                let id = base + 1 + ((x >> 33) as i64 % IDS_PER_WRITER);
                                let k = (x >> 45) as i64 % 100;
                                let found = t.lookup_primary(&[Value::Int(id)])?;
                                match (found, x % 3) {
                                    (Some((row_id, _)), 0) => {
                                        assert!(t.delete(&mut st, row_id)?);
                                        changes.push((id, None));
                                    }
                                    (Some((row_id, _)), _) => {
                                        assert!(t.update(&mut st, row_id, &sb_row(id, k))?);
                                        changes.push((id, Some(k)));
                                    }
                                    (None, _) => {
                                        t.insert(&mut st, &sb_row(id, k))?;
                                        changes.push((id, Some(k)));
                                    }
                                }
                            }
                            Ok(())
                        })();
                        match done {
                            Ok(()) => st.commit().unwrap(),
                            Err(StorageError::Busy) => {
                                drop(st);
                                if let Some(Retry::Wait(busy)) = myriad_storage::take_retry() {
                                    s.wait_page(busy, Duration::from_secs(20)).unwrap();
                                }
                                continue;
                            }
                            Err(e) => panic!("{e}"),
                        }
                        for (id, k) in changes {
                            match k {
                                Some(k) => model.insert(id, k),
                                None => model.remove(&id),
                            };
                        }
                    }
                    model
                })
            })
            .collect();
        let models = writers.into_iter().map(|h| h.join().unwrap()).collect();
        stop.store(true, Ordering::Relaxed);
        models
    });
    assert!(
        reads.load(Ordering::Relaxed) > 100,
        "readers made no progress"
    );
    let model: BTreeMap<i64, i64> = models.into_iter().flatten().collect();
    let got: BTreeMap<i64, i64> = t
        .scan()
        .unwrap()
        .map(|r| {
            let row = r.unwrap().1;
            (if let Value::Int(id) = row[0] { id } else { 0 }, k_of(&row))
        })
        .collect();
    assert_eq!(got, model);
    assert_eq!(t.row_count().unwrap(), model.len() as u64);
    let report = t.check().unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
}

#[test]
fn ddl_runs_alongside_queries_and_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.flush_log_at_trx_commit = 2;
    let s = Storage::open(cfg).unwrap();
    s.create_database("c").unwrap();
    s.create_database("other").unwrap();
    s.create_table("c", "stable", &sbtest_def()).unwrap();
    let stop = AtomicBool::new(false);
    let deadline = Instant::now() + Duration::from_secs(2);
    let expected_errors =
        |e: &StorageError| matches!(e, StorageError::NoSuchTable(..) | StorageError::Stale);
    /// Stops the helper threads however the main body ends (a failed assertion must fail
    /// the test, not leave the scope waiting for threads that never stop).
    struct StopOnDrop<'a>(&'a AtomicBool);
    impl Drop for StopOnDrop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    std::thread::scope(|scope| {
        let (s, stop) = (&s, &stop);
        let _stop_guard = StopOnDrop(stop);
        scope.spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                s.checkpoint().unwrap();
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        // Readers of tables that come and go: only "doesn't exist" and "stale" are expected.
        scope.spawn(move || {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                i += 1;
                for (db, name) in [
                    ("c", format!("x{}", i % 8)),
                    ("other", format!("y{}", i % 8)),
                ] {
                    match s.open_table(db, &name) {
                        Ok(t) => match t.scan() {
                            Ok(scan) => {
                                for item in scan {
                                    if let Err(e) = item {
                                        assert!(expected_errors(&e), "scan of {db}.{name}: {e}");
                                        break;
                                    }
                                }
                            }
                            Err(e) => assert!(expected_errors(&e), "{e}"),
                        },
                        Err(e) => assert!(expected_errors(&e), "open {db}.{name}: {e}"),
                    }
                }
            }
        });
        let writer = scope.spawn(move || {
            let t = s.open_table("c", "stable").unwrap();
            let mut n = 0i64;
            while Instant::now() < deadline {
                n += 1;
                let mut st = s.begin();
                t.insert(&mut st, &sb_row(n, n)).unwrap();
                st.commit().unwrap();
            }
            n
        });
        let mut cycles = 0;
        while Instant::now() < deadline {
            let i = cycles % 8;
            let (x, y) = (format!("x{i}"), format!("y{i}"));
            s.create_table("c", &x, &sbtest_def()).unwrap();
            let t = s.open_table("c", &x).unwrap();
            let mut st = s.begin();
            for id in 1..=50 {
                t.insert(&mut st, &sb_row(id, id)).unwrap();
            }
            st.commit().unwrap();
            // A DDL waits for the handles in use of its table, this thread's included.
            drop(t);
            s.rename_table("c", &x, "other", &y).unwrap();
            let moved = s.open_table("other", &y).unwrap();
            assert_eq!(moved.row_count().unwrap(), 50);
            drop(moved);
            if cycles % 3 == 0 {
                s.truncate_table("other", &y).unwrap();
            }
            s.drop_table("other", &y).unwrap();
            cycles += 1;
        }
        let written = writer.join().unwrap();
        stop.store(true, Ordering::Relaxed);
        assert!(cycles > 3, "DDL made no progress");
        let t = s.open_table("c", "stable").unwrap();
        assert_eq!(t.row_count().unwrap(), written as u64);
        assert!(t.check().unwrap().is_ok());
    });
    assert_eq!(s.list_tables("c").unwrap(), vec!["stable"]);
    assert!(s.list_tables("other").unwrap().is_empty());
    // And the datadir recovers cleanly.
    drop(s);
    let s = Storage::open(config(dir.path())).unwrap();
    assert!(s
        .open_table("c", "stable")
        .unwrap()
        .check()
        .unwrap()
        .is_ok());
}

/// Tables that go empty and back again while readers scan them: a reader never misses a row
/// committed before its scan began (an empty table is remembered as empty only while no
/// statement writes it, and forgotten before a statement's first change).
#[test]
fn readers_never_miss_rows_of_a_table_that_empties_and_refills() {
    let dir = tempfile::tempdir().unwrap();
    let s = sbtest_tables(dir.path(), &["t"]);
    // Rows committed and not deleted since: every scan must see at least these.
    let committed = std::sync::atomic::AtomicI64::new(0);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let readers: Vec<_> = (0..3)
            .map(|_| {
                scope.spawn(|| {
                    let t = s.open_table("d", "t").unwrap();
                    let mut checks = 0u64;
                    while !done.load(Ordering::Acquire) {
                        let must_see = committed.load(Ordering::Acquire);
                        let seen: Vec<i64> = t
                            .scan()
                            .unwrap()
                            .map(|r| match r.unwrap().1[0] {
                                Value::Int(v) => v,
                                ref d => panic!("id is {d:?}"),
                            })
                            .collect();
                        // Still committed after the scan: it was there for the whole scan (the
                        // writer says 0 before it deletes).
                        if must_see > 0 && committed.load(Ordering::Acquire) == must_see {
                            assert!(
                                seen.contains(&must_see),
                                "row {must_see} committed, scan saw {seen:?}"
                            );
                            checks += 1;
                        }
                    }
                    checks
                })
            })
            .collect();
        // Readers stop when the writer ends, by a panic too.
        struct StopReaders<'a>(&'a AtomicBool);
        impl Drop for StopReaders<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        let _stop = StopReaders(&done);
        let t = s.open_table("d", "t").unwrap();
        for id in 1..=400i64 {
            let mut st = s.begin();
            t.insert(&mut st, &sb_row(id, 1)).unwrap();
            st.commit().unwrap();
            committed.store(id, Ordering::Release);
            std::thread::sleep(Duration::from_micros(200));
            // Empty the table again in a statement that first says so to the readers.
            committed.store(0, Ordering::Release);
            let mut st = s.begin();
            let (row_id, _) = t.lookup_unique(0, &[Value::Int(id)]).unwrap().unwrap();
            assert!(t.delete(&mut st, row_id).unwrap());
            if id % 3 == 0 {
                // Readers may have scanned the table empty meanwhile; the rollback brings
                // the row back and they must see it.
                std::thread::sleep(Duration::from_micros(200));
                st.rollback();
                committed.store(id, Ordering::Release);
                std::thread::sleep(Duration::from_micros(200));
                committed.store(0, Ordering::Release);
                let mut st = s.begin();
                assert!(t.delete(&mut st, row_id).unwrap());
                st.commit().unwrap();
            } else {
                st.commit().unwrap();
            }
        }
        drop(_stop);
        let checks: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
        assert!(checks > 0, "no scan ran while a row was committed");
    });
}
