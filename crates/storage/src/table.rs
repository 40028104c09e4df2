//! Open tables: row operations, index maintenance, scans and CHECK TABLE.
//!
//! **Locks.** Each open table has a *writer lock* (shared by the statements writing it,
//! from their first write until commit or rollback; exclusive for DDL, see `table_locks`),
//! page claims (one open statement changes a page, see `page_claims`) and a *latch* (a
//! read-write lock held for the duration of one operation: readers share it, a writing
//! operation takes it exclusively). Readers therefore never block each other, and a reader
//! never sees a half-done operation. A scan takes the latch per batch of rows, never across
//! calls to `next`, so a statement can read one table while writing another without
//! deadlocks. Readers see the committed content of pages a statement in progress changed
//! (the block cache's committed images); the statement's own reads see its changes.
//!
//! **Rows and row ids.** Rows live in the row tree under their row id. When the primary key
//! is one integer column (sysbench's `id`, most application tables) the row id *is* the key
//! (sign bit flipped so that the order is the key's): the row tree is then the clustered
//! primary index, a primary-key lookup is one descent and a primary-key range walks the
//! rows' own leaves; updating the key moves the row to a new row id. Otherwise row ids are
//! assigned from a counter in the meta page. Secondary index entries map the index key
//! (plus the row id when not unique) to the row id.
//!
//! **Statements.** Writes go through a [`Statement`] (`statement`): its pages'
//! before-images, its locks, its redo group at commit and its rollback.

use crate::btree::{self, Inserted, Page, PageRead, PageWrite, BACKWARD, FORWARD};
use crate::codec::{decode_row, decode_row_columns, encode_row, format_datum};
use crate::keycode::encode_key_part;
use crate::page::*;
#[cfg(test)]
pub(crate) use crate::statement::AFTER_APPEND;
pub(crate) use crate::statement::{encode_page_record, WritePager};
pub use crate::statement::{Committing, Statement};
use crate::types::*;
use crate::Shared;
use parking_lot::RwLock;
use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Rows fetched per latch acquisition by scans, at most.
const SCAN_BATCH_ROWS: usize = 64;

/// Stored bytes a full scan aims to fetch per latch acquisition: its batch of rows is cut
/// to about this many bytes of the rows met so far (at least one row, at most
/// [`SCAN_BATCH_ROWS`]), so that a statement paused on a slow client holds about a page
/// of wide rows, not 64 of them.
const SCAN_BATCH_BYTES: usize = 16 * 1024;

/// One index entry an update moves: the index, its old key and its new key.
type IndexChange = (usize, Vec<u8>, Vec<u8>);

/// The shared state of one open table (one per table, enforced by the table cache).
pub(crate) struct TableInner {
    pub(crate) shared: Arc<Shared>,
    /// The table cache key, `database NUL table` (see [`TableInner::db`], [`TableInner::name`]):
    /// one allocation per load, shared with the definition images' entries for the table.
    pub(crate) key: Arc<str>,
    pub(crate) space: u64,
    pub(crate) def: Arc<TableDef>,
    /// `def` encoded, as the file holds it: the image this definition leaves.
    pub(crate) def_bytes: Box<[u8]>,
    /// The ticket of this definition's load (see `definition_images`).
    pub(crate) image_ticket: u64,
    pub(crate) latch: RwLock<()>,
    /// Shared by the statements writing rows, exclusive for DDL (see `table_locks`).
    pub(crate) writer: Arc<RwLock<()>>,
    /// Set by DDL (drop, rename, alter, truncate): the handle must not be used any more.
    pub(crate) stale: AtomicBool,
    /// The primary key's index number when it is one integer column: then the row id *is*
    /// the key (order-preserving), the row tree is the primary index (one descent per
    /// lookup, ranges walk the rows' own leaves), and index `pk`'s own tree stays empty.
    pub(crate) clustered_pk: Option<usize>,
    /// Written through this object: its pages are flushed when the definition cache lets
    /// it go (see `open_tables`).
    pub(crate) written: AtomicBool,
    /// The row tree is known to hold no row, so reads answer without touching a page (an
    /// empty table's SELECT would otherwise read its root: a block cache miss, often a
    /// reopened descriptor, for tables nobody has written). Set only while holding the
    /// writer lock and the latch (see [`TableInner::note_no_rows`]); cleared by a
    /// statement's first change to any page of the table, before the change.
    pub(crate) rows_known_empty: AtomicBool,
    /// Per index, how many row changes moved an entry of it (an UPDATE that changed the
    /// indexed value, or a clustered key's row id): bumped under the write latch, so a read
    /// that took several latch holds knows whether an entry could have moved between them
    /// (see [`Table::index_moves`]).
    pub(crate) index_moves: Box<[AtomicU64]>,
    /// The next hidden row id (tables without a one-integer primary key) and the next
    /// AUTO_INCREMENT value, taken by statements as they insert (a rolled-back statement's
    /// values are not given again, as in InnoDB); 0 until read from the meta page, which
    /// commits bring up to them (see `statement::MetaDelta`).
    pub(crate) next_row_id: AtomicU64,
    pub(crate) auto_increment: AtomicU64,
    /// The number of the last commit that changed the table (see `snapshot`): set under
    /// the write latch before the commit's changes become visible.
    pub(crate) last_commit: AtomicU64,
    /// The commit number of the DDL that made the table, when a snapshot may predate it
    /// (see `snapshot`).
    pub(crate) defined_at: u64,
}

/// See [`TableInner::key_position`].
enum KeyPosition {
    BeforeAll,
    At(RowId),
    AfterAll,
}

/// The primary key's index number if the table can be clustered on it (one integer column).
pub(crate) fn clustered_primary_key(def: &TableDef) -> Option<usize> {
    let pk = def.primary_key()?;
    let ix = &def.indexes[pk];
    (ix.columns.len() == 1 && matches!(def.columns[ix.columns[0]].ty, ColumnType::Int { .. }))
        .then_some(pk)
}

/// A handle on an open table; cheap to clone. Obtained from [`crate::Storage::open_table`].
#[derive(Clone)]
pub struct Table {
    pub(crate) inner: Arc<TableInner>,
    /// The table cache handle this use holds (released when the last clone drops); `None`
    /// for objects a DDL works on outside the cache.
    pub(crate) _handle: Option<Arc<crate::open_tables::Handle>>,
}

/// What an insert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsertOutcome {
    pub row_id: RowId,
    /// The AUTO_INCREMENT value generated for this row, when one was (for LAST_INSERT_ID).
    pub generated_auto_increment: Option<u64>,
}

/// What CHECK TABLE found.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    pub problems: Vec<String>,
    pub rows: u64,
    pub pages: u64,
}

impl CheckReport {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Which way an index scan goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// A table's pages as one read operation sees them (see `snapshot`).
struct ReadPager<'a> {
    table: &'a TableInner,
    view: crate::snapshot::View,
    /// A locking read notes the leaves it meets (see `page_claims::collect_leaves`).
    collect_leaves: bool,
}

impl PageRead for ReadPager<'_> {
    fn read(&self, page_no: u32) -> Result<Page> {
        let t = self.table;
        let block = || Ok(t.shared.cache.get(t.space, page_no as u64)?);
        let key = (t.space, page_no);
        if let Some(version) = self.view.page(&t.shared.snapshots, key, t.name(), block)? {
            return Ok(Page::Version(page_no, version));
        }
        let block = t.shared.cache.get(t.space, page_no as u64)?;
        if self.collect_leaves {
            crate::page_claims::note_leaf(key, &block.read());
        }
        Ok(Page::Block(block))
    }
    fn prefetch(&self, page_no: u32, step: myriad_cache::Prefetch) {
        self.table
            .shared
            .cache
            .prefetch(self.table.space, page_no as u64, step)
    }
}

pub(crate) fn page_type_of(p: &[u8]) -> u8 {
    p[OFF_TYPE]
}

fn row_key(row_id: RowId) -> [u8; 8] {
    row_id.to_be_bytes()
}

fn row_id_of(value: &[u8]) -> Result<RowId> {
    value
        .try_into()
        .map(u64::from_be_bytes)
        .map_err(|_| StorageError::Corrupt("index entry without a row id".into()))
}

/// The smallest byte string greater than every string that starts with `prefix`.
fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut v = prefix.to_vec();
    while let Some(last) = v.pop() {
        if last != 0xFF {
            v.push(last + 1);
            return Some(v);
        }
    }
    None
}

/// Turn `key` into the smallest byte string greater than every string that starts with
/// it ([`prefix_successor`] without an allocation); false when there is none (all 0xFF).
fn successor_in_place(key: &mut Vec<u8>) -> bool {
    while let Some(last) = key.pop() {
        if last != 0xFF {
            key.push(last + 1);
            return true;
        }
    }
    false
}

impl TableInner {
    /// An entry of index `index_no` moves (called under the write latch, before the move).
    pub(crate) fn note_index_move(&self, index_no: usize) {
        if let Some(moves) = self.index_moves.get(index_no) {
            moves.fetch_add(1, Ordering::Release);
        }
    }

    pub(crate) fn db(&self) -> &str {
        crate::open_tables::split_table_key(&self.key).map_or("", |(db, _)| db)
    }

    pub(crate) fn name(&self) -> &str {
        crate::open_tables::split_table_key(&self.key).map_or(&self.key, |(_, name)| name)
    }

    /// Whether the row tree is known to hold no row (so neither does any index) for this
    /// thread's reads: the flag tells of the latest commits only.
    fn has_no_rows(&self) -> bool {
        self.rows_known_empty.load(Ordering::Acquire)
            && matches!(self.view(), Ok(crate::snapshot::View::Latest))
    }

    /// A reader holding the latch found the row tree empty: remember it, unless a statement
    /// is writing the table (it holds the writer lock from its first change until commit or
    /// rollback, and a rollback can bring rows back). `try_lock` never waits, so taking it
    /// under the latch cannot deadlock with writers, who take it before the latch.
    fn note_no_rows(&self, _latch: &parking_lot::RwLockReadGuard<'_, ()>) {
        if self.has_no_rows() {
            return;
        }
        if let Some(_writer) = self.writer.try_write() {
            self.rows_known_empty.store(true, Ordering::Release);
        }
    }

    /// Called before a statement changes a page of the table.
    pub(crate) fn forget_no_rows(&self) {
        if self.rows_known_empty.load(Ordering::Relaxed) {
            self.rows_known_empty.store(false, Ordering::Release);
        }
    }

    /// The latch for reading, checked against DDL *after* it is taken (DDL marks a table
    /// stale while holding the latch exclusively, so a reader cannot slip in between).
    fn read_latch(&self) -> Result<parking_lot::RwLockReadGuard<'_, ()>> {
        let guard = self.latch.read();
        self.check_live()?;
        Ok(guard)
    }

    fn write_latch(&self) -> Result<parking_lot::RwLockWriteGuard<'_, ()>> {
        let guard = self.latch.write();
        self.check_live()?;
        // Set only here, under the exclusive latch: a plain load and store suffice.
        if !self.written.load(Ordering::Relaxed) {
            // Before the table's first page past page 0 reaches its file: see
            // `complete_header_page` (tried again by the next write if it fails).
            crate::initial_pages::complete_header_page(&self.shared.files, self.space)?;
            self.written.store(true, Ordering::Relaxed);
        }
        Ok(guard)
    }

    /// The definition of index `index_no`, or an error naming the missing index.
    fn index_def(&self, index_no: usize) -> Result<&IndexDef> {
        self.def
            .indexes
            .get(index_no)
            .ok_or_else(|| StorageError::InvalidDefinition("no such index".into()))
    }

    fn check_live(&self) -> Result<()> {
        if self.stale.load(Ordering::Acquire) {
            Err(StorageError::Stale)
        } else {
            Ok(())
        }
    }

    /// Where the rows of a clustered table at the key value `v` (a bound on the key's one
    /// column) and after it start, or only those after it when `past`; None when `v` is
    /// empty (no bound).
    fn start_position(&self, v: &[Value], past: bool) -> Result<Option<KeyPosition>> {
        let Some(d) = v.first() else {
            return Ok(None);
        };
        Ok(Some(match self.key_position(d)? {
            KeyPosition::At(id) if past => id
                .checked_add(1)
                .map_or(KeyPosition::AfterAll, KeyPosition::At),
            position => position,
        }))
    }

    /// The column of a clustered table's key, and whether it is UNSIGNED. Inlined always: it
    /// is the start of every primary key point lookup of a clustered table.
    #[inline(always)]
    fn clustered_key_column(&self) -> Result<(&ColumnDef, bool)> {
        let pk = self
            .clustered_pk
            .ok_or_else(|| StorageError::InvalidDefinition("not clustered".into()))?;
        let col = &self.def.columns[self.def.indexes[pk].columns[0]];
        Ok((
            col,
            matches!(col.ty, ColumnType::Int { unsigned: true, .. }),
        ))
    }

    /// The row id of a clustered table's key value (sign bit flipped for signed columns,
    /// so row id order is key order).
    fn row_id_for_key(&self, d: &Value) -> Result<RowId> {
        let (col, unsigned) = self.clustered_key_column()?;
        match (d, unsigned) {
            (Value::Int(v), false) => Ok((*v as u64) ^ (1 << 63)),
            (Value::UInt(v), false) if *v <= i64::MAX as u64 => Ok(*v ^ (1 << 63)),
            (Value::UInt(v), true) => Ok(*v),
            (Value::Int(v), true) if *v >= 0 => Ok(*v as u64),
            _ => Err(StorageError::TypeMismatch(format!(
                "{d:?} for primary key column '{}'",
                col.name
            ))),
        }
    }

    /// Where a key value falls among the clustered key's row ids: a value outside the
    /// column's domain (a negative number for an UNSIGNED key, one past i64::MAX for a
    /// signed key) lies before or after every row, so a search for it finds nothing and a
    /// range bounded by it is open or empty.
    fn key_position(&self, d: &Value) -> Result<KeyPosition> {
        let (_, unsigned) = self.clustered_key_column()?;
        Ok(match (d, unsigned) {
            (Value::Int(v), true) if *v < 0 => KeyPosition::BeforeAll,
            (Value::UInt(v), false) if *v > i64::MAX as u64 => KeyPosition::AfterAll,
            _ => KeyPosition::At(self.row_id_for_key(d)?),
        })
    }

    /// The row id a new row gets: its key in a clustered table, the next counter otherwise.
    fn row_id_for_row(&self, row: &[Value]) -> Result<RowId> {
        match self.clustered_pk {
            Some(pk) => {
                let c = self.def.indexes[pk].columns[0];
                self.row_id_for_key(
                    row.get(c)
                        .ok_or_else(|| StorageError::TypeMismatch("row too short".into()))?,
                )
            }
            None => Ok(self
                .counter(&self.next_row_id, meta::NEXT_ROW_ID)?
                .fetch_add(1, Ordering::AcqRel)),
        }
    }

    /// One of the table's counters (`next_row_id`, `auto_increment`), read from the meta
    /// page at its first use. Call under the write latch: two first uses then read the
    /// same committed value, and a commit that wrote a higher one is past (the counter is
    /// at least what any commit wrote, once loaded).
    fn counter<'c>(&self, counter: &'c AtomicU64, off: usize) -> Result<&'c AtomicU64> {
        if counter.load(Ordering::Acquire) == 0 {
            let committed = self.meta_u64(off)?.max(1);
            let _ = counter.compare_exchange(0, committed, Ordering::AcqRel, Ordering::Acquire);
        }
        Ok(counter)
    }

    /// The counter's next value without taking it (0: not loaded, read the meta page).
    fn peek_counter(&self, counter: &AtomicU64, off: usize) -> Result<u64> {
        match counter.load(Ordering::Acquire) {
            0 => self.meta_u64(off),
            next => Ok(next),
        }
    }

    /// Whether index `i` has a tree of its own (the clustered primary key does not).
    fn has_tree(&self, i: usize) -> bool {
        self.clustered_pk != Some(i)
    }

    /// The pages as this thread's reads see them now: call under the latch (a commit
    /// changes the view only under the write latch).
    fn reader(&self) -> Result<ReadPager<'_>> {
        Ok(ReadPager {
            table: self,
            view: self.view()?,
            collect_leaves: crate::page_claims::collecting(),
        })
    }

    fn view(&self) -> Result<crate::snapshot::View> {
        crate::snapshot::View::of(self.last_commit.load(Ordering::Acquire), self.defined_at)
    }

    fn meta_u64(&self, off: usize) -> Result<u64> {
        let b = self.reader()?.read(META_PAGE)?;
        let v = get_u64(&b.read(), off);
        Ok(v)
    }

    /// The index key of `row` in index `ix`: the columns' encodings, plus the row id for
    /// non-unique indexes and for unique keys holding a NULL (NULLs never collide).
    fn index_key(&self, ix: &IndexDef, row: &[Value], row_id: RowId) -> Result<(Vec<u8>, bool)> {
        let mut key = Vec::with_capacity(16);
        let mut has_null = false;
        for &c in &ix.columns {
            let d = row
                .get(c)
                .ok_or_else(|| StorageError::TypeMismatch("row too short".into()))?;
            has_null |= d.is_null();
            encode_key_part(&mut key, &self.def.columns[c].ty, d)?;
        }
        let unique_key = ix.is_unique() && !has_null;
        if !unique_key {
            key.extend_from_slice(&row_key(row_id));
        }
        Ok((key, unique_key))
    }

    fn encode_bound(&self, ix: &IndexDef, values: &[Value]) -> Result<Vec<u8>> {
        if values.len() > ix.columns.len() {
            return Err(StorageError::TypeMismatch(format!(
                "{} key values for index '{}'",
                values.len(),
                ix.name
            )));
        }
        let mut key = Vec::with_capacity(16);
        for (d, &c) in values.iter().zip(&ix.columns) {
            encode_key_part(&mut key, &self.def.columns[c].ty, d)?;
        }
        Ok(key)
    }

    fn duplicate(&self, index_no: usize, row: &[Value], existing: RowId) -> StorageError {
        let ix = &self.def.indexes[index_no];
        let key = ix
            .columns
            .iter()
            .map(|&c| format_datum(&self.def.columns[c].ty, &row[c]))
            .collect::<Vec<_>>()
            .join("-");
        StorageError::DuplicateKey {
            index: ix.name.clone(),
            key,
            index_no,
            existing_row: existing,
        }
    }

    /// The index entries that change when the row `old`, stored at `old_id`, becomes
    /// `new_row` at `new_id`, each as (index, old key, new key). An entry whose key stays
    /// is left out when the row id stays too. Fails, before anything changes, on a new key
    /// that is too long or a new unique key that another row holds.
    fn index_changes(
        &self,
        old: &[Value],
        old_id: RowId,
        new_row: &[Value],
        new_id: RowId,
    ) -> Result<Vec<IndexChange>> {
        let mut changes = Vec::new();
        for (i, ix) in self.def.indexes.iter().enumerate() {
            if !self.has_tree(i) {
                continue;
            }
            let (old_key, _) = self.index_key(ix, old, old_id)?;
            let (new_key, unique) = self.index_key(ix, new_row, new_id)?;
            if old_id == new_id && old_key == new_key {
                continue;
            }
            if new_key.len() > btree::MAX_KEY_BYTES {
                return Err(StorageError::TooBig("Specified key was too long".into()));
            }
            if unique {
                if let Some(existing) = self.unique_lookup(i, &new_key)? {
                    if existing != old_id {
                        return Err(self.duplicate(i, new_row, existing));
                    }
                }
            }
            changes.push((i, old_key, new_key));
        }
        Ok(changes)
    }

    /// The row id stored under a unique key, if any.
    fn unique_lookup(&self, index_no: usize, key: &[u8]) -> Result<Option<RowId>> {
        btree::get_with(&self.reader()?, index_root(index_no), key, row_id_of)
    }

    fn get_row(&self, row_id: RowId) -> Result<Option<Row>> {
        self.get_row_columns(row_id, None)
    }

    fn get_row_columns(&self, row_id: RowId, wanted: Option<&[bool]>) -> Result<Option<Row>> {
        btree::get_with(&self.reader()?, ROW_TREE_ROOT, &row_key(row_id), |bytes| {
            decode_row_columns(&self.def, bytes, wanted)
        })
    }
}

impl Table {
    pub fn database(&self) -> &str {
        self.inner.db()
    }
    pub fn name(&self) -> &str {
        self.inner.name()
    }
    /// The table's definition (immutable; DDL makes a new table object).
    pub fn def(&self) -> &Arc<TableDef> {
        &self.inner.def
    }
    /// Whether DDL replaced or removed the table since this handle was opened.
    pub fn is_stale(&self) -> bool {
        self.inner.stale.load(Ordering::Acquire)
    }

    /// Insert a row. `row` has one datum per column; an AUTO_INCREMENT column holding NULL
    /// or 0 gets the next value. Unique and primary keys are checked before anything
    /// changes: a duplicate returns [`StorageError::DuplicateKey`] and leaves the table as
    /// it was (the statement may continue).
    pub fn insert(&self, stmt: &mut Statement, row: &[Value]) -> Result<InsertOutcome> {
        let t = &self.inner;
        let _reading = stmt.reading_own();
        // A write reads the latest commits, whatever snapshot the thread reads at.
        let _latest = crate::snapshot::reading_at(None);
        let _latch = self.write_start(stmt)?;
        let mut generated = None;
        let mut filled;
        let mut row = row;
        let auto_col = t.def.auto_increment_column();
        if let Some(c) = auto_col {
            let v = row
                .get(c)
                .ok_or_else(|| StorageError::TypeMismatch("row too short".into()))?;
            if matches!(v, Value::Null | Value::Int(0) | Value::UInt(0)) {
                let next_auto = t
                    .counter(&t.auto_increment, meta::AUTO_INCREMENT)?
                    .fetch_add(1, Ordering::AcqRel);
                filled = row.to_vec();
                filled[c] = match t.def.columns[c].ty {
                    ColumnType::Int {
                        unsigned: false, ..
                    } => Value::Int(next_auto as i64),
                    ColumnType::Decimal { scale, .. } => {
                        // A counter that does not fit the column fails to encode, as any
                        // value too wide for it does.
                        let next = Decimal::from_u64(next_auto);
                        Value::Decimal(next.rescale(scale.into()).unwrap_or(next))
                    }
                    ColumnType::Float | ColumnType::Double => Value::Double(next_auto as f64),
                    _ => Value::UInt(next_auto),
                };
                generated = Some(next_auto);
                row = &filled;
            }
        }
        let mut row_bytes = Vec::with_capacity(64);
        encode_row(&t.def, row, &mut row_bytes)?;
        let row_id = t.row_id_for_row(row)?;
        if let Some(pk) = t.clustered_pk {
            if btree::get_with(&t.reader()?, ROW_TREE_ROOT, &row_key(row_id), |_| Ok(()))?.is_some()
            {
                return Err(t.duplicate(pk, row, row_id));
            }
        }
        let mut keys = Vec::with_capacity(t.def.indexes.len());
        for (i, ix) in t.def.indexes.iter().enumerate() {
            if !t.has_tree(i) {
                keys.push(Vec::new());
                continue;
            }
            let (key, unique) = t.index_key(ix, row, row_id)?;
            if key.len() > btree::MAX_KEY_BYTES {
                return Err(StorageError::TooBig(format!(
                    "Specified key was too long; max key length is {} bytes",
                    btree::MAX_KEY_BYTES
                )));
            }
            if unique {
                if let Some(existing) = t.unique_lookup(i, &key)? {
                    return Err(t.duplicate(i, row, existing));
                }
            }
            keys.push(key);
        }
        let mut w = WritePager { stmt, table: t };
        if btree::insert(&mut w, ROW_TREE_ROOT, &row_key(row_id), &row_bytes, false)?
            != Inserted::New
        {
            return Err(StorageError::Corrupt(format!(
                "row id {row_id} already in use"
            )));
        }
        for (i, key) in keys.iter().enumerate() {
            if !w.table.has_tree(i) {
                continue;
            }
            if btree::insert(&mut w, index_root(i), key, &row_key(row_id), false)? != Inserted::New
            {
                return Err(StorageError::Corrupt(format!(
                    "index {i} entry exists for a new row"
                )));
            }
        }
        w.stmt.count_rows(t, 1);
        if let Some(c) = auto_col {
            let explicit = match &row[c] {
                Value::Int(v) if *v > 0 => Some(*v as u64),
                Value::UInt(v) => Some(*v),
                Value::Decimal(v) if v.signum() > 0 => match t.def.columns[c].ty {
                    ColumnType::Decimal { .. } => v.trunc_to_i128().map(|i| i as u64),
                    _ => None,
                },
                Value::Double(v) if *v >= 1.0 => Some(*v as u64),
                _ => None,
            };
            if let Some(v) = explicit {
                t.counter(&t.auto_increment, meta::AUTO_INCREMENT)?
                    .fetch_max(v.saturating_add(1), Ordering::AcqRel);
            }
        }
        Ok(InsertOutcome {
            row_id,
            generated_auto_increment: generated,
        })
    }

    /// Take this table's writer lock (shared) for `stmt` now, before reading the rows a
    /// write depends on: a DDL cannot then replace the table in between. (Two writers of
    /// one row are kept apart by page claims: see `page_claims`.)
    pub fn lock_for_write(&self, stmt: &mut Statement) -> Result<()> {
        self.inner.check_live()?;
        stmt.lock_table(&self.inner)
    }

    /// What every row write starts with: this table's writer lock for `stmt`
    /// ([`Table::lock_for_write`]), then its write latch, held until the guard drops.
    fn write_start(&self, stmt: &mut Statement) -> Result<parking_lot::RwLockWriteGuard<'_, ()>> {
        self.lock_for_write(stmt)?;
        self.inner.write_latch()
    }

    /// Replace the row `row_id` with `new_row`. In a clustered table a changed primary key
    /// moves the row to the row id of the new key (look it up again by key if needed). Unique keys are checked first (a duplicate
    /// changes nothing). Returns false when the row does not exist.
    pub fn update(&self, stmt: &mut Statement, row_id: RowId, new_row: &[Value]) -> Result<bool> {
        let t = &self.inner;
        let _reading = stmt.reading_own();
        // A write reads the latest commits, whatever snapshot the thread reads at.
        let _latest = crate::snapshot::reading_at(None);
        let _latch = self.write_start(stmt)?;
        let Some(old) = t.get_row(row_id)? else {
            return Ok(false);
        };
        let mut row_bytes = Vec::with_capacity(64);
        encode_row(&t.def, new_row, &mut row_bytes)?;
        if t.clustered_pk.is_some() {
            let new_id = t.row_id_for_row(new_row)?;
            if new_id != row_id {
                return Self::move_row(t, stmt, row_id, &old, new_id, new_row, &row_bytes)
                    .map(|_| true);
            }
        }
        let changes = t.index_changes(&old, row_id, new_row, row_id)?;
        let mut w = WritePager { stmt, table: t };
        Self::move_index_entries(&mut w, t, &changes, row_id)?;
        btree::insert(&mut w, ROW_TREE_ROOT, &row_key(row_id), &row_bytes, true)?;
        Self::bump_auto_increment_past(&mut w, t, new_row)?;
        Ok(true)
    }

    /// A clustered table's primary key changed: the row moves to its new row id, and every
    /// secondary entry (which names the row id) moves with it.
    fn move_row(
        t: &Arc<TableInner>,
        stmt: &mut Statement,
        old_id: RowId,
        old: &[Value],
        new_id: RowId,
        new_row: &[Value],
        row_bytes: &[u8],
    ) -> Result<()> {
        let pk = t.clustered_pk.unwrap_or(0);
        if btree::get_with(&t.reader()?, ROW_TREE_ROOT, &row_key(new_id), |_| Ok(()))?.is_some() {
            return Err(t.duplicate(pk, new_row, new_id));
        }
        let moves = t.index_changes(old, old_id, new_row, new_id)?;
        let mut w = WritePager { stmt, table: t };
        t.note_index_move(pk);
        Self::move_index_entries(&mut w, t, &moves, new_id)?;
        btree::delete(&mut w, ROW_TREE_ROOT, &row_key(old_id))?;
        btree::insert(&mut w, ROW_TREE_ROOT, &row_key(new_id), row_bytes, false)?;
        Self::bump_auto_increment_past(&mut w, t, new_row)?;
        Ok(())
    }

    /// Replace each changed entry `(index, old key, new key)` of an updated row, the new
    /// one naming the row id `row_id`.
    fn move_index_entries(
        w: &mut WritePager<'_>,
        t: &TableInner,
        changes: &[IndexChange],
        row_id: RowId,
    ) -> Result<()> {
        for (i, old_key, new_key) in changes {
            t.note_index_move(*i);
            btree::delete(w, index_root(*i), old_key)?;
            btree::insert(w, index_root(*i), new_key, &row_key(row_id), false)?;
        }
        Ok(())
    }

    /// Keep the next AUTO_INCREMENT value above the one `row` stores, if the table has
    /// such a column and the row an integer in it.
    fn bump_auto_increment_past(
        w: &mut WritePager<'_>,
        t: &TableInner,
        row: &[Value],
    ) -> Result<()> {
        if let Some(c) = t.def.auto_increment_column() {
            match row[c] {
                Value::Int(v) => Self::bump_auto_increment(w, v.max(0) as u64)?,
                Value::UInt(v) => Self::bump_auto_increment(w, v)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn bump_auto_increment(w: &mut WritePager<'_>, value: u64) -> Result<()> {
        let t = w.table;
        let counter = t.counter(&t.auto_increment, meta::AUTO_INCREMENT)?;
        if value >= counter.load(Ordering::Acquire) {
            counter.fetch_max(value.saturating_add(1), Ordering::AcqRel);
            w.stmt.count_rows(t, 0);
        }
        Ok(())
    }

    /// Delete the row `row_id`; returns false when it does not exist.
    pub fn delete(&self, stmt: &mut Statement, row_id: RowId) -> Result<bool> {
        let t = &self.inner;
        let _reading = stmt.reading_own();
        // A write reads the latest commits, whatever snapshot the thread reads at.
        let _latest = crate::snapshot::reading_at(None);
        let _latch = self.write_start(stmt)?;
        let Some(old) = t.get_row(row_id)? else {
            return Ok(false);
        };
        let mut w = WritePager { stmt, table: t };
        for (i, ix) in t.def.indexes.iter().enumerate() {
            if !t.has_tree(i) {
                continue;
            }
            let (key, _) = t.index_key(ix, &old, row_id)?;
            if !btree::delete(&mut w, index_root(i), &key)? {
                return Err(StorageError::Corrupt(format!(
                    "index '{}' lacks the entry of row {row_id}",
                    ix.name
                )));
            }
        }
        btree::delete(&mut w, ROW_TREE_ROOT, &row_key(row_id))?;
        w.stmt.count_rows(t, -1);
        Ok(true)
    }

    /// The row with this id.
    pub fn get(&self, row_id: RowId) -> Result<Option<Row>> {
        let t = &self.inner;
        t.check_live()?;
        if t.has_no_rows() {
            return Ok(None);
        }
        let _latch = t.read_latch()?;
        t.get_row(row_id)
    }

    /// Point lookup on a unique index (or the primary key) with a value for every column.
    /// A key holding NULL matches nothing (as `=` in SQL).
    pub fn lookup_unique(&self, index_no: usize, key: &[Value]) -> Result<Option<(RowId, Row)>> {
        self.lookup_unique_columns(index_no, key, None)
    }

    /// [`Table::lookup_unique`] decoding only the columns `wanted` marks (all when None);
    /// the others read as NULL.
    pub fn lookup_unique_columns(
        &self,
        index_no: usize,
        key: &[Value],
        wanted: Option<&[bool]>,
    ) -> Result<Option<(RowId, Row)>> {
        let t = &self.inner;
        t.check_live()?;
        let ix = t.index_def(index_no)?;
        if !ix.is_unique() || key.len() != ix.columns.len() {
            return Err(StorageError::TypeMismatch(format!(
                "index '{}' needs a full unique key",
                ix.name
            )));
        }
        if key.iter().any(Value::is_null) || t.has_no_rows() {
            return Ok(None);
        }
        if !t.has_tree(index_no) {
            let KeyPosition::At(row_id) = t.key_position(&key[0])? else {
                return Ok(None);
            };
            let _latch = t.read_latch()?;
            return Ok(t.get_row_columns(row_id, wanted)?.map(|r| (row_id, r)));
        }
        let enc = t.encode_bound(ix, key)?;
        let _latch = t.read_latch()?;
        let Some(row_id) = t.unique_lookup(index_no, &enc)? else {
            return Ok(None);
        };
        Ok(t.get_row_columns(row_id, wanted)?.map(|r| (row_id, r)))
    }

    /// Point lookup on the primary key.
    pub fn lookup_primary(&self, key: &[Value]) -> Result<Option<(RowId, Row)>> {
        let pk = self
            .inner
            .def
            .primary_key()
            .ok_or_else(|| StorageError::InvalidDefinition("no primary key".into()))?;
        self.lookup_unique(pk, key)
    }

    /// Every row, in row id order: primary-key order for a clustered table (one integer
    /// key column), insertion order otherwise.
    pub fn scan(&self) -> Result<RowScan> {
        self.inner.check_live()?;
        Ok(RowScan {
            table: Arc::clone(&self.inner),
            next_row_id: (!self.inner.has_no_rows()).then_some(0),
            buffer: VecDeque::new(),
            wanted: None,
            batch_rows: SCAN_BATCH_ROWS,
        })
    }

    /// How many row changes have moved an entry of index `index_no` since the table was
    /// loaded. A read made of several latch holds (an [`IndexScan`] in batches, several
    /// ranges) saw every row exactly once if this did not change across it: an entry that
    /// moves ahead of a scan between two holds is met twice, one moved behind it is missed.
    pub fn index_moves(&self, index_no: usize) -> u64 {
        self.inner
            .index_moves
            .get(index_no)
            .map_or(0, |m| m.load(Ordering::Acquire))
    }

    /// Rows whose key in index `index_no` lies between the bounds, in key order or reverse.
    /// A bound holds values for a prefix of the index's columns (all of them, or the first
    /// few): `Included(&[a])` on a two-column index means "first column >= a" as a lower
    /// bound and "first column <= a" as an upper bound. Equality on a prefix is
    /// `(Included(p), Included(p))`.
    pub fn index_scan(
        &self,
        index_no: usize,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        direction: Direction,
    ) -> Result<IndexScan> {
        let t = &self.inner;
        t.check_live()?;
        let ix = t.index_def(index_no)?;
        let mut exhausted = t.has_no_rows();
        if !t.has_tree(index_no) {
            // The clustered key: a range of row ids over the row tree, from the first row id
            // the lower bound lets in up to, not including, the first one past the upper
            // bound. A bound outside the key's domain: below every row, or above every row.
            let lower = match lower {
                Bound::Unbounded => None,
                Bound::Included(v) => t.start_position(v, false)?,
                Bound::Excluded(v) => t.start_position(v, true)?,
            };
            let upper = match upper {
                Bound::Unbounded => None,
                Bound::Included(v) => t.start_position(v, true)?,
                Bound::Excluded(v) => t.start_position(v, false)?,
            };
            exhausted |= matches!(lower, Some(KeyPosition::AfterAll))
                || matches!(upper, Some(KeyPosition::BeforeAll));
            let row_id = |p: Option<KeyPosition>| match p {
                Some(KeyPosition::At(id)) => Some(id),
                _ => None,
            };
            let (lower, upper) = (row_id(lower), row_id(upper));
            if let (Some(l), Some(u)) = (lower, upper) {
                exhausted |= l >= u;
            }
            return Ok(IndexScan {
                table: Arc::clone(&self.inner),
                index_no,
                lower: lower.map(|id| row_key(id).to_vec()),
                upper: upper.map(|id| row_key(id).to_vec()),
                direction,
                exhausted,
                buffer: VecDeque::new(),
                wanted: None,
                batch_rows: SCAN_BATCH_ROWS,
            });
        }
        let lower = match lower {
            Bound::Unbounded => None,
            Bound::Included(v) => Some(t.encode_bound(ix, v)?),
            Bound::Excluded(v) => match prefix_successor(&t.encode_bound(ix, v)?) {
                Some(s) => Some(s),
                None => {
                    exhausted = true;
                    None
                }
            },
        };
        let upper = match upper {
            Bound::Unbounded => None,
            Bound::Included(v) => prefix_successor(&t.encode_bound(ix, v)?),
            Bound::Excluded(v) => Some(t.encode_bound(ix, v)?),
        };
        if let (Some(l), Some(u)) = (&lower, &upper) {
            exhausted |= l >= u;
        }
        Ok(IndexScan {
            table: Arc::clone(&self.inner),
            index_no,
            lower,
            upper,
            direction,
            exhausted,
            buffer: VecDeque::new(),
            wanted: None,
            batch_rows: SCAN_BATCH_ROWS,
        })
    }

    /// The rows whose key in index `index_no` is `prefix` followed by one of `values` (an
    /// IN list on the column after an equality prefix): key by key in key order, each
    /// key's rows in index order, equal keys (under the column's collation) once, a key
    /// holding NULL never. One latch for the whole list; the keys are encoded once, back to
    /// back in one buffer, and sorted and deduplicated as bytes (the encoding orders as the
    /// collation does); the row ids of every key are gathered before the rows are fetched
    /// and decoded (only the columns `wanted` marks). Returns None, having decoded no row,
    /// when more than `max_rows` rows match or the index is the clustered key (the caller
    /// streams per key then).
    pub fn index_lookup_many(
        &self,
        index_no: usize,
        prefix: &[Value],
        values: &[Value],
        wanted: Option<&[bool]>,
        max_rows: usize,
    ) -> Result<Option<Vec<(RowId, Row)>>> {
        let t = &self.inner;
        t.check_live()?;
        let ix = t.index_def(index_no)?;
        if !t.has_tree(index_no) {
            return Ok(None);
        }
        if prefix.len() >= ix.columns.len() {
            return Err(StorageError::TypeMismatch(format!(
                "{} key values for index '{}'",
                prefix.len() + 1,
                ix.name
            )));
        }
        let mut rows = Vec::new();
        if prefix.iter().any(Value::is_null) {
            return Ok(Some(rows));
        }
        let mut encoded_prefix = Vec::with_capacity(16);
        for (d, &c) in prefix.iter().zip(&ix.columns) {
            encode_key_part(&mut encoded_prefix, &t.def.columns[c].ty, d)?;
        }
        let last_ty = &t.def.columns[ix.columns[prefix.len()]].ty;
        let mut buf = Vec::with_capacity(values.len() * (encoded_prefix.len() + 10));
        let mut spans: Vec<(usize, usize)> = Vec::with_capacity(values.len());
        for v in values.iter().filter(|v| !v.is_null()) {
            let start = buf.len();
            buf.extend_from_slice(&encoded_prefix);
            encode_key_part(&mut buf, last_ty, v)?;
            spans.push((start, buf.len()));
        }
        spans.sort_unstable_by(|a, b| buf[a.0..a.1].cmp(&buf[b.0..b.1]));
        spans.dedup_by(|a, b| buf[a.0..a.1] == buf[b.0..b.1]);
        let _latch = t.read_latch()?;
        let src = t.reader()?;
        let root = index_root(index_no);
        // Each value's entries: from its key to the key's successor (none: to the end).
        let uppers: Vec<Option<Vec<u8>>> = spans
            .iter()
            .map(|&(s, e)| {
                let mut upper = buf[s..e].to_vec();
                successor_in_place(&mut upper).then_some(upper)
            })
            .collect();
        let ranges: Vec<(&[u8], Option<&[u8]>)> = spans
            .iter()
            .zip(&uppers)
            .map(|(&(s, e), upper)| (&buf[s..e], upper.as_deref()))
            .collect();
        let mut ids: Vec<[u8; 8]> = Vec::with_capacity(spans.len());
        let within_limit = btree::scan_many(&src, root, &ranges, max_rows, |_, _, v| {
            ids.push(
                v.try_into()
                    .map_err(|_| StorageError::Corrupt("index entry without a row id".into()))?,
            );
            Ok(())
        })?;
        if !within_limit {
            return Ok(None);
        }
        let keys: Vec<&[u8]> = ids.iter().map(|k| k.as_slice()).collect();
        rows.reserve_exact(ids.len());
        let missing = |k: &[u8; 8]| {
            StorageError::Corrupt(format!(
                "index entry names missing row {}",
                u64::from_be_bytes(*k)
            ))
        };
        // get_many_with calls back in key order, so each row lands at its own place.
        btree::get_many_with(&src, ROW_TREE_ROOT, &keys, |i, bytes| {
            if i != rows.len() {
                return Err(missing(&ids[rows.len()]));
            }
            rows.push((
                u64::from_be_bytes(ids[i]),
                decode_row_columns(&t.def, bytes, wanted)?,
            ));
            Ok(())
        })?;
        if let Some(k) = ids.get(rows.len()) {
            return Err(missing(k));
        }
        Ok(Some(rows))
    }

    /// Rows in the table (exact).
    pub fn row_count(&self) -> Result<u64> {
        self.inner.check_live()?;
        let _latch = self.inner.read_latch()?;
        self.inner.meta_u64(meta::ROW_COUNT)
    }

    /// The next AUTO_INCREMENT value (SHOW TABLE STATUS, SHOW CREATE TABLE).
    pub fn next_auto_increment(&self) -> Result<u64> {
        self.inner.check_live()?;
        let _latch = self.inner.read_latch()?;
        let t = &self.inner;
        t.peek_counter(&t.auto_increment, meta::AUTO_INCREMENT)
    }

    /// Set the AUTO_INCREMENT counter (ALTER TABLE ... AUTO_INCREMENT = n); never below 1.
    pub fn set_auto_increment(&self, stmt: &mut Statement, value: u64) -> Result<()> {
        let t = &self.inner;
        let _reading = stmt.reading_own();
        // A write reads the latest commits, whatever snapshot the thread reads at.
        let _latest = crate::snapshot::reading_at(None);
        let _latch = self.write_start(stmt)?;
        let mut w = WritePager { stmt, table: t };
        let b = w.write(META_PAGE)?;
        put_u64(&mut b.write(), meta::AUTO_INCREMENT, value.max(1));
        t.auto_increment.store(value.max(1), Ordering::Release);
        Ok(())
    }

    /// Bytes the table's file holds (SHOW TABLE STATUS Data_length).
    pub fn data_length(&self) -> Result<u64> {
        let _latch = self.inner.read_latch()?;
        let b = self
            .inner
            .shared
            .cache
            .get(self.inner.space, META_PAGE as u64)?;
        let pages = get_u32(&b.read(), meta::PAGE_COUNT) as u64;
        Ok(pages * PAGE_SIZE as u64)
    }

    /// CHECK TABLE: every page's checksum on disk (pages not yet written back are checked
    /// in memory), the B+tree invariants of every tree, the row count, and that every index
    /// holds exactly one correct entry per row.
    pub fn check(&self) -> Result<CheckReport> {
        let t = &self.inner;
        t.check_live()?;
        let _latch = t.read_latch()?;
        let mut report = CheckReport::default();
        let page_count = get_u32(
            &t.shared.cache.get(t.space, META_PAGE as u64)?.read(),
            meta::PAGE_COUNT,
        );
        report.pages = page_count as u64;
        let mut buf = vec![0u8; PAGE_SIZE];
        for page_no in 0..page_count {
            if t.shared
                .cache
                .peek(t.space, page_no as u64)
                .is_some_and(|b| b.is_dirty())
            {
                continue; // newer in memory than on disk; the tree walk reads it
            }
            if let Err(e) =
                crate::initial_pages::read_stored_page(&t.shared.files, t.space, page_no, &mut buf)
            {
                report.problems.push(format!("page {page_no}: {e}"));
            }
        }
        if !report.problems.is_empty() {
            return Ok(report);
        }
        let src = t.reader()?;
        let rows = match btree::check_tree(&src, ROW_TREE_ROOT) {
            Ok(c) => {
                report
                    .problems
                    .extend(c.problems.into_iter().map(|p| format!("row tree: {p}")));
                c.entries
            }
            Err(e) => {
                report.problems.push(format!("row tree: {e}"));
                return Ok(report);
            }
        };
        report.rows = rows;
        let counted = t.meta_u64(meta::ROW_COUNT)?;
        if counted != rows {
            report.problems.push(format!(
                "row count says {counted}, the row tree holds {rows}"
            ));
        }
        for (i, ix) in t.def.indexes.iter().enumerate() {
            if !t.has_tree(i) {
                continue;
            }
            match btree::check_tree(&src, index_root(i)) {
                Ok(c) => {
                    report.problems.extend(
                        c.problems
                            .into_iter()
                            .map(|p| format!("index '{}': {p}", ix.name)),
                    );
                    if c.entries != rows {
                        report.problems.push(format!(
                            "index '{}' has {} entries for {rows} rows",
                            ix.name, c.entries
                        ));
                    }
                }
                Err(e) => report.problems.push(format!("index '{}': {e}", ix.name)),
            }
        }
        if !report.problems.is_empty() {
            return Ok(report);
        }
        // Each row's entry in each index, under its recomputed key.
        let mut lower: Option<Vec<u8>> = None;
        loop {
            let mut batch = Vec::new();
            let (done, _) = btree::scan::<FORWARD>(
                &src,
                ROW_TREE_ROOT,
                lower.as_deref(),
                None,
                256,
                |k, v| {
                    batch.push((k.to_vec(), v.to_vec()));
                    Ok(())
                },
            )?;
            for (k, v) in &batch {
                let row_id = row_id_of(k)?;
                let row = match decode_row(&t.def, v) {
                    Ok(r) => r,
                    Err(e) => {
                        report.problems.push(format!("row {row_id}: {e}"));
                        continue;
                    }
                };
                if t.clustered_pk.is_some() && t.row_id_for_row(&row).ok() != Some(row_id) {
                    report.problems.push(format!(
                        "row {row_id} is filed under a key other than its primary key"
                    ));
                }
                for (i, ix) in t.def.indexes.iter().enumerate() {
                    if !t.has_tree(i) {
                        continue;
                    }
                    let (key, _) = t.index_key(ix, &row, row_id)?;
                    if btree::get_with(&src, index_root(i), &key, row_id_of)? != Some(row_id) {
                        report.problems.push(format!(
                            "index '{}' lacks the entry of row {row_id}",
                            ix.name
                        ));
                    }
                }
            }
            if let Some((k, _)) = batch.last() {
                let mut next = k.clone();
                next.push(0);
                lower = Some(next);
            }
            if done || report.problems.len() > 100 {
                break;
            }
        }
        Ok(report)
    }
}

/// A full scan in row id order; see [`Table::scan`]. Holds no lock between items.
pub struct RowScan {
    table: Arc<TableInner>,
    next_row_id: Option<RowId>,
    buffer: VecDeque<(RowId, Row)>,
    /// The columns to decode (all when None); the others read as NULL.
    wanted: Option<Arc<[bool]>>,
    /// Rows the next batch fetches (see [`SCAN_BATCH_BYTES`]).
    batch_rows: usize,
}

impl RowScan {
    /// Decode only the columns `wanted` marks; the others read as NULL.
    pub fn project(mut self, wanted: Arc<[bool]>) -> Self {
        self.wanted = Some(wanted);
        self
    }

    /// Drop the rows read ahead and keep only the place: the next item reads them again.
    /// For a scan that waits long between items (a client that reads slowly), so that it
    /// holds its place in the table, not a batch of rows.
    pub fn release_read_ahead(&mut self) {
        if let Some((first, _)) = self.buffer.front() {
            self.next_row_id = Some(*first);
        }
        self.buffer = VecDeque::new();
    }

    fn refill(&mut self) -> Result<()> {
        let Some(start) = self.next_row_id else {
            return Ok(());
        };
        let t = &self.table;
        t.check_live()?;
        let _latch = t.read_latch()?;
        self.buffer.reserve(self.batch_rows);
        let (buffer, def) = (&mut self.buffer, &t.def);
        let wanted = self.wanted.as_deref();
        let mut stored_bytes = 0usize;
        let src = t.reader()?;
        let (done, _) = btree::scan::<FORWARD>(
            &src,
            ROW_TREE_ROOT,
            Some(&row_key(start)),
            None,
            self.batch_rows,
            |k, v| {
                stored_bytes += v.len();
                buffer.push_back((row_id_of(k)?, decode_row_columns(def, v, wanted)?));
                Ok(())
            },
        )?;
        let average = stored_bytes / self.buffer.len().max(1);
        self.batch_rows = (SCAN_BATCH_BYTES / average.max(1)).clamp(1, SCAN_BATCH_ROWS);
        if start == 0 && done && self.buffer.is_empty() && src.view == crate::snapshot::View::Latest
        {
            t.note_no_rows(&_latch);
        }
        self.next_row_id = match (done, self.buffer.back()) {
            (false, Some((id, _))) => id.checked_add(1),
            _ => None,
        };
        Ok(())
    }
}

impl Iterator for RowScan {
    type Item = Result<(RowId, Row)>;
    fn next(&mut self) -> Option<Self::Item> {
        while self.buffer.is_empty() {
            self.next_row_id?;
            if let Err(e) = self.refill() {
                self.next_row_id = None;
                return Some(Err(e));
            }
        }
        self.buffer.pop_front().map(Ok)
    }
}

/// An index range scan; see [`Table::index_scan`]. Holds no lock between items.
pub struct IndexScan {
    table: Arc<TableInner>,
    index_no: usize,
    /// Remaining range: `lower <= key < upper` (encoded).
    lower: Option<Vec<u8>>,
    upper: Option<Vec<u8>>,
    direction: Direction,
    exhausted: bool,
    buffer: VecDeque<(RowId, Row)>,
    /// The columns to decode (all when None); the others read as NULL.
    wanted: Option<Arc<[bool]>>,
    /// Entries read per hold of the table's latch.
    batch_rows: usize,
}

impl IndexScan {
    /// Decode only the columns `wanted` marks; the others read as NULL.
    pub fn project(mut self, wanted: Arc<[bool]>) -> Self {
        self.wanted = Some(wanted);
        self
    }

    /// Read the whole range under one hold of the table's latch: no change falls between
    /// its batches (writers of the table wait for the read).
    pub fn in_one_read(mut self) -> Self {
        self.batch_rows = usize::MAX;
        self
    }

    fn refill(&mut self) -> Result<()> {
        let t = &self.table;
        t.check_live()?;
        let _latch = t.read_latch()?;
        let src = t.reader()?;
        let clustered = !t.has_tree(self.index_no);
        let root = if clustered {
            ROW_TREE_ROOT
        } else {
            index_root(self.index_no)
        };
        let def = &t.def;
        let wanted = self.wanted.as_deref();
        // One allocation for the batch, not a doubling per few rows.
        self.buffer.reserve(SCAN_BATCH_ROWS.min(self.batch_rows));
        // Clustered: decode rows straight from the leaves. Otherwise collect row ids, then
        // fetch the rows leaf by leaf.
        let mut row_ids: Vec<[u8; 8]> = Vec::new();
        let buffer = &mut self.buffer;
        let mut visit =
            |k: &[u8], v: &[u8]| -> Result<()> {
                if clustered {
                    buffer.push_back((row_id_of(k)?, decode_row_columns(def, v, wanted)?));
                } else {
                    row_ids.push(v.try_into().map_err(|_| {
                        StorageError::Corrupt("index entry without a row id".into())
                    })?);
                }
                Ok(())
            };
        let (lower, upper) = (self.lower.as_deref(), self.upper.as_deref());
        let (done, last) = match self.direction {
            Direction::Forward => {
                btree::scan::<FORWARD>(&src, root, lower, upper, self.batch_rows, &mut visit)?
            }
            Direction::Backward => {
                btree::scan::<BACKWARD>(&src, root, lower, upper, self.batch_rows, &mut visit)?
            }
        };
        // No key to resume from means nothing was visited: the range is done.
        let progressed = last.is_some();
        match (last, self.direction) {
            (Some(mut k), Direction::Forward) => {
                k.push(0);
                self.lower = Some(k);
            }
            (Some(k), Direction::Backward) => self.upper = Some(k),
            (None, _) => {}
        }
        self.exhausted = done || !progressed;
        if clustered {
            return Ok(());
        }
        let keys: Vec<&[u8]> = row_ids.iter().map(|k| k.as_slice()).collect();
        let mut rows: Vec<Option<Row>> = vec![None; keys.len()];
        btree::get_many_with(&src, ROW_TREE_ROOT, &keys, |i, bytes| {
            rows[i] = Some(decode_row_columns(def, bytes, wanted)?);
            Ok(())
        })?;
        for (key, row) in row_ids.iter().zip(rows) {
            let row_id = u64::from_be_bytes(*key);
            match row {
                Some(row) => self.buffer.push_back((row_id, row)),
                None => {
                    return Err(StorageError::Corrupt(format!(
                        "index entry names missing row {row_id}"
                    )))
                }
            }
        }
        Ok(())
    }
}

impl Iterator for IndexScan {
    type Item = Result<(RowId, Row)>;
    fn next(&mut self) -> Option<Self::Item> {
        while self.buffer.is_empty() {
            if self.exhausted {
                return None;
            }
            if let Err(e) = self.refill() {
                self.exhausted = true;
                return Some(Err(e));
            }
        }
        self.buffer.pop_front().map(Ok)
    }
}
