//! Instructions per key cache hit (run under `valgrind --tool=callgrind`): one thread gets
//! random cached blocks of a 4,096-block cache made with `key_cache_segments` = argv[1].
#[path = "../benches/support/mod.rs"]
mod support;

use myriad_cache::KeyCache;
use std::sync::Arc;
use support::{NullIo, XorShift};

fn main() {
    let segments: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let gets: u64 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let blocks: u64 = 4096;
    let cache = KeyCache::new(blocks as usize * 256, 256, segments, Arc::new(NullIo));
    for b in 0..blocks {
        drop(cache.get(1 + b % 7, b).unwrap());
    }
    let mut rng = XorShift(0x9E37_79B9);
    let mut sum = 0u64;
    for _ in 0..gets {
        let b = rng.next() % blocks;
        sum += cache.get(1 + b % 7, b).unwrap().read()[0] as u64;
    }
    println!("{sum}");
}
