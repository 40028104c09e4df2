//! Savepoints of a [`Statement`]: points inside an open statement it can roll back to,
//! undoing what came after and keeping what came before.
//!
//! A statement keeps, for each page it changed, the image from before its first change
//! (`Touched::before`): enough to undo the whole statement, not part of it. A savepoint
//! (a *level*) remembers how many pages the statement had touched when it was taken, and
//! keeps the image *at the savepoint* of each of those pages the first time one of them is
//! changed after it. Rolling back to the savepoint then puts back those images, puts back
//! the first-touch images of the pages touched after it (which were unchanged until then),
//! and forgets those pages: they end their write-pending state as in a rollback.
//!
//! Levels nest: a change after level `k` (of several) is saved in each level that predates
//! the page's first touch and has no image of it yet, so rolling back to any level finds
//! its own images. The cost is one copy of a page per level and page changed after the
//! level, and nothing for a statement without savepoints (autocommit statements).
//!
//! Locks stay: a table locked or a page claimed after the savepoint stays so until the
//! statement ends, as InnoDB keeps the row locks taken after a savepoint that was rolled
//! back to. The row counts the statement keeps for its tables go back to the savepoint's.
//!
//! [`Statement`]: crate::Statement

use crate::table::{Statement, TableInner};
use myriad_cache::Block;
use std::collections::HashMap;
use std::sync::Arc;

/// One savepoint of a statement.
#[derive(Default)]
pub(crate) struct Level {
    /// The pages touched before the savepoint: the first `touched_before` of the statement's.
    touched_before: usize,
    /// The images at the savepoint of those pages changed since, by their position.
    saved: HashMap<usize, Box<[u8]>>,
    /// The statement's row counts at the savepoint.
    meta: Vec<crate::statement::MetaDelta>,
}

/// A savepoint of a [`Statement`], from [`Statement::savepoint`]: the number of savepoints
/// before it, so that a later one can be told from an earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Savepoint(usize);

impl Statement {
    /// Take a savepoint: [`Statement::rollback_to`] it undoes every change made after
    /// this call and keeps those made before.
    pub fn savepoint(&mut self) -> Savepoint {
        self.levels.push(Level {
            touched_before: self.touched.len(),
            saved: HashMap::new(),
            meta: self.meta.clone(),
        });
        Savepoint(self.levels.len() - 1)
    }

    /// Undo every change made since `savepoint` was taken; it and the savepoints before it
    /// stay, the later ones are gone. A savepoint already gone (released, or rolled back
    /// past) changes nothing and answers false.
    pub fn rollback_to(&mut self, savepoint: Savepoint) -> bool {
        let Some(level) = self.levels.get_mut(savepoint.0) else {
            return false;
        };
        let keep = level.touched_before;
        let saved = std::mem::take(&mut level.saved);
        self.meta = level.meta.clone();
        self.levels.truncate(savepoint.0 + 1);
        let mut restores: Vec<(&Arc<TableInner>, &Block, &[u8])> = saved
            .iter()
            .map(|(&i, image)| {
                let t = &self.touched[i];
                (&t.table, &t.block, &image[..])
            })
            .collect();
        restores.extend(
            self.touched[keep..]
                .iter()
                .map(|t| (&t.table, &t.block, &t.before[..])),
        );
        restore(restores);
        for t in self.touched.drain(keep..) {
            self.by_page.remove(&(t.space, t.page_no));
            t.block.end_write();
        }
        true
    }

    /// Forget `savepoint` and every later one; the changes stay. False when it was gone.
    pub fn release(&mut self, savepoint: Savepoint) -> bool {
        if savepoint.0 >= self.levels.len() {
            return false;
        }
        self.levels.truncate(savepoint.0);
        true
    }

    /// Page `index` of the statement's touched pages is about to change again: keep its
    /// image in each savepoint taken after its first touch that has none yet.
    pub(crate) fn save_for_levels(&mut self, index: usize) {
        let _reading = self.reading_own();
        let block = &self.touched[index].block;
        let mut image: Option<Box<[u8]>> = None;
        for level in self.levels.iter_mut() {
            if index < level.touched_before && !level.saved.contains_key(&index) {
                let copy = image.get_or_insert_with(|| block.read().as_ref().into());
                level.saved.insert(index, copy.clone());
            }
        }
    }
}

/// Put `image` back into each block, table by table under the table's latch (no reader sees
/// a half-restored tree); then tell readers that index entries may have moved.
pub(crate) fn restore(mut pages: Vec<(&Arc<TableInner>, &Block, &[u8])>) {
    while let Some(&(table, ..)) = pages.first() {
        let (this, rest): (Vec<_>, Vec<_>) =
            pages.into_iter().partition(|(t, ..)| Arc::ptr_eq(t, table));
        {
            let _latch = table.latch.write();
            for (_, block, image) in this.iter().rev() {
                block.write().copy_from_slice(image);
            }
            for index_no in 0..table.index_moves.len() {
                table.note_index_move(index_no);
            }
        }
        pages = rest;
    }
}
