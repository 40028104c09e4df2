//! Shared by the criterion bench and the thread-sweep example: the caches compared, behind
//! one trait, and the key streams. The two mutex LRUs are written here as baselines: one
//! global mutex (MariaDB's key cache without segments) and 64 mutex-guarded shards
//! (key_cache_segments=64).
#![allow(dead_code)]

use myriad_cache::{BlockIo, FileId, KeyCache};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::io;
use std::sync::Arc;

/// Bytes per cached value in every cache (small: the benchmark measures the index).
pub const VALUE_BYTES: usize = 64;

pub trait BenchCache: Sync {
    fn name(&self) -> &'static str;
    /// Look the key up, inserting a value on a miss; returns whether it was a hit.
    fn access(&self, key: u64) -> bool;
}

fn value() -> Arc<[u8]> {
    Arc::from(vec![7u8; VALUE_BYTES])
}

/// The disk behind our cache: fills the block, and counts the reads of the calling thread
/// (a miss reads on the thread that asked, so a hit is a call that did not read).
#[derive(Default)]
pub struct NullIo;

thread_local! {
    static THREAD_READS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

impl BlockIo for NullIo {
    fn read_block(&self, _: FileId, block: u64, buf: &mut [u8]) -> io::Result<()> {
        THREAD_READS.with(|r| r.set(r.get() + 1));
        buf[..8].copy_from_slice(&block.to_le_bytes());
        Ok(())
    }
    fn write_block(&self, _: FileId, _: u64, _: &[u8]) -> io::Result<()> {
        Ok(())
    }
    fn flush_log(&self, _: u64) -> io::Result<()> {
        Ok(())
    }
}

/// myriad's key cache as storage uses it (one unsegmented generation of segments).
pub struct Ours {
    cache: KeyCache,
}

impl Ours {
    pub fn new(capacity: usize) -> Ours {
        Ours {
            cache: KeyCache::new(capacity * VALUE_BYTES, VALUE_BYTES, 0, Arc::new(NullIo)),
        }
    }
}

impl BenchCache for Ours {
    fn name(&self) -> &'static str {
        "myriad"
    }
    fn access(&self, key: u64) -> bool {
        let before = THREAD_READS.with(|r| r.get());
        let b = self.cache.get(1, key).expect("null io never fails");
        drop(b);
        THREAD_READS.with(|r| r.get()) == before
    }
}

/// An O(1) LRU of keys to values: a hash map to nodes of a doubly linked list in a vector.
pub struct Lru {
    capacity: usize,
    map: HashMap<u64, usize>,
    nodes: Vec<Node>,
    head: usize,
    tail: usize,
}

struct Node {
    key: u64,
    value: Arc<[u8]>,
    prev: usize,
    next: usize,
}

const NIL: usize = usize::MAX;

impl Lru {
    pub fn new(capacity: usize) -> Lru {
        Lru {
            capacity: capacity.max(1),
            map: HashMap::with_capacity(capacity),
            nodes: Vec::with_capacity(capacity),
            head: NIL,
            tail: NIL,
        }
    }
    fn unlink(&mut self, i: usize) {
        let (p, n) = (self.nodes[i].prev, self.nodes[i].next);
        if p != NIL {
            self.nodes[p].next = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            self.nodes[n].prev = p;
        } else {
            self.tail = p;
        }
    }
    fn push_front(&mut self, i: usize) {
        self.nodes[i].prev = NIL;
        self.nodes[i].next = self.head;
        if self.head != NIL {
            self.nodes[self.head].prev = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }
    /// The value (a clone, as a block handle would be) and whether it was a hit.
    pub fn access(&mut self, key: u64) -> (Arc<[u8]>, bool) {
        if let Some(&i) = self.map.get(&key) {
            self.unlink(i);
            self.push_front(i);
            return (self.nodes[i].value.clone(), true);
        }
        let v = value();
        let i = if self.nodes.len() < self.capacity {
            self.nodes.push(Node {
                key,
                value: v.clone(),
                prev: NIL,
                next: NIL,
            });
            self.nodes.len() - 1
        } else {
            let victim = self.tail;
            self.unlink(victim);
            self.map.remove(&self.nodes[victim].key);
            self.nodes[victim].key = key;
            self.nodes[victim].value = v.clone();
            victim
        };
        self.map.insert(key, i);
        self.push_front(i);
        (v, false)
    }
}

pub struct MutexLru(Mutex<Lru>);

impl MutexLru {
    pub fn new(capacity: usize) -> MutexLru {
        MutexLru(Mutex::new(Lru::new(capacity)))
    }
}

impl BenchCache for MutexLru {
    fn name(&self) -> &'static str {
        "mutex-lru"
    }
    fn access(&self, key: u64) -> bool {
        self.0.lock().access(key).1
    }
}

#[repr(align(128))]
struct Shard(Mutex<Lru>);

pub struct ShardedLru(Vec<Shard>);

impl ShardedLru {
    pub fn new(capacity: usize) -> ShardedLru {
        ShardedLru(
            (0..64)
                .map(|_| Shard(Mutex::new(Lru::new(capacity / 64))))
                .collect(),
        )
    }
}

impl BenchCache for ShardedLru {
    fn name(&self) -> &'static str {
        "sharded64-lru"
    }
    fn access(&self, key: u64) -> bool {
        let shard = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
        self.0[shard].0.lock().access(key).1
    }
}

/// A concurrent cache crate's map, measured as `name`: a `get`, and an `insert` on a miss.
macro_rules! crate_cache {
    ($ty:ident, $cache:ty, $name:literal, |$capacity:ident| $new:expr) => {
        pub struct $ty($cache);

        impl $ty {
            pub fn new($capacity: usize) -> $ty {
                $ty($new)
            }
        }

        impl BenchCache for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn access(&self, key: u64) -> bool {
                if self.0.get(&key).is_some() {
                    return true;
                }
                self.0.insert(key, value());
                false
            }
        }
    };
}

crate_cache!(
    Quick,
    quick_cache::sync::Cache<u64, Arc<[u8]>>,
    "quick_cache",
    |capacity| quick_cache::sync::Cache::new(capacity)
);
crate_cache!(
    Moka,
    moka::sync::Cache<u64, Arc<[u8]>>,
    "moka",
    |capacity| moka::sync::Cache::new(capacity as u64)
);

pub fn all_caches(capacity: usize) -> Vec<Box<dyn BenchCache>> {
    vec![
        Box::new(Ours::new(capacity)),
        Box::new(MutexLru::new(capacity)),
        Box::new(ShardedLru::new(capacity)),
        Box::new(Quick::new(capacity)),
        Box::new(Moka::new(capacity)),
    ]
}

/// A deterministic generator for streams.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Zipf(s) over `n` ranks by inverse CDF (binary search of a precomputed table); ranks are
/// scattered over the key space so that hot keys are not neighbours.
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize, s: f64) -> Zipf {
        let mut cdf = Vec::with_capacity(n);
        let mut sum = 0.0;
        for r in 1..=n {
            sum += 1.0 / (r as f64).powf(s);
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        Zipf { cdf }
    }
    pub fn sample(&self, rng: &mut XorShift) -> u64 {
        let u = rng.unit();
        let rank = self.cdf.partition_point(|&c| c < u) as u64;
        rank.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Stream {
    /// Uniform keys over half the capacity, all cached: 100% hits after warm-up.
    AllHits,
    /// Zipf 0.99 over 2x the capacity: about 90% hits.
    Zipf90,
    /// The Zipf stream with a sequential scan of never-repeated keys interleaved (one
    /// scanned key per two Zipf keys).
    ScanPolluted,
}

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Stream::AllHits => "100%-hits",
            Stream::Zipf90 => "zipf0.99",
            Stream::ScanPolluted => "zipf+scan",
        }
    }
    /// `len` keys for thread `thread`.
    pub fn keys(self, capacity: usize, len: usize, thread: u64, zipf: &Zipf) -> Vec<u64> {
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D ^ (thread + 1).wrapping_mul(0x9E37_79B9));
        let mut scan = (1u64 << 50) + thread * (1 << 40);
        (0..len)
            .map(|i| match self {
                Stream::AllHits => rng.next() % (capacity as u64 / 2),
                Stream::Zipf90 => zipf.sample(&mut rng),
                Stream::ScanPolluted => {
                    if i % 3 == 2 {
                        scan += 1;
                        scan
                    } else {
                        zipf.sample(&mut rng)
                    }
                }
            })
            .collect()
    }
}
