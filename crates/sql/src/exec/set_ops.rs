//! The rows of UNION, INTERSECT and EXCEPT (see `crate::plan::union`): each SELECT's
//! rows, converted to the result's column types, combined node by node. Rows compare as
//! DISTINCT compares them (each string under its column's collation); the first of equal
//! rows is kept, in the order met. The rows stay within the grouping budget, as a derived
//! table's do.

use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::expr::eval::SqlValue;
use crate::plan::union::{SetNode, SetOp, UnionPlan};
use crate::value::Value;
use myriad_storage as st;
use myriad_types::errors::ER_RECORD_FILE_FULL;
use std::collections::{HashMap, HashSet};

/// The rows of `plan`, read as the table `name`.
pub(crate) fn rows(
    plan: &UnionPlan,
    name: &str,
    env: &mut ExecEnv,
) -> Result<Vec<st::Row>, SqlError> {
    let types: Vec<_> = plan
        .def
        .columns
        .iter()
        .map(|c| crate::plan::tables::sql_type_of(&c.ty))
        .collect();
    let collations: Vec<st::Collation> = plan
        .def
        .columns
        .iter()
        .map(|c| c.ty.string_collation().unwrap_or_default())
        .collect();
    let shape = Shape {
        types,
        collations,
        name,
        limit: env.spill_config().group_bytes,
    };
    node_rows(&plan.node, &shape, env, None)
}

/// What every node's rows are made into.
struct Shape<'n> {
    types: Vec<crate::expr::eval::SqlType>,
    collations: Vec<st::Collation>,
    name: &'n str,
    limit: usize,
}

impl Shape<'_> {
    fn key(&self, row: &[Value]) -> Vec<u8> {
        crate::exec::distinct::row_key(row, &self.collations)
    }

    fn check_size(&self, rows: &[st::Row]) -> Result<(), SqlError> {
        let bytes: usize = rows
            .iter()
            .map(|r| crate::result::Rows::row_heap_bytes(r))
            .sum();
        if bytes > self.limit {
            return Err(SqlError::new(
                ER_RECORD_FILE_FULL,
                format!("The table '{}' is full", self.name),
            ));
        }
        Ok(())
    }
}

/// The rows of `node`. With `seen` (a DISTINCT union above), only rows whose key is not
/// in it yet are kept, and their keys go in: duplicates take no memory on the way.
fn node_rows(
    node: &SetNode,
    shape: &Shape,
    env: &mut ExecEnv,
    mut seen: Option<&mut HashSet<Vec<u8>>>,
) -> Result<Vec<st::Row>, SqlError> {
    crate::depth::check_stack()?;
    match node {
        SetNode::Query(stmt) => {
            let mut warnings = Vec::new();
            let rows =
                crate::exec::source::query_rows_kept(stmt.as_ref(), shape.name, env, &mut |row| {
                    for (v, ty) in row.iter_mut().zip(&shape.types) {
                        let converted =
                            std::mem::replace(v, Value::Null).into_column(*ty, &mut warnings);
                        *v = crate::plan::stored::evaluable(&converted);
                    }
                    seen.as_mut().is_none_or(|seen| seen.insert(shape.key(row)))
                });
            env.warnings.append(&mut warnings);
            rows
        }
        SetNode::Operation {
            op: SetOp::Union,
            all,
            left,
            right,
        } => {
            // DISTINCT removes duplicates from both sides: one set of keys for the two.
            let mut own = HashSet::new();
            let seen = match (seen, all) {
                (Some(seen), _) => Some(seen),
                (None, false) => Some(&mut own),
                (None, true) => None,
            };
            let (mut rows, seen) = match seen {
                Some(seen) => (node_rows(left, shape, env, Some(&mut *seen))?, Some(seen)),
                None => (node_rows(left, shape, env, None)?, None),
            };
            rows.extend(node_rows(right, shape, env, seen)?);
            shape.check_size(&rows)?;
            Ok(rows)
        }
        SetNode::Operation {
            op,
            all,
            left,
            right,
        } => {
            let left = node_rows(left, shape, env, None)?;
            let right = node_rows(right, shape, env, None)?;
            let mut rows = combine(*op, *all, left, right, shape)?;
            if let Some(seen) = seen {
                rows.retain(|row| seen.insert(shape.key(row)));
            }
            shape.check_size(&rows)?;
            Ok(rows)
        }
    }
}

/// `left op right` for INTERSECT and EXCEPT.
fn combine(
    op: SetOp,
    all: bool,
    left: Vec<st::Row>,
    right: Vec<st::Row>,
    shape: &Shape,
) -> Result<Vec<st::Row>, SqlError> {
    Ok(match (op, all) {
        // Unions are made on the way in (`node_rows`), never here.
        (SetOp::Union, _) => {
            return Err(SqlError::new(
                myriad_types::errors::ER_UNKNOWN_ERROR,
                "a UNION combined as an INTERSECT or EXCEPT",
            ))
        }
        (SetOp::Intersect | SetOp::Except, _) => {
            let mut counts: HashMap<Vec<u8>, usize> = HashMap::new();
            for row in &right {
                *counts.entry(shape.key(row)).or_default() += 1;
            }
            let mut seen = HashSet::new();
            let mut rows = Vec::new();
            for row in left {
                crate::interrupt::tick()?;
                let key = shape.key(&row);
                let in_right = match counts.get_mut(&key) {
                    // ALL: each right row matches one left row.
                    Some(n) if *n > 0 => {
                        if all {
                            *n -= 1;
                        }
                        true
                    }
                    _ => false,
                };
                let keep = (op == SetOp::Intersect) == in_right;
                if keep && (all || seen.insert(key)) {
                    rows.push(row);
                }
            }
            rows
        }
    })
}
