//! CHECK constraints, as MariaDB has them.
//!
//! - Declared with a column (`a INT CHECK (a > 0)`: named after the column) or with the
//!   table (`[CONSTRAINT name] CHECK (...)`: unnamed ones are `CONSTRAINT_1`,
//!   `CONSTRAINT_2`, ... in order). A JSON column is LONGTEXT with the column constraint
//!   `json_valid(col)`. Two of one name: 1826.
//! - The condition may read the table's columns only (1054 ... in 'CHECK'), no subquery
//!   (1970), nothing that changes from call to call or session to session (RAND, NOW, user
//!   variables ...: 1901).
//! - Kept in the table's definition as text: MariaDB's own printing where this server
//!   prints it the same (`` `a` > 0 ``), else the condition as parsed. SHOW CREATE TABLE,
//!   information_schema.CHECK_CONSTRAINTS and TABLE_CONSTRAINTS show it.
//! - Every row INSERT, REPLACE, INSERT ... ON DUPLICATE KEY UPDATE, UPDATE, LOAD DATA and
//!   ALTER TABLE store is verified: a condition that is false fails the statement with 4025
//!   (NULL passes; INSERT IGNORE does not turn it into a warning, as in MariaDB 10.11).
//!   `check_constraint_checks = OFF` turns the verification off.

use crate::error::SqlError;
use crate::expr::eval::SqlValue;
use crate::expr::{Compiler, Env, Expr, Func};
use crate::parser::dialect::MyriadDialect;
use crate::plan::tables::columns_scope;
use crate::plan::view_text::quote;
use crate::value::Value;
use myriad_storage as st;
use myriad_types::errors::{
    ER_BAD_FIELD_ERROR, ER_CONSTRAINT_FAILED, ER_DUP_CONSTRAINT_NAME,
    ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED, ER_SUBQUERIES_NOT_SUPPORTED,
};
use sqlparser::ast;
use std::collections::HashMap;
use std::sync::Arc;

/// The CHECK constraints CREATE TABLE declares, for a table whose columns are `columns`
/// (built from `ct.columns`, in order).
pub(crate) fn declared(
    ct: &ast::CreateTable,
    columns: &[st::ColumnDef],
    base: &Compiler,
) -> Result<Vec<st::CheckDef>, SqlError> {
    let mut out = Vec::new();
    for c in &ct.columns {
        out.extend(of_column(c, columns, base)?);
    }
    for constraint in &ct.constraints {
        if let ast::TableConstraint::Check(check) = constraint {
            let name = check.name.as_ref().map(|n| n.value.clone());
            out.push(table_check(name, check, &out, columns, base)?);
        }
    }
    refuse_duplicates(&out)?;
    Ok(out)
}

/// The constraint a column definition declares (`CHECK (...)`, or a JSON column's).
pub(crate) fn of_column(
    c: &ast::ColumnDef,
    columns: &[st::ColumnDef],
    base: &Compiler,
) -> Result<Option<st::CheckDef>, SqlError> {
    let name = c.name.value.clone();
    let mut found = None;
    for option in &c.options {
        if let ast::ColumnOption::Check(check) = &option.option {
            // MariaDB has no name and no ENFORCED for a column's constraint.
            if check.name.is_some() || option.name.is_some() || check.enforced.is_some() {
                return Err(crate::expr::err_syntax(&check.to_string()));
            }
            if found.is_some() {
                return Err(SqlError::not_supported(
                    "two CHECK constraints on one column",
                ));
            }
            found = Some(&check.expr);
        }
    }
    let json = matches!(c.data_type, ast::DataType::JSON);
    match (found, json) {
        (Some(_), true) => Err(SqlError::not_supported(
            "a CHECK constraint on a JSON column (it has json_valid's)",
        )),
        (Some(e), false) => Ok(Some(declare(name, true, e, columns, base)?)),
        (None, true) => Ok(Some(st::CheckDef {
            text: format!("json_valid({})", quote(&name)),
            name,
            column_level: true,
        })),
        (None, false) => Ok(None),
    }
}

/// A table's constraint: named as written, else `CONSTRAINT_<n>` after the unnamed ones
/// before it among `earlier`.
pub(crate) fn table_check(
    name: Option<String>,
    check: &ast::CheckConstraint,
    earlier: &[st::CheckDef],
    columns: &[st::ColumnDef],
    base: &Compiler,
) -> Result<st::CheckDef, SqlError> {
    if check.enforced.is_some() {
        return Err(crate::expr::err_syntax(&check.to_string()));
    }
    let name = name.unwrap_or_else(|| {
        let unnamed = earlier
            .iter()
            .filter(|c| !c.column_level && c.name.starts_with("CONSTRAINT_"))
            .count();
        format!("CONSTRAINT_{}", unnamed + 1)
    });
    declare(name, false, &check.expr, columns, base)
}

/// 1826 for a name two constraints share.
pub(crate) fn refuse_duplicates(checks: &[st::CheckDef]) -> Result<(), SqlError> {
    match st::first_repeated_name(checks, |c| &c.name) {
        Some(c) => Err(SqlError::new(
            ER_DUP_CONSTRAINT_NAME,
            ER_DUP_CONSTRAINT_NAME.message(&[&"CHECK", &c.name]),
        )),
        None => Ok(()),
    }
}

/// One constraint, checked as the module doc says and kept as text.
fn declare(
    name: String,
    column_level: bool,
    e: &ast::Expr,
    columns: &[st::ColumnDef],
    base: &Compiler,
) -> Result<st::CheckDef, SqlError> {
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let text = crate::plan::view_text::check_clause(e, &names).unwrap_or_else(|| e.to_string());
    let check = st::CheckDef {
        name,
        column_level,
        text,
    };
    compile_one(columns, &check, base.pipes_as_concat)?;
    Ok(check)
}

/// 1054 (or another of the module doc's refusals) for a constraint of `def` that its
/// columns no longer allow, after ALTER TABLE.
pub(crate) fn revalidate(def: &st::TableDef, pipes_as_concat: bool) -> Result<(), SqlError> {
    for check in &def.checks {
        compile_one(&def.columns, check, pipes_as_concat)?;
    }
    Ok(())
}

/// The compiled constraints of a table, verified on each row it stores (none: nothing to
/// verify).
#[derive(Debug, Clone, Default)]
pub struct Checks(Option<Arc<TableChecks>>);

#[derive(Debug)]
struct TableChecks {
    /// The table's database and name, as 4025 names them.
    database: String,
    table: String,
    list: Vec<Check>,
}

#[derive(Debug)]
struct Check {
    /// The name 4025 shows: `table.column` for a column's constraint.
    shown: String,
    condition: Expr,
}

impl Checks {
    /// The constraints of `def` (of table `database`.`table`), compiled over its row.
    pub(crate) fn compile(
        def: &st::TableDef,
        (database, table): (&str, &str),
        pipes_as_concat: bool,
    ) -> Result<Checks, SqlError> {
        if def.checks.is_empty() {
            return Ok(Checks::default());
        }
        let mut list = Vec::with_capacity(def.checks.len());
        for check in &def.checks {
            let shown = match check.column_level {
                true => format!("{table}.{}", check.name),
                false => check.name.clone(),
            };
            let condition = compile_one(&def.columns, check, pipes_as_concat)?;
            list.push(Check { shown, condition });
        }
        Ok(Checks(Some(Arc::new(TableChecks {
            database: database.to_string(),
            table: table.to_string(),
            list,
        }))))
    }

    /// 4025 for the first constraint `row` fails (a row of the table's columns in order).
    pub(crate) fn verify(&self, row: &[Value], env: &mut dyn Env) -> Result<(), SqlError> {
        let Some(t) = &self.0 else {
            return Ok(());
        };
        for check in &t.list {
            let value = check.condition.eval(env, row)?;
            if value.truth(env.warnings()) == Some(false) {
                // The template's %`s quote their names: the arguments come quoted.
                let message = ER_CONSTRAINT_FAILED.message(&[
                    &quote(&check.shown),
                    &quote(&t.database),
                    &quote(&t.table),
                ]);
                return Err(SqlError::new(ER_CONSTRAINT_FAILED, message));
            }
        }
        Ok(())
    }
}

/// A constraint's condition compiled over a row of `columns`, with MariaDB's refusals.
fn compile_one(
    columns: &[st::ColumnDef],
    check: &st::CheckDef,
    pipes_as_concat: bool,
) -> Result<Expr, SqlError> {
    let dialect = MyriadDialect::default();
    let parsed = sqlparser::parser::Parser::new(&dialect)
        .with_recursion_limit(crate::depth::PARSER_RECURSION_LIMIT)
        .try_with_sql(&check.text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|_| crate::expr::err_syntax(&check.text))?;
    let scope = columns_scope(columns, None);
    let placeholders = HashMap::new();
    let compiler = Compiler {
        source: &check.text,
        scope: &scope,
        placeholders: &placeholders,
        pipes_as_concat,
        ctx: None,
        map: None,
        lists: None,
        outer: None,
    };
    let condition = compiler.compile(&parsed).map_err(|e| match e.code {
        code if code == ER_BAD_FIELD_ERROR.code => SqlError::new(
            ER_BAD_FIELD_ERROR,
            e.message.replace("'field list'", "'CHECK'"),
        ),
        _ if has_subquery(&parsed) => subquery_error(),
        _ => e,
    })?;
    if let Some(what) = forbidden(&condition) {
        return Err(SqlError::new(
            ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED,
            ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED.message(&[
                &what,
                &"CHECK",
                &quote(&check.name),
            ]),
        ));
    }
    Ok(condition)
}

fn subquery_error() -> SqlError {
    SqlError::new(
        ER_SUBQUERIES_NOT_SUPPORTED,
        ER_SUBQUERIES_NOT_SUPPORTED.message(&[&"CHECK"]),
    )
}

/// Whether the parsed condition holds a subquery.
fn has_subquery(e: &ast::Expr) -> bool {
    let mut found = false;
    let _ = sqlparser::ast::visit_expressions(e, |x| {
        if matches!(
            x,
            ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. }
        ) {
            found = true;
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    found
}

/// What in a compiled condition MariaDB does not allow in a CHECK clause, as its message
/// names it.
fn forbidden(e: &Expr) -> Option<String> {
    let own = match e {
        Expr::Call { func, args, .. } => forbidden_function(*func, args.is_empty()),
        Expr::UserVar(name) | Expr::AssignVar { name, .. } => Some(format!("@{name}")),
        Expr::SysVar { .. } => Some("@@variable".to_string()),
        Expr::Param(_) => Some("?".to_string()),
        _ => None,
    };
    if own.is_some() {
        return own;
    }
    let mut found = None;
    e.all_operands(|x| {
        found = forbidden(x);
        found.is_none()
    });
    found
}

/// The name MariaDB's 1901 gives a function whose value changes between calls or
/// sessions.
fn forbidden_function(func: Func, no_args: bool) -> Option<String> {
    let name = match func {
        Func::Now => "current_timestamp",
        Func::SysDate => "sysdate",
        Func::CurDate => "curdate",
        Func::CurTime => "curtime",
        Func::UnixTimestamp if no_args => "unix_timestamp",
        Func::Rand => "rand",
        Func::Sleep => "sleep",
        Func::Version => "version",
        Func::Database => "database",
        Func::User => "user",
        Func::CurrentUser => "current_user",
        Func::CurrentRole => "current_role",
        Func::ConnectionId => "connection_id",
        Func::LastInsertId => "last_insert_id",
        Func::FoundRows => "found_rows",
        Func::RowCount => "row_count",
        Func::GetLock => "get_lock",
        Func::ReleaseLock => "release_lock",
        Func::ReleaseAllLocks => "release_all_locks",
        Func::IsFreeLock => "is_free_lock",
        Func::IsUsedLock => "is_used_lock",
        Func::RandomBytes => "random_bytes",
        _ => return None,
    };
    Some(format!("{name}()"))
}
