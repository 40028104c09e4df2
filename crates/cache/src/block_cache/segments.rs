//! A key cache split into segments (MariaDB's `key_cache_segments`): each segment is a
//! [`BlockCache`] of its own, with its own clock hand, index, ghost history and counters, and
//! `1/n` of the cache's size. A block's segment is chosen by hashing its key, so every file's
//! blocks spread over all of them. A hit is still one atomic operation on the block's header
//! whatever the count: segments split eviction (one clock hand per segment instead of one
//! for the cache) and give `information_schema.KEY_CACHES` its per-segment rows.
//!
//! # Changing the count at run time (`SET GLOBAL key_cache_segments`)
//! [`KeyCache::resegment`] makes a new *generation* of segments, freezes the old one (it
//! loads nothing more) and publishes the new one; then it moves every block that is not
//! pinned from the old segments into the new (bytes, dirty state and all; see
//! `BlockCache::move_one`). Blocks pinned meanwhile (storage keeps the pages a statement
//! changes pinned until the statement ends) stay in the old generation, where lookups still find them, and move
//! on later passes ([`KeyCache::continue_moving`], which each round of storage's background
//! write-back calls). One page is never cached in
//! both generations: a miss in the new generation loads only after seeing, under the old
//! segment's partition mutex, that the old one does not hold it, and a frozen segment loads
//! nothing. Requests never go around the cache to disk meanwhile. The old generation's slot
//! headers (128 bytes per block; their buffers move with the blocks) stay until the cache is
//! dropped, as a thread may still hold a reference to them. Status counters carry over.
//! MariaDB instead writes every dirty block and rebuilds the cache empty.
//!
//! Each segment keeps at least [`SHARD_COUNT`] blocks, so a small cache gets fewer segments
//! than asked for.

use super::{
    read_ahead::{ReadAhead, MAX_RUN_BLOCKS},
    Block, BlockCache, BlockCacheStats, BlockIo, Fetch, Fill, Prefetch, PARTITIONS, SHARD_COUNT,
};
use crate::file_cache::FileId;
use crate::sync::{AtomicPtr, AtomicU64, Mutex, Ordering};
use std::io;
use std::sync::Arc;

/// The most segments a cache may have (MariaDB's limit for `key_cache_segments`).
pub const MAX_SEGMENTS: usize = 64;

/// One set of segments.
struct Generation {
    segments: Box<[BlockCache]>,
    /// Whether `key_cache_segments` was above 0 when it was made: KEY_CACHES then shows a
    /// row per segment and a total row, as MariaDB does for a partitioned cache.
    segmented: bool,
    /// The generation this one replaced, while it still holds blocks (null after).
    older: AtomicPtr<Generation>,
}

impl Generation {
    fn new(
        bytes: usize,
        block_size: usize,
        asked: u64,
        io: &Arc<dyn BlockIo>,
        older: *mut Generation,
    ) -> Generation {
        let count = KeyCache::segment_count(bytes, block_size, asked);
        // The segments share one cache's index partitions, so that as few partition headers
        // stay hot as in one cache.
        let partitions = (PARTITIONS / count).max(1);
        Generation {
            segments: (0..count)
                .map(|_| {
                    BlockCache::with_partitions(
                        bytes / count,
                        block_size,
                        partitions,
                        Arc::clone(io),
                    )
                })
                .collect(),
            segmented: asked > 0,
            older: AtomicPtr::new(older),
        }
    }

    /// The segment holding a block. A hash independent of the segments' own index hash, so
    /// that one segment's blocks still spread over all its index partitions.
    #[inline]
    fn segment_of(&self, file: FileId, block: u64) -> &BlockCache {
        let n = self.segments.len();
        if n == 1 {
            return &self.segments[0];
        }
        let h =
            (file.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ block).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.segments[(((h >> 32) * n as u64) >> 32) as usize]
    }

    #[inline]
    fn older(&self) -> Option<&Generation> {
        let p = self.older.load(Ordering::Acquire);
        // SAFETY: generations are freed only when the key cache is dropped.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    fn used_blocks(&self) -> u64 {
        self.segments.iter().map(|s| s.used()).sum()
    }
}

/// See the module documentation.
pub struct KeyCache {
    current: AtomicPtr<Generation>,
    /// Every generation made, freed in Drop.
    made: Mutex<Vec<*mut Generation>>,
    /// Serialises what moves blocks (re-segmenting, resize) with what must meet every block
    /// once and cannot run again (discard, clear; a flush runs again instead, see
    /// `flush_every`).
    moving: Mutex<()>,
    /// Request counters of generations no longer attached (status counters carry over).
    carried: Mutex<BlockCacheStats>,
    block_size: usize,
    /// Blocks a miss reads as one run (`key_cache_block_size` / the page; 1: no read-ahead).
    run_blocks: AtomicU64,
    io: Arc<dyn BlockIo>,
}

// SAFETY: the generations are owned by the cache and freed only in Drop; all shared state
// is atomic or behind a mutex.
unsafe impl Send for KeyCache {}
unsafe impl Sync for KeyCache {}

impl Drop for KeyCache {
    fn drop(&mut self) {
        for g in self.made.lock().drain(..) {
            // SAFETY: made by Box::into_raw, unreachable once the cache is dropped.
            unsafe { drop(Box::from_raw(g)) };
        }
    }
}

impl KeyCache {
    /// A cache of `bytes` in `asked` segments (0 = one unsegmented cache).
    pub fn new(bytes: usize, block_size: usize, asked: u64, io: Arc<dyn BlockIo>) -> KeyCache {
        let first = Box::into_raw(Box::new(Generation::new(
            bytes,
            block_size,
            asked,
            &io,
            std::ptr::null_mut(),
        )));
        KeyCache {
            current: AtomicPtr::new(first),
            made: Mutex::new(vec![first]),
            moving: Mutex::new(()),
            carried: Mutex::new(BlockCacheStats::default()),
            block_size: block_size.max(1),
            run_blocks: AtomicU64::new(1),
            io,
        }
    }

    /// `key_cache_block_size`: misses read aligned runs of `bytes` (whole blocks, at least
    /// one) in one I/O; the run's other blocks enter cold (see `read_ahead`).
    pub fn set_read_unit(&self, bytes: u64) {
        let blocks = (bytes / self.block_size as u64).clamp(1, MAX_RUN_BLOCKS);
        self.run_blocks.store(blocks, Ordering::Relaxed);
    }

    /// The bytes a miss reads (see [`KeyCache::set_read_unit`]).
    pub fn read_unit(&self) -> u64 {
        self.run_blocks.load(Ordering::Relaxed) * self.block_size as u64
    }

    #[inline]
    fn generation(&self) -> &Generation {
        // SAFETY: generations are freed only in Drop.
        unsafe { &*self.current.load(Ordering::Acquire) }
    }

    /// Segments for `asked`: at most [`MAX_SEGMENTS`], each of at least [`SHARD_COUNT`] blocks.
    pub fn segment_count(bytes: usize, block_size: usize, asked: u64) -> usize {
        let blocks = bytes / block_size.max(1);
        usize::try_from(asked)
            .unwrap_or(MAX_SEGMENTS)
            .min(MAX_SEGMENTS)
            .min(blocks / SHARD_COUNT)
            .max(1)
    }

    /// The segments, in order (KEY_CACHES numbers them from 1).
    pub fn segments(&self) -> &[BlockCache] {
        &self.generation().segments
    }

    /// Whether the cache was made with `key_cache_segments` above 0.
    pub fn is_segmented(&self) -> bool {
        self.generation().segmented
    }

    /// The segment count as KEY_CACHES shows it: 0 for an unsegmented cache.
    pub fn segments_shown(&self) -> u64 {
        let g = self.generation();
        if g.segmented {
            g.segments.len() as u64
        } else {
            0
        }
    }

    /// Whether a cache of `bytes` made now with `asked` segments would be split as this one
    /// is (a small cache gets fewer segments than asked, see [`KeyCache::segment_count`]).
    pub fn is_made_with(&self, bytes: usize, asked: u64) -> bool {
        let would_show = match asked {
            0 => 0,
            _ => Self::segment_count(bytes, self.block_size, asked) as u64,
        };
        would_show == self.segments_shown()
    }

    /// Split the cache of `bytes` into `asked` segments now, keeping its blocks (see the
    /// module documentation). Fails, changing nothing, while blocks of the previous
    /// re-segmentation are still pinned in the generation before.
    pub fn resegment(&self, bytes: usize, asked: u64) -> io::Result<()> {
        let _moving = self.moving.lock();
        let gen = self.generation();
        self.move_pass(gen);
        if let Some(older) = gen.older() {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "{} blocks of the last re-segmentation are still pinned by statements in \
                     progress: set key_cache_segments again once they end",
                    older.used_blocks()
                ),
            ));
        }
        if self.is_made_with(bytes, asked) {
            return Ok(());
        }
        let old = self.current.load(Ordering::Acquire);
        let new = Generation::new(bytes, self.block_size, asked, &self.io, old);
        let (division_limit, age_threshold) = (
            gen.segments[0].division_limit(),
            gen.segments[0].age_threshold(),
        );
        for s in new.segments.iter() {
            s.set_division_limit(division_limit);
            s.set_age_threshold(age_threshold);
        }
        // Frozen before the new generation is published: a miss that still finds the old
        // one current must not load there once a miss in the new one may have checked it.
        for s in gen.segments.iter() {
            s.freeze();
        }
        let new = Box::into_raw(Box::new(new));
        self.made.lock().push(new);
        self.current.store(new, Ordering::Release);
        // SAFETY: just made, freed only in Drop.
        self.move_pass(unsafe { &*new });
        Ok(())
    }

    /// Moving lock held: move what can move out of the older generation, and detach it once
    /// empty (its request counters carry over).
    fn move_pass(&self, gen: &Generation) {
        let Some(older) = gen.older() else { return };
        for s in older.segments.iter() {
            s.move_blocks_to(|file, block| gen.segment_of(file, block));
        }
        if older.used_blocks() == 0 {
            let mut carried = self.carried.lock();
            let old = Self::sum(older.segments.iter().map(|s| s.stats()));
            *carried = Self::sum([*carried, Self::requests_only(old)]);
            gen.older.store(std::ptr::null_mut(), Ordering::Release);
        }
    }

    /// Continue a re-segmentation whose blocks were pinned (a background round); never
    /// waits for another mover.
    pub fn continue_moving(&self) {
        if let Some(_moving) = self.moving.try_lock() {
            self.move_pass(self.generation());
        }
    }

    /// Whether blocks of a re-segmentation are still waiting to move.
    pub fn is_moving(&self) -> bool {
        self.generation().older().is_some()
    }

    // ---- the block cache's operations, routed by key ----

    pub fn get(&self, file: FileId, block: u64) -> io::Result<Block> {
        self.fetch(file, block, Fill::Read)
    }
    pub fn create(&self, file: FileId, block: u64) -> io::Result<Block> {
        self.fetch(file, block, Fill::Zero)
    }

    #[inline]
    fn fetch(&self, file: FileId, block: u64, fill: Fill) -> io::Result<Block> {
        let run_blocks = self.run_blocks.load(Ordering::Relaxed);
        if run_blocks > 1 && fill == Fill::Read {
            return self.fetch_reading_ahead(file, block, run_blocks);
        }
        self.fetch_plain(file, block, fill)
    }

    #[inline]
    fn fetch_plain(&self, file: FileId, block: u64, fill: Fill) -> io::Result<Block> {
        loop {
            let gen = self.generation();
            let older = gen.older().map(|o| o.segment_of(file, block));
            match gen
                .segment_of(file, block)
                .fetch(file, block, fill, older)?
            {
                Fetch::Got(b) => return Ok(b),
                // Frozen: a newer generation is being published; Elsewhere: the older
                // generation holds the block, unless it moved meanwhile.
                Fetch::Frozen => crate::sync::yield_now(),
                Fetch::Elsewhere => {
                    if let Some(b) = older.and_then(|o| o.pin_cached(file, block, fill)) {
                        return Ok(b);
                    }
                    crate::sync::yield_now();
                }
            }
        }
    }

    /// `fetch` of a read with read-ahead (out of line: the plain hit stays small). While a
    /// re-segmentation moves blocks, or once this generation is frozen, it reads the block
    /// alone: an offer would have to check the older generation too.
    #[inline(never)]
    fn fetch_reading_ahead(&self, file: FileId, block: u64, run_blocks: u64) -> io::Result<Block> {
        let gen = self.generation();
        if gen.older().is_none() {
            let mut run = ReadAhead::new(run_blocks);
            if let Fetch::Got(b) = gen
                .segment_of(file, block)
                .fetch_ahead(file, block, &mut run)?
            {
                for (other, bytes, mark) in run.others() {
                    gen.segment_of(file, other).offer(file, other, bytes, mark);
                }
                return Ok(b);
            }
        }
        self.fetch_plain(file, block, Fill::Read)
    }

    /// See [`BlockCache::prefetch`] (the current generation only: a block still in an older
    /// one is fetched without the hint).
    pub fn prefetch(&self, file: FileId, block: u64, step: Prefetch) {
        self.generation()
            .segment_of(file, block)
            .prefetch(file, block, step);
    }

    pub fn peek(&self, file: FileId, block: u64) -> Option<Block> {
        let gen = self.generation();
        gen.segment_of(file, block).peek(file, block).or_else(|| {
            gen.older()
                .and_then(|o| o.segment_of(file, block).peek(file, block))
        })
    }
    pub fn mark_dirty(&self, block: &Block, lsn: u64) {
        let gen = self.generation();
        let (file, page) = (block.file(), block.block());
        let segment = gen.segment_of(file, page);
        // A pinned block cannot move: if the new generation does not hold it, the older does.
        match gen.older() {
            Some(older) if !segment.holds(block) => {
                older.segment_of(file, page).mark_dirty(block, lsn)
            }
            _ => segment.mark_dirty(block, lsn),
        }
    }

    /// Every segment of `gen`'s older generation (while it holds blocks), then `gen`'s.
    fn all_segments(gen: &Generation) -> impl Iterator<Item = &BlockCache> {
        gen.older()
            .into_iter()
            .flat_map(|o| o.segments.iter())
            .chain(gen.segments.iter())
    }

    /// Write back with `flush` in every segment. Blocks move only from the older generation
    /// to the current one, which is flushed second, so a pass misses none; it runs again
    /// if a re-segmentation published a newer generation meanwhile. (No lock: a flush waits
    /// for uncommitted writers, which may themselves flush.)
    fn flush_every(&self, flush: impl Fn(&BlockCache) -> io::Result<()>) -> io::Result<()> {
        loop {
            let gen = self.generation();
            Self::all_segments(gen).try_for_each(&flush)?;
            if std::ptr::eq(gen, self.generation()) {
                return Ok(());
            }
        }
    }

    // ---- operations on every segment ----

    pub fn flush_file(&self, file: FileId) -> io::Result<()> {
        self.flush_every(|s| s.flush_file(file))
    }
    pub fn flush_all(&self) -> io::Result<()> {
        self.flush_every(|s| s.flush_all())
    }
    pub fn discard_file(&self, file: FileId) {
        let _moving = self.moving.lock();
        Self::all_segments(self.generation()).for_each(|s| s.discard_file(file))
    }
    pub fn clear(&self) {
        let _moving = self.moving.lock();
        Self::all_segments(self.generation()).for_each(|s| s.clear())
    }
    /// Each segment gets `1/n` of `bytes`; every segment is resized even when one fails.
    pub fn resize(&self, bytes: usize) -> io::Result<()> {
        let _moving = self.moving.lock();
        let segments = &self.generation().segments;
        let per_segment = bytes / segments.len();
        let results: Vec<io::Result<()>> = segments.iter().map(|s| s.resize(per_segment)).collect();
        results.into_iter().collect()
    }
    pub fn set_division_limit(&self, percent: u64) {
        let _moving = self.moving.lock();
        self.segments()
            .iter()
            .for_each(|s| s.set_division_limit(percent))
    }
    pub fn set_age_threshold(&self, percent: u64) {
        let _moving = self.moving.lock();
        self.segments()
            .iter()
            .for_each(|s| s.set_age_threshold(percent))
    }
    /// Up to `max` blocks over all segments, each segment's share written in order.
    pub fn write_back_ahead(&self, max: usize) -> io::Result<usize> {
        let segments = &self.generation().segments;
        let share = max.div_ceil(segments.len());
        segments
            .iter()
            .try_fold(0, |cleaned, s| Ok(cleaned + s.write_back_ahead(share)?))
    }
    pub fn block_size(&self) -> usize {
        self.block_size
    }
    /// Capacity in blocks, all segments together.
    pub fn capacity_blocks(&self) -> usize {
        self.generation()
            .segments
            .iter()
            .map(|s| s.capacity_blocks())
            .sum()
    }
    /// The counters of all segments, summed (with those of generations replaced before).
    pub fn stats(&self) -> BlockCacheStats {
        let carried = self.carried.lock();
        let gen = self.generation();
        let current = Self::sum(gen.segments.iter().map(|s| s.stats()));
        let older = Self::sum(
            gen.older()
                .into_iter()
                .flat_map(|o| o.segments.iter().map(|s| s.stats())),
        );
        BlockCacheStats {
            // The room is the current generation's, less what the blocks still to move take.
            key_blocks_unused: current
                .key_blocks_unused
                .saturating_sub(older.key_blocks_used),
            ..Self::sum([current, older, *carried])
        }
    }

    fn sum(all: impl IntoIterator<Item = BlockCacheStats>) -> BlockCacheStats {
        all.into_iter()
            .fold(BlockCacheStats::default(), |a, b| BlockCacheStats {
                key_read_requests: a.key_read_requests + b.key_read_requests,
                key_reads: a.key_reads + b.key_reads,
                key_write_requests: a.key_write_requests + b.key_write_requests,
                key_writes: a.key_writes + b.key_writes,
                key_blocks_used: a.key_blocks_used + b.key_blocks_used,
                key_blocks_unused: a.key_blocks_unused + b.key_blocks_unused,
                key_blocks_not_flushed: a.key_blocks_not_flushed + b.key_blocks_not_flushed,
                key_blocks_warm: a.key_blocks_warm + b.key_blocks_warm,
                overflows: a.overflows + b.overflows,
            })
    }

    /// The counters that count events (not blocks held now).
    fn requests_only(s: BlockCacheStats) -> BlockCacheStats {
        BlockCacheStats {
            key_read_requests: s.key_read_requests,
            key_reads: s.key_reads,
            key_write_requests: s.key_write_requests,
            key_writes: s.key_writes,
            overflows: s.overflows,
            ..BlockCacheStats::default()
        }
    }

    /// Test support: every segment's counters recounted, every block in its segment, and
    /// no block in both generations.
    #[cfg(any(test, feature = "validate"))]
    pub fn validate(&self) {
        let gen = self.generation();
        let mut seen = std::collections::HashSet::new();
        for g in gen.older().into_iter().chain([gen]) {
            for s in g.segments.iter() {
                s.validate();
                for (file, block) in s.cached_keys() {
                    assert!(
                        std::ptr::eq(g.segment_of(file, block), s),
                        "block ({file}, {block}) in the wrong segment"
                    );
                    assert!(
                        seen.insert((file, block)),
                        "block ({file}, {block}) cached twice"
                    );
                }
            }
        }
    }
}

/// The disk of the tests and schedules below: each page holds its key and a version the
/// test wrote.
#[cfg(test)]
mod versioned_io {
    use super::{BlockIo, FileId};
    use std::collections::HashMap;
    use std::io;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[derive(Default)]
    pub(super) struct VersionedIo {
        pub(super) disk: parking_lot::Mutex<HashMap<(FileId, u64), u64>>,
        /// Blocks read (the schedules do not look).
        #[cfg_attr(feature = "shuttle", allow(dead_code))]
        pub(super) reads: AtomicU64,
    }

    impl BlockIo for VersionedIo {
        fn read_block(&self, file: FileId, block: u64, buf: &mut [u8]) -> io::Result<()> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            buf.fill(0);
            buf[..8].copy_from_slice(&(file * 1_000_000 + block).to_le_bytes());
            let version = self.disk.lock().get(&(file, block)).copied().unwrap_or(0);
            buf[8..16].copy_from_slice(&version.to_le_bytes());
            Ok(())
        }
        fn write_block(&self, file: FileId, block: u64, buf: &[u8]) -> io::Result<()> {
            assert_eq!(
                buf[..8],
                (file * 1_000_000 + block).to_le_bytes(),
                "page of another key"
            );
            let version = u64::from_le_bytes(buf[8..16].try_into().unwrap());
            self.disk.lock().insert((file, block), version);
            Ok(())
        }
        fn flush_log(&self, _: u64) -> io::Result<()> {
            Ok(())
        }
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::versioned_io::VersionedIo;
    use super::*;
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicU64, Ordering};

    const PAGE: usize = 64;

    /// A cache of `blocks` blocks in `segments` segments (as asked) over a new
    /// [`VersionedIo`].
    fn versioned_cache(blocks: usize, segments: u64) -> (Arc<VersionedIo>, KeyCache) {
        let io = Arc::new(VersionedIo::default());
        let cache = KeyCache::new(blocks * PAGE, PAGE, segments, io.clone());
        (io, cache)
    }

    #[test]
    fn small_caches_get_fewer_segments_and_zero_means_one_unsegmented() {
        assert_eq!(KeyCache::segment_count(1 << 30, PAGE, 0), 1);
        assert_eq!(KeyCache::segment_count(1 << 30, PAGE, 4), 4);
        assert_eq!(KeyCache::segment_count(1 << 30, PAGE, 1000), MAX_SEGMENTS);
        // 256 blocks hold four segments of SHARD_COUNT blocks, not eight.
        assert_eq!(KeyCache::segment_count(256 * PAGE, PAGE, 8), 4);
        assert_eq!(KeyCache::segment_count(10 * PAGE, PAGE, 8), 1);
        let (io, cache) = versioned_cache(256, 8);
        assert_eq!(cache.segments().len(), 4);
        assert!(cache.is_segmented());
        assert_eq!(cache.capacity_blocks(), 256);
        assert_eq!(cache.segments_shown(), 4);
        // Asking 8 or 4 of 256 blocks makes the same 4 segments; 2 or 0 would not.
        assert!(cache.is_made_with(256 * PAGE, 8) && cache.is_made_with(256 * PAGE, 4));
        assert!(!cache.is_made_with(256 * PAGE, 2) && !cache.is_made_with(256 * PAGE, 0));
        let plain = KeyCache::new(256 * PAGE, PAGE, 0, io);
        assert!(!plain.is_segmented());
        assert_eq!(plain.segments_shown(), 0);
        assert!(plain.is_made_with(256 * PAGE, 0) && !plain.is_made_with(256 * PAGE, 1));
    }

    #[test]
    fn blocks_spread_over_segments_and_counters_add_up() {
        let (io, cache) = versioned_cache(1024, 4);
        for file in 1..=4 {
            for block in 0..100 {
                let b = cache.get(file, block).unwrap();
                assert_eq!(b.read()[..8], (file * 1_000_000 + block).to_le_bytes());
            }
        }
        let per_segment: Vec<BlockCacheStats> =
            cache.segments().iter().map(|s| s.stats()).collect();
        // 400 blocks over 4 segments: each gets a share, none gets them all.
        for s in &per_segment {
            assert!((50..=150).contains(&s.key_blocks_used), "{per_segment:?}");
        }
        let total = cache.stats();
        assert_eq!(total.key_blocks_used, 400);
        assert_eq!(total.key_read_requests, 400);
        assert_eq!(total.key_reads, 400);
        assert_eq!(total.key_blocks_used + total.key_blocks_unused, 1024);
        assert_eq!(
            per_segment.iter().map(|s| s.key_read_requests).sum::<u64>(),
            400
        );
        // Hits go to the segment that holds the block: no second read.
        drop(cache.get(2, 7).unwrap());
        assert_eq!(io.reads.load(Ordering::Relaxed), 400);
        cache.validate();
    }

    #[test]
    fn writes_flush_and_resize_follow_the_block_to_its_segment() {
        let (io, cache) = versioned_cache(512, 4);
        for block in 0..160 {
            write_version(&cache, &cache.get(1, block).unwrap(), block + 1);
        }
        assert_eq!(cache.stats().key_blocks_not_flushed, 160);
        assert_eq!(cache.stats().key_write_requests, 160);
        cache.flush_file(1).unwrap();
        assert_eq!(cache.stats().key_blocks_not_flushed, 0);
        assert_eq!(io.disk.lock().len(), 160);
        // Shrinking splits the new size between the segments and keeps what fits (about 40
        // blocks per segment of 64).
        cache.resize(256 * PAGE).unwrap();
        assert_eq!(cache.capacity_blocks(), 256);
        cache.validate();
        let reads = io.reads.load(Ordering::Relaxed);
        for block in 0..160 {
            let b = cache.get(1, block).unwrap();
            assert_eq!(b.read()[8..16], (block + 1).to_le_bytes());
        }
        assert_eq!(
            io.reads.load(Ordering::Relaxed),
            reads,
            "no block that fit was re-read after the shrink"
        );
        cache.discard_file(1);
        assert_eq!(cache.stats().key_blocks_used, 0);
        cache.validate();
    }

    fn write_version(cache: &KeyCache, b: &Block, version: u64) {
        b.begin_write();
        b.write()[8..16].copy_from_slice(&version.to_le_bytes());
        cache.mark_dirty(b, 0);
        b.end_write();
    }

    fn version(b: &Block) -> u64 {
        u64::from_le_bytes(b.read()[8..16].try_into().unwrap())
    }

    #[test]
    fn resegmenting_keeps_every_block_its_bytes_and_its_dirty_state() {
        let (io, cache) = versioned_cache(1024, 4);
        for block in 0..300 {
            let b = cache.get(1, block).unwrap();
            if block % 3 == 0 {
                write_version(&cache, &b, block + 1);
            }
        }
        let reads = io.reads.load(Ordering::Relaxed);
        for (asked, shown) in [(0, 0), (8, 8), (64, 16), (1, 1)] {
            cache.resegment(1024 * PAGE, asked).unwrap();
            assert_eq!(cache.segments_shown(), shown);
            assert!(!cache.is_moving(), "nothing was pinned: every block moved");
            assert_eq!(cache.capacity_blocks(), 1024);
            cache.validate();
            let s = cache.stats();
            assert_eq!(s.key_blocks_used, 300);
            assert_eq!(s.key_blocks_unused, 724);
            assert_eq!(s.key_blocks_not_flushed, 100);
            assert_eq!(s.key_read_requests, 300, "counters carry over");
        }
        for block in 0..300 {
            let b = cache.peek(1, block).expect("a block was dropped");
            assert_eq!(version(&b), if block % 3 == 0 { block + 1 } else { 0 });
        }
        assert_eq!(
            io.reads.load(Ordering::Relaxed),
            reads,
            "a block was re-read"
        );
        cache.flush_all().unwrap();
        assert_eq!(io.disk.lock().len(), 100);
        assert_eq!(io.disk.lock()[&(1, 99)], 100);
        cache.validate();
    }

    #[test]
    fn a_pinned_block_stays_found_where_it_is_and_moves_once_released() {
        let (io, cache) = versioned_cache(512, 0);
        for block in 0..50 {
            drop(cache.get(1, block).unwrap());
        }
        // An uncommitted change keeps its block pinned and write-pending across the SET.
        let held = cache.get(1, 7).unwrap();
        held.begin_write();
        held.write()[8..16].copy_from_slice(&5u64.to_le_bytes());
        cache.resegment(512 * PAGE, 4).unwrap();
        assert_eq!(cache.segments_shown(), 4);
        assert!(cache.is_moving());
        cache.validate();
        // Found in the old generation: the same block, no read, no second copy.
        let reads = io.reads.load(Ordering::Relaxed);
        let again = cache.get(1, 7).unwrap();
        assert_eq!(version(&again), 5);
        drop(again);
        assert_eq!(io.reads.load(Ordering::Relaxed), reads);
        let err = cache.resegment(512 * PAGE, 2).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        assert_eq!(cache.segments_shown(), 4, "a refused count changes nothing");
        // The commit marks it dirty where it lives; released, it moves on the next round.
        cache.mark_dirty(&held, 0);
        held.end_write();
        drop(held);
        assert_eq!(cache.stats().key_blocks_not_flushed, 1);
        cache.continue_moving();
        assert!(!cache.is_moving());
        cache.validate();
        let s = cache.stats();
        assert_eq!((s.key_blocks_used, s.key_blocks_not_flushed), (50, 1));
        assert_eq!(version(&cache.get(1, 7).unwrap()), 5);
        assert_eq!(io.reads.load(Ordering::Relaxed), reads);
        cache.flush_file(1).unwrap();
        assert_eq!(io.disk.lock()[&(1, 7)], 5);
        cache.resegment(512 * PAGE, 2).unwrap();
        assert_eq!(cache.segments_shown(), 2);
        cache.validate();
    }

    /// Readers, writers (holding blocks write-pending across yields) and a thread that
    /// re-segments the cache over and over: no page of another key, no version going back,
    /// no committed version lost, no block cached twice.
    #[test]
    fn resegmenting_under_concurrent_readers_and_writers_loses_nothing() {
        const BLOCKS: u64 = 200;
        let (io, cache) = versioned_cache(128, 2);
        let committed: Vec<AtomicU64> = (0..BLOCKS).map(|_| AtomicU64::new(0)).collect();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let resegments = AtomicU64::new(0);
        std::thread::scope(|s| {
            let (cache, committed, stop) = (&cache, &committed, &stop);
            for writer in 0..2u64 {
                s.spawn(move || {
                    let mut k = writer;
                    while !stop.load(Ordering::Relaxed) {
                        let b = cache.get(1, k).unwrap();
                        let v = version(&b);
                        assert_eq!(
                            v,
                            committed[k as usize].load(Ordering::SeqCst),
                            "lost write"
                        );
                        b.begin_write();
                        b.write()[8..16].copy_from_slice(&(v + 1).to_le_bytes());
                        std::thread::yield_now();
                        cache.mark_dirty(&b, 0);
                        committed[k as usize].store(v + 1, Ordering::SeqCst);
                        b.end_write();
                        k = (k + 2 + 2 * (v % 7)) % BLOCKS;
                    }
                });
            }
            for reader in 0..2u64 {
                s.spawn(move || {
                    let mut seen = vec![0u64; BLOCKS as usize];
                    let mut k = reader;
                    while !stop.load(Ordering::Relaxed) {
                        let b = cache.get(1, k).unwrap();
                        assert_eq!(b.read()[..8], (1_000_000 + k).to_le_bytes());
                        let v = version(&b);
                        assert!(
                            v >= seen[k as usize],
                            "block {k}: version {v} after {}",
                            seen[k as usize]
                        );
                        seen[k as usize] = v;
                        k = (k * 7 + 3) % BLOCKS;
                    }
                });
            }
            let resegments = &resegments;
            s.spawn(move || {
                for asked in [0u64, 2, 1, 0, 2, 1].iter().cycle().take(60) {
                    if cache.resegment(128 * PAGE, *asked).is_ok() {
                        resegments.fetch_add(1, Ordering::Relaxed);
                    }
                    cache.continue_moving();
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                stop.store(true, Ordering::Relaxed);
            });
        });
        assert!(
            resegments.load(Ordering::Relaxed) >= 5,
            "too few re-segmentations ran"
        );
        cache.continue_moving();
        assert!(!cache.is_moving());
        cache.validate();
        cache.flush_all().unwrap();
        for k in 0..BLOCKS {
            let want = committed[k as usize].load(Ordering::SeqCst);
            assert_eq!(version(&cache.get(1, k).unwrap()), want);
            assert_eq!(io.disk.lock().get(&(1, k)).copied().unwrap_or(0), want);
        }
    }

    mod model {
        use super::*;
        use proptest::prelude::*;

        #[derive(Debug, Clone)]
        enum Op {
            Get(u64),
            Write(u64),
            Flush,
            Resize(usize),
            Discard,
            Resegment(u64),
            /// Keep a block pinned across the next operations (at most a few).
            Hold(u64),
            ReleaseAll,
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                6 => (0..600u64).prop_map(Op::Get),
                3 => (0..600u64).prop_map(Op::Write),
                1 => Just(Op::Flush),
                1 => (64..800usize).prop_map(Op::Resize),
                1 => Just(Op::Discard),
                2 => (0..6u64).prop_map(Op::Resegment),
                1 => (0..600u64).prop_map(Op::Hold),
                1 => Just(Op::ReleaseAll),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
            /// A segmented cache against a map of key -> version: every get returns the
            /// model's version, every block sits in the segment its key hashes to, and the
            /// summed counters match the requests made.
            #[test]
            fn segmented_cache_matches_the_reference_model(
                asked in 0..6u64,
                ops in proptest::collection::vec(op(), 1..150),
            ) {
                let (io, cache) = versioned_cache(256, asked);
                let mut model: HashMap<(FileId, u64), u64> = HashMap::new();
                let (mut gets, mut writes) = (0u64, 0u64);
                let mut held: Vec<Block> = Vec::new();
                let mut size = 256 * PAGE;
                for op in ops {
                    match op {
                        Op::Resegment(asked) => match cache.resegment(size, asked) {
                            Ok(()) => prop_assert!(cache.is_made_with(size, asked)),
                            Err(e) => {
                                prop_assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
                                prop_assert!(cache.is_moving() && !held.is_empty());
                            }
                        },
                        Op::Hold(k) if held.len() < 3 => {
                            gets += 1;
                            held.push(cache.get(1 + k % 3, k).unwrap());
                        }
                        Op::Hold(_) => {}
                        Op::ReleaseAll => {
                            held.clear();
                            cache.continue_moving();
                            prop_assert!(!cache.is_moving());
                        }
                        Op::Get(k) | Op::Write(k) => {
                            let key = (1 + k % 3, k);
                            gets += 1;
                            let b = cache.get(key.0, key.1).unwrap();
                            let want = model.get(&key).copied().unwrap_or(0);
                            prop_assert_eq!(&b.read()[8..16], &want.to_le_bytes()[..]);
                            if let Op::Write(_) = op {
                                writes += 1;
                                b.begin_write();
                                b.write()[8..16].copy_from_slice(&(want + 1).to_le_bytes());
                                cache.mark_dirty(&b, 0);
                                b.end_write();
                                model.insert(key, want + 1);
                            }
                        }
                        Op::Flush => cache.flush_all().unwrap(),
                        Op::Resize(blocks) => {
                            size = blocks * PAGE;
                            cache.resize(size).unwrap()
                        }
                        Op::Discard => {
                            cache.discard_file(1);
                            io.disk.lock().retain(|k, _| k.0 != 1);
                            model.retain(|k, _| k.0 != 1);
                        }
                    }
                    cache.validate();
                    let s = cache.stats();
                    prop_assert_eq!(s.key_read_requests, gets);
                    prop_assert_eq!(s.key_write_requests, writes);
                    // Blocks pinned in an older generation may not fit the current one yet.
                    let room = s.key_blocks_used + s.key_blocks_unused;
                    let cap = cache.capacity_blocks() as u64;
                    prop_assert!(room >= cap && room <= cap + held.len() as u64, "{:?} of {}", s, cap);
                }
                cache.flush_all().unwrap();
                prop_assert_eq!(cache.stats().key_blocks_not_flushed, 0);
                for (key, version) in &model {
                    prop_assert_eq!(io.disk.lock().get(key).copied(), Some(*version));
                }
            }
        }
    }
}

/// Schedule exploration of a re-segmentation (`--features shuttle`): a writer commits a new
/// version of a block while a reader checks that versions never go back, and a third thread
/// re-segments the cache twice under them, moving the blocks they pin or not.
#[cfg(all(test, feature = "shuttle"))]
mod schedules {
    use super::versioned_io::VersionedIo;
    use super::*;

    const PAGE: usize = 64;

    fn read(cache: &KeyCache, block: u64) -> u64 {
        let b = cache.get(1, block).unwrap();
        let d = b.read();
        assert_eq!(
            d[..8],
            (1_000_000 + block).to_le_bytes(),
            "page of another key"
        );
        u64::from_le_bytes(d[8..16].try_into().unwrap())
    }

    fn scenario() {
        let io = Arc::new(VersionedIo::default());
        let cache = Arc::new(KeyCache::new(2 * SHARD_COUNT * PAGE, PAGE, 2, io.clone()));
        for block in 0..3 {
            drop(cache.get(1, block).unwrap());
        }
        let writer = {
            let cache = cache.clone();
            shuttle::thread::spawn(move || {
                for version in 1..=2u64 {
                    let b = cache.get(1, 0).unwrap();
                    b.begin_write();
                    b.write()[8..16].copy_from_slice(&version.to_le_bytes());
                    cache.mark_dirty(&b, 0);
                    b.end_write();
                    drop(b);
                    drop(cache.get(1, 3 + version).unwrap());
                }
            })
        };
        let reader = {
            let cache = cache.clone();
            shuttle::thread::spawn(move || {
                let mut last = 0;
                for _ in 0..3 {
                    let v = read(&cache, 0);
                    assert!(v >= last, "version {v} after {last}: a stale copy");
                    last = v;
                    read(&cache, 1);
                }
            })
        };
        let mover = {
            let cache = cache.clone();
            shuttle::thread::spawn(move || {
                for asked in [0, 2] {
                    // Refused only while a pin of the last one is still held.
                    if let Err(e) = cache.resegment(2 * SHARD_COUNT * PAGE, asked) {
                        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
                    }
                }
            })
        };
        writer.join().unwrap();
        reader.join().unwrap();
        mover.join().unwrap();
        cache.continue_moving();
        assert!(!cache.is_moving());
        cache.validate();
        assert_eq!(read(&cache, 0), 2, "the committed version was lost");
        cache.flush_all().unwrap();
        assert_eq!(io.disk.lock()[&(1, 0)], 2);
        assert_eq!(cache.stats().key_blocks_not_flushed, 0);
        cache.validate();
    }

    #[test]
    fn resegmenting_under_readers_and_writers_under_random_and_pct_schedules() {
        crate::sync::explore_schedules(scenario, 150, 150);
    }
}
