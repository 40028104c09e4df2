//! The locks, condition variable and atomics every cache of this crate uses, in one place,
//! so that the same code runs under the shuttle schedule explorer (`--features shuttle`):
//! there every lock and atomic operation is a point where shuttle may switch threads.

#[cfg(not(feature = "shuttle"))]
pub use parking_lot::{Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
#[cfg(not(feature = "shuttle"))]
pub use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
};

/// Ask the CPU to start loading the cache line of `value` (a hint: nothing is read).
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; any address is allowed, and this one is a reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            value as *const T as *const i8,
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Let another thread run (a step another thread is about to finish).
#[cfg(not(feature = "shuttle"))]
pub fn yield_now() {
    std::thread::yield_now();
}

/// Back off while another thread finishes (a writer the flusher waits for).
#[cfg(not(feature = "shuttle"))]
pub fn pause() {
    std::thread::sleep(std::time::Duration::from_micros(200));
}

/// Wait on `condvar` until notified or `deadline`; true when the deadline passed, or when
/// the waiting statement was cancelled (see [`crate::long_wait`]), which the caller handles
/// as a timeout.
#[cfg(not(feature = "shuttle"))]
pub fn wait_until<'a, T>(
    condvar: &Condvar,
    mut guard: MutexGuard<'a, T>,
    deadline: std::time::Instant,
) -> (MutexGuard<'a, T>, bool) {
    let timed_out = crate::long_wait::run(|| loop {
        let slice_end = deadline.min(std::time::Instant::now() + crate::long_wait::PROBE_SLICE);
        if !condvar.wait_until(&mut guard, slice_end).timed_out() {
            return false;
        }
        if slice_end >= deadline || crate::long_wait::interrupted() {
            return true;
        }
    });
    (guard, timed_out)
}

/// A small number fixed per thread (assigned round-robin at its first use), to spread
/// counters that many threads bump over separate cache lines: a thread always writes the
/// same stripe, two threads share one only when there are more threads than stripes.
pub fn thread_slot() -> usize {
    use std::cell::Cell;
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    thread_local! {
        static SLOT: Cell<usize> = const { Cell::new(usize::MAX) };
    }
    SLOT.with(|slot| {
        let mut s = slot.get();
        if s == usize::MAX {
            s = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            slot.set(s);
        }
        s
    })
}

#[cfg(feature = "shuttle")]
pub use shuttle_impl::*;

#[cfg(feature = "shuttle")]
mod shuttle_impl {
    pub use shuttle::sync::atomic::{
        AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
    };
    pub use shuttle::sync::{MutexGuard, RwLockReadGuard, RwLockWriteGuard};

    pub fn pause() {
        shuttle::thread::yield_now();
    }

    pub fn yield_now() {
        shuttle::thread::yield_now();
    }

    /// Run the schedule test `scenario` under `random` random schedules, then under `pct`
    /// PCT schedules of depth 3 (bugs that need up to two forced preemptions).
    #[cfg(test)]
    pub fn explore_schedules(scenario: fn(), random: usize, pct: usize) {
        shuttle::check_random(scenario, random);
        shuttle::check_pct(scenario, pct, 3);
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
        pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
            match self.0.try_lock() {
                Ok(guard) => Some(guard),
                Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            }
        }
    }

    #[derive(Default)]
    pub struct RwLock<T>(shuttle::sync::RwLock<T>);

    impl<T> RwLock<T> {
        pub fn new(value: T) -> RwLock<T> {
            RwLock(shuttle::sync::RwLock::new(value))
        }
        pub fn read(&self) -> RwLockReadGuard<'_, T> {
            self.0.read().unwrap_or_else(|e| e.into_inner())
        }
        pub fn write(&self) -> RwLockWriteGuard<'_, T> {
            self.0.write().unwrap_or_else(|e| e.into_inner())
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
}
