//! FOREIGN KEY constraints at work: every row a statement writes is checked against them,
//! as InnoDB does, row by row (so a statement that deletes a parent before its child fails
//! as it does in MariaDB).
//!
//! - A child row's key (all of its columns non-NULL) must be found in the parent's index on
//!   the referenced columns, under that index's collation: 1452 otherwise. An UPDATE checks
//!   only a key it changed.
//! - Deleting a parent row, or changing its referenced columns, meets the child rows that
//!   hold its key: RESTRICT / NO ACTION refuse (1451), CASCADE deletes them or gives them
//!   the new key, SET NULL empties their key columns; what that does to their own children
//!   follows, at most 15 levels deep (then MariaDB's 1296 with InnoDB's error 193).
//! - `foreign_key_checks = 0` turns all of it off, as it does in MariaDB (a dump loads
//!   tables in any order).
//!
//! Locks: the parent rows a child's key was found in, and the child rows a parent's change
//! looked for, are read with shared claims on their index leaves (as `FOR SHARE` reads
//! are) and stay claimed until the statement, or its transaction, ends. A concurrent
//! statement that would delete that parent, or add such a child, waits for it (or fails
//! with 1205 / 1213), so no interleaving leaves a child without its parent.
//!
//! The definitions are checked when DDL runs: see `ddl`.

pub(crate) mod ddl;

use crate::catalog;
use crate::error::SqlError;
use crate::plan::foreign_keys::{clause_text, supporting_index};
use crate::Session;
use myriad_storage::{
    ClaimMode, Direction, ForeignKeyDef, ReferentialAction, Row, RowId, Statement, Table, TableDef,
    Value,
};
use myriad_types::errors::{
    ER_BAD_NULL_ERROR, ER_GET_ERRMSG, ER_NO_REFERENCED_ROW_2, ER_ROW_IS_REFERENCED_2,
};
use std::ops::Bound;
use std::sync::Arc;

/// How deep cascades go: a change that would cascade to this depth fails (InnoDB's limit;
/// the statement's own row is at depth 0).
const MAX_CASCADE_DEPTH: usize = 15;

/// A constraint of the table as the child.
struct AsChild {
    fk: ForeignKeyDef,
    /// The constrained columns' positions in the table.
    columns: Vec<usize>,
    /// The parent's index on the referenced columns (None: the parent or that index is
    /// missing, as `foreign_key_checks = 0` lets a definition be made; every non-NULL key
    /// then fails).
    parent_index: Option<usize>,
    /// Positions of the referenced columns when the table references itself.
    own_parent_columns: Option<Vec<usize>>,
}

/// A constraint of another table (or of this one) whose parent is the table.
struct AsParent {
    fk: ForeignKeyDef,
    child: String,
    child_def: Arc<TableDef>,
    /// The referenced columns' positions in the table.
    columns: Vec<usize>,
    /// The constrained columns' positions in the child, and the child's index on them.
    child_columns: Vec<usize>,
    child_index: usize,
}

/// The constraints one statement's writes to one table meet (empty when the table takes
/// part in none, or `foreign_key_checks` is off).
#[derive(Default)]
pub(crate) struct RowReferences {
    database: String,
    table: String,
    as_child: Vec<AsChild>,
    as_parent: Vec<AsParent>,
}

impl Session {
    /// Whether `foreign_key_checks` is on.
    pub(crate) fn foreign_key_checks(&self) -> bool {
        crate::system::sysvars::lookup("foreign_key_checks")
            .is_none_or(|i| *self.state.session_value(i) != crate::sysvars::VarValue::Bool(false))
    }

    /// The constraints writes to `database`.`table` (of definition `def`) meet: as the child
    /// always, as the parent when `parent` (a statement that may delete or change rows).
    pub(crate) fn row_references(
        &self,
        names: (&str, &str),
        def: &TableDef,
        parent: bool,
    ) -> Result<RowReferences, SqlError> {
        if !self.foreign_key_checks() {
            return Ok(RowReferences::default());
        }
        RowReferences::of(&self.engine.catalog, names, def, parent)
    }
}

impl RowReferences {
    /// See [`Session::row_references`] (here whatever `foreign_key_checks` says).
    fn of(
        catalog: &catalog::Catalog,
        (database, table): (&str, &str),
        def: &TableDef,
        parent: bool,
    ) -> Result<RowReferences, SqlError> {
        let mut refs = RowReferences {
            database: database.to_string(),
            table: table.to_string(),
            ..Default::default()
        };
        let storage = catalog.storage();
        for fk in &def.foreign_keys {
            let Some(columns) = positions(def, &fk.columns) else {
                continue;
            };
            let self_referencing = fk.parent_table == table;
            let parent_def = if self_referencing {
                None
            } else {
                storage.table_def_unkept(database, &fk.parent_table).ok()
            };
            let parent_def = parent_def.as_deref().or(self_referencing.then_some(def));
            refs.as_child.push(AsChild {
                parent_index: parent_def.and_then(|p| supporting_index(p, &fk.parent_columns)),
                own_parent_columns: self_referencing
                    .then(|| positions(def, &fk.parent_columns))
                    .flatten(),
                columns,
                fk: fk.clone(),
            });
        }
        if parent {
            let known = catalog.references(database)?;
            for reference in known.referencing(table) {
                let child_def = if reference.child == table {
                    Arc::new(def.clone())
                } else {
                    storage
                        .table_def_unkept(database, &reference.child)
                        .map_err(catalog::storage_error)?
                };
                // A constraint made with foreign_key_checks off may name columns either
                // table lacks: no row can be matched through it.
                let found = (
                    supporting_index(&child_def, &reference.fk.columns),
                    positions(def, &reference.fk.parent_columns),
                    positions(&child_def, &reference.fk.columns),
                );
                let (Some(child_index), Some(columns), Some(child_columns)) = found else {
                    continue;
                };
                refs.as_parent.push(AsParent {
                    columns,
                    child_columns,
                    child_index,
                    child: reference.child.clone(),
                    child_def,
                    fk: reference.fk.clone(),
                });
            }
        }
        Ok(refs)
    }
}

/// The tables a delete or change of `database`.`table`'s rows can reach through CASCADE and
/// SET NULL constraints, the table itself excluded (their query cache entries go stale
/// with it). Empty where gathering the constraints fails: the statement then fails too.
pub(crate) fn cascade_targets(
    catalog: &catalog::Catalog,
    database: &str,
    table: &str,
) -> Vec<String> {
    let Ok(known) = catalog.references(database) else {
        return Vec::new();
    };
    if known.is_empty() {
        return Vec::new();
    }
    let acts =
        |a: ReferentialAction| matches!(a, ReferentialAction::Cascade | ReferentialAction::SetNull);
    let mut reached: Vec<String> = Vec::new();
    let mut next = vec![table.to_string()];
    while let Some(parent) = next.pop() {
        for r in known.referencing(&parent) {
            let cascades = acts(r.fk.on_delete) || acts(r.fk.on_update);
            if cascades && r.child != table && !reached.contains(&r.child) {
                reached.push(r.child.clone());
                next.push(r.child.clone());
            }
        }
    }
    reached
}

/// The positions of the columns `names` in `def` (None when one is missing).
fn positions(def: &TableDef, names: &[String]) -> Option<Vec<usize>> {
    names.iter().map(|n| def.column_index(n)).collect()
}

/// `row`'s values at `columns`, or None when one is NULL (such a key references nothing).
fn key_of(row: &[Value], columns: &[usize]) -> Option<Vec<Value>> {
    let key: Vec<Value> = columns.iter().map(|&c| row[c].clone()).collect();
    (!key.iter().any(Value::is_null)).then_some(key)
}

impl RowReferences {
    /// Whether the table takes part in no constraint this statement must check.
    pub(crate) fn is_empty(&self) -> bool {
        self.as_child.is_empty() && self.as_parent.is_empty()
    }

    /// Before `new` is stored (inserted, or replacing `old`): each key it holds, new or
    /// changed, must be a parent's.
    pub(crate) fn check_child(
        &self,
        catalog: &catalog::Catalog,
        stmt: &mut Statement,
        new: &[Value],
        old: Option<&[Value]>,
    ) -> Result<(), SqlError> {
        for rule in &self.as_child {
            let Some(key) = key_of(new, &rule.columns) else {
                continue;
            };
            if old.is_some_and(|old| rule.columns.iter().all(|&c| old[c] == new[c])) {
                continue;
            }
            // A row may reference itself.
            if let Some(own) = &rule.own_parent_columns {
                if own.iter().zip(&key).all(|(&c, k)| &new[c] == k) {
                    continue;
                }
            }
            let found = match rule.parent_index {
                Some(index) => {
                    let parent = catalog
                        .storage()
                        .open_table(&self.database, &rule.fk.parent_table)
                        .map_err(catalog::storage_error)?;
                    !rows_with_key(&parent, index, &key, stmt)?.is_empty()
                }
                None => false,
            };
            if !found {
                return Err(SqlError::new(
                    ER_NO_REFERENCED_ROW_2,
                    format!(
                        "Cannot add or update a child row: a foreign key constraint fails ({})",
                        self.constraint_text(&self.table, &rule.fk)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Before the row `row_id` (`old`) is deleted: its children are refused, deleted or
    /// emptied as each constraint says.
    pub(crate) fn before_delete(
        &self,
        catalog: &catalog::Catalog,
        stmt: &mut Statement,
        (row_id, old): (RowId, &[Value]),
        depth: usize,
    ) -> Result<(), SqlError> {
        for rule in &self.as_parent {
            self.on_parent_change(catalog, stmt, rule, (row_id, old), None, depth)?;
        }
        Ok(())
    }

    /// Before the row `row_id` changes from `old` to `new`: the children of a changed key
    /// are refused, given the new key or emptied as each constraint says.
    pub(crate) fn before_update(
        &self,
        catalog: &catalog::Catalog,
        stmt: &mut Statement,
        (row_id, old): (RowId, &[Value]),
        new: &[Value],
        depth: usize,
    ) -> Result<(), SqlError> {
        for rule in &self.as_parent {
            if rule.columns.iter().all(|&c| old[c] == new[c]) {
                continue;
            }
            self.on_parent_change(catalog, stmt, rule, (row_id, old), Some(new), depth)?;
        }
        Ok(())
    }

    /// One constraint meeting a parent row's deletion (`new` None) or change.
    fn on_parent_change(
        &self,
        catalog: &catalog::Catalog,
        stmt: &mut Statement,
        rule: &AsParent,
        (row_id, old): (RowId, &[Value]),
        new: Option<&[Value]>,
        depth: usize,
    ) -> Result<(), SqlError> {
        let Some(key) = key_of(old, &rule.columns) else {
            return Ok(());
        };
        let child = catalog
            .storage()
            .open_table(&self.database, &rule.child)
            .map_err(catalog::storage_error)?;
        let mut children = rows_with_key(&child, rule.child_index, &key, stmt)?;
        // A row that references itself is not its own obstacle.
        if rule.child == self.table {
            children.retain(|(id, _)| *id != row_id);
        }
        if children.is_empty() {
            return Ok(());
        }
        let action = match new {
            None => rule.fk.on_delete,
            Some(_) => rule.fk.on_update,
        };
        if matches!(
            action,
            ReferentialAction::Restrict | ReferentialAction::NoAction
        ) {
            return Err(SqlError::new(
                ER_ROW_IS_REFERENCED_2,
                format!(
                    "Cannot delete or update a parent row: a foreign key constraint fails ({})",
                    self.constraint_text(&rule.child, &rule.fk)
                ),
            ));
        }
        if depth + 1 >= MAX_CASCADE_DEPTH {
            return Err(SqlError::new(
                ER_GET_ERRMSG,
                format!(
                    "Got error 193 '{}' from InnoDB",
                    self.constraint_text(&rule.child, &rule.fk)
                ),
            ));
        }
        if action == ReferentialAction::SetNull {
            // Only a definition made with foreign_key_checks off can have it (1005 refuses
            // it otherwise): a NULL is never stored into a NOT NULL column.
            if let Some(&c) = rule
                .child_columns
                .iter()
                .find(|&&c| !rule.child_def.columns[c].nullable)
            {
                return Err(SqlError::new(
                    ER_BAD_NULL_ERROR,
                    format!("Column '{}' cannot be null", rule.child_def.columns[c].name),
                ));
            }
        }
        let child_refs = RowReferences::of(
            catalog,
            (&self.database, &rule.child),
            &rule.child_def,
            true,
        )?;
        child.lock_for_write(stmt).map_err(catalog::storage_error)?;
        for (child_id, _) in children {
            // A cascade earlier in this loop may have removed it, or changed it.
            let Some(current) = child.get(child_id).map_err(catalog::storage_error)? else {
                continue;
            };
            match (action, new) {
                (ReferentialAction::Cascade, None) => {
                    child_refs.before_delete(catalog, stmt, (child_id, &current), depth + 1)?;
                    child
                        .delete(stmt, child_id)
                        .map_err(catalog::storage_error)?;
                }
                (_, new) => {
                    let mut changed = current.clone();
                    for (&to, &from) in rule.child_columns.iter().zip(&rule.columns) {
                        changed[to] = match (action, new) {
                            (ReferentialAction::Cascade, Some(new)) => new[from].clone(),
                            _ => Value::Null,
                        };
                    }
                    child_refs.before_update(
                        catalog,
                        stmt,
                        (child_id, &current),
                        &changed,
                        depth + 1,
                    )?;
                    child
                        .update(stmt, child_id, &changed)
                        .map_err(catalog::storage_error)?;
                }
            }
        }
        Ok(())
    }

    /// `` `db`.`child`, CONSTRAINT ... `` as MariaDB's messages name a constraint.
    fn constraint_text(&self, child: &str, fk: &ForeignKeyDef) -> String {
        format!(
            "{}.{}, {}",
            crate::plan::view_text::quote(&self.database),
            crate::plan::view_text::quote(child),
            clause_text(fk, None)
        )
    }
}

/// The rows of `table` whose key in index `index` starts with `key`, as the statement
/// sees them (its own changes and the latest commits). The index leaves read are claimed
/// shared for `stmt`, and read again until no claim is new.
fn rows_with_key(
    table: &Table,
    index: usize,
    key: &[Value],
    stmt: &mut Statement,
) -> Result<Vec<(RowId, Row)>, SqlError> {
    loop {
        let collecting = myriad_storage::collect_leaves();
        let rows = table
            .index_scan(
                index,
                Bound::Included(key),
                Bound::Included(key),
                Direction::Forward,
            )
            .and_then(|scan| scan.collect::<Result<Vec<_>, _>>())
            .map_err(catalog::storage_error)?;
        let leaves = collecting.finish();
        if !stmt
            .claim_pages(&leaves, ClaimMode::Shared)
            .map_err(catalog::storage_error)?
        {
            return Ok(rows);
        }
    }
}
