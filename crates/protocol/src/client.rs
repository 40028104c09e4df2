//! A small client for tests: enough of the client side to connect with
//! mysql_native_password, send any bytes, and read text results. Real clients (mariadb,
//! sysbench, PyMySQL, mysql_async) are what the end-to-end tests use; this one exists to
//! send what they never would (malformed, truncated, oversized packets, unknown commands,
//! cursors) and to check the exact bytes that come back.

use crate::auth::native_password_token;
use crate::buf::Reader;
use crate::constants::capabilities::*;
use crate::packet::{PacketError, PacketReader, PacketWriter};
use crate::results::ErrorInfo;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

/// What went wrong on the client side.
#[derive(Debug)]
pub enum ClientError {
    Packet(PacketError),
    Io(std::io::Error),
    /// The server answered with an ERR packet.
    Server(ErrorInfo),
    /// The server's bytes made no sense to this client.
    Unexpected(String),
}

impl From<PacketError> for ClientError {
    fn from(e: PacketError) -> Self {
        ClientError::Packet(e)
    }
}

impl From<std::io::Error> for ClientError {
    fn from(e: std::io::Error) -> Self {
        ClientError::Io(e)
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for ClientError {}

/// One text-protocol result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextResult {
    Ok {
        affected_rows: u64,
        status: u16,
    },
    Rows {
        columns: Vec<String>,
        rows: Vec<Vec<Option<Vec<u8>>>>,
    },
}

/// Decode an ERR packet payload.
pub fn parse_err(payload: &[u8]) -> Option<ErrorInfo> {
    let mut r = Reader::new(payload);
    if r.u8("header").ok()? != 0xFF {
        return None;
    }
    let code = r.u16("code").ok()?;
    let mut sqlstate = *b"HY000";
    if r.remaining() >= 6 && payload[3] == b'#' {
        r.take(1, "#").ok()?;
        sqlstate.copy_from_slice(r.take(5, "state").ok()?);
    }
    Some(ErrorInfo {
        code,
        sqlstate,
        message: String::from_utf8_lossy(r.rest()).into_owned(),
    })
}

/// The bytes as a quoted literal the way the C API's mysql_real_escape_string writes them
/// (and PyMySQL's escaping): raw bytes between quotes, with only NUL, newline, return, ^Z,
/// quotes and backslash escaped.
pub fn escaped_literal(bytes: &[u8]) -> Vec<u8> {
    let mut out = b"'".to_vec();
    for &b in bytes {
        match b {
            0 => out.extend_from_slice(b"\\0"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x1A => out.extend_from_slice(b"\\Z"),
            b'\'' | b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            _ => out.push(b),
        }
    }
    out.push(b'\'');
    out
}

impl std::fmt::Debug for RawClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawClient(connection {})", self.connection_id)
    }
}

pub struct RawClient {
    reader: PacketReader<OwnedReadHalf>,
    writer: PacketWriter<OwnedWriteHalf>,
    pub capabilities: u32,
    pub connection_id: u32,
    pub server_version: String,
}

/// The capabilities this client asks for by default: all the server honours but the
/// database in the handshake (added when one is given), the interactive timeout, connection
/// attributes and length-encoded auth data.
pub const CLIENT_DEFAULT_CAPABILITIES: u32 = SERVER_CAPABILITIES
    & !(CLIENT_CONNECT_WITH_DB
        | CLIENT_INTERACTIVE
        | CLIENT_CONNECT_ATTRS
        | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA);

impl RawClient {
    /// Connect without authenticating: the greeting is read, nothing is sent.
    pub async fn open(addr: &str) -> Result<(RawClient, Vec<u8>), ClientError> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (read_half, write_half) = stream.into_split();
        let mut client = RawClient {
            reader: PacketReader::new(read_half, 1 << 30),
            writer: PacketWriter::new(write_half),
            capabilities: 0,
            connection_id: 0,
            server_version: String::new(),
        };
        let mut greeting = Vec::new();
        client.reader.read_payload(&mut greeting).await?;
        if let Some(err) = parse_err(&greeting) {
            return Err(ClientError::Server(err));
        }
        Ok((client, greeting))
    }

    /// Connect and authenticate with mysql_native_password.
    pub async fn connect(
        addr: &str,
        user: &str,
        password: &str,
        database: Option<&str>,
        capabilities: u32,
    ) -> Result<RawClient, ClientError> {
        let (mut client, greeting) = RawClient::open(addr).await?;
        let bad = |what: &str| ClientError::Unexpected(format!("greeting: {what}"));
        let mut r = Reader::new(&greeting);
        if r.u8("protocol").map_err(|_| bad("empty"))? != 10 {
            return Err(bad("protocol version"));
        }
        client.server_version =
            String::from_utf8_lossy(r.nul_bytes("version").map_err(|_| bad("version"))?).into();
        client.connection_id = r.u32("id").map_err(|_| bad("id"))?;
        let mut scramble = r.take(8, "scramble").map_err(|_| bad("scramble"))?.to_vec();
        r.take(1, "filler").map_err(|_| bad("filler"))?;
        let low = r.u16("caps").map_err(|_| bad("caps"))?;
        r.take(3, "collation, status").map_err(|_| bad("status"))?;
        let high = r.u16("caps").map_err(|_| bad("caps"))?;
        let server_caps = u32::from(low) | (u32::from(high) << 16);
        r.take(11, "reserved").map_err(|_| bad("reserved"))?;
        scramble.extend_from_slice(r.take(12, "scramble 2").map_err(|_| bad("scramble"))?);

        let mut caps = capabilities & server_caps;
        if database.is_some() {
            caps |= CLIENT_CONNECT_WITH_DB & server_caps;
        }
        client.capabilities = caps;
        let token = native_password_token(password.as_bytes(), &scramble);
        let mut response = Vec::new();
        response.extend_from_slice(&caps.to_le_bytes());
        response.extend_from_slice(&(1u32 << 24).to_le_bytes());
        response.push(45);
        response.extend_from_slice(&[0; 23]);
        response.extend_from_slice(user.as_bytes());
        response.push(0);
        response.push(token.len() as u8);
        response.extend_from_slice(&token);
        if let Some(db) = database {
            response.extend_from_slice(db.as_bytes());
            response.push(0);
        }
        if caps & CLIENT_PLUGIN_AUTH != 0 {
            response.extend_from_slice(b"mysql_native_password\0");
        }
        client.writer.frames.set_sequence(1);
        client.writer.frames.packet(&response);
        client.writer.flush().await?;
        client.reader.next_sequence = 2;
        let mut reply = Vec::new();
        client.reader.read_payload(&mut reply).await?;
        match reply.first() {
            Some(0x00) => Ok(client),
            Some(0xFF) => Err(ClientError::Server(parse_err(&reply).unwrap_or_else(
                || ErrorInfo {
                    code: 0,
                    sqlstate: *b"HY000",
                    message: "?".into(),
                },
            ))),
            _ => Err(ClientError::Unexpected(format!("auth reply {reply:?}"))),
        }
    }

    /// Send one command packet (sequence id 0).
    pub async fn send_command(&mut self, payload: &[u8]) -> Result<(), ClientError> {
        self.writer.frames.set_sequence(0);
        self.writer.frames.packet(payload);
        self.writer.flush().await?;
        self.reader.next_sequence = self.writer.frames.sequence();
        Ok(())
    }

    /// Write bytes as they are, framing included (or not).
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        let stream: &mut OwnedWriteHalf = self.writer_stream();
        stream.write_all(bytes).await?;
        Ok(())
    }

    fn writer_stream(&mut self) -> &mut OwnedWriteHalf {
        self.writer.stream_mut()
    }

    /// Read one payload of the current response.
    pub async fn read_packet(&mut self) -> Result<Vec<u8>, ClientError> {
        let mut payload = Vec::new();
        self.reader.read_payload(&mut payload).await?;
        Ok(payload)
    }

    /// Accept any sequence id on the next read (after raw sends).
    pub fn expect_sequence(&mut self, next: u8) {
        self.reader.next_sequence = next;
    }

    /// COM_QUERY, reading every result of a multi-statement text.
    pub async fn query(&mut self, sql: &str) -> Result<Vec<TextResult>, ClientError> {
        let mut payload = vec![crate::constants::command::COM_QUERY];
        payload.extend_from_slice(sql.as_bytes());
        self.send_command(&payload).await?;
        let mut results = Vec::new();
        loop {
            let (result, status) = self.read_text_result().await?;
            results.push(result);
            if status & crate::constants::status::SERVER_MORE_RESULTS_EXISTS == 0 {
                return Ok(results);
            }
        }
    }

    /// Read one result (OK or rows) and its status flags.
    pub async fn read_text_result(&mut self) -> Result<(TextResult, u16), ClientError> {
        let first = self.read_packet().await?;
        let unexpected = |what: &str| ClientError::Unexpected(what.to_string());
        match first.first() {
            Some(0xFF) => {
                return Err(ClientError::Server(
                    parse_err(&first).ok_or_else(|| unexpected("err"))?,
                ))
            }
            Some(0x00) => {
                let mut r = Reader::new(&first[1..]);
                let affected_rows = r.lenenc_int("affected").map_err(|_| unexpected("ok"))?;
                let _ = r.lenenc_int("insert id").map_err(|_| unexpected("ok"))?;
                let status = r.u16("status").map_err(|_| unexpected("ok"))?;
                return Ok((
                    TextResult::Ok {
                        affected_rows,
                        status,
                    },
                    status,
                ));
            }
            _ => {}
        }
        let count = Reader::new(&first)
            .lenenc_int("column count")
            .map_err(|_| unexpected("column count"))?;
        let mut columns = Vec::new();
        for _ in 0..count {
            let def = self.read_packet().await?;
            let mut r = Reader::new(&def);
            for _ in 0..4 {
                r.lenenc_bytes("def").map_err(|_| unexpected("column"))?;
            }
            columns.push(
                String::from_utf8_lossy(r.lenenc_bytes("name").map_err(|_| unexpected("column"))?)
                    .into(),
            );
        }
        if self.capabilities & CLIENT_DEPRECATE_EOF == 0 {
            self.read_packet().await?;
        }
        let mut rows = Vec::new();
        loop {
            let packet = self.read_packet().await?;
            match packet.first() {
                Some(0xFE) if packet.len() < 0xFF_FFFF => {
                    let status = if self.capabilities & CLIENT_DEPRECATE_EOF != 0 {
                        let mut r = Reader::new(&packet[1..]);
                        r.lenenc_int("a")
                            .and_then(|_| r.lenenc_int("b"))
                            .and_then(|_| r.u16("s"))
                    } else {
                        Reader::new(&packet[3..]).u16("status")
                    }
                    .map_err(|_| unexpected("end of rows"))?;
                    return Ok((TextResult::Rows { columns, rows }, status));
                }
                Some(0xFF) => {
                    return Err(ClientError::Server(
                        parse_err(&packet).ok_or_else(|| unexpected("err"))?,
                    ))
                }
                _ => {
                    let mut r = Reader::new(&packet);
                    let mut row = Vec::new();
                    for _ in 0..count {
                        if r.remaining() > 0 && packet[packet.len() - r.remaining()] == 0xFB {
                            r.u8("null").map_err(|_| unexpected("row"))?;
                            row.push(None);
                        } else {
                            row.push(Some(
                                r.lenenc_bytes("value")
                                    .map_err(|_| unexpected("row"))?
                                    .to_vec(),
                            ));
                        }
                    }
                    rows.push(row);
                }
            }
        }
    }

    /// COM_PING.
    pub async fn ping(&mut self) -> Result<(), ClientError> {
        self.send_command(&[crate::constants::command::COM_PING])
            .await?;
        let reply = self.read_packet().await?;
        match reply.first() {
            Some(0x00) => Ok(()),
            _ => Err(ClientError::Unexpected(format!("ping reply {reply:?}"))),
        }
    }
}
