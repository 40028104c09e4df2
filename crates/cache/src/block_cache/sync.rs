//! The atomics the block cache uses, in one place, so that a schedule explorer (loom or
//! shuttle) can be substituted here without touching the algorithm.
pub use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
