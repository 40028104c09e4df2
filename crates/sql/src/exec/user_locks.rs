//! User-level locks: GET_LOCK, RELEASE_LOCK, RELEASE_ALL_LOCKS, IS_FREE_LOCK and
//! IS_USED_LOCK, as MariaDB answers them.
//!
//! A lock is a name (compared exactly, case counting) that one connection holds at a time,
//! as many times as it took it: each GET_LOCK by the holder counts once more, and it is
//! free again after as many RELEASE_LOCKs. A session holds any number of them; they outlive
//! COMMIT and ROLLBACK and go with the connection (a disconnect, COM_RESET_CONNECTION,
//! COM_CHANGE_USER). The locks live in the server's lock table
//! ([`crate::session::row_locks`]), so a GET_LOCK that would close a cycle of waits with
//! other user locks or with transactions fails at once with 1213, and KILL QUERY ends a
//! wait.
//!
//! - `GET_LOCK(name, timeout)`: 1 once taken, 0 when `timeout` seconds passed first (0:
//!   do not wait), NULL for a NULL or empty name and for a negative or NULL timeout.
//! - `RELEASE_LOCK(name)`: 1 released once, 0 held by another connection, NULL held by
//!   none.
//! - `RELEASE_ALL_LOCKS()`: how many times the session had taken the locks it let go.
//! - `IS_FREE_LOCK(name)`: 1 free, 0 held; `IS_USED_LOCK(name)`: the holder's connection id
//!   or NULL.

use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::expr::UserLock;
use crate::session::row_locks::RowKey;
use crate::value::Value;
use myriad_types::errors::ER_LOCK_WAIT_TIMEOUT;
use std::time::Duration;

/// The longest wait GET_LOCK takes (a year), whatever it is asked.
const LONGEST_WAIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// The lock table's key of the user lock `name`.
fn key(name: &str) -> RowKey {
    ("\u{1}user lock".to_string(), name.to_string())
}

impl ExecEnv<'_> {
    /// One of the user-lock functions (see the module doc).
    pub(crate) fn run_user_lock(&mut self, call: UserLock<'_>) -> Result<Value, SqlError> {
        let locks = &self.engine.row_locks;
        let me = self.info.connection_id;
        let mut held = self.state.user_locks.lock();
        Ok(match call {
            UserLock::Get { name, timeout } => {
                let Some(name) = name.filter(|n| !n.is_empty()) else {
                    return Ok(Value::Null);
                };
                let wait = Duration::try_from_secs_f64(timeout)
                    .map_or(LONGEST_WAIT, |w| w.min(LONGEST_WAIT));
                drop(held);
                match locks.lock(me, key(name), wait) {
                    Ok(_) => {
                        *self
                            .state
                            .user_locks
                            .lock()
                            .entry(name.to_string())
                            .or_insert(0) += 1;
                        Value::Int(1)
                    }
                    Err(e) if e.code == ER_LOCK_WAIT_TIMEOUT.code => Value::Int(0),
                    Err(e) => return Err(e),
                }
            }
            UserLock::Release(name) => {
                let Some(name) = name else {
                    return Ok(Value::Null);
                };
                match held.get_mut(name) {
                    Some(count) => {
                        *count -= 1;
                        if *count == 0 {
                            held.remove(name);
                            locks.release(me, &mut vec![key(name)]);
                        }
                        Value::Int(1)
                    }
                    None if locks.holder(&key(name)).is_some() => Value::Int(0),
                    None => Value::Null,
                }
            }
            UserLock::ReleaseAll => {
                let taken: u32 = held.values().sum();
                let mut keys: Vec<RowKey> = held.drain().map(|(name, _)| key(&name)).collect();
                locks.release(me, &mut keys);
                Value::Int(i64::from(taken))
            }
            UserLock::IsFree(name) => match name {
                None => Value::Null,
                Some(name) => Value::Int(i64::from(locks.holder(&key(name)).is_none())),
            },
            UserLock::IsUsed(name) => match name.and_then(|n| locks.holder(&key(n))) {
                None => Value::Null,
                Some(id) => Value::UInt(u64::from(id)),
            },
        })
    }
}

/// Let go of every user lock a session holds (it ends or is reset).
pub(crate) fn release_all(
    engine: &crate::Engine,
    connection_id: u32,
    state: &crate::session::SessionState,
) {
    let mut held = state.user_locks.lock();
    let mut keys: Vec<RowKey> = held.drain().map(|(name, _)| key(&name)).collect();
    engine.row_locks.release(connection_id, &mut keys);
}
