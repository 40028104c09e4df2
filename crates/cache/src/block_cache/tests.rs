use super::*;
use parking_lot::Mutex;
use std::collections::HashMap as Map;
use std::sync::Arc;

/// An in-memory "disk" that records the order of log flushes and writes.
#[derive(Default)]
struct MemIo {
    disk: Mutex<Map<(FileId, u64), Vec<u8>>>,
    durable_lsn: AtomicU64,
    violations: AtomicU64,
}

impl BlockIo for MemIo {
    fn read_block(&self, file: FileId, block: u64, buf: &mut [u8]) -> io::Result<()> {
        match self.disk.lock().get(&(file, block)) {
            Some(d) if d[63] == 0xEE => Err(io::Error::new(io::ErrorKind::InvalidData, "corrupt")),
            Some(d) => {
                buf.copy_from_slice(d);
                Ok(())
            }
            None => Err(io::Error::new(io::ErrorKind::UnexpectedEof, "beyond end")),
        }
    }
    fn write_block(&self, file: FileId, block: u64, buf: &[u8]) -> io::Result<()> {
        let lsn = u64::from_le_bytes(buf[8..16].try_into().unwrap());
        if lsn > self.durable_lsn.load(Ordering::SeqCst) {
            self.violations.fetch_add(1, Ordering::SeqCst);
        }
        self.disk.lock().insert((file, block), buf.to_vec());
        Ok(())
    }
    fn flush_log(&self, lsn: u64) -> io::Result<()> {
        self.durable_lsn.fetch_max(lsn, Ordering::SeqCst);
        Ok(())
    }
}

fn write_value(cache: &BlockCache, b: &Block, value: u64, lsn: u64) {
    b.begin_write();
    {
        let mut d = b.write();
        d[0..8].copy_from_slice(&value.to_le_bytes());
        d[8..16].copy_from_slice(&lsn.to_le_bytes());
    }
    cache.mark_dirty(b, lsn);
    b.end_write();
}

#[test]
fn evicted_dirty_blocks_come_back_and_the_wal_rule_holds() {
    let io = Arc::new(MemIo::default());
    let cache = BlockCache::new(64 * 2 * 64, 64, io.clone());
    for i in 0..1000u64 {
        let b = cache.create(1, i).unwrap();
        write_value(&cache, &b, i * 7, i + 1);
    }
    for i in 0..1000u64 {
        let b = cache.get(1, i).unwrap();
        assert_eq!(
            u64::from_le_bytes(b.read()[0..8].try_into().unwrap()),
            i * 7
        );
    }
    cache.validate();
    cache.flush_all().unwrap();
    assert_eq!(cache.stats().key_blocks_not_flushed, 0);
    assert_eq!(
        io.violations.load(Ordering::SeqCst),
        0,
        "a block was written before its log"
    );
    let s = cache.stats();
    assert!(s.key_reads > 0 && s.key_writes >= 1000 && s.key_read_requests >= 1000);
    cache.validate();
}

#[test]
fn pinned_blocks_are_never_evicted_and_the_cache_overflows_then_fails_instead_of_hanging() {
    let io = Arc::new(MemIo::default());
    // The smallest cache: SHARD_COUNT blocks; overflow allowed up to 2x + SHARD_COUNT.
    let cache = BlockCache::new(64 * SHARD_COUNT, 64, io.clone());
    let mut pinned: Vec<Block> = (0..150u64)
        .map(|i| {
            let b = cache.create(3, i).unwrap();
            write_value(&cache, &b, i + 100, 1);
            b
        })
        .collect();
    let s = cache.stats();
    assert!(
        s.overflows > 0,
        "a full cache of pinned blocks did not report overflow"
    );
    assert_eq!(s.key_blocks_used, 150);
    // Past the overflow bound the caller gets an error it can handle, never a hang.
    let mut failed = None;
    for i in 150..400u64 {
        match cache.create(3, i) {
            Ok(b) => {
                write_value(&cache, &b, i + 100, 1);
                pinned.push(b);
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    let failed = failed.expect("pinning far past capacity never failed");
    assert_eq!(failed.kind(), io::ErrorKind::OutOfMemory);
    assert!(pinned.len() <= 3 * SHARD_COUNT);
    let pinned_count = pinned.len() as u64;
    cache.validate();
    for (i, b) in pinned.iter().enumerate() {
        assert_eq!(
            u64::from_le_bytes(b.read()[0..8].try_into().unwrap()),
            i as u64 + 100
        );
    }
    drop(pinned);
    cache.flush_all().unwrap();
    // Unpinned and clean: new blocks evict them, down to capacity again.
    for i in 1000..1500u64 {
        drop(cache.create(3, i).unwrap());
    }
    assert!(
        cache.stats().key_blocks_used <= SHARD_COUNT as u64 + 1,
        "{:?}",
        cache.stats()
    );
    // And the evicted blocks come back from disk intact.
    for i in 0..pinned_count {
        assert_eq!(
            u64::from_le_bytes(cache.get(3, i).unwrap().read()[0..8].try_into().unwrap()),
            i + 100
        );
    }
    cache.validate();
}

#[test]
fn pending_writes_are_never_written_back_and_errors_are_not_cached() {
    let io = Arc::new(MemIo::default());
    let cache = BlockCache::new(64 * 64, 64, io.clone());
    let b = cache.create(2, 0).unwrap();
    write_value(&cache, &b, 1, 5);
    b.begin_write();
    b.write()[0] = 0xAA;
    // Not flushable now: a non-waiting write-back leaves it.
    assert!(!cache.write_back(b.slot(), false).unwrap());
    b.end_write();
    cache.flush_file(2).unwrap();
    assert_eq!(io.disk.lock()[&(2, 0)][0], 0xAA);
    io.disk.lock().insert((2, 9), vec![0xEE; 64]);
    assert_eq!(
        cache.get(2, 9).unwrap_err().kind(),
        io::ErrorKind::InvalidData
    );
    assert_eq!(
        cache.get(2, 9).unwrap_err().kind(),
        io::ErrorKind::InvalidData
    );
    // A pinned block leaves the index at once (a later get misses) and is reclaimed by
    // the clock once released; an unpinned one is freed at once.
    let other = cache.create(2, 1).unwrap();
    drop(other);
    cache.discard_file(2);
    cache.validate();
    assert!(cache.peek(2, 0).is_none() && cache.peek(2, 1).is_none());
    assert_eq!(
        cache.stats().key_blocks_used,
        1,
        "only the pinned block remains"
    );
    assert_eq!(cache.stats().key_blocks_not_flushed, 0);
    drop(b);
    cache.validate();
}
