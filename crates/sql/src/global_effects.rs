//! What a `SET GLOBAL` does beyond storing the value: resizing a cache, re-reading a limit.
//!
//! [`apply`] runs after the new global values are published, once per changed variable, with
//! the engine; each cache owner adds an arm for the variables it reacts to. Variables with no
//! arm only change what later sessions read from the globals.

use crate::sysvars::VarValue;
use crate::Engine;

/// React to a committed change of the global variable `name` to `value`.
pub(crate) fn apply(engine: &Engine, name: &str, value: &VarValue) {
    match name {
        "query_cache_size" => engine.query_cache.set_size(as_u64(value)),
        "query_cache_limit" => engine.query_cache.set_limit(as_u64(value)),
        // Each cache adds its variables here, e.g. "key_buffer_size" => resize the block cache.
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
