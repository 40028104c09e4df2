//! The protocol's numbers: capability flags, status flags, command bytes, column type codes
//! and the error codes this layer reports itself. Names follow MySQL's headers.

/// Capability flags (the `CLIENT_*` bits of the handshake).
pub mod capabilities {
    pub const CLIENT_LONG_PASSWORD: u32 = 1;
    pub const CLIENT_FOUND_ROWS: u32 = 1 << 1;
    pub const CLIENT_LONG_FLAG: u32 = 1 << 2;
    pub const CLIENT_CONNECT_WITH_DB: u32 = 1 << 3;
    pub const CLIENT_NO_SCHEMA: u32 = 1 << 4;
    pub const CLIENT_COMPRESS: u32 = 1 << 5;
    pub const CLIENT_ODBC: u32 = 1 << 6;
    pub const CLIENT_LOCAL_FILES: u32 = 1 << 7;
    pub const CLIENT_IGNORE_SPACE: u32 = 1 << 8;
    pub const CLIENT_PROTOCOL_41: u32 = 1 << 9;
    pub const CLIENT_INTERACTIVE: u32 = 1 << 10;
    pub const CLIENT_SSL: u32 = 1 << 11;
    pub const CLIENT_IGNORE_SIGPIPE: u32 = 1 << 12;
    pub const CLIENT_TRANSACTIONS: u32 = 1 << 13;
    pub const CLIENT_RESERVED: u32 = 1 << 14;
    pub const CLIENT_SECURE_CONNECTION: u32 = 1 << 15;
    pub const CLIENT_MULTI_STATEMENTS: u32 = 1 << 16;
    pub const CLIENT_MULTI_RESULTS: u32 = 1 << 17;
    pub const CLIENT_PS_MULTI_RESULTS: u32 = 1 << 18;
    pub const CLIENT_PLUGIN_AUTH: u32 = 1 << 19;
    pub const CLIENT_CONNECT_ATTRS: u32 = 1 << 20;
    pub const CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    pub const CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS: u32 = 1 << 22;
    pub const CLIENT_SESSION_TRACK: u32 = 1 << 23;
    pub const CLIENT_DEPRECATE_EOF: u32 = 1 << 24;

    /// Everything this implementation honours, and nothing else: no compression, no
    /// session tracking (TLS is offered apart, when configured). CLIENT_INTERACTIVE is
    /// honoured by choosing interactive_timeout over wait_timeout; CLIENT_LOCAL_FILES by
    /// LOAD DATA LOCAL INFILE (`local_infile`); CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS by
    /// letting such a client into the expired-password session (see
    /// `disconnect_on_expired_password`).
    pub const SERVER_CAPABILITIES: u32 = CLIENT_LONG_PASSWORD
        | CLIENT_LOCAL_FILES
        | CLIENT_LONG_FLAG
        | CLIENT_CONNECT_WITH_DB
        | CLIENT_PROTOCOL_41
        | CLIENT_INTERACTIVE
        | CLIENT_TRANSACTIONS
        | CLIENT_SECURE_CONNECTION
        | CLIENT_MULTI_STATEMENTS
        | CLIENT_MULTI_RESULTS
        | CLIENT_PS_MULTI_RESULTS
        | CLIENT_PLUGIN_AUTH
        | CLIENT_CONNECT_ATTRS
        | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        | CLIENT_DEPRECATE_EOF
        | CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS;
}

/// Server status flags of OK and EOF packets.
pub mod status {
    pub const SERVER_STATUS_IN_TRANS: u16 = 1;
    pub const SERVER_STATUS_AUTOCOMMIT: u16 = 2;
    pub const SERVER_MORE_RESULTS_EXISTS: u16 = 8;
    pub const SERVER_STATUS_CURSOR_EXISTS: u16 = 64;
    pub const SERVER_STATUS_LAST_ROW_SENT: u16 = 128;
}

/// Command bytes (the first byte of a command packet).
pub mod command {
    pub const COM_SLEEP: u8 = 0x00;
    pub const COM_QUIT: u8 = 0x01;
    pub const COM_INIT_DB: u8 = 0x02;
    pub const COM_QUERY: u8 = 0x03;
    pub const COM_FIELD_LIST: u8 = 0x04;
    pub const COM_SHUTDOWN: u8 = 0x08;
    pub const COM_STATISTICS: u8 = 0x09;
    pub const COM_PING: u8 = 0x0e;
    pub const COM_CHANGE_USER: u8 = 0x11;
    pub const COM_STMT_PREPARE: u8 = 0x16;
    pub const COM_STMT_EXECUTE: u8 = 0x17;
    pub const COM_STMT_SEND_LONG_DATA: u8 = 0x18;
    pub const COM_STMT_CLOSE: u8 = 0x19;
    pub const COM_STMT_RESET: u8 = 0x1a;
    pub const COM_SET_OPTION: u8 = 0x1b;
    pub const COM_STMT_FETCH: u8 = 0x1c;
    pub const COM_RESET_CONNECTION: u8 = 0x1f;
}

/// Column type codes on the wire (the `type` byte of a column definition and of a
/// prepared-statement parameter).
pub mod column_type {
    pub const DECIMAL: u8 = 0;
    pub const TINY: u8 = 1;
    pub const SHORT: u8 = 2;
    pub const LONG: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const DOUBLE: u8 = 5;
    pub const NULL: u8 = 6;
    pub const TIMESTAMP: u8 = 7;
    pub const LONGLONG: u8 = 8;
    pub const INT24: u8 = 9;
    pub const DATE: u8 = 10;
    pub const TIME: u8 = 11;
    pub const DATETIME: u8 = 12;
    pub const YEAR: u8 = 13;
    pub const NEWDATE: u8 = 14;
    pub const VARCHAR: u8 = 15;
    pub const BIT: u8 = 16;
    pub const TIMESTAMP2: u8 = 17;
    pub const DATETIME2: u8 = 18;
    pub const TIME2: u8 = 19;
    pub const JSON: u8 = 245;
    pub const NEWDECIMAL: u8 = 246;
    pub const ENUM: u8 = 247;
    pub const SET: u8 = 248;
    pub const TINY_BLOB: u8 = 249;
    pub const MEDIUM_BLOB: u8 = 250;
    pub const LONG_BLOB: u8 = 251;
    pub const BLOB: u8 = 252;
    pub const VAR_STRING: u8 = 253;
    pub const STRING: u8 = 254;
    pub const GEOMETRY: u8 = 255;
}

/// Error codes this layer sends on its own (the SQL layer supplies the rest).
pub mod error_code {
    pub use myriad_types::errors::{
        ER_ACCESS_DENIED_ERROR, ER_CON_COUNT_ERROR, ER_HANDSHAKE_ERROR, ER_MALFORMED_PACKET,
        ER_NET_ERROR_ON_WRITE, ER_NET_PACKETS_OUT_OF_ORDER, ER_NET_PACKET_TOO_LARGE,
        ER_NET_WRITE_INTERRUPTED, ER_NOT_SUPPORTED_AUTH_MODE, ER_SERVER_SHUTDOWN,
        ER_STMT_HAS_NO_OPEN_CURSOR, ER_UNKNOWN_COM_ERROR, ER_UNKNOWN_ERROR,
        ER_UNKNOWN_STMT_HANDLER, ER_WRONG_ARGUMENTS,
    };
}

/// utf8mb4_general_ci, the collation the handshake announces.
pub const DEFAULT_COLLATION_ID: u8 = 45;

/// The longest payload one physical packet carries; longer payloads are split into
/// 0xFFFFFF-byte pieces followed by a shorter (possibly empty) final piece.
pub const MAX_PACKET_CHUNK: usize = 0xFF_FFFF;
