//! Roles, as MariaDB 10.11 has them: a role is an account no one logs in as (its host is
//! empty), holding grants like any account. A role granted to an account
//! (`GRANT r TO u`) adds its grants to a session of that account once the session enables
//! it (`SET ROLE r`, or at login its `SET DEFAULT ROLE`). `CREATE ROLE` grants the new role
//! to its creator WITH ADMIN OPTION, as MariaDB does.
//!
//! Kept in the accounts file with the accounts (see [`super::accounts`]).

use super::accounts::{Account, Accounts};
use super::privileges::Grants;
use crate::error::SqlError;

impl Accounts {
    /// Whether a role of this name exists.
    pub fn role_exists(&self, name: &str) -> bool {
        self.list.read().iter().any(|a| a.is_role && a.user == name)
    }

    /// The grants of the role `name`, if it exists.
    pub fn role_grants(&self, name: &str) -> Option<Grants> {
        self.list
            .read()
            .iter()
            .find(|a| a.is_role && a.user == name)
            .map(|a| a.grants.clone())
    }

    /// CREATE ROLE `name`, granted to `creator` (user, host pattern) WITH ADMIN OPTION.
    /// False when a role or account of that name with an empty host exists.
    pub fn create_role(&self, name: &str, creator: (&str, &str)) -> Result<bool, SqlError> {
        let mut list = self.list.write();
        if list.iter().any(|a| a.is_named(name, "")) {
            return Ok(false);
        }
        let mut next = list.clone();
        next.push(Account {
            is_role: true,
            password_expiry: Default::default(),
            ..Account::new(name, "", Default::default())
        });
        if let Some(account) = next.iter_mut().find(|a| a.is_named(creator.0, creator.1)) {
            account.roles.push((name.into(), true));
        }
        self.store(&next)?;
        *list = next;
        Ok(true)
    }

    /// DROP ROLE `name`: the role and every grant of it. False when there is no such role.
    /// A default role that names it stays, as in MariaDB (no session enables it).
    pub fn drop_role(&self, name: &str) -> Result<bool, SqlError> {
        let mut list = self.list.write();
        if !list.iter().any(|a| a.is_role && a.user == name) {
            return Ok(false);
        }
        let mut next: Vec<Account> = list
            .iter()
            .filter(|a| !(a.is_role && a.user == name))
            .cloned()
            .collect();
        for account in &mut next {
            account.roles.retain(|(r, _)| r != name);
        }
        self.store(&next)?;
        *list = next;
        Ok(true)
    }

    /// GRANT `role` TO the account (or role) named exactly `to` (`admin`: WITH ADMIN
    /// OPTION). None when there is no such account.
    pub fn grant_role(
        &self,
        role: &str,
        to: (&str, &str),
        admin: bool,
    ) -> Result<Option<bool>, SqlError> {
        self.edit(to.0, to.1, |account| {
            match account.roles.iter_mut().find(|(r, _)| r == role) {
                Some((_, held)) => *held |= admin,
                None => account.roles.push((role.into(), admin)),
            }
            true
        })
    }

    /// REVOKE `role` FROM the account named exactly `from`: None when there is no such
    /// account, Some(false) when it does not hold the role.
    pub fn revoke_role(&self, role: &str, from: (&str, &str)) -> Result<Option<bool>, SqlError> {
        self.edit(from.0, from.1, |account| {
            let before = account.roles.len();
            account.roles.retain(|(r, _)| r != role);
            account.roles.len() != before
        })
    }

    /// SET DEFAULT ROLE `role` (None: NONE) FOR the account named exactly `user`@`host`.
    pub fn set_default_role(
        &self,
        (user, host): (&str, &str),
        role: Option<&str>,
    ) -> Result<Option<bool>, SqlError> {
        self.edit(user, host, |account| {
            account.default_role = role.map(str::to_string);
            true
        })
    }

    /// Whether the account named exactly `user`@`host` holds `role`.
    pub fn holds_role(&self, (user, host): (&str, &str), role: &str) -> bool {
        self.list
            .read()
            .iter()
            .any(|a| a.is_named(user, host) && a.roles.iter().any(|(r, _)| r == role))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_granted_enabled_and_dropped_durably() {
        let dir = tempfile::tempdir().unwrap();
        let accounts = Accounts::open(dir.path()).unwrap();
        assert!(accounts
            .create_role("reader", ("root", "localhost"))
            .unwrap());
        assert!(!accounts
            .create_role("reader", ("root", "localhost"))
            .unwrap());
        assert!(accounts.holds_role(("root", "localhost"), "reader"));
        assert!(accounts.create("app", "%", "pw").unwrap());
        assert_eq!(
            accounts.grant_role("reader", ("app", "%"), false).unwrap(),
            Some(true)
        );
        assert_eq!(
            accounts
                .set_default_role(("app", "%"), Some("reader"))
                .unwrap(),
            Some(true)
        );
        // No one logs in as a role.
        assert_eq!(accounts.find("reader", "localhost"), None);
        drop(accounts);
        let accounts = Accounts::open(dir.path()).unwrap();
        assert!(accounts.role_exists("reader"));
        assert!(accounts.holds_role(("app", "%"), "reader"));
        let app = accounts.grants_of_account("app", "%").unwrap();
        assert_eq!(app.default_role.as_deref(), Some("reader"));
        assert_eq!(
            accounts.revoke_role("reader", ("app", "%")).unwrap(),
            Some(true)
        );
        assert_eq!(
            accounts.revoke_role("reader", ("app", "%")).unwrap(),
            Some(false)
        );
        assert!(accounts.drop_role("reader").unwrap());
        assert!(!accounts.role_exists("reader"));
        assert!(!accounts.holds_role(("root", "localhost"), "reader"));
    }
}
