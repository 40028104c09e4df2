//! Stopping a running statement, and keeping a long one off the server's network threads.
//!
//! Every session owns one [`Control`]: an atomic *reason* the current statement must stop
//! (none, KILL QUERY, KILL CONNECTION, max_statement_time, the client went away), the
//! session's identity for KILL's permission check, and two hooks the server installs: how
//! to close the connection (KILL CONNECTION of an idle session) and how to ask whether the
//! client's socket is still open. The engine keeps a [`Registry`] of the live sessions'
//! controls by connection id, so that `KILL [CONNECTION | QUERY] id` from any session
//! finds its victim.
//!
//! A statement runs on one thread from start to end (the engine is synchronous), so the
//! running statement is a thread-local ([`Statement::begin`] .. drop of the guard), and
//! the loops that may run long (table and index scans, joins, grouping, sorting, building
//! the result, SLEEP) call [`tick`] once per row. A tick costs a thread-local access, an
//! atomic load and a counter increment; every [`TICKS_PER_CLOCK_READ`] ticks it reads the
//! clock, and only then:
//! - past the statement's deadline (max_statement_time) the reason becomes TIMEOUT;
//! - every [`PEER_PROBE_INTERVAL`] it asks the server's probe whether the client hung up;
//! - past [`INLINE_BUDGET`] of running time it hands the thread off through
//!   `myriad_cache::long_wait` (the server's hook is tokio's `block_in_place`): the
//!   network worker's other connections move to another thread and the rest of this
//!   statement runs on a thread of its own. The server's priority hook
//!   ([`set_priority_hook`]) then lowers that thread's CPU priority until the statement
//!   ends, so that the kernel prefers the network workers (handshakes, point selects) to
//!   the long statements when the cores are busy. A point select never reaches the first
//!   clock read, so it stays inline and pays nothing. A statement that can stop between
//!   rows and go on later stops by itself instead ([`yield_instead`]).
//!
//! Once a reason is set, the next tick returns the matching MariaDB error and the
//! statement unwinds through its ordinary error path; a statement that finished its rows
//! anyway (SLEEP returns 1 when interrupted) still reports the error, as MariaDB does.
//! States of the reason word, and who moves it:
//!
//! ```text
//!  NONE --KILL QUERY (other session)--> QUERY --next statement begins--> NONE
//!  NONE --deadline passed (own tick)--> TIMEOUT --next statement begins--> NONE
//!  NONE --probe: socket closed (own tick)--> PEER_GONE (the connection ends anyway)
//!  any  --KILL CONNECTION (other session)--> CONNECTION (stays: the connection closes)
//! ```

use crate::error::SqlError;
use myriad_types::errors::ER_UNKNOWN_ERROR;
pub use myriad_types::errors::{
    ER_CONNECTION_KILLED, ER_KILL_DENIED_ERROR, ER_NO_SUCH_THREAD, ER_QUERY_INTERRUPTED,
    ER_STATEMENT_TIMEOUT,
};
use parking_lot::Mutex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

/// Ticks (rows) between two clock reads: a clock read costs about 25 ns and a row at
/// least a few hundred, so at 256 the clock is under 0.1 % of a scan, and 256 rows of the
/// slowest loop (a join row cloned and filtered) take well under a millisecond.
pub const TICKS_PER_CLOCK_READ: u32 = 256;

/// Running time after which a statement leaves the network worker. A sysbench point
/// select takes 20-50 us and never gets here; the hand-off (a thread wake-up and two
/// context switches, 10-20 us) is then at most 1 % of the statement.
pub const INLINE_BUDGET: Duration = Duration::from_millis(2);

/// How often a running statement asks whether its client is still connected (one
/// non-blocking poll system call): a statement whose client left stops within this.
pub const PEER_PROBE_INTERVAL: Duration = Duration::from_millis(100);

/// Longest single sleep of [`sleep`]: a KILL or a timeout is noticed within this.
const SLEEP_SLICE: Duration = Duration::from_millis(20);

/// Moves the calling thread's CPU priority: `true` lowers it (a long statement left the
/// network worker), `false` restores it (that statement ended).
pub type PriorityHook = fn(bool);

static PRIORITY_HOOK: OnceLock<PriorityHook> = OnceLock::new();

/// Install the process's priority hook; the first one installed stays. Without one a
/// long statement keeps its thread's priority.
pub fn set_priority_hook(hook: PriorityHook) {
    let _ = PRIORITY_HOOK.set(hook);
}

const NONE: u8 = 0;
const QUERY: u8 = 1;
const CONNECTION: u8 = 2;
const TIMEOUT: u8 = 3;
const PEER_GONE: u8 = 4;

/// Which statement KILL stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillTarget {
    /// KILL QUERY: the running statement; the connection stays.
    Query,
    /// KILL \[CONNECTION\]: the running statement and the connection.
    Connection,
}

type Hook = Box<dyn Fn() + Send + Sync>;
type Probe = Box<dyn Fn() -> bool + Send + Sync>;

/// Who a session is, for KILL's permission check and SHOW PROCESSLIST.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub user: String,
    pub host: String,
    pub database: Option<String>,
}

/// One live session as SHOW PROCESSLIST shows it.
#[derive(Debug, Clone)]
pub struct SessionView {
    pub connection_id: u32,
    pub owner: Owner,
    /// Running a statement (else idle).
    pub busy: bool,
    /// How long it has been busy or idle.
    pub for_time: Duration,
}

/// One session's interrupt state (see the module documentation).
pub struct Control {
    connection_id: u32,
    reason: AtomicU8,
    /// Changed by USE and COM_CHANGE_USER (rare); read by KILL and SHOW PROCESSLIST.
    owner: Mutex<Owner>,
    /// When the control was made: the origin of `since_us`.
    created: Instant,
    /// Microseconds after `created` when the session last began or ended a statement.
    since_us: AtomicU64,
    /// A statement is running.
    busy: AtomicBool,
    /// Closes the connection (installed by the server): KILL CONNECTION of a session that
    /// runs no statement has nothing to interrupt, so the connection itself must end.
    close_connection: OnceLock<Hook>,
    /// Whether the client is still connected (installed by the server).
    peer_alive: OnceLock<Probe>,
}

impl Control {
    pub fn new(connection_id: u32, user: &str, host: &str) -> Arc<Control> {
        Arc::new(Control {
            connection_id,
            reason: AtomicU8::new(NONE),
            owner: Mutex::new(Owner {
                user: user.to_string(),
                host: host.to_string(),
                database: None,
            }),
            created: Instant::now(),
            since_us: AtomicU64::new(0),
            busy: AtomicBool::new(false),
            close_connection: OnceLock::new(),
            peer_alive: OnceLock::new(),
        })
    }

    pub fn connection_id(&self) -> u32 {
        self.connection_id
    }

    pub fn set_owner(&self, user: &str, host: &str, database: Option<&str>) {
        *self.owner.lock() = Owner {
            user: user.to_string(),
            host: host.to_string(),
            database: database.map(str::to_string),
        };
    }

    /// The current database changed (USE, COM_INIT_DB, DROP DATABASE of it).
    pub fn set_database(&self, database: Option<&str>) {
        let mut owner = self.owner.lock();
        if owner.database.as_deref() != database {
            owner.database = database.map(str::to_string);
        }
    }

    /// A statement begins (`true`) or ends (`false`) now.
    fn mark(&self, busy: bool, now: Instant) {
        let us = now.duration_since(self.created).as_micros();
        self.since_us
            .store(u64::try_from(us).unwrap_or(u64::MAX), Ordering::Relaxed);
        self.busy.store(busy, Ordering::Relaxed);
    }

    /// How long the session's statement in progress has run (zero between statements).
    pub fn busy_for(&self) -> Duration {
        if !self.busy.load(Ordering::Relaxed) {
            return Duration::ZERO;
        }
        let since = Duration::from_micros(self.since_us.load(Ordering::Relaxed));
        self.created.elapsed().saturating_sub(since)
    }

    fn view(&self) -> SessionView {
        let since = Duration::from_micros(self.since_us.load(Ordering::Relaxed));
        SessionView {
            connection_id: self.connection_id,
            owner: self.owner.lock().clone(),
            busy: self.busy.load(Ordering::Relaxed),
            for_time: self.created.elapsed().saturating_sub(since),
        }
    }

    /// Install how KILL CONNECTION closes this session's connection (first one stays).
    pub fn set_close_hook(&self, hook: Hook) {
        let _ = self.close_connection.set(hook);
    }

    /// Install the probe a running statement asks whether its client is still there.
    pub fn set_peer_probe(&self, probe: Probe) {
        let _ = self.peer_alive.set(probe);
    }

    /// Whether KILL CONNECTION was sent to this session.
    pub fn connection_killed(&self) -> bool {
        self.reason.load(Ordering::Acquire) == CONNECTION
    }

    /// Stop the session's running statement (and, for `Connection`, the connection).
    pub fn kill(&self, target: KillTarget) {
        match target {
            KillTarget::Query => {
                // A connection kill already pending stays the stronger reason.
                let _ =
                    self.reason
                        .compare_exchange(NONE, QUERY, Ordering::AcqRel, Ordering::Acquire);
            }
            KillTarget::Connection => {
                self.reason.store(CONNECTION, Ordering::Release);
                if let Some(close) = self.close_connection.get() {
                    close();
                }
            }
        }
    }

    /// The error for the reason set, if any.
    pub fn error(&self) -> Option<SqlError> {
        error_of(self.reason.load(Ordering::Acquire))
    }
}

fn error_of(reason: u8) -> Option<SqlError> {
    match reason {
        NONE => None,
        CONNECTION => Some(SqlError::new(ER_CONNECTION_KILLED, "Connection was killed")),
        TIMEOUT => Some(SqlError::new(
            ER_STATEMENT_TIMEOUT,
            "Query execution was interrupted (max_statement_time exceeded)",
        )),
        _ => Some(SqlError::new(
            ER_QUERY_INTERRUPTED,
            "Query execution was interrupted",
        )),
    }
}

/// The live sessions of an engine by connection id (KILL's directory). Sessions join at
/// start and leave when dropped; the map holds weak references, so a session that ends
/// without leaving (a panic) only leaves a dead entry that the next join of its id replaces.
#[derive(Default)]
pub struct Registry {
    sessions: Mutex<HashMap<u32, Weak<Control>>>,
}

impl Registry {
    pub fn join(&self, control: &Arc<Control>) {
        self.sessions
            .lock()
            .insert(control.connection_id, Arc::downgrade(control));
    }

    pub fn leave(&self, control: &Arc<Control>) {
        let mut sessions = self.sessions.lock();
        if let Some(entry) = sessions.get(&control.connection_id) {
            if std::ptr::eq(entry.as_ptr(), Arc::as_ptr(control)) {
                sessions.remove(&control.connection_id);
            }
        }
    }

    pub fn find(&self, connection_id: u32) -> Option<Arc<Control>> {
        self.sessions.lock().get(&connection_id)?.upgrade()
    }

    /// KILL as `user`@`host` (root may kill any session, a user its own).
    pub fn kill(
        &self,
        killer_user: &str,
        may_kill_any: bool,
        connection_id: u64,
        target: KillTarget,
    ) -> Result<(), SqlError> {
        let victim = u32::try_from(connection_id)
            .ok()
            .and_then(|id| self.find(id))
            .ok_or_else(|| {
                SqlError::new(
                    ER_NO_SUCH_THREAD,
                    format!("Unknown thread id: {connection_id}"),
                )
            })?;
        let owner = victim.owner.lock().user.clone();
        if !may_kill_any && killer_user != owner {
            return Err(SqlError::new(
                ER_KILL_DENIED_ERROR,
                format!("You are not owner of thread {connection_id}"),
            ));
        }
        victim.kill(target);
        Ok(())
    }

    /// The live sessions `viewer` may see, by connection id: all of them with `sees_all`
    /// (the PROCESS privilege), else those of the same user, as in MariaDB.
    pub fn list(&self, viewer: &str, sees_all: bool) -> Vec<SessionView> {
        let controls: Vec<Arc<Control>> = self
            .sessions
            .lock()
            .values()
            .filter_map(Weak::upgrade)
            .collect();
        let mut views: Vec<SessionView> = controls
            .iter()
            .map(|c| c.view())
            .filter(|v| sees_all || v.owner.user == viewer)
            .collect();
        views.sort_by_key(|v| v.connection_id);
        views
    }
}

/// The statement running on this thread.
struct Running {
    control: Arc<Control>,
    started: Instant,
    deadline: Option<Instant>,
    next_probe: Instant,
    ticks: u32,
    /// The priority hook lowered this thread's priority for this statement.
    lowered: bool,
    /// The statement stops by itself once its slice is over ([`yield_instead`]): the
    /// clock does not hand its thread off.
    yields: bool,
}

thread_local! {
    static RUNNING: RefCell<Option<Running>> = const { RefCell::new(None) };
}

/// The statement running on this thread, from [`Statement::begin`] until dropped.
pub struct Statement {
    /// The statement this one is nested in (a statement run by a statement), put back
    /// when this one ends.
    outer: Option<Running>,
    /// The statement stops without ending ([`Statement::pause`]): the session stays busy.
    paused: bool,
}

impl Statement {
    /// A statement of the session owning `control` starts on this thread; it may run for
    /// `max_time_s` seconds (0: no limit). A KILL QUERY or timeout left from the previous
    /// statement is forgotten; a KILL CONNECTION is not. A statement begun inside another
    /// forgets nothing: the reason belongs to the outer one.
    pub fn begin(control: &Arc<Control>, max_time_s: f64) -> Statement {
        if RUNNING.with(|r| r.borrow().is_none()) {
            let _ = control
                .reason
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |r| {
                    (r != CONNECTION && r != NONE).then_some(NONE)
                });
        }
        let started = Instant::now();
        if RUNNING.with(|r| r.borrow().is_none()) {
            control.mark(true, started);
        }
        let deadline = (max_time_s > 0.0)
            .then(|| started.checked_add(Duration::from_secs_f64(max_time_s)))
            .flatten();
        Statement::enter(control, started, deadline, 0)
    }

    /// The statement's running state on this thread, its tick count starting at `ticks`
    /// (the clock is read each time the count reaches a multiple of
    /// [`TICKS_PER_CLOCK_READ`]).
    fn enter(
        control: &Arc<Control>,
        started: Instant,
        deadline: Option<Instant>,
        ticks: u32,
    ) -> Statement {
        let running = Running {
            control: Arc::clone(control),
            started,
            deadline,
            next_probe: started + PEER_PROBE_INTERVAL,
            ticks,
            lowered: false,
            yields: false,
        };
        let outer = RUNNING.with(|r| r.borrow_mut().replace(running));
        Statement {
            outer,
            paused: false,
        }
    }

    /// The statement stops here without ending, to go on later in [`Statement::resume`]
    /// (on this thread or another): the session stays busy for SHOW PROCESSLIST. Returns
    /// its max_statement_time deadline.
    pub fn pause(mut self) -> Option<Instant> {
        self.paused = true;
        RUNNING.with(|r| r.borrow().as_ref().and_then(|run| run.deadline))
    }

    /// A paused statement of the session owning `control` goes on on this thread, with the
    /// `deadline` [`Statement::pause`] returned. A KILL QUERY that came meanwhile stays.
    /// Its first tick reads the clock, as a pause may have outlasted the deadline.
    pub fn resume(control: &Arc<Control>, deadline: Option<Instant>) -> Statement {
        Statement::enter(control, Instant::now(), deadline, TICKS_PER_CLOCK_READ - 1)
    }

    /// The error the statement must end with, if it was interrupted.
    pub fn interrupted(&self) -> Option<SqlError> {
        RUNNING.with(|r| r.borrow().as_ref().and_then(|run| run.control.error()))
    }
}

impl Drop for Statement {
    fn drop(&mut self) {
        let outer = self.outer.take();
        let outermost = outer.is_none();
        let ended = RUNNING.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer));
        let Some(ended) = ended else {
            return;
        };
        if outermost && !self.paused {
            ended.control.mark(false, Instant::now());
        }
        if ended.lowered {
            if let Some(hook) = PRIORITY_HOOK.get() {
                hook(false);
            }
        }
    }
}

/// One unit of a long loop's work (a row): Err once the running statement must stop.
/// Outside a statement (unit tests, start-up) it does nothing.
#[inline]
pub fn tick() -> Result<(), SqlError> {
    RUNNING.with(|r| {
        let mut r = r.borrow_mut();
        let Some(run) = r.as_mut() else {
            return Ok(());
        };
        let reason = run.control.reason.load(Ordering::Relaxed);
        if reason != NONE {
            return Err(error_of(reason).unwrap_or_else(|| unreachable_reason(reason)));
        }
        run.ticks = run.ticks.wrapping_add(1);
        if run.ticks % TICKS_PER_CLOCK_READ != 0 {
            return Ok(());
        }
        clock_check(run)
    })
}

#[cold]
fn unreachable_reason(reason: u8) -> SqlError {
    SqlError::new(
        ER_UNKNOWN_ERROR,
        format!("unknown interrupt reason {reason}"),
    )
}

/// The part of a tick that reads the clock (see the module documentation).
fn clock_check(run: &mut Running) -> Result<(), SqlError> {
    let now = Instant::now();
    if run.deadline.is_some_and(|d| now >= d) {
        let _ =
            run.control
                .reason
                .compare_exchange(NONE, TIMEOUT, Ordering::AcqRel, Ordering::Acquire);
    }
    if now >= run.next_probe {
        run.next_probe = now + PEER_PROBE_INTERVAL;
        if let Some(alive) = run.control.peer_alive.get() {
            if !alive() {
                let _ = run.control.reason.compare_exchange(
                    NONE,
                    PEER_GONE,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
            }
        }
    }
    if now.duration_since(run.started) >= INLINE_BUDGET && !run.yields {
        // Off the network worker from here on. Once handed off, a further call finds no
        // worker to hand over and returns at once; if the worker came back before another
        // thread took it (a race inside the hand-off), the next clock read tries again.
        myriad_cache::long_wait::run(|| ());
        if !run.lowered {
            if let Some(hook) = PRIORITY_HOOK.get() {
                run.lowered = true;
                hook(true);
            }
        }
    }
    match run.control.reason.load(Ordering::Acquire) {
        NONE => Ok(()),
        reason => Err(error_of(reason).unwrap_or_else(|| unreachable_reason(reason))),
    }
}

/// The running statement can stop between rows and go on later (a plain scan whose
/// client can wait, see `crate::row_sink`): instead of handing its thread off past
/// [`INLINE_BUDGET`], it asks [`slice_over`] and stops by itself, so that it runs on the
/// network threads in slices and never holds a thread of its own.
pub fn yield_instead(yields: bool) {
    RUNNING.with(|r| {
        if let Some(run) = r.borrow_mut().as_mut() {
            run.yields = yields;
        }
    });
}

/// Whether the running statement has run for [`INLINE_BUDGET`] since it began or last
/// resumed (a clock read): one that [`yield_instead`] should stop now.
pub fn slice_over() -> bool {
    RUNNING.with(|r| {
        r.borrow()
            .as_ref()
            .is_some_and(|run| run.started.elapsed() >= INLINE_BUDGET)
    })
}

/// Longest single wait of a lock wait between two [`check`]s: a KILL, a timeout or a client
/// that left ends the wait within this.
pub const WAIT_SLICE: Duration = Duration::from_millis(100);

/// Err when the running statement must stop, reading the clock (for a loop that waits
/// rather than ticks: a lock wait wakes every [`WAIT_SLICE`] to ask).
pub fn check() -> Result<(), SqlError> {
    RUNNING.with(|r| match r.borrow_mut().as_mut() {
        Some(run) => clock_check(run),
        None => Ok(()),
    })
}

/// Sleep up to `duration` unless the running statement is interrupted first (KILL,
/// max_statement_time, the client leaving): true when interrupted, as SLEEP() returns 1.
pub fn sleep(duration: Duration) -> bool {
    let end = Instant::now() + duration;
    loop {
        let now = Instant::now();
        if now >= end {
            return false;
        }
        if check().is_err() {
            return true;
        }
        let slice = (end - now).min(SLEEP_SLICE);
        myriad_cache::long_wait::run(|| std::thread::sleep(slice));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks_until_error(limit: u32) -> Option<(u32, u16)> {
        (1..=limit).find_map(|n| tick().err().map(|e| (n, e.code)))
    }

    #[test]
    fn kill_query_stops_the_running_statement_at_its_next_tick_and_not_the_next_one() {
        let control = Control::new(7, "u", "localhost");
        let statement = Statement::begin(&control, 0.0);
        assert_eq!(ticks_until_error(1000), None);
        control.kill(KillTarget::Query);
        assert_eq!(ticks_until_error(1), Some((1, ER_QUERY_INTERRUPTED.code)));
        assert_eq!(
            statement.interrupted().map(|e| e.code),
            Some(ER_QUERY_INTERRUPTED.code)
        );
        drop(statement);
        // The next statement starts clean; outside a statement a tick never fails.
        let next = Statement::begin(&control, 0.0);
        assert_eq!(ticks_until_error(1000), None);
        drop(next);
        control.kill(KillTarget::Query);
        assert!(tick().is_ok(), "no statement runs on this thread");
    }

    #[test]
    fn a_connection_kill_outlives_the_statement_and_closes_the_connection() {
        let control = Control::new(8, "u", "localhost");
        let closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = Arc::clone(&closed);
        control.set_close_hook(Box::new(move || flag.store(true, Ordering::SeqCst)));
        control.kill(KillTarget::Connection);
        assert!(closed.load(Ordering::SeqCst), "the close hook ran");
        let _statement = Statement::begin(&control, 0.0);
        assert_eq!(ticks_until_error(1), Some((1, ER_CONNECTION_KILLED.code)));
        // A later KILL QUERY does not weaken it.
        control.kill(KillTarget::Query);
        assert!(control.connection_killed());
    }

    #[test]
    fn max_statement_time_turns_into_error_1969_within_a_clock_read() {
        let control = Control::new(9, "u", "localhost");
        let _statement = Statement::begin(&control, 0.001);
        std::thread::sleep(Duration::from_millis(5));
        let stopped = ticks_until_error(TICKS_PER_CLOCK_READ);
        assert_eq!(
            stopped,
            Some((TICKS_PER_CLOCK_READ, ER_STATEMENT_TIMEOUT.code))
        );
    }

    #[test]
    fn a_client_that_left_stops_its_statement_and_sleep_wakes_up() {
        let control = Control::new(10, "u", "localhost");
        control.set_peer_probe(Box::new(|| false));
        let _statement = Statement::begin(&control, 0.0);
        let started = Instant::now();
        assert!(sleep(Duration::from_secs(10)), "SLEEP was interrupted");
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(
            tick().err().map(|e| e.code),
            Some(ER_QUERY_INTERRUPTED.code)
        );
    }

    #[test]
    fn a_statement_begun_inside_another_keeps_the_outer_ones_kill() {
        let control = Control::new(12, "u", "localhost");
        let outer = Statement::begin(&control, 0.0);
        control.kill(KillTarget::Query);
        let inner = Statement::begin(&control, 0.0);
        assert_eq!(
            tick().err().map(|e| e.code),
            Some(ER_QUERY_INTERRUPTED.code)
        );
        drop(inner);
        assert_eq!(
            outer.interrupted().map(|e| e.code),
            Some(ER_QUERY_INTERRUPTED.code)
        );
    }

    #[test]
    fn kill_finds_sessions_by_id_and_checks_the_owner() {
        let registry = Registry::default();
        let control = Control::new(11, "alice", "localhost");
        registry.join(&control);
        let code = |r: Result<(), SqlError>| r.err().map(|e| e.code);
        assert_eq!(
            code(registry.kill("bob", false, 11, KillTarget::Query)),
            Some(ER_KILL_DENIED_ERROR.code)
        );
        assert_eq!(
            code(registry.kill("root", true, 12, KillTarget::Query)),
            Some(ER_NO_SUCH_THREAD.code)
        );
        assert_eq!(
            code(registry.kill("root", true, u64::MAX, KillTarget::Query)),
            Some(ER_NO_SUCH_THREAD.code)
        );
        assert_eq!(
            code(registry.kill("alice", false, 11, KillTarget::Query)),
            None
        );
        assert_eq!(
            control.error().map(|e| e.code),
            Some(ER_QUERY_INTERRUPTED.code)
        );
        let other = Control::new(13, "bob", "localhost");
        registry.join(&other);
        let ids = |viewer: &str| -> Vec<u32> {
            registry
                .list(viewer, viewer == "root")
                .iter()
                .map(|v| v.connection_id)
                .collect()
        };
        assert_eq!(
            (ids("root"), ids("alice"), ids("carol")),
            (vec![11, 13], vec![11], vec![])
        );
        let statement = Statement::begin(&control, 0.0);
        assert!(registry.list("alice", false)[0].busy);
        drop(statement);
        assert!(!registry.list("alice", false)[0].busy);
        registry.leave(&control);
        assert!(registry.find(11).is_none());
    }
}
