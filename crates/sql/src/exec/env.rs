//! The evaluation environment of a running statement: parameters, variables, the clock,
//! warnings and subqueries, as [`crate::expr::Env`] asks for them.

use crate::error::SqlError;
use crate::exec::select::*;
use crate::expr::eval::Warning;
use crate::expr::Env;
use crate::expr::SubqueryPlan;
use crate::expr::VarScope;
use crate::plan::Stmt;
use crate::result::QueryResult;
use crate::session::*;
use crate::value::Value;
use crate::{Engine, Session};
use std::collections::HashMap;

/// The evaluation environment of one statement.
pub(crate) struct ExecEnv<'a> {
    pub(crate) engine: &'a Engine,
    pub(crate) info: &'a crate::SessionInfo,
    pub(crate) state: &'a SessionState,
    pub(crate) params: &'a [Value],
    pub(crate) warnings: Vec<Warning>,
    /// Warnings of the previous statement (@@warning_count reads it).
    pub(crate) previous_warnings: usize,
    pub(crate) previous_errors: usize,
    pub(crate) now_micros: i64,
    /// Results of subqueries, by plan address: an uncorrelated one runs once per
    /// statement; a correlated one keeps its last outer values and rows, and runs again
    /// when its outer values change.
    pub(crate) subquery_results: HashMap<usize, (Vec<Value>, Vec<Vec<Value>>)>,
    /// The generators of the statement's RAND(N) calls with a constant N, by call address
    /// (see `expr::functions::rand`).
    pub(crate) rand_streams: HashMap<usize, crate::expr::functions::rand::RandState>,
    /// The outer values of the correlated subqueries running now, innermost last.
    pub(crate) outer_frames: Vec<Vec<Value>>,
    /// Rows GROUP_CONCAT has joined so far in the statement, over all its groups: the
    /// count warning 1260 names a cut row by, as MariaDB counts.
    pub(crate) concat_rows: u64,
    /// What the statement's sorts and groupings did (status counters).
    pub(crate) spill: crate::exec::spill::SpillCounters,
    /// Where the statement's rows go as they are produced ([`crate::row_sink`]): set for
    /// a top-level SELECT over tables, taken by it before anything else can run.
    pub(crate) out: Option<&'a mut dyn crate::RowSink>,
    /// A streamed scan that stopped for its client ([`crate::exec::stream::PausedScan`]).
    pub(crate) paused: Option<Box<crate::exec::stream::PausedScan>>,
}

impl<'a> ExecEnv<'a> {
    /// The budgets and directory of this statement's sorts, groupings and joins: the
    /// session's, read when its variables last changed.
    pub(crate) fn spill_config(&self) -> &'a crate::exec::spill::SpillConfig {
        &self.state.spill
    }

    /// The environment of a query run inside this statement (a derived table's), its
    /// rows going to `out`: the same session, parameters and clock; the warnings, the
    /// subquery results and the sort counters move to it until [`ExecEnv::absorb`].
    pub(crate) fn nested<'b>(&mut self, out: &'b mut (dyn crate::RowSink + 'b)) -> ExecEnv<'b>
    where
        'a: 'b,
    {
        ExecEnv {
            engine: self.engine,
            info: self.info,
            state: self.state,
            params: self.params,
            warnings: std::mem::take(&mut self.warnings),
            previous_warnings: self.previous_warnings,
            previous_errors: self.previous_errors,
            now_micros: self.now_micros,
            subquery_results: std::mem::take(&mut self.subquery_results),
            rand_streams: std::mem::take(&mut self.rand_streams),
            outer_frames: self.outer_frames.clone(),
            concat_rows: self.concat_rows,
            spill: std::mem::take(&mut self.spill),
            out: Some(out),
            paused: None,
        }
    }

    /// Take back what [`ExecEnv::nested`] lent.
    pub(crate) fn absorb(&mut self, nested: ExecEnv<'_>) {
        self.warnings = nested.warnings;
        self.subquery_results = nested.subquery_results;
        self.rand_streams = nested.rand_streams;
        self.concat_rows = nested.concat_rows;
        self.spill = nested.spill;
    }
}

impl Env for ExecEnv<'_> {
    fn param(&self, index: usize) -> Value {
        self.params.get(index).cloned().unwrap_or(Value::Null)
    }

    fn system_variable(&self, scope: VarScope, index: usize) -> Result<Value, SqlError> {
        if let VarScope::KeyCache(cache) = scope {
            return Ok(crate::exec::env::structured_value(
                self.engine,
                cache,
                index,
            ));
        }
        let def = crate::system::sysvars::def(index);
        match def.name {
            "warning_count" => return Ok(Value::UInt(self.previous_warnings as u64)),
            "error_count" => return Ok(Value::UInt(self.previous_errors as u64)),
            "last_insert_id" => return Ok(Value::UInt(self.state.last_insert_id)),
            "in_transaction" => return Ok(Value::UInt(u64::from(self.state.in_transaction))),
            // The time the statement's clock functions read, set or real.
            // (six decimals, as MariaDB shows it: a DECIMAL here, a DOUBLE there).
            "timestamp" => {
                let micros = i128::from(self.now_micros);
                return Ok(myriad_types::Decimal::from_i128_scaled(micros, 6)
                    .map_or(Value::Null, Value::Decimal));
            }
            _ => {}
        }
        let global =
            scope == VarScope::Global || def.scope == crate::system::sysvars::Scope::Global;
        if global {
            let globals = self.engine.globals.read();
            Ok(var_value_as_value(&globals[index], def))
        } else {
            Ok(var_value_as_value(self.state.session_value(index), def))
        }
    }

    fn user_lock(&mut self, call: crate::expr::UserLock<'_>) -> Result<Value, SqlError> {
        self.run_user_lock(call)
    }

    fn rand(&mut self) -> f64 {
        self.state.rand.lock().next_double()
    }

    fn seeded_rand(&mut self, key: usize, seed: u32) -> f64 {
        (self.rand_streams.entry(key))
            .or_insert_with(|| crate::expr::functions::rand::RandState::seeded(seed))
            .next_double()
    }

    fn user_variable(&self, name: &str) -> Value {
        self.state.user_vars.get(name).unwrap_or(Value::Null)
    }

    fn assign_user_variable(&mut self, name: &str, value: Value) -> Result<(), SqlError> {
        self.state.user_vars.insert(name.to_string(), value);
        Ok(())
    }

    fn database(&self) -> Option<String> {
        self.info.database.clone()
    }

    fn user(&self) -> String {
        format!("{}@{}", self.info.user, self.info.host)
    }

    fn current_user(&self) -> String {
        let host = self
            .engine
            .accounts
            .matching_host(&self.info.user, &self.info.host)
            .unwrap_or_else(|| self.info.host.clone());
        format!("{}@{}", self.info.user, host)
    }

    fn current_role(&self) -> Option<String> {
        self.state.active_role.clone()
    }

    fn connection_id(&self) -> u32 {
        self.info.connection_id
    }

    fn last_insert_id(&self) -> u64 {
        self.state.last_insert_id
    }

    fn found_rows(&self) -> Option<u64> {
        self.state.found_rows
    }

    fn row_count(&self) -> i64 {
        self.state.row_count
    }

    fn now_micros(&self) -> i64 {
        self.now_micros
    }

    fn div_precision_increment(&self) -> u32 {
        self.state.div_precision_increment
    }
    fn group_concat_max_len(&self) -> u64 {
        self.state.group_concat_max_len
    }

    fn max_allowed_packet(&self) -> u64 {
        self.state.max_allowed_packet
    }

    fn sql_mode(&self) -> u64 {
        self.state.sql_mode
    }

    fn warnings(&mut self) -> &mut Vec<Warning> {
        &mut self.warnings
    }

    fn subquery(
        &mut self,
        query: &dyn SubqueryPlan,
        outer: Vec<Value>,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let key = std::ptr::from_ref(query).cast::<()>() as usize;
        if let Some((values, rows)) = self.subquery_results.get(&key) {
            if *values == outer {
                return Ok(rows.clone());
            }
        }
        self.outer_frames.push(outer);
        let result = match Stmt::of_subquery(query) {
            Some(Stmt::Select(plan)) => select(plan, self),
            Some(Stmt::SelectTable(plan)) => Session::select_table(plan, self),
            _ => Err(SqlError::not_supported("this subquery")),
        };
        let outer = self.outer_frames.pop().unwrap_or_default();
        let rows: Vec<Vec<Value>> = match result? {
            QueryResult::Rows { rows, .. } => rows
                .iter()
                .map(|r| r.iter().map(crate::plan::stored::evaluable).collect())
                .collect(),
            QueryResult::Ok { .. } => Vec::new(),
        };
        self.subquery_results.insert(key, (outer, rows.clone()));
        Ok(rows)
    }

    fn outer_value(&self, n: usize) -> Value {
        self.outer_frames
            .last()
            .and_then(|frame| frame.get(n))
            .cloned()
            .unwrap_or(Value::Null)
    }
}

pub(crate) fn now_micros() -> i64 {
    crate::expr::datetime::wall_clock_micros()
}

/// The value of a named cache's structured variable (`@@hot.key_buffer_size`): 0 for a
/// cache whose variables were never set, as MariaDB reads an unknown cache.
pub(crate) fn structured_value(engine: &Engine, cache: u32, index: usize) -> Value {
    let caches = engine.catalog.storage().key_caches();
    let Some(info) = caches.info(cache).filter(|c| c.declared) else {
        return Value::UInt(0);
    };
    Value::UInt(match crate::system::sysvars::def(index).name {
        "key_buffer_size" => info.size_bytes,
        "key_cache_block_size" => info.read_unit,
        "key_cache_division_limit" => info.division_limit,
        "key_cache_age_threshold" => info.age_threshold,
        "key_cache_segments" => info.segments,
        _ => 0,
    })
}
