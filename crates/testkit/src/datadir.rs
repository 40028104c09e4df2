//! Temporary directories for servers and for a test's scratch files.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::process::{interrupted, lock, LIVE_DIRS};

/// A temporary directory holding a server's datadir (`data/`), its own tmpdir (`tmp/`), its
/// option file, log, socket and pid file. Removed on drop, except while the thread panics
/// (a failing test): then it is kept and its path printed, so the logs can be read.
///
/// It is made and removed under the registry lock that an interrupt handler holds while it
/// cleans up and exits, so an interrupt never leaves one half made or half removed, and none
/// is made once interrupted.
pub struct Datadir {
    root: PathBuf,
}

impl Datadir {
    /// A new directory under `work_dir` named `myriad-<label>-XXXXXX`.
    pub fn create(work_dir: &Path, label: &str) -> Result<Datadir> {
        fs::create_dir_all(work_dir)
            .with_context(|| format!("creating work directory {}", work_dir.display()))?;
        let mut registry = lock(&LIVE_DIRS);
        if interrupted() {
            bail!("interrupted");
        }
        let root = tempfile::Builder::new()
            .prefix(&format!("myriad-{label}-"))
            .tempdir_in(work_dir)
            .with_context(|| format!("creating a temporary directory in {}", work_dir.display()))?
            .keep();
        registry.insert(root.clone());
        drop(registry);
        let datadir = Datadir { root };
        fs::create_dir_all(datadir.data())?;
        fs::create_dir_all(datadir.tmp())?;
        Ok(datadir)
    }

    /// The directory itself (for a test's own files beside the server's).
    pub fn path(&self) -> &Path {
        &self.root
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The server's datadir.
    pub fn data(&self) -> PathBuf {
        self.root.join("data")
    }

    /// A temporary directory of the server's own (MariaDB's tmpdir): servers and
    /// mariadb-install-db runs sharing /tmp collide on their temporary tables' names
    /// (concurrent install-db runs failed 2 in 6 with "Unknown table 'mysql.tmp_user_sys'",
    /// 0 in 12 with their own).
    pub fn tmp(&self) -> PathBuf {
        self.root.join("tmp")
    }
}

impl Drop for Datadir {
    fn drop(&mut self) {
        let mut registry = lock(&LIVE_DIRS);
        registry.remove(&self.root);
        if std::thread::panicking() {
            eprintln!("---- kept for inspection: {} ----", self.root.display());
        } else {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

/// A scratch directory in the system's temporary directory, for a test's option files,
/// scripts and servers: `myriad-<label>-XXXXXX`. Panics when it cannot be made.
pub fn scratch_dir(label: &str) -> Datadir {
    Datadir::create(&std::env::temp_dir(), label)
        .unwrap_or_else(|e| panic!("cannot make a temporary directory: {e:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_on_drop_and_unregistered() {
        let dir = scratch_dir("drop");
        let root = dir.root().to_path_buf();
        assert!(dir.data().is_dir() && dir.tmp().is_dir());
        assert!(lock(&LIVE_DIRS).contains(&root));
        drop(dir);
        assert!(!root.exists(), "{} not removed", root.display());
        assert!(!lock(&LIVE_DIRS).contains(&root));
    }

    #[test]
    fn kept_with_its_logs_when_the_thread_panics() {
        let (sender, receiver) = std::sync::mpsc::channel();
        let failed = std::thread::spawn(move || {
            let dir = scratch_dir("panic");
            fs::write(dir.root().join("server.log"), "the log").expect("write a log");
            sender
                .send(dir.root().to_path_buf())
                .expect("send the path");
            panic!("a failing test");
        })
        .join();
        assert!(failed.is_err(), "the thread panicked");
        let root = receiver.recv().expect("the path");
        let log = fs::read_to_string(root.join("server.log"));
        let _ = fs::remove_dir_all(&root);
        assert_eq!(log.ok().as_deref(), Some("the log"), "kept for inspection");
    }
}
