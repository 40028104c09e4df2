//! Aggregate functions over groups of rows.

use crate::error::SqlError;
use crate::expr::eval::SqlType;
use crate::expr::eval::SqlValue;
use crate::expr::Expr;
use crate::result::{column_flags, Column};
use crate::value::Value;

use crate::exec::env::*;
use crate::exec::select::*;

/// Groups compare their keys as MySQL does: strings by the collation (case and trailing
/// spaces ignored), numbers by value.
pub(crate) fn group_key_text(d: &Value) -> String {
    match d {
        Value::Null => "N".to_string(),
        Value::Bytes(b) => {
            let text = String::from_utf8_lossy(b);
            let folded: String = text
                .trim_end_matches(' ')
                .chars()
                .map(crate::expr::eval::fold_char)
                .collect();
            format!("s{folded}")
        }
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
            format!(
                "n{}",
                d.to_decimal(&mut Vec::new())
                    .unwrap_or_default()
                    .normalized()
            )
        }
        other => format!("o{}", other.to_text_lossy()),
    }
}

pub(crate) fn aggregate_type(
    agg: &crate::plan::tables::Aggregate,
    types: &[SqlType],
    env: &ExecEnv,
) -> SqlType {
    use crate::plan::tables::AggKind;
    let arg_type = agg
        .arg
        .as_ref()
        .map(|a| a.sql_type(env, types))
        .unwrap_or(SqlType::Null);
    let scale = match arg_type {
        SqlType::Decimal { scale, .. } => scale,
        _ => 0,
    };
    let exact = matches!(arg_type, SqlType::Int { .. } | SqlType::Decimal { .. });
    match agg.kind {
        AggKind::CountStar | AggKind::Count => SqlType::Int {
            unsigned: false,
            len: 21,
        },
        AggKind::Min | AggKind::Max => arg_type,
        AggKind::Sum if exact => SqlType::Decimal {
            precision: myriad_types::decimal::MAX_PRECISION,
            scale,
        },
        AggKind::Avg if exact => SqlType::Decimal {
            precision: myriad_types::decimal::MAX_PRECISION,
            scale: (scale + env.state.div_precision_increment)
                .min(myriad_types::decimal::MAX_SCALE),
        },
        AggKind::Sum | AggKind::Avg => SqlType::Double,
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

/// Metadata of a select item that is exactly an aggregate; MIN and MAX of a column keep
/// the column's type.
pub(crate) fn aggregate_column(
    plan: &crate::plan::tables::TableSelect,
    n: usize,
    name: &str,
    ty: SqlType,
) -> Column {
    use crate::plan::tables::AggKind;
    if let Some(g) = &plan.grouping {
        if let Some(crate::plan::tables::Aggregate {
            kind: AggKind::Min | AggKind::Max,
            arg: Some(Expr::Column(c)),
            ..
        }) = g.aggregates.get(n)
        {
            let (table_ref, local) = column_of(plan, *c);
            let mut column = crate::plan::tables::column_meta(table_ref, local, name);
            column.flags &= !(column_flags::NOT_NULL
                | column_flags::PRI_KEY
                | column_flags::UNIQUE_KEY
                | column_flags::MULTIPLE_KEY
                | column_flags::AUTO_INCREMENT);
            return column;
        }
    }
    result_column(name, ty)
}

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
