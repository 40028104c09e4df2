//! Background write-back of dirty blocks ahead of eviction, and index preloading
//! (`LOAD INDEX INTO CACHE`).
//!
//! # Write-back
//! A thread (`myriad-key-writeback`) wakes every [`WRITEBACK_INTERVAL`] and, while the block
//! cache holds dirty blocks, asks it to write the dirty probationary blocks that its clock
//! hand reaches next ([`BlockCache::write_back_ahead`], for each segment of each key cache):
//! sorted by file and offset, each only
//! after the redo log is durable up to the block's LSN (the cache calls
//! `BlockIo::flush_log` first, the same WAL rule a checkpoint follows). A miss that needs a
//! victim then seldom has to write one itself. It writes at most [`WRITEBACK_BATCH_SHARE`]
//! of the cache per round, so it never competes with statements for long. Hot blocks are
//! left to checkpoints (they are not about to be evicted and may be written again soon);
//! FLUSH TABLES, checkpoints and shutdown write everything (`Storage::checkpoint`).
//!
//! # Preloading
//! [`Table::preload_index`] reads every B+tree page of a table file through the cache (the
//! row tree is the clustered index, so its pages count as index pages, as for an InnoDB
//! table); `IGNORE LEAVES` reads only the internal (non-leaf) nodes. The page type is read
//! from the file first (or from the cached copy, which may be newer), so free, overflow and
//! skipped leaf pages never enter the cache.

use crate::page::{get_u32, meta, META_PAGE, OFF_TYPE, PAGE_SIZE, TYPE_INTERNAL, TYPE_LEAF};
use crate::table::Table;
use crate::types::{Result, StorageError};
use crate::Shared;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often the write-back thread looks for dirty blocks.
pub const WRITEBACK_INTERVAL: Duration = Duration::from_millis(100);
/// The most blocks one round writes: this share (1/n) of the cache's capacity.
pub const WRITEBACK_BATCH_SHARE: usize = 32;

/// One round: write back dirty probationary blocks of every key cache, at most a share of
/// each. Returns how many blocks were cleaned.
pub(crate) fn write_back_round(shared: &Shared) -> std::io::Result<usize> {
    let mut cleaned = 0;
    for cache in shared.cache.live() {
        // Blocks a re-segmentation found pinned move once released.
        cache.continue_moving();
        if cache.stats().key_blocks_not_flushed == 0 {
            continue;
        }
        let max = (cache.capacity_blocks() / WRITEBACK_BATCH_SHARE).max(16);
        cleaned += cache.write_back_ahead(max)?;
    }
    Ok(cleaned)
}

/// Start the write-back thread; it ends when `stop` is set or the engine is dropped.
pub(crate) fn spawn(
    shared: Weak<Shared>,
    stop: Arc<AtomicBool>,
) -> Option<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("myriad-key-writeback".into())
        .spawn(move || {
            while !stop.load(Ordering::Acquire) {
                std::thread::sleep(WRITEBACK_INTERVAL);
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                // An I/O error here is not lost: the block stays dirty and the next
                // checkpoint or eviction writes it and reports the error to its caller.
                let _ = write_back_round(&shared);
            }
        })
        .ok()
}

/// What [`Table::preload_index`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PreloadReport {
    /// Index pages now in the cache.
    pub pages: u64,
    /// Of those, pages that had to be read from the file.
    pub read: u64,
}

impl Table {
    /// `LOAD INDEX INTO CACHE`: read the table's index pages (all B+tree nodes, or only the
    /// internal ones with `ignore_leaves`) into the block cache.
    pub fn preload_index(&self, ignore_leaves: bool) -> Result<PreloadReport> {
        let t = &self.inner;
        let _latch = t.latch.read();
        if t.stale.load(Ordering::Acquire) {
            return Err(StorageError::Stale);
        }
        let cache = &t.shared.cache;
        let page_count = {
            let meta = cache.get(t.space, META_PAGE as u64)?;
            let bytes = meta.read();
            get_u32(&bytes, meta::PAGE_COUNT)
        };
        let mut report = PreloadReport::default();
        let mut buf = vec![0u8; PAGE_SIZE];
        for page_no in 2..page_count as u64 {
            // The page type decides; a cached copy may be newer than the file's.
            let cached = cache.peek(t.space, page_no);
            let kind = match &cached {
                Some(block) => block.read()[OFF_TYPE],
                None => {
                    crate::initial_pages::read_stored_page(
                        &t.shared.files,
                        t.space,
                        page_no as u32,
                        &mut buf,
                    )?;
                    buf[OFF_TYPE]
                }
            };
            if kind == TYPE_INTERNAL || (kind == TYPE_LEAF && !ignore_leaves) {
                report.pages += 1;
                if cached.is_none() {
                    report.read += 1;
                    drop(cache.get(t.space, page_no)?);
                }
            }
        }
        Ok(report)
    }
}

impl crate::Storage {
    /// `CACHE INDEX db.name IN cache` (cache id from [`KeyCaches::find`]; 0 is the default
    /// cache): from now on the table's pages are read through that cache. Like a DDL it
    /// takes the table's metadata lock (waiting for the statements using the table) and
    /// its writer lock, so that no page of it is in use while its blocks move: they are
    /// written and dropped in the old cache, and read again into the new one on demand.
    ///
    /// [`KeyCaches::find`]: myriad_cache::KeyCaches::find
    pub fn assign_key_cache(&self, db: &str, name: &str, cache: u32) -> Result<()> {
        let (lock, t) = self.metadata_lock(db, name)?;
        let timeout = t.shared.config.lock_wait_timeout;
        let _writer = t
            .writer
            .try_write_arc_for(timeout)
            .ok_or(StorageError::LockWaitTimeout)?;
        let _latch = t.latch.write();
        let key = crate::open_tables::table_key(db, name);
        t.shared.cache.assign(Some(t.space), &key, cache)?;
        drop(lock);
        Ok(())
    }

    /// `SET GLOBAL name.key_buffer_size = 0`: move the cache's tables back to the default
    /// cache (each under its metadata lock, as [`Storage::assign_key_cache`](crate::Storage::assign_key_cache)), then write
    /// and drop its blocks. Tables assigned by name that do not exist any more are simply
    /// forgotten.
    pub fn destroy_key_cache(&self, name: &str) -> Result<()> {
        let caches = &self.inner.shared.cache;
        let Some(info) = caches.find(name) else {
            return Ok(());
        };
        for key in caches.tables_of(info.id) {
            let Some((db, table)) = crate::open_tables::split_table_key(&key) else {
                continue;
            };
            match self.assign_key_cache(db, table, 0) {
                Ok(()) => {}
                Err(StorageError::NoSuchTable(..)) | Err(StorageError::NoSuchDatabase(..)) => {
                    caches.assign(None, &key, 0)?;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(caches.set_size(name, 0)?)
    }
}

#[cfg(test)]
mod tests {
    use crate::*;

    fn storage_with_rows(dir: &std::path::Path, rows: i64) -> (Storage, Table) {
        let storage = Storage::open(StorageConfig {
            datadir: dir.into(),
            block_cache_bytes: 16 << 20,
            ..Default::default()
        })
        .unwrap();
        storage.create_database("d").unwrap();
        let id = ColumnDef::new(
            "id",
            ColumnType::Int {
                width: IntWidth::Int,
                unsigned: false,
            },
        )
        .not_null();
        let pad = ColumnDef::new(
            "pad",
            ColumnType::Varchar {
                len: 100,
                collation: Collation::Utf8mb4GeneralCi,
            },
        );
        let def = TableDef {
            columns: vec![id, pad],
            indexes: vec![IndexDef {
                name: "PRIMARY".into(),
                kind: IndexKind::Primary,
                columns: vec![0],
            }],
            options: vec![],
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        };
        storage.create_table("d", "t", &def).unwrap();
        let t = storage.open_table("d", "t").unwrap();
        let mut stmt = storage.begin();
        for i in 0..rows {
            t.insert(&mut stmt, &[Value::Int(i), Value::Bytes(vec![b'x'; 90])])
                .unwrap();
        }
        stmt.commit().unwrap();
        (storage, t)
    }

    #[test]
    fn a_write_back_round_cleans_committed_probationary_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let (storage, _t) = storage_with_rows(dir.path(), 3000);
        let dirty = storage.block_cache_stats().key_blocks_not_flushed;
        assert!(dirty > 0);
        let writes = storage.block_cache_stats().key_writes;
        let cleaned = storage.write_back_round().unwrap();
        let after = storage.block_cache_stats();
        assert!(cleaned > 0, "dirty {dirty}, {after:?}");
        assert!(after.key_blocks_not_flushed < dirty);
        assert!(after.key_writes > writes);
    }
}
