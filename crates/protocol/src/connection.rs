//! One client connection, from the greeting to the last command.
//!
//! 1. Handshake: the server sends a v10 greeting with a fresh scramble and the capabilities
//!    it implements ([`SERVER_CAPABILITIES`]); the client answers with its own; the
//!    connection uses their intersection from then on.
//! 2. Authentication with the account's plugin: mysql_native_password against the
//!    account's SHA1(SHA1(password)), or ed25519 against its public key. A client that
//!    starts with another plugin (caching_sha2_password, MySQL 8's default), or any client
//!    of an ed25519 account, gets an AuthSwitchRequest with a new scramble or nonce and
//!    answers again.
//! 3. The session opens (the handler may refuse, e.g. an unknown database) and an OK
//!    packet follows.
//! 4. Commands: read a packet, decode it, call the handler, flush its answer. The handler
//!    is synchronous; it decides how to run blocking work (the server wraps engine calls in
//!    `block_in_place`). A result set larger than [`crate::drain::FLUSH_BYTES`] is written
//!    while the handler still produces it ([`crate::drain`]); a write that fails or times
//!    out then ends the connection after the command.
//!
//! Errors are split in two: a statement error is an ERR packet and the connection goes on;
//! a protocol violation (bytes that do not decode, a packet out of order or over
//! max_allowed_packet) gets an ERR packet, a log line, and closes this connection only.
//! Nothing here panics on client input: every read goes through [`crate::buf::Reader`].

use crate::auth::{
    new_ed25519_nonce, new_scramble, verify_ed25519, verify_native_password, Credential,
    ED25519_CLIENT_PLUGIN, NATIVE_PASSWORD_PLUGIN,
};
use crate::buf::{DecodeError, Reader};
use crate::command::{ChangeUser, Command};
use crate::constants::capabilities::*;
use crate::constants::error_code::*;
use crate::constants::status::*;
use crate::constants::{column_type, DEFAULT_COLLATION_ID};
use crate::drain::DrainError;
use crate::packet::{FrameBuffer, PacketError, PacketReader, PacketWriter};
use crate::results::{
    put_column, put_end_of_rows, put_eof, put_err, put_ok, ColumnDef, ColumnDefinition, CursorRows,
    ErrorInfo, OkInfo, ResultSink, RowFormat,
};
use crate::stop::StopWaiter;
use crate::tls::{TlsInfo, Transport};
use crate::value::{read_binary_param, ParamType};
use myriad_types::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, BufReader, ReadHalf, WriteHalf};

/// The server-wide side of the protocol: accounts and sessions.
pub trait ServerHandler: Send + Sync + 'static {
    type Session: SessionHandler;

    /// The version string of the greeting (`8.0.36-myriad-0.1.0`).
    fn server_version(&self) -> String;

    /// How `user`@`host` authenticates: None when no account matches, else the account's
    /// credential. `tls` is the connection's TLS (None: plain): an account whose TLS
    /// requirement it does not meet answers None, as if it did not exist (1045 access
    /// denied).
    fn account(&self, user: &str, host: &str, tls: Option<&TlsInfo>) -> Option<Credential>;

    /// Open the session of an authenticated connection.
    fn open_session(&self, request: &SessionRequest<'_>) -> Result<Self::Session, ErrorInfo>;
    /// Whether connections must come over a secure transport, TLS or the unix socket
    /// (`require_secure_transport`): others are refused as MariaDB refuses them, with
    /// 1045 access denied, before their password is checked.
    fn secure_transport_required(&self) -> bool {
        false
    }
    /// A TLS handshake began (`finished` false) or completed (true): `Ssl_accepts`,
    /// `Ssl_finished_accepts`.
    fn tls_handshake(&self, _finished: bool) {}

    /// A command starts executing (for Threads_running).
    fn command_started(&self) {}

    /// The command that [`ServerHandler::command_started`] announced has finished.
    fn command_finished(&self) {}

    /// Bytes received and sent since the last report (Bytes_received, Bytes_sent).
    fn traffic(&self, received: u64, sent: u64) {
        let _ = (received, sent);
    }
}

/// Who is connecting.
#[derive(Debug, Clone)]
pub struct SessionRequest<'a> {
    pub connection_id: u32,
    pub user: &'a str,
    pub host: &'a str,
    pub database: Option<&'a str>,
    pub capabilities: u32,
    /// The client's socket ([`ConnectionOptions::socket_fd`]).
    pub socket_fd: Option<i32>,
    /// The connection's TLS, when the client asked for it.
    pub tls: Option<&'a TlsInfo>,
    /// Ends this connection from elsewhere (KILL CONNECTION).
    pub closer: CloseHandle,
}

/// Ends one connection from outside its task: the connection stops at its next read of a
/// command (a command running now finishes and its answer is sent first) and closes
/// without a word to the client, as MariaDB closes a killed connection.
#[derive(Clone, Default, Debug)]
pub struct CloseHandle(Arc<tokio::sync::Notify>);

impl CloseHandle {
    pub fn close(&self) {
        // The permit waits for the connection's next read if it is not reading now.
        self.0.notify_one();
    }
}

/// A prepared statement as COM_STMT_PREPARE describes it.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub statement_id: u32,
    pub param_count: u16,
    pub columns: Vec<ColumnDefinition>,
}

/// One connection's session: every command after authentication.
pub trait SessionHandler: Send + 'static {
    /// SERVER_STATUS_IN_TRANS and SERVER_STATUS_AUTOCOMMIT as they stand now.
    fn status_flags(&self) -> u16;
    /// COM_QUERY: write one result per statement to `out`. A handler may leave its last
    /// result set open when the client stops reading ([`ResultSink::flush_or_pause`]
    /// answered true) and say so through [`SessionHandler::paused`].
    fn query(&mut self, sql: &str, multi_statements: bool, out: &mut ResultSink<'_>);
    /// Whether the result set of the last COM_QUERY or COM_STMT_EXECUTE is still open,
    /// its statement paused (the client had not read what was buffered, or the
    /// statement's slice of running time was over): the connection writes what was buffered, waiting for the client
    /// without a thread, lets the other ready connections run, then calls
    /// [`SessionHandler::resume`]. Nothing else runs on the session meanwhile.
    fn paused(&self) -> bool {
        false
    }
    /// Go on with the paused result set, writing its next rows into `out`, then its end
    /// (or an error), unless it pauses again.
    fn resume(&mut self, out: &mut ResultSink<'_>) {
        let _ = out;
    }
    /// Whether the paused statement must end (KILL QUERY, max_statement_time): the
    /// connection stops waiting for the client and resumes it, so that it ends with its
    /// error.
    fn stop_requested(&self) -> bool {
        false
    }
    fn init_db(&mut self, database: &str) -> Result<(), ErrorInfo>;
    fn field_list(
        &mut self,
        table: &str,
        wildcard: &str,
    ) -> Result<Vec<ColumnDefinition>, ErrorInfo>;
    fn statistics(&mut self) -> String;
    /// COM_SHUTDOWN: stop the server, as the SHUTDOWN statement does. By default the
    /// command is unknown.
    fn shutdown(&mut self) -> Result<(), ErrorInfo> {
        Err(ErrorInfo::new(ER_UNKNOWN_COM_ERROR, "Unknown command"))
    }
    fn prepare(&mut self, sql: &str) -> Result<Prepared, ErrorInfo>;
    /// COM_STMT_EXECUTE with decoded parameters: write the result to `out`.
    fn execute(&mut self, statement_id: u32, params: Vec<Value>, out: &mut ResultSink<'_>);
    fn close_prepared_statement(&mut self, statement_id: u32);
    fn reset_connection(&mut self) -> Result<(), ErrorInfo>;
    /// The idle limit the session chose itself (`SET SESSION wait_timeout`), read after
    /// every command; None keeps the connection's own (wait_timeout or interactive_timeout
    /// when it started).
    fn idle_timeout(&self) -> Option<Duration> {
        None
    }
    /// COM_CHANGE_USER after the new user authenticated.
    fn change_user(
        &mut self,
        user: &str,
        host: &str,
        database: Option<&str>,
    ) -> Result<(), ErrorInfo>;
}

/// Per-connection settings.
#[derive(Debug, Clone)]
pub struct ConnectionOptions {
    pub connection_id: u32,
    /// The client's host as accounts see it (`localhost` for loopback and unix sockets).
    pub host: String,
    pub max_allowed_packet: usize,
    /// Idle time after which a connection is closed (wait_timeout, or
    /// interactive_timeout for CLIENT_INTERACTIVE clients). None: never.
    pub wait_timeout: Option<Duration>,
    pub interactive_timeout: Option<Duration>,
    /// Time allowed for the whole handshake (connect_timeout).
    pub connect_timeout: Duration,
    /// Time allowed to write one command's response (net_write_timeout): a client that
    /// stops reading loses its connection instead of pinning it forever.
    pub write_timeout: Duration,
    /// Time allowed between a client's packets in the middle of a command
    /// (net_read_timeout): the file of LOAD DATA LOCAL INFILE.
    pub read_timeout: Duration,
    /// The descriptor of the client's socket, when the stream has one: a running statement
    /// may poll it to learn that the client hung up. It stays open as long as the
    /// connection's task runs, and only that task's statements may use it.
    pub socket_fd: Option<i32>,
    /// Whether the client came over the unix socket (a secure transport, as TLS is).
    pub unix_socket: bool,
    /// The server's TLS configuration: when present the greeting offers TLS.
    pub tls: Option<Arc<rustls::ServerConfig>>,
}

impl Default for ConnectionOptions {
    fn default() -> Self {
        ConnectionOptions {
            connection_id: 1,
            host: String::from("localhost"),
            max_allowed_packet: 64 * 1024 * 1024,
            wait_timeout: None,
            interactive_timeout: None,
            connect_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(60),
            read_timeout: Duration::from_secs(30),
            socket_fd: None,
            unix_socket: false,
            tls: None,
        }
    }
}

/// How a connection ended.
#[derive(Debug)]
pub enum ConnectionEnd {
    /// The client sent COM_QUIT.
    Quit,
    /// Authentication or the handshake failed (Aborted_connects).
    HandshakeFailed(String),
    /// The client went away without COM_QUIT, or an I/O error (Aborted_clients).
    Aborted(String),
    /// A protocol violation: the connection was closed with an error.
    ProtocolError(String),
    /// Idle longer than wait_timeout.
    TimedOut,
    /// The server is shutting down.
    Shutdown,
    /// Closed through its [`CloseHandle`] (KILL CONNECTION).
    Closed,
}

/// Send an ERR packet in place of the greeting and close (ER_CON_COUNT_ERROR and the like).
pub async fn reject_connection<S: AsyncRead + AsyncWrite + Unpin>(stream: S, error: &ErrorInfo) {
    let (_, write_half) = tokio::io::split(stream);
    let mut writer = PacketWriter::new(write_half);
    put_err(&mut writer.frames, error);
    let _ = tokio::time::timeout(Duration::from_secs(5), writer.flush()).await;
    writer.shutdown().await;
}

struct StatementState {
    param_count: u16,
    /// The types of the last execute that sent them (new_params_bound_flag = 1); reused
    /// when a later execute sends new_params_bound_flag = 0, as libmariadb does.
    param_types: Option<Vec<ParamType>>,
    long_data: Vec<Option<Vec<u8>>>,
    long_data_too_large: bool,
    cursor: Option<CursorRows>,
}

enum Next {
    Continue,
    Quit,
    ChangeUser {
        user: String,
        auth_response: Vec<u8>,
        database: Option<String>,
        plugin: Option<String>,
    },
    Fatal(ErrorInfo, String),
    /// A write to the client failed while a result streamed (socket error or
    /// net_write_timeout): the connection ends without another write.
    Lost,
    /// The result set is open, its statement paused for the client to read
    /// ([`SessionHandler::paused`]); the view of its columns and its row format go on
    /// with it.
    Paused(Vec<(u8, u8)>, RowFormat),
}

struct Connection<S, H: ServerHandler> {
    reader: PacketReader<BufReader<ReadHalf<Transport<S>>>>,
    writer: PacketWriter<WriteHalf<Transport<S>>>,
    /// The connection's TLS (None: plain).
    tls: Option<TlsInfo>,
    handler: Arc<H>,
    options: ConnectionOptions,
    capabilities: u32,
    scramble: [u8; 20],
    multi_statements: bool,
    statements: HashMap<u32, StatementState>,
    reported_received: u64,
    reported_sent: u64,
    closer: CloseHandle,
}

fn access_denied(user: &str, host: &str, with_password: bool) -> ErrorInfo {
    ErrorInfo::new(
        ER_ACCESS_DENIED_ERROR,
        format!(
            "Access denied for user '{user}'@'{host}' (using password: {})",
            if with_password { "YES" } else { "NO" }
        ),
    )
}

fn malformed(e: DecodeError) -> Next {
    Next::Fatal(
        ErrorInfo::new(ER_MALFORMED_PACKET, "Malformed communication packet"),
        e.to_string(),
    )
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Serve one connection until it ends. Never panics on client input.
pub async fn serve_connection<S, H>(
    stream: S,
    handler: Arc<H>,
    options: ConnectionOptions,
    shutdown: StopWaiter,
) -> ConnectionEnd
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
    H: ServerHandler,
{
    let scramble = new_scramble();
    let deadline = tokio::time::Instant::now() + options.connect_timeout;
    let version = handler.server_version();
    let opening = open(stream, handler.as_ref(), &version, &options, &scramble);
    let opened = match tokio::time::timeout_at(deadline, opening).await {
        Ok(Ok(opened)) => opened,
        Ok(Err((end, received, sent))) => {
            handler.traffic(received, sent);
            return end;
        }
        Err(_) => return ConnectionEnd::HandshakeFailed(String::from("handshake timed out")),
    };
    let (read_half, write_half) = tokio::io::split(opened.transport);
    let mut conn = Connection {
        reader: PacketReader::new(
            BufReader::with_capacity(16 * 1024, read_half),
            options.max_allowed_packet,
        ),
        writer: PacketWriter::new(write_half),
        tls: opened.tls,
        handler,
        capabilities: 0,
        scramble,
        multi_statements: false,
        statements: HashMap::new(),
        reported_received: 0,
        reported_sent: 0,
        options,
        closer: CloseHandle::default(),
    };
    conn.reader.bytes_received = opened.received;
    conn.writer.bytes_sent = opened.sent;
    conn.reader.next_sequence = opened.next_sequence;
    conn.writer.frames.set_sequence(opened.next_sequence);
    let session = match tokio::time::timeout_at(deadline, conn.handshake(opened.response)).await {
        Ok(Ok(session)) => session,
        Ok(Err(end)) => {
            conn.report_traffic();
            conn.writer.shutdown().await;
            return end;
        }
        Err(_) => {
            conn.report_traffic();
            return ConnectionEnd::HandshakeFailed(String::from("handshake timed out"));
        }
    };
    let end = conn.command_loop(session, &shutdown).await;
    conn.report_traffic();
    conn.writer.shutdown().await;
    end
}

/// A connection after its first exchange: the transport to serve it over and the
/// client's handshake response.
struct Opened<S> {
    transport: Transport<S>,
    response: Vec<u8>,
    /// The sequence id of the server's next packet.
    next_sequence: u8,
    tls: Option<TlsInfo>,
    received: u64,
    sent: u64,
}

/// A failed opening, with the bytes received and sent before it failed.
type OpenFailed = (ConnectionEnd, u64, u64);

/// The payload of an SSL request: capabilities, max packet, collation, 23 bytes of filler.
const SSL_REQUEST_BYTES: usize = 32;

/// Greet the client and read its answer; when that is an SSL request, run the TLS
/// handshake and read the handshake response inside TLS ([`crate::tls`]). Each read takes
/// exactly one packet (no read-ahead), so that TLS starts on the byte after the SSL
/// request.
async fn open<S, H: ServerHandler>(
    mut stream: S,
    handler: &H,
    version: &str,
    options: &ConnectionOptions,
    scramble: &[u8; 20],
) -> Result<Opened<S>, OpenFailed>
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
{
    let capabilities = SERVER_CAPABILITIES | options.tls.as_ref().map_or(0, |_| CLIENT_SSL);
    let mut writer = PacketWriter::new(&mut stream);
    put_greeting(&mut writer.frames, version, options, scramble, capabilities);
    let flushed = writer.flush().await;
    let mut sent = writer.bytes_sent;
    flushed.map_err(|e| (ConnectionEnd::HandshakeFailed(e.to_string()), 0, sent))?;
    let mut response = Vec::new();
    let mut received = 0;
    let next_sequence =
        read_one_packet(&mut stream, options, 1, &mut response, &mut received, sent).await?;
    let client_caps = response
        .get(..4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    if client_caps & CLIENT_SSL == 0 || response.len() != SSL_REQUEST_BYTES {
        return Ok(Opened {
            transport: Transport::Plain(stream),
            response,
            next_sequence,
            tls: None,
            received,
            sent,
        });
    }
    let Some(config) = &options.tls else {
        let mut writer = PacketWriter::new(&mut stream);
        writer.frames.set_sequence(next_sequence);
        let error = ErrorInfo::new(ER_HANDSHAKE_ERROR, "Bad handshake");
        put_err(&mut writer.frames, &error);
        let _ = writer.flush().await;
        sent += writer.bytes_sent;
        let reason = "TLS requested but the server has no certificate (ssl_cert, ssl_key)";
        return Err((
            ConnectionEnd::HandshakeFailed(reason.into()),
            received,
            sent,
        ));
    };
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::clone(config));
    handler.tls_handshake(false);
    let tls = acceptor.accept(stream).await.map_err(|e| {
        let end = ConnectionEnd::HandshakeFailed(format!("TLS handshake failed: {e}"));
        (end, received, sent)
    })?;
    handler.tls_handshake(true);
    let info = crate::tls::info_of(tls.get_ref().1);
    let mut transport = Transport::Tls(Box::new(tls));
    let next_sequence = read_one_packet(
        &mut transport,
        options,
        next_sequence,
        &mut response,
        &mut received,
        sent,
    )
    .await?;
    Ok(Opened {
        transport,
        response,
        next_sequence,
        tls: Some(info),
        received,
        sent,
    })
}

/// Read exactly one packet numbered `sequence` from `stream` into `payload` (no
/// read-ahead), adding its bytes to `received`: the sequence id the server answers with.
async fn read_one_packet<S: AsyncRead + Unpin>(
    stream: S,
    options: &ConnectionOptions,
    sequence: u8,
    payload: &mut Vec<u8>,
    received: &mut u64,
    sent: u64,
) -> Result<u8, OpenFailed> {
    let mut reader = PacketReader::new(stream, options.max_allowed_packet);
    reader.next_sequence = sequence;
    let read = reader.read_payload(payload).await;
    *received += reader.bytes_received;
    let failed = |e: PacketError| {
        (
            ConnectionEnd::HandshakeFailed(e.to_string()),
            *received,
            sent,
        )
    };
    read.map_err(failed)?;
    Ok(reader.next_sequence)
}

/// The v10 greeting: server version, connection id, scramble, capabilities, the plugin.
fn put_greeting(
    frames: &mut FrameBuffer,
    version: &str,
    options: &ConnectionOptions,
    scramble: &[u8; 20],
    capabilities: u32,
) {
    let start = frames.start_packet();
    let out = frames.payload();
    out.push(10);
    out.extend_from_slice(version.as_bytes());
    out.push(0);
    out.extend_from_slice(&options.connection_id.to_le_bytes());
    out.extend_from_slice(&scramble[..8]);
    out.push(0);
    out.extend_from_slice(&(capabilities as u16).to_le_bytes());
    out.push(DEFAULT_COLLATION_ID);
    out.extend_from_slice(&SERVER_STATUS_AUTOCOMMIT.to_le_bytes());
    out.extend_from_slice(&((capabilities >> 16) as u16).to_le_bytes());
    out.push(21);
    out.extend_from_slice(&[0; 10]);
    out.extend_from_slice(&scramble[8..]);
    out.push(0);
    out.extend_from_slice(NATIVE_PASSWORD_PLUGIN.as_bytes());
    out.push(0);
    frames.finish_packet(start);
}

impl<S, H> Connection<S, H>
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
    H: ServerHandler,
{
    fn report_traffic(&mut self) {
        let received = self.reader.bytes_received - self.reported_received;
        let sent = self.writer.bytes_sent - self.reported_sent;
        self.reported_received = self.reader.bytes_received;
        self.reported_sent = self.writer.bytes_sent;
        if received > 0 || sent > 0 {
            self.handler.traffic(received, sent);
        }
    }

    /// Read the client's next packet of an exchange the server's last packet continued.
    async fn read_reply(&mut self, payload: &mut Vec<u8>) -> Result<(), PacketError> {
        self.reader.next_sequence = self.writer.frames.sequence();
        let result = self.reader.read_payload(payload).await;
        self.writer.frames.set_sequence(self.reader.next_sequence);
        result
    }

    async fn fail_handshake(&mut self, error: ErrorInfo, reason: String) -> ConnectionEnd {
        put_err(&mut self.writer.frames, &error);
        let _ = self.writer.flush().await;
        ConnectionEnd::HandshakeFailed(reason)
    }

    /// Authenticate the client's handshake response `payload` and open its session.
    async fn handshake(&mut self, payload: Vec<u8>) -> Result<H::Session, ConnectionEnd> {
        let bad_handshake = || ErrorInfo::new(ER_HANDSHAKE_ERROR, "Bad handshake");
        let mut r = Reader::new(&payload);
        let parsed = (|| -> Result<_, DecodeError> {
            let client_caps = r.u32("client capabilities")?;
            if client_caps & CLIENT_PROTOCOL_41 == 0 {
                return Err(DecodeError("client without CLIENT_PROTOCOL_41"));
            }
            let _max_packet = r.u32("max packet")?;
            let _collation = r.u8("collation")?;
            r.take(23, "filler")?;
            if client_caps & CLIENT_SSL != 0 && r.is_empty() {
                return Err(DecodeError("TLS requested but not offered"));
            }
            if client_caps & CLIENT_SSL != 0 && self.tls.is_none() {
                return Err(DecodeError("CLIENT_SSL without an SSL request"));
            }
            let caps = client_caps & SERVER_CAPABILITIES;
            let user = r.nul_bytes("user")?;
            let auth = if caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
                r.lenenc_bytes("auth response")?
            } else if caps & CLIENT_SECURE_CONNECTION != 0 {
                let len = r.u8("auth length")?;
                r.take(len as usize, "auth response")?
            } else {
                r.nul_bytes("auth response")?
            };
            let mut database = None;
            if caps & CLIENT_CONNECT_WITH_DB != 0 && !r.is_empty() {
                let db = r.nul_or_eof_bytes();
                if !db.is_empty() {
                    database = Some(text(db));
                }
            }
            let mut plugin = None;
            if caps & CLIENT_PLUGIN_AUTH != 0 && !r.is_empty() {
                plugin = Some(text(r.nul_or_eof_bytes()));
            }
            // Connection attributes (CLIENT_CONNECT_ATTRS) are informational; ignored.
            Ok((caps, text(user), auth.to_vec(), database, plugin))
        })();
        let (caps, user, auth, database, plugin) = match parsed {
            Ok(parsed) => parsed,
            Err(e) => return Err(self.fail_handshake(bad_handshake(), e.to_string()).await),
        };
        self.capabilities = caps;
        self.multi_statements = caps & CLIENT_MULTI_STATEMENTS != 0;
        let secure = self.tls.is_some() || self.options.unix_socket;
        if !secure && self.handler.secure_transport_required() {
            let err = access_denied(&user, &self.options.host, !auth.is_empty());
            let reason = format!("{} (require_secure_transport)", err.message);
            return Err(self.fail_handshake(err, reason).await);
        }

        let (auth, authenticated) = self.check_password(&user, plugin, auth).await?;
        let host = self.options.host.clone();
        if !authenticated {
            let err = access_denied(&user, &host, !auth.is_empty());
            let reason = err.message.clone();
            return Err(self.fail_handshake(err, reason).await);
        }
        let request = SessionRequest {
            connection_id: self.options.connection_id,
            user: &user,
            host: &host,
            database: database.as_deref(),
            capabilities: caps,
            socket_fd: self.options.socket_fd,
            tls: self.tls.as_ref(),
            closer: self.closer.clone(),
        };
        let session = match self.handler.open_session(&request) {
            Ok(session) => session,
            Err(err) => {
                let reason = err.to_string();
                return Err(self.fail_handshake(err, reason).await);
            }
        };
        put_ok(
            &mut self.writer.frames,
            0x00,
            &OkInfo::default(),
            session.status_flags(),
        );
        self.writer
            .flush()
            .await
            .map_err(|e| ConnectionEnd::Aborted(e.to_string()))?;
        self.report_traffic();
        Ok(session)
    }

    /// Check `user`'s credential from this connection's host against the client's
    /// `response`. A client that answered for another plugin than the account's is asked
    /// to switch (a native account's answer to the greeting's scramble needs no switch; an
    /// ed25519 account always gets a fresh nonce). Returns the response checked and
    /// whether it matched, or how the connection ended during the switch.
    async fn check_password(
        &mut self,
        user: &str,
        plugin: Option<String>,
        response: Vec<u8>,
    ) -> Result<(Vec<u8>, bool), ConnectionEnd> {
        let account = self
            .handler
            .account(user, &self.options.host, self.tls.as_ref());
        if let Some(Credential::Ed25519(key)) = account {
            let Some(nonce) = new_ed25519_nonce() else {
                return Ok((response, false));
            };
            let response = self.auth_switch(ED25519_CLIENT_PLUGIN, &nonce).await?;
            let matched = verify_ed25519(key.as_ref(), &nonce, &response);
            return Ok((response, matched));
        }
        let response = match plugin {
            Some(p) if p != NATIVE_PASSWORD_PLUGIN => self.switch_to_native().await?,
            _ => response,
        };
        let matched = matches!(account, Some(Credential::NativePassword(hash))
            if verify_native_password(hash.as_ref(), &self.scramble, &response));
        Ok((response, matched))
    }

    /// Ask the client to authenticate with mysql_native_password and a new scramble.
    async fn switch_to_native(&mut self) -> Result<Vec<u8>, ConnectionEnd> {
        self.scramble = new_scramble();
        let mut data = self.scramble.to_vec();
        data.push(0);
        self.auth_switch(NATIVE_PASSWORD_PLUGIN, &data).await
    }

    /// An AuthSwitchRequest: `plugin` and its first packet's `data`; returns the client's
    /// answer.
    async fn auth_switch(&mut self, plugin: &str, data: &[u8]) -> Result<Vec<u8>, ConnectionEnd> {
        if self.capabilities & CLIENT_PLUGIN_AUTH == 0 {
            let err = ErrorInfo::new(
                ER_NOT_SUPPORTED_AUTH_MODE,
                "Client does not support authentication protocol requested by server",
            );
            return Err(self
                .fail_handshake(err, String::from("auth switch unsupported"))
                .await);
        }
        let start = self.writer.frames.start_packet();
        let out = self.writer.frames.payload();
        out.push(0xFE);
        out.extend_from_slice(plugin.as_bytes());
        out.push(0);
        out.extend_from_slice(data);
        self.writer.frames.finish_packet(start);
        self.writer
            .flush()
            .await
            .map_err(|e| ConnectionEnd::HandshakeFailed(e.to_string()))?;
        let mut token = Vec::new();
        self.read_reply(&mut token)
            .await
            .map_err(|e| ConnectionEnd::HandshakeFailed(e.to_string()))?;
        Ok(token)
    }

    async fn command_loop(
        &mut self,
        mut session: H::Session,
        shutdown: &StopWaiter,
    ) -> ConnectionEnd {
        let idle_timeout = if self.capabilities & CLIENT_INTERACTIVE != 0 {
            self.options.interactive_timeout
        } else {
            self.options.wait_timeout
        };
        let mut payload = Vec::new();
        // One timer for the connection's life, not one per command: it is set for the end of
        // the idle time that began when it was last set, and when it fires early (commands
        // ran since) it is set again from the end of the last command. A command costs one
        // clock read instead of a timer registered and cancelled in the shared wheel.
        let mut idle = idle_timeout.map(|limit| (limit, Box::pin(tokio::time::sleep(limit))));
        let mut idle_since = tokio::time::Instant::now();
        // Waited on across commands, not made again for each (a new wait would register
        // anew); it waits on this connection's own `Notify` (see `crate::stop`).
        let stop = shutdown.stopped();
        tokio::pin!(stop);
        let closer = Arc::clone(&self.closer.0);
        let closed = closer.notified();
        tokio::pin!(closed);
        loop {
            self.reader.reset_sequence();
            let result = {
                let read = self.reader.read_payload(&mut payload);
                tokio::pin!(read);
                loop {
                    tokio::select! {
                        biased;
                        _ = &mut closed => return ConnectionEnd::Closed,
                        result = &mut read => break Some(result),
                        _ = &mut stop => {
                            let err = ErrorInfo::new(ER_SERVER_SHUTDOWN, "Server shutdown in progress");
                            self.writer.frames.set_sequence(0);
                            put_err(&mut self.writer.frames, &err);
                            let _ = self.writer.flush().await;
                            return ConnectionEnd::Shutdown;
                        }
                        _ = idle_expired(&mut idle) => {
                            if let Some((limit, timer)) = &mut idle {
                                let due = idle_since + *limit;
                                if tokio::time::Instant::now() >= due {
                                    break None;
                                }
                                timer.as_mut().reset(due);
                            }
                        }
                    }
                }
            };
            match result {
                None => return ConnectionEnd::TimedOut,
                Some(Ok(())) => {}
                Some(Err(PacketError::Closed)) => {
                    return ConnectionEnd::Aborted(String::from("closed without COM_QUIT"))
                }
                Some(Err(PacketError::Io(e))) => return ConnectionEnd::Aborted(e.to_string()),
                Some(Err(e @ PacketError::TooLarge { .. })) => {
                    self.writer.frames.set_sequence(self.reader.next_sequence);
                    let err = ErrorInfo::new(
                        ER_NET_PACKET_TOO_LARGE,
                        "Got a packet bigger than 'max_allowed_packet' bytes",
                    );
                    return self.close_with(err, e.to_string()).await;
                }
                Some(Err(e @ PacketError::OutOfOrder { .. })) => {
                    self.writer.frames.set_sequence(self.reader.next_sequence);
                    let err =
                        ErrorInfo::new(ER_NET_PACKETS_OUT_OF_ORDER, "Got packets out of order");
                    return self.close_with(err, e.to_string()).await;
                }
            }
            self.writer.frames.set_sequence(self.reader.next_sequence);
            self.handler.command_started();
            // Ends the command for the handler even if dispatch unwinds.
            let running = RunningCommand(Arc::clone(&self.handler));
            let mut next = self.dispatch(&mut session, &payload);
            if let Next::Paused(columns, format) = next {
                let ends = (closed.as_mut(), stop.as_mut());
                let open = (columns, format);
                next = match self.finish_paused(&mut session, open, ends).await {
                    Ok(next) => next,
                    Err(end) => {
                        drop(running);
                        self.report_traffic();
                        return end;
                    }
                };
            }
            let end = match next {
                Next::Lost => {
                    drop(running);
                    self.report_traffic();
                    return ConnectionEnd::Aborted(String::from(
                        "a write of a result to the client failed or timed out",
                    ));
                }
                Next::Continue | Next::Paused(..) => None,
                Next::Quit => Some(ConnectionEnd::Quit),
                Next::Fatal(err, reason) => Some(self.close_with(err, reason).await),
                Next::ChangeUser {
                    user,
                    auth_response,
                    database,
                    plugin,
                } => {
                    self.change_user(&mut session, user, auth_response, database, plugin)
                        .await
                }
            };
            // A KILL CONNECTION ends a flush that waits on a client that does not read.
            let flushed = tokio::select! {
                biased;
                flushed = tokio::time::timeout(self.options.write_timeout, self.writer.flush()) => {
                    match flushed {
                        Ok(result) => result,
                        Err(_) => Err(std::io::Error::new(
                            std::io::ErrorKind::TimedOut,
                            "net_write_timeout exceeded",
                        )),
                    }
                }
                _ = &mut closed => {
                    drop(running);
                    self.report_traffic();
                    return ConnectionEnd::Closed;
                }
            };
            drop(running);
            idle_since = tokio::time::Instant::now();
            // The session's own limit, or the connection's again once the session has none
            // (RESET CONNECTION, COM_CHANGE_USER).
            let wanted = session.idle_timeout().or(idle_timeout);
            if idle.as_ref().map(|(current, _)| *current) != wanted {
                idle = wanted.map(|limit| (limit, Box::pin(tokio::time::sleep(limit))));
            }
            self.report_traffic();
            if let Some(end) = end {
                return end;
            }
            if let Err(e) = flushed {
                return ConnectionEnd::Aborted(e.to_string());
            }
            // A client that sent a huge packet should not keep its buffer forever.
            if payload.capacity() > 1024 * 1024 {
                payload = Vec::new();
            }
        }
    }

    /// Go on with a result set (COM_QUERY or COM_STMT_EXECUTE) whose statement paused
    /// because the client was not reading or its slice was over: wait, without a thread, until the client has taken the buffered rows (or
    /// the statement must stop), let the handler add the next ones, and so on until the
    /// statement ends. KILL CONNECTION (`ends.0`), the server's shutdown (`ends.1`) and a
    /// failed or timed-out write end the connection.
    async fn finish_paused(
        &mut self,
        session: &mut H::Session,
        open: (Vec<(u8, u8)>, RowFormat),
        ends: (
            std::pin::Pin<&mut tokio::sync::futures::Notified<'_>>,
            std::pin::Pin<&mut impl std::future::Future<Output = ()>>,
        ),
    ) -> Result<Next, ConnectionEnd> {
        let (mut closed, mut stop) = ends;
        let (mut columns, format) = open;
        loop {
            let mut slices = crate::drain::Slices::new(self.options.write_timeout);
            let waited = loop {
                let (frames, drain) = self.writer.split_drain(self.options.write_timeout);
                let (written, outcome) = tokio::select! {
                    biased;
                    _ = closed.as_mut() => return Err(ConnectionEnd::Closed),
                    _ = stop.as_mut() => return Err(ConnectionEnd::Shutdown),
                    slice = crate::drain::write_for(
                        &mut *drain.stream,
                        frames.unwritten(),
                        crate::drain::STOP_POLL,
                    ) => slice,
                };
                let stop = || session.stop_requested();
                if let Some(end) = slices.after(frames, drain.bytes_sent, written, outcome, &stop) {
                    break end;
                }
            };
            if let Err(DrainError::Io(_) | DrainError::TimedOut) = waited {
                return Ok(Next::Lost);
            }
            // A statement that paused because its slice was over goes on after the other
            // ready connections.
            tokio::task::yield_now().await;
            let status = session.status_flags();
            let (frames, mut drain) = self.writer.split_drain(self.options.write_timeout);
            let mut sink = ResultSink::new(frames, self.capabilities, format, status)
                .with_drain(&mut drain)
                .resumed(columns);
            session.resume(&mut sink);
            if sink.client_lost() {
                return Ok(Next::Lost);
            }
            if !session.paused() {
                finish_sink(&mut sink);
                return Ok(Next::Continue);
            }
            columns = sink.take_columns();
        }
    }

    async fn close_with(&mut self, err: ErrorInfo, reason: String) -> ConnectionEnd {
        tracing::warn!(connection_id = self.options.connection_id, %reason, "closing connection after protocol error");
        put_err(&mut self.writer.frames, &err);
        let _ = self.writer.flush().await;
        ConnectionEnd::ProtocolError(reason)
    }

    fn status(&self, session: &H::Session) -> u16 {
        session.status_flags()
    }

    fn ok(&mut self, session: &H::Session) {
        let status = self.status(session);
        put_ok(&mut self.writer.frames, 0x00, &OkInfo::default(), status);
    }

    fn dispatch(&mut self, session: &mut H::Session, payload: &[u8]) -> Next {
        let command = match Command::parse(payload, self.capabilities) {
            Ok(command) => command,
            Err(e) => return malformed(e),
        };
        match command {
            Command::Quit => return Next::Quit,
            Command::Ping => self.ok(session),
            Command::InitDb(database) => match session.init_db(&text(database)) {
                Ok(()) => self.ok(session),
                Err(err) => put_err(&mut self.writer.frames, &err),
            },
            Command::Query(sql) => {
                let sql = crate::query_text::statement_text(sql);
                let status = session.status_flags();
                let (frames, mut drain) = self.writer.split_drain(self.options.write_timeout);
                let mut infile = crate::local_infile::StreamInfile {
                    reader: &mut self.reader,
                    read_timeout: self.options.read_timeout,
                };
                let mut sink = ResultSink::new(frames, self.capabilities, RowFormat::Text, status)
                    .with_drain(&mut drain);
                if self.capabilities & CLIENT_LOCAL_FILES != 0 {
                    sink = sink.with_infile(&mut infile);
                }
                session.query(&sql, self.multi_statements, &mut sink);
                if sink.client_lost() {
                    return Next::Lost;
                }
                if session.paused() {
                    return Next::Paused(sink.take_columns(), RowFormat::Text);
                }
                finish_sink(&mut sink);
            }
            Command::FieldList { table, wildcard } => {
                match session.field_list(&text(table), &text(wildcard)) {
                    Ok(columns) => {
                        for column in &columns {
                            put_column(&mut self.writer.frames, &column.as_def(), true);
                        }
                        let status = self.status(session);
                        put_end_of_rows(&mut self.writer.frames, self.capabilities, 0, status);
                    }
                    Err(err) => put_err(&mut self.writer.frames, &err),
                }
            }
            Command::Statistics => {
                let stats = session.statistics();
                self.writer.frames.packet(stats.as_bytes());
            }
            Command::Shutdown => match session.shutdown() {
                Ok(()) => {
                    let status = self.status(session);
                    put_end_of_rows(&mut self.writer.frames, self.capabilities, 0, status);
                }
                Err(err) => put_err(&mut self.writer.frames, &err),
            },
            Command::SetOption { multi_statements } => {
                self.multi_statements = multi_statements;
                let status = self.status(session);
                if self.capabilities & CLIENT_DEPRECATE_EOF != 0 {
                    put_ok(&mut self.writer.frames, 0x00, &OkInfo::default(), status);
                } else {
                    put_eof(&mut self.writer.frames, 0, status);
                }
            }
            Command::ResetConnection => {
                self.close_all_statements(session);
                match session.reset_connection() {
                    Ok(()) => self.ok(session),
                    Err(err) => put_err(&mut self.writer.frames, &err),
                }
            }
            Command::ChangeUser(ChangeUser {
                user,
                auth_response,
                database,
                auth_plugin,
            }) => {
                return Next::ChangeUser {
                    user: text(user),
                    auth_response: auth_response.to_vec(),
                    database: (!database.is_empty()).then(|| text(database)),
                    plugin: auth_plugin.map(text),
                };
            }
            Command::StmtPrepare(sql) => {
                self.prepare(session, &crate::query_text::statement_text(sql))
            }
            Command::StmtExecute {
                statement_id,
                flags,
                params,
            } => match self.execute(session, statement_id, flags, params) {
                Ok(Next::Continue) => {}
                Ok(next) => return next,
                Err(e) => return malformed(e),
            },
            Command::StmtSendLongData {
                statement_id,
                param_index,
                data,
            } => {
                // No response, by protocol; problems surface at the next execute.
                let limit = self.options.max_allowed_packet;
                if let Some(statement) = self.statements.get_mut(&statement_id) {
                    match statement.long_data.get_mut(param_index as usize) {
                        Some(slot) => {
                            let buffer = slot.get_or_insert_with(Vec::new);
                            if buffer.len() + data.len() > limit {
                                statement.long_data_too_large = true;
                            } else {
                                buffer.extend_from_slice(data);
                            }
                        }
                        None => tracing::debug!(
                            statement_id,
                            param_index,
                            "long data for a missing parameter"
                        ),
                    }
                }
            }
            Command::StmtClose { statement_id } => {
                // No response, by protocol.
                if self.statements.remove(&statement_id).is_some() {
                    session.close_prepared_statement(statement_id);
                }
            }
            Command::StmtReset { statement_id } => match self.statements.get_mut(&statement_id) {
                Some(statement) => {
                    statement.long_data.iter_mut().for_each(|slot| *slot = None);
                    statement.long_data_too_large = false;
                    statement.cursor = None;
                    self.ok(session);
                }
                None => put_err(
                    &mut self.writer.frames,
                    &unknown_statement(statement_id, "mysqld_stmt_reset"),
                ),
            },
            Command::StmtFetch { statement_id, rows } => self.fetch(session, statement_id, rows),
            Command::Unknown(code) => {
                tracing::debug!(code, "unknown command");
                put_err(
                    &mut self.writer.frames,
                    &ErrorInfo::new(ER_UNKNOWN_COM_ERROR, "Unknown command"),
                );
            }
        }
        Next::Continue
    }

    fn close_all_statements(&mut self, session: &mut H::Session) {
        for (statement_id, _) in self.statements.drain() {
            session.close_prepared_statement(statement_id);
        }
    }

    fn prepare(&mut self, session: &mut H::Session, sql: &str) {
        let prepared = match session.prepare(sql) {
            Ok(prepared) => prepared,
            Err(err) => {
                put_err(&mut self.writer.frames, &err);
                return;
            }
        };
        let frames = &mut self.writer.frames;
        let start = frames.start_packet();
        let out = frames.payload();
        out.push(0x00);
        out.extend_from_slice(&prepared.statement_id.to_le_bytes());
        out.extend_from_slice(&(prepared.columns.len() as u16).to_le_bytes());
        out.extend_from_slice(&prepared.param_count.to_le_bytes());
        out.push(0);
        out.extend_from_slice(&0u16.to_le_bytes());
        frames.finish_packet(start);
        let deprecate_eof = self.capabilities & CLIENT_DEPRECATE_EOF != 0;
        let status = session.status_flags();
        if prepared.param_count > 0 {
            let param = ColumnDef {
                schema: "",
                table: "",
                org_table: "",
                name: "?",
                org_name: "",
                charset: 63,
                length: 0,
                column_type: column_type::VAR_STRING,
                flags: 128,
                decimals: 0,
            };
            for _ in 0..prepared.param_count {
                put_column(frames, &param, false);
            }
            if !deprecate_eof {
                put_eof(frames, 0, status);
            }
        }
        if !prepared.columns.is_empty() {
            for column in &prepared.columns {
                put_column(frames, &column.as_def(), false);
            }
            if !deprecate_eof {
                put_eof(frames, 0, status);
            }
        }
        let param_count = prepared.param_count as usize;
        let replaced = self.statements.insert(
            prepared.statement_id,
            StatementState {
                param_count: prepared.param_count,
                param_types: None,
                long_data: vec![None; param_count],
                long_data_too_large: false,
                cursor: None,
            },
        );
        if replaced.is_some() {
            tracing::warn!(
                statement_id = prepared.statement_id,
                "statement id reused by the session"
            );
        }
    }

    /// COM_STMT_EXECUTE. Err only for a payload that does not decode (which closes the
    /// connection); statement-level problems are ERR packets. Ok(Lost) when a write to the
    /// client failed while the result streamed (the connection ends), Ok(Paused) when its
    /// statement paused for the client.
    fn execute(
        &mut self,
        session: &mut H::Session,
        statement_id: u32,
        flags: u8,
        params: &[u8],
    ) -> Result<Next, DecodeError> {
        let Some(statement) = self.statements.get_mut(&statement_id) else {
            put_err(
                &mut self.writer.frames,
                &unknown_statement(statement_id, "mysqld_stmt_execute"),
            );
            return Ok(Next::Continue);
        };
        statement.cursor = None;
        let count = statement.param_count as usize;
        let mut values = Vec::with_capacity(count);
        if count > 0 {
            let mut r = Reader::new(params);
            let null_bitmap = r.take(count.div_ceil(8), "execute: null bitmap")?;
            let new_params_bound = r.u8("execute: new params bound flag")?;
            if new_params_bound == 1 {
                let mut types = Vec::with_capacity(count);
                for _ in 0..count {
                    let code = r.u8("execute: parameter type")?;
                    let type_flags = r.u8("execute: parameter flags")?;
                    types.push(ParamType {
                        code,
                        unsigned: type_flags & 0x80 != 0,
                    });
                }
                statement.param_types = Some(types);
            }
            let Some(types) = statement.param_types.as_ref() else {
                let err = ErrorInfo::new(
                    ER_WRONG_ARGUMENTS,
                    "Incorrect arguments to mysqld_stmt_execute",
                );
                put_err(&mut self.writer.frames, &err);
                return Ok(Next::Continue);
            };
            if statement.long_data_too_large {
                statement.long_data_too_large = false;
                statement.long_data.iter_mut().for_each(|slot| *slot = None);
                let err = ErrorInfo::new(
                    ER_NET_PACKET_TOO_LARGE,
                    "Parameter data sent with COM_STMT_SEND_LONG_DATA exceeds max_allowed_packet",
                );
                put_err(&mut self.writer.frames, &err);
                return Ok(Next::Continue);
            }
            for (index, param_type) in types.iter().enumerate() {
                let is_null = null_bitmap[index / 8] & (1 << (index % 8)) != 0;
                if let Some(data) = statement.long_data.get_mut(index).and_then(Option::take) {
                    values.push(Value::Bytes(data));
                } else if is_null {
                    values.push(Value::Null);
                } else {
                    values.push(read_binary_param(&mut r, *param_type)?);
                }
            }
        }
        // Long data belongs to one execution.
        statement.long_data.iter_mut().for_each(|slot| *slot = None);
        let wants_cursor = flags & 0x07 != 0;
        let status = session.status_flags();
        let (frames, mut drain) = self.writer.split_drain(self.options.write_timeout);
        let mut sink = ResultSink::new(frames, self.capabilities, RowFormat::Binary, status)
            .with_drain(&mut drain);
        if wants_cursor {
            sink = sink.with_cursor();
        }
        session.execute(statement_id, values, &mut sink);
        if session.paused() && !sink.client_lost() {
            return Ok(Next::Paused(sink.take_columns(), RowFormat::Binary));
        }
        finish_sink(&mut sink);
        let cursor = sink.take_cursor();
        let lost = sink.client_lost();
        if let Some(statement) = self.statements.get_mut(&statement_id) {
            statement.cursor = cursor;
        }
        Ok(if lost { Next::Lost } else { Next::Continue })
    }

    fn fetch(&mut self, session: &mut H::Session, statement_id: u32, rows: u32) {
        let status = session.status_flags();
        let Some(statement) = self.statements.get_mut(&statement_id) else {
            put_err(
                &mut self.writer.frames,
                &unknown_statement(statement_id, "mysqld_stmt_fetch"),
            );
            return;
        };
        let Some(cursor) = statement.cursor.as_mut() else {
            let err = ErrorInfo::new(
                ER_STMT_HAS_NO_OPEN_CURSOR,
                "The statement (N) has no open cursor.".replace('N', &statement_id.to_string()),
            );
            put_err(&mut self.writer.frames, &err);
            return;
        };
        for _ in 0..rows.max(1) {
            match cursor.rows.pop_front() {
                Some(row) => self.writer.frames.packet(&row),
                None => break,
            }
        }
        let mut flags = status | SERVER_STATUS_CURSOR_EXISTS;
        let warnings = cursor.warnings;
        if cursor.rows.is_empty() {
            flags |= SERVER_STATUS_LAST_ROW_SENT;
            statement.cursor = None;
        }
        put_end_of_rows(&mut self.writer.frames, self.capabilities, warnings, flags);
    }

    async fn change_user(
        &mut self,
        session: &mut H::Session,
        user: String,
        auth_response: Vec<u8>,
        database: Option<String>,
        plugin: Option<String>,
    ) -> Option<ConnectionEnd> {
        // Flush nothing yet: a switch request continues this command's sequence.
        let (auth_response, authenticated) =
            match self.check_password(&user, plugin, auth_response).await {
                Ok(checked) => checked,
                Err(end) => return Some(end),
            };
        let host = self.options.host.clone();
        if !authenticated {
            // MySQL closes the connection after a failed COM_CHANGE_USER.
            put_err(
                &mut self.writer.frames,
                &access_denied(&user, &host, !auth_response.is_empty()),
            );
            return Some(ConnectionEnd::HandshakeFailed(format!(
                "change user to '{user}' denied"
            )));
        }
        self.close_all_statements(session);
        match session.change_user(&user, &host, database.as_deref()) {
            Ok(()) => self.ok(session),
            Err(err) => put_err(&mut self.writer.frames, &err),
        }
        None
    }
}

/// Calls [`ServerHandler::command_finished`] when dropped.
struct RunningCommand<H: ServerHandler>(Arc<H>);

impl<H: ServerHandler> Drop for RunningCommand<H> {
    fn drop(&mut self) {
        self.0.command_finished();
    }
}

fn unknown_statement(statement_id: u32, command: &str) -> ErrorInfo {
    ErrorInfo::new(
        ER_UNKNOWN_STMT_HANDLER,
        format!("Unknown prepared statement handler ({statement_id}) given to {command}"),
    )
}

/// Make sure a command produced a complete answer even if the handler wrote nothing or
/// left a result set open: a client waiting for bytes that never come would hang.
fn finish_sink(sink: &mut ResultSink<'_>) {
    if !sink.is_finished() {
        let status = sink.initial_status();
        sink.end_rows(0, status, false);
    }
    if sink.results_written() == 0 {
        sink.error(&ErrorInfo::new(
            ER_UNKNOWN_ERROR,
            "The statement produced no result",
        ));
    }
}

/// Resolves when the connection's idle timer fires; never without one.
async fn idle_expired(idle: &mut Option<(Duration, std::pin::Pin<Box<tokio::time::Sleep>>)>) {
    match idle {
        Some((_, timer)) => timer.as_mut().await,
        None => std::future::pending().await,
    }
}
