//! ORDER BY over wide rows: the scan feeds each row's ORDER BY columns and row id to a
//! sort of short entries ([`crate::exec::spill::row_ids`]), and the rows are read again by
//! id as they leave it, so the sort holds about 9 bytes per row whatever the rows' width.
//! MariaDB chooses the same way: rows wider than `max_length_for_sort_data` (or holding a
//! BLOB or TEXT) are sorted by row id.
//!
//! It applies to one table read whole (no index range, join, GROUP BY, DISTINCT or LIMIT)
//! whose select list shows stored columns only and whose ORDER BY names stored numeric or
//! temporal columns; anything else keeps the sort of whole rows, as do narrower rows. The
//! rows read again are those of the statement's snapshot, so they are the rows the scan
//! saw; a row gone by then (only a READ UNCOMMITTED reader can see one go) is left out.

use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::exec::spill::collect::RowShape;
use crate::exec::spill::row_ids::{key_width, KeyColumn, RowIdSort};
use crate::exec::spill::SpillConfig;
use crate::expr::Expr;
use crate::plan::tables::{Access, OutputItem, TableSelect};
use crate::result::{Column, QueryResult, Rows};
use crate::value::Value;
use myriad_storage::{Collation, ColumnType, IntWidth, LobSize, TableDef};
use std::sync::Arc;

/// The sort's columns when `plan` is sorted by row id under `config`, else None.
pub(crate) fn applies(plan: &TableSelect, config: &SpillConfig) -> Option<Vec<KeyColumn>> {
    if plan.order_by.is_empty()
        || !plan.joins.is_empty()
        || plan.grouping.is_some()
        || !plan.windows.funcs.is_empty()
        || plan.distinct
        || plan.post_filter.is_some()
        || plan.limit.is_some()
        || !matches!(plan.source.access, Access::Full)
        || plan.source.table.made.is_some()
    {
        return None;
    }
    let def = &plan.source.table.def;
    let mut width = 0usize;
    for item in &plan.items {
        let OutputItem::Column { index, .. } = item else {
            return None;
        };
        width = width.saturating_add(stored_width(&def.columns.get(*index)?.ty));
    }
    if width <= config.max_sort_row_bytes {
        return None;
    }
    plan.order_by
        .iter()
        .map(|(e, desc)| match e {
            Expr::Column(i) => {
                let ty = &def.columns.get(*i)?.ty;
                key_width(ty).map(|_| KeyColumn {
                    ty: ty.clone(),
                    desc: *desc,
                })
            }
            _ => None,
        })
        .collect()
}

/// The most bytes a value of `ty` takes in a sort of whole rows, as MariaDB counts a
/// column for max_length_for_sort_data (BLOB and TEXT count as unbounded).
fn stored_width(ty: &ColumnType) -> usize {
    let chars = |len: u32, collation: &Collation| {
        let per_char = match collation {
            Collation::Binary => 1,
            _ => 4,
        };
        len as usize * per_char
    };
    match ty {
        ColumnType::Int { width, .. } => match width {
            IntWidth::Tiny => 1,
            IntWidth::Small => 2,
            IntWidth::Medium => 3,
            IntWidth::Int => 4,
            IntWidth::Big => 8,
        },
        ColumnType::Decimal { precision, .. } => *precision as usize / 2 + 1,
        ColumnType::Float => 4,
        ColumnType::Double => 8,
        ColumnType::Char { len, collation } => chars(*len, collation),
        ColumnType::Varchar { len, collation } => chars(*len, collation) + 2,
        ColumnType::Text {
            size: LobSize::Tiny,
            collation,
        } => chars(255, collation) + 1,
        ColumnType::Blob {
            size: LobSize::Tiny,
        } => 256,
        ColumnType::Text { .. } | ColumnType::Blob { .. } => usize::MAX,
        ColumnType::Date => 3,
        ColumnType::DateTime { .. } => 8,
        ColumnType::Timestamp { .. } => 4,
        ColumnType::Time { fsp } => 3 + usize::from(fsp.div_ceil(2)),
        ColumnType::Enum { .. } | ColumnType::Set { .. } => {
            let (list, set) = ty.elements().expect("an ENUM or SET has elements");
            myriad_storage::elements::packed_bytes(list, set) as usize
        }
    }
}

/// The columns the scan decodes: the ORDER BY columns and those of the filter (None: all).
fn scan_columns(plan: &TableSelect, def: &TableDef) -> Option<Arc<[bool]>> {
    let mut wanted = vec![false; def.columns.len()];
    let mut note = |i: usize| {
        if let Some(w) = wanted.get_mut(i) {
            *w = true;
        }
    };
    for (e, _) in &plan.order_by {
        if !crate::plan::access::visit_columns(e, &mut note) {
            return None;
        }
    }
    if let Some(filter) = &plan.source.filter {
        if !crate::plan::access::visit_columns(filter, &mut note) {
            return None;
        }
    }
    Some(wanted.into())
}

/// Run `plan` (for which [`applies`] gave `keys`): its rows to `sink` when given (after
/// `sink.begin`), else as the result.
pub(crate) fn select(
    plan: &TableSelect,
    table: &crate::exec::source::Opened,
    keys: Vec<KeyColumn>,
    (shape, columns): (&RowShape, Arc<Vec<Column>>),
    env: &mut ExecEnv,
    sink: Option<&mut (dyn crate::RowSink + '_)>,
) -> Result<QueryResult, SqlError> {
    let def = &plan.source.table.def;
    let config = env.spill_config();
    let expected_rows = table.stored()?.row_count().ok();
    let Some(sort) = RowIdSort::new(keys, config.sort_bytes, expected_rows, &config.dir) else {
        return Err(SqlError::new(
            myriad_types::errors::ER_UNKNOWN_ERROR,
            "a sort by row id over a column it cannot key",
        ));
    };
    let key_columns: Vec<usize> = plan
        .order_by
        .iter()
        .filter_map(|(e, _)| match e {
            Expr::Column(i) => Some(*i),
            _ => None,
        })
        .collect();
    let sort = std::cell::RefCell::new(sort);
    let options = crate::exec::read::ReadOptions {
        wanted: scan_columns(plan, def),
        max_rows: None,
    };
    let mut key_values: Vec<Value> = Vec::with_capacity(key_columns.len());
    crate::exec::read::read_rows_each(
        &plan.source,
        table,
        env,
        &options,
        &mut |row_id, mut values, _| {
            key_values.clear();
            key_values.extend(
                key_columns
                    .iter()
                    .map(|&i| std::mem::replace(&mut values[i], Value::Null)),
            );
            sort.borrow_mut().push(&key_values, row_id)?;
            Ok(true)
        },
        &mut || sort.borrow_mut().reset(),
    )?;
    let (ids, stats) = sort.into_inner().finish()?;
    env.spill.add_sort(stats, false);
    let mut rows = Vec::new();
    let mut sink = sink;
    if let Some(sink) = sink.as_deref_mut() {
        sink.begin(&columns)?;
    }
    for id in ids {
        crate::interrupt::tick()?;
        let Some(stored) = table
            .stored()?
            .get(id?)
            .map_err(crate::catalog::storage_error)?
        else {
            continue;
        };
        let mut values = crate::plan::stored::row_values(stored, def);
        let (_, row) = shape.shape(&mut values, None, env)?;
        match sink.as_deref_mut() {
            Some(sink) => sink.row(&row)?,
            None => rows.push(row),
        }
    }
    if sink.is_some() {
        return Ok(crate::exec::stream::streamed(columns));
    }
    Ok(QueryResult::Rows {
        columns,
        rows: Rows::shared(rows),
        warnings: 0,
    })
}
