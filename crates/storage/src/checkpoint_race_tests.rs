//! A checkpoint that begins after a commit's group was appended, while the committer still
//! holds its pages write-pending: the before-images are no longer the committed content
//! (the checkpoint's LSN lies past the group, so recovery would skip it), so the checkpoint
//! must wait for the stamped pages rather than write the images.

use crate::table::AFTER_APPEND;
use crate::types::*;
use crate::{Storage, StorageConfig};
use std::time::{Duration, Instant};

const ROWS: i64 = 200;

fn config(dir: &std::path::Path) -> StorageConfig {
    StorageConfig {
        datadir: dir.to_path_buf(),
        block_cache_bytes: 8 << 20,
        ..Default::default()
    }
}

/// `id INT PRIMARY KEY, k INT`.
fn id_k() -> TableDef {
    let int = || ColumnType::Int {
        width: IntWidth::Int,
        unsigned: false,
    };
    TableDef {
        columns: vec![
            ColumnDef::new("id", int()).not_null(),
            ColumnDef::new("k", int()).not_null(),
        ],
        indexes: vec![IndexDef {
            name: "PRIMARY".into(),
            kind: IndexKind::Primary,
            columns: vec![0],
        }],
        options: Vec::new(),
        checks: Vec::new(),
        foreign_keys: Vec::new(),
    }
}

fn row(id: i64, k: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(k)]
}

#[test]
fn a_checkpoint_begun_after_the_append_writes_the_committed_pages_not_the_images() {
    let dir = tempfile::tempdir().unwrap();
    {
        let s = Storage::open(config(dir.path())).unwrap();
        s.create_database("d").unwrap();
        s.create_table("d", "t", &id_k()).unwrap();
        let t = s.open_table("d", "t").unwrap();
        let mut st = s.begin();
        for id in 1..=ROWS {
            t.insert(&mut st, &row(id, id)).unwrap();
        }
        st.commit().unwrap();
        // Dirty pages, write-pending under a statement that carries their images.
        let mut st = s.begin();
        for id in 1..=ROWS {
            let (row_id, _) = t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap();
            t.update(&mut st, row_id, &row(id, -id)).unwrap();
        }
        // The hook starts the checkpoint and gives it time to finish (it must not): it
        // hands back whether it did, and the thread.
        let (started, checkpoint) = std::sync::mpsc::channel();
        let engine = s.clone();
        AFTER_APPEND.set(Some(Box::new(move || {
            let ckpt = std::thread::spawn(move || engine.checkpoint().unwrap());
            let deadline = Instant::now() + Duration::from_millis(300);
            while !ckpt.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            started.send((ckpt.is_finished(), ckpt)).unwrap();
        })));
        st.commit().unwrap();
        let (finished_before_the_stamp, ckpt) = checkpoint.recv().unwrap();
        ckpt.join().unwrap();
        assert!(
            !finished_before_the_stamp,
            "a checkpoint begun after the append wrote the pages before the commit ended"
        );
        drop(t);
        std::mem::forget(s); // crash: recovery starts at that checkpoint
    }
    let s = Storage::open(config(dir.path())).unwrap();
    let t = s.open_table("d", "t").unwrap();
    for id in 1..=ROWS {
        let (_, r) = t.lookup_primary(&[Value::Int(id)]).unwrap().unwrap();
        assert_eq!(r, row(id, -id), "row {id} lost its committed update");
    }
    assert!(t.check().unwrap().is_ok());
}
