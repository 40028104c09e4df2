//! Children in their own process groups, and the registry that kills them all.
//!
//! A benchmark or test that dies must not leave a `mariadbd` holding a port and gigabytes
//! of memory on a shared machine. Every child is spawned through [`GroupChild`]: it becomes
//! the leader of its own process group, the group id goes into a process-wide registry, and
//! the guard's `Drop` kills the whole group with SIGKILL and reaps the leader.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Process groups of children still alive.
static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Temporary directories to remove when interrupted (Drop does not run on `exit`).
pub(crate) static LIVE_DIRS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
/// Set by an interrupt handler before it cleans up; no datadir is made afterwards.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the registry must not stop later cleanup.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The lock under which temporary directories are made and removed. An interrupt handler
/// holds it while the process exits, so no directory is left half made or half removed.
pub fn registry_lock() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    lock(&LIVE_DIRS)
}

/// Records that the process is being interrupted (call first thing in the handler).
pub fn mark_interrupted() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether [`mark_interrupted`] was called: the handler is then ending the process.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Kills every registered process group and removes the registered temporary directories.
pub fn kill_all_registered() {
    let groups: Vec<i32> = lock(&LIVE_GROUPS).iter().copied().collect();
    for &pgid in &groups {
        // Safety: kill(2) with a negative pid signals a process group; no memory is touched.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    // Wait for the leaders to die before removing their directories: a server still
    // writing while the directory is removed would leave files behind.
    for &pgid in &groups {
        // Safety: waitpid on our own child; a null status pointer is allowed. If the main
        // thread reaped it first this returns ECHILD at once.
        unsafe {
            libc::waitpid(pgid, std::ptr::null_mut(), 0);
        }
    }
    // Under the registry lock: a datadir the main thread is creating or removing meanwhile
    // is either finished first or not started (see `Datadir`).
    let mut dirs = lock(&LIVE_DIRS);
    for dir in dirs.iter() {
        let _ = fs::remove_dir_all(dir);
    }
    dirs.clear();
}

/// The process groups currently registered (for tests that check for strays).
pub fn registered_groups() -> Vec<i32> {
    lock(&LIVE_GROUPS).iter().copied().collect()
}

/// Whether a process with this pid exists (and is not a zombie).
pub fn process_alive(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state letter follows the parenthesised command name.
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next());
            !matches!(state, Some("Z") | Some("X") | None)
        }
        Err(_) => false,
    }
}

/// A child process that leads its own process group; dropping it kills the group.
pub struct GroupChild {
    child: Child,
    pgid: i32,
    reaped: Option<ExitStatus>,
}

impl GroupChild {
    /// Spawns `command` as the leader of a new process group and registers the group.
    pub fn spawn(command: &mut Command) -> io::Result<GroupChild> {
        command.process_group(0);
        let child = command.spawn()?;
        let pgid = child.id() as i32;
        lock(&LIVE_GROUPS).insert(pgid);
        Ok(GroupChild {
            child,
            pgid,
            reaped: None,
        })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The exit status if the leader has exited, without blocking.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.reaped {
            return Ok(Some(status));
        }
        let status = self.child.try_wait()?;
        if status.is_some() {
            self.reaped = status;
        }
        Ok(status)
    }

    /// Waits up to `limit` for the leader to exit.
    pub fn wait_timeout(&mut self, limit: Duration) -> io::Result<Option<ExitStatus>> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(Some(status));
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `signal` to the leader only.
    pub fn signal_leader(&self, signal: i32) {
        if self.reaped.is_none() {
            // Safety: kill(2) on our own child's pid; the child is not reaped yet, so the pid
            // cannot have been reused.
            unsafe {
                libc::kill(self.pgid, signal);
            }
        }
    }

    /// Kills the whole group with SIGKILL, reaps the leader and unregisters the group.
    pub fn kill_group(&mut self) {
        // Once the leader is reaped its id may be reused, so the group is only signalled
        // before that (our children do not fork: servers and sysbench are single processes).
        if self.reaped.is_none() {
            // Safety: kill(2) on a process group we created whose leader we have not reaped.
            unsafe {
                libc::kill(-self.pgid, libc::SIGKILL);
            }
            if let Ok(status) = self.child.wait() {
                self.reaped = Some(status);
            }
        }
        lock(&LIVE_GROUPS).remove(&self.pgid);
    }
}

impl Drop for GroupChild {
    fn drop(&mut self) {
        self.kill_group();
    }
}
