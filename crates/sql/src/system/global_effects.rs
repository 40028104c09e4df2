//! What a `SET GLOBAL` does beyond storing the value: resizing a cache, re-reading a limit.
//!
//! `apply` runs after the new global values are published, once per changed variable, with
//! the engine; each cache owner adds an arm for the variables it reacts to. Variables with no
//! arm only change what later sessions read from the globals.

use crate::system::sysvars::VarValue;
use crate::Engine;

/// React to a committed change of the global variable `name` to `value`.
pub(crate) fn apply(engine: &Engine, name: &str, value: &VarValue) {
    match name {
        "key_buffer_size"
        | "key_cache_division_limit"
        | "key_cache_age_threshold"
        | "key_cache_segments" => {
            crate::system::key_cache_effects::apply(engine.catalog.storage(), name, value);
        }
        "query_cache_size" => engine.query_cache.set_size(as_u64(value)),
        "query_cache_limit" => engine.query_cache.set_limit(as_u64(value)),
        "query_cache_min_execution_us" => engine.query_cache.set_min_execution_us(as_u64(value)),
        // Each cache adds its variables here, e.g. "key_buffer_size" => resize the block cache.
        "table_open_cache" => engine
            .catalog
            .storage()
            .set_table_open_cache(usize::try_from(as_u64(value)).unwrap_or(usize::MAX)),
        "table_definition_cache" | "table_definition_cache_size" => {
            let globals = std::sync::Arc::clone(&engine.globals.read());
            let get = |n: &str| {
                crate::system::sysvars::lookup(n)
                    .and_then(|i| globals.get(i))
                    .map(as_u64)
                    .unwrap_or(0)
            };
            engine.catalog.storage().set_table_definition_cache(
                usize::try_from(get("table_definition_cache")).unwrap_or(usize::MAX),
                usize::try_from(get("table_definition_cache_size")).unwrap_or(usize::MAX),
            );
        }
        _ => {}
    }
}

/// A `u64` out of an unsigned variable's value (0 for any other kind).
pub(crate) fn as_u64(value: &VarValue) -> u64 {
    match value {
        VarValue::UInt(v) => *v,
        VarValue::Int(v) => (*v).max(0) as u64,
        VarValue::Bool(b) => u64::from(*b),
        VarValue::Enum(i) => *i as u64,
        _ => 0,
    }
}
