//! FOREIGN KEY constraints and DDL: what CREATE, ALTER, DROP, TRUNCATE and RENAME TABLE
//! check, as MariaDB with InnoDB does.
//!
//! - A new constraint (CREATE TABLE, ALTER TABLE ... ADD) needs, while
//!   `foreign_key_checks` is on, a parent table with the referenced columns, an index of
//!   the parent that starts with them, column types that match (strings of any length in
//!   the same collation; other types exactly) and nullable columns for SET NULL; otherwise
//!   1005 with InnoDB's errno 150. Its name must be new in the database (1005, errno 121).
//!   ALTER TABLE checks the rows already there (1452).
//! - A parent's ALTER TABLE may not drop a referenced column (1829) or the index a
//!   reference uses (1553).
//! - DROP TABLE of a table another table references is 1451 (the other tables of the
//!   statement are dropped), TRUNCATE 1701; with `foreign_key_checks = 0` both go ahead.
//! - RENAME TABLE of a referenced table is not built (1235): the references would need
//!   rewriting in each child.

use crate::catalog;
use crate::catalog::references::Reference;
use crate::error::SqlError;
use crate::plan::foreign_keys::{clause_text, keeps_constraints, supporting_index};
use crate::Session;
use myriad_storage::{ColumnType, ForeignKeyDef, ReferentialAction, TableDef};
use myriad_types::errors::{
    ER_CANT_CREATE_TABLE, ER_DROP_INDEX_FK, ER_FK_COLUMN_CANNOT_CHANGE,
    ER_FK_COLUMN_CANNOT_CHANGE_CHILD, ER_FK_COLUMN_CANNOT_DROP, ER_FK_COLUMN_CANNOT_DROP_CHILD,
    ER_NO_REFERENCED_ROW_2, ER_TRUNCATE_ILLEGAL_FK,
};

/// InnoDB's errno 150 and 121, as error 1005 prints them.
const INCORRECTLY_FORMED: &str = "150 \"Foreign key constraint is incorrectly formed\"";
const DUPLICATE_NAME: &str = "121 \"Duplicate key on write or update\"";

impl Session {
    /// CREATE TABLE or ALTER TABLE (`old`: the definition before) of `database`.`table`:
    /// the constraints `def` adds are well formed (see the module doc).
    pub(crate) fn check_new_references(
        &self,
        (database, table): (&str, &str),
        def: &TableDef,
        old: Option<&TableDef>,
    ) -> Result<(), SqlError> {
        let added: Vec<&ForeignKeyDef> = def
            .foreign_keys
            .iter()
            .filter(|fk| old.is_none_or(|old| !old.foreign_keys.contains(fk)))
            .collect();
        if added.is_empty() {
            return Ok(());
        }
        // Before the table has them: the database's constraints are looked for from now on.
        self.engine.catalog.mark_foreign_keys(database)?;
        let cant_create = |errno: &str| {
            SqlError::new(
                ER_CANT_CREATE_TABLE,
                format!("Can't create table `{database}`.`{table}` (errno: {errno})"),
            )
        };
        let known = self.engine.catalog.references(database)?;
        for (i, fk) in added.iter().enumerate() {
            let elsewhere = known.has_name(&fk.name)
                && old.is_none_or(|old| {
                    !old.foreign_keys
                        .iter()
                        .any(|f| f.name.eq_ignore_ascii_case(&fk.name))
                });
            let twice = added[..i]
                .iter()
                .any(|f| f.name.eq_ignore_ascii_case(&fk.name));
            if elsewhere || twice {
                return Err(cant_create(DUPLICATE_NAME));
            }
        }
        if !self.foreign_key_checks() {
            return Ok(());
        }
        let storage = self.engine.catalog.storage();
        for fk in &added {
            let formed = if fk.parent_table == table {
                well_formed(fk, def, def)
            } else {
                let parent = storage.table_def_unkept(database, &fk.parent_table).ok();
                parent.is_some_and(|parent| well_formed(fk, def, &parent))
            };
            if !formed {
                return Err(cant_create(INCORRECTLY_FORMED));
            }
        }
        Ok(())
    }

    /// ALTER TABLE ... ADD FOREIGN KEY: every row already in the table, as the ALTER
    /// carries it into `def` (each column from its `sources` entry, or its default), must
    /// meet the constraints `def` adds over `old` (1452 names the first one a row fails).
    pub(crate) fn check_existing_rows(
        &self,
        (database, table): (&str, &str),
        (old, def): (&TableDef, &TableDef),
        sources: &[Option<usize>],
        now_micros: i64,
    ) -> Result<(), SqlError> {
        if !self.foreign_key_checks()
            || def
                .foreign_keys
                .iter()
                .all(|f| old.foreign_keys.contains(f))
        {
            return Ok(());
        }
        let mut only_added = def.clone();
        only_added
            .foreign_keys
            .retain(|f| !old.foreign_keys.contains(f));
        let refs = self.row_references((database, table), &only_added, false)?;
        let storage = self.engine.catalog.storage();
        let rows = storage
            .open_table(database, table)
            .and_then(|t| t.scan())
            .map_err(catalog::storage_error)?;
        let mut stmt = storage.begin();
        for row in rows {
            let (_, row) = row.map_err(catalog::storage_error)?;
            let converted =
                crate::exec::alter_table::carried_row(&row, sources, &def.columns, now_micros);
            refs.check_child(&self.engine.catalog, &mut stmt, &converted, None)
                .map_err(|e| SqlError::new(ER_NO_REFERENCED_ROW_2, e.message))?;
        }
        stmt.rollback();
        Ok(())
    }

    /// ALTER TABLE of `database`.`table` into `new`: the references other tables (and the
    /// table itself) make to it still find their columns and an index.
    pub(crate) fn check_still_referenced(
        &self,
        (database, table): (&str, &str),
        old: &TableDef,
        new: &TableDef,
    ) -> Result<(), SqlError> {
        let known = self.engine.catalog.references(database)?;
        let own = new.foreign_keys.iter().filter(|f| f.parent_table == table);
        let others = known.from_others(table).map(|r| (r.child.as_str(), &r.fk));
        for (child, fk) in others.chain(own.map(|f| (table, f))) {
            if let Some(missing) = fk
                .parent_columns
                .iter()
                .find(|c| new.column_index(c).is_none())
            {
                return Err(if child == table {
                    SqlError::new(
                        ER_FK_COLUMN_CANNOT_DROP,
                        format!(
                            "Cannot drop column '{missing}': needed in a foreign key constraint '{}'",
                            fk.name
                        ),
                    )
                } else {
                    SqlError::new(
                        ER_FK_COLUMN_CANNOT_DROP_CHILD,
                        format!(
                            "Cannot drop column '{missing}': needed in a foreign key constraint '{}' of table `{database}`.`{child}`",
                            fk.name
                        ),
                    )
                });
            }
            if supporting_index(new, &fk.parent_columns).is_none() {
                let index = supporting_index(old, &fk.parent_columns)
                    .map(|i| old.indexes[i].name.clone())
                    .unwrap_or_default();
                return Err(SqlError::new(
                    ER_DROP_INDEX_FK,
                    format!("Cannot drop index '{index}': needed in a foreign key constraint"),
                ));
            }
        }
        Ok(())
    }

    /// ALTER TABLE MODIFY / CHANGE / RENAME COLUMN (`sources`: each new column's old
    /// position): a column of a constraint keeps a type its other side accepts (1832 for
    /// the table's own constraint, 1833 for another table's), and a column another table
    /// references keeps its name (renaming it there is not built: 1235).
    pub(crate) fn check_changed_columns(
        &self,
        (database, table): (&str, &str),
        old: &TableDef,
        new: &TableDef,
        sources: &[Option<usize>],
    ) -> Result<(), SqlError> {
        let known = self.engine.catalog.references(database)?;
        for (column, source) in new.columns.iter().zip(sources) {
            let Some(was) = source.map(|i| &old.columns[i]) else {
                continue;
            };
            let retyped = !same_type(&was.ty, &column.ty);
            let named = |names: &[String]| names.iter().any(|n| n.eq_ignore_ascii_case(&was.name));
            if retyped {
                if let Some(fk) = old.foreign_keys.iter().find(|f| {
                    named(&f.columns) || (f.parent_table == table && named(&f.parent_columns))
                }) {
                    return Err(SqlError::new(
                        ER_FK_COLUMN_CANNOT_CHANGE,
                        format!(
                            "Cannot change column '{}': used in a foreign key constraint '{}'",
                            was.name, fk.name
                        ),
                    ));
                }
            }
            if let Some(r) = known
                .from_others(table)
                .find(|r| named(&r.fk.parent_columns))
            {
                if retyped {
                    return Err(SqlError::new(
                        ER_FK_COLUMN_CANNOT_CHANGE_CHILD,
                        format!(
                            "Cannot change column '{}': used in a foreign key constraint '{}' of table '{database}.{}'",
                            was.name, r.fk.name, r.child
                        ),
                    ));
                }
                if was.name != column.name {
                    return Err(SqlError::not_supported(
                        "renaming a column that a FOREIGN KEY of another table references",
                    ));
                }
            }
        }
        Ok(())
    }

    /// A constraint of a table other than those in `dropped` whose parent is
    /// `database`.`table` (None as well when `foreign_key_checks` is off).
    pub(crate) fn referenced_from_outside(
        &self,
        (database, table): (&str, &str),
        dropped: &[(String, String)],
    ) -> Result<Option<Reference>, SqlError> {
        if !self.foreign_key_checks() {
            return Ok(None);
        }
        let known = self.engine.catalog.references(database)?;
        let found = known.from_others(table).find(|r| {
            !dropped
                .iter()
                .any(|(db, name)| db == database && *name == r.child)
        });
        Ok(found.cloned())
    }

    /// TRUNCATE TABLE of a table another table references: 1701.
    pub(crate) fn check_truncate(&self, database: &str, table: &str) -> Result<(), SqlError> {
        match self.referenced_from_outside((database, table), &[])? {
            None => Ok(()),
            Some(r) => Err(SqlError::new(
                ER_TRUNCATE_ILLEGAL_FK,
                format!(
                    "Cannot truncate a table referenced in a foreign key constraint ({})",
                    format_args!(
                        "`{database}`.`{}`, {}",
                        r.child,
                        clause_text(&r.fk, Some(database))
                    )
                ),
            )),
        }
    }

    /// RENAME TABLE of a table that a constraint references, or of one with constraints into
    /// another database (its references would name that database's tables).
    pub(crate) fn check_rename(
        &self,
        (database, table): (&str, &str),
        new_database: &str,
    ) -> Result<(), SqlError> {
        let known = self.engine.catalog.references(database)?;
        if known.referencing(table).next().is_some() {
            return Err(SqlError::not_supported(
                "renaming a table that a FOREIGN KEY references",
            ));
        }
        if new_database != database && known.all_of(table).next().is_some() {
            return Err(SqlError::not_supported(
                "moving a table with FOREIGN KEY constraints into another database",
            ));
        }
        Ok(())
    }
}

/// Whether `fk` of the table `child` fits `parent`: the referenced columns exist, an
/// index starts with them, the types match, SET NULL has nullable columns, and the
/// parent's engine keeps constraints.
fn well_formed(fk: &ForeignKeyDef, child: &TableDef, parent: &TableDef) -> bool {
    if !keeps_constraints(&parent.options) || supporting_index(parent, &fk.parent_columns).is_none()
    {
        return false;
    }
    let set_null = [fk.on_delete, fk.on_update].contains(&ReferentialAction::SetNull);
    fk.columns
        .iter()
        .zip(&fk.parent_columns)
        .all(|(own, referenced)| {
            let (Some(own), Some(referenced)) =
                (child.column_index(own), parent.column_index(referenced))
            else {
                return false;
            };
            let own = &child.columns[own];
            (own.nullable || !set_null) && same_type(&own.ty, &parent.columns[referenced].ty)
        })
}

/// Whether a child column of type `a` may reference a column of type `b` (InnoDB: strings
/// of any length in one collation; everything else exactly the same type).
fn same_type(a: &ColumnType, b: &ColumnType) -> bool {
    let string = |t: &ColumnType| matches!(t, ColumnType::Char { .. } | ColumnType::Varchar { .. });
    if string(a) && string(b) {
        return a.collation() == b.collation();
    }
    a == b
}
