//! MySQL errors: a code, a SQLSTATE and a message, as the ERR packet carries them.

use myriad_types::errors::{ER_NOT_SUPPORTED_YET, ER_PARSE_ERROR};
use myriad_types::ErrorCode;
use std::fmt;

pub use myriad_types::errors::{
    ER_DISK_FULL, ER_GET_ERRNO, ER_STACK_OVERRUN_NEED_MORE, ER_TRUNCATED_WRONG_VALUE,
    ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, ER_WARN_ALLOWED_PACKET_OVERFLOWED,
    ER_WARN_DATA_OUT_OF_RANGE,
};

/// An error as the client sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    pub code: u16,
    pub sqlstate: [u8; 5],
    pub message: String,
}

impl SqlError {
    /// An error from the table of codes, its message in the words of the code's template
    /// (the sql crate's tests check each message against it).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> SqlError {
        SqlError {
            code: code.code,
            sqlstate: code.sqlstate_bytes(),
            message: message.into(),
        }
    }

    /// An error whose message fills the code's template with `args`.
    pub fn of(code: ErrorCode, args: &[&dyn fmt::Display]) -> SqlError {
        SqlError::new(code, code.message(args))
    }

    /// ER_NOT_SUPPORTED_YET (1235).
    pub fn not_supported(what: &str) -> SqlError {
        SqlError::new(
            ER_NOT_SUPPORTED_YET,
            format!("This version of myriad doesn't yet support '{what}'"),
        )
    }
}

/// ER_PARSE_ERROR (1064) near `near` (its first 80 characters), as MariaDB words it.
pub fn err_syntax(near: &str) -> SqlError {
    let near: String = near.chars().take(80).collect();
    SqlError::new(ER_PARSE_ERROR,
        format!(
            "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{near}' at line 1"
        ),
    )
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = String::from_utf8_lossy(&self.sqlstate);
        write!(f, "ERROR {} ({}): {}", self.code, state, self.message)
    }
}

impl std::error::Error for SqlError {}
