//! Decoding command packets. [`Command::parse`] turns a payload into a typed command or a
//! `DecodeError`; it never panics, whatever the bytes (see the property tests).
//! COM_STMT_EXECUTE is decoded in two steps: the fixed header here, the parameters by the
//! connection, which knows each statement's parameter count and remembered types.

use crate::buf::{DecodeResult, Reader};
use crate::constants::capabilities::*;
use crate::constants::command::*;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command<'a> {
    Quit,
    InitDb(&'a [u8]),
    Query(&'a [u8]),
    FieldList {
        table: &'a [u8],
        wildcard: &'a [u8],
    },
    Statistics,
    /// COM_SHUTDOWN (mariadb-admin shutdown); the shutdown type byte is ignored.
    Shutdown,
    Ping,
    ChangeUser(ChangeUser<'a>),
    StmtPrepare(&'a [u8]),
    /// The statement id, flags, and the rest (null bitmap, types, values).
    StmtExecute {
        statement_id: u32,
        flags: u8,
        params: &'a [u8],
    },
    StmtSendLongData {
        statement_id: u32,
        param_index: u16,
        data: &'a [u8],
    },
    StmtClose {
        statement_id: u32,
    },
    StmtReset {
        statement_id: u32,
    },
    SetOption {
        multi_statements: bool,
    },
    StmtFetch {
        statement_id: u32,
        rows: u32,
    },
    ResetConnection,
    /// A command byte we do not implement (answered with ER_UNKNOWN_COM_ERROR).
    Unknown(u8),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeUser<'a> {
    pub user: &'a [u8],
    pub auth_response: &'a [u8],
    pub database: &'a [u8],
    pub auth_plugin: Option<&'a [u8]>,
}

impl<'a> Command<'a> {
    /// Decode a command payload. `capabilities` are the negotiated ones (they shape
    /// COM_CHANGE_USER).
    pub fn parse(payload: &'a [u8], capabilities: u32) -> DecodeResult<Command<'a>> {
        let mut r = Reader::new(payload);
        let code = r.u8("command byte")?;
        Ok(match code {
            COM_QUIT => Command::Quit,
            COM_INIT_DB => Command::InitDb(r.rest()),
            COM_QUERY => Command::Query(r.rest()),
            COM_FIELD_LIST => {
                let table = r.nul_or_eof_bytes();
                Command::FieldList {
                    table,
                    wildcard: r.rest(),
                }
            }
            COM_STATISTICS => Command::Statistics,
            COM_SHUTDOWN => Command::Shutdown,
            COM_PING => Command::Ping,
            COM_CHANGE_USER => {
                let user = r.nul_bytes("change user: user")?;
                let auth_response = if capabilities & CLIENT_SECURE_CONNECTION != 0 {
                    let len = r.u8("change user: auth length")?;
                    r.take(len as usize, "change user: auth response")?
                } else {
                    r.nul_bytes("change user: auth response")?
                };
                let database = r.nul_or_eof_bytes();
                let mut auth_plugin = None;
                if r.remaining() >= 2 {
                    let _charset = r.u16("change user: charset")?;
                    if capabilities & CLIENT_PLUGIN_AUTH != 0 && !r.is_empty() {
                        auth_plugin = Some(r.nul_or_eof_bytes());
                    }
                }
                // Connection attributes may follow; they are informational only.
                Command::ChangeUser(ChangeUser {
                    user,
                    auth_response,
                    database,
                    auth_plugin,
                })
            }
            COM_STMT_PREPARE => Command::StmtPrepare(r.rest()),
            COM_STMT_EXECUTE => {
                let statement_id = r.u32("execute: statement id")?;
                let flags = r.u8("execute: flags")?;
                let _iterations = r.u32("execute: iteration count")?;
                Command::StmtExecute {
                    statement_id,
                    flags,
                    params: r.rest(),
                }
            }
            COM_STMT_SEND_LONG_DATA => {
                let statement_id = r.u32("long data: statement id")?;
                let param_index = r.u16("long data: parameter")?;
                Command::StmtSendLongData {
                    statement_id,
                    param_index,
                    data: r.rest(),
                }
            }
            COM_STMT_CLOSE => Command::StmtClose {
                statement_id: r.u32("close: statement id")?,
            },
            COM_STMT_RESET => Command::StmtReset {
                statement_id: r.u32("reset: statement id")?,
            },
            COM_SET_OPTION => match r.u16("set option: value")? {
                0 => Command::SetOption {
                    multi_statements: true,
                },
                1 => Command::SetOption {
                    multi_statements: false,
                },
                _ => return Err(crate::buf::DecodeError("set option: unknown option")),
            },
            COM_STMT_FETCH => {
                let statement_id = r.u32("fetch: statement id")?;
                Command::StmtFetch {
                    statement_id,
                    rows: r.u32("fetch: row count")?,
                }
            }
            COM_RESET_CONNECTION => Command::ResetConnection,
            other => Command::Unknown(other),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn commands_decode() {
        assert_eq!(
            Command::parse(b"\x03select 1", 0),
            Ok(Command::Query(b"select 1"))
        );
        assert_eq!(Command::parse(b"\x0e", 0), Ok(Command::Ping));
        assert_eq!(
            Command::parse(b"\x04t1\x00%", 0),
            Ok(Command::FieldList {
                table: b"t1",
                wildcard: b"%"
            })
        );
        assert_eq!(
            Command::parse(b"\x1b\x01\x00", 0),
            Ok(Command::SetOption {
                multi_statements: false
            })
        );
        assert_eq!(Command::parse(b"\x7f", 0), Ok(Command::Unknown(0x7f)));
        assert!(Command::parse(b"", 0).is_err());
        assert!(Command::parse(b"\x17\x01\x00", 0).is_err());
        let change = b"\x11bob\x00\x03abcdb1\x00\x2d\x00mysql_native_password\x00";
        assert_eq!(
            Command::parse(change, CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH),
            Ok(Command::ChangeUser(ChangeUser {
                user: b"bob",
                auth_response: b"abc",
                database: b"db1",
                auth_plugin: Some(b"mysql_native_password"),
            }))
        );
    }

    proptest! {
        #[test]
        fn random_payloads_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64), caps in any::<u32>()) {
            let _ = Command::parse(&bytes, caps);
        }

        #[test]
        fn truncated_known_commands_never_panic(code in 0u8..0x20, tail in proptest::collection::vec(any::<u8>(), 0..12)) {
            let mut payload = vec![code];
            payload.extend_from_slice(&tail);
            for cut in 0..=payload.len() {
                let _ = Command::parse(&payload[..cut], CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH);
            }
        }
    }
}
