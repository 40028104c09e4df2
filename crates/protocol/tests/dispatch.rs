//! The protocol against a scripted in-process handler: handshake, authentication (with
//! auth switch), every command, prepared statements re-executed with remembered
//! parameter types, cursors, packets over 16 MiB, and a property test that throws random,
//! truncated and oversized packets at the dispatcher while another connection keeps
//! working and no connection task panics.

use myriad_protocol::auth::{native_password_hash, native_password_token};
use myriad_protocol::buf::Reader;
use myriad_protocol::client::{
    parse_err, ClientError, RawClient, TextResult, CLIENT_DEFAULT_CAPABILITIES,
};
use myriad_protocol::constants::capabilities::*;
use myriad_protocol::constants::{column_type, command::*, status::*};
use myriad_protocol::*;
use myriad_types::errors::{ER_BAD_DB_ERROR, ER_PARSE_ERROR};
use proptest::prelude::*;
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

const MAX_ALLOWED_PACKET: usize = 40 * 1024 * 1024;

/// A client's capabilities with and without CLIENT_DEPRECATE_EOF: the two ways result sets
/// end.
const EOF_AND_NO_EOF: [u32; 2] = [
    CLIENT_DEFAULT_CAPABILITIES,
    CLIENT_DEFAULT_CAPABILITIES & !CLIENT_DEPRECATE_EOF,
];

/// Commands started and finished, across all connections.
static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static FINISHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

struct Mock;

struct MockSession {
    database: Option<String>,
    next_statement: u32,
    statements: std::collections::HashMap<u32, u16>,
}

fn text_column(name: &str) -> ColumnDefinition {
    ColumnDefinition {
        schema: String::new(),
        table: String::new(),
        org_table: String::new(),
        name: name.to_string(),
        org_name: String::new(),
        charset: 45,
        length: 1024,
        column_type: column_type::VAR_STRING,
        flags: 0,
        decimals: 0,
    }
}

impl ServerHandler for Mock {
    type Session = MockSession;
    fn server_version(&self) -> String {
        String::from("8.0.36-mock")
    }
    fn command_started(&self) {
        STARTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    fn command_finished(&self) {
        FINISHED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    fn account(
        &self,
        user: &str,
        _host: &str,
        _tls: Option<&myriad_protocol::TlsInfo>,
    ) -> Option<myriad_protocol::auth::Credential> {
        use myriad_protocol::auth::Credential;
        match user {
            "root" => Some(Credential::NativePassword(None)),
            "alice" => Some(Credential::NativePassword(Some(native_password_hash(
                b"pw",
            )))),
            _ => None,
        }
    }
    fn open_session(&self, request: &SessionRequest<'_>) -> Result<MockSession, ErrorInfo> {
        if request.database == Some("nodb") {
            return Err(ErrorInfo::new(ER_BAD_DB_ERROR, "Unknown database 'nodb'"));
        }
        Ok(MockSession {
            database: request.database.map(str::to_string),
            next_statement: 1,
            statements: Default::default(),
        })
    }
}

impl SessionHandler for MockSession {
    fn status_flags(&self) -> u16 {
        SERVER_STATUS_AUTOCOMMIT
    }
    fn query(&mut self, sql: &str, multi_statements: bool, out: &mut ResultSink<'_>) {
        let statements: Vec<&str> = if multi_statements {
            sql.split(';').collect()
        } else {
            vec![sql]
        };
        for (index, statement) in statements.iter().enumerate() {
            let more = index + 1 < statements.len();
            if statement.trim() == "ERR" {
                out.error(&ErrorInfo::new(ER_PARSE_ERROR, "You have an error"));
                return;
            }
            if let Some(n) = statement.strip_prefix("BIG ") {
                let n: usize = n.trim().parse().unwrap_or(0);
                let column = text_column("big");
                out.begin_rows(&[column.as_def()]);
                out.row(&[Value::Bytes(vec![b'x'; n])]);
                out.end_rows(0, SERVER_STATUS_AUTOCOMMIT, more);
                continue;
            }
            if statement.trim() == "DB" {
                let column = text_column("db");
                out.begin_rows(&[column.as_def()]);
                match &self.database {
                    Some(db) => out.row(&[Value::Bytes(db.as_bytes().to_vec())]),
                    None => out.row(&[Value::Null]),
                }
                out.end_rows(0, SERVER_STATUS_AUTOCOMMIT, more);
                continue;
            }
            if statement.trim() == "PANIC" {
                panic!("a handler bug, on purpose");
            }
            if statement.trim() == "NOTHING" {
                return;
            }
            let column = text_column("len");
            out.begin_rows(&[column.as_def()]);
            out.row(&[Value::UInt(statement.len() as u64)]);
            out.end_rows(0, SERVER_STATUS_AUTOCOMMIT, more);
        }
    }
    fn init_db(&mut self, database: &str) -> Result<(), ErrorInfo> {
        self.database = Some(database.to_string());
        Ok(())
    }
    fn field_list(
        &mut self,
        table: &str,
        _wildcard: &str,
    ) -> Result<Vec<ColumnDefinition>, ErrorInfo> {
        Ok(vec![
            text_column(&format!("{table}_a")),
            text_column(&format!("{table}_b")),
        ])
    }
    fn statistics(&mut self) -> String {
        String::from("Uptime: 1  Threads: 1")
    }
    fn prepare(&mut self, sql: &str) -> Result<Prepared, ErrorInfo> {
        let param_count = sql.matches('?').count() as u16;
        let statement_id = self.next_statement;
        self.next_statement += 1;
        self.statements.insert(statement_id, param_count);
        Ok(Prepared {
            statement_id,
            param_count,
            columns: (0..param_count).map(|_| text_column("p")).collect(),
        })
    }
    /// Echo the parameters: integers as LONGLONG columns, everything else as strings.
    fn execute(&mut self, _statement_id: u32, params: Vec<Value>, out: &mut ResultSink<'_>) {
        let mut columns = Vec::new();
        for param in &params {
            let mut column = text_column("p");
            if matches!(param, Value::Int(_) | Value::UInt(_)) {
                column.column_type = column_type::LONGLONG;
            }
            columns.push(column);
        }
        let defs: Vec<ColumnDef<'_>> = columns.iter().map(ColumnDefinition::as_def).collect();
        out.begin_rows(&defs);
        let echoed: Vec<Value> = params
            .into_iter()
            .map(|p| match p {
                Value::Date(_) | Value::DateTime(_) | Value::Time(_) => {
                    Value::Bytes(b"temporal".to_vec())
                }
                other => other,
            })
            .collect();
        for _ in 0..3 {
            out.row(&echoed);
        }
        out.end_rows(0, SERVER_STATUS_AUTOCOMMIT, false);
    }
    fn close_prepared_statement(&mut self, statement_id: u32) {
        self.statements.remove(&statement_id);
    }
    fn reset_connection(&mut self) -> Result<(), ErrorInfo> {
        self.statements.clear();
        Ok(())
    }
    fn change_user(
        &mut self,
        _user: &str,
        _host: &str,
        database: Option<&str>,
    ) -> Result<(), ErrorInfo> {
        self.database = database.map(str::to_string);
        Ok(())
    }
}

struct TestServer {
    addr: String,
    tasks: Arc<Mutex<Vec<JoinHandle<ConnectionEnd>>>>,
    _shutdown: myriad_protocol::stop::StopSignal,
}

impl TestServer {
    async fn start() -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let tasks: Arc<Mutex<Vec<JoinHandle<ConnectionEnd>>>> = Arc::default();
        let shutdown = myriad_protocol::stop::StopSignal::new();
        let stop_on_drop = shutdown.clone();
        let handler = Arc::new(Mock);
        let registry = Arc::clone(&tasks);
        tokio::spawn(async move {
            let mut id = 1;
            while let Ok((stream, _)) = listener.accept().await {
                let options = ConnectionOptions {
                    connection_id: id,
                    max_allowed_packet: MAX_ALLOWED_PACKET,
                    connect_timeout: std::time::Duration::from_secs(2),
                    ..ConnectionOptions::default()
                };
                id += 1;
                let task = tokio::spawn(serve_connection(
                    stream,
                    Arc::clone(&handler),
                    options,
                    shutdown.subscribe(),
                ));
                registry.lock().unwrap().push(task);
            }
        });
        TestServer {
            addr,
            tasks,
            _shutdown: stop_on_drop,
        }
    }

    async fn root(&self) -> RawClient {
        RawClient::connect(&self.addr, "root", "", None, CLIENT_DEFAULT_CAPABILITIES)
            .await
            .unwrap()
    }

    /// Every finished connection task ended without panicking.
    async fn assert_no_panics(&self) {
        let finished: Vec<JoinHandle<ConnectionEnd>> = {
            let mut tasks = self.tasks.lock().unwrap();
            let (done, running): (Vec<_>, Vec<_>) = tasks.drain(..).partition(|t| t.is_finished());
            *tasks = running;
            done
        };
        for task in finished {
            if let Err(e) = task.await {
                panic!("a connection task panicked: {e}");
            }
        }
    }
}

fn rows(result: &TextResult) -> Vec<Vec<Option<String>>> {
    match result {
        TextResult::Rows { rows, .. } => rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|v| v.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()))
                    .collect()
            })
            .collect(),
        other => panic!("expected rows, got {other:?}"),
    }
}

fn server_error(result: Result<impl std::fmt::Debug, ClientError>) -> ErrorInfo {
    match result {
        Err(ClientError::Server(err)) => err,
        other => panic!("expected a server error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_commands_work_with_and_without_deprecate_eof() {
    let server = TestServer::start().await;
    for caps in EOF_AND_NO_EOF {
        let mut client = RawClient::connect(&server.addr, "root", "", Some("db1"), caps)
            .await
            .unwrap();
        assert_eq!(client.server_version, "8.0.36-mock");
        assert_eq!(
            rows(&client.query("DB").await.unwrap()[0]),
            vec![vec![Some("db1".to_string())]]
        );
        let results = client.query("abc;defgh;DB").await.unwrap();
        assert_eq!(results.len(), 3, "one result per statement");
        assert_eq!(rows(&results[1]), vec![vec![Some("5".to_string())]]);
        let err = server_error(client.query("x;ERR;y").await);
        assert_eq!(err.code, 1064);
        client.ping().await.unwrap();

        // COM_INIT_DB, then the session sees it.
        let mut init = vec![COM_INIT_DB];
        init.extend_from_slice(b"db2");
        client.send_command(&init).await.unwrap();
        assert_eq!(client.read_packet().await.unwrap()[0], 0x00);
        assert_eq!(
            rows(&client.query("DB").await.unwrap()[0]),
            vec![vec![Some("db2".to_string())]]
        );

        // An unknown command is an error, not a disconnect.
        client.send_command(&[0x42, 1, 2, 3]).await.unwrap();
        let err = parse_err(&client.read_packet().await.unwrap()).unwrap();
        assert_eq!(err.code, 1047);
        client.ping().await.unwrap();

        // COM_STATISTICS answers with a bare string.
        client.send_command(&[COM_STATISTICS]).await.unwrap();
        assert_eq!(
            client.read_packet().await.unwrap(),
            b"Uptime: 1  Threads: 1"
        );

        // COM_FIELD_LIST: column definitions then an end marker shorter than 8 bytes,
        // which is what libmariadb waits for.
        client.send_command(b"\x04t1\x00").await.unwrap();
        let first = client.read_packet().await.unwrap();
        assert!(first.windows(4).any(|w| w == b"t1_a"));
        client.read_packet().await.unwrap();
        let end = client.read_packet().await.unwrap();
        assert_eq!(end[0], 0xFE);
        assert!(end.len() < 8);

        // COM_SET_OPTION turns multi-statements off: the text is one statement.
        client.send_command(&[COM_SET_OPTION, 1, 0]).await.unwrap();
        let expected = if client.capabilities & CLIENT_DEPRECATE_EOF != 0 {
            0x00
        } else {
            0xFE
        };
        assert_eq!(client.read_packet().await.unwrap()[0], expected);
        assert_eq!(client.query("a;b").await.unwrap().len(), 1);

        // A handler that writes nothing still produces an answer.
        assert_eq!(server_error(client.query("NOTHING").await).code, 1105);

        client.send_command(&[COM_RESET_CONNECTION]).await.unwrap();
        assert_eq!(client.read_packet().await.unwrap()[0], 0x00);
        client.send_command(&[COM_QUIT]).await.unwrap();
    }
    server.assert_no_panics().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authentication_and_session_errors() {
    let server = TestServer::start().await;
    RawClient::connect(
        &server.addr,
        "alice",
        "pw",
        None,
        CLIENT_DEFAULT_CAPABILITIES,
    )
    .await
    .unwrap();
    let denied = RawClient::connect(
        &server.addr,
        "alice",
        "wrong",
        None,
        CLIENT_DEFAULT_CAPABILITIES,
    )
    .await;
    let err = server_error(denied);
    assert_eq!((err.code, &err.sqlstate), (1045, b"28000"));
    assert!(
        err.message.contains("using password: YES"),
        "{}",
        err.message
    );
    assert_eq!(
        server_error(
            RawClient::connect(
                &server.addr,
                "nobody",
                "",
                None,
                CLIENT_DEFAULT_CAPABILITIES
            )
            .await
        )
        .code,
        1045
    );
    assert_eq!(
        server_error(
            RawClient::connect(
                &server.addr,
                "root",
                "",
                Some("nodb"),
                CLIENT_DEFAULT_CAPABILITIES
            )
            .await
        )
        .code,
        1049
    );
    server.assert_no_panics().await;
}

/// A client that starts with caching_sha2_password is switched to mysql_native_password.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_switch_from_caching_sha2() {
    let server = TestServer::start().await;
    let (mut client, _greeting) = RawClient::open(&server.addr).await.unwrap();
    let caps = CLIENT_DEFAULT_CAPABILITIES | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
    let mut response = Vec::new();
    response.extend_from_slice(&caps.to_le_bytes());
    response.extend_from_slice(&(1u32 << 24).to_le_bytes());
    response.push(45);
    response.extend_from_slice(&[0; 23]);
    response.extend_from_slice(b"alice\0");
    response.push(32);
    response.extend_from_slice(&[7; 32]);
    response.extend_from_slice(b"caching_sha2_password\0");
    let mut framed = vec![response.len() as u8, 0, 0, 1];
    framed.extend_from_slice(&response);
    client.send_raw(&framed).await.unwrap();
    client.expect_sequence(2);
    let switch = client.read_packet().await.unwrap();
    assert_eq!(switch[0], 0xFE);
    assert!(switch.starts_with(b"\xFEmysql_native_password\0"));
    let scramble = &switch[b"\xFEmysql_native_password\0".len()..][..20];
    let token = native_password_token(b"pw", scramble);
    let mut framed = vec![token.len() as u8, 0, 0, 3];
    framed.extend_from_slice(&token);
    client.send_raw(&framed).await.unwrap();
    client.expect_sequence(4);
    assert_eq!(
        client.read_packet().await.unwrap()[0],
        0x00,
        "authenticated after the switch"
    );
    client.ping().await.unwrap();
    server.assert_no_panics().await;
}

fn execute_packet(
    statement_id: u32,
    flags: u8,
    params: &[(u8, Option<Vec<u8>>)],
    send_types: bool,
) -> Vec<u8> {
    let mut p = vec![COM_STMT_EXECUTE];
    p.extend_from_slice(&statement_id.to_le_bytes());
    p.push(flags);
    p.extend_from_slice(&1u32.to_le_bytes());
    if !params.is_empty() {
        let mut bitmap = vec![0u8; params.len().div_ceil(8)];
        for (i, (_, value)) in params.iter().enumerate() {
            if value.is_none() {
                bitmap[i / 8] |= 1 << (i % 8);
            }
        }
        p.extend_from_slice(&bitmap);
        p.push(u8::from(send_types));
        if send_types {
            for (code, _) in params {
                p.extend_from_slice(&[*code, 0]);
            }
        }
        for value in params.iter().filter_map(|(_, v)| v.as_ref()) {
            p.extend_from_slice(value);
        }
    }
    p
}

/// Read a binary result set: column types, then rows decoded for LONGLONG and strings.
async fn read_binary_rows(client: &mut RawClient, cursor: bool) -> (Vec<Vec<Option<String>>>, u16) {
    let first = client.read_packet().await.unwrap();
    assert_ne!(first[0], 0xFF, "error: {:?}", parse_err(&first));
    let count = first[0] as usize;
    let mut types = Vec::new();
    for _ in 0..count {
        let def = client.read_packet().await.unwrap();
        types.push(def[def.len() - 6]);
    }
    if cursor || client.capabilities & CLIENT_DEPRECATE_EOF == 0 {
        let eof = client.read_packet().await.unwrap();
        assert_eq!(eof[0], 0xFE);
        if cursor {
            let status = u16::from_le_bytes([eof[3], eof[4]]);
            assert!(status & SERVER_STATUS_CURSOR_EXISTS != 0);
            return (Vec::new(), status);
        }
    }
    read_binary_row_packets(client, &types).await
}

async fn read_binary_row_packets(
    client: &mut RawClient,
    types: &[u8],
) -> (Vec<Vec<Option<String>>>, u16) {
    let mut rows = Vec::new();
    loop {
        let packet = client.read_packet().await.unwrap();
        if packet[0] == 0xFE && packet.len() < 12 {
            // EOF: 0xFE, warnings, status. OK: 0xFE, two one-byte zero lengths, status.
            let status = u16::from_le_bytes([packet[3], packet[4]]);
            return (rows, status);
        }
        assert_eq!(packet[0], 0x00, "binary row header");
        let bitmap_len = (types.len() + 9) / 8;
        let bitmap = &packet[1..1 + bitmap_len];
        let mut r = Reader::new(&packet[1 + bitmap_len..]);
        let mut row = Vec::new();
        for (i, &code) in types.iter().enumerate() {
            let bit = i + 2;
            if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
                row.push(None);
            } else if code == column_type::LONGLONG {
                row.push(Some((r.u64("v").unwrap() as i64).to_string()));
            } else {
                row.push(Some(
                    String::from_utf8_lossy(r.lenenc_bytes("v").unwrap()).into_owned(),
                ));
            }
        }
        rows.push(row);
    }
}

/// Send `command` and read its answer, which must be an error packet: the error's code.
async fn command_error(client: &mut RawClient, command: &[u8]) -> u16 {
    client.send_command(command).await.unwrap();
    parse_err(&client.read_packet().await.unwrap())
        .unwrap()
        .code
}

async fn prepare(client: &mut RawClient, sql: &str) -> (u32, u16) {
    let mut p = vec![COM_STMT_PREPARE];
    p.extend_from_slice(sql.as_bytes());
    client.send_command(&p).await.unwrap();
    let ok = client.read_packet().await.unwrap();
    assert_eq!(ok[0], 0x00);
    let id = u32::from_le_bytes([ok[1], ok[2], ok[3], ok[4]]);
    let columns = u16::from_le_bytes([ok[5], ok[6]]);
    let params = u16::from_le_bytes([ok[7], ok[8]]);
    let eof = u16::from(client.capabilities & CLIENT_DEPRECATE_EOF == 0);
    let packets =
        params + columns + if params > 0 { eof } else { 0 } + if columns > 0 { eof } else { 0 };
    for _ in 0..packets {
        client.read_packet().await.unwrap();
    }
    (id, params)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_statements_remember_parameter_types() {
    let server = TestServer::start().await;
    for caps in EOF_AND_NO_EOF {
        let mut client = RawClient::connect(&server.addr, "root", "", None, caps)
            .await
            .unwrap();
        let (id, params) = prepare(&mut client, "SELECT ?, ?, ?").await;
        assert_eq!(params, 3);
        let int = |v: i64| Some(v.to_le_bytes().to_vec());
        let s = |t: &str| {
            let mut b = vec![t.len() as u8];
            b.extend_from_slice(t.as_bytes());
            Some(b)
        };
        let first = [
            (column_type::LONGLONG, int(7)),
            (column_type::VAR_STRING, s("abc")),
            (column_type::LONGLONG, None),
        ];
        client
            .send_command(&execute_packet(id, 0, &first, true))
            .await
            .unwrap();
        let (rows, _) = read_binary_rows(&mut client, false).await;
        assert_eq!(rows[0], vec![Some("7".into()), Some("abc".into()), None]);
        // Re-execute with new values and new_params_bound_flag = 0, as libmariadb does:
        // the types of the first execution apply.
        let second = [
            (column_type::LONGLONG, int(-9)),
            (column_type::VAR_STRING, s("xyz!")),
            (column_type::LONGLONG, int(5)),
        ];
        client
            .send_command(&execute_packet(id, 0, &second, false))
            .await
            .unwrap();
        let (rows, _) = read_binary_rows(&mut client, false).await;
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows[2],
            vec![Some("-9".into()), Some("xyz!".into()), Some("5".into())]
        );

        // Long data replaces the second parameter's value for one execution.
        let mut long = vec![COM_STMT_SEND_LONG_DATA];
        long.extend_from_slice(&id.to_le_bytes());
        long.extend_from_slice(&1u16.to_le_bytes());
        long.extend_from_slice(b"long-");
        client.send_command(&long).await.unwrap();
        let mut more = long.clone();
        more.truncate(7);
        more.extend_from_slice(b"data");
        client.send_command(&more).await.unwrap();
        let without_second = [
            (column_type::LONGLONG, int(1)),
            (column_type::LONGLONG, int(2)),
        ];
        let mut packet = execute_packet(id, 0, &[(0, int(0)), (0, int(0)), (0, int(0))], false);
        packet.truncate(packet.len() - 24);
        for (_, v) in &without_second {
            packet.extend_from_slice(v.as_ref().unwrap());
        }
        client.send_command(&packet).await.unwrap();
        let (rows, _) = read_binary_rows(&mut client, false).await;
        assert_eq!(
            rows[0],
            vec![Some("1".into()), Some("long-data".into()), Some("2".into())]
        );

        // A cursor: rows come with COM_STMT_FETCH, two at a time.
        client
            .send_command(&execute_packet(id, 1, &second, false))
            .await
            .unwrap();
        let (_, status) = read_binary_rows(&mut client, true).await;
        assert!(status & SERVER_STATUS_CURSOR_EXISTS != 0);
        let types = [
            column_type::LONGLONG,
            column_type::VAR_STRING,
            column_type::LONGLONG,
        ];
        let mut fetched = 0;
        loop {
            let mut fetch = vec![COM_STMT_FETCH];
            fetch.extend_from_slice(&id.to_le_bytes());
            fetch.extend_from_slice(&2u32.to_le_bytes());
            client.send_command(&fetch).await.unwrap();
            let (rows, status) = read_binary_row_packets(&mut client, &types).await;
            fetched += rows.len();
            if status & SERVER_STATUS_LAST_ROW_SENT != 0 {
                break;
            }
            assert!(fetched < 10, "the cursor never ends");
        }
        assert_eq!(fetched, 3);

        // Unknown statements are errors, not disconnects; close needs no answer.
        assert_eq!(
            command_error(&mut client, &execute_packet(999, 0, &[], false)).await,
            1243
        );
        let mut close = vec![COM_STMT_CLOSE];
        close.extend_from_slice(&id.to_le_bytes());
        client.send_command(&close).await.unwrap();
        assert_eq!(
            command_error(&mut client, &execute_packet(id, 0, &second, false)).await,
            1243
        );
        client.ping().await.unwrap();

        // Re-prepared without types ever sent: an error, the connection survives.
        let (id, _) = prepare(&mut client, "SELECT ?").await;
        assert_eq!(
            command_error(
                &mut client,
                &execute_packet(id, 0, &[(column_type::LONGLONG, int(1))], false)
            )
            .await,
            1210
        );
        client.ping().await.unwrap();
    }
    server.assert_no_panics().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn packets_over_16_mib_are_split_and_joined() {
    let server = TestServer::start().await;
    let mut client = server.root().await;
    let big = 17 * 1024 * 1024 + 3;
    let query = format!("BIG {big}");
    let results = client.query(&query).await.unwrap();
    assert_eq!(rows(&results[0])[0][0].as_ref().map(String::len), Some(big));
    // A 0xFFFFFF-byte query: the client must send an empty final packet, the server joins.
    let exact = "y".repeat(0xFF_FFFF - 1);
    let results = client.query(&exact).await.unwrap();
    assert_eq!(
        rows(&results[0]),
        vec![vec![Some((0xFF_FFFF - 1).to_string())]],
        "payload minus command byte"
    );
    // Over max_allowed_packet: ERR 1153 and the connection closes.
    // Two full pieces (32 MiB) then the header of a third: the server refuses at that
    // header, before reading what would exceed the limit.
    send_oversized(&mut client).await;
    let err = parse_err(&client.read_packet().await.unwrap()).unwrap();
    assert_eq!(err.code, 1153);
    assert!(client.ping().await.is_err(), "the connection is closed");
    server.root().await.ping().await.unwrap();
    server.assert_no_panics().await;
}

/// One generated abuse of the protocol.
#[derive(Debug, Clone)]
enum Abuse {
    /// Random bytes instead of a handshake response.
    PreAuthGarbage(Vec<u8>),
    /// A well-framed command packet with a random payload after authentication.
    Command(Vec<u8>),
    /// A header that promises more than is sent, then the connection closes.
    Truncated { claimed: u32, sent: Vec<u8> },
    /// A header over max_allowed_packet.
    Oversized,
    /// Raw bytes on the wire after authentication (bad sequence ids, partial headers).
    RawAfterAuth(Vec<u8>),
}

fn abuse() -> impl Strategy<Value = Abuse> {
    let command =
        // Every command byte but COM_SHUTDOWN (0x08), which would rightly stop the server.
        ((0u8..0x22).prop_filter("not COM_SHUTDOWN", |c| *c != 0x08), proptest::collection::vec(any::<u8>(), 0..40)).prop_map(|(code, mut body)| {
            body.insert(0, code);
            body
        });
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..100).prop_map(Abuse::PreAuthGarbage),
        command.prop_map(Abuse::Command),
        (
            1u32..0xFF_FFFF,
            proptest::collection::vec(any::<u8>(), 0..50)
        )
            .prop_map(|(claimed, sent)| Abuse::Truncated { claimed, sent }),
        Just(Abuse::Oversized),
        proptest::collection::vec(any::<u8>(), 1..60).prop_map(Abuse::RawAfterAuth),
    ]
}

/// Two full 0xFFFFFF pieces and the header of a third: more than MAX_ALLOWED_PACKET.
async fn send_oversized(client: &mut RawClient) {
    let chunk = vec![b'a'; 0xFF_FFFF];
    let mut bytes = Vec::new();
    for seq in 0..2u8 {
        bytes.extend_from_slice(&[0xFF, 0xFF, 0xFF, seq]);
        bytes.extend_from_slice(&chunk);
    }
    bytes.extend_from_slice(&[0xFF, 0xFF, 0xFF, 2]);
    let _ = client.send_raw(&bytes).await;
    client.expect_sequence(3);
}

async fn run_abuse(addr: &str, abuse: &Abuse) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let timeout = std::time::Duration::from_secs(5);
    match abuse {
        Abuse::PreAuthGarbage(bytes) => {
            let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let mut greeting = [0u8; 256];
            let _ = stream.read(&mut greeting).await;
            let _ = stream.write_all(bytes).await;
            let _ = stream.shutdown().await;
            let mut sink = Vec::new();
            let _ = tokio::time::timeout(timeout, stream.read_to_end(&mut sink)).await;
        }
        Abuse::Command(payload) => {
            let mut client =
                RawClient::connect(addr, "root", "", None, CLIENT_DEFAULT_CAPABILITIES)
                    .await
                    .unwrap();
            if client.send_command(payload).await.is_ok() && payload.first() != Some(&COM_QUIT) {
                // Whatever the answer, read it all (or the close) without hanging.
                let _ = tokio::time::timeout(std::time::Duration::from_millis(50), async {
                    while client.read_packet().await.is_ok() {}
                })
                .await;
            }
        }
        Abuse::Truncated { claimed, sent } => {
            let mut client =
                RawClient::connect(addr, "root", "", None, CLIENT_DEFAULT_CAPABILITIES)
                    .await
                    .unwrap();
            let mut bytes = claimed.to_le_bytes()[..3].to_vec();
            bytes.push(0);
            bytes.extend_from_slice(sent);
            let _ = client.send_raw(&bytes).await;
        }
        Abuse::Oversized => {
            let mut client =
                RawClient::connect(addr, "root", "", None, CLIENT_DEFAULT_CAPABILITIES)
                    .await
                    .unwrap();
            send_oversized(&mut client).await;
            let reply = tokio::time::timeout(timeout, client.read_packet()).await;
            if let Ok(Ok(reply)) = reply {
                assert_eq!(parse_err(&reply).map(|e| e.code), Some(1153));
            }
        }
        Abuse::RawAfterAuth(bytes) => {
            let mut client =
                RawClient::connect(addr, "root", "", None, CLIENT_DEFAULT_CAPABILITIES)
                    .await
                    .unwrap();
            let _ = client.send_raw(bytes).await;
            let _ =
                tokio::time::timeout(std::time::Duration::from_millis(50), client.read_packet())
                    .await;
        }
    }
}

#[test]
fn random_truncated_and_oversized_packets_never_stop_the_server() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(TestServer::start());
    let bystander = tokio::sync::Mutex::new(runtime.block_on(server.root()));
    let config = ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(abuses in proptest::collection::vec(abuse(), 1..4))| {
        runtime.block_on(async {
            for abuse in &abuses {
                run_abuse(&server.addr, abuse).await;
            }
            // The connection that did nothing wrong still works, and so do new ones.
            let mut bystander = bystander.lock().await;
            bystander.ping().await.unwrap();
            let results = bystander.query("hello").await.unwrap();
            assert_eq!(rows(&results[0]), vec![vec![Some("5".to_string())]]);
            server.root().await.ping().await.unwrap();
            server.assert_no_panics().await;
        });
    });
}

/// A bug in a handler (a panic) ends that connection only, and the handler still hears
/// that the command finished (Threads_running must not leak).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_ends_only_its_connection() {
    use std::sync::atomic::Ordering::SeqCst;
    let server = TestServer::start().await;
    let mut bystander = server.root().await;
    let mut victim = server.root().await;
    assert!(
        victim.query("PANIC").await.is_err(),
        "the connection is dropped"
    );
    bystander.ping().await.unwrap();
    server.root().await.ping().await.unwrap();
    // Other tests run concurrently in this binary: wait until every command has finished.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while STARTED.load(SeqCst) != FINISHED.load(SeqCst) && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        STARTED.load(SeqCst),
        FINISHED.load(SeqCst),
        "every started command finished"
    );
    // The victim's task may still be unwinding when the client sees the close.
    let mut panicked = 0;
    while panicked == 0 && std::time::Instant::now() < deadline {
        let finished: Vec<_> = {
            let mut tasks = server.tasks.lock().unwrap();
            let (done, running): (Vec<_>, Vec<_>) = tasks.drain(..).partition(|t| t.is_finished());
            *tasks = running;
            done
        };
        for task in finished {
            if task.await.is_err() {
                panicked += 1;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(panicked, 1, "exactly the victim's task panicked");
}
