//! ALTER TABLE: the new definition from the old one and the alterations.

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::expr::Compiler;
use crate::plan::alter_columns::{alter_column, change_column, rename_column, NewColumn};
use crate::plan::checks;
use crate::plan::foreign_keys;
use crate::plan::show_create::*;
use crate::plan::table_def::*;
use myriad_storage as st;
use myriad_types::errors::{
    ER_BAD_FIELD_ERROR, ER_CANT_DROP_FIELD_OR_KEY, ER_CANT_REMOVE_ALL_FIELDS, ER_DUP_FIELDNAME,
    ER_DUP_KEYNAME, ER_KEY_COLUMN_DOES_NOT_EXIST, ER_MULTIPLE_PRI_KEY,
};
use sqlparser::ast;

/// The definition ALTER TABLE produces, and for each new column the old column it is
/// copied from (None: filled with the new column's default).
pub fn alter_def(
    old: &st::TableDef,
    (database, table): (&str, &str),
    operations: &[ast::AlterTableOperation],
    compiler: &Compiler,
) -> Result<(st::TableDef, Vec<Option<usize>>), SqlError> {
    let mut def = old.clone();
    let mut sources: Vec<Option<usize>> = (0..old.columns.len()).map(Some).collect();
    for op in operations {
        match op {
            ast::AlterTableOperation::AddColumn {
                column_def,
                column_position,
                if_not_exists,
                ..
            } => {
                add_column(
                    &mut def,
                    &mut sources,
                    column_def,
                    column_position.as_ref(),
                    *if_not_exists,
                    compiler,
                )?;
                for option in &column_def.options {
                    if let ast::ColumnOption::ForeignKey(fk) = &option.option {
                        foreign_keys::add(&mut def, database, table, fk, Some(&column_def.name))?;
                    }
                }
            }
            ast::AlterTableOperation::DropColumn {
                column_names,
                if_exists,
                ..
            } => drop_columns(&mut def, &mut sources, column_names, *if_exists)?,
            ast::AlterTableOperation::AddConstraint {
                constraint: ast::TableConstraint::Check(check),
                ..
            } => {
                let name = check.name.as_ref().map(|n| n.value.clone());
                let added = checks::table_check(name, check, &def.checks, &def.columns, compiler)?;
                def.checks.push(added);
                checks::refuse_duplicates(&def.checks)?;
            }
            ast::AlterTableOperation::AddConstraint {
                constraint: ast::TableConstraint::ForeignKey(fk),
                ..
            } => foreign_keys::add(&mut def, database, table, fk, None)?,
            ast::AlterTableOperation::AddConstraint { constraint, .. } => {
                add_constraint(&mut def, constraint)?
            }
            ast::AlterTableOperation::ModifyColumn {
                col_name,
                data_type,
                options,
                column_position,
            } => {
                let change = NewColumn {
                    old_name: col_name,
                    name: col_name,
                    data_type,
                    options,
                    position: column_position.as_ref(),
                };
                change_column(&mut def, &mut sources, table, &change, compiler)?
            }
            ast::AlterTableOperation::ChangeColumn {
                old_name,
                new_name,
                data_type,
                options,
                column_position,
            } => {
                let change = NewColumn {
                    old_name,
                    name: new_name,
                    data_type,
                    options,
                    position: column_position.as_ref(),
                };
                change_column(&mut def, &mut sources, table, &change, compiler)?
            }
            ast::AlterTableOperation::RenameColumn {
                old_column_name,
                new_column_name,
            } => rename_column(&mut def, table, old_column_name, new_column_name)?,
            ast::AlterTableOperation::AlterColumn { column_name, op } => {
                alter_column(&mut def, table, column_name, op, compiler)?
            }
            // Carried as the table option CREATE TABLE takes; ALTER TABLE's execution sets
            // the counter from it (see `exec::alter_table`).
            ast::AlterTableOperation::AutoIncrement { value, .. } => {
                def.options
                    .retain(|(k, _)| !k.eq_ignore_ascii_case("AUTO_INCREMENT"));
                def.options
                    .push(("AUTO_INCREMENT".into(), value.value.to_string()));
            }
            ast::AlterTableOperation::DropForeignKey { name, .. } => {
                foreign_keys::drop(&mut def, &name.value)?
            }
            ast::AlterTableOperation::DropConstraint {
                if_exists, name, ..
            } => drop_constraint(&mut def, &name.value, *if_exists)?,
            ast::AlterTableOperation::DropIndex { name } => {
                let Some(at) = def.index_named(&name.value) else {
                    return Err(SqlError::new(
                        ER_CANT_DROP_FIELD_OR_KEY,
                        format!("Can't DROP INDEX `{}`; check that it exists", name.value),
                    ));
                };
                def.indexes.remove(at);
            }
            ast::AlterTableOperation::DropPrimaryKey { .. } => match def.primary_key() {
                Some(at) => {
                    def.indexes.remove(at);
                }
                None => {
                    return Err(SqlError::new(
                        ER_CANT_DROP_FIELD_OR_KEY,
                        "Can't DROP INDEX `PRIMARY`; check that it exists",
                    ))
                }
            },
            other => return Err(SqlError::not_supported(&format!("ALTER TABLE {other}"))),
        }
    }
    order_indexes(&mut def.indexes);
    foreign_keys::still_indexed(old, &def)?;
    def.validate().map_err(storage_error)?;
    // A constraint must still read columns the table has.
    checks::revalidate(&def, compiler.pipes_as_concat)?;
    Ok((def, sources))
}

/// DROP CONSTRAINT: a CHECK constraint, a FOREIGN KEY, or else a unique key, of that name.
fn drop_constraint(def: &mut st::TableDef, name: &str, if_exists: bool) -> Result<(), SqlError> {
    if let Some(at) = def
        .checks
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(name))
    {
        def.checks.remove(at);
        return Ok(());
    }
    if def
        .foreign_keys
        .iter()
        .any(|f| f.name.eq_ignore_ascii_case(name))
    {
        return foreign_keys::drop(def, name);
    }
    match def.index_named(name) {
        Some(at) if def.indexes[at].kind == st::IndexKind::Unique => {
            def.indexes.remove(at);
            Ok(())
        }
        _ if if_exists => Ok(()),
        _ => Err(SqlError::new(
            ER_CANT_DROP_FIELD_OR_KEY,
            format!("Can't DROP CONSTRAINT `{name}`; check that it exists"),
        )),
    }
}

/// ADD COLUMN: the column goes in at its position (last by default), the indexes' column
/// numbers after it move up, and a PRIMARY KEY or UNIQUE written on it adds that index.
fn add_column(
    def: &mut st::TableDef,
    sources: &mut Vec<Option<usize>>,
    column_def: &ast::ColumnDef,
    column_position: Option<&ast::MySQLColumnPosition>,
    if_not_exists: bool,
    compiler: &Compiler,
) -> Result<(), SqlError> {
    if def.column_index(&column_def.name.value).is_some() {
        if if_not_exists {
            return Ok(());
        }
        return Err(SqlError::new(
            ER_DUP_FIELDNAME,
            format!("Duplicate column name '{}'", column_def.name.value),
        ));
    }
    let table_collation = crate::plan::table_def::table_collation(&def.options)?;
    let (column, is_primary, is_unique) = column_from_ast(column_def, table_collation, compiler)?;
    if column.auto_increment {
        return Err(SqlError::not_supported("adding an AUTO_INCREMENT column"));
    }
    let at = match column_position {
        None => def.columns.len(),
        Some(ast::MySQLColumnPosition::First) => 0,
        Some(ast::MySQLColumnPosition::After(after)) => {
            let Some(i) = def.column_index(&after.value) else {
                return Err(SqlError::new(
                    ER_BAD_FIELD_ERROR,
                    format!("Unknown column '{}' in 'table'", after.value),
                ));
            };
            i + 1
        }
    };
    def.columns.insert(at, column);
    sources.insert(at, None);
    if let Some(check) = checks::of_column(column_def, &def.columns, compiler)? {
        def.checks.push(check);
        checks::refuse_duplicates(&def.checks)?;
    }
    for ix in &mut def.indexes {
        for c in &mut ix.columns {
            if *c >= at {
                *c += 1;
            }
        }
    }
    column_keys(def, at, is_primary, is_unique)
}

/// The keys a column definition writes on itself (`PRIMARY KEY`, `UNIQUE`), for the column
/// at `at`: a primary key goes first (1068 when the table has one), a unique key is named
/// after the column.
pub(crate) fn column_keys(
    def: &mut st::TableDef,
    at: usize,
    is_primary: bool,
    is_unique: bool,
) -> Result<(), SqlError> {
    if is_primary {
        if def.primary_key().is_some() {
            return Err(SqlError::new(
                ER_MULTIPLE_PRI_KEY,
                "Multiple primary key defined",
            ));
        }
        def.columns[at].nullable = false;
        def.indexes.insert(
            0,
            st::IndexDef {
                name: "PRIMARY".into(),
                kind: st::IndexKind::Primary,
                columns: vec![at],
            },
        );
    }
    if is_unique {
        let name = def.columns[at].name.clone();
        def.indexes.push(st::IndexDef {
            name,
            kind: st::IndexKind::Unique,
            columns: vec![at],
        });
    }
    Ok(())
}

/// DROP COLUMN: each column leaves the indexes too; an index left with no column goes.
fn drop_columns(
    def: &mut st::TableDef,
    sources: &mut Vec<Option<usize>>,
    column_names: &[ast::Ident],
    if_exists: bool,
) -> Result<(), SqlError> {
    for name in column_names {
        let Some(at) = def.column_index(&name.value) else {
            if if_exists {
                continue;
            }
            return Err(SqlError::new(
                ER_CANT_DROP_FIELD_OR_KEY,
                format!("Can't DROP COLUMN `{}`; check that it exists", name.value),
            ));
        };
        if def.columns.len() == 1 {
            return Err(SqlError::new(
                ER_CANT_REMOVE_ALL_FIELDS,
                "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
            ));
        }
        def.columns.remove(at);
        sources.remove(at);
        // The column's own constraint goes with it.
        def.checks
            .retain(|c| !(c.column_level && c.name.eq_ignore_ascii_case(&name.value)));
        for ix in &mut def.indexes {
            ix.columns.retain(|c| *c != at);
            for c in &mut ix.columns {
                if *c > at {
                    *c -= 1;
                }
            }
        }
        def.indexes.retain(|ix| !ix.columns.is_empty());
    }
    Ok(())
}

/// ADD PRIMARY KEY, ADD UNIQUE or ADD INDEX: a primary key goes first and makes its
/// columns NOT NULL; an unnamed index takes its first column's name.
fn add_constraint(
    def: &mut st::TableDef,
    constraint: &ast::TableConstraint,
) -> Result<(), SqlError> {
    let columns_of =
        |cols: &[ast::IndexColumn], def: &st::TableDef| -> Result<Vec<usize>, SqlError> {
            cols.iter()
                .map(|ic| match &ic.column.expr {
                    ast::Expr::Identifier(id) => def.column_index(&id.value).ok_or_else(|| {
                        SqlError::new(
                            ER_KEY_COLUMN_DOES_NOT_EXIST,
                            format!("Key column '{}' doesn't exist in table", id.value),
                        )
                    }),
                    other => Err(crate::expr::err_syntax(&other.to_string())),
                })
                .collect()
        };
    let named =
        |name: Option<&ast::Ident>, columns: Vec<usize>, kind, def: &st::TableDef| st::IndexDef {
            name: name
                .map(|n| n.value.clone())
                .unwrap_or_else(|| def.columns[columns[0]].name.clone()),
            kind,
            columns,
        };
    let index = match constraint {
        ast::TableConstraint::PrimaryKey(pk) => {
            if def.primary_key().is_some() {
                return Err(SqlError::new(
                    ER_MULTIPLE_PRI_KEY,
                    "Multiple primary key defined",
                ));
            }
            let cols = columns_of(&pk.columns, def)?;
            for &c in &cols {
                def.columns[c].nullable = false;
            }
            st::IndexDef {
                name: "PRIMARY".into(),
                kind: st::IndexKind::Primary,
                columns: cols,
            }
        }
        ast::TableConstraint::Unique(u) => {
            let cols = columns_of(&u.columns, def)?;
            let name = u.index_name.as_ref().or(u.name.as_ref());
            named(name, cols, st::IndexKind::Unique, def)
        }
        ast::TableConstraint::Index(ix) => {
            let cols = columns_of(&ix.columns, def)?;
            named(ix.name.as_ref(), cols, st::IndexKind::NonUnique, def)
        }
        other => return Err(SqlError::not_supported(&format!("constraint {other}"))),
    };
    if def.index_named(&index.name).is_some() {
        return Err(SqlError::new(
            ER_DUP_KEYNAME,
            format!("Duplicate key name '{}'", index.name),
        ));
    }
    if index.kind == st::IndexKind::Primary {
        def.indexes.insert(0, index);
    } else {
        def.indexes.push(index);
    }
    Ok(())
}
