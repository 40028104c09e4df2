//! The locks and atomics the query cache uses, in one place, so that the same code runs
//! under the shuttle schedule explorer (`--features shuttle`), where every lock and atomic
//! operation is a point at which the explorer may switch threads.

#[cfg(not(feature = "shuttle"))]
pub use parking_lot::{Mutex, RwLock};
#[cfg(not(feature = "shuttle"))]
pub use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};

#[cfg(feature = "shuttle")]
pub use shuttle_impl::*;

#[cfg(feature = "shuttle")]
mod shuttle_impl {
    pub use shuttle::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
    use shuttle::sync::{MutexGuard, RwLockReadGuard, RwLockWriteGuard};

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
