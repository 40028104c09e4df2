//! Aggregate functions over groups of rows.

use crate::error::SqlError;
use crate::expr::eval::SqlType;
use crate::expr::eval::SqlValue;
use crate::expr::Expr;
use crate::result::{column_flags, Column};
use crate::value::Value;
use myriad_types::Collation;

use crate::exec::env::*;
use crate::exec::select::*;

/// The canonical form of one group key value: two values are one group exactly when
/// their forms are equal. Strings compare under `collation` (general_ci: case, accents
/// and trailing spaces ignored; a binary string byte by byte), numbers by value (1 and
/// 1.00 are one group); each kind is tagged so that kinds never meet.
pub(crate) fn group_key_text(d: &Value, collation: Collation) -> Vec<u8> {
    match d {
        Value::Null => b"N".to_vec(),
        Value::Bytes(b) => {
            let mut out = Vec::with_capacity(b.len() + 1);
            out.push(b's');
            collation.push_key(b, &mut out);
            out
        }
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => format!(
            "n{}",
            d.to_decimal(&mut Vec::new())
                .unwrap_or_default()
                .normalized()
        )
        .into_bytes(),
        other => format!("o{}", other.to_text_lossy()).into_bytes(),
    }
}

/// One aggregate over a group's rows: the rows folded in order into a
/// [`Running`](crate::exec::accumulate::Running) state.
pub(crate) fn aggregate_value(
    agg: &crate::plan::tables::Aggregate,
    rows: &[&Vec<Value>],
    types: &[SqlType],
    env: &mut ExecEnv,
) -> Result<Value, SqlError> {
    let mut running = crate::exec::accumulate::Running::new(agg, types, env);
    for row in rows {
        crate::interrupt::tick()?;
        running.add(agg, row, env)?;
    }
    running.finish(agg, env)
}

/// The description of a result that takes its values from column `c` (MIN, MAX, a
/// window's value functions): the column's type, without its NOT NULL and key flags (a
/// group or a frame may have no row).
pub(crate) fn value_of_column(
    plan: &crate::plan::tables::TableSelect,
    c: usize,
    name: &str,
) -> Column {
    let (table_ref, local) = column_of(plan, c);
    let mut column = crate::plan::tables::column_meta(table_ref, local, name);
    column.flags &= !(column_flags::NOT_NULL
        | column_flags::PRI_KEY
        | column_flags::UNIQUE_KEY
        | column_flags::MULTIPLE_KEY
        | column_flags::AUTO_INCREMENT);
    column
}

/// Metadata of a select item that is exactly an aggregate; MIN and MAX of a column keep
/// the column's type.
pub(crate) fn aggregate_column(
    plan: &crate::plan::tables::TableSelect,
    n: usize,
    name: &str,
    (ty, input): (SqlType, &[SqlType]),
    env: &dyn crate::expr::Env,
) -> Column {
    use crate::plan::tables::AggKind;
    if let Some(g) = &plan.grouping {
        if let Some(crate::plan::tables::Aggregate {
            kind: AggKind::Variance { .. },
            arg: Some(arg),
            ..
        }) = g.aggregates.get(n)
        {
            // MariaDB shows four more fraction digits than an exact argument has (a
            // DOUBLE's own digits for any other).
            let mut column = result_column(name, ty);
            let fixed = match arg.sql_type(env, input) {
                SqlType::Int { .. } => Some(4),
                SqlType::Decimal { scale, .. } => Some(scale + 4).filter(|d| *d <= 30),
                _ => None,
            };
            if let Some(decimals) = fixed {
                column.decimals = decimals as u8;
            }
            return column;
        }
        if let Some(a) = g
            .aggregates
            .get(n)
            .filter(|a| a.kind == AggKind::GroupConcat)
        {
            return group_concat_column(name, ty, a.collation);
        }
        if let Some(crate::plan::tables::Aggregate {
            kind: AggKind::Min | AggKind::Max,
            arg: Some(Expr::Column(c)),
            ..
        }) = g.aggregates.get(n)
        {
            return value_of_column(plan, *c, name);
        }
    }
    result_column(name, ty)
}

/// GROUP_CONCAT's metadata: a VARCHAR of group_concat_max_len characters (`ty`), a BLOB
/// past [`VARCHAR_CHARS_MAX`], in the result's collation.
fn group_concat_column(name: &str, ty: SqlType, collation: Collation) -> Column {
    let mut column = result_column(name, ty);
    if let SqlType::Str { chars } = ty {
        if chars > VARCHAR_CHARS_MAX {
            column.column_type = crate::result::ColumnType::Blob;
        }
    }
    column.charset = collation.id();
    if collation != Collation::Utf8mb4GeneralCi {
        column.flags |= column_flags::BINARY;
    }
    if collation == Collation::Binary {
        column.length /= 4;
    }
    column
}

/// The longest string result MariaDB describes as a VARCHAR (CONVERT_IF_BIGGER_TO_BLOB).
pub(crate) const VARCHAR_CHARS_MAX: u32 = 512;

/// A group's row: its first row followed by its aggregate values; None when HAVING
/// drops it.
pub(crate) fn group_row(
    g: &crate::plan::tables::Grouping,
    members: &[&Vec<Value>],
    types: &[SqlType],
    env: &mut ExecEnv,
) -> Result<Option<Vec<Value>>, SqlError> {
    let mut row = match members.first() {
        Some(first) => (*first).clone(),
        None => vec![Value::Null; types.len()],
    };
    for a in &g.aggregates {
        row.push(aggregate_value(a, members, types, env)?);
    }
    Ok(g.keeps(env, &row)?.then_some(row))
}
