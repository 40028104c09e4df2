//! Opening tables through `myriad_cache`'s [`TableCache`]: the engine's side of the table
//! definition cache, the instanced open cache and the metadata lock of DDL.
//!
//! - The *definition* is the engine's shared table object ([`TableInner`]: definition,
//!   space id, latch, writer lock), one per table. It holds one registration of its file in
//!   the file cache; when the definition cache lets it go, its drop writes the table's dirty
//!   pages (if it was written) and gives the registration back, so that the file cache
//!   forgets the file too. It is idle (evictable) only when nothing but the cache refers to
//!   it: no handle, no statement, no scan.
//! - A *handle* is one use of a table by one statement ([`Table`] holds it; clones share
//!   it). The connection picks the instance: the SQL layer calls [`set_instance_hint`] with
//!   its connection id before it runs a statement; other threads get a per-thread number.
//! - DDL first takes the table's metadata lock ([`TableCache::invalidate`]): new opens wait,
//!   handles in use finish their statements, then the DDL takes the writer lock, the catalog
//!   lock and the latch as before. A query that arrives after the DDL loads the new state.

use crate::table::TableInner;
use crate::{Result, Storage, StorageError, Table};
use myriad_cache::{AcquireError, Definition, ExclusiveGuard, TableCache, TableHandle};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The table cache key: `database NUL table` (NUL cannot occur in SQL names).
pub(crate) type TableKey = String;

pub(crate) fn table_key(db: &str, name: &str) -> TableKey {
    let mut key = String::with_capacity(db.len() + name.len() + 1);
    key.push_str(db);
    key.push('\0');
    key.push_str(name);
    key
}

/// The database and table of a [`table_key`].
pub(crate) fn split_table_key(key: &str) -> Option<(&str, &str)> {
    key.split_once('\0')
}

/// What the definition cache holds per table.
pub(crate) struct CachedTable(pub(crate) Arc<TableInner>);

/// A handle of the open cache.
pub(crate) type Handle = TableHandle<TableKey, CachedTable>;
pub(crate) type Tables = TableCache<TableKey, CachedTable>;
pub(crate) type MetadataLock<'a> = ExclusiveGuard<'a, TableKey, CachedTable>;

/// Bytes a cached definition costs beyond its columns' and indexes' heap: the engine object,
/// the cache's entry, map slots and element links, the file cache's virtual file.
const DEFINITION_OVERHEAD: usize = 640;

impl Definition for CachedTable {
    fn footprint(&self) -> usize {
        let t = &self.0;
        let def = &t.def;
        let columns: usize = def
            .columns
            .iter()
            .map(|c| std::mem::size_of_val(c) + c.name.len() + 16)
            .sum();
        let indexes: usize = def
            .indexes
            .iter()
            .map(|i| std::mem::size_of_val(i) + i.name.len() + 8 * i.columns.len())
            .sum();
        let options: usize = def
            .options
            .iter()
            .map(|(k, v)| 48 + k.len() + v.len())
            .sum();
        DEFINITION_OVERHEAD
            + std::mem::size_of::<TableInner>()
            + columns
            + indexes
            + options
            + 2 * t.key.len()
            + t.def_bytes.len()
    }

    fn is_idle(&self) -> bool {
        Arc::strong_count(&self.0) == 1
    }
}

impl Drop for TableInner {
    fn drop(&mut self) {
        // Let the file go only once no dirty page of it is left behind: a block written after
        // the file cache forgot the file would be lost.
        if self.written.load(Ordering::Relaxed) && self.shared.cache.flush_file(self.space).is_err()
        {
            return;
        }
        let path = self.shared.files.release(self.space);
        // Idle: no statement can change the table now, so its image is exact. A DDL made
        // it stale (and forgot the table's image) when the file changed.
        let image =
            (!self.stale.load(Ordering::Acquire)).then(|| crate::definition_images::Image {
                space: self.space,
                def_bytes: std::mem::take(&mut self.def_bytes),
                known_empty: self.rows_known_empty.load(Ordering::Acquire),
                path,
            });
        self.shared
            .images
            .end_load(&self.key, self.image_ticket, image);
    }
}

thread_local! {
    static INSTANCE_HINT: Cell<Option<usize>> = const { Cell::new(None) };
    /// The tables this thread's statement compiled against, kept for its execution (see
    /// [`StatementTables`]).
    static STATEMENT_TABLES: RefCell<Stash> = const { RefCell::new(Stash { active: 0, tables: Vec::new() }) };
    /// Scratch space for building table keys without allocating on a cache hit.
    static KEY_BUFFER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Pick the table cache instance for the statements this thread runs next (the SQL layer
/// passes its connection id, so a connection stays on one instance).
pub fn set_instance_hint(connection_id: u64) {
    INSTANCE_HINT.with(|h| h.set(Some(connection_id as usize)));
}

fn instance_hint() -> usize {
    INSTANCE_HINT.with(|h| match h.get() {
        Some(v) => v,
        None => {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let v = NEXT.fetch_add(1, Ordering::Relaxed);
            h.set(Some(v));
            v
        }
    })
}

struct Stash {
    /// Nesting depth of [`StatementTables`] scopes; tables are kept only inside one.
    active: usize,
    tables: Vec<Table>,
}

/// While alive, a table that this thread's statement compiles against keeps the handle its
/// compile opened ([`Storage::table_def`]) for the statement's execution, which takes it
/// ([`Storage::open_table`]): a statement looks each of its tables up in the table cache
/// once, where it looked twice (a miss also loaded the definition, released the handle and
/// acquired it again). Handles left at the end of the scope go back to the cache. A DDL
/// gives this thread's kept handles back before it waits for the table's handles in use.
pub struct StatementTables {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl StatementTables {
    pub fn begin() -> StatementTables {
        STATEMENT_TABLES.with(|s| s.borrow_mut().active += 1);
        StatementTables {
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Drop for StatementTables {
    fn drop(&mut self) {
        let outermost = STATEMENT_TABLES.with(|s| {
            let mut s = s.borrow_mut();
            s.active -= 1;
            s.active == 0
        });
        if outermost {
            give_back_statement_tables();
        }
    }
}

/// Drop this thread's kept handles, one at a time outside the borrow (a release may evict
/// and drop a definition).
fn give_back_statement_tables() {
    while let Some(table) = STATEMENT_TABLES.with(|s| s.borrow_mut().tables.pop()) {
        drop(table);
    }
}

/// Whether `table` is `db`.`name` of `storage` (a process may open more than one).
fn is_table(storage: &Storage, table: &Table, db: &str, name: &str) -> bool {
    let key = table.inner.key.as_bytes();
    Arc::ptr_eq(&table.inner.shared, &storage.inner.shared)
        && key.len() == db.len() + 1 + name.len()
        && key.starts_with(db.as_bytes())
        && key[db.len()] == 0
        && key.ends_with(name.as_bytes())
}

/// A table with its handles in use, for SHOW OPEN TABLES.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTable {
    pub database: String,
    pub name: String,
    /// Handles in use now.
    pub in_use: usize,
}

/// Run `f` on the table key of `db`.`name`, built in a per-thread buffer (no allocation).
fn with_table_key<R>(db: &str, name: &str, f: impl FnOnce(&str) -> R) -> R {
    KEY_BUFFER.with(|buf| {
        let mut key = buf.borrow_mut();
        key.clear();
        key.push_str(db);
        key.push('\0');
        key.push_str(name);
        f(key.as_str())
    })
}

impl Storage {
    /// Open a table: the handle this thread's statement kept for it (see
    /// [`StatementTables`]), or one from the table cache.
    pub fn open_table(&self, db: &str, name: &str) -> Result<Table> {
        let kept = STATEMENT_TABLES.with(|s| {
            let mut s = s.borrow_mut();
            let at = s.tables.iter().position(|t| is_table(self, t, db, name))?;
            Some(s.tables.swap_remove(at))
        });
        match kept {
            Some(table) => Ok(table),
            None => self.acquire_table(db, name),
        }
    }

    /// A handle from the table cache: a hit is one instance lock and no allocation.
    fn acquire_table(&self, db: &str, name: &str) -> Result<Table> {
        let hint = instance_hint();
        let timeout = self.inner.shared.config.lock_wait_timeout;
        let handle = with_table_key(db, name, |key| {
            self.inner.tables.acquire(hint, key, timeout, || {
                // A miss runs inline on a network thread: waiting behind a DDL that holds
                // the catalog through its file work and fsync is a long wait, announced.
                let _c = myriad_cache::long_wait::unless_free(
                    || self.inner.catalog.try_read(),
                    || self.inner.catalog.read(),
                );
                self.load_table(db, name, key)
                    .map(|t| CachedTable(Arc::new(t)))
            })
        });
        match handle {
            Ok(handle) => Ok(Table {
                inner: Arc::clone(&handle.0),
                _handle: Some(Arc::new(handle)),
            }),
            Err(AcquireError::Open(e)) => Err(e),
            Err(AcquireError::LockWaitTimeout) => Err(StorageError::LockWaitTimeout),
        }
    }

    /// A table's definition. Inside a [`StatementTables`] scope the table is opened and its
    /// handle kept for the statement's execution. Outside one, a cached definition is read
    /// without opening a handle (a statement compiled against it opens the table when it
    /// runs, and checks the definition is the same); otherwise the table is opened, which
    /// loads it.
    pub fn table_def(&self, db: &str, name: &str) -> Result<Arc<crate::TableDef>> {
        let (active, kept) = STATEMENT_TABLES.with(|s| {
            let s = s.borrow();
            let kept = s.tables.iter().find(|t| is_table(self, t, db, name));
            (s.active > 0, kept.map(|t| Arc::clone(t.def())))
        });
        if let Some(def) = kept {
            return Ok(def);
        }
        if active {
            let table = self.acquire_table(db, name)?;
            let def = Arc::clone(table.def());
            STATEMENT_TABLES.with(|s| s.borrow_mut().tables.push(table));
            return Ok(def);
        }
        self.table_def_unkept(db, name)
    }

    /// A table's definition, read without keeping a handle even inside a
    /// [`StatementTables`] scope: for questions about tables other than the ones a
    /// statement works on (which of them reference a table), so that the statement holds
    /// no handle that a DDL of those tables would wait for.
    pub fn table_def_unkept(&self, db: &str, name: &str) -> Result<Arc<crate::TableDef>> {
        let cached = with_table_key(db, name, |key| {
            self.inner
                .tables
                .peek_definition(key, |t| Arc::clone(&t.0.def))
        });
        match cached {
            Some(def) => Ok(def),
            None => Ok(Arc::clone(self.acquire_table(db, name)?.def())),
        }
    }

    /// The metadata lock of a table for a DDL, and the table's object: the cached one (no
    /// handle in use any more) or, when not cached, one loaded for the DDL alone.
    pub(crate) fn metadata_lock(
        &self,
        db: &str,
        name: &str,
    ) -> Result<(MetadataLock<'_>, Arc<TableInner>)> {
        let key = table_key(db, name);
        // The DDL's own statement may have compiled against the table.
        give_back_statement_tables();
        let lock = self
            .inner
            .tables
            .invalidate(key.as_str(), self.inner.shared.config.lock_wait_timeout)
            .map_err(|_| StorageError::LockWaitTimeout)?;
        // Whatever the DDL does, no definition loaded before it leaves an image.
        self.inner.shared.images.forget(&key);
        let inner = match lock.previous() {
            Some(t) => Arc::clone(&t.0),
            None => {
                let _c = self.inner.catalog.read();
                Arc::new(self.load_table(db, name, &key)?)
            }
        };
        Ok((lock, inner))
    }

    /// FLUSH TABLES: close every open table (or those named), waiting for the statements
    /// using them; their dirty pages are written. Without names the definition cache is
    /// emptied and a checkpoint runs, as MySQL writes its key caches.
    pub fn flush_tables(&self, names: Option<&[(String, String)]>) -> Result<()> {
        let keys: Vec<TableKey> = match names {
            Some(names) => names.iter().map(|(d, n)| table_key(d, n)).collect(),
            None => self.inner.tables.definition_keys(),
        };
        give_back_statement_tables();
        // Definitions are read from the files again, not from their images.
        match names {
            None => self.inner.shared.images.forget_all(),
            Some(_) => keys.iter().for_each(|k| self.inner.shared.images.forget(k)),
        }
        for key in keys {
            let lock = self
                .inner
                .tables
                .invalidate(key.as_str(), self.inner.shared.config.lock_wait_timeout)
                .map_err(|_| StorageError::LockWaitTimeout)?;
            if let Some(t) = lock.previous() {
                let t = &t.0;
                // Statements that wrote it and have not committed keep the writer lock.
                let _writer = t
                    .writer
                    .try_write_arc_for(self.inner.shared.config.lock_wait_timeout)
                    .ok_or(StorageError::LockWaitTimeout)?;
                let _latch = t.latch.write();
                t.stale.store(true, Ordering::Release);
            }
            // A name that is not open (or does not exist) is no error, as in MySQL.
        }
        if names.is_none() {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Tables with open handles (SHOW OPEN TABLES), sorted, internal tables left out.
    pub fn open_tables(&self) -> Vec<OpenTable> {
        let mut out: Vec<OpenTable> = self
            .inner
            .tables
            .open_tables()
            .into_iter()
            .filter_map(|(key, in_use)| {
                let (db, name) = split_table_key(&key)?;
                (!name.starts_with(crate::INTERNAL_PREFIX)).then(|| OpenTable {
                    database: db.to_string(),
                    name: name.to_string(),
                    in_use,
                })
            })
            .collect();
        out.sort_by(|a, b| (&a.database, &a.name).cmp(&(&b.database, &b.name)));
        out
    }

    /// `SET GLOBAL table_open_cache`.
    pub fn set_table_open_cache(&self, handles: usize) {
        self.inner.tables.set_open_cache_capacity(handles);
    }

    /// `SET GLOBAL table_definition_cache` and `table_definition_cache_size`.
    pub fn set_table_definition_cache(&self, count: usize, bytes: usize) {
        self.inner.tables.set_definition_limits(count, bytes);
        self.inner.shared.images.set_budget(bytes);
    }

    /// Table and definition cache counters.
    pub fn table_cache_stats(&self) -> myriad_cache::TableCacheStats {
        self.inner.tables.stats()
    }

    /// Zero the table cache's hit, miss and overflow counters (FLUSH STATUS).
    pub fn reset_table_cache_counters(&self) {
        self.inner.tables.reset_counters();
    }
}

pub(crate) fn new_cache(config: &crate::StorageConfig) -> Arc<Tables> {
    TableCache::new(myriad_cache::TableCacheConfig {
        table_open_cache: config.table_open_cache,
        table_open_cache_instances: config.table_open_cache_instances,
        table_definition_cache: config.table_definition_cache,
        table_definition_cache_size: config.table_definition_cache_size,
    })
}

#[cfg(test)]
mod tests {
    use crate::{ColumnDef, ColumnType, IntWidth, Storage, StorageConfig, TableDef};
    use std::cell::Cell;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    thread_local! {
        static LONG_WAITS: Cell<usize> = const { Cell::new(0) };
    }

    /// The thread whose long waits the test watches, and whether one began.
    static WATCHED: std::sync::Mutex<Option<std::thread::ThreadId>> = std::sync::Mutex::new(None);
    static WATCHED_WAITING: AtomicBool = AtomicBool::new(false);

    fn counting_hook(wait: &mut dyn FnMut()) {
        LONG_WAITS.with(|n| n.set(n.get() + 1));
        if *WATCHED.lock().unwrap() == Some(std::thread::current().id()) {
            WATCHED_WAITING.store(true, Ordering::SeqCst);
        }
        wait();
    }

    /// A table-cache miss runs inline on a network thread; when a DDL holds the catalog (its
    /// file work and fsync), the miss's wait is announced as a long wait, and a free catalog
    /// costs none.
    /// A storage in `dir` with one-column tables `names` in database `d`, none of them open.
    fn storage_with_tables(
        dir: &std::path::Path,
        config: StorageConfig,
        names: &[&str],
    ) -> Storage {
        let storage = Storage::open(StorageConfig {
            datadir: dir.to_path_buf(),
            block_cache_bytes: 8 << 20,
            ..config
        })
        .unwrap();
        storage.create_database("d").unwrap();
        let int = ColumnType::Int {
            width: IntWidth::Int,
            unsigned: false,
        };
        let def = TableDef {
            columns: vec![ColumnDef::new("i", int)],
            indexes: Vec::new(),
            options: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        };
        for name in names {
            storage.create_table("d", name, &def).unwrap();
        }
        storage.flush_tables(None).unwrap();
        storage
    }

    /// Inside a statement's scope the handle the compile opened serves the execution: one
    /// acquire a statement, none left in use after it; a DDL in the same statement does not
    /// wait for the handle its own compile kept.
    #[test]
    fn a_statement_looks_its_table_up_once_and_its_ddl_does_not_wait_for_itself() {
        let dir = tempfile::tempdir().unwrap();
        let config = StorageConfig {
            lock_wait_timeout: Duration::from_secs(5),
            ..Default::default()
        };
        let storage = storage_with_tables(dir.path(), config, &["t", "u"]);
        let acquires = |s: &Storage| {
            let st = s.table_cache_stats();
            st.table_open_cache_hits + st.table_open_cache_misses
        };
        {
            let _scope = super::StatementTables::begin();
            let before = acquires(&storage);
            let def = storage.table_def("d", "t").unwrap();
            // A second reference in the same statement (a self-join) finds the kept one.
            storage.table_def("d", "t").unwrap();
            let table = storage.open_table("d", "t").unwrap();
            assert!(Arc::ptr_eq(&def, table.def()));
            assert_eq!(
                acquires(&storage),
                before + 1,
                "compile and execution share one acquire"
            );
            storage.open_table("d", "t").unwrap();
            assert_eq!(
                acquires(&storage),
                before + 2,
                "a second open acquires its own"
            );
        }
        assert_eq!(
            storage.table_cache_stats().tables_in_use,
            0,
            "the scope gave its handles back"
        );

        // Outside a scope nothing is kept.
        storage.table_def("d", "u").unwrap();
        assert_eq!(storage.table_cache_stats().tables_in_use, 0);

        // Nested scopes keep the handles until the outermost ends.
        {
            let _outer = super::StatementTables::begin();
            {
                let _inner = super::StatementTables::begin();
                storage.table_def("d", "u").unwrap();
            }
            assert_eq!(
                storage.table_cache_stats().tables_in_use,
                1,
                "kept for the outer scope"
            );
        }
        assert_eq!(storage.table_cache_stats().tables_in_use, 0);

        // Another storage in the same thread opens its own table, not the one kept here.
        let other_dir = tempfile::tempdir().unwrap();
        let other = storage_with_tables(other_dir.path(), StorageConfig::default(), &["t"]);
        {
            let _scope = super::StatementTables::begin();
            storage.table_def("d", "t").unwrap();
            let before = acquires(&other);
            other.open_table("d", "t").unwrap();
            assert_eq!(
                acquires(&other),
                before + 1,
                "the other storage opened its own"
            );
            assert_eq!(
                storage.table_cache_stats().tables_in_use,
                1,
                "still kept here"
            );
        }

        // ALTER's compile reads the definition, then its execution takes the metadata lock.
        let _scope = super::StatementTables::begin();
        storage.table_def("d", "t").unwrap();
        let started = Instant::now();
        storage.drop_table("d", "t").unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "the DDL waited for its own handle"
        );
        storage.table_def("d", "u").unwrap();
        storage.flush_tables(None).unwrap();
        assert_eq!(storage.table_cache_stats().tables_in_use, 0);
    }

    #[test]
    fn a_miss_behind_a_ddl_holding_the_catalog_is_a_long_wait() {
        myriad_cache::long_wait::set_hook(counting_hook);
        let dir = tempfile::tempdir().unwrap();
        let storage = storage_with_tables(dir.path(), StorageConfig::default(), &["free", "held"]);

        let before = LONG_WAITS.with(Cell::get);
        storage.open_table("d", "free").unwrap();
        assert_eq!(
            LONG_WAITS.with(Cell::get),
            before,
            "a free catalog is no long wait"
        );

        let held = storage.inner.catalog.write();
        std::thread::scope(|s| {
            let opener = s.spawn(|| {
                *WATCHED.lock().unwrap() = Some(std::thread::current().id());
                let before = LONG_WAITS.with(Cell::get);
                storage.open_table("d", "held").unwrap();
                LONG_WAITS.with(Cell::get) - before
            });
            // Released once the miss announced its wait (or after 10 s, when it never does).
            let deadline = Instant::now() + Duration::from_secs(10);
            while !WATCHED_WAITING.load(Ordering::SeqCst) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            drop(held);
            assert_eq!(opener.join().unwrap(), 1, "the miss announced its wait");
        });
    }
}
