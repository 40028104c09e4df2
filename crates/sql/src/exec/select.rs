//! SELECT: without tables, over one table and over joins; result column metadata.

use crate::error::SqlError;
use crate::expr::eval::SqlType;
use crate::expr::eval::SqlValue;
use crate::expr::Env;
use crate::expr::Expr;
use crate::result::{charsets, column_flags, Column, ColumnType, QueryResult, Rows};
use crate::value::Value;
use myriad_types::errors::{ER_UNKNOWN_ERROR, ER_WRONG_ARGUMENTS};

use crate::exec::aggregate::*;
use crate::exec::env::*;
use crate::Session;
use std::sync::Arc;

/// Longest integer (in characters) MariaDB reports as LONG rather than LONGLONG.
pub(crate) const INT32_DIGITS_MAX: u32 = 9;

/// Longest unsigned integer (in characters) MariaDB reports as LONG: every 32-bit unsigned
/// value (CRC32, CONNECTION_ID) has at most ten digits.
const UINT32_DIGITS_MAX: u32 = 10;

/// A result column for a value of static type `ty`, with MySQL's type code, length and
/// character set.
pub fn result_column(name: &str, ty: SqlType) -> Column {
    let (column_type, length, charset, mut flags, decimals) = match ty {
        SqlType::Null => (
            ColumnType::Null,
            0,
            charsets::BINARY,
            column_flags::BINARY,
            0,
        ),
        SqlType::Int { unsigned, len } => (
            // MariaDB reports integers of up to 9 digits (unsigned: 10) as LONG, longer
            // ones as LONGLONG.
            if len <= INT32_DIGITS_MAX || (unsigned && len <= UINT32_DIGITS_MAX) {
                ColumnType::Long
            } else {
                ColumnType::LongLong
            },
            len.max(1),
            charsets::BINARY,
            column_flags::BINARY
                | column_flags::NUM
                | if unsigned { column_flags::UNSIGNED } else { 0 },
            0,
        ),
        SqlType::Decimal { precision, scale } => (
            ColumnType::NewDecimal,
            precision.max(1) + u32::from(scale > 0) + 1,
            charsets::BINARY,
            column_flags::BINARY | column_flags::NUM,
            scale.min(38) as u8,
        ),
        SqlType::Double => (
            ColumnType::Double,
            22,
            charsets::BINARY,
            column_flags::BINARY | column_flags::NUM,
            31,
        ),
        SqlType::Str { chars } => (
            ColumnType::VarString,
            chars.saturating_mul(4),
            charsets::UTF8MB4_GENERAL_CI,
            0,
            39,
        ),
        SqlType::Date => (
            ColumnType::Date,
            10,
            charsets::BINARY,
            column_flags::BINARY,
            0,
        ),
        SqlType::DateTime { fsp } => (
            ColumnType::DateTime,
            crate::expr::eval::display_chars(ty),
            charsets::BINARY,
            column_flags::BINARY,
            fsp,
        ),
        SqlType::Time { fsp } => (
            ColumnType::Time,
            crate::expr::eval::display_chars(ty),
            charsets::BINARY,
            column_flags::BINARY,
            fsp,
        ),
    };
    if matches!(ty, SqlType::Str { .. }) {
        flags = 0;
    }
    Column {
        schema: crate::result::no_table(),
        table: crate::result::no_table(),
        org_table: crate::result::no_table(),
        name: name.to_string(),
        org_name: String::new(),
        charset,
        length,
        column_type,
        flags,
        decimals,
    }
}

/// Whether `expr` reads a GROUP_CONCAT's value (aggregate columns start at `ncols`).
fn reads_group_concat(plan: &crate::plan::tables::TableSelect, expr: &Expr, ncols: usize) -> bool {
    let Some(g) = &plan.grouping else {
        return false;
    };
    let mut found = false;
    crate::plan::access::visit_columns(expr, &mut |i| {
        found |= i
            .checked_sub(ncols)
            .and_then(|n| g.aggregates.get(n))
            .is_some_and(|a| a.kind == crate::plan::tables::AggKind::GroupConcat);
    });
    found
}

/// A string result's type by its length in bytes: a VARCHAR up to 65,535 bytes, a
/// MEDIUMBLOB up to 16,777,215, a LONGBLOB past it (MariaDB's string_type_handler).
fn long_string_type(bytes: u32) -> ColumnType {
    const VARCHAR_BYTES_MAX: u32 = 65_535;
    const MEDIUM_BLOB_BYTES_MAX: u32 = 16_777_215;
    if bytes <= VARCHAR_BYTES_MAX {
        ColumnType::VarString
    } else if bytes <= MEDIUM_BLOB_BYTES_MAX {
        ColumnType::MediumBlob
    } else {
        ColumnType::LongBlob
    }
}

pub(crate) fn text_column(name: &str, chars: u32) -> Column {
    let mut c = result_column(name, SqlType::Str { chars });
    c.flags = column_flags::NOT_NULL;
    c.decimals = 0;
    c
}

/// In a listing's column spec: a text column MariaDB types as BLOB.
pub(crate) const BLOB_TEXT: u32 = u32::MAX;
/// In a listing's column spec: a small integer (LONG).
pub(crate) const LONG_INT: u32 = u32::MAX - 1;

/// Evaluate a LIMIT/OFFSET operand: a non-negative integer.
pub(crate) fn limit_value(e: &Expr, env: &mut ExecEnv) -> Result<u64, SqlError> {
    match e.eval(env, &[])? {
        Value::Int(i) if i >= 0 => Ok(i as u64),
        Value::UInt(u) => Ok(u),
        Value::Int(_) => Ok(0),
        Value::Bytes(s) => Ok(String::from_utf8_lossy(&s)
            .trim()
            .parse::<u64>()
            .unwrap_or(0)),
        _ => Err(SqlError::new(
            ER_WRONG_ARGUMENTS,
            "Incorrect arguments to LIMIT",
        )),
    }
}

pub(crate) fn select(
    plan: &crate::plan::SelectPlan,
    env: &mut ExecEnv,
) -> Result<QueryResult, SqlError> {
    let types: Vec<SqlType> = plan
        .items
        .iter()
        .map(|i| i.expr.sql_type(env, &[]))
        .collect();
    let columns: Vec<Column> = plan
        .items
        .iter()
        .zip(&types)
        .map(|(i, t)| result_column(&i.name, *t))
        .collect();
    let mut produce = match &plan.filter {
        Some(f) => f.holds(env, &[])?,
        None => true,
    };
    if let Some(l) = &plan.limit {
        let limit = limit_value(l, env)?;
        let offset = match &plan.offset {
            Some(o) => limit_value(o, env)?,
            None => 0,
        };
        if limit == 0 || offset > 0 {
            produce = false;
        }
    }
    let mut rows = Vec::new();
    if produce {
        let mut row = Vec::with_capacity(plan.items.len());
        for (item, ty) in plan.items.iter().zip(&types) {
            let d = item.expr.eval(env, &[])?;
            row.push(d.into_column(*ty, &mut env.warnings));
        }
        rows.push(row);
    }
    Ok(QueryResult::Rows {
        columns: Arc::new(columns),
        rows: Rows::shared(rows),
        warnings: 0,
    })
}

impl Session {
    /// The rows a statement reads, ordered and limited as it asks.
    pub(crate) fn matching_rows(
        &self,
        source: &crate::plan::tables::RowSource,
        table: &crate::exec::source::Opened,
        order_by: &[(Expr, bool)],
        limit: &Option<Expr>,
        env: &mut ExecEnv,
    ) -> Result<Vec<(myriad_storage::RowId, Vec<Value>)>, SqlError> {
        let mut rows = crate::exec::read::read_rows(source, table, env)?;
        if !order_by.is_empty() {
            let mut keyed = Vec::with_capacity(rows.len());
            for row in rows {
                crate::interrupt::tick()?;
                let keys = order_by
                    .iter()
                    .map(|(e, _)| e.eval(env, &row.1))
                    .collect::<Result<Vec<_>, _>>()?;
                keyed.push((keys, row));
            }
            let desc: Vec<bool> = order_by.iter().map(|(_, d)| *d).collect();
            let columns = source.table.collations();
            let collations: Vec<_> = order_by
                .iter()
                .map(|(e, _)| e.collation(&columns).collation)
                .collect();
            crate::exec::sort::sort_rows(&mut keyed, &desc, &collations);
            crate::interrupt::tick()?;
            rows = keyed.into_iter().map(|(_, r)| r).collect();
        }
        if let Some(l) = limit {
            rows.truncate(usize::try_from(limit_value(l, env)?).unwrap_or(usize::MAX));
        }
        Ok(rows)
    }

    pub(crate) fn select_table(
        plan: &crate::plan::tables::TableSelect,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        // Taken before anything runs: a subquery evaluated on this env builds its rows.
        let mut sink = env.out.take();
        if let Some(sink) = sink.take_if(|_| crate::exec::stream::streams(plan)) {
            return crate::exec::stream::select(plan, env, sink);
        }
        if let Some(sink) = sink.take_if(|_| crate::exec::distinct::streams(plan)) {
            return crate::exec::distinct::select_streamed(plan, env, sink);
        }
        // The rows go to the client as they leave the sort, the grouping or (an index read's
        // rows, which may start again) the rows gathered in arrival order.
        let warnings = env.warnings.len();
        if let Some(result) = Session::select_table_once(plan, env, true, sink.as_deref_mut())? {
            return Ok(result);
        }
        // The limit was applied during the sort, and an ORDER BY key then turned out to
        // mix kinds of values, which reorders rows already dropped: once more, keeping all.
        env.warnings.truncate(warnings);
        Session::select_table_once(plan, env, false, sink)?
            .ok_or_else(|| SqlError::new(ER_UNKNOWN_ERROR, "a sort without a limit restarted"))
    }

    /// A SELECT over tables; None when the sort's early limit has to be given up (see
    /// [`crate::exec::spill::sort::Outcome::Restart`]). With a sink, the rows go to it.
    fn select_table_once<'e>(
        plan: &crate::plan::tables::TableSelect,
        env: &mut ExecEnv<'e>,
        limit_in_sort: bool,
        sink: Option<&mut (dyn crate::RowSink + 'e)>,
    ) -> Result<Option<QueryResult>, SqlError> {
        let table = crate::exec::source::Opened::open(
            &plan.source.table,
            plan.source.filter.as_ref(),
            env,
        )?;
        let (types, ncols) = input_types(plan, env);
        let mut columns = result_columns(plan, &types, ncols, env);
        let rollup = plan.grouping.as_ref().is_some_and(|g| g.rollup);
        if rollup {
            columns = crate::exec::rollup::nullable_keys(plan, columns);
        }
        let shape = crate::exec::spill::collect::RowShape::new(plan, &types, env);
        let (offset, limit) = offset_limit(plan, env)?;
        // Rows come out in ORDER BY order, else GROUP BY returns its groups in key order,
        // as MariaDB does.
        // WITH ROLLUP makes its rows in order.
        let order = if rollup {
            None
        } else if !plan.order_by.is_empty() {
            let keys = plan.order_by.iter();
            Some((
                keys.clone().map(|(_, d)| *d).collect(),
                keys.map(|(e, _)| e.collation(&plan.collations).collation)
                    .collect(),
            ))
        } else if !plan.windows.funcs.is_empty() {
            // As MariaDB: in the order the last window's sort leaves them.
            None
        } else {
            plan.grouping
                .as_ref()
                .filter(|g| !g.keys.is_empty())
                .map(|g| (vec![false; g.keys.len()], g.key_collations.clone()))
        };
        // DISTINCT over grouped rows makes them distinct after the sort, where OFFSET and
        // LIMIT count distinct rows; without grouping the rows are distinct before it.
        let distinct_after = plan.distinct && plan.grouping.is_some();
        let wanted = (limit_in_sort && !distinct_after && plan.limit.is_some())
            .then(|| offset.saturating_add(limit));
        let spill = env.spill_config();
        if let Some(keys) = crate::exec::sort_by_row_id::applies(plan, spill) {
            let result = crate::exec::sort_by_row_id::select(
                plan,
                &table,
                keys,
                (&shape, columns),
                env,
                sink,
            )?;
            return Ok(Some(result));
        }
        let mut out = crate::exec::spill::collect::Collector::new(order, wanted, spill);
        // With window functions the rows go to the window step first, and from it to `out`.
        let mut after_windows = None;
        if !plan.windows.funcs.is_empty() {
            let input = crate::exec::window::WindowInput::new(plan, spill);
            let windowed = crate::exec::spill::collect::Collector::Windowed(Box::new(input));
            after_windows = Some(std::mem::replace(&mut out, windowed));
        }
        if let Some(g) = plan.grouping.as_ref().filter(|g| g.rollup) {
            out = crate::exec::rollup::group_rollup(
                plan,
                g,
                &table,
                &types[..ncols],
                &shape,
                spill,
                out,
                env,
            )?;
        } else if let Some(g) = plan.grouping.as_ref().filter(|g| !g.keys.is_empty()) {
            out =
                Session::group_streamed(plan, g, &table, &types[..ncols], &shape, spill, out, env)?;
        } else if let Some(g) = plan.grouping.as_ref() {
            out = crate::exec::accumulate::aggregate_streamed(
                plan,
                g,
                &table,
                &types[..ncols],
                &shape,
                out,
                env,
            )?;
        } else if plan.distinct {
            env.spill.tmp_tables += 1;
            let collations = crate::exec::distinct::item_collations(plan);
            crate::exec::distinct::collect(plan, &table, &shape, &collations, &mut out, env)?;
        } else {
            Session::collect(plan, &table, &shape, &mut out, env)?;
        }
        let range = plan.reads_index_range();
        if let Some(mut shaped) = after_windows {
            if let crate::exec::spill::collect::Collector::Windowed(input) = out {
                input.finish((&shape, &types, range), &mut shaped, env)?;
            }
            out = shaped;
        }
        if distinct_after {
            let limits = (range, offset, limit);
            let collations = crate::exec::distinct::item_collations(plan);
            return crate::exec::distinct::grouped(out, env, limits, (columns, collations), sink);
        }
        // The rows skipped or past the limit are dropped as they leave the sort.
        if let Some(sink) = sink {
            let sent = out.finish_into(&mut env.spill, range, (offset, limit), &columns, sink)?;
            return Ok(sent.then(|| crate::exec::stream::streamed(columns)));
        }
        let Some(result) = out.finish(&mut env.spill, range, offset, limit)? else {
            return Ok(None);
        };
        Ok(Some(QueryResult::Rows {
            columns,
            rows: Rows::shared(result),
            warnings: 0,
        }))
    }

    /// Every row of a table SELECT without GROUP BY or aggregates, read (or joined) and
    /// shaped into `out` (its sort or list) as it is made: the statement holds no copy
    /// of a table.
    // Inline: called once per statement on the point-select path.
    #[inline(always)]
    fn collect(
        plan: &crate::plan::tables::TableSelect,
        table: &crate::exec::source::Opened,
        shape: &crate::exec::spill::collect::RowShape,
        out: &mut crate::exec::spill::collect::Collector<'_>,
        env: &mut ExecEnv,
    ) -> Result<(), SqlError> {
        let max_rows = Session::rows_to_read(plan, env)?;
        let cell = std::cell::RefCell::new(out);
        let emit = &mut |mut values: Vec<Value>, env: &mut dyn crate::expr::Env| {
            shape.emit(&mut values, None, None, env, &mut cell.borrow_mut())
        };
        if !plan.joins.is_empty() {
            let mut taken = 0usize;
            return crate::exec::join::each_joined_row(plan, table, env, &mut |values, env| {
                emit(values, env)?;
                taken += 1;
                Ok(max_rows.is_none_or(|max| taken < max))
            });
        }
        let options = crate::exec::read::ReadOptions {
            wanted: crate::exec::read::columns_read(plan),
            max_rows,
        };
        crate::exec::read::read_rows_each(
            &plan.source,
            table,
            env,
            &options,
            &mut |_, values, env| {
                emit(values, env)?;
                Ok(true)
            },
            &mut || cell.borrow_mut().reset(),
        )
    }

    /// GROUP BY: each row goes from the scan or join into its group, folded into running
    /// aggregates while the groups fit the budget ([`crate::exec::accumulate::Folded`]),
    /// else through the grouping that keeps rows and spills past its budget (see
    /// [`crate::exec::spill::group`]); each group's row goes into `out`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn group_streamed<'d>(
        plan: &crate::plan::tables::TableSelect,
        g: &crate::plan::tables::Grouping,
        table: &crate::exec::source::Opened,
        types: &[SqlType],
        shape: &crate::exec::spill::collect::RowShape,
        spill: &'d crate::exec::spill::SpillConfig,
        mut out: crate::exec::spill::collect::Collector<'d>,
        env: &mut ExecEnv,
    ) -> Result<crate::exec::spill::collect::Collector<'d>, SqlError> {
        use crate::exec::accumulate::{each_grouped_row, fold_groups, Folded};
        if Folded::applies(g) {
            let warnings = env.warnings.len();
            if let Some(folded) = fold_groups(plan, g, table, types, spill, env)? {
                env.spill.tmp_tables += 1;
                folded.finish(g, env, &mut |keys, first, mut row, env| {
                    if !g.keeps(env, &row)? {
                        return Ok(());
                    }
                    shape.emit(&mut row, Some(&keys), Some(first), env, &mut out)
                })?;
                return Ok(out);
            }
            // Too many groups to fold within the budget: group again, keeping rows.
            env.warnings.truncate(warnings);
        }
        let grouper = std::cell::RefCell::new(crate::exec::spill::group::Grouper::new(spill));
        each_grouped_row(
            (plan, g, table),
            env,
            &mut |(canonical, keys), values, _| {
                grouper.borrow_mut().push(canonical, keys, values)?;
                Ok(true)
            },
            &mut || grouper.borrow_mut().reset(),
        )?;
        let (stats, spilled) = grouper.into_inner().finish(&mut |group| {
            crate::interrupt::tick()?;
            let members: Vec<&Vec<Value>> = group.rows.iter().collect();
            if let Some(mut row) = group_row(g, &members, types, env)? {
                shape.emit(
                    &mut row,
                    Some(&group.keys),
                    Some(group.first),
                    env,
                    &mut out,
                )?;
            }
            Ok(())
        })?;
        env.spill.tmp_tables += 1;
        if spilled {
            env.spill.tmp_disk_tables += 1;
            env.spill.add_sort(stats, plan.reads_index_range());
        }
        Ok(out)
    }

    /// How many rows a table SELECT needs from its scan or join: OFFSET + LIMIT when
    /// nothing after the filter reorders, groups or drops rows; None for all of them.
    pub(crate) fn rows_to_read(
        plan: &crate::plan::tables::TableSelect,
        env: &mut ExecEnv,
    ) -> Result<Option<usize>, SqlError> {
        let Some(limit) = &plan.limit else {
            return Ok(None);
        };
        if !plan.order_by.is_empty()
            || plan.grouping.is_some()
            || plan.distinct
            || !plan.windows.funcs.is_empty()
        {
            return Ok(None);
        }
        let offset = match &plan.offset {
            Some(o) => limit_value(o, env)?,
            None => 0,
        };
        let limit = limit_value(limit, env)?;
        Ok(usize::try_from(offset.saturating_add(limit)).ok())
    }
}
/// The value a NOT NULL column without a default gets in non-strict mode.
pub(crate) fn zero_value(ty: &myriad_storage::ColumnType) -> myriad_storage::Value {
    use myriad_storage::{ColumnType as T, Value as D};
    match ty {
        T::Int { unsigned: true, .. } => D::UInt(0),
        T::Int { .. } => D::Int(0),
        T::Decimal { .. } => D::Decimal(myriad_storage::Decimal::ZERO),
        T::Float | T::Double => D::Double(0.0),
        T::Date => D::Date(Default::default()),
        T::DateTime { .. } | T::Timestamp { .. } => D::DateTime(Default::default()),
        // An ENUM's first element (its implicit default when NOT NULL).
        T::Enum { elements, .. } => D::Bytes(
            elements
                .first()
                .map_or(Vec::new(), |e| e.as_bytes().to_vec()),
        ),
        _ => D::Bytes(Vec::new()),
    }
}

/// The column types of a table SELECT's input row: each table's columns in join order,
/// then the aggregates'; and how many are the tables' columns.
// Inline: called once per statement on the point-select path.
#[inline(always)]
pub(crate) fn input_types(
    plan: &crate::plan::tables::TableSelect,
    env: &ExecEnv,
) -> (Vec<SqlType>, usize) {
    plan.input_types(env)
}

/// The result's column definitions; a select list of stored columns only has the same
/// ones every time, built once and kept in the plan.
// Inline: called once per statement on the point-select path.
#[inline(always)]
pub(crate) fn result_columns(
    plan: &crate::plan::tables::TableSelect,
    types: &[SqlType],
    ncols: usize,
    env: &dyn Env,
) -> Arc<Vec<Column>> {
    let stored_only = plan.grouping.is_none()
        && plan.items.iter().all(
            |item| matches!(item, crate::plan::tables::OutputItem::Column { index, .. } if *index < ncols),
        );
    if stored_only {
        Arc::clone(
            plan.shown_columns
                .get_or_init(|| Arc::new(table_select_columns(plan, types, ncols, env))),
        )
    } else {
        Arc::new(table_select_columns(plan, types, ncols, env))
    }
}

/// OFFSET and LIMIT as row counts (0 and no limit when absent).
// Inline: called once per statement on the point-select path.
#[inline(always)]
pub(crate) fn offset_limit(
    plan: &crate::plan::tables::TableSelect,
    env: &mut ExecEnv,
) -> Result<(usize, usize), SqlError> {
    let offset = match &plan.offset {
        Some(o) => usize::try_from(limit_value(o, env)?).unwrap_or(usize::MAX),
        None => 0,
    };
    let limit = match &plan.limit {
        Some(l) => usize::try_from(limit_value(l, env)?).unwrap_or(usize::MAX),
        None => usize::MAX,
    };
    Ok((offset, limit))
}

/// Result metadata of a SELECT over tables. `types` holds the joined row's column types
/// followed by the aggregates' types; `ncols` is where the aggregates start.
pub(crate) fn table_select_columns(
    plan: &crate::plan::tables::TableSelect,
    types: &[SqlType],
    ncols: usize,
    env: &dyn Env,
) -> Vec<Column> {
    plan.items
        .iter()
        .map(|item| match item {
            crate::plan::tables::OutputItem::Column { index, name } if *index < ncols => {
                let (table_ref, local) = column_of(plan, *index);
                crate::plan::tables::column_meta(table_ref, local, name)
            }
            crate::plan::tables::OutputItem::Column { index, name } => {
                let ty = types.get(*index).copied().unwrap_or(SqlType::Null);
                let nwindows = plan.windows.funcs.len();
                match (*index + nwindows).checked_sub(types.len()) {
                    Some(n) => crate::exec::window::window_column(plan, n, name, ty),
                    None => aggregate_column(plan, *index - ncols, name, (ty, types), env),
                }
            }
            crate::plan::tables::OutputItem::Expr { expr, name } => {
                let ty = expr.sql_type(env, types);
                let mut column = result_column(name, ty);
                if let (SqlType::Str { chars }, true) = (ty, reads_group_concat(plan, expr, ncols))
                {
                    // Its length is group_concat_max_len's, which MariaDB describes as a
                    // blob past a VARCHAR's bytes.
                    column.column_type = long_string_type(chars.saturating_mul(4));
                }
                if column.charset == charsets::UTF8MB4_GENERAL_CI {
                    // A string result is sent with its collation's number: a binary
                    // string's (63) tells clients it holds bytes, not text.
                    let collation = expr.collation(&plan.collations).collation;
                    column.charset = collation.id();
                    if collation != myriad_types::Collation::Utf8mb4GeneralCi {
                        column.flags |= column_flags::BINARY;
                    }
                    if collation == myriad_types::Collation::Binary {
                        // Bytes, not four-byte characters.
                        column.length /= 4;
                    }
                }
                column
            }
        })
        .collect()
}

/// The table a joined-row position belongs to, and the column's position in it.
pub(crate) fn column_of(
    plan: &crate::plan::tables::TableSelect,
    index: usize,
) -> (&crate::plan::tables::TableRef, usize) {
    let mut owner = (&plan.source.table, index);
    for j in &plan.joins {
        if index >= j.offset {
            owner = (&j.table, index - j.offset);
        }
    }
    owner
}
