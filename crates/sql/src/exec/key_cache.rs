//! The key cache's SQL surface: its system variables at start-up and on `SET GLOBAL`,
//! named key caches and their structured variables, `LOAD INDEX INTO CACHE`, `CACHE INDEX`
//! and the rows of `information_schema.KEY_CACHES`.
//!
//! The default key cache is the storage engine's block cache, through which every page of
//! every table is read unless the table is assigned to a named cache; its knobs keep
//! MySQL's names:
//! - `key_buffer_size`: an online resize that keeps the cached blocks that still fit
//!   (`BlockCache::resize`); readers never go around the cache to disk meanwhile.
//! - `key_cache_division_limit`, `key_cache_age_threshold`: the probationary share and the
//!   aging rate of the cache's CLOCK (see `myriad_cache::block_cache`).
//! - `key_cache_block_size`: what a miss reads in one I/O, a run of whole pages (16384, the
//!   default, reads the page alone); the run's other pages enter the cache cold
//!   (`myriad_cache::KeyCache::set_read_unit`). The cache's blocks stay pages (16 KiB
//!   checksummed units): MySQL's smaller blocks are raised to one page with a warning.
//! - `key_cache_segments`: the default cache's segments, each a block cache of its own with
//!   its own clock hand and counters (`myriad_cache::KeyCache`); a hit takes no lock with or
//!   without them. A `SET GLOBAL` re-segments the cache at once, keeping its blocks
//!   (`KeyCache::resegment`); blocks pinned by statements in progress follow when released. While
//!   blocks of the last re-segmentation still wait, another count is refused (note 1105 for
//!   the default cache, error 1105 for a named one).
//!
//! Named key caches, as MariaDB has them (`myriad_cache::KeyCaches` routes a table's pages):
//! - `SET GLOBAL hot.key_buffer_size = n` creates or resizes the cache `hot`; `= 0` moves
//!   its tables back to the default cache and destroys it (the default cache cannot be
//!   destroyed: error 1438). `hot.key_cache_division_limit`, `hot.key_cache_age_threshold`
//!   `hot.key_cache_segments` and `hot.key_cache_block_size` are its own.
//!   `default.x` is the plain variable `x`. A value under 4096 for a named cache's size
//!   destroys it, as MariaDB turns a size too small for one block into 0.
//! - `SELECT @@hot.key_buffer_size` (also `@@global.hot.x`) reads them; a cache never set
//!   reads as 0; `@@hot.max_connections` is error 1272 and `@@session.hot.x` error 1238.
//! - `CACHE INDEX t1, t2 IN hot` moves the tables (under their metadata lock, like a DDL:
//!   their dirty pages are written and dropped from the old cache); an unknown cache is
//!   error 1284. Assignments are kept by table name (so they survive FLUSH TABLES and
//!   ALTER) until the server stops, as in MariaDB. `LOAD INDEX INTO CACHE` reads into the
//!   table's cache.
//! - The `Key_*` status variables are the default cache's; KEY_CACHES has a row per cache
//!   and per segment.

use crate::error::SqlError;
use crate::expr::eval::SqlValue;
use crate::expr::eval::Warning;
use crate::plan::key_cache::*;
use crate::system::key_cache_effects::{apply, knob};
use crate::system::sysvars::Setting;
use crate::system::sysvars::VarValue;
use crate::value::Value;
use crate::Engine;
use myriad_storage::{Storage, StorageError};
use myriad_types::errors::{
    ER_INCORRECT_GLOBAL_LOCAL_VAR, ER_UNKNOWN_ERROR, ER_UNKNOWN_KEY_CACHE,
    ER_WARN_CANT_DROP_DEFAULT_KEYCACHE,
};
use std::sync::Arc;

/// The columns of the result rows of both statements, as MySQL shows them (CHECK TABLE
/// and ANALYZE TABLE answer with the same ones).
pub const RESULT_COLUMNS: &[(&str, u32)] = &[
    ("Table", 64),
    ("Op", 10),
    ("Msg_type", 10),
    ("Msg_text", 1024),
];

/// A row of [`RESULT_COLUMNS`]: what operation `op` says about table `db.name`.
pub(crate) fn table_message(
    db: &str,
    name: &str,
    op: &str,
    kind: &str,
    text: String,
) -> Vec<Value> {
    vec![
        Value::Bytes(format!("{db}.{name}").into_bytes()),
        Value::text(op),
        Value::text(kind),
        Value::Bytes(text.into_bytes()),
    ]
}

/// Apply the key cache variables' start-up values to the block cache (the size is given
/// when the storage engine opens).
pub(crate) fn configure(storage: &Storage, globals: &[VarValue]) {
    for name in [
        "key_cache_division_limit",
        "key_cache_age_threshold",
        "key_cache_block_size",
    ] {
        if let Some(value) = crate::system::sysvars::lookup(name).and_then(|i| globals.get(i)) {
            apply(storage, name, value);
        }
    }
}

/// The note a committed `SET GLOBAL name = value` of a default-cache variable may need.
pub(crate) fn default_cache_note(engine: &Engine, name: &str, value: &VarValue) -> Option<Warning> {
    let asked = crate::system::global_effects::as_u64(value);
    (name == "key_cache_segments")
        .then(|| segments_note(engine, DEFAULT_CACHE, asked))
        .flatten()
}

/// The note for a `key_cache_segments` value the cache does not have after the SET: the
/// last re-segmentation still has blocks to move (see the module documentation).
pub(crate) fn segments_note(engine: &Engine, cache: &str, asked: u64) -> Option<Warning> {
    let caches = engine.catalog.storage().key_caches();
    let info = caches.find(cache)?;
    let current = caches.cache_named(cache)?;
    if current.is_made_with(
        usize::try_from(info.size_bytes).unwrap_or(usize::MAX),
        asked,
    ) {
        return None;
    }
    let have = current.segments_shown();
    Some(Warning {
        level: "Note",
        code: ER_UNKNOWN_ERROR.code,
        message: format!(
            "key_cache_segments = {asked} is not in effect: key cache '{}' keeps its {have} segments while blocks of its last re-segmentation are pinned by statements in progress; set it again once they end",
            info.name
        ),
    })
}

fn unknown_cache(name: &str) -> SqlError {
    SqlError::new(ER_UNKNOWN_KEY_CACHE, format!("Unknown key cache '{name}'"))
}

/// Run `LOAD INDEX INTO CACHE` or `CACHE INDEX`: the result rows (see [`RESULT_COLUMNS`]).
pub(crate) fn execute(
    engine: &Engine,
    stmt: &KeyCacheStmt,
    current_db: Option<&str>,
) -> Result<Vec<Vec<Value>>, SqlError> {
    let storage = engine.catalog.storage();
    let mut rows = Vec::new();
    let mut target = 0;
    let (op, tables): (&str, Vec<TableToLoad>) = match stmt {
        KeyCacheStmt::LoadIndex { tables } => ("preload_keys", tables.clone()),
        KeyCacheStmt::CacheIndex { tables, cache } => {
            if !cache.eq_ignore_ascii_case(DEFAULT_CACHE) {
                // A cache whose variables were set (even one destroyed since), as MariaDB
                // keeps the cache object of every name it was given.
                target = storage
                    .key_caches()
                    .find(cache)
                    .filter(|c| c.declared)
                    .ok_or_else(|| unknown_cache(cache))?
                    .id;
            }
            let tables = tables
                .iter()
                .map(|(db, t)| (db.clone(), t.clone(), false))
                .collect();
            ("assign_to_keycache", tables)
        }
        KeyCacheStmt::SetStructured(_) => return Ok(rows),
    };
    for (db, name, ignore_leaves) in tables {
        let db = db
            .or_else(|| current_db.map(str::to_string))
            .ok_or_else(crate::plan::tables::err_no_database)?;
        let row = |kind: &str, text: String| table_message(&db, &name, op, kind, text);
        let outcome = match stmt {
            KeyCacheStmt::LoadIndex { .. } => storage
                .open_table(&db, &name)
                .and_then(|t| t.preload_index(ignore_leaves).map(|_| ())),
            _ => storage.assign_key_cache(&db, &name, target),
        };
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

/// `SET GLOBAL cache.variable = value, ...`: every value is checked first (none is applied
/// when one fails), then applied in order.
pub(crate) fn set_structured(
    engine: &Engine,
    sets: &[StructuredSet],
    env: &mut dyn crate::expr::Env,
) -> Result<(), SqlError> {
    let mut values = Vec::with_capacity(sets.len());
    for set in sets {
        let def = crate::system::sysvars::def(set.index);
        if def.read_only {
            return Err(SqlError::new(
                ER_INCORRECT_GLOBAL_LOCAL_VAR,
                format!("Variable '{}' is a read only variable", def.name),
            ));
        }
        let setting = match &set.value {
            None => Setting::Text(def.default.unwrap_or("0").to_string()),
            Some(e) => match e.eval(env, &[])? {
                Value::Null => Setting::Null,
                Value::Int(i) => Setting::Int(i as i128),
                Value::UInt(u) => Setting::Int(u as i128),
                Value::Double(f) => Setting::Double(f),
                d @ Value::Decimal(_) => {
                    Setting::Double(d.to_text_lossy().parse::<f64>().unwrap_or(0.0))
                }
                other => Setting::Str(other.to_text_lossy()),
            },
        };
        let default_cache = set.cache.eq_ignore_ascii_case(DEFAULT_CACHE);
        let value = match setting {
            // MariaDB makes a named cache too small for a block (or negative) size 0.
            Setting::Int(i) if def.name == "key_buffer_size" && i < 4096 => VarValue::UInt(0),
            setting => crate::system::sysvars::parse_setting(def, &setting)?.0,
        };
        if default_cache && def.name == "key_buffer_size" && value == VarValue::UInt(0) {
            return Err(SqlError::new(
                ER_WARN_CANT_DROP_DEFAULT_KEYCACHE,
                "Cannot drop default keycache",
            ));
        }
        values.push(value);
    }
    let storage = engine.catalog.storage();
    let caches = storage.key_caches();
    let failed = |e: std::io::Error| crate::catalog::storage_error(StorageError::from(e));
    for (set, value) in sets.iter().zip(values) {
        let def = crate::system::sysvars::def(set.index);
        if set.cache.eq_ignore_ascii_case(DEFAULT_CACHE) {
            // The plain global variable, with its effect.
            {
                let mut globals = engine.globals.write();
                let mut next = globals.as_ref().clone();
                next[set.index] = value.clone();
                *globals = Arc::new(next);
            }
            crate::system::global_effects::apply(engine, def.name, &value);
            env.warnings()
                .extend(default_cache_note(engine, def.name, &value));
            continue;
        }
        let n = crate::system::global_effects::as_u64(&value);
        match def.name {
            "key_buffer_size" if n == 0 => storage
                .destroy_key_cache(&set.cache)
                .map_err(crate::catalog::storage_error)?,
            "key_buffer_size" => caches.set_size(&set.cache, n).map_err(failed)?,
            "key_cache_division_limit" | "key_cache_age_threshold" | "key_cache_block_size" => {
                caches
                    .configure(&set.cache, knob(def.name, n))
                    .map_err(failed)?
            }
            "key_cache_segments" => {
                caches
                    .configure(&set.cache, knob(def.name, n))
                    .map_err(|e| match e.kind() {
                        std::io::ErrorKind::WouldBlock => {
                            SqlError::new(ER_UNKNOWN_ERROR, e.to_string())
                        }
                        _ => failed(e),
                    })?;
                env.warnings().extend(segments_note(engine, &set.cache, n));
            }
            _ => return Err(err_not_structured(def.name)),
        }
    }
    Ok(())
}

/// One row per key cache with a size, in the order they were made (the default first), as
/// MariaDB shows them: a cache made with `key_cache_segments` > 0 has a row per segment
/// (SEGMENT_NUMBER 1..n, FULL_SIZE its share) and then its total row (SEGMENT_NUMBER NULL);
/// an unsegmented cache has its total row only, with SEGMENTS NULL. SEGMENTS counts the
/// segments the cache has, which a small cache may have fewer of than asked for.
pub(crate) fn key_caches_rows(engine: &Engine) -> Vec<Vec<Value>> {
    let caches = engine.catalog.storage().key_caches();
    let mut rows = Vec::new();
    for (info, cache) in caches.caches() {
        let Some(cache) = cache else { continue };
        let block_size = cache.block_size() as u64;
        let segments = cache.segments();
        let count = segments.len() as u64;
        let row = |segment: Value, full_size: u64, s: myriad_storage::BlockCacheStats| {
            vec![
                Value::Bytes(info.name.clone().into_bytes()),
                match cache.segments_shown() {
                    0 => Value::Null,
                    shown => Value::UInt(shown),
                },
                segment,
                // The size as set, as MariaDB shows it (myriad's smallest segment is 64 blocks).
                Value::UInt(full_size),
                Value::UInt(block_size),
                Value::UInt(s.key_blocks_used),
                Value::UInt(s.key_blocks_unused),
                Value::UInt(s.key_blocks_not_flushed),
                Value::UInt(s.key_read_requests),
                Value::UInt(s.key_reads),
                Value::UInt(s.key_write_requests),
                Value::UInt(s.key_writes),
            ]
        };
        if cache.is_segmented() {
            for (i, segment) in segments.iter().enumerate() {
                rows.push(row(
                    Value::UInt(i as u64 + 1),
                    info.size_bytes / count,
                    segment.stats(),
                ));
            }
        }
        rows.push(row(Value::Null, info.size_bytes, cache.stats()));
    }
    rows
}
