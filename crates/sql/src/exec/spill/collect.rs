//! Where a SELECT's result rows gather before they are returned: as they come when
//! nothing orders them, else through the budgeted sort (see [`super::sort`]), which keeps
//! only the first OFFSET + LIMIT rows when a limit applies. Rows in arrival order stay in
//! memory while they take at most `sort_buffer_size`; past it they are spooled to a
//! temporary file in the same order (a sort by arrival alone), so an index read of a
//! large range waiting on a slow client holds the budget, not its result.

use super::sort::{ExternalSort, Outcome};
use super::{SpillConfig, SpillCounters};
use crate::error::SqlError;
use crate::exec::spill::codec::SpillRow;
use crate::expr::eval::{SqlType, SqlValue};
use crate::expr::Env;
use crate::plan::tables::{OutputItem, TableSelect};
use crate::value::Value;
use myriad_types::errors::ER_UNKNOWN_ERROR;
use myriad_types::Collation;

pub enum Collector<'d> {
    /// Rows in arrival order, in memory.
    Plain(Plain<'d>),
    /// Rows by ORDER BY (or group) keys.
    Sorted(Box<ExternalSort<'d, Vec<Value>>>),
    /// Rows in arrival order past the budget: a sort without keys, which keeps arrival
    /// order and spills.
    Spooled(Box<ExternalSort<'d, Vec<Value>>>, &'d SpillConfig),
    /// Input rows waiting for the window step (see [`crate::exec::window`]): they are
    /// shaped after it, into another collector.
    Windowed(Box<crate::exec::window::WindowInput<'d>>),
}

/// Rows in arrival order while they fit the sort budget.
pub struct Plain<'d> {
    rows: Vec<Vec<Value>>,
    /// Their heap bytes, counted as the sort counts them.
    bytes: usize,
    config: &'d SpillConfig,
}

/// A result's rows in order, one at a time.
type ResultRows<'d> = Box<dyn Iterator<Item = Result<Vec<Value>, SqlError>> + 'd>;

impl<'d> Collector<'d> {
    /// Rows ordered by keys (`desc` per key, strings under its collation) when `order` is
    /// given; `wanted`: only the first rows are needed.
    pub fn new(
        order: Option<(Vec<bool>, Vec<Collation>)>,
        wanted: Option<usize>,
        config: &'d SpillConfig,
    ) -> Collector<'d> {
        match order {
            None => Collector::Plain(Plain {
                rows: Vec::new(),
                bytes: 0,
                config,
            }),
            Some((desc, collations)) => Collector::Sorted(Box::new(ExternalSort::new(
                (desc, &collations),
                config.sort_bytes,
                wanted,
                &config.dir,
            ))),
        }
    }

    /// Add a row; `seq` orders it among rows with equal keys (default: arrival).
    pub fn push(
        &mut self,
        keys: Vec<Value>,
        seq: Option<u64>,
        row: Vec<Value>,
    ) -> Result<(), SqlError> {
        let spool = match (&mut *self, seq) {
            (Collector::Plain(plain), _) => {
                plain.bytes += row.heap_bytes();
                plain.rows.push(row);
                if plain.bytes <= plain.config.sort_bytes {
                    return Ok(());
                }
                let config = plain.config;
                let mut spool = Box::new(ExternalSort::new(
                    (Vec::new(), &[]),
                    config.sort_bytes,
                    None,
                    &config.dir,
                ));
                for row in std::mem::take(&mut plain.rows) {
                    spool.push(Vec::new(), row)?;
                }
                Collector::Spooled(spool, config)
            }
            (Collector::Spooled(spool, _), _) => return spool.push(Vec::new(), row),
            (Collector::Sorted(sort), None) => return sort.push(keys, row),
            (Collector::Sorted(sort), Some(seq)) => return sort.push_at(keys, seq, row),
            (Collector::Windowed(_), _) => {
                return Err(SqlError::new(
                    ER_UNKNOWN_ERROR,
                    "a shaped row was handed to the window step",
                ))
            }
        };
        *self = spool;
        Ok(())
    }

    /// The rows in order, past the first `skip` and at most `take` of them; None when a
    /// limit dropped rows whose order then changed (the statement runs again without the
    /// limit, see [`Outcome::Restart`]). `range`: the rows came from an index range
    /// (Sort_range), not a scan (Sort_scan). Rows skipped are never held.
    pub fn finish(
        self,
        counters: &mut SpillCounters,
        range: bool,
        skip: usize,
        take: usize,
    ) -> Result<Option<Vec<Vec<Value>>>, SqlError> {
        if let Collector::Plain(Plain { mut rows, .. }) = self {
            // Already a Vec in order: cut it in place rather than move each row.
            rows.drain(..skip.min(rows.len()));
            rows.truncate(take);
            return Ok(Some(rows));
        }
        let Some(rows) = self.rows(counters, range)? else {
            return Ok(None);
        };
        rows.skip(skip)
            .take(take)
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// Like [`Collector::finish`], but each result row goes to `sink` as it leaves the
    /// sort (after `sink.begin(columns)`), so that no copy of the whole result is kept.
    /// False when the sort's early limit has to be given up (nothing was sent then).
    pub fn finish_into(
        self,
        counters: &mut SpillCounters,
        range: bool,
        (skip, take): (usize, usize),
        columns: &std::sync::Arc<Vec<crate::result::Column>>,
        sink: &mut dyn crate::RowSink,
    ) -> Result<bool, SqlError> {
        let Some(rows) = self.rows(counters, range)? else {
            return Ok(false);
        };
        sink.begin(columns)?;
        for row in rows.skip(skip).take(take) {
            crate::interrupt::tick()?;
            sink.row(&row?)?;
        }
        Ok(true)
    }

    /// The result rows in order, one at a time; None on [`Outcome::Restart`].
    pub(crate) fn rows(
        self,
        counters: &mut SpillCounters,
        range: bool,
    ) -> Result<Option<ResultRows<'d>>, SqlError> {
        let (sort, spooled) = match self {
            Collector::Plain(plain) => {
                return Ok(Some(Box::new(plain.rows.into_iter().map(Ok))));
            }
            Collector::Sorted(sort) => (sort, false),
            Collector::Spooled(spool, _) => (spool, true),
            Collector::Windowed(_) => {
                return Err(SqlError::new(
                    ER_UNKNOWN_ERROR,
                    "the window step's rows were read before it ran",
                ))
            }
        };
        let (outcome, stats) = (*sort).finish()?;
        match spooled {
            // Not a sort the client asked for: only its files count.
            true => counters.sort.tmp_files += stats.tmp_files,
            false => counters.add_sort(stats, range),
        }
        Ok(match outcome {
            Outcome::Restart => None,
            Outcome::Sorted(rows) => Some(Box::new(rows.map(|row| row.map(|(_, r)| r)))),
        })
    }
}

impl Collector<'_> {
    /// Forget the rows gathered so far (an index read starts again).
    pub fn reset(&mut self) {
        match self {
            Collector::Plain(plain) => {
                plain.rows.clear();
                plain.bytes = 0;
            }
            Collector::Spooled(_, config) => *self = Collector::new(None, None, config),
            Collector::Sorted(sort) => sort.reset(),
            Collector::Windowed(input) => input.reset(),
        }
    }
}

/// The select list's types over an input row of `types`.
// Inline: called once per statement on the point-select path.
#[inline(always)]
pub(crate) fn item_types(plan: &TableSelect, types: &[SqlType], env: &dyn Env) -> Vec<SqlType> {
    plan.items
        .iter()
        .map(|item| match item {
            OutputItem::Column { index, .. } => types[*index],
            OutputItem::Expr { expr, .. } => expr.sql_type(env, types),
        })
        .collect()
}

/// How one input row becomes a result row: the select list's types, and which columns
/// are moved out of their row instead of cloned.
pub struct RowShape<'p> {
    plan: &'p TableSelect,
    item_types: Vec<SqlType>,
    /// A column shown as it is and read by nothing else in the select list is moved out
    /// of its row, not cloned (the ORDER BY keys are evaluated first).
    movable: Vec<bool>,
}

impl<'p> RowShape<'p> {
    /// `types`: the input row's column types (the aggregates' after the tables').
    pub fn new(plan: &'p TableSelect, types: &[SqlType], env: &dyn Env) -> RowShape<'p> {
        RowShape {
            plan,
            item_types: item_types(plan, types, env),
            movable: crate::exec::stream::movable_items(plan, types.len()),
        }
    }

    /// The plan whose rows this shapes.
    pub fn plan(&self) -> &'p TableSelect {
        self.plan
    }

    /// Evaluate the ORDER BY keys (else the group's keys) and the select list over
    /// `values`, and hand the result row to `out` (`seq`: see [`Collector::push`]).
    pub fn emit(
        &self,
        values: &mut [Value],
        group_key: Option<&Vec<Value>>,
        seq: Option<u64>,
        env: &mut dyn Env,
        out: &mut Collector<'_>,
    ) -> Result<(), SqlError> {
        if let Collector::Windowed(input) = out {
            return input.push(self.plan, values, env);
        }
        let (keys, row) = self.shape(values, group_key, env)?;
        out.push(keys, seq, row)
    }

    /// The ORDER BY keys (else the group's keys) and the result row of `values`.
    // Inline: called once per row on the point-select path, through `emit`.
    #[inline(always)]
    pub fn shape(
        &self,
        values: &mut [Value],
        group_key: Option<&Vec<Value>>,
        env: &mut dyn Env,
    ) -> Result<(Vec<Value>, Vec<Value>), SqlError> {
        crate::interrupt::tick()?;
        let plan = self.plan;
        let keys = if plan.order_by.is_empty() {
            group_key.cloned().unwrap_or_default()
        } else {
            plan.order_by
                .iter()
                .map(|(e, _)| e.eval(env, values))
                .collect::<Result<Vec<_>, _>>()?
        };
        let mut row = Vec::with_capacity(plan.items.len());
        for ((item, ty), &moved) in plan.items.iter().zip(&self.item_types).zip(&self.movable) {
            let d = match item {
                OutputItem::Column { index, .. } if moved => {
                    std::mem::replace(&mut values[*index], Value::Null)
                }
                OutputItem::Column { index, .. } => values[*index].clone(),
                OutputItem::Expr { expr, .. } => expr.eval(env, values)?,
            };
            row.push(d.into_column(*ty, env.warnings()));
        }
        Ok((keys, row))
    }
}
