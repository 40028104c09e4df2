//! A key cache split into segments (MariaDB's `key_cache_segments`): each segment is a
//! [`BlockCache`] of its own, with its own clock hand, index, ghost history and counters, and
//! `1/n` of the cache's size. A block's segment is chosen by hashing its key, so every file's
//! blocks spread over all of them. A hit is still one atomic operation on the block's header
//! whatever the count: segments split eviction (one clock hand per segment instead of one
//! for the cache) and give `information_schema.KEY_CACHES` its per-segment rows.
//!
//! The count is fixed when the cache is made. Moving blocks between segments while other
//! threads hold pins could leave one page in two segments, so a new count takes effect when
//! the cache is next made (see `KeyCaches::configure` and `KeyCaches::set_size`): the
//! default cache at the next start, a named cache at once while no table uses it, else
//! when its size is set again after it was destroyed. Each segment keeps at least
//! [`SHARD_COUNT`] blocks, so a small cache gets fewer segments than asked for.

use super::{Block, BlockCache, BlockCacheStats, BlockIo, PARTITIONS, SHARD_COUNT};
use crate::file_cache::FileId;
use std::io;
use std::sync::Arc;

/// The most segments a cache may have (MariaDB's limit for `key_cache_segments`).
pub const MAX_SEGMENTS: usize = 64;

/// See the module documentation.
pub struct KeyCache {
    segments: Box<[BlockCache]>,
    /// Whether `key_cache_segments` was above 0 when the cache was made: KEY_CACHES then
    /// shows a row per segment and a total row, as MariaDB does for a partitioned cache.
    segmented: bool,
}

impl KeyCache {
    /// A cache of `bytes` in `asked` segments (0 = one unsegmented cache).
    pub fn new(bytes: usize, block_size: usize, asked: u64, io: Arc<dyn BlockIo>) -> KeyCache {
        let count = Self::segment_count(bytes, block_size, asked);
        // The segments share one cache's index partitions, so that as few partition headers
        // stay hot as in one cache.
        let partitions = (PARTITIONS / count).max(1);
        KeyCache {
            segments: (0..count)
                .map(|_| {
                    BlockCache::with_partitions(
                        bytes / count,
                        block_size,
                        partitions,
                        Arc::clone(&io),
                    )
                })
                .collect(),
            segmented: asked > 0,
        }
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

    /// The segment holding a block. A hash independent of the segments' own index hash, so
    /// that one segment's blocks still spread over all its index partitions.
    #[inline]
    pub fn segment_of(&self, file: FileId, block: u64) -> &BlockCache {
        let n = self.segments.len();
        if n == 1 {
            return &self.segments[0];
        }
        let h =
            (file.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ block).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.segments[(((h >> 32) * n as u64) >> 32) as usize]
    }

    /// The segments, in order (KEY_CACHES numbers them from 1).
    pub fn segments(&self) -> &[BlockCache] {
        &self.segments
    }

    /// Whether the cache was made with `key_cache_segments` above 0.
    pub fn is_segmented(&self) -> bool {
        self.segmented
    }

    /// The segment count as KEY_CACHES shows it: 0 for an unsegmented cache.
    pub fn segments_shown(&self) -> u64 {
        if self.segmented {
            self.segments.len() as u64
        } else {
            0
        }
    }

    /// Whether a cache of `bytes` made now with `asked` segments would be split as this one
    /// is (a small cache gets fewer segments than asked, see [`KeyCache::segment_count`]).
    pub fn is_made_with(&self, bytes: usize, asked: u64) -> bool {
        let would_show = match asked {
            0 => 0,
            _ => Self::segment_count(bytes, self.block_size(), asked) as u64,
        };
        would_show == self.segments_shown()
    }

    // ---- the block cache's operations, routed by key ----

    pub fn get(&self, file: FileId, block: u64) -> io::Result<Block> {
        self.segment_of(file, block).get(file, block)
    }
    pub fn create(&self, file: FileId, block: u64) -> io::Result<Block> {
        self.segment_of(file, block).create(file, block)
    }
    pub fn peek(&self, file: FileId, block: u64) -> Option<Block> {
        self.segment_of(file, block).peek(file, block)
    }
    pub fn mark_dirty(&self, block: &Block, lsn: u64) {
        self.segment_of(block.file(), block.block())
            .mark_dirty(block, lsn)
    }

    // ---- operations on every segment ----

    pub fn flush_file(&self, file: FileId) -> io::Result<()> {
        self.segments.iter().try_for_each(|s| s.flush_file(file))
    }
    pub fn flush_all(&self) -> io::Result<()> {
        self.segments.iter().try_for_each(|s| s.flush_all())
    }
    pub fn discard_file(&self, file: FileId) {
        self.segments.iter().for_each(|s| s.discard_file(file))
    }
    pub fn clear(&self) {
        self.segments.iter().for_each(|s| s.clear())
    }
    /// Each segment gets `1/n` of `bytes`; every segment is resized even when one fails.
    pub fn resize(&self, bytes: usize) -> io::Result<()> {
        let per_segment = bytes / self.segments.len();
        let results: Vec<io::Result<()>> = self
            .segments
            .iter()
            .map(|s| s.resize(per_segment))
            .collect();
        results.into_iter().collect()
    }
    pub fn set_division_limit(&self, percent: u64) {
        self.segments
            .iter()
            .for_each(|s| s.set_division_limit(percent))
    }
    pub fn set_age_threshold(&self, percent: u64) {
        self.segments
            .iter()
            .for_each(|s| s.set_age_threshold(percent))
    }
    /// Up to `max` blocks over all segments, each segment's share written in order.
    pub fn write_back_ahead(&self, max: usize) -> io::Result<usize> {
        let share = max.div_ceil(self.segments.len());
        self.segments
            .iter()
            .try_fold(0, |cleaned, s| Ok(cleaned + s.write_back_ahead(share)?))
    }
    pub fn block_size(&self) -> usize {
        self.segments[0].block_size()
    }
    /// Capacity in blocks, all segments together.
    pub fn capacity_blocks(&self) -> usize {
        self.segments.iter().map(|s| s.capacity_blocks()).sum()
    }
    /// The counters of all segments, summed.
    pub fn stats(&self) -> BlockCacheStats {
        self.segments
            .iter()
            .map(|s| s.stats())
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
    /// Test support: every segment's counters recounted, and every block in its segment.
    pub fn validate(&self) {
        for s in self.segments.iter() {
            s.validate();
            for (file, block) in s.cached_keys() {
                assert!(
                    std::ptr::eq(self.segment_of(file, block), s),
                    "block ({file}, {block}) in the wrong segment"
                );
            }
        }
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicU64, Ordering};

    const PAGE: usize = 64;

    /// A disk whose page holds its key and a version written by the test.
    #[derive(Default)]
    struct VersionedIo {
        disk: parking_lot::Mutex<HashMap<(FileId, u64), u64>>,
        reads: AtomicU64,
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
            let version = u64::from_le_bytes(buf[8..16].try_into().unwrap());
            self.disk.lock().insert((file, block), version);
            Ok(())
        }
        fn flush_log(&self, _: u64) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn small_caches_get_fewer_segments_and_zero_means_one_unsegmented() {
        assert_eq!(KeyCache::segment_count(1 << 30, PAGE, 0), 1);
        assert_eq!(KeyCache::segment_count(1 << 30, PAGE, 4), 4);
        assert_eq!(KeyCache::segment_count(1 << 30, PAGE, 1000), MAX_SEGMENTS);
        // 256 blocks hold four segments of SHARD_COUNT blocks, not eight.
        assert_eq!(KeyCache::segment_count(256 * PAGE, PAGE, 8), 4);
        assert_eq!(KeyCache::segment_count(10 * PAGE, PAGE, 8), 1);
        let io = Arc::new(VersionedIo::default());
        let cache = KeyCache::new(256 * PAGE, PAGE, 8, io.clone());
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
        let io = Arc::new(VersionedIo::default());
        let cache = KeyCache::new(1024 * PAGE, PAGE, 4, io.clone());
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
        let io = Arc::new(VersionedIo::default());
        let cache = KeyCache::new(512 * PAGE, PAGE, 4, io.clone());
        for block in 0..160 {
            let b = cache.get(1, block).unwrap();
            b.begin_write();
            b.write()[8..16].copy_from_slice(&(block + 1).to_le_bytes());
            cache.mark_dirty(&b, 0);
            b.end_write();
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
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                6 => (0..600u64).prop_map(Op::Get),
                3 => (0..600u64).prop_map(Op::Write),
                1 => Just(Op::Flush),
                1 => (64..800usize).prop_map(Op::Resize),
                1 => Just(Op::Discard),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
            /// A segmented cache against a map of key -> version: every get returns the
            /// model's version, every block sits in the segment its key hashes to, and the
            /// summed counters match the requests made.
            #[test]
            fn segmented_cache_matches_the_reference_model(
                asked in 0..6u64,
                ops in proptest::collection::vec(op(), 1..150),
            ) {
                let io = Arc::new(VersionedIo::default());
                let cache = KeyCache::new(256 * PAGE, PAGE, asked, io.clone());
                let mut model: HashMap<(FileId, u64), u64> = HashMap::new();
                let (mut gets, mut writes) = (0u64, 0u64);
                for op in ops {
                    match op {
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
                        Op::Resize(blocks) => cache.resize(blocks * PAGE).unwrap(),
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
                    prop_assert_eq!(s.key_blocks_used + s.key_blocks_unused, cache.capacity_blocks() as u64);
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
