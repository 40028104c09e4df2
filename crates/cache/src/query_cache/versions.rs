//! Table versions: the one thing a cached result depends on.
//!
//! Every table has a [`VersionCell`], a shared `AtomicU64` that writers bump and readers
//! copy. The protocol (see the module docs of [`super`]) needs only two atomic operations:
//! a writer's `fetch_add` *before* its first change becomes visible and again when its
//! statement commits or rolls back, and a reader's `load` before it executes and again when
//! it inserts or serves a result. A write never waits for the cache: bumping is one atomic
//! add on a cell the writer already holds.
//!
//! Cells live in [`TableVersions`], a sharded map from the lower-cased `database.table`
//! to its cell. A cell that no cached entry, reader or writer holds (`strong_count == 1`,
//! checked under the shard's write lock, where no clone can be taken) is pruned when a shard
//! grows, so the registry stays proportional to the tables in use, not to every table ever
//! touched. A pruned cell cannot be confused with its successor: nothing holds it.

use super::sync::{AtomicU64, Ordering, RwLock};
use std::collections::HashMap;
use std::sync::Arc;

/// Registry shards: enough that concurrent statements on different tables rarely share a
/// lock, few enough that a prune pass is cheap.
const REGISTRY_SHARDS: usize = 16;

/// A shard is pruned when it holds this many more cells than after its last prune: the
/// prune cost (a pass over the shard) is amortised over as many insertions.
const PRUNE_SLACK_CELLS: usize = 1024;

/// One table's version. Cloning shares the cell.
#[derive(Clone, Debug, Default)]
pub struct VersionCell(Arc<AtomicU64>);

impl VersionCell {
    pub fn new() -> VersionCell {
        VersionCell::default()
    }

    /// Mark a change: every [`Dep`] taken before now no longer holds.
    pub fn bump(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    pub fn current(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }

    /// The dependency of a result computed from now on.
    pub fn snapshot(&self) -> Dep {
        Dep {
            cell: self.clone(),
            seen: self.current(),
        }
    }

    /// Whether both handles are the same table's cell.
    pub fn same(&self, other: &VersionCell) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    fn holders(&self) -> usize {
        Arc::strong_count(&self.0)
    }
}

/// A version observed before a result was computed.
#[derive(Clone, Debug)]
pub struct Dep {
    cell: VersionCell,
    seen: u64,
}

impl Dep {
    /// Whether no write started or finished on the table since the snapshot.
    pub fn holds(&self) -> bool {
        self.cell.current() == self.seen
    }
}

/// Whether every dependency still holds.
pub fn all_hold(deps: &[Dep]) -> bool {
    deps.iter().all(Dep::holds)
}

/// Bumps a set of cells when created and again when dropped: held across a write statement
/// (or DDL) so that readers see a change both when it starts and when it ends, whatever
/// path (commit, error, rollback) ends it.
#[must_use = "the second bump happens when the guard drops"]
pub struct WriteGuard {
    cells: Vec<VersionCell>,
}

impl WriteGuard {
    pub fn new(cells: Vec<VersionCell>) -> WriteGuard {
        for cell in &cells {
            cell.bump();
        }
        WriteGuard { cells }
    }
}

impl Drop for WriteGuard {
    fn drop(&mut self) {
        for cell in &self.cells {
            cell.bump();
        }
    }
}

#[derive(Default)]
struct RegistryShard {
    cells: HashMap<String, VersionCell>,
    len_after_prune: usize,
}

/// The version cell of every table in use, by lower-cased `database.table`.
pub struct TableVersions {
    shards: Box<[RwLock<RegistryShard>]>,
    /// Bumped by changes that concern every table (DROP DATABASE, RESET QUERY CACHE);
    /// every cached entry depends on it.
    everything: VersionCell,
}

impl Default for TableVersions {
    fn default() -> Self {
        TableVersions::new()
    }
}

impl TableVersions {
    pub fn new() -> TableVersions {
        TableVersions {
            shards: (0..REGISTRY_SHARDS)
                .map(|_| RwLock::new(RegistryShard::default()))
                .collect(),
            everything: VersionCell::new(),
        }
    }

    /// The cell every entry depends on.
    pub fn everything(&self) -> &VersionCell {
        &self.everything
    }

    /// The cell of `database.table`, created on first use.
    pub fn cell(&self, database: &str, table: &str) -> VersionCell {
        let mut name = String::with_capacity(database.len() + table.len() + 1);
        for c in database.chars() {
            name.extend(c.to_lowercase());
        }
        name.push('.');
        for c in table.chars() {
            name.extend(c.to_lowercase());
        }
        let shard = &self.shards[super::hash_bytes(name.as_bytes()) as usize % REGISTRY_SHARDS];
        if let Some(cell) = shard.read().cells.get(&name) {
            return cell.clone();
        }
        let mut shard = shard.write();
        if let Some(cell) = shard.cells.get(&name) {
            return cell.clone();
        }
        if shard.cells.len() >= shard.len_after_prune + PRUNE_SLACK_CELLS {
            shard.cells.retain(|_, cell| cell.holders() > 1);
            shard.len_after_prune = shard.cells.len();
        }
        let cell = VersionCell::new();
        shard.cells.insert(name, cell.clone());
        cell
    }

    /// Cells registered now (for tests and status).
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.read().cells.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    #[test]
    fn a_bump_breaks_every_earlier_snapshot() {
        let versions = TableVersions::new();
        let cell = versions.cell("Shop", "Items");
        let before = cell.snapshot();
        assert!(before.holds());
        let same = versions.cell("shop", "items");
        same.bump();
        assert!(
            !before.holds(),
            "a bump through another handle of the same table"
        );
        assert!(cell.snapshot().holds());
    }

    #[test]
    fn a_write_guard_bumps_at_start_and_at_end() {
        let versions = TableVersions::new();
        let cell = versions.cell("d", "t");
        let before = cell.snapshot();
        let guard = WriteGuard::new(vec![cell.clone()]);
        assert!(!before.holds(), "the start of a write is visible at once");
        let during = cell.snapshot();
        drop(guard);
        assert!(
            !during.holds(),
            "a result read during the write is stale after it"
        );
    }

    #[test]
    fn unused_cells_are_pruned_and_held_ones_kept() {
        let versions = TableVersions::new();
        let held = versions.cell("d", "held");
        let dep = held.snapshot();
        drop(held);
        for n in 0..(REGISTRY_SHARDS * PRUNE_SLACK_CELLS * 3) {
            let _ = versions.cell("d", &format!("t{n}"));
        }
        assert!(
            versions.len() < REGISTRY_SHARDS * PRUNE_SLACK_CELLS * 2,
            "unused cells pruned: {} left",
            versions.len()
        );
        versions.cell("d", "held").bump();
        assert!(!dep.holds(), "a cell held by a dependency survives pruning");
    }
}
