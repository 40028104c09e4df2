//! ALTER TABLE's changes to an existing column: MODIFY, CHANGE, RENAME COLUMN and ALTER
//! COLUMN ... SET / DROP DEFAULT.
//!
//! MODIFY and CHANGE give the column a whole new definition (type, NULL, DEFAULT, ...), and
//! may move it (FIRST / AFTER); the rows are converted when the ALTER runs, as an INSERT
//! converts a value, so that in strict mode a value the new type cannot hold fails the
//! statement (1265, 1264) and the table stays as it was. Indexes keep the column wherever
//! it moves; FOREIGN KEY constraints of the table follow a rename (see
//! `exec::foreign_keys::ddl` for what other tables' constraints allow).
//!
//! Not built (1235): giving a column AUTO_INCREMENT that it did not have.

use crate::error::SqlError;
use crate::expr::Compiler;
use crate::plan::table_def::{column_from_ast, set_default, table_collation};
use myriad_storage as st;
use myriad_types::errors::{ER_BAD_FIELD_ERROR, ER_DUP_FIELDNAME};
use sqlparser::ast;

/// A column's new definition, as MODIFY or CHANGE gives it.
pub(crate) struct NewColumn<'a> {
    /// The column it replaces.
    pub old_name: &'a ast::Ident,
    pub name: &'a ast::Ident,
    pub data_type: &'a ast::DataType,
    pub options: &'a [ast::ColumnOption],
    pub position: Option<&'a ast::MySQLColumnPosition>,
}

/// MODIFY / CHANGE: the column named `change.old_name` of `def` (`table`) becomes the new
/// definition, where `change.position` puts it.
pub(crate) fn change_column(
    def: &mut st::TableDef,
    sources: &mut [Option<usize>],
    table: &str,
    change: &NewColumn<'_>,
    compiler: &Compiler,
) -> Result<(), SqlError> {
    let at = position_of(def, table, &change.old_name.value)?;
    let renamed = !change
        .name
        .value
        .eq_ignore_ascii_case(&change.old_name.value);
    if renamed && def.column_index(&change.name.value).is_some() {
        return Err(SqlError::new(
            ER_DUP_FIELDNAME,
            format!("Duplicate column name '{}'", change.name.value),
        ));
    }
    let column_def = ast::ColumnDef {
        name: change.name.clone(),
        data_type: change.data_type.clone(),
        options: change
            .options
            .iter()
            .map(|option| ast::ColumnOptionDef {
                name: None,
                option: option.clone(),
            })
            .collect(),
    };
    let collation = table_collation(&def.options)?;
    let (column, is_primary, is_unique) = column_from_ast(&column_def, collation, compiler)?;
    if column.auto_increment && !def.columns[at].auto_increment {
        return Err(SqlError::not_supported(
            "giving an existing column AUTO_INCREMENT",
        ));
    }
    if change.options.iter().any(|o| {
        matches!(
            o,
            ast::ColumnOption::Check(_) | ast::ColumnOption::ForeignKey(_)
        )
    }) {
        return Err(SqlError::not_supported(
            "CHECK or REFERENCES in ALTER TABLE MODIFY / CHANGE",
        ));
    }
    let old_name = def.columns[at].name.clone();
    rename_in_constraints(def, table, &old_name, &column.name);
    def.columns[at] = column;
    let at = match change.position {
        None => at,
        Some(position) => move_column(def, sources, at, position, table)?,
    };
    crate::plan::alter::column_keys(def, at, is_primary, is_unique)
}

/// RENAME COLUMN old TO new: the name only.
pub(crate) fn rename_column(
    def: &mut st::TableDef,
    table: &str,
    old: &ast::Ident,
    new: &ast::Ident,
) -> Result<(), SqlError> {
    let at = position_of(def, table, &old.value)?;
    if !new.value.eq_ignore_ascii_case(&old.value) && def.column_index(&new.value).is_some() {
        return Err(SqlError::new(
            ER_DUP_FIELDNAME,
            format!("Duplicate column name '{}'", new.value),
        ));
    }
    let old_name = def.columns[at].name.clone();
    rename_in_constraints(def, table, &old_name, &new.value);
    def.columns[at].name = new.value.clone();
    Ok(())
}

/// ALTER COLUMN c SET DEFAULT e / DROP DEFAULT.
pub(crate) fn alter_column(
    def: &mut st::TableDef,
    table: &str,
    name: &ast::Ident,
    op: &ast::AlterColumnOperation,
    compiler: &Compiler,
) -> Result<(), SqlError> {
    let at = position_of(def, table, &name.value)?;
    let column = &mut def.columns[at];
    match op {
        ast::AlterColumnOperation::SetDefault { value } => {
            column.default_now = false;
            set_default(column, value, compiler)
        }
        ast::AlterColumnOperation::DropDefault => {
            column.default = None;
            column.default_now = false;
            Ok(())
        }
        other => Err(SqlError::not_supported(&format!(
            "ALTER COLUMN ... {other}"
        ))),
    }
}

fn position_of(def: &st::TableDef, table: &str, name: &str) -> Result<usize, SqlError> {
    def.column_index(name).ok_or_else(|| {
        SqlError::new(
            ER_BAD_FIELD_ERROR,
            format!("Unknown column '{name}' in '{table}'"),
        )
    })
}

/// The table's FOREIGN KEY constraints name the column `new` from now on (the referenced
/// side too where the table references itself).
fn rename_in_constraints(def: &mut st::TableDef, table: &str, old: &str, new: &str) {
    for fk in &mut def.foreign_keys {
        for c in &mut fk.columns {
            if c.eq_ignore_ascii_case(old) {
                *c = new.to_string();
            }
        }
        if fk.parent_table == table {
            for c in &mut fk.parent_columns {
                if c.eq_ignore_ascii_case(old) {
                    *c = new.to_string();
                }
            }
        }
    }
}

/// Move column `at` to FIRST or AFTER another; indexes and sources follow. Returns its new
/// position.
fn move_column(
    def: &mut st::TableDef,
    sources: &mut [Option<usize>],
    at: usize,
    position: &ast::MySQLColumnPosition,
    table: &str,
) -> Result<usize, SqlError> {
    let to = match position {
        ast::MySQLColumnPosition::First => 0,
        ast::MySQLColumnPosition::After(after) => {
            let after = position_of(def, table, &after.value)?;
            if after < at {
                after + 1
            } else {
                after
            }
        }
    };
    let column = def.columns.remove(at);
    def.columns.insert(to, column);
    let source = sources[at];
    // Shift the sources between the two places by one, then set the moved one.
    if to < at {
        sources.copy_within(to..at, to + 1);
    } else {
        sources.copy_within(at + 1..=to, at);
    }
    sources[to] = source;
    let moved = |c: usize| -> usize {
        if c == at {
            to
        } else if to < at && (to..at).contains(&c) {
            c + 1
        } else if at < to && (at + 1..=to).contains(&c) {
            c - 1
        } else {
            c
        }
    };
    for ix in &mut def.indexes {
        for c in &mut ix.columns {
            *c = moved(*c);
        }
    }
    Ok(to)
}
