//! Hexadecimal and bit literals: `0x41`, `b'1000001'`, `B'1000001'`, `0b1000001`.
//!
//! MariaDB reads such a literal as a binary string where a string is wanted (`SELECT 0x41`
//! prints `A`, `CONCAT(0x41, 1)` is `A1`, `0x31 = '1'` compares bytes) and as an unsigned
//! integer where a number is wanted (`0x10 + 0` is 16, `0x10 = 16` is true, `IF(0x01, ..)`
//! takes the first branch, an INT column stores 16). The integer is the bytes read
//! big-endian; of a literal longer than eight bytes only the last eight count, so
//! `0x1FFFFFFFFFFFFFFFF + 0` is 18446744073709551615 and `0x10000000000000000 + 0` is 0,
//! without a warning. `X'41'` and a literal with an introducer (`_binary 0x41`) are plain
//! binary strings: `X'41' + 0` is 0 with warning 1292, as in MariaDB 10.11.
//!
//! The compiler keeps such a literal as [`Expr::HexLiteral`] (it evaluates to its bytes)
//! and replaces it by `Expr::Literal(Value::UInt(n))` wherever its context takes a number:
//! arithmetic, negation and bit operators, truth values (NOT, AND, OR, XOR, IS TRUE, IF,
//! CASE WHEN, WHERE, ON, HAVING), numeric function arguments, CAST to a number, SUM and
//! AVG, a comparison with a number, and a value stored into a numeric column. A COALESCE,
//! IFNULL, IF or CASE whose every answer is such a literal (or NULL) counts as one. A
//! comparison whose other side is only known to be a number when it runs (a user
//! variable, a parameter) reads the literal as its number then (`compared_value`).
//!
//! In numeric context the literal is typed as its integer (LONG up to nine digits);
//! MariaDB types it by its byte count, so a literal of four bytes or more with a small
//! value (`0x00000001 + 0`) is LONG here and LONGLONG there, with the same value. A
//! literal that a subquery answers stays a string (docs/compatibility.md).
//!
//! A value of an ENUM or SET column ([`Expr::Elements`]) has a number of its own too, its
//! position or bitmask, and the same numeric contexts take it (`e + 0`, `e = 1`, `SUM(e)`,
//! `WHERE e`); ORDER BY sorts by it as well.

use crate::error::SqlError;
use crate::expr::collation::Derivation;
use crate::expr::{CastTo, Compiler, Expr, Func};
use crate::value::Value;
use myriad_storage as st;
use std::borrow::Cow;

/// The bytes of the hexadecimal digits of `0x..` or `X'..'` (an odd count has a leading
/// zero added, as `0x4` is `0x04`); None for a character that is no hexadecimal digit.
pub(crate) fn bytes_of_hex(digits: &str) -> Option<Vec<u8>> {
    let padded = if digits.len() % 2 == 1 {
        Cow::Owned(format!("0{digits}"))
    } else {
        Cow::Borrowed(digits)
    };
    if !padded.is_ascii() {
        return None;
    }
    (0..padded.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&padded[i..i + 2], 16).ok())
        .collect()
}

/// The bytes of the binary digits of `b'..'` or `0b..`: one byte per eight digits or part
/// of eight, most significant first, so `b'0'` is one zero byte and `b''` none. None for a
/// character that is no binary digit.
pub(crate) fn bytes_of_bits(bits: &str) -> Option<Vec<u8>> {
    if !bits.bytes().all(|b| b == b'0' || b == b'1') {
        return None;
    }
    let head = bits.len() % 8;
    let mut out = Vec::with_capacity(bits.len().div_ceil(8));
    if head > 0 {
        out.push(u8::from_str_radix(&bits[..head], 2).ok()?);
    }
    for chunk in bits.as_bytes()[head..].chunks(8) {
        out.push(u8::from_str_radix(std::str::from_utf8(chunk).ok()?, 2).ok()?);
    }
    Some(out)
}

/// `0b101` written as a word (the tokenizer reads it as a name that starts with a digit):
/// its binary digits.
pub(crate) fn bit_digits_of_word(word: &str) -> Option<&str> {
    let digits = word.strip_prefix("0b")?;
    (!digits.is_empty() && digits.bytes().all(|b| b == b'0' || b == b'1')).then_some(digits)
}

/// The unsigned integer a literal's bytes spell, big-endian: the last eight bytes of a
/// longer one (MariaDB's `Item_hex_hybrid::val_int`).
pub fn number(bytes: &[u8]) -> u64 {
    let low = &bytes[bytes.len().saturating_sub(8)..];
    low.iter().fold(0, |n, &b| (n << 8) | u64::from(b))
}

/// Whether a column of type `ty` stores numbers, so that a hexadecimal literal stored
/// into it is its integer.
fn stores_numbers(ty: &st::ColumnType) -> bool {
    matches!(
        ty,
        st::ColumnType::Int { .. }
            | st::ColumnType::Decimal { .. }
            | st::ColumnType::Float
            | st::ColumnType::Double
    )
}

impl Expr {
    /// Take this expression's value as a number: a hexadecimal literal becomes its integer,
    /// and so do the ones a COALESCE, IFNULL, IF or CASE passes on when every value it can
    /// answer is one (or NULL); anything else stays as it is.
    pub(crate) fn make_numeric(&mut self) {
        if let Expr::Elements { number, .. } = self {
            *number = true;
            return;
        }
        if !self.is_hex() {
            return;
        }
        match self {
            Expr::HexLiteral(bytes) => *self = Expr::Literal(Value::UInt(number(bytes))),
            Expr::Call { func, args, .. } => {
                let from = usize::from(*func == Func::If);
                args[from..].iter_mut().for_each(Expr::make_numeric);
            }
            Expr::Case {
                whens, otherwise, ..
            } => {
                whens.iter_mut().for_each(|(_, r)| r.make_numeric());
                otherwise.iter_mut().for_each(|o| o.make_numeric());
            }
            _ => {}
        }
    }

    /// Whether this is a hexadecimal literal, or a COALESCE, IFNULL, IF or CASE whose
    /// every answer is one or NULL (MariaDB's type of such a form is the literal's).
    fn is_hex(&self) -> bool {
        fn all_hex<'a>(answers: impl IntoIterator<Item = &'a Expr>) -> bool {
            let mut any = false;
            for e in answers {
                match e {
                    Expr::Literal(Value::Null) => {}
                    e if e.is_hex() => any = true,
                    _ => return false,
                }
            }
            any
        }
        match self {
            Expr::HexLiteral(_) => true,
            Expr::Call {
                func: Func::Coalesce | Func::IfNull,
                args,
                ..
            } => all_hex(args),
            Expr::Call {
                func: Func::If,
                args,
                ..
            } => all_hex(&args[1..]),
            Expr::Case {
                whens, otherwise, ..
            } => all_hex(whens.iter().map(|(_, r)| r).chain(otherwise.as_deref())),
            _ => false,
        }
    }

    /// Whether its value has a number of its own that a numeric context takes instead of
    /// reading its text: a hexadecimal literal (see [`Expr::is_hex`]), a value of an ENUM
    /// or SET column.
    fn has_number_form(&self) -> bool {
        matches!(self, Expr::Elements { number: false, .. }) || self.is_hex()
    }

    /// This expression where its value is taken as a number ([`Expr::make_numeric`]).
    pub(crate) fn numeric(mut self) -> Expr {
        self.make_numeric();
        self
    }

    /// [`Expr::numeric`] where `yes`.
    pub(crate) fn numeric_if(self, yes: bool) -> Expr {
        if yes {
            self.numeric()
        } else {
            self
        }
    }

    /// This expression as the value stored into a column of type `ty`.
    pub(crate) fn stored_in(self, ty: &st::ColumnType) -> Expr {
        self.numeric_if(stores_numbers(ty))
    }

    /// This expression as the operand of `CAST(.. AS to)`.
    pub(crate) fn cast_operand(self, to: CastTo) -> Expr {
        let number = matches!(
            to,
            CastTo::Signed | CastTo::Unsigned | CastTo::Decimal { .. } | CastTo::Double
        );
        self.numeric_if(number)
    }
}

/// The value of a comparison's operand `e` (which evaluated to `own`) for comparing with
/// `other`: a hexadecimal literal that meets a number (a user variable or parameter the
/// compiler could not type) is its integer.
pub(crate) fn compared_value<'a>(e: &Expr, own: &'a Value, other: &Value) -> Cow<'a, Value> {
    match e {
        Expr::HexLiteral(bytes) if is_number(other) => Cow::Owned(Value::UInt(number(bytes))),
        _ => Cow::Borrowed(own),
    }
}

fn is_number(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)
    )
}

/// Which arguments of `func` it reads as numbers.
fn numeric_arg(func: Func, i: usize) -> bool {
    match func {
        Func::Abs
        | Func::Round
        | Func::Truncate
        | Func::Floor
        | Func::Ceil
        | Func::Mod
        | Func::Pow
        | Func::Sqrt
        | Func::Sign
        | Func::Exp
        | Func::Ln
        | Func::Log10
        | Func::Log2
        | Func::Space
        | Func::Char
        | Func::Chr
        | Func::CharUsing { .. }
        | Func::BitCount
        | Func::Sleep
        | Func::Rand
        | Func::InetNtoa => true,
        Func::Elt | Func::MakeSet => i == 0,
        Func::ExportSet => i == 0 || i == 4,
        Func::Conv => i == 1 || i == 2,
        Func::Format => i < 2,
        Func::Substring | Func::Insert => i == 1 || i == 2,
        Func::Left | Func::Right | Func::Repeat | Func::LPad | Func::RPad => i == 1,
        Func::Locate => i == 2,
        // IF's condition is a truth value.
        Func::If => i == 0,
        _ => false,
    }
}

impl Compiler<'_> {
    /// Whether `e` is a number in this scope (not a string, not NULL).
    pub(crate) fn is_number(&self, e: &Expr) -> bool {
        self.derived(e).derivation == Derivation::Numeric
    }

    /// Operands compared with one another (`=`, IN, BETWEEN): when one of them is a number,
    /// the hexadecimal literals among them are numbers too.
    pub(crate) fn compared(&self, first: &mut Expr, rest: &mut [Expr]) {
        if !first.has_number_form() && !rest.iter().any(Expr::has_number_form) {
            return;
        }
        if self.is_number(first) || rest.iter().any(|e| self.is_number(e)) {
            first.make_numeric();
            rest.iter_mut().for_each(Expr::make_numeric);
        }
    }

    /// A function's arguments as it reads them: numeric arguments, and for GREATEST and
    /// LEAST among numbers a hexadecimal literal as a DOUBLE (MariaDB compares a string
    /// with numbers there as doubles, and answers a DOUBLE).
    pub(crate) fn function_args(&self, func: Func, args: Vec<Expr>) -> Vec<Expr> {
        if !args.iter().any(Expr::has_number_form) {
            return args;
        }
        if matches!(func, Func::Greatest | Func::Least) {
            if !args.iter().any(|e| self.is_number(e)) {
                return args;
            }
            return args
                .into_iter()
                .map(|e| match e {
                    Expr::HexLiteral(bytes) => Expr::Literal(Value::Double(number(&bytes) as f64)),
                    other => other,
                })
                .collect();
        }
        args.into_iter()
            .enumerate()
            .map(|(i, e)| e.numeric_if(numeric_arg(func, i)))
            .collect()
    }

    /// A condition (WHERE, ON, HAVING): a truth value.
    pub(crate) fn condition(&self, e: &sqlparser::ast::Expr) -> Result<Expr, SqlError> {
        let condition = self.compile(e)?.numeric();
        if crate::expr::assign::never_holds(&condition) {
            // Nothing of it runs (see `never_holds`).
            return Ok(Expr::Literal(Value::Int(0)));
        }
        Ok(condition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_digits_make_bytes_with_a_leading_zero_for_an_odd_count() {
        assert_eq!(bytes_of_hex("41"), Some(vec![0x41]));
        assert_eq!(bytes_of_hex("4"), Some(vec![0x04]));
        assert_eq!(bytes_of_hex("001"), Some(vec![0x00, 0x01]));
        assert_eq!(bytes_of_hex(""), Some(vec![]));
        assert_eq!(bytes_of_hex("4G"), None);
        assert_eq!(bytes_of_hex("é"), None);
    }

    #[test]
    fn bits_make_one_byte_per_eight_digits_or_part() {
        assert_eq!(bytes_of_bits("101"), Some(vec![5]));
        assert_eq!(bytes_of_bits("0"), Some(vec![0]));
        assert_eq!(bytes_of_bits(""), Some(vec![]));
        assert_eq!(bytes_of_bits("1000001"), Some(vec![0x41]));
        assert_eq!(bytes_of_bits("0000000000000001"), Some(vec![0, 1]));
        assert_eq!(bytes_of_bits("100000001"), Some(vec![1, 1]));
        assert_eq!(bytes_of_bits("102"), None);
        let long = "1".repeat(200);
        assert_eq!(bytes_of_bits(&long).map(|b| b.len()), Some(25));
    }

    #[test]
    fn only_0b_words_of_binary_digits_are_bit_literals() {
        assert_eq!(bit_digits_of_word("0b101"), Some("101"));
        assert_eq!(bit_digits_of_word("0b"), None);
        assert_eq!(bit_digits_of_word("0b102"), None);
        assert_eq!(bit_digits_of_word("0B101"), None);
        assert_eq!(bit_digits_of_word("b101"), None);
    }

    #[test]
    fn the_number_is_the_last_eight_bytes_big_endian() {
        assert_eq!(number(&[]), 0);
        assert_eq!(number(&[0x10]), 16);
        assert_eq!(number(&[0x41, 0x42]), 0x4142);
        assert_eq!(number(&[0xFF; 8]), u64::MAX);
        assert_eq!(
            number(&[0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            u64::MAX
        );
        assert_eq!(number(&[0x01, 0, 0, 0, 0, 0, 0, 0, 0]), 0);
        let ten: Vec<u8> = (1..=10).collect();
        assert_eq!(number(&ten), 0x0304_0506_0708_090A);
    }

    #[test]
    fn numeric_context_turns_only_hex_literals_into_integers() {
        let hex = Expr::HexLiteral(vec![0x10]);
        assert!(matches!(hex.numeric(), Expr::Literal(Value::UInt(16))));
        let text = Expr::Literal(Value::Bytes(b"16".to_vec()));
        assert!(matches!(text.numeric(), Expr::Literal(Value::Bytes(_))));
        let kept = Expr::HexLiteral(vec![0x41]).cast_operand(CastTo::Char { len: None });
        assert!(matches!(kept, Expr::HexLiteral(_)));
        let int = st::ColumnType::Int {
            width: st::IntWidth::Int,
            unsigned: false,
        };
        let stored = Expr::HexLiteral(vec![0x41]).stored_in(&int);
        assert!(matches!(stored, Expr::Literal(Value::UInt(65))));
        let blob = st::ColumnType::Blob {
            size: st::LobSize::Regular,
        };
        assert!(matches!(
            Expr::HexLiteral(vec![0x41]).stored_in(&blob),
            Expr::HexLiteral(_)
        ));
    }

    #[test]
    fn a_form_that_answers_only_hex_literals_or_null_is_one() {
        let call = |func, args| Expr::Call {
            func,
            args,
            collation: crate::expr::Collation::default(),
        };
        let hex = |b: u8| Expr::HexLiteral(vec![b]);
        let null = || Expr::Literal(Value::Null);
        let Expr::Call { args, .. } = call(Func::Coalesce, vec![null(), hex(0x10)]).numeric()
        else {
            panic!("a call stays a call");
        };
        assert!(matches!(args[1], Expr::Literal(Value::UInt(16))));
        let cond = Expr::Column(0);
        let Expr::Call { args, .. } = call(Func::If, vec![cond, hex(1), hex(2)]).numeric() else {
            panic!("a call stays a call");
        };
        assert!(matches!(args[0], Expr::Column(0)));
        assert!(matches!(args[2], Expr::Literal(Value::UInt(2))));
        // With a number beside it, COALESCE's type is a string's: the literal stays bytes.
        let mixed = call(
            Func::Coalesce,
            vec![hex(0x10), Expr::Literal(Value::Int(1))],
        );
        let Expr::Call { args, .. } = mixed.numeric() else {
            panic!("a call stays a call");
        };
        assert!(matches!(args[0], Expr::HexLiteral(_)));
        let only_null = call(Func::IfNull, vec![null(), null()]);
        assert!(!only_null.is_hex());
    }

    #[test]
    fn a_comparison_reads_the_literal_as_a_number_only_against_a_number() {
        let hex = Expr::HexLiteral(vec![0x10]);
        let own = Value::Bytes(vec![0x10]);
        let v = compared_value(&hex, &own, &Value::Int(16));
        assert_eq!(*v, Value::UInt(16));
        let v = compared_value(&hex, &own, &Value::Bytes(b"16".to_vec()));
        assert_eq!(*v, own);
        let v = compared_value(&hex, &own, &Value::Null);
        assert_eq!(*v, own);
    }
}
