//! SHOW COLUMNS (and SHOW FULL COLUMNS) and SHOW INDEX of one table: the rows the account
//! may see.

use crate::error::SqlError;
use crate::exec::env::*;
use crate::exec::select::*;
use crate::exec::*;
use crate::plan::ShowFilter;
use crate::result::QueryResult;
use crate::value::Value;

/// SHOW COLUMNS: the columns the account may see, each with its `privileges` (see
/// [`crate::exec::info_schema::column_privileges`]).
pub(crate) fn show_columns(
    t: &crate::plan::tables::TableRef,
    full: bool,
    filter: &ShowFilter,
    privileges: &[Option<String>],
    env: &mut ExecEnv,
) -> Result<QueryResult, SqlError> {
    let rows = t
        .def
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((i, c, privileges.get(i)?.as_deref()?)))
        .map(|(i, c, privileges)| {
            let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
            let mut row = vec![
                text(&c.name),
                text(&crate::plan::show_create::type_text(&c.ty)),
            ];
            if full {
                // Binary strings (BLOB, BINARY, VARBINARY) show no collation.
                let binary = c.ty.collation() == myriad_storage::Collation::Binary;
                row.push(if c.ty.is_string() && !binary {
                    text(c.ty.collation().name())
                } else {
                    Value::Null
                });
            }
            row.push(text(if c.nullable { "YES" } else { "NO" }));
            row.push(text(crate::plan::show_create::key_text(&t.def, i)));
            row.push(
                crate::plan::show_create::default_text(c)
                    .map(|d| Value::Bytes(d.into_bytes()))
                    .unwrap_or(Value::Null),
            );
            row.push(text(&crate::plan::show_create::extra_text(c)));
            if full {
                row.push(text(privileges));
                row.push(text(&c.comment));
            }
            row
        })
        .collect();
    if full {
        listing(
            &[
                ("Field", 64),
                ("Type", BLOB_TEXT),
                ("Collation", 64),
                ("Null", 3),
                ("Key", 3),
                ("Default", BLOB_TEXT),
                ("Extra", 32),
                ("Privileges", 80),
                ("Comment", 1024),
            ],
            rows,
            filter,
            env,
        )
    } else {
        listing(
            &[
                ("Field", 64),
                ("Type", BLOB_TEXT),
                ("Null", 3),
                ("Key", 3),
                ("Default", BLOB_TEXT),
                ("Extra", 32),
            ],
            rows,
            filter,
            env,
        )
    }
}

/// SHOW INDEX: a row per column of each index.
pub(crate) fn show_index(
    t: &crate::plan::tables::TableRef,
    privileges: &[Option<String>],
    env: &mut ExecEnv,
) -> Result<QueryResult, SqlError> {
    // information_schema.STATISTICS' rows without TABLE_CATALOG, TABLE_SCHEMA and
    // INDEX_SCHEMA.
    let rows = crate::exec::info_schema::index_rows(&t.database, &t.name, &t.def, privileges)
        .into_iter()
        .map(|row| {
            row.into_iter()
                .enumerate()
                .filter(|(i, _)| !matches!(i, 0 | 1 | 4))
                .map(|(_, v)| v)
                .collect()
        })
        .collect();
    listing(
        &[
            ("Table", 64),
            ("Non_unique", 0),
            ("Key_name", 64),
            ("Seq_in_index", LONG_INT),
            ("Column_name", 64),
            ("Collation", 1),
            ("Cardinality", 0),
            ("Sub_part", 0),
            ("Packed", 10),
            ("Null", 3),
            ("Index_type", 16),
            ("Comment", 16),
            ("Index_comment", 1024),
            ("Ignored", 3),
        ],
        rows,
        &ShowFilter::None,
        env,
    )
}
