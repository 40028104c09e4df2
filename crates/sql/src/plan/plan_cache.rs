//! A session's compiled text statements, by (text, database, PIPES_AS_CONCAT), so that a
//! repeated text query is not parsed again.
//!
//! Looked up by borrowed text, database and flag: a lookup allocates nothing (a tuple key
//! made every text statement copy its text and database first, hit or miss), and the text
//! hashes with foldhash. One text rarely has more than one plan (another database or
//! sql_mode), so a text's plans sit in a short list. Bounded by entries: past the bound
//! the cache is emptied and refilled (no LRU bookkeeping on the hit path).
//!
//! A plan is kept on its text's second sighting (`PlanCache::offer`): a text seen once
//! only leaves a fingerprint in a small direct-mapped table. Statements that carry their
//! literals in the text (each one new) then cost no copy of the text, no map insert and
//! no share of the emptying, and cannot flush the plans of the statements that do repeat.

use crate::plan::Stmt;
use std::collections::HashMap;
use std::sync::Arc;

/// Plans one session keeps. Applications repeat a few hundred distinct statements at most;
/// this bounds the cache's memory at a few hundred plans per connection.
pub(crate) const ENTRIES_MAX: usize = 256;

/// Longer texts are not kept: a plan holds about as much memory as its text takes per
/// constant (a million-constant IN list compiles to some 100 MB), so a bound on entries
/// alone would let a session keep gigabytes; compiling such a text again costs little
/// next to reading it.
pub(crate) const TEXT_MAX: usize = 64 * 1024;

/// Fingerprints of texts seen once: four times the plans kept, 4 KB per session that runs
/// text statements (allocated at its first).
const SIGHTINGS: usize = 4 * ENTRIES_MAX;

struct Plan {
    database: Option<String>,
    pipes_as_concat: bool,
    stmt: Arc<Stmt>,
    /// For a plan whose subqueries or derived tables open tables while its rows are
    /// already being sent: the storage's DDL count before it was compiled. Once a DDL ran
    /// since, the plan is not used (its tables may have changed, and a change found in
    /// the middle of the rows could no longer be answered by compiling again).
    ddl_count: Option<u64>,
}

impl Plan {
    fn is_for(&self, database: Option<&str>, pipes_as_concat: bool) -> bool {
        self.database.as_deref() == database && self.pipes_as_concat == pipes_as_concat
    }
}

#[derive(Default)]
pub(crate) struct PlanCache {
    by_text: HashMap<String, Vec<Plan>, foldhash::fast::RandomState>,
    entries: usize,
    /// The fingerprint of the last text seen in each slot (0: none).
    sightings: Option<Box<[u32; SIGHTINGS]>>,
}

impl PlanCache {
    /// The plan of `text` in this context; `ddl_count`: the storage's DDL count now.
    pub(crate) fn get(
        &self,
        text: &str,
        database: Option<&str>,
        pipes_as_concat: bool,
        ddl_count: u64,
    ) -> Option<Arc<Stmt>> {
        self.by_text
            .get(text)?
            .iter()
            .find(|p| p.is_for(database, pipes_as_concat))
            .filter(|p| p.ddl_count.is_none_or(|c| c == ddl_count))
            .map(|p| Arc::clone(&p.stmt))
    }

    pub(crate) fn remove(&mut self, text: &str, database: Option<&str>, pipes_as_concat: bool) {
        let Some(plans) = self.by_text.get_mut(text) else {
            return;
        };
        let before = plans.len();
        plans.retain(|p| !p.is_for(database, pipes_as_concat));
        self.entries -= before - plans.len();
        if plans.is_empty() {
            self.by_text.remove(text);
        }
    }

    /// Keep `stmt` as the plan of `text` in this context if the text was seen before (its
    /// fingerprint is in its slot); otherwise only note the sighting. Returns whether kept.
    /// A text longer than [`TEXT_MAX`] is never kept.
    pub(crate) fn offer(
        &mut self,
        text: &str,
        database: Option<String>,
        pipes_as_concat: bool,
        stmt: Arc<Stmt>,
        ddl_count: Option<u64>,
    ) -> bool {
        if text.len() > TEXT_MAX {
            return false;
        }
        use std::hash::BuildHasher;
        let hash = self.by_text.hasher().hash_one(text);
        // The low bits pick the slot, the high ones are the fingerprint (never 0).
        let slot = (hash as usize) % SIGHTINGS;
        let fingerprint = ((hash >> 32) as u32).max(1);
        let sightings = self
            .sightings
            .get_or_insert_with(|| Box::new([0; SIGHTINGS]));
        if sightings[slot] != fingerprint {
            sightings[slot] = fingerprint;
            return false;
        }
        self.insert(text, database, pipes_as_concat, stmt, ddl_count);
        true
    }

    /// Keep `stmt` as the plan of `text` in this context, replacing one there was.
    pub(crate) fn insert(
        &mut self,
        text: &str,
        database: Option<String>,
        pipes_as_concat: bool,
        stmt: Arc<Stmt>,
        ddl_count: Option<u64>,
    ) {
        self.remove(text, database.as_deref(), pipes_as_concat);
        if self.entries >= ENTRIES_MAX {
            self.by_text.clear();
            self.entries = 0;
        }
        let plan = Plan {
            database,
            pipes_as_concat,
            stmt,
            ddl_count,
        };
        match self.by_text.get_mut(text) {
            Some(plans) => plans.push(plan),
            None => {
                self.by_text.insert(text.to_string(), vec![plan]);
            }
        }
        self.entries += 1;
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A plan that says which insert made it.
    fn plan(n: usize) -> Arc<Stmt> {
        Arc::new(Stmt::SetCharacterSet(Some(n.to_string())))
    }

    proptest! {
        /// Against a map keyed by the owned tuple (what the cache replaced): the same
        /// answers, and never more than ENTRIES_MAX plans.
        #[test]
        fn answers_as_a_map_of_owned_keys(ops in proptest::collection::vec(
            (0u8..3, 0u8..40, proptest::option::of(0u8..3), any::<bool>()), 1..600))
        {
            let mut cache = PlanCache::default();
            let mut model: std::collections::HashMap<(String, Option<String>, bool), usize> =
                Default::default();
            for (i, (op, text, db, pipes)) in ops.into_iter().enumerate() {
                let text = format!("SELECT {text}");
                let db = db.map(|d| format!("db{d}"));
                let key = (text.clone(), db.clone(), pipes);
                match op {
                    0 => {
                        cache.insert(&text, db.clone(), pipes, plan(i), None);
                        if model.len() >= ENTRIES_MAX && !model.contains_key(&key) {
                            model.clear();
                        }
                        model.insert(key, i);
                    }
                    1 => {
                        cache.remove(&text, db.as_deref(), pipes);
                        model.remove(&key);
                    }
                    _ => {
                        let got = cache.get(&text, db.as_deref(), pipes, 0).map(|s| match &*s {
                            Stmt::SetCharacterSet(Some(n)) => n.clone(),
                            _ => String::new(),
                        });
                        prop_assert_eq!(got, model.get(&key).map(|n| n.to_string()));
                    }
                }
                prop_assert_eq!(cache.len(), model.len());
                prop_assert!(cache.len() <= ENTRIES_MAX);
            }
        }

        /// Offered texts: a text offered twice in a row is kept with its latest plan, a
        /// kept plan is always the latest offered for its key, and the bound holds.
        #[test]
        fn offers_keep_a_text_from_its_second_sighting(ops in proptest::collection::vec(
            (0u16..2000, any::<bool>()), 1..800))
        {
            let mut cache = PlanCache::default();
            let mut latest: std::collections::HashMap<String, usize> = Default::default();
            for (i, (text, twice)) in ops.into_iter().enumerate() {
                let text = format!("SELECT {text}");
                let offers = if twice { 2 } else { 1 };
                for _ in 0..offers {
                    cache.offer(&text, None, false, plan(i), None);
                }
                latest.insert(text.clone(), i);
                let got = |t: &str| cache.get(t, None, false, 0).map(|s| match &*s {
                    Stmt::SetCharacterSet(Some(n)) => n.parse::<usize>().unwrap(),
                    _ => usize::MAX,
                });
                if twice {
                    prop_assert_eq!(got(&text), Some(i));
                }
                for (t, &n) in latest.iter().filter(|(t, _)| i % 50 == 0 || **t == text) {
                    if let Some(kept) = got(t) {
                        prop_assert!(kept <= n, "a kept plan is never newer than the latest offer");
                    }
                }
                prop_assert!(cache.len() <= ENTRIES_MAX);
            }
        }
    }

    #[test]
    fn texts_seen_once_neither_take_room_nor_flush_the_repeated_ones() {
        let mut cache = PlanCache::default();
        assert!(
            !cache.offer("SELECT a", None, false, plan(1), None),
            "first sighting: noted only"
        );
        assert!(cache.get("SELECT a", None, false, 0).is_none());
        assert!(
            cache.offer("SELECT a", None, false, plan(2), None),
            "second sighting: kept"
        );
        for n in 0..100_000 {
            cache.offer(&format!("SELECT * FROM t{n}"), None, false, plan(n), None);
        }
        assert!(cache.len() < 8, "one-off texts were kept: {}", cache.len());
        assert!(
            cache.get("SELECT a", None, false, 0).is_some(),
            "the repeated text's plan was flushed"
        );
    }

    #[test]
    fn a_plan_kept_with_a_ddl_count_is_not_used_once_the_count_moved() {
        let mut cache = PlanCache::default();
        cache.insert("SELECT (SELECT 1 FROM t)", None, false, plan(1), Some(7));
        cache.insert("SELECT a FROM t", None, false, plan(2), None);
        assert!(cache
            .get("SELECT (SELECT 1 FROM t)", None, false, 7)
            .is_some());
        assert!(cache
            .get("SELECT (SELECT 1 FROM t)", None, false, 8)
            .is_none());
        assert!(cache.get("SELECT a FROM t", None, false, 8).is_some());
    }

    #[test]
    fn long_texts_are_never_kept() {
        let mut cache = PlanCache::default();
        let longest = format!("SELECT '{}'", "x".repeat(TEXT_MAX - 9));
        assert_eq!(longest.len(), TEXT_MAX);
        let longer = format!("{longest} ");
        for text in [&longest, &longer] {
            cache.offer(text, None, false, plan(1), None);
            cache.offer(text, None, false, plan(2), None);
        }
        assert!(cache.get(&longest, None, false, 0).is_some());
        assert!(cache.get(&longer, None, false, 0).is_none());
        assert_eq!(cache.len(), 1);
    }
}
