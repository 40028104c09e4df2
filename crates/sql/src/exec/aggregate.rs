//! Aggregate functions over groups of rows.

use crate::error::SqlError;
use crate::expr::eval::Datum;
use crate::expr::eval::SqlType;
use crate::expr::Expr;
use crate::result::{column_flags, Column};

use crate::exec::env::*;
use crate::exec::select::*;

/// Groups compare their keys as MySQL does: strings by the collation (case and trailing
/// spaces ignored), numbers by value.
pub(crate) fn group_key_text(d: &Datum) -> String {
    match d {
        Datum::Null => "N".to_string(),
        Datum::Str(b) => {
            let text = String::from_utf8_lossy(b);
            let folded: String = text
                .trim_end_matches(' ')
                .chars()
                .map(crate::expr::eval::fold_char)
                .collect();
            format!("s{folded}")
        }
        Datum::Int(_) | Datum::UInt(_) | Datum::Dec(_) => {
            format!(
                "n{}",
                d.to_decimal(&mut Vec::new())
                    .unwrap_or_default()
                    .normalize()
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
            precision: 38,
            scale,
        },
        AggKind::Avg if exact => SqlType::Decimal {
            precision: 38,
            scale: scale + env.state.div_precision_increment,
        },
        AggKind::Sum | AggKind::Avg => SqlType::Double,
    }
}

/// One aggregate over a group's rows.
pub(crate) fn aggregate_value(
    agg: &crate::plan::tables::Aggregate,
    rows: &[&Vec<Datum>],
    types: &[SqlType],
    env: &mut ExecEnv,
) -> Result<Datum, SqlError> {
    use crate::plan::tables::AggKind;
    if agg.kind == AggKind::CountStar {
        return Ok(Datum::Int(rows.len() as i64));
    }
    let mut inputs: Vec<Datum> = Vec::new();
    for row in rows {
        crate::interrupt::tick()?;
        let v = agg
            .arg
            .as_ref()
            .map(|a| a.eval(env, row))
            .transpose()?
            .unwrap_or(Datum::Null);
        if !v.is_null() {
            inputs.push(v);
        }
    }
    if agg.distinct {
        let mut unique: Vec<Datum> = Vec::new();
        for v in inputs {
            crate::interrupt::tick()?;
            if !unique.iter().any(|u| {
                crate::expr::eval::compare(u, &v, &mut Vec::new())
                    == Some(std::cmp::Ordering::Equal)
            }) {
                unique.push(v);
            }
        }
        inputs = unique;
    }
    let ty = aggregate_type(agg, types, env);
    Ok(match agg.kind {
        AggKind::CountStar | AggKind::Count => Datum::Int(inputs.len() as i64),
        AggKind::Min | AggKind::Max => {
            let mut best: Option<Datum> = None;
            for v in inputs {
                let better = match &best {
                    None => true,
                    Some(b) => {
                        let o = crate::expr::eval::compare(&v, b, &mut env.warnings)
                            .unwrap_or(std::cmp::Ordering::Equal);
                        (agg.kind == AggKind::Min && o == std::cmp::Ordering::Less)
                            || (agg.kind == AggKind::Max && o == std::cmp::Ordering::Greater)
                    }
                };
                if better {
                    best = Some(v);
                }
            }
            best.unwrap_or(Datum::Null)
        }
        AggKind::Sum | AggKind::Avg if inputs.is_empty() => Datum::Null,
        AggKind::Sum | AggKind::Avg if matches!(ty, SqlType::Decimal { .. }) => {
            let mut sum = rust_decimal::Decimal::ZERO;
            for v in &inputs {
                sum = sum
                    .checked_add(v.to_decimal(&mut env.warnings).unwrap_or_default())
                    .ok_or_else(|| {
                        SqlError::new(1690, "22003", "DECIMAL value is out of range in 'sum'")
                    })?;
            }
            if agg.kind == AggKind::Sum {
                Datum::Dec(sum)
            } else {
                Datum::Dec(sum / rust_decimal::Decimal::from(inputs.len() as u64))
            }
        }
        AggKind::Sum | AggKind::Avg => {
            let sum: f64 = inputs
                .iter()
                .map(|v| v.to_double(&mut Vec::new()).unwrap_or(0.0))
                .sum();
            Datum::Double(if agg.kind == AggKind::Sum {
                sum
            } else {
                sum / inputs.len() as f64
            })
        }
    })
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
