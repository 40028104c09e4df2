//! Images of table definitions the definition cache let go: the encoded definition, the
//! space id and whether the table is known to hold no row, a few hundred bytes per table.
//!
//! Problem: with more tables than `table_definition_cache`, every open of an uncached table
//! opened its file, read and checked two pages and closed a descriptor (about 10 us of the
//! ~15 us an open cost at 100,000 tables). Design: when a definition leaves, its image stays
//! here within its own byte budget (`table_definition_cache_size`, first in first out), and
//! the next load of that table decodes the image instead of reading the file; the file is
//! opened only when a page is read, which for a table known to be empty is never.
//!
//! Correctness: an image must never outlive the state it describes. Only a definition that
//! was the newest one of its table leaves an image: each load takes a ticket (a number per
//! shard) and marks the table as loaded under that ticket; a definition leaving puts its
//! image back only if the mark still holds its own ticket, so an older definition retiring
//! late never overwrites what a newer one knows. DDL and FLUSH TABLES remove the entry
//! (image or mark) under the shard lock, so a definition loaded before them leaves nothing.

use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;
use std::sync::Arc;

/// Seeded per process, and a fraction of SipHash's cost on a short key.
type RandomState = foldhash::fast::RandomState;

const SHARDS: usize = 16;

/// Bytes an image costs beyond its key and definition: the map slot, the queue entry, the
/// allocations' headers (the key itself is one allocation, shared by the map, the queue and
/// the loaded table object).
const IMAGE_OVERHEAD: usize = 112;

/// What a load takes from an image.
pub(crate) struct Image {
    pub(crate) space: u64,
    pub(crate) def_bytes: Box<[u8]>,
    pub(crate) known_empty: bool,
    /// The table's file, as the file cache had it (a function of the key: a rename forgets
    /// the image); `None` when the file cache kept the file (written since its last sync).
    pub(crate) path: Option<std::path::PathBuf>,
}

enum Entry {
    /// A definition of the table is loaded under this ticket.
    Loaded(u64),
    /// The table's image, put back under this ticket.
    Image(u64, Image),
}

#[derive(Default)]
struct Shard {
    entries: HashMap<Arc<str>, Entry, RandomState>,
    /// Images in the order they were put back (key, ticket); stale pairs are skipped.
    order: VecDeque<(Arc<str>, u64)>,
    bytes: usize,
    tickets: u64,
}

impl Shard {
    fn image_bytes(key: &str, image: &Image) -> usize {
        IMAGE_OVERHEAD
            + key.len()
            + image.def_bytes.len()
            + image.path.as_ref().map_or(0, |p| p.as_os_str().len())
    }

    fn remove(&mut self, key: &str) {
        if let Some(Entry::Image(_, image)) = self.entries.remove(key) {
            self.bytes -= Self::image_bytes(key, &image);
        }
    }

    fn trim(&mut self, budget: usize) {
        while self.bytes > budget {
            let Some((key, ticket)) = self.order.pop_front() else {
                break;
            };
            if matches!(self.entries.get(&key), Some(Entry::Image(t, _)) if *t == ticket) {
                self.remove(&key);
            }
        }
        // Pairs whose image was taken or replaced: drop them once they outnumber the live.
        if self.order.len() > 2 * self.entries.len() + 64 {
            let entries = &self.entries;
            self.order
                .retain(|(k, t)| matches!(entries.get(k), Some(Entry::Image(x, _)) if x == t));
        }
    }
}

/// See the module documentation.
pub(crate) struct DefinitionImages {
    shards: Box<[Mutex<Shard>]>,
    hasher: RandomState,
    budget_per_shard: std::sync::atomic::AtomicUsize,
}

impl DefinitionImages {
    pub(crate) fn new(budget_bytes: usize) -> DefinitionImages {
        DefinitionImages {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            hasher: RandomState::default(),
            budget_per_shard: std::sync::atomic::AtomicUsize::new(budget_bytes / SHARDS),
        }
    }

    fn shard(&self, key: &str) -> &Mutex<Shard> {
        &self.shards[self.hasher.hash_one(key) as usize % SHARDS]
    }

    /// A load of `key` begins: its ticket, the image if the table has one, and the key as
    /// the images keep it, for the loaded table object to share (one allocation of the key
    /// per table, however often it is loaded).
    pub(crate) fn begin_load(&self, key: &str) -> (u64, Option<Image>, Arc<str>) {
        let mut shard = self.shard(key).lock();
        shard.tickets += 1;
        let ticket = shard.tickets;
        let Some((shared, _)) = shard.entries.get_key_value(key) else {
            let shared: Arc<str> = key.into();
            shard
                .entries
                .insert(Arc::clone(&shared), Entry::Loaded(ticket));
            return (ticket, None, shared);
        };
        let shared = Arc::clone(shared);
        let previous = shard
            .entries
            .get_mut(key)
            .map(|entry| std::mem::replace(entry, Entry::Loaded(ticket)));
        let image = match previous {
            Some(Entry::Image(_, image)) => {
                shard.bytes -= Shard::image_bytes(key, &image);
                Some(image)
            }
            _ => None,
        };
        (ticket, image, shared)
    }

    /// The definition loaded under `ticket` leaves: keep its image if it is still the
    /// newest of its table (otherwise, or with `image` None, just end its mark).
    pub(crate) fn end_load(&self, key: &Arc<str>, ticket: u64, image: Option<Image>) {
        let mut shard = self.shard(key.as_ref()).lock();
        let Some(entry) = shard.entries.get_mut(key.as_ref()) else {
            return;
        };
        if !matches!(entry, Entry::Loaded(t) if *t == ticket) {
            return;
        }
        let Some(image) = image else {
            shard.entries.remove(key.as_ref());
            return;
        };
        let bytes = Shard::image_bytes(key, &image);
        *entry = Entry::Image(ticket, image);
        shard.bytes += bytes;
        shard.order.push_back((Arc::clone(key), ticket));
        let budget = self
            .budget_per_shard
            .load(std::sync::atomic::Ordering::Relaxed);
        shard.trim(budget);
    }

    /// DDL on `key` (or CREATE of it): whatever was known goes.
    pub(crate) fn forget(&self, key: &str) {
        self.shard(key).lock().remove(key);
    }

    /// FLUSH TABLES without names: every image and mark goes.
    pub(crate) fn forget_all(&self) {
        for shard in self.shards.iter() {
            let mut shard = shard.lock();
            shard.entries.clear();
            shard.order.clear();
            shard.bytes = 0;
        }
    }

    /// `SET GLOBAL table_definition_cache_size`: the images' budget too.
    pub(crate) fn set_budget(&self, budget_bytes: usize) {
        let per_shard = budget_bytes / SHARDS;
        self.budget_per_shard
            .store(per_shard, std::sync::atomic::Ordering::Relaxed);
        for shard in self.shards.iter() {
            shard.lock().trim(per_shard);
        }
    }

    /// Images kept and their bytes.
    pub(crate) fn stats(&self) -> (usize, usize) {
        self.shards.iter().fold((0, 0), |(n, b), s| {
            let s = s.lock();
            let images = s
                .entries
                .values()
                .filter(|e| matches!(e, Entry::Image(..)))
                .count();
            (n + images, b + s.bytes)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(key: &str) -> Arc<str> {
        key.into()
    }

    fn image(space: u64) -> Image {
        Image {
            space,
            def_bytes: vec![1u8; 40].into_boxed_slice(),
            known_empty: true,
            path: None,
        }
    }

    #[test]
    fn a_load_takes_the_image_the_last_definition_left() {
        let images = DefinitionImages::new(1 << 20);
        let (t1, none, first_key) = images.begin_load("d\0t");
        assert!(none.is_none());
        images.end_load(&first_key, t1, Some(image(7)));
        assert_eq!(images.stats().0, 1);
        let (t2, got, key) = images.begin_load("d\0t");
        assert!(
            Arc::ptr_eq(&first_key, &key),
            "one allocation of the key per table"
        );
        assert_eq!(got.map(|i| i.space), Some(7));
        assert_eq!(images.stats(), (0, 0), "taken, not copied");
        images.end_load(&shared("d\0t"), t2, None);
        assert!(images.begin_load("d\0t").1.is_none());
    }

    #[test]
    fn an_older_definition_leaving_late_leaves_nothing() {
        let images = DefinitionImages::new(1 << 20);
        let (old, _, _) = images.begin_load("d\0t");
        let (new, _, _) = images.begin_load("d\0t");
        images.end_load(&shared("d\0t"), old, Some(image(1)));
        assert_eq!(images.stats().0, 0, "the newer load's mark stands");
        images.end_load(&shared("d\0t"), new, Some(image(2)));
        assert_eq!(images.begin_load("d\0t").1.map(|i| i.space), Some(2));
    }

    #[test]
    fn ddl_and_flush_forget_images_and_marks() {
        let images = DefinitionImages::new(1 << 20);
        let (t, _, _) = images.begin_load("d\0a");
        images.forget("d\0a");
        images.end_load(&shared("d\0a"), t, Some(image(1)));
        assert_eq!(
            images.stats().0,
            0,
            "loaded before the DDL: no image after it"
        );
        let (t, _, _) = images.begin_load("d\0b");
        images.end_load(&shared("d\0b"), t, Some(image(2)));
        let (t, _, _) = images.begin_load("d\0c");
        images.forget_all();
        images.end_load(&shared("d\0c"), t, Some(image(3)));
        assert_eq!(images.stats(), (0, 0));
    }

    mod model {
        use super::*;
        use proptest::prelude::*;
        use std::collections::HashMap;

        #[derive(Debug, Clone)]
        enum Op {
            Load(u8),
            /// End the n-th live load (modulo), leaving an image or not.
            End(usize, bool),
            Forget(u8),
            ForgetAll,
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                4 => (0..4u8).prop_map(Op::Load),
                4 => (any::<usize>(), any::<bool>()).prop_map(|(i, b)| Op::End(i, b)),
                1 => (0..4u8).prop_map(Op::Forget),
                1 => Just(Op::ForgetAll),
            ]
        }

        proptest! {
            /// Against a map of what each table's newest load left: a load gets the image of
            /// the newest definition that ended with one, unless a newer load, a DDL or a
            /// flush came after it.
            #[test]
            fn images_match_the_model(ops in prop::collection::vec(op(), 1..120)) {
                let images = DefinitionImages::new(1 << 30);
                // key -> (newest ticket, image space if that load ended with one)
                let mut model: HashMap<u8, (u64, Option<u64>)> = HashMap::new();
                let mut live: Vec<(u8, u64)> = Vec::new();
                let mut next_space = 0u64;
                for op in ops {
                    match op {
                        Op::Load(k) => {
                            let key = format!("d\0t{k}");
                            let (ticket, got, _) = images.begin_load(&key);
                            let want = model.get(&k).and_then(|(_, img)| *img);
                            prop_assert_eq!(got.map(|i| i.space), want);
                            model.insert(k, (ticket, None));
                            live.push((k, ticket));
                        }
                        Op::End(i, leave) if !live.is_empty() => {
                            let (k, ticket) = live.remove(i % live.len());
                            next_space += 1;
                            let img = leave.then(|| image(next_space));
                            images.end_load(&shared(&format!("d\0t{k}")), ticket, img);
                            if let Some((newest, slot)) = model.get_mut(&k) {
                                if *newest == ticket {
                                    if leave {
                                        *slot = Some(next_space);
                                    } else {
                                        model.remove(&k);
                                    }
                                }
                            }
                        }
                        Op::End(..) => {}
                        Op::Forget(k) => {
                            images.forget(&format!("d\0t{k}"));
                            model.remove(&k);
                        }
                        Op::ForgetAll => {
                            images.forget_all();
                            model.clear();
                        }
                    }
                    let kept = model.values().filter(|(_, img)| img.is_some()).count();
                    prop_assert_eq!(images.stats().0, kept);
                }
            }
        }
    }

    #[test]
    fn images_stay_within_the_budget_oldest_out_first() {
        let one = Shard::image_bytes("d\0t00000", &image(0));
        let images = DefinitionImages::new(SHARDS * 4 * one);
        for i in 0..2_000u64 {
            let key = format!("d\0t{i:05}");
            let (t, _, _) = images.begin_load(&key);
            images.end_load(&shared(&key), t, Some(image(i)));
        }
        let (n, bytes) = images.stats();
        assert!(bytes <= SHARDS * 4 * one, "{bytes} bytes");
        assert!(n > 0 && n <= SHARDS * 4, "{n} images");
        // The newest survived, the oldest went.
        assert!(images.begin_load("d\0t01999").1.is_some());
        assert!(images.begin_load("d\0t00000").1.is_none());
        for shard in images.shards.iter() {
            let s = shard.lock();
            assert!(s.order.len() <= 2 * s.entries.len() + 64);
        }
        images.set_budget(0);
        assert_eq!(images.stats(), (0, 0));
    }
}
