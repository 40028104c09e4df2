//! Waits that may last (a DDL's metadata lock, a row lock held by another transaction)
//! announce themselves here, so that a server running statements on async worker threads
//! can first hand that worker's other connections to another thread (tokio's
//! `block_in_place`). A statement that never waits then costs no thread hand-off at all.
//! Without a hook (tests, embedded use) a wait just waits.
//!
//! A wait on a condition (`sync::wait_until`) also asks the process's interrupt
//! probe, at least every [`PROBE_SLICE`], whether the waiting statement was cancelled (KILL
//! QUERY, max_statement_time, a client that left): if so the wait ends early, as if its
//! deadline had passed, and the caller backs out the way it does on a timeout. The
//! statement layer then reports why it stopped.

use std::sync::OnceLock;
use std::time::Duration;

/// The longest a wait goes without asking the interrupt probe.
pub const PROBE_SLICE: Duration = Duration::from_millis(100);

/// Whether the current thread's statement was cancelled.
pub type InterruptProbe = fn() -> bool;

static PROBE: OnceLock<InterruptProbe> = OnceLock::new();

/// Install the process's interrupt probe; the first one installed stays.
pub fn set_interrupt_probe(probe: InterruptProbe) {
    let _ = PROBE.set(probe);
}

/// Whether the probe says the waiting statement was cancelled (never, without a probe).
pub fn interrupted() -> bool {
    PROBE.get().is_some_and(|probe| probe())
}

/// Runs its argument, possibly after moving the caller's other work elsewhere.
pub type Hook = fn(&mut dyn FnMut());

static HOOK: OnceLock<Hook> = OnceLock::new();

/// Install the process's hook; the first one installed stays.
pub fn set_hook(hook: Hook) {
    let _ = HOOK.set(hook);
}

/// Run `wait`, a call that may block for long, through the hook.
pub fn run<T>(wait: impl FnOnce() -> T) -> T {
    let Some(hook) = HOOK.get() else {
        return wait();
    };
    let mut wait = Some(wait);
    let mut out = None;
    hook(&mut || out = wait.take().map(|w| w()));
    out.expect("a long-wait hook must run the wait it is given")
}

/// Take what is usually free at once (`attempt`, which must not block), and only when it is
/// not, wait for it (`wait`) through the hook: the common uncontended case costs no hand-off.
pub fn unless_free<T>(attempt: impl FnOnce() -> Option<T>, wait: impl FnOnce() -> T) -> T {
    match attempt() {
        Some(value) => value,
        None => run(wait),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn counting_hook(wait: &mut dyn FnMut()) {
        CALLS.fetch_add(1, Ordering::SeqCst);
        wait();
    }

    #[test]
    fn waits_go_through_the_installed_hook_and_return_their_value() {
        set_hook(counting_hook);
        let before = CALLS.load(Ordering::SeqCst);
        assert_eq!(run(|| 41 + 1), 42);
        assert_eq!(CALLS.load(Ordering::SeqCst), before + 1);
        // Free at once: no hand-off; not free: the wait goes through the hook.
        assert_eq!(unless_free(|| Some(1), || 2), 1);
        assert_eq!(CALLS.load(Ordering::SeqCst), before + 1);
        assert_eq!(unless_free(|| None, || 2), 2);
        assert_eq!(CALLS.load(Ordering::SeqCst), before + 2);
    }
}
