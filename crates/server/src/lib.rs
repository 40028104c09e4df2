//! The myriad server: command-line and option-file handling, networking (TCP and unix
//! socket), one session per connection bridging `myriad_protocol` to `myriad_sql`, shutdown.
//!
//! Shape of a running server:
//!
//! ```text
//! main -> options::parse -> logging -> tokio runtime of thread_pool_size workers -> Engine::open
//!   accept loop (TCP, and unix socket if --socket)
//!     admission: live connections < max_connections, else ERR 1040 instead of a greeting
//!     one task per connection: protocol::serve_connection(MyriadServer handler)
//!   shutdown: SIGTERM, SIGINT or the SHUTDOWN statement (Engine::set_shutdown_hook)
//!     -> stop accepting -> tell connections (ERR 1053 at their next read) -> wait a
//!     little for them -> Engine::shutdown()
//! ```
//!
//! Connections are tokio tasks, so a thousand idle connections cost a few kilobytes each;
//! statements run on the worker that read them, inside `block_in_place` (see
//! [`handler`]), so busy connections use as many threads as there are statements in flight.

pub mod handler;
pub mod options;
pub mod tls;

use handler::MyriadServer;
use myriad_protocol::constants::error_code::ER_CON_COUNT_ERROR;
use myriad_protocol::stop::{StopSignal, StopWaiter};
use myriad_protocol::{
    reject_connection, serve_connection, ConnectionEnd, ConnectionOptions, ErrorInfo,
};
use myriad_sql::{Engine, EngineConfig, Value};
use options::{OptionsError, ServerOptions, DEFAULT_MAX_CONNECTIONS};
use std::os::fd::AsRawFd;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

/// How long shutdown waits for connections to finish their current statement.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The listen backlog: a burst of a thousand simultaneous connects must not overflow it
/// (the kernel caps it at net.core.somaxconn).
const LISTEN_BACKLOG: u32 = 4096;

/// The text --help shows after the options: every system variable with its default.
fn variables_help() -> String {
    let mut text = String::from(
        "System variables (also accepted as --name=value, with dashes or underscores, and in\n\
         the [mysqld] and [myriad] groups of --defaults-file):\n",
    );
    for (name, default, description) in myriad_sql::system_variables_help() {
        if options::is_server_option(&name) {
            continue;
        }
        text.push_str(&format!(
            "  --{:<34} {}\n  {:<36} [default: {}]\n",
            name, description, "", default
        ));
    }
    text
}

/// The process umask: everything the server creates (datadir, tables, redo log, accounts,
/// the error log) is for its own user only, as MariaDB's default `UMASK=0640` minus group
/// read. The engine also sets these modes itself where it creates files.
const PROCESS_UMASK: libc::mode_t = 0o077;

/// Turn transparent huge pages off for this process (`PR_SET_THP_DISABLE`), as MariaDB
/// runs by default. The allocator asks the kernel for huge pages on its regions
/// (`madvise(MADV_HUGEPAGE)`, which the kernel honours where THP is `always` or
/// `madvise`), so the first touch of a thread's fresh heap region brought in 2 MiB at once:
/// a statement that left the network workers (a slow client reading a large result holds
/// one) then cost about 2.5 MB of resident memory, against under 0.5 MB with 4 KiB pages.
/// The flag applies to the whole process, to regions mapped before it as well.
fn disable_transparent_huge_pages() {
    // Safety: PR_SET_THP_DISABLE takes integer arguments and changes only a flag of this
    // process; it cannot touch memory.
    let rc = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    if rc != 0 {
        tracing::warn!(
            "cannot turn transparent huge pages off ({}): each long statement may cost \
             2 MB more resident memory",
            std::io::Error::last_os_error()
        );
    }
}

/// Entry point of the `myriad` binary.
pub fn main() -> ExitCode {
    // Safety: umask only sets the process's file-creation mask; it cannot fail.
    unsafe {
        libc::umask(PROCESS_UMASK);
    }
    let options = match options::parse(std::env::args_os(), &variables_help()) {
        Ok(options) => options,
        Err(OptionsError::Informational(text)) => {
            print!("{text}");
            return ExitCode::SUCCESS;
        }
        Err(OptionsError::Invalid(message)) => {
            eprintln!("myriad: {message}");
            return ExitCode::from(2);
        }
    };
    if let Err(message) = init_logging(&options) {
        eprintln!("myriad: {message}");
        return ExitCode::FAILURE;
    }
    disable_transparent_huge_pages();
    // A panic (a bug: client input must never cause one) ends only the connection whose
    // task it hit; make sure it reaches the log, not just standard error.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        tracing::error!("panic: {info}");
        default_hook(info);
    }));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = match options::thread_pool_size(&options, cores) {
        Ok(workers) => workers,
        Err(message) => {
            eprintln!("myriad: {message}");
            return ExitCode::from(2);
        }
    };
    let stack_bytes = match options::thread_stack_bytes(&options) {
        Ok(bytes) => bytes,
        Err(message) => {
            eprintln!("myriad: {message}");
            return ExitCode::from(2);
        }
    };
    handler::install_long_wait_hook();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_stack_size(stack_bytes)
        .enable_all()
        .thread_name("myriad-worker")
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!("cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options, workers)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!("{message}");
            eprintln!("myriad: {message}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging(options: &ServerOptions) -> Result<(), String> {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("MYRIAD_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let result = match &options.log_error {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open --log-error file {}: {e}", path.display()))?;
            builder
                .with_ansi(false)
                .with_writer(std::sync::Mutex::new(file))
                .try_init()
        }
        // Colour only for a terminal: a log redirected to a file stays plain text.
        None => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .with_writer(std::io::stderr)
            .try_init(),
    };
    result.map_err(|e| format!("cannot start logging: {e}"))
}

/// Per-server state the accept loops share.
struct Listeners {
    handler: Arc<MyriadServer>,
    /// Connections admitted and not yet closed.
    live: Arc<AtomicU64>,
    next_connection_id: AtomicU32,
    max_connections_option: Option<u64>,
    shutdown: StopSignal,
    /// The server's TLS (None: connections cannot ask for it).
    tls: Option<myriad_protocol::TlsConfig>,
}

fn variable_u64(engine: &Engine, name: &str) -> Option<u64> {
    match engine.global_variable(name)? {
        Value::Int(v) => u64::try_from(v).ok(),
        Value::UInt(v) => Some(v),
        Value::Bytes(b) => std::str::from_utf8(&b).ok()?.trim().parse().ok(),
        Value::Decimal(d) if d.scale() == 0 => d.to_u64(),
        Value::Double(d) if d >= 0.0 => Some(d as u64),
        _ => None,
    }
}

/// Seconds as a timeout; 0 means "never", as MySQL treats it for wait_timeout.
fn seconds(value: Option<u64>, default_seconds: u64) -> Option<Duration> {
    match value.unwrap_or(default_seconds) {
        0 => None,
        s => Some(Duration::from_secs(s.min(365 * 24 * 3600))),
    }
}

impl Listeners {
    fn max_connections(&self) -> u64 {
        // Read on every accept: SET GLOBAL max_connections takes effect at once.
        variable_u64(&self.handler.engine, "max_connections")
            .or(self.max_connections_option)
            .unwrap_or(DEFAULT_MAX_CONNECTIONS)
    }

    fn connection_options(
        &self,
        connection_id: u32,
        host: String,
        socket_fd: i32,
        unix_socket: bool,
    ) -> ConnectionOptions {
        let engine = &self.handler.engine;
        ConnectionOptions {
            connection_id,
            host,
            max_allowed_packet: variable_u64(engine, "max_allowed_packet")
                .map(|v| v as usize)
                .unwrap_or(64 * 1024 * 1024),
            wait_timeout: seconds(variable_u64(engine, "wait_timeout"), 28_800),
            interactive_timeout: seconds(variable_u64(engine, "interactive_timeout"), 28_800),
            connect_timeout: seconds(variable_u64(engine, "connect_timeout"), 10)
                .unwrap_or(Duration::from_secs(10)),
            read_timeout: seconds(variable_u64(engine, "net_read_timeout"), 30)
                .unwrap_or(Duration::from_secs(30)),
            write_timeout: seconds(variable_u64(engine, "net_write_timeout"), 60)
                .unwrap_or(Duration::from_secs(60)),
            socket_fd: Some(socket_fd),
            unix_socket,
            tls: self.tls.clone(),
        }
    }

    /// Admit or refuse one accepted stream and serve it on its own task.
    fn admit<S>(self: &Arc<Self>, stream: S, host: String, peer: String, unix_socket: bool)
    where
        S: AsyncRead + AsyncWrite + AsRawFd + Unpin + Send + 'static,
    {
        let counters = self.handler.engine.counters();
        counters.connections.fetch_add(1, Ordering::Relaxed);
        let max = self.max_connections();
        let live_now = self.live.fetch_add(1, Ordering::AcqRel) + 1;
        if live_now > max {
            self.live.fetch_sub(1, Ordering::AcqRel);
            tracing::warn!(%peer, max_connections = max, "too many connections");
            let error = ErrorInfo::new(ER_CON_COUNT_ERROR, "Too many connections");
            tokio::spawn(async move { reject_connection(stream, &error).await });
            return;
        }
        counters.threads_connected.fetch_add(1, Ordering::Relaxed);
        counters
            .max_used_connections
            .fetch_max(live_now, Ordering::Relaxed);
        let connection_id = self.next_connection_id.fetch_add(1, Ordering::Relaxed);
        let options = self.connection_options(connection_id, host, stream.as_raw_fd(), unix_socket);
        let listeners = Arc::clone(self);
        let stop = self.shutdown.subscribe();
        tokio::spawn(async move {
            // Released on every exit, a panic in the engine included: the slot and the
            // Threads_connected count must not leak.
            let _slot = ConnectionSlot(Arc::clone(&listeners));
            let handler = Arc::clone(&listeners.handler);
            let end = serve_connection(stream, handler, options, stop).await;
            let counters = listeners.handler.engine.counters();
            match &end {
                ConnectionEnd::Quit | ConnectionEnd::Shutdown => {}
                ConnectionEnd::Closed => {
                    counters.aborted_clients.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(connection_id, %peer, "connection killed");
                }
                ConnectionEnd::HandshakeFailed(reason) => {
                    counters.aborted_connects.fetch_add(1, Ordering::Relaxed);
                    if reason == "connection closed" {
                        // Port probes and health checks: not worth a line at info level.
                        tracing::debug!(connection_id, %peer, "closed before the handshake response");
                    } else {
                        tracing::info!(connection_id, %peer, %reason, "connection refused");
                    }
                }
                ConnectionEnd::TimedOut => {
                    counters.aborted_clients.fetch_add(1, Ordering::Relaxed);
                    tracing::info!(connection_id, %peer, "connection idle past wait_timeout closed");
                }
                ConnectionEnd::Aborted(reason) | ConnectionEnd::ProtocolError(reason) => {
                    counters.aborted_clients.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(connection_id, %peer, %reason, "connection aborted");
                }
            }
        });
    }
}

/// One admitted connection's share of max_connections and Threads_connected.
struct ConnectionSlot(Arc<Listeners>);

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0
            .handler
            .engine
            .counters()
            .threads_connected
            .fetch_sub(1, Ordering::Relaxed);
        self.0.live.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Whether a peer counts as `localhost` for account matching.
fn host_of(addr: &std::net::SocketAddr) -> String {
    let ip = addr.ip();
    let loopback = match ip {
        std::net::IpAddr::V4(v4) => v4.is_loopback(),
        std::net::IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    };
    if loopback {
        String::from("localhost")
    } else {
        ip.to_string()
    }
}

fn bind_tcp(options: &ServerOptions) -> Result<tokio::net::TcpListener, String> {
    let address = match options.bind_address.as_str() {
        "*" => "0.0.0.0",
        "localhost" => "127.0.0.1",
        other => other,
    };
    let ip: std::net::IpAddr = address.parse().map_err(|_| {
        format!(
            "--bind-address: '{}' is not an IP address",
            options.bind_address
        )
    })?;
    let addr = std::net::SocketAddr::new(ip, options.port);
    let socket = if ip.is_ipv4() {
        tokio::net::TcpSocket::new_v4()
    } else {
        tokio::net::TcpSocket::new_v6()
    }
    .map_err(|e| format!("cannot create a socket: {e}"))?;
    socket
        .set_reuseaddr(true)
        .map_err(|e| format!("cannot set SO_REUSEADDR: {e}"))?;
    socket
        .bind(addr)
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    socket
        .listen(LISTEN_BACKLOG)
        .map_err(|e| format!("cannot listen on {addr}: {e}"))
}

/// A listening socket the server accepts clients on: TCP or the unix socket.
trait Listener {
    type Stream: AsyncRead + AsyncWrite + AsRawFd + Unpin + Send + 'static;
    /// What the log says of a failed accept.
    const ACCEPT_FAILED: &'static str;
    /// Whether clients come over the unix socket (a secure transport).
    const UNIX_SOCKET: bool;
    /// One accepted client, ready to serve, with its host and peer names.
    fn accept_client(
        &self,
    ) -> impl std::future::Future<Output = std::io::Result<(Self::Stream, String, String)>> + Send;
}

impl Listener for tokio::net::TcpListener {
    type Stream = tokio::net::TcpStream;
    const ACCEPT_FAILED: &'static str = "accept failed";
    const UNIX_SOCKET: bool = false;
    async fn accept_client(&self) -> std::io::Result<(Self::Stream, String, String)> {
        let (stream, addr) = self.accept().await?;
        let _ = stream.set_nodelay(true);
        Ok((stream, host_of(&addr), addr.to_string()))
    }
}

impl Listener for tokio::net::UnixListener {
    type Stream = tokio::net::UnixStream;
    const ACCEPT_FAILED: &'static str = "accept on the unix socket failed";
    const UNIX_SOCKET: bool = true;
    async fn accept_client(&self) -> std::io::Result<(Self::Stream, String, String)> {
        let (stream, _) = self.accept().await?;
        Ok((
            stream,
            String::from("localhost"),
            String::from("unix socket"),
        ))
    }
}

/// Admit each client `listener` accepts until shutdown.
async fn accept_loop<L: Listener>(listener: L, listeners: Arc<Listeners>) {
    let shutdown = listeners.shutdown.subscribe();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept_client() => accepted,
            _ = shutdown.stopped() => return,
        };
        match accepted {
            Ok((stream, host, peer)) => listeners.admit(stream, host, peer, L::UNIX_SOCKET),
            Err(e) => {
                // Out of descriptors or a connection reset before accept: back off briefly
                // rather than spin.
                tracing::warn!("{}: {e}", L::ACCEPT_FAILED);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
}

/// The system variables for the engine: those given, then the server options that the
/// engine also reports as variables (@@port, @@socket, @@datadir, ...), so that SELECT
/// @@port tells the truth.
fn engine_variables(options: &ServerOptions, workers: usize, tls: bool) -> Vec<(String, String)> {
    let known: std::collections::HashSet<String> = myriad_sql::system_variables_help()
        .into_iter()
        .map(|(name, _, _)| name)
        .collect();
    let mut variables = options.variables.clone();
    let mut add = |name: &str, value: String| {
        if known.contains(name) {
            variables.push((name.to_string(), value));
        }
    };
    add("port", options.port.to_string());
    add("bind_address", options.bind_address.clone());
    // MariaDB shows the directory with a trailing slash.
    let datadir = options.datadir.display().to_string();
    add("datadir", format!("{}/", datadir.trim_end_matches('/')));
    add("thread_pool_size", workers.to_string());
    if let Ok(bytes) = options::thread_stack_bytes(options) {
        add("thread_stack", bytes.to_string());
    }
    if let Some(socket) = &options.socket {
        add("socket", socket.display().to_string());
    }
    if let Some(log_error) = &options.log_error {
        add("log_error", log_error.display().to_string());
    }
    if tls {
        add("have_ssl", String::from("YES"));
        add("have_openssl", String::from("YES"));
    }
    variables
}

/// Run a server until SIGTERM, SIGINT or SHUTDOWN.
pub async fn run(options: ServerOptions, workers: usize) -> Result<(), String> {
    let tls = tls::from_variables(&options.variables).map_err(|e| format!("TLS: {e}"))?;
    let config = EngineConfig {
        datadir: options.datadir.clone(),
        variables: engine_variables(&options, workers, tls.is_some()),
    };
    warn_if_datadir_is_open_to_others(&options.datadir);
    let engine = tokio::task::block_in_place(|| Engine::open(config))
        .map_err(|e| format!("cannot start: {e}"))?;
    log_recovery(engine.recovery_stats());
    let shutdown = StopSignal::new();
    {
        let shutdown = shutdown.clone();
        engine.set_shutdown_hook(Box::new(move || {
            tracing::info!("SHUTDOWN statement received");
            shutdown.stop();
        }));
    }
    let listeners = Arc::new(Listeners {
        handler: Arc::new(MyriadServer::new(Arc::clone(&engine))),
        live: Arc::new(AtomicU64::new(0)),
        next_connection_id: AtomicU32::new(1),
        max_connections_option: options.max_connections,
        shutdown: shutdown.clone(),
        tls: tls.clone(),
    });
    if tls.is_some() {
        engine.set_tls_cipher_list(myriad_protocol::tls::cipher_list());
        tracing::info!("TLS on: clients may ask for TLS 1.2 or 1.3 (ssl_cert, ssl_key)");
    }

    let tcp = bind_tcp(&options)?;
    let mut tasks = Vec::new();
    tracing::info!(
        address = %options.bind_address,
        port = options.port,
        datadir = %options.datadir.display(),
        version = %myriad_protocol::ServerHandler::server_version(listeners.handler.as_ref()),
        "myriad ready for connections"
    );
    tasks.push(tokio::spawn(accept_loop(tcp, Arc::clone(&listeners))));
    if let Some(path) = &options.socket {
        // A socket file left by a server that did not shut down cleanly.
        if path.exists() {
            let _ = std::fs::remove_file(path);
        }
        let unix = tokio::net::UnixListener::bind(path)
            .map_err(|e| format!("cannot listen on unix socket {}: {e}", path.display()))?;
        // The umask made it 0700; any local user may connect (and then authenticate), as
        // with MariaDB's socket.
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777)).map_err(
                |e| {
                    format!(
                        "cannot open unix socket {} to all users: {e}",
                        path.display()
                    )
                },
            )?;
        }
        tracing::info!(socket = %path.display(), "listening on unix socket");
        tasks.push(tokio::spawn(accept_loop(unix, Arc::clone(&listeners))));
    }

    wait_for_shutdown(shutdown.subscribe()).await;
    shutdown.stop();
    tracing::info!("shutting down");
    for task in tasks {
        let _ = task.await;
    }
    let deadline = tokio::time::Instant::now() + SHUTDOWN_GRACE;
    while listeners.live.load(Ordering::Acquire) > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let remaining = listeners.live.load(Ordering::Acquire);
    if remaining > 0 {
        tracing::warn!(remaining, "connections still busy at shutdown");
    }
    let flushed = tokio::task::block_in_place(|| engine.shutdown());
    if let Some(path) = &options.socket {
        let _ = std::fs::remove_file(path);
    }
    // A failed final checkpoint is not a clean shutdown: say so, and exit non-zero.
    flushed.map_err(|e| format!("shutdown incomplete: {e}"))?;
    tracing::info!("shutdown complete");
    Ok(())
}

/// A datadir that other users may read or enter (made by hand, or by an older server) is
/// reported: the server creates it 0700 and its files 0600, but changes no existing mode.
fn warn_if_datadir_is_open_to_others(datadir: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(datadir) {
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            tracing::warn!(
                datadir = %datadir.display(),
                "the datadir has mode {mode:o}: other users may read or enter it (the server \
                 creates it 0700; chmod 700 it to keep tables and accounts private)"
            );
        }
    }
}

/// Tell the error log what crash recovery replayed, and what it did not.
fn log_recovery(stats: &myriad_sql::RecoveryStats) {
    let redo = &stats.redo;
    if stats.groups_replayed > 0 || redo.damage.is_some() {
        tracing::info!(
            "redo recovery: replayed {} groups, LSN {} to {}: {} pages applied, {} table files \
             opened, in {} ms",
            stats.groups_replayed,
            redo.from_lsn,
            redo.to_lsn,
            stats.pages_applied,
            stats.files_opened,
            stats.duration.as_millis()
        );
    }
    let Some(damage) = &redo.damage else {
        return;
    };
    let kept: Vec<String> = damage
        .kept_aside
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let kept = if kept.is_empty() {
        "nothing to keep".to_string()
    } else {
        format!("kept in {}", kept.join(", "))
    };
    if damage.forced {
        tracing::error!(
            "force_recovery: {}. NOT replayed: every statement from LSN {} on is lost; the \
             damaged bytes are {kept}",
            damage.describe(),
            damage.lsn
        );
    } else {
        tracing::warn!(
            "{}. Not replayed: a write cut short by the crash (never acknowledged); its bytes \
             are {kept}",
            damage.describe()
        );
    }
}

async fn wait_for_shutdown(shutdown: StopWaiter) {
    use tokio::signal::unix::{signal, SignalKind};
    let mut terminate = signal(SignalKind::terminate()).ok();
    let mut interrupt = signal(SignalKind::interrupt()).ok();
    tokio::select! {
        _ = async { match terminate.as_mut() { Some(s) => { s.recv().await; } None => std::future::pending().await } } => {
            tracing::info!("SIGTERM received");
        }
        _ = async { match interrupt.as_mut() { Some(s) => { s.recv().await; } None => std::future::pending().await } } => {
            tracing::info!("SIGINT received");
        }
        _ = shutdown.stopped() => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_peers_are_localhost() {
        let host = |s: &str| host_of(&s.parse().unwrap());
        assert_eq!(host("127.0.0.1:5000"), "localhost");
        assert_eq!(host("[::1]:5000"), "localhost");
        assert_eq!(host("[::ffff:127.0.0.1]:5000"), "localhost");
        assert_eq!(host("10.1.2.3:5000"), "10.1.2.3");
    }

    #[test]
    fn zero_seconds_means_no_timeout() {
        assert_eq!(seconds(Some(0), 10), None);
        assert_eq!(seconds(None, 10), Some(Duration::from_secs(10)));
        assert_eq!(seconds(Some(5), 10), Some(Duration::from_secs(5)));
    }
}
