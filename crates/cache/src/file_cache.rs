//! The file cache: virtual file descriptors, in the manner of PostgreSQL's `fd.c`.
//!
//! Problem: a server with 10^5 tables cannot keep a kernel descriptor open per table, and
//! must never fail a query with "Too many open files" (seed 003). Design: callers name files
//! by a [`FileId`] (a *virtual* file); the kernel descriptor behind it is opened on demand,
//! kept on an LRU bounded by `open_files_limit`, closed when the budget is reached and
//! reopened transparently on the next access. On EMFILE/ENFILE the least recently used
//! descriptor is closed and the open retried.
//!
//! Rule: every table file of myriad is opened, read, written and synced through this module.
//! Nothing in `storage` calls `File::open` on a table file.
//!
//! Cost: one mutex acquisition per access to look up the descriptor (the I/O itself runs
//! outside the lock on a cloned `Arc<File>`). The budget is one inequality,
//! `open_count <= limit`, enforced in [`FileCache::handle`]; a descriptor closed while an
//! I/O is in flight lives until that I/O returns (the `Arc`), so the kernel count can exceed
//! the limit by the number of concurrent I/Os. Issue 5 replaces the global mutex.

use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A virtual file: a number chosen by the caller, stable for the life of the file.
pub type FileId = u64;

/// Descriptors left to the rest of the process (sockets, logs) when the limit is derived
/// from RLIMIT_NOFILE.
pub const DESCRIPTOR_RESERVE: usize = 64;

struct VirtualFile {
    path: PathBuf,
    /// The open kernel descriptor and its LRU tick, when open.
    open: Option<(Arc<File>, u64)>,
    /// Written since the last sync: `sync_written` syncs exactly these.
    written_since_sync: bool,
}

struct Inner {
    files: HashMap<FileId, VirtualFile>,
    /// Open descriptors only, by last-use tick: the first entry is the LRU victim.
    lru: BTreeMap<u64, FileId>,
    tick: u64,
}

/// Counters with MySQL's names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileCacheStats {
    /// `Open_files`: kernel descriptors held now.
    pub open_files: u64,
    /// `Opened_files`: descriptors opened since start.
    pub opened_files: u64,
}

/// See the module documentation.
pub struct FileCache {
    inner: Mutex<Inner>,
    limit: usize,
    opened_files: AtomicU64,
}

impl FileCache {
    /// A cache that keeps at most `open_files_limit` descriptors open (at least 1).
    pub fn new(open_files_limit: usize) -> FileCache {
        FileCache {
            inner: Mutex::new(Inner {
                files: HashMap::new(),
                lru: BTreeMap::new(),
                tick: 0,
            }),
            limit: open_files_limit.max(1),
            opened_files: AtomicU64::new(0),
        }
    }

    /// The configured descriptor budget.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Name the file behind `id` (no I/O). Re-registering replaces the path and closes the
    /// old descriptor.
    pub fn register(&self, id: FileId, path: PathBuf) {
        let mut inner = self.inner.lock();
        let old = inner.files.insert(
            id,
            VirtualFile {
                path,
                open: None,
                written_since_sync: false,
            },
        );
        if let Some(VirtualFile {
            open: Some((_, tick)),
            ..
        }) = old
        {
            inner.lru.remove(&tick);
        }
    }

    /// Whether `id` is registered.
    pub fn is_registered(&self, id: FileId) -> bool {
        self.inner.lock().files.contains_key(&id)
    }

    /// Create a new empty file at `path` (failing if it exists) and register it as `id`.
    pub fn create(&self, id: FileId, path: PathBuf) -> io::Result<()> {
        let file = self.open_with_retry(&path, true)?;
        drop(file);
        self.register(id, path);
        Ok(())
    }

    /// The file was renamed on disk: keep the descriptor (it follows the inode), remember the
    /// new path for reopening.
    pub fn renamed(&self, id: FileId, new_path: PathBuf) {
        if let Some(f) = self.inner.lock().files.get_mut(&id) {
            f.path = new_path;
        }
    }

    /// Forget `id` and close its descriptor (after a drop, or when the table is closed).
    pub fn forget(&self, id: FileId) {
        let mut inner = self.inner.lock();
        if let Some(VirtualFile {
            open: Some((_, tick)),
            ..
        }) = inner.files.remove(&id)
        {
            inner.lru.remove(&tick);
        }
    }

    /// The path registered for `id`.
    pub fn path(&self, id: FileId) -> Option<PathBuf> {
        self.inner.lock().files.get(&id).map(|f| f.path.clone())
    }

    /// Read exactly `buf.len()` bytes at `offset`; a short read is `UnexpectedEof`.
    pub fn read_at(&self, id: FileId, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.handle(id, false)?.read_exact_at(buf, offset)
    }

    /// Write all of `buf` at `offset`.
    pub fn write_at(&self, id: FileId, buf: &[u8], offset: u64) -> io::Result<()> {
        self.handle(id, true)?.write_all_at(buf, offset)
    }

    /// The file's length in bytes.
    pub fn len(&self, id: FileId) -> io::Result<u64> {
        Ok(self.handle(id, false)?.metadata()?.len())
    }

    /// fsync one file.
    pub fn sync(&self, id: FileId) -> io::Result<()> {
        let file = self.handle(id, false)?;
        file.sync_all()?;
        if let Some(f) = self.inner.lock().files.get_mut(&id) {
            f.written_since_sync = false;
        }
        Ok(())
    }

    /// fsync every file written since its last sync (a checkpoint).
    pub fn sync_written(&self) -> io::Result<()> {
        let ids: Vec<FileId> = {
            let inner = self.inner.lock();
            inner
                .files
                .iter()
                .filter(|(_, f)| f.written_since_sync)
                .map(|(id, _)| *id)
                .collect()
        };
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
            open_files: self.inner.lock().lru.len() as u64,
            opened_files: self.opened_files.load(Ordering::Relaxed),
        }
    }

    /// The descriptor of `id`, opening it (and closing the LRU one) when needed.
    fn handle(&self, id: FileId, for_write: bool) -> io::Result<Arc<File>> {
        let mut inner = self.inner.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let Some(vf) = inner.files.get_mut(&id) else {
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
            inner.lru.remove(&old);
            inner.lru.insert(tick, id);
            return Ok(file);
        }
        let path = vf.path.clone();
        // The budget: at most `limit` descriptors open, checked here and only here.
        while inner.lru.len() >= self.limit {
            Self::close_lru(&mut inner);
        }
        let file = loop {
            match OpenOptions::new().read(true).write(true).open(&path) {
                Ok(f) => break Arc::new(f),
                Err(e) if is_descriptor_exhaustion(&e) && !inner.lru.is_empty() => {
                    Self::close_lru(&mut inner)
                }
                Err(e) => return Err(e),
            }
        };
        self.opened_files.fetch_add(1, Ordering::Relaxed);
        if let Some(vf) = inner.files.get_mut(&id) {
            vf.open = Some((Arc::clone(&file), tick));
        }
        inner.lru.insert(tick, id);
        Ok(file)
    }

    fn close_lru(inner: &mut Inner) {
        if let Some((_, victim)) = inner.lru.pop_first() {
            if let Some(vf) = inner.files.get_mut(&victim) {
                vf.open = None;
            }
        }
    }

    fn open_with_retry(&self, path: &Path, create_new: bool) -> io::Result<File> {
        loop {
            match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(create_new)
                .open(path)
            {
                Ok(f) => {
                    self.opened_files.fetch_add(1, Ordering::Relaxed);
                    return Ok(f);
                }
                Err(e) if is_descriptor_exhaustion(&e) => {
                    let mut inner = self.inner.lock();
                    if inner.lru.is_empty() {
                        return Err(e);
                    }
                    Self::close_lru(&mut inner);
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
