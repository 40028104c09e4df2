//! The role statements (see `crate::catalog::roles`): CREATE / DROP ROLE (CREATE USER
//! privilege), GRANT / REVOKE of a role (its ADMIN OPTION, or CREATE USER), SET ROLE (a
//! role granted to the session's account) and SET DEFAULT ROLE (one's own, or another's
//! with CREATE USER). Errors are MariaDB's: 1959 for a role that does not exist or is not
//! granted, 1396 for CREATE / DROP of one that does / does not, 1962 for a REVOKE of a
//! role not granted.

use crate::catalog::accounts::Account;
use crate::catalog::privileges::{Grants, Privs};
use crate::error::SqlError;
use crate::exec::note;
use crate::plan::roles::RoleStmt;
use crate::plan::UserSpec;
use crate::result::QueryResult;
use crate::Session;
use myriad_types::errors::{
    ER_ACCESS_DENIED_NO_PASSWORD_ERROR, ER_CANNOT_REVOKE_ROLE, ER_CANNOT_USER, ER_INVALID_ROLE,
    ER_PASSWORD_NO_MATCH,
};
use std::sync::Arc;

fn invalid_role(name: &str) -> SqlError {
    SqlError::new(
        ER_INVALID_ROLE,
        format!("Invalid role specification `{name}`"),
    )
}

impl Session {
    /// The account (user, host pattern) this session authenticated as.
    pub(crate) fn own_account(&self) -> (String, String) {
        let host = self
            .engine
            .accounts
            .matching_host(&self.info.user, &self.info.host)
            .unwrap_or_else(|| self.info.host.clone());
        (self.info.user.clone(), host)
    }

    /// The account or role a grantee names: a bare name (no `@host`) names the role of
    /// that name when there is one.
    pub(crate) fn grantee(&self, u: &UserSpec) -> (String, String) {
        if !u.host_given && self.engine.accounts.role_exists(&u.user) {
            return (u.user.clone(), String::new());
        }
        (u.user.clone(), u.host.clone())
    }

    pub(crate) fn role(&mut self, stmt: &RoleStmt) -> Result<QueryResult, SqlError> {
        let accounts = Arc::clone(&self.engine);
        let accounts = &accounts.accounts;
        let mut warnings = Vec::new();
        match stmt {
            RoleStmt::Create {
                names,
                if_not_exists,
            } => {
                let own = self.own_account();
                let mut failed = Vec::new();
                for name in names {
                    if name.eq_ignore_ascii_case("NONE") || name.eq_ignore_ascii_case("PUBLIC") {
                        return Err(invalid_role(&name.to_ascii_uppercase()));
                    }
                    if accounts.create_role(name, (&own.0, &own.1))? {
                        continue;
                    }
                    if *if_not_exists {
                        let message = format!("Can't create role '{name}'; it already exists");
                        warnings.push(note(1975, message));
                    } else {
                        failed.push(format!("'{name}'"));
                    }
                }
                role_failures("CREATE ROLE", failed)?;
            }
            RoleStmt::Drop { names, if_exists } => {
                let mut failed = Vec::new();
                for name in names {
                    if accounts.drop_role(name)? {
                        continue;
                    }
                    if *if_exists {
                        let message = format!("Can't drop role '{name}'; it doesn't exist");
                        warnings.push(note(1976, message));
                    } else {
                        failed.push(format!("'{name}'"));
                    }
                }
                role_failures("DROP ROLE", failed)?;
            }
            RoleStmt::Grant {
                revoke,
                roles,
                grantees,
                admin,
            } => self.grant_roles(*revoke, roles, grantees, *admin)?,
            RoleStmt::Set(role) => self.set_role(role.as_deref())?,
            RoleStmt::SetDefault { role, user } => {
                let target = match user {
                    Some(u) => {
                        let target = (u.user.clone(), u.host.clone());
                        if target != self.own_account()
                            && !self.grants().global.contains(Privs::CREATE_USER)
                        {
                            return Err(super::privileges::global_denied(Privs::CREATE_USER));
                        }
                        target
                    }
                    None => self.own_account(),
                };
                if let Some(role) = role {
                    if !accounts.role_exists(role) {
                        return Err(invalid_role(role));
                    }
                    if !accounts.holds_role((&target.0, &target.1), role) {
                        return Err(SqlError::new(
                            ER_INVALID_ROLE,
                            format!(
                                "User `{}`@`{}` has not been granted role `{role}`",
                                target.0, target.1
                            ),
                        ));
                    }
                }
                if accounts
                    .set_default_role((&target.0, &target.1), role.as_deref())?
                    .is_none()
                {
                    return Err(SqlError::new(
                        ER_PASSWORD_NO_MATCH,
                        "Can't find any matching row in the user table",
                    ));
                }
            }
        }
        let mut result = crate::exec::ok(0);
        if let QueryResult::Ok {
            warnings: count, ..
        } = &mut result
        {
            *count = warnings.len().min(u16::MAX as usize) as u16;
        }
        self.state.warnings = warnings;
        Ok(result)
    }

    fn grant_roles(
        &mut self,
        revoke: bool,
        roles: &[String],
        grantees: &[UserSpec],
        admin: bool,
    ) -> Result<(), SqlError> {
        let accounts = Arc::clone(&self.engine);
        let accounts = &accounts.accounts;
        let own = self.own_account();
        let may_create_users = self.grants().global.contains(Privs::CREATE_USER);
        for role in roles {
            if !accounts.role_exists(role) {
                return Err(invalid_role(role));
            }
            let holds_admin = accounts
                .grants_of_account(&own.0, &own.1)
                .is_some_and(|a| a.roles.iter().any(|(r, admin)| r == role && *admin));
            if !holds_admin && !may_create_users {
                return Err(SqlError::new(
                    ER_ACCESS_DENIED_NO_PASSWORD_ERROR,
                    format!("Access denied for user '{}'@'{}'", own.0, own.1),
                ));
            }
            for u in grantees {
                let (user, host) = self.grantee(u);
                let changed = if revoke {
                    accounts.revoke_role(role, (&user, &host))?
                } else {
                    accounts.grant_role(role, (&user, &host), admin)?
                };
                match changed {
                    None => {
                        return Err(SqlError::new(
                            ER_PASSWORD_NO_MATCH,
                            "Can't find any matching row in the user table",
                        ))
                    }
                    Some(false) => {
                        return Err(SqlError::new(
                            ER_CANNOT_REVOKE_ROLE,
                            format!("Cannot revoke role '{role}' from: '{user}'@'{host}'"),
                        ))
                    }
                    Some(true) => {}
                }
            }
        }
        Ok(())
    }

    /// SET ROLE: enable a role granted to the account, or none.
    fn set_role(&mut self, role: Option<&str>) -> Result<(), SqlError> {
        let own = self.own_account();
        if let Some(role) = role {
            if !self.engine.accounts.holds_role((&own.0, &own.1), role) {
                return Err(invalid_role(role));
            }
        }
        self.state.active_role = role.map(str::to_string);
        self.state.grants = None;
        Ok(())
    }

    /// The account's default role, when it still holds it.
    pub(crate) fn default_role_held(&self, (user, host): &(String, String)) -> Option<String> {
        let accounts = &self.engine.accounts;
        let role = accounts.grants_of_account(user, host)?.default_role?;
        accounts.holds_role((user, host), &role).then_some(role)
    }

    /// The grants `role` adds: its own and those of the roles granted to it, transitively.
    pub(crate) fn role_grants(&self, role: &str) -> Grants {
        self.role_closure(role)
            .iter()
            .fold(Grants::default(), |all, r| all.with(&r.grants))
    }

    /// `role` and the roles granted to it, transitively, each once, `role` first.
    pub(crate) fn role_closure(&self, role: &str) -> Vec<Account> {
        let accounts = &self.engine.accounts;
        let mut out: Vec<Account> = Vec::new();
        let mut next = vec![role.to_string()];
        while let Some(name) = next.pop() {
            if out.iter().any(|a| a.user == name) {
                continue;
            }
            if let Some(account) = accounts.grants_of_account(&name, "") {
                next.extend(account.roles.iter().rev().map(|(r, _)| r.clone()));
                out.push(account);
            }
        }
        out
    }
}

/// 1396 for the names an operation failed for.
fn role_failures(operation: &str, failed: Vec<String>) -> Result<(), SqlError> {
    if failed.is_empty() {
        return Ok(());
    }
    Err(SqlError::new(
        ER_CANNOT_USER,
        format!("Operation {operation} failed for {}", failed.join(",")),
    ))
}
