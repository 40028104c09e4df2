//! Savepoints inside one open statement, against a model: after any sequence of inserts,
//! updates, deletes, savepoints, rollbacks to them and releases, the table holds exactly
//! the model's rows (by a scan and through the secondary index); once it ends its pages
//! check clean,
//! and after commit and a crash the committed rows are the ones recovered.

mod common;

use common::*;
use myriad_storage::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::ops::Bound;

#[derive(Debug, Clone)]
enum Op {
    /// Insert ids `from..from + count` (skipping those present; never 0, which asks for
    /// the next AUTO_INCREMENT value) with k = id + salt.
    Insert {
        from: i64,
        count: i64,
        salt: i64,
    },
    /// Set k = id * 7 + salt on the rows with from <= id < from + count.
    Update {
        from: i64,
        count: i64,
        salt: i64,
    },
    Delete {
        from: i64,
        count: i64,
    },
    Savepoint,
    /// Roll back to the n-th newest savepoint still standing (modulo their number).
    RollbackTo(usize),
    Release(usize),
}

fn op() -> impl Strategy<Value = Op> {
    // Ranges wide enough that one op splits or merges leaves (rows of ~200 bytes).
    let range = (1i64..600, 1i64..250);
    prop_oneof![
        3 => (range.clone(), 0i64..1000).prop_map(|((from, count), salt)| Op::Insert { from, count, salt }),
        2 => (range.clone(), 0i64..1000).prop_map(|((from, count), salt)| Op::Update { from, count, salt }),
        2 => range.prop_map(|(from, count)| Op::Delete { from, count }),
        2 => Just(Op::Savepoint),
        2 => (0usize..4).prop_map(Op::RollbackTo),
        1 => (0usize..4).prop_map(Op::Release),
    ]
}

type Model = BTreeMap<i64, i64>;

/// Apply `op` to the table through `stmt` and to the model.
fn apply(t: &Table, stmt: &mut Statement, model: &mut Model, op: &Op) {
    match *op {
        Op::Insert { from, count, salt } => {
            for id in from..from + count {
                if model.contains_key(&id) {
                    continue;
                }
                t.insert(stmt, &sb_row(id, id + salt)).unwrap();
                model.insert(id, id + salt);
            }
        }
        Op::Update { from, count, salt } => {
            for id in from..from + count {
                if model.contains_key(&id) {
                    let (row_id, _) = t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap();
                    let k = id * 7 + salt;
                    assert!(t.update(stmt, row_id, &sb_row(id, k)).unwrap());
                    model.insert(id, k);
                }
            }
        }
        Op::Delete { from, count } => {
            for id in from..from + count {
                if model.remove(&id).is_some() {
                    let (row_id, _) = t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap();
                    assert!(t.delete(stmt, row_id).unwrap());
                }
            }
        }
        Op::Savepoint | Op::RollbackTo(_) | Op::Release(_) => unreachable!("handled by run"),
    }
}

/// The table's rows as (id, k), read by a full scan, and the number of entries of index k.
fn table_rows(t: &Table) -> (Model, usize) {
    let rows = t
        .scan()
        .unwrap()
        .map(|r| {
            let (_, row) = r.unwrap();
            match (&row[0], &row[1]) {
                (Value::Int(id), Value::Int(k)) => (*id, *k),
                other => panic!("unexpected row {other:?}"),
            }
        })
        .collect();
    let by_k = scan_count(t, 1, &[Value::Int(i64::MIN)], Bound::Unbounded);
    (rows, by_k)
}

fn check_matches(t: &Table, model: &Model, step: &str) {
    let (rows, by_k) = table_rows(t);
    assert_eq!(&rows, model, "rows after {step}");
    assert_eq!(by_k, model.len(), "index entries after {step}");
}

/// [`check_matches`], and the table's pages check clean (with no statement open: pages
/// being changed have no checksum yet).
fn check_ended(t: &Table, model: &Model, step: &str) {
    check_matches(t, model, step);
    let report = t.check().unwrap();
    assert!(report.is_ok(), "check after {step}: {report:?}");
}

/// Run `ops` in one statement over a table holding `base` rows committed before it.
fn run(ops: &[Op], commit: bool) {
    let dir = tempfile::tempdir().unwrap();
    let committed: Model;
    {
        let s = Storage::open(config(dir.path())).unwrap();
        s.create_database("d").unwrap();
        s.create_table("d", "t", &sbtest_def()).unwrap();
        let t = s.open_table("d", "t").unwrap();
        let mut model = Model::new();
        let mut base = s.begin();
        apply(
            &t,
            &mut base,
            &mut model,
            &Op::Insert {
                from: 100,
                count: 300,
                salt: 5,
            },
        );
        base.commit().unwrap();
        let before = model.clone();
        // The savepoints standing, newest last, with the model at each.
        let mut savepoints: Vec<(Savepoint, Model)> = Vec::new();
        let mut stmt = s.begin();
        // Reads on this thread see the statement's own changes until it ends.
        let own = stmt.reading_own();
        for (n, op) in ops.iter().enumerate() {
            let step = format!("op {n} {op:?}");
            match *op {
                Op::Savepoint => savepoints.push((stmt.savepoint(), model.clone())),
                Op::RollbackTo(back) | Op::Release(back) if savepoints.is_empty() => {
                    let _ = back;
                }
                Op::RollbackTo(back) => {
                    let at = savepoints.len() - 1 - back % savepoints.len();
                    assert!(stmt.rollback_to(savepoints[at].0), "{step}");
                    model = savepoints[at].1.clone();
                    savepoints.truncate(at + 1);
                }
                Op::Release(back) => {
                    let at = savepoints.len() - 1 - back % savepoints.len();
                    assert!(stmt.release(savepoints[at].0), "{step}");
                    let gone = savepoints.split_off(at);
                    assert!(!stmt.rollback_to(gone[0].0), "released: {step}");
                }
                _ => apply(&t, &mut stmt, &mut model, op),
            }
            check_matches(&t, &model, &step);
        }
        drop(own);
        check_matches(&t, &before, "reads of others while the statement is open");
        if commit {
            stmt.commit().unwrap();
            check_ended(&t, &model, "commit");
            committed = model;
        } else {
            stmt.rollback();
            check_ended(&t, &before, "rollback");
            committed = before;
        }
        drop(t);
        std::mem::forget(s); // crash: no checkpoint, no page flush
    }
    let s = Storage::open(config(dir.path())).unwrap();
    let t = s.open_table("d", "t").unwrap();
    check_ended(&t, &committed, "recovery");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn savepoints_undo_what_came_after_them(ops in proptest::collection::vec(op(), 1..14), commit in any::<bool>()) {
        run(&ops, commit);
    }
}

#[test]
fn a_savepoint_rolled_back_twice_and_a_nested_one() {
    use Op::*;
    let ops = [
        Insert {
            from: 1,
            count: 200,
            salt: 1,
        },
        Savepoint,
        Update {
            from: 50,
            count: 200,
            salt: 2,
        },
        Savepoint,
        Delete {
            from: 1,
            count: 400,
        },
        RollbackTo(0),
        Insert {
            from: 400,
            count: 200,
            salt: 3,
        },
        RollbackTo(1),
        RollbackTo(0),
        Delete { from: 1, count: 40 },
        Release(0),
    ];
    run(&ops, true);
}
