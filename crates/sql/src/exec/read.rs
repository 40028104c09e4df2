//! Reading rows of stored tables: full scans, index ranges and point lookups.

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::exec::source::Opened;
use crate::expr::Env;
use crate::expr::Expr;
use crate::plan::access::*;
use crate::plan::stored::*;
use crate::plan::tables::*;
use crate::value::Value;
use myriad_storage as st;
use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::Arc;

// ---- reading rows ----

/// Rows of a source that pass its filter, as (row id, engine values).
pub(crate) fn read_rows(
    source: &RowSource,
    table: &Opened,
    env: &mut dyn Env,
) -> Result<Vec<(st::RowId, Vec<Value>)>, SqlError> {
    read_rows_with(source, table, env, &ReadOptions::default())
}

/// How `read_rows_with` reads: which columns to decode and how many rows to keep.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The columns the statement reads (None: all). The others are not decoded and read
    /// as NULL, so only a statement whose every expression was checked may narrow this.
    pub wanted: Option<Arc<[bool]>>,
    /// Stop after this many rows passed the filter (LIMIT pushed into the scan: only where
    /// nothing after the filter reorders, groups or drops rows).
    pub max_rows: Option<usize>,
}

/// [`read_rows_each`] over every row of `plan`'s table that passes the filter, decoding
/// only the columns the statement reads.
pub(crate) fn read_every_row(
    plan: &crate::plan::tables::TableSelect,
    table: &Opened,
    env: &mut dyn Env,
    each: &mut RowTaker,
    restart: &mut dyn FnMut(),
) -> Result<(), SqlError> {
    let options = ReadOptions {
        wanted: columns_read(plan),
        max_rows: None,
    };
    read_rows_each(&plan.source, table, env, &options, each, restart)
}

/// Rows of a source that pass its filter, streamed from the scan: each row is decoded
/// (only the wanted columns), converted and filtered as it arrives, and the scan stops
/// once `max_rows` rows passed.
pub(crate) fn read_rows_with(
    source: &RowSource,
    table: &Opened,
    env: &mut dyn Env,
    options: &ReadOptions,
) -> Result<Vec<(st::RowId, Vec<Value>)>, SqlError> {
    // Room for a short range or a LIMIT at once, instead of doubling from one row.
    let out = std::cell::RefCell::new(Vec::with_capacity(options.max_rows.unwrap_or(16).min(256)));
    read_rows_each(
        source,
        table,
        env,
        options,
        &mut |row_id, values, _| {
            out.borrow_mut().push((row_id, values));
            Ok(true)
        },
        &mut || out.borrow_mut().clear(),
    )?;
    Ok(out.into_inner())
}

/// Where `read_rows_each` hands a row (its id and values); false stops the read.
pub type RowTaker<'a> =
    dyn FnMut(st::RowId, Vec<Value>, &mut dyn Env) -> Result<bool, SqlError> + 'a;

/// [`read_rows_with`], handing each row that passes the filter to `each` as it arrives
/// (false from `each` stops the read). An index read that has to start again first calls
/// `restart`: the rows handed so far are to be forgotten.
pub(crate) fn read_rows_each(
    source: &RowSource,
    table: &Opened,
    env: &mut dyn Env,
    options: &ReadOptions,
    each: &mut RowTaker,
    restart: &mut dyn FnMut(),
) -> Result<(), SqlError> {
    let def = &source.table.def;
    if options.max_rows == Some(0) {
        return Ok(());
    }
    let passed = std::cell::Cell::new(0usize);
    // An index range that is exactly the filter answers it: rows need no second check.
    // Only the index path may skip it (a full scan, the fallback, always filters).
    let range_decides = std::cell::Cell::new(range_is_the_filter(source, env)?);
    let max_rows = options.max_rows.unwrap_or(usize::MAX);
    let mut accept =
        |row_id: st::RowId, row: st::Row, env: &mut dyn Env| -> Result<bool, SqlError> {
            crate::interrupt::tick()?;
            let filter = match range_decides.get() {
                true => None,
                false => source.filter.as_ref(),
            };
            let values = row_values(row, def);
            let keep = match filter {
                Some(f) => f.holds(env, &values)?,
                None => true,
            };
            if keep {
                passed.set(passed.get() + 1);
                if !each(row_id, values, env)? {
                    return Ok(false);
                }
            }
            Ok(passed.get() < max_rows)
        };
    if let Access::Index { index_no, eq, tail } = &source.access {
        let table = table.stored()?;
        // An index read takes the table's latch once per batch or range: if an entry of
        // the index moved between two holds, a row may have been met twice or missed, so
        // the read starts again, each range now in one hold (no statement snapshot else).
        for attempt in 0..=INDEX_READ_RETRIES {
            let moves = table.index_moves(*index_no);
            let warnings = env.warnings().len();
            restart();
            passed.set(0);
            let sink: &mut RowSink = &mut |row_id, row, env| accept(row_id, row, env);
            let fed = index_rows(
                table,
                def,
                *index_no,
                eq,
                tail,
                env,
                options.wanted.as_ref(),
                attempt > 0,
                sink,
            )?;
            if !fed {
                break;
            }
            if attempt == INDEX_READ_RETRIES || table.index_moves(*index_no) == moves {
                return Ok(());
            }
            env.warnings().truncate(warnings);
        }
    }
    range_decides.set(false);
    for item in table.scan(options.wanted.as_ref())? {
        let (row_id, row) = item?;
        if !accept(row_id, row, env)? {
            break;
        }
    }
    Ok(())
}

pub(crate) fn as_ref(b: &Bound<Vec<st::Value>>) -> Bound<&[st::Value]> {
    match b {
        Bound::Included(k) => Bound::Included(k.as_slice()),
        Bound::Excluded(k) => Bound::Excluded(k.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Whether the whole filter is `col BETWEEN low AND high` or `col IN (v, ...)` on an
/// integer column that the access path reads as a range or a list of keys of an index led
/// by that column, with integer values that are exact keys (or NULL, which matches
/// nothing either way): then the index returns exactly the rows the filter keeps, as for
/// sysbench's range queries (`id BETWEEN ? AND ?`) and select_random_points
/// (`k IN (?, ...)`), and the filter need not run per row.
pub(crate) fn range_is_the_filter(source: &RowSource, env: &mut dyn Env) -> Result<bool, SqlError> {
    let Access::Index { index_no, eq, tail } = &source.access else {
        return Ok(false);
    };
    let (column, values): (&Expr, Vec<&Expr>) = match (&source.filter, tail) {
        (
            Some(Expr::Between {
                expr,
                low,
                high,
                negated: false,
                ..
            }),
            Tail::Range {
                lower: Some((_, true)),
                upper: Some((_, true)),
            },
        ) => (expr, vec![low, high]),
        (
            Some(Expr::InList {
                expr,
                list,
                negated: false,
                ..
            }),
            Tail::In(_),
        ) => (expr, list.iter().collect()),
        _ => return Ok(false),
    };
    let def = &source.table.def;
    let Expr::Column(column) = column else {
        return Ok(false);
    };
    if !eq.is_empty() || def.indexes[*index_no].columns.first() != Some(column) {
        return Ok(false);
    }
    let st::ColumnType::Int { unsigned, .. } = def.columns[*column].ty else {
        return Ok(false);
    };
    let is_in = matches!(tail, Tail::In(_));
    // Integers of the column's signedness compare exactly as their keys order.
    let exact = |d: &Value| match d {
        Value::Int(i) => !unsigned || *i >= 0,
        Value::UInt(u) => unsigned || i64::try_from(*u).is_ok(),
        Value::Null => is_in,
        _ => false,
    };
    for value in values {
        if !exact(&value.eval(env, &[])?) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The most rows an IN list reads in one batch ([`st::Table::index_lookup_many`]: row ids
/// and rows held at once); a list matching more streams key by key instead, so a LIMIT
/// still stops it early and memory stays bounded.
pub(crate) const IN_LIST_BATCH_ROWS_MAX: usize = 4096;

/// How many times an index read starts again when entries of its index moved under it
/// (the later reads take each range in one hold of the table's latch).
pub(crate) const INDEX_READ_RETRIES: usize = 3;

/// Takes each row a scan yields; returns whether the scan should go on.
pub(crate) type RowSink<'a> =
    dyn FnMut(st::RowId, st::Row, &mut dyn Env) -> Result<bool, SqlError> + 'a;

/// Feed the rows an index path yields to `sink`, in index order (IN lists in value order).
/// Returns false, having fed nothing, when a value cannot be an exact key (scan instead).
#[allow(clippy::too_many_arguments)]
pub(crate) fn index_rows(
    table: &st::Table,
    def: &st::TableDef,
    index_no: usize,
    eq: &[Expr],
    tail: &Tail,
    env: &mut dyn Env,
    wanted: Option<&Arc<[bool]>>,
    one_read: bool,
    sink: &mut RowSink,
) -> Result<bool, SqlError> {
    let read = IndexRead {
        table,
        def,
        ix: &def.indexes[index_no],
        index_no,
        wanted,
        one_read,
    };
    let mut prefix = Vec::with_capacity(eq.len() + 1);
    for (i, e) in eq.iter().enumerate() {
        match read.key_of(e, i, env)? {
            None => return Ok(false),
            Some(None) => return Ok(true),
            Some(Some(k)) => prefix.push(k),
        }
    }
    match tail {
        Tail::None => {
            read.scan_eq(&prefix, env, sink)?;
        }
        Tail::In(list) => return read.in_list(prefix, list, env, sink),
        Tail::Range { lower, upper } => {
            let Some(keys) = read.range_keys(&prefix, lower, upper, env)? else {
                return Ok(false);
            };
            if let Some((lo, hi)) = keys {
                read.scan_range(&lo, &hi, env, sink, &mut None)?;
            }
        }
        Tail::Ranges(ranges) => {
            // Every bound is computed before the first row is fed: a bound that cannot be
            // a key means a full scan, and nothing may have been fed by then.
            let mut all = Vec::with_capacity(ranges.len());
            for (lower, upper) in ranges {
                match read.range_keys(&prefix, lower, upper, env)? {
                    None => return Ok(false),
                    Some(keys) => all.push(keys),
                }
            }
            let mut seen = Some(std::collections::HashSet::new());
            for (lo, hi) in all.into_iter().flatten() {
                if !read.scan_range(&lo, &hi, env, sink, &mut seen)? {
                    break;
                }
            }
        }
    }
    Ok(true)
}

/// The (lower, upper) keys of a range; None when a bound cannot be an exact key, and
/// Some(None) when a bound is NULL (the comparison is never true).
type RangeKeys = Option<Option<(Bound<Vec<st::Value>>, Bound<Vec<st::Value>>)>>;

/// One read through an index: what [`index_rows`]'s steps share.
struct IndexRead<'a> {
    table: &'a st::Table,
    def: &'a st::TableDef,
    ix: &'a st::IndexDef,
    index_no: usize,
    /// The columns to decode (None: all).
    wanted: Option<&'a Arc<[bool]>>,
    /// Take each range in one hold of the table's latch.
    one_read: bool,
}

impl IndexRead<'_> {
    /// The key value of `e` for the index's column at `position`: None when it cannot be an
    /// exact key, Some(None) when it is NULL (`col = NULL` matches nothing).
    fn key_of(
        &self,
        e: &Expr,
        position: usize,
        env: &mut dyn Env,
    ) -> Result<Option<Option<st::Value>>, SqlError> {
        let v = e.eval(env, &[])?;
        if v.is_null() {
            return Ok(Some(None));
        }
        let ty = &self.def.columns[self.ix.columns[position]].ty;
        Ok(key_value(&v, ty).map(Some))
    }

    /// Feed one index scan to the sink, skipping rows already in `seen`; false when the
    /// sink wants no more rows.
    fn feed(
        &self,
        scan: st::IndexScan,
        env: &mut dyn Env,
        sink: &mut RowSink,
        seen: &mut Option<std::collections::HashSet<st::RowId>>,
    ) -> Result<bool, SqlError> {
        let scan = match self.wanted {
            Some(w) => scan.project(Arc::clone(w)),
            None => scan,
        };
        let scan = if self.one_read {
            scan.in_one_read()
        } else {
            scan
        };
        for item in scan {
            let (row_id, row) = item.map_err(storage_error)?;
            if let Some(seen) = seen.as_mut() {
                if !seen.insert(row_id) {
                    continue;
                }
            }
            if !sink(row_id, row, env)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The rows whose index key starts with (or, for a whole unique key, is) `key`.
    fn scan_eq(
        &self,
        key: &[st::Value],
        env: &mut dyn Env,
        sink: &mut RowSink,
    ) -> Result<bool, SqlError> {
        if key.len() == self.ix.columns.len() && self.ix.is_unique() {
            let hit = self
                .table
                .lookup_unique_columns(self.index_no, key, self.wanted.map(|w| &w[..]))
                .map_err(storage_error)?;
            return match hit {
                Some((row_id, row)) => sink(row_id, row, env),
                None => Ok(true),
            };
        }
        let scan = self
            .table
            .index_scan(
                self.index_no,
                Bound::Included(key),
                Bound::Included(key),
                st::Direction::Forward,
            )
            .map_err(storage_error)?;
        self.feed(scan, env, sink, &mut None)
    }

    /// The rows between `lo` and `hi`, in index order.
    fn scan_range(
        &self,
        lo: &Bound<Vec<st::Value>>,
        hi: &Bound<Vec<st::Value>>,
        env: &mut dyn Env,
        sink: &mut RowSink,
        seen: &mut Option<std::collections::HashSet<st::RowId>>,
    ) -> Result<bool, SqlError> {
        let scan = self
            .table
            .index_scan(
                self.index_no,
                as_ref(lo),
                as_ref(hi),
                st::Direction::Forward,
            )
            .map_err(storage_error)?;
        self.feed(scan, env, sink, seen)
    }

    /// A range's keys after the equality `prefix`.
    fn range_keys(
        &self,
        prefix: &[st::Value],
        lower: &Option<(Expr, bool)>,
        upper: &Option<(Expr, bool)>,
        env: &mut dyn Env,
    ) -> Result<RangeKeys, SqlError> {
        let bound = |b: &Option<(Expr, bool)>,
                     env: &mut dyn Env|
         -> Result<Option<Option<Bound<Vec<st::Value>>>>, SqlError> {
            Ok(match b {
                None if prefix.is_empty() => Some(Some(Bound::Unbounded)),
                None => Some(Some(Bound::Included(prefix.to_vec()))),
                Some((e, inclusive)) => match self.key_of(e, prefix.len(), env)? {
                    None => None,
                    Some(None) => Some(None),
                    Some(Some(k)) => {
                        let mut key = prefix.to_vec();
                        key.push(k);
                        Some(Some(if *inclusive {
                            Bound::Included(key)
                        } else {
                            Bound::Excluded(key)
                        }))
                    }
                },
            })
        };
        let (Some(lo), Some(hi)) = (bound(lower, env)?, bound(upper, env)?) else {
            return Ok(None);
        };
        Ok(Some(lo.zip(hi)))
    }

    /// `col IN (list)` after the equality `prefix`: the whole list in one batch where it
    /// may be, else one lookup per distinct value. False when a value cannot be a key.
    fn in_list(
        &self,
        prefix: Vec<st::Value>,
        list: &[Expr],
        env: &mut dyn Env,
        sink: &mut RowSink,
    ) -> Result<bool, SqlError> {
        let eq_len = prefix.len();
        let ty = &self.def.columns[self.ix.columns[eq_len]].ty;
        // A number beyond the column's sign (a negative for an UNSIGNED column, one
        // past i64::MAX for a signed one) equals no stored value: it is no key.
        let outside = |k: &st::Value| match (ty, k) {
            (
                st::ColumnType::Int {
                    unsigned: false, ..
                },
                st::Value::UInt(u),
            ) => i64::try_from(*u).is_err(),
            (st::ColumnType::Int { unsigned: true, .. }, st::Value::Int(i)) => *i < 0,
            _ => false,
        };
        let mut values: Vec<st::Value> = Vec::with_capacity(list.len());
        for e in list {
            match self.key_of(e, eq_len, env)? {
                None => return Ok(false),
                Some(None) => {}
                Some(Some(k)) if outside(&k) => {}
                Some(Some(k)) => values.push(k),
            }
        }
        let full_unique = eq_len + 1 == self.ix.columns.len() && self.ix.is_unique();
        if !full_unique {
            // The whole list in one pass over the index (see Table::index_lookup_many).
            let batch = self
                .table
                .index_lookup_many(
                    self.index_no,
                    &prefix,
                    &values,
                    self.wanted.map(|w| &w[..]),
                    IN_LIST_BATCH_ROWS_MAX,
                )
                .map_err(storage_error)?;
            if let Some(rows) = batch {
                for (row_id, row) in rows {
                    if !sink(row_id, row, env)? {
                        break;
                    }
                }
                return Ok(true);
            }
        }
        // One lookup or scan per value, in value order; values equal under the
        // column's collation ('a' and 'A ') are one key.
        values.sort_by(|a, b| st::compare_datums(ty, a, b).unwrap_or(Ordering::Equal));
        values.dedup_by(|a, b| st::compare_datums(ty, a, b).is_ok_and(|o| o == Ordering::Equal));
        let mut key = prefix;
        for value in values {
            key.truncate(eq_len);
            key.push(value);
            if !self.scan_eq(&key, env, sink)? {
                break;
            }
        }
        Ok(true)
    }
}

impl TableSelect {
    /// Whether this SELECT only reads through an index of one table (a point lookup, an
    /// IN list or a key range) with no subquery: a statement short enough that a server may
    /// run it on the thread that read its packet rather than hand the thread off first.
    pub fn is_index_read(&self) -> bool {
        self.joins.is_empty()
            && self.post_filter.is_none()
            && matches!(self.source.access, Access::Index { .. })
            && self.has_no_subquery()
    }

    /// Whether no expression of this SELECT holds a subquery.
    pub(crate) fn has_no_subquery(&self) -> bool {
        columns_read(self).is_some() || {
            // columns_read gives None both for "every column" and for subqueries; tell apart.
            let mut exprs: Vec<&Expr> = Vec::new();
            for item in &self.items {
                if let OutputItem::Expr { expr, .. } = item {
                    exprs.push(expr);
                }
            }
            exprs.extend(self.source.filter.as_ref());
            exprs.extend(self.order_by.iter().map(|(e, _)| e));
            exprs.extend(self.windows.exprs());
            if let Some(g) = &self.grouping {
                exprs.extend(g.keys.iter());
                exprs.extend(g.aggregates.iter().flat_map(|a| a.exprs()));
                exprs.extend(g.having.as_ref());
            }
            exprs.iter().all(|e| visit_columns(e, &mut |_| {}))
        }
    }
}

/// The table columns a single-table SELECT reads (its list, WHERE, GROUP BY, aggregates,
/// HAVING and ORDER BY), for projection into the row decoder. None when every column is
/// needed or that cannot be told (joins, subqueries).
pub fn columns_read(plan: &TableSelect) -> Option<Arc<[bool]>> {
    if !plan.joins.is_empty() {
        return None;
    }
    let wanted = columns_noted(plan, plan.source.table.def.columns.len())?;
    if wanted.iter().all(|&w| w) {
        return None;
    }
    Some(wanted.into())
}

/// The columns of the joined row (the tables' columns in join order) that a SELECT with
/// joins reads: those of [`columns_read`], and those of each step's ON clause and lookup
/// key. None when that cannot be told (a subquery).
pub fn joined_columns_read(plan: &TableSelect) -> Option<Vec<bool>> {
    let width = plan.source.table.def.columns.len()
        + plan
            .joins
            .iter()
            .map(|j| j.table.def.columns.len())
            .sum::<usize>();
    let mut wanted = columns_noted(plan, width)?;
    let mut note = |i: usize| {
        if let Some(w) = wanted.get_mut(i) {
            *w = true;
        }
    };
    for step in &plan.joins {
        let exprs = step
            .on
            .iter()
            .chain(step.lookup.as_ref().map(|(_, key)| key));
        for e in exprs {
            if !visit_columns(e, &mut note) {
                return None;
            }
        }
    }
    Some(wanted)
}

/// The first `ncols` row positions that `plan`'s list, filters, ORDER BY, windows and
/// grouping read; None when a clause holds a subquery.
fn columns_noted(plan: &TableSelect, ncols: usize) -> Option<Vec<bool>> {
    let mut wanted = vec![false; ncols];
    // Positions past the table's columns are aggregate values, not stored columns.
    let mut note = |i: usize| {
        if let Some(w) = wanted.get_mut(i) {
            *w = true;
        }
    };
    let mut exprs: Vec<&Expr> = Vec::new();
    for item in &plan.items {
        match item {
            OutputItem::Column { index, .. } => note(*index),
            OutputItem::Expr { expr, .. } => exprs.push(expr),
        }
    }
    exprs.extend(plan.source.filter.as_ref());
    exprs.extend(plan.post_filter.as_ref());
    exprs.extend(plan.order_by.iter().map(|(e, _)| e));
    exprs.extend(plan.windows.exprs());
    if let Some(g) = &plan.grouping {
        exprs.extend(g.keys.iter());
        exprs.extend(g.aggregates.iter().flat_map(|a| a.exprs()));
        exprs.extend(g.having.as_ref());
    }
    for e in exprs {
        if !visit_columns(e, &mut note) {
            return None;
        }
    }
    Some(wanted)
}

/// Rows of a joined table whose `index_no` key equals `value` (None: the value cannot be an
/// exact key; scan instead).
pub fn lookup_rows(
    table: &st::Table,
    def: &st::TableDef,
    index_no: usize,
    value: Value,
    env: &mut dyn Env,
) -> Result<Option<Vec<Vec<Value>>>, SqlError> {
    let mut rows = Vec::new();
    let mut collect = |_: st::RowId, row: st::Row, _: &mut dyn Env| -> Result<bool, SqlError> {
        rows.push(row_values(row, def));
        Ok(true)
    };
    let found = index_rows(
        table,
        def,
        index_no,
        &[Expr::Literal(value)],
        &Tail::None,
        env,
        None,
        false,
        &mut collect,
    )?;
    Ok(found.then_some(rows))
}
