//! USER_PRIVILEGES, SCHEMA_PRIVILEGES, TABLE_PRIVILEGES and COLUMN_PRIVILEGES: the
//! accounts' grants, one row per privilege (MariaDB's names and order), `IS_GRANTABLE` YES where the grant carries
//! GRANT OPTION. An account with no global privilege shows one `USAGE` row.
//!
//! Visibility, as MariaDB's: an account that may read the `mysql` database (SELECT on it,
//! or globally) sees every account's rows; any other sees its own only.
//!
//! Also the rows of the `mysql` schema's `user`, `db` and `columns_priv` tables, whose reading the
//! statement's privilege check guards (SELECT on them), as any table's.

use super::text;
use crate::catalog::accounts::Account;
use crate::catalog::mysql_schema::{DB_PRIVILEGE_COLUMNS, USER_PRIVILEGE_COLUMNS};
use crate::catalog::privileges::Privs;
use crate::exec::env::ExecEnv;
use crate::value::Value;
use myriad_storage as st;
use myriad_types::Decimal;

/// The accounts whose grants the session may list.
fn visible_accounts(env: &ExecEnv) -> Vec<Account> {
    let accounts = env.engine.accounts.list();
    let grants = super::grants(env);
    if grants.is_all() || grants.in_database("mysql").contains(Privs::SELECT) {
        return accounts;
    }
    let own_host = env
        .engine
        .accounts
        .matching_host(&env.info.user, &env.info.host);
    accounts
        .into_iter()
        .filter(|a| Some(&a.host) == own_host.as_ref() && a.user == env.info.user)
        .collect()
}

fn grantee(account: &Account) -> String {
    format!("'{}'@'{}'", account.user, account.host)
}

/// A row per privilege held in `privs` after the `prefix` columns (with `usage`, one
/// USAGE row when none is held).
fn privilege_rows(prefix: &[&str], privs: Privs, usage: bool, out: &mut Vec<st::Row>) {
    let grantable = text(if privs.contains(Privs::GRANT) {
        "YES"
    } else {
        "NO"
    });
    let mut names = privs.without(Privs::GRANT).names();
    if names.is_empty() && usage {
        names.push("USAGE");
    }
    for name in names {
        let mut row: st::Row = prefix.iter().map(|c| text(c)).collect();
        row.push(text(name));
        row.push(grantable.clone());
        out.push(row);
    }
}

/// USER_PRIVILEGES: GRANTEE, TABLE_CATALOG, PRIVILEGE_TYPE, IS_GRANTABLE.
pub(super) fn user_privileges(env: &ExecEnv) -> Vec<st::Row> {
    let mut out = Vec::new();
    for account in visible_accounts(env).iter().filter(|a| !a.is_role) {
        let who = grantee(account);
        privilege_rows(&[&who, "def"], account.grants.global, true, &mut out);
    }
    out
}

/// SCHEMA_PRIVILEGES: GRANTEE, TABLE_CATALOG, TABLE_SCHEMA, PRIVILEGE_TYPE, IS_GRANTABLE.
pub(super) fn schema_privileges(env: &ExecEnv) -> Vec<st::Row> {
    let mut out = Vec::new();
    for account in visible_accounts(env) {
        let who = grantee(&account);
        for (db, privs) in &account.grants.databases {
            privilege_rows(&[&who, "def", db], *privs, false, &mut out);
        }
    }
    out
}

/// TABLE_PRIVILEGES: GRANTEE, TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, PRIVILEGE_TYPE,
/// IS_GRANTABLE.
pub(super) fn table_privileges(env: &ExecEnv) -> Vec<st::Row> {
    let mut out = Vec::new();
    for account in visible_accounts(env) {
        let who = grantee(&account);
        for (db, table, privs) in &account.grants.tables {
            privilege_rows(&[&who, "def", db, table], *privs, false, &mut out);
        }
    }
    out
}

/// COLUMN_PRIVILEGES: GRANTEE, TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME,
/// PRIVILEGE_TYPE, IS_GRANTABLE: per table, a row per privilege and column holding it (in
/// the order of privileges), grantable when the table's grant carries GRANT OPTION.
pub(super) fn column_privileges(env: &ExecEnv) -> Vec<st::Row> {
    let mut out = Vec::new();
    for account in visible_accounts(env) {
        let who = grantee(&account);
        let grants = &account.grants;
        for (db, table, privs) in &grants.tables {
            let grantable = text(if privs.contains(Privs::GRANT) {
                "YES"
            } else {
                "NO"
            });
            for (name, bit) in crate::catalog::privileges::NAMES {
                for (column, held) in grants.columns_on(db, table) {
                    if held.contains(Privs(*bit)) {
                        let mut row: st::Row = [who.as_str(), "def", db, table, column, name]
                            .iter()
                            .map(|c| text(c))
                            .collect();
                        row.push(grantable.clone());
                        out.push(row);
                    }
                }
            }
        }
    }
    out
}

/// `mysql.columns_priv`: a row per column grant (Host, Db, User, Table_name, Column_name,
/// Timestamp, Column_priv). The time of a grant is not kept: the zero timestamp.
pub(super) fn mysql_columns_priv(env: &ExecEnv) -> Vec<st::Row> {
    let zero = timestamp(0);
    let mut out = Vec::new();
    for account in env.engine.accounts.list() {
        for c in &account.grants.columns {
            // MariaDB's SET words: `Select,Insert,Update,References`.
            let privs: Vec<String> = c
                .privs
                .names()
                .iter()
                .map(|n| n[..1].to_string() + &n[1..].to_ascii_lowercase())
                .collect();
            out.push(vec![
                text(&account.host),
                text(&c.database),
                text(&account.user),
                text(&c.table),
                text(&c.column),
                zero.clone(),
                text(&privs.join(",")),
            ]);
        }
    }
    out
}

/// `Y` or `N`: whether `privs` holds the privilege named `name` (`GRANT`: GRANT OPTION).
fn yes_no(privs: Privs, name: &str) -> Value {
    let held = match name {
        "GRANT" => privs.contains(Privs::GRANT),
        _ => Privs::named(name).is_some_and(|p| privs.contains(p)),
    };
    text(if held { "Y" } else { "N" })
}

/// `mysql.user`: a row per account, MariaDB's columns (see
/// [`crate::catalog::mysql_schema`]).
pub(super) fn mysql_user(env: &ExecEnv) -> Vec<st::Row> {
    use crate::catalog::tls_require::TlsRequire;
    use myriad_types::auth::Credential;
    let mut out = Vec::new();
    for account in env.engine.accounts.list() {
        let credential = &account.auth.credential;
        let auth_string = crate::catalog::auth_plugins::auth_string(credential);
        // `Password` shows mysql_native_password's hash only.
        let password = match credential {
            Credential::NativePassword(_) => auth_string.as_str(),
            Credential::Ed25519(_) => "",
        };
        let mut row = vec![text(&account.host), text(&account.user), text(password)];
        for (_, name) in USER_PRIVILEGE_COLUMNS {
            row.push(yes_no(account.grants.global, name));
        }
        let (ssl_type, issuer, subject, cipher) = match &account.auth.require {
            TlsRequire::None => ("", None, None, None),
            TlsRequire::Ssl => ("ANY", None, None, None),
            TlsRequire::X509 => ("X509", None, None, None),
            TlsRequire::Specified {
                issuer,
                subject,
                cipher,
            } => (
                "SPECIFIED",
                issuer.as_deref(),
                subject.as_deref(),
                cipher.as_deref(),
            ),
        };
        let limits = &account.limits;
        let statement_time = Decimal::from_f64(limits.statement_time)
            .and_then(Result::ok)
            .and_then(|d| d.rescale(6).ok())
            .map_or(Value::Null, Value::Decimal);
        row.extend([
            text(ssl_type),
            text(cipher.unwrap_or("")),
            text(issuer.unwrap_or("")),
            text(subject.unwrap_or("")),
            Value::UInt(limits.queries_per_hour),
            Value::UInt(limits.updates_per_hour),
            Value::UInt(limits.connections_per_hour),
            Value::Int(i64::try_from(limits.user_connections).unwrap_or(i64::MAX)),
            text(if account.is_role {
                ""
            } else {
                credential.plugin()
            }),
            text(&auth_string),
            // `PASSWORD EXPIRE` (MariaDB's view reads it, not the lifetime).
            text(match (account.is_role, account.password_expiry.expired) {
                (true, _) => "",
                (false, true) => "Y",
                (false, false) => "N",
            }),
            text(if account.is_role { "Y" } else { "N" }),
            text(account.default_role.as_deref().unwrap_or("")),
            statement_time,
        ]);
        out.push(row);
    }
    out
}

/// `mysql.db`: a row per database grant (Host, Db, User, then Y/N per privilege).
pub(super) fn mysql_db(env: &ExecEnv) -> Vec<st::Row> {
    let mut out = Vec::new();
    for account in env.engine.accounts.list() {
        for (db, privs) in &account.grants.databases {
            let mut row = vec![text(&account.host), text(db), text(&account.user)];
            for (_, name) in DB_PRIVILEGE_COLUMNS {
                row.push(yes_no(*privs, name));
            }
            out.push(row);
        }
    }
    out
}

/// `mysql.roles_mapping`: a row per role granted (Host, User, Role, Admin_option).
pub(super) fn mysql_roles_mapping(env: &ExecEnv) -> Vec<st::Row> {
    let mut out = Vec::new();
    for account in env.engine.accounts.list() {
        for (role, admin) in &account.roles {
            out.push(vec![
                text(&account.host),
                text(&account.user),
                text(role),
                text(if *admin { "Y" } else { "N" }),
            ]);
        }
    }
    out
}

/// `mysql.proxies_priv`: a row per PROXY grant (Host, User, Proxied_host, Proxied_user,
/// With_grant, Grantor, Timestamp).
pub(super) fn mysql_proxies_priv(env: &ExecEnv) -> Vec<st::Row> {
    let mut out = Vec::new();
    for account in env.engine.accounts.list() {
        for p in &account.proxies {
            out.push(vec![
                text(&account.host),
                text(&account.user),
                text(&p.host),
                text(&p.user),
                Value::Int(i64::from(p.with_grant)),
                text(&p.grantor),
                timestamp(p.timestamp),
            ]);
        }
    }
    out
}

/// A grant's time (Unix seconds, shown in UTC), or the zero timestamp for 0.
fn timestamp(seconds: u64) -> Value {
    if seconds == 0 {
        return Value::DateTime(myriad_types::datetime::DateTime {
            year: 0,
            month: 0,
            day: 0,
            hour: 0,
            minute: 0,
            second: 0,
            micros: 0,
        });
    }
    let micros = i64::try_from(seconds.saturating_mul(1_000_000)).unwrap_or(i64::MAX);
    Value::DateTime(myriad_types::datetime::DateTime::from_unix_micros(
        micros, false,
    ))
}
