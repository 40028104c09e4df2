//! ALTER TABLE's execution: the checks the new definition must pass against other tables
//! (FOREIGN KEY constraints), the rows copied into it (converted where a column's type
//! changed, verified against its CHECK constraints), MariaDB's affected-row count, and the
//! AUTO_INCREMENT counter it sets.

use crate::catalog;
use crate::error::SqlError;
use crate::exec::env::*;
use crate::exec::*;
use crate::expr::eval::Warning;
use crate::expr::Env;
use crate::result::QueryResult;
use crate::Session;
use myriad_types::errors::{ER_DATA_TOO_LONG, WARN_DATA_TRUNCATED};

impl Session {
    /// ALTER TABLE `table` into `def`, each new column copied from its `sources` entry (an
    /// old column's position) or filled with its default.
    pub(crate) fn alter_table(
        &self,
        table: &crate::plan::tables::TableRef,
        def: &myriad_storage::TableDef,
        sources: &[Option<usize>],
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        // `AUTO_INCREMENT = n` sets the counter; the table keeps the counter, not the option.
        let (def, counter) = crate::exec::ddl::without_counter(def);
        let def = def.as_ref();
        if counter.is_some() && *def == *table.def {
            self.start_counter(table, counter.unwrap_or(1))?;
            return Ok(ok(0));
        }
        let storage = self.engine.catalog.storage();
        // Opening checks the definition is still the one the statement was made for;
        // the handle goes at once (ALTER waits for the handles in use of its table).
        drop(table.open(storage)?);
        let names = (&*table.database, &*table.name);
        self.check_new_references(names, def, Some(&table.def))?;
        self.check_changed_columns(names, &table.def, def, sources)?;
        self.check_still_referenced(names, &table.def, def)?;
        let now_micros = env.now_micros();
        self.check_existing_rows(names, (&table.def, def), sources, now_micros)?;
        let new_columns = def.columns.clone();
        // A column whose type or NULL changed converts its values, as storing them
        // would (in strict mode an error fails the ALTER).
        let retyped: Vec<bool> = sources
            .iter()
            .zip(&new_columns)
            .map(|(source, column)| {
                source.is_some_and(|i| {
                    let was = &table.def.columns[i];
                    was.ty != column.ty || (was.nullable && !column.nullable)
                })
            })
            .collect();
        let strict = self.strict();
        let mut row_number = 0usize;
        // The rows as they are after the change must meet the new definition's
        // CHECK constraints (4025 otherwise, and the table stays as it was).
        let checks = self.table_checks(def, (&table.database, &table.name))?;
        let mut failed: Option<SqlError> = None;
        // MariaDB copies the table to add a table CHECK constraint, and counts the
        // rows.
        let adds_check = def
            .checks
            .iter()
            .any(|c| !c.column_level && !table.def.checks.contains(c));
        let mut copied = 0u64;
        let mut convert =
            |row: &[myriad_storage::Value]| -> myriad_storage::Result<myriad_storage::Row> {
                row_number += 1;
                let mut converted = carried_row(row, sources, &new_columns, now_micros);
                for (j, value) in converted.iter_mut().enumerate() {
                    if !retyped[j] {
                        continue;
                    }
                    let was = &table.def.columns[sources[j].unwrap_or(j)];
                    let at = (&new_columns[j], row_number, strict);
                    match retype(value, &was.ty, at, table, &mut env.warnings) {
                        Ok(v) => *value = v,
                        Err(e) => {
                            failed = Some(e);
                            return Err(myriad_storage::StorageError::InvalidDefinition(
                                "a value does not fit its column's new type".into(),
                            ));
                        }
                    }
                }
                if let Err(e) = checks.verify(&converted, env) {
                    failed = Some(e);
                    return Err(myriad_storage::StorageError::InvalidDefinition(
                        "a row fails a CHECK constraint".into(),
                    ));
                }
                copied += 1;
                Ok(converted)
            };
        let altered = storage.alter_table(&table.database, &table.name, def, &mut convert);
        if let Some(e) = failed {
            return Err(e);
        }
        altered.map_err(catalog::storage_error)?;
        // So does it to change a column's type (other than lengthening a VARCHAR), to add
        // a FOREIGN KEY constraint while foreign_key_checks is on, and for any change of
        // a table of another engine (MyISAM, Aria, MEMORY).
        let adds_reference = def
            .foreign_keys
            .iter()
            .any(|f| !table.def.foreign_keys.contains(f));
        let copies = adds_check
            || (adds_reference && self.foreign_key_checks())
            || !crate::plan::table_def::is_innodb(&table.def.options)
            || sources.iter().zip(&def.columns).any(|(source, column)| {
                source.is_some_and(|i| copies_to_retype(&table.def.columns[i].ty, &column.ty))
            });
        if let Some(start) = counter {
            self.start_counter(table, start)?;
        }
        Ok(ok(if copies { copied } else { 0 }))
    }

    /// ALTER TABLE ... AUTO_INCREMENT = n: the counter becomes n, or one past the column's
    /// largest value when that is higher (as InnoDB sets it).
    fn start_counter(
        &self,
        table: &crate::plan::tables::TableRef,
        start: u64,
    ) -> Result<(), SqlError> {
        let storage = self.engine.catalog.storage();
        let Some(column) = table.def.auto_increment_column() else {
            return Ok(());
        };
        let opened = storage
            .open_table(&table.database, &table.name)
            .map_err(catalog::storage_error)?;
        let index = table
            .def
            .indexes
            .iter()
            .position(|ix| ix.columns.first() == Some(&column));
        let largest = match index {
            Some(index) => opened
                .index_scan(
                    index,
                    std::ops::Bound::Unbounded,
                    std::ops::Bound::Unbounded,
                    myriad_storage::Direction::Backward,
                )
                .map_err(catalog::storage_error)?
                .next()
                .transpose()
                .map_err(catalog::storage_error)?
                .and_then(|(_, row)| match row[column] {
                    myriad_storage::Value::Int(v) => u64::try_from(v).ok(),
                    myriad_storage::Value::UInt(v) => Some(v),
                    _ => None,
                }),
            None => None,
        };
        let start = start.max(largest.map_or(1, |v| v.saturating_add(1)));
        let mut stmt = storage.begin();
        opened
            .set_auto_increment(&mut stmt, start)
            .and_then(|()| stmt.commit())
            .map_err(catalog::storage_error)
    }
}

/// An old row as the new definition's `columns` hold it before any value is converted:
/// each column from its `sources` entry (an old column's position), a new one with its
/// default (CURRENT_TIMESTAMP as of `now_micros`).
pub(crate) fn carried_row(
    row: &[myriad_storage::Value],
    sources: &[Option<usize>],
    columns: &[myriad_storage::ColumnDef],
    now_micros: i64,
) -> myriad_storage::Row {
    sources
        .iter()
        .zip(columns)
        .map(|(source, column)| match source {
            Some(i) => row.get(*i).cloned().unwrap_or(myriad_storage::Value::Null),
            None if column.default_now => crate::plan::timestamps::now_for(&column.ty, now_micros),
            None => match &column.default {
                Some(d) => d.clone(),
                None if column.nullable => myriad_storage::Value::Null,
                None => zero_value(&column.ty),
            },
        })
        .collect()
}

/// A stored value of type `was` as column `column` stores it (its conversion's warnings
/// noted; in strict mode an error): ALTER TABLE MODIFY / CHANGE.
fn retype(
    value: &myriad_storage::Value,
    was: &myriad_storage::ColumnType,
    (column, row, strict): (&myriad_storage::ColumnDef, usize, bool),
    table: &crate::plan::tables::TableRef,
    warnings: &mut Vec<Warning>,
) -> Result<myriad_storage::Value, SqlError> {
    if value.is_null() {
        if column.nullable {
            return Ok(myriad_storage::Value::Null);
        }
        // MariaDB's words for a NULL met by NOT NULL in ALTER TABLE.
        let message = format!("Data truncated for column '{}' at row {row}", column.name);
        if strict {
            return Err(SqlError::new(WARN_DATA_TRUNCATED, message));
        }
        warnings.push(Warning {
            level: "Warning",
            code: WARN_DATA_TRUNCATED.code,
            message,
        });
        return Ok(zero_value(&column.ty));
    }
    let readable = crate::plan::stored::from_stored(value, was);
    let target = crate::plan::stored::Target {
        column,
        table: Some(table),
        row,
        strict,
    };
    crate::plan::stored::to_stored(&readable, &target, warnings).map_err(|e| {
        // A string cut short is "too long" in an INSERT, "truncated" in an ALTER.
        if e.code == ER_DATA_TOO_LONG.code {
            SqlError::new(
                WARN_DATA_TRUNCATED,
                format!("Data truncated for column '{}' at row {row}", column.name),
            )
        } else {
            e
        }
    })
}

/// Whether MariaDB copies the table (and counts its rows) to turn a column of type `was`
/// into `now`: any change of type but a VARCHAR made longer in the same collation, or an
/// ENUM / SET given more elements at the end of its list.
fn copies_to_retype(was: &myriad_storage::ColumnType, now: &myriad_storage::ColumnType) -> bool {
    use myriad_storage::ColumnType::Varchar;
    if let (Some((old, old_set)), Some((new, new_set))) = (was.elements(), now.elements()) {
        return old_set != new_set || was.collation() != now.collation() || !new.starts_with(old);
    }
    match (was, now) {
        (
            Varchar {
                len: a,
                collation: ca,
            },
            Varchar {
                len: b,
                collation: cb,
            },
        ) => ca != cb || b < a,
        _ => was != now,
    }
}
