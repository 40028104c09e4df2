//! Status counters (`SHOW STATUS`) that the SQL layer bumps on the query path.
//!
//! Every statement bumps at least two counters (`Questions` and one `Com_*`). A single
//! array of atomics shared by all threads would make each of those increments bounce one
//! cache line between cores, the kind of global hot spot the seeds warn about. So the
//! global counters are sharded: [`SHARDS`] copies of the counter array, each on its own
//! cache lines; a session always writes the shard its connection id picks, and a reader
//! (SHOW GLOBAL STATUS) sums the shards. Each session also keeps its own plain counters
//! for SHOW SESSION STATUS.

use std::sync::atomic::{AtomicU64, Ordering};

/// Statement kinds with a `Com_*` counter, plus the other per-query counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Counter {
    Questions,
    Queries,
    ComAdminCommands,
    ComAlterDb,
    ComAlterTable,
    ComAlterUser,
    ComAnalyze,
    ComAssignToKeycache,
    ComBegin,
    ComChangeDb,
    ComCheck,
    ComCommit,
    ComCreateDb,
    ComCreateIndex,
    ComCreateTable,
    ComCreateRole,
    ComCreateUser,
    ComCreateView,
    ComDeallocSql,
    ComDelete,
    ComDropDb,
    ComDropFunction,
    ComInstallPlugin,
    ComUninstallPlugin,
    ComDropIndex,
    ComDropProcedure,
    ComDropRole,
    ComDropTable,
    ComDropUser,
    ComDropView,
    ComExecuteImmediate,
    ComExecuteSql,
    ComFlush,
    ComGrant,
    ComGrantRole,
    ComInsert,
    ComPreloadKeys,
    ComPrepareSql,
    ComReleaseSavepoint,
    ComRenameTable,
    ComRenameUser,
    ComReplace,
    ComRevoke,
    ComRevokeRole,
    ComRollback,
    ComRollbackToSavepoint,
    ComSavepoint,
    ComSelect,
    ComSetOption,
    ComShowCreateTable,
    ComShowCreateUser,
    ComShowDatabases,
    ComShowGrants,
    ComShowFields,
    ComShowKeys,
    ComShowStatus,
    ComShowTables,
    ComShowVariables,
    ComShowWarnings,
    ComShutdown,
    ComKill,
    ComLoad,
    ComLockTables,
    ComStmtClose,
    ComStmtExecute,
    ComStmtPrepare,
    ComStmtReset,
    ComTruncate,
    ComUnlockTables,
    ComUpdate,
    CreatedTmpDiskTables,
    CreatedTmpFiles,
    CreatedTmpTables,
    SelectScan,
    SortMergePasses,
    SortRange,
    SortRows,
    SortScan,
    /// Statements that max_statement_time ended (error 1969).
    MaxStatementTimeExceeded,
    SlowQueries,
}

/// `(counter, MySQL name)`, sorted by name as SHOW STATUS lists them.
pub const NAMES: &[(Counter, &str)] = &[
    (Counter::ComAdminCommands, "Com_admin_commands"),
    (Counter::ComAlterDb, "Com_alter_db"),
    (Counter::ComAlterTable, "Com_alter_table"),
    (Counter::ComAlterUser, "Com_alter_user"),
    (Counter::ComAnalyze, "Com_analyze"),
    (Counter::ComAssignToKeycache, "Com_assign_to_keycache"),
    (Counter::ComBegin, "Com_begin"),
    (Counter::ComChangeDb, "Com_change_db"),
    (Counter::ComCheck, "Com_check"),
    (Counter::ComCommit, "Com_commit"),
    (Counter::ComCreateDb, "Com_create_db"),
    (Counter::ComCreateIndex, "Com_create_index"),
    (Counter::ComCreateRole, "Com_create_role"),
    (Counter::ComCreateTable, "Com_create_table"),
    (Counter::ComCreateUser, "Com_create_user"),
    (Counter::ComCreateView, "Com_create_view"),
    (Counter::ComDeallocSql, "Com_dealloc_sql"),
    (Counter::ComDelete, "Com_delete"),
    (Counter::ComDropDb, "Com_drop_db"),
    (Counter::ComDropFunction, "Com_drop_function"),
    (Counter::ComDropIndex, "Com_drop_index"),
    (Counter::ComDropProcedure, "Com_drop_procedure"),
    (Counter::ComDropRole, "Com_drop_role"),
    (Counter::ComDropTable, "Com_drop_table"),
    (Counter::ComDropUser, "Com_drop_user"),
    (Counter::ComDropView, "Com_drop_view"),
    (Counter::ComExecuteImmediate, "Com_execute_immediate"),
    (Counter::ComExecuteSql, "Com_execute_sql"),
    (Counter::ComFlush, "Com_flush"),
    (Counter::ComGrant, "Com_grant"),
    (Counter::ComGrantRole, "Com_grant_role"),
    (Counter::ComInsert, "Com_insert"),
    (Counter::ComInstallPlugin, "Com_install_plugin"),
    (Counter::ComKill, "Com_kill"),
    (Counter::ComLoad, "Com_load"),
    (Counter::ComLockTables, "Com_lock_tables"),
    (Counter::ComPreloadKeys, "Com_preload_keys"),
    (Counter::ComPrepareSql, "Com_prepare_sql"),
    (Counter::ComReleaseSavepoint, "Com_release_savepoint"),
    (Counter::ComRenameTable, "Com_rename_table"),
    (Counter::ComRenameUser, "Com_rename_user"),
    (Counter::ComReplace, "Com_replace"),
    (Counter::ComRevoke, "Com_revoke"),
    (Counter::ComRevokeRole, "Com_revoke_role"),
    (Counter::ComRollback, "Com_rollback"),
    (Counter::ComRollbackToSavepoint, "Com_rollback_to_savepoint"),
    (Counter::ComSavepoint, "Com_savepoint"),
    (Counter::ComSelect, "Com_select"),
    (Counter::ComSetOption, "Com_set_option"),
    (Counter::ComShowCreateTable, "Com_show_create_table"),
    (Counter::ComShowCreateUser, "Com_show_create_user"),
    (Counter::ComShowDatabases, "Com_show_databases"),
    (Counter::ComShowFields, "Com_show_fields"),
    (Counter::ComShowGrants, "Com_show_grants"),
    (Counter::ComShowKeys, "Com_show_keys"),
    (Counter::ComShowStatus, "Com_show_status"),
    (Counter::ComShowTables, "Com_show_tables"),
    (Counter::ComShowVariables, "Com_show_variables"),
    (Counter::ComShowWarnings, "Com_show_warnings"),
    (Counter::ComShutdown, "Com_shutdown"),
    (Counter::ComStmtClose, "Com_stmt_close"),
    (Counter::ComStmtExecute, "Com_stmt_execute"),
    (Counter::ComStmtPrepare, "Com_stmt_prepare"),
    (Counter::ComStmtReset, "Com_stmt_reset"),
    (Counter::ComTruncate, "Com_truncate"),
    (Counter::ComUninstallPlugin, "Com_uninstall_plugin"),
    (Counter::ComUnlockTables, "Com_unlock_tables"),
    (Counter::ComUpdate, "Com_update"),
    (Counter::CreatedTmpDiskTables, "Created_tmp_disk_tables"),
    (Counter::CreatedTmpFiles, "Created_tmp_files"),
    (Counter::CreatedTmpTables, "Created_tmp_tables"),
    (
        Counter::MaxStatementTimeExceeded,
        "Max_statement_time_exceeded",
    ),
    (Counter::Queries, "Queries"),
    (Counter::Questions, "Questions"),
    (Counter::SelectScan, "Select_scan"),
    (Counter::SlowQueries, "Slow_queries"),
    (Counter::SortMergePasses, "Sort_merge_passes"),
    (Counter::SortRange, "Sort_range"),
    (Counter::SortRows, "Sort_rows"),
    (Counter::SortScan, "Sort_scan"),
];

pub const COUNTER_COUNT: usize = Counter::SlowQueries as usize + 1;

/// Number of shards of the global counters. Sessions pick one by connection id, so with up
/// to this many busy connections no two of them write the same cache line; more shards cost
/// 400 bytes each and make SHOW GLOBAL STATUS sum more.
pub const SHARDS: usize = 64;

/// One shard: aligned to 128 bytes (two cache lines, for the adjacent-line prefetcher) so no
/// two shards share a line.
#[repr(align(128))]
struct Shard {
    counts: [AtomicU64; COUNTER_COUNT],
}

/// The global counters, sharded.
pub struct GlobalCounters {
    shards: Box<[Shard]>,
}

impl Default for GlobalCounters {
    fn default() -> Self {
        GlobalCounters {
            shards: (0..SHARDS)
                .map(|_| Shard {
                    counts: std::array::from_fn(|_| AtomicU64::new(0)),
                })
                .collect(),
        }
    }
}

impl GlobalCounters {
    #[inline]
    pub fn bump(&self, shard: usize, counter: Counter) {
        self.shards[shard % SHARDS].counts[counter as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// Add `n` at once (a statement's sort counters).
    #[inline]
    pub fn add(&self, shard: usize, counter: Counter, n: u64) {
        if n > 0 {
            self.shards[shard % SHARDS].counts[counter as usize].fetch_add(n, Ordering::Relaxed);
        }
    }

    /// The sum over all shards.
    pub fn read(&self, counter: Counter) -> u64 {
        self.shards
            .iter()
            .map(|s| s.counts[counter as usize].load(Ordering::Relaxed))
            .fold(0u64, u64::wrapping_add)
    }

    /// FLUSH STATUS.
    pub fn reset(&self) {
        for shard in self.shards.iter() {
            for c in &shard.counts {
                c.store(0, Ordering::Relaxed);
            }
        }
    }
}

/// A session's own counters (SHOW SESSION STATUS); only its thread touches them.
#[derive(Debug, Clone)]
pub struct SessionCounters {
    pub counts: [u64; COUNTER_COUNT],
}

impl Default for SessionCounters {
    fn default() -> Self {
        SessionCounters {
            counts: [0; COUNTER_COUNT],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_and_cover_every_counter() {
        for pair in NAMES.windows(2) {
            assert!(
                pair[0].1 < pair[1].1,
                "{} must sort before {}",
                pair[0].1,
                pair[1].1
            );
        }
        let mut seen = [false; COUNTER_COUNT];
        for (c, _) in NAMES {
            seen[*c as usize] = true;
        }
        assert!(seen.iter().all(|s| *s), "every counter has a name");
        assert_eq!(std::mem::align_of::<Shard>(), 128);
    }

    #[test]
    fn sharded_sums_match_increments_across_threads() {
        let counters = std::sync::Arc::new(GlobalCounters::default());
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let c = std::sync::Arc::clone(&counters);
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        c.bump(t, Counter::Questions);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("counter thread");
        }
        assert_eq!(counters.read(Counter::Questions), 80_000);
        counters.reset();
        assert_eq!(counters.read(Counter::Questions), 0);
    }
}
