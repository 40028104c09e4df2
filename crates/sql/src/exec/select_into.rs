//! Running `SELECT ... INTO @a, @b` (compiled by `crate::plan::select_into`; INTO OUTFILE
//! and DUMPFILE are `crate::exec::select_outfile`'s): the query's
//! one row goes into the user variables, and the answer is an OK packet with one row
//! affected, as in MariaDB. No row: warning 1329, the variables keep their values, no row
//! affected. A second row: error 1172, the first row's values assigned all the same (as
//! MariaDB assigns them before it meets the second). A select list of another
//! width than the variables: error 1222. The rows are not gathered: the second one ends
//! the query.

use crate::error::SqlError;
use crate::expr::eval::Warning;
use crate::plan::select_into::{Destination, SelectInto};
use crate::result::Column;
use crate::result::QueryResult;
use crate::row_sink::RowSink;
use crate::value::Value;
use crate::Session;
use myriad_types::errors::{
    ER_SP_FETCH_NO_DATA, ER_TOO_MANY_ROWS, ER_WARN_DEPRECATED_SYNTAX,
    ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
};
use std::sync::Arc;

/// Keeps the first row of a query; a second one is an error.
#[derive(Default)]
struct OneRow {
    row: Option<Vec<Value>>,
    columns: Option<Arc<Vec<crate::result::Column>>>,
}

impl RowSink for OneRow {
    fn begin(&mut self, columns: &Arc<Vec<crate::result::Column>>) -> Result<(), SqlError> {
        self.columns = Some(Arc::clone(columns));
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        if self.row.is_some() {
            return Err(too_many_rows());
        }
        self.row = Some(row.to_vec());
        Ok(())
    }
}

fn too_many_rows() -> SqlError {
    SqlError::new(ER_TOO_MANY_ROWS, "Result consisted of more than one row")
}

impl Session {
    pub(crate) fn select_into(
        &mut self,
        into: &SelectInto,
        params: &[Value],
    ) -> Result<QueryResult, SqlError> {
        let Destination::Variables(vars) = &into.destination else {
            return self.select_into_file(into, params);
        };
        let mut sink = OneRow::default();
        let ran = self.run_inner(&into.query, params, Some(&mut sink));
        if into.trailing {
            self.state.warnings.insert(0, deprecated_order());
        }
        let result = match ran {
            Err(e) if e.code == ER_TOO_MANY_ROWS.code => {
                if let Some(row) = sink.row.filter(|r| r.len() == vars.len()) {
                    self.assign(vars, row, sink.columns.as_deref().map(Vec::as_slice));
                }
                return Err(e);
            }
            result => result?,
        };
        let (row, columns) = match result {
            QueryResult::Rows { columns, rows, .. } => {
                if columns.len() != vars.len() {
                    return Err(wrong_width());
                }
                if rows.len() > 1 {
                    self.assign(vars, rows[0].clone(), Some(&columns));
                    return Err(too_many_rows());
                }
                (rows.first().cloned().or(sink.row), Some(columns))
            }
            QueryResult::Ok { .. } => (sink.row, sink.columns),
        };
        let Some(row) = row else {
            self.state.warnings.push(Warning {
                level: "Warning",
                code: ER_SP_FETCH_NO_DATA.code,
                message: "No data - zero rows fetched, selected, or processed".into(),
            });
            return Ok(crate::exec::ok(0));
        };
        if row.len() != vars.len() {
            return Err(wrong_width());
        }
        self.assign(vars, row, columns.as_deref().map(Vec::as_slice));
        Ok(crate::exec::ok(1))
    }

    /// Set `vars` to `row`'s values; a date or time as its text with its result column's
    /// fraction digits.
    fn assign(&mut self, vars: &[String], row: Vec<Value>, columns: Option<&[Column]>) {
        for (i, (name, value)) in vars.iter().zip(row).enumerate() {
            let digits = columns
                .and_then(|c| c.get(i))
                .map(|c| c.decimals)
                .filter(|d| *d <= myriad_types::datetime::MAX_FSP);
            let value = crate::expr::cast::temporal_as_text(value, digits);
            self.state.user_vars.insert(name.clone(), value);
        }
    }
}

/// MariaDB's warning 1287 for an INTO after the query rather than after its select list.
pub(crate) fn deprecated_order() -> Warning {
    Warning {
        level: "Warning",
        code: ER_WARN_DEPRECATED_SYNTAX.code,
        message: "'<select expression> INTO <destination>;' is deprecated and will be removed \
                  in a future release. Please use 'SELECT <select list> INTO <destination> \
                  FROM...' instead"
            .into(),
    }
}

fn wrong_width() -> SqlError {
    SqlError::new(
        ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
        "The used SELECT statements have a different number of columns",
    )
}
