//! The window step of a table SELECT: after WHERE, GROUP BY and HAVING, before the select
//! list, ORDER BY and LIMIT, as MariaDB orders them.
//!
//! 1. Each row that the scan, join or grouping makes (its tables' columns, then its
//!    aggregates') gets one NULL per window function and goes into the budgeted sort
//!    ([`crate::exec::spill::sort`]) by the first window's PARTITION BY and ORDER BY keys,
//!    equal keys in arrival order. The sort spills past sort_buffer_size.
//! 2. The rows leave the sort one partition at a time. A partition is held in memory while
//!    its functions are computed, at most [`partition_bytes_max`] bytes of rows (else error
//!    1235, see docs/compatibility.md); each function writes its value into the row's
//!    `__winN` column.
//! 3. The rows then go into the next window's sort, and after the last window to the
//!    select list and the result's sort or list ([`Collector`]), in the last window's
//!    order.
//!
//! A frame's aggregate is folded with `Running`, the state GROUP BY uses: rows entering
//! at the frame's end are added; when the frame's start moves the state is rebuilt from
//! the frame's rows, so `ROWS BETWEEN n PRECEDING AND m FOLLOWING` costs n + m + 1 additions
//! per row, and frames starting at UNBOUNDED PRECEDING one addition per row.

use crate::error::SqlError;
use crate::exec::accumulate::Running;
use crate::exec::aggregate::group_key_text;
use crate::exec::env::ExecEnv;
use crate::exec::spill::codec::SpillRow;
use crate::exec::spill::collect::{Collector, RowShape};
use crate::exec::spill::sort::{ExternalSort, Outcome};
use crate::exec::spill::SpillConfig;
use crate::expr::eval::{SqlType, SqlValue};
use crate::plan::tables::TableSelect;
use crate::plan::window::{Bound, Frame, Window, WindowFunc, WindowKind};
use crate::value::Value;
use myriad_types::errors::{ER_INVALID_NTILE_ARGUMENT, ER_UNKNOWN_ERROR};
use myriad_types::Collation;

/// The rows waiting for the window step, sorted by the first window's keys.
pub struct WindowInput<'d> {
    sort: ExternalSort<'d, Vec<Value>>,
}

/// The most bytes of rows one partition may hold in memory: the grouping budget
/// (min(tmp_table_size, max_heap_table_size)) or sort_buffer_size, the larger.
pub fn partition_bytes_max(config: &SpillConfig) -> usize {
    config.group_bytes.max(config.sort_bytes)
}

/// A sort by `window`'s PARTITION BY then ORDER BY keys.
fn window_sort<'d>(window: &Window, config: &'d SpillConfig) -> ExternalSort<'d, Vec<Value>> {
    let mut desc = vec![false; window.partition.len()];
    let mut collations: Vec<Collation> = window.partition.iter().map(|(_, c)| *c).collect();
    for (_, d, c) in &window.order {
        desc.push(*d);
        collations.push(*c);
    }
    let budget_bytes = config.sort_bytes.max(WINDOW_SORT_BYTES_MIN);
    ExternalSort::new((desc, &collations), budget_bytes, None, &config.dir)
}

/// The least memory a window's sort takes, whatever sort_buffer_size says: under it each
/// run file would hold a handful of rows, and a sort of a few thousand rows would spend
/// seconds creating files (MariaDB's filesort also keeps a floor under sort_buffer_size).
const WINDOW_SORT_BYTES_MIN: usize = 64 << 10;

/// `window`'s keys over `row`.
fn window_keys(
    window: &Window,
    row: &[Value],
    env: &mut dyn crate::expr::Env,
) -> Result<Vec<Value>, SqlError> {
    let mut keys = Vec::with_capacity(window.partition.len() + window.order.len());
    for (e, _) in &window.partition {
        keys.push(e.eval(env, row)?);
    }
    for (e, _, _) in &window.order {
        keys.push(e.eval(env, row)?);
    }
    Ok(keys)
}

impl<'d> WindowInput<'d> {
    pub fn new(plan: &TableSelect, config: &'d SpillConfig) -> WindowInput<'d> {
        WindowInput {
            sort: window_sort(&plan.windows.windows[0], config),
        }
    }

    /// Take one input row (the tables' columns and the aggregates').
    pub fn push(
        &mut self,
        plan: &TableSelect,
        values: &[Value],
        env: &mut dyn crate::expr::Env,
    ) -> Result<(), SqlError> {
        let mut row = Vec::with_capacity(values.len() + plan.windows.funcs.len());
        row.extend_from_slice(values);
        row.resize(values.len() + plan.windows.funcs.len(), Value::Null);
        let keys = window_keys(&plan.windows.windows[0], &row, env)?;
        self.sort.push(keys, row)
    }

    /// Forget the rows taken (an index read starts again).
    pub fn reset(&mut self) {
        self.sort.reset();
    }

    /// Compute every window function and hand each row, shaped, to `out`. `types`: the
    /// input row's types (the window functions' last); `range`: the rows came from an index
    /// range (for the sort counters).
    pub(crate) fn finish(
        self,
        (shape, types, range): (&RowShape<'_>, &[SqlType], bool),
        out: &mut Collector<'d>,
        env: &mut ExecEnv<'d>,
    ) -> Result<(), SqlError> {
        let plan = shape.plan();
        let config = env.spill_config();
        let nwindows = plan.windows.windows.len();
        let mut sort = self.sort;
        for w in 0..nwindows {
            let (outcome, stats) = sort.finish()?;
            env.spill.add_sort(stats, range);
            let Outcome::Sorted(rows) = outcome else {
                return Err(SqlError::new(
                    ER_UNKNOWN_ERROR,
                    "a window's sort without a limit restarted",
                ));
            };
            let mut next =
                (w + 1 < nwindows).then(|| window_sort(&plan.windows.windows[w + 1], config));
            let mut pass = Partition::new(plan, w, types, partition_bytes_max(config));
            let mut emit = |row: Vec<Value>, env: &mut ExecEnv<'d>| -> Result<(), SqlError> {
                match &mut next {
                    Some(sort) => {
                        let keys = window_keys(&plan.windows.windows[w + 1], &row, env)?;
                        sort.push(keys, row)
                    }
                    None => {
                        let mut row = row;
                        shape.emit(&mut row, None, None, env, out)
                    }
                }
            };
            for entry in rows {
                crate::interrupt::tick()?;
                let (keys, row) = entry?;
                if let Some(done) = pass.take(keys, row, env)? {
                    for row in done {
                        emit(row, env)?;
                    }
                }
            }
            for row in pass.end(env)? {
                emit(row, env)?;
            }
            match next {
                Some(s) => sort = s,
                None => break,
            }
        }
        Ok(())
    }
}

/// The fraction digits MariaDB shows PERCENT_RANK() and CUME_DIST() with.
const FRACTION_DECIMALS: u8 = 10;

/// Metadata of a select item that is exactly window function `n`: a function that returns
/// its argument's value (LAG, FIRST_VALUE, MIN, ...) of a column keeps the column's type,
/// as MariaDB's does.
pub(crate) fn window_column(
    plan: &TableSelect,
    n: usize,
    name: &str,
    ty: SqlType,
) -> crate::result::Column {
    use crate::plan::tables::AggKind;
    if let Some(WindowKind::PercentRank | WindowKind::CumeDist) =
        plan.windows.funcs.get(n).map(|f| &f.kind)
    {
        // MariaDB's DOUBLE with 10 fixed decimals.
        let mut column = crate::exec::select::result_column(name, ty);
        column.decimals = FRACTION_DECIMALS;
        column.length = 17;
        return column;
    }
    let column_arg = match plan.windows.funcs.get(n) {
        Some(WindowFunc {
            kind: WindowKind::Aggregate(a),
            ..
        }) if !matches!(a.kind, AggKind::Min | AggKind::Max) => None,
        Some(f) => f.value_arg(),
        None => None,
    };
    let ncols = plan.source.table.def.columns.len()
        + plan
            .joins
            .iter()
            .map(|j| j.table.def.columns.len())
            .sum::<usize>();
    match column_arg {
        Some(crate::expr::Expr::Column(c)) if *c < ncols => {
            crate::exec::aggregate::value_of_column(plan, *c, name)
        }
        _ => crate::exec::select::result_column(name, ty),
    }
}

/// The rows of one partition of one window, as they leave its sort.
struct Partition<'p> {
    plan: &'p TableSelect,
    window: usize,
    types: &'p [SqlType],
    bytes_max: usize,
    rows: Vec<Vec<Value>>,
    /// Each row's ORDER BY keys in canonical form: equal forms are peers.
    peer_keys: Vec<Vec<Vec<u8>>>,
    /// The partition's PARTITION BY keys in canonical form.
    partition_key: Option<Vec<Vec<u8>>>,
    bytes: usize,
}

impl<'p> Partition<'p> {
    fn new(plan: &'p TableSelect, window: usize, types: &'p [SqlType], bytes_max: usize) -> Self {
        Partition {
            plan,
            window,
            types,
            bytes_max,
            rows: Vec::new(),
            peer_keys: Vec::new(),
            partition_key: None,
            bytes: 0,
        }
    }

    /// Add a row; when it starts a new partition, the previous one's rows, computed.
    fn take(
        &mut self,
        keys: Vec<Value>,
        row: Vec<Value>,
        env: &mut ExecEnv,
    ) -> Result<Option<Vec<Vec<Value>>>, SqlError> {
        let window = &self.plan.windows.windows[self.window];
        let np = window.partition.len();
        let canonical = |values: &[Value], collations: &mut dyn Iterator<Item = Collation>| {
            values
                .iter()
                .zip(collations)
                .map(|(v, c)| group_key_text(v, c))
                .collect::<Vec<_>>()
        };
        let partition_key = canonical(&keys[..np], &mut window.partition.iter().map(|p| p.1));
        let peer_key = canonical(&keys[np..], &mut window.order.iter().map(|o| o.2));
        let done = match &self.partition_key {
            Some(k) if *k != partition_key => Some(self.end(env)?),
            _ => None,
        };
        self.partition_key = Some(partition_key);
        self.bytes += row.heap_bytes();
        if self.bytes > self.bytes_max {
            return Err(SqlError::not_supported(&format!(
                "a window partition of more than {} bytes (tmp_table_size)",
                self.bytes_max
            )));
        }
        self.rows.push(row);
        self.peer_keys.push(peer_key);
        Ok(done)
    }

    /// The partition's rows with this window's functions computed; the partition is then
    /// empty.
    fn end(&mut self, env: &mut ExecEnv) -> Result<Vec<Vec<Value>>, SqlError> {
        let mut rows = std::mem::take(&mut self.rows);
        let peer_keys = std::mem::take(&mut self.peer_keys);
        self.bytes = 0;
        if rows.is_empty() {
            return Ok(rows);
        }
        let peers = peer_groups(&peer_keys);
        let base = self.types.len() - self.plan.windows.funcs.len();
        for (i, f) in self.plan.windows.funcs.iter().enumerate() {
            if f.window != self.window {
                continue;
            }
            let values = compute(f, &rows, &peers, self.types, env)?;
            for (row, v) in rows.iter_mut().zip(values) {
                row[base + i] = v;
            }
        }
        Ok(rows)
    }
}

/// Each row's peer group as (first row, one past the last row).
fn peer_groups(keys: &[Vec<Vec<u8>>]) -> Vec<(usize, usize)> {
    let mut out = vec![(0, 0); keys.len()];
    let mut start = 0;
    for i in 1..=keys.len() {
        if i == keys.len() || keys[i] != keys[start] {
            for slot in &mut out[start..i] {
                *slot = (start, i);
            }
            start = i;
        }
    }
    out
}

/// The rows `[lo, hi)` of the frame of row `i` in a partition of `n` rows.
fn frame_rows(frame: Frame, i: usize, n: usize, peers: (usize, usize)) -> (usize, usize) {
    let lo = match frame.start {
        Bound::UnboundedPreceding => 0,
        Bound::Preceding(k) => i.saturating_sub(usize::try_from(k).unwrap_or(usize::MAX)),
        Bound::CurrentRow if frame.rows => i,
        Bound::CurrentRow => peers.0,
        Bound::Following(k) => i.saturating_add(usize::try_from(k).unwrap_or(usize::MAX)),
        Bound::UnboundedFollowing => n,
    };
    let hi = match frame.end {
        Bound::UnboundedPreceding => 0,
        Bound::Preceding(k) => (i + 1).saturating_sub(usize::try_from(k).unwrap_or(usize::MAX)),
        Bound::CurrentRow if frame.rows => i + 1,
        Bound::CurrentRow => peers.1,
        Bound::Following(k) => i
            .saturating_add(usize::try_from(k).unwrap_or(usize::MAX))
            .saturating_add(1),
        Bound::UnboundedFollowing => n,
    };
    let hi = hi.min(n);
    (lo.min(hi), hi)
}

/// A constant argument's value as an integer (NULL: None), rounded as MariaDB rounds.
fn constant_int(
    e: &crate::expr::Expr,
    row: &[Value],
    env: &mut ExecEnv,
) -> Result<Option<i64>, SqlError> {
    let v = e.eval(env, row)?;
    if v.is_null() {
        return Ok(None);
    }
    Ok(match v {
        Value::Int(i) => Some(i),
        Value::UInt(u) => Some(i64::try_from(u).unwrap_or(i64::MAX)),
        other => other
            .to_double(&mut env.warnings)
            .map(|d| d.round().clamp(i64::MIN as f64, i64::MAX as f64) as i64),
    })
}

/// One function's value for each row of a partition (`peers`: each row's peer group).
fn compute(
    f: &WindowFunc,
    rows: &[Vec<Value>],
    peers: &[(usize, usize)],
    types: &[SqlType],
    env: &mut ExecEnv,
) -> Result<Vec<Value>, SqlError> {
    let n = rows.len();
    let count = |x: usize| Value::Int(i64::try_from(x).unwrap_or(i64::MAX));
    Ok(match &f.kind {
        WindowKind::RowNumber => (1..=n).map(count).collect(),
        WindowKind::Rank => peers.iter().map(|p| count(p.0 + 1)).collect(),
        WindowKind::DenseRank => {
            let mut out = Vec::with_capacity(n);
            let mut rank = 0;
            for (i, p) in peers.iter().enumerate() {
                if p.0 == i {
                    rank += 1;
                }
                out.push(count(rank));
            }
            out
        }
        WindowKind::PercentRank => peers
            .iter()
            .map(|p| match n {
                1 => Value::Double(0.0),
                _ => Value::Double(p.0 as f64 / (n - 1) as f64),
            })
            .collect(),
        WindowKind::CumeDist => peers
            .iter()
            .map(|p| Value::Double(p.1 as f64 / n as f64))
            .collect(),
        WindowKind::Ntile(k) => {
            let buckets = match constant_int(k, &rows[0], env)? {
                Some(k) if k > 0 => usize::try_from(k).unwrap_or(usize::MAX),
                _ => {
                    return Err(SqlError::new(
                        ER_INVALID_NTILE_ARGUMENT,
                        ER_INVALID_NTILE_ARGUMENT.message(&[]),
                    ))
                }
            };
            (0..n).map(|i| count(ntile(i, n, buckets))).collect()
        }
        WindowKind::Shift { arg, offset, lead } => {
            let mut out = Vec::with_capacity(n);
            let offset = constant_int(offset, &rows[0], env)?;
            for i in 0..n {
                let at = offset.and_then(|o| {
                    let o = if *lead { o } else { o.checked_neg()? };
                    let j = i64::try_from(i).ok()?.checked_add(o)?;
                    usize::try_from(j).ok().filter(|&j| j < n)
                });
                out.push(match at {
                    Some(j) => arg.eval(env, &rows[j])?,
                    None => Value::Null,
                });
            }
            out
        }
        WindowKind::FirstValue(arg) | WindowKind::LastValue(arg) | WindowKind::NthValue(arg, _) => {
            frame_value(f, arg, rows, peers, env)?
        }
        WindowKind::Aggregate(agg) => frame_aggregate(f.frame, agg, rows, peers, types, env)?,
    })
}

/// FIRST_VALUE, LAST_VALUE or NTH_VALUE of `arg` over each row's frame (NULL when the
/// frame has no such row).
fn frame_value(
    f: &WindowFunc,
    arg: &crate::expr::Expr,
    rows: &[Vec<Value>],
    peers: &[(usize, usize)],
    env: &mut ExecEnv,
) -> Result<Vec<Value>, SqlError> {
    let n = rows.len();
    let nth = match &f.kind {
        WindowKind::NthValue(_, k) => constant_int(k, &rows[0], env)?,
        _ => Some(1),
    };
    let mut out = Vec::with_capacity(n);
    for (i, &p) in peers.iter().enumerate() {
        let (lo, hi) = frame_rows(f.frame, i, n, p);
        let at = match (&f.kind, nth) {
            (_, None) => None,
            (WindowKind::LastValue(_), _) => hi.checked_sub(1).filter(|&j| j >= lo),
            (_, Some(k)) if k >= 1 => usize::try_from(k - 1)
                .ok()
                .and_then(|k| lo.checked_add(k))
                .filter(|&j| j < hi),
            _ => None,
        };
        out.push(match at {
            Some(j) => arg.eval(env, &rows[j])?,
            None => Value::Null,
        });
    }
    Ok(out)
}

/// An aggregate over each row's frame: rows entering at the frame's end are added to the
/// running state; when the start moves, the state is rebuilt from the frame's rows.
fn frame_aggregate(
    frame: Frame,
    agg: &crate::plan::tables::Aggregate,
    rows: &[Vec<Value>],
    peers: &[(usize, usize)],
    types: &[SqlType],
    env: &mut ExecEnv,
) -> Result<Vec<Value>, SqlError> {
    let n = rows.len();
    let mut running = Running::new(agg, types, env);
    let (mut cur_lo, mut cur_hi) = (0, 0);
    let mut out = Vec::with_capacity(n);
    for (i, &p) in peers.iter().enumerate() {
        let (lo, hi) = frame_rows(frame, i, n, p);
        if lo != cur_lo || hi < cur_hi {
            running = Running::new(agg, types, env);
            cur_lo = lo;
            cur_hi = lo;
        }
        for row in &rows[cur_hi..hi] {
            crate::interrupt::tick()?;
            running.add(agg, row, env)?;
        }
        cur_hi = hi.max(cur_hi);
        out.push(running.clone().finish(agg, env)?);
    }
    Ok(out)
}

/// NTILE's bucket (from 1) of row `i` of `n` in `buckets` buckets: the first `n %
/// buckets` buckets hold one row more than the others.
fn ntile(i: usize, n: usize, buckets: usize) -> usize {
    let small = n / buckets;
    let big_count = n % buckets;
    let big_rows = big_count * (small + 1);
    if i < big_rows {
        i / (small + 1) + 1
    } else {
        big_count + (i - big_rows) / small.max(1) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ntile_spreads_the_remainder_over_the_first_buckets() {
        let of = |n, k| (0..n).map(|i| ntile(i, n, k)).collect::<Vec<_>>();
        assert_eq!(of(4, 3), [1, 1, 2, 3]);
        assert_eq!(of(4, 5), [1, 2, 3, 4]);
        assert_eq!(of(4, 2), [1, 1, 2, 2]);
        assert_eq!(of(7, 3), [1, 1, 1, 2, 2, 3, 3]);
        assert_eq!(of(1, 1), [1]);
    }

    #[test]
    fn peers_are_runs_of_equal_keys() {
        let k = |s: &str| vec![s.as_bytes().to_vec()];
        let keys = [k("a"), k("a"), k("b"), k("c"), k("c")];
        assert_eq!(peer_groups(&keys), [(0, 2), (0, 2), (2, 3), (3, 5), (3, 5)]);
    }

    #[test]
    fn frames_clip_to_the_partition() {
        let rows = |start, end| Frame {
            rows: true,
            start,
            end,
        };
        let f = rows(Bound::Preceding(1), Bound::Following(1));
        assert_eq!(frame_rows(f, 0, 4, (0, 1)), (0, 2));
        assert_eq!(frame_rows(f, 3, 4, (3, 4)), (2, 4));
        // 2 FOLLOWING AND 1 FOLLOWING is empty.
        let f = rows(Bound::Following(2), Bound::Following(1));
        let (lo, hi) = frame_rows(f, 0, 4, (0, 1));
        assert!(lo >= hi);
        // The default frame with peers: the current row's peers are in.
        assert_eq!(frame_rows(Frame::DEFAULT, 1, 4, (1, 3)), (0, 3));
        let f = rows(Bound::UnboundedPreceding, Bound::Preceding(1));
        assert_eq!(frame_rows(f, 0, 4, (0, 1)), (0, 0));
        assert_eq!(frame_rows(f, 2, 4, (2, 3)), (0, 2));
    }
}
