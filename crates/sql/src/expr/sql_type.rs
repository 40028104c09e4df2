//! The static type of an expression, as MySQL reports it in result metadata.

use crate::expr::eval::aggregate_type;
use crate::expr::eval::arith_type;
use crate::expr::eval::ArithOp;
use crate::expr::eval::SqlType;
use crate::expr::eval::SqlValue;
use crate::expr::functions::*;
use crate::expr::*;
use crate::value::Value;

impl Expr {
    /// Whether `f` holds for every direct operand of this expression, visited in order and
    /// stopping at the first false. A subquery's own statement is not an operand (its
    /// columns are another row's): walkers that care match the subquery forms themselves.
    pub fn all_operands(&self, mut f: impl FnMut(&Expr) -> bool) -> bool {
        match self {
            Expr::Literal(_)
            | Expr::HexLiteral(_)
            | Expr::Param(_)
            | Expr::Outer(_)
            | Expr::Column(_)
            | Expr::SysVar { .. }
            | Expr::UserVar(_)
            | Expr::Subquery(_)
            | Expr::Exists { .. } => true,
            Expr::Neg(x) | Expr::Not(x) | Expr::BitNot(x) | Expr::Elements { expr: x, .. } => f(x),
            Expr::AssignVar { value, .. } => f(value),
            Expr::Arith { left, right, .. }
            | Expr::Cmp { left, right, .. }
            | Expr::Bit { left, right, .. } => f(left) && f(right),
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Xor(a, b) => f(a) && f(b),
            Expr::IsNull { expr, .. }
            | Expr::IsBool { expr, .. }
            | Expr::Cast { expr, .. }
            | Expr::Collate { expr, .. }
            | Expr::InSubquery { expr, .. } => f(expr),
            Expr::InList { expr, list, .. } => f(expr) && list.iter().all(f),
            Expr::RowSubquery { row, .. } => row.iter().all(f),
            Expr::Between {
                expr, low, high, ..
            } => f(expr) && f(low) && f(high),
            Expr::Like { expr, pattern, .. } => f(expr) && f(pattern),
            Expr::Case {
                operand,
                whens,
                otherwise,
                ..
            } => {
                operand.as_deref().is_none_or(&mut f)
                    && whens.iter().all(|(a, b)| f(a) && f(b))
                    && otherwise.as_deref().is_none_or(&mut f)
            }
            Expr::Call { args, .. } => args.iter().all(f),
            Expr::TrimChars { expr, what, .. } => f(expr) && f(what),
        }
    }

    /// The row's column a grouping key groups by: the key itself, or the ENUM or SET
    /// column whose number it is (see [`Expr::Elements`]).
    pub fn grouped_column(&self) -> Option<usize> {
        match self {
            Expr::Column(c) => Some(*c),
            Expr::Elements { expr, .. } => expr.grouped_column(),
            _ => None,
        }
    }

    /// Whether the expression reads a column of the query enclosing its subquery
    /// ([`Expr::Outer`]), directly or through subqueries of its own.
    pub fn reads_outer(&self) -> bool {
        let subquery_reads = |q: &std::sync::Arc<dyn SubqueryPlan>| {
            q.outer_columns()
                .iter()
                .any(|s| matches!(s, OuterSource::Outer(_)))
        };
        match self {
            Expr::Outer(_) => true,
            // A subquery within that reads the enclosing query's values through this one's.
            Expr::Subquery(q)
            | Expr::Exists { query: q, .. }
            | Expr::InSubquery { query: q, .. }
            | Expr::RowSubquery { query: q, .. }
                if subquery_reads(q) =>
            {
                true
            }
            _ => !self.all_operands(|x| !x.reads_outer()),
        }
    }

    /// Whether the value is the same for every row of a statement: it reads no column,
    /// outer value or subquery, and calls nothing that changes per call (RAND).
    pub fn same_for_every_row(&self) -> bool {
        match self {
            Expr::Column(_)
            | Expr::Outer(_)
            | Expr::Subquery(_)
            | Expr::Exists { .. }
            | Expr::InSubquery { .. }
            | Expr::RowSubquery { .. } => false,
            Expr::Call {
                func: Func::Rand, ..
            } => false,
            _ => self.all_operands(|x| x.same_for_every_row()),
        }
    }

    /// Whether evaluating it twice can give two values for the same row, or does something
    /// (it calls RAND or a user-level lock function, or assigns a user variable).
    pub fn volatile(&self) -> bool {
        match self {
            Expr::Call {
                func:
                    Func::Rand
                    | Func::GetLock
                    | Func::ReleaseLock
                    | Func::ReleaseAllLocks
                    | Func::IsFreeLock
                    | Func::IsUsedLock,
                ..
            }
            | Expr::AssignVar { .. } => true,
            _ => !self.all_operands(|x| !x.volatile()),
        }
    }

    /// The static type, given the types of the row's columns and the session (for
    /// parameters, whose types are known once they are bound).
    pub fn sql_type(&self, env: &dyn Env, columns: &[SqlType]) -> SqlType {
        let ty = |e: &Expr| e.sql_type(env, columns);
        match self {
            Expr::Literal(d) => d.sql_type(),
            Expr::HexLiteral(bytes) => SqlType::Str {
                chars: String::from_utf8_lossy(bytes).chars().count() as u32,
            },
            Expr::Param(i) => env.param(*i).sql_type(),
            Expr::Outer(n) => env.outer_value(*n).sql_type(),
            Expr::Column(i) => columns.get(*i).copied().unwrap_or(SqlType::Null),
            // As MariaDB types it: an integer as wide as the column's text.
            Expr::Elements {
                number: true,
                set,
                list,
                ..
            } => SqlType::Int {
                unsigned: false,
                len: myriad_storage::elements::max_chars(list, *set).max(1),
            },
            Expr::Elements { expr, .. } => ty(expr),
            Expr::SysVar { index, .. } => sysvar_type(*index),
            Expr::UserVar(name) => match env.user_variable(name) {
                Value::Null => SqlType::Str { chars: 0 },
                Value::Int(_) | Value::UInt(_) => int(20),
                d => d.sql_type(),
            },
            Expr::AssignVar { value, .. } => crate::expr::assign::value_type(ty(value)),
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
            // A string whatever it trims (a number is trimmed as its text, NULL is a NULL
            // string).
            Expr::TrimChars { expr, .. } => SqlType::Str {
                chars: crate::expr::eval::display_chars(ty(expr)),
            },
            Expr::Subquery(q) => q.first_column_type(env),
            Expr::InSubquery { .. } | Expr::Exists { .. } | Expr::RowSubquery { .. } => int(1),
            Expr::Cast { expr, to } => cast_type(*to, ty(expr)),
            Expr::Call { func, args, .. } => call_type(*func, args, env, columns),
            Expr::Collate { expr, .. } => ty(expr),
        }
    }
}

/// A signed integer type `len` characters wide.
fn int(len: u32) -> SqlType {
    SqlType::Int {
        unsigned: false,
        len,
    }
}

/// An unsigned integer type `len` characters wide.
fn int_unsigned(len: u32) -> SqlType {
    SqlType::Int {
        unsigned: true,
        len,
    }
}

/// A system variable's type, from its kind.
fn sysvar_type(index: usize) -> SqlType {
    match crate::system::sysvars::def(index).kind {
        // MariaDB reports boolean variables as BIGINT.
        crate::system::sysvars::Kind::Bool => int(21),
        crate::system::sysvars::Kind::UInt { .. } => SqlType::Int {
            unsigned: true,
            len: 21,
        },
        crate::system::sysvars::Kind::Int { .. } => int(21),
        // MariaDB shows them with six decimals (a DOUBLE of 6 decimals there; myriad's
        // DOUBLE carries no decimals, so a DECIMAL with the same text).
        crate::system::sysvars::Kind::Double { .. } => SqlType::Decimal {
            precision: 20,
            scale: 6,
        },
        _ => SqlType::Str { chars: 2048 },
    }
}

/// `CAST(x AS to)`'s type, where `arg` is x's.
fn cast_type(to: CastTo, arg: SqlType) -> SqlType {
    match to {
        CastTo::Signed => int(crate::expr::eval::display_chars(arg).clamp(1, 21)),
        // An unsigned integer keeps its width (CAST(0x41 AS UNSIGNED) is a LONG).
        CastTo::Unsigned => match arg {
            SqlType::Int {
                unsigned: true,
                len,
            } => int_unsigned(len),
            _ => int_unsigned(21),
        },
        CastTo::Char { len } => SqlType::Str {
            chars: len.unwrap_or_else(|| crate::expr::eval::display_chars(arg)),
        },
        CastTo::Decimal { precision, scale } => SqlType::Decimal { precision, scale },
        CastTo::Double => SqlType::Double,
        CastTo::Date => SqlType::Date,
        CastTo::Time { fsp } => SqlType::Time { fsp },
        CastTo::TypedText(_) => arg,
        CastTo::DateTime { fsp } => SqlType::DateTime { fsp },
    }
}

/// A function call's type, from its arguments'.
fn call_type(func: Func, args: &[Expr], env: &dyn Env, columns: &[SqlType]) -> SqlType {
    let ty = |e: &Expr| e.sql_type(env, columns);
    let arg = |i: usize| args.get(i).map(ty).unwrap_or(SqlType::Null);
    let chars = |i: usize| crate::expr::eval::display_chars(arg(i));
    // The bytes of a text argument of `chars` characters (four each), or of a number's
    // digits (one each).
    let bytes = |i: usize| match arg(i) {
        SqlType::Str { chars } => chars.saturating_mul(4),
        other => crate::expr::eval::display_chars(other),
    };
    match func {
        // Widths saturate: nested calls (HEX of HEX ..., CONCAT of CONCATs) can name more
        // characters than a u32 holds; the value itself is bounded by max_allowed_packet.
        Func::Concat => SqlType::Str {
            chars: args
                .iter()
                .map(|a| crate::expr::eval::display_chars(ty(a)))
                .fold(0u32, u32::saturating_add),
        },
        Func::ConcatWs => SqlType::Str {
            chars: args
                .iter()
                .map(|a| crate::expr::eval::display_chars(ty(a)))
                .fold(0u32, u32::saturating_add)
                .saturating_add(chars(0).saturating_mul(args.len().saturating_sub(2) as u32)),
        },
        Func::Upper | Func::Lower | Func::Trim | Func::LTrim | Func::RTrim | Func::Reverse => {
            SqlType::Str { chars: chars(0) }
        }
        Func::Substring | Func::Left | Func::Right => SqlType::Str { chars: chars(0) },
        Func::LPad | Func::RPad if args.len() == 2 => SqlType::Str {
            chars: chars(0).max(1).saturating_mul(4),
        },
        Func::Replace | Func::Repeat | Func::LPad | Func::RPad | Func::Insert => SqlType::Str {
            chars: chars(0).max(chars(2)).max(1).saturating_mul(4),
        },
        Func::Space => SqlType::Str { chars: 255 },
        Func::SubstringIndex => SqlType::Str { chars: chars(0) },
        Func::FindInSet => int(3),
        Func::JsonValid => int(1),
        Func::Md5 => SqlType::Str { chars: 32 },
        Func::Password => SqlType::Str { chars: 41 },
        Func::Sha1 => SqlType::Str { chars: 40 },
        Func::Sha2 => SqlType::Str { chars: 128 },
        Func::Hex => SqlType::Str {
            chars: chars(0).saturating_mul(2),
        },
        Func::Quote => SqlType::Str {
            chars: chars(0).saturating_mul(2).saturating_add(2),
        },
        Func::Soundex => SqlType::Str {
            chars: chars(0).max(4),
        },
        Func::Elt => SqlType::Str {
            chars: (1..args.len()).map(chars).max().unwrap_or(0),
        },
        Func::MakeSet => SqlType::Str {
            chars: (1..args.len())
                .map(chars)
                .fold(args.len().saturating_sub(2) as u32, u32::saturating_add),
        },
        Func::ExportSet => SqlType::Str {
            chars: chars(1)
                .max(chars(2))
                .saturating_mul(64)
                .saturating_add(if args.len() > 3 { chars(3) } else { 1 }.saturating_mul(63)),
        },
        Func::Bin | Func::Oct | Func::Conv => SqlType::Str { chars: 65 },
        Func::ToBase64 => {
            let base64 = bytes(0).div_ceil(3).saturating_mul(4);
            SqlType::Str {
                chars: base64.saturating_add(base64.saturating_sub(1) / 76),
            }
        }
        // Binary strings: their widths count bytes.
        Func::Unhex => SqlType::Str {
            chars: bytes(0).div_ceil(2),
        },
        Func::FromBase64 => SqlType::Str {
            chars: bytes(0).saturating_mul(3).div_ceil(4),
        },
        Func::Char => SqlType::Str {
            chars: (args.len() as u32).saturating_mul(4),
        },
        Func::AesEncrypt => SqlType::Str {
            chars: (bytes(0) / 16).saturating_add(1).saturating_mul(16),
        },
        Func::AesDecrypt | Func::Encode | Func::Decode => SqlType::Str { chars: bytes(0) },
        Func::RandomBytes => SqlType::Str {
            chars: match args.first() {
                Some(Expr::Literal(Value::Int(n))) => (*n).clamp(0, 1024) as u32,
                _ => 1024,
            },
        },
        Func::Crc32 => int_unsigned(10),
        // The digits, a comma per three, the point and up to 38 decimals.
        Func::Format => SqlType::Str {
            chars: chars(0).saturating_add(chars(0) / 3).saturating_add(39),
        },
        Func::Ord => int(7),
        Func::Chr => SqlType::Str { chars: 1 },
        Func::CharUsing { .. } => SqlType::Str {
            chars: args.len() as u32,
        },
        Func::BitCount => int(2),
        Func::BitLength => int(11),
        Func::Version => SqlType::Str { chars: 64 },
        Func::Database => SqlType::Str { chars: 64 },
        Func::User | Func::CurrentUser => SqlType::Str { chars: 141 },
        Func::CurrentRole => SqlType::Str { chars: 128 },
        Func::Length
        | Func::CharLength
        | Func::Locate
        | Func::Instr
        | Func::RegexpInstr
        | Func::Ascii
        | Func::Field => int(9),
        Func::Strcmp | Func::Sign => int(2),
        Func::ConnectionId => SqlType::Int {
            unsigned: true,
            len: 10,
        },
        Func::LastInsertId | Func::FoundRows => SqlType::Int {
            unsigned: true,
            len: 21,
        },
        Func::RowCount => SqlType::Int {
            unsigned: false,
            len: 21,
        },
        Func::UnixTimestamp | Func::TimeToSec if !args.is_empty() => {
            let time = func == Func::TimeToSec;
            match crate::expr::functions::temporal_decimals(&args[0], arg(0), time) {
                0 => int(17),
                scale => SqlType::Decimal {
                    precision: 16 + u32::from(scale),
                    scale: scale.into(),
                },
            }
        }
        Func::UnixTimestamp | Func::TimeToSec => int(11),
        Func::StrToDate => crate::expr::functions::str_to_date_type(match args.get(1) {
            Some(Expr::Literal(Value::Bytes(f))) => Some(f),
            _ => None,
        }),
        Func::MakeTime => SqlType::Time {
            fsp: crate::expr::functions::temporal_decimals(&args[2], arg(2), true),
        },
        Func::Rand => SqlType::Double,
        Func::InetAton => SqlType::Int {
            unsigned: true,
            len: 21,
        },
        Func::InetNtoa => SqlType::Str { chars: 31 },
        Func::GetLock | Func::ReleaseLock | Func::IsFreeLock => int(1),
        Func::ReleaseAllLocks => int(10),
        Func::IsUsedLock => SqlType::Int {
            unsigned: true,
            len: 10,
        },
        Func::Regexp => int(1),
        Func::RegexpSubstr => SqlType::Str {
            chars: crate::expr::eval::display_chars(arg(0)),
        },
        // MariaDB does not bound it: a LONGTEXT in CREATE TABLE ... SELECT.
        Func::RegexpReplace => SqlType::Str {
            chars: u32::MAX / 4,
        },
        Func::Time => SqlType::Time {
            fsp: crate::expr::functions::temporal_decimals(&args[0], arg(0), true),
        },
        Func::SecToTime => SqlType::Time {
            fsp: crate::expr::functions::temporal_decimals(&args[0], arg(0), true),
        },
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
            let numbers = types
                .iter()
                .any(|t| !matches!(t, SqlType::Str { .. } | SqlType::Null));
            if !strings && !numbers {
                SqlType::Null
            } else if numbers && (strings || types.contains(&SqlType::Null)) {
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
        Func::Pow | Func::Sqrt | Func::Pi | Func::Exp | Func::Ln | Func::Log10 | Func::Log2 => {
            SqlType::Double
        }
        Func::Now | Func::SysDate => SqlType::DateTime { fsp: 0 },
        Func::CurDate => SqlType::Date,
        Func::CurTime => SqlType::Time { fsp: 0 },
        Func::DatePart(part) => int(part.width()),
        Func::LastDay => SqlType::Date,
        Func::DayName => SqlType::Str { chars: 9 },
        Func::MonthName => SqlType::Str { chars: 9 },
        Func::FromUnixtime if args.len() == 1 => SqlType::DateTime { fsp: 0 },
        Func::DateFormat | Func::TimeFormat | Func::FromUnixtime => SqlType::Str {
            chars: match args.get(1) {
                Some(Expr::Literal(Value::Bytes(f))) => crate::expr::functions::format_width(f),
                _ => chars(1).saturating_mul(10),
            },
        },
        Func::DateDiff => int(9),
        Func::TimestampDiff => int(21),
        Func::Week => int(2),
        Func::YearWeek => int(6),
        Func::PeriodAdd | Func::PeriodDiff => int(6),
        Func::FromDays | Func::MakeDate => SqlType::Date,
        Func::ConvertTz => SqlType::DateTime {
            fsp: match arg(0) {
                SqlType::DateTime { fsp } => fsp,
                _ => 0,
            },
        },
        Func::DateAdd | Func::DateSub => crate::expr::functions::date_add_type(
            arg(0),
            args.get(2).and_then(|u| match u {
                Expr::Literal(code) => crate::expr::functions::unit_of(code),
                _ => None,
            }),
        ),
    }
}
