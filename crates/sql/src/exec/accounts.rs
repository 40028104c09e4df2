//! The account statements: GRANT and REVOKE, SHOW GRANTS, SHOW CREATE USER, SET
//! PASSWORD and RENAME USER (CREATE / ALTER / DROP USER are in `admin`). Who may run them
//! is checked here, with the helpers of [`super::privileges`].

use super::privileges::{database_denied, global_denied, table_denied};
use crate::catalog::account_options::ResourceLimits;
use crate::catalog::accounts::Account;
use crate::catalog::auth_plugins::Plugin;
use crate::catalog::privileges::{Level, Privs};
use crate::error::SqlError;
use crate::plan::grants::{GrantLevel, GrantStmt};
use crate::plan::roles::RoleStmt;
use crate::plan::{AuthSpec, Stmt, UserSpec};
use crate::result::QueryResult;
use crate::value::Value;
use crate::Session;
use myriad_types::errors::{
    ER_BAD_FIELD_ERROR, ER_ILLEGAL_GRANT_FOR_TABLE, ER_NONEXISTING_GRANT,
    ER_NONEXISTING_TABLE_GRANT, ER_NO_DB_ERROR, ER_NO_SUCH_TABLE, ER_PASSWORD_NO_MATCH,
    ER_WRONG_USAGE,
};
use std::sync::Arc;

impl Session {
    /// `stmt` with each `CURRENT_USER` among the accounts it names replaced by the
    /// session's own account, or None when it names none. `CREATE USER CURRENT_USER`
    /// answers 1396, as in MariaDB.
    pub(crate) fn with_current_user(&self, stmt: &Stmt) -> Result<Option<Stmt>, SqlError> {
        let names = |users: &[UserSpec]| users.iter().any(|u| u.current_user);
        let named = match stmt {
            Stmt::CreateUser { users, .. } if names(users) => {
                return Err(SqlError::of(
                    myriad_types::errors::ER_CANNOT_USER,
                    &[&"CREATE USER", &"CURRENT_USER"],
                ));
            }
            Stmt::DropUser { users, .. } | Stmt::AlterUser { users, .. } => names(users),
            Stmt::Grant(g) => names(&g.users),
            Stmt::Role(RoleStmt::Grant { grantees, .. }) => names(grantees),
            Stmt::RenameUser(pairs) => pairs.iter().any(|(a, b)| a.current_user || b.current_user),
            Stmt::SetPassword { user: Some(u), .. }
            | Stmt::Role(RoleStmt::SetDefault { user: Some(u), .. }) => u.current_user,
            _ => false,
        };
        if !named {
            return Ok(None);
        }
        let (user, host) = self.own_account();
        let fill = |u: &mut UserSpec| {
            if u.current_user {
                (u.user, u.host, u.current_user) = (user.clone(), host.clone(), false);
            }
        };
        let mut stmt = stmt.clone();
        match &mut stmt {
            Stmt::DropUser { users, .. } | Stmt::AlterUser { users, .. } => {
                users.iter_mut().for_each(fill)
            }
            Stmt::Grant(g) => g.users.iter_mut().for_each(fill),
            Stmt::Role(RoleStmt::Grant { grantees, .. }) => grantees.iter_mut().for_each(fill),
            Stmt::RenameUser(pairs) => pairs.iter_mut().for_each(|(a, b)| {
                fill(a);
                fill(b);
            }),
            Stmt::SetPassword { user: Some(u), .. }
            | Stmt::Role(RoleStmt::SetDefault { user: Some(u), .. }) => fill(u),
            _ => {}
        }
        Ok(Some(stmt))
    }

    /// GRANT or REVOKE.
    pub(crate) fn grant(&mut self, g: &GrantStmt) -> Result<QueryResult, SqlError> {
        if let Some(proxied) = &g.proxy {
            return self.grant_proxy(g, proxied);
        }
        let current = || {
            self.info
                .database
                .clone()
                .ok_or_else(|| SqlError::new(ER_NO_DB_ERROR, "No database selected"))
        };
        let (db, table) = match &g.level {
            GrantLevel::Global => (None, None),
            GrantLevel::Database(db) => (Some(db.clone()), None),
            GrantLevel::CurrentDatabase => (Some(current()?), None),
            GrantLevel::Table(db, t) => {
                let db = match db {
                    Some(db) => db.clone(),
                    None => current()?,
                };
                // MariaDB grants on existing tables and views only (a REVOKE may name a
                // dropped one).
                let exists = self.engine.catalog.database_exists(&db)
                    && (self.engine.catalog.tables(&db)?.iter())
                        .chain(self.engine.catalog.views(&db)?.iter())
                        .any(|n| n.eq_ignore_ascii_case(t));
                if !g.revoke && !exists {
                    return Err(SqlError::new(
                        ER_NO_SUCH_TABLE,
                        format!("Table '{db}.{t}' doesn't exist"),
                    ));
                }
                (Some(db), Some(t.clone()))
            }
        };
        let level = match (&db, &table) {
            (None, _) => Level::Global,
            (Some(db), None) => Level::Database(db),
            (Some(db), Some(t)) => Level::Table(db, t),
        };
        let all = match level {
            Level::Global => Privs::ALL_GLOBAL,
            Level::Database(_) => Privs::ALL_DATABASE,
            Level::Table(..) => Privs::ALL_TABLE,
        };
        let columns = self.grant_columns(g, level)?;
        let mut privs = if g.all { all } else { g.privs };
        if !all.contains(privs) {
            return Err(match level {
                Level::Table(..) => illegal_grant_for_table(),
                _ => SqlError::new(
                    ER_WRONG_USAGE,
                    "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
                ),
            });
        }
        if g.grant_option {
            privs = privs.union(Privs::GRANT);
        }
        // The grantor needs GRANT OPTION and every privilege it hands out, at that level.
        let mine = self.grants();
        let held = match level {
            Level::Global => mine.global,
            Level::Database(db) => mine.in_database(db),
            Level::Table(db, t) => mine.on_table(db, t),
        };
        let column_kinds = columns
            .iter()
            .fold(Privs::NONE, |acc, (_, p)| acc.union(*p));
        if !held.contains(privs.union(column_kinds).union(Privs::GRANT)) {
            let (user, host) = (&self.info.user, &self.info.host);
            return Err(match level {
                Level::Global => global_denied(Privs::GRANT),
                // As MariaDB: a database's denial names the account's host pattern.
                Level::Database(db) => database_denied(user, &self.own_account().1, db),
                Level::Table(db, t) => table_denied("GRANT", user, host, db, t),
            });
        }
        for u in &g.users {
            // A bare name may name a role.
            let (user, host) = self.grantee(u);
            let u = &UserSpec {
                user,
                host,
                ..u.clone()
            };
            if let Some(credential) = u.credential()? {
                // IDENTIFIED: the account's credential, and the account itself if new.
                let accounts = &self.engine.accounts;
                if !accounts.set_credential(&u.user, &u.host, credential)? {
                    accounts.create_with(&u.user, &u.host, credential)?;
                }
            }
            if g.every_level {
                self.revoke_everything(u)?;
                continue;
            }
            let account = (u.user.as_str(), u.host.as_str());
            let accounts = &self.engine.accounts;
            let changed = match level {
                Level::Table(db, t) => {
                    accounts.change_table_grants(account, (db, t), privs, &columns, g.revoke)?
                }
                _ => accounts.change_grants(account, level, privs, g.revoke)?,
            };
            match (changed, level) {
                (None, _) => return Err(no_such_account(g.revoke, u)),
                (Some(false), Level::Table(_, t)) => {
                    return Err(SqlError::new(
                        ER_NONEXISTING_TABLE_GRANT,
                        format!(
                            "There is no such grant defined for user '{}' on host '{}' on \
                             table '{t}'",
                            u.user, u.host
                        ),
                    ))
                }
                (Some(false), _) => return Err(no_such_grant(&u.user, &u.host)),
                (Some(true), _) => {}
            }
            if g.options != Default::default() {
                self.engine
                    .accounts
                    .set_options(&u.user, &u.host, &g.options)?;
            }
        }
        Ok(crate::exec::ok(0))
    }

    /// The column privileges of a GRANT or REVOKE, each column as its table spells it:
    /// 1144 at any level but a table's; for a GRANT, 1054 for a column the table lacks (a
    /// REVOKE keeps the name as written: no grant holds it, so it answers 1147).
    fn grant_columns(&self, g: &GrantStmt, level: Level) -> Result<Vec<(String, Privs)>, SqlError> {
        if g.columns.is_empty() {
            return Ok(Vec::new());
        }
        let Level::Table(db, t) = level else {
            return Err(illegal_grant_for_table());
        };
        let def = self.engine.catalog.storage().table_def(db, t).ok();
        let mut columns = Vec::with_capacity(g.columns.len());
        for (name, privs) in &g.columns {
            let found = def
                .as_ref()
                .and_then(|d| d.columns.iter().find(|c| c.name.eq_ignore_ascii_case(name)));
            match found {
                Some(c) => columns.push((c.name.clone(), *privs)),
                None if g.revoke => columns.push((name.clone(), *privs)),
                None => {
                    return Err(SqlError::new(
                        ER_BAD_FIELD_ERROR,
                        format!("Unknown column '{name}' in '{t}'"),
                    ))
                }
            }
        }
        Ok(columns)
    }

    /// REVOKE ALL PRIVILEGES, GRANT OPTION FROM `u`: every grant at every level.
    fn revoke_everything(&self, u: &UserSpec) -> Result<(), SqlError> {
        let accounts = &self.engine.accounts;
        let Some(account) = accounts.grants_of_account(&u.user, &u.host) else {
            return Err(no_such_account(true, u));
        };
        let everything = Privs::ALL_GLOBAL.union(Privs::GRANT);
        let account_key = (u.user.as_str(), u.host.as_str());
        accounts.change_grants(account_key, Level::Global, everything, true)?;
        for (db, _) in &account.grants.databases {
            accounts.change_grants(account_key, Level::Database(db), everything, true)?;
        }
        for (db, t, _) in &account.grants.tables {
            accounts.change_grants(account_key, Level::Table(db, t), everything, true)?;
        }
        Ok(())
    }

    /// The account a statement names (`user`), else the session's own; another's needs the
    /// global privilege `others` (1044 on the `mysql` database without, as MariaDB).
    fn account_named(
        &mut self,
        user: Option<&UserSpec>,
        others: Privs,
    ) -> Result<(String, String), SqlError> {
        let own_host = self
            .engine
            .accounts
            .matching_host(&self.info.user, &self.info.host);
        let (name, host) = match user {
            Some(u) => self.grantee(u),
            None => (
                self.info.user.clone(),
                own_host.clone().unwrap_or_else(|| self.info.host.clone()),
            ),
        };
        let own = name == self.info.user && own_host.as_deref() == Some(host.as_str());
        if !own && !self.grants().global.contains(others) {
            return Err(self.database_denied("mysql"));
        }
        Ok((name, host))
    }

    /// SET PASSWORD [FOR user]: one's own account always, another's with CREATE USER.
    pub(crate) fn set_password(
        &mut self,
        user: Option<&UserSpec>,
        password: &AuthSpec,
    ) -> Result<QueryResult, SqlError> {
        let (name, host) = self.account_named(user, Privs::CREATE_USER)?;
        let accounts = &self.engine.accounts;
        // The password is for the account's own plugin, as MariaDB keeps it.
        let current = accounts.credential(&name, &host);
        let credential = password.credential(Plugin::of(&current.unwrap_or_default()))?;
        if current.is_none() || !accounts.set_credential(&name, &host, credential)? {
            return Err(no_matching_account());
        }
        if self.own_account() == (name, host) {
            self.state.password_expired = false;
        }
        Ok(crate::exec::ok(0))
    }

    /// RENAME USER: each account and its grants under a new name; 1396 naming the old
    /// accounts that do not exist or whose new name is taken (the others are renamed).
    pub(crate) fn rename_users(
        &mut self,
        pairs: &[(UserSpec, UserSpec)],
    ) -> Result<QueryResult, SqlError> {
        let mut failed = Vec::new();
        for (from, to) in pairs {
            let renamed = self
                .engine
                .accounts
                .rename((&from.user, &from.host), (&to.user, &to.host))?;
            if !renamed {
                failed.push(format!("'{}'@'{}'", from.user, from.host));
            }
        }
        if failed.is_empty() {
            return Ok(crate::exec::ok(0));
        }
        Err(SqlError::new(
            myriad_types::errors::ER_CANNOT_USER,
            format!("Operation RENAME USER failed for {}", failed.join(",")),
        ))
    }

    /// SHOW CREATE USER [user]: the statement that makes the account as it is.
    pub(crate) fn show_create_user(
        &mut self,
        user: Option<&UserSpec>,
    ) -> Result<QueryResult, SqlError> {
        let (name, host) = self.account_named(user, Privs::SELECT)?;
        let account = self
            .engine
            .accounts
            .grants_of_account(&name, &host)
            .ok_or_else(no_matching_account)?;
        let mut text = format!(
            "CREATE USER `{name}`@`{host}`{}{}{}",
            password_clause(&account),
            account.auth.require.clause(),
            account.limits.clause()
        );
        if account.locked {
            text.push_str(" ACCOUNT LOCK");
        }
        let (expiry, lifetime) = account.password_expiry.clauses();
        text.push_str(&expiry);
        let mut rows = vec![vec![Value::Bytes(text.into_bytes())]];
        if let Some(lifetime) = lifetime {
            let alter = format!("ALTER USER `{name}`@`{host}`{lifetime}");
            rows.push(vec![Value::Bytes(alter.into_bytes())]);
        }
        let column = format!("CREATE USER for {name}@{host}");
        Ok(QueryResult::Rows {
            columns: Arc::new(vec![crate::exec::select::text_column(&column, 1024)]),
            rows: crate::result::Rows::shared(rows),
            warnings: 0,
        })
    }

    /// SHOW GRANTS [FOR user].
    pub(crate) fn show_grants(&mut self, user: Option<&UserSpec>) -> Result<QueryResult, SqlError> {
        let (name, host) = self.account_named(user, Privs::SELECT)?;
        let accounts = &self.engine.accounts;
        let account = accounts
            .grants_of_account(&name, &host)
            .ok_or_else(|| no_such_grant(&name, &host))?;
        let mut lines = grant_lines(&account);
        // A role's include those of the roles granted to it; one's own, those of the role
        // the session enabled (and its roles').
        let roles = match (account.is_role, user.is_none(), &self.state.active_role) {
            (true, _, _) => self.role_closure(&name).into_iter().skip(1).collect(),
            (false, true, Some(role)) => self.role_closure(role),
            _ => Vec::new(),
        };
        for role in &roles {
            lines.extend(grant_lines(role));
        }
        if let Some(role) = &account.default_role {
            lines.push(format!(
                "SET DEFAULT ROLE `{role}` FOR {}",
                grantee_text(&account)
            ));
        }
        let column = if account.is_role {
            format!("Grants for {name}")
        } else {
            format!("Grants for {name}@{host}")
        };
        let rows = lines
            .into_iter()
            .map(|l| vec![Value::Bytes(l.into_bytes())])
            .collect();
        Ok(QueryResult::Rows {
            columns: Arc::new(vec![crate::exec::select::text_column(&column, 1024)]),
            rows: crate::result::Rows::shared(rows),
            warnings: 0,
        })
    }
}

/// An account as SHOW GRANTS names it: `` `u`@`h` ``, or `` `r` `` for a role.
fn grantee_text(account: &Account) -> String {
    if account.is_role {
        format!("`{}`", account.user)
    } else {
        format!("`{}`@`{}`", account.user, account.host)
    }
}

/// The GRANT statements that give `account` what it holds, as SHOW GRANTS lists them: its
/// roles, its global privileges (with password, REQUIRE and limits), then each database's
/// and table's.
fn grant_lines(account: &Account) -> Vec<String> {
    let to = grantee_text(account);
    let with_option = |p: Privs| {
        if p.contains(Privs::GRANT) {
            " WITH GRANT OPTION"
        } else {
            ""
        }
    };
    // The global line's WITH: GRANT OPTION first, then the resource limits.
    let global_with = |p: Privs, limits: &ResourceLimits| {
        let limits = limits.clause();
        match (p.contains(Privs::GRANT), limits.strip_prefix(" WITH")) {
            (true, Some(rest)) => format!(" WITH GRANT OPTION{rest}"),
            (true, None) => String::from(" WITH GRANT OPTION"),
            (false, _) => limits,
        }
    };
    let mut lines: Vec<String> = account
        .roles
        .iter()
        .map(|(role, admin)| {
            let admin = if *admin { " WITH ADMIN OPTION" } else { "" };
            format!("GRANT `{role}` TO {to}{admin}")
        })
        .collect();
    let g = &account.grants;
    lines.push(format!(
        "GRANT {} ON *.* TO {to}{}{}{}",
        g.global.grant_text(Privs::ALL_GLOBAL),
        password_clause(account),
        account.auth.require.clause(),
        global_with(g.global, &account.limits)
    ));
    for (db, privs) in &g.databases {
        lines.push(format!(
            "GRANT {} ON `{db}`.* TO {to}{}",
            privs.grant_text(Privs::ALL_DATABASE),
            with_option(*privs)
        ));
    }
    for (db, table, privs) in &g.tables {
        lines.push(format!(
            "GRANT {} ON `{db}`.`{table}` TO {to}{}",
            table_grant_text(*privs, g.columns_on(db, table)),
            with_option(*privs)
        ));
    }
    for p in crate::catalog::proxies::in_show_order(&account.proxies) {
        lines.push(format!(
            "GRANT PROXY ON `{}`@`{}` TO {to}{}",
            p.user,
            p.shown_host(),
            if p.with_grant {
                " WITH GRANT OPTION"
            } else {
                ""
            }
        ));
    }
    lines
}

/// The privileges of a table's line in SHOW GRANTS, as MariaDB writes them: in the order
/// of privileges, each held at table level by its name, each held on columns by its name
/// and the columns (`SELECT (`a`, `b`)`; both when held both ways); ALL PRIVILEGES when
/// every table privilege is held at table level, USAGE when nothing is.
fn table_grant_text<'c>(privs: Privs, columns: impl Iterator<Item = (&'c str, Privs)>) -> String {
    let columns: Vec<(&str, Privs)> = columns.collect();
    let held = privs.without(Privs::GRANT);
    if held.contains(Privs::ALL_TABLE) {
        return "ALL PRIVILEGES".into();
    }
    let mut parts = Vec::new();
    for (name, bit) in crate::catalog::privileges::NAMES {
        let p = Privs(*bit);
        if held.contains(p) {
            parts.push(name.to_string());
        }
        let on: Vec<String> = columns
            .iter()
            .filter(|(_, c)| c.contains(p))
            .map(|(column, _)| format!("`{}`", column.replace('`', "``")))
            .collect();
        if !on.is_empty() {
            parts.push(format!("{name} ({})", on.join(", ")));
        }
    }
    if parts.is_empty() {
        return "USAGE".into();
    }
    parts.join(", ")
}

fn illegal_grant_for_table() -> SqlError {
    SqlError::new(
        ER_ILLEGAL_GRANT_FOR_TABLE,
        "Illegal GRANT/REVOKE command; please consult the manual to see which privileges \
         can be used",
    )
}

pub(super) fn no_such_grant(user: &str, host: &str) -> SqlError {
    SqlError::new(
        ER_NONEXISTING_GRANT,
        format!("There is no such grant defined for user '{user}' on host '{host}'"),
    )
}

pub(super) fn no_matching_account() -> SqlError {
    SqlError::new(
        ER_PASSWORD_NO_MATCH,
        "Can't find any matching row in the user table",
    )
}

fn no_such_account(revoke: bool, u: &UserSpec) -> SqlError {
    if revoke {
        no_such_grant(&u.user, &u.host)
    } else {
        no_matching_account()
    }
}

/// ` IDENTIFIED ...` for an account with a credential, as SHOW GRANTS and SHOW CREATE USER
/// write it.
fn password_clause(account: &crate::catalog::accounts::Account) -> String {
    crate::catalog::auth_plugins::identified_clause(&account.auth.credential)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_line_lists_columns_after_their_privilege() {
        let columns = [
            ("a", Privs::SELECT.union(Privs::UPDATE)),
            ("b`", Privs::SELECT),
        ];
        assert_eq!(
            table_grant_text(Privs::INSERT, columns.iter().copied()),
            "SELECT (`a`, `b```), INSERT, UPDATE (`a`)"
        );
        assert_eq!(
            table_grant_text(Privs::SELECT, columns.iter().copied()),
            "SELECT, SELECT (`a`, `b```), UPDATE (`a`)"
        );
        assert_eq!(table_grant_text(Privs::GRANT, std::iter::empty()), "USAGE");
        assert_eq!(
            table_grant_text(Privs::ALL_TABLE, columns.iter().copied()),
            "ALL PRIVILEGES"
        );
    }
}
