//! A SELECT whose rows go to a [`RowSink`] as its scan or join yields them (see
//! [`crate::row_sink`] for which statements stream and why the others do not).
//!
//! Per row: decode the wanted columns, filter (or join, see [`crate::exec::join`]), skip
//! the OFFSET, evaluate the select list, hand the row to the sink; stop after LIMIT rows.
//! Nothing of a row outlives its turn, so the statement holds one row however large the
//! tables.

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::exec::read::columns_read;
use crate::exec::select::{input_types, limit_value, result_columns};
use crate::exec::spill::collect::item_types;
use crate::expr::eval::SqlValue;
use crate::expr::Env;
use crate::plan::access::visit_columns;
use crate::plan::stored::row_values;
use crate::plan::tables::{Access, OutputItem, TableSelect};
use crate::result::{QueryResult, Rows};
use crate::row_sink::RowSink;
use crate::value::Value;
use std::sync::Arc;

/// Whether every row of `plan` is final when its scan or join yields it: nothing that
/// reorders, groups or merges rows afterwards, and no index read (which may start again,
/// and rows sent cannot be taken back). A DISTINCT that streams goes through
/// `exec::distinct`, which drops the repeats first.
pub(crate) fn streams(plan: &TableSelect) -> bool {
    let one_scan = plan.joins.is_empty()
        && plan.post_filter.is_none()
        && matches!(plan.source.access, Access::Full);
    (one_scan || !plan.joins.is_empty())
        && plan.grouping.is_none()
        && plan.order_by.is_empty()
        && !plan.distinct
}

/// Run a plan that [`streams`], sending its columns and rows to `out`.
pub(crate) fn select(
    plan: &TableSelect,
    env: &mut ExecEnv,
    out: &mut dyn RowSink,
) -> Result<QueryResult, SqlError> {
    let table = plan.source.table.open(env.engine.catalog.storage())?;
    let (types, ncols) = input_types(plan, env);
    let columns = result_columns(plan, &types, ncols, env);
    let mut rows = Sender {
        plan,
        item_types: item_types(plan, &types, env),
        movable: movable_items(plan, ncols),
        offset: match &plan.offset {
            Some(o) => limit_value(o, env)?,
            None => 0,
        },
        limit: match &plan.limit {
            Some(l) => limit_value(l, env)?,
            None => u64::MAX,
        },
        skipped: 0,
        sent: 0,
        row: Vec::with_capacity(plan.items.len()),
        out,
    };
    rows.out.begin(&columns)?;
    if rows.limit == 0 {
        return Ok(streamed(columns));
    }
    if !plan.joins.is_empty() {
        crate::exec::join::each_joined_row(plan, &table, env, &mut |values, env| {
            rows.send(values, env)
        })?;
        return Ok(streamed(columns));
    }
    let mut scan = table.scan().map_err(storage_error)?;
    if let Some(wanted) = columns_read(plan) {
        scan = scan.project(wanted);
    }
    let def = &plan.source.table.def;
    for item in scan {
        crate::interrupt::tick()?;
        let (_, stored) = item.map_err(storage_error)?;
        let values = row_values(stored, def);
        if let Some(filter) = &plan.source.filter {
            if !filter.holds(env, &values)? {
                continue;
            }
        }
        if !rows.send(values, env)? {
            break;
        }
    }
    Ok(streamed(columns))
}

/// The rows of a streamed SELECT on their way to the sink: OFFSET, LIMIT and the select
/// list.
struct Sender<'p, 'o> {
    plan: &'p TableSelect,
    item_types: Vec<crate::expr::eval::SqlType>,
    movable: Vec<bool>,
    offset: u64,
    limit: u64,
    skipped: u64,
    sent: u64,
    /// The result row, built anew in the same buffer each time.
    row: Vec<Value>,
    out: &'o mut dyn RowSink,
}

impl Sender<'_, '_> {
    /// Skip `values` while OFFSET lasts, else evaluate the select list over it and send
    /// the result row; false once LIMIT rows were sent.
    fn send(&mut self, mut values: Vec<Value>, env: &mut dyn Env) -> Result<bool, SqlError> {
        if self.skipped < self.offset {
            self.skipped += 1;
            return Ok(true);
        }
        self.row.clear();
        let shown = self
            .plan
            .items
            .iter()
            .zip(&self.item_types)
            .zip(&self.movable);
        for ((item, ty), &moved) in shown {
            let d = match item {
                OutputItem::Column { index, .. } if moved => {
                    std::mem::replace(&mut values[*index], Value::Null)
                }
                OutputItem::Column { index, .. } => values[*index].clone(),
                OutputItem::Expr { expr, .. } => expr.eval(env, &values)?,
            };
            self.row.push(d.into_column(*ty, env.warnings()));
        }
        self.out.row(&self.row)?;
        self.sent += 1;
        Ok(self.sent < self.limit)
    }
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
