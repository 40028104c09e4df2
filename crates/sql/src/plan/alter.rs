//! ALTER TABLE: the new definition from the old one and the alterations.

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::expr::eval::Datum;
use crate::expr::Compiler;
use crate::expr::Env;
use crate::plan::access::*;
use crate::plan::show_create::*;
use crate::plan::table_def::*;
use crate::plan::tables::*;
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
    operations: &[ast::AlterTableOperation],
    compiler: &Compiler,
) -> Result<(st::TableDef, Vec<Option<usize>>), SqlError> {
    let mut def = old.clone();
    let mut sources: Vec<Option<usize>> = (0..old.columns.len()).map(Some).collect();
    let find = |def: &st::TableDef, name: &str| {
        def.column_index(name).ok_or_else(|| {
            SqlError::new(
                ER_BAD_FIELD_ERROR,
                format!("Unknown column '{name}' in '{}'", "table"),
            )
        })
    };
    for op in operations {
        match op {
            ast::AlterTableOperation::AddColumn {
                column_def,
                column_position,
                if_not_exists,
                ..
            } => {
                if def.column_index(&column_def.name.value).is_some() {
                    if *if_not_exists {
                        continue;
                    }
                    return Err(SqlError::new(
                        ER_DUP_FIELDNAME,
                        format!("Duplicate column name '{}'", column_def.name.value),
                    ));
                }
                let (column, is_primary, is_unique) = column_from_ast(column_def, compiler)?;
                if column.auto_increment {
                    return Err(SqlError::not_supported("adding an AUTO_INCREMENT column"));
                }
                let at = match column_position {
                    None => def.columns.len(),
                    Some(ast::MySQLColumnPosition::First) => 0,
                    Some(ast::MySQLColumnPosition::After(after)) => find(&def, &after.value)? + 1,
                };
                def.columns.insert(at, column);
                sources.insert(at, None);
                for ix in &mut def.indexes {
                    for c in &mut ix.columns {
                        if *c >= at {
                            *c += 1;
                        }
                    }
                }
                if is_primary {
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
                    let name = column_def.name.value.clone();
                    def.indexes.push(st::IndexDef {
                        name,
                        kind: st::IndexKind::Unique,
                        columns: vec![at],
                    });
                }
            }
            ast::AlterTableOperation::DropColumn {
                column_names,
                if_exists,
                ..
            } => {
                for name in column_names {
                    let Some(at) = def.column_index(&name.value) else {
                        if *if_exists {
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
            }
            ast::AlterTableOperation::AddConstraint { constraint, .. } => {
                let columns_of = |cols: &[ast::IndexColumn],
                                  def: &st::TableDef|
                 -> Result<Vec<usize>, SqlError> {
                    cols.iter()
                        .map(|ic| match &ic.column.expr {
                            ast::Expr::Identifier(id) => {
                                def.column_index(&id.value).ok_or_else(|| {
                                    SqlError::new(
                                        ER_KEY_COLUMN_DOES_NOT_EXIST,
                                        format!("Key column '{}' doesn't exist in table", id.value),
                                    )
                                })
                            }
                            other => Err(crate::expr::err_syntax(&other.to_string())),
                        })
                        .collect()
                };
                let index = match constraint {
                    ast::TableConstraint::PrimaryKey(pk) => {
                        if def.primary_key().is_some() {
                            return Err(SqlError::new(
                                ER_MULTIPLE_PRI_KEY,
                                "Multiple primary key defined",
                            ));
                        }
                        let cols = columns_of(&pk.columns, &def)?;
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
                        let cols = columns_of(&u.columns, &def)?;
                        let name = u
                            .index_name
                            .as_ref()
                            .or(u.name.as_ref())
                            .map(|n| n.value.clone())
                            .unwrap_or_else(|| def.columns[cols[0]].name.clone());
                        st::IndexDef {
                            name,
                            kind: st::IndexKind::Unique,
                            columns: cols,
                        }
                    }
                    ast::TableConstraint::Index(ix) => {
                        let cols = columns_of(&ix.columns, &def)?;
                        let name = ix
                            .name
                            .as_ref()
                            .map(|n| n.value.clone())
                            .unwrap_or_else(|| def.columns[cols[0]].name.clone());
                        st::IndexDef {
                            name,
                            kind: st::IndexKind::NonUnique,
                            columns: cols,
                        }
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
            }
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
    def.validate().map_err(storage_error)?;
    Ok((def, sources))
}

// ---- row lock keys ----

/// The primary-key values a point statement (`WHERE pk = ..` or `pk IN (..)` over the whole
/// primary key) searches for, as row-lock keys, whether or not such rows exist. Empty when
/// the access path is not a primary-key point lookup.
pub fn primary_point_keys(source: &RowSource, env: &mut dyn Env) -> Result<Vec<String>, SqlError> {
    let def = &source.table.def;
    let Access::Index { index_no, eq, tail } = &source.access else {
        return Ok(Vec::new());
    };
    let Some(ix) = def.indexes.get(*index_no) else {
        return Ok(Vec::new());
    };
    if ix.kind != st::IndexKind::Primary {
        return Ok(Vec::new());
    }
    let mut prefix = Vec::with_capacity(ix.columns.len());
    for (position, e) in eq.iter().enumerate() {
        let v = e.eval(env, &[])?;
        match key_value(&v, &def.columns[ix.columns[position]].ty) {
            Some(k) => prefix.push(k),
            None => return Ok(Vec::new()),
        }
    }
    let mut keys = Vec::new();
    match tail {
        Tail::None if prefix.len() == ix.columns.len() => keys.push(lock_text(&prefix)),
        Tail::In(list) if prefix.len() + 1 == ix.columns.len() => {
            let ty = &def.columns[ix.columns[prefix.len()]].ty;
            for e in list {
                let v = e.eval(env, &[])?;
                if let Some(k) = key_value(&v, ty) {
                    let mut key = prefix.clone();
                    key.push(k);
                    keys.push(lock_text(&key));
                }
            }
        }
        _ => {}
    }
    Ok(keys)
}

/// The row-lock key of a row (its primary-key values); None without a primary key.
pub fn primary_key_of(def: &st::TableDef, values: &[Datum]) -> Option<String> {
    let ix = &def.indexes[def.primary_key()?];
    let mut key = Vec::with_capacity(ix.columns.len());
    for &c in &ix.columns {
        key.push(key_value(values.get(c)?, &def.columns[c].ty)?);
    }
    Some(lock_text(&key))
}

/// One text per key value: an unsigned value that fits reads like the signed one.
pub(crate) fn lock_text(key: &[st::Value]) -> String {
    let normal: Vec<st::Value> = key
        .iter()
        .map(|d| match d {
            st::Value::UInt(u) if i64::try_from(*u).is_ok() => st::Value::Int(*u as i64),
            other => other.clone(),
        })
        .collect();
    format!("{normal:?}")
}
