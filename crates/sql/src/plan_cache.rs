//! A session's compiled text statements, by (text, database, PIPES_AS_CONCAT), so that a
//! repeated text query is not parsed again.
//!
//! Looked up by borrowed text, database and flag: a lookup allocates nothing (a tuple key
//! made every text statement copy its text and database first, hit or miss), and the text
//! hashes with foldhash. One text rarely has more than one plan (another database or
//! sql_mode), so a text's plans sit in a short list. Bounded by entries: past the bound
//! the cache is emptied and refilled (no LRU bookkeeping on the hit path).

use crate::parse::Stmt;
use std::collections::HashMap;
use std::sync::Arc;

/// Plans one session keeps. Applications repeat a few hundred distinct statements at most;
/// this bounds the cache's memory at a few hundred plans per connection.
pub(crate) const ENTRIES_MAX: usize = 256;

struct Plan {
    database: Option<String>,
    pipes_as_concat: bool,
    stmt: Arc<Stmt>,
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
}

impl PlanCache {
    pub(crate) fn get(
        &self,
        text: &str,
        database: Option<&str>,
        pipes_as_concat: bool,
    ) -> Option<Arc<Stmt>> {
        self.by_text
            .get(text)?
            .iter()
            .find(|p| p.is_for(database, pipes_as_concat))
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

    /// Keep `stmt` as the plan of `text` in this context, replacing one there was.
    pub(crate) fn insert(
        &mut self,
        text: &str,
        database: Option<String>,
        pipes_as_concat: bool,
        stmt: Arc<Stmt>,
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
                        cache.insert(&text, db.clone(), pipes, plan(i));
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
                        let got = cache.get(&text, db.as_deref(), pipes).map(|s| match &*s {
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
    }
}
