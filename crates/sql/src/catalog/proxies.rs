//! PROXY grants, as MariaDB 10.11 keeps them: `GRANT PROXY ON 'a'@'h' TO 'b'@'h2' [WITH
//! GRANT OPTION]` lets an authentication plugin that maps users (PAM, for one) sign `b` in
//! as `a`. myriad has no such plugin, so a PROXY grant changes no login; it is kept,
//! shown (SHOW GRANTS, `mysql.proxies_priv`) and checked as MariaDB does, so that an
//! account dump re-applies unchanged.
//!
//! Who may grant or revoke PROXY on `a`@`h`: the account `a`@`h` itself, and an account
//! holding a PROXY grant WITH GRANT OPTION that covers `a`@`h` (its proxied user equal or
//! empty, its proxied host a pattern matching `h`). A fresh datadir's root@localhost holds
//! `PROXY ON ''@'%' WITH GRANT OPTION`, which covers every account. Others answer 1698.
//!
//! Kept in the accounts file with the accounts (see [`super::accounts`]): one
//! `p:<hex user>:<hex host>:<0|1 with grant>:<hex grantor>:<unix time>` field per grant.

use super::accounts::{host_matches, Accounts};
use super::privileges::Privs;
use crate::error::SqlError;

/// One PROXY grant an account holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyGrant {
    /// The proxied user ('' for any user).
    pub user: String,
    /// The proxied host pattern ('' for any host, as `%`; SHOW GRANTS writes it `%`).
    pub host: String,
    pub with_grant: bool,
    /// Who granted it, `user@host` as the grantor connected ('' for the datadir's own).
    pub grantor: String,
    /// When it was granted, in Unix seconds; 0 shows MariaDB's zero timestamp, which its
    /// GRANT PROXY writes.
    pub timestamp: u64,
}

impl ProxyGrant {
    /// The grant a fresh datadir gives root@localhost: PROXY on every account.
    pub fn everyone(timestamp: u64) -> ProxyGrant {
        ProxyGrant {
            user: String::new(),
            host: String::new(),
            with_grant: true,
            grantor: String::new(),
            timestamp,
        }
    }

    /// Whether this grant names `user`@`host` as its proxied account (exactly).
    pub fn is_on(&self, user: &str, host: &str) -> bool {
        self.user == user && self.host.eq_ignore_ascii_case(host)
    }

    /// Whether this grant lets its holder grant PROXY on `user`@`host`.
    pub fn covers(&self, user: &str, host: &str) -> bool {
        self.with_grant
            && (self.user.is_empty() || self.user == user)
            && (self.host.is_empty() || host_matches(&self.host, host))
    }

    /// The proxied host as SHOW GRANTS writes it.
    pub fn shown_host(&self) -> &str {
        if self.host.is_empty() {
            "%"
        } else {
            &self.host
        }
    }

    /// The order of SHOW GRANTS: the most specific proxied account first (MariaDB's sort
    /// value of its host, then its user), the newest first among equals.
    fn specificity(&self) -> (u8, u8) {
        fn value(text: &str) -> u8 {
            match text.find(['%', '_']) {
                Some(at) => (at + 1).min(127) as u8,
                None if text.is_empty() => 0,
                None => 128,
            }
        }
        (value(self.shown_host()), value(&self.user))
    }

    pub(super) fn encode(&self, hex: fn(&[u8]) -> String) -> String {
        format!(
            "p:{}:{}:{}:{}:{}",
            hex(self.user.as_bytes()),
            hex(self.host.as_bytes()),
            u8::from(self.with_grant),
            hex(self.grantor.as_bytes()),
            self.timestamp
        )
    }

    pub(super) fn decode(text: &str, unhex: fn(&str) -> Option<Vec<u8>>) -> Option<ProxyGrant> {
        let mut parts = text.split(':');
        let mut name = || String::from_utf8(unhex(parts.next()?)?).ok();
        let (user, host) = (name()?, name()?);
        let with_grant = parts.next()? == "1";
        let grantor = String::from_utf8(unhex(parts.next()?)?).ok()?;
        let timestamp = parts.next()?.parse().ok()?;
        Some(ProxyGrant {
            user,
            host,
            with_grant,
            grantor,
            timestamp,
        })
    }
}

/// `proxies` in SHOW GRANTS' order (the most specific proxied account first); the list
/// keeps the newest first.
pub fn in_show_order(proxies: &[ProxyGrant]) -> Vec<&ProxyGrant> {
    let mut out: Vec<&ProxyGrant> = proxies.iter().collect();
    out.sort_by_key(|p| std::cmp::Reverse(p.specificity()));
    out
}

impl Accounts {
    /// Whether the account `grantor` (user, host pattern) may grant or revoke PROXY on
    /// `user`@`host` (see the module's rules).
    pub fn may_grant_proxy(&self, grantor: (&str, &str), user: &str, host: &str) -> bool {
        if grantor.0 == user && grantor.1.eq_ignore_ascii_case(host) {
            return true;
        }
        let list = self.list.read();
        list.iter()
            .find(|a| a.is_named(grantor.0, grantor.1))
            .is_some_and(|a| a.proxies.iter().any(|p| p.covers(user, host)))
    }

    /// GRANT PROXY ON `proxy`'s account TO `to` (user, host pattern). A grant of the same
    /// proxied account is replaced. WITH GRANT OPTION also gives the account the global
    /// GRANT OPTION, as MariaDB's GRANT PROXY does. Returns false when there is no such
    /// account.
    pub fn grant_proxy(&self, to: (&str, &str), proxy: ProxyGrant) -> Result<bool, SqlError> {
        let changed = self.edit(to.0, to.1, |account| {
            account
                .proxies
                .retain(|p| !p.is_on(&proxy.user, &proxy.host));
            if proxy.with_grant {
                account.grants.global = account.grants.global.union(Privs::GRANT);
            }
            account.proxies.insert(0, proxy);
            true
        })?;
        Ok(changed.is_some())
    }

    /// REVOKE PROXY ON `user`@`host` FROM `from`. None when there is no such account,
    /// Some(false) when it holds no such grant.
    pub fn revoke_proxy(
        &self,
        from: (&str, &str),
        user: &str,
        host: &str,
    ) -> Result<Option<bool>, SqlError> {
        self.edit(from.0, from.1, |account| {
            let before = account.proxies.len();
            account.proxies.retain(|p| !p.is_on(user, host));
            account.proxies.len() != before
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(user: &str, host: &str, with_grant: bool) -> ProxyGrant {
        ProxyGrant {
            user: user.into(),
            host: host.into(),
            with_grant,
            grantor: "root@localhost".into(),
            timestamp: 0,
        }
    }

    #[test]
    fn cover_rules() {
        assert!(ProxyGrant::everyone(1).covers("anyone", "10.0.0.1"));
        assert!(grant("pa", "%", true).covers("pa", "%"));
        assert!(grant("pa", "10.%", true).covers("pa", "10.1.2.3"));
        assert!(!grant("pa", "10.%", true).covers("pa", "%"));
        assert!(!grant("pa", "%", true).covers("pb", "%"));
        assert!(!grant("pa", "%", false).covers("pa", "%"));
    }

    #[test]
    fn show_order_is_most_specific_then_newest() {
        // Granted bb, aa, cc, aa@'h%', ''@'%': MariaDB lists aa@h%, cc, aa, bb, ''.
        let newest_first = vec![
            grant("", "%", false),
            grant("aa", "h%", false),
            grant("cc", "%", false),
            grant("aa", "%", false),
            grant("bb", "%", false),
        ];
        let order: Vec<String> = in_show_order(&newest_first)
            .iter()
            .map(|p| format!("{}@{}", p.user, p.host))
            .collect();
        assert_eq!(order, ["aa@h%", "cc@%", "aa@%", "bb@%", "@%"]);
    }

    #[test]
    fn grants_are_kept_replaced_and_revoked() {
        let dir = tempfile::tempdir().unwrap();
        let accounts = Accounts::open(dir.path()).unwrap();
        assert!(accounts.create("u", "%", "").unwrap());
        assert!(accounts.may_grant_proxy(("root", "localhost"), "x", "%"));
        assert!(!accounts.may_grant_proxy(("u", "%"), "x", "%"));
        assert!(accounts.may_grant_proxy(("u", "%"), "u", "%"));
        assert!(accounts
            .grant_proxy(("u", "%"), grant("x", "%", true))
            .unwrap());
        assert!(!accounts
            .grant_proxy(("v", "%"), grant("x", "%", true))
            .unwrap());
        assert!(accounts.may_grant_proxy(("u", "%"), "x", "%"));
        // Granted again without the option: replaced.
        assert!(accounts
            .grant_proxy(("u", "%"), grant("x", "%", false))
            .unwrap());
        assert!(!accounts.may_grant_proxy(("u", "%"), "x", "%"));
        drop(accounts);
        let accounts = Accounts::open(dir.path()).unwrap();
        let u = accounts.grants_of_account("u", "%").unwrap();
        assert_eq!(u.proxies, vec![grant("x", "%", false)]);
        assert!(u.grants.global.contains(Privs::GRANT));
        assert_eq!(
            accounts.revoke_proxy(("u", "%"), "x", "%").unwrap(),
            Some(true)
        );
        assert_eq!(
            accounts.revoke_proxy(("u", "%"), "x", "%").unwrap(),
            Some(false)
        );
        assert_eq!(accounts.revoke_proxy(("v", "%"), "x", "%").unwrap(), None);
    }
}
