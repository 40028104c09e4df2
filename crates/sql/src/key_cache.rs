//! The key cache's SQL surface: its system variables at start-up and on `SET GLOBAL`,
//! `LOAD INDEX INTO CACHE`, `CACHE INDEX` and the rows of `information_schema.KEY_CACHES`.
//!
//! myriad has one key cache, the storage engine's block cache (`default`), through which
//! every page of every table is read; its knobs keep MySQL's names:
//! - `key_buffer_size`: an online resize that keeps the cached blocks that still fit
//!   (`BlockCache::resize`); readers never go around the cache to disk meanwhile.
//! - `key_cache_division_limit`, `key_cache_age_threshold`: the probationary share and the
//!   aging rate of the cache's CLOCK (see `myriad_cache::block_cache`).
//! - `key_cache_block_size`: fixed at the page size (16384), read-only.
//! - `key_cache_segments`: accepted and shown in KEY_CACHES; a hit takes no lock, so there
//!   is nothing to segment.
//!
//! `CACHE INDEX ... IN default` succeeds; named key caches (`SET GLOBAL name.key_buffer_size`)
//! are not implemented, so any other name is MySQL's error 1284 (Unknown key cache).

use crate::error::SqlError;
use crate::eval::Datum;
use crate::sysvars::{self, VarValue};
use crate::Engine;
use myriad_storage::{Storage, StorageError};

/// The one key cache's name, as MySQL calls its default cache.
pub const DEFAULT_CACHE: &str = "default";

/// (database, table, IGNORE LEAVES) of one table named by LOAD INDEX INTO CACHE.
pub type TableToLoad = (Option<String>, String, bool);

/// A parsed key cache statement.
#[derive(Debug, Clone)]
pub enum KeyCacheStmt {
    /// `LOAD INDEX INTO CACHE t [IGNORE LEAVES], ...`: (database, table, ignore_leaves).
    LoadIndex { tables: Vec<TableToLoad> },
    /// `CACHE INDEX t, ... IN name`.
    CacheIndex {
        tables: Vec<(Option<String>, String)>,
        cache: String,
    },
}

/// The columns of the result rows of both statements, as MySQL shows them.
pub const RESULT_COLUMNS: &[(&str, u32)] = &[
    ("Table", 64),
    ("Op", 10),
    ("Msg_type", 10),
    ("Msg_text", 1024),
];

/// Apply the key cache variables' start-up values to the block cache (the size is given
/// when the storage engine opens).
pub(crate) fn configure(storage: &Storage, globals: &[VarValue]) {
    for name in ["key_cache_division_limit", "key_cache_age_threshold"] {
        if let Some(value) = sysvars::lookup(name).and_then(|i| globals.get(i)) {
            apply(storage, name, value);
        }
    }
}

/// React to `SET GLOBAL name = value` (called by `global_effects::apply`). Returns whether
/// `name` is a key cache variable.
pub(crate) fn apply(storage: &Storage, name: &str, value: &VarValue) -> bool {
    let cache = storage.key_cache();
    let n = crate::global_effects::as_u64(value);
    match name {
        "key_buffer_size" => {
            // A resize fails only when it cannot move a block (an I/O error writing a dirty
            // victim); the blocks it could not move are retired by the clock later.
            if let Err(e) = cache.resize(usize::try_from(n).unwrap_or(usize::MAX)) {
                eprintln!("myriad: key_buffer_size resize: {e}");
            }
        }
        "key_cache_division_limit" => cache.set_division_limit(n),
        "key_cache_age_threshold" => cache.set_age_threshold(n),
        "key_cache_segments" => {} // shown in KEY_CACHES; nothing to split (see the module doc)
        _ => return false,
    }
    true
}

fn unknown_cache(name: &str) -> SqlError {
    SqlError::new(1284, "HY000", format!("Unknown key cache '{name}'"))
}

/// Run a key cache statement: the result rows (see [`RESULT_COLUMNS`]).
pub(crate) fn execute(
    engine: &Engine,
    stmt: &KeyCacheStmt,
    current_db: Option<&str>,
) -> Result<Vec<Vec<Datum>>, SqlError> {
    let storage = engine.catalog.storage();
    let mut rows = Vec::new();
    let (op, tables): (&str, Vec<TableToLoad>) = match stmt {
        KeyCacheStmt::LoadIndex { tables } => ("preload_keys", tables.clone()),
        KeyCacheStmt::CacheIndex { tables, cache } => {
            if !cache.eq_ignore_ascii_case(DEFAULT_CACHE) {
                return Err(unknown_cache(cache));
            }
            let tables = tables
                .iter()
                .map(|(db, t)| (db.clone(), t.clone(), false))
                .collect();
            ("assign_to_keycache", tables)
        }
    };
    for (db, name, ignore_leaves) in tables {
        let db = db
            .or_else(|| current_db.map(str::to_string))
            .ok_or_else(crate::tables::err_no_database)?;
        let label = Datum::Str(format!("{db}.{name}").into_bytes());
        let row = |kind: &str, text: String| {
            vec![
                label.clone(),
                Datum::text(op),
                Datum::text(kind),
                Datum::Str(text.into_bytes()),
            ]
        };
        let outcome = storage.open_table(&db, &name).and_then(|t| match stmt {
            KeyCacheStmt::LoadIndex { .. } => t.preload_index(ignore_leaves).map(|_| ()),
            // Every table already reads through the default cache.
            KeyCacheStmt::CacheIndex { .. } => Ok(()),
        });
        match outcome {
            Ok(()) => rows.push(row("status", "OK".into())),
            Err(e) => {
                let message = match &e {
                    StorageError::NoSuchTable(..) | StorageError::NoSuchDatabase(..) => {
                        format!("Table '{db}.{name}' doesn't exist")
                    }
                    _ => crate::catalog::storage_error(e).message,
                };
                rows.push(row("Error", message));
                rows.push(row("status", "Operation failed".into()));
            }
        }
    }
    Ok(rows)
}

/// `information_schema.KEY_CACHES`: MariaDB's columns (0 = an unsigned integer column).
pub const KEY_CACHES_COLUMNS: &[(&str, u32)] = &[
    ("KEY_CACHE_NAME", 192),
    ("SEGMENTS", 0),
    ("SEGMENT_NUMBER", 0),
    ("FULL_SIZE", 0),
    ("BLOCK_SIZE", 0),
    ("USED_BLOCKS", 0),
    ("UNUSED_BLOCKS", 0),
    ("DIRTY_BLOCKS", 0),
    ("READ_REQUESTS", 0),
    ("READS", 0),
    ("WRITE_REQUESTS", 0),
    ("WRITES", 0),
];

/// One row per key cache. MariaDB adds a row per segment when `key_cache_segments` > 0;
/// myriad's cache has no segments, so its one row (SEGMENT_NUMBER NULL, MariaDB's total
/// row) shows SEGMENTS as the variable's value.
pub(crate) fn key_caches_rows(engine: &Engine) -> Vec<Vec<Datum>> {
    let cache = engine.catalog.storage().key_cache();
    let s = cache.stats();
    let segments = match engine.global_variable("key_cache_segments") {
        Some(crate::Value::UInt(n)) if n > 0 => Datum::UInt(n),
        Some(crate::Value::Int(n)) if n > 0 => Datum::UInt(n as u64),
        _ => Datum::Null,
    };
    let block_size = cache.block_size() as u64;
    vec![vec![
        Datum::text(DEFAULT_CACHE),
        segments,
        Datum::Null,
        Datum::UInt(cache.capacity_blocks() as u64 * block_size),
        Datum::UInt(block_size),
        Datum::UInt(s.key_blocks_used),
        Datum::UInt(s.key_blocks_unused),
        Datum::UInt(s.key_blocks_not_flushed),
        Datum::UInt(s.key_read_requests),
        Datum::UInt(s.key_reads),
        Datum::UInt(s.key_write_requests),
        Datum::UInt(s.key_writes),
    ]]
}
