//! The SQL statements of the table cache: `FLUSH TABLES [t, ...]` and `SHOW OPEN TABLES`.
//!
//! FLUSH TABLES closes the named tables (every open table without names): it waits, up to
//! `lock_wait_timeout`, for the statements using them, drops their handles and definitions
//! and writes their pages; without names it also empties the definition cache and runs a
//! checkpoint, as MySQL writes its key caches. Counters (`Opened_tables`, ...) are not
//! reset: that is FLUSH STATUS in MySQL too.
//!
//! SHOW OPEN TABLES lists the tables with a handle in the table cache, with MySQL's columns
//! `Database`, `Table`, `In_use` (handles in use now) and `Name_locked` (always 0: a DDL's
//! metadata lock closes the handles first).

use crate::catalog;
use crate::error::SqlError;
use crate::value::Value;
use myriad_storage::Storage;

/// FLUSH TABLES: `names` as parsed, qualified with `current_db` where unqualified.
pub(crate) fn flush_tables(
    storage: &Storage,
    names: Option<&[(Option<String>, String)]>,
    current_db: Option<&str>,
) -> Result<(), SqlError> {
    let qualified: Option<Vec<(String, String)>> = match names {
        None => None,
        Some(names) => Some(
            names
                .iter()
                .map(|(db, name)| {
                    let db = db
                        .clone()
                        .or_else(|| current_db.map(str::to_string))
                        .ok_or_else(crate::plan::tables::err_no_database)?;
                    Ok((db, name.clone()))
                })
                .collect::<Result<_, SqlError>>()?,
        ),
    };
    storage
        .flush_tables(qualified.as_deref())
        .map_err(catalog::storage_error)
}

/// The rows of SHOW OPEN TABLES, restricted to `database` and (LIKE) to table names
/// matching `like`.
pub(crate) fn open_table_rows(
    storage: &Storage,
    database: Option<&str>,
    like: Option<&str>,
) -> Vec<Vec<Value>> {
    storage
        .open_tables()
        .into_iter()
        .filter(|t| database.is_none_or(|d| d == t.database))
        .filter(|t| {
            like.is_none_or(|p| {
                crate::expr::eval::like_match(
                    t.name.as_bytes(),
                    p.as_bytes(),
                    b'\\',
                    myriad_types::Collation::Utf8mb4GeneralCi,
                )
            })
        })
        .map(|t| {
            vec![
                Value::Bytes(t.database.into_bytes()),
                Value::Bytes(t.name.into_bytes()),
                Value::UInt(t.in_use as u64),
                Value::UInt(0),
            ]
        })
        .collect()
}
