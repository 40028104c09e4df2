//! The key cache statements (CACHE INDEX, LOAD INDEX INTO CACHE, SET of a structured
//! variable `cache.var`) as plans.

use crate::error::SqlError;
use crate::expr::Expr;
use crate::expr::VarScope;
use myriad_types::errors::{
    ER_INCORRECT_GLOBAL_LOCAL_VAR, ER_UNKNOWN_ERROR, ER_VARIABLE_IS_NOT_STRUCT,
};

/// The structured variables: each key cache has its own (`hot.key_buffer_size`).
pub const STRUCTURED: &[&str] = &[
    "key_buffer_size",
    "key_cache_age_threshold",
    "key_cache_block_size",
    "key_cache_division_limit",
    "key_cache_segments",
];

/// Whether `name` is a structured variable (any case).
pub fn is_structured(name: &str) -> bool {
    STRUCTURED.iter().any(|v| v.eq_ignore_ascii_case(name))
}

/// One `SET GLOBAL cache.variable = value`.
#[derive(Debug, Clone)]
pub struct StructuredSet {
    pub cache: String,
    /// The variable's index in `sysvars`.
    pub index: usize,
    /// None: `DEFAULT`.
    pub value: Option<Expr>,
}

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
    /// `SET GLOBAL cache.variable = value, ...`: structured key cache variables.
    SetStructured(Vec<StructuredSet>),
}

/// Compile `@@cache.variable` (`scope` as written before the cache name): the plain
/// variable for `default`, else a read of the named cache's own value by its id (so that a
/// compiled statement reads a cache made after it was compiled).
pub(crate) fn compile_structured(
    ctx: &crate::plan::CompileCtx<'_>,
    scope: VarScope,
    cache: &str,
    variable: &str,
) -> Result<Expr, SqlError> {
    let index = crate::system::sysvars::lookup(variable)
        .ok_or_else(|| crate::system::sysvars::err_unknown(variable))?;
    let def = crate::system::sysvars::def(index);
    if !is_structured(def.name) {
        return Err(err_not_structured(def.name));
    }
    if scope == VarScope::Session {
        return Err(SqlError::new(
            ER_INCORRECT_GLOBAL_LOCAL_VAR,
            format!("Variable '{}' is a GLOBAL variable", def.name),
        ));
    }
    if cache.eq_ignore_ascii_case(DEFAULT_CACHE) {
        return Ok(Expr::SysVar {
            scope: VarScope::Global,
            index,
        });
    }
    let id = ctx
        .catalog
        .storage()
        .key_caches()
        .id_of(cache)
        .map_err(|e| SqlError::new(ER_UNKNOWN_ERROR, e.to_string()))?;
    Ok(Expr::SysVar {
        scope: VarScope::KeyCache(id),
        index,
    })
}

pub(crate) fn err_not_structured(name: &str) -> SqlError {
    SqlError::new(
        ER_VARIABLE_IS_NOT_STRUCT,
        format!(
            "Variable '{name}' is not a variable component (can't be used as XXXX.variable_name)"
        ),
    )
}

/// The default key cache's name.
pub const DEFAULT_CACHE: &str = myriad_storage::DEFAULT_KEY_CACHE;
