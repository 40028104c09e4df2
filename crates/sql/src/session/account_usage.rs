//! What each account uses of its resource limits (see
//! [`crate::catalog::account_options`]): its connections open now, and its connections,
//! statements and writing statements in the current hour.
//!
//! Kept per account (`user` and the host pattern it logged in as), for every account, so a
//! limit set later by ALTER USER counts the connections already open. The hour starts at
//! an account's first counted use after the previous hour ended; `FLUSH USER_RESOURCES`
//! ends it for every account. One mutex over the map: taken once per connection and
//! disconnection, and once per statement only for accounts with an hourly statement limit.

use crate::catalog::account_options::ResourceLimits;
use crate::error::SqlError;
use myriad_types::errors::{ER_TOO_MANY_USER_CONNECTIONS, ER_USER_LIMIT_REACHED};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// An account: user name and host pattern.
pub type AccountKey = (String, String);

const HOUR: Duration = Duration::from_secs(3600);

#[derive(Default)]
struct Usage {
    open: u64,
    hour_started: Option<Instant>,
    connections: u64,
    queries: u64,
    updates: u64,
}

impl Usage {
    /// Start a new hour when the last one is over.
    fn roll(&mut self, now: Instant) {
        if self
            .hour_started
            .is_none_or(|t| now.duration_since(t) >= HOUR)
        {
            self.hour_started = Some(now);
            self.connections = 0;
            self.queries = 0;
            self.updates = 0;
        }
    }
}

/// Every account's use of its limits.
#[derive(Default)]
pub struct AccountUsage {
    accounts: Mutex<HashMap<AccountKey, Usage>>,
}

fn limit_reached(user: &str, resource: &str, limit: u64) -> SqlError {
    SqlError::new(
        ER_USER_LIMIT_REACHED,
        format!("User '{user}' has exceeded the '{resource}' resource (current value: {limit})"),
    )
}

impl AccountUsage {
    /// Admit a new connection of `account`: refused (1226, or 1203 under the global
    /// `max_user_connections`, 0 for none) when it would pass a limit, else counted until
    /// [`AccountUsage::disconnect`].
    pub fn connect(
        &self,
        account: &AccountKey,
        limits: &ResourceLimits,
        global_max: u64,
    ) -> Result<(), SqlError> {
        let mut accounts = self.accounts.lock();
        let usage = accounts.entry(account.clone()).or_default();
        let user = &account.0;
        if limits.user_connections > 0 && usage.open >= limits.user_connections {
            return Err(limit_reached(
                user,
                "max_user_connections",
                limits.user_connections,
            ));
        }
        if limits.user_connections == 0 && global_max > 0 && usage.open >= global_max {
            return Err(SqlError::new(
                ER_TOO_MANY_USER_CONNECTIONS,
                format!(
                    "User {user} already has more than 'max_user_connections' active connections"
                ),
            ));
        }
        if limits.connections_per_hour > 0 {
            usage.roll(Instant::now());
            if usage.connections >= limits.connections_per_hour {
                return Err(limit_reached(
                    user,
                    "max_connections_per_hour",
                    limits.connections_per_hour,
                ));
            }
            usage.connections += 1;
        }
        usage.open += 1;
        Ok(())
    }

    /// A connection of `account` closed.
    pub fn disconnect(&self, account: &AccountKey) {
        let mut accounts = self.accounts.lock();
        if let Some(usage) = accounts.get_mut(account) {
            usage.open = usage.open.saturating_sub(1);
            if usage.open == 0 && usage.hour_started.is_none() {
                accounts.remove(account);
            }
        }
    }

    /// Count a statement of `account` (`writes`: one that changes data or definitions)
    /// against its hourly limits: 1226 once a limit is used up.
    pub fn statement(
        &self,
        account: &AccountKey,
        limits: &ResourceLimits,
        writes: bool,
    ) -> Result<(), SqlError> {
        let mut accounts = self.accounts.lock();
        let usage = accounts.entry(account.clone()).or_default();
        usage.roll(Instant::now());
        if limits.queries_per_hour > 0 {
            if usage.queries >= limits.queries_per_hour {
                return Err(limit_reached(
                    &account.0,
                    "max_queries_per_hour",
                    limits.queries_per_hour,
                ));
            }
            usage.queries += 1;
        }
        if writes && limits.updates_per_hour > 0 {
            if usage.updates >= limits.updates_per_hour {
                return Err(limit_reached(
                    &account.0,
                    "max_updates_per_hour",
                    limits.updates_per_hour,
                ));
            }
            usage.updates += 1;
        }
        Ok(())
    }

    /// `FLUSH USER_RESOURCES`: every account's hour ends now.
    pub fn end_hour(&self) {
        let mut accounts = self.accounts.lock();
        accounts.retain(|_, usage| usage.open > 0);
        for usage in accounts.values_mut() {
            usage.hour_started = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> AccountKey {
        (String::from("app"), String::from("%"))
    }

    #[test]
    fn connections_are_limited_while_open() {
        let usage = AccountUsage::default();
        let limits = ResourceLimits {
            user_connections: 2,
            ..Default::default()
        };
        usage.connect(&key(), &limits, 0).unwrap();
        usage.connect(&key(), &limits, 0).unwrap();
        let err = usage.connect(&key(), &limits, 0).unwrap_err();
        assert_eq!(err.code, 1226);
        assert!(
            err.message.contains("'max_user_connections'"),
            "{}",
            err.message
        );
        usage.disconnect(&key());
        usage.connect(&key(), &limits, 0).unwrap();
        // The global limit applies to accounts without their own.
        let none = ResourceLimits::default();
        let other = (String::from("other"), String::from("%"));
        usage.connect(&other, &none, 1).unwrap();
        assert_eq!(usage.connect(&other, &none, 1).unwrap_err().code, 1203);
    }

    #[test]
    fn hourly_limits_count_until_the_hour_ends() {
        let usage = AccountUsage::default();
        let limits = ResourceLimits {
            queries_per_hour: 3,
            updates_per_hour: 1,
            connections_per_hour: 1,
            ..Default::default()
        };
        usage.connect(&key(), &limits, 0).unwrap();
        usage.disconnect(&key());
        assert_eq!(usage.connect(&key(), &limits, 0).unwrap_err().code, 1226);
        usage.statement(&key(), &limits, true).unwrap();
        let err = usage.statement(&key(), &limits, true).unwrap_err();
        assert!(
            err.message.contains("'max_updates_per_hour'"),
            "{}",
            err.message
        );
        usage.statement(&key(), &limits, false).unwrap();
        let err = usage.statement(&key(), &limits, false).unwrap_err();
        assert!(
            err.message.contains("'max_queries_per_hour'"),
            "{}",
            err.message
        );
        usage.end_hour();
        usage.statement(&key(), &limits, false).unwrap();
        usage.connect(&key(), &limits, 0).unwrap();
    }
}
