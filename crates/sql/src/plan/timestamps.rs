//! `DEFAULT CURRENT_TIMESTAMP` and `ON UPDATE CURRENT_TIMESTAMP`.
//!
//! Both are flags on the stored column definition, not a stored value: an insert that
//! gives the column no value stores the statement's time; an update that changes the row
//! and does not assign the column itself stores the statement's time. MariaDB accepts
//! `DEFAULT CURRENT_TIMESTAMP` on DATE, DATETIME and TIMESTAMP here (other types take it
//! as an expression default myriad does not evaluate per row: 1235), and `ON UPDATE` on
//! DATETIME and TIMESTAMP only (1294 otherwise).

use crate::error::SqlError;
use crate::value::Value;
use myriad_storage as st;
use myriad_types::errors::ER_INVALID_ON_UPDATE;
use myriad_types::DateTime;
use sqlparser::ast;

/// How SHOW CREATE TABLE and SHOW COLUMNS write the clock, as MariaDB 10.11 does.
pub const CURRENT_TIMESTAMP_TEXT: &str = "current_timestamp()";

/// How SHOW CREATE TABLE and SHOW COLUMNS name the clock default of a column of type
/// `ty`: `current_timestamp(p)` for a DATETIME(p) or TIMESTAMP(p).
pub fn current_timestamp_text(ty: &st::ColumnType) -> String {
    match ty.fsp() {
        0 => CURRENT_TIMESTAMP_TEXT.to_string(),
        p => format!("current_timestamp({p})"),
    }
}

/// Whether the expression is the clock itself: CURRENT_TIMESTAMP, NOW(), LOCALTIME,
/// LOCALTIMESTAMP, with or without parentheses and a precision.
pub fn is_current_timestamp(e: &ast::Expr) -> bool {
    let ast::Expr::Function(f) = e else {
        return false;
    };
    let name = f.name.to_string();
    let clock = ["CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP"]
        .iter()
        .any(|n| n.eq_ignore_ascii_case(&name));
    let args_ok = match &f.args {
        ast::FunctionArguments::None => true,
        ast::FunctionArguments::List(list) => {
            list.args.len() <= 1
                && list.args.iter().all(|a| {
                    matches!(
                        a,
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(
                            ast::ValueWithSpan {
                                value: ast::Value::Number(..),
                                ..
                            }
                        )))
                    )
                })
        }
        ast::FunctionArguments::Subquery(_) => false,
    };
    clock && args_ok
}

/// `ON UPDATE expr`: only the clock is accepted (MariaDB's grammar allows nothing else).
pub fn on_update(def: &mut st::ColumnDef, e: &ast::Expr) -> Result<(), SqlError> {
    if !is_current_timestamp(e) {
        return Err(crate::expr::err_syntax(&e.to_string()));
    }
    def.on_update_now = true;
    Ok(())
}

/// The column's type admits its clock flags.
pub fn check_column(def: &st::ColumnDef) -> Result<(), SqlError> {
    let datetime = matches!(
        def.ty,
        st::ColumnType::DateTime { .. } | st::ColumnType::Timestamp { .. }
    );
    if def.on_update_now && !datetime {
        return Err(SqlError::new(
            ER_INVALID_ON_UPDATE,
            format!("Invalid ON UPDATE clause for '{}' column", def.name),
        ));
    }
    if def.default_now && !datetime && !matches!(def.ty, st::ColumnType::Date) {
        return Err(SqlError::not_supported(&format!(
            "DEFAULT CURRENT_TIMESTAMP on column '{}', which is not DATE, DATETIME or TIMESTAMP",
            def.name
        )));
    }
    Ok(())
}

/// The statement's time as a value of the column (DATE keeps the day, DATETIME(p) and
/// TIMESTAMP(p) p digits of its fraction, as MariaDB's `current_timestamp(p)`).
pub fn now_for(ty: &st::ColumnType, now_micros: i64) -> st::Value {
    let mut now = DateTime::from_unix_micros(now_micros, true);
    match ty {
        st::ColumnType::Date => st::Value::Date(now.date()),
        _ => {
            now.micros = st::truncate_micros(now.micros, ty.fsp());
            st::Value::DateTime(now)
        }
    }
}

/// After an update changed a row: every ON UPDATE CURRENT_TIMESTAMP column the statement
/// did not assign takes the statement's time (`working` holds engine values).
pub fn touch_on_update(
    def: &st::TableDef,
    assigned: impl Fn(usize) -> bool,
    working: &mut [Value],
    now_micros: i64,
) {
    for (i, c) in def.columns.iter().enumerate() {
        if c.on_update_now && !assigned(i) {
            working[i] = crate::plan::stored::from_stored(&now_for(&c.ty, now_micros), &c.ty);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_is_the_statement_time_in_the_column_type() {
        // 2021-03-04 05:06:07 UTC.
        let micros = 1_614_834_367_000_000;
        assert_eq!(
            now_for(&st::ColumnType::Timestamp { fsp: 0 }, micros),
            st::Value::DateTime(DateTime {
                year: 2021,
                month: 3,
                day: 4,
                hour: 5,
                minute: 6,
                second: 7,
                micros: 0
            })
        );
        assert_eq!(
            now_for(&st::ColumnType::Date, micros),
            st::Value::Date(st::Date {
                year: 2021,
                month: 3,
                day: 4
            })
        );
    }

    #[test]
    fn clock_flags_need_a_clock_type() {
        let mut c = st::ColumnDef::new("a", st::ColumnType::Date);
        c.default_now = true;
        assert!(check_column(&c).is_ok());
        c.on_update_now = true;
        assert_eq!(
            check_column(&c).unwrap_err().code,
            ER_INVALID_ON_UPDATE.code
        );
        let mut i = st::ColumnDef::new(
            "i",
            st::ColumnType::Int {
                width: st::IntWidth::Int,
                unsigned: false,
            },
        );
        i.default_now = true;
        assert_eq!(check_column(&i).unwrap_err().code, 1235);
    }
}
