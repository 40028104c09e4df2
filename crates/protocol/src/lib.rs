//! The MySQL client/server protocol, server side, our own implementation on tokio.
//! Depends on nothing else of myriad but its value type ([`myriad_types::Value`]): the server plugs the SQL engine in through
//! [`ServerHandler`] and [`SessionHandler`].
//!
//! Layers, bottom up:
//! - [`buf`]: primitive encodings with a reader that cannot read out of bounds;
//! - [`packet`]: framing, sequence ids, >16 MiB split/join, max_allowed_packet;
//! - [`auth`]: the mysql_native_password plugin;
//! - [`command`]: command packets decoded into [`Command`];
//! - [`value`] and [`results`]: text and binary values, OK/EOF/ERR, column definitions,
//!   result sets written through [`ResultSink`];
//! - [`drain`]: a result set written to the socket while the statement produces it;
//! - [`tls`]: the SSL request and TLS over the same socket (rustls);
//! - [`connection`]: handshake, capability negotiation, authentication (with auth switch),
//!   the command loop and prepared-statement state (remembered parameter types, long
//!   data, cursors).
//!
//! Why our own: the published crates mis-decode re-executed prepared statements whose
//! client sends new_params_bound_flag = 0 (libmariadb does) and hang the interactive
//! mariadb client on COM_FIELD_LIST.

pub mod auth;
pub mod buf;
pub mod client;
pub mod command;
pub mod connection;
pub mod constants;
pub mod drain;
pub mod local_infile;
pub mod packet;
pub mod query_text;
pub mod results;
pub mod stop;
pub mod tls;
pub mod value;

pub use command::Command;
pub use connection::{
    reject_connection, serve_connection, CloseHandle, ConnectionEnd, ConnectionOptions, Prepared,
    ServerHandler, SessionHandler, SessionRequest,
};
pub use myriad_types::Value;
pub use results::{
    ColumnDef, ColumnDefinition, EncodedRows, ErrorInfo, OkInfo, ResultSink, RowFormat,
};
pub use tls::{PeerCertificate, TlsConfig, TlsInfo, TlsSettings};
pub use value::ParamType;
