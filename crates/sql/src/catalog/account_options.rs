//! What an account statement may say of an account besides its name and password:
//! `REQUIRE ...` ([`TlsRequire`]), `WITH MAX_... n` resource limits ([`ResourceLimits`])
//! and `ACCOUNT LOCK | UNLOCK`, as MariaDB 10.11 takes them in CREATE USER, ALTER USER
//! and GRANT, and writes them in SHOW CREATE USER and SHOW GRANTS.
//!
//! Limits, as MariaDB enforces them (0: no limit):
//! - `MAX_USER_CONNECTIONS n`: connections of the account open at once; one more is
//!   refused with 1226 (without it, the global `max_user_connections` applies: 1203).
//! - `MAX_CONNECTIONS_PER_HOUR n`, `MAX_QUERIES_PER_HOUR n`, `MAX_UPDATES_PER_HOUR n`:
//!   connections, statements and writing statements of the account within an hour from
//!   the first counted; past the limit 1226 until the hour is over (or
//!   `FLUSH USER_RESOURCES`).
//! - `MAX_STATEMENT_TIME s`: the account's sessions start with `max_statement_time = s`.
//!
//! Password expiry ([`PasswordExpiry`]), as MariaDB keeps it: `PASSWORD EXPIRE` expires
//! the password now; `PASSWORD EXPIRE INTERVAL n DAY | NEVER | DEFAULT` sets how long a
//! password lasts after it was set (DEFAULT: `default_password_lifetime` days, 0 for
//! ever). A login with an expired password gets a session that may only run SET
//! statements (1820 for anything else) until `SET PASSWORD` gives the account a new one;
//! with `disconnect_on_expired_password`, a client that did not say it handles expired
//! passwords is refused at login (1862).

use super::tls_require::TlsRequire;

/// An account's resource limits (0: none).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ResourceLimits {
    pub queries_per_hour: u64,
    pub updates_per_hour: u64,
    pub connections_per_hour: u64,
    pub user_connections: u64,
    /// Seconds (0: none).
    pub statement_time: f64,
}

/// The limits a statement names; the others keep their value.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LimitChanges {
    pub queries_per_hour: Option<u64>,
    pub updates_per_hour: Option<u64>,
    pub connections_per_hour: Option<u64>,
    pub user_connections: Option<u64>,
    pub statement_time: Option<f64>,
}

/// The option names in MariaDB's order, with the limit each sets.
pub const LIMIT_NAMES: [&str; 5] = [
    "MAX_QUERIES_PER_HOUR",
    "MAX_UPDATES_PER_HOUR",
    "MAX_CONNECTIONS_PER_HOUR",
    "MAX_USER_CONNECTIONS",
    "MAX_STATEMENT_TIME",
];

impl LimitChanges {
    pub fn is_empty(&self) -> bool {
        *self == LimitChanges::default()
    }

    /// Record `name` (one of [`LIMIT_NAMES`]) = `value`; false for another name.
    pub fn set(&mut self, name: &str, value: f64) -> bool {
        let whole = value.max(0.0).min(u64::MAX as f64) as u64;
        match name {
            "MAX_QUERIES_PER_HOUR" => self.queries_per_hour = Some(whole),
            "MAX_UPDATES_PER_HOUR" => self.updates_per_hour = Some(whole),
            "MAX_CONNECTIONS_PER_HOUR" => self.connections_per_hour = Some(whole),
            "MAX_USER_CONNECTIONS" => self.user_connections = Some(whole),
            "MAX_STATEMENT_TIME" => self.statement_time = Some(value.max(0.0)),
            _ => return false,
        }
        true
    }
}

impl ResourceLimits {
    /// These limits with `changes` applied.
    pub fn changed(mut self, changes: &LimitChanges) -> ResourceLimits {
        let c = changes;
        self.queries_per_hour = c.queries_per_hour.unwrap_or(self.queries_per_hour);
        self.updates_per_hour = c.updates_per_hour.unwrap_or(self.updates_per_hour);
        self.connections_per_hour = c.connections_per_hour.unwrap_or(self.connections_per_hour);
        self.user_connections = c.user_connections.unwrap_or(self.user_connections);
        self.statement_time = c.statement_time.unwrap_or(self.statement_time);
        self
    }

    /// Whether any hourly limit is set (statements then count toward it).
    pub fn counts_statements(&self) -> bool {
        self.queries_per_hour > 0 || self.updates_per_hour > 0
    }

    fn values(&self) -> [f64; 5] {
        [
            self.queries_per_hour as f64,
            self.updates_per_hour as f64,
            self.connections_per_hour as f64,
            self.user_connections as f64,
            self.statement_time,
        ]
    }

    /// ` WITH MAX_QUERIES_PER_HOUR 5 ...` as SHOW GRANTS writes it (empty without limits).
    pub fn clause(&self) -> String {
        let mut out = String::new();
        for (name, value) in LIMIT_NAMES.iter().zip(self.values()) {
            if value == 0.0 {
                continue;
            }
            if out.is_empty() {
                out.push_str(" WITH");
            }
            if *name == "MAX_STATEMENT_TIME" {
                out.push_str(&format!(" {name} {value:.6}"));
            } else {
                out.push_str(&format!(" {name} {value}"));
            }
        }
        out
    }

    /// The accounts file's field (None without limits): `x:q:u:c:uc:st`.
    pub(crate) fn encode(&self) -> Option<String> {
        if *self == ResourceLimits::default() {
            return None;
        }
        Some(format!(
            "x:{}:{}:{}:{}:{}",
            self.queries_per_hour,
            self.updates_per_hour,
            self.connections_per_hour,
            self.user_connections,
            self.statement_time
        ))
    }

    /// The limits a field (after `x:`) holds.
    pub(crate) fn decode(field: &str) -> Option<ResourceLimits> {
        let mut parts = field.split(':');
        let mut next = || parts.next()?.parse::<u64>().ok();
        let limits = ResourceLimits {
            queries_per_hour: next()?,
            updates_per_hour: next()?,
            connections_per_hour: next()?,
            user_connections: next()?,
            statement_time: 0.0,
        };
        let statement_time = field.rsplit(':').next()?.parse::<f64>().ok()?;
        Some(ResourceLimits {
            statement_time,
            ..limits
        })
    }
}

/// What CREATE USER, ALTER USER or GRANT says after the accounts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AccountOptions {
    /// `REQUIRE ...` (None: not said).
    pub require: Option<TlsRequire>,
    pub limits: LimitChanges,
    /// `ACCOUNT LOCK` (true) or `ACCOUNT UNLOCK` (false).
    pub lock: Option<bool>,
    /// `PASSWORD EXPIRE ...` (CREATE and ALTER USER only).
    pub expire: Option<ExpireClause>,
}

/// How long an account's password lasts after it was set.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum PasswordLifetime {
    /// `default_password_lifetime` days (0: for ever).
    #[default]
    Default,
    Never,
    Days(u32),
}

/// `PASSWORD EXPIRE [INTERVAL n DAY | NEVER | DEFAULT]` as a statement says it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ExpireClause {
    /// `PASSWORD EXPIRE`: the password is expired now.
    Now,
    Lifetime(PasswordLifetime),
}

/// Seconds in a day of a password lifetime.
const DAY_SECONDS: u64 = 86_400;

/// An account's password expiry (see the module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PasswordExpiry {
    /// Expired by `PASSWORD EXPIRE`, until a new password is set.
    pub expired: bool,
    pub lifetime: PasswordLifetime,
    /// When the password was last set, in Unix seconds.
    pub changed_at: u64,
}

impl PasswordExpiry {
    /// A password set at `now` (Unix seconds) with `lifetime`.
    pub fn set_at(now: u64, lifetime: PasswordLifetime) -> PasswordExpiry {
        PasswordExpiry {
            expired: false,
            lifetime,
            changed_at: now,
        }
    }

    /// Whether the password is expired at `now`, with `default_days` the
    /// `default_password_lifetime`.
    pub fn is_expired(&self, now: u64, default_days: u64) -> bool {
        let days = match self.lifetime {
            PasswordLifetime::Default => default_days,
            PasswordLifetime::Never => 0,
            PasswordLifetime::Days(n) => u64::from(n),
        };
        self.expired || (days > 0 && now >= self.changed_at.saturating_add(days * DAY_SECONDS))
    }

    /// What a statement's clause changes: the expired mark or the lifetime.
    pub fn apply(&mut self, clause: ExpireClause) {
        match clause {
            ExpireClause::Now => self.expired = true,
            ExpireClause::Lifetime(lifetime) => self.lifetime = lifetime,
        }
    }

    /// SHOW CREATE USER's words: what the CREATE USER line ends with, and the lifetime of
    /// an expired password, which MariaDB writes on a second line `ALTER USER ...`.
    pub fn clauses(&self) -> (String, Option<String>) {
        let lifetime = match self.lifetime {
            PasswordLifetime::Default => None,
            PasswordLifetime::Never => Some(" PASSWORD EXPIRE NEVER".to_string()),
            PasswordLifetime::Days(n) => Some(format!(" PASSWORD EXPIRE INTERVAL {n} DAY")),
        };
        if self.expired {
            (" PASSWORD EXPIRE".to_string(), lifetime)
        } else {
            (lifetime.unwrap_or_default(), None)
        }
    }

    /// The accounts file's fields: `pe` when expired, `pl:n` (never) or `pl:<days>`, and
    /// `pc:<seconds>`.
    pub(crate) fn encode(&self) -> [Option<String>; 3] {
        let lifetime = match self.lifetime {
            PasswordLifetime::Default => None,
            PasswordLifetime::Never => Some("pl:n".to_string()),
            PasswordLifetime::Days(n) => Some(format!("pl:{n}")),
        };
        [
            self.expired.then(|| "pe".to_string()),
            lifetime,
            Some(format!("pc:{}", self.changed_at)),
        ]
    }

    /// Read one file field into `self`; false when `field` is none of this type's.
    pub(crate) fn decode_field(&mut self, field: &str) -> Option<bool> {
        if field == "pe" {
            self.expired = true;
        } else if let Some(text) = field.strip_prefix("pl:") {
            self.lifetime = match text {
                "n" => PasswordLifetime::Never,
                days => PasswordLifetime::Days(days.parse().ok()?),
            };
        } else if let Some(text) = field.strip_prefix("pc:") {
            self.changed_at = text.parse().ok()?;
        } else {
            return Some(false);
        }
        Some(true)
    }
}

/// The time now in Unix seconds.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_follow_mariadbs_order_and_spelling() {
        let mut changes = LimitChanges::default();
        assert!(changes.set("MAX_STATEMENT_TIME", 2.5));
        assert!(changes.set("MAX_USER_CONNECTIONS", 1.0));
        assert!(changes.set("MAX_QUERIES_PER_HOUR", 5.0));
        assert!(!changes.set("MAX_ROWS", 1.0));
        let limits = ResourceLimits::default().changed(&changes);
        assert_eq!(
            limits.clause(),
            " WITH MAX_QUERIES_PER_HOUR 5 MAX_USER_CONNECTIONS 1 MAX_STATEMENT_TIME 2.500000"
        );
        assert_eq!(ResourceLimits::default().clause(), "");
        // A later statement changes only what it names.
        let mut more = LimitChanges::default();
        more.set("MAX_QUERIES_PER_HOUR", 0.0);
        let limits = limits.changed(&more);
        assert_eq!(limits.queries_per_hour, 0);
        assert_eq!(limits.user_connections, 1);
    }

    #[test]
    fn passwords_expire_when_marked_or_past_their_lifetime() {
        let day = DAY_SECONDS;
        let mut expiry = PasswordExpiry::set_at(1000, PasswordLifetime::Default);
        assert!(
            !expiry.is_expired(1000 + 400 * day, 0),
            "default 0: for ever"
        );
        assert!(!expiry.is_expired(1000 + 29 * day, 30));
        assert!(expiry.is_expired(1000 + 30 * day, 30));
        expiry.apply(ExpireClause::Lifetime(PasswordLifetime::Days(2)));
        assert!(!expiry.is_expired(1000 + day, 0));
        assert!(expiry.is_expired(1000 + 2 * day, 0));
        assert_eq!(
            expiry.clauses(),
            (" PASSWORD EXPIRE INTERVAL 2 DAY".into(), None)
        );
        expiry.apply(ExpireClause::Lifetime(PasswordLifetime::Never));
        assert!(!expiry.is_expired(u64::MAX, 30));
        expiry.apply(ExpireClause::Now);
        assert!(expiry.is_expired(1000, 0));
        assert_eq!(
            expiry.clauses(),
            (
                " PASSWORD EXPIRE".into(),
                Some(" PASSWORD EXPIRE NEVER".into())
            )
        );
        let mut read = PasswordExpiry::default();
        for field in expiry.encode().into_iter().flatten() {
            assert_eq!(read.decode_field(&field), Some(true), "{field}");
        }
        assert_eq!(read, expiry);
        assert_eq!(read.decode_field("l"), Some(false));
    }

    #[test]
    fn file_fields_read_back_what_was_written() {
        let limits = ResourceLimits {
            queries_per_hour: 5,
            updates_per_hour: 0,
            connections_per_hour: 7,
            user_connections: 2,
            statement_time: 0.25,
        };
        let field = limits.encode().unwrap();
        assert_eq!(
            ResourceLimits::decode(field.strip_prefix("x:").unwrap()),
            Some(limits)
        );
        assert_eq!(ResourceLimits::default().encode(), None);
    }
}
