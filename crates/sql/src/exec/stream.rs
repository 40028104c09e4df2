//! A SELECT over one table whose rows go to a [`RowSink`] as the scan yields them (see
//! [`crate::row_sink`] for which statements stream and why the others do not).
//!
//! Per row: decode the wanted columns, filter, skip the OFFSET, evaluate the select list,
//! hand the row to the sink; stop after LIMIT rows. Nothing of a row outlives its turn, so
//! the statement holds one row however large the table.

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::exec::read::columns_read;
use crate::exec::select::{limit_value, result_columns};
use crate::exec::spill::collect::item_types;
use crate::expr::eval::SqlValue;
use crate::plan::access::visit_columns;
use crate::plan::stored::from_stored_owned;
use crate::plan::tables::{Access, OutputItem, TableSelect};
use crate::result::{QueryResult, Rows};
use crate::row_sink::RowSink;
use crate::value::Value;
use std::sync::Arc;

/// Whether every row of `plan` is final when its scan yields it: one table read whole,
/// nothing that reorders, groups, merges or drops rows after the filter.
pub(crate) fn streams(plan: &TableSelect) -> bool {
    plan.joins.is_empty()
        && plan.post_filter.is_none()
        && plan.grouping.is_none()
        && plan.order_by.is_empty()
        && !plan.distinct
        && matches!(plan.source.access, Access::Full)
}

/// Whether `plan`'s rows come out of a sort, a grouping or a de-duplication: they exist
/// only once all are read, and then go to the sink through [`send`] (the consumer a sort
/// that spills to disk feeds as it merges).
pub(crate) fn sorts(plan: &TableSelect) -> bool {
    !plan.order_by.is_empty() || plan.grouping.is_some() || plan.distinct
}

/// Send rows that were built (sorted, grouped) to `out` in order, each dropped once sent.
pub(crate) fn send(
    columns: Arc<Vec<crate::result::Column>>,
    rows: impl IntoIterator<Item = Vec<Value>>,
    out: &mut dyn RowSink,
) -> Result<QueryResult, SqlError> {
    out.begin(&columns)?;
    for row in rows {
        crate::interrupt::tick()?;
        out.row(&row)?;
    }
    Ok(streamed(columns))
}

/// Run a plan that [`streams`], sending its columns and rows to `out`.
pub(crate) fn select(
    plan: &TableSelect,
    env: &mut ExecEnv,
    out: &mut dyn RowSink,
) -> Result<QueryResult, SqlError> {
    let table = plan.source.table.open(env.engine.catalog.storage())?;
    let types = plan.source.table.column_types();
    let ncols = types.len();
    let columns = result_columns(plan, &types, ncols, env);
    let item_types = item_types(plan, &types, env);
    let movable = movable_items(plan, ncols);
    let offset = match &plan.offset {
        Some(o) => limit_value(o, env)?,
        None => 0,
    };
    let limit = match &plan.limit {
        Some(l) => limit_value(l, env)?,
        None => u64::MAX,
    };
    out.begin(&columns)?;
    if limit == 0 {
        return Ok(streamed(columns));
    }
    let mut scan = table.scan().map_err(storage_error)?;
    if let Some(wanted) = columns_read(plan) {
        scan = scan.project(wanted);
    }
    let def = &plan.source.table.def;
    let (mut skipped, mut sent) = (0u64, 0u64);
    let mut row: Vec<Value> = Vec::with_capacity(plan.items.len());
    for item in scan {
        crate::interrupt::tick()?;
        let (_, stored) = item.map_err(storage_error)?;
        let mut values: Vec<Value> = stored
            .into_iter()
            .zip(&def.columns)
            .map(|(d, c)| from_stored_owned(d, &c.ty))
            .collect();
        if let Some(filter) = &plan.source.filter {
            if filter.eval(env, &values)?.truth(&mut env.warnings) != Some(true) {
                continue;
            }
        }
        if skipped < offset {
            skipped += 1;
            continue;
        }
        row.clear();
        for ((item, ty), &moved) in plan.items.iter().zip(&item_types).zip(&movable) {
            let d = match item {
                OutputItem::Column { index, .. } if moved => {
                    std::mem::replace(&mut values[*index], Value::Null)
                }
                OutputItem::Column { index, .. } => values[*index].clone(),
                OutputItem::Expr { expr, .. } => expr.eval(env, &values)?,
            };
            row.push(d.into_column(*ty, &mut env.warnings));
        }
        out.row(&row)?;
        sent += 1;
        if sent >= limit {
            break;
        }
    }
    Ok(streamed(columns))
}

pub(crate) fn streamed(columns: Arc<Vec<crate::result::Column>>) -> QueryResult {
    QueryResult::Rows {
        columns,
        rows: Arc::new(Rows::streamed()),
        warnings: 0,
    }
}

/// For each select-list item, whether it is a column shown as it is and read by nothing
/// else in the list: its value can be moved out of the row instead of cloned. `width` is
/// the row's length (columns, then aggregates).
// Inline: called once per statement on the point-select path.
#[inline(always)]
pub(crate) fn movable_items(plan: &TableSelect, width: usize) -> Vec<bool> {
    let mut uses = vec![0u32; width];
    let mut countable = true;
    for item in &plan.items {
        match item {
            OutputItem::Column { index, .. } => {
                if let Some(u) = uses.get_mut(*index) {
                    *u += 1;
                }
            }
            OutputItem::Expr { expr, .. } => {
                countable &= visit_columns(expr, &mut |c| {
                    if let Some(u) = uses.get_mut(c) {
                        *u += 1;
                    }
                });
            }
        }
    }
    plan.items
        .iter()
        .map(|item| {
            countable
                && matches!(item, OutputItem::Column { index, .. }
                    if uses.get(*index) == Some(&1))
        })
        .collect()
}
