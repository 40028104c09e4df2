//! Expressions: compiled once from sqlparser's AST into [`Expr`], then typed and evaluated
//! many times (a prepared statement compiles at PREPARE and only evaluates at EXECUTE).
//!
//! Compilation resolves everything that does not change between executions: column
//! references become row indexes, system variable names become registry indexes, function
//! names become [`Func`] values, `?` placeholders become parameter numbers in text order.
//! What may change (parameter values, variable values, the clock) is read through [`Env`]
//! at evaluation time.

use crate::error::{SqlError, ER_WARN_ALLOWED_PACKET_OVERFLOWED};
use crate::eval::{
    self, aggregate_type, arith, arith_type, compare, ArithOp, Datum, SqlType, Warning,
};
use crate::sysvars;
use myriad_types::errors::{
    ER_BAD_FIELD_ERROR, ER_DATA_OUT_OF_RANGE, ER_INCORRECT_GLOBAL_LOCAL_VAR,
    ER_INVALID_ARGUMENT_FOR_LOGARITHM, ER_NON_UNIQ_ERROR, ER_OPERAND_COLUMNS, ER_PARSE_ERROR,
    ER_SP_DOES_NOT_EXIST, ER_SUBQUERY_NO_1_ROW, ER_TOO_BIG_PRECISION, ER_TRUNCATED_WRONG_VALUE,
    ER_WRONG_ARGUMENTS, ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, ER_WRONG_VALUE,
};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};
use sqlparser::ast::{self, BinaryOperator, UnaryOperator};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

/// How `@@x` was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarScope {
    /// `@@x`: the session value where there is one, else the global one.
    Default,
    Session,
    Global,
    /// `@@hot.key_buffer_size`: a named key cache's own value (the cache's id).
    KeyCache(u32),
}

/// What an expression may ask of the session and engine while it runs.
pub trait Env {
    fn param(&self, index: usize) -> Datum;
    fn system_variable(&self, scope: VarScope, index: usize) -> Result<Datum, SqlError>;
    fn user_variable(&self, name: &str) -> Datum;
    fn database(&self) -> Option<String>;
    fn user(&self) -> String;
    fn current_user(&self) -> String;
    fn connection_id(&self) -> u32;
    fn last_insert_id(&self) -> u64;
    /// The statement's start time in microseconds since the epoch (fixed per statement).
    fn now_micros(&self) -> i64;
    fn div_precision_increment(&self) -> u32;
    /// Bytes: the longest string a function may build; longer gives NULL and warning 1301.
    fn max_allowed_packet(&self) -> u64 {
        DEFAULT_MAX_ALLOWED_PACKET
    }
    fn sql_mode(&self) -> u64;
    fn warnings(&mut self) -> &mut Vec<Warning>;
    /// The rows of an uncorrelated subquery.
    fn subquery(&mut self, query: &crate::parse::Stmt) -> Result<Vec<Vec<Datum>>, SqlError> {
        let _ = query;
        Err(SqlError::not_supported("subqueries here"))
    }
}

/// Scalar functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Concat,
    ConcatWs,
    Length,
    CharLength,
    Substring,
    Upper,
    Lower,
    Trim,
    LTrim,
    RTrim,
    Replace,
    Left,
    Right,
    LPad,
    RPad,
    Repeat,
    Reverse,
    Locate,
    Instr,
    Space,
    Ascii,
    Hex,
    Strcmp,
    Field,
    Insert,
    Abs,
    Round,
    Truncate,
    Floor,
    Ceil,
    Mod,
    Greatest,
    Least,
    Pow,
    Sqrt,
    Sign,
    Pi,
    Exp,
    Ln,
    Log10,
    Log2,
    If,
    IfNull,
    NullIf,
    Coalesce,
    IsNull,
    Version,
    Database,
    User,
    CurrentUser,
    ConnectionId,
    LastInsertId,
    Now,
    CurDate,
    UnixTimestamp,
    Sleep,
}

impl Func {
    fn by_name(name: &str) -> Option<(Func, usize, usize)> {
        // (function, minimum arguments, maximum arguments)
        let f = match name {
            "CONCAT" => (Func::Concat, 1, usize::MAX),
            "CONCAT_WS" => (Func::ConcatWs, 2, usize::MAX),
            "LENGTH" | "OCTET_LENGTH" => (Func::Length, 1, 1),
            "CHAR_LENGTH" | "CHARACTER_LENGTH" => (Func::CharLength, 1, 1),
            "SUBSTRING" | "SUBSTR" | "MID" => (Func::Substring, 2, 3),
            "UPPER" | "UCASE" => (Func::Upper, 1, 1),
            "LOWER" | "LCASE" => (Func::Lower, 1, 1),
            "TRIM" => (Func::Trim, 1, 1),
            "LTRIM" => (Func::LTrim, 1, 1),
            "RTRIM" => (Func::RTrim, 1, 1),
            "REPLACE" => (Func::Replace, 3, 3),
            "LEFT" => (Func::Left, 2, 2),
            "RIGHT" => (Func::Right, 2, 2),
            "LPAD" => (Func::LPad, 3, 3),
            "RPAD" => (Func::RPad, 3, 3),
            "REPEAT" => (Func::Repeat, 2, 2),
            "REVERSE" => (Func::Reverse, 1, 1),
            "LOCATE" => (Func::Locate, 2, 3),
            "INSTR" => (Func::Instr, 2, 2),
            "SPACE" => (Func::Space, 1, 1),
            "ASCII" | "ORD" => (Func::Ascii, 1, 1),
            "HEX" => (Func::Hex, 1, 1),
            "STRCMP" => (Func::Strcmp, 2, 2),
            "FIELD" => (Func::Field, 2, usize::MAX),
            "INSERT" => (Func::Insert, 4, 4),
            "ABS" => (Func::Abs, 1, 1),
            "ROUND" => (Func::Round, 1, 2),
            "TRUNCATE" => (Func::Truncate, 2, 2),
            "FLOOR" => (Func::Floor, 1, 1),
            "CEIL" | "CEILING" => (Func::Ceil, 1, 1),
            "MOD" => (Func::Mod, 2, 2),
            "GREATEST" => (Func::Greatest, 2, usize::MAX),
            "LEAST" => (Func::Least, 2, usize::MAX),
            "POW" | "POWER" => (Func::Pow, 2, 2),
            "SQRT" => (Func::Sqrt, 1, 1),
            "SIGN" => (Func::Sign, 1, 1),
            "PI" => (Func::Pi, 0, 0),
            "EXP" => (Func::Exp, 1, 1),
            "LN" => (Func::Ln, 1, 1),
            "LOG10" => (Func::Log10, 1, 1),
            "LOG2" => (Func::Log2, 1, 1),
            "IF" => (Func::If, 3, 3),
            "IFNULL" => (Func::IfNull, 2, 2),
            "NULLIF" => (Func::NullIf, 2, 2),
            "COALESCE" => (Func::Coalesce, 1, usize::MAX),
            "ISNULL" => (Func::IsNull, 1, 1),
            "VERSION" => (Func::Version, 0, 0),
            "DATABASE" | "SCHEMA" => (Func::Database, 0, 0),
            "USER" | "SESSION_USER" | "SYSTEM_USER" => (Func::User, 0, 0),
            "CURRENT_USER" => (Func::CurrentUser, 0, 0),
            "CONNECTION_ID" => (Func::ConnectionId, 0, 0),
            "LAST_INSERT_ID" => (Func::LastInsertId, 0, 0),
            "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE" => {
                (Func::Now, 0, 1)
            }
            "CURDATE" | "CURRENT_DATE" => (Func::CurDate, 0, 0),
            "UNIX_TIMESTAMP" => (Func::UnixTimestamp, 0, 0),
            "SLEEP" => (Func::Sleep, 1, 1),
            _ => return None,
        };
        Some(f)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    NullSafeEq,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastTo {
    Signed,
    Unsigned,
    Char,
    Decimal { precision: u32, scale: u32 },
    Double,
    Date,
    DateTime,
}

/// A compiled expression.
#[derive(Debug, Clone)]
pub enum Expr {
    Literal(Datum),
    Param(usize),
    Column(usize),
    SysVar {
        scope: VarScope,
        index: usize,
    },
    UserVar(String),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    BitNot(Box<Expr>),
    Arith {
        op: ArithOp,
        left: Box<Expr>,
        right: Box<Expr>,
        text: String,
        /// An operand of another arithmetic operator: a quotient keeps nine-digit groups
        /// of scale (as MariaDB's decimal arithmetic does) instead of rounding to its
        /// display scale, so `10 / 3 * 3` is 10.0000.
        intermediate: bool,
    },
    Cmp {
        op: CmpOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Xor(Box<Expr>, Box<Expr>),
    Bit {
        op: BinaryOperator,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    IsBool {
        expr: Box<Expr>,
        value: bool,
        negated: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
        /// The list's constants for lookups, when it is long and all constant (see
        /// [`crate::in_set`]).
        set: Option<Arc<crate::in_set::ConstSet>>,
    },
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: u8,
        negated: bool,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    Call {
        func: Func,
        args: Vec<Expr>,
    },
    TrimChars {
        expr: Box<Expr>,
        what: Box<Expr>,
        leading: bool,
        trailing: bool,
    },
    Cast {
        expr: Box<Expr>,
        to: CastTo,
    },
    /// A scalar subquery (uncorrelated: evaluated once per statement).
    Subquery(Arc<crate::parse::Stmt>),
    InSubquery {
        expr: Box<Expr>,
        query: Arc<crate::parse::Stmt>,
        negated: bool,
    },
    Exists {
        query: Arc<crate::parse::Stmt>,
        negated: bool,
    },
}

/// Names of the columns an expression may reference, for compilation.
#[derive(Debug, Clone, Default)]
pub struct ColumnScope {
    /// (table or alias, column name) per row position.
    pub columns: Vec<(Option<std::sync::Arc<str>>, String)>,
}

impl ColumnScope {
    fn resolve(&self, table: Option<&str>, name: &str) -> Result<usize, SqlError> {
        let mut found = None;
        for (i, (t, c)) in self.columns.iter().enumerate() {
            let table_ok = match (table, t) {
                (None, _) => true,
                (Some(want), Some(have)) => want.eq_ignore_ascii_case(have),
                (Some(_), None) => false,
            };
            if table_ok && c.eq_ignore_ascii_case(name) {
                if found.is_some() && table.is_none() {
                    return Err(SqlError::new(
                        ER_NON_UNIQ_ERROR,
                        format!("Column '{name}' in field list is ambiguous"),
                    ));
                }
                found = Some(i);
            }
        }
        found.ok_or_else(|| {
            let full = match table {
                Some(t) => format!("{t}.{name}"),
                None => name.to_string(),
            };
            SqlError::new(
                ER_BAD_FIELD_ERROR,
                format!("Unknown column '{full}' in 'field list'"),
            )
        })
    }
}

/// Compile-time context: the source text (for names and error messages), the columns in
/// scope, and the text position of each `?` (to number them in text order).
#[derive(Clone, Copy)]
pub struct Compiler<'a> {
    pub source: &'a str,
    pub scope: &'a ColumnScope,
    pub placeholders: &'a HashMap<(u64, u64), usize>,
    pub pipes_as_concat: bool,
    /// What subqueries compile against (None where subqueries cannot appear).
    pub ctx: Option<&'a crate::parse::CompileCtx<'a>>,
    pub map: Option<&'a crate::parse::SourceMap>,
    /// The long literal lists taken out of the statement before sqlparser (see
    /// [`crate::const_lists`]).
    pub lists: Option<&'a crate::const_lists::ListSource<'a>>,
}

pub fn err_syntax(near: &str) -> SqlError {
    let near: String = near.chars().take(80).collect();
    SqlError::new(ER_PARSE_ERROR,
        format!(
            "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{near}' at line 1"
        ),
    )
}

fn err_function(name: &str) -> SqlError {
    SqlError::new(
        ER_SP_DOES_NOT_EXIST,
        format!("FUNCTION {name} does not exist"),
    )
}

fn err_param_count(name: &str) -> SqlError {
    SqlError::new(
        ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
        format!("Incorrect parameter count in the call to native function '{name}'"),
    )
}

impl Compiler<'_> {
    pub fn compile(&self, e: &ast::Expr) -> Result<Expr, SqlError> {
        use ast::Expr as E;
        crate::depth::check_stack()?;
        Ok(match e {
            E::Value(v) => self.value(v)?,
            E::Nested(inner) => self.compile(inner)?,
            E::Identifier(id) => self.identifier(None, id)?,
            E::CompoundIdentifier(parts) => self.compound(parts)?,
            E::UnaryOp { op, expr } => {
                let inner = self.compile(expr)?;
                match op {
                    UnaryOperator::Minus => {
                        let number = matches!(
                            expr.as_ref(),
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
                }
            }
            E::BinaryOp { left, op, right } => self.binary(left, op, right)?,
            E::IsNull(x) => Expr::IsNull {
                expr: Box::new(self.compile(x)?),
                negated: false,
            },
            E::IsNotNull(x) => Expr::IsNull {
                expr: Box::new(self.compile(x)?),
                negated: true,
            },
            E::IsTrue(x) => Expr::IsBool {
                expr: Box::new(self.compile(x)?),
                value: true,
                negated: false,
            },
            E::IsNotTrue(x) => Expr::IsBool {
                expr: Box::new(self.compile(x)?),
                value: true,
                negated: true,
            },
            E::IsFalse(x) => Expr::IsBool {
                expr: Box::new(self.compile(x)?),
                value: false,
                negated: false,
            },
            E::IsNotFalse(x) => Expr::IsBool {
                expr: Box::new(self.compile(x)?),
                value: false,
                negated: true,
            },
            E::IsUnknown(x) => Expr::IsNull {
                expr: Box::new(self.compile(x)?),
                negated: false,
            },
            E::IsNotUnknown(x) => Expr::IsNull {
                expr: Box::new(self.compile(x)?),
                negated: true,
            },
            E::InList {
                expr,
                list,
                negated,
            } => {
                let expr = Box::new(self.compile(expr)?);
                let list: Vec<Expr> = match self.const_list(list) {
                    Some(items) => items?,
                    None => list
                        .iter()
                        .map(|x| self.compile(x))
                        .collect::<Result<_, _>>()?,
                };
                let constants: Option<Vec<&Datum>> = list
                    .iter()
                    .map(|x| match x {
                        Expr::Literal(d) => Some(d),
                        _ => None,
                    })
                    .collect();
                let set = constants
                    .and_then(|c| crate::in_set::ConstSet::build(c.into_iter()))
                    .map(Arc::new);
                Expr::InList {
                    expr,
                    list,
                    negated: *negated,
                    set,
                }
            }
            E::Between {
                expr,
                negated,
                low,
                high,
            } => Expr::Between {
                expr: Box::new(self.compile(expr)?),
                low: Box::new(self.compile(low)?),
                high: Box::new(self.compile(high)?),
                negated: *negated,
            },
            E::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char,
            } => {
                let escape = match escape_char.as_deref() {
                    None => b'\\',
                    Some(ast::Expr::Value(v)) => match &v.value {
                        ast::Value::SingleQuotedString(s) if s.len() == 1 => s.as_bytes()[0],
                        ast::Value::SingleQuotedString(s) if s.is_empty() => b'\\',
                        _ => {
                            return Err(SqlError::new(
                                ER_WRONG_ARGUMENTS,
                                "Incorrect arguments to ESCAPE",
                            ))
                        }
                    },
                    Some(_) => {
                        return Err(SqlError::new(
                            ER_WRONG_ARGUMENTS,
                            "Incorrect arguments to ESCAPE",
                        ))
                    }
                };
                Expr::Like {
                    expr: Box::new(self.compile(expr)?),
                    pattern: Box::new(self.compile(pattern)?),
                    escape,
                    negated: *negated,
                }
            }
            E::Case {
                operand,
                conditions,
                else_result,
                ..
            } => Expr::Case {
                operand: operand
                    .as_deref()
                    .map(|o| self.compile(o))
                    .transpose()?
                    .map(Box::new),
                whens: conditions
                    .iter()
                    .map(|w| Ok((self.compile(&w.condition)?, self.compile(&w.result)?)))
                    .collect::<Result<_, SqlError>>()?,
                otherwise: else_result
                    .as_deref()
                    .map(|o| self.compile(o))
                    .transpose()?
                    .map(Box::new),
            },
            E::Function(f) => self.function(f)?,
            E::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                if substring_from.is_none() {
                    return Err(err_syntax(&e.to_string()));
                }
                let mut args = vec![self.compile(expr)?];
                args.push(match substring_from {
                    Some(from) => self.compile(from)?,
                    None => Expr::Literal(Datum::Int(1)),
                });
                if let Some(len) = substring_for {
                    args.push(self.compile(len)?);
                }
                Expr::Call {
                    func: Func::Substring,
                    args,
                }
            }
            E::Trim {
                trim_where,
                trim_what,
                expr,
                trim_characters,
            } => {
                if trim_characters.is_some() {
                    return Err(err_syntax(&e.to_string()));
                }
                let (leading, trailing) = match trim_where {
                    Some(ast::TrimWhereField::Leading) => (true, false),
                    Some(ast::TrimWhereField::Trailing) => (false, true),
                    _ => (true, true),
                };
                let what = match trim_what {
                    Some(w) => self.compile(w)?,
                    None => Expr::Literal(Datum::text(" ")),
                };
                Expr::TrimChars {
                    expr: Box::new(self.compile(expr)?),
                    what: Box::new(what),
                    leading,
                    trailing,
                }
            }
            E::Position { expr, r#in } => Expr::Call {
                func: Func::Locate,
                args: vec![self.compile(expr)?, self.compile(r#in)?],
            },
            E::Ceil { expr, .. } => Expr::Call {
                func: Func::Ceil,
                args: vec![self.compile(expr)?],
            },
            E::Floor { expr, .. } => Expr::Call {
                func: Func::Floor,
                args: vec![self.compile(expr)?],
            },
            E::Cast {
                expr, data_type, ..
            } => Expr::Cast {
                expr: Box::new(self.compile(expr)?),
                to: cast_target(data_type)?,
            },
            E::Convert {
                expr,
                data_type,
                charset,
                ..
            } => match (data_type, charset) {
                (Some(dt), _) => Expr::Cast {
                    expr: Box::new(self.compile(expr)?),
                    to: cast_target(dt)?,
                },
                (None, Some(_)) => Expr::Cast {
                    expr: Box::new(self.compile(expr)?),
                    to: CastTo::Char,
                },
                (None, None) => return Err(err_syntax(&e.to_string())),
            },
            E::Collate { expr, .. } => self.compile(expr)?,
            E::TypedString(ts) => {
                let text = match &ts.value.value {
                    ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                        s.clone()
                    }
                    _ => return Err(err_syntax(&e.to_string())),
                };
                let to = match ts.data_type {
                    ast::DataType::Date => CastTo::Date,
                    ast::DataType::Datetime(_) | ast::DataType::Timestamp(_, _) => CastTo::DateTime,
                    _ => CastTo::Char,
                };
                let cast = Expr::Cast {
                    expr: Box::new(Expr::Literal(Datum::Str(text.into_bytes()))),
                    to,
                };
                let mut warnings = Vec::new();
                match eval_const(&cast, &mut warnings) {
                    Some(Datum::Null) | None => {
                        return Err(SqlError::new(
                            ER_WRONG_VALUE,
                            format!("Incorrect DATE value: '{}'", ts.value),
                        ))
                    }
                    Some(d) => Expr::Literal(d),
                }
            }
            E::Subquery(q) => Expr::Subquery(Arc::new(self.subquery(q)?)),
            E::InSubquery {
                expr,
                subquery,
                negated,
            } => Expr::InSubquery {
                expr: Box::new(self.compile(expr)?),
                query: Arc::new(self.subquery(subquery)?),
                negated: *negated,
            },
            E::Exists { subquery, negated } => Expr::Exists {
                query: Arc::new(self.subquery(subquery)?),
                negated: *negated,
            },
            E::Prefixed { prefix, value } => self.introduced(&prefix.value, value)?,
            other => return Err(SqlError::not_supported(&format!("expression {other}"))),
        })
    }

    /// A string literal with a character set introducer (`_binary'..'`, `_utf8mb4 X'..'`):
    /// the literal's bytes as they are. Values carry no character set, so only the
    /// character sets whose bytes need no conversion are accepted.
    fn introduced(&self, charset: &str, value: &ast::Expr) -> Result<Expr, SqlError> {
        let known = ["_binary", "_utf8mb4", "_utf8", "_utf8mb3"];
        if !known.iter().any(|k| k.eq_ignore_ascii_case(charset)) {
            return Err(SqlError::not_supported(&format!(
                "character set introducer {charset}"
            )));
        }
        match value {
            ast::Expr::Value(v) => self.value(v),
            other => Err(err_syntax(&other.to_string())),
        }
    }

    /// Compile a subquery on its own (columns of the outer query are not visible: only
    /// uncorrelated subqueries are supported).
    fn subquery(&self, q: &ast::Query) -> Result<crate::parse::Stmt, SqlError> {
        let (Some(ctx), Some(map)) = (self.ctx, self.map) else {
            return Err(SqlError::not_supported("subqueries here"));
        };
        let empty = ColumnScope::default();
        let inner = Compiler {
            scope: &empty,
            ..*self
        };
        crate::parse::compile_subquery(q, map, &inner, ctx)
    }

    /// The constants of a literal list taken out before sqlparser, when `list` is the
    /// placeholder that stands for one.
    fn const_list(&self, list: &[ast::Expr]) -> Option<Result<Vec<Expr>, SqlError>> {
        use sqlparser::tokenizer::Token;
        let [ast::Expr::Value(v)] = list else {
            return None;
        };
        let ast::Value::Placeholder(p) = &v.value else {
            return None;
        };
        let source = self.lists?;
        let range = source
            .lists
            .get(crate::const_lists::list_index(p)?)?
            .clone();
        let items = crate::const_lists::items(&source.tokens[range]).map(|item| {
            let value = match &item.token.token {
                Token::Number(text, long) => ast::Value::Number(text.clone(), *long),
                Token::SingleQuotedString(s) => ast::Value::SingleQuotedString(s.clone()),
                _ => ast::Value::Null,
            };
            let number = matches!(value, ast::Value::Number(..));
            let literal = self.value(&value.with_span(item.token.span))?;
            if item.negative {
                negate(literal, number)
            } else {
                Ok(literal)
            }
        });
        Some(items.collect())
    }

    fn value(&self, v: &ast::ValueWithSpan) -> Result<Expr, SqlError> {
        use ast::Value as V;
        Ok(match &v.value {
            V::Number(text, _) => Expr::Literal(number_literal(text)?),
            V::SingleQuotedString(s) | V::DoubleQuotedString(s) | V::NationalStringLiteral(s) => {
                Expr::Literal(Datum::Str(s.clone().into_bytes()))
            }
            V::EscapedStringLiteral(s) | V::UnicodeStringLiteral(s) => {
                Expr::Literal(Datum::Str(s.clone().into_bytes()))
            }
            V::HexStringLiteral(h) => {
                let padded = if h.len() % 2 == 1 {
                    format!("0{h}")
                } else {
                    h.clone()
                };
                let bytes: Option<Vec<u8>> = (0..padded.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&padded[i..i + 2], 16).ok())
                    .collect();
                Expr::Literal(Datum::Str(bytes.ok_or_else(|| err_syntax(h))?))
            }
            V::SingleQuotedByteStringLiteral(bits) => {
                // b'0101': a bit string; its bytes, most significant first.
                let value = u128::from_str_radix(if bits.is_empty() { "0" } else { bits }, 2)
                    .map_err(|_| err_syntax(bits))?;
                let bytes = value.to_be_bytes();
                let skip = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len());
                Expr::Literal(Datum::Str(bytes[skip..].to_vec()))
            }
            V::Boolean(b) => Expr::Literal(Datum::Int(i64::from(*b))),
            V::Null => Expr::Literal(Datum::Null),
            V::Placeholder(p) if p == "?" => {
                let at = (v.span.start.line, v.span.start.column);
                Expr::Param(*self.placeholders.get(&at).ok_or_else(|| err_syntax("?"))?)
            }
            other => return Err(err_syntax(&other.to_string())),
        })
    }

    fn identifier(&self, table: Option<&str>, id: &ast::Ident) -> Result<Expr, SqlError> {
        let name = id.value.as_str();
        if id.quote_style.is_none() {
            if let Some(var) = name.strip_prefix("@@") {
                return self.system_var(VarScope::Default, var);
            }
            if let Some(user) = name.strip_prefix('@') {
                return Ok(Expr::UserVar(
                    user.trim_matches(['`', '\'', '"']).to_ascii_lowercase(),
                ));
            }
        }
        match self.scope.resolve(table, name) {
            Ok(i) => Ok(Expr::Column(i)),
            Err(e) if table.is_none() && id.quote_style.is_none() => {
                // Niladic functions MySQL accepts without parentheses.
                let func = match name.to_ascii_uppercase().as_str() {
                    "CURRENT_USER" => Func::CurrentUser,
                    "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" => Func::Now,
                    "CURRENT_DATE" => Func::CurDate,
                    _ => return Err(e),
                };
                Ok(Expr::Call {
                    func,
                    args: Vec::new(),
                })
            }
            Err(e) => Err(e),
        }
    }

    fn compound(&self, parts: &[ast::Ident]) -> Result<Expr, SqlError> {
        let first = &parts[0];
        let written_scope = || match first.value[2..].to_ascii_lowercase().as_str() {
            "session" | "local" => Some(VarScope::Session),
            "global" => Some(VarScope::Global),
            _ => None,
        };
        if first.quote_style.is_none() && first.value.starts_with("@@") && parts.len() == 2 {
            let Some(scope) = written_scope() else {
                // @@cache.variable: a structured key cache variable.
                return crate::key_cache::compile_structured(
                    self.ctx,
                    VarScope::Default,
                    &first.value[2..],
                    &parts[1].value,
                );
            };
            return self.system_var(scope, &parts[1].value);
        }
        if first.quote_style.is_none() && first.value.starts_with("@@") && parts.len() == 3 {
            if let Some(scope) = written_scope() {
                // @@global.cache.variable
                return crate::key_cache::compile_structured(
                    self.ctx,
                    scope,
                    &parts[1].value,
                    &parts[2].value,
                );
            }
        }
        match parts {
            [table, column] => self.identifier(Some(&table.value), column),
            [_db, table, column] => self.identifier(Some(&table.value), column),
            _ => Err(err_syntax(
                &parts
                    .iter()
                    .map(|p| p.value.as_str())
                    .collect::<Vec<_>>()
                    .join("."),
            )),
        }
    }

    fn system_var(&self, scope: VarScope, name: &str) -> Result<Expr, SqlError> {
        let index = sysvars::lookup(name).ok_or_else(|| sysvars::err_unknown(name))?;
        let def = sysvars::def(index);
        match (scope, def.scope) {
            (VarScope::Session, sysvars::Scope::Global) => Err(SqlError::new(
                ER_INCORRECT_GLOBAL_LOCAL_VAR,
                format!("Variable '{}' is a GLOBAL variable", def.name),
            )),
            (VarScope::Global, sysvars::Scope::Session) => Err(SqlError::new(
                ER_INCORRECT_GLOBAL_LOCAL_VAR,
                format!("Variable '{}' is a SESSION variable", def.name),
            )),
            _ => Ok(Expr::SysVar { scope, index }),
        }
    }

    fn binary(
        &self,
        left: &ast::Expr,
        op: &BinaryOperator,
        right: &ast::Expr,
    ) -> Result<Expr, SqlError> {
        let mut l = Box::new(self.compile(left)?);
        let mut r = Box::new(self.compile(right)?);
        let arithmetic = matches!(
            op,
            BinaryOperator::Plus
                | BinaryOperator::Minus
                | BinaryOperator::Multiply
                | BinaryOperator::Divide
                | BinaryOperator::Modulo
                | BinaryOperator::MyIntegerDivide
        );
        if arithmetic {
            for operand in [&mut l, &mut r] {
                if let Expr::Arith { intermediate, .. } = operand.as_mut() {
                    *intermediate = true;
                }
            }
        }
        let arith = |kind, l: Box<Expr>, r: Box<Expr>| Expr::Arith {
            op: kind,
            text: arith_text(left, &l, op, right, &r),
            left: l,
            right: r,
            intermediate: false,
        };
        let cmp = |op, left, right| Expr::Cmp { op, left, right };
        Ok(match op {
            BinaryOperator::Plus => arith(ArithOp::Add, l, r),
            BinaryOperator::Minus => arith(ArithOp::Sub, l, r),
            BinaryOperator::Multiply => arith(ArithOp::Mul, l, r),
            BinaryOperator::Divide => arith(ArithOp::Div, l, r),
            BinaryOperator::Modulo => arith(ArithOp::Mod, l, r),
            BinaryOperator::MyIntegerDivide | BinaryOperator::DuckIntegerDivide => {
                arith(ArithOp::IntDiv, l, r)
            }
            BinaryOperator::Eq => cmp(CmpOp::Eq, l, r),
            BinaryOperator::NotEq => cmp(CmpOp::NotEq, l, r),
            BinaryOperator::Lt => cmp(CmpOp::Lt, l, r),
            BinaryOperator::LtEq => cmp(CmpOp::LtEq, l, r),
            BinaryOperator::Gt => cmp(CmpOp::Gt, l, r),
            BinaryOperator::GtEq => cmp(CmpOp::GtEq, l, r),
            BinaryOperator::Spaceship => cmp(CmpOp::NullSafeEq, l, r),
            BinaryOperator::And => Expr::And(l, r),
            BinaryOperator::Or => Expr::Or(l, r),
            BinaryOperator::StringConcat if self.pipes_as_concat => Expr::Call {
                func: Func::Concat,
                args: vec![*l, *r],
            },
            BinaryOperator::StringConcat => Expr::Or(l, r),
            BinaryOperator::Xor => Expr::Xor(l, r),
            BinaryOperator::BitwiseAnd
            | BinaryOperator::BitwiseOr
            | BinaryOperator::BitwiseXor
            | BinaryOperator::PGBitwiseXor
            | BinaryOperator::PGBitwiseShiftLeft
            | BinaryOperator::PGBitwiseShiftRight => Expr::Bit {
                op: op.clone(),
                left: l,
                right: r,
            },
            other => return Err(SqlError::not_supported(&format!("operator {other}"))),
        })
    }

    fn function(&self, f: &ast::Function) -> Result<Expr, SqlError> {
        let name = f.name.to_string().to_ascii_uppercase();
        let args: Vec<&ast::Expr> = match &f.args {
            ast::FunctionArguments::None => Vec::new(),
            ast::FunctionArguments::List(list) => list
                .args
                .iter()
                .map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => Ok(x),
                    _ => Err(err_syntax(&a.to_string())),
                })
                .collect::<Result<_, _>>()?,
            ast::FunctionArguments::Subquery(_) => {
                return Err(SqlError::not_supported("subqueries"))
            }
        };
        let (func, min, max) = Func::by_name(&name).ok_or_else(|| err_function(&name))?;
        if args.len() < min || args.len() > max {
            return Err(err_param_count(&name));
        }
        let args: Vec<Expr> = args
            .into_iter()
            .map(|a| self.compile(a))
            .collect::<Result<_, _>>()?;
        Ok(Expr::Call { func, args })
    }
}

/// `-x`: a literal is negated at compile time (as MySQL reads `-5` as one literal).
/// `number` says that `inner` was written as a number, so that a decimal literal too wide
/// for [`Decimal`] (kept as its digits) negates exactly.
fn negate(inner: Expr, number: bool) -> Result<Expr, SqlError> {
    Ok(match inner {
        Expr::Literal(Datum::UInt(u)) if u <= 1 << 63 => {
            Expr::Literal(Datum::Int((u as i128).wrapping_neg() as i64))
        }
        Expr::Literal(Datum::UInt(u)) => Expr::Literal(Datum::Dec(-Decimal::from(u))),
        Expr::Literal(Datum::Int(i)) if i != i64::MIN => Expr::Literal(Datum::Int(-i)),
        Expr::Literal(Datum::Dec(d)) => Expr::Literal(Datum::Dec(-d)),
        Expr::Literal(Datum::Double(f)) => Expr::Literal(Datum::Double(-f)),
        Expr::Literal(Datum::Str(digits)) if number => {
            let text = String::from_utf8_lossy(&digits);
            crate::decimal::literal(&format!("-{text}"))
                .map(Expr::Literal)
                .ok_or_else(|| err_syntax(&text))?
        }
        other => Expr::Neg(Box::new(other)),
    })
}

/// The longest expression text an arithmetic error quotes (MariaDB's messages stop at 512
/// bytes too).
const EXPR_TEXT_MAX_BYTES: usize = 512;

/// `(left op right)` as sqlparser prints it, for the operator's out-of-range error. An
/// operand that is itself arithmetic lends its own text, so a chain of N operators costs
/// O(N) instead of printing every sub-chain again; the text stops at
/// [`EXPR_TEXT_MAX_BYTES`].
fn arith_text(
    left_ast: &ast::Expr,
    left: &Expr,
    op: &BinaryOperator,
    right_ast: &ast::Expr,
    right: &Expr,
) -> String {
    use std::fmt::Write;
    let mut out = BoundedText(String::from("("));
    operand_text(&mut out, left_ast, left);
    let _ = write!(out, " {op} ");
    operand_text(&mut out, right_ast, right);
    let _ = out.write_str(")");
    out.0
}

fn operand_text(out: &mut BoundedText, mut ast: &ast::Expr, compiled: &Expr) {
    use std::fmt::Write;
    let mut parens = 0;
    while let ast::Expr::Nested(inner) = ast {
        parens += 1;
        ast = inner;
    }
    for _ in 0..parens {
        let _ = out.write_str("(");
    }
    match (ast, compiled) {
        (ast::Expr::BinaryOp { .. }, Expr::Arith { text, .. }) => {
            // `text` is "(operand)": its own parentheses stand for one Nested level.
            let bare = match text.strip_suffix(')') {
                Some(t) if text.len() < EXPR_TEXT_MAX_BYTES => &t[1..],
                _ => &text[1..],
            };
            let _ = out.write_str(bare);
        }
        _ => {
            let _ = write!(out, "{ast}");
        }
    }
    for _ in 0..parens {
        let _ = out.write_str(")");
    }
}

/// A text that keeps its first [`EXPR_TEXT_MAX_BYTES`] and stops the printer after them.
struct BoundedText(String);

impl std::fmt::Write for BoundedText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let room = EXPR_TEXT_MAX_BYTES.saturating_sub(self.0.len());
        if s.len() <= room {
            self.0.push_str(s);
            return Ok(());
        }
        let mut cut = room;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.0.push_str(&s[..cut]);
        Err(std::fmt::Error)
    }
}

fn cast_target(dt: &ast::DataType) -> Result<CastTo, SqlError> {
    use ast::DataType as D;
    Ok(match dt {
        D::Signed | D::SignedInteger | D::Int(_) | D::Integer(_) | D::BigInt(_) => CastTo::Signed,
        D::Unsigned | D::UnsignedInteger => CastTo::Unsigned,
        D::Char(_) | D::Varchar(_) | D::Text | D::Binary(_) | D::String(_) => CastTo::Char,
        D::Decimal(info) | D::Numeric(info) | D::Dec(info) => {
            let (precision, scale) = match info {
                ast::ExactNumberInfo::None => (10, 0),
                ast::ExactNumberInfo::Precision(p) => (*p as u32, 0),
                ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p as u32, (*s).max(0) as u32),
            };
            CastTo::Decimal { precision, scale }
        }
        D::Double(_) | D::DoublePrecision | D::Float(_) | D::Real => CastTo::Double,
        D::Date => CastTo::Date,
        D::Datetime(_) | D::Timestamp(_, _) => CastTo::DateTime,
        other => return Err(SqlError::not_supported(&format!("CAST AS {other}"))),
    })
}

/// An integer literal is BIGINT if it fits, BIGINT UNSIGNED up to 2^64-1, DECIMAL beyond;
/// a literal with a point is DECIMAL; one with an exponent is DOUBLE.
pub fn number_literal(text: &str) -> Result<Datum, SqlError> {
    if text.contains(['e', 'E']) {
        return text
            .parse::<f64>()
            .map(Datum::Double)
            .map_err(|_| err_syntax(text));
    }
    let too_big = || {
        SqlError::new(
            ER_TOO_BIG_PRECISION,
            format!("Too big precision specified for '{text}'"),
        )
    };
    let wide_literal = || {
        // Kept exactly (as digits when the evaluator's decimal cannot hold them), up to
        // MariaDB's 65 digits.
        let digits = text.bytes().filter(u8::is_ascii_digit).count() as u64;
        if digits > crate::decimal::MARIADB_MAX_PRECISION {
            return Err(too_big());
        }
        crate::decimal::literal(text).ok_or_else(|| err_syntax(text))
    };
    if text.contains('.') {
        return wide_literal();
    }
    if let Ok(i) = text.parse::<i64>() {
        return Ok(Datum::Int(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Ok(Datum::UInt(u));
    }
    wide_literal()
}

/// Evaluate an expression that needs nothing from a session (constant folding of literals).
fn eval_const(e: &Expr, warnings: &mut Vec<Warning>) -> Option<Datum> {
    struct NoEnv<'a>(&'a mut Vec<Warning>);
    impl Env for NoEnv<'_> {
        fn param(&self, _: usize) -> Datum {
            Datum::Null
        }
        fn system_variable(&self, _: VarScope, _: usize) -> Result<Datum, SqlError> {
            Ok(Datum::Null)
        }
        fn user_variable(&self, _: &str) -> Datum {
            Datum::Null
        }
        fn database(&self) -> Option<String> {
            None
        }
        fn user(&self) -> String {
            String::new()
        }
        fn current_user(&self) -> String {
            String::new()
        }
        fn connection_id(&self) -> u32 {
            0
        }
        fn last_insert_id(&self) -> u64 {
            0
        }
        fn now_micros(&self) -> i64 {
            0
        }
        fn div_precision_increment(&self) -> u32 {
            4
        }
        fn sql_mode(&self) -> u64 {
            0
        }
        fn warnings(&mut self) -> &mut Vec<Warning> {
            self.0
        }
    }
    e.eval(&mut NoEnv(warnings), &[]).ok()
}

fn bool_datum(b: Option<bool>) -> Datum {
    match b {
        None => Datum::Null,
        Some(b) => Datum::Int(i64::from(b)),
    }
}

/// A binary string's bytes as chars of the same numbers (U+0000..U+00FF), so that char
/// operations move whole bytes; [`chars_as_bytes`] writes them back.
fn bytes_as_chars(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// The inverse of [`bytes_as_chars`]: every char of the text is at most U+00FF.
fn chars_as_bytes(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match u8::try_from(u32::from(c)) {
            Ok(b) => out.push(b),
            // Not reached (every char came from a byte); kept whole rather than cut.
            Err(_) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

fn text_of(d: &Datum) -> Option<String> {
    d.to_text()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn datetime_from_micros(micros: i64, keep_micros: bool) -> Datum {
    let secs = micros.div_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    Datum::DateTime {
        year: y.clamp(0, 9999) as u16,
        month: m as u8,
        day: d as u8,
        hour: (rem / 3600) as u8,
        minute: (rem % 3600 / 60) as u8,
        second: (rem % 60) as u8,
        micros: if keep_micros {
            micros.rem_euclid(1_000_000) as u32
        } else {
            0
        },
    }
}

/// Parse 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]'.
/// The last day of a month (31 for month 0: a zero month, allowed without
/// NO_ZERO_IN_DATE, bounds the day by 31 as MariaDB does).
pub fn days_in_month(year: u16, month: u8) -> u8 {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

pub fn parse_datetime(text: &str) -> Option<Datum> {
    let text = text.trim();
    let (date, time) = match text.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (text, None),
    };
    let mut parts = date.split('-');
    let year: u16 = parts.next()?.parse().ok()?;
    let month: u8 = parts.next()?.parse().ok()?;
    let day: u8 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || month > 12 || day > days_in_month(year, month) {
        return None;
    }
    let Some(time) = time else {
        return Some(Datum::Date { year, month, day });
    };
    let (hms, frac) = match time.split_once('.') {
        Some((h, f)) => (h, Some(f)),
        None => (time, None),
    };
    let mut t = hms.split(':');
    let hour: u8 = t.next()?.parse().ok()?;
    let minute: u8 = t.next().unwrap_or("0").parse().ok()?;
    let second: u8 = t.next().unwrap_or("0").parse().ok()?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let micros = match frac {
        Some(f) if !f.is_empty() && f.len() <= 6 && f.bytes().all(|b| b.is_ascii_digit()) => {
            f.parse::<u32>().ok()? * 10u32.pow(6 - f.len() as u32)
        }
        Some(_) => return None,
        None => 0,
    };
    Some(Datum::DateTime {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micros,
    })
}

impl Expr {
    /// Whether `f` holds for every direct operand of this expression, visited in order and
    /// stopping at the first false. A subquery's own statement is not an operand (its
    /// columns are another row's): walkers that care match the subquery forms themselves.
    pub fn all_operands(&self, mut f: impl FnMut(&Expr) -> bool) -> bool {
        match self {
            Expr::Literal(_)
            | Expr::Param(_)
            | Expr::Column(_)
            | Expr::SysVar { .. }
            | Expr::UserVar(_)
            | Expr::Subquery(_)
            | Expr::Exists { .. } => true,
            Expr::Neg(x) | Expr::Not(x) | Expr::BitNot(x) => f(x),
            Expr::Arith { left, right, .. }
            | Expr::Cmp { left, right, .. }
            | Expr::Bit { left, right, .. } => f(left) && f(right),
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Xor(a, b) => f(a) && f(b),
            Expr::IsNull { expr, .. }
            | Expr::IsBool { expr, .. }
            | Expr::Cast { expr, .. }
            | Expr::InSubquery { expr, .. } => f(expr),
            Expr::InList { expr, list, .. } => f(expr) && list.iter().all(f),
            Expr::Between {
                expr, low, high, ..
            } => f(expr) && f(low) && f(high),
            Expr::Like { expr, pattern, .. } => f(expr) && f(pattern),
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => {
                operand.as_deref().is_none_or(&mut f)
                    && whens.iter().all(|(a, b)| f(a) && f(b))
                    && otherwise.as_deref().is_none_or(&mut f)
            }
            Expr::Call { args, .. } => args.iter().all(f),
            Expr::TrimChars { expr, what, .. } => f(expr) && f(what),
        }
    }

    /// The static type, given the types of the row's columns and the session (for
    /// parameters, whose types are known once they are bound).
    pub fn sql_type(&self, env: &dyn Env, columns: &[SqlType]) -> SqlType {
        let ty = |e: &Expr| e.sql_type(env, columns);
        let int = |len| SqlType::Int {
            unsigned: false,
            len,
        };
        match self {
            Expr::Literal(d) => d.sql_type(),
            Expr::Param(i) => env.param(*i).sql_type(),
            Expr::Column(i) => columns.get(*i).copied().unwrap_or(SqlType::Null),
            Expr::SysVar { index, .. } => match sysvars::def(*index).kind {
                // MariaDB reports boolean variables as BIGINT.
                sysvars::Kind::Bool => int(21),
                sysvars::Kind::UInt { .. } => SqlType::Int {
                    unsigned: true,
                    len: 21,
                },
                sysvars::Kind::Int { .. } => int(21),
                sysvars::Kind::Double { .. } => SqlType::Double,
                _ => SqlType::Str { chars: 2048 },
            },
            Expr::UserVar(name) => match env.user_variable(name) {
                Datum::Null => SqlType::Str { chars: 0 },
                Datum::Int(_) | Datum::UInt(_) => int(20),
                d => d.sql_type(),
            },
            Expr::Neg(x) => match ty(x) {
                SqlType::Int { len, .. } => int(len + 1),
                SqlType::Str { .. } | SqlType::Null => SqlType::Double,
                other => other,
            },
            Expr::Not(_) | Expr::Cmp { .. } | Expr::And(..) | Expr::Or(..) | Expr::Xor(..) => {
                int(1)
            }
            Expr::IsNull { .. }
            | Expr::IsBool { .. }
            | Expr::InList { .. }
            | Expr::Between { .. }
            | Expr::Like { .. } => int(1),
            Expr::BitNot(_) | Expr::Bit { .. } => SqlType::Int {
                unsigned: true,
                len: 21,
            },
            Expr::Arith {
                op, left, right, ..
            } => arith_type(*op, ty(left), ty(right), env.div_precision_increment()),
            Expr::Case {
                whens, otherwise, ..
            } => {
                let mut types: Vec<SqlType> = whens.iter().map(|(_, r)| ty(r)).collect();
                if let Some(o) = otherwise {
                    types.push(ty(o));
                }
                aggregate_type(&types)
            }
            Expr::TrimChars { expr, .. } => ty(expr),
            Expr::Subquery(q) => crate::parse::first_column_type(q, env),
            Expr::InSubquery { .. } | Expr::Exists { .. } => int(1),
            Expr::Cast { expr, to } => match to {
                CastTo::Signed => int(eval::display_chars(ty(expr)).clamp(1, 21)),
                CastTo::Unsigned => SqlType::Int {
                    unsigned: true,
                    len: 21,
                },
                CastTo::Char => SqlType::Str {
                    chars: eval::display_chars(ty(expr)),
                },
                CastTo::Decimal { precision, scale } => SqlType::Decimal {
                    precision: *precision,
                    scale: *scale,
                },
                CastTo::Double => SqlType::Double,
                CastTo::Date => SqlType::Date,
                CastTo::DateTime => SqlType::DateTime,
            },
            Expr::Call { func, args } => {
                let arg = |i: usize| args.get(i).map(ty).unwrap_or(SqlType::Null);
                let chars = |i: usize| eval::display_chars(arg(i));
                match func {
                    Func::Concat => SqlType::Str {
                        chars: args.iter().map(|a| eval::display_chars(ty(a))).sum(),
                    },
                    Func::ConcatWs => SqlType::Str {
                        chars: args.iter().map(|a| eval::display_chars(ty(a))).sum::<u32>()
                            + chars(0) * (args.len().saturating_sub(2) as u32),
                    },
                    Func::Upper
                    | Func::Lower
                    | Func::Trim
                    | Func::LTrim
                    | Func::RTrim
                    | Func::Reverse => SqlType::Str { chars: chars(0) },
                    Func::Substring | Func::Left | Func::Right => SqlType::Str { chars: chars(0) },
                    Func::Replace | Func::Repeat | Func::LPad | Func::RPad | Func::Insert => {
                        SqlType::Str {
                            chars: chars(0).max(chars(2)).max(1).saturating_mul(4),
                        }
                    }
                    Func::Space => SqlType::Str { chars: 255 },
                    Func::Hex => SqlType::Str {
                        chars: chars(0) * 2,
                    },
                    Func::Version => SqlType::Str { chars: 64 },
                    Func::Database => SqlType::Str { chars: 64 },
                    Func::User | Func::CurrentUser => SqlType::Str { chars: 141 },
                    Func::Length
                    | Func::CharLength
                    | Func::Locate
                    | Func::Instr
                    | Func::Ascii
                    | Func::Field => int(9),
                    Func::Strcmp | Func::Sign => int(2),
                    Func::ConnectionId => SqlType::Int {
                        unsigned: true,
                        len: 10,
                    },
                    Func::LastInsertId => SqlType::Int {
                        unsigned: true,
                        len: 21,
                    },
                    Func::UnixTimestamp => int(11),
                    Func::Sleep => int(1),
                    Func::Abs => match arg(0) {
                        SqlType::Str { .. } | SqlType::Null => SqlType::Double,
                        other => other,
                    },
                    Func::Round | Func::Truncate => round_type(arg(0), args.get(1)),
                    Func::Floor | Func::Ceil => match arg(0) {
                        SqlType::Int { .. } => arg(0),
                        SqlType::Decimal { precision, scale } => {
                            int((precision - scale.min(precision)).max(1) + 1)
                        }
                        _ => SqlType::Double,
                    },
                    Func::Mod => arith_type(ArithOp::Mod, arg(0), arg(1), 0),
                    Func::Greatest | Func::Least => {
                        let types: Vec<SqlType> = args.iter().map(ty).collect();
                        let strings = types.iter().any(|t| matches!(t, SqlType::Str { .. }));
                        let numbers = types.iter().any(|t| !matches!(t, SqlType::Str { .. }));
                        if types.contains(&SqlType::Null) || (strings && numbers) {
                            // MariaDB compares mixed arguments as doubles and returns one.
                            SqlType::Double
                        } else {
                            aggregate_type(&types)
                        }
                    }
                    Func::Coalesce => aggregate_type(&args.iter().map(ty).collect::<Vec<_>>()),
                    Func::If => aggregate_type(&[arg(1), arg(2)]),
                    Func::IfNull => aggregate_type(&[arg(0), arg(1)]),
                    Func::NullIf => arg(0),
                    Func::IsNull => int(1),
                    Func::Pow
                    | Func::Sqrt
                    | Func::Pi
                    | Func::Exp
                    | Func::Ln
                    | Func::Log10
                    | Func::Log2 => SqlType::Double,
                    Func::Now => SqlType::DateTime,
                    Func::CurDate => SqlType::Date,
                }
            }
        }
    }

    pub fn eval(&self, env: &mut dyn Env, row: &[Datum]) -> Result<Datum, SqlError> {
        // Leaves do not recurse (their parent checked the stack): no check per row for them.
        if !matches!(self, Expr::Literal(_) | Expr::Column(_) | Expr::Param(_)) {
            crate::depth::check_stack()?;
        }
        Ok(match self {
            Expr::Literal(d) => d.clone(),
            Expr::Param(i) => env.param(*i),
            Expr::Column(i) => row.get(*i).cloned().unwrap_or(Datum::Null),
            Expr::SysVar { scope, index } => env.system_variable(*scope, *index)?,
            Expr::UserVar(name) => env.user_variable(name),
            Expr::Neg(x) => {
                let v = x.eval(env, row)?;
                match v {
                    Datum::Null => Datum::Null,
                    Datum::Int(i) => Datum::Int(
                        i.checked_neg()
                            .ok_or_else(|| eval::err_out_of_range(false, "-(...)"))?,
                    ),
                    Datum::UInt(u) if u <= 1 << 63 => Datum::Int((u as i128).wrapping_neg() as i64),
                    Datum::UInt(_) => return Err(eval::err_out_of_range(true, "-(...)")),
                    Datum::Dec(d) => Datum::Dec(-d),
                    other => Datum::Double(-other.to_double(env.warnings()).unwrap_or(0.0)),
                }
            }
            Expr::Not(x) => {
                let v = x.eval(env, row)?;
                bool_datum(v.truth(env.warnings()).map(|b| !b))
            }
            Expr::BitNot(x) => {
                let v = x.eval(env, row)?;
                match to_u64_bits(&v, env.warnings()) {
                    None => Datum::Null,
                    Some(u) => Datum::UInt(!u),
                }
            }
            Expr::Arith {
                op,
                left,
                right,
                text,
                intermediate,
            } => {
                let a = left.eval(env, row)?;
                let b = right.eval(env, row)?;
                let mut incr = env.div_precision_increment();
                if *intermediate {
                    let scale = if let Datum::Dec(d) = &a { d.scale() } else { 0 };
                    incr = (scale + incr).div_ceil(9) * 9 - scale;
                }
                arith(*op, &a, &b, incr, &|| text.clone(), env.warnings())?
            }
            Expr::Cmp { op, left, right } => {
                let a = left.eval(env, row)?;
                let b = right.eval(env, row)?;
                if *op == CmpOp::NullSafeEq {
                    return Ok(Datum::Int(i64::from(match (a.is_null(), b.is_null()) {
                        (true, true) => true,
                        (false, false) => compare(&a, &b, env.warnings()) == Some(Ordering::Equal),
                        _ => false,
                    })));
                }
                bool_datum(compare(&a, &b, env.warnings()).map(|o| match op {
                    CmpOp::Eq => o == Ordering::Equal,
                    CmpOp::NotEq => o != Ordering::Equal,
                    CmpOp::Lt => o == Ordering::Less,
                    CmpOp::LtEq => o != Ordering::Greater,
                    CmpOp::Gt => o == Ordering::Greater,
                    CmpOp::GtEq => o != Ordering::Less,
                    CmpOp::NullSafeEq => o == Ordering::Equal,
                }))
            }
            Expr::And(l, r) => {
                let a = l.eval(env, row)?.truth(env.warnings());
                if a == Some(false) {
                    return Ok(Datum::Int(0));
                }
                let b = r.eval(env, row)?.truth(env.warnings());
                bool_datum(match (a, b) {
                    (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                })
            }
            Expr::Or(l, r) => {
                let a = l.eval(env, row)?.truth(env.warnings());
                if a == Some(true) {
                    return Ok(Datum::Int(1));
                }
                let b = r.eval(env, row)?.truth(env.warnings());
                bool_datum(match (a, b) {
                    (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                })
            }
            Expr::Xor(l, r) => {
                let a = l.eval(env, row)?.truth(env.warnings());
                let b = r.eval(env, row)?.truth(env.warnings());
                bool_datum(match (a, b) {
                    (Some(x), Some(y)) => Some(x != y),
                    _ => None,
                })
            }
            Expr::Bit { op, left, right } => {
                let a = left.eval(env, row)?;
                let b = right.eval(env, row)?;
                let (Some(x), Some(y)) = (
                    to_u64_bits(&a, env.warnings()),
                    to_u64_bits(&b, env.warnings()),
                ) else {
                    return Ok(Datum::Null);
                };
                Datum::UInt(match op {
                    BinaryOperator::BitwiseAnd => x & y,
                    BinaryOperator::BitwiseOr => x | y,
                    BinaryOperator::PGBitwiseShiftLeft => {
                        if y >= 64 {
                            0
                        } else {
                            x << y
                        }
                    }
                    BinaryOperator::PGBitwiseShiftRight => {
                        if y >= 64 {
                            0
                        } else {
                            x >> y
                        }
                    }
                    _ => x ^ y,
                })
            }
            Expr::IsNull { expr, negated } => {
                Datum::Int(i64::from(expr.eval(env, row)?.is_null() != *negated))
            }
            Expr::IsBool {
                expr,
                value,
                negated,
            } => {
                let t = expr.eval(env, row)?.truth(env.warnings());
                Datum::Int(i64::from((t == Some(*value)) != *negated))
            }
            Expr::InList {
                expr,
                list,
                negated,
                set,
            } => {
                let v = expr.eval(env, row)?;
                if v.is_null() {
                    return Ok(Datum::Null);
                }
                if let Some(found) = set.as_ref().and_then(|s| s.contains(&v)) {
                    let has_null = set.as_ref().is_some_and(|s| s.has_null());
                    return Ok(match (found, has_null) {
                        (true, _) => Datum::Int(i64::from(!*negated)),
                        (false, true) => Datum::Null,
                        (false, false) => Datum::Int(i64::from(*negated)),
                    });
                }
                let mut saw_null = false;
                let mut found = false;
                for item in list {
                    let x = item.eval(env, row)?;
                    match compare(&v, &x, env.warnings()) {
                        None => saw_null = true,
                        Some(Ordering::Equal) => {
                            found = true;
                            break;
                        }
                        Some(_) => {}
                    }
                }
                if found {
                    Datum::Int(i64::from(!*negated))
                } else if saw_null {
                    Datum::Null
                } else {
                    Datum::Int(i64::from(*negated))
                }
            }
            Expr::Between {
                expr,
                low,
                high,
                negated,
            } => {
                let v = expr.eval(env, row)?;
                let lo = low.eval(env, row)?;
                let hi = high.eval(env, row)?;
                // MySQL picks one comparison for all three operands: as strings only when
                // all are strings, as numbers when strings and numbers mix.
                let mixed = [&v, &lo, &hi].iter().any(|d| d.is_string())
                    && [&v, &lo, &hi].iter().any(|d| {
                        matches!(
                            d,
                            Datum::Int(_) | Datum::UInt(_) | Datum::Dec(_) | Datum::Double(_)
                        )
                    });
                let (v, lo, hi) = if mixed {
                    let w = env.warnings();
                    let as_double = |d: &Datum, w: &mut Vec<Warning>| match d.to_double(w) {
                        Some(f) => Datum::Double(f),
                        None => Datum::Null,
                    };
                    (as_double(&v, w), as_double(&lo, w), as_double(&hi, w))
                } else {
                    (v, lo, hi)
                };
                let ge = compare(&v, &lo, env.warnings()).map(|o| o != Ordering::Less);
                let le = compare(&v, &hi, env.warnings()).map(|o| o != Ordering::Greater);
                let inside = match (ge, le) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                bool_datum(inside.map(|b| b != *negated))
            }
            Expr::Like {
                expr,
                pattern,
                escape,
                negated,
            } => {
                let v = expr.eval(env, row)?;
                let p = pattern.eval(env, row)?;
                match (v.to_text(), p.to_text()) {
                    (Some(t), Some(p)) => Datum::Int(i64::from(
                        eval::like_match(&t, &p, *escape, false) != *negated,
                    )),
                    _ => Datum::Null,
                }
            }
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => {
                let subject = match operand {
                    Some(o) => Some(o.eval(env, row)?),
                    None => None,
                };
                for (cond, result) in whens {
                    let c = cond.eval(env, row)?;
                    let hit = match &subject {
                        Some(s) => compare(s, &c, env.warnings()) == Some(Ordering::Equal),
                        None => c.truth(env.warnings()) == Some(true),
                    };
                    if hit {
                        return result.eval(env, row);
                    }
                }
                match otherwise {
                    Some(o) => o.eval(env, row)?,
                    None => Datum::Null,
                }
            }
            Expr::TrimChars {
                expr,
                what,
                leading,
                trailing,
            } => {
                let v = expr.eval(env, row)?;
                let w = what.eval(env, row)?;
                // On bytes: for UTF-8 text a byte-wise prefix is a char-wise one, and a
                // binary string keeps bytes that are not UTF-8.
                match (v.to_text(), w.to_text()) {
                    (Some(s), Some(w)) => {
                        let mut s = &s[..];
                        if !w.is_empty() {
                            if *leading {
                                while s.starts_with(&w) {
                                    s = &s[w.len()..];
                                }
                            }
                            if *trailing {
                                while s.ends_with(&w) {
                                    s = &s[..s.len() - w.len()];
                                }
                            }
                        }
                        Datum::Str(s.to_vec())
                    }
                    _ => Datum::Null,
                }
            }
            Expr::Cast { expr, to } => {
                let v = expr.eval(env, row)?;
                cast(v, *to, env.warnings())
            }
            Expr::Call { func, args } => self.call(*func, args, env, row)?,
            Expr::Subquery(q) => {
                let rows = env.subquery(q)?;
                if rows.len() > 1 {
                    return Err(SqlError::new(
                        ER_SUBQUERY_NO_1_ROW,
                        "Subquery returns more than 1 row",
                    ));
                }
                match rows.into_iter().next() {
                    Some(row) if row.len() != 1 => {
                        return Err(SqlError::new(
                            ER_OPERAND_COLUMNS,
                            "Operand should contain 1 column(s)",
                        ))
                    }
                    Some(mut row) => row.remove(0),
                    None => Datum::Null,
                }
            }
            Expr::InSubquery {
                expr,
                query,
                negated,
            } => {
                let v = expr.eval(env, row)?;
                let rows = env.subquery(query)?;
                if rows.first().is_some_and(|r| r.len() != 1) {
                    return Err(SqlError::new(
                        ER_OPERAND_COLUMNS,
                        "Operand should contain 1 column(s)",
                    ));
                }
                if v.is_null() {
                    return Ok(if rows.is_empty() {
                        Datum::Int(i64::from(*negated))
                    } else {
                        Datum::Null
                    });
                }
                let mut saw_null = false;
                let mut found = false;
                for r in &rows {
                    match compare(&v, &r[0], env.warnings()) {
                        None => saw_null = true,
                        Some(Ordering::Equal) => {
                            found = true;
                            break;
                        }
                        Some(_) => {}
                    }
                }
                if found {
                    Datum::Int(i64::from(!*negated))
                } else if saw_null {
                    Datum::Null
                } else {
                    Datum::Int(i64::from(*negated))
                }
            }
            Expr::Exists { query, negated } => {
                let rows = env.subquery(query)?;
                Datum::Int(i64::from(rows.is_empty() == *negated))
            }
        })
    }

    fn call(
        &self,
        func: Func,
        args: &[Expr],
        env: &mut dyn Env,
        row: &[Datum],
    ) -> Result<Datum, SqlError> {
        // Control functions evaluate lazily.
        match func {
            Func::If => {
                let c = args[0].eval(env, row)?.truth(env.warnings());
                return args[if c == Some(true) { 1 } else { 2 }].eval(env, row);
            }
            Func::IfNull => {
                let v = args[0].eval(env, row)?;
                return if v.is_null() {
                    args[1].eval(env, row)
                } else {
                    Ok(v)
                };
            }
            Func::Coalesce => {
                for a in args {
                    let v = a.eval(env, row)?;
                    if !v.is_null() {
                        return Ok(v);
                    }
                }
                return Ok(Datum::Null);
            }
            _ => {}
        }
        let mut v: Vec<Datum> = Vec::with_capacity(args.len());
        for a in args {
            v.push(a.eval(env, row)?);
        }
        let any_null = v.iter().any(Datum::is_null);
        let limit = env.max_allowed_packet();
        let w = env.warnings();
        // Arguments that are not UTF-8 are binary strings: then every argument's bytes are
        // read as the chars U+0000..U+00FF and results are written back as the same bytes,
        // so string functions move bytes and never produce U+FFFD.
        let binary = v
            .iter()
            .any(|d| matches!(d, Datum::Str(s) if std::str::from_utf8(s).is_err()));
        let text = |d: &Datum| {
            if binary {
                bytes_as_chars(&d.to_text().unwrap_or_default())
            } else {
                text_of(d).unwrap_or_default()
            }
        };
        let out = |s: String| -> Vec<u8> {
            if binary {
                chars_as_bytes(&s)
            } else {
                s.into_bytes()
            }
        };
        let int = |d: &Datum, w: &mut Vec<Warning>| d.to_int(w).unwrap_or(0);
        let null_if_any = |f: &dyn Fn() -> Datum| if any_null { Datum::Null } else { f() };
        Ok(match func {
            Func::Concat => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let parts: Vec<Vec<u8>> = v.iter().filter_map(Datum::to_text).collect();
                let bytes = parts.iter().map(|p| p.len() as u64).sum();
                if over_packet("concat", bytes, limit, w) {
                    return Ok(Datum::Null);
                }
                Datum::Str(parts.concat())
            }
            Func::ConcatWs => {
                let Some(sep) = v[0].to_text() else {
                    return Ok(Datum::Null);
                };
                let parts: Vec<Vec<u8>> = v[1..].iter().filter_map(Datum::to_text).collect();
                let bytes = parts.iter().map(|p| p.len() as u64).sum::<u64>()
                    + (sep.len() as u64).saturating_mul(parts.len().saturating_sub(1) as u64);
                if over_packet("concat_ws", bytes, limit, w) {
                    return Ok(Datum::Null);
                }
                Datum::Str(parts.join(&sep[..]))
            }
            Func::Length => {
                null_if_any(&|| Datum::Int(v[0].to_text().map(|b| b.len()).unwrap_or(0) as i64))
            }
            Func::CharLength => null_if_any(&|| Datum::Int(text(&v[0]).chars().count() as i64)),
            Func::Substring => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s: Vec<char> = text(&v[0]).chars().collect();
                let pos = int(&v[1], w);
                let len = if v.len() > 2 { int(&v[2], w) } else { i64::MAX };
                let n = s.len() as i64;
                let start = if pos > 0 {
                    pos - 1
                } else if pos < 0 {
                    n + pos
                } else {
                    n
                };
                if start < 0 || start >= n || len <= 0 {
                    return Ok(Datum::text(""));
                }
                let end = start.saturating_add(len).min(n);
                Datum::Str(out(s[start as usize..end as usize].iter().collect()))
            }
            // A binary string has no letter case: UPPER and LOWER leave it as it is.
            Func::Upper | Func::Lower if binary => {
                null_if_any(&|| Datum::Str(v[0].to_text().unwrap_or_default()))
            }
            Func::Upper => null_if_any(&|| Datum::Str(text(&v[0]).to_uppercase().into_bytes())),
            Func::Lower => null_if_any(&|| Datum::Str(text(&v[0]).to_lowercase().into_bytes())),
            Func::Trim => {
                null_if_any(&|| Datum::Str(out(text(&v[0]).trim_matches(' ').to_string())))
            }
            Func::LTrim => {
                null_if_any(&|| Datum::Str(out(text(&v[0]).trim_start_matches(' ').to_string())))
            }
            Func::RTrim => {
                null_if_any(&|| Datum::Str(out(text(&v[0]).trim_end_matches(' ').to_string())))
            }
            Func::Replace => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let (s, from, to) = (text(&v[0]), text(&v[1]), text(&v[2]));
                if from.is_empty() {
                    return Ok(Datum::Str(out(s)));
                }
                let found = s.matches(from.as_str()).count() as u64;
                let bytes = (s.len() as u64 - found * from.len() as u64)
                    .saturating_add(found.saturating_mul(to.len() as u64));
                if over_packet("replace", bytes, limit, w) {
                    return Ok(Datum::Null);
                }
                Datum::Str(out(s.replace(&from, &to)))
            }
            Func::Left | Func::Right => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s: Vec<char> = text(&v[0]).chars().collect();
                let n = int(&v[1], w).clamp(0, s.len() as i64) as usize;
                let part: String = if func == Func::Left {
                    s[..n].iter().collect()
                } else {
                    s[s.len() - n..].iter().collect()
                };
                Datum::Str(out(part))
            }
            Func::LPad | Func::RPad => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s: Vec<char> = text(&v[0]).chars().collect();
                let len = int(&v[1], w);
                let pad: Vec<char> = text(&v[2]).chars().collect();
                if len < 0 {
                    return Ok(Datum::Null);
                }
                let name = if func == Func::LPad { "lpad" } else { "rpad" };
                let widest = pad
                    .iter()
                    .chain(&s)
                    .map(|c| c.len_utf8())
                    .max()
                    .unwrap_or(1);
                if over_packet(name, (len as u64).saturating_mul(widest as u64), limit, w) {
                    return Ok(Datum::Null);
                }
                let len = len as usize;
                if len <= s.len() {
                    return Ok(Datum::Str(out(s[..len].iter().collect())));
                }
                if pad.is_empty() {
                    return Ok(Datum::Null);
                }
                let fill: String = pad.iter().cycle().take(len - s.len()).collect();
                let body: String = s.iter().collect();
                Datum::Str(out(if func == Func::LPad {
                    fill + &body
                } else {
                    body + &fill
                }))
            }
            Func::Repeat => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s = text(&v[0]);
                let n = int(&v[1], w);
                if n <= 0 {
                    return Ok(Datum::text(""));
                }
                if over_packet(
                    "repeat",
                    (s.len() as u64).saturating_mul(n as u64),
                    limit,
                    w,
                ) {
                    return Ok(Datum::Null);
                }
                Datum::Str(out(s.repeat(n as usize)))
            }
            Func::Reverse => null_if_any(&|| Datum::Str(out(text(&v[0]).chars().rev().collect()))),
            Func::Locate | Func::Instr => {
                if any_null {
                    return Ok(Datum::Null);
                }
                // LOCATE(substr, str[, pos]); INSTR(str, substr).
                let (needle, hay) = if func == Func::Instr {
                    (text(&v[1]), text(&v[0]))
                } else {
                    (text(&v[0]), text(&v[1]))
                };
                let start = if v.len() > 2 { int(&v[2], w) } else { 1 };
                Datum::Int(locate(&needle, &hay, start))
            }
            Func::Space => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let n = int(&v[0], w);
                if over_packet("space", n.max(0) as u64, limit, w) {
                    return Ok(Datum::Null);
                }
                Datum::Str(" ".repeat(n.max(0) as usize).into_bytes())
            }
            Func::Ascii => null_if_any(&|| {
                Datum::Int(v[0].to_text().and_then(|b| b.first().copied()).unwrap_or(0) as i64)
            }),
            Func::Hex => {
                if any_null {
                    return Ok(Datum::Null);
                }
                match &v[0] {
                    Datum::Str(b) => Datum::Str(
                        b.iter()
                            .map(|x| format!("{x:02X}"))
                            .collect::<String>()
                            .into_bytes(),
                    ),
                    other => {
                        let n = other.to_int(w).unwrap_or(0);
                        Datum::Str(format!("{:X}", n as u64).into_bytes())
                    }
                }
            }
            Func::Strcmp => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let o = eval::collate_cmp(
                    &v[0].to_text().unwrap_or_default(),
                    &v[1].to_text().unwrap_or_default(),
                );
                Datum::Int(match o {
                    Ordering::Less => -1,
                    Ordering::Equal => 0,
                    Ordering::Greater => 1,
                })
            }
            Func::Field => {
                if v[0].is_null() {
                    return Ok(Datum::Int(0));
                }
                let mut pos = 0;
                for (i, x) in v[1..].iter().enumerate() {
                    if compare(&v[0], x, w) == Some(Ordering::Equal) {
                        pos = i as i64 + 1;
                        break;
                    }
                }
                Datum::Int(pos)
            }
            Func::Insert => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s: Vec<char> = text(&v[0]).chars().collect();
                let pos = int(&v[1], w);
                let len = int(&v[2], w);
                let new = text(&v[3]);
                let n = s.len() as i64;
                if pos < 1 || pos > n {
                    return Ok(Datum::Str(out(s.iter().collect())));
                }
                let bytes = s.iter().map(|c| c.len_utf8() as u64).sum::<u64>() + new.len() as u64;
                if over_packet("insert", bytes, limit, w) {
                    return Ok(Datum::Null);
                }
                let start = (pos - 1) as usize;
                let end = if len < 0 {
                    n
                } else {
                    (pos - 1).saturating_add(len).min(n)
                } as usize;
                let joined: String = s[..start].iter().collect::<String>()
                    + &new
                    + &s[end..].iter().collect::<String>();
                Datum::Str(out(joined))
            }
            Func::Abs => match &v[0] {
                Datum::Null => Datum::Null,
                Datum::Int(i) => Datum::Int(
                    i.checked_abs()
                        .ok_or_else(|| eval::err_out_of_range(false, "abs(...)"))?,
                ),
                Datum::UInt(u) => Datum::UInt(*u),
                Datum::Dec(d) => Datum::Dec(d.abs()),
                other => Datum::Double(other.to_double(w).unwrap_or(0.0).abs()),
            },
            Func::Round | Func::Truncate => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let places = if v.len() > 1 { int(&v[1], w) } else { 0 };
                round(&v[0], places, func == Func::Truncate, w)
            }
            Func::Floor | Func::Ceil => match &v[0] {
                Datum::Null => Datum::Null,
                Datum::Int(_) | Datum::UInt(_) => v[0].clone(),
                Datum::Dec(d) => {
                    let r = if func == Func::Floor {
                        d.floor()
                    } else {
                        d.ceil()
                    };
                    r.to_i64().map(Datum::Int).unwrap_or(Datum::Dec(r))
                }
                other => {
                    let f = other.to_double(w).unwrap_or(0.0);
                    Datum::Double(if func == Func::Floor {
                        f.floor()
                    } else {
                        f.ceil()
                    })
                }
            },
            Func::Mod => arith(ArithOp::Mod, &v[0], &v[1], 0, &|| "MOD(...)".to_string(), w)?,
            Func::Greatest | Func::Least => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let mut best = v[0].clone();
                for x in &v[1..] {
                    let o = compare(x, &best, w).unwrap_or(Ordering::Equal);
                    if (func == Func::Greatest && o == Ordering::Greater)
                        || (func == Func::Least && o == Ordering::Less)
                    {
                        best = x.clone();
                    }
                }
                best
            }
            Func::Pow => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let r = v[0]
                    .to_double(w)
                    .unwrap_or(0.0)
                    .powf(v[1].to_double(w).unwrap_or(0.0));
                if !r.is_finite() {
                    return Err(SqlError::new(
                        ER_DATA_OUT_OF_RANGE,
                        "DOUBLE value is out of range in 'pow(...)'",
                    ));
                }
                Datum::Double(r)
            }
            Func::Sqrt => match v[0].to_double(w) {
                Some(f) if f >= 0.0 => Datum::Double(f.sqrt()),
                _ => Datum::Null,
            },
            Func::Exp => match v[0].to_double(w) {
                Some(f) => Datum::Double(f.exp()),
                None => Datum::Null,
            },
            Func::Ln | Func::Log10 | Func::Log2 => match v[0].to_double(w) {
                Some(f) if f > 0.0 => Datum::Double(match func {
                    Func::Ln => f.ln(),
                    Func::Log10 => f.log10(),
                    _ => f.log2(),
                }),
                Some(_) => {
                    w.push(Warning {
                        level: "Warning",
                        code: ER_INVALID_ARGUMENT_FOR_LOGARITHM.code,
                        message: "Invalid argument for logarithm".into(),
                    });
                    Datum::Null
                }
                None => Datum::Null,
            },
            Func::Sign => match v[0].to_double(w) {
                None => Datum::Null,
                Some(f) => Datum::Int(if f > 0.0 {
                    1
                } else if f < 0.0 {
                    -1
                } else {
                    0
                }),
            },
            Func::Pi => Datum::Double(std::f64::consts::PI),
            Func::NullIf => {
                if compare(&v[0], &v[1], w) == Some(Ordering::Equal) {
                    Datum::Null
                } else {
                    v[0].clone()
                }
            }
            Func::IsNull => Datum::Int(i64::from(v[0].is_null())),
            Func::Version => Datum::text(crate::SERVER_VERSION),
            Func::Database => env
                .database()
                .map(|d| Datum::Str(d.into_bytes()))
                .unwrap_or(Datum::Null),
            Func::User => Datum::Str(env.user().into_bytes()),
            Func::CurrentUser => Datum::Str(env.current_user().into_bytes()),
            Func::ConnectionId => Datum::UInt(env.connection_id() as u64),
            Func::LastInsertId => Datum::UInt(env.last_insert_id()),
            // 0, or 1 when KILL or max_statement_time cut it short (as MariaDB).
            Func::Sleep => match v[0].to_double(env.warnings()) {
                Some(s) if s > 0.0 => Datum::Int(i64::from(crate::interrupt::sleep(
                    std::time::Duration::try_from_secs_f64(s.min(31_536_000.0)).unwrap_or_default(),
                ))),
                _ => Datum::Int(0),
            },
            Func::Now => datetime_from_micros(env.now_micros(), false),
            Func::CurDate => match datetime_from_micros(env.now_micros(), false) {
                Datum::DateTime {
                    year, month, day, ..
                } => Datum::Date { year, month, day },
                other => other,
            },
            Func::UnixTimestamp => Datum::Int(env.now_micros().div_euclid(1_000_000)),
            Func::If | Func::IfNull | Func::Coalesce => Datum::Null,
        })
    }
}

/// `max_allowed_packet`'s default, in bytes.
pub const DEFAULT_MAX_ALLOWED_PACKET: u64 = 16 << 20;

/// Whether a function's result of `bytes` would pass `max_allowed_packet` (`limit`); if so,
/// MariaDB's warning 1301 is noted and the caller returns NULL.
fn over_packet(func: &str, bytes: u64, limit: u64, w: &mut Vec<Warning>) -> bool {
    if bytes <= limit {
        return false;
    }
    w.push(Warning {
        level: "Warning",
        code: ER_WARN_ALLOWED_PACKET_OVERFLOWED.code,
        message: format!(
            "Result of {func}() was larger than max_allowed_packet ({limit}) - truncated"
        ),
    });
    true
}

fn locate(needle: &str, hay: &str, start: i64) -> i64 {
    let hay_chars: Vec<char> = hay.chars().collect();
    let needle_chars: Vec<char> = needle.chars().collect();
    if start < 1 || start as usize > hay_chars.len() + 1 {
        return 0;
    }
    let from = (start - 1) as usize;
    if needle_chars.is_empty() {
        return start;
    }
    let folded = |c: &char| eval::fold_char(*c);
    let needle_f: Vec<char> = needle_chars.iter().map(folded).collect();
    let hay_f: Vec<char> = hay_chars.iter().map(folded).collect();
    (from..hay_f.len())
        .find(|&i| hay_f[i..].starts_with(&needle_f))
        .map(|i| i as i64 + 1)
        .unwrap_or(0)
}

fn to_u64_bits(d: &Datum, w: &mut Vec<Warning>) -> Option<u64> {
    match d {
        Datum::Null => None,
        Datum::UInt(u) => Some(*u),
        Datum::Int(i) => Some(*i as u64),
        other => other.to_int(w).map(|i| i as u64),
    }
}

fn round_type(arg: SqlType, places: Option<&Expr>) -> SqlType {
    let places = match places {
        Some(Expr::Literal(d)) => d.to_int(&mut Vec::new()).unwrap_or(0),
        Some(_) => return arg,
        None => 0,
    };
    match arg {
        SqlType::Int { .. } => arg,
        SqlType::Decimal { precision, scale } => {
            let new_scale = places.clamp(0, 30) as u32;
            let int_digits = precision - scale.min(precision);
            SqlType::Decimal {
                precision: int_digits + new_scale + 1,
                scale: new_scale,
            }
        }
        _ => SqlType::Double,
    }
}

fn round(v: &Datum, places: i64, truncate: bool, w: &mut Vec<Warning>) -> Datum {
    let strategy = if truncate {
        RoundingStrategy::ToZero
    } else {
        RoundingStrategy::MidpointAwayFromZero
    };
    match v {
        Datum::Int(_) | Datum::UInt(_) if places >= 0 => v.clone(),
        Datum::Int(_) | Datum::UInt(_) | Datum::Dec(_) => {
            let d = v.to_decimal(w).unwrap_or(Decimal::ZERO);
            let r = if places >= 0 {
                d.round_dp_with_strategy(places.min(28) as u32, strategy)
            } else {
                let factor = Decimal::from(10i64.pow((-places).min(18) as u32));
                (d / factor).round_dp_with_strategy(0, strategy) * factor
            };
            match v {
                Datum::Int(_) => r.to_i64().map(Datum::Int).unwrap_or(Datum::Dec(r)),
                Datum::UInt(_) => r.to_u64().map(Datum::UInt).unwrap_or(Datum::Dec(r)),
                _ => Datum::Dec(r),
            }
        }
        other => {
            let f = other.to_double(w).unwrap_or(0.0);
            let factor = 10f64.powi(places.clamp(-308, 308) as i32);
            let scaled = f * factor;
            let r = if truncate {
                scaled.trunc()
            } else {
                // rint(): halfway cases go to the even neighbour, as in MariaDB.
                scaled.round_ties_even()
            };
            Datum::Double(if factor.is_finite() && factor != 0.0 {
                r / factor
            } else {
                f
            })
        }
    }
}

fn cast(v: Datum, to: CastTo, w: &mut Vec<Warning>) -> Datum {
    if v.is_null() {
        return Datum::Null;
    }
    match to {
        CastTo::Signed => match &v {
            Datum::UInt(u) => Datum::Int(*u as i64),
            _ => Datum::Int(v.to_int(w).unwrap_or(0)),
        },
        CastTo::Unsigned => match &v {
            Datum::Int(i) => Datum::UInt(*i as u64),
            Datum::UInt(u) => Datum::UInt(*u),
            Datum::Double(f) if *f < 0.0 => Datum::UInt(0),
            _ => Datum::UInt(v.to_int(w).unwrap_or(0) as u64),
        },
        CastTo::Char => Datum::Str(v.to_text().unwrap_or_default()),
        CastTo::Decimal { scale, .. } => {
            let d = v.to_decimal(w).unwrap_or(Decimal::ZERO);
            let mut r =
                d.round_dp_with_strategy(scale.min(28), RoundingStrategy::MidpointAwayFromZero);
            r.rescale(scale.min(28));
            Datum::Dec(r)
        }
        CastTo::Double => Datum::Double(v.to_double(w).unwrap_or(0.0)),
        CastTo::Date | CastTo::DateTime => {
            let parsed = match &v {
                Datum::Date { .. } | Datum::DateTime { .. } => Some(v.clone()),
                other => parse_datetime(&text_of(other).unwrap_or_default()),
            };
            match (parsed, to) {
                (
                    Some(Datum::DateTime {
                        year, month, day, ..
                    }),
                    CastTo::Date,
                ) => Datum::Date { year, month, day },
                (Some(Datum::Date { year, month, day }), CastTo::DateTime) => Datum::DateTime {
                    year,
                    month,
                    day,
                    hour: 0,
                    minute: 0,
                    second: 0,
                    micros: 0,
                },
                (Some(d), _) => d,
                (None, _) => {
                    w.push(Warning {
                        level: "Warning",
                        code: ER_TRUNCATED_WRONG_VALUE.code,
                        message: format!("Incorrect datetime value: '{}'", v.to_text_lossy()),
                    });
                    Datum::Null
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(
            parse_datetime("2024-02-29 13:14:15.5"),
            Some(Datum::DateTime {
                year: 2024,
                month: 2,
                day: 29,
                hour: 13,
                minute: 14,
                second: 15,
                micros: 500_000
            })
        );
        assert_eq!(parse_datetime("2024-13-01"), None);
        // Days that do not exist in their month are refused; zero parts are allowed.
        assert_eq!(parse_datetime("2023-02-30"), None);
        assert_eq!(parse_datetime("2023-02-29 10:00:00"), None);
        assert_eq!(parse_datetime("2023-04-31"), None);
        assert_eq!(parse_datetime("1900-02-29"), None);
        assert!(parse_datetime("2000-02-29").is_some());
        assert!(parse_datetime("2024-02-29").is_some());
        assert!(parse_datetime("2023-00-00").is_some());
        assert!(parse_datetime("0000-00-00 00:00:00").is_some());
    }

    #[test]
    fn literals_pick_mysql_classes() {
        assert_eq!(number_literal("1").unwrap(), Datum::Int(1));
        assert_eq!(
            number_literal("18446744073709551615").unwrap(),
            Datum::UInt(u64::MAX)
        );
        assert!(matches!(
            number_literal("18446744073709551616").unwrap(),
            Datum::Dec(_)
        ));
        assert!(matches!(number_literal("1.50").unwrap(), Datum::Dec(_)));
        assert_eq!(number_literal("1e3").unwrap(), Datum::Double(1000.0));
    }

    #[test]
    fn locate_is_case_insensitive_and_one_based() {
        assert_eq!(locate("b", "abc", 1), 2);
        assert_eq!(locate("B", "abcb", 3), 4);
        assert_eq!(locate("x", "abc", 1), 0);
        assert_eq!(locate("", "abc", 2), 2);
    }
}
