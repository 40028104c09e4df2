//! Where a SELECT's result rows gather before they are returned: as they come when
//! nothing orders them, else through the budgeted sort (see [`super::sort`]), which keeps
//! only the first OFFSET + LIMIT rows when a limit applies.

use super::sort::{ExternalSort, Outcome};
use super::{SpillConfig, SpillCounters};
use crate::error::SqlError;
use crate::eval::Datum;
use crate::value::Value;

pub enum Collector<'d> {
    Plain(Vec<Vec<Value>>),
    Sorted(Box<ExternalSort<'d, Vec<Value>>>),
}

impl<'d> Collector<'d> {
    /// Rows ordered by keys (`desc` per key) when `desc` is given; `wanted`: only the
    /// first rows are needed.
    pub fn new(
        desc: Option<Vec<bool>>,
        wanted: Option<usize>,
        config: &'d SpillConfig,
    ) -> Collector<'d> {
        match desc {
            None => Collector::Plain(Vec::new()),
            Some(desc) => Collector::Sorted(Box::new(ExternalSort::new(
                desc,
                config.sort_bytes,
                wanted,
                &config.dir,
            ))),
        }
    }

    pub fn push(&mut self, keys: Vec<Datum>, row: Vec<Value>) -> Result<(), SqlError> {
        match self {
            Collector::Plain(rows) => {
                rows.push(row);
                Ok(())
            }
            Collector::Sorted(sort) => sort.push(keys, row),
        }
    }

    /// The rows in order; None when a limit dropped rows whose order then changed (the
    /// statement runs again without the limit, see [`Outcome::Restart`]). `range`: the
    /// rows came from an index range (Sort_range), not a scan (Sort_scan).
    pub fn finish(
        self,
        counters: &mut SpillCounters,
        range: bool,
    ) -> Result<Option<Vec<Vec<Value>>>, SqlError> {
        let sort = match self {
            Collector::Plain(rows) => return Ok(Some(rows)),
            Collector::Sorted(sort) => sort,
        };
        let (outcome, stats) = (*sort).finish()?;
        counters.add_sort(stats, range);
        match outcome {
            Outcome::Restart => Ok(None),
            Outcome::Sorted(rows) => {
                let mut out = Vec::new();
                for row in rows {
                    out.push(row?.1);
                }
                Ok(Some(out))
            }
        }
    }
}
