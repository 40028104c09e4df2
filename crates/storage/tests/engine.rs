//! The engine through its public API: DDL, row operations, indexes, ALTER, recovery,
//! corruption detection, many tables.

mod common;

use common::*;
use myriad_storage::*;
use std::collections::BTreeMap;
use std::ops::Bound;

fn ids(scan: impl Iterator<Item = Result<(RowId, Row), StorageError>>) -> Vec<i64> {
    ints(scan, 0)
}

/// The integer in `column` of every row a scan returns.
fn ints(scan: impl Iterator<Item = Result<(RowId, Row), StorageError>>, column: usize) -> Vec<i64> {
    scan.map(|r| match r.unwrap().1[column] {
        Value::Int(v) => v,
        ref d => panic!("column {column} is {d:?}"),
    })
    .collect()
}

/// Index `index` of `t` read forward from `lower` to `upper`.
fn forward(t: &Table, index: usize, lower: Bound<&[Value]>, upper: Bound<&[Value]>) -> IndexScan {
    t.index_scan(index, lower, upper, Direction::Forward)
        .unwrap()
}

/// VARCHAR(`len`) in the case-insensitive utf8mb4 collation.
fn varchar_ci(len: u32) -> ColumnType {
    ColumnType::Varchar {
        len,
        collation: Collation::Utf8mb4GeneralCi,
    }
}

#[test]
fn ddl_catalog_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = Storage::open(config(dir.path())).unwrap();
    s.create_database("db1").unwrap();
    s.create_database("db2").unwrap();
    assert!(matches!(
        s.create_database("db1"),
        Err(StorageError::DatabaseExists(_))
    ));
    assert_eq!(s.list_databases().unwrap(), vec!["db1", "db2"]);
    s.create_table("db1", "t", &sbtest_def()).unwrap();
    s.create_table("db1", "Odd name!", &sbtest_def()).unwrap();
    assert!(matches!(
        s.create_table("db1", "t", &sbtest_def()),
        Err(StorageError::TableExists(..))
    ));
    assert!(matches!(
        s.create_table("nodb", "t", &sbtest_def()),
        Err(StorageError::NoSuchDatabase(_))
    ));
    assert!(matches!(
        s.open_table("db1", "missing"),
        Err(StorageError::NoSuchTable(..))
    ));
    assert_eq!(s.list_tables("db1").unwrap(), vec!["Odd name!", "t"]);
    assert_eq!(*s.table_def("db1", "t").unwrap(), sbtest_def());

    let t = s.open_table("db1", "t").unwrap();
    let mut st = s.begin();
    t.insert(&mut st, &sb_row(0, 5)).unwrap();
    st.commit().unwrap();
    // A DDL waits for the handles in use of its table (metadata lock): drop ours first.
    let old_def = std::sync::Arc::clone(t.def());
    drop(t);
    s.rename_table("db1", "t", "db2", "moved").unwrap();
    assert_eq!(*old_def, sbtest_def());
    assert!(matches!(
        s.open_table("db1", "t"),
        Err(StorageError::NoSuchTable(..))
    ));
    let moved = s.open_table("db2", "moved").unwrap();
    assert_eq!(moved.row_count().unwrap(), 1);
    drop(moved);
    s.truncate_table("db2", "moved").unwrap();
    let moved = s.open_table("db2", "moved").unwrap();
    assert_eq!(moved.row_count().unwrap(), 0);
    assert_eq!(moved.next_auto_increment().unwrap(), 1);
    drop(moved);
    s.drop_table("db2", "moved").unwrap();
    assert!(s.list_tables("db2").unwrap().is_empty());
    s.drop_database("db1").unwrap();
    assert_eq!(s.list_databases().unwrap(), vec!["db2"]);
    assert!(matches!(
        s.list_tables("db1"),
        Err(StorageError::NoSuchDatabase(_))
    ));
}

#[test]
fn rows_keys_and_scans_match_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    // id -> k
    let mut model: BTreeMap<i64, i64> = BTreeMap::new();
    let mut row_ids = BTreeMap::new();
    let mut st = s.begin();
    for i in 1..=3000i64 {
        let out = t.insert(&mut st, &sb_row(0, i % 97)).unwrap();
        assert_eq!(out.generated_auto_increment, Some(i as u64));
        model.insert(i, i % 97);
        row_ids.insert(i, out.row_id);
    }
    st.commit().unwrap();
    // Duplicate primary key: error names the key and changes nothing.
    let mut st = s.begin();
    match t.insert(&mut st, &sb_row(17, 1)) {
        Err(StorageError::DuplicateKey {
            index,
            key,
            existing_row,
            ..
        }) => {
            assert_eq!((index.as_str(), key.as_str()), ("PRIMARY", "17"));
            assert_eq!(existing_row, row_ids[&17]);
        }
        other => panic!("expected a duplicate, got {other:?}"),
    }
    // Updates move rows in the secondary index; deletes remove them.
    for id in (1..=3000i64).step_by(7) {
        let new_k = (id * 31) % 113;
        let mut row = sb_row(id, new_k);
        row[2] = Value::Bytes(format!("c-{id:08}-{new_k}").into_bytes());
        assert!(t.update(&mut st, row_ids[&id], &row).unwrap());
        model.insert(id, new_k);
    }
    for id in (1..=3000i64).step_by(5) {
        assert!(t.delete(&mut st, row_ids[&id]).unwrap());
        model.remove(&id);
    }
    st.commit().unwrap();
    assert_eq!(t.row_count().unwrap(), model.len() as u64);
    assert_eq!(
        ids(t.scan().unwrap()),
        model.keys().copied().collect::<Vec<_>>()
    );
    // Primary key point lookups.
    for id in [1i64, 2, 6, 7, 2999, 3000, 4000] {
        let got = t
            .lookup_primary(&[Value::Int(id)])
            .unwrap()
            .map(|(_, r)| r[1].clone());
        assert_eq!(got, model.get(&id).map(|k| Value::Int(*k)), "id {id}");
    }
    // Secondary index equality, in (k, row id) order, and ranges both ways.
    for k in [0i64, 5, 96, 112, 500] {
        let eq = [Value::Int(k)];
        let got = ids(forward(&t, 1, Bound::Included(&eq), Bound::Included(&eq)));
        let want: Vec<i64> = model
            .iter()
            .filter(|(_, v)| **v == k)
            .map(|(id, _)| *id)
            .collect();
        let mut got_sorted = got.clone();
        got_sorted.sort();
        assert_eq!(got_sorted, want, "k = {k}");
    }
    let (lo, hi) = ([Value::Int(10)], [Value::Int(20)]);
    let fwd = forward(&t, 1, Bound::Excluded(&lo), Bound::Included(&hi));
    let ks = ints(fwd, 1);
    assert!(ks.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(
        ks.len(),
        model.values().filter(|k| **k > 10 && **k <= 20).count()
    );
    let back = t
        .index_scan(
            1,
            Bound::Unbounded,
            Bound::Excluded(&lo),
            Direction::Backward,
        )
        .unwrap();
    let ks = ints(back, 1);
    assert!(ks.windows(2).all(|w| w[0] >= w[1]));
    assert_eq!(ks.len(), model.values().filter(|k| **k < 10).count());
    let pk_back = ids(t
        .index_scan(0, Bound::Unbounded, Bound::Unbounded, Direction::Backward)
        .unwrap());
    assert_eq!(pk_back, model.keys().rev().copied().collect::<Vec<_>>());
    let report = t.check().unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.rows, model.len() as u64);
}

#[test]
fn multi_column_prefixes_case_insensitive_keys_nulls_and_big_rows() {
    let dir = tempfile::tempdir().unwrap();
    let s = Storage::open(config(dir.path())).unwrap();
    s.create_database("d").unwrap();
    let def = TableDef {
        columns: vec![
            ColumnDef::new("a", int()),
            ColumnDef::new("name", varchar_ci(50)),
            ColumnDef::new(
                "body",
                ColumnType::Blob {
                    size: myriad_storage::types::LobSize::Regular,
                },
            ),
        ],
        indexes: vec![
            index("uniq_a_name", IndexKind::Unique, &[0, 1]),
            index("by_name", IndexKind::NonUnique, &[1]),
        ],
        options: vec![],
        checks: Vec::new(),
        foreign_keys: Vec::new(),
    };
    s.create_table("d", "m", &def).unwrap();
    let t = s.open_table("d", "m").unwrap();
    let mut st = s.begin();
    let name = |v: &str| Value::Bytes(v.as_bytes().to_vec());
    for a in 0..20i64 {
        for n in ["alpha", "Beta", "gamma"] {
            t.insert(&mut st, &[Value::Int(a), name(n), Value::Null])
                .unwrap();
        }
    }
    // Case-insensitive unique: "ALPHA " collides with "alpha" (trailing space ignored).
    match t.insert(&mut st, &[Value::Int(3), name("ALPHA "), Value::Null]) {
        Err(StorageError::DuplicateKey { index, key, .. }) => {
            assert_eq!(index, "uniq_a_name");
            assert_eq!(key, "3-ALPHA ");
        }
        other => panic!("expected a duplicate, got {other:?}"),
    }
    // NULLs never collide in a unique index.
    t.insert(&mut st, &[Value::Null, name("alpha"), Value::Null])
        .unwrap();
    t.insert(&mut st, &[Value::Null, name("alpha"), Value::Null])
        .unwrap();
    // A 64 KiB row goes to overflow pages.
    let big: Vec<u8> = (0..65_000u32).map(|i| (i % 251) as u8).collect();
    let big_id = t
        .insert(
            &mut st,
            &[Value::Int(100), name("big"), Value::Bytes(big.clone())],
        )
        .unwrap()
        .row_id;
    st.commit().unwrap();
    assert_eq!(t.get(big_id).unwrap().unwrap()[2], Value::Bytes(big));
    // Prefix of the two-column index: a = 7 gives 3 rows in name order.
    let seven = [Value::Int(7)];
    let rows: Vec<Row> = forward(&t, 0, Bound::Included(&seven), Bound::Included(&seven))
        .map(|r| r.unwrap().1)
        .collect();
    assert_eq!(
        rows.iter().map(|r| r[1].clone()).collect::<Vec<_>>(),
        vec![name("alpha"), name("Beta"), name("gamma")]
    );
    // Full key lookup, case-insensitively.
    assert!(t
        .lookup_unique(0, &[Value::Int(7), name("BETA")])
        .unwrap()
        .is_some());
    assert!(t
        .lookup_unique(0, &[Value::Null, name("alpha")])
        .unwrap()
        .is_none());
    // IS NULL through the prefix range.
    let null = [Value::Null];
    assert_eq!(scan_count(&t, 0, &null, Bound::Included(&null)), 2);
    // Names between "b" and "C" (case-insensitive): Beta (20 rows) and big.
    let (lo, hi) = ([name("b")], [name("C")]);
    assert_eq!(scan_count(&t, 1, &lo, Bound::Excluded(&hi)), 21);
    // Delete the big row: its overflow pages go to the free list and are reused.
    let mut st = s.begin();
    t.delete(&mut st, big_id).unwrap();
    st.commit().unwrap();
    let pages_before = t.data_length().unwrap();
    let mut st = s.begin();
    t.insert(
        &mut st,
        &[
            Value::Int(101),
            name("big2"),
            Value::Bytes(vec![1u8; 60_000]),
        ],
    )
    .unwrap();
    st.commit().unwrap();
    assert_eq!(
        t.data_length().unwrap(),
        pages_before,
        "freed overflow pages were not reused"
    );
    assert!(t.check().unwrap().is_ok());
}

#[test]
fn rollback_undoes_a_statement_and_duplicates_leave_no_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut st = s.begin();
    for _ in 0..100 {
        t.insert(&mut st, &sb_row(0, 1)).unwrap();
    }
    st.commit().unwrap();
    let mut st = s.begin();
    for _ in 0..2000 {
        t.insert(&mut st, &sb_row(0, 2)).unwrap();
    }
    {
        let _own = st.reading_own();
        assert_eq!(
            t.scan().unwrap().count(),
            2100,
            "the statement sees its rows"
        );
    }
    assert_eq!(
        t.scan().unwrap().count(),
        100,
        "others see the committed rows"
    );
    assert_eq!(t.row_count().unwrap(), 100, "counted at commit");
    st.rollback();
    assert_eq!(t.row_count().unwrap(), 100);
    assert_eq!(t.scan().unwrap().count(), 100);
    // As in InnoDB, the values a rolled-back statement took are not given again.
    assert_eq!(t.next_auto_increment().unwrap(), 2101);
    assert!(t.check().unwrap().is_ok());
    // INSERT IGNORE-style: the statement goes on after a duplicate.
    let mut st = s.begin();
    assert!(t.insert(&mut st, &sb_row(50, 9)).is_err());
    t.insert(&mut st, &sb_row(0, 9)).unwrap();
    st.commit().unwrap();
    assert_eq!(t.row_count().unwrap(), 101);
    assert!(t.check().unwrap().is_ok());
}

/// An empty table, once a scan found it empty, is read without a page; the first change of
/// a statement forgets it, and a scan while a statement is open never learns it (a rollback
/// can bring rows back).
#[test]
fn an_empty_table_is_read_without_a_page_until_a_statement_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let requests = || s.block_cache_stats().key_read_requests;
    let read_all = || (ids(t.scan().unwrap()), requests());

    let (rows, _) = read_all();
    assert!(rows.is_empty());
    let before = requests();
    assert_eq!(read_all(), (vec![], before), "known empty: no page read");
    let pk = 0;
    assert!(t.lookup_unique(pk, &[Value::Int(1)]).unwrap().is_none());
    assert_eq!(requests(), before);

    // A statement's rows are visible to its own reads at once, to others after its commit.
    let mut st = s.begin();
    t.insert(&mut st, &sb_row(1, 7)).unwrap();
    {
        let _own = st.reading_own();
        assert_eq!(ids(t.scan().unwrap()), vec![1]);
        assert!(t.lookup_unique(pk, &[Value::Int(1)]).unwrap().is_some());
    }
    assert!(ids(t.scan().unwrap()).is_empty());
    assert!(t.lookup_unique(pk, &[Value::Int(1)]).unwrap().is_none());
    st.commit().unwrap();
    assert_eq!(ids(t.scan().unwrap()), vec![1]);

    // Deleted in a statement still open: the scan sees no row but must not remember it,
    // since the rollback brings the row back.
    let mut st = s.begin();
    let (row_id, _) = t.lookup_unique(pk, &[Value::Int(1)]).unwrap().unwrap();
    assert!(t.delete(&mut st, row_id).unwrap());
    {
        let _own = st.reading_own();
        assert!(ids(t.scan().unwrap()).is_empty());
    }
    assert_eq!(
        ids(t.scan().unwrap()),
        vec![1],
        "others still see the committed row"
    );
    st.rollback();
    assert_eq!(ids(t.scan().unwrap()), vec![1]);

    // Deleted for good, learnt empty, then written again: the new row is seen.
    let mut st = s.begin();
    assert!(t.delete(&mut st, row_id).unwrap());
    st.commit().unwrap();
    assert!(ids(t.scan().unwrap()).is_empty());
    let before = requests();
    assert!(ids(t.scan().unwrap()).is_empty());
    assert_eq!(requests(), before, "learnt empty again after the delete");
    let mut st = s.begin();
    t.insert(&mut st, &sb_row(2, 8)).unwrap();
    st.rollback();
    assert!(ids(t.scan().unwrap()).is_empty());
    let mut st = s.begin();
    t.insert(&mut st, &sb_row(3, 9)).unwrap();
    st.commit().unwrap();
    assert_eq!(ids(t.scan().unwrap()), vec![3]);
    assert_eq!(
        ids(t
            .index_scan(pk, Bound::Unbounded, Bound::Unbounded, Direction::Forward)
            .unwrap()),
        vec![3]
    );
    assert!(t.check().unwrap().is_ok());
}

/// A definition load reads the meta page with the header: a table the file says is empty is
/// read without a page from its first SELECT on; a table with rows is read as always.
#[test]
fn a_table_loaded_from_a_file_that_counts_no_rows_is_read_without_a_page() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = sbtest_tables(dir.path(), &["empty", "full"]);
        s.create_table("d", "emptied", &sbtest_def()).unwrap();
        for name in ["full", "emptied"] {
            let t = s.open_table("d", name).unwrap();
            let mut st = s.begin();
            t.insert(&mut st, &sb_row(1, 7)).unwrap();
            st.commit().unwrap();
        }
        let t = s.open_table("d", "emptied").unwrap();
        let mut st = s.begin();
        let (row_id, _) = t.lookup_unique(0, &[Value::Int(1)]).unwrap().unwrap();
        assert!(t.delete(&mut st, row_id).unwrap());
        st.commit().unwrap();
        drop(t);
        // Written and checkpointed: the restart replays nothing into the block cache (a
        // replayed meta page there is newer than the file's, and the load must see that).
        s.create_table("d", "late", &sbtest_def()).unwrap();
        s.flush_tables(None).unwrap();
        // Written after the checkpoint: its file's meta page still counts no row, the
        // restart replays the newer one into the block cache.
        let t = s.open_table("d", "late").unwrap();
        let mut st = s.begin();
        t.insert(&mut st, &sb_row(3, 7)).unwrap();
        st.commit().unwrap();
    }
    let s = Storage::open(config(dir.path())).unwrap();
    let requests = || s.block_cache_stats().key_read_requests;
    let cases = [
        ("empty", vec![]),
        ("emptied", vec![]),
        ("full", vec![1]),
        ("late", vec![3]),
    ];
    for (name, rows) in cases {
        let t = s.open_table("d", name).unwrap();
        let before = requests();
        assert_eq!(ids(t.scan().unwrap()), rows, "{name}");
        let read = requests() - before;
        assert_eq!(read == 0, rows.is_empty(), "{name}: {read} page reads");
    }
    // Written after that load: seen.
    let t = s.open_table("d", "empty").unwrap();
    let mut st = s.begin();
    t.insert(&mut st, &sb_row(5, 1)).unwrap();
    st.commit().unwrap();
    assert_eq!(ids(t.scan().unwrap()), vec![5]);
    drop(t);
    s.flush_tables(None).unwrap();
    let t = s.open_table("d", "empty").unwrap();
    assert_eq!(ids(t.scan().unwrap()), vec![5], "after FLUSH TABLES");
}

/// A CREATE writes only the start of page 0 (up to its definition): the meta page and the tree roots are read in
/// their initial state until written back, through writes, a crash, CHECK TABLE, LOAD INDEX
/// and restarts.
#[test]
fn a_new_table_file_holds_only_its_definition_until_its_pages_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let file_len = |name: &str| {
        std::fs::metadata(dir.path().join("d").join(format!("{name}.myt")))
            .unwrap()
            .len()
    };
    {
        let s = Storage::open(config(dir.path())).unwrap();
        s.create_database("d").unwrap();
        for name in ["written", "untouched", "kept"] {
            s.create_table("d", name, &sbtest_def()).unwrap();
            let len = file_len(name);
            assert!(
                len > 0 && len < 4096,
                "{name}: page 0's start only ({len} bytes)"
            );
        }
        let t = s.open_table("d", "written").unwrap();
        let before = s.block_cache_stats().key_read_requests;
        assert_eq!(ids(t.scan().unwrap()), Vec::<i64>::new());
        assert_eq!(
            s.block_cache_stats().key_read_requests,
            before,
            "page reads"
        );
        let report = t.check().unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
        assert_eq!(report.pages, 5);
        t.preload_index(false).unwrap();
        let mut st = s.begin();
        for id in 1..=50 {
            t.insert(&mut st, &sb_row(id, id % 7)).unwrap();
        }
        st.commit().unwrap();
        assert!(t.lookup_unique(0, &[Value::Int(33)]).unwrap().is_some());
        std::mem::forget(s); // crash: "written" lives in the log only
    }
    let s = Storage::open(config(dir.path())).unwrap();
    let t = s.open_table("d", "written").unwrap();
    assert_eq!(ids(t.scan().unwrap()), (1..=50).collect::<Vec<_>>());
    assert!(t.check().unwrap().is_ok());
    let t = s.open_table("d", "untouched").unwrap();
    assert_eq!(ids(t.scan().unwrap()), Vec::<i64>::new());
    let mut st = s.begin();
    t.insert(&mut st, &sb_row(1, 1)).unwrap();
    st.commit().unwrap();
    drop(t);
    s.shutdown().unwrap();
    drop(s);
    // A clean shutdown writes what was written, and nothing past page 0 (rewritten whole
    // by the replay of its CREATE) for a table never written.
    assert!(file_len("kept") <= 16384);
    assert!(file_len("untouched") > 16384);
    let s = Storage::open(config(dir.path())).unwrap();
    for (name, rows) in [
        ("kept", vec![]),
        ("untouched", vec![1]),
        ("written", (1..=50).collect()),
    ] {
        let t = s.open_table("d", name).unwrap();
        assert_eq!(ids(t.scan().unwrap()), rows, "{name}");
        let report = t.check().unwrap();
        assert!(report.is_ok(), "{name}: {:?}", report.problems);
    }
}

/// More tables than the definition cache holds: a definition that leaves keeps an image,
/// and the next load of its table uses it (no file opened for an empty table). Every DDL
/// and every write is seen through the images.
#[test]
fn definitions_loaded_from_images_follow_writes_and_ddl() {
    let dir = tempfile::tempdir().unwrap();
    let s = Storage::open(StorageConfig {
        table_open_cache: 1,
        table_open_cache_instances: 1,
        table_definition_cache: 1,
        ..config(dir.path())
    })
    .unwrap();
    let status = |name: &str| s.status().into_iter().find(|(n, _)| *n == name).unwrap().1;
    s.create_database("d").unwrap();
    for i in 0..6 {
        s.create_table("d", &format!("t{i}"), &sbtest_def())
            .unwrap();
    }
    let insert = |name: &str, id: i64| {
        let t = s.open_table("d", name).unwrap();
        let mut row = sb_row(id, 1);
        row.resize(t.def().columns.len(), Value::Null);
        let mut st = s.begin();
        t.insert(&mut st, &row).unwrap();
        st.commit().unwrap();
    };
    insert("t1", 10);
    let scan = |name: &str| ids(s.open_table("d", name).unwrap().scan().unwrap());
    let pass = || (0..6).map(|i| scan(&format!("t{i}"))).collect::<Vec<_>>();
    let expected = vec![vec![], vec![10], vec![], vec![], vec![], vec![]];
    assert_eq!(pass(), expected);
    let (files, definitions) = (status("Opened_files"), status("Opened_table_definitions"));
    assert_eq!(pass(), expected);
    assert_eq!(status("Opened_table_definitions") - definitions, 6);
    // The row of t1 comes from the block cache; the empty tables need no page at all.
    assert_eq!(
        status("Opened_files"),
        files,
        "definitions from images open no file"
    );

    // A table written while loaded from its image: the next image knows it has rows.
    insert("t2", 20);
    assert_eq!(scan("t3"), Vec::<i64>::new());
    assert_eq!(scan("t2"), vec![20]);

    // DDL on tables whose image is kept.
    s.drop_table("d", "t0").unwrap();
    assert!(matches!(
        s.open_table("d", "t0"),
        Err(StorageError::NoSuchTable(..))
    ));
    s.rename_table("d", "t1", "d", "t0").unwrap();
    assert!(matches!(
        s.open_table("d", "t1"),
        Err(StorageError::NoSuchTable(..))
    ));
    assert_eq!(scan("t0"), vec![10]);
    s.truncate_table("d", "t2").unwrap();
    assert_eq!(scan("t3"), Vec::<i64>::new());
    assert_eq!(scan("t2"), Vec::<i64>::new());
    insert("t2", 21);
    assert_eq!(scan("t4"), Vec::<i64>::new());
    assert_eq!(scan("t2"), vec![21]);
    // Dropped and made again with another definition: the new one is served.
    s.drop_database("d").unwrap();
    s.create_database("d").unwrap();
    let mut def = sbtest_def();
    def.columns.push(ColumnDef::new("extra", int()));
    s.create_table("d", "t3", &def).unwrap();
    assert!(matches!(
        s.open_table("d", "t4"),
        Err(StorageError::NoSuchTable(..))
    ));
    assert_eq!(
        s.open_table("d", "t3").unwrap().def().columns.len(),
        def.columns.len()
    );
    insert("t3", 30);
    s.create_table("d", "x", &sbtest_def()).unwrap();
    assert_eq!(scan("x"), Vec::<i64>::new());
    assert_eq!(scan("t3"), vec![30]);
    // FLUSH TABLES: definitions and images are read again from the files.
    s.flush_tables(None).unwrap();
    assert_eq!(scan("t3"), vec![30]);
    assert_eq!(scan("x"), Vec::<i64>::new());
}

#[test]
fn alter_adds_and_drops_columns_and_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut st = s.begin();
    for i in 1..=1500 {
        t.insert(&mut st, &sb_row(i, i % 10)).unwrap();
    }
    st.commit().unwrap();
    // ADD COLUMN extra BIGINT DEFAULT 7, ADD UNIQUE INDEX on c.
    let mut def = sbtest_def();
    let mut extra = ColumnDef::new(
        "extra",
        ColumnType::Int {
            width: IntWidth::Big,
            unsigned: false,
        },
    );
    extra.default = Some(Value::Int(7));
    def.columns.push(extra);
    def.indexes.push(index("uc", IndexKind::Unique, &[2]));
    // ALTER waits for the handles in use at its swap (metadata lock): drop ours first.
    drop(t);
    s.alter_table("d", "t", &def, &mut |row| {
        let mut r = row.to_vec();
        r.push(Value::Int(7));
        Ok(r)
    })
    .unwrap();
    let t = s.open_table("d", "t").unwrap();
    assert_eq!(t.def().columns.len(), 5);
    assert_eq!(t.row_count().unwrap(), 1500);
    assert_eq!(t.next_auto_increment().unwrap(), 1501);
    assert!(t
        .lookup_unique(2, &[Value::Bytes(b"c-00000009-9".to_vec())])
        .unwrap()
        .is_some());
    assert!(t.check().unwrap().is_ok());
    // A unique index that the data violates fails and leaves the table as it was.
    let mut bad = def.clone();
    bad.indexes.push(index("uk", IndexKind::Unique, &[1]));
    // ALTER takes the metadata lock first, so it waits for our handle: drop it.
    drop(t);
    let err = s
        .alter_table("d", "t", &bad, &mut |r| Ok(r.to_vec()))
        .unwrap_err();
    assert!(
        matches!(err, StorageError::DuplicateKey { ref index, .. } if index == "uk"),
        "{err:?}"
    );
    assert_eq!(s.list_tables("d").unwrap(), vec!["t"]);
    let t = s.open_table("d", "t").unwrap();
    assert_eq!(t.def().indexes.len(), 3);
    // DROP COLUMN pad (index positions shift: the SQL layer rebuilds the definition).
    let mut dropped = def.clone();
    dropped.columns.remove(3);
    dropped.columns.truncate(3);
    dropped.indexes.truncate(2);
    drop(t);
    s.alter_table("d", "t", &dropped, &mut |r| Ok(r[..3].to_vec()))
        .unwrap();
    let t = s.open_table("d", "t").unwrap();
    assert_eq!(t.scan().unwrap().next().unwrap().unwrap().1.len(), 3);
    assert!(t.check().unwrap().is_ok());
}

#[test]
fn committed_statements_survive_losing_every_unflushed_page() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = sbtest_tables(dir.path(), &["t", "u"]);
        let t = s.open_table("d", "t").unwrap();
        let u = s.open_table("d", "u").unwrap();
        for batch in 0..20 {
            let mut st = s.begin();
            for i in 0..100 {
                t.insert(&mut st, &sb_row(0, batch * 100 + i)).unwrap();
            }
            st.commit().unwrap();
            if batch == 10 {
                s.checkpoint().unwrap();
            }
        }
        let mut st = s.begin();
        for id in 1..=500 {
            t.delete(
                &mut st,
                t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap().0,
            )
            .unwrap();
        }
        u.insert(&mut st, &sb_row(42, 42)).unwrap();
        st.commit().unwrap();
        // An uncommitted statement: must not appear after recovery.
        let mut st = s.begin();
        for _ in 0..300 {
            t.insert(&mut st, &sb_row(0, -1)).unwrap();
        }
        std::mem::forget(st); // as if the process died mid-statement
        std::mem::forget(s); // no shutdown, no checkpoint, no page flush
    }
    let s = Storage::open(config(dir.path())).unwrap();
    let stats = s.recovery_stats().clone();
    assert!(
        stats.groups_replayed >= 10 && stats.pages_applied > 0,
        "{stats:?}"
    );
    assert_eq!(
        stats.files_opened, 2,
        "recovery opened files the log does not name"
    );
    let t = s.open_table("d", "t").unwrap();
    assert_eq!(t.row_count().unwrap(), 1500);
    assert_eq!(ids(t.scan().unwrap()), (501..=2000).collect::<Vec<_>>());
    assert!(t.check().unwrap().is_ok());
    let u = s.open_table("d", "u").unwrap();
    assert!(u.lookup_primary(&[Value::Int(42)]).unwrap().is_some());
    // Recovery checkpointed: a second reopen replays nothing.
    drop((t, u));
    s.shutdown().unwrap();
    drop(s);
    let s = Storage::open(config(dir.path())).unwrap();
    assert_eq!(s.recovery_stats().groups_replayed, 0);
}

#[test]
fn a_corrupt_page_is_reported_never_served() {
    let dir = tempfile::tempdir().unwrap();
    let path;
    {
        let (s, t) = open_sbtest_t(dir.path());
        let mut st = s.begin();
        for i in 0..2000 {
            t.insert(&mut st, &sb_row(0, i)).unwrap();
        }
        st.commit().unwrap();
        s.shutdown().unwrap();
        path = dir.path().join("d").join("t.myt");
    }
    // Flip one byte in the middle of page 5 (a B+tree page).
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[5 * 16384 + 9000] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let s = Storage::open(config(dir.path())).unwrap();
    let t = s.open_table("d", "t").unwrap();
    let report = t.check().unwrap();
    assert!(!report.is_ok());
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("page 5") && p.contains("checksum")),
        "{:?}",
        report.problems
    );
    let scanned: Vec<_> = t.scan().unwrap().collect();
    assert!(
        scanned
            .iter()
            .any(|r| matches!(r, Err(StorageError::Corrupt(_)))),
        "the corrupt page was served"
    );
}

/// The header page of every definition load is read into one reused buffer: a header
/// that is short or corrupt must fail its own open even right after a good one was read.
#[test]
fn a_short_or_corrupt_header_fails_after_a_good_one_was_read() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = sbtest_tables(dir.path(), &["good", "short", "flipped"]);
        s.shutdown().unwrap();
    }
    let file = |name: &str| dir.path().join("d").join(format!("{name}.myt"));
    // Cut inside the definition (a read zero-fills what the file lacks, so a cut in the
    // page's trailing zeros changes nothing), and flip a byte of the definition. Had the
    // read kept the good table's bytes past the cut, "short" would verify: same definition.
    let short = std::fs::read(file("short")).unwrap();
    std::fs::write(file("short"), &short[..60]).unwrap();
    let mut flipped = std::fs::read(file("flipped")).unwrap();
    flipped[60] ^= 0x01;
    std::fs::write(file("flipped"), &flipped).unwrap();

    let s = Storage::open(config(dir.path())).unwrap();
    for bad in ["short", "flipped"] {
        s.flush_tables(None).unwrap();
        let good = s.open_table("d", "good").unwrap();
        assert_eq!(good.def().columns.len(), sbtest_def().columns.len());
        drop(good);
        match s.open_table("d", bad) {
            Err(StorageError::Io(_) | StorageError::Corrupt(_)) => {}
            Err(e) => panic!("{bad}: unexpected error {e}"),
            Ok(_) => panic!("{bad}: opened with a header that is not its own"),
        }
    }
}

#[test]
fn a_few_thousand_tables() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.table_open_cache = 256;
    cfg.open_files_limit = 64;
    let s = Storage::open(cfg.clone()).unwrap();
    s.create_database("many").unwrap();
    let def = TableDef {
        columns: vec![ColumnDef::new("a", int()).not_null()],
        indexes: vec![index("PRIMARY", IndexKind::Primary, &[0])],
        options: vec![],
        checks: Vec::new(),
        foreign_keys: Vec::new(),
    };
    const TABLES: i64 = 2000;
    const THREADS: i64 = 8;
    // Concurrent DDL: each create fsyncs its file and directory; the file system merges the
    // journal commits of concurrent creators.
    std::thread::scope(|scope| {
        for th in 0..THREADS {
            let (s, def) = (&s, &def);
            scope.spawn(move || {
                for i in (th..TABLES).step_by(THREADS as usize) {
                    s.create_table("many", &format!("t{i}"), def).unwrap();
                }
            });
        }
    });
    // One statement writing every table: one redo group naming 2000 files.
    let mut st = s.begin();
    for i in 0..TABLES {
        let t = s.open_table("many", &format!("t{i}")).unwrap();
        t.insert(&mut st, &[Value::Int(i)]).unwrap();
    }
    st.commit().unwrap();
    assert_eq!(s.list_tables("many").unwrap().len(), TABLES as usize);
    let open_files = s
        .status()
        .iter()
        .find(|(n, _)| *n == "Open_files")
        .unwrap()
        .1;
    assert!(open_files <= 64, "open files {open_files} above the limit");
    std::mem::forget(s); // crash: recovery opens the tables the log names
    let s = Storage::open(cfg.clone()).unwrap();
    assert_eq!(s.recovery_stats().files_opened, TABLES as u64);
    for i in (0..TABLES).step_by(97) {
        let t = s.open_table("many", &format!("t{i}")).unwrap();
        assert_eq!(
            t.lookup_primary(&[Value::Int(i)]).unwrap().unwrap().1,
            vec![Value::Int(i)]
        );
    }
    // After a checkpoint, three tables written: recovery touches those three files only.
    for i in [5i64, 500, 1999] {
        let t = s.open_table("many", &format!("t{i}")).unwrap();
        let mut st = s.begin();
        t.insert(&mut st, &[Value::Int(-i)]).unwrap();
        st.commit().unwrap();
    }
    std::mem::forget(s);
    let s = Storage::open(cfg).unwrap();
    assert_eq!(
        s.recovery_stats().files_opened,
        3,
        "{:?}",
        s.recovery_stats()
    );
    let t = s.open_table("many", "t500").unwrap();
    assert!(t.lookup_primary(&[Value::Int(-500)]).unwrap().is_some());
}

#[test]
fn integer_primary_keys_cluster_the_rows_and_key_updates_move_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = Storage::open(config(dir.path())).unwrap();
    s.create_database("d").unwrap();
    for unsigned in [false, true] {
        let name = if unsigned { "u" } else { "s" };
        let def = TableDef {
            columns: vec![
                ColumnDef::new(
                    "id",
                    ColumnType::Int {
                        width: IntWidth::Big,
                        unsigned,
                    },
                )
                .not_null(),
                ColumnDef::new("v", int()),
            ],
            indexes: vec![
                index("v_idx", IndexKind::Unique, &[1]),
                index("PRIMARY", IndexKind::Primary, &[0]),
            ],
            options: vec![],
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        };
        s.create_table("d", name, &def).unwrap();
        let t = s.open_table("d", name).unwrap();
        let key = |v: i64| {
            if unsigned {
                Value::UInt((v + 10) as u64)
            } else {
                Value::Int(v)
            }
        };
        let mut st = s.begin();
        for v in [5i64, -3, 0, 9, -7, 2] {
            t.insert(&mut st, &[key(v), Value::Int(v * 10)]).unwrap();
        }
        st.commit().unwrap();
        // Full scan and both directions of the primary key follow key order.
        let keys: Vec<Value> = t.scan().unwrap().map(|r| r.unwrap().1[0].clone()).collect();
        let want: Vec<Value> = [-7i64, -3, 0, 2, 5, 9].iter().map(|v| key(*v)).collect();
        assert_eq!(keys, want);
        let back: Vec<Value> = t
            .index_scan(1, Bound::Unbounded, Bound::Unbounded, Direction::Backward)
            .unwrap()
            .map(|r| r.unwrap().1[0].clone())
            .collect();
        assert_eq!(back, want.iter().rev().cloned().collect::<Vec<_>>());
        let (lo, hi) = ([key(-3)], [key(5)]);
        let mid: Vec<Value> = forward(&t, 1, Bound::Excluded(&lo), Bound::Included(&hi))
            .map(|r| r.unwrap().1[0].clone())
            .collect();
        assert_eq!(mid, vec![key(0), key(2), key(5)]);
        // Duplicate primary key on insert and on a key update.
        let mut st = s.begin();
        assert!(
            matches!(t.insert(&mut st, &[key(9), Value::Int(1)]), Err(StorageError::DuplicateKey { ref index, .. }) if index == "PRIMARY")
        );
        let (row_id, _) = t.lookup_primary(&[key(0)]).unwrap().unwrap();
        assert!(matches!(
            t.update(&mut st, row_id, &[key(9), Value::Int(0)]),
            Err(StorageError::DuplicateKey { ref index, .. }) if index == "PRIMARY"
        ));
        // Moving a row: the secondary index follows it.
        assert!(t
            .update(&mut st, row_id, &[key(100), Value::Int(1000)])
            .unwrap());
        st.commit().unwrap();
        assert!(t.lookup_primary(&[key(0)]).unwrap().is_none());
        let (_, row) = t.lookup_unique(0, &[Value::Int(1000)]).unwrap().unwrap();
        assert_eq!(row[0], key(100));
        assert!(t.lookup_unique(0, &[Value::Int(0)]).unwrap().is_none());
        assert_eq!(t.row_count().unwrap(), 6);
        let report = t.check().unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
    }
}

#[test]
fn pages_torn_by_a_crash_are_rebuilt_from_their_logged_images() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d").join("t.myt");
    let pages;
    let first_checkpoint;
    let file_at_first_checkpoint;
    {
        let (s, t) = open_sbtest_t(dir.path());
        let mut st = s.begin();
        for i in 1..=1000 {
            t.insert(&mut st, &sb_row(i, i)).unwrap();
        }
        st.commit().unwrap();
        s.checkpoint().unwrap();
        first_checkpoint = std::fs::read(dir.path().join("#redo").join("checkpoint")).unwrap();
        file_at_first_checkpoint = std::fs::read(&path).unwrap();
        // After the checkpoint every page's first change is logged as a full image.
        let mut st = s.begin();
        for i in 1001..=1200 {
            t.insert(&mut st, &sb_row(i, i)).unwrap();
        }
        let (row_id, _) = t.lookup_primary(&[Value::Int(1)]).unwrap().unwrap();
        t.update(&mut st, row_id, &sb_row(1, -1)).unwrap();
        st.commit().unwrap();
        // The pages reach the file, and the process dies half-way through rewriting them.
        s.checkpoint().unwrap_or(());
        pages = std::fs::metadata(&path).unwrap().len() / 16384;
        std::mem::forget(s);
    }
    // Make it a crash in the middle of that second checkpoint: its pages were being written
    // (torn: second half zeroed) and its checkpoint record never landed, so recovery starts
    // from the first checkpoint.
    std::fs::write(
        dir.path().join("#redo").join("checkpoint"),
        &first_checkpoint,
    )
    .unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let mut torn = 0;
    for p in 1..pages as usize {
        let page = p * 16384..(p + 1) * 16384;
        // Only pages the second checkpoint wrote can be torn by it.
        if file_at_first_checkpoint.get(page.clone()) != Some(&bytes[page.clone()]) {
            bytes[p * 16384 + 8192..(p + 1) * 16384].fill(0);
            torn += 1;
        }
    }
    assert!(
        torn >= 3,
        "only {torn} pages changed after the first checkpoint"
    );
    std::fs::write(&path, &bytes).unwrap();
    let s = Storage::open(config(dir.path())).unwrap();
    let t = s.open_table("d", "t").unwrap();
    assert_eq!(t.row_count().unwrap(), 1200);
    assert_eq!(
        t.lookup_primary(&[Value::Int(1)]).unwrap().unwrap().1[1],
        Value::Int(-1)
    );
    s.checkpoint().unwrap();
    let report = t.check().unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
}

#[test]
fn ddl_is_durable_through_the_log_and_replays_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let fill = |s: &Storage, db: &str, name: &str, rows: i64| {
        let t = s.open_table(db, name).unwrap();
        let mut st = s.begin();
        for id in 1..=rows {
            t.insert(&mut st, &sb_row(id, id)).unwrap();
        }
        st.commit().unwrap();
    };
    {
        let s = Storage::open(config(dir.path())).unwrap();
        s.create_database("d").unwrap();
        s.create_database("other").unwrap();
        for name in ["a", "b", "c", "dropped", "e"] {
            s.create_table("d", name, &sbtest_def()).unwrap();
            fill(&s, "d", name, 300);
        }
        s.rename_table("d", "b", "d", "b2").unwrap();
        s.rename_table("d", "c", "other", "c").unwrap();
        s.drop_table("d", "dropped").unwrap();
        s.truncate_table("d", "e").unwrap();
        fill(&s, "d", "e", 7);
        // Recreated under a dropped name: a different table now.
        s.create_table("d", "dropped", &sbtest_def()).unwrap();
        fill(&s, "d", "dropped", 2);
        std::mem::forget(s); // crash: no checkpoint since the datadir was created
    }
    // The worst a power failure leaves: e's directory entry never made it, a's header page
    // was torn.
    std::fs::remove_file(dir.path().join("d").join("e.myt")).unwrap();
    let a_path = dir.path().join("d").join("a.myt");
    let mut bytes = std::fs::read(&a_path).unwrap();
    let torn = bytes.len().min(16384);
    bytes[100..torn].fill(0);
    std::fs::write(&a_path, &bytes).unwrap();

    let s = Storage::open(config(dir.path())).unwrap();
    assert_eq!(s.list_tables("d").unwrap(), vec!["a", "b2", "dropped", "e"]);
    assert_eq!(s.list_tables("other").unwrap(), vec!["c"]);
    for (db, name, rows) in [
        ("d", "a", 300),
        ("d", "b2", 300),
        ("other", "c", 300),
        ("d", "e", 7),
        ("d", "dropped", 2),
    ] {
        let t = s.open_table(db, name).unwrap();
        assert_eq!(t.row_count().unwrap(), rows, "{db}.{name}");
        let report = t.check().unwrap();
        assert!(report.is_ok(), "{db}.{name}: {:?}", report.problems);
    }
}

/// An IN list read in one pass (`index_lookup_many`) returns what one index scan per
/// distinct value returns, key by key in key order: duplicates (under the collation) and
/// NULLs dropped, an equality prefix honoured, the clustered key and too many rows refused.
#[test]
fn in_lists_in_one_pass_match_one_scan_per_value() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut st = s.begin();
    for i in 1..=2000i64 {
        t.insert(&mut st, &sb_row(0, i % 89)).unwrap();
    }
    st.commit().unwrap();
    let per_value = |values: &[i64]| -> Vec<(RowId, Row)> {
        let mut sorted = values.to_vec();
        sorted.sort();
        sorted.dedup();
        let mut out = Vec::new();
        for v in sorted {
            let key = [Value::Int(v)];
            let scan = forward(&t, 1, Bound::Included(&key), Bound::Included(&key));
            out.extend(scan.map(Result::unwrap));
        }
        out
    };
    let values = [40i64, 3, 88, 3, 1000, -5, 40, 0];
    let mut datums: Vec<Value> = values.iter().map(|v| Value::Int(*v)).collect();
    datums.push(Value::Null);
    let got = t
        .index_lookup_many(1, &[], &datums, None, usize::MAX)
        .unwrap()
        .expect("a secondary index batches");
    let want = per_value(&values);
    // k = i % 89 for i in 1..=2000: 23 rows each for k 3 and 40, 22 for k 0 and 88.
    assert_eq!(want.len(), 90);
    assert_eq!(got, want);
    // Only the wanted columns are decoded.
    let wanted = [true, false, true, false];
    let narrow = t
        .index_lookup_many(1, &[], &datums, Some(&wanted), usize::MAX)
        .unwrap()
        .unwrap();
    assert_eq!(narrow.len(), got.len());
    assert!(narrow
        .iter()
        .zip(&got)
        .all(|((a, x), (b, y))| a == b && x[0] == y[0] && x[2] == y[2] && x[1].is_null()));
    // More rows than allowed: None (the caller streams instead); exactly as many: all.
    assert!(t
        .index_lookup_many(1, &[], &datums, None, want.len() - 1)
        .unwrap()
        .is_none());
    assert_eq!(
        t.index_lookup_many(1, &[], &datums, None, want.len())
            .unwrap()
            .map(|r| r.len()),
        Some(want.len())
    );
    // The clustered primary key has no tree of its own: refused.
    assert!(t
        .index_lookup_many(0, &[], &[Value::Int(1)], None, usize::MAX)
        .unwrap()
        .is_none());
    // A prefix as long as the index is an error, not a panic.
    assert!(t
        .index_lookup_many(1, &[Value::Int(1)], &[Value::Int(1)], None, 10)
        .is_err());

    // A two-column index with a case-insensitive string after an equality prefix.
    let def = TableDef {
        columns: vec![
            ColumnDef::new("a", int()),
            ColumnDef::new("name", varchar_ci(20)),
        ],
        indexes: vec![index("a_name", IndexKind::NonUnique, &[0, 1])],
        options: vec![],
        checks: Vec::new(),
        foreign_keys: Vec::new(),
    };
    s.create_table("d", "m", &def).unwrap();
    let m = s.open_table("d", "m").unwrap();
    let name = |v: &str| Value::Bytes(v.as_bytes().to_vec());
    let mut st = s.begin();
    for a in 0..3i64 {
        for n in ["alpha", "Beta", "gamma", "beta "] {
            m.insert(&mut st, &[Value::Int(a), name(n)]).unwrap();
        }
    }
    st.commit().unwrap();
    let rows = m
        .index_lookup_many(
            0,
            &[Value::Int(1)],
            &[name("GAMMA"), name("beta"), name("BETA  "), name("delta")],
            None,
            usize::MAX,
        )
        .unwrap()
        .unwrap();
    let names: Vec<Value> = rows.iter().map(|(_, r)| r[1].clone()).collect();
    assert_eq!(names, vec![name("Beta"), name("beta "), name("gamma")]);
    assert!(rows.iter().all(|(_, r)| r[0] == Value::Int(1)));
    // A NULL in the prefix matches nothing.
    assert_eq!(
        m.index_lookup_many(0, &[Value::Null], &[name("alpha")], None, 10)
            .unwrap()
            .map(|r| r.len()),
        Some(0)
    );
}

/// Each index counts the moves of its entries: an UPDATE that changes `k` moves an entry of
/// `k_1` and none of the clustered primary key; one that changes only `c` moves none; one
/// that changes the primary key moves the row in both. A scan read in one latch hold yields
/// what the batched scan yields, forward and backward.
#[test]
fn index_moves_count_changed_keys_and_one_read_scans_match_batched_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (s, t) = open_sbtest_t(dir.path());
    let mut st = s.begin();
    let mut row_ids = BTreeMap::new();
    for id in 1..=300i64 {
        row_ids.insert(id, t.insert(&mut st, &sb_row(id, id % 50)).unwrap().row_id);
    }
    st.commit().unwrap();
    let moves = || (t.index_moves(0), t.index_moves(1));
    assert_eq!(moves(), (0, 0));
    let mut st = s.begin();
    let mut row = sb_row(7, 7);
    row[2] = Value::Bytes(b"another c".to_vec());
    assert!(t.update(&mut st, row_ids[&7], &row).unwrap());
    assert_eq!(moves(), (0, 0), "c is in no index");
    assert!(t.update(&mut st, row_ids[&7], &sb_row(7, 49)).unwrap());
    assert_eq!(moves(), (0, 1), "k changed: one entry of k_1 moved");
    assert!(t.update(&mut st, row_ids[&8], &sb_row(1000, 8)).unwrap());
    assert_eq!(
        moves(),
        (1, 2),
        "a new primary key moves the row and its k_1 entry"
    );
    st.commit().unwrap();
    for direction in [Direction::Forward, Direction::Backward] {
        let (lo, hi) = ([Value::Int(3)], [Value::Int(45)]);
        let scan = || t.index_scan(1, Bound::Included(&lo), Bound::Excluded(&hi), direction);
        let batched = ints(scan().unwrap(), 0);
        assert!(batched.len() > 200, "the range spans several batches");
        assert_eq!(ints(scan().unwrap().in_one_read(), 0), batched);
    }
}
