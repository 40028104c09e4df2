//! COLLATION(x), COERCIBILITY(x) and CHARSET(x): what the compiler knows of x's strings,
//! answered at compile time as constants. A value that is no string (a number, a date,
//! NULL) has the `binary` collation and character set; a string has its collation, and
//! MariaDB's coercibility numbers: 0 explicit, 2 implicit (a column, a CAST), 3 system
//! constant, 4 coercible (a literal, or a string built from numbers), 6 ignorable (NULL),
//! 5 for a number. An operand whose type is known only when it runs (a parameter, a user
//! variable, a subquery) is refused with 1235.

use crate::error::SqlError;
use crate::expr::collation::Derivation;
use crate::expr::eval::{SqlType, SqlValue};
use crate::expr::text::ConstEnv;
use crate::expr::*;
use crate::value::Value;

/// Which of the three functions.
#[derive(Clone, Copy)]
pub(super) enum Introspect {
    Collation,
    Coercibility,
    Charset,
}

impl Introspect {
    pub(super) fn by_name(name: &str) -> Option<Introspect> {
        match name {
            "COLLATION" => Some(Introspect::Collation),
            "COERCIBILITY" => Some(Introspect::Coercibility),
            "CHARSET" => Some(Introspect::Charset),
            _ => None,
        }
    }
}

/// Whether `e` or an operand of it takes its type from the running statement.
fn typed_at_run_time(e: &Expr) -> bool {
    // A utf8mb3 string (`CHAR(n USING utf8)`) has a collation myriad's values do not carry.
    matches!(
        e,
        Expr::Param(_)
            | Expr::UserVar(_)
            | Expr::Subquery(_)
            | Expr::Call {
                func: Func::CharUsing { mb4: false },
                ..
            }
    ) || !e.all_operands(|x| !typed_at_run_time(x))
}

impl Compiler<'_> {
    /// The constant `which(arg)` answers.
    pub(super) fn introspect(&self, which: Introspect, arg: Expr) -> Result<Expr, SqlError> {
        if typed_at_run_time(&arg) {
            return Err(SqlError::not_supported(
                "COLLATION, COERCIBILITY or CHARSET of a parameter, variable, subquery or utf8mb3 string",
            ));
        }
        // Column types as far as the scope knows them: a string or not.
        let columns: Vec<SqlType> = (0..self.scope.columns.len())
            .map(|i| match self.scope.collations.get(i) {
                Some(None) => SqlType::Int {
                    unsigned: false,
                    len: 11,
                },
                _ => SqlType::Str { chars: 1 },
            })
            .collect();
        let mut warnings = Vec::new();
        let ty = arg.sql_type(&ConstEnv::folding(&mut warnings), &columns);
        let derived = self.derived(&arg);
        let string = matches!(ty, SqlType::Str { .. });
        let collation = derived.collation;
        Ok(Expr::Literal(match which {
            Introspect::Collation if !string => Value::text("binary"),
            Introspect::Collation => Value::text(collation.name()),
            Introspect::Charset if !string || collation == Collation::Binary => {
                Value::text("binary")
            }
            Introspect::Charset => Value::text("utf8mb4"),
            Introspect::Coercibility => Value::Int(match derived.derivation {
                _ if ty == SqlType::Null => 6,
                _ if !string => 5,
                Derivation::Explicit => 0,
                Derivation::Implicit => 2,
                Derivation::Sysconst => 3,
                Derivation::Coercible | Derivation::Numeric => 4,
                Derivation::Ignorable => 6,
            }),
        }))
    }
}
