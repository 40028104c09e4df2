//! The locks, condition variable and atomics the table cache uses, in one place, so that the
//! same code runs under the shuttle schedule explorer (`--features shuttle`).

#[cfg(not(feature = "shuttle"))]
pub use parking_lot::{Condvar, Mutex, MutexGuard};
#[cfg(not(feature = "shuttle"))]
pub use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// Wait on `condvar` until notified or `deadline`; true when the deadline passed.
#[cfg(not(feature = "shuttle"))]
pub fn wait_until<'a, T>(
    condvar: &Condvar,
    mut guard: MutexGuard<'a, T>,
    deadline: std::time::Instant,
) -> (MutexGuard<'a, T>, bool) {
    let timed_out = condvar.wait_until(&mut guard, deadline).timed_out();
    (guard, timed_out)
}

#[cfg(feature = "shuttle")]
pub use shuttle_impl::*;

#[cfg(feature = "shuttle")]
mod shuttle_impl {
    pub use shuttle::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
    pub use shuttle::sync::MutexGuard;

    /// parking_lot's API over shuttle's lock (no poisoning: a panic ends the test anyway).
    #[derive(Default)]
    pub struct Mutex<T>(shuttle::sync::Mutex<T>);

    impl<T> Mutex<T> {
        pub fn new(value: T) -> Mutex<T> {
            Mutex(shuttle::sync::Mutex::new(value))
        }
        pub fn lock(&self) -> MutexGuard<'_, T> {
            self.0.lock().unwrap_or_else(|e| e.into_inner())
        }
    }

    #[derive(Default)]
    pub struct Condvar(shuttle::sync::Condvar);

    impl Condvar {
        pub fn new() -> Condvar {
            Condvar(shuttle::sync::Condvar::new())
        }
        pub fn notify_all(&self) {
            self.0.notify_all();
        }
    }

    /// Under shuttle time does not pass: a wait ends only by a notification (a lost
    /// wakeup shows up as a deadlock, which shuttle reports).
    pub fn wait_until<'a, T>(
        condvar: &Condvar,
        guard: MutexGuard<'a, T>,
        _deadline: std::time::Instant,
    ) -> (MutexGuard<'a, T>, bool) {
        (
            condvar.0.wait(guard).unwrap_or_else(|e| e.into_inner()),
            false,
        )
    }
}
