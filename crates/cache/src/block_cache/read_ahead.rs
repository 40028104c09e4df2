//! Read-ahead: with `key_cache_block_size` a multiple of the page, a miss reads the aligned
//! run of blocks around the one asked for in one I/O ([`BlockIo::read_run`]); the others of
//! the run enter the cache cold, unpinned and untouched ([`super::BlockCache::offer`]), so a
//! scan's read-ahead churns only the probationary part, and a block already cached (ready,
//! loading or dirty) is never replaced.
//!
//! A block read ahead must not be older than the file: a dirty copy could be written back and
//! evicted between the run's read and the block's insertion. Every block write is counted as
//! started and finished in one of [`STRIPES`] counter pairs chosen by file; a run is read
//! only while its stripe has no write in flight ([`WriteMark`]), and a block of it is
//! inserted (under its partition mutex, after the index shows no entry for it) only if no
//! write to that stripe started since. A miss's own block is claimed before the read, as
//! every miss is, and needs no mark.

use super::BlockIo;
use crate::file_cache::FileId;
use std::cell::RefCell;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

/// The longest run, in blocks (1 MiB of 16 KiB pages).
pub(crate) const MAX_RUN_BLOCKS: u64 = 64;

/// Counter pairs; files share them by hash (a shared stripe only makes read-ahead skip more).
const STRIPES: usize = 64;

#[repr(align(128))]
struct Stripe {
    started: AtomicU64,
    finished: AtomicU64,
}

static WRITES: [Stripe; STRIPES] = [const {
    Stripe {
        started: AtomicU64::new(0),
        finished: AtomicU64::new(0),
    }
}; STRIPES];

fn stripe_of(file: FileId) -> usize {
    (file.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % STRIPES
}

fn stripe(file: FileId) -> &'static Stripe {
    &WRITES[stripe_of(file)]
}

/// A file whose stripe no file below `used` shares: the counters are global, so a test that
/// needs a quiet stripe uses it while other tests write to the small file numbers.
#[cfg(test)]
pub(crate) fn file_apart_from(used: FileId) -> FileId {
    (used..)
        .find(|&f| (0..used).all(|g| stripe_of(g) != stripe_of(f)))
        .expect("some stripe is left")
}

/// Counts one block write of `file` as in flight until dropped.
pub(crate) struct Writing(&'static Stripe);

impl Drop for Writing {
    fn drop(&mut self) {
        self.0.finished.fetch_add(1, Ordering::SeqCst);
    }
}

/// Held around every `BlockIo::write_block`.
pub(crate) fn writing(file: FileId) -> Writing {
    let s = stripe(file);
    s.started.fetch_add(1, Ordering::SeqCst);
    Writing(s)
}

/// Taken before a run is read: no write of the stripe was in flight, and none started since
/// while [`WriteMark::still_quiet`] holds, so what the run read is what the file holds.
pub(crate) struct WriteMark {
    stripe: &'static Stripe,
    started: u64,
}

impl WriteMark {
    /// None while a write of the stripe is in flight. Finished is read first: equal counts
    /// then mean no write was running at that read and none started before the second.
    pub(crate) fn take(file: FileId) -> Option<WriteMark> {
        let stripe = stripe(file);
        let finished = stripe.finished.load(Ordering::SeqCst);
        let started = stripe.started.load(Ordering::SeqCst);
        (started == finished).then_some(WriteMark { stripe, started })
    }

    pub(crate) fn still_quiet(&self) -> bool {
        self.stripe.started.load(Ordering::SeqCst) == self.started
    }
}

thread_local! {
    /// The run buffer, kept per thread between misses.
    static RUN_BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// One miss's run: the blocks read with it, until offered to the cache.
pub(crate) struct ReadAhead {
    pages: u64,
    first: u64,
    asked: u64,
    block_size: usize,
    buf: Vec<u8>,
    /// Set once the run was read and the asked block verified.
    mark: Option<WriteMark>,
}

impl ReadAhead {
    /// Runs of `pages` blocks (1: none).
    pub(crate) fn new(pages: u64) -> ReadAhead {
        ReadAhead {
            pages: pages.max(1),
            first: 0,
            asked: 0,
            block_size: 0,
            buf: Vec::new(),
            mark: None,
        }
    }

    /// Fill `out` with `block`, reading its whole run when the I/O can and no write of the
    /// file is in flight; otherwise the block alone.
    pub(crate) fn read(
        &mut self,
        io: &dyn BlockIo,
        file: FileId,
        block: u64,
        out: &mut [u8],
    ) -> io::Result<()> {
        let Some(mark) = WriteMark::take(file) else {
            return io.read_block(file, block, out);
        };
        let size = out.len();
        let first = block - block % self.pages;
        let mut buf = RUN_BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
        buf.resize(self.pages as usize * size, 0);
        let read = io.read_run(file, first, &mut buf);
        self.buf = buf;
        match read {
            None => return io.read_block(file, block, out),
            Some(result) => result?,
        }
        let at = (block - first) as usize * size;
        out.copy_from_slice(&self.buf[at..at + size]);
        io.check_block(file, block, out)?;
        (self.first, self.asked, self.block_size) = (first, block, size);
        self.mark = Some(mark);
        Ok(())
    }

    /// After a `read` of the run: its other blocks, as (block, bytes, mark); none when the
    /// run was not read (the block was read alone, or its read failed).
    pub(crate) fn others(&mut self) -> impl Iterator<Item = (u64, &mut [u8], &WriteMark)> {
        let (first, asked) = (self.first, self.asked);
        let mark = self.mark.as_ref();
        let read = if mark.is_some() { self.buf.len() } else { 0 };
        self.buf[..read]
            .chunks_exact_mut(self.block_size.max(1))
            .enumerate()
            .map(move |(i, bytes)| (first + i as u64, bytes))
            .filter(move |(block, _)| *block != asked)
            .filter_map(move |(block, bytes)| Some((block, bytes, mark?)))
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        if buf.capacity() > 0 {
            RUN_BUFFER.with(|b| *b.borrow_mut() = buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Other tests write blocks of files that may share the stripe, so only what must hold
    /// whatever they do is asserted, and a quiet moment is waited for.
    #[test]
    fn a_write_in_flight_or_started_since_spoils_the_mark() {
        let file = 0xABCD_0001;
        let quiet = || loop {
            if let Some(mark) = WriteMark::take(file) {
                return mark;
            }
            std::thread::yield_now();
        };
        let mark = quiet();
        let w = writing(file);
        assert!(WriteMark::take(file).is_none(), "a write is in flight");
        assert!(!mark.still_quiet(), "a write started after the mark");
        drop(w);
        quiet();
    }
}
