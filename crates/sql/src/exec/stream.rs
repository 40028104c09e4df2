//! A SELECT whose rows go to a [`RowSink`] as its scan or join yields them (see
//! [`crate::row_sink`] for which statements stream and why the others do not).
//!
//! Per row: decode the wanted columns, filter (or join, see [`crate::exec::join`]), skip
//! the OFFSET, evaluate the select list, hand the row to the sink; stop after LIMIT rows.
//! Nothing of a row outlives its turn, so the statement holds one row however large the
//! tables.

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::exec::read::columns_read;
use crate::exec::select::{input_types, limit_value, result_columns};
use crate::exec::spill::collect::item_types;
use crate::expr::eval::SqlValue;
use crate::expr::Env;
use crate::plan::access::visit_columns;
use crate::plan::stored::row_values;
use crate::plan::tables::{Access, OutputItem, TableSelect};
use crate::result::{QueryResult, Rows};
use crate::row_sink::RowSink;
use crate::value::Value;
use myriad_storage::RowScan;
use std::sync::Arc;

/// Whether every row of `plan` is final when its scan or join yields it: nothing that
/// reorders, groups or merges rows afterwards, and no index read (which may start again,
/// and rows sent cannot be taken back). A DISTINCT that streams goes through
/// `exec::distinct`, which drops the repeats first.
pub(crate) fn streams(plan: &TableSelect) -> bool {
    // Made rows (information_schema, derived tables) are in memory already: they are
    // read at once.
    if plan.source.table.made.is_some() || plan.joins.iter().any(|j| j.table.made.is_some()) {
        return false;
    }
    let one_scan = plan.joins.is_empty()
        && plan.post_filter.is_none()
        && matches!(plan.source.access, Access::Full);
    (one_scan || !plan.joins.is_empty())
        && plan.grouping.is_none()
        && plan.windows.funcs.is_empty()
        && plan.order_by.is_empty()
        && !plan.distinct
}

/// Run a plan that [`streams`], sending its columns and rows to `out`. A plain scan may
/// stop early when `out` asks it to ([`RowSink::row_or_pause`]): it then leaves its state
/// in `env.paused`, and [`resume`] goes on from the next row.
pub(crate) fn select(
    plan: &TableSelect,
    env: &mut ExecEnv,
    out: &mut dyn RowSink,
) -> Result<QueryResult, SqlError> {
    let opened = crate::exec::source::Opened::open(&plan.source.table, None, env)?;
    let (types, ncols) = input_types(plan, env);
    let columns = result_columns(plan, &types, ncols, env);
    let mut rows = Sender {
        item_types: item_types(plan, &types, env),
        movable: movable_items(plan, ncols),
        offset: match &plan.offset {
            Some(o) => limit_value(o, env)?,
            None => 0,
        },
        limit: match &plan.limit {
            Some(l) => limit_value(l, env)?,
            None => u64::MAX,
        },
        skipped: 0,
        sent: 0,
        row: Vec::with_capacity(plan.items.len()),
        pausable: false,
    };
    out.begin(&columns)?;
    if rows.limit == 0 {
        return Ok(streamed(columns));
    }
    if !plan.joins.is_empty() {
        crate::exec::join::each_joined_row(plan, &opened, env, &mut |values, env| {
            rows.send(plan, values, env, out)
                .map(|flow| flow == Flow::More)
        })?;
        return Ok(streamed(columns));
    }
    // `streams` leaves made rows out: this is a stored table.
    let table = opened.stored()?.clone();
    let mut scan = table.scan().map_err(storage_error)?;
    // Rows are pulled again after a pause with a plan of the paused statement's own (see
    // `PausedScan`): subquery results, kept by plan address, would not be found.
    rows.pausable = match columns_read(plan) {
        Some(wanted) => {
            scan = scan.project(wanted);
            true
        }
        None => plan.has_no_subquery(),
    };
    let flow = scan_rows(plan, &mut scan, &mut rows, env, out)?;
    if matches!(flow, Flow::Pause | Flow::Yield) {
        env.paused = Some(Box::new(PausedScan {
            plan: Box::new(plan.clone()),
            _table: table,
            scan,
            rows,
            columns: Arc::clone(&columns),
            now_micros: env.now_micros,
            params: env.params.to_vec(),
            previous_warnings: (env.previous_warnings, env.previous_errors),
            deadline: None,
        }));
    }
    Ok(streamed(columns))
}

/// Send the rows of a plain scan from where `scan` stands until the table ends, LIMIT is
/// reached, or the scan pauses: `out` asked for it (the scan then drops the rows it read
/// ahead, to wait with its place only), or the slice of a scan that yields is over (see
/// [`crate::interrupt::yield_instead`]).
fn scan_rows(
    plan: &TableSelect,
    scan: &mut RowScan,
    rows: &mut Sender,
    env: &mut ExecEnv,
    out: &mut dyn RowSink,
) -> Result<Flow, SqlError> {
    let yields = rows.pausable && out.can_pause();
    crate::interrupt::yield_instead(yields);
    let def = &plan.source.table.def;
    let mut read = 0u32;
    loop {
        read = read.wrapping_add(1);
        if yields
            && read.is_multiple_of(crate::interrupt::TICKS_PER_CLOCK_READ)
            && crate::interrupt::slice_over()
        {
            return Ok(Flow::Yield);
        }
        let Some(item) = scan.next() else {
            return Ok(Flow::Done);
        };
        crate::interrupt::tick()?;
        let (_, stored) = item.map_err(storage_error)?;
        let values = row_values(stored, def);
        if let Some(filter) = &plan.source.filter {
            if !filter.holds(env, &values)? {
                continue;
            }
        }
        match rows.send(plan, values, env, out)? {
            Flow::More => {}
            Flow::Pause => {
                scan.release_read_ahead();
                return Ok(Flow::Pause);
            }
            end => return Ok(end),
        }
    }
}

/// A plain scan that stopped because its client was not taking rows, or because its slice
/// was over: everything it needs to go on from the next row, owned, so that no thread
/// waits for the client meanwhile. Waiting for its client, it keeps its place in the
/// table, not the rows it had read ahead.
/// The statement's clock (NOW()), its @@warning_count and its max_statement_time deadline
/// go on too.
pub(crate) struct PausedScan {
    plan: Box<TableSelect>,
    /// Keeps the table open in the table cache while the statement lasts.
    _table: myriad_storage::Table,
    scan: RowScan,
    rows: Sender,
    columns: Arc<Vec<crate::result::Column>>,
    now_micros: i64,
    /// A prepared statement's parameters.
    pub(crate) params: Vec<Value>,
    previous_warnings: (usize, usize),
    /// When max_statement_time ends the statement, set once it paused.
    pub(crate) deadline: Option<std::time::Instant>,
}

impl PausedScan {
    /// The SELECT being run.
    pub(crate) fn plan(&self) -> &TableSelect {
        &self.plan
    }

    /// The statement environment as it was when the scan paused.
    pub(crate) fn restore(&self, env: &mut ExecEnv) {
        env.now_micros = self.now_micros;
        (env.previous_warnings, env.previous_errors) = self.previous_warnings;
    }
}

/// Go on with a paused scan: its columns once it ended (the result then is
/// [`streamed`]), or None when it paused again.
pub(crate) fn resume(
    paused: &mut PausedScan,
    env: &mut ExecEnv,
    out: &mut dyn RowSink,
) -> Result<Option<QueryResult>, SqlError> {
    let PausedScan {
        plan, scan, rows, ..
    } = paused;
    match scan_rows(plan, scan, rows, env, out)? {
        Flow::Pause | Flow::Yield => Ok(None),
        Flow::More | Flow::Done => Ok(Some(streamed(Arc::clone(&paused.columns)))),
    }
}

/// What a streamed SELECT does after a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    /// Go on with the next row.
    More,
    /// LIMIT rows were sent, or the input ended.
    Done,
    /// The sink asked to stop here and go on once the client has read what it was sent.
    Pause,
    /// The statement's slice is over: it goes on after the other ready connections.
    Yield,
}

/// The rows of a streamed SELECT on their way to the sink: OFFSET, LIMIT and the select
/// list.
struct Sender {
    item_types: Vec<crate::expr::eval::SqlType>,
    movable: Vec<bool>,
    offset: u64,
    limit: u64,
    skipped: u64,
    sent: u64,
    /// The result row, built anew in the same buffer each time.
    row: Vec<Value>,
    /// Rows go through [`RowSink::row_or_pause`]: the statement can stop between them.
    pausable: bool,
}

impl Sender {
    /// Skip `values` while OFFSET lasts, else evaluate the select list over it and send
    /// the result row.
    fn send(
        &mut self,
        plan: &TableSelect,
        mut values: Vec<Value>,
        env: &mut dyn Env,
        out: &mut dyn RowSink,
    ) -> Result<Flow, SqlError> {
        if self.skipped < self.offset {
            self.skipped += 1;
            return Ok(Flow::More);
        }
        self.row.clear();
        let shown = plan.items.iter().zip(&self.item_types).zip(&self.movable);
        for ((item, ty), &moved) in shown {
            let d = match item {
                OutputItem::Column { index, .. } if moved => {
                    std::mem::replace(&mut values[*index], Value::Null)
                }
                OutputItem::Column { index, .. } => values[*index].clone(),
                OutputItem::Expr { expr, .. } => expr.eval(env, &values)?,
            };
            self.row.push(d.into_column(*ty, env.warnings()));
        }
        let pause = if self.pausable {
            out.row_or_pause(&self.row)?
        } else {
            out.row(&self.row)?;
            false
        };
        // The row is encoded: its values go now, not at the next row, so that a scan
        // paused on its client does not hold the last row it sent.
        self.row.clear();
        self.sent += 1;
        Ok(if self.sent >= self.limit {
            Flow::Done
        } else if pause {
            Flow::Pause
        } else {
            Flow::More
        })
    }
}

pub(crate) fn streamed(columns: Arc<Vec<crate::result::Column>>) -> QueryResult {
    QueryResult::Rows {
        columns,
        rows: Arc::new(Rows::streamed()),
        warnings: 0,
    }
}

/// For each select-list item, whether it is a column shown as it is and read by nothing
/// else in the list: its value can be moved out of the row instead of cloned. `width` is
/// the row's length (columns, then aggregates).
// Inline: called once per statement on the point-select path.
#[inline(always)]
pub(crate) fn movable_items(plan: &TableSelect, width: usize) -> Vec<bool> {
    let mut uses = vec![0u32; width];
    let mut countable = true;
    for item in &plan.items {
        match item {
            OutputItem::Column { index, .. } => {
                if let Some(u) = uses.get_mut(*index) {
                    *u += 1;
                }
            }
            OutputItem::Expr { expr, .. } => {
                countable &= visit_columns(expr, &mut |c| {
                    if let Some(u) = uses.get_mut(c) {
                        *u += 1;
                    }
                });
            }
        }
    }
    plan.items
        .iter()
        .map(|item| {
            countable
                && matches!(item, OutputItem::Column { index, .. }
                    if uses.get(*index) == Some(&1))
        })
        .collect()
}
