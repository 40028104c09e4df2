//! Access paths: which index and which key ranges a WHERE clause allows.

use crate::expr::eval::SqlValue;

use crate::expr::CmpOp;
use crate::expr::Collation;
use crate::expr::Expr;
use crate::plan::tables::*;
use crate::value::Value;
use myriad_storage as st;
use myriad_types::datetime::{parse_date_or_datetime, Temporal};
use myriad_types::decimal::Decimal;

/// An index key value for a column, only when the conversion is exact (otherwise the
/// comparison MySQL applies is not the index order, and the caller scans instead).
pub(crate) fn key_value(value: &Value, ty: &st::ColumnType) -> Option<st::Value> {
    match ty {
        st::ColumnType::Int { .. } => match value {
            Value::Int(i) => Some(st::Value::Int(*i)),
            Value::UInt(u) => Some(st::Value::UInt(*u)),
            Value::Decimal(d) if d.normalized().scale() == 0 => d.to_i64().map(st::Value::Int),
            Value::Double(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => {
                Some(st::Value::Int(*f as i64))
            }
            Value::Bytes(s) => String::from_utf8_lossy(s)
                .trim()
                .parse::<i64>()
                .ok()
                .map(st::Value::Int),
            _ => None,
        },
        st::ColumnType::Decimal { scale, .. } => {
            let d = match value {
                Value::Int(i) => Decimal::from_i64(*i),
                Value::UInt(u) => Decimal::from_u64(*u),
                Value::Decimal(d) => *d,
                _ => return None,
            };
            let r = d.rescale(*scale as u32).ok()?;
            (r == d).then_some(st::Value::Decimal(r))
        }
        st::ColumnType::Float | st::ColumnType::Double => match value {
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
                value.to_double(&mut Vec::new()).map(st::Value::Double)
            }
            _ => None,
        },
        st::ColumnType::Char { .. }
        | st::ColumnType::Varchar { .. }
        | st::ColumnType::Text { .. }
        | st::ColumnType::Blob { .. } => match value {
            Value::Bytes(s) => Some(st::Value::Bytes(s.clone())),
            _ => None,
        },
        st::ColumnType::Date => match value {
            Value::Date { .. } => value.as_datetime().map(|dt| st::Value::Date(dt.date())),
            Value::Bytes(s) => match parse_date_or_datetime(&String::from_utf8_lossy(s)) {
                Some(Temporal::Date(d)) => Some(st::Value::Date(d)),
                _ => None,
            },
            _ => None,
        },
        st::ColumnType::DateTime { .. } | st::ColumnType::Timestamp { .. } => match value {
            Value::Bytes(s) => match parse_date_or_datetime(&String::from_utf8_lossy(s)) {
                Some(Temporal::DateTime(dt)) => Some(st::Value::DateTime(dt)),
                _ => None,
            },
            Value::DateTime { .. } => value.as_datetime().map(st::Value::DateTime),
            _ => None,
        },
        st::ColumnType::Time { .. } => match value {
            Value::Time(t) => Some(st::Value::Time(*t)),
            Value::Bytes(s) => myriad_types::datetime::parse_time(&String::from_utf8_lossy(s))
                .filter(|t| t.hours <= crate::expr::functions::TIME_HOURS_MAX)
                .map(st::Value::Time),
            _ => None,
        },
        // A comparison with a string compares text, which is not the keys' order (by
        // position or bitmask): no key range.
        st::ColumnType::Enum { .. } | st::ColumnType::Set { .. } => None,
    }
}

// ---- access path selection ----

fn first_of<'e>(list: impl IntoIterator<Item = &'e Expr>) -> Option<usize> {
    list.into_iter().find_map(first_column)
}

/// Does the expression read the row, or may it change from row to row (RAND, an
/// assignment of a user variable): then it is no index bound.
pub(crate) fn reads_row(e: &Expr) -> bool {
    first_column(e).is_some() || e.volatile() || crate::expr::assign::assigns(e)
}

/// The first column of the row the expression reads, left to right (what MariaDB names
/// in 1143 when the account may not read it).
pub(crate) fn first_column(e: &Expr) -> Option<usize> {
    match e {
        Expr::Column(i) => Some(*i),
        Expr::Literal(_)
        | Expr::HexLiteral(_)
        | Expr::Param(_)
        | Expr::Outer(_)
        | Expr::SysVar { .. }
        | Expr::UserVar(_) => None,
        Expr::Neg(x) | Expr::Not(x) | Expr::BitNot(x) | Expr::Elements { expr: x, .. } => {
            first_column(x)
        }
        Expr::AssignVar { value, .. } => first_column(value),
        Expr::Arith { left, right, .. }
        | Expr::Cmp { left, right, .. }
        | Expr::Bit { left, right, .. }
        | Expr::And(left, right)
        | Expr::Or(left, right)
        | Expr::Xor(left, right)
        | Expr::Like {
            expr: left,
            pattern: right,
            ..
        }
        | Expr::TrimChars {
            expr: left,
            what: right,
            ..
        } => first_column(left).or_else(|| first_column(right)),
        Expr::IsNull { expr, .. }
        | Expr::IsBool { expr, .. }
        | Expr::Cast { expr, .. }
        | Expr::Collate { expr, .. } => first_column(expr),
        Expr::InSubquery { expr, query, .. } => {
            first_column(expr).or_else(|| query.outer_columns().iter().find_map(|s| s.column()))
        }
        Expr::RowSubquery { row, query, .. } => {
            first_of(row.iter()).or_else(|| query.outer_columns().iter().find_map(|s| s.column()))
        }
        Expr::InList { expr, list, .. } => {
            first_of(std::iter::once(expr.as_ref()).chain(list.iter()))
        }
        Expr::Between {
            expr, low, high, ..
        } => first_of([expr.as_ref(), low.as_ref(), high.as_ref()]),
        Expr::Case {
            operand,
            whens,
            otherwise,
            ..
        } => first_of(
            operand
                .as_deref()
                .into_iter()
                .chain(whens.iter().flat_map(|(a, b)| [a, b]))
                .chain(otherwise.as_deref()),
        ),
        Expr::Call { args, .. } => first_of(args),
        // A correlated subquery reads the columns it runs with.
        Expr::Subquery(query) | Expr::Exists { query, .. } => {
            query.outer_columns().iter().find_map(|s| s.column())
        }
    }
}

#[derive(Default, Clone)]
pub(crate) struct ColumnFacts {
    pub(crate) eq: Option<Expr>,
    pub(crate) in_list: Option<Vec<Expr>>,
    pub(crate) lower: Option<(Expr, bool)>,
    pub(crate) upper: Option<(Expr, bool)>,
    /// From a conjunct that ORs ranges or equalities on this column only.
    pub(crate) ranges: Option<Vec<RangeBounds>>,
}

pub(crate) fn disjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    if let Expr::Or(a, b) = e {
        disjuncts(a, out);
        disjuncts(b, out);
    } else {
        out.push(e);
    }
}

/// When every disjunct of `e` bounds one and the same column by values that do not read
/// the row, that column and one range per disjunct.
pub(crate) fn or_ranges(e: &Expr, def: &st::TableDef) -> Option<(usize, Vec<RangeBounds>)> {
    let mut list = Vec::new();
    disjuncts(e, &mut list);
    let mut column = None;
    let mut ranges = Vec::with_capacity(list.len());
    for d in list {
        let (col, range): (usize, RangeBounds) = match d {
            Expr::Between {
                expr,
                low,
                high,
                negated: false,
                collation,
            } => match expr.as_ref() {
                Expr::Column(i)
                    if !reads_row(low)
                        && !reads_row(high)
                        && index_collation_fits(def, *i, *collation) =>
                {
                    (
                        *i,
                        (
                            Some(((**low).clone(), true)),
                            Some(((**high).clone(), true)),
                        ),
                    )
                }
                _ => return None,
            },
            Expr::Cmp {
                op,
                left,
                right,
                collation,
            } => {
                let (col, value, op) = column_comparison(*op, left, right)?;
                if !index_collation_fits(def, col, *collation) {
                    return None;
                }
                let v = value.clone();
                let range = match op {
                    CmpOp::Eq => (Some((v.clone(), true)), Some((v, true))),
                    CmpOp::Gt => (Some((v, false)), None),
                    CmpOp::GtEq => (Some((v, true)), None),
                    CmpOp::Lt => (None, Some((v, false))),
                    CmpOp::LtEq => (None, Some((v, true))),
                    CmpOp::NotEq | CmpOp::NullSafeEq => return None,
                };
                (col, range)
            }
            _ => return None,
        };
        if column.is_some_and(|c| c != col) {
            return None;
        }
        column = Some(col);
        ranges.push(range);
    }
    Some((column?, ranges))
}

/// `col op value` or `value op col`, where the value reads no row: the column, the value
/// and the operator as seen from the column (`5 < c` is `c > 5`).
fn column_comparison<'a>(
    op: CmpOp,
    left: &'a Expr,
    right: &'a Expr,
) -> Option<(usize, &'a Expr, CmpOp)> {
    match (left, right) {
        (Expr::Column(i), v) if !reads_row(v) => Some((*i, v, op)),
        (v, Expr::Column(i)) if !reads_row(v) => Some((
            *i,
            v,
            match op {
                CmpOp::Lt => CmpOp::Gt,
                CmpOp::LtEq => CmpOp::GtEq,
                CmpOp::Gt => CmpOp::Lt,
                CmpOp::GtEq => CmpOp::LtEq,
                other => other,
            },
        )),
        _ => None,
    }
}

pub(crate) fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    if let Expr::And(a, b) = e {
        conjuncts(a, out);
        conjuncts(b, out);
    } else {
        out.push(e);
    }
}

/// Whether an index key of column `col` of `def` finds what a comparison under
/// `collation` finds: always for a column that is no string (strings compared with it
/// compare as numbers or dates), else when the column's collation is the comparison's.
fn index_collation_fits(def: &st::TableDef, col: usize, collation: Collation) -> bool {
    def.columns.get(col).is_some_and(|c| {
        !matches!(
            c.ty,
            st::ColumnType::Char { .. }
                | st::ColumnType::Varchar { .. }
                | st::ColumnType::Text { .. }
        ) || c.ty.collation() == collation
    })
}

pub(crate) fn collect_facts(filter: &Expr, def: &st::TableDef) -> Vec<ColumnFacts> {
    let mut facts = vec![ColumnFacts::default(); def.columns.len()];
    let mut list = Vec::new();
    conjuncts(filter, &mut list);
    for c in list {
        match c {
            Expr::Cmp {
                op,
                left,
                right,
                collation,
            } => {
                let Some((col, value, op)) = column_comparison(*op, left, right) else {
                    continue;
                };
                if !index_collation_fits(def, col, *collation) {
                    continue;
                }
                let Some(f) = facts.get_mut(col) else {
                    continue;
                };
                match op {
                    CmpOp::Eq => f.eq = Some(value.clone()),
                    CmpOp::Gt => f.lower = Some((value.clone(), false)),
                    CmpOp::GtEq => f.lower = Some((value.clone(), true)),
                    CmpOp::Lt => f.upper = Some((value.clone(), false)),
                    CmpOp::LtEq => f.upper = Some((value.clone(), true)),
                    CmpOp::NotEq | CmpOp::NullSafeEq => {}
                }
            }
            Expr::InList {
                expr,
                list,
                negated: false,
                collation,
                ..
            } => {
                if let Expr::Column(i) = expr.as_ref() {
                    if list.iter().all(|v| !reads_row(v))
                        && index_collation_fits(def, *i, *collation)
                    {
                        if let Some(f) = facts.get_mut(*i) {
                            f.in_list = Some(list.clone());
                        }
                    }
                }
            }
            Expr::Or(..) => {
                if let Some((col, ranges)) = or_ranges(c, def) {
                    if let Some(f) = facts.get_mut(col) {
                        f.ranges = Some(ranges);
                    }
                }
            }
            Expr::Between {
                expr,
                low,
                high,
                negated: false,
                collation,
            } => {
                if let Expr::Column(i) = expr.as_ref() {
                    if !reads_row(low)
                        && !reads_row(high)
                        && index_collation_fits(def, *i, *collation)
                    {
                        if let Some(f) = facts.get_mut(*i) {
                            f.lower = Some(((**low).clone(), true));
                            f.upper = Some(((**high).clone(), true));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    facts
}

/// The indexes [`choose_access`] weighs for a filter (MariaDB's `possible_keys`): those
/// whose first column the filter bounds or equates to values that do not read the row.
pub(crate) fn candidate_indexes(def: &st::TableDef, filter: Option<&Expr>) -> Vec<usize> {
    let Some(filter) = filter else {
        return Vec::new();
    };
    let facts = collect_facts(filter, def);
    let usable = |f: &ColumnFacts| {
        f.eq.is_some()
            || f.in_list.is_some()
            || f.lower.is_some()
            || f.upper.is_some()
            || f.ranges.is_some()
    };
    (0..def.indexes.len())
        .filter(|&n| {
            def.indexes[n]
                .columns
                .first()
                .is_some_and(|&c| usable(&facts[c]))
        })
        .collect()
}

/// Pick the access path for a filter over a table.
pub fn choose_access(def: &st::TableDef, filter: Option<&Expr>) -> Access {
    let Some(filter) = filter else {
        return Access::Full;
    };
    let facts = collect_facts(filter, def);
    let mut best: Option<(u32, Access)> = None;
    for (index_no, ix) in def.indexes.iter().enumerate() {
        let mut eq = Vec::new();
        for &c in &ix.columns {
            match &facts[c].eq {
                Some(v) => eq.push(v.clone()),
                None => break,
            }
        }
        let prefix = eq.len() as u32;
        let (score, tail) = if prefix as usize == ix.columns.len() {
            (
                if ix.is_unique() {
                    1000
                } else {
                    100 + prefix * 10 + 8
                },
                Tail::None,
            )
        } else {
            let next = &facts[ix.columns[prefix as usize]];
            if let Some(list) = &next.in_list {
                (100 + prefix * 10 + 5, Tail::In(list.clone()))
            } else if next.lower.is_some() || next.upper.is_some() {
                (
                    100 + prefix * 10 + 3,
                    Tail::Range {
                        lower: next.lower.clone(),
                        upper: next.upper.clone(),
                    },
                )
            } else if let Some(ranges) = &next.ranges {
                (100 + prefix * 10 + 2, Tail::Ranges(ranges.clone()))
            } else if prefix > 0 {
                (100 + prefix * 10, Tail::None)
            } else {
                continue;
            }
        };
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, Access::Index { index_no, eq, tail }));
        }
    }
    best.map(|(_, a)| a).unwrap_or(Access::Full)
}

/// Choose how a join step finds its rows: an equality in ON between the first column of
/// one of the joined table's indexes and an expression over earlier columns only.
pub fn join_lookup(on: Option<&Expr>, def: &st::TableDef, offset: usize) -> Option<(usize, Expr)> {
    let on = on?;
    let mut list = Vec::new();
    conjuncts(on, &mut list);
    let earlier_only = |e: &Expr| max_column(e).is_none_or(|m| m < offset);
    for c in list {
        let Expr::Cmp {
            op: CmpOp::Eq,
            left,
            right,
            collation,
        } = c
        else {
            continue;
        };
        for (col, other) in [(left, right), (right, left)] {
            let Expr::Column(i) = col.as_ref() else {
                continue;
            };
            if *i < offset || *i >= offset + def.columns.len() || !earlier_only(other) {
                continue;
            }
            let local = *i - offset;
            if !index_collation_fits(def, local, *collation) {
                continue;
            }
            // Prefer a unique single-column index, then any index starting with the column.
            let best = def
                .indexes
                .iter()
                .position(|ix| ix.is_unique() && ix.columns == [local])
                .or_else(|| {
                    def.indexes
                        .iter()
                        .position(|ix| ix.columns.first() == Some(&local))
                });
            if let Some(index_no) = best {
                return Some((index_no, (**other).clone()));
            }
        }
    }
    None
}

/// The highest column position of the enclosing row a subquery reads.
fn outer_max(query: &dyn crate::expr::SubqueryPlan) -> Option<usize> {
    query
        .outer_columns()
        .iter()
        .filter_map(|s| s.column())
        .max()
}

/// The highest column position an expression reads (None: it reads no column).
pub(crate) fn max_column(e: &Expr) -> Option<usize> {
    let mut best: Option<usize> = None;
    let mut note = |x: Option<usize>| {
        if let Some(v) = x {
            best = Some(best.map_or(v, |b: usize| b.max(v)));
        }
    };
    match e {
        Expr::Column(i) => note(Some(*i)),
        Expr::Subquery(query) | Expr::Exists { query, .. } => note(outer_max(query.as_ref())),
        Expr::RowSubquery { row, query, .. } => {
            row.iter().for_each(|x| note(max_column(x)));
            note(outer_max(query.as_ref()));
        }
        Expr::InSubquery { expr, query, .. } => {
            note(max_column(expr));
            note(outer_max(query.as_ref()));
        }
        _ => {
            e.all_operands(|x| {
                note(max_column(x));
                true
            });
        }
    }
    best
}

/// Calls `note` with every column position `e` reads. False when that cannot be known
/// (a subquery may read the outer row).
pub(crate) fn visit_columns(e: &Expr, note: &mut dyn FnMut(usize)) -> bool {
    match e {
        Expr::Column(i) => {
            note(*i);
            true
        }
        Expr::Subquery(_)
        | Expr::Exists { .. }
        | Expr::InSubquery { .. }
        | Expr::RowSubquery { .. } => false,
        _ => e.all_operands(|x| visit_columns(x, note)),
    }
}
