//! Accounts: `user`@`host` with its credential (see [`super::auth_plugins`]) and its
//! grants (see [`super::privileges`]), stored durably in the datadir.
//!
//! The file `myriad-accounts.txt` holds one account per line: user, host pattern and the
//! credential, each field hex-encoded so no name needs escaping (the credential: the hex of
//! SHA1(SHA1(password)) for mysql_native_password, empty for no password; `e:` and the hex
//! of the public key, or `e:` alone, for ed25519); then `g:` and the global privileges' bits in hex, one
//! `d:<hex name>:<hex bits>` per database grant, one `t:<hex db>:<hex table>:<hex bits>`
//! per table grant and one `c:<hex db>:<hex table>:<hex column>:<hex bits>` per column
//! grant, `r:...` for a TLS requirement ([`TlsRequire`]), `x:...` for resource limits
//! ([`ResourceLimits`]), `l` for a locked account, `o` for a role, `m:<hex role>:<0|1>` per
//! role granted (1: WITH ADMIN OPTION), `dr:<hex role>` for its default role and `p:...`
//! per PROXY grant ([`ProxyGrant`]). A line
//! without `g:` was written before grants existed: its account keeps every privilege it had
//! then, all of them. Every change rewrites the whole file the crash-safe way: write a temp
//! file, fsync it, rename it over the old one, fsync the directory. Accounts are few, so a
//! rewrite per CREATE/ALTER/DROP USER is cheap and the file is never half-written.
//!
//! Host patterns use `%` and `_` wildcards as in MySQL; `localhost` also matches the
//! loopback addresses, as a local client may arrive over TCP. Several matching accounts are
//! ranked as MySQL does: the most specific host (fewest wildcards, longest literal prefix)
//! wins.

use super::account_options::{
    unix_now, AccountOptions, PasswordExpiry, PasswordLifetime, ResourceLimits,
};
use super::privileges::{ColumnGrant, Grants, Level, Privs};
use super::proxies::ProxyGrant;
use super::tls_require::TlsRequire;
use crate::error::SqlError;
use crate::AccountAuth;
use myriad_types::auth::Credential;
use myriad_types::errors::ER_UNKNOWN_ERROR;
use parking_lot::RwLock;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub const ACCOUNTS_FILE: &str = "myriad-accounts.txt";

#[derive(Debug, Clone, PartialEq)]
pub struct Account {
    pub user: String,
    pub host: String,
    pub auth: AccountAuth,
    pub grants: Grants,
    /// `ACCOUNT LOCK`: every login is refused (4151).
    pub locked: bool,
    pub limits: ResourceLimits,
    /// A role (CREATE ROLE): its host is empty and no one logs in as it.
    pub is_role: bool,
    /// The roles granted to this account, each with whether WITH ADMIN OPTION.
    pub roles: Vec<(String, bool)>,
    /// The role its sessions start with (SET DEFAULT ROLE).
    pub default_role: Option<String>,
    /// `PASSWORD EXPIRE ...` and when the password was set.
    pub password_expiry: PasswordExpiry,
    /// Its PROXY grants, the newest first (see [`super::proxies`]).
    pub proxies: Vec<ProxyGrant>,
}

/// What a login needs of its account (see [`Accounts::login`]).
pub struct Login {
    pub host: String,
    pub locked: bool,
    pub limits: ResourceLimits,
    pub password_expiry: PasswordExpiry,
}

impl Account {
    /// A new account or role without grants, its password set now.
    pub fn new(user: &str, host: &str, credential: Credential) -> Account {
        Account {
            user: user.into(),
            host: host.into(),
            auth: AccountAuth {
                credential,
                require: TlsRequire::None,
            },
            grants: Grants::default(),
            locked: false,
            limits: ResourceLimits::default(),
            is_role: false,
            roles: Vec::new(),
            default_role: None,
            password_expiry: PasswordExpiry::set_at(unix_now(), PasswordLifetime::Default),
            proxies: Vec::new(),
        }
    }

    /// Whether this is the account named exactly `user`@`host` (host names ignore case).
    pub fn is_named(&self, user: &str, host: &str) -> bool {
        self.user == user && self.host.eq_ignore_ascii_case(host)
    }
}

pub struct Accounts {
    path: PathBuf,
    pub(super) list: RwLock<Vec<Account>>,
    /// Bumped by every change of an account or its grants: a session's cached grants are
    /// good while it has not moved.
    generation: AtomicU64,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Does `host` match the account's host pattern? A pattern `a.b.c.d/m.m.m.m` (MariaDB's
/// IPv4 address and netmask) matches the IPv4 addresses whose bits under the mask are the
/// address's (a local client over TCP, shown as `localhost`, is 127.0.0.1).
pub fn host_matches(pattern: &str, host: &str) -> bool {
    let loopback = ["localhost", "127.0.0.1", "::1"];
    if pattern.eq_ignore_ascii_case("localhost") {
        return loopback.iter().any(|l| l.eq_ignore_ascii_case(host));
    }
    if let Some((net, mask)) = netmask(pattern) {
        let ip = match host {
            "localhost" => Some(std::net::Ipv4Addr::LOCALHOST),
            _ => host.parse().ok(),
        };
        return ip.is_some_and(|ip: std::net::Ipv4Addr| u32::from(ip) & mask == net);
    }
    crate::expr::eval::like_match(
        host.as_bytes(),
        pattern.as_bytes(),
        b'\\',
        myriad_types::Collation::Utf8mb4GeneralCi,
    )
}

/// The network and mask of an `address/netmask` host pattern (both four-part IPv4), else None.
fn netmask(pattern: &str) -> Option<(u32, u32)> {
    let (net, mask) = pattern.split_once('/')?;
    let net: std::net::Ipv4Addr = net.parse().ok()?;
    let mask: std::net::Ipv4Addr = mask.parse().ok()?;
    Some((u32::from(net), u32::from(mask)))
}

/// Higher is more specific.
fn host_specificity(pattern: &str) -> (bool, usize) {
    let wild = pattern.find(['%', '_']);
    (wild.is_none(), wild.unwrap_or(pattern.len()))
}

impl Accounts {
    /// Load the accounts file, creating it with root@localhost (no password) when missing.
    pub fn open(datadir: &Path) -> Result<Accounts, SqlError> {
        let path = datadir.join(ACCOUNTS_FILE);
        let accounts = Accounts {
            path,
            list: RwLock::new(Vec::new()),
            generation: AtomicU64::new(0),
        };
        match std::fs::read_to_string(&accounts.path) {
            Ok(text) => {
                let mut list = Vec::new();
                for (n, line) in text
                    .lines()
                    .enumerate()
                    .filter(|(_, l)| !l.trim().is_empty())
                {
                    list.push(parse_line(line).ok_or_else(|| {
                        io_error(format!(
                            "{}: line {} is not an account",
                            accounts.path.display(),
                            n + 1
                        ))
                    })?);
                }
                *accounts.list.write() = list;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let root = Account {
                    grants: Grants::all(),
                    proxies: vec![ProxyGrant::everyone(unix_now())],
                    ..Account::new("root", "localhost", Credential::NativePassword(None))
                };
                accounts.store(std::slice::from_ref(&root))?;
                *accounts.list.write() = vec![root];
            }
            Err(e) => return Err(io_error(format!("{}: {e}", accounts.path.display()))),
        }
        Ok(accounts)
    }

    /// How `user`@`host` authenticates, or None when no account matches.
    pub fn find(&self, user: &str, host: &str) -> Option<AccountAuth> {
        self.matching(user, host, |a| a.auth.clone())
    }

    /// What a login as `user`@`host` needs of the account it authenticates as: its host
    /// pattern, whether it is locked, its resource limits and its password's expiry.
    pub fn login(&self, user: &str, host: &str) -> Option<Login> {
        self.matching(user, host, |a| Login {
            host: a.host.clone(),
            locked: a.locked,
            limits: a.limits,
            password_expiry: a.password_expiry,
        })
    }

    /// Every account, in the order created.
    pub fn list(&self) -> Vec<Account> {
        self.list.read().clone()
    }

    /// The host pattern of the account `user`@`host` authenticates as (for CURRENT_USER()).
    pub fn matching_host(&self, user: &str, host: &str) -> Option<String> {
        self.matching(user, host, |a| a.host.clone())
    }

    /// `read` of the account `user`@`host` authenticates as: of the accounts of `user`
    /// whose host pattern matches `host`, the most specific pattern's.
    fn matching<T>(&self, user: &str, host: &str, read: impl FnOnce(&Account) -> T) -> Option<T> {
        let list = self.list.read();
        list.iter()
            .filter(|a| !a.is_role && a.user == user && host_matches(&a.host, host))
            .max_by_key(|a| host_specificity(&a.host))
            .map(read)
    }

    /// The grants of the account `user`@`host` authenticates as, and the generation they
    /// were read at (see [`Accounts::generation`]).
    pub fn grants_of(&self, user: &str, host: &str) -> (Option<Grants>, u64) {
        let generation = self.generation();
        (self.matching(user, host, |a| a.grants.clone()), generation)
    }

    /// The grants of the account named exactly `user`@`host` (SHOW GRANTS FOR).
    pub fn grants_of_account(&self, user: &str, host: &str) -> Option<Account> {
        self.list
            .read()
            .iter()
            .find(|a| a.is_named(user, host))
            .cloned()
    }

    /// Changes so far to accounts and grants.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// GRANT (`revoke` false) or REVOKE `privs` at `level` for the account `user`@`host`.
    /// None when there is no such account; Some(false) for a REVOKE of a grant that does
    /// not exist.
    pub fn change_grants(
        &self,
        (user, host): (&str, &str),
        level: Level,
        privs: Privs,
        revoke: bool,
    ) -> Result<Option<bool>, SqlError> {
        self.edit(user, host, |account| {
            if revoke {
                account.grants.revoke(level, privs)
            } else {
                account.grants.grant(level, privs);
                true
            }
        })
    }

    /// GRANT (`revoke` false) or REVOKE on table `db`.`table`: the table privileges
    /// `privs` and the column privileges `columns` (each column as the table spells it).
    /// None when there is no such account; Some(false) for a REVOKE on a table the account
    /// holds no grant on.
    pub fn change_table_grants(
        &self,
        (user, host): (&str, &str),
        (db, table): (&str, &str),
        privs: Privs,
        columns: &[(String, Privs)],
        revoke: bool,
    ) -> Result<Option<bool>, SqlError> {
        self.edit(user, host, |account| {
            let grants = &mut account.grants;
            if revoke {
                // The columns first: they may refuse before anything changes (and may
                // leave no entry for the table-level REVOKE, which has nothing to do then).
                let found = grants.revoke_columns(db, table, columns);
                if found {
                    grants.revoke(Level::Table(db, table), privs);
                }
                found
            } else {
                grants.grant(Level::Table(db, table), privs);
                grants.grant_columns(db, table, columns);
                true
            }
        })
    }

    /// Apply `edit` to the account named exactly `user`@`host` and store the list when it
    /// answers true. None when there is no such account, else what `edit` answered.
    pub(super) fn edit(
        &self,
        user: &str,
        host: &str,
        edit: impl FnOnce(&mut Account) -> bool,
    ) -> Result<Option<bool>, SqlError> {
        let mut list = self.list.write();
        let mut next = list.clone();
        let Some(account) = next.iter_mut().find(|a| a.is_named(user, host)) else {
            return Ok(None);
        };
        let changed = edit(account);
        if changed {
            self.store(&next)?;
            *list = next;
        }
        Ok(Some(changed))
    }

    pub fn exists(&self, user: &str, host: &str) -> bool {
        self.list.read().iter().any(|a| a.is_named(user, host))
    }

    /// CREATE USER ... IDENTIFIED BY 'password'. Returns false when it exists already.
    pub fn create(&self, user: &str, host: &str, password: &str) -> Result<bool, SqlError> {
        let credential = Credential::NativePassword(super::auth_plugins::native_hash(password));
        self.create_with(user, host, credential)
    }

    /// CREATE USER with its credential. Returns false when it exists already.
    pub fn create_with(
        &self,
        user: &str,
        host: &str,
        credential: Credential,
    ) -> Result<bool, SqlError> {
        let mut list = self.list.write();
        if list.iter().any(|a| a.is_named(user, host)) {
            return Ok(false);
        }
        let mut next = list.clone();
        next.push(Account::new(user, host, credential));
        self.store(&next)?;
        *list = next;
        Ok(true)
    }

    /// ALTER USER ... IDENTIFIED BY 'password'. Returns false when there is no such account.
    pub fn set_password(&self, user: &str, host: &str, password: &str) -> Result<bool, SqlError> {
        let credential = Credential::NativePassword(super::auth_plugins::native_hash(password));
        self.set_credential(user, host, credential)
    }

    /// The credential of the account named exactly `user`@`host`, if there is one.
    pub fn credential(&self, user: &str, host: &str) -> Option<Credential> {
        let list = self.list.read();
        let account = list.iter().find(|a| a.is_named(user, host))?;
        Some(account.auth.credential)
    }

    /// A new credential for the account named exactly `user`@`host` (ALTER USER ...
    /// IDENTIFIED, SET PASSWORD). Returns false when there is no such account.
    pub fn set_credential(
        &self,
        user: &str,
        host: &str,
        credential: Credential,
    ) -> Result<bool, SqlError> {
        let changed = self.edit(user, host, |account| {
            account.auth.credential = credential;
            // A new password: not expired, its lifetime counted from now.
            let lifetime = account.password_expiry.lifetime;
            account.password_expiry = PasswordExpiry::set_at(unix_now(), lifetime);
            true
        })?;
        Ok(changed.is_some())
    }

    /// Apply what an account statement said of the account named exactly `user`@`host`
    /// (`REQUIRE`, `WITH MAX_...`, `ACCOUNT LOCK`; what it did not say is kept). Returns
    /// false when there is no such account.
    pub fn set_options(
        &self,
        user: &str,
        host: &str,
        options: &AccountOptions,
    ) -> Result<bool, SqlError> {
        let changed = self.edit(user, host, |account| {
            let before = account.clone();
            if let Some(require) = &options.require {
                account.auth.require = require.clone();
            }
            account.limits = account.limits.changed(&options.limits);
            if let Some(lock) = options.lock {
                account.locked = lock;
            }
            if let Some(clause) = options.expire {
                account.password_expiry.apply(clause);
            }
            *account != before
        })?;
        Ok(changed.is_some())
    }

    /// RENAME USER: false when `from` does not exist or `to` does.
    pub fn rename(&self, from: (&str, &str), to: (&str, &str)) -> Result<bool, SqlError> {
        let mut list = self.list.write();
        if list.iter().any(|a| a.is_named(to.0, to.1))
            || !list.iter().any(|a| a.is_named(from.0, from.1))
        {
            return Ok(false);
        }
        let mut next = list.clone();
        for a in next.iter_mut().filter(|a| a.is_named(from.0, from.1)) {
            a.user = to.0.to_string();
            a.host = to.1.to_string();
        }
        self.store(&next)?;
        *list = next;
        Ok(true)
    }

    /// DROP USER. Returns false when there is no such account.
    pub fn drop_account(&self, user: &str, host: &str) -> Result<bool, SqlError> {
        let mut list = self.list.write();
        let before = list.len();
        let next: Vec<Account> = list
            .iter()
            .filter(|a| !(a.is_named(user, host)))
            .cloned()
            .collect();
        if next.len() == before {
            return Ok(false);
        }
        self.store(&next)?;
        *list = next;
        Ok(true)
    }

    /// Write the file crash-safely: temp file, fsync, rename, fsync the directory.
    pub(super) fn store(&self, list: &[Account]) -> Result<(), SqlError> {
        let mut text = String::new();
        for a in list {
            let hash = match a.auth.credential {
                Credential::NativePassword(hash) => hash.map(|h| hex(&h)).unwrap_or_default(),
                Credential::Ed25519(key) => {
                    format!("e:{}", key.map(|k| hex(&k)).unwrap_or_default())
                }
            };
            text.push_str(&format!(
                "{} {} {} g:{:x}",
                hex(a.user.as_bytes()),
                hex(a.host.as_bytes()),
                hash,
                a.grants.global.0
            ));
            let fields = [
                a.auth.require.encode(hex),
                a.limits.encode(),
                a.locked.then(|| String::from("l")),
                a.is_role.then(|| String::from("o")),
                a.default_role
                    .as_ref()
                    .map(|r| format!("dr:{}", hex(r.as_bytes()))),
            ];
            let expiry = a.password_expiry.encode();
            let roles = a
                .roles
                .iter()
                .map(|(r, admin)| Some(format!("m:{}:{}", hex(r.as_bytes()), u8::from(*admin))));
            let proxies = a.proxies.iter().map(|p| Some(p.encode(hex)));
            let fields = fields.into_iter().chain(expiry).chain(roles).chain(proxies);
            for field in fields.flatten() {
                text.push(' ');
                text.push_str(&field);
            }
            for (db, privs) in &a.grants.databases {
                text.push_str(&format!(" d:{}:{:x}", hex(db.as_bytes()), privs.0));
            }
            for (db, table, privs) in &a.grants.tables {
                text.push_str(&format!(
                    " t:{}:{}:{:x}",
                    hex(db.as_bytes()),
                    hex(table.as_bytes()),
                    privs.0
                ));
            }
            for c in &a.grants.columns {
                text.push_str(&format!(
                    " c:{}:{}:{}:{:x}",
                    hex(c.database.as_bytes()),
                    hex(c.table.as_bytes()),
                    hex(c.column.as_bytes()),
                    c.privs.0
                ));
            }
            text.push('\n');
        }
        let tmp = self.path.with_extension("tmp");
        let fail = |e: std::io::Error| io_error(format!("{}: {e}", self.path.display()));
        {
            // Password hashes: readable by the server's user only.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(myriad_storage::PRIVATE_FILE_MODE)
                .open(&tmp)
                .map_err(fail)?;
            f.write_all(text.as_bytes()).map_err(fail)?;
            f.sync_all().map_err(fail)?;
        }
        std::fs::rename(&tmp, &self.path).map_err(fail)?;
        self.generation.fetch_add(1, Ordering::AcqRel);
        if let Some(dir) = self.path.parent() {
            std::fs::File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(fail)?;
        }
        Ok(())
    }
}

fn parse_line(line: &str) -> Option<Account> {
    let mut fields = line.split(' ');
    let user = String::from_utf8(unhex(fields.next()?)?).ok()?;
    let host = String::from_utf8(unhex(fields.next()?)?).ok()?;
    let hash_text = fields.next().unwrap_or("");
    let credential = if let Some(key) = hash_text.strip_prefix("e:") {
        let key = (!key.is_empty()).then(|| unhex(key));
        Credential::Ed25519(match key {
            Some(bytes) => Some(<[u8; 32]>::try_from(bytes?.as_slice()).ok()?),
            None => None,
        })
    } else if hash_text.is_empty() {
        Credential::NativePassword(None)
    } else {
        let bytes = unhex(hash_text)?;
        Credential::NativePassword(Some(<[u8; 20]>::try_from(bytes.as_slice()).ok()?))
    };
    let mut grants = None;
    let mut require = TlsRequire::None;
    let mut limits = ResourceLimits::default();
    let mut locked = false;
    let mut is_role = false;
    let mut roles = Vec::new();
    let mut default_role = None;
    let mut proxies = Vec::new();
    // A line written before expiry was kept: its password counts as set when read.
    let mut password_expiry = PasswordExpiry::set_at(unix_now(), PasswordLifetime::Default);
    for field in fields {
        let bits = |text: &str| u64::from_str_radix(text, 16).ok().map(Privs);
        if password_expiry.decode_field(field)? {
            continue;
        }
        if let Some(text) = field.strip_prefix("p:") {
            proxies.push(ProxyGrant::decode(text, unhex)?);
        } else if let Some(text) = field.strip_prefix("r:") {
            require = TlsRequire::decode(text, unhex)?;
        } else if let Some(text) = field.strip_prefix("x:") {
            limits = ResourceLimits::decode(text)?;
        } else if field == "l" {
            locked = true;
        } else if field == "o" {
            is_role = true;
        } else if let Some(text) = field.strip_prefix("dr:") {
            default_role = Some(String::from_utf8(unhex(text)?).ok()?);
        } else if let Some(text) = field.strip_prefix("m:") {
            let (role, admin) = text.split_once(':')?;
            roles.push((String::from_utf8(unhex(role)?).ok()?, admin == "1"));
        } else if let Some(global) = field.strip_prefix("g:") {
            grants.get_or_insert_with(Grants::default).global = bits(global)?;
        } else if let Some(table) = field.strip_prefix("t:") {
            let mut parts = table.split(':');
            let db = String::from_utf8(unhex(parts.next()?)?).ok()?;
            let name = String::from_utf8(unhex(parts.next()?)?).ok()?;
            let privs = bits(parts.next()?)?;
            grants
                .get_or_insert_with(Grants::default)
                .tables
                .push((db, name, privs));
        } else if let Some(column) = field.strip_prefix("c:") {
            let mut parts = column.split(':');
            let mut name = || String::from_utf8(unhex(parts.next()?)?).ok();
            let (database, table, column) = (name()?, name()?, name()?);
            let privs = bits(parts.next()?)?;
            grants
                .get_or_insert_with(Grants::default)
                .columns
                .push(ColumnGrant {
                    database,
                    table,
                    column,
                    privs,
                });
        } else {
            let (db, privs) = field.strip_prefix("d:")?.split_once(':')?;
            let db = String::from_utf8(unhex(db)?).ok()?;
            let privs = bits(privs)?;
            grants
                .get_or_insert_with(Grants::default)
                .databases
                .push((db, privs));
        }
    }
    Some(Account {
        user,
        host,
        auth: AccountAuth {
            credential,
            require,
        },
        // Written before grants existed: the account could do everything then.
        grants: grants.unwrap_or_else(Grants::all),
        locked,
        limits,
        is_role,
        roles,
        default_role,
        password_expiry,
        proxies,
    })
}

fn io_error(message: String) -> SqlError {
    SqlError::new(ER_UNKNOWN_ERROR, message)
}

#[cfg(test)]
mod tests {
    use super::super::auth_plugins::native_hash;
    use super::*;

    #[test]
    fn default_root_and_durable_changes() {
        let dir = tempfile::tempdir().unwrap();
        let accounts = Accounts::open(dir.path()).unwrap();
        for host in ["localhost", "127.0.0.1", "::1"] {
            assert_eq!(
                accounts.find("root", host),
                Some(AccountAuth {
                    require: TlsRequire::None,
                    credential: Credential::NativePassword(None)
                })
            );
        }
        assert_eq!(accounts.find("root", "10.0.0.1"), None);
        assert!(accounts.create("app", "10.0.%", "pw").unwrap());
        assert!(!accounts.create("app", "10.0.%", "pw").unwrap());
        assert!(accounts.create("app", "10.0.0.7", "").unwrap());
        // The literal host is more specific than the wildcard.
        assert_eq!(
            accounts.find("app", "10.0.0.7").unwrap().credential,
            Credential::NativePassword(None)
        );
        assert_eq!(
            accounts.find("app", "10.0.3.1").unwrap().credential,
            Credential::NativePassword(native_hash("pw"))
        );
        assert!(accounts.set_password("app", "10.0.%", "new").unwrap());
        let require = TlsRequire::Specified {
            issuer: Some("/CN=ca".into()),
            subject: None,
            cipher: Some("TLS_AES_256_GCM_SHA384".into()),
        };
        let mut options = AccountOptions {
            require: Some(require.clone()),
            lock: Some(true),
            ..Default::default()
        };
        options.limits.set("MAX_USER_CONNECTIONS", 3.0);
        assert!(accounts.set_options("app", "10.0.%", &options).unwrap());
        assert!(!accounts.set_options("nobody", "%", &options).unwrap());
        drop(accounts);
        let reopened = Accounts::open(dir.path()).unwrap();
        assert_eq!(
            reopened.find("app", "10.0.3.1").unwrap().credential,
            Credential::NativePassword(native_hash("new"))
        );
        // An ed25519 account's key, and one without a key, survive a reopen.
        let key = super::super::auth_plugins::ed25519_public_key("pw");
        assert!(reopened
            .create_with("ed", "%", Credential::Ed25519(key))
            .unwrap());
        assert!(reopened
            .create_with("ed0", "%", Credential::Ed25519(None))
            .unwrap());
        assert_eq!(reopened.find("app", "10.0.3.1").unwrap().require, require);
        let app = reopened.grants_of_account("app", "10.0.%").unwrap();
        assert!(app.locked);
        assert_eq!(app.limits.user_connections, 3);
        assert!(reopened.drop_account("app", "10.0.%").unwrap());
        assert!(!reopened.drop_account("app", "10.0.%").unwrap());
        assert_eq!(reopened.find("app", "10.0.3.1"), None);
        // An IPv4 address and netmask.
        assert!(host_matches("10.1.0.0/255.255.0.0", "10.1.200.3"));
        assert!(!host_matches("10.1.0.0/255.255.0.0", "10.2.0.1"));
        assert!(host_matches("127.0.0.0/255.0.0.0", "localhost"));
        assert!(!host_matches("10.1.0.0/255.255.0.0", "example.com"));
        assert!(!host_matches("10.1.0.0/24", "10.1.0.1"));
        let last = Accounts::open(dir.path()).unwrap();
        assert!(last.find("app", "10.0.0.7").is_some());
        assert_eq!(last.credential("ed", "%"), Some(Credential::Ed25519(key)));
        assert_eq!(last.credential("ed0", "%"), Some(Credential::Ed25519(None)));
    }

    #[test]
    fn column_grants_are_stored_and_revoked_with_their_table() {
        let dir = tempfile::tempdir().unwrap();
        let accounts = Accounts::open(dir.path()).unwrap();
        assert!(accounts.create("u", "%", "pw").unwrap());
        let columns = vec![
            ("a b".to_string(), Privs::SELECT),
            ("c".to_string(), Privs::INSERT.union(Privs::UPDATE)),
        ];
        let key = ("u", "%");
        let changed =
            accounts.change_table_grants(key, ("app", "t"), Privs::DELETE, &columns, false);
        assert_eq!(changed.unwrap(), Some(true));
        drop(accounts);
        let reopened = Accounts::open(dir.path()).unwrap();
        let g = reopened.grants_of_account("u", "%").unwrap().grants;
        assert_eq!(
            g.on_column("app", "t", "a b"),
            Privs::SELECT.union(Privs::DELETE)
        );
        assert_eq!(
            g.column_kinds("app", "t"),
            Privs::SELECT.union(Privs::INSERT).union(Privs::UPDATE)
        );
        // A REVOKE of a column with no grant changes nothing.
        let missing = vec![("d".to_string(), Privs::SELECT)];
        let revoked =
            reopened.change_table_grants(key, ("app", "t"), Privs::DELETE, &missing, true);
        assert_eq!(revoked.unwrap(), Some(false));
        let revoked =
            reopened.change_table_grants(key, ("app", "t"), Privs::DELETE, &columns, true);
        assert_eq!(revoked.unwrap(), Some(true));
        let g = reopened.grants_of_account("u", "%").unwrap().grants;
        assert!(g.tables.is_empty() && g.columns.is_empty(), "{g:?}");
        assert!(reopened.rename(("u", "%"), ("v", "%")).unwrap());
    }
}
