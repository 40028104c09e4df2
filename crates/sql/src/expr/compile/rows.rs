//! Row constructors (`(a, b)`, or `ROW(a, b)`) compared as rows: `(a, b) = (1, 2)`, `<>`, `<`, `<=`, `>`, `>=`, `<=>`
//! and `(a, b) [NOT] IN ((1, 2), (3, 4))`, each written out as comparisons of the rows'
//! values, which answer as MariaDB's row comparisons do, NULLs included:
//! - `=` is the AND of the pairs' equalities, `<=>` of their `<=>`, `<>` the NOT of `=`;
//! - `<` (and `<=`, `>`, `>=`) compare the first pair, and on equality the rest:
//!   `a < c OR (a = c AND (b < d))`, the last pair under the operator itself;
//! - `IN` is the OR of the list rows' equalities, `NOT IN` its NOT.
//!
//! A row of another width than its counterpart answers 1241; a row compared with a value
//! answers 4078, as in MariaDB. A row where a value is needed answers as MariaDB does:
//! 4078 in arithmetic, 4079 in bit operations and some functions, 1241 elsewhere.

use crate::error::SqlError;
use crate::expr::*;
use myriad_types::errors::{
    ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION, ER_ILLEGAL_PARAMETER_DATA_TYPE_FOR_OPERATION,
    ER_OPERAND_COLUMNS,
};
use sqlparser::ast::{self, BinaryOperator};
use std::borrow::Cow;

/// The values of a row constructor (`(a, b)` or `ROW(a, b)`), None for any other
/// expression. `ROW` with fewer than two values is no row (MariaDB's grammar refuses it).
pub(super) fn row_items(e: &ast::Expr) -> Option<Cow<'_, [ast::Expr]>> {
    match e {
        ast::Expr::Tuple(items) => Some(Cow::Borrowed(items)),
        ast::Expr::Nested(inner) => row_items(inner),
        ast::Expr::Function(f) => row_call_items(f).map(Cow::Owned),
        _ => None,
    }
}

/// The values of `ROW(a, b, ...)`: two or more plain arguments.
fn row_call_items(f: &ast::Function) -> Option<Vec<ast::Expr>> {
    if !f.name.to_string().eq_ignore_ascii_case("ROW") || f.over.is_some() {
        return None;
    }
    let ast::FunctionArguments::List(list) = &f.args else {
        return None;
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() || list.args.len() < 2 {
        return None;
    }
    list.args
        .iter()
        .map(|a| match a {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => Some(x.clone()),
            _ => None,
        })
        .collect()
}

/// Whether `e` is a row constructor.
pub(crate) fn is_row(e: &ast::Expr) -> bool {
    row_items(e).is_some()
}

/// The operation MariaDB names when a row is the argument `position` of the function
/// `name` (upper case) and it answers 4079 rather than 1241; None for the functions that
/// answer 1241.
pub(super) fn row_argument_operation(name: &str, position: usize) -> Option<&'static str> {
    Some(match name {
        "TO_SECONDS" => "to_seconds",
        "TIMESTAMPDIFF" => "timestampdiff",
        "INET_ATON" => "inet_aton",
        "LAST_INSERT_ID" => "last_insert_id",
        "STRCMP" => "strcmp",
        "CHAR_LENGTH" | "CHARACTER_LENGTH" => "char_length",
        "LENGTH" | "OCTET_LENGTH" => "octet_length",
        "UNCOMPRESSED_LENGTH" => "uncompressed_length",
        "COERCIBILITY" => "coercibility",
        "ASCII" => "ascii",
        "CRC32" => "crc32",
        "ORD" => "ord",
        "SIGN" => "sign",
        "LOCATE" => "locate",
        "BIT_COUNT" => "bit_count",
        "BENCHMARK" if position == 0 => "benchmark",
        "SLEEP" => "sleep",
        "GET_LOCK" => "get_lock",
        "PERIOD_ADD" => "period_add",
        "PERIOD_DIFF" => "period_diff",
        "TO_DAYS" => "to_days",
        "DAY" | "DAYOFMONTH" => "dayofmonth",
        "DAYOFYEAR" => "dayofyear",
        "QUARTER" => "quarter",
        "YEAR" => "year",
        "YEARWEEK" => "yearweek",
        "WEEK" => "week",
        "HOUR" => "hour",
        "MINUTE" => "minute",
        "SECOND" => "second",
        "MICROSECOND" => "microsecond",
        "JSON_DEPTH" => "json_depth",
        "JSON_LENGTH" => "json_length",
        "REGEXP_INSTR" => "regexp_instr",
        "FIND_IN_SET" => "find_in_set",
        "RELEASE_LOCK" => "release_lock",
        "IS_FREE_LOCK" => "is_free_lock",
        "IS_USED_LOCK" => "is_used_lock",
        "DEGREES" => "degrees",
        "SQRT" => "sqrt",
        "EXP" => "exp",
        "LOG" => "log",
        "LN" => "ln",
        "FROM_DAYS" => "from_days",
        "LAST_DAY" => "last_day",
        _ => return None,
    })
}

/// 4079: a row given to `op`, which takes values only.
pub(super) fn err_row_operand(op: &str) -> SqlError {
    SqlError::of(ER_ILLEGAL_PARAMETER_DATA_TYPE_FOR_OPERATION, &[&"row", &op])
}

/// 1241: an operand of `width` columns was expected.
pub(super) fn err_width(width: usize) -> SqlError {
    SqlError::new(
        ER_OPERAND_COLUMNS,
        format!("Operand should contain {width} column(s)"),
    )
}

/// 4078: a row compared with a value by `op`. The value's type is named as MariaDB names
/// a literal's (`int`, `varchar`); another expression is named by what it most often is.
pub(super) fn err_row_and_value(row_left: bool, value: &ast::Expr, op: &str) -> SqlError {
    let value = match value {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) if n.contains(['.', 'e', 'E']) => "decimal",
            ast::Value::Number(..) => "int",
            ast::Value::Null => "null",
            _ => "varchar",
        },
        _ => "int",
    };
    let (l, r) = if row_left {
        ("row", value)
    } else {
        (value, "row")
    };
    SqlError::of(
        ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION,
        &[&l, &r, &op],
    )
}

/// Whether `op` compares its operands (`=`, `<>`, `<`, `<=`, `>`, `>=`, `<=>`).
pub(super) fn is_comparison(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
            | BinaryOperator::Spaceship
    )
}

fn binary(left: &ast::Expr, op: BinaryOperator, right: &ast::Expr) -> ast::Expr {
    ast::Expr::BinaryOp {
        left: Box::new(left.clone()),
        op,
        right: Box::new(right.clone()),
    }
}

fn and(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    }
}

fn or(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::Or,
        right: Box::new(b),
    }
}

fn not(e: ast::Expr) -> ast::Expr {
    ast::Expr::UnaryOp {
        op: ast::UnaryOperator::Not,
        expr: Box::new(ast::Expr::Nested(Box::new(e))),
    }
}

/// `l op r` for two rows of one width, written out (see the module doc); None for an
/// operator that does not compare.
fn rows_compared(l: &[ast::Expr], op: &BinaryOperator, r: &[ast::Expr]) -> Option<ast::Expr> {
    let pairs = || l.iter().zip(r);
    let all = |op: BinaryOperator| pairs().map(|(a, b)| binary(a, op.clone(), b)).reduce(and);
    match op {
        BinaryOperator::Eq => all(BinaryOperator::Eq),
        BinaryOperator::Spaceship => all(BinaryOperator::Spaceship),
        BinaryOperator::NotEq => all(BinaryOperator::Eq).map(not),
        BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq => {
            let strict = match op {
                BinaryOperator::Lt | BinaryOperator::LtEq => BinaryOperator::Lt,
                _ => BinaryOperator::Gt,
            };
            // From the last pair back: last `op`, then `a strict c OR (a = c AND rest)`.
            let mut rest: Option<ast::Expr> = None;
            for (a, b) in pairs().rev() {
                rest = Some(match rest {
                    None => binary(a, op.clone(), b),
                    Some(rest) => or(
                        binary(a, strict.clone(), b),
                        ast::Expr::Nested(Box::new(and(binary(a, BinaryOperator::Eq, b), rest))),
                    ),
                });
            }
            rest
        }
        _ => None,
    }
}

/// 1241 unless the rows `l` and `r` have one width, and so have the rows within them
/// pair by pair (a value has the width 1): the width expected is `l`'s, as in MariaDB.
fn check_widths(l: &[ast::Expr], r: &[ast::Expr]) -> Result<(), SqlError> {
    if l.len() != r.len() {
        return Err(err_width(l.len()));
    }
    for (a, b) in l.iter().zip(r) {
        match (row_items(a), row_items(b)) {
            (Some(x), Some(y)) => check_widths(&x, &y)?,
            (Some(x), None) => return Err(err_width(x.len())),
            (None, Some(_)) => return Err(err_width(1)),
            (None, None) => {}
        }
    }
    Ok(())
}

/// Whether a column of `row IN (list)` mixes string and number literals in a way the pairs
/// written out would answer otherwise than MariaDB, which compares such a column's values as
/// numbers across the whole list: unless the row's own value is a number (each pair then
/// compares as numbers too) or a string no other string of the column differs from.
fn mixes_strings_and_numbers(row: &[ast::Expr], list: &[ast::Expr]) -> bool {
    let literal = |e: Option<&ast::Expr>| match e {
        Some(ast::Expr::Value(v)) => match &v.value {
            ast::Value::Number(..) => Some(None),
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                Some(Some(s.to_lowercase()))
            }
            _ => None,
        },
        _ => None,
    };
    let items: Vec<Cow<'_, [ast::Expr]>> = list.iter().filter_map(row_items).collect();
    (0..row.len()).any(|i| {
        let column: Vec<_> = items.iter().filter_map(|r| literal(r.get(i))).collect();
        let own = literal(row.get(i));
        let strings = column.iter().chain(&own).filter(|l| l.is_some()).count();
        let numbers = column.iter().chain(&own).filter(|l| l.is_none()).count();
        if strings == 0 || numbers == 0 {
            return false;
        }
        match own {
            Some(None) => false,
            Some(Some(s)) => column.iter().flatten().any(|t| *t != s),
            None => true,
        }
    })
}

/// `op` with its operands swapped: `a < b` is `b > a`.
fn flipped(op: &BinaryOperator) -> BinaryOperator {
    match op {
        BinaryOperator::Lt => BinaryOperator::Gt,
        BinaryOperator::LtEq => BinaryOperator::GtEq,
        BinaryOperator::Gt => BinaryOperator::Lt,
        BinaryOperator::GtEq => BinaryOperator::LtEq,
        other => other.clone(),
    }
}

/// The error of a row operand of `op`, which is no comparison of two rows: 4078 in
/// arithmetic and comparisons with a value, 4079 in bit operations, 1241 elsewhere.
fn err_row_in_operator(left: &ast::Expr, op: &BinaryOperator, right: &ast::Expr) -> SqlError {
    let row_left = is_row(left);
    let value = if row_left { right } else { left };
    match op {
        BinaryOperator::BitwiseAnd
        | BinaryOperator::BitwiseOr
        | BinaryOperator::BitwiseXor
        | BinaryOperator::PGBitwiseXor
        | BinaryOperator::PGBitwiseShiftLeft
        | BinaryOperator::PGBitwiseShiftRight => err_row_operand(&op.to_string()),
        BinaryOperator::Plus
        | BinaryOperator::Minus
        | BinaryOperator::Multiply
        | BinaryOperator::Divide => err_row_and_value(row_left, value, &op.to_string()),
        BinaryOperator::Modulo => err_row_and_value(row_left, value, "MOD"),
        op if is_comparison(op) => err_row_and_value(row_left, value, &op.to_string()),
        _ => err_width(1),
    }
}

impl Compiler<'_> {
    /// A comparison with a row constructor on either side, written out; None when neither
    /// side is a row.
    pub(super) fn row_comparison(
        &self,
        left: &ast::Expr,
        op: &BinaryOperator,
        right: &ast::Expr,
    ) -> Option<Result<Expr, SqlError>> {
        let comparison = is_comparison(op);
        let subquery = |e: &ast::Expr| matches!(e, ast::Expr::Subquery(_));
        let (l, r) = match (row_items(left), row_items(right)) {
            (None, None) => return None,
            (Some(l), Some(r)) if comparison => (l, r),
            (Some(row), None) if comparison && subquery(right) => {
                return Some(self.row_subquery_comparison(&row, op.clone(), right));
            }
            (None, Some(row)) if comparison && subquery(left) => {
                return Some(self.row_subquery_comparison(&row, flipped(op), left));
            }
            _ => return Some(Err(err_row_in_operator(left, op, right))),
        };
        if let Err(e) = check_widths(&l, &r) {
            return Some(Err(e));
        }
        let written = rows_compared(&l, op, &r)?;
        Some(self.compile(&ast::Expr::Nested(Box::new(written))))
    }

    /// `row [NOT] IN (row, ...)`, written out; None when `expr` is not a row.
    pub(super) fn row_in_list(
        &self,
        expr: &ast::Expr,
        list: &[ast::Expr],
        negated: bool,
    ) -> Option<Result<Expr, SqlError>> {
        // A list of one is a comparison in MariaDB: its errors name `=`.
        let op = if list.len() == 1 { "=" } else { "in" };
        let Some(l) = row_items(expr) else {
            // A value in a list with a row: 4078.
            return list
                .iter()
                .any(is_row)
                .then(|| Err(err_row_and_value(false, expr, op)));
        };
        if mixes_strings_and_numbers(&l, list) {
            return Some(Err(SqlError::not_supported(
                "row IN lists that mix strings and numbers in one column",
            )));
        }
        let mut any: Option<ast::Expr> = None;
        for item in list {
            let r = match row_items(item) {
                Some(r) => r,
                None if matches!(item, ast::Expr::Subquery(_)) => {
                    return Some(Err(SqlError::not_supported("subqueries in a row IN list")));
                }
                None => return Some(Err(err_row_and_value(true, item, op))),
            };
            if let Err(e) = check_widths(&l, &r) {
                return Some(Err(e));
            }
            let equal = rows_compared(&l, &BinaryOperator::Eq, &r)?;
            let equal = ast::Expr::Nested(Box::new(equal));
            any = Some(match any {
                None => equal,
                Some(any) => or(any, equal),
            });
        }
        let any = any?;
        let written = if negated { not(any) } else { any };
        Some(self.compile(&ast::Expr::Nested(Box::new(written))))
    }
}
