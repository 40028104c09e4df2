//! The file cache: virtual file descriptors, in the manner of PostgreSQL's `fd.c`.
//!
//! Every write, fsync and create of a table file passes [`crate::fault::check`] first, so
//! that tests can make it fail with ENOSPC or EIO (nothing is checked in release builds).
//!
//! Problem: a server with 10^5 tables cannot keep a kernel descriptor open per table, and
//! must never fail a query with "Too many open files" (seed 003). Design: callers name files
//! by a [`FileId`] (a *virtual* file); the kernel descriptor behind it is opened on demand,
//! kept on an LRU bounded by `open_files_limit`, closed when the budget is reached and
//! reopened transparently on the next access. On EMFILE/ENFILE the least recently used
//! descriptor is closed (in this shard, then in any other) and the open retried.
//!
//! Rule: every table file of myriad is opened, read, written and synced through this module.
//! Nothing in `storage` calls `File::open` on a table file.
//!
//! Sharding: the virtual files are split over up to 16 shards by id, each a mutex over its
//! map and its LRU of open descriptors with an equal part of the budget, so accesses to
//! different files rarely meet on one lock and the I/O itself runs outside the lock on a
//! cloned `Arc<File>`. The budget holds per shard and so in total (`Open_files <=
//! open_files_limit`); a descriptor closed while an I/O is in flight lives until that I/O
//! returns, so the kernel count can exceed the limit by the number of concurrent I/Os.
//!
//! Forgetting: a virtual file is counted by its registrations ([`FileCache::register`] /
//! [`FileCache::release`]; a table's definition holds one), and leaves the cache with the
//! last one, so memory follows the tables cached, not the tables ever touched. A file
//! written since its last sync stays (closed, a path and a flag) until the next
//! [`FileCache::sync_written`] syncs it: a checkpoint must not lose its writes.
//! [`FileCache::forget`] drops a file at once whatever its count (DROP TABLE).

use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A virtual file: a number chosen by the caller, stable for the life of the file.
pub type FileId = u64;

/// Descriptors left to the rest of the process (sockets, logs, the redo log, directories)
/// when the limit is derived from RLIMIT_NOFILE.
pub const DESCRIPTOR_RESERVE: usize = 64;

const MAX_SHARDS: usize = 16;

/// The default `open_files_limit`: the process's descriptor limit (RLIMIT_NOFILE) less
/// [`DESCRIPTOR_RESERVE`] and the descriptors `connections` may take, at least 16.
pub fn default_open_files_limit(connections: usize) -> usize {
    let nofile = rlimit_nofile().unwrap_or(1024);
    nofile
        .saturating_sub(DESCRIPTOR_RESERVE + connections)
        .max(16)
}

/// The soft RLIMIT_NOFILE, read from /proc (no libc call needed).
fn rlimit_nofile() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line.split_whitespace().nth(3)?;
    match soft {
        "unlimited" => Some(1 << 20),
        n => n.parse().ok(),
    }
}

struct VirtualFile {
    path: PathBuf,
    /// The open kernel descriptor and its LRU tick, when open.
    open: Option<(Arc<File>, u64)>,
    /// Written since the last sync: `sync_written` syncs exactly these.
    written_since_sync: bool,
    /// Holders; at 0 the file stays only until its writes are synced.
    registrations: u32,
}

struct Shard {
    /// foldhash: a u64 key hashes in a few instructions (SipHash: ~100).
    files: HashMap<FileId, VirtualFile, foldhash::fast::RandomState>,
    /// Open descriptors only, by last-use tick: the first entry is the LRU victim.
    lru: BTreeMap<u64, FileId>,
    tick: u64,
    budget: usize,
}

impl Shard {
    /// Close the least recently used descriptor; false if none is open.
    fn close_lru(&mut self, open_files: &AtomicU64) -> bool {
        match self.lru.pop_first() {
            Some((_, victim)) => {
                if let Some(vf) = self.files.get_mut(&victim) {
                    vf.open = None;
                }
                open_files.fetch_sub(1, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    fn close(&mut self, vf_open: Option<(Arc<File>, u64)>, open_files: &AtomicU64) {
        if let Some((_, tick)) = vf_open {
            self.lru.remove(&tick);
            open_files.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Counters with MySQL's names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileCacheStats {
    /// `Open_files`: kernel descriptors held now.
    pub open_files: u64,
    /// `Opened_files`: descriptors opened since start.
    pub opened_files: u64,
    /// Virtual files known (registered, or waiting for their sync).
    pub virtual_files: u64,
}

/// See the module documentation.
pub struct FileCache {
    shards: Box<[Mutex<Shard>]>,
    limit: usize,
    open_files: AtomicU64,
    opened_files: AtomicU64,
    /// Writes begun and finished, for [`FileCache::quiet_mark`].
    writes_begun: AtomicU64,
    writes_done: AtomicU64,
}

/// What [`FileCache::quiet_mark`] returns: no write was in flight when it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietMark(u64);

impl FileCache {
    /// A cache that keeps at most `open_files_limit` descriptors open (at least 1).
    pub fn new(open_files_limit: usize) -> FileCache {
        let limit = open_files_limit.max(1);
        let n = limit.clamp(1, MAX_SHARDS);
        FileCache {
            shards: (0..n)
                .map(|i| {
                    Mutex::new(Shard {
                        files: HashMap::default(),
                        lru: BTreeMap::new(),
                        tick: 0,
                        budget: limit / n + usize::from(i < limit % n),
                    })
                })
                .collect(),
            limit,
            open_files: AtomicU64::new(0),
            opened_files: AtomicU64::new(0),
            writes_begun: AtomicU64::new(0),
            writes_done: AtomicU64::new(0),
        }
    }

    /// The configured descriptor budget.
    pub fn limit(&self) -> usize {
        self.limit
    }

    fn shard(&self, id: FileId) -> &Mutex<Shard> {
        // Ids are random or sequential: mix them so either spreads over the shards.
        let h = id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        &self.shards[(h as usize) % self.shards.len()]
    }

    /// Name the file behind `id` (no I/O) and take one registration. Registering a known
    /// id again adds a registration and updates the path.
    pub fn register(&self, id: FileId, path: PathBuf) {
        let mut shard = self.shard(id).lock();
        match shard.files.get_mut(&id) {
            Some(vf) => {
                vf.registrations += 1;
                if vf.path != path {
                    vf.path = path;
                    let old = vf.open.take();
                    shard.close(old, &self.open_files);
                }
            }
            None => {
                shard.files.insert(
                    id,
                    VirtualFile {
                        path,
                        open: None,
                        written_since_sync: false,
                        registrations: 1,
                    },
                );
            }
        }
    }

    /// Give back one registration; with the last the descriptor closes and the file is
    /// forgotten (after its next sync if it was written since the last). Returns the path
    /// when the file was forgotten now, for a caller that registers it again later (the
    /// path need not be built twice).
    pub fn release(&self, id: FileId) -> Option<PathBuf> {
        let mut shard = self.shard(id).lock();
        let vf = shard.files.get_mut(&id)?;
        vf.registrations = vf.registrations.saturating_sub(1);
        if vf.registrations > 0 {
            return None;
        }
        let open = vf.open.take();
        let keep = vf.written_since_sync;
        shard.close(open, &self.open_files);
        if keep {
            return None;
        }
        shard.files.remove(&id).map(|vf| vf.path)
    }

    /// Whether `id` is known.
    pub fn is_registered(&self, id: FileId) -> bool {
        self.shard(id).lock().files.contains_key(&id)
    }

    /// Create a new empty file at `path` (failing if it exists) and register it as `id`; the
    /// new descriptor stays open (within the budget) for the writes that follow.
    pub fn create(&self, id: FileId, path: PathBuf) -> io::Result<()> {
        crate::fault::check(crate::fault::FaultPoint::TableCreate)?;
        let file = self.open_with_retry(&path, true, id)?;
        self.open_files.fetch_add(1, Ordering::Relaxed);
        self.register(id, path);
        self.install(id, Arc::new(file));
        Ok(())
    }

    /// Move the virtual file `from` to the id `to`, with its open descriptor: one
    /// registration of `to` is taken, as [`FileCache::register`] with `from`'s path would,
    /// and `from` is forgotten. For a file read under a provisional id before its own id
    /// was known (a table's header page names its space): the descriptor opened for that
    /// read serves the table, instead of a close and a second open.
    pub fn rekey(&self, from: FileId, to: FileId) {
        let (path, open) = {
            let mut shard = self.shard(from).lock();
            let Some(mut vf) = shard.files.remove(&from) else {
                return;
            };
            let open = vf.open.take().map(|(file, tick)| {
                // Still counted in `open_files`: `install` hands the count on or gives it back.
                shard.lru.remove(&tick);
                file
            });
            (vf.path, open)
        };
        self.register(to, path);
        if let Some(file) = open {
            self.install(to, file);
        }
    }

    /// Make `file` (already counted in `open_files`) the open descriptor of `id` if it has
    /// none, within its shard's budget; otherwise just close it.
    fn install(&self, id: FileId, file: Arc<File>) {
        let mut guard = self.shard(id).lock();
        let shard = &mut *guard;
        let wanted = shard.files.get(&id).is_some_and(|vf| vf.open.is_none());
        if !wanted {
            drop(guard);
            drop(file);
            self.open_files.fetch_sub(1, Ordering::Relaxed);
            return;
        }
        while shard.lru.len() >= shard.budget.max(1) {
            if !shard.close_lru(&self.open_files) {
                break;
            }
        }
        shard.tick += 1;
        let tick = shard.tick;
        if let Some(vf) = shard.files.get_mut(&id) {
            vf.open = Some((file, tick));
        }
        shard.lru.insert(tick, id);
    }

    /// The file was renamed on disk: keep the descriptor (it follows the inode), remember the
    /// new path for reopening.
    pub fn renamed(&self, id: FileId, new_path: PathBuf) {
        if let Some(f) = self.shard(id).lock().files.get_mut(&id) {
            f.path = new_path;
        }
    }

    /// Forget `id` now, whatever its registrations, and close its descriptor (DROP).
    pub fn forget(&self, id: FileId) {
        let mut shard = self.shard(id).lock();
        if let Some(vf) = shard.files.remove(&id) {
            shard.close(vf.open, &self.open_files);
        }
    }

    /// The path registered for `id`.
    pub fn path(&self, id: FileId) -> Option<PathBuf> {
        self.shard(id).lock().files.get(&id).map(|f| f.path.clone())
    }

    /// Read exactly `buf.len()` bytes at `offset`; a short read is `UnexpectedEof`.
    pub fn read_at(&self, id: FileId, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.handle(id, false)?.read_exact_at(buf, offset)
    }

    /// Read from `offset` until `buf` is full or the file ends; returns the bytes read.
    pub fn read_up_to(&self, id: FileId, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let file = self.handle(id, false)?;
        let mut filled = 0;
        while filled < buf.len() {
            match file.read_at(&mut buf[filled..], offset + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(filled)
    }

    /// Write all of `buf` at `offset`.
    pub fn write_at(&self, id: FileId, buf: &[u8], offset: u64) -> io::Result<()> {
        let file = self.handle(id, true)?;
        self.writes_begun.fetch_add(1, Ordering::SeqCst);
        let result = crate::fault::check(crate::fault::FaultPoint::TableWrite)
            .and_then(|()| file.write_all_at(buf, offset));
        self.writes_done.fetch_add(1, Ordering::SeqCst);
        result
    }

    /// A mark if no write through this cache is in flight now. With
    /// [`FileCache::quiet_since`] it tells a reader that what it read between the two
    /// calls is what every file held throughout: no write began or was running meanwhile.
    pub fn quiet_mark(&self) -> Option<QuietMark> {
        let done = self.writes_done.load(Ordering::SeqCst);
        let begun = self.writes_begun.load(Ordering::SeqCst);
        (begun == done).then_some(QuietMark(begun))
    }

    /// Whether no write has begun since `mark` was taken.
    pub fn quiet_since(&self, mark: QuietMark) -> bool {
        self.writes_begun.load(Ordering::SeqCst) == mark.0
    }

    /// The file's length in bytes.
    pub fn len(&self, id: FileId) -> io::Result<u64> {
        Ok(self.handle(id, false)?.metadata()?.len())
    }

    /// fsync one file.
    pub fn sync(&self, id: FileId) -> io::Result<()> {
        let file = self.handle(id, false)?;
        crate::fault::check(crate::fault::FaultPoint::TableSync)?;
        file.sync_all()?;
        let mut shard = self.shard(id).lock();
        if let Some(f) = shard.files.get_mut(&id) {
            f.written_since_sync = false;
            if f.registrations == 0 {
                // Released while waiting for this sync: now it can go.
                let open = f.open.take();
                shard.close(open, &self.open_files);
                shard.files.remove(&id);
            }
        }
        Ok(())
    }

    /// fsync every file written since its last sync (a checkpoint).
    pub fn sync_written(&self) -> io::Result<()> {
        let ids: Vec<FileId> = self
            .shards
            .iter()
            .flat_map(|s| {
                s.lock()
                    .files
                    .iter()
                    .filter(|(_, f)| f.written_since_sync)
                    .map(|(id, _)| *id)
                    .collect::<Vec<_>>()
            })
            .collect();
        for id in ids {
            match self.sync(id) {
                // Forgotten (dropped) since the list was taken: nothing to sync.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                other => other?,
            }
        }
        Ok(())
    }

    pub fn stats(&self) -> FileCacheStats {
        FileCacheStats {
            open_files: self.open_files.load(Ordering::Relaxed),
            opened_files: self.opened_files.load(Ordering::Relaxed),
            virtual_files: self
                .shards
                .iter()
                .map(|s| s.lock().files.len() as u64)
                .sum(),
        }
    }

    /// The descriptor of `id`, opening it (and closing the LRU one) when needed.
    fn handle(&self, id: FileId, for_write: bool) -> io::Result<Arc<File>> {
        let mut guard = self.shard(id).lock();
        let shard = &mut *guard;
        shard.tick += 1;
        let tick = shard.tick;
        let Some(vf) = shard.files.get_mut(&id) else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("file {id} is not registered"),
            ));
        };
        if for_write {
            vf.written_since_sync = true;
        }
        if let Some((file, old_tick)) = vf.open.as_mut() {
            let file = Arc::clone(file);
            let old = std::mem::replace(old_tick, tick);
            shard.lru.remove(&old);
            shard.lru.insert(tick, id);
            return Ok(file);
        }
        let path = vf.path.clone();
        // The budget: at most `budget` descriptors open in this shard, checked here only.
        while shard.lru.len() >= shard.budget.max(1) {
            if !shard.close_lru(&self.open_files) {
                break;
            }
        }
        let file = loop {
            match OpenOptions::new().read(true).write(true).open(&path) {
                Ok(f) => break Arc::new(f),
                Err(e) if is_descriptor_exhaustion(&e) => {
                    if !shard.close_lru(&self.open_files) && !self.close_elsewhere(id) {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        };
        self.opened_files.fetch_add(1, Ordering::Relaxed);
        self.open_files.fetch_add(1, Ordering::Relaxed);
        if let Some(vf) = shard.files.get_mut(&id) {
            vf.open = Some((Arc::clone(&file), tick));
        }
        shard.lru.insert(tick, id);
        Ok(file)
    }

    /// Close the LRU descriptor of some other shard than `id`'s (try-lock only: the caller
    /// holds its own shard). False if none could be closed.
    fn close_elsewhere(&self, id: FileId) -> bool {
        let own = self.shard(id) as *const Mutex<Shard>;
        self.shards.iter().any(|s| {
            !std::ptr::eq(s, own)
                && s.try_lock()
                    .is_some_and(|mut g| g.close_lru(&self.open_files))
        })
    }

    fn open_with_retry(&self, path: &Path, create_new: bool, id: FileId) -> io::Result<File> {
        loop {
            // A new file is private to the server's user, as its datadir is.
            match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(create_new)
                .mode(0o600)
                .open(path)
            {
                Ok(f) => {
                    self.opened_files.fetch_add(1, Ordering::Relaxed);
                    return Ok(f);
                }
                Err(e) if is_descriptor_exhaustion(&e) => {
                    let closed = self.shard(id).lock().close_lru(&self.open_files);
                    if !closed && !self.close_elsewhere(id) {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

fn is_descriptor_exhaustion(e: &io::Error) -> bool {
    // EMFILE = 24, ENFILE = 23 on Linux.
    matches!(e.raw_os_error(), Some(23) | Some(24))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_mark_holds_until_a_write_begins_and_none_is_taken_during_one() {
        let dir = tempfile::tempdir().unwrap();
        let cache = std::sync::Arc::new(FileCache::new(4));
        cache.create(1, dir.path().join("a")).unwrap();
        let mark = cache.quiet_mark().expect("no write in flight");
        let mut buf = [0u8; 1];
        cache.write_at(1, b"x", 0).unwrap();
        cache.read_at(1, &mut buf, 0).unwrap();
        assert!(!cache.quiet_since(mark), "a write ran since the mark");
        let mark = cache.quiet_mark().unwrap();
        cache.read_at(1, &mut buf, 0).unwrap();
        assert!(cache.quiet_since(mark), "reads do not end the quiet");
        // A write in flight: no mark. Its begun count is taken before the write and its
        // done count after, so a mark taken between the two is refused.
        cache.writes_begun.fetch_add(1, Ordering::SeqCst);
        assert_eq!(cache.quiet_mark(), None);
        cache.writes_done.fetch_add(1, Ordering::SeqCst);
        assert!(cache.quiet_mark().is_some());
    }

    #[test]
    fn create_and_rekey_keep_the_descriptor_they_opened() {
        let dir = tempfile::tempdir().unwrap();
        let cache = FileCache::new(2);
        cache.create(1, dir.path().join("a")).unwrap();
        cache.write_at(1, b"first", 0).unwrap();
        // The write used the descriptor `create` opened.
        assert_eq!(cache.stats().opened_files, 1);
        assert_eq!(cache.stats().open_files, 1);
        // Read under a provisional id, then moved to the real one: no second open.
        cache.register(900, dir.path().join("a"));
        let mut buf = [0u8; 5];
        cache.read_at(900, &mut buf, 0).unwrap();
        assert_eq!(cache.stats().opened_files, 2);
        cache.rekey(900, 7);
        assert!(!cache.is_registered(900));
        cache.read_at(7, &mut buf, 0).unwrap();
        assert_eq!(&buf, b"first");
        let st = cache.stats();
        assert_eq!(st.opened_files, 2, "the read after rekey reopened the file");
        assert!(st.open_files <= 2);
        // Rekeyed onto an id that already has a descriptor: the moved one closes.
        cache.register(901, dir.path().join("a"));
        cache.read_at(901, &mut buf, 0).unwrap();
        cache.rekey(901, 7);
        assert!(cache.stats().open_files <= 2);
        // Two registrations of 7 now: the first release keeps it, the second forgets it
        // and hands its path back.
        assert_eq!(cache.release(7), None);
        assert!(cache.is_registered(7));
        assert_eq!(cache.release(7), Some(dir.path().join("a")));
        assert!(!cache.is_registered(7));
        // Past the budget the moved descriptor closes the shard's least recently used.
        for id in 10..14u64 {
            cache.register(1000 + id, dir.path().join("a"));
            cache.read_at(1000 + id, &mut buf, 0).unwrap();
            cache.rekey(1000 + id, id);
            assert!(cache.stats().open_files <= 2, "{:?}", cache.stats());
        }
        for id in 10..14u64 {
            cache.read_at(id, &mut buf, 0).unwrap();
            assert_eq!(&buf, b"first");
        }
    }

    #[test]
    fn descriptors_stay_within_the_limit_and_reopen_transparently() {
        let dir = tempfile::tempdir().unwrap();
        let cache = FileCache::new(3);
        for id in 0..10u64 {
            cache.create(id, dir.path().join(format!("f{id}"))).unwrap();
            cache.write_at(id, &id.to_le_bytes(), 0).unwrap();
            assert!(
                cache.stats().open_files <= 3,
                "open descriptors exceed the limit"
            );
        }
        for round in 0..3 {
            for id in 0..10u64 {
                let mut buf = [0u8; 8];
                cache.read_at(id, &mut buf, 0).unwrap();
                assert_eq!(u64::from_le_bytes(buf), id, "round {round}");
                assert!(cache.stats().open_files <= 3);
            }
        }
        cache.sync_written().unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(
            cache.read_at(3, &mut buf[..], 100).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
        cache.forget(3);
        assert_eq!(
            cache.read_at(3, &mut buf, 0).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}

#[cfg(test)]
mod model_tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Debug, Clone)]
    enum Op {
        Register(u64),
        Release(u64),
        Write(u64, u8),
        Read(u64),
        Forget(u64),
        SyncWritten,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            2 => (0..12u64).prop_map(Op::Register),
            2 => (0..12u64).prop_map(Op::Release),
            3 => (0..12u64, any::<u8>()).prop_map(|(i, v)| Op::Write(i, v)),
            3 => (0..12u64).prop_map(Op::Read),
            1 => (0..12u64).prop_map(Op::Forget),
            1 => Just(Op::SyncWritten),
        ]
    }

    /// The model: per id its registrations and whether written since the last sync; the
    /// file contents live on disk and are compared with the last value written.
    #[derive(Default)]
    struct Model {
        files: BTreeMap<u64, (u32, bool)>,
        contents: BTreeMap<u64, u8>,
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn file_cache_matches_the_model(ops in prop::collection::vec(op(), 1..150), limit in 1..6usize) {
            let dir = tempfile::tempdir().unwrap();
            let cache = FileCache::new(limit);
            let mut m = Model::default();
            for id in 0..12u64 {
                std::fs::write(dir.path().join(format!("f{id}")), [0u8]).unwrap();
                m.contents.insert(id, 0);
            }
            for op in ops {
                match op {
                    Op::Register(id) => {
                        cache.register(id, dir.path().join(format!("f{id}")));
                        m.files.entry(id).or_insert((0, false)).0 += 1;
                    }
                    Op::Release(id) => {
                        cache.release(id);
                        if let Some(f) = m.files.get_mut(&id) {
                            f.0 = f.0.saturating_sub(1);
                            if f.0 == 0 && !f.1 {
                                m.files.remove(&id);
                            }
                        }
                    }
                    Op::Write(id, v) => {
                        let r = cache.write_at(id, &[v], 0);
                        match m.files.get_mut(&id) {
                            Some(f) => {
                                prop_assert!(r.is_ok());
                                f.1 = true;
                                m.contents.insert(id, v);
                            }
                            None => prop_assert_eq!(r.unwrap_err().kind(), io::ErrorKind::NotFound),
                        }
                    }
                    Op::Read(id) => {
                        let mut buf = [0u8];
                        let r = cache.read_at(id, &mut buf, 0);
                        if m.files.contains_key(&id) {
                            prop_assert!(r.is_ok());
                            prop_assert_eq!(buf[0], m.contents[&id]);
                        } else {
                            prop_assert!(r.is_err());
                        }
                    }
                    Op::Forget(id) => {
                        cache.forget(id);
                        m.files.remove(&id);
                    }
                    Op::SyncWritten => {
                        cache.sync_written().unwrap();
                        m.files.retain(|_, f| f.0 > 0);
                        for f in m.files.values_mut() {
                            f.1 = false;
                        }
                    }
                }
                let s = cache.stats();
                prop_assert!(s.open_files as usize <= limit, "{:?}", s);
                prop_assert_eq!(s.virtual_files, m.files.len() as u64);
                for id in 0..12u64 {
                    prop_assert_eq!(cache.is_registered(id), m.files.contains_key(&id));
                }
            }
        }
    }

    #[test]
    fn the_default_limit_leaves_a_reserve() {
        let limit = default_open_files_limit(100);
        let nofile = rlimit_nofile().unwrap();
        assert!(limit >= 16);
        assert!(limit <= nofile.saturating_sub(DESCRIPTOR_RESERVE + 100).max(16));
    }
}
