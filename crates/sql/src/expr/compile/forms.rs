//! The expression forms with syntax of their own (unary operators, IS tests, IN lists,
//! LIKE ... ESCAPE, CASE, SUBSTRING ... FROM ... FOR, TRIM, CONVERT, typed strings), each
//! compiled by one [`Compiler`] method that [`Compiler::compile`] calls.

use super::negate;
use crate::error::SqlError;
use crate::expr::eval::SqlValue;
use crate::expr::text::*;
use crate::expr::*;
use crate::value::Value;
use myriad_types::errors::{ER_WRONG_ARGUMENTS, ER_WRONG_VALUE};
use sqlparser::ast::{self, UnaryOperator};
use std::sync::Arc;

impl Compiler<'_> {
    /// `-x`, `+x`, `NOT x`, `!x`, `~x`.
    pub(super) fn unary(&self, op: &UnaryOperator, expr: &ast::Expr) -> Result<Expr, SqlError> {
        if matches!(op, UnaryOperator::BitwiseNot) && super::rows::is_row(expr) {
            return Err(super::rows::err_row_operand("~"));
        }
        let inner = self.compile(expr)?;
        // Every operator but `+` (which MariaDB drops) takes a number.
        let inner = inner.numeric_if(!matches!(op, UnaryOperator::Plus));
        Ok(match op {
            UnaryOperator::Minus => {
                let number = matches!(
                    expr,
                    ast::Expr::Value(ast::ValueWithSpan {
                        value: ast::Value::Number(..),
                        ..
                    })
                );
                negate(inner, number)?
            }
            UnaryOperator::Plus => inner,
            UnaryOperator::Not | UnaryOperator::BangNot => Expr::Not(Box::new(inner)),
            UnaryOperator::BitwiseNot => Expr::BitNot(Box::new(inner)),
            other => return Err(SqlError::not_supported(&format!("operator {other}"))),
        })
    }

    /// `x IS [NOT] NULL` and `x IS [NOT] UNKNOWN`.
    pub(super) fn is_null(&self, x: &ast::Expr, negated: bool) -> Result<Expr, SqlError> {
        Ok(Expr::IsNull {
            expr: Box::new(self.compile(x)?),
            negated,
        })
    }

    /// `x IS [NOT] TRUE` and `x IS [NOT] FALSE`.
    pub(super) fn is_bool(
        &self,
        x: &ast::Expr,
        value: bool,
        negated: bool,
    ) -> Result<Expr, SqlError> {
        Ok(Expr::IsBool {
            expr: Box::new(self.compile(x)?.numeric()),
            value,
            negated,
        })
    }

    /// `x [NOT] IN (list)`: a list of constants also gets a set to look the value up in.
    pub(super) fn in_list(
        &self,
        expr: &ast::Expr,
        list: &[ast::Expr],
        negated: bool,
    ) -> Result<Expr, SqlError> {
        if let Some(rows) = self.row_in_list(expr, list, negated) {
            return rows;
        }
        let mut expr = Box::new(self.compile(expr)?);
        let mut list: Vec<Expr> = match self.const_list(list) {
            Some(items) => items?,
            None => list
                .iter()
                .map(|x| self.compile(x))
                .collect::<Result<_, _>>()?,
        };
        self.compared(&mut expr, &mut list);
        let constants = list.iter().map(|x| match x {
            Expr::Literal(d) => Some(d),
            _ => None,
        });
        let collation = self.comparing(std::iter::once(&*expr).chain(&list), "in")?;
        let set = crate::expr::in_set::ConstSet::build(constants, collation).map(Arc::new);
        Ok(Expr::InList {
            expr,
            list,
            negated,
            set,
            collation,
        })
    }

    /// `x [NOT] LIKE pattern [ESCAPE 'c']`; the escape is one character, `\` by default.
    pub(super) fn like(
        &self,
        expr: &ast::Expr,
        pattern: &ast::Expr,
        escape_char: Option<&ast::Expr>,
        negated: bool,
    ) -> Result<Expr, SqlError> {
        let wrong = || SqlError::new(ER_WRONG_ARGUMENTS, "Incorrect arguments to ESCAPE");
        let escape = match escape_char {
            None => b'\\',
            Some(ast::Expr::Value(v)) => match &v.value {
                ast::Value::SingleQuotedString(s) if s.len() == 1 => s.as_bytes()[0],
                ast::Value::SingleQuotedString(s) if s.is_empty() => b'\\',
                _ => return Err(wrong()),
            },
            Some(_) => return Err(wrong()),
        };
        let expr = self.text_operand(self.compile(expr)?);
        let pattern = self.text_operand(self.compile(pattern)?);
        Ok(Expr::Like {
            collation: self.comparing([&expr, &pattern], "like")?,
            expr: Box::new(expr),
            pattern: Box::new(pattern),
            escape,
            negated,
        })
    }

    /// `x [NOT] REGEXP p` (and RLIKE).
    pub(super) fn regexp(
        &self,
        expr: &ast::Expr,
        pattern: &ast::Expr,
        negated: bool,
    ) -> Result<Expr, SqlError> {
        let args = vec![self.compile(expr)?, self.compile(pattern)?];
        let matches = self.call(Func::Regexp, "regexp", args)?;
        Ok(match negated {
            true => Expr::Not(Box::new(matches)),
            false => matches,
        })
    }

    /// DATE(x): CAST(x AS DATE) in MariaDB's grammar, of one argument.
    pub(super) fn date_of(&self, f: &ast::Function, args: &[&ast::Expr]) -> Result<Expr, SqlError> {
        let [x] = args else {
            return Err(err_syntax(&f.to_string()));
        };
        let to = CastTo::Date;
        Ok(Expr::Cast {
            expr: Box::new(self.compile(x)?.cast_operand(to)),
            to,
        })
    }

    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`.
    pub(super) fn case(
        &self,
        operand: Option<&ast::Expr>,
        conditions: &[ast::CaseWhen],
        else_result: Option<&ast::Expr>,
    ) -> Result<Expr, SqlError> {
        let optional = |o: Option<&ast::Expr>| -> Result<Option<Box<Expr>>, SqlError> {
            Ok(o.map(|o| self.compile(o)).transpose()?.map(Box::new))
        };
        let mut operand = optional(operand)?;
        let mut whens: Vec<(Expr, Expr)> = conditions
            .iter()
            .map(|w| Ok((self.compile(&w.condition)?, self.compile(&w.result)?)))
            .collect::<Result<_, SqlError>>()?;
        match &mut operand {
            // `CASE x WHEN a`: x compares with every a.
            Some(o) => {
                let number = self.is_number(o) || whens.iter().any(|(w, _)| self.is_number(w));
                if number {
                    o.make_numeric();
                    whens.iter_mut().for_each(|(w, _)| w.make_numeric());
                }
            }
            // `CASE WHEN c`: every c is a truth value.
            None => whens.iter_mut().for_each(|(w, _)| w.make_numeric()),
        }
        // `CASE x WHEN a ...` compares x with every WHEN value under one collation.
        let collation = match &operand {
            Some(o) => {
                let operands = std::iter::once(&**o).chain(whens.iter().map(|(w, _)| w));
                self.comparing(operands, "case")?
            }
            None => Collation::default(),
        };
        Ok(Expr::Case {
            operand,
            whens,
            otherwise: optional(else_result)?,
            collation,
        })
    }

    /// `SUBSTRING(x FROM from [FOR len])`: the SUBSTRING function's arguments.
    pub(super) fn substring(
        &self,
        e: &ast::Expr,
        expr: &ast::Expr,
        from: Option<&ast::Expr>,
        len: Option<&ast::Expr>,
    ) -> Result<Expr, SqlError> {
        let Some(from) = from else {
            return Err(err_syntax(&e.to_string()));
        };
        let mut args = vec![self.compile(expr)?, self.compile(from)?];
        if let Some(len) = len {
            args.push(self.compile(len)?);
        }
        self.call(Func::Substring, "substring", args)
    }

    /// `TRIM([LEADING | TRAILING | BOTH] [what] FROM x)`; `what` is a space by default.
    pub(super) fn trim(
        &self,
        e: &ast::Expr,
        trim_where: Option<&ast::TrimWhereField>,
        trim_what: Option<&ast::Expr>,
        expr: &ast::Expr,
        trim_characters: bool,
    ) -> Result<Expr, SqlError> {
        if trim_characters {
            return Err(err_syntax(&e.to_string()));
        }
        let (leading, trailing) = match trim_where {
            Some(ast::TrimWhereField::Leading) => (true, false),
            Some(ast::TrimWhereField::Trailing) => (false, true),
            _ => (true, true),
        };
        let what = match trim_what {
            Some(w) => self.compile(w)?,
            None => Expr::Literal(Value::text(" ")),
        };
        Ok(Expr::TrimChars {
            expr: Box::new(self.text_operand(self.compile(expr)?)),
            what: Box::new(self.text_operand(what)),
            leading,
            trailing,
        })
    }

    /// `CONVERT(x, type)` and `CONVERT(x USING charset)` (a cast to CHAR).
    pub(super) fn convert(
        &self,
        e: &ast::Expr,
        expr: &ast::Expr,
        data_type: Option<&ast::DataType>,
        charset: Option<&ast::ObjectName>,
    ) -> Result<Expr, SqlError> {
        if data_type.is_none() && charset.is_none() {
            return Err(err_syntax(&e.to_string()));
        }
        let expr = self.compile(expr)?;
        let to = match data_type {
            Some(dt) => cast_target(dt)?,
            None => CastTo::Char { len: None },
        };
        let binary = match (data_type, charset) {
            (Some(dt), _) => super::is_binary_type(dt),
            (None, Some(cs)) => cs.to_string().eq_ignore_ascii_case("binary"),
            (None, None) => false,
        };
        let expr = match to {
            CastTo::Char { .. } => self.text_operand(expr),
            _ => expr,
        };
        let cast = Expr::Cast {
            expr: Box::new(expr.cast_operand(to)),
            to,
        };
        Ok(if binary {
            super::binary(cast, crate::expr::collation::Derivation::Implicit)
        } else {
            cast
        })
    }

    /// `DATE '...'`, `TIMESTAMP '...'`: the value, cast now; one that does not read is an
    /// error.
    pub(super) fn typed_string(
        &self,
        e: &ast::Expr,
        ts: &ast::TypedString,
    ) -> Result<Expr, SqlError> {
        let text = match &ts.value.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            _ => return Err(err_syntax(&e.to_string())),
        };
        if let ast::DataType::Time(..) = ts.data_type {
            // `TIME '...'`: a TIME value; one that does not read is an error.
            return match myriad_types::datetime::parse_time(&text) {
                Some(t) if t.hours <= crate::expr::functions::TIME_HOURS_MAX => {
                    Ok(Expr::Literal(Value::Time(t)))
                }
                _ => Err(SqlError::new(
                    ER_WRONG_VALUE,
                    format!("Incorrect TIME value: '{text}'"),
                )),
            };
        }
        let to = match ts.data_type {
            ast::DataType::Date => CastTo::Date,
            // A literal keeps the fraction it was written with.
            ast::DataType::Datetime(_) | ast::DataType::Timestamp(_, _) => CastTo::DateTime {
                fsp: myriad_types::datetime::MAX_FSP,
            },
            _ => CastTo::Char { len: None },
        };
        let cast = Expr::Cast {
            expr: Box::new(Expr::Literal(Value::Bytes(text.into_bytes()))),
            to,
        };
        let mut warnings = Vec::new();
        match eval_const(&cast, &mut warnings) {
            Some(Value::Null) | None => Err(SqlError::new(
                ER_WRONG_VALUE,
                format!("Incorrect DATE value: '{}'", ts.value),
            )),
            Some(d) => Ok(Expr::Literal(d)),
        }
    }

    /// `CHAR(n, ... USING charset)` (`using` holds the charset): utf8mb4 and utf8mb3
    /// (`utf8`) check the bytes, binary is CHAR itself. Values here are utf8mb4 or bytes,
    /// so another character set answers 1235.
    pub(super) fn char_using(
        &self,
        name: &str,
        using: &ast::FunctionArgumentList,
        args: &[&ast::Expr],
    ) -> Result<Expr, SqlError> {
        let charset =
            match using.args.as_slice() {
                [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Identifier(
                    id,
                )))] if name == "CHAR" => id.value.to_ascii_lowercase(),
                _ => return Err(err_syntax(name)),
            };
        let func = match charset.as_str() {
            "utf8mb4" => Func::CharUsing { mb4: true },
            "utf8" | "utf8mb3" => Func::CharUsing { mb4: false },
            "binary" => Func::Char,
            other => return Err(SqlError::not_supported(&format!("CHAR(... USING {other})"))),
        };
        let args = args
            .iter()
            .map(|a| self.compile(a))
            .collect::<Result<Vec<_>, _>>()?;
        self.call(func, "char", args)
    }
}
