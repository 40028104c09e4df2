//! INSERT, UPDATE and DELETE, and the row locks they take.

use crate::catalog;
use crate::error::SqlError;
use crate::exec::foreign_keys::RowReferences;
use crate::expr::eval::SqlValue;
use crate::expr::eval::Warning;
use crate::expr::Env;
use crate::plan::checks::Checks;
use crate::result::QueryResult;
use crate::value::Value;
use myriad_types::errors::{
    ER_DUP_ENTRY, ER_KEY_NOT_FOUND, ER_NO_DEFAULT_FOR_FIELD, ER_NO_REFERENCED_ROW_2,
};

use crate::exec::env::*;
use crate::exec::select::*;
use crate::exec::*;
use crate::Session;

// ---- statements over stored tables ----

/// What an INSERT's rows did: rows changed (a replaced row counts twice, an updated one
/// as ON DUPLICATE KEY UPDATE counts it), rows that met an existing key (replaced, updated
/// or ignored), and the first AUTO_INCREMENT value generated.
#[derive(Debug, Default)]
pub(crate) struct InsertCounts {
    pub affected: u64,
    pub duplicates: u64,
    pub first_id: Option<u64>,
}

impl Session {
    /// `table` opened for an INSERT, UPDATE or DELETE.
    pub(crate) fn open_for_write(
        &self,
        table: &crate::plan::tables::TableRef,
    ) -> Result<myriad_storage::Table, SqlError> {
        table.open(self.engine.catalog.storage())
    }

    pub(crate) fn insert(
        &self,
        plan: &crate::plan::tables::InsertPlan,
        env: &mut ExecEnv,
    ) -> Result<Pending, SqlError> {
        // INSERT ... SELECT: the query's rows, read whole first (within the grouping
        // budget), as literal rows.
        let selected: Vec<Vec<Option<crate::expr::Expr>>> = match &plan.select {
            Some(query) => crate::exec::source::query_rows(query.as_ref(), &plan.table.name, env)?
                .into_iter()
                .map(|row| {
                    row.into_iter()
                        .map(|v| Some(crate::expr::Expr::Literal(v)))
                        .collect()
                })
                .collect(),
            None => Vec::new(),
        };
        let rows = if plan.select.is_some() {
            &selected
        } else {
            &plan.rows
        };
        let table = self.open_for_write(&plan.table)?;
        let strict = self.strict();
        let mut scope = self.write_scope(&plan.table.database, true)?;
        let mut counts = InsertCounts::default();
        let names = (&*plan.table.database, &*plan.table.name);
        let checks = self.table_checks(&plan.table.def, names)?;
        // A REPLACE or ON DUPLICATE KEY UPDATE may delete or change a parent row.
        let changes_rows = plan.replace || plan.on_duplicate.is_some();
        let references = self.row_references(names, &plan.table.def, changes_rows)?;
        for (n, row_exprs) in rows.iter().enumerate() {
            let row = self.insert_row(plan, row_exprs, n + 1, strict, env)?;
            self.store_row(
                plan,
                (&table, &checks, &references),
                &mut scope,
                &row,
                n + 1,
                strict,
                &mut counts,
                env,
            )?;
        }
        let InsertCounts {
            affected,
            duplicates,
            first_id,
        } = counts;
        scope.finish()?;
        let result = QueryResult::Ok {
            affected_rows: affected,
            last_insert_id: first_id.unwrap_or(0),
            warnings: 0,
            info: if rows.len() > 1 || plan.select.is_some() {
                format!(
                    "Records: {}  Duplicates: {duplicates}  Warnings: {}",
                    rows.len(),
                    env.warnings.len()
                )
            } else {
                String::new()
            },
        };
        Ok(match first_id {
            Some(id) => Pending::Inserted(result, id),
            None => Pending::Done(result),
        })
    }

    /// Store one row of an INSERT (or LOAD DATA) in `scope`: a duplicate key replaces,
    /// updates or is ignored as the plan says, else fails the statement.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn store_row(
        &self,
        plan: &crate::plan::tables::InsertPlan,
        (table, checks, references): (&myriad_storage::Table, &Checks, &RowReferences),
        scope: &mut crate::session::transaction::WriteScope<'_>,
        row: &[myriad_storage::Value],
        row_number: usize,
        strict: bool,
        counts: &mut InsertCounts,
        env: &mut ExecEnv,
    ) -> Result<(), SqlError> {
        checks.verify(row, env)?;
        if !references.is_empty() {
            match references.check_child(&self.engine.catalog, scope.stmt(), row, None) {
                Err(e) if plan.ignore && e.code == ER_NO_REFERENCED_ROW_2.code => {
                    env.warnings.push(Warning {
                        level: "Warning",
                        code: e.code,
                        message: e.message,
                    });
                    return Ok(());
                }
                checked => checked?,
            }
        }
        let mut attempts = 0;
        loop {
            match table.insert(scope.stmt(), row) {
                Ok(outcome) => {
                    counts.affected += 1;
                    if let (None, Some(id)) = (counts.first_id, outcome.generated_auto_increment) {
                        counts.first_id = Some(id);
                    }
                    return Ok(());
                }
                Err(myriad_storage::StorageError::DuplicateKey { existing_row, .. })
                    if plan.replace && attempts < 64 =>
                {
                    if !references.is_empty() {
                        if let Some(old) =
                            table.get(existing_row).map_err(catalog::storage_error)?
                        {
                            references.before_delete(
                                &self.engine.catalog,
                                scope.stmt(),
                                (existing_row, &old),
                                0,
                            )?;
                        }
                    }
                    table
                        .delete(scope.stmt(), existing_row)
                        .map_err(catalog::storage_error)?;
                    counts.affected += 1;
                    if attempts == 0 {
                        counts.duplicates += 1;
                    }
                    attempts += 1;
                }
                Err(myriad_storage::StorageError::DuplicateKey { existing_row, .. })
                    if plan.on_duplicate.is_some() =>
                {
                    let update = DuplicateUpdate {
                        plan,
                        table,
                        checks,
                        references,
                        existing_row,
                        row_number,
                        strict,
                    };
                    counts.affected += update.apply(row, scope.stmt(), env)?;
                    counts.duplicates += 1;
                    return Ok(());
                }
                Err(e @ myriad_storage::StorageError::DuplicateKey { .. }) if plan.ignore => {
                    env.warnings.push(Warning {
                        level: "Warning",
                        code: ER_DUP_ENTRY.code,
                        message: e.to_string(),
                    });
                    counts.duplicates += 1;
                    return Ok(());
                }
                Err(e) => return Err(catalog::storage_error(e)),
            }
        }
    }

    /// The CHECK constraints a row stored into the table of definition `def` (`database`.
    /// `name`) must meet (none when check_constraint_checks is off).
    pub(crate) fn table_checks(
        &self,
        def: &myriad_storage::TableDef,
        names: (&str, &str),
    ) -> Result<Checks, SqlError> {
        if def.checks.is_empty() {
            return Ok(Checks::default());
        }
        let enforced = crate::system::sysvars::lookup("check_constraint_checks")
            .is_none_or(|i| *self.state.session_value(i) != crate::sysvars::VarValue::Bool(false));
        if !enforced {
            return Ok(Checks::default());
        }
        let pipes = self.state.sql_mode & crate::system::sysvars::sql_mode::PIPES_AS_CONCAT != 0;
        Checks::compile(def, names, pipes)
    }

    /// One VALUES row as stored: the given values converted, the others filled with their
    /// defaults (a NOT NULL column without one is an error in strict mode, else a warning
    /// and the type's zero).
    pub(crate) fn insert_row(
        &self,
        plan: &crate::plan::tables::InsertPlan,
        row_exprs: &[Option<crate::expr::Expr>],
        row_number: usize,
        strict: bool,
        env: &mut ExecEnv,
    ) -> Result<Vec<myriad_storage::Value>, SqlError> {
        let def = &plan.table.def;
        let mut given: Vec<Option<Value>> = vec![None; def.columns.len()];
        for (expr, &position) in row_exprs.iter().zip(&plan.columns) {
            if let Some(e) = expr {
                let warned = env.warnings.len();
                given[position] = Some(e.eval(env, &[])?);
                self.division_by_zero_is_error(&env.warnings[warned..])?;
            }
        }
        let mut row = Vec::with_capacity(def.columns.len());
        for (position, column) in def.columns.iter().enumerate() {
            let stored = match given[position].take() {
                // AUTO_INCREMENT: NULL or 0 asks for the next value.
                Some(v)
                    if column.auto_increment
                        && (v.is_null() || v.to_int(&mut Vec::new()) == Some(0)) =>
                {
                    myriad_storage::Value::Null
                }
                Some(v) => {
                    let target = crate::plan::stored::Target {
                        column,
                        table: Some(&plan.table),
                        row: row_number,
                        strict,
                    };
                    crate::plan::stored::to_stored(&v, &target, &mut env.warnings)?
                }
                None if column.default_now => {
                    crate::plan::timestamps::now_for(&column.ty, env.now_micros())
                }
                None => match &column.default {
                    Some(d) => d.clone(),
                    None if column.auto_increment || column.nullable => myriad_storage::Value::Null,
                    // An ENUM NOT NULL without DEFAULT takes its first element.
                    None if matches!(column.ty, myriad_storage::ColumnType::Enum { .. }) => {
                        zero_value(&column.ty)
                    }
                    None => {
                        let message =
                            format!("Field '{}' doesn't have a default value", column.name);
                        if strict {
                            return Err(SqlError::new(ER_NO_DEFAULT_FOR_FIELD, message));
                        }
                        env.warnings.push(Warning {
                            level: "Warning",
                            code: ER_NO_DEFAULT_FOR_FIELD.code,
                            message,
                        });
                        zero_value(&column.ty)
                    }
                },
            };
            row.push(stored);
        }
        Ok(row)
    }

    pub(crate) fn update(
        &self,
        plan: &crate::plan::tables::UpdatePlan,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let strict = self.strict();
        let table = self.open_for_write(&plan.source.table)?;
        // Concurrent `SET n = n + 1` must not both read n: a row that changed after the
        // statement began reading makes it run again when it claims the row's page (see
        // `session::transaction`, "Locks").
        let mut scope = self.write_scope(&plan.source.table.database, true)?;
        table
            .lock_for_write(scope.stmt())
            .map_err(catalog::storage_error)?;
        let read = crate::exec::source::Opened::Stored(table.clone());
        let rows = self.matching_rows(&plan.source, &read, &plan.order_by, &plan.limit, env)?;
        let t = &plan.source.table;
        let checks = self.table_checks(&t.def, (&t.database, &t.name))?;
        let references = self.row_references((&t.database, &t.name), &t.def, true)?;
        let (mut matched, mut changed) = (0u64, 0u64);
        for (n, (row_id, values)) in rows.into_iter().enumerate() {
            matched += 1;
            let at = RowAt {
                table: &plan.source.table,
                row: n + 1,
                strict,
            };
            let mut working = values.clone();
            for (position, expr) in &plan.assignments {
                let warned = env.warnings.len();
                let v = expr.eval(env, &working)?;
                self.division_by_zero_is_error(&env.warnings[warned..])?;
                at.assign(*position, &v, &mut working, &mut env.warnings)?;
            }
            if working == values {
                continue;
            }
            let new_row = at.changed_row(&plan.assignments, &mut working, env.now_micros())?;
            checks.verify(&new_row, env)?;
            if !references.is_empty() {
                let Some(old) = table.get(row_id).map_err(catalog::storage_error)? else {
                    continue;
                };
                references.check_child(&self.engine.catalog, scope.stmt(), &new_row, Some(&old))?;
                references.before_update(
                    &self.engine.catalog,
                    scope.stmt(),
                    (row_id, &old),
                    &new_row,
                    0,
                )?;
            }
            if table
                .update(scope.stmt(), row_id, &new_row)
                .map_err(catalog::storage_error)?
            {
                changed += 1;
            }
        }
        scope.finish()?;
        Ok(QueryResult::Ok {
            affected_rows: changed,
            last_insert_id: 0,
            warnings: 0,
            info: format!(
                "Rows matched: {matched}  Changed: {changed}  Warnings: {}",
                env.warnings.len()
            ),
        })
    }

    pub(crate) fn delete(
        &self,
        plan: &crate::plan::tables::DeletePlan,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let table = self.open_for_write(&plan.source.table)?;
        // As for UPDATE: a row that changed after the statement began reading makes it run
        // again when it claims the row's page (see `session::transaction`, "Locks").
        let mut scope = self.write_scope(&plan.source.table.database, true)?;
        table
            .lock_for_write(scope.stmt())
            .map_err(catalog::storage_error)?;
        let read = crate::exec::source::Opened::Stored(table.clone());
        let rows = self.matching_rows(&plan.source, &read, &plan.order_by, &plan.limit, env)?;
        let t = &plan.source.table;
        let references = self.row_references((&t.database, &t.name), &t.def, true)?;
        let mut deleted = 0u64;
        for (row_id, _) in rows {
            if !references.is_empty() {
                // The row as stored (the values read were converted for expressions).
                let Some(old) = table.get(row_id).map_err(catalog::storage_error)? else {
                    continue;
                };
                references.before_delete(&self.engine.catalog, scope.stmt(), (row_id, &old), 0)?;
            }
            if table
                .delete(scope.stmt(), row_id)
                .map_err(catalog::storage_error)?
            {
                deleted += 1;
            }
        }
        scope.finish()?;
        Ok(ok(deleted))
    }
}
/// INSERT ... ON DUPLICATE KEY UPDATE meeting a row with the same key.
struct DuplicateUpdate<'a> {
    plan: &'a crate::plan::tables::InsertPlan,
    table: &'a myriad_storage::Table,
    checks: &'a Checks,
    references: &'a RowReferences,
    /// The row already there.
    existing_row: myriad_storage::RowId,
    /// The VALUES row's number (1-based), for warnings.
    row_number: usize,
    strict: bool,
}

impl DuplicateUpdate<'_> {
    /// Apply the assignments to the existing row, where `VALUES(col)` reads `row` (the row
    /// that was to be inserted); returns the affected-row count MySQL reports (2 when the
    /// row changed, else 0).
    fn apply(
        &self,
        row: &[myriad_storage::Value],
        stmt: &mut myriad_storage::Statement,
        env: &mut ExecEnv,
    ) -> Result<u64, SqlError> {
        let plan = self.plan;
        let def = &plan.table.def;
        let assignments = plan.on_duplicate.as_deref().unwrap_or_default();
        let old = self
            .table
            .get(self.existing_row)
            .map_err(catalog::storage_error)?
            .ok_or_else(|| SqlError::new(ER_KEY_NOT_FOUND, "Can't find record"))?;
        let evaluable = |values: &[myriad_storage::Value]| -> Vec<Value> {
            values
                .iter()
                .zip(&def.columns)
                .map(|(d, c)| crate::plan::stored::from_stored(d, &c.ty))
                .collect()
        };
        let old_values = evaluable(&old);
        let new_values = evaluable(row);
        let at = RowAt {
            table: &plan.table,
            row: self.row_number,
            strict: self.strict,
        };
        let mut working = old_values.clone();
        for (position, expr) in assignments {
            let mut scope_row = working.clone();
            scope_row.extend(new_values.iter().cloned());
            let v = expr.eval(env, &scope_row)?;
            at.assign(*position, &v, &mut working, &mut env.warnings)?;
        }
        if working == old_values {
            return Ok(0);
        }
        let updated = at.changed_row(assignments, &mut working, env.now_micros())?;
        self.checks.verify(&updated, env)?;
        if !self.references.is_empty() {
            let catalog = &env.engine.catalog;
            self.references
                .check_child(catalog, stmt, &updated, Some(&old))?;
            self.references
                .before_update(catalog, stmt, (self.existing_row, &old), &updated, 0)?;
        }
        self.table
            .update(stmt, self.existing_row, &updated)
            .map_err(catalog::storage_error)?;
        Ok(2)
    }
}

/// A row of a table that UPDATE or ON DUPLICATE KEY UPDATE assigns to.
struct RowAt<'a> {
    table: &'a crate::plan::tables::TableRef,
    /// The row's number in the statement (1-based), for warnings.
    row: usize,
    strict: bool,
}

impl RowAt<'_> {
    /// `working[position] = v`, as the column stores it (the conversion's warnings noted).
    fn assign(
        &self,
        position: usize,
        v: &Value,
        working: &mut [Value],
        warnings: &mut Vec<Warning>,
    ) -> Result<(), SqlError> {
        let column = &self.table.def.columns[position];
        let target = crate::plan::stored::Target {
            column,
            table: Some(self.table),
            row: self.row,
            strict: self.strict,
        };
        let stored = crate::plan::stored::to_stored(v, &target, warnings)?;
        working[position] = crate::plan::stored::from_stored(&stored, &column.ty);
        Ok(())
    }

    /// The row to store once `assignments` changed `working`: ON UPDATE timestamps not
    /// assigned are touched, and every value is converted (its warnings were noted when
    /// it was assigned).
    fn changed_row(
        &self,
        assignments: &[(usize, crate::expr::Expr)],
        working: &mut [Value],
        now_micros: i64,
    ) -> Result<Vec<myriad_storage::Value>, SqlError> {
        let def = &self.table.def;
        crate::plan::timestamps::touch_on_update(
            def,
            |i| assignments.iter().any(|(p, _)| *p == i),
            working,
            now_micros,
        );
        let mut row = Vec::with_capacity(def.columns.len());
        for (column, v) in def.columns.iter().zip(working.iter()) {
            let target = crate::plan::stored::Target {
                column,
                table: Some(self.table),
                row: self.row,
                strict: false,
            };
            row.push(crate::plan::stored::to_stored(v, &target, &mut Vec::new())?);
        }
        Ok(row)
    }
}
