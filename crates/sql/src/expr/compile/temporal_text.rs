//! Dates, datetimes and times read as text with the digits of their type.
//!
//! A DATETIME(3) value of `10:00:00.5` is `2020-01-01 10:00:00.500` wherever MariaDB reads
//! it as a string (CONCAT, LENGTH, LIKE, HEX, CAST AS CHAR ...): the type's fraction
//! digits, not the value's. The evaluator's values do not carry their type's digits, so
//! the compiler wraps such operands in [`CastTo::TemporalText`] with the digits it knows
//! statically: from the column (see [`ColumnScope::temporal`]) or a CAST, through the
//! functions that pass a value on unchanged (IF, IFNULL, COALESCE, GREATEST, LEAST, CASE).
//! Where it knows none (a subquery, a user variable, a parameter), the value's own digits
//! stay: none for a whole second, otherwise six.

use crate::expr::eval::SqlType;
use crate::expr::text::ConstEnv;
use crate::expr::*;
use myriad_types::datetime::MAX_FSP;
use myriad_types::interval::IntervalUnit;

impl Compiler<'_> {
    /// The fraction digits `e` shows as text when it is a date (0), datetime or time;
    /// None when it is none or the compiler cannot tell.
    pub(crate) fn temporal_digits(&self, e: &Expr) -> Option<u8> {
        match e {
            Expr::Column(i) => self.scope.temporal.get(*i).copied().flatten(),
            Expr::Cast { to, expr } => match to {
                CastTo::Date => Some(0),
                CastTo::DateTime { fsp } | CastTo::Time { fsp } => Some(*fsp),
                CastTo::TemporalText { fsp } => self.temporal_digits(expr).map(|_| *fsp),
                _ => None,
            },
            Expr::Call { func, args, .. } => match func {
                Func::If => self.widest(&args[1..]),
                Func::IfNull | Func::Coalesce | Func::Greatest | Func::Least => self.widest(args),
                Func::NullIf => self.temporal_digits(&args[0]),
                // A date plus or minus a whole number of units keeps its digits;
                // microseconds make six. (Other counts: the compiler does not tell.)
                Func::DateAdd | Func::DateSub => {
                    let digits = self.temporal_digits(&args[0])?;
                    let whole = matches!(
                        args.get(1),
                        Some(Expr::Literal(Value::Int(_) | Value::UInt(_)))
                    );
                    match args.get(2) {
                        Some(Expr::Literal(Value::Int(code))) if whole => {
                            match IntervalUnit::from_code(*code)? {
                                IntervalUnit::Microsecond => Some(MAX_FSP),
                                _ => Some(digits),
                            }
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
            Expr::Subquery(q) => match q.first_column_type(&ConstEnv::folding(&mut Vec::new())) {
                SqlType::Date => Some(0),
                SqlType::DateTime { fsp } | SqlType::Time { fsp } => Some(fsp),
                _ => None,
            },
            Expr::Case {
                whens, otherwise, ..
            } => self.widest(
                whens
                    .iter()
                    .map(|(_, then)| then)
                    .chain(otherwise.as_deref()),
            ),
            _ => None,
        }
    }

    /// The most digits among the temporal operands of a function that returns one of them.
    fn widest<'e>(&self, operands: impl IntoIterator<Item = &'e Expr>) -> Option<u8> {
        operands
            .into_iter()
            .filter_map(|e| self.temporal_digits(e))
            .max()
    }

    /// `e` as an operand read as text: wrapped in [`CastTo::TemporalText`] when it is
    /// temporal with digits the compiler knows.
    pub(crate) fn text_operand(&self, e: Expr) -> Expr {
        match self.temporal_digits(&e) {
            Some(fsp)
                if !matches!(
                    e,
                    Expr::Cast {
                        to: CastTo::TemporalText { .. },
                        ..
                    }
                ) =>
            {
                Expr::Cast {
                    expr: Box::new(e),
                    to: CastTo::TemporalText { fsp },
                }
            }
            _ => e,
        }
    }

    /// `args` of `func` with the ones it reads as text through [`Compiler::text_operand`].
    pub(crate) fn text_operands(&self, func: Func, args: Vec<Expr>) -> Vec<Expr> {
        args.into_iter()
            .enumerate()
            .map(|(i, a)| {
                if reads_text(func, i) {
                    self.text_operand(a)
                } else {
                    a
                }
            })
            .collect()
    }
}

/// Whether `func` reads its argument `i` as a string.
fn reads_text(func: Func, i: usize) -> bool {
    match func {
        Func::Concat
        | Func::ConcatWs
        | Func::Length
        | Func::CharLength
        | Func::Upper
        | Func::Lower
        | Func::Trim
        | Func::LTrim
        | Func::RTrim
        | Func::Replace
        | Func::Reverse
        | Func::Locate
        | Func::Instr
        | Func::Ascii
        | Func::Hex
        | Func::FindInSet
        | Func::Md5
        | Func::Sha1
        | Func::Sha2
        | Func::Strcmp
        | Func::Quote
        | Func::ToBase64
        | Func::Crc32
        | Func::Ord
        | Func::BitLength
        | Func::Soundex => true,
        // The string, not the counts.
        Func::Substring
        | Func::Left
        | Func::Right
        | Func::LPad
        | Func::RPad
        | Func::Repeat
        | Func::Insert => {
            i == 0
                || (matches!(func, Func::LPad | Func::RPad) && i == 2)
                || (func == Func::Insert && i == 3)
        }
        Func::SubstringIndex => i < 2,
        _ => false,
    }
}
