//! myriad's caches, with no SQL and no file format: the table cache, the file (descriptor)
//! cache, the block cache (key cache). Reusable by any engine; every other crate of myriad
//! reaches files and pages through here.
//!
//! - [`file_cache`]: virtual file descriptors bounded by `open_files_limit`.
//! - [`block_cache`]: fixed-size blocks of files, pinned handles, dirty tracking with the WAL
//!   rule, MySQL's `Key_*` counters; a hit is one atomic operation on the block's state word,
//!   eviction is CLOCK with a probationary part and a ghost history, `resize` runs online.
//! - [`table_cache`]: a definition cache (count and byte budget, O(1) LRU of idle
//!   definitions, single-flight loads) under an open cache of per-use handles split into
//!   instances (per-instance lock and LRU of idle handles), DDL invalidation by metadata
//!   lock.
//! - [`query_cache`]: results of repeated SELECTs checked against per-table versions;
//!   sharded try-lock lookups, TinyLFU admission, per-template and whole-cache step-aside.
//!
//! Memory per entry: a block costs its size plus 128 bytes of slot header, about 16 bytes
//! of index and 8 of ghost history; a virtual file about 100 bytes plus its path; a table entry about 64 bytes plus
//! the engine's table object; a query-cache entry its key, its result and 192 bytes (plus
//! about 180 KiB fixed: sketch and template table).

pub mod block_cache;
pub mod fault;
pub mod file_cache;
pub mod long_wait;
pub mod query_cache;
mod sync;
pub mod table_cache;

pub use block_cache::committed_reads::{
    current_writer, reading_as, BlockBytes, ReadingAs, READ_UNCOMMITTED,
};
pub use block_cache::registry::{KeyCacheInfo, KeyCaches, Knob, DEFAULT_KEY_CACHE};
pub use block_cache::segments::{KeyCache, MAX_SEGMENTS};
pub use block_cache::{Block, BlockCache, BlockCacheStats, BlockIo, Prefetch};
pub use file_cache::{FileCache, FileCacheStats, FileId, QuietMark};
pub use query_cache::{QueryCache, QueryCacheStats};
pub use sync::prefetch;
pub use table_cache::{
    AcquireError, Definition, DefinitionEntry, ExclusiveGuard, LockWaitTimeout, TableCache,
    TableCacheConfig, TableCacheStats, TableHandle,
};
