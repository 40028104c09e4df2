//! MySQL errors: a code, a SQLSTATE and a message, as the ERR packet carries them.

use std::fmt;

/// ER_STACK_OVERRUN_NEED_MORE: a statement nests deeper than the thread's stack holds.
pub const ER_STACK_OVERRUN_NEED_MORE: u16 = 1436;

/// ER_WARN_ALLOWED_PACKET_OVERFLOWED: a string function's result passed max_allowed_packet.
pub const ER_WARN_ALLOWED_PACKET_OVERFLOWED: u16 = 1301;

/// ER_DISK_FULL: a write found the file system full (errno 28, ENOSPC, or a quota). MariaDB's
/// handler reports ENOSPC from any engine this way (`handler::print_error`), and so do we,
/// for a statement the engine refused before applying it and for one it undid.
pub const ER_DISK_FULL: u16 = 1021;

/// ER_GET_ERRNO: any other operating-system error from the storage engine (EIO, ...).
pub const ER_GET_ERRNO: u16 = 1030;

/// ER_WARN_DATA_OUT_OF_RANGE: a number does not fit its column (22003).
pub const ER_WARN_DATA_OUT_OF_RANGE: u16 = 1264;

/// ER_TRUNCATED_WRONG_VALUE: an impossible date or time (22007).
pub const ER_TRUNCATED_WRONG_VALUE: u16 = 1292;

/// ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: a value a column cannot read, such as invalid
/// UTF-8 into a utf8mb4 column (22007).
pub const ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: u16 = 1366;

/// An error as the client sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    pub code: u16,
    pub sqlstate: [u8; 5],
    pub message: String,
}

impl SqlError {
    pub fn new(code: u16, sqlstate: &str, message: impl Into<String>) -> SqlError {
        let mut state = [b'H', b'Y', b'0', b'0', b'0'];
        if sqlstate.len() == 5 {
            state.copy_from_slice(sqlstate.as_bytes());
        }
        SqlError {
            code,
            sqlstate: state,
            message: message.into(),
        }
    }

    /// ER_NOT_SUPPORTED_YET (1235).
    pub fn not_supported(what: &str) -> SqlError {
        SqlError::new(
            1235,
            "42000",
            format!("This version of myriad doesn't yet support '{what}'"),
        )
    }
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = String::from_utf8_lossy(&self.sqlstate);
        write!(f, "ERROR {} ({}): {}", self.code, state, self.message)
    }
}

impl std::error::Error for SqlError {}
