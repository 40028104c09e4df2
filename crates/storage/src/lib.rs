//! On-disk tables: the datadir catalog, one file per table (definition, rows and indexes in
//! 16 KiB checksummed pages), B+tree indexes, the redo log and crash recovery. Every page is
//! read and written through `myriad_cache`'s [`BlockCache`]; files are opened only through
//! its [`FileCache`]; tables are opened only through its `TableCache`.
//!
//! # Using it (the SQL layer's view)
//!
//! ```
//! use myriad_storage::*;
//! use std::ops::Bound;
//! # let dir = tempfile::tempdir().unwrap();
//! let storage = Storage::open(StorageConfig { datadir: dir.path().into(), ..Default::default() })?;
//! storage.create_database("shop")?;
//! let mut id = ColumnDef::new("id", ColumnType::Int { width: IntWidth::Int, unsigned: false }).not_null();
//! id.auto_increment = true;
//! let name = ColumnDef::new("name", ColumnType::Varchar { len: 40, collation: Collation::Utf8mb4GeneralCi });
//! let def = TableDef {
//!     columns: vec![id, name],
//!     indexes: vec![
//!         IndexDef { name: "PRIMARY".into(), kind: IndexKind::Primary, columns: vec![0] },
//!         IndexDef { name: "by_name".into(), kind: IndexKind::NonUnique, columns: vec![1] },
//!     ],
//!     options: vec![("ENGINE".into(), "InnoDB".into())],
//!     checks: vec![],
//!     foreign_keys: vec![],
//! };
//! storage.create_table("shop", "items", &def)?;
//!
//! // Writes happen in a statement: all of it or nothing reaches the log.
//! let items = storage.open_table("shop", "items")?;
//! let mut stmt = storage.begin();
//! let out = items.insert(&mut stmt, &[Value::Null, Value::Bytes(b"Apple".to_vec())])?;
//! assert_eq!(out.generated_auto_increment, Some(1));
//! items.insert(&mut stmt, &[Value::Null, Value::Bytes(b"pear".to_vec())])?;
//! stmt.commit()?; // durable when it returns (flush_log_at_trx_commit = 1)
//!
//! // Point lookup on the primary key, and a range on a secondary index (case-insensitive).
//! let (row_id, row) = items.lookup_primary(&[Value::Int(2)])?.unwrap();
//! assert_eq!(row[1], Value::Bytes(b"pear".to_vec()));
//! let apple = [Value::Bytes(b"APPLE".to_vec())];
//! let hits: Vec<_> = items
//!     .index_scan(1, Bound::Included(&apple), Bound::Included(&apple), Direction::Forward)?
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(hits.len(), 1);
//!
//! // Update and delete by row id (found by a lookup or a scan).
//! let mut stmt = storage.begin();
//! items.update(&mut stmt, row_id, &[Value::Int(2), Value::Bytes(b"Pear".to_vec())])?;
//! stmt.commit()?;
//! assert_eq!(items.scan()?.count(), 2);
//! assert!(items.check()?.is_ok());
//! # Ok::<(), StorageError>(())
//! ```
//!
//! - A duplicate key is `StorageError::DuplicateKey { index, key, .. }`, already formatted
//!   for MySQL's error 1062; nothing changed, and the statement may go on (INSERT IGNORE) or
//!   be dropped (rolled back).
//! - `StorageError::Stale` means DDL replaced the table under a handle: open it again.
//! - Values must match the column types (see [`Value`]); the SQL layer converts first.
//! - Strings compare like MySQL: [`Collation::compare`] / [`compare_datums`] are the same
//!   comparisons the index keys encode. A DECIMAL is stored at its column's scale in the
//!   forms of [`decimal_codec`] (16 bytes up to 38 digits, 32 up to 65).
//! - One [`Statement`] per SQL statement, committed (or dropped) before the next: it holds
//!   the writer lock (shared) of every table it wrote and a claim on every page it changed
//!   until then. A write that meets another open statement's page fails with
//!   [`StorageError::Busy`]: drop the statement, wait as [`take_retry`] says
//!   ([`Storage::wait_page`] or [`Statement::wait_claim`]) and run it again. Do not run DDL or
//!   [`Storage::checkpoint`] on a table while the same thread holds an open statement that
//!   wrote it (the DDL would wait for that statement: lock wait timeout).
//! - A [`Table`] is a handle of the table cache for one statement: opening a cached table
//!   is one instance lock and no allocation of the engine's object. Do not keep handles
//!   between statements: a DDL (DROP, RENAME, ALTER, TRUNCATE, FLUSH TABLES) waits until
//!   the handles in use of its table are dropped (up to `lock_wait_timeout`), so a thread
//!   must drop its own handles of a table before it runs DDL on it. Call
//!   [`set_instance_hint`] with the connection id before a statement so that a connection
//!   stays on one instance of the table cache.
//! - Readers do not see the changes of a statement in progress on another connection: a
//!   page it changed reads as its committed content until it commits
//!   ([`Statement::reading_own`] makes a thread read as the statement itself).
//!
//! # Layout on disk
//!
//! ```text
//! <datadir>/<database>/            a directory per database (names @xx-escaped)
//! <datadir>/<database>/<table>.myt one file per table: pages, see `page` and `btree`
//! <datadir>/<database>/#sql-*.myt   files being built (CREATE, ALTER); hidden from lists
//! <datadir>/<database>/#foreign-keys  an empty file: some table of the database has (or
//!                                  had) a FOREIGN KEY constraint (see `mark_foreign_keys`)
//! <datadir>/#redo/<start lsn>.log  redo log segments, see `redo`
//! <datadir>/#redo/checkpoint       the checkpoint LSN
//! <datadir>/#redo/<segment>.log.damaged-<lsn>  log bytes recovery could not replay, kept
//! ```
//!
//! # Durability
//!
//! Statements log page differences (see `redo`), so recovery replays pages, not SQL, and
//! opens only the files the log names. A page reaches its file only after the log that
//! describes it is durable (the block cache calls [`BlockIo::flush_log`] first; the one
//! exception is a new file's initial pages, which have no older version to protect).
//! DDL goes through the log too. CREATE TABLE (and the new file of TRUNCATE) logs the new
//! file's initial pages and then waits for that record as a commit does under
//! `flush_log_at_trx_commit` (1: one group-committed log fsync; 2: written to the kernel,
//! synced by the background flush within a second; no file or directory fsync either way;
//! recovery recreates a file whose directory entry was lost or whose pages tore, from the
//! record's full page images; a killed process loses nothing it acknowledged, since the
//! kernel holds the written record; with 2 a power failure can lose the last second's
//! CREATEs, as it loses commits). DROP and RENAME are durable when the call returns:
//! they are logged (and synced) before they happen and replayed in order, a table is flushed and synced before a rename
//! so no page record needs its old name, and directories of new files are synced at the
//! next checkpoint. Checkpoints run in the background once `checkpoint_log_bytes` of log
//! accumulate.
//!
//! # Disk full and I/O errors
//!
//! A statement that returns an I/O error left no trace, and every acknowledged one is
//! kept. On a full disk the log cannot reserve a statement's bytes and the statement fails
//! before it is logged (see `redo`, "Preallocation and reservation"); a log write or fsync
//! that fails anyway undoes every statement not yet acknowledged (see `undo`). Reads go
//! on; writes resume when a retry succeeds; a datadir opens even when recovery's
//! checkpoint cannot write. Every write, fsync, extension and create of the engine can be
//! failed on demand through `myriad_cache::fault` (the `fault-injection` feature).
//!
//! Such an error is [`StorageError::Io`] with the errno; the SQL layer answers ENOSPC (and
//! EDQUOT, see [`is_disk_full`]) with MariaDB's 1021 ER_DISK_FULL, as MariaDB's handler
//! does for ENOSPC from any engine, and other errnos with 1030 ER_GET_ERRNO. Not InnoDB's
//! 1114 ER_RECORD_FILE_FULL ("The table is full"): that names a table whose tablespace
//! cannot grow, while here a statement fails in the shared log, before any table changed.

pub mod codec;
pub mod decimal_codec;
pub mod elements;
pub mod keycode;
pub mod page;
pub mod types;

mod btree;
mod db_options;
mod definition_images;
mod initial_pages;
mod open_tables;
mod page_claims;
mod redo;
mod redo_scan;
mod savepoint;
mod snapshot;
mod statement;
mod table;
mod table_locks;
mod undo;
mod views;
mod writeback;

pub use keycode::compare_datums;
pub use myriad_cache::fault::is_disk_full;
pub use myriad_cache::file_cache::default_open_files_limit;
pub use myriad_cache::{
    BlockCache, BlockCacheStats, KeyCache, KeyCacheInfo, KeyCaches, DEFAULT_KEY_CACHE,
};
pub use open_tables::{set_instance_hint, OpenTable, StatementTables};
pub use page_claims::{
    collect_leaves, take_retry, BusyPage, ClaimMode, LeavesRead, ReadsSince, Retry,
};
pub use redo::{create_private_dir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE};
pub use redo_scan::{RedoDamage, RedoRecovery};
pub use savepoint::Savepoint;
pub use snapshot::{reading_at, reading_from, ReadingAt, SnapshotSlot};
pub use table::{
    CheckReport, Committing, Direction, IndexScan, InsertOutcome, RowScan, Statement, Table,
};
pub use types::*;
pub use writeback::PreloadReport;

use myriad_cache::{BlockIo, FileCache, FileId};
use page::*;
use parking_lot::{Mutex, RwLock};
use redo::RedoLog;
use std::collections::HashMap;
use std::fs;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use table::TableInner;

/// Settings, named after the MySQL variables they mirror.
#[derive(Debug, Clone)]
pub struct StorageConfig {
    pub datadir: PathBuf,
    /// `key_buffer_size`: bytes of the block cache.
    pub block_cache_bytes: usize,
    /// `key_cache_segments`: segments of the default key cache (0 = not segmented).
    pub key_cache_segments: u64,
    /// `innodb_flush_log_at_trx_commit`: 1 = fsync at commit (group commit), 2 = write at
    /// commit and fsync once a second, 0 = write and fsync once a second.
    pub flush_log_at_trx_commit: u8,
    /// `open_files_limit`: kernel descriptors for table files.
    pub open_files_limit: usize,
    /// `table_open_cache`: table handles kept open, over all instances.
    pub table_open_cache: usize,
    /// `table_open_cache_instances`: instances of the open cache, each with its own lock.
    pub table_open_cache_instances: usize,
    /// `table_definition_cache`: table definitions kept.
    pub table_definition_cache: usize,
    /// `table_definition_cache_size`: bytes of table definitions kept.
    pub table_definition_cache_size: usize,
    /// `lock_wait_timeout` for a table's writer lock.
    pub lock_wait_timeout: Duration,
    /// Log bytes after which a background checkpoint runs (bounds recovery time).
    pub checkpoint_log_bytes: u64,
    /// `force_recovery`: start even when valid redo groups follow damage in the log
    /// (replay up to the damage; the statements after it are lost, their bytes kept aside).
    pub force_recovery: bool,
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            datadir: PathBuf::from("data"),
            block_cache_bytes: 128 << 20,
            key_cache_segments: 0,
            flush_log_at_trx_commit: 1,
            open_files_limit: 4000,
            table_open_cache: 4000,
            table_open_cache_instances: 16,
            table_definition_cache: 2000,
            table_definition_cache_size: 64 << 20,
            lock_wait_timeout: Duration::from_secs(50),
            checkpoint_log_bytes: 256 << 20,
            force_recovery: false,
        }
    }
}

/// What the engine shares with every open table and statement.
pub(crate) struct Shared {
    pub(crate) datadir: PathBuf,
    /// The key caches: the default one and the named ones, routed by file (see
    /// `myriad_cache::KeyCaches`), with `BlockCache`'s operations.
    pub(crate) cache: KeyCaches,
    pub(crate) files: Arc<FileCache>,
    pub(crate) log: Arc<RedoLog>,
    pub(crate) config: StorageConfig,
    checkpoint_lock: Mutex<()>,
    checkpoints: AtomicU64,
    /// Directories holding files created since the last checkpoint: their entries become
    /// durable at the checkpoint (until then the log's CREATE records recreate them).
    dirs_to_sync: Mutex<std::collections::HashSet<PathBuf>>,
    /// What definitions the definition cache let go leave behind (see the module).
    pub(crate) images: definition_images::DefinitionImages,
    /// Committed statements whose groups may still be undone (see `undo`).
    pub(crate) pending: undo::Pending,
    /// Which statement may change which page (see `page_claims`).
    pub(crate) claims: page_claims::PageClaims,
    /// The commit sequence, snapshots and page versions (see `snapshot`).
    pub(crate) snapshots: snapshot::Snapshots,
    /// A checkpoint failed and none has succeeded since (logged once each way).
    checkpoint_failing: AtomicBool,
}

impl Shared {
    /// Wait until the log holds `lsn` as `flush_log_at_trx_commit` asks.
    pub(crate) fn wait_durable(&self, lsn: u64) -> Result<()> {
        match self.config.flush_log_at_trx_commit {
            0 => Ok(()),
            2 => Ok(self.log.flush_to(lsn, false)?),
            // An fsync (or a wait for another thread's): long enough to hand off for.
            _ => Ok(myriad_cache::long_wait::run(|| {
                self.log.flush_to(lsn, true)
            })?),
        }
    }

    /// Append a group that holds only DDL entries, and wait for it per the flush policy.
    fn log_ddl(&self, payload: &[u8]) -> Result<()> {
        let (end, undone) = loop {
            if let Some(appended) = self.append_watched(payload, self.log.horizon())? {
                break appended;
            }
        };
        // DDL is rare and must not be lost with a power failure: always synced.
        self.log.flush_to(end, true)?;
        self.settle_watched(&undone)
    }

    fn checkpoint(&self) -> Result<()> {
        let result = self.checkpoint_once();
        match &result {
            Err(e) if !self.checkpoint_failing.swap(true, Ordering::AcqRel) => {
                tracing::error!(
                    "checkpoint failed ({e}); dirty pages stay in memory and in the redo \
                     log, and later checkpoints retry"
                );
            }
            Ok(()) if self.checkpoint_failing.swap(false, Ordering::AcqRel) => {
                tracing::warn!("checkpoint succeeded again");
            }
            _ => {}
        }
        result
    }

    fn checkpoint_once(&self) -> Result<()> {
        let _one_at_a_time = self.checkpoint_lock.lock();
        let lsn = self.log.begin_checkpoint();
        self.cache.flush_all()?;
        self.files.sync_written()?;
        let dirs = std::mem::take(&mut *self.dirs_to_sync.lock());
        for dir in &dirs {
            match sync_dir(dir) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {} // database dropped since
                other => other?,
            }
        }
        self.log.finish_checkpoint(lsn)?;
        self.checkpoints.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// The block cache's view of table files: checksums on the way in and out, the WAL rule.
struct PageIo {
    files: Arc<FileCache>,
    log: Arc<RedoLog>,
}

impl BlockIo for PageIo {
    fn read_block(&self, file: FileId, block: u64, buf: &mut [u8]) -> io::Result<()> {
        initial_pages::read_stored_page(&self.files, file, block as u32, buf)
    }
    fn write_block(&self, file: FileId, block: u64, buf: &[u8]) -> io::Result<()> {
        match initial_pages::write_stored_page(&self.files, file, block as u32, buf) {
            // The table was dropped while a flush held this page: nothing left to write to.
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
    fn flush_log(&self, lsn: u64) -> io::Result<()> {
        self.log.flush_to(lsn, true)
    }
    fn read_run(&self, file: FileId, first: u64, buf: &mut [u8]) -> Option<io::Result<()>> {
        Some(initial_pages::read_zero_filled(
            &self.files,
            file,
            first as u32,
            buf,
        ))
    }
    fn check_block(&self, file: FileId, block: u64, buf: &mut [u8]) -> io::Result<()> {
        initial_pages::check_stored_page(&self.files, file, block as u32, buf)
    }
}

/// What recovery did.
#[derive(Debug, Clone, Default)]
pub struct RecoveryStats {
    pub groups_replayed: u64,
    pub pages_applied: u64,
    /// Table files the log named and recovery opened.
    pub files_opened: u64,
    pub duration: Duration,
    /// The LSN range replayed, and any damage found after it.
    pub redo: RedoRecovery,
}

struct StorageInner {
    shared: Arc<Shared>,
    tables: Arc<open_tables::Tables>,
    /// DDL takes it exclusively; opening a table not in the table cache takes it shared.
    catalog: RwLock<()>,
    stop: Arc<AtomicBool>,
    background: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The key cache's write-back thread (`writeback`).
    writeback: Mutex<Option<std::thread::JoinHandle<()>>>,
    provisional_ids: AtomicU64,
    recovery: RecoveryStats,
    /// DDL statements begun on existing tables (see [`Storage::ddl_count`]).
    ddl_count: AtomicU64,
}

impl Drop for StorageInner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(h) = self.background.lock().take() {
            let _ = h.join();
        }
        if let Some(h) = self.writeback.lock().take() {
            let _ = h.join();
        }
        // Write (not sync) what is buffered, as a process exit would leave it in the kernel.
        let _ = self
            .shared
            .log
            .flush_to(self.shared.log.current_lsn(), false);
    }
}

/// The storage engine: catalog, tables, statements. Cheap to clone.
#[derive(Clone)]
pub struct Storage {
    inner: Arc<StorageInner>,
}

/// Escape a database or table name for the file system: `[A-Za-z0-9_]` stay, every other
/// byte becomes `@xx`.
fn encode_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    push_encoded_name(&mut out, name);
    out
}

/// Append `name` as a file name: ASCII letters, digits and `_` as they are, any other byte
/// as `@` and two hex digits.
fn push_encoded_name(out: &mut String, name: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' {
            out.push(b as char);
        } else {
            out.push('@');
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        }
    }
}

fn decode_name(file: &str) -> Option<String> {
    let bytes = file.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'@' {
            let hex = file.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The file that marks a database whose tables have FOREIGN KEY constraints.
const FOREIGN_KEYS_MARK: &str = "#foreign-keys";

fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

fn check_name(kind: &str, name: &str) -> Result<()> {
    if name.is_empty() || name.len() > 64 || name.contains('\0') || name.ends_with(' ') {
        return Err(StorageError::InvalidDefinition(format!(
            "Incorrect {kind} name '{name}'"
        )));
    }
    Ok(())
}

/// Internal (temporary) tables start with NUL, which SQL names cannot hold.
const INTERNAL_PREFIX: char = '\0';

fn new_space_id() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // Below 2^63 (provisional ids live above) and never 0.
    ((nanos << 8).wrapping_add(COUNTER.fetch_add(1, Ordering::Relaxed)) & (u64::MAX >> 1)) | 1
}

impl Storage {
    /// Open (or create) the datadir, replay the redo log, start the background flusher.
    pub fn open(config: StorageConfig) -> Result<Storage> {
        let started = Instant::now();
        create_private_dir(&config.datadir)?;
        let ack = match config.flush_log_at_trx_commit {
            0 => redo::Ack::Buffered,
            2 => redo::Ack::Written,
            _ => redo::Ack::Durable,
        };
        let (log, groups, redo) =
            RedoLog::open(&config.datadir.join("#redo"), config.force_recovery, ack)?;
        let log = Arc::new(log);
        let files = Arc::new(FileCache::new(config.open_files_limit));
        let io = Arc::new(PageIo {
            files: Arc::clone(&files),
            log: Arc::clone(&log),
        });
        let shared = Arc::new(Shared {
            datadir: config.datadir.clone(),
            cache: KeyCaches::new(
                config.block_cache_bytes,
                PAGE_SIZE,
                config.key_cache_segments,
                io,
            ),
            files,
            log,
            config: config.clone(),
            checkpoint_lock: Mutex::new(()),
            checkpoints: AtomicU64::new(0),
            dirs_to_sync: Mutex::new(std::collections::HashSet::new()),
            images: definition_images::DefinitionImages::new(config.table_definition_cache_size),
            pending: undo::Pending::default(),
            claims: Default::default(),
            snapshots: Default::default(),
            checkpoint_failing: AtomicBool::new(false),
        });
        let mut storage = StorageInner {
            tables: open_tables::new_cache(&config),
            shared,
            catalog: RwLock::new(()),
            stop: Arc::new(AtomicBool::new(false)),
            background: Mutex::new(None),
            writeback: Mutex::new(None),
            provisional_ids: AtomicU64::new(1 << 63),
            recovery: RecoveryStats::default(),
            ddl_count: AtomicU64::new(0),
        };
        // After damage the checkpoint also retires the damaged segment (kept aside).
        if !groups.is_empty() || redo.damage.is_some() {
            let mut stats = recover(&storage, groups)?;
            match storage.shared.checkpoint() {
                // A full (or failing) disk: the replayed pages stay dirty in memory and the
                // log keeps them; the server starts, and later checkpoints retry.
                Err(StorageError::Io(_)) => {}
                other => other?,
            }
            stats.duration = started.elapsed();
            storage.recovery = stats;
        }
        storage.recovery.redo = redo;
        let storage = Storage {
            inner: Arc::new(storage),
        };
        storage.start_background();
        Ok(storage)
    }

    fn start_background(&self) {
        let shared = Arc::downgrade(&self.inner.shared);
        let stop = Arc::clone(&self.inner.stop);
        let handle = std::thread::Builder::new()
            .name("myriad-log-flusher".into())
            .spawn(move || {
                let mut last_sync = Instant::now();
                while !stop.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(50));
                    let Some(shared) = shared.upgrade() else {
                        return;
                    };
                    if shared.log.is_failed() {
                        // Undo what a failed write left (if no committer did), then retry
                        // the write and fsync: writes resume once this succeeds.
                        let _ = shared.undo_failed();
                    } else if last_sync.elapsed() >= Duration::from_secs(1) {
                        last_sync = Instant::now();
                        let _ = shared.log.flush_to(shared.log.current_lsn(), true);
                    }
                    let pending = shared
                        .log
                        .current_lsn()
                        .saturating_sub(shared.log.checkpoint_lsn());
                    if pending >= shared.config.checkpoint_log_bytes {
                        let _ = shared.checkpoint();
                    }
                }
            })
            .ok();
        *self.inner.background.lock() = handle;
        *self.inner.writeback.lock() = writeback::spawn(
            Arc::downgrade(&self.inner.shared),
            Arc::clone(&self.inner.stop),
        );
    }

    /// What recovery did when this datadir was opened.
    pub fn recovery_stats(&self) -> &RecoveryStats {
        &self.inner.recovery
    }

    /// A holder of consistent-read snapshots (one per session; see [`SnapshotSlot`]).
    pub fn snapshot_slot(&self) -> SnapshotSlot {
        SnapshotSlot::new(Arc::clone(&self.inner.shared))
    }

    /// Page versions kept for snapshots that may still read them (see `snapshot`).
    pub fn page_versions(&self) -> usize {
        self.inner.shared.snapshots.versions()
    }

    /// The last commit readers see: a snapshot taken now reads at this number.
    pub fn published_commit(&self) -> u64 {
        self.inner.shared.snapshots.published()
    }

    /// Until the guard drops, this thread's statement computes its writes from rows it
    /// reads from now on (`check`), as UPDATE and DELETE do: a page it claims that a commit
    /// changed after this call fails with [`StorageError::Busy`] and [`Retry::Now`] (see
    /// `page_claims`). Without `check` (an INSERT of values), no page is checked.
    pub fn reads_from_now(&self, check: bool) -> ReadsSince {
        ReadsSince::at(if check {
            self.inner.shared.log.current_lsn()
        } else {
            u64::MAX
        })
    }

    /// Wait until no statement holds `busy`'s page in a way that conflicts with its claim
    /// (for a statement that holds no claim of its own, outside a transaction), at most
    /// `timeout`.
    pub fn wait_page(&self, busy: BusyPage, timeout: Duration) -> Result<()> {
        let me = table_locks::statement_id();
        let claims = &self.inner.shared.claims;
        claims.wait_claim(me, busy.page, busy.mode, timeout)?;
        claims.release(me, &[busy.page]);
        Ok(())
    }

    /// Start a statement (the unit of atomicity and durability).
    pub fn begin(&self) -> Statement {
        Statement::new(Arc::clone(&self.inner.shared))
    }

    /// Write every dirty page and move the checkpoint (bounds recovery; FLUSH TABLES).
    pub fn checkpoint(&self) -> Result<()> {
        self.inner.shared.checkpoint()
    }

    /// Stop the background thread and checkpoint (a clean shutdown needs no recovery).
    pub fn shutdown(&self) -> Result<()> {
        self.inner.stop.store(true, Ordering::Release);
        if let Some(h) = self.inner.background.lock().take() {
            let _ = h.join();
        }
        if let Some(h) = self.inner.writeback.lock().take() {
            let _ = h.join();
        }
        self.checkpoint()
    }

    /// The default key cache, for its knobs: `resize` (key_buffer_size),
    /// `set_division_limit`, `set_age_threshold`, and its counters (KEY_CACHES).
    pub fn key_cache(&self) -> &KeyCache {
        self.inner.shared.cache.default_cache()
    }

    /// Every key cache, the named ones included (see [`Storage::assign_key_cache`]).
    pub fn key_caches(&self) -> &KeyCaches {
        &self.inner.shared.cache
    }

    /// One round of the background write-back (tests; the thread runs it every 100 ms).
    pub fn write_back_round(&self) -> Result<usize> {
        Ok(writeback::write_back_round(&self.inner.shared)?)
    }

    fn db_dir(&self, db: &str) -> PathBuf {
        self.inner.shared.datadir.join(encode_name(db))
    }

    /// The directory of database `db` (where LOAD DATA takes a relative file name).
    pub fn database_dir(&self, db: &str) -> PathBuf {
        self.db_dir(db)
    }

    /// The data directory.
    pub fn datadir(&self) -> &Path {
        &self.inner.shared.datadir
    }

    fn table_path(&self, db: &str, name: &str) -> PathBuf {
        table_path(&self.inner.shared.datadir, db, name)
    }

    // ---- databases ----

    pub fn create_database(&self, db: &str) -> Result<()> {
        self.create_database_collated(db, Collation::default())
    }

    /// CREATE DATABASE whose tables default to `collation` (kept in its `db.opt`).
    pub fn create_database_collated(&self, db: &str, collation: Collation) -> Result<()> {
        check_name("database", db)?;
        let _c = self.inner.catalog.write();
        let dir = self.db_dir(db);
        match fs::DirBuilder::new().mode(PRIVATE_DIR_MODE).create(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(StorageError::DatabaseExists(db.into()))
            }
            Err(e) => return Err(e.into()),
        }
        if collation != Collation::default() {
            db_options::write(&dir, collation)?;
            sync_dir(&dir)?;
        }
        sync_dir(&self.inner.shared.datadir)?;
        Ok(())
    }

    /// The collation a database's new tables default to.
    pub fn database_collation(&self, db: &str) -> Result<Collation> {
        if !self.database_exists(db) {
            return Err(StorageError::NoSuchDatabase(db.into()));
        }
        Ok(db_options::read(&self.db_dir(db))?)
    }

    pub fn database_exists(&self, db: &str) -> bool {
        self.db_dir(db).is_dir()
    }

    /// Databases, sorted.
    pub fn list_databases(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for e in fs::read_dir(&self.inner.shared.datadir)? {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('#') || !e.file_type()?.is_dir() {
                continue;
            }
            if let Some(n) = decode_name(&name) {
                out.push(n);
            }
        }
        out.sort();
        Ok(out)
    }

    /// Drop a database and every table in it.
    pub fn drop_database(&self, db: &str) -> Result<()> {
        if !self.database_exists(db) {
            return Err(StorageError::NoSuchDatabase(db.into()));
        }
        for t in self.list_tables(db)? {
            match self.drop_table(db, &t) {
                Ok(()) | Err(StorageError::NoSuchTable(..)) => {}
                Err(e) => return Err(e),
            }
        }
        let _c = self.inner.catalog.write();
        fs::remove_dir_all(self.db_dir(db))?;
        sync_dir(&self.inner.shared.datadir)?;
        Ok(())
    }

    /// Record, durably, that a table of `db` is about to get a FOREIGN KEY constraint: the
    /// SQL layer looks for constraints only in databases so marked, so that a database
    /// without any never has its tables' definitions read for them. The mark stays (a
    /// database that had constraints is looked through again after a restart).
    pub fn mark_foreign_keys(&self, db: &str) -> Result<()> {
        let dir = self.db_dir(db);
        if !dir.is_dir() {
            return Err(StorageError::NoSuchDatabase(db.into()));
        }
        let path = dir.join(FOREIGN_KEYS_MARK);
        if path.is_file() {
            return Ok(());
        }
        fs::File::create(&path)?.sync_all()?;
        sync_dir(&dir)?;
        Ok(())
    }

    /// Whether `db` is marked by [`Storage::mark_foreign_keys`].
    pub fn has_foreign_keys(&self, db: &str) -> bool {
        self.db_dir(db).join(FOREIGN_KEYS_MARK).is_file()
    }

    // ---- tables ----

    /// Tables of a database, sorted.
    pub fn list_tables(&self, db: &str) -> Result<Vec<String>> {
        self.names_in_database(db, ".myt")
    }

    /// The names of a database's files that end in `suffix` (files being built, whose
    /// names start with `#`, left out), decoded and sorted; NoSuchDatabase without it.
    pub(crate) fn names_in_database(&self, db: &str, suffix: &str) -> Result<Vec<String>> {
        let entries = match fs::read_dir(self.db_dir(db)) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(StorageError::NoSuchDatabase(db.into()))
            }
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for e in entries {
            let name = e?.file_name().to_string_lossy().into_owned();
            if name.starts_with('#') {
                continue;
            }
            if let Some(n) = name.strip_suffix(suffix).and_then(decode_name) {
                out.push(n);
            }
        }
        out.sort();
        Ok(out)
    }

    pub fn table_exists(&self, db: &str, name: &str) -> bool {
        self.table_path(db, name).is_file()
    }

    /// `key` is `db`.`name`'s table cache key ([`open_tables::table_key`]).
    fn load_table(&self, db: &str, name: &str, key: &str) -> Result<TableInner> {
        // The key as the images keep it: one allocation per table, shared with them.
        let (ticket, image, key) = self.inner.shared.images.begin_load(key);
        let loaded = match image {
            Some(image) => self.load_table_from_image(db, name, &key, image),
            None => self.load_table_from_file(db, name, &key),
        };
        match loaded {
            Ok(mut t) => {
                t.image_ticket = ticket;
                Ok(t)
            }
            Err(e) => {
                self.inner.shared.images.end_load(&key, ticket, None);
                Err(e)
            }
        }
    }

    /// A definition from the image the last one left: no file is opened until a page is read.
    fn load_table_from_image(
        &self,
        db: &str,
        name: &str,
        key: &Arc<str>,
        image: definition_images::Image,
    ) -> Result<TableInner> {
        let def = codec::decode_def(&image.def_bytes)?;
        let shared = &self.inner.shared;
        let path = image.path.unwrap_or_else(|| self.table_path(db, name));
        shared.files.register(image.space, path);
        // A table assigned to a named key cache (CACHE INDEX) reads through it.
        shared.cache.bind_file(image.space, key.as_ref());
        Ok(self.table_inner(key, image.space, def, image.def_bytes, image.known_empty))
    }

    fn load_table_from_file(&self, db: &str, name: &str, key: &Arc<str>) -> Result<TableInner> {
        let path = self.table_path(db, name);
        let shared = &self.inner.shared;
        // Taken before the read: see `rows_known_empty` below.
        let quiet = shared.files.quiet_mark();
        // No stat first: a missing file is the open's NotFound. The descriptor opened to read
        // the header page stays open as the table's (one registration, taken here).
        let header = match open_file_header(shared, &self.inner.provisional_ids, &path) {
            Err(StorageError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
                return Err(if self.database_exists(db) {
                    StorageError::NoSuchTable(db.into(), name.into())
                } else {
                    StorageError::NoSuchDatabase(db.into())
                });
            }
            other => other?,
        };
        let space = header.space;
        // Bound to its key cache first: the meta page is looked for below in the cache the
        // table reads through (a named one after CACHE INDEX).
        shared.cache.bind_file(space, key.as_ref());
        // The meta page read from the file is the table's newest unless the block cache
        // holds one (dirty, or being read) or a write ran since before the read: a dirty
        // page leaves the cache only after it is written. Nothing writes the table now: its
        // writers would need this definition, or one that DDL or eviction has retired.
        let rows_known_empty = header.meta_counts_no_rows
            && quiet.is_some_and(|mark| {
                shared.cache.peek(space, META_PAGE as u64).is_none()
                    && shared.files.quiet_since(mark)
            });
        Ok(self.table_inner(key, space, header.def, header.def_bytes, rows_known_empty))
    }

    fn table_inner(
        &self,
        key: &Arc<str>,
        space: u64,
        def: TableDef,
        def_bytes: Box<[u8]>,
        rows_known_empty: bool,
    ) -> TableInner {
        let shared = &self.inner.shared;
        TableInner {
            shared: Arc::clone(shared),
            key: Arc::clone(key),
            space,
            latch: RwLock::new(()),
            writer: Arc::new(RwLock::new(())),
            next_row_id: AtomicU64::new(0),
            auto_increment: AtomicU64::new(0),
            stale: AtomicBool::new(false),
            clustered_pk: table::clustered_primary_key(&def),
            index_moves: def.indexes.iter().map(|_| Default::default()).collect(),
            def: Arc::new(def),
            def_bytes,
            image_ticket: 0,
            written: AtomicBool::new(false),
            rows_known_empty: AtomicBool::new(rows_known_empty),
            last_commit: AtomicU64::new(0),
            defined_at: shared.snapshots.defined_at(key),
        }
    }

    /// Create a table. When this returns its log record is where
    /// `innodb_flush_log_at_trx_commit` puts a commit's: synced (1), written to the kernel
    /// and synced within a second (2), or buffered (0). The file is built under a hidden
    /// name and renamed into place; recovery rebuilds it from the record's page images.
    pub fn create_table(&self, db: &str, name: &str, def: &TableDef) -> Result<()> {
        check_name("table", name)?;
        def.validate()?;
        let end = {
            // A CREATE runs on a network thread (see the server's handler): waiting behind
            // another DDL's file work and fsync is a long wait, announced as one.
            let _c = myriad_cache::long_wait::unless_free(
                || self.inner.catalog.try_write(),
                || self.inner.catalog.write(),
            );
            self.create_table_locked(db, name, def)?
        };
        // Waited for outside the catalog lock: concurrent creates share one log fsync.
        let durable = self.inner.shared.wait_durable(end.0);
        let durable = durable.and_then(|()| self.inner.shared.settle_watched(&end.1));
        if durable.is_err() {
            self.unmake_table(db, name);
        }
        durable
    }

    /// A new table whose CREATE record failed to become durable: its file goes (the
    /// record is undone with the failed groups, see `undo`), so the failed CREATE leaves
    /// nothing behind.
    fn unmake_table(&self, db: &str, name: &str) {
        {
            let _c = self.inner.catalog.write();
            self.remove_unmade_file(db, name);
        }
        // Outside the catalog lock: the undo waits for tables' writers, which may need it.
        let _ = self.inner.shared.undo_failed();
    }

    fn remove_unmade_file(&self, db: &str, name: &str) {
        let path = self.table_path(db, name);
        if let Ok((space, _)) =
            read_file_header(&self.inner.shared, &self.inner.provisional_ids, &path)
        {
            self.inner.shared.cache.discard_file(space);
            self.inner.shared.files.forget(space);
        }
        let _ = fs::remove_file(&path);
    }

    /// The path a new table `db`.`name` takes: an error when a table file holds it already.
    /// Nothing known of an earlier table of this name may describe the new one, so what
    /// the page images keep of it is forgotten.
    fn free_table_path(&self, db: &str, name: &str) -> Result<PathBuf> {
        let path = self.table_path(db, name);
        if path.exists() || self.view_exists(db, name) {
            return Err(StorageError::TableExists(db.into(), name.into()));
        }
        self.inner
            .shared
            .images
            .forget(&open_tables::table_key(db, name));
        Ok(path)
    }

    /// Create the file and log its CREATE; returns the LSN to wait for before the table is
    /// durable (the caller waits after releasing its locks).
    fn create_table_locked(
        &self,
        db: &str,
        name: &str,
        def: &TableDef,
    ) -> Result<(u64, Option<undo::Undone>)> {
        // Before the new table can be opened: a snapshot from before it cannot read it.
        (self.inner.shared.snapshots).redefine(&open_tables::table_key(db, name));
        let dir = self.db_dir(db);
        // One stat: a missing database directory shows when the new file cannot be made.
        let path = self.free_table_path(db, name)?;
        let def_bytes = codec::encode_def(def);
        if def_bytes.len() > PAGE_SIZE - file_header::DEF {
            return Err(StorageError::TooBig(
                "table definition does not fit its page".into(),
            ));
        }
        let shared = &self.inner.shared;
        let space = new_space_id();
        // Built under a hidden name and renamed into place once its pages are written, so a
        // crash never leaves a half-made file under a table's name.
        let building = dir.join(format!("#sql-new-{space:x}.myt"));
        match shared.files.create(space, building.clone()) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(StorageError::TableExists(db.into(), name.into()))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(StorageError::NoSuchDatabase(db.into()))
            }
            Err(e) => return Err(e.into()),
        }
        let result = (|| -> Result<(u64, Option<undo::Undone>)> {
            // Only page 0 is made: the other pages a table starts with are read in their
            // initial state while the file does not hold them (see `read_stored_page`), so
            // a CREATE writes one 16 KB page instead of three.
            let mut page0 = initial_pages::header_page(space, &def_bytes);
            // One redo group: the CREATE and page 0's image. The file is not synced now:
            // the log makes the table durable.
            let end = loop {
                let horizon = shared.log.horizon();
                let mut payload = Vec::with_capacity(256 + def_bytes.len());
                push_ddl_entry(&mut payload, redo::ENTRY_CREATE, space, &[db, name]);
                table::encode_page_record(&mut payload, space, 0, &page0, &page0, true);
                if let Some(appended) = shared.append_watched(&payload, horizon)? {
                    break appended;
                }
            };
            let (end, undone) = end;
            put_u64(&mut page0, OFF_LSN, end);
            // Written now (not synced), before the log is durable, so that opening the table
            // finds its definition in the file. No older version exists to protect. The
            // file is synced by the checkpoint that retires the CREATE record. Only the
            // page's start is written (see `write_header_page`).
            initial_pages::write_header_page(&shared.files, space, &page0)?;
            // The log reaches the kernel before the name appears, so a killed server never
            // leaves the name without its CREATE record. (A power failure before the log is
            // synced can: the table then reads as empty if its page 0 reached the disk.)
            shared.log.flush_to(end, false)?;
            fs::rename(&building, &path)?;
            shared.files.renamed(space, path.clone());
            shared.dirs_to_sync.lock().insert(dir.clone());
            Ok((end, undone))
        })();
        match &result {
            // The table's definition takes its own registration when it is opened; until
            // then the file stays known only until its first pages are synced.
            Ok(_) => {
                shared.files.release(space);
            }
            Err(_) => {
                shared.cache.discard_file(space);
                shared.files.forget(space);
                let _ = fs::remove_file(&building);
            }
        }
        result
    }

    /// The metadata lock of a table (handles in use drained, new opens waiting), its object
    /// and its writer lock, for a DDL.
    fn lock_for_ddl(
        &self,
        db: &str,
        name: &str,
    ) -> Result<(
        open_tables::MetadataLock<'_>,
        Arc<TableInner>,
        parking_lot::lock_api::ArcRwLockWriteGuard<parking_lot::RawRwLock, ()>,
    )> {
        let (mdl, table) = self.metadata_lock(db, name)?;
        self.inner.ddl_count.fetch_add(1, Ordering::AcqRel);
        let writer = table
            .writer
            .try_write_arc_for(self.inner.shared.config.lock_wait_timeout)
            .ok_or(StorageError::LockWaitTimeout)?;
        if table.stale.load(Ordering::Acquire) {
            return Err(StorageError::Stale);
        }
        Ok((mdl, table, writer))
    }

    /// Forget a table whose writer lock, catalog lock and latch the caller holds.
    fn retire(&self, t: &TableInner, delete_file: bool) -> Result<()> {
        t.stale.store(true, Ordering::Release);
        let shared = &self.inner.shared;
        if delete_file {
            // Logged first: a CREATE still in the log must not bring the table back.
            let mut entry = Vec::new();
            push_ddl_entry(&mut entry, redo::ENTRY_DROP, t.space, &[t.db(), t.name()]);
            shared.log_ddl(&entry)?;
            shared.cache.discard_file(t.space);
            shared.files.forget(t.space);
            let path = self.table_path(t.db(), t.name());
            fs::remove_file(&path)?;
            sync_dir(path.parent().unwrap_or(Path::new(".")))?;
        }
        Ok(())
    }

    /// How many DDL statements (DROP, ALTER, RENAME, TRUNCATE ...) have begun on existing
    /// tables: read before compiling, a count that has not moved since says that no table
    /// the plan opened has changed definition.
    pub fn ddl_count(&self) -> u64 {
        self.inner.ddl_count.load(Ordering::Acquire)
    }

    /// Drop a table (durable when this returns).
    pub fn drop_table(&self, db: &str, name: &str) -> Result<()> {
        let (_mdl, table, _writer) = self.lock_for_ddl(db, name)?;
        let _c = self.inner.catalog.write();
        let _latch = table.latch.write();
        self.retire(&table, true)
    }

    /// Empty a table (a fresh file with the same definition; AUTO_INCREMENT restarts).
    pub fn truncate_table(&self, db: &str, name: &str) -> Result<()> {
        let end = {
            let (_mdl, table, _writer) = self.lock_for_ddl(db, name)?;
            let _c = self.inner.catalog.write();
            let _latch = table.latch.write();
            self.retire(&table, true)?;
            self.create_table_locked(db, name, &table.def)?
        };
        // The DROP half was synced (see `retire`); the new file waits as a CREATE does.
        self.inner.shared.wait_durable(end.0)?;
        self.inner.shared.settle_watched(&end.1)
    }

    /// Rename a table, also into another database (durable when this returns).
    pub fn rename_table(&self, db: &str, name: &str, new_db: &str, new_name: &str) -> Result<()> {
        check_name("table", new_name)?;
        let (_mdl, table, _writer) = self.lock_for_ddl(db, name)?;
        let _c = self.inner.catalog.write();
        if !self.db_dir(new_db).is_dir() {
            return Err(StorageError::NoSuchDatabase(new_db.into()));
        }
        let new_path = self.free_table_path(new_db, new_name)?;
        // Before any latch: a commit publishing holds the publication and waits for its
        // tables' latches.
        (self.inner.shared.snapshots).redefine(&open_tables::table_key(new_db, new_name));
        let _latch = table.latch.write();
        let shared = &self.inner.shared;
        let t = &table;
        // Everything the log says about this table goes to the file now, so no log record
        // written under the old name is ever needed again.
        shared.cache.flush_file(t.space)?;
        shared.files.sync(t.space)?;
        let mut entry = Vec::new();
        push_ddl_entry(
            &mut entry,
            redo::ENTRY_RENAME,
            t.space,
            &[db, name, new_db, new_name],
        );
        shared.log_ddl(&entry)?;
        let old_path = self.table_path(db, name);
        fs::rename(&old_path, &new_path)?;
        sync_dir(new_path.parent().unwrap_or(Path::new(".")))?;
        sync_dir(old_path.parent().unwrap_or(Path::new(".")))?;
        shared.files.renamed(t.space, new_path);
        self.retire(t, false)
    }

    /// ALTER TABLE by rewrite: a new file with `new_def`, each row passed through `convert`
    /// (old row -> new row), indexes built by inserting, then swapped in atomically. It holds
    /// the table's metadata lock throughout: statements on the table wait (up to
    /// `lock_wait_timeout`) until the swap. A duplicate key in a new
    /// unique index fails the ALTER and leaves the table as it was.
    pub fn alter_table(
        &self,
        db: &str,
        name: &str,
        new_def: &TableDef,
        convert: &mut dyn FnMut(&[Value]) -> Result<Row>,
    ) -> Result<()> {
        new_def.validate()?;
        // The metadata lock before the writer lock, as every DDL takes them: a writer that
        // holds a handle and waits for the writer lock would otherwise never let the
        // metadata lock through (a deadlock until lock_wait_timeout). Statements on the
        // table wait from here until the swap.
        let (_mdl, old_inner, _writer) = self.lock_for_ddl(db, name)?;
        let old = Table {
            inner: Arc::clone(&old_inner),
            _handle: None,
        };
        if old.is_stale() {
            return Err(StorageError::Stale);
        }
        let tmp_name = format!("{INTERNAL_PREFIX}alter-{:x}", new_space_id());
        {
            let _c = self.inner.catalog.write();
            self.create_table_locked(db, &tmp_name, new_def)?;
        }
        let result = (|| -> Result<Table> {
            let tmp = self.open_table(db, &tmp_name)?;
            let mut stmt = self.begin();
            for (n, item) in old.scan()?.enumerate() {
                let (_, row) = item?;
                tmp.insert(&mut stmt, &convert(&row)?)?;
                if n % 512 == 511 {
                    stmt.commit_no_wait()?;
                    stmt = self.begin();
                }
            }
            let next = old.next_auto_increment()?.max(tmp.next_auto_increment()?);
            tmp.set_auto_increment(&mut stmt, next)?;
            stmt.commit_no_wait()?;
            let shared = &self.inner.shared;
            shared.cache.flush_file(tmp.inner.space)?;
            shared.files.sync(tmp.inner.space)?;
            Ok(tmp)
        })();
        let tmp = match result {
            Ok(t) => t,
            Err(e) => {
                let _ = self.drop_table(db, &tmp_name);
                return Err(e);
            }
        };
        // The swap: no handle of ours may hold the metadata locks up.
        drop(old);
        let tmp_inner = Arc::clone(&tmp.inner);
        drop(tmp);
        let (_tmp_mdl, _) = self.metadata_lock(db, &tmp_name)?;
        let old = old_inner;
        let tmp = tmp_inner;
        let _c = self.inner.catalog.write();
        // Before the latch (see `rename_table`).
        (self.inner.shared.snapshots).redefine(&open_tables::table_key(db, name));
        let _latch = old.latch.write();
        let shared = &self.inner.shared;
        let path = self.table_path(db, name);
        // The swap, logged before it happens: the new file replaces the old one.
        let mut entries = Vec::new();
        push_ddl_entry(
            &mut entries,
            redo::ENTRY_RENAME,
            tmp.space,
            &[db, &tmp_name, db, name],
        );
        push_ddl_entry(&mut entries, redo::ENTRY_DROP, old.space, &[db, name]);
        // The old file's pages reach the old file, and the old file leaves the caches,
        // before its path names the new file: a background write-back that reopened the
        // path after the rename would write old pages into the new table.
        shared.cache.flush_file(old.space)?;
        shared.cache.discard_file(old.space);
        shared.files.forget(old.space);
        let swapped = (|| -> Result<()> {
            shared.log_ddl(&entries)?;
            fs::rename(self.table_path(db, &tmp_name), &path)?;
            sync_dir(path.parent().unwrap_or(Path::new(".")))?;
            Ok(())
        })();
        // Either way the old object is done: the next open loads (and registers) the file.
        self.retire(&old, false)?;
        swapped?;
        tmp.stale.store(true, Ordering::Release);
        shared.files.renamed(tmp.space, path);
        Ok(())
    }

    // ---- status ----

    /// Block cache counters (Key_*).
    pub fn block_cache_stats(&self) -> BlockCacheStats {
        self.inner.shared.cache.stats()
    }

    /// Status variables with MySQL's names.
    pub fn status(&self) -> Vec<(&'static str, u64)> {
        let b = self.inner.shared.cache.stats();
        let t = self.inner.tables.stats();
        let (images, image_bytes) = self.inner.shared.images.stats();
        let f = self.inner.shared.files.stats();
        let log = &self.inner.shared.log;
        vec![
            ("Key_read_requests", b.key_read_requests),
            ("Key_reads", b.key_reads),
            ("Key_write_requests", b.key_write_requests),
            ("Key_writes", b.key_writes),
            ("Key_blocks_used", b.key_blocks_used),
            ("Key_blocks_unused", b.key_blocks_unused),
            ("Key_blocks_not_flushed", b.key_blocks_not_flushed),
            ("Key_blocks_warm", b.key_blocks_warm),
            ("Open_tables", t.open_tables),
            ("Opened_tables", t.opened_tables),
            ("Table_open_cache_hits", t.table_open_cache_hits),
            ("Table_open_cache_misses", t.table_open_cache_misses),
            ("Table_open_cache_overflows", t.table_open_cache_overflows),
            ("Open_table_definitions", t.open_table_definitions),
            ("Opened_table_definitions", t.opened_table_definitions),
            ("Table_definition_images", images as u64),
            ("Table_definition_image_bytes", image_bytes as u64),
            ("Open_files", f.open_files),
            ("Opened_files", f.opened_files),
            ("Innodb_os_log_fsyncs", log.fsyncs.load(Ordering::Relaxed)),
            ("Innodb_log_writes", log.groups.load(Ordering::Relaxed)),
            ("Innodb_lsn_current", log.current_lsn()),
            ("Innodb_lsn_flushed", log.durable_lsn()),
            ("Innodb_lsn_last_checkpoint", log.checkpoint_lsn()),
            (
                "Innodb_checkpoints",
                self.inner.shared.checkpoints.load(Ordering::Relaxed),
            ),
            (
                "Innodb_history_list_length",
                self.inner.shared.snapshots.versions() as u64,
            ),
        ]
    }
}

/// Append a DDL entry: tag, space, then (database, table) names as u16 length + bytes.
fn push_ddl_entry(out: &mut Vec<u8>, tag: u8, space: u64, names: &[&str]) {
    out.push(tag);
    out.extend_from_slice(&space.to_le_bytes());
    for n in names {
        out.extend_from_slice(&(n.len() as u16).to_le_bytes());
        out.extend_from_slice(n.as_bytes());
    }
}

/// `<datadir>/<db>/<name>.myt` (an internal table: `#sql-<name>.myt`), names encoded, built
/// in one allocation: every definition load names its file.
fn table_path(datadir: &Path, db: &str, name: &str) -> PathBuf {
    let (prefix, name) = match name.strip_prefix(INTERNAL_PREFIX) {
        Some(internal) => ("#sql-", internal),
        None => ("", name),
    };
    // Encoded names are at most three times as long.
    let mut relative = String::with_capacity(3 * (db.len() + name.len()) + 12);
    push_encoded_name(&mut relative, db);
    relative.push('/');
    relative.push_str(prefix);
    push_encoded_name(&mut relative, name);
    relative.push_str(".myt");
    let mut path = PathBuf::with_capacity(datadir.as_os_str().len() + 1 + relative.len());
    path.push(datadir);
    path.push(relative);
    path
}

/// Read page 0 of a table file (through the file cache, under a provisional id) and return
/// the space id and definition.
fn read_file_header(
    shared: &Shared,
    provisional_ids: &AtomicU64,
    path: &Path,
) -> Result<(u64, TableDef)> {
    let pid = provisional_ids.fetch_add(1, Ordering::Relaxed);
    shared.files.register(pid, path.to_path_buf());
    let header = decode_file_header(shared, pid, path, false);
    shared.files.forget(pid);
    header.map(|h| (h.space, h.def))
}

/// A table file's header, as a definition load reads it.
struct FileHeader {
    space: u64,
    def: TableDef,
    /// The definition as the file holds it (kept for the definition's image).
    def_bytes: Box<[u8]>,
    /// The meta page, read in the same call as page 0, counts no row. Only what the file
    /// held: the block cache may hold a newer meta page (see `load_table`).
    meta_counts_no_rows: bool,
}

/// [`read_file_header`] for opening the table, reading the meta page with page 0 (one
/// `pread` of two pages): on success the file is registered under its space id (one
/// registration for the caller), with the descriptor the read opened.
fn open_file_header(
    shared: &Shared,
    provisional_ids: &AtomicU64,
    path: &Path,
) -> Result<FileHeader> {
    let pid = provisional_ids.fetch_add(1, Ordering::Relaxed);
    shared.files.register(pid, path.to_path_buf());
    let header = decode_file_header(shared, pid, path, true);
    match &header {
        Ok(h) => shared.files.rekey(pid, h.space),
        Err(_) => shared.files.forget(pid),
    }
    header
}

thread_local! {
    /// The header page (and the meta page) of each definition load is read here: a zeroed
    /// 16 KB allocation per open of an uncached table was ~2 us in a profile of the miss
    /// path. What a read does not fill is zeroed, so no
    /// byte of an earlier file survives a read.
    static HEADER_PAGES: std::cell::RefCell<Box<[u8]>> =
        std::cell::RefCell::new(vec![0u8; 2 * PAGE_SIZE].into_boxed_slice());
}

fn decode_file_header(
    shared: &Shared,
    pid: FileId,
    path: &Path,
    with_meta: bool,
) -> Result<FileHeader> {
    HEADER_PAGES.with(|pages| {
        let mut pages = pages.borrow_mut();
        let pages = if with_meta {
            &mut pages[..]
        } else {
            &mut pages[..PAGE_SIZE]
        };
        decode_file_header_in(shared, pid, path, pages)
    })
}

/// Decode the header page at the start of `pages` (one page, or page 0 and the meta page).
fn decode_file_header_in(
    shared: &Shared,
    pid: FileId,
    path: &Path,
    pages: &mut [u8],
) -> Result<FileHeader> {
    // A new table's file holds only page 0 until its first write-back (see
    // `initial_pages`): what it lacks reads as zeros.
    let read = shared.files.read_up_to(pid, pages, 0)?;
    pages[read..].fill(0);
    let (page, meta_page) = pages.split_at(PAGE_SIZE);
    let corrupt =
        |what: &dyn std::fmt::Display| StorageError::Corrupt(format!("{}: {what}", path.display()));
    verify(page, 0, None).map_err(|e| corrupt(&e))?;
    let def_bytes = initial_pages::header_definition(page).map_err(|e| corrupt(&e))?;
    let space = get_u64(page, OFF_SPACE);
    // A meta page the file does not hold yet is the initial one (see `initial_pages`); one
    // that does not verify is not trusted here: reads meet it through the cache.
    let meta_counts_no_rows = !meta_page.is_empty()
        && (initial_pages::never_written(meta_page)
            || verify(meta_page, META_PAGE, Some(space)).is_ok()
                && page_type(meta_page) == TYPE_META
                && get_u64(meta_page, meta::ROW_COUNT) == 0);
    Ok(FileHeader {
        space,
        def: codec::decode_def(def_bytes)?,
        def_bytes: def_bytes.into(),
        meta_counts_no_rows,
    })
}

/// Replay the redo groups after the checkpoint, opening only the files they name.
fn recover(storage: &StorageInner, groups: Vec<redo_scan::Group>) -> Result<RecoveryStats> {
    let shared = &storage.shared;
    let mut stats = RecoveryStats::default();
    // Spaces a later DROP or RENAME moves on: their CREATE must not recreate a missing file.
    let mut moved_on: std::collections::HashSet<u64> = std::collections::HashSet::new();
    for group in &groups {
        for entry in parse_entries(&group.payload)? {
            if let LogEntry::Drop { space, .. } | LogEntry::Rename { space, .. } = entry {
                moved_on.insert(space);
            }
        }
    }
    // space -> whether the file the log names is that space (pages are applied).
    let mut spaces: HashMap<u64, bool> = HashMap::new();
    let header_space = |path: &Path| -> Option<Result<u64>> {
        if !path.is_file() {
            return None;
        }
        Some(read_file_header(shared, &storage.provisional_ids, path).map(|(s, _)| s))
    };
    for group in groups {
        stats.groups_replayed += 1;
        for entry in parse_entries(&group.payload)? {
            match entry {
                LogEntry::File { space, db, name } => {
                    if spaces.contains_key(&space) {
                        continue;
                    }
                    let path = table_path(&shared.datadir, &db, &name);
                    let valid = matches!(header_space(&path), Some(Ok(s)) if s == space);
                    if valid {
                        shared.files.register(space, path);
                        stats.files_opened += 1;
                    }
                    spaces.insert(space, valid);
                }
                LogEntry::Create { space, db, name } => {
                    let path = table_path(&shared.datadir, &db, &name);
                    let valid = match header_space(&path) {
                        Some(Ok(s)) => s == space,
                        // A header page that never reached the disk: the images rebuild it.
                        Some(Err(_)) => !moved_on.contains(&space),
                        None => {
                            !moved_on.contains(&space)
                                && path.parent().is_some_and(|d| d.is_dir())
                                && shared.files.create(space, path.clone()).is_ok()
                        }
                    };
                    if valid {
                        shared.files.register(space, path.clone());
                        shared
                            .dirs_to_sync
                            .lock()
                            .insert(path.parent().unwrap_or(Path::new(".")).to_path_buf());
                        stats.files_opened += 1;
                    }
                    spaces.insert(space, valid);
                }
                LogEntry::Drop { space, db, name } => {
                    let path = table_path(&shared.datadir, &db, &name);
                    let ours = match header_space(&path) {
                        Some(Ok(s)) => s == space,
                        Some(Err(_)) => true,
                        None => false,
                    };
                    if ours {
                        fs::remove_file(&path)?;
                        sync_dir(path.parent().unwrap_or(Path::new(".")))?;
                    }
                    shared.cache.discard_file(space);
                    shared.files.forget(space);
                    spaces.insert(space, false);
                }
                LogEntry::Rename {
                    space,
                    db,
                    name,
                    new_db,
                    new_name,
                } => {
                    let from = table_path(&shared.datadir, &db, &name);
                    let to = table_path(&shared.datadir, &new_db, &new_name);
                    if matches!(header_space(&from), Some(Ok(s)) if s == space) {
                        fs::rename(&from, &to)?;
                        sync_dir(to.parent().unwrap_or(Path::new(".")))?;
                        sync_dir(from.parent().unwrap_or(Path::new(".")))?;
                    }
                    let valid = matches!(header_space(&to), Some(Ok(s)) if s == space);
                    if valid {
                        shared.files.register(space, to);
                    } else {
                        shared.cache.discard_file(space);
                        shared.files.forget(space);
                    }
                    spaces.insert(space, valid);
                }
                LogEntry::Page {
                    space,
                    page_no,
                    full,
                    ranges,
                } => {
                    if !spaces.get(&space).copied().unwrap_or(false) {
                        continue;
                    }
                    let block = if full {
                        shared.cache.create(space, page_no as u64)?
                    } else {
                        let b = shared.cache.get(space, page_no as u64).map_err(|e| {
                            StorageError::Corrupt(format!(
                                "recovery needs page {page_no} of space {space}: {e}"
                            ))
                        })?;
                        if page_lsn(&b.read()) >= group.end_lsn {
                            continue;
                        }
                        b
                    };
                    block.begin_write();
                    {
                        let mut page = block.write();
                        if full {
                            page.fill(0);
                        }
                        for (off, bytes) in ranges {
                            page[off..off + bytes.len()].copy_from_slice(bytes);
                        }
                        put_u64(&mut page, OFF_LSN, group.end_lsn);
                    }
                    shared.cache.mark_dirty(&block, group.end_lsn);
                    block.end_write();
                    if full && page_no == 0 {
                        // The file may lack its header (the CREATE's write was lost): the
                        // table's other initial pages are read by way of it.
                        // On a full disk it stays in the cache, dirty, until a checkpoint
                        // can write it; the file's own page 0 was written by the CREATE.
                        let _ = initial_pages::write_stored_page(
                            &shared.files,
                            space,
                            0,
                            &block.read(),
                        );
                    }
                    stats.pages_applied += 1;
                }
            }
        }
    }
    Ok(stats)
}

/// One entry of a redo group (see `redo`).
enum LogEntry<'a> {
    File {
        space: u64,
        db: String,
        name: String,
    },
    Create {
        space: u64,
        db: String,
        name: String,
    },
    Drop {
        space: u64,
        db: String,
        name: String,
    },
    Rename {
        space: u64,
        db: String,
        name: String,
        new_db: String,
        new_name: String,
    },
    Page {
        space: u64,
        page_no: u32,
        full: bool,
        ranges: Vec<(usize, &'a [u8])>,
    },
}

fn parse_entries(p: &[u8]) -> Result<Vec<LogEntry<'_>>> {
    let bad = |what: &str| StorageError::Corrupt(format!("redo log: malformed {what}"));
    let mut pos = 0usize;
    let take = |pos: &mut usize, n: usize| -> Result<&[u8]> {
        let s = p.get(*pos..*pos + n).ok_or_else(|| bad("entry"))?;
        *pos += n;
        Ok(s)
    };
    let name = |pos: &mut usize| -> Result<String> {
        let len = get_u16(take(pos, 2)?, 0) as usize;
        Ok(String::from_utf8_lossy(take(pos, len)?).into_owned())
    };
    let mut out = Vec::new();
    while pos < p.len() {
        let tag = take(&mut pos, 1)?[0];
        if tag == redo::ENTRY_PAD {
            break; // the rest of the group is padding (see `redo`)
        }
        let space = get_u64(take(&mut pos, 8)?, 0);
        out.push(match tag {
            redo::ENTRY_FILE => LogEntry::File {
                space,
                db: name(&mut pos)?,
                name: name(&mut pos)?,
            },
            redo::ENTRY_CREATE => LogEntry::Create {
                space,
                db: name(&mut pos)?,
                name: name(&mut pos)?,
            },
            redo::ENTRY_DROP => LogEntry::Drop {
                space,
                db: name(&mut pos)?,
                name: name(&mut pos)?,
            },
            redo::ENTRY_RENAME => LogEntry::Rename {
                space,
                db: name(&mut pos)?,
                name: name(&mut pos)?,
                new_db: name(&mut pos)?,
                new_name: name(&mut pos)?,
            },
            redo::ENTRY_PAGE => {
                let page_no = get_u32(take(&mut pos, 4)?, 0);
                let full = take(&mut pos, 1)?[0] == 1;
                let n_ranges = get_u16(take(&mut pos, 2)?, 0) as usize;
                let mut ranges = Vec::with_capacity(n_ranges);
                for _ in 0..n_ranges {
                    let off = get_u16(take(&mut pos, 2)?, 0) as usize;
                    let len = get_u16(take(&mut pos, 2)?, 0) as usize;
                    if off + len > PAGE_SIZE {
                        return Err(bad("page range"));
                    }
                    ranges.push((off, take(&mut pos, len)?));
                }
                LogEntry::Page {
                    space,
                    page_no,
                    full,
                    ranges,
                }
            }
            _ => return Err(bad("entry tag")),
        });
    }
    Ok(out)
}

/// The handles a server moves between threads are `Send` (a session's statement may run on
/// any worker thread).
#[allow(dead_code)]
fn assert_handles_are_send() {
    fn send<T: Send>() {}
    fn sync<T: Send + Sync>() {}
    sync::<Storage>();
    sync::<Table>();
    send::<Statement>();
    send::<RowScan>();
    send::<IndexScan>();
}

#[cfg(test)]
mod checkpoint_race_tests;
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_the_file_system_encoding() {
        for n in ["t1", "Weird name-ü", "a@b", "#sql"] {
            assert_eq!(decode_name(&encode_name(n)).as_deref(), Some(n));
        }
        assert!(!encode_name("../x").contains('/'));
    }
}
