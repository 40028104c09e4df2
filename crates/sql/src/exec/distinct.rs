//! SELECT DISTINCT: one row per set of equal result rows, the first met of each, in the
//! order met, as MariaDB answers.
//!
//! Rows are equal as GROUP BY finds keys equal, column by column of the result: strings by
//! the column's collation (case, the general collation's accents and trailing spaces
//! ignored; a binary string byte by byte), numbers by value (1 and 1.00 are one), NULL
//! equal to NULL. A row becomes its canonical key (`row_key`), and the keys go through
//! [`Distinct`], which keeps the first row of each key while the keys seen fit
//! min(tmp_table_size, max_heap_table_size) and sorts the later rows on disk past it.
//!
//! Where rows are made distinct depends on the rest of the SELECT:
//! - without ORDER BY or grouping, over a full scan or a join (`streams`): each new row
//!   goes to the client as soon as it is read, OFFSET and LIMIT count distinct rows, and
//!   the read stops at LIMIT (`select_streamed`);
//! - otherwise without grouping: as the rows are read, before the ORDER BY sort or the
//!   rows gathered in arrival order (`collect`); each row kept carries its ORDER BY keys
//!   and its arrival number, so ties keep the order met and the sort may keep only
//!   OFFSET + LIMIT rows;
//! - with GROUP BY or aggregates: over the grouped rows as they leave the grouping, in the
//!   order the client gets them (`grouped`).

use crate::error::SqlError;
use crate::exec::aggregate::group_key_text;
use crate::exec::env::ExecEnv;
use crate::exec::select::{input_types, offset_limit, result_columns};
use crate::exec::spill::codec::{put_varint, SpillRow};
use crate::exec::spill::collect::{Collector, RowShape};
use crate::exec::spill::distinct::{Distinct, Spilled};
use crate::exec::stream::streamed;
use crate::expr::Expr;
use crate::plan::tables::{Access, OutputItem, TableSelect};
use crate::result::{Column, QueryResult, Rows};
use crate::row_sink::RowSink;
use crate::value::Value;
use myriad_types::Collation;
use std::cell::RefCell;
use std::sync::Arc;

/// For each result column, the collation its strings compare under (see
/// [`crate::expr::collation`]).
pub(crate) fn item_collations(plan: &TableSelect) -> Vec<Collation> {
    plan.items
        .iter()
        .map(|item| match item {
            OutputItem::Column { index, .. } => Expr::Column(*index),
            OutputItem::Expr { expr, .. } => expr.clone(),
        })
        .map(|e| e.collation(&plan.collations).collation)
        .collect()
}

/// The bytes that make two result rows one under DISTINCT: per column, GROUP BY's key
/// text ([`group_key_text`]) under the column's collation, each part length-prefixed so
/// that parts cannot run into each other.
pub(crate) fn row_key(row: &[Value], collations: &[Collation]) -> Vec<u8> {
    let size: usize = row
        .iter()
        .map(|d| match d {
            Value::Bytes(b) => b.len() + 2,
            _ => 8,
        })
        .sum();
    let mut key = Vec::with_capacity(size);
    for (d, &collation) in row.iter().zip(collations) {
        match d {
            // ASCII text, folded here as group_key_text folds it without its
            // allocations: the common case, once per row.
            Value::Bytes(b) if b.is_ascii() => {
                let end = match collation {
                    Collation::Binary => b.len(),
                    _ => b.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1),
                };
                put_varint(&mut key, end as u64 + 1);
                key.push(b's');
                if collation == Collation::Utf8mb4GeneralCi {
                    key.extend(b[..end].iter().map(u8::to_ascii_uppercase));
                } else {
                    key.extend_from_slice(&b[..end]);
                }
            }
            _ => {
                let text = group_key_text(d, collation);
                put_varint(&mut key, text.len() as u64);
                key.extend_from_slice(&text);
            }
        }
    }
    key
}

/// Whether `plan` is a DISTINCT whose rows are final once made distinct: no ORDER BY or
/// grouping after it, and a read that never starts again (a full scan or a join; an
/// index read may start again, and rows sent cannot be taken back).
pub(crate) fn streams(plan: &TableSelect) -> bool {
    plan.distinct
        && plan.grouping.is_none()
        && plan.windows.funcs.is_empty()
        && plan.order_by.is_empty()
        && (!plan.joins.is_empty() || matches!(plan.source.access, Access::Full))
}

/// Run a plan that [`streams`], sending each distinct row to `out` as it is read.
pub(crate) fn select_streamed(
    plan: &TableSelect,
    env: &mut ExecEnv,
    out: &mut dyn RowSink,
) -> Result<QueryResult, SqlError> {
    let (types, ncols) = input_types(plan, env);
    let shape = RowShape::new(plan, &types, env);
    let columns = result_columns(plan, &types, ncols, env);
    let collations = item_collations(plan);
    let (offset, limit) = offset_limit(plan, env)?;
    let table =
        crate::exec::source::Opened::open(&plan.source.table, plan.source.filter.as_ref(), env)?;
    out.begin(&columns)?;
    env.spill.tmp_tables += 1;
    if limit == 0 {
        return Ok(streamed(columns));
    }
    let mut to = Sending::new(offset, limit, Some(out));
    let distinct = RefCell::new(Distinct::new(env.spill_config()));
    crate::exec::join::every_input_row(
        plan,
        &table,
        env,
        &mut |_, mut values, env| {
            let (_, row) = shape.shape(&mut values, None, env)?;
            let key = row_key(&row, &collations);
            match distinct.borrow_mut().push(key, row)? {
                Some((_, row)) => to.send(row),
                None => Ok(true),
            }
        },
        // A full scan and a join never start again (see `streams`).
        &mut || {},
    )?;
    let done = to.done();
    finish(distinct.into_inner(), done, env, &mut |_, row| to.send(row))?;
    Ok(streamed(columns))
}

/// Every row of a SELECT without grouping, read (or joined), made distinct and handed to
/// `out` (its sort or list) with its ORDER BY keys and arrival number.
pub(crate) fn collect(
    plan: &TableSelect,
    table: &crate::exec::source::Opened,
    shape: &RowShape,
    collations: &[Collation],
    out: &mut Collector<'_>,
    env: &mut ExecEnv,
) -> Result<(), SqlError> {
    let state = RefCell::new((Distinct::new(env.spill_config()), out));
    crate::exec::join::every_input_row(
        plan,
        table,
        env,
        &mut |_, mut values, env| {
            let (keys, row) = shape.shape(&mut values, None, env)?;
            let key = row_key(&row, collations);
            let (distinct, out) = &mut *state.borrow_mut();
            if let Some((seq, (keys, row))) = distinct.push(key, (keys, row))? {
                out.push(keys, Some(seq), row)?;
            }
            Ok(true)
        },
        // An index read that starts again: what was kept so far is forgotten.
        &mut || {
            let (distinct, out) = &mut *state.borrow_mut();
            distinct.reset();
            out.reset();
        },
    )?;
    let (distinct, out) = state.into_inner();
    finish(distinct, false, env, &mut |seq, (keys, row)| {
        out.push(keys, Some(seq), row)?;
        Ok(true)
    })
}

/// DISTINCT over a grouping's rows as they leave `out` (in the order the client gets
/// them), then OFFSET and LIMIT; the rows go to `sink` when given, else into the result.
/// None when the grouping's sort has to start again (see [`Collector::finish`]).
pub(crate) fn grouped<'e>(
    out: Collector<'_>,
    env: &mut ExecEnv<'e>,
    (range, offset, limit): (bool, usize, usize),
    (columns, collations): (Arc<Vec<Column>>, Vec<Collation>),
    mut sink: Option<&mut (dyn RowSink + 'e)>,
) -> Result<Option<QueryResult>, SqlError> {
    let Some(rows) = out.rows(&mut env.spill, range)? else {
        return Ok(None);
    };
    env.spill.tmp_tables += 1;
    let streaming = sink.is_some();
    if let Some(sink) = sink.as_deref_mut() {
        sink.begin(&columns)?;
    }
    let mut to = Sending::new(offset, limit, sink.map(|s| s as &mut dyn RowSink));
    let mut distinct = Distinct::new(env.spill_config());
    if !to.done() {
        for row in rows {
            crate::interrupt::tick()?;
            let row = row?;
            let key = row_key(&row, &collations);
            if let Some((_, row)) = distinct.push(key, row)? {
                if !to.send(row)? {
                    break;
                }
            }
        }
    }
    let done = to.done();
    finish(distinct, done, env, &mut |_, row| to.send(row))?;
    Ok(Some(match streaming {
        true => streamed(columns),
        false => QueryResult::Rows {
            columns,
            rows: Rows::shared(to.rows),
            warnings: 0,
        },
    }))
}

/// Where distinct rows go: OFFSET skips the first ones, LIMIT ends the result, and each
/// row left goes to the client's sink, else into the result's rows.
struct Sending<'o> {
    skip: usize,
    left: usize,
    sink: Option<&'o mut dyn RowSink>,
    rows: Vec<Vec<Value>>,
}

impl<'o> Sending<'o> {
    fn new(offset: usize, limit: usize, sink: Option<&'o mut dyn RowSink>) -> Sending<'o> {
        Sending {
            skip: offset,
            left: limit,
            sink,
            rows: Vec::new(),
        }
    }

    /// Take one distinct row; false once LIMIT rows were taken.
    fn send(&mut self, row: Vec<Value>) -> Result<bool, SqlError> {
        if self.left == 0 {
            return Ok(false);
        }
        if self.skip > 0 {
            self.skip -= 1;
            return Ok(true);
        }
        match self.sink.as_mut() {
            Some(sink) => sink.row(&row)?,
            None => self.rows.push(row),
        }
        self.left -= 1;
        Ok(self.left > 0)
    }

    fn done(&self) -> bool {
        self.left == 0
    }
}

/// Hand the rows `distinct` held back past its budget to `each`, unless the result is
/// `done` (their files then close unread), and count the spill in the statement's
/// counters: a grouping that went to disk, and the sorts' files (not a sort the client
/// asked for, so not Sort_scan).
fn finish<P: SpillRow>(
    distinct: Distinct<'_, P>,
    done: bool,
    env: &mut ExecEnv,
    each: &mut dyn FnMut(u64, P) -> Result<bool, SqlError>,
) -> Result<(), SqlError> {
    let Spilled { stats, spilled } = match done {
        true => distinct.abandon(),
        false => distinct.finish(each)?,
    };
    if spilled {
        env.spill.tmp_disk_tables += 1;
    }
    env.spill.sort.tmp_files += stats.tmp_files;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval::SqlValue;
    use myriad_types::Decimal;
    use proptest::prelude::*;

    /// The key as GROUP BY's key text of every column gives it.
    fn reference_key(row: &[Value], collations: &[Collation]) -> Vec<u8> {
        let mut key = Vec::new();
        for (d, &collation) in row.iter().zip(collations) {
            let text = group_key_text(d, collation);
            put_varint(&mut key, text.len() as u64);
            key.extend_from_slice(&text);
        }
        key
    }

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            (-3i64..3).prop_map(Value::Int),
            (0u64..3).prop_map(Value::UInt),
            (-30i64..30)
                .prop_map(|m| Value::Decimal(Decimal::from_i128_scaled(i128::from(m), 1).unwrap())),
            prop::sample::select(vec![
                "a", "A", "a ", "A  ", "", " ", "b\t", "é", "É ", "1", "n1"
            ])
            .prop_map(Value::text),
        ]
    }

    #[test]
    fn rows_equal_under_the_collation_share_a_key() {
        let text = [Collation::Utf8mb4GeneralCi; 2];
        let key = |a: &str, b: Value| row_key(&[Value::text(a), b], &text);
        assert_eq!(key("a", Value::Int(1)), key("A  ", Value::Int(1)));
        assert_eq!(key("é", Value::Int(1)), key("É", Value::Int(1)));
        let one = Value::Decimal(Decimal::from_i128_scaled(100, 2).unwrap());
        assert_eq!(key("a", Value::Int(1)), key("a", one));
        assert_eq!(key("a", Value::Null), key("A", Value::Null));
        assert_ne!(key("a", Value::Null), key("a", Value::Int(0)));
        assert_ne!(key("a", Value::Null), key("a", Value::text("")));
        assert_ne!(key("a b", Value::Null), key("ab", Value::Null));
        // Parts cannot run into each other.
        assert_ne!(
            row_key(&[Value::text("ab"), Value::text("c")], &text),
            row_key(&[Value::text("a"), Value::text("bc")], &text)
        );
        let bytes = [Collation::Binary];
        let key = |a: &str| row_key(&[Value::text(a)], &bytes);
        assert_ne!(key("a"), key("A"));
        assert_ne!(key("a"), key("a "));
        assert_eq!(key("a"), key("a"));
        let bin = [Collation::Utf8mb4Bin];
        let key = |a: &str| row_key(&[Value::text(a)], &bin);
        assert_ne!(key("a"), key("A"));
        assert_eq!(key("a"), key("a "));
    }

    proptest! {
        /// The ASCII fast path gives the key GROUP BY's key text gives.
        #[test]
        fn the_key_is_group_by_s_key_text(
            row in proptest::collection::vec(value(), 0..4),
            collations in proptest::collection::vec(
                prop_oneof![
                    Just(Collation::Utf8mb4GeneralCi),
                    Just(Collation::Utf8mb4Bin),
                    Just(Collation::Binary),
                ],
                4,
            ),
        ) {
            prop_assert_eq!(row_key(&row, &collations), reference_key(&row, &collations));
        }
    }
}
