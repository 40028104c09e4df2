//! Aggregates without GROUP BY, folded row by row as the read or the join yields them:
//! the statement keeps the first row (for columns named outside an aggregate, as MariaDB
//! allows) and one running state per aggregate, never the rows, so `SELECT COUNT(*),
//! SUM(x) FROM t` holds a few values however large `t` is. DISTINCT keeps each distinct
//! value's group key.
//!
//! `Running` is also how a group's aggregate is computed over its rows
//! (`aggregate_value` in [`crate::exec::aggregate`]): MIN and MAX keep the
//! first of equal values, DECIMAL sums are exact (error 1690 past 81 digits),
//! DOUBLE sums add in row order from -0.0.

use crate::error::SqlError;
use crate::exec::aggregate::group_key_text;
use crate::exec::env::ExecEnv;
use crate::exec::group_concat::ConcatState;
use crate::exec::spill::codec::{value_heap_bytes, SpillRow};
use crate::exec::spill::collect::{Collector, RowShape};
use crate::exec::spill::SpillConfig;
use crate::expr::eval::{SqlType, SqlValue};
use crate::expr::Env;
use crate::plan::tables::{AggKind, Aggregate, Grouping, TableSelect};
use crate::value::Value;
use myriad_types::Decimal;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

/// One aggregate's state over the rows so far.
#[derive(Clone)]
pub(crate) struct Running {
    /// Rows (COUNT(*)) or non-NULL values taken (after DISTINCT).
    count: u64,
    /// The sum is exact (the aggregate's type is DECIMAL).
    exact: bool,
    sum: Decimal,
    /// Starts at -0.0, as a DOUBLE sum of no values does.
    sum_double: f64,
    /// MIN or MAX so far: the first of equal values is kept.
    best: Option<Value>,
    /// The variance family's running mean and sum of squared differences from it
    /// (Welford's recurrence, as MariaDB computes them).
    mean: f64,
    squares: f64,
    /// BIT_AND, BIT_OR and BIT_XOR so far.
    bits: u64,
    /// The group keys of the values taken, for DISTINCT.
    seen: Option<HashSet<Vec<u8>>>,
    /// GROUP_CONCAT's state (which does its own DISTINCT).
    concat: Option<Box<ConcatState>>,
}

impl Running {
    /// A new state for each of `g`'s aggregates over input rows of `types`.
    pub(crate) fn fresh(g: &Grouping, types: &[SqlType], env: &ExecEnv) -> Vec<Running> {
        g.aggregates
            .iter()
            .map(|a| Running::new(a, types, env))
            .collect()
    }

    pub(crate) fn new(agg: &Aggregate, types: &[SqlType], env: &ExecEnv) -> Running {
        Running {
            count: 0,
            exact: matches!(agg.sql_type(types, env), SqlType::Decimal { .. }),
            sum: Decimal::ZERO,
            sum_double: -0.0,
            best: None,
            mean: 0.0,
            squares: 0.0,
            bits: if agg.kind == AggKind::BitAnd {
                u64::MAX
            } else {
                0
            },
            seen: (agg.distinct && agg.concat.is_none()).then(HashSet::new),
            concat: agg
                .concat
                .as_ref()
                .map(|_| Box::new(ConcatState::new(agg.distinct))),
        }
    }

    pub(crate) fn add(
        &mut self,
        agg: &Aggregate,
        row: &[Value],
        env: &mut dyn Env,
    ) -> Result<(), SqlError> {
        if agg.kind == AggKind::CountStar {
            self.count += 1;
            return Ok(());
        }
        if let (Some(state), Some(spec)) = (&mut self.concat, &agg.concat) {
            let max_len = env.group_concat_max_len();
            return state.add(spec, row, max_len, env);
        }
        let v = match &agg.arg {
            Some(arg) => arg.eval(env, row)?,
            None => Value::Null,
        };
        if v.is_null() {
            return Ok(());
        }
        if let Some(seen) = &mut self.seen {
            let Some(key) = distinct_key(&v, agg, env, row)? else {
                return Ok(());
            };
            if !seen.insert(key) {
                return Ok(());
            }
        }
        self.count += 1;
        match agg.kind {
            AggKind::CountStar | AggKind::Count | AggKind::GroupConcat => {}
            AggKind::Min | AggKind::Max => {
                let better = match &self.best {
                    None => true,
                    Some(b) => {
                        let o = crate::expr::eval::compare(&v, b, agg.collation, env.warnings())
                            .unwrap_or(Ordering::Equal);
                        (agg.kind == AggKind::Min && o == Ordering::Less)
                            || (agg.kind == AggKind::Max && o == Ordering::Greater)
                    }
                };
                if better {
                    self.best = Some(v);
                }
            }
            AggKind::Sum | AggKind::Avg if self.exact => {
                let x = v.to_decimal(env.warnings()).unwrap_or_default();
                self.sum = self.sum.checked_add(&x).map_err(sum_overflow)?;
            }
            AggKind::Sum | AggKind::Avg => {
                self.sum_double += v.to_double(&mut Vec::new()).unwrap_or(0.0);
            }
            AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor => {
                // A negative number is its 64-bit two's complement.
                let x = match v {
                    Value::UInt(u) => u,
                    other => other.to_int(env.warnings()).unwrap_or(0) as u64,
                };
                self.bits = match agg.kind {
                    AggKind::BitAnd => self.bits & x,
                    AggKind::BitOr => self.bits | x,
                    _ => self.bits ^ x,
                };
            }
            AggKind::Variance { .. } => {
                let x = v.to_double(env.warnings()).unwrap_or(0.0);
                if self.count == 1 {
                    (self.mean, self.squares) = (x, 0.0);
                } else {
                    let diff = x - self.mean;
                    self.mean += diff / self.count as f64;
                    self.squares += diff * (x - self.mean);
                }
            }
        }
        Ok(())
    }

    pub(crate) fn finish(self, agg: &Aggregate, env: &mut ExecEnv) -> Result<Value, SqlError> {
        if let (Some(state), Some(spec)) = (self.concat, &agg.concat) {
            let max_len = env.state.group_concat_max_len;
            let counts = (&mut env.warnings, &mut env.concat_rows);
            return Ok(state.finish(spec, max_len, counts));
        }
        Ok(match agg.kind {
            AggKind::GroupConcat => Value::Null,
            AggKind::CountStar | AggKind::Count => Value::Int(self.count as i64),
            AggKind::Min | AggKind::Max => self.best.unwrap_or(Value::Null),
            AggKind::Sum | AggKind::Avg if self.count == 0 => Value::Null,
            AggKind::Sum if self.exact => Value::Decimal(self.sum),
            AggKind::Avg if self.exact => {
                let count = Decimal::from_u64(self.count);
                let incr = env.state.div_precision_increment;
                Value::Decimal(self.sum.checked_div(&count, incr).map_err(sum_overflow)?)
            }
            AggKind::Sum => Value::Double(self.sum_double),
            AggKind::Avg => Value::Double(self.sum_double / self.count as f64),
            AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor => Value::UInt(self.bits),
            AggKind::Variance { sample, root } => {
                let divisor = self.count.saturating_sub(u64::from(sample));
                if divisor == 0 {
                    Value::Null
                } else {
                    let variance = self.squares / divisor as f64;
                    Value::Double(if root { variance.sqrt() } else { variance })
                }
            }
        })
    }
}

fn sum_overflow<E>(_: E) -> SqlError {
    crate::expr::eval::err_decimal_out_of_range("sum")
}

/// The key DISTINCT tells the aggregate's values apart by: the argument's `v`, followed by
/// the further arguments' of `COUNT(DISTINCT a, b, ...)` (each key length-prefixed); None
/// when one of those is NULL, as such a row does not count.
fn distinct_key(
    v: &Value,
    agg: &Aggregate,
    env: &mut dyn Env,
    row: &[Value],
) -> Result<Option<Vec<u8>>, SqlError> {
    if agg.more.is_empty() {
        return Ok(Some(group_key_text(v, agg.collation)));
    }
    let mut key = Vec::new();
    let mut push = |part: Vec<u8>| {
        key.extend_from_slice(&(part.len() as u64).to_le_bytes());
        key.extend(part);
    };
    push(group_key_text(v, agg.collation));
    for (e, collation) in &agg.more {
        let x = e.eval(env, row)?;
        if x.is_null() {
            return Ok(None);
        }
        push(group_key_text(&x, *collation));
    }
    Ok(Some(key))
}

/// Aggregates without GROUP BY over one table (`g.keys` is empty, `plan` has no joins):
/// each row the read yields is folded into the running states; the one result row (the
/// first row read, or NULLs, followed by the aggregates' values) goes to `out` unless
/// HAVING drops it. `types` are the table's column types.
pub(crate) fn aggregate_streamed<'d>(
    plan: &TableSelect,
    g: &Grouping,
    table: &crate::exec::source::Opened,
    types: &[SqlType],
    shape: &RowShape,
    mut out: Collector<'d>,
    env: &mut ExecEnv,
) -> Result<Collector<'d>, SqlError> {
    let fresh = Running::fresh(g, types, env);
    let state = std::cell::RefCell::new((None::<Vec<Value>>, fresh.clone()));
    // No GROUP BY: every row's key is the empty one.
    each_grouped_row(
        (plan, g, table),
        env,
        &mut |_, values, env| {
            let (first, running) = &mut *state.borrow_mut();
            for (r, a) in running.iter_mut().zip(&g.aggregates) {
                r.add(a, &values, env)?;
            }
            if first.is_none() {
                *first = Some(values);
            }
            Ok(true)
        },
        // An index read that starts again: what was folded so far is forgotten.
        &mut || *state.borrow_mut() = (None, fresh.clone()),
    )?;
    let (first, running) = state.into_inner();
    let mut row = first.unwrap_or_else(|| vec![Value::Null; types.len()]);
    for (r, a) in running.into_iter().zip(&g.aggregates) {
        row.push(r.finish(a, env)?);
    }
    if !g.keeps(env, &row)? {
        return Ok(out);
    }
    shape.emit(&mut row, None, None, env, &mut out)?;
    Ok(out)
}

/// GROUP BY whose aggregates fold each row as it comes: per group its key values, its
/// first row and one running state per aggregate, never its rows. Groups stay in the
/// order first met, each with the arrival number of its first row, as the grouping that
/// keeps rows ([`crate::exec::spill::group`]) gives them.
pub(crate) struct Folded {
    index: HashMap<Vec<u8>, usize>,
    groups: Vec<FoldedGroup>,
    /// Bytes the groups hold (estimated as the grouping that keeps rows counts them).
    bytes: usize,
    next: u64,
}

struct FoldedGroup {
    keys: Vec<Value>,
    first: u64,
    row: Vec<Value>,
    running: Vec<Running>,
}

impl Folded {
    /// Whether `g`'s aggregates can fold into states of a fixed size: not a DISTINCT one,
    /// whose state keeps every distinct value, nor GROUP_CONCAT, whose text grows.
    pub(crate) fn applies(g: &Grouping) -> bool {
        g.aggregates
            .iter()
            .all(|a| !a.distinct && a.kind != AggKind::GroupConcat)
    }

    pub(crate) fn new() -> Folded {
        Folded {
            index: HashMap::new(),
            groups: Vec::new(),
            bytes: 0,
            next: 0,
        }
    }

    /// Fold `row` into its group (`fresh`: the states a new group starts from); the bytes
    /// the groups now hold.
    pub(crate) fn push(
        &mut self,
        (canonical, keys): (Vec<u8>, Vec<Value>),
        row: Vec<Value>,
        (g, fresh): (&Grouping, &[Running]),
        env: &mut dyn Env,
    ) -> Result<usize, SqlError> {
        let seq = self.next;
        self.next += 1;
        let n = match self.index.get(&canonical) {
            Some(&n) => n,
            None => {
                self.bytes += 2 * canonical.capacity()
                    + keys.iter().map(value_heap_bytes).sum::<usize>()
                    + row.heap_bytes()
                    + std::mem::size_of::<FoldedGroup>()
                    + std::mem::size_of_val(fresh);
                self.index.insert(canonical, self.groups.len());
                self.groups.push(FoldedGroup {
                    keys,
                    first: seq,
                    row: Vec::new(),
                    running: fresh.to_vec(),
                });
                self.groups.len() - 1
            }
        };
        let group = &mut self.groups[n];
        for (r, a) in group.running.iter_mut().zip(&g.aggregates) {
            r.add(a, &row, env)?;
        }
        if group.first == seq {
            group.row = row;
        }
        Ok(self.bytes)
    }

    /// Each group in the order first met: its key values, the arrival number of its first
    /// row, and its row (the first row followed by the aggregates' values).
    pub(crate) fn finish(
        self,
        g: &Grouping,
        env: &mut ExecEnv,
        each: &mut FoldedTaker,
    ) -> Result<(), SqlError> {
        for group in self.groups {
            crate::interrupt::tick()?;
            let mut row = group.row;
            for (r, a) in group.running.into_iter().zip(&g.aggregates) {
                row.push(r.finish(a, env)?);
            }
            each(group.keys, group.first, row, env)?;
        }
        Ok(())
    }
}

/// Where [`Folded::finish`] hands each group: its key values, the arrival number of its
/// first row, its row.
pub(crate) type FoldedTaker<'a> =
    dyn FnMut(Vec<Value>, u64, Vec<Value>, &mut ExecEnv) -> Result<(), SqlError> + 'a;

/// Where [`each_grouped_row`] hands a row: its group key (see [`group_key`]) and values;
/// false stops the read.
pub(crate) type GroupedTaker<'a> =
    dyn FnMut((Vec<u8>, Vec<Value>), Vec<Value>, &mut dyn Env) -> Result<bool, SqlError> + 'a;

/// Every input row of `plan` (its table's or its join's, see
/// [`crate::exec::join::every_input_row`]) with its group key under `g`.
pub(crate) fn each_grouped_row(
    (plan, g, table): (&TableSelect, &Grouping, &crate::exec::source::Opened),
    env: &mut ExecEnv,
    each: &mut GroupedTaker,
    restart: &mut dyn FnMut(),
) -> Result<(), SqlError> {
    crate::exec::join::every_input_row(
        plan,
        table,
        env,
        &mut |_, values, env| {
            crate::interrupt::tick()?;
            let key = group_key(g, &values, env)?;
            each(key, values, env)
        },
        restart,
    )
}

/// The group of `values`: its canonical key (the texts that make two keys one group) and
/// its key values.
pub(crate) fn group_key(
    g: &Grouping,
    values: &[Value],
    env: &mut dyn Env,
) -> Result<(Vec<u8>, Vec<Value>), SqlError> {
    let keys = g
        .keys
        .iter()
        .map(|k| k.eval(env, values))
        .collect::<Result<Vec<_>, _>>()?;
    let canonical: Vec<Vec<u8>> = keys
        .iter()
        .zip(&g.key_collations)
        .map(|(k, c)| group_key_text(k, *c))
        .collect();
    Ok((crate::exec::spill::group::canonical_bytes(&canonical), keys))
}

/// Every input row of `plan` folded into its group ([`Folded`]); None when the groups
/// outgrew min(tmp_table_size, max_heap_table_size), and the rows are to be grouped
/// again by the grouping that keeps rows and spills. `types`: the input row's columns.
pub(crate) fn fold_groups(
    plan: &TableSelect,
    g: &Grouping,
    table: &crate::exec::source::Opened,
    types: &[SqlType],
    spill: &SpillConfig,
    env: &mut ExecEnv,
) -> Result<Option<Folded>, SqlError> {
    let fresh = Running::fresh(g, types, env);
    let folded = std::cell::RefCell::new(Folded::new());
    let over = std::cell::Cell::new(false);
    each_grouped_row(
        (plan, g, table),
        env,
        &mut |key, values, env| {
            let bytes = folded.borrow_mut().push(key, values, (g, &fresh), env)?;
            over.set(bytes > spill.group_bytes);
            Ok(!over.get())
        },
        // An index read that starts again: what was folded so far is forgotten.
        &mut || *folded.borrow_mut() = Folded::new(),
    )?;
    Ok((!over.get()).then(|| folded.into_inner()))
}
