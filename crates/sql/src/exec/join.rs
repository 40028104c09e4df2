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
//! which costs reads, not memory. The copy holds only the columns the statement reads
//! (its list, ON, WHERE, grouping and ORDER BY), side by side in one buffer, as MariaDB's
//! join buffer holds only the fields the query uses; the scans decode only those columns
//! too. For a join of 2,000 short rows on one INT column that is 64 KB, where whole rows
//! held about 500 KB.
//!
//! The rows come out in the order of the nested loops: the first table's row id order,
//! then each step's index or row id order, which is the order the collected join gave.

use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::exec::read::{lookup_rows, read_every_row, RowTaker};
use crate::exec::source::Opened;
use crate::exec::spill::codec::value_heap_bytes;
use crate::expr::Env;
use crate::plan::stored::row_values;
use crate::plan::tables::TableSelect;
use crate::value::Value;
use myriad_storage as st;
use std::sync::Arc;

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
    let wanted = crate::exec::read::joined_columns_read(plan);
    // The columns of the table at `offset`, `width` wide, that the statement reads.
    let wanted_of = |offset: usize, width: usize| -> Option<Arc<[bool]>> {
        let w = wanted.as_ref()?.get(offset..offset + width)?;
        (!w.iter().all(|&w| w)).then(|| w.into())
    };
    let mut inputs = plan
        .joins
        .iter()
        .map(|step| {
            Ok(Input {
                table: Opened::open(&step.table, None, env)?,
                wanted: wanted_of(step.offset, step.table.def.columns.len()),
                whole: Whole::Unread,
            })
        })
        .collect::<Result<Vec<_>, SqlError>>()?;
    let mut join = Join { plan, budget, each };
    let first_wanted = wanted_of(0, plan.source.table.def.columns.len());
    for item in first.scan(first_wanted.as_ref())? {
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
    /// The columns the statement reads (None: all); the others read as NULL.
    wanted: Option<Arc<[bool]>>,
    /// Its rows, for a step that reads the table whole.
    whole: Whole,
}

/// What a step without an index lookup knows of its table's rows.
enum Whole {
    /// Not read yet.
    Unread,
    /// Every row, within the budget.
    Kept(KeptRows),
    /// Over the budget: read again for each row joined to it.
    TooLarge,
}

/// A table's rows kept for a join: only the columns the statement reads, row after row
/// in one buffer.
struct KeptRows {
    /// Positions of the kept columns in the table's row.
    columns: Vec<usize>,
    /// The table's width (its columns, kept or not).
    width: usize,
    rows: usize,
    /// `columns.len()` values per row.
    values: Vec<Value>,
}

impl KeptRows {
    fn row(&self, n: usize) -> Candidate<'_> {
        let k = self.columns.len();
        Candidate::Kept {
            columns: &self.columns,
            width: self.width,
            values: &self.values[n * k..(n + 1) * k],
        }
    }
}

/// A row of a joined table, to be appended to the row of the tables before it.
#[derive(Clone, Copy)]
enum Candidate<'a> {
    /// Every column.
    Whole(&'a [Value]),
    /// The columns `columns` of a row `width` wide; the others are NULL.
    Kept {
        columns: &'a [usize],
        width: usize,
        values: &'a [Value],
    },
}

impl Candidate<'_> {
    fn width(&self) -> usize {
        match self {
            Candidate::Whole(values) => values.len(),
            Candidate::Kept { width, .. } => *width,
        }
    }

    fn append_to(&self, row: &mut Vec<Value>) {
        match self {
            Candidate::Whole(values) => row.extend_from_slice(values),
            Candidate::Kept {
                columns,
                width,
                values,
            } => {
                let at = row.len();
                row.resize(at + width, Value::Null);
                for (&c, v) in columns.iter().zip(values.iter()) {
                    row[at + c] = v.clone();
                }
            }
        }
    }
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
            input.whole = keep_whole(input, &step.table.def, self.budget)?;
        }
        let mut matched = false;
        match (&looked_up, &input.whole) {
            (Some(rows), _) => {
                for candidate in rows {
                    let candidate = Candidate::Whole(candidate);
                    if !self.combine(n, rest, &row, candidate, &mut matched, env)? {
                        return Ok(false);
                    }
                }
            }
            (None, Whole::Kept(kept)) => {
                for r in 0..kept.rows {
                    if !self.combine(n, rest, &row, kept.row(r), &mut matched, env)? {
                        return Ok(false);
                    }
                }
            }
            (None, _) => {
                for item in input.table.scan(input.wanted.as_ref())? {
                    let (_, stored) = item?;
                    let candidate = row_values(stored, &step.table.def);
                    let candidate = Candidate::Whole(&candidate);
                    if !self.combine(n, rest, &row, candidate, &mut matched, env)? {
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
        candidate: Candidate<'_>,
        matched: &mut bool,
        env: &mut dyn Env,
    ) -> Result<bool, SqlError> {
        crate::interrupt::tick()?;
        let mut combined = Vec::with_capacity(row.len() + candidate.width());
        combined.extend_from_slice(row);
        candidate.append_to(&mut combined);
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

/// Read the columns `input` wants of its table's rows into memory while they fit in
/// `budget` bytes.
fn keep_whole(input: &Input, def: &st::TableDef, budget: usize) -> Result<Whole, SqlError> {
    let width = def.columns.len();
    let columns: Vec<usize> = match &input.wanted {
        Some(wanted) => (0..width).filter(|&c| wanted[c]).collect(),
        None => (0..width).collect(),
    };
    let mut values = Vec::new();
    if let Opened::Stored(table) = &input.table {
        // Sized once from the row count, so that the buffer does not double past it.
        let expected = table.row_count().ok().and_then(|n| usize::try_from(n).ok());
        let capacity = expected.unwrap_or(0).saturating_mul(columns.len());
        if capacity.saturating_mul(std::mem::size_of::<Value>()) <= budget {
            values.reserve_exact(capacity);
        }
    }
    let mut rows = 0usize;
    let mut bytes = 0usize;
    for item in input.table.scan(input.wanted.as_ref())? {
        crate::interrupt::tick()?;
        let (_, stored) = item?;
        let mut row = row_values(stored, def);
        for &c in &columns {
            let v = row
                .get_mut(c)
                .map_or(Value::Null, |v| std::mem::replace(v, Value::Null));
            bytes = bytes.saturating_add(value_heap_bytes(&v));
            values.push(v);
        }
        if bytes > budget {
            return Ok(Whole::TooLarge);
        }
        rows += 1;
    }
    Ok(Whole::Kept(KeptRows {
        columns,
        width,
        rows,
        values,
    }))
}
