//! Parsing of the role statements: CREATE / DROP ROLE, GRANT and REVOKE of roles, SET
//! ROLE and SET DEFAULT ROLE (see `crate::catalog::roles` for what a role is).

use crate::error::SqlError;
use crate::parser::source::Cursor;
use crate::plan::statements::parse_user_list;
use crate::plan::{Stmt, UserSpec};
use sqlparser::tokenizer::Token;

/// A role statement, as planned.
#[derive(Debug, Clone)]
pub enum RoleStmt {
    Create {
        names: Vec<String>,
        if_not_exists: bool,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
    },
    /// GRANT roles TO grantees [WITH ADMIN OPTION], or REVOKE roles FROM grantees.
    Grant {
        revoke: bool,
        roles: Vec<String>,
        grantees: Vec<UserSpec>,
        admin: bool,
    },
    /// SET ROLE: a role, or NONE.
    Set(Option<String>),
    /// SET DEFAULT ROLE role | NONE [FOR user].
    SetDefault {
        role: Option<String>,
        user: Option<UserSpec>,
    },
}

fn names(c: &mut Cursor) -> Result<Vec<String>, SqlError> {
    let mut out = vec![c.name()?];
    while c.eat_token(&Token::Comma) {
        out.push(c.name()?);
    }
    Ok(out)
}

/// `CREATE ROLE [IF NOT EXISTS] r, ...` and `DROP ROLE [IF EXISTS] r, ...`.
pub(crate) fn create_or_drop(c: &mut Cursor) -> Result<Stmt, SqlError> {
    let create = c.eat_word("CREATE");
    if !create {
        c.expect_word("DROP")?;
    }
    c.expect_word("ROLE")?;
    let flag = c.if_exists(create)?;
    let names = names(c)?;
    if create && c.eat_word("WITH") {
        return Err(SqlError::not_supported("CREATE ROLE ... WITH ADMIN"));
    }
    c.expect_end()?;
    Ok(Stmt::Role(if create {
        RoleStmt::Create {
            names,
            if_not_exists: flag,
        }
    } else {
        RoleStmt::Drop {
            names,
            if_exists: flag,
        }
    }))
}

/// Whether a GRANT / REVOKE grants roles: no `ON` before its `TO` / `FROM`.
pub(crate) fn grants_roles(c: &Cursor) -> bool {
    (1..)
        .map(|i| c.peek_word_at(i))
        .take_while(Option::is_some)
        .flatten()
        .find(|w| matches!(w.as_str(), "ON" | "TO" | "FROM"))
        .is_some_and(|w| w != "ON")
}

/// `GRANT r, ... TO u, ... [WITH ADMIN OPTION]` or `REVOKE r, ... FROM u, ...`.
pub(crate) fn grant(c: &mut Cursor) -> Result<Stmt, SqlError> {
    let revoke = c.eat_word("REVOKE");
    if !revoke {
        c.expect_word("GRANT")?;
    }
    if revoke && c.peek_word().as_deref() == Some("ADMIN") {
        return Err(SqlError::not_supported("REVOKE ADMIN OPTION FOR"));
    }
    let roles = names(c)?;
    c.expect_word(if revoke { "FROM" } else { "TO" })?;
    let grantees = parse_user_list(c, false)?;
    let admin = !revoke && c.eat_word("WITH");
    if admin {
        c.expect_word("ADMIN")?;
        c.expect_word("OPTION")?;
    }
    c.expect_end()?;
    Ok(Stmt::Role(RoleStmt::Grant {
        revoke,
        roles,
        grantees,
        admin,
    }))
}

/// `SET ROLE r | NONE | DEFAULT` and `SET DEFAULT ROLE r | NONE [FOR user]`.
pub(crate) fn set(c: &mut Cursor) -> Result<Stmt, SqlError> {
    c.expect_word("SET")?;
    let default = c.eat_word("DEFAULT");
    c.expect_word("ROLE")?;
    // `SET ROLE DEFAULT` is a syntax error in MariaDB 10.11, as here.
    if c.peek_word().as_deref() == Some("DEFAULT") {
        return Err(c.error());
    }
    let role = if c.eat_word("NONE") {
        None
    } else {
        Some(c.name()?)
    };
    if !default {
        c.expect_end()?;
        return Ok(Stmt::Role(RoleStmt::Set(role)));
    }
    let user = if c.eat_word("FOR") {
        let mut users = parse_user_list(c, false)?;
        if users.len() != 1 {
            return Err(c.error());
        }
        users.pop()
    } else {
        None
    };
    c.expect_end()?;
    Ok(Stmt::Role(RoleStmt::SetDefault { role, user }))
}
