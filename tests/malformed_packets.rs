//! Malformed packets against the real server and engine: random command payloads, random bytes
//! before and after authentication, truncated and oversized packets never take the server
//! down; a mysql_async connection opened before the abuse keeps answering, and new
//! connections keep being accepted. (crates/protocol/tests/dispatch.rs runs the same kind
//! of property test against a scripted handler, with more cases.)

mod common;

use common::Server;
use myriad_protocol::client::{RawClient, CLIENT_DEFAULT_CAPABILITIES};
use mysql_async::prelude::*;
use proptest::prelude::*;
use std::time::Duration;

#[derive(Debug, Clone)]
enum Abuse {
    PreAuth(Vec<u8>),
    Command(Vec<u8>),
    Raw(Vec<u8>),
    Truncated(u32, Vec<u8>),
}

fn abuse() -> impl Strategy<Value = Abuse> {
    let command =
        // Every command byte but COM_SHUTDOWN (0x08), which would rightly stop the server.
        ((0u8..0x22).prop_filter("not COM_SHUTDOWN", |c| *c != 0x08), proptest::collection::vec(any::<u8>(), 0..48)).prop_map(|(code, mut body)| {
            body.insert(0, code);
            body
        });
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..120).prop_map(Abuse::PreAuth),
        command.prop_map(Abuse::Command),
        proptest::collection::vec(any::<u8>(), 1..60).prop_map(Abuse::Raw),
        (
            1u32..0xFF_FFFF,
            proptest::collection::vec(any::<u8>(), 0..40)
        )
            .prop_map(|(n, b)| Abuse::Truncated(n, b)),
    ]
}

/// A raw protocol client logged in as root.
async fn root_client(addr: &str) -> RawClient {
    RawClient::connect(addr, "root", "", None, CLIENT_DEFAULT_CAPABILITIES)
        .await
        .unwrap()
}

async fn run(addr: &str, abuse: &Abuse) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let quick = Duration::from_millis(100);
    match abuse {
        Abuse::PreAuth(bytes) => {
            let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let mut greeting = [0u8; 512];
            let _ = stream.read(&mut greeting).await;
            let _ = stream.write_all(bytes).await;
            let _ = stream.shutdown().await;
            let mut rest = Vec::new();
            let _ =
                tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await;
        }
        Abuse::Command(payload) => {
            let mut client = root_client(addr).await;
            let _ = client.send_command(payload).await;
            let _ =
                tokio::time::timeout(quick, async { while client.read_packet().await.is_ok() {} })
                    .await;
        }
        Abuse::Raw(bytes) => {
            let mut client = root_client(addr).await;
            let _ = client.send_raw(bytes).await;
            let _ = tokio::time::timeout(quick, client.read_packet()).await;
        }
        Abuse::Truncated(claimed, bytes) => {
            let mut client = root_client(addr).await;
            let mut framed = claimed.to_le_bytes()[..3].to_vec();
            framed.push(0);
            framed.extend_from_slice(bytes);
            let _ = client.send_raw(&framed).await;
        }
    }
}

#[test]
fn abuse_never_stops_the_real_server() {
    let server = Server::start(&[]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let opts = mysql_async::Opts::from_url(&server.url("root", "", None)).unwrap();
    let bystander = tokio::sync::Mutex::new(
        runtime
            .block_on(mysql_async::Conn::new(opts.clone()))
            .unwrap(),
    );
    let addr = server.addr();
    let config = ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(abuses in proptest::collection::vec(abuse(), 1..4))| {
        runtime.block_on(async {
            for abuse in &abuses {
                run(&addr, abuse).await;
            }
            let mut bystander = bystander.lock().await;
            let value: i64 = bystander.query_first("SELECT 40 + 2").await.unwrap().unwrap();
            assert_eq!(value, 42);
            let mut fresh = mysql_async::Conn::new(opts.clone()).await.unwrap();
            fresh.ping().await.unwrap();
            fresh.disconnect().await.unwrap();
        });
    });
    // An unknown command is an error, not a disconnect, for the real server too.
    runtime.block_on(async {
        let mut client = root_client(&addr).await;
        client.send_command(&[0x60]).await.unwrap();
        let reply = client.read_packet().await.unwrap();
        assert_eq!(
            myriad_protocol::client::parse_err(&reply).map(|e| e.code),
            Some(1047)
        );
        client.ping().await.unwrap();
    });
}
