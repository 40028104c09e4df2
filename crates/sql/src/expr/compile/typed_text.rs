//! Values read as text in the form of their type, where the value alone cannot tell.
//!
//! A DATETIME(3) value of `10:00:00.5` is `2020-01-01 10:00:00.500` wherever MariaDB reads
//! it as a string (CONCAT, LENGTH, LIKE, HEX, CAST AS CHAR ...): the type's fraction
//! digits, not the value's. A FLOAT column's value is a DOUBLE here, and reads as text with
//! a FLOAT's six significant digits (`1.1`, not `1.100000023841858`). The evaluator's values
//! do not carry their type, so the compiler wraps such operands in [`CastTo::TypedText`]
//! with the [`TextForm`] it knows statically: from the column (see
//! [`ColumnScope::text_forms`]) or a CAST, and for dates and times through the functions
//! that pass a value on unchanged (IF, IFNULL, COALESCE, GREATEST, LEAST, CASE). Where it
//! knows none (a subquery over a FLOAT, a user variable, a parameter), the value's own form
//! stays: for a date or time no digits for a whole second, otherwise six.

use crate::expr::eval::SqlType;
use crate::expr::text::ConstEnv;
use crate::expr::*;
use myriad_types::datetime::MAX_FSP;
use myriad_types::interval::IntervalUnit;

impl Compiler<'_> {
    /// How `e` reads as text when its type says more than its value; None when the
    /// value's own text is its type's, or the compiler cannot tell.
    pub(crate) fn text_form(&self, e: &Expr) -> Option<TextForm> {
        match e {
            Expr::Column(i) => self.scope.text_forms.get(*i).copied().flatten(),
            Expr::Cast { to, expr } => match to {
                CastTo::Date => Some(TextForm::Temporal { fsp: 0 }),
                CastTo::DateTime { fsp } | CastTo::Time { fsp } => {
                    Some(TextForm::Temporal { fsp: *fsp })
                }
                CastTo::TypedText(form) => self.text_form(expr).map(|_| *form),
                _ => None,
            },
            Expr::Call { .. } | Expr::Case { .. } => self
                .temporal_digits(e)
                .map(|fsp| TextForm::Temporal { fsp }),
            Expr::Subquery(q) => match q.first_column_type(&ConstEnv::folding(&mut Vec::new())) {
                SqlType::Date => Some(TextForm::Temporal { fsp: 0 }),
                SqlType::DateTime { fsp } | SqlType::Time { fsp } => {
                    Some(TextForm::Temporal { fsp })
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The digits of `e`'s text form when it is a date (0), datetime or time.
    fn temporal_fsp(&self, e: &Expr) -> Option<u8> {
        match self.text_form(e)? {
            TextForm::Temporal { fsp } => Some(fsp),
            TextForm::Float => None,
        }
    }

    /// The fraction digits a function or CASE over dates or times shows as text.
    fn temporal_digits(&self, e: &Expr) -> Option<u8> {
        let temporal = |e: &Expr| self.temporal_fsp(e);
        match e {
            Expr::Call { func, args, .. } => match func {
                Func::If => self.widest(&args[1..]),
                Func::IfNull | Func::Coalesce | Func::Greatest | Func::Least => self.widest(args),
                Func::NullIf => temporal(&args[0]),
                Func::Time => temporal(&args[0]).or_else(|| self.time_digits(&args[0])),
                // A date plus or minus a whole number of units keeps its digits;
                // microseconds make six. (Other counts: the compiler does not tell.)
                Func::DateAdd | Func::DateSub => {
                    let digits = temporal(&args[0])?;
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
            Expr::Case {
                whens, otherwise, ..
            } => self.widest(
                whens
                    .iter()
                    .map(|(_, then)| then)
                    .chain(otherwise.as_deref()),
            ),
            _ => temporal(e),
        }
    }

    /// The fraction digits TIME(x) shows for an `x` that is no date or time, where the
    /// compiler can tell: a literal's own, six for a string column.
    fn time_digits(&self, x: &Expr) -> Option<u8> {
        match x {
            Expr::Literal(Value::Bytes(_)) => Some(crate::expr::functions::temporal_decimals(
                x,
                SqlType::Str { chars: 0 },
                true,
            )),
            Expr::Literal(Value::Int(_) | Value::UInt(_)) => Some(0),
            Expr::Literal(Value::Decimal(d)) => Some(d.scale().min(u32::from(MAX_FSP)) as u8),
            Expr::Column(i) => match self.scope.collations.get(*i) {
                Some(None) => None,
                _ => Some(MAX_FSP),
            },
            Expr::Elements { number: false, .. } => Some(MAX_FSP),
            _ => None,
        }
    }

    /// The most digits among the temporal operands of a function that returns one of them.
    fn widest<'e>(&self, operands: impl IntoIterator<Item = &'e Expr>) -> Option<u8> {
        operands
            .into_iter()
            .filter_map(|e| self.temporal_fsp(e))
            .max()
    }

    /// `e` as an operand read as text: wrapped in [`CastTo::TypedText`] when its type's
    /// text form is known.
    pub(crate) fn text_operand(&self, e: Expr) -> Expr {
        match self.text_form(&e) {
            Some(form)
                if !matches!(
                    e,
                    Expr::Cast {
                        to: CastTo::TypedText(_),
                        ..
                    }
                ) =>
            {
                Expr::Cast {
                    expr: Box::new(e),
                    to: CastTo::TypedText(form),
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
        | Func::JsonValid
        | Func::Md5
        | Func::Password
        | Func::Sha1
        | Func::Sha2
        | Func::Strcmp
        | Func::Quote
        | Func::ToBase64
        | Func::Crc32
        | Func::Ord
        | Func::BitLength
        | Func::Regexp
        | Func::RegexpInstr
        | Func::RegexpSubstr
        | Func::RegexpReplace
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
