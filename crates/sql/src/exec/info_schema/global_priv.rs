//! `mysql.global_priv`: a row per account and role (Host, User, Priv), `Priv` the JSON
//! object MariaDB 10.11 keeps for it, with MariaDB's keys in MariaDB's order: `access` (the
//! global privileges' bits, which are MariaDB's), `version_id`, the plugin and its
//! authentication string, the TLS requirement, the resource limits, `account_locked`,
//! `password_last_changed` (0 for an expired password), `password_lifetime` and
//! `default_role`; a role has only `access`, `version_id` and `is_role`.

use super::text;
use crate::catalog::account_options::PasswordLifetime;
use crate::catalog::accounts::Account;
use crate::catalog::auth_plugins::auth_string;
use crate::catalog::tls_require::TlsRequire;
use crate::exec::env::ExecEnv;
use myriad_storage as st;
use std::fmt::Write;

pub(super) fn mysql_global_priv(env: &ExecEnv) -> Vec<st::Row> {
    env.engine
        .accounts
        .list()
        .iter()
        .map(|a| vec![text(&a.host), text(&a.user), text(&priv_json(a))])
        .collect()
}

/// MariaDB's `version_id` of this server's version (10.11.0: 101100).
fn version_id() -> u32 {
    let mut parts = crate::SERVER_VERSION
        .split(['.', '-'])
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor, patch) = (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    );
    major * 10_000 + minor * 100 + patch
}

/// The account's `Priv` JSON.
fn priv_json(a: &Account) -> String {
    let mut out = format!(
        "{{\"access\":{},\"version_id\":{}",
        a.grants.global.0,
        version_id()
    );
    if a.is_role {
        out.push_str(",\"is_role\":true}");
        return out;
    }
    let credential = &a.auth.credential;
    field(&mut out, "plugin", credential.plugin());
    field(&mut out, "authentication_string", &auth_string(credential));
    let (ssl_type, issuer, subject, cipher) = match &a.auth.require {
        TlsRequire::None => (0, None, None, None),
        TlsRequire::Ssl => (1, None, None, None),
        TlsRequire::X509 => (2, None, None, None),
        TlsRequire::Specified {
            issuer,
            subject,
            cipher,
        } => (3, issuer.as_deref(), subject.as_deref(), cipher.as_deref()),
    };
    if ssl_type != 0 {
        let _ = write!(out, ",\"ssl_type\":{ssl_type}");
        field(&mut out, "ssl_cipher", cipher.unwrap_or(""));
        field(&mut out, "x509_issuer", issuer.unwrap_or(""));
        field(&mut out, "x509_subject", subject.unwrap_or(""));
    }
    let limits = &a.limits;
    for (key, value) in [
        ("max_questions", limits.queries_per_hour),
        ("max_updates", limits.updates_per_hour),
        ("max_connections", limits.connections_per_hour),
        ("max_user_connections", limits.user_connections),
    ] {
        if value != 0 {
            let _ = write!(out, ",\"{key}\":{value}");
        }
    }
    if limits.statement_time != 0.0 {
        let _ = write!(out, ",\"max_statement_time\":{:.6}", limits.statement_time);
    }
    if a.locked {
        out.push_str(",\"account_locked\":true");
    }
    let expiry = &a.password_expiry;
    let changed = if expiry.expired { 0 } else { expiry.changed_at };
    let _ = write!(out, ",\"password_last_changed\":{changed}");
    match expiry.lifetime {
        PasswordLifetime::Default if expiry.expired => out.push_str(",\"password_lifetime\":-1"),
        PasswordLifetime::Default => {}
        PasswordLifetime::Never => out.push_str(",\"password_lifetime\":0"),
        PasswordLifetime::Days(days) => {
            let _ = write!(out, ",\"password_lifetime\":{days}");
        }
    }
    if let Some(role) = &a.default_role {
        field(&mut out, "default_role", role);
    }
    out.push('}');
    out
}

/// `,"key":"value"` with the value escaped as JSON.
fn field(out: &mut String, key: &str, value: &str) {
    let _ = write!(out, ",\"{key}\":\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use myriad_types::auth::Credential;

    #[test]
    fn json_as_mariadb_writes_it() {
        let mut a = Account::new("u", "%", Credential::NativePassword(None));
        a.password_expiry.changed_at = 1_795_992_991;
        assert_eq!(
            priv_json(&a),
            "{\"access\":0,\"version_id\":101100,\"plugin\":\"mysql_native_password\",\
             \"authentication_string\":\"\",\"password_last_changed\":1795992991}"
        );
        a.auth.require = TlsRequire::Specified {
            issuer: Some("/CN=b".into()),
            subject: Some("/CN=\"a\"".into()),
            cipher: None,
        };
        a.limits.queries_per_hour = 5;
        a.limits.statement_time = 1.5;
        a.locked = true;
        a.password_expiry.lifetime = PasswordLifetime::Days(30);
        a.default_role = Some("gr".into());
        assert_eq!(
            priv_json(&a),
            "{\"access\":0,\"version_id\":101100,\"plugin\":\"mysql_native_password\",\
             \"authentication_string\":\"\",\"ssl_type\":3,\"ssl_cipher\":\"\",\
             \"x509_issuer\":\"/CN=b\",\"x509_subject\":\"/CN=\\\"a\\\"\",\"max_questions\":5,\
             \"max_statement_time\":1.500000,\"account_locked\":true,\
             \"password_last_changed\":1795992991,\"password_lifetime\":30,\"default_role\":\"gr\"}"
        );
        let role = Account {
            is_role: true,
            ..Account::new("r", "", Credential::NativePassword(None))
        };
        assert_eq!(
            priv_json(&role),
            "{\"access\":0,\"version_id\":101100,\"is_role\":true}"
        );
    }
}
