//! Expression texts (the names of result columns), literals and constant folding.

use crate::error::SqlError;
use crate::expr::eval::Warning;
use crate::expr::*;
use crate::value::Value;
use myriad_types::errors::{ER_INVALID_DEFAULT, ER_TOO_BIG_PRECISION};
use sqlparser::ast::{self, BinaryOperator};

/// The longest expression text an arithmetic error quotes (MariaDB's messages stop at 512
/// bytes too).
pub(crate) const EXPR_TEXT_MAX_BYTES: usize = 512;

/// `(left op right)` as sqlparser prints it, for the operator's out-of-range error. An
/// operand that is itself arithmetic lends its own text, so a chain of N operators costs
/// O(N) instead of printing every sub-chain again; the text stops at
/// [`EXPR_TEXT_MAX_BYTES`].
pub(crate) fn arith_text(
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

pub(crate) fn operand_text(out: &mut BoundedText, mut ast: &ast::Expr, compiled: &Expr) {
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
pub(crate) struct BoundedText(String);

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

/// The precision of `CAST(x AS DATETIME(p))`: 0 to 6, 1426 beyond.
fn cast_precision(p: Option<u64>) -> Result<u8, SqlError> {
    match p.unwrap_or(0) {
        p if p <= u64::from(myriad_types::datetime::MAX_FSP) => Ok(p as u8),
        p => Err(SqlError::new(
            ER_TOO_BIG_PRECISION,
            format!("Too big precision {p} specified for 'CAST'. Maximum is 6"),
        )),
    }
}

pub(crate) fn cast_target(dt: &ast::DataType) -> Result<CastTo, SqlError> {
    use ast::DataType as D;
    Ok(match dt {
        D::Signed | D::SignedInteger | D::Int(_) | D::Integer(_) | D::BigInt(_) => CastTo::Signed,
        D::Unsigned | D::UnsignedInteger => CastTo::Unsigned,
        D::Char(l) | D::Varchar(l) => CastTo::Char {
            len: match l {
                Some(ast::CharacterLength::IntegerLength { length, .. }) => {
                    Some(u32::try_from(*length).unwrap_or(u32::MAX))
                }
                _ => None,
            },
        },
        D::Text | D::String(_) | D::Binary(None) => CastTo::Char { len: None },
        // MariaDB pads a shorter value with zero bytes and cuts by rules of its own.
        D::Binary(Some(_)) => return Err(SqlError::not_supported("CAST AS BINARY(n)")),
        D::Decimal(info) | D::Numeric(info) | D::Dec(info) => {
            let (precision, scale) = match info {
                ast::ExactNumberInfo::None => (10, 0),
                ast::ExactNumberInfo::Precision(p) => (*p as u32, 0),
                ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p as u32, (*s).max(0) as u32),
            };
            crate::expr::decimal::check_type(precision, scale, "CAST")?;
            CastTo::Decimal { precision, scale }
        }
        // MariaDB rounds to D digits and shows them: not built, refused rather than dropped.
        D::Double(ast::ExactNumberInfo::PrecisionAndScale(..))
        | D::Float(ast::ExactNumberInfo::PrecisionAndScale(..)) => {
            return Err(SqlError::not_supported("CAST AS DOUBLE(M,D)"))
        }
        // CAST AS FLOAT rounds to single precision and is typed FLOAT: not built.
        D::Float(_) => return Err(SqlError::not_supported("CAST AS FLOAT")),
        // CAST AS REAL is no syntax in MariaDB.
        D::Real => return Err(crate::expr::err_syntax("real")),
        D::Double(_) | D::DoublePrecision => CastTo::Double,
        D::Date => CastTo::Date,
        D::Datetime(p) | D::Timestamp(p, _) => CastTo::DateTime {
            fsp: cast_precision(*p)?,
        },
        D::Time(p, ast::TimezoneInfo::None) => CastTo::Time {
            fsp: cast_precision(*p)?,
        },
        other => return Err(SqlError::not_supported(&format!("CAST AS {other}"))),
    })
}

/// An integer literal is BIGINT if it fits, BIGINT UNSIGNED up to 2^64-1, DECIMAL beyond;
/// a literal with a point is DECIMAL; one with an exponent is DOUBLE.
pub fn number_literal(text: &str) -> Result<Value, SqlError> {
    if text.contains(['e', 'E']) {
        return text
            .parse::<f64>()
            .map(Value::Double)
            .map_err(|_| err_syntax(text));
    }
    let too_big = || {
        SqlError::new(
            ER_TOO_BIG_PRECISION,
            format!("Too big precision specified for '{text}'"),
        )
    };
    let wide_literal = || {
        // Kept exactly, up to the 81 digits an expression's DECIMAL holds.
        crate::expr::decimal::literal(text).map_err(|e| match e {
            myriad_types::DecimalError::Overflow => too_big(),
            _ => err_syntax(text),
        })
    };
    if text.contains('.') {
        return wide_literal();
    }
    if let Ok(i) = text.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Ok(Value::UInt(u));
    }
    wide_literal()
}

/// Evaluate an expression that needs nothing from a session (constant folding of literals).
pub(crate) fn eval_const(e: &Expr, warnings: &mut Vec<Warning>) -> Option<Value> {
    e.eval(&mut ConstEnv::folding(warnings), &[]).ok()
}

/// An environment without a session, for constant expressions (folded literals, DEFAULT
/// values): parameters and user variables read as NULL, the session's names as empty,
/// and the clock as a fixed time.
pub(crate) struct ConstEnv<'a> {
    warnings: &'a mut Vec<Warning>,
    now_micros: i64,
    /// A DEFAULT value: reading a system variable is error 1067 (else it reads as NULL).
    default_value: bool,
}

impl<'a> ConstEnv<'a> {
    /// For folding literals at compile time: the clock reads 0.
    pub(crate) fn folding(warnings: &'a mut Vec<Warning>) -> ConstEnv<'a> {
        ConstEnv {
            warnings,
            now_micros: 0,
            default_value: false,
        }
    }

    /// For a column's DEFAULT value, with the clock at `now_micros`.
    pub(crate) fn default_value(warnings: &'a mut Vec<Warning>, now_micros: i64) -> ConstEnv<'a> {
        ConstEnv {
            warnings,
            now_micros,
            default_value: true,
        }
    }
}

impl Env for ConstEnv<'_> {
    fn param(&self, _: usize) -> Value {
        Value::Null
    }
    fn system_variable(&self, _: VarScope, _: usize) -> Result<Value, SqlError> {
        if self.default_value {
            return Err(SqlError::new(ER_INVALID_DEFAULT, "Invalid default value"));
        }
        Ok(Value::Null)
    }
    fn user_variable(&self, _: &str) -> Value {
        Value::Null
    }
    fn database(&self) -> Option<String> {
        None
    }
    fn user(&self) -> String {
        String::new()
    }
    fn current_role(&self) -> Option<String> {
        None
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
        self.now_micros
    }
    fn div_precision_increment(&self) -> u32 {
        4
    }
    fn sql_mode(&self) -> u64 {
        0
    }
    fn warnings(&mut self) -> &mut Vec<Warning> {
        self.warnings
    }
}

pub(crate) fn bool_value(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(i64::from(b)),
    }
}

/// A binary string's bytes as chars of the same numbers (U+0000..U+00FF), so that char
/// operations move whole bytes; [`chars_as_bytes`] writes them back.
pub(crate) fn bytes_as_chars(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// The inverse of [`bytes_as_chars`]: every char of the text is at most U+00FF.
pub(crate) fn chars_as_bytes(text: &str) -> Vec<u8> {
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

pub(crate) fn text_of(d: &Value) -> Option<String> {
    d.to_text()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}
