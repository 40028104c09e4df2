//! Parsing of GRANT, REVOKE and SHOW GRANTS (with the token cursor of the other
//! hand-written parsers).

use crate::catalog::account_options::{
    AccountOptions, ExpireClause, PasswordLifetime, LIMIT_NAMES,
};
use crate::catalog::privileges::Privs;
use crate::catalog::tls_require::TlsRequire;
use crate::error::SqlError;
use crate::parser::source::*;
use crate::plan::statements::{parse_user_list, password_call};
use crate::plan::UserSpec;
use crate::plan::{AuthSpec, Stmt};
use myriad_types::errors::{ER_DUP_ARGUMENT, ER_NOT_SUPPORTED_YET, ER_WRONG_VALUE};
use sqlparser::tokenizer::Token;

/// GRANT or REVOKE, as planned.
#[derive(Debug, Clone)]
pub struct GrantStmt {
    pub revoke: bool,
    /// The privileges named; `ALL [PRIVILEGES]` is `all`, resolved at the level.
    pub privs: Privs,
    pub all: bool,
    /// WITH GRANT OPTION, or GRANT OPTION among the privileges of a REVOKE.
    pub grant_option: bool,
    /// Column privileges (`SELECT (a, b)`): each column as written and its privileges.
    pub columns: Vec<(String, Privs)>,
    pub level: GrantLevel,
    /// `REVOKE ALL PRIVILEGES, GRANT OPTION FROM ...`: every level at once.
    pub every_level: bool,
    pub users: Vec<UserSpec>,
    /// GRANT's `REQUIRE ...` and `WITH MAX_...`: what changes of the accounts.
    pub options: AccountOptions,
    /// `GRANT PROXY ON account TO ...` / `REVOKE PROXY ON account FROM ...`: the proxied
    /// account (the other fields are empty).
    pub proxy: Option<UserSpec>,
}

/// `ON *.*`, `ON db.*`, `ON *` (the current database), `ON db.t` or `ON t` (a table of
/// the current database).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantLevel {
    Global,
    Database(String),
    CurrentDatabase,
    Table(Option<String>, String),
}

fn unsupported(what: &str) -> SqlError {
    SqlError::new(
        ER_NOT_SUPPORTED_YET,
        format!("This version of myriad doesn't yet support '{what}'"),
    )
}

/// `GRANT privs ON level TO users [WITH GRANT OPTION]` or
/// `REVOKE privs ON level FROM users`.
pub(crate) fn grant(c: &mut Cursor) -> Result<Stmt, SqlError> {
    let revoke = c.peek_word().as_deref() == Some("REVOKE");
    c.pos += 1;
    if c.peek_word().as_deref() == Some("PROXY") && c.peek_word_at(1).as_deref() == Some("ON") {
        return proxy(c, revoke);
    }
    let (mut privs, mut all, mut grant_option) = (Privs::NONE, false, false);
    let mut columns = Vec::new();
    loop {
        if c.eat_word("ALL") {
            c.eat_word("PRIVILEGES");
            all = true;
        } else if c.eat_word("GRANT") {
            c.expect_word("OPTION")?;
            grant_option = true;
        } else {
            let p = privilege_name(c)?;
            // Only SELECT, INSERT, UPDATE and REFERENCES take a column list (MariaDB's
            // grammar: 1064 for any other).
            if c.peek().is_some_and(|t| t.token == Token::LParen) {
                if p.is_empty() || !Privs::COLUMN.contains(p) {
                    return Err(c.error());
                }
                c.pos += 1;
                loop {
                    columns.push((c.name()?, p));
                    if !c.eat_token(&Token::Comma) {
                        break;
                    }
                }
                if !c.eat_token(&Token::RParen) {
                    return Err(c.error());
                }
            } else {
                privs = privs.union(p);
            }
        }
        if c.peek().is_some_and(|t| t.token == Token::LParen) {
            return Err(c.error());
        }
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    // REVOKE ALL PRIVILEGES, GRANT OPTION FROM users: every grant of every level.
    let every_level = revoke
        && all
        && grant_option
        && columns.is_empty()
        && c.peek_word().as_deref() == Some("FROM");
    let level = if every_level {
        GrantLevel::Global
    } else {
        c.expect_word("ON")?;
        c.eat_word("TABLE");
        level(c)?
    };
    c.expect_word(if revoke { "FROM" } else { "TO" })?;
    // GRANT ... TO u IDENTIFIED BY [PASSWORD] '...' sets the password (SHOW GRANTS prints it).
    let users = parse_user_list(c, !revoke)?;
    let options = if revoke {
        AccountOptions::default()
    } else {
        account_options(c, Some(&mut grant_option))?
    };
    c.expect_end()?;
    Ok(Stmt::Grant(GrantStmt {
        revoke,
        privs,
        all,
        grant_option,
        columns,
        level,
        every_level,
        users,
        options,
        proxy: None,
    }))
}

/// `PROXY ON account TO accounts [WITH GRANT OPTION]` or `PROXY ON account FROM accounts`,
/// after GRANT or REVOKE.
fn proxy(c: &mut Cursor, revoke: bool) -> Result<Stmt, SqlError> {
    c.pos += 2;
    let proxied = user_before_keyword(c, if revoke { "FROM" } else { "TO" })?;
    c.expect_word(if revoke { "FROM" } else { "TO" })?;
    let users = parse_user_list(c, false)?;
    let grant_option = !revoke && c.eat_word("WITH") && {
        c.expect_word("GRANT")?;
        c.expect_word("OPTION")?;
        true
    };
    c.expect_end()?;
    Ok(Stmt::Grant(GrantStmt {
        revoke,
        privs: Privs::NONE,
        all: false,
        grant_option,
        columns: Vec::new(),
        level: GrantLevel::Global,
        every_level: false,
        users,
        options: AccountOptions::default(),
        proxy: Some(proxied),
    }))
}

/// What follows the accounts of CREATE USER and ALTER USER (`grant_option` None), or of
/// GRANT: `[REQUIRE ...] [WITH {MAX_... n | GRANT OPTION} ...]`, then for CREATE / ALTER
/// USER `ACCOUNT LOCK | UNLOCK` and `PASSWORD EXPIRE [NEVER | DEFAULT | INTERVAL n DAY]`.
pub(crate) fn account_options(
    c: &mut Cursor,
    mut grant_option: Option<&mut bool>,
) -> Result<AccountOptions, SqlError> {
    let mut options = AccountOptions {
        require: require_clause(c)?,
        ..Default::default()
    };
    if c.eat_word("WITH") {
        loop {
            let word = c.peek_word().unwrap_or_default();
            if word == "GRANT" {
                let Some(flag) = grant_option.as_deref_mut() else {
                    return Err(c.error());
                };
                c.pos += 1;
                c.expect_word("OPTION")?;
                *flag = true;
            } else if LIMIT_NAMES.contains(&word.as_str()) {
                c.pos += 1;
                let value = c.number()?;
                options.limits.set(&word, value);
            } else {
                break;
            }
        }
        if options.limits.is_empty() && !grant_option.as_deref().copied().unwrap_or(false) {
            return Err(c.error());
        }
    }
    if grant_option.is_none() {
        loop {
            if c.eat_word("ACCOUNT") {
                options.lock = Some(if c.eat_word("LOCK") {
                    true
                } else {
                    c.expect_word("UNLOCK")?;
                    false
                });
            } else if c.peek_word().as_deref() == Some("PASSWORD") && options.expire.is_none() {
                c.pos += 1;
                c.expect_word("EXPIRE")?;
                options.expire = Some(expire_clause(c)?);
            } else {
                break;
            }
        }
    }
    Ok(options)
}

/// What follows `PASSWORD EXPIRE`: nothing (expired now), `NEVER`, `DEFAULT` or
/// `INTERVAL n DAY` (n from 1; 0 is MariaDB's 1525).
fn expire_clause(c: &mut Cursor) -> Result<ExpireClause, SqlError> {
    let lifetime = if c.eat_word("NEVER") {
        PasswordLifetime::Never
    } else if c.eat_word("DEFAULT") {
        PasswordLifetime::Default
    } else if c.eat_word("INTERVAL") {
        let days = c.number()?;
        if days.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&days) {
            return Err(c.error());
        }
        c.expect_word("DAY")?;
        if days == 0.0 {
            return Err(SqlError::new(ER_WRONG_VALUE, "Incorrect DAY value: '0'"));
        }
        PasswordLifetime::Days(days as u32)
    } else {
        return Ok(ExpireClause::Now);
    };
    Ok(ExpireClause::Lifetime(lifetime))
}

/// An account's `REQUIRE NONE | SSL | X509 | {ISSUER 'i' | SUBJECT 's' | CIPHER 'c'}
/// [[AND] ...]`, or None when the statement has no REQUIRE.
pub(crate) fn require_clause(c: &mut Cursor) -> Result<Option<TlsRequire>, SqlError> {
    if !c.eat_word("REQUIRE") {
        return Ok(None);
    }
    if c.eat_word("NONE") {
        return Ok(Some(TlsRequire::None));
    }
    if c.eat_word("SSL") {
        return Ok(Some(TlsRequire::Ssl));
    }
    if c.eat_word("X509") {
        return Ok(Some(TlsRequire::X509));
    }
    let (mut issuer, mut subject, mut cipher) = (None, None, None);
    loop {
        let slot = match c.peek_word().as_deref() {
            Some("ISSUER") => &mut issuer,
            Some("SUBJECT") => &mut subject,
            Some("CIPHER") => &mut cipher,
            _ => return Err(c.error()),
        };
        let word = c.peek_word().unwrap_or_default();
        c.pos += 1;
        if slot.is_some() {
            return Err(SqlError::new(
                ER_DUP_ARGUMENT,
                format!("Option '{word}' used twice in statement"),
            ));
        }
        *slot = Some(c.string()?);
        c.eat_word("AND");
        if !matches!(
            c.peek_word().as_deref(),
            Some("ISSUER" | "SUBJECT" | "CIPHER")
        ) {
            break;
        }
    }
    Ok(Some(TlsRequire::Specified {
        issuer,
        subject,
        cipher,
    }))
}

/// One privilege name of one to three words (`SELECT`, `SHOW DATABASES`,
/// `CREATE TEMPORARY TABLES`).
fn privilege_name(c: &mut Cursor) -> Result<Privs, SqlError> {
    // USAGE: no privilege (GRANT USAGE changes only options: GRANT OPTION, limits).
    if c.eat_word("USAGE") {
        return Ok(Privs::NONE);
    }
    let start = c.pos;
    let mut words = Vec::new();
    let mut found = None;
    for _ in 0..3 {
        let Some(w) = c.peek_word() else { break };
        if matches!(w.as_str(), "ON" | "TO" | "FROM") {
            break;
        }
        words.push(w);
        c.pos += 1;
        if let Some(p) = Privs::named(&words.join(" ")) {
            found = Some((p, c.pos));
        }
    }
    match found {
        Some((p, end)) => {
            c.pos = end;
            Ok(p)
        }
        None => {
            c.pos = start;
            Err(c.error())
        }
    }
}

fn level(c: &mut Cursor) -> Result<GrantLevel, SqlError> {
    if c.eat_token(&Token::Mul) {
        if c.eat_token(&Token::Period) {
            if c.eat_token(&Token::Mul) {
                return Ok(GrantLevel::Global);
            }
            return Err(c.error());
        }
        return Ok(GrantLevel::CurrentDatabase);
    }
    let first = c.name()?;
    if c.eat_token(&Token::Period) {
        if c.eat_token(&Token::Mul) {
            return Ok(GrantLevel::Database(first));
        }
        return Ok(GrantLevel::Table(Some(first), c.name()?));
    }
    Ok(GrantLevel::Table(None, first))
}

/// `SHOW GRANTS [FOR user | FOR CURRENT_USER[()]]` and `SHOW CREATE USER [user |
/// CURRENT_USER[()]]`, after SHOW.
pub(crate) fn show_grants(c: &mut Cursor) -> Result<Stmt, SqlError> {
    let create = c.eat_word("CREATE");
    c.expect_word(if create { "USER" } else { "GRANTS" })?;
    let named = if create {
        !c.at_end()
    } else {
        c.eat_word("FOR")
    };
    let user = match named {
        true => Some(one_user(c)?).filter(|u| !u.current_user),
        false => None,
    };
    c.expect_end()?;
    Ok(if create {
        Stmt::ShowCreateUser(user)
    } else {
        Stmt::ShowGrants(user)
    })
}

/// One `user[@host]`, without a password clause.
fn one_user(c: &mut Cursor) -> Result<UserSpec, SqlError> {
    let mut users = parse_user_list(c, false)?;
    match (users.pop(), users.is_empty()) {
        (Some(u), true) => Ok(u),
        _ => Err(c.error()),
    }
}

/// `RENAME USER old TO new [, old TO new] ...`
pub(crate) fn rename_user(c: &mut Cursor) -> Result<Stmt, SqlError> {
    c.expect_word("RENAME")?;
    c.expect_word("USER")?;
    let mut pairs = Vec::new();
    loop {
        let from = one_user(c)?;
        c.expect_word("TO")?;
        let to = user_before_comma(c)?;
        pairs.push((from, to));
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    c.expect_end()?;
    Ok(Stmt::RenameUser(pairs))
}

/// One `user[@host]` followed by a comma and more (which the list parser would take as
/// the next user).
fn user_before_comma(c: &mut Cursor) -> Result<UserSpec, SqlError> {
    let end = (c.pos..c.tokens.len())
        .find(|&i| c.tokens[i].token == Token::Comma)
        .unwrap_or(c.tokens.len());
    user_before(c, end)
}

/// One `user[@host]` followed by the word `keyword` (which a host-less name would
/// otherwise not end before).
fn user_before_keyword(c: &mut Cursor, keyword: &str) -> Result<UserSpec, SqlError> {
    let end = (c.pos..c.tokens.len())
        .find(|&i| bare_word(&c.tokens[i]).is_some_and(|w| w.eq_ignore_ascii_case(keyword)))
        .unwrap_or(c.tokens.len());
    user_before(c, end)
}

/// One `user[@host]` among the tokens before `end`.
fn user_before(c: &mut Cursor, end: usize) -> Result<UserSpec, SqlError> {
    let start = c.pos;
    let mut sub = Cursor {
        tokens: &c.tokens[..end],
        pos: start,
        map: c.map,
        text: c.text.clone(),
    };
    let user = one_user(&mut sub)?;
    c.pos = sub.pos;
    Ok(user)
}

/// `SET PASSWORD [FOR user] = PASSWORD('pw') | 'stored form'`: the user (None: the current
/// account) and its new password.
pub(crate) fn set_password(c: &mut Cursor) -> Result<Stmt, SqlError> {
    c.expect_word("SET")?;
    c.expect_word("PASSWORD")?;
    let user = if c.eat_word("FOR") {
        Some(one_user(c)?)
    } else {
        None
    };
    if !c.eat_token(&Token::Eq) {
        return Err(c.error());
    }
    let password = if let Some(pw) = password_call(c)? {
        AuthSpec::Password(pw)
    } else if c.peek_word().as_deref() == Some("OLD_PASSWORD") {
        return Err(unsupported("OLD_PASSWORD"));
    } else {
        // A bare string is the stored form itself ('' for no password).
        AuthSpec::Stored(c.string()?)
    };
    c.expect_end()?;
    Ok(Stmt::SetPassword { user, password })
}
