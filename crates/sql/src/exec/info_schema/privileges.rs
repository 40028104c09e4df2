//! USER_PRIVILEGES, SCHEMA_PRIVILEGES and TABLE_PRIVILEGES: the accounts' grants, one row
//! per privilege (MariaDB's names and order), `IS_GRANTABLE` YES where the grant carries
//! GRANT OPTION. An account with no global privilege shows one `USAGE` row.
//!
//! Visibility, as MariaDB's: an account that may read the `mysql` database (SELECT on it,
//! or globally) sees every account's rows; any other sees its own only.

use super::text;
use crate::catalog::accounts::Account;
use crate::catalog::privileges::Privs;
use crate::exec::env::ExecEnv;
use myriad_storage as st;

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
    for account in visible_accounts(env) {
        let who = grantee(&account);
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
