//! Joins: nested loops over the tables in FROM order, one combined row at a time.
//!
//! The first table is scanned; for each of its rows the next table's rows are found (by
//! index when the ON clause gives a key, else from the whole table), combined, checked
//! against ON, and carried depth first into the next table, so the statement holds one
//! combined row per table, never the rows of a step or of the result. The WHERE clause is
//! applied to each full combination as it is made, and what passes goes to the caller's
//! taker: the result sink, the sort, the grouping or the running aggregates, each bounded
//! on its own.
//!
//! A table read whole (no usable index) is kept in memory and combined from that copy
//! while its rows take at most the grouping budget (min(`tmp_table_size`,
//! `max_heap_table_size`)); a larger one is read again for each row it is joined to,
//! which costs reads, not memory.
//!
//! The rows come out in the order of the nested loops: the first table's row id order,
//! then each step's index or row id order, which is the order the collected join gave.

use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::exec::read::{lookup_rows, read_every_row, RowTaker};
use crate::exec::source::Opened;
use crate::exec::spill::codec::SpillRow;
use crate::expr::Env;
use crate::plan::stored::row_values;
use crate::plan::tables::TableSelect;
use crate::value::Value;
use myriad_storage as st;

/// Where a join hands each combined row (the tables' columns in join order); false
/// stops the join.
pub(crate) type JoinedTaker<'a> =
    dyn FnMut(Vec<Value>, &mut dyn Env) -> Result<bool, SqlError> + 'a;

/// Every input row of a table SELECT: the rows of its one table that pass the filter
/// ([`read_every_row`], which may start again and then calls `restart`), or its joined
/// rows that pass WHERE (a join never starts again; row ids are 0).
pub(crate) fn every_input_row(
    plan: &TableSelect,
    table: &Opened,
    env: &mut ExecEnv,
    each: &mut RowTaker,
    restart: &mut dyn FnMut(),
) -> Result<(), SqlError> {
    if plan.joins.is_empty() {
        return read_every_row(plan, table, env, each, restart);
    }
    each_joined_row(plan, table, env, &mut |values, env| each(0, values, env))
}

/// Hand every combined row of `plan`'s join that passes WHERE to `each`, in nested-loop
/// order; `first` is the opened first table. A table read whole keeps its rows within
/// the session's grouping budget.
pub(crate) fn each_joined_row(
    plan: &TableSelect,
    first: &Opened,
    env: &mut ExecEnv,
    each: &mut JoinedTaker,
) -> Result<(), SqlError> {
    let budget = env.spill_config().group_bytes;
    let mut inputs = plan
        .joins
        .iter()
        .map(|step| {
            Ok(Input {
                table: Opened::open(&step.table, None, env)?,
                whole: Whole::Unread,
            })
        })
        .collect::<Result<Vec<_>, SqlError>>()?;
    let mut join = Join { plan, budget, each };
    for item in first.scan(None)? {
        crate::interrupt::tick()?;
        let (_, stored) = item?;
        let row = row_values(stored, &plan.source.table.def);
        if !join.step(0, &mut inputs, row, env)? {
            break;
        }
    }
    Ok(())
}

/// One joined table while the join runs.
struct Input {
    table: Opened,
    /// Its rows, for a step that reads the table whole.
    whole: Whole,
}

/// What a step without an index lookup knows of its table's rows.
enum Whole {
    /// Not read yet.
    Unread,
    /// Every row, within the budget.
    Kept(Vec<Vec<Value>>),
    /// Over the budget: read again for each row joined to it.
    TooLarge,
}

/// The parts of a running join that every step reads.
struct Join<'p, 't, 'f> {
    plan: &'p TableSelect,
    budget: usize,
    each: &'t mut JoinedTaker<'f>,
}

impl Join<'_, '_, '_> {
    /// Combine `row` (the columns of the tables before step `n`) with step `n`'s rows, and
    /// carry each combination on; false once the taker asked to stop.
    fn step(
        &mut self,
        n: usize,
        inputs: &mut [Input],
        row: Vec<Value>,
        env: &mut dyn Env,
    ) -> Result<bool, SqlError> {
        let plan = self.plan;
        let step = &plan.joins[n];
        let Some((input, rest)) = inputs.split_first_mut() else {
            return Ok(true);
        };
        let looked_up = match &step.lookup {
            Some((index_no, key)) => {
                let value = key.eval(env, &row)?;
                lookup_rows(
                    input.table.stored()?,
                    &step.table.def,
                    *index_no,
                    value,
                    env,
                )?
            }
            None => None,
        };
        if looked_up.is_none() && matches!(input.whole, Whole::Unread) {
            input.whole = keep_whole(&input.table, &step.table.def, self.budget)?;
        }
        let mut matched = false;
        match (&looked_up, &input.whole) {
            (Some(rows), _) | (None, Whole::Kept(rows)) => {
                for candidate in rows {
                    if !self.combine(n, rest, &row, candidate, &mut matched, env)? {
                        return Ok(false);
                    }
                }
            }
            (None, _) => {
                for item in input.table.scan(None)? {
                    let (_, stored) = item?;
                    let candidate = row_values(stored, &step.table.def);
                    if !self.combine(n, rest, &row, &candidate, &mut matched, env)? {
                        return Ok(false);
                    }
                }
            }
        }
        if !matched && step.left {
            let mut combined = row;
            combined.extend(std::iter::repeat_n(
                Value::Null,
                step.table.def.columns.len(),
            ));
            return self.carry(n, rest, combined, env);
        }
        Ok(true)
    }

    /// One candidate of step `n` joined to `row`: kept when ON holds, then carried on.
    fn combine(
        &mut self,
        n: usize,
        rest: &mut [Input],
        row: &[Value],
        candidate: &[Value],
        matched: &mut bool,
        env: &mut dyn Env,
    ) -> Result<bool, SqlError> {
        crate::interrupt::tick()?;
        let mut combined = Vec::with_capacity(row.len() + candidate.len());
        combined.extend_from_slice(row);
        combined.extend_from_slice(candidate);
        if !holds(self.plan.joins[n].on.as_ref(), &combined, env)? {
            return Ok(true);
        }
        *matched = true;
        self.carry(n, rest, combined, env)
    }

    /// A row made at step `n`: into the next step, or (after the last) through WHERE to
    /// the taker.
    fn carry(
        &mut self,
        n: usize,
        rest: &mut [Input],
        combined: Vec<Value>,
        env: &mut dyn Env,
    ) -> Result<bool, SqlError> {
        if n + 1 < self.plan.joins.len() {
            return self.step(n + 1, rest, combined, env);
        }
        if !holds(self.plan.post_filter.as_ref(), &combined, env)? {
            return Ok(true);
        }
        (self.each)(combined, env)
    }
}

/// Whether `condition` (none: always) is true for `row`.
fn holds(
    condition: Option<&crate::expr::Expr>,
    row: &[Value],
    env: &mut dyn Env,
) -> Result<bool, SqlError> {
    condition.map_or(Ok(true), |c| c.holds(env, row))
}

/// Read a table's rows into memory while they fit in `budget` bytes.
fn keep_whole(table: &Opened, def: &st::TableDef, budget: usize) -> Result<Whole, SqlError> {
    let mut rows = Vec::new();
    let mut bytes = 0usize;
    for item in table.scan(None)? {
        crate::interrupt::tick()?;
        let (_, stored) = item?;
        let row = row_values(stored, def);
        bytes = bytes.saturating_add(row.heap_bytes());
        if bytes > budget {
            return Ok(Whole::TooLarge);
        }
        rows.push(row);
    }
    Ok(Whole::Kept(rows))
}
