//! What [`Block::read`] shows: a block's bytes, or, while another writer's uncommitted
//! changes are in it, the committed content that writer handed over.
//!
//! A writer that makes a block write-pending with [`Block::begin_write_with`] hands over
//! the block's committed content (see "The committed image" in the module doc). The image
//! belongs to the writer the calling thread [`reading_as`] names. From then until the
//! writer drops the image (its commit) or ends its write (commit or rollback), a read on a
//! thread that reads as any other writer (or as none) gets the image: a reader never sees
//! bytes that a rollback may take back. The writer's own reads, and every read of a block
//! that is not write-pending, get the block's bytes, as before.
//!
//! A thread that reads as [`READ_UNCOMMITTED`] sees every block's bytes, uncommitted
//! changes of every writer included (the dirty reads of READ UNCOMMITTED).
//!
//! Cost: a read checks the block's write-pending count (one atomic load), and only for a
//! pending block takes the image mutex; a hit on a block nobody writes does nothing more.
//!
//! Consistency across blocks is the caller's: the storage engine drops a statement's
//! images under each of its tables' latches, so that a reader holding a latch sees a
//! table's blocks all as committed or all with the new commit.
//!
//! [`Block::read`]: super::Block::read
//! [`Block::begin_write_with`]: super::Block::begin_write_with

use super::sync::RwLockReadGuard;
use std::cell::Cell;
use std::ops::Deref;
use std::sync::Arc;

thread_local! {
    /// The writer whose uncommitted changes this thread's reads see; 0 for none.
    static READING_AS: Cell<u64> = const { Cell::new(0) };
}

/// Until the guard drops, reads on this thread see writer `writer`'s own uncommitted bytes
/// (and blocks it makes write-pending hand over images that belong to it). Nested calls
/// restore the previous writer on drop.
pub fn reading_as(writer: u64) -> ReadingAs {
    ReadingAs {
        previous: READING_AS.with(|r| r.replace(writer)),
    }
}

/// The reader id of READ UNCOMMITTED: every writer's uncommitted bytes are seen.
pub const READ_UNCOMMITTED: u64 = u64::MAX;

/// The writer this thread reads as (0: none).
pub fn current_writer() -> u64 {
    READING_AS.with(Cell::get)
}

/// See [`reading_as`].
#[must_use = "reads see the writer's bytes only while the guard lives"]
pub struct ReadingAs {
    previous: u64,
}

impl Drop for ReadingAs {
    fn drop(&mut self) {
        READING_AS.with(|r| r.set(self.previous));
    }
}

/// A block's bytes as a read sees them (see the module doc).
pub enum BlockBytes<'a> {
    /// The block's own bytes, under its content read lock.
    Live(RwLockReadGuard<'a, Box<[u8]>>),
    /// The committed content of a block another writer is changing.
    Committed(Arc<[u8]>),
}

impl Deref for BlockBytes<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            BlockBytes::Live(guard) => guard,
            BlockBytes::Committed(image) => image,
        }
    }
}

impl AsRef<[u8]> for BlockBytes<'_> {
    fn as_ref(&self) -> &[u8] {
        self
    }
}
