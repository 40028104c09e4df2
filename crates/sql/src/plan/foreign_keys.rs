//! FOREIGN KEY constraints as CREATE TABLE and ALTER TABLE declare them: the definition
//! the table keeps (`myriad_storage::ForeignKeyDef`), the index InnoDB adds for them, and
//! their text in SHOW CREATE TABLE and in error messages.
//!
//! What needs other tables (the parent exists, has an index on the referenced columns, of
//! matching types) is checked when the statement runs (`exec::foreign_keys`), as is the
//! enforcement on every write.
//!
//! As in MariaDB with InnoDB:
//! - an unnamed constraint is `<table>_ibfk_<n>`, n one more than the largest such number
//!   the table has; `FOREIGN KEY name (...)` without CONSTRAINT names it `name`;
//! - a column's `REFERENCES p (id)` is a constraint as the table-level form is;
//! - the child's columns need an index that starts with them: without one, a key is added,
//!   named after the constraint when it was named, else after its first column;
//! - a table whose ENGINE is not InnoDB keeps the key but not the constraint (MyISAM,
//!   Aria and MEMORY tables have none in MariaDB), and cannot be a parent;
//! - MATCH FULL / PARTIAL, ON ... SET DEFAULT and a reference into another database are
//!   not built (1235).

use crate::error::SqlError;
use crate::plan::view_text::quote;
use myriad_storage::{self as st, ReferentialAction};
use myriad_types::errors::{
    ER_CANT_DROP_FIELD_OR_KEY, ER_DROP_INDEX_FK, ER_KEY_COLUMN_DOES_NOT_EXIST,
};
use sqlparser::ast;

/// The FOREIGN KEY constraints a CREATE TABLE declares (on columns and on the table), the
/// keys they need added to `indexes`. `database` is the table's.
pub(crate) fn declared(
    ct: &ast::CreateTable,
    (database, options): (&str, &[(String, String)]),
    columns: &[st::ColumnDef],
    indexes: &mut Vec<st::IndexDef>,
) -> Result<Vec<st::ForeignKeyDef>, SqlError> {
    let table = ct.name.0.last().map(|p| p.to_string()).unwrap_or_default();
    let table = table.trim_matches('`').to_string();
    let mut declared: Vec<st::ForeignKeyDef> = Vec::new();
    let mut add = |fk: &ast::ForeignKeyConstraint, column: Option<&ast::Ident>| {
        let made = from_ast(fk, column, database, &table, columns, &declared)?;
        add_index(&made, fk, columns, indexes);
        declared.push(made);
        Ok::<(), SqlError>(())
    };
    for c in &ct.columns {
        for option in &c.options {
            if let ast::ColumnOption::ForeignKey(fk) = &option.option {
                add(fk, Some(&c.name))?;
            }
        }
    }
    for constraint in &ct.constraints {
        if let ast::TableConstraint::ForeignKey(fk) = constraint {
            add(fk, None)?;
        }
    }
    if !declared.is_empty() && ct.query.is_some() {
        return Err(SqlError::not_supported(
            "FOREIGN KEY constraints in CREATE TABLE ... SELECT",
        ));
    }
    if !keeps_constraints(options) {
        declared.clear();
    }
    Ok(declared)
}

/// ALTER TABLE ... ADD [CONSTRAINT name] FOREIGN KEY (or ADD COLUMN `column` ... REFERENCES):
/// the constraint joins `def`, with its key when the table has none that fits.
pub(crate) fn add(
    def: &mut st::TableDef,
    database: &str,
    table: &str,
    fk: &ast::ForeignKeyConstraint,
    column: Option<&ast::Ident>,
) -> Result<(), SqlError> {
    let made = from_ast(fk, column, database, table, &def.columns, &def.foreign_keys)?;
    add_index(&made, fk, &def.columns, &mut def.indexes);
    if keeps_constraints(&def.options) {
        def.foreign_keys.push(made);
    }
    Ok(())
}

/// Whether a table of these options keeps FOREIGN KEY constraints: its ENGINE is InnoDB.
pub(crate) fn keeps_constraints(options: &[(String, String)]) -> bool {
    crate::plan::table_def::is_innodb(options)
}

/// ALTER TABLE ... DROP FOREIGN KEY name (its key stays); 1091 when the table has no
/// constraint of that name.
pub(crate) fn drop(def: &mut st::TableDef, name: &str) -> Result<(), SqlError> {
    match def
        .foreign_keys
        .iter()
        .position(|f| f.name.eq_ignore_ascii_case(name))
    {
        Some(at) => {
            def.foreign_keys.remove(at);
            Ok(())
        }
        None => Err(SqlError::new(
            ER_CANT_DROP_FIELD_OR_KEY,
            format!("Can't DROP FOREIGN KEY `{name}`; check that it exists"),
        )),
    }
}

/// After an ALTER TABLE changed `old` into `new`: each constraint must still have its
/// columns and an index that starts with them (1553 names the index that was dropped).
pub(crate) fn still_indexed(old: &st::TableDef, new: &st::TableDef) -> Result<(), SqlError> {
    for fk in &new.foreign_keys {
        if supporting_index(new, &fk.columns).is_some() {
            continue;
        }
        let dropped = supporting_index(old, &fk.columns).map(|i| old.indexes[i].name.clone());
        return Err(match dropped {
            Some(index) => SqlError::new(
                ER_DROP_INDEX_FK,
                format!("Cannot drop index '{index}': needed in a foreign key constraint"),
            ),
            None => SqlError::new(
                ER_KEY_COLUMN_DOES_NOT_EXIST,
                format!("Key column '{}' doesn't exist in table", fk.columns[0]),
            ),
        });
    }
    Ok(())
}

/// The first index of `def` whose leading columns are `columns` (by name, in order).
pub(crate) fn supporting_index(def: &st::TableDef, columns: &[String]) -> Option<usize> {
    let positions: Option<Vec<usize>> = columns.iter().map(|c| def.column_index(c)).collect();
    let positions = positions?;
    def.indexes.iter().position(|ix| {
        ix.columns.len() >= positions.len() && ix.columns[..positions.len()] == positions[..]
    })
}

/// `CONSTRAINT `name` FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE`, as SHOW
/// CREATE TABLE prints it; with `parent_database`, the parent is qualified by it (as the
/// message of error 1701 names it).
pub fn clause_text(fk: &st::ForeignKeyDef, parent_database: Option<&str>) -> String {
    let names = |names: &[String]| {
        names
            .iter()
            .map(|n| quote(n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let parent = match parent_database {
        Some(db) => format!("{}.{}", quote(db), quote(&fk.parent_table)),
        None => quote(&fk.parent_table),
    };
    let mut text = format!(
        "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {parent} ({})",
        quote(&fk.name),
        names(&fk.columns),
        names(&fk.parent_columns)
    );
    for (word, action) in [("DELETE", fk.on_delete), ("UPDATE", fk.on_update)] {
        if action != ReferentialAction::Restrict {
            text.push_str(&format!(" ON {word} {}", action.sql()));
        }
    }
    text
}

/// The constraints in the order SHOW CREATE TABLE lists them (by name).
pub fn in_shown_order(def: &st::TableDef) -> Vec<&st::ForeignKeyDef> {
    let mut fks: Vec<&st::ForeignKeyDef> = def.foreign_keys.iter().collect();
    fks.sort_by(|a, b| a.name.cmp(&b.name));
    fks
}

fn from_ast(
    fk: &ast::ForeignKeyConstraint,
    column: Option<&ast::Ident>,
    database: &str,
    table: &str,
    columns: &[st::ColumnDef],
    earlier: &[st::ForeignKeyDef],
) -> Result<st::ForeignKeyDef, SqlError> {
    if matches!(
        fk.match_kind,
        Some(ast::ConstraintReferenceMatchKind::Full | ast::ConstraintReferenceMatchKind::Partial)
    ) {
        return Err(SqlError::not_supported(
            "FOREIGN KEY ... MATCH FULL or PARTIAL",
        ));
    }
    if fk.characteristics.is_some() {
        return Err(SqlError::not_supported(
            "deferrable FOREIGN KEY constraints",
        ));
    }
    let parent = &fk.foreign_table.0;
    let parent_table = match parent.as_slice() {
        [table] => ident_text(table),
        [db, table] if ident_text(db) == database => ident_text(table),
        _ => {
            return Err(SqlError::not_supported(
                "a FOREIGN KEY that references a table of another database",
            ))
        }
    };
    let own: Vec<String> = match column {
        Some(c) => vec![c.value.clone()],
        None => fk.columns.iter().map(|c| c.value.clone()).collect(),
    };
    for name in &own {
        if !columns.iter().any(|c| c.name.eq_ignore_ascii_case(name)) {
            return Err(SqlError::new(
                ER_KEY_COLUMN_DOES_NOT_EXIST,
                format!("Key column '{name}' doesn't exist in table"),
            ));
        }
    }
    // Stored with the columns' own spelling, so comparisons by name are exact.
    let own = own
        .iter()
        .map(|n| {
            columns
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(n))
                .map_or_else(|| n.clone(), |c| c.name.clone())
        })
        .collect();
    let action = |a: &Option<ast::ReferentialAction>| match a {
        None | Some(ast::ReferentialAction::Restrict) => Ok(ReferentialAction::Restrict),
        Some(ast::ReferentialAction::NoAction) => Ok(ReferentialAction::NoAction),
        Some(ast::ReferentialAction::Cascade) => Ok(ReferentialAction::Cascade),
        Some(ast::ReferentialAction::SetNull) => Ok(ReferentialAction::SetNull),
        Some(ast::ReferentialAction::SetDefault) => Err(SqlError::not_supported(
            "FOREIGN KEY ... ON DELETE / ON UPDATE SET DEFAULT",
        )),
    };
    let name = match fk.name.as_ref().or(fk.index_name.as_ref()) {
        Some(name) => name.value.clone(),
        None => generated_name(table, earlier),
    };
    Ok(st::ForeignKeyDef {
        name,
        columns: own,
        parent_table,
        parent_columns: fk
            .referred_columns
            .iter()
            .map(|c| c.value.clone())
            .collect(),
        on_delete: action(&fk.on_delete)?,
        on_update: action(&fk.on_update)?,
    })
}

fn ident_text(part: &ast::ObjectNamePart) -> String {
    match part.as_ident() {
        Some(ident) => ident.value.clone(),
        None => part.to_string(),
    }
}

/// `<table>_ibfk_<n>`: one more than the largest n among the table's constraints.
fn generated_name(table: &str, earlier: &[st::ForeignKeyDef]) -> String {
    let prefix = format!("{table}_ibfk_");
    let largest = earlier
        .iter()
        .filter_map(|f| f.name.strip_prefix(&prefix)?.parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    format!("{prefix}{}", largest + 1)
}

/// The key a new constraint needs, unless an index already starts with its columns: named
/// after the constraint when it was named, else after its first column (made unique).
fn add_index(
    made: &st::ForeignKeyDef,
    fk: &ast::ForeignKeyConstraint,
    columns: &[st::ColumnDef],
    indexes: &mut Vec<st::IndexDef>,
) {
    let positions: Vec<usize> = made
        .columns
        .iter()
        .filter_map(|n| columns.iter().position(|c| c.name.eq_ignore_ascii_case(n)))
        .collect();
    if indexes.iter().any(|ix| {
        ix.columns.len() >= positions.len() && ix.columns[..positions.len()] == positions[..]
    }) {
        return;
    }
    let base = match fk.name.as_ref().or(fk.index_name.as_ref()) {
        Some(_) => made.name.clone(),
        None => made.columns[0].clone(),
    };
    let mut name = base.clone();
    let mut n = 2;
    while indexes.iter().any(|ix| ix.name.eq_ignore_ascii_case(&name)) {
        name = format!("{base}_{n}");
        n += 1;
    }
    indexes.push(st::IndexDef {
        name,
        kind: st::IndexKind::NonUnique,
        columns: positions,
    });
}
