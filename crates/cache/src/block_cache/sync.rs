//! The atomics and locks the block cache uses, in one place, so that the same code runs
//! under the shuttle schedule explorer (`--features shuttle`): there every atomic operation
//! and lock is a point where shuttle may switch threads.

#[cfg(not(feature = "shuttle"))]
pub use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
#[cfg(not(feature = "shuttle"))]
pub use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// Back off while another thread finishes (a writer the flusher waits for).
#[cfg(not(feature = "shuttle"))]
pub fn pause() {
    std::thread::sleep(std::time::Duration::from_micros(200));
}

#[cfg(feature = "shuttle")]
pub use shuttle_impl::*;

#[cfg(feature = "shuttle")]
mod shuttle_impl {
    pub use shuttle::sync::atomic::{
        AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
    };
    pub use shuttle::sync::{MutexGuard, RwLockReadGuard, RwLockWriteGuard};

    pub fn pause() {
        shuttle::thread::yield_now();
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
    }

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
