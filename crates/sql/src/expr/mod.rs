//! Expressions: compiled once from sqlparser's AST into [`Expr`], then typed and evaluated
//! many times (a prepared statement compiles at PREPARE and only evaluates at EXECUTE).
//!
//! Compilation resolves everything that does not change between executions: column
//! references become row indexes, system variable names become registry indexes, function
//! names become [`Func`] values, `?` placeholders become parameter numbers in text order.
//! What may change (parameter values, variable values, the clock) is read through [`Env`]
//! at evaluation time.

use myriad_types::errors::{ER_SP_DOES_NOT_EXIST, ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT};
pub mod arith;
pub mod assign;
pub mod cast;
pub mod collation;
pub mod compare;
pub mod compile;
pub mod datetime;
pub mod decimal;
pub mod eval;
pub mod evaluate;
pub(crate) mod func_names;
pub mod functions;
pub mod hex;
pub mod in_set;
mod interval;
pub mod row_compare;
mod scope;
pub use scope::ColumnScope;
pub mod sql_type;
pub mod text;

use crate::error::SqlError;
use crate::expr::eval::ArithOp;
use crate::expr::eval::Warning;
use crate::expr::functions::*;
use crate::value::Value;
pub use myriad_types::Collation;
use sqlparser::ast;
use sqlparser::ast::BinaryOperator;
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
/// group_concat_max_len's default.
pub const GROUP_CONCAT_MAX_LEN_DEFAULT: u64 = 1_048_576;

pub trait Env {
    fn param(&self, index: usize) -> Value;
    fn system_variable(&self, scope: VarScope, index: usize) -> Result<Value, SqlError>;
    fn user_variable(&self, name: &str) -> Value;
    /// `@name := value` (see [`Expr::AssignVar`]): keep `value` in the session's user
    /// variable. Where there is no session (folding constants) the assignment is refused,
    /// so that nothing that assigns is ever evaluated once for all rows.
    fn assign_user_variable(&mut self, name: &str, value: Value) -> Result<(), SqlError> {
        let _ = (name, value);
        Err(SqlError::not_supported("assigning a user variable here"))
    }
    fn database(&self) -> Option<String>;
    fn user(&self) -> String;
    fn current_user(&self) -> String;
    /// The role the session enabled (CURRENT_ROLE()).
    fn current_role(&self) -> Option<String>;
    fn connection_id(&self) -> u32;
    fn last_insert_id(&self) -> u64;
    /// FOUND_ROWS(): the rows of the session's last result set (see
    /// `exec::found_rows`).
    /// None when that count is not known (see `exec::found_rows`).
    fn found_rows(&self) -> Option<u64> {
        Some(0)
    }
    /// ROW_COUNT(): what the session's previous statement changed (-1 after a result set
    /// or an error).
    fn row_count(&self) -> i64 {
        0
    }
    /// The statement's start time in microseconds since the epoch (fixed per statement).
    fn now_micros(&self) -> i64;
    fn div_precision_increment(&self) -> u32;
    /// Bytes: the longest string a function may build; longer gives NULL and warning 1301.
    fn max_allowed_packet(&self) -> u64 {
        DEFAULT_MAX_ALLOWED_PACKET
    }
    fn sql_mode(&self) -> u64;
    /// Characters: the longest GROUP_CONCAT result (`group_concat_max_len`).
    fn group_concat_max_len(&self) -> u64 {
        GROUP_CONCAT_MAX_LEN_DEFAULT
    }
    fn warnings(&mut self) -> &mut Vec<Warning>;
    /// The rows of a subquery; `outer`: the values of the enclosing query's columns it
    /// reads ([`SubqueryPlan::outer_columns`], empty for an uncorrelated one), which its
    /// [`Expr::Outer`] read while it runs.
    fn subquery(
        &mut self,
        query: &dyn SubqueryPlan,
        outer: Vec<Value>,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let _ = (query, outer);
        Err(SqlError::not_supported("subqueries here"))
    }
    /// [`Expr::Outer`]: the `n`th outer value of the correlated subquery running now.
    fn outer_value(&self, n: usize) -> Value {
        let _ = n;
        Value::Null
    }
    /// A user-level lock function (GET_LOCK ...; see `exec::user_locks`).
    fn user_lock(&mut self, call: UserLock<'_>) -> Result<Value, SqlError> {
        let _ = call;
        Err(SqlError::not_supported("user-level locks here"))
    }
    /// RAND(): the next number of the session's generator (here: one seeded by the
    /// clock).
    fn rand(&mut self) -> f64 {
        functions::rand::RandState::from_clock().next_double()
    }
    /// RAND(N) with an N the same for every row: the next number of the statement's
    /// generator for the call `key`, seeded with `seed` at its first use (here: the first
    /// number, for an expression evaluated once).
    fn seeded_rand(&mut self, key: usize, seed: u32) -> f64 {
        let _ = key;
        functions::rand::RandState::seeded(seed).next_double()
    }
}

/// A compiled subquery, as an expression holds it. The statement compiler builds it
/// ([`StatementCompiler::subquery`]) and the executor runs it ([`Env::subquery`], looking at
/// the plan through [`SubqueryPlan::as_any`]); an expression only asks for its type.
pub trait SubqueryPlan: std::fmt::Debug + Send + Sync {
    /// The static type of its first column: the type of a scalar subquery.
    fn first_column_type(&self, env: &dyn Env) -> crate::expr::eval::SqlType;
    /// Its first column's collation (see [`crate::expr::collation`]).
    fn first_column_collation(&self) -> crate::expr::collation::Derived;
    /// The plan itself, for the stages that know its type.
    fn as_any(&self) -> &dyn std::any::Any;
    /// How many columns its rows have.
    fn column_count(&self) -> usize {
        1
    }
    /// Each column's collation.
    fn column_collations(&self) -> Vec<crate::expr::collation::Derived> {
        vec![self.first_column_collation()]
    }
    /// The values a correlated subquery reads from the queries enclosing it, in the order
    /// of its [`Expr::Outer`] numbers; empty for an uncorrelated one.
    fn outer_columns(&self) -> &[OuterSource] {
        &[]
    }
}

/// What the expression compiler asks of the statement compiler above it: the parts of an
/// expression that need statements or the catalog.
pub trait StatementCompiler {
    /// Compile a subquery; `c` has no columns in scope but the enclosing query's in
    /// [`Compiler::outer`], whose columns the subquery read it has noted there.
    fn subquery(&self, q: &ast::Query, c: &Compiler) -> Result<Arc<dyn SubqueryPlan>, SqlError>;
    /// Compile `@@cache.variable`, a named key cache's structured variable (`scope` as
    /// written before the cache name).
    fn structured(&self, scope: VarScope, cache: &str, name: &str) -> Result<Expr, SqlError>;
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
    SubstringIndex,
    /// `x REGEXP p` (see `functions::regexp`).
    Regexp,
    RegexpInstr,
    RegexpSubstr,
    RegexpReplace,
    FindInSet,
    /// JSON_VALID(x): whether x is JSON text (see `functions::json`).
    JsonValid,
    ConvertTz,
    Md5,
    /// PASSWORD(x): mysql_native_password's stored form of x.
    Password,
    Sha1,
    Sha2,
    Strcmp,
    Field,
    Insert,
    /// QUOTE(s): s as an SQL string literal; NULL gives the word NULL.
    Quote,
    Unhex,
    ToBase64,
    FromBase64,
    Crc32,
    /// CHAR(n, ...): each integer's bytes, a binary string.
    Char,
    /// ORD(s): the first character's bytes as a big-endian number.
    Ord,
    BitLength,
    Bin,
    Oct,
    /// CONV(n, from_base, to_base).
    Conv,
    Elt,
    MakeSet,
    ExportSet,
    Soundex,
    /// ENCODE(s, password): MariaDB's old reversible scrambling.
    Encode,
    Decode,
    /// `CHAR(n, ... USING utf8mb4)` (`mb4`) or `USING utf8mb3`: the bytes as text of that
    /// character set (NULL, or cut, when not well-formed).
    CharUsing {
        mb4: bool,
    },
    /// CHR(n): CHAR(n) as a utf8mb4 string (NULL, or cut, when not well-formed).
    Chr,
    BitCount,
    /// RANDOM_BYTES(n): n random bytes (not deterministic).
    RandomBytes,
    /// FORMAT(x, d[, locale]), en_US only.
    Format,
    /// AES_ENCRYPT(s, key): AES-128-ECB with PKCS#7 padding, the key folded into 16 bytes.
    AesEncrypt,
    AesDecrypt,
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
    CurrentRole,
    ConnectionId,
    LastInsertId,
    FoundRows,
    RowCount,
    Now,
    /// The time at which the call runs, not the statement's start (NOW()).
    SysDate,
    CurDate,
    /// CURTIME, CURRENT_TIME, UTC_TIME: the statement's time of day (UTC).
    CurTime,
    /// `UNIX_TIMESTAMP([date])`: now, or the date's seconds since the epoch.
    UnixTimestamp,
    Sleep,
    /// `RAND([N])` (see `functions::rand`).
    Rand,
    InetAton,
    InetNtoa,
    /// The user-level lock functions (see `exec::user_locks`).
    GetLock,
    ReleaseLock,
    ReleaseAllLocks,
    IsFreeLock,
    IsUsedLock,
    /// TIME(x): x read as a TIME with the fraction digits of its type.
    Time,
    /// A date plus an interval: arguments date, count, unit code (a literal; see
    /// [`myriad_types::interval::IntervalUnit::code`]). Compiled from DATE_ADD, ADDDATE and
    /// `d + INTERVAL n unit`, never looked up by name.
    DateAdd,
    LastDay,
    DateDiff,
    /// A field of a DATE or DATETIME (YEAR, MONTH, DAYOFWEEK, TO_DAYS ...).
    DatePart(DatePart),
    /// A date minus an interval (DATE_SUB, SUBDATE, `d - INTERVAL n unit`).
    DateSub,
    /// DATE_FORMAT(date, fmt[, locale]), en_US names only.
    DateFormat,
    /// TIMESTAMPDIFF: arguments a, b, unit code (compiled from `TIMESTAMPDIFF(unit, a, b)`,
    /// never looked up by name).
    TimestampDiff,
    /// WEEK(d[, mode]): without a mode, the session's default_week_format.
    Week,
    YearWeek,
    FromDays,
    MakeDate,
    PeriodAdd,
    /// FROM_UNIXTIME(ts[, fmt]), in UTC (the session time zone must be UTC).
    FromUnixtime,
    PeriodDiff,
    /// TIME_FORMAT(time, fmt).
    TimeFormat,
    DayName,
    MonthName,
    /// STR_TO_DATE(text, format).
    StrToDate,
    /// MAKETIME(hours, minutes, seconds).
    MakeTime,
    SecToTime,
    TimeToSec,
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
    /// CHAR or CHAR(len): text, cut to `len` characters (warning 1292).
    Char {
        len: Option<u32>,
    },
    Decimal {
        precision: u32,
        scale: u32,
    },
    Double,
    Date,
    /// DATETIME(fsp): the fraction cut to `fsp` digits.
    DateTime {
        fsp: u8,
    },
    /// TIME(fsp): the fraction cut to `fsp` digits.
    Time {
        fsp: u8,
    },
    /// A value as the text a string function reads, in the [`TextForm`] of its column or
    /// expression type (`DATETIME(3)` reads as `2020-01-01 10:00:00.500`, a FLOAT with six
    /// significant digits). Values of other kinds pass unchanged. Placed by the compiler
    /// around the operands of string functions, LIKE and CAST AS CHAR; never written by a
    /// user.
    TypedText(TextForm),
}

/// How a value reads as text where its type says more than the value: a date or time with
/// its type's `fsp` fraction digits, a FLOAT column's value (held as a DOUBLE) with a
/// FLOAT's six significant digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextForm {
    Temporal { fsp: u8 },
    Float,
}

/// A compiled expression.
#[derive(Debug, Clone)]
pub enum Expr {
    Literal(Value),
    /// A hexadecimal or bit literal (`0x41`, `b'101'`): its bytes as a binary string. Where
    /// its context takes a number the compiler replaces it by its integer (see
    /// [`crate::expr::hex`]).
    HexLiteral(Vec<u8>),
    Param(usize),
    Column(usize),
    /// A value of an ENUM or SET column (`expr`, the [`Expr::Column`]): its text. Where its
    /// context takes a number (see [`crate::expr::hex`]) the compiler sets `number`, and it
    /// is then the ENUM's position or the SET's bitmask, as in MariaDB (`e + 0`, `SUM(e)`,
    /// `e = 1`, ORDER BY).
    Elements {
        expr: Box<Expr>,
        list: Arc<[String]>,
        set: bool,
        number: bool,
    },
    SysVar {
        scope: VarScope,
        index: usize,
    },
    UserVar(String),
    /// `@name := value`: the value, kept in the session's user variable `name` each time
    /// it is evaluated (see [`crate::expr::assign`]).
    AssignVar {
        name: String,
        value: Box<Expr>,
    },
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
        /// The collation strings compare under (see [`crate::expr::collation`]).
        collation: Collation,
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
        /// [`crate::expr::in_set`]).
        set: Option<Arc<crate::expr::in_set::ConstSet>>,
        collation: Collation,
    },
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
        collation: Collation,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: u8,
        negated: bool,
        collation: Collation,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
        /// The collation the operand compares with each WHEN value under.
        collation: Collation,
    },
    Call {
        func: Func,
        args: Vec<Expr>,
        /// The collation the function compares or searches strings under (STRCMP,
        /// NULLIF, GREATEST, LEAST, FIELD, LOCATE, INSTR, UPPER and LOWER of bytes).
        collation: Collation,
    },
    /// `x COLLATE name`, a binary literal (`X'..'`, `_binary'..'`) or `CAST(x AS BINARY)`:
    /// the value of `expr`, whose strings now carry `collation`.
    Collate {
        expr: Box<Expr>,
        collation: Collation,
        derivation: crate::expr::collation::Derivation,
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
    /// A column of the query enclosing a correlated subquery: the `n`th value the
    /// subquery runs with (see [`SubqueryPlan::outer_columns`]).
    Outer(usize),
    /// A scalar subquery: evaluated once per statement, or, correlated, once per distinct
    /// values of the outer columns it reads.
    Subquery(Arc<dyn SubqueryPlan>),
    InSubquery {
        expr: Box<Expr>,
        query: Arc<dyn SubqueryPlan>,
        negated: bool,
        collation: Collation,
    },
    Exists {
        query: Arc<dyn SubqueryPlan>,
        negated: bool,
    },
    /// A row tested against a subquery's rows of as many columns (see
    /// [`crate::expr::row_compare`]): `(a, b) [NOT] IN (SELECT x, y ...)`, or
    /// `(a, b) op (SELECT x, y ...)` with a subquery of at most one row.
    RowSubquery {
        row: Vec<Expr>,
        query: Arc<dyn SubqueryPlan>,
        test: RowTest,
        /// Per column, the collation its strings compare under.
        collations: Vec<Collation>,
    },
}

/// What a row subquery tests (see [`Expr::RowSubquery`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowTest {
    /// `[NOT] IN`: whether a row of the subquery equals the row.
    In { negated: bool },
    /// A comparison with the subquery's one row (NULLs when it has none).
    Compare(CmpOp),
}

/// Compile-time context: the source text (for names and error messages), the columns in
/// scope, and the text position of each `?` (to number them in text order).
#[derive(Clone, Copy)]
pub struct Compiler<'a> {
    pub source: &'a str,
    pub scope: &'a ColumnScope,
    pub placeholders: &'a HashMap<(u64, u64), usize>,
    pub pipes_as_concat: bool,
    /// The statement compiler that subqueries and named key caches compile against (None
    /// where they cannot appear).
    pub ctx: Option<&'a dyn StatementCompiler>,
    pub map: Option<&'a crate::parser::source::SourceMap>,
    /// The long literal lists taken out of the statement before sqlparser (see
    /// [`crate::parser::const_lists`]).
    pub lists: Option<&'a crate::parser::const_lists::ListSource<'a>>,
    /// In a subquery: the enclosing query's columns, which its names may read when its
    /// own columns do not have them (a correlated subquery).
    pub outer: Option<&'a OuterScope<'a>>,
}

/// Where a correlated subquery's outer value comes from, as the enclosing query runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OuterSource {
    /// A column of the enclosing query's row (its position).
    Column(usize),
    /// An outer value of the enclosing query, itself a correlated subquery: a column of a
    /// query further out.
    Outer(usize),
}

impl OuterSource {
    /// The position of the enclosing query's column it reads, if it reads one.
    pub fn column(self) -> Option<usize> {
        match self {
            OuterSource::Column(i) => Some(i),
            OuterSource::Outer(_) => None,
        }
    }
}

/// A call of a user-level lock function, its arguments read (None: NULL).
#[derive(Debug, Clone, Copy)]
pub enum UserLock<'a> {
    /// `timeout`: seconds, never negative (the caller answers NULL with 1411 for those).
    Get {
        name: Option<&'a str>,
        timeout: f64,
    },
    Release(Option<&'a str>),
    ReleaseAll,
    IsFree(Option<&'a str>),
    IsUsed(Option<&'a str>),
}

/// The columns of the query enclosing a subquery being compiled, and the outer values the
/// subquery reads (see [`Expr::Outer`]).
pub struct OuterScope<'a> {
    pub scope: &'a ColumnScope,
    /// In the order of first use: [`Expr::Outer`] numbers them.
    pub captured: std::cell::RefCell<Vec<OuterSource>>,
    /// The enclosing query's own outer scope, when it is a subquery too.
    pub parent: Option<&'a OuterScope<'a>>,
}

impl OuterScope<'_> {
    /// The number of the outer value read from `source`.
    pub fn capture(&self, source: OuterSource) -> usize {
        let mut captured = self.captured.borrow_mut();
        match captured.iter().position(|&c| c == source) {
            Some(n) => n,
            None => {
                captured.push(source);
                captured.len() - 1
            }
        }
    }
}

pub use crate::error::err_syntax;

pub(crate) fn err_function(name: &str) -> SqlError {
    SqlError::new(
        ER_SP_DOES_NOT_EXIST,
        format!("FUNCTION {name} does not exist"),
    )
}

pub(crate) fn err_param_count(name: &str) -> SqlError {
    SqlError::new(
        ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
        format!("Incorrect parameter count in the call to native function '{name}'"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::datetime::{civil_from_days, parse_datetime};
    use crate::expr::text::number_literal;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(
            parse_datetime("2024-02-29 13:14:15.5"),
            Some(Value::DateTime(myriad_types::DateTime {
                year: 2024,
                month: 2,
                day: 29,
                hour: 13,
                minute: 14,
                second: 15,
                micros: 500_000
            }))
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
        assert_eq!(number_literal("1").unwrap(), Value::Int(1));
        assert_eq!(
            number_literal("18446744073709551615").unwrap(),
            Value::UInt(u64::MAX)
        );
        assert!(matches!(
            number_literal("18446744073709551616").unwrap(),
            Value::Decimal(_)
        ));
        assert!(matches!(number_literal("1.50").unwrap(), Value::Decimal(_)));
        assert_eq!(number_literal("1e3").unwrap(), Value::Double(1000.0));
    }

    #[test]
    fn locate_is_case_insensitive_and_one_based() {
        assert_eq!(locate("b", "abc", 1, Collation::Utf8mb4GeneralCi), 2);
        assert_eq!(locate("B", "abcb", 3, Collation::Utf8mb4GeneralCi), 4);
        assert_eq!(locate("x", "abc", 1, Collation::Utf8mb4GeneralCi), 0);
        assert_eq!(locate("", "abc", 2, Collation::Utf8mb4GeneralCi), 2);
        assert_eq!(locate("B", "abcb", 1, Collation::Utf8mb4Bin), 0);
    }
}
