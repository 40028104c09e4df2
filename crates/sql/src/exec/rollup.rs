//! GROUP BY ... WITH ROLLUP: each group's row, and after the last group of each prefix of
//! the grouping columns a super-aggregate row over the whole prefix, its rolled-up columns
//! NULL; the grand total last.
//!
//! MariaDB computes it from rows sorted by the grouping columns, and so does this: every
//! input row goes through the budgeted sort ([`ExternalSort`], spilling past
//! `sort_buffer_size`), by the grouping keys ascending (NULL first) under their collations,
//! ties in arrival order. The sorted stream then passes once: a running state per
//! aggregate for the current group and for each of its prefixes (`levels[j]` aggregates
//! the rows sharing the first `j` keys, `levels[n]` is the group). When the key at
//! position `d` changes, the group's row and the super rows of prefixes longer than `d`
//! are emitted, deepest first, and their states start again.
//!
//! Memory: the sort's budget, plus (n + 1) running states per aggregate; never a group's
//! rows. A COUNT(DISTINCT) or GROUP_CONCAT state holds its distinct values or texts, as
//! MariaDB's does.
//!
//! A super row shows, outside the rolled-up keys and the aggregates, the first row of the
//! last group of its prefix (MariaDB shows that group's values). A rolled-up key that is a
//! column is NULL in the row, so every expression over it sees NULL; one that is another
//! expression makes NULL the select items that are that same expression (as MariaDB
//! replaces them). A key repeated in GROUP BY, and HAVING over a key that is not a
//! column, answer 1235. The result is not reordered: MariaDB refuses ORDER BY with ROLLUP
//! (error 1221), and LIMIT counts the super rows.

use crate::error::SqlError;
use crate::exec::accumulate::{each_grouped_row, Running};
use crate::exec::aggregate::group_key_text;
use crate::exec::env::ExecEnv;
use crate::exec::spill::collect::{Collector, RowShape};
use crate::exec::spill::sort::{ExternalSort, Outcome};
use crate::exec::spill::SpillConfig;
use crate::expr::eval::SqlType;
use crate::expr::Expr;
use crate::plan::tables::{Grouping, OutputItem, TableSelect};
use crate::result::{column_flags, Column};
use crate::value::Value;
use myriad_types::errors::ER_UNKNOWN_ERROR;
use std::sync::Arc;

/// The input row position of each grouping key that is a column.
fn key_columns(g: &Grouping) -> Vec<Option<usize>> {
    g.keys.iter().map(Expr::grouped_column).collect()
}

/// For each select item, the first grouping key it is (the same compiled expression, or
/// the column a column key names); None for the others.
fn item_keys(plan: &TableSelect, g: &Grouping) -> Vec<Option<usize>> {
    let keys: Vec<String> = g
        .keys
        .iter()
        .map(|k| match k.grouped_column() {
            Some(c) => format!("{:?}", Expr::Column(c)),
            None => format!("{k:?}"),
        })
        .collect();
    plan.items
        .iter()
        .map(|item| {
            let shown = match item {
                OutputItem::Column { index, .. } => format!("{:?}", Expr::Column(*index)),
                OutputItem::Expr { expr, .. } => format!("{expr:?}"),
            };
            keys.iter().position(|k| *k == shown)
        })
        .collect()
}

/// The result's columns with the items that are grouping keys shown as nullable: a super
/// row holds NULL there.
pub(crate) fn nullable_keys(plan: &TableSelect, columns: Arc<Vec<Column>>) -> Arc<Vec<Column>> {
    let Some(g) = plan.grouping.as_ref() else {
        return columns;
    };
    let mut columns = Arc::unwrap_or_clone(columns);
    for (key, column) in item_keys(plan, g).iter().zip(columns.iter_mut()) {
        if key.is_some() {
            column.flags &= !column_flags::NOT_NULL;
        }
    }
    Arc::new(columns)
}

/// The running states of the group and of its prefixes, and the rows that shape them.
struct Rollup<'a> {
    g: &'a Grouping,
    types: &'a [SqlType],
    /// Each key's column in the input row, when it is one.
    columns: Vec<Option<usize>>,
    /// Each select item's key (see [`item_keys`]).
    items: Vec<Option<usize>>,
    /// `levels[j]`: one state per aggregate over the rows sharing the first j keys.
    levels: Vec<Vec<Running>>,
    /// The current group's canonical key parts, key values and first row.
    current: Option<Current>,
}

/// The group being read.
struct Current {
    parts: Vec<Vec<u8>>,
    keys: Vec<Value>,
    first: Vec<Value>,
}

/// One row of a level: its first row with the rolled-up key columns NULL, then the
/// aggregates; the lowest rolled-up key (the key count for a group); the group's keys.
struct LevelRow<'r> {
    row: Vec<Value>,
    lowest: usize,
    keys: &'r [Value],
}

/// Where the rows of the levels go.
type Emit<'e> = dyn FnMut(LevelRow, &mut ExecEnv) -> Result<(), SqlError> + 'e;

impl Rollup<'_> {
    /// Take the next row of the sorted stream, emitting what the change of key closes.
    fn push(
        &mut self,
        (keys, row): (Vec<Value>, Vec<Value>),
        env: &mut ExecEnv,
        emit: &mut Emit,
    ) -> Result<(), SqlError> {
        let parts: Vec<Vec<u8>> = keys
            .iter()
            .zip(&self.g.key_collations)
            .map(|(k, &collation)| group_key_text(k, collation))
            .collect();
        let changed = self.current.as_ref().map(|current| {
            current
                .parts
                .iter()
                .zip(&parts)
                .position(|(a, b)| a != b)
                .unwrap_or(parts.len())
        });
        match changed {
            Some(d) if d == parts.len() => {}
            Some(d) => {
                self.close_down_to(d + 1, env, emit)?;
                self.current = Some(Current {
                    parts,
                    keys,
                    first: row.clone(),
                });
            }
            None => {
                self.current = Some(Current {
                    parts,
                    keys,
                    first: row.clone(),
                })
            }
        }
        for level in &mut self.levels {
            for (running, agg) in level.iter_mut().zip(&self.g.aggregates) {
                running.add(agg, &row, env)?;
            }
        }
        Ok(())
    }

    /// Emit the rows of levels n down to `lowest` (the group's, then its prefixes'), and
    /// start their states again.
    fn close_down_to(
        &mut self,
        lowest: usize,
        env: &mut ExecEnv,
        emit: &mut Emit,
    ) -> Result<(), SqlError> {
        let Some(current) = self.current.take() else {
            return Ok(());
        };
        let first = &current.first;
        for level in (lowest..self.levels.len()).rev() {
            let fresh = Running::fresh(self.g, self.types, env);
            let states = std::mem::replace(&mut self.levels[level], fresh);
            let mut row = first.clone();
            for &c in self.columns[level..].iter().flatten() {
                row[c] = Value::Null;
            }
            for (running, agg) in states.into_iter().zip(&self.g.aggregates) {
                row.push(running.finish(agg, env)?);
            }
            if self.g.keeps(env, &row)? {
                let keys = &current.keys;
                emit(
                    LevelRow {
                        row,
                        lowest: level,
                        keys,
                    },
                    env,
                )?;
            }
        }
        Ok(())
    }
}

/// GROUP BY ... WITH ROLLUP over `plan`'s rows (see the module doc): each result row goes
/// into `out` in MariaDB's order. `types`: the input row's column types.
#[allow(clippy::too_many_arguments)]
pub(crate) fn group_rollup<'d>(
    plan: &TableSelect,
    g: &Grouping,
    table: &crate::exec::source::Opened,
    types: &[SqlType],
    shape: &RowShape,
    spill: &'d SpillConfig,
    mut out: Collector<'d>,
    env: &mut ExecEnv,
) -> Result<Collector<'d>, SqlError> {
    let shown: Vec<String> = g.keys.iter().map(|k| format!("{k:?}")).collect();
    if (1..shown.len()).any(|i| shown[..i].contains(&shown[i])) {
        // MariaDB rolls up the repeat alone (the select item it names); not built.
        return Err(SqlError::not_supported(
            "WITH ROLLUP with a grouping key repeated",
        ));
    }
    // HAVING sees the row, not the select items: a rolled-up key that is an expression
    // would not read NULL there.
    let having = g
        .having
        .as_ref()
        .map(|h| format!("{h:?}"))
        .unwrap_or_default();
    let expression_in_having = g
        .keys
        .iter()
        .zip(&shown)
        .any(|(k, text)| k.grouped_column().is_none() && having.contains(text.as_str()));
    if expression_in_having {
        return Err(SqlError::not_supported(
            "HAVING over a grouping expression with WITH ROLLUP",
        ));
    }
    let nkeys = g.keys.len();
    let order = (vec![false; nkeys], &g.key_collations[..]);
    type Payload = (Vec<Value>, Vec<Value>);
    let sort = std::cell::RefCell::new(ExternalSort::<Payload>::new(
        order,
        spill.sort_bytes,
        None,
        &spill.dir,
    ));
    each_grouped_row(
        (plan, g, table),
        env,
        &mut |(_, key_values), values, _| {
            sort.borrow_mut()
                .push(key_values.clone(), (key_values, values))?;
            Ok(true)
        },
        &mut || sort.borrow_mut().reset(),
    )?;
    let (outcome, stats) = sort.into_inner().finish()?;
    let Outcome::Sorted(rows) = outcome else {
        return Err(SqlError::new(
            ER_UNKNOWN_ERROR,
            "Internal error in WITH ROLLUP: a sort without a limit restarted",
        ));
    };
    let mut rollup = Rollup {
        g,
        types,
        levels: (0..=nkeys).map(|_| Running::fresh(g, types, env)).collect(),
        columns: key_columns(g),
        items: item_keys(plan, g),
        current: None,
    };
    let items = rollup.items.clone();
    // An item that is a key shows the group's key value when the key is kept (computed
    // before rolled-up columns were made NULL), NULL when it is rolled up.
    let emit = &mut |level: LevelRow, env: &mut ExecEnv| {
        let mut row = level.row;
        let (keys, mut shaped) = shape.shape(&mut row, None, env)?;
        for (value, key) in shaped.iter_mut().zip(&items) {
            match key {
                Some(k) if *k >= level.lowest => *value = Value::Null,
                Some(k) if level.lowest < nkeys => *value = level.keys[*k].clone(),
                _ => {}
            }
        }
        out.push(keys, None, shaped)
    };
    for row in rows {
        crate::interrupt::tick()?;
        let (_, payload) = row?;
        rollup.push(payload, env, emit)?;
    }
    // No rows, no grand total (MariaDB answers an empty set).
    rollup.close_down_to(0, env, emit)?;
    env.spill.tmp_tables += 1;
    if stats.tmp_files > 0 {
        env.spill.tmp_disk_tables += 1;
    }
    env.spill.add_sort(stats, plan.reads_index_range());
    Ok(out)
}
