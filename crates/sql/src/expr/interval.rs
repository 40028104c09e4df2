//! Compiling date arithmetic with an interval: `d + INTERVAL n unit`, `INTERVAL n unit + d`,
//! `d - INTERVAL n unit`, DATE_ADD, DATE_SUB, ADDDATE and SUBDATE all become one
//! [`Func::DateAdd`] or [`Func::DateSub`] call whose third argument is the unit's code;
//! TIMESTAMPADD is one too, and TIMESTAMPDIFF a [`Func::TimestampDiff`] call with the unit's
//! code as its third argument.

use crate::error::SqlError;
use crate::expr::{err_syntax, Compiler, Expr, Func};
use crate::value::Value;
use myriad_types::interval::IntervalUnit;
use sqlparser::ast::{self, BinaryOperator};

/// The compound units MariaDB accepts (`'1:30' HOUR_MINUTE`); not evaluated here yet.
const COMPOUND_UNITS: [&str; 11] = [
    "SECOND_MICROSECOND",
    "MINUTE_MICROSECOND",
    "MINUTE_SECOND",
    "HOUR_MICROSECOND",
    "HOUR_SECOND",
    "HOUR_MINUTE",
    "DAY_MICROSECOND",
    "DAY_SECOND",
    "DAY_MINUTE",
    "DAY_HOUR",
    "YEAR_MONTH",
];

impl Compiler<'_> {
    /// `left op right` when one side is an INTERVAL: the date arithmetic call, or None when
    /// neither side is one. `INTERVAL ... - d` and two intervals are syntax errors, as in
    /// MariaDB.
    pub(crate) fn interval_arith(
        &self,
        left: &ast::Expr,
        op: &BinaryOperator,
        right: &ast::Expr,
    ) -> Option<Result<Expr, SqlError>> {
        let (date, interval, func) = match (left, op, right) {
            (ast::Expr::Interval(_), _, ast::Expr::Interval(i))
            | (ast::Expr::Interval(i), BinaryOperator::Minus, _) => {
                return Some(Err(err_syntax(&i.to_string())))
            }
            (d, BinaryOperator::Plus, ast::Expr::Interval(i))
            | (ast::Expr::Interval(i), BinaryOperator::Plus, d) => (d, i, Func::DateAdd),
            (d, BinaryOperator::Minus, ast::Expr::Interval(i)) => (d, i, Func::DateSub),
            _ => return None,
        };
        Some(self.date_arith(func, date, interval))
    }

    /// DATE_ADD, DATE_SUB, ADDDATE and SUBDATE (`name` upper case), or None for any other
    /// function. ADDDATE and SUBDATE also take a plain count of days.
    pub(crate) fn date_add_function(
        &self,
        name: &str,
        f: &ast::Function,
        args: &[&ast::Expr],
    ) -> Option<Result<Expr, SqlError>> {
        if matches!(name, "TIMESTAMPADD" | "TIMESTAMPDIFF") {
            return Some(self.timestamp_function(name, f, args));
        }
        let (func, days_allowed) = match name {
            "DATE_ADD" => (Func::DateAdd, false),
            "DATE_SUB" => (Func::DateSub, false),
            "ADDDATE" => (Func::DateAdd, true),
            "SUBDATE" => (Func::DateSub, true),
            _ => return None,
        };
        Some(match args {
            [date, ast::Expr::Interval(i)] => self.date_arith(func, date, i),
            [date, days] if days_allowed => self.days_arith(func, date, days),
            _ => Err(err_syntax(&f.to_string())),
        })
    }

    /// TIMESTAMPADD(unit, n, d), a DATE_ADD, and TIMESTAMPDIFF(unit, a, b): the unit is
    /// a bare word (a simple unit, or the same with the `SQL_TSI_` prefix).
    fn timestamp_function(
        &self,
        name: &str,
        f: &ast::Function,
        args: &[&ast::Expr],
    ) -> Result<Expr, SqlError> {
        let syntax = || err_syntax(&f.to_string());
        let [ast::Expr::Identifier(word), x, y] = args else {
            return Err(syntax());
        };
        if word.quote_style.is_some() {
            return Err(syntax());
        }
        let word = word.value.to_ascii_uppercase();
        let unit = IntervalUnit::by_name(word.strip_prefix("SQL_TSI_").unwrap_or(&word))
            .ok_or_else(syntax)?;
        let unit = Expr::Literal(Value::Int(unit.code()));
        let (func, args) = if name == "TIMESTAMPADD" {
            (
                Func::DateAdd,
                vec![self.date_operand(y)?, self.compile(x)?, unit],
            )
        } else {
            (
                Func::TimestampDiff,
                vec![self.compile(x)?, self.compile(y)?, unit],
            )
        };
        Ok(Expr::Call {
            func,
            args,
            collation: Default::default(),
        })
    }

    fn date_arith(
        &self,
        func: Func,
        date: &ast::Expr,
        interval: &ast::Interval,
    ) -> Result<Expr, SqlError> {
        let syntax = || err_syntax(&interval.to_string());
        if interval.last_field.is_some()
            || interval.leading_precision.is_some()
            || interval.fractional_seconds_precision.is_some()
        {
            return Err(syntax());
        }
        let name = interval
            .leading_field
            .as_ref()
            .ok_or_else(syntax)?
            .to_string()
            .to_ascii_uppercase();
        let unit = match IntervalUnit::by_name(&name) {
            Some(unit) => unit,
            None if COMPOUND_UNITS.contains(&name.as_str()) => {
                return Err(SqlError::not_supported("compound INTERVAL units"))
            }
            None => return Err(syntax()),
        };
        let args = vec![
            self.date_operand(date)?,
            self.compile(&interval.value)?,
            Expr::Literal(Value::Int(unit.code())),
        ];
        Ok(Expr::Call {
            func,
            args,
            collation: Default::default(),
        })
    }

    fn days_arith(&self, func: Func, date: &ast::Expr, days: &ast::Expr) -> Result<Expr, SqlError> {
        let args = vec![
            self.date_operand(date)?,
            self.compile(days)?,
            Expr::Literal(Value::Int(IntervalUnit::Day.code())),
        ];
        Ok(Expr::Call {
            func,
            args,
            collation: Default::default(),
        })
    }

    /// The date operand. A NULL literal is refused: MariaDB types that result as CHAR (type
    /// code 254), which no result type here reports.
    fn date_operand(&self, date: &ast::Expr) -> Result<Expr, SqlError> {
        match self.compile(date)? {
            Expr::Literal(Value::Null) => {
                Err(SqlError::not_supported("date arithmetic on a NULL literal"))
            }
            e => Ok(e),
        }
    }
}
