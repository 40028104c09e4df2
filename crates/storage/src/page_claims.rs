//! Page claims: which statement may change which page until it ends.
//!
//! Statements of different transactions write one table side by side; what keeps them
//! apart is the page. Before a statement changes a page for the first time it *claims* it
//! (exclusively), and it keeps the claim until it commits or rolls back (a rollback to a
//! savepoint keeps it, as InnoDB keeps row locks). A page is thus changed by one open
//! statement at a time, which is what the rest of the engine relies on: a page's
//! before-image is its committed content (undo and savepoints by page images stay exact),
//! the block cache's committed image hides the one writer's bytes from every other reader,
//! and redo records each page's change against the commit before it.
//!
//! A locking read (`FOR SHARE`) claims the leaves it read in *shared* mode: any number of
//! statements may share a page, and none of them may change it while another holds it.
//!
//! **Conflicts.** A statement that needs a page another statement holds does not wait
//! where it stands: it holds its table's latch and has a half-done operation, and the
//! holder needs that latch to commit. It fails with [`StorageError::Busy`] and leaves the
//! page it needs in a thread-local ([`take_retry`]); the SQL layer rolls the statement back
//! to its start (its claims stay), waits for the page with [`crate::Statement::wait_claim`]
//! (which then holds it) and runs the statement again. A statement that read rows before it
//! writes also checks, at each new claim, that no commit changed the page since it started
//! (see [`crate::Storage::reads_from_now`]); otherwise it runs again at once, now holding
//! the page, so that it never writes what it computed from rows that changed meanwhile.
//!
//! **Deadlocks.** A statement waits for one page at a time. Before waiting it follows the
//! waits from the page's holders: a holder that waits for a page, that page's holders, and
//! so on. Reaching itself means the wait would never end: it fails at once with
//! [`StorageError::Deadlock`] (the SQL layer rolls the whole transaction back). Claims,
//! waits and the check share one mutex, so of two statements closing a cycle the second
//! sees it. Waits end with [`StorageError::LockWaitTimeout`] at the caller's timeout, or at
//! once when the statement is cancelled (probed every [`PROBE_SLICE`]).

use crate::types::{Result, StorageError};
use myriad_cache::long_wait::PROBE_SLICE;
use parking_lot::{Condvar, Mutex};
use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A page: (space, page number).
pub(crate) type PageKey = (u64, u32);

/// How a page is claimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimMode {
    /// Read by a `FOR SHARE` locking read: others may share it, none may change it.
    Shared,
    /// Changed, or read `FOR UPDATE`: no other statement may claim it.
    Exclusive,
}

/// What a statement that failed with [`StorageError::Busy`] does before it runs again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retry {
    /// Wait for this page (another statement holds it), then run again.
    Wait(BusyPage),
    /// Run again now: a page it claimed changed after it started reading.
    Now,
}

/// A page another statement holds, and the claim the waiter needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BusyPage {
    pub(crate) page: PageKey,
    pub(crate) mode: ClaimMode,
}

thread_local! {
    static RETRY: Cell<Option<Retry>> = const { Cell::new(None) };
    /// The log position this thread's statement started reading at ([`u64::MAX`]: it does
    /// not depend on what it read before its writes).
    static READS_SINCE: Cell<u64> = const { Cell::new(u64::MAX) };
}

thread_local! {
    /// The leaves this thread's table reads met, while a locking read collects them.
    static LEAVES_READ: std::cell::RefCell<Option<Vec<PageKey>>> =
        const { std::cell::RefCell::new(None) };
}

/// Until [`LeavesRead::finish`], note the leaf pages this thread's table reads meet: a
/// locking read (`FOR UPDATE`, `FOR SHARE`) runs once so, claims them
/// ([`crate::Statement::claim_pages`]), and runs again until it claimed nothing new; the
/// rows on its leaves then stay as it reads them until it ends, and so does the absence of
/// rows between them (the keys a leaf would hold).
pub fn collect_leaves() -> LeavesRead {
    LEAVES_READ.with(|l| *l.borrow_mut() = Some(Vec::new()));
    LeavesRead(())
}

/// See [`collect_leaves`].
#[must_use = "the leaves are collected only while it lives"]
pub struct LeavesRead(());

impl LeavesRead {
    /// The leaves read, each once.
    pub fn finish(self) -> Vec<(u64, u32)> {
        let mut leaves = LEAVES_READ
            .with(|l| l.borrow_mut().take())
            .unwrap_or_default();
        leaves.sort_unstable();
        leaves.dedup();
        leaves
    }
}

impl Drop for LeavesRead {
    fn drop(&mut self) {
        LEAVES_READ.with(|l| *l.borrow_mut() = None);
    }
}

/// Whether a locking read collects the leaves it reads (see [`collect_leaves`]).
pub(crate) fn collecting() -> bool {
    LEAVES_READ.with(|l| l.borrow().is_some())
}

/// A table read met leaf `page` (noted only while a locking read collects).
pub(crate) fn note_leaf(page: PageKey, content: &[u8]) {
    LEAVES_READ.with(|l| {
        if let Some(leaves) = l.borrow_mut().as_mut() {
            if content[crate::page::OFF_TYPE] == crate::page::TYPE_LEAF {
                leaves.push(page);
            }
        }
    });
}

/// See [`crate::Storage::reads_from_now`].
#[must_use = "the statement's claims are checked only while the guard lives"]
pub struct ReadsSince {
    previous: u64,
}

impl ReadsSince {
    pub(crate) fn at(lsn: u64) -> ReadsSince {
        ReadsSince {
            previous: READS_SINCE.with(|r| r.replace(lsn)),
        }
    }
}

impl Drop for ReadsSince {
    fn drop(&mut self) {
        READS_SINCE.with(|r| r.set(self.previous));
    }
}

/// Whether a page last changed by the group ending at `page_lsn` changed after this
/// thread's statement started reading.
pub(crate) fn changed_since_reads(page_lsn: u64) -> bool {
    page_lsn > READS_SINCE.with(Cell::get)
}

/// The retry that the last [`StorageError::Busy`] of this thread asked for, if any (taken:
/// the next call answers None until another one fails).
pub fn take_retry() -> Option<Retry> {
    RETRY.with(Cell::take)
}

/// Fail with [`StorageError::Busy`], leaving `retry` for [`take_retry`].
pub(crate) fn busy(retry: Retry) -> StorageError {
    RETRY.with(|r| r.set(Some(retry)));
    StorageError::Busy
}

struct Claim {
    exclusive: bool,
    /// Never empty.
    owners: Vec<u64>,
}

#[derive(Default)]
struct Inner {
    claims: HashMap<PageKey, Claim>,
    /// The page each waiting statement waits for.
    waiting: HashMap<u64, PageKey>,
}

/// The claims of every open statement (one per engine).
#[derive(Default)]
pub(crate) struct PageClaims {
    inner: Mutex<Inner>,
    released: Condvar,
}

impl Inner {
    /// Claim `page` for `me` if no one else's claim conflicts: Some(true) when the claim is
    /// new, Some(false) when `me` held it already (now in `mode` at least), None on conflict.
    fn grant(&mut self, me: u64, page: PageKey, mode: ClaimMode) -> Option<bool> {
        let exclusive = mode == ClaimMode::Exclusive;
        let Some(claim) = self.claims.get_mut(&page) else {
            self.claims.insert(
                page,
                Claim {
                    exclusive,
                    owners: vec![me],
                },
            );
            return Some(true);
        };
        if claim.owners.contains(&me) {
            if !exclusive || claim.exclusive {
                return Some(false);
            }
            // An upgrade: only when no one else shares the page.
            if claim.owners.len() == 1 {
                claim.exclusive = true;
                return Some(false);
            }
            return None;
        }
        if !exclusive && !claim.exclusive {
            claim.owners.push(me);
            return Some(true);
        }
        None
    }

    /// Whether `me` waiting for `page` closes a chain of waits back to `me`.
    fn closes_cycle(&self, me: u64, page: PageKey) -> bool {
        let mut pages = vec![page];
        let mut seen = 0usize;
        let mut first = true;
        while let Some(p) = pages.pop() {
            let Some(claim) = self.claims.get(&p) else {
                continue;
            };
            for &owner in &claim.owners {
                // `me` sharing the page it wants to change is no wait for itself.
                if owner == me && first {
                    continue;
                }
                if owner == me {
                    return true;
                }
                if let Some(&next) = self.waiting.get(&owner) {
                    seen += 1;
                    // More steps than waiters: a cycle that does not reach `me`.
                    if seen > self.waiting.len() * 4 + 4 {
                        return false;
                    }
                    pages.push(next);
                }
            }
            first = false;
        }
        false
    }
}

impl PageClaims {
    /// Claim `page` for statement `me` without waiting: Ok(true) when the claim is new,
    /// Ok(false) when `me` held it already, Err when another statement's claim conflicts.
    pub(crate) fn try_claim(
        &self,
        me: u64,
        page: PageKey,
        mode: ClaimMode,
    ) -> std::result::Result<bool, BusyPage> {
        self.inner
            .lock()
            .grant(me, page, mode)
            .ok_or(BusyPage { page, mode })
    }

    /// Claim `page` for `me`, waiting at most `timeout` for the statements holding it to
    /// end. Returns whether the claim is new.
    pub(crate) fn wait_claim(
        &self,
        me: u64,
        page: PageKey,
        mode: ClaimMode,
        timeout: Duration,
    ) -> Result<bool> {
        let deadline = Instant::now() + timeout;
        let mut inner = self.inner.lock();
        loop {
            if let Some(new) = inner.grant(me, page, mode) {
                return Ok(new);
            }
            if inner.closes_cycle(me, page) {
                return Err(StorageError::Deadlock);
            }
            if Instant::now() >= deadline || myriad_cache::long_wait::interrupted() {
                return Err(StorageError::LockWaitTimeout);
            }
            inner.waiting.insert(me, page);
            let slice_end = deadline.min(Instant::now() + PROBE_SLICE);
            myriad_cache::long_wait::run(|| {
                let _ = self.released.wait_until(&mut inner, slice_end);
            });
            inner.waiting.remove(&me);
        }
    }

    /// Let go of `me`'s claims of `pages` and wake the waiters.
    pub(crate) fn release(&self, me: u64, pages: &[PageKey]) {
        if pages.is_empty() {
            return;
        }
        let mut inner = self.inner.lock();
        for page in pages {
            if let Some(claim) = inner.claims.get_mut(page) {
                claim.owners.retain(|&o| o != me);
                if claim.owners.is_empty() {
                    inner.claims.remove(page);
                }
            }
        }
        drop(inner);
        self.released.notify_all();
    }

    /// Claims held, for tests.
    #[cfg(test)]
    pub(crate) fn count(&self) -> usize {
        self.inner.lock().claims.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const WAIT: Duration = Duration::from_secs(20);
    const X: ClaimMode = ClaimMode::Exclusive;
    const S: ClaimMode = ClaimMode::Shared;

    /// `me` waits for `page` on a thread of its own; returns once the wait is registered.
    fn waiting_in_background(
        c: &Arc<PageClaims>,
        me: u64,
        page: PageKey,
        mode: ClaimMode,
    ) -> std::thread::JoinHandle<Result<bool>> {
        let waiter = {
            let c = Arc::clone(c);
            std::thread::spawn(move || c.wait_claim(me, page, mode, WAIT))
        };
        while !c.inner.lock().waiting.contains_key(&me) {
            std::thread::sleep(Duration::from_millis(5));
        }
        waiter
    }

    #[test]
    fn an_exclusive_claim_excludes_every_other() {
        let c = PageClaims::default();
        assert_eq!(c.try_claim(1, (1, 5), X), Ok(true));
        assert_eq!(c.try_claim(1, (1, 5), X), Ok(false));
        assert_eq!(c.try_claim(1, (1, 5), S), Ok(false));
        assert!(c.try_claim(2, (1, 5), S).is_err());
        assert!(c.try_claim(2, (1, 5), X).is_err());
        assert_eq!(c.try_claim(2, (1, 6), X), Ok(true));
        c.release(1, &[(1, 5)]);
        assert_eq!(c.try_claim(2, (1, 5), X), Ok(true));
        c.release(2, &[(1, 5), (1, 6)]);
        assert_eq!(c.count(), 0);
    }

    #[test]
    fn shared_claims_share_and_upgrade_only_alone() {
        let c = PageClaims::default();
        assert_eq!(c.try_claim(1, (1, 5), S), Ok(true));
        assert_eq!(c.try_claim(2, (1, 5), S), Ok(true));
        assert!(c.try_claim(1, (1, 5), X).is_err(), "2 shares it");
        assert!(c.try_claim(3, (1, 5), X).is_err());
        c.release(2, &[(1, 5)]);
        assert_eq!(c.try_claim(1, (1, 5), X), Ok(false), "upgraded");
        assert!(c.try_claim(2, (1, 5), S).is_err());
    }

    #[test]
    fn a_waiter_gets_the_page_when_its_holder_ends() {
        let c = Arc::new(PageClaims::default());
        c.try_claim(1, (1, 5), X).unwrap();
        let waiter = {
            let c = Arc::clone(&c);
            std::thread::spawn(move || {
                let start = Instant::now();
                let new = c.wait_claim(2, (1, 5), X, WAIT).unwrap();
                (new, start.elapsed())
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        c.release(1, &[(1, 5)]);
        let (new, waited) = waiter.join().unwrap();
        assert!(new);
        assert!(waited >= Duration::from_millis(90), "waited {waited:?}");
        assert!(c.try_claim(1, (1, 5), S).is_err(), "2 holds it now");
    }

    #[test]
    fn crossed_waits_are_a_deadlock_and_a_lone_wait_times_out() {
        let c = Arc::new(PageClaims::default());
        c.try_claim(1, (1, 1), X).unwrap();
        c.try_claim(2, (1, 2), X).unwrap();
        let first = waiting_in_background(&c, 1, (1, 2), X);
        assert!(matches!(
            c.wait_claim(2, (1, 1), X, WAIT),
            Err(StorageError::Deadlock)
        ));
        c.release(2, &[(1, 2)]);
        assert!(first.join().unwrap().unwrap());
        let start = Instant::now();
        assert!(matches!(
            c.wait_claim(3, (1, 2), S, Duration::from_millis(150)),
            Err(StorageError::LockWaitTimeout)
        ));
        assert!(start.elapsed() >= Duration::from_millis(140));
    }

    #[test]
    fn a_cycle_through_shared_holders_is_found() {
        let c = Arc::new(PageClaims::default());
        // 1 and 2 share page 1; 2 holds page 2 and waits to change page 1; 1 asks for 2.
        c.try_claim(1, (1, 1), S).unwrap();
        c.try_claim(2, (1, 1), S).unwrap();
        c.try_claim(2, (1, 2), X).unwrap();
        let second = waiting_in_background(&c, 2, (1, 1), X);
        assert!(matches!(
            c.wait_claim(1, (1, 2), X, WAIT),
            Err(StorageError::Deadlock)
        ));
        c.release(1, &[(1, 1)]);
        assert!(!second.join().unwrap().unwrap(), "upgraded its own");
    }
}
