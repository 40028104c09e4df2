//! Which collation an expression's strings carry, and which one a comparison uses, by
//! MariaDB's derivation rules.
//!
//! Every string expression has a collation and a derivation (how strongly it holds it):
//! an explicit `COLLATE` is strongest, then a column (implicit), then a system constant
//! (`USER()`, `VERSION()`), then a literal or a parameter (coercible), then a number
//! turned into a string, then NULL. Two operands combine to the stronger one's collation;
//! at equal strength a binary string wins over text and `utf8mb4_bin` over
//! `utf8mb4_general_ci`, and two different explicit collations are an error (1267, or
//! 1271 for more than two operands). So `varbinary_col = 'A'` compares bytes,
//! `name = 'A'` ignores case, and `name COLLATE utf8mb4_bin = 'A'` does not.
//!
//! The compiler fixes each comparison's collation once ([`comparison`]); the executor asks
//! [`Expr::collation`] for the collation of an ORDER BY, GROUP BY, DISTINCT or MIN/MAX key.

use crate::error::SqlError;
use crate::expr::{CastTo, Expr, Func};
use crate::value::Value;
use myriad_types::errors::{
    ER_CANT_AGGREGATE_2COLLATIONS, ER_CANT_AGGREGATE_3COLLATIONS, ER_CANT_AGGREGATE_NCOLLATIONS,
};
use myriad_types::Collation;

/// How strongly an expression holds its collation, strongest first (MariaDB's order and
/// names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Derivation {
    Explicit,
    Implicit,
    Sysconst,
    Coercible,
    Numeric,
    Ignorable,
}

impl Derivation {
    fn name(self) -> &'static str {
        match self {
            Derivation::Explicit => "EXPLICIT",
            Derivation::Implicit => "IMPLICIT",
            Derivation::Sysconst => "SYSCONST",
            Derivation::Coercible => "COERCIBLE",
            Derivation::Numeric => "NUMERIC",
            Derivation::Ignorable => "IGNORABLE",
        }
    }
}

/// An expression's collation with its derivation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Derived {
    pub collation: Collation,
    pub derivation: Derivation,
}

impl Derived {
    pub const fn new(collation: Collation, derivation: Derivation) -> Derived {
        Derived {
            collation,
            derivation,
        }
    }

    /// The collation, when the expression is a string (not a number, not NULL).
    pub fn string_collation(self) -> Option<Collation> {
        (self.derivation < Derivation::Numeric).then_some(self.collation)
    }

    /// The connection's collation at `derivation`.
    const fn general(derivation: Derivation) -> Derived {
        Derived::new(Collation::Utf8mb4GeneralCi, derivation)
    }

    /// The collation `self` and `other` combine to; None for two different explicit ones.
    pub fn combine(self, other: Derived) -> Option<Derived> {
        let strength = |c: Collation| match c {
            Collation::Utf8mb4GeneralCi => 0,
            Collation::Utf8mb4Bin => 1,
            Collation::Binary => 2,
        };
        Some(match self.derivation.cmp(&other.derivation) {
            std::cmp::Ordering::Less => self,
            std::cmp::Ordering::Greater => other,
            _ if self.collation == other.collation => self,
            _ if self.derivation == Derivation::Explicit => return None,
            _ if strength(self.collation) >= strength(other.collation) => self,
            _ => other,
        })
    }
}

/// The collation `operands` are compared under, for the operation `op` (its name in the
/// error): 1267, 1270 or 1271 (two, three, more operands) when explicit collations
/// differ.
pub fn comparison(operands: &[Derived], op: &str) -> Result<Collation, SqlError> {
    let mut acc = Derived::general(Derivation::Ignorable);
    for d in operands {
        acc = match acc.combine(*d) {
            Some(c) => c,
            None if operands.len() == 2 => {
                let (a, b) = (operands[0], operands[1]);
                return Err(SqlError::new(
                    ER_CANT_AGGREGATE_2COLLATIONS,
                    ER_CANT_AGGREGATE_2COLLATIONS.message(&[
                        &a.collation.name(),
                        &a.derivation.name(),
                        &b.collation.name(),
                        &b.derivation.name(),
                        &op,
                    ]),
                ));
            }
            None if operands.len() == 3 => {
                let names: Vec<&str> = operands
                    .iter()
                    .flat_map(|d| [d.collation.name(), d.derivation.name()])
                    .collect();
                let args: Vec<&dyn std::fmt::Display> = names
                    .iter()
                    .map(|n| n as &dyn std::fmt::Display)
                    .chain([&op as &dyn std::fmt::Display])
                    .collect();
                return Err(SqlError::new(
                    ER_CANT_AGGREGATE_3COLLATIONS,
                    ER_CANT_AGGREGATE_3COLLATIONS.message(&args),
                ));
            }
            None => {
                return Err(SqlError::new(
                    ER_CANT_AGGREGATE_NCOLLATIONS,
                    ER_CANT_AGGREGATE_NCOLLATIONS.message(&[&op]),
                ))
            }
        };
    }
    Ok(acc.collation)
}

/// The operands' combined collation where a conflict is no error (a function's result):
/// the first operand's side wins a tie between explicit collations.
fn combined(operands: impl IntoIterator<Item = Derived>) -> Derived {
    operands
        .into_iter()
        .fold(Derived::general(Derivation::Ignorable), |acc, d| {
            acc.combine(d).unwrap_or(acc)
        })
}

impl Expr {
    /// This expression's collation and derivation; `columns` gives each row column's
    /// collation (None for a column that is no string).
    pub fn collation(&self, columns: &[Option<Collation>]) -> Derived {
        let of = |e: &Expr| e.collation(columns);
        let numeric = Derived::general(Derivation::Numeric);
        match self {
            Expr::Literal(Value::Bytes(_)) | Expr::Param(_) => {
                Derived::general(Derivation::Coercible)
            }
            Expr::Literal(Value::Null) => Derived::general(Derivation::Ignorable),
            Expr::HexLiteral(_) => Derived::new(Collation::Binary, Derivation::Coercible),
            Expr::Literal(_) => numeric,
            Expr::Elements {
                expr,
                number: false,
                ..
            } => of(expr),
            Expr::Column(i) => match columns.get(*i) {
                Some(Some(c)) => Derived::new(*c, Derivation::Implicit),
                Some(None) => numeric,
                None => Derived::general(Derivation::Implicit),
            },
            Expr::SysVar { .. } => Derived::general(Derivation::Sysconst),
            Expr::UserVar(_) => Derived::general(Derivation::Implicit),
            // The value's collation, implicit as a column's (a number stays a number).
            Expr::AssignVar { value, .. } => match of(value) {
                d if d.derivation == Derivation::Numeric => d,
                d => Derived::new(d.collation, Derivation::Implicit),
            },
            Expr::Collate {
                collation,
                derivation,
                ..
            } => Derived::new(*collation, *derivation),
            Expr::Cast {
                to: CastTo::Char { .. },
                ..
            } => Derived::general(Derivation::Implicit),
            Expr::TrimChars { expr, .. } => of(expr),
            Expr::Case {
                whens, otherwise, ..
            } => combined(
                whens
                    .iter()
                    .map(|(_, r)| of(r))
                    .chain(otherwise.as_deref().map(of)),
            ),
            Expr::Subquery(q) => q.first_column_collation(),
            Expr::Call { func, args, .. } => call_collation(*func, args, columns),
            _ => numeric,
        }
    }
}

/// A function result's collation: that of the arguments its string comes from.
fn call_collation(func: Func, args: &[Expr], columns: &[Option<Collation>]) -> Derived {
    let from = |indexes: &[usize]| {
        combined(
            indexes
                .iter()
                .filter_map(|&i| args.get(i))
                .map(|a| a.collation(columns)),
        )
    };
    match func {
        Func::Concat | Func::ConcatWs | Func::Coalesce | Func::Greatest | Func::Least => {
            combined(args.iter().map(|a| a.collation(columns)))
        }
        Func::Substring
        | Func::Left
        | Func::Right
        | Func::Upper
        | Func::Lower
        | Func::Trim
        | Func::LTrim
        | Func::RTrim
        | Func::Reverse
        | Func::Repeat
        | Func::SubstringIndex
        | Func::NullIf => from(&[0]),
        Func::Quote | Func::Soundex | Func::RegexpSubstr | Func::RegexpReplace => from(&[0]),
        Func::Elt | Func::MakeSet => combined(args.iter().skip(1).map(|a| a.collation(columns))),
        Func::ExportSet => from(&[1, 2, 3]),
        Func::Unhex
        | Func::FromBase64
        | Func::Char
        | Func::AesEncrypt
        | Func::AesDecrypt
        | Func::Encode
        | Func::Decode
        | Func::RandomBytes => Derived::new(Collation::Binary, Derivation::Coercible),
        Func::ToBase64
        | Func::Bin
        | Func::Oct
        | Func::Conv
        | Func::Format
        | Func::Chr
        | Func::CharUsing { .. } => Derived::general(Derivation::Coercible),
        Func::LPad | Func::RPad => from(&[0, 2]),
        Func::Insert => from(&[0, 3]),
        Func::Replace => from(&[0, 1, 2]),
        Func::If => from(&[1, 2]),
        Func::IfNull => from(&[0, 1]),
        Func::Hex | Func::Space | Func::Md5 | Func::Password | Func::Sha1 | Func::Sha2 => {
            Derived::general(Derivation::Coercible)
        }
        Func::Version | Func::Database | Func::User | Func::CurrentUser | Func::CurrentRole => {
            Derived::general(Derivation::Sysconst)
        }
        _ => Derived::general(Derivation::Numeric),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CI: Collation = Collation::Utf8mb4GeneralCi;
    const BIN: Collation = Collation::Utf8mb4Bin;
    const BYTES: Collation = Collation::Binary;

    fn d(c: Collation, derivation: Derivation) -> Derived {
        Derived::new(c, derivation)
    }

    #[test]
    fn the_stronger_derivation_wins_then_the_binary_side() {
        use Derivation::*;
        let cases = [
            (d(BYTES, Implicit), d(CI, Coercible), BYTES),
            (d(CI, Implicit), d(BYTES, Coercible), CI),
            (d(CI, Implicit), d(BIN, Implicit), BIN),
            (d(BYTES, Implicit), d(BIN, Implicit), BYTES),
            (d(BIN, Explicit), d(BYTES, Implicit), BIN),
            (d(CI, Coercible), d(CI, Numeric), CI),
            (d(CI, Coercible), d(BIN, Ignorable), CI),
        ];
        for (a, b, want) in cases {
            assert_eq!(comparison(&[a, b], "=").unwrap(), want, "{a:?} {b:?}");
            assert_eq!(comparison(&[b, a], "=").unwrap(), want, "{b:?} {a:?}");
        }
    }

    #[test]
    fn two_explicit_collations_are_an_error() {
        let e = comparison(
            &[d(BIN, Derivation::Explicit), d(CI, Derivation::Explicit)],
            "=",
        )
        .unwrap_err();
        assert_eq!(e.code, 1267);
        assert_eq!(
            e.message,
            "Illegal mix of collations (utf8mb4_bin,EXPLICIT) and (utf8mb4_general_ci,EXPLICIT) for operation '='"
        );
        let three = [
            d(BIN, Derivation::Explicit),
            d(CI, Derivation::Coercible),
            d(CI, Derivation::Explicit),
        ];
        assert_eq!(comparison(&three, "in").unwrap_err().code, 1270);
        let four = [three[0], three[1], three[2], three[1]];
        assert_eq!(comparison(&four, "in").unwrap_err().code, 1271);
    }
}
