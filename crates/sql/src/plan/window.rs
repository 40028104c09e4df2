//! Window functions of a table SELECT, as compiled: each function with its window (the
//! PARTITION BY and ORDER BY it sorts by, shared by functions with the same window) and its
//! frame. Their values are computed after WHERE, GROUP BY and HAVING, over the rows those
//! leave, and become columns `__winN` after the tables' and the aggregates' columns; the
//! select list and ORDER BY read them there (see `exec::window`).

use crate::expr::eval::SqlType;
use crate::expr::Expr;
use crate::plan::tables::Aggregate;
use myriad_storage as st;

/// PARTITION BY and ORDER BY of one or more window functions.
#[derive(Debug, Clone)]
pub struct Window {
    /// PARTITION BY, each with the collation its strings compare under.
    pub partition: Vec<(Expr, st::Collation)>,
    /// ORDER BY, each with whether it is DESC and its collation.
    pub order: Vec<(Expr, bool, st::Collation)>,
}

/// One end of a frame. `Preceding(0)` and `Following(0)` mean the current row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    UnboundedPreceding,
    Preceding(u64),
    /// The current row; under RANGE, with its peers (rows with equal ORDER BY values).
    CurrentRow,
    Following(u64),
    UnboundedFollowing,
}

/// A frame: ROWS counts rows, RANGE counts peers (RANGE with offsets is not built).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub rows: bool,
    pub start: Bound,
    pub end: Bound,
}

impl Frame {
    /// MariaDB's default frame: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, which
    /// is the whole partition when the window has no ORDER BY (every row is a peer).
    pub const DEFAULT: Frame = Frame {
        rows: false,
        start: Bound::UnboundedPreceding,
        end: Bound::CurrentRow,
    };
}

/// What a window function computes.
#[derive(Debug, Clone)]
pub enum WindowKind {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    /// NTILE(n): `n` is evaluated over the partition's first row.
    Ntile(Expr),
    /// LAG (`lead` false) or LEAD: the value `offset` rows before or after.
    Shift {
        arg: Expr,
        offset: Expr,
        lead: bool,
    },
    FirstValue(Expr),
    LastValue(Expr),
    /// NTH_VALUE(arg, n): the frame's n-th row's value.
    NthValue(Expr, Expr),
    /// COUNT, SUM, AVG, MIN or MAX over the frame.
    Aggregate(Aggregate),
}

/// One window function: its kind, its window (an index into [`Windows::windows`]) and
/// frame.
#[derive(Debug, Clone)]
pub struct WindowFunc {
    pub kind: WindowKind,
    pub window: usize,
    pub frame: Frame,
}

/// Every window function of a select, and the windows they sort by, in the order
/// computed (the functions of window 0 first).
#[derive(Debug, Clone, Default)]
pub struct Windows {
    pub windows: Vec<Window>,
    pub funcs: Vec<WindowFunc>,
}

impl Windows {
    /// Every expression the window step reads from its input row: the windows' keys and
    /// the functions' arguments.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        let keys = self.windows.iter().flat_map(|w| {
            w.partition
                .iter()
                .map(|(e, _)| e)
                .chain(w.order.iter().map(|(e, _, _)| e))
        });
        keys.chain(self.funcs.iter().flat_map(|f| f.args()))
    }
}

impl WindowFunc {
    /// The function's arguments.
    pub fn args(&self) -> Vec<&Expr> {
        match &self.kind {
            WindowKind::RowNumber
            | WindowKind::Rank
            | WindowKind::DenseRank
            | WindowKind::PercentRank
            | WindowKind::CumeDist => Vec::new(),
            WindowKind::Ntile(e) | WindowKind::FirstValue(e) | WindowKind::LastValue(e) => {
                vec![e]
            }
            WindowKind::Shift { arg, offset, .. } => vec![arg, offset],
            WindowKind::NthValue(a, b) => vec![a, b],
            WindowKind::Aggregate(a) => a.exprs().collect(),
        }
    }

    /// The value's type, over an input row of `types`.
    pub fn sql_type(&self, types: &[SqlType], env: &dyn crate::expr::Env) -> SqlType {
        const BIGINT: SqlType = SqlType::Int {
            unsigned: false,
            len: 21,
        };
        match &self.kind {
            WindowKind::RowNumber
            | WindowKind::Rank
            | WindowKind::DenseRank
            | WindowKind::Ntile(_) => BIGINT,
            WindowKind::PercentRank | WindowKind::CumeDist => SqlType::Double,
            WindowKind::Shift { arg, .. }
            | WindowKind::FirstValue(arg)
            | WindowKind::LastValue(arg)
            | WindowKind::NthValue(arg, _) => arg.sql_type(env, types),
            WindowKind::Aggregate(a) => a.sql_type(types, env),
        }
    }

    /// The argument whose value the function returns, if it returns one of them.
    pub fn value_arg(&self) -> Option<&Expr> {
        match &self.kind {
            WindowKind::Shift { arg, .. }
            | WindowKind::FirstValue(arg)
            | WindowKind::LastValue(arg)
            | WindowKind::NthValue(arg, _) => Some(arg),
            WindowKind::Aggregate(a) => a.arg.as_ref(),
            _ => None,
        }
    }
}
