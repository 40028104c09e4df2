//! The short statements [`super::compile_statement`] reads by hand from the token list, one
//! function per family: DESCRIBE of a table, CHECK and ANALYZE, USE, databases, accounts,
//! FLUSH and RESET, SHUTDOWN, transactions and DO. Each starts with the cursor at the
//! statement's first word.

use crate::error::SqlError;
use crate::expr::Compiler;
use crate::parser::source::Cursor;
use crate::plan::statements::{compile_expr_tokens, parse_user_list, table_name};
use crate::plan::{ShowFilter, Stmt};
use sqlparser::tokenizer::Token;

/// `DESCRIBE t [column | 'pattern']` (also DESC, EXPLAIN): the columns of a table.
pub(crate) fn describe_table(c: &mut Cursor) -> Result<Stmt, SqlError> {
    c.pos += 1;
    let (database, table) = table_name(c)?;
    let filter = if c.at_end() {
        ShowFilter::None
    } else {
        // DESCRIBE t col: a column name or a LIKE pattern.
        let pattern = c.name()?;
        c.expect_end()?;
        ShowFilter::Like(pattern)
    };
    Ok(Stmt::ShowColumns {
        database,
        table,
        full: false,
        filter,
    })
}

/// `CHECK TABLE t, ...` and `ANALYZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE t, ...`.
pub(crate) fn maintenance(c: &mut Cursor) -> Result<Stmt, SqlError> {
    let analyze = c.eat_word("ANALYZE");
    if !analyze {
        c.pos += 1;
    }
    c.eat_word("NO_WRITE_TO_BINLOG");
    c.eat_word("LOCAL");
    if !(c.eat_word("TABLE") || c.eat_word("TABLES")) {
        return Err(c.error());
    }
    let mut tables = Vec::new();
    loop {
        tables.push(table_name(c)?);
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    // CHECK options (QUICK, FAST, MEDIUM, EXTENDED, CHANGED, FOR UPGRADE) are accepted.
    Ok(Stmt::Maintenance { analyze, tables })
}

/// A table name, in the `current` database when it names none (1046 without one).
fn qualified_table(c: &mut Cursor, current: Option<&str>) -> Result<(String, String), SqlError> {
    let (database, name) = table_name(c)?;
    let database = match database {
        Some(db) => db,
        None => current
            .map(str::to_string)
            .ok_or_else(crate::plan::tables::err_no_database)?,
    };
    Ok((database, name))
}

/// Whether the statement is `ALTER TABLE t DISABLE KEYS` or `... ENABLE KEYS` alone (as
/// dumps write it around a table's rows).
pub(crate) fn is_keys_toggle(c: &Cursor) -> bool {
    let n = c.tokens.len().saturating_sub(c.pos);
    (n == 5 || n == 7)
        && c.peek_word_at(1).as_deref() == Some("TABLE")
        && matches!(c.peek_word_at(n - 2).as_deref(), Some("DISABLE" | "ENABLE"))
        && c.peek_word_at(n - 1).as_deref() == Some("KEYS")
}

/// `ALTER TABLE t {DISABLE | ENABLE} KEYS`: an index change with nothing to add or drop
/// (the engine keeps its indexes current; see `exec::ddl`).
pub(crate) fn keys_toggle(c: &mut Cursor, current: Option<&str>) -> Result<Stmt, SqlError> {
    c.pos += 2;
    let (database, name) = qualified_table(c, current)?;
    c.pos += 2;
    c.expect_end()?;
    Ok(Stmt::AlterIndexes {
        database,
        name,
        add: None,
        drop: None,
    })
}

/// A table of LOCK TABLES.
#[derive(Debug, Clone, PartialEq)]
pub struct LockItem {
    pub database: String,
    pub name: String,
    /// The alias statements must use it by (None: its name).
    pub alias: Option<String>,
    pub write: bool,
}

/// `LOCK TABLE[S] t [[AS] alias] {READ [LOCAL] | [LOW_PRIORITY] WRITE [CONCURRENT]}, ...`.
/// As in MariaDB's parser, a table without a database and none selected (1046) and an
/// alias given twice (1066) fail here.
pub(crate) fn lock_tables(c: &mut Cursor, current: Option<&str>) -> Result<Stmt, SqlError> {
    c.pos += 2;
    let mut items: Vec<LockItem> = Vec::new();
    loop {
        let (database, name) = qualified_table(c, current)?;
        let alias = match c.peek_word().as_deref() {
            Some("AS") => {
                c.pos += 1;
                Some(c.name()?)
            }
            Some("READ" | "WRITE" | "LOW_PRIORITY") => None,
            _ => Some(c.name()?),
        };
        let write = if c.eat_word("READ") {
            c.eat_word("LOCAL");
            false
        } else {
            c.eat_word("LOW_PRIORITY");
            c.expect_word("WRITE")?;
            c.eat_word("CONCURRENT");
            true
        };
        let named = alias.as_deref().unwrap_or(&name);
        if items
            .iter()
            .any(|i| i.alias.as_deref().unwrap_or(&i.name) == named)
        {
            return Err(SqlError::new(
                myriad_types::errors::ER_NONUNIQ_TABLE,
                format!("Not unique table/alias: '{named}'"),
            ));
        }
        items.push(LockItem {
            database,
            name,
            alias,
            write,
        });
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    c.expect_end()?;
    Ok(Stmt::LockTables(items))
}

/// `USE db`.
pub(crate) fn use_database(c: &mut Cursor) -> Result<Stmt, SqlError> {
    c.pos += 1;
    let name = c.name()?;
    c.expect_end()?;
    Ok(Stmt::Use(name))
}

/// `CREATE DATABASE [IF NOT EXISTS] db ...` and `DROP DATABASE [IF EXISTS] db` (or SCHEMA).
pub(crate) fn database(c: &mut Cursor) -> Result<Stmt, SqlError> {
    let create = c.eat_word("CREATE");
    if !create {
        c.expect_word("DROP")?;
    }
    c.pos += 1;
    let flag = c.if_exists(create)?;
    let name = c.name()?;
    if create {
        let collation = database_options(c)?;
        Ok(Stmt::CreateDatabase {
            name,
            if_not_exists: flag,
            collation,
        })
    } else {
        c.expect_end()?;
        Ok(Stmt::DropDatabase {
            name,
            if_exists: flag,
        })
    }
}

/// CREATE DATABASE's `[DEFAULT] {CHARACTER SET | CHARSET} [=] cs` and
/// `[DEFAULT] COLLATE [=] name`: the collation its tables default to, chosen as a
/// table's options choose it.
fn database_options(c: &mut Cursor) -> Result<crate::expr::Collation, SqlError> {
    let mut options = Vec::new();
    while !c.at_end() {
        c.eat_word("DEFAULT");
        let key = if c.eat_word("COLLATE") {
            "COLLATE"
        } else if c.eat_word("CHARSET") || (c.eat_word("CHARACTER") && c.eat_word("SET")) {
            "CHARSET"
        } else {
            return Err(c.error());
        };
        c.eat_token(&sqlparser::tokenizer::Token::Eq);
        options.push((key.to_string(), c.name()?));
    }
    crate::plan::table_def::table_collation(&options)
}

/// `CREATE USER`, `DROP USER` and `ALTER USER` over a list of accounts.
pub(crate) fn account(c: &mut Cursor) -> Result<Stmt, SqlError> {
    let verb = c.peek_word().unwrap_or_default();
    c.pos += 2;
    let flag = c.if_exists(verb == "CREATE")?;
    let users = parse_user_list(c, verb != "DROP")?;
    let options = if verb == "DROP" {
        Default::default()
    } else {
        crate::plan::grants::account_options(c, None)?
    };
    c.expect_end()?;
    Ok(match verb.as_str() {
        "CREATE" => Stmt::CreateUser {
            users,
            if_not_exists: flag,
            options,
        },
        "DROP" => Stmt::DropUser {
            users,
            if_exists: flag,
        },
        _ => Stmt::AlterUser {
            users,
            if_exists: flag,
            options,
        },
    })
}

/// `FLUSH [LOCAL | NO_WRITE_TO_BINLOG] STATUS | TABLES [t, ...] | QUERY CACHE | ...`.
pub(crate) fn flush(c: &mut Cursor) -> Result<Stmt, SqlError> {
    c.pos += 1;
    c.eat_word("LOCAL");
    c.eat_word("NO_WRITE_TO_BINLOG");
    if c.eat_word("STATUS") {
        c.expect_end()?;
        Ok(Stmt::FlushStatus)
    } else if matches!(c.peek_word().as_deref(), Some("TABLES" | "TABLE")) {
        // FLUSH TABLES [t, ...] WITH READ LOCK / FOR EXPORT: the locks are not built, and a
        // backup must not believe writes are blocked.
        let locks = (1..c.tokens.len().saturating_sub(c.pos))
            .any(|i| matches!(c.peek_word_at(i).as_deref(), Some("WITH" | "FOR")));
        if locks {
            return Err(SqlError::not_supported(
                "FLUSH TABLES WITH READ LOCK and FLUSH TABLES ... FOR EXPORT",
            ));
        }
        c.pos += 1;
        let mut names = Vec::new();
        while !c.at_end() {
            let first = c.name()?;
            names.push(if c.eat_token(&Token::Period) {
                (Some(first), c.name()?)
            } else {
                (None, first)
            });
            if !c.eat_token(&Token::Comma) {
                break;
            }
        }
        c.expect_end()?;
        Ok(Stmt::FlushTables((!names.is_empty()).then_some(names)))
    } else if c.eat_word("QUERY") {
        c.expect_word("CACHE")?;
        c.expect_end()?;
        Ok(Stmt::QueryCache { reset: false })
    } else if c.at_end() {
        Err(c.error())
    } else {
        let user_resources = (0..c.tokens.len().saturating_sub(c.pos))
            .any(|i| c.peek_word_at(i).as_deref() == Some("USER_RESOURCES"));
        Ok(Stmt::Flush { user_resources })
    }
}

/// `RESET QUERY CACHE`.
pub(crate) fn reset_query_cache(c: &mut Cursor) -> Result<Stmt, SqlError> {
    c.pos += 2;
    c.expect_word("CACHE")?;
    c.expect_end()?;
    Ok(Stmt::QueryCache { reset: true })
}

/// `SHUTDOWN [WAIT FOR ALL REPLICAS]`.
pub(crate) fn shutdown(c: &mut Cursor) -> Result<Stmt, SqlError> {
    c.pos += 1;
    c.eat_word("WAIT");
    c.eat_word("FOR");
    c.eat_word("ALL");
    c.eat_word("REPLICAS");
    c.expect_end()?;
    Ok(Stmt::Shutdown)
}

/// `INSTALL SONAME 'lib'`, `INSTALL PLUGIN name SONAME 'lib'`, `UNINSTALL SONAME 'lib'`
/// or `UNINSTALL PLUGIN name`.
pub(crate) fn plugin(c: &mut Cursor) -> Result<Stmt, SqlError> {
    let install = c.eat_word("INSTALL");
    if !install {
        c.expect_word("UNINSTALL")?;
    }
    let name = if c.eat_word("PLUGIN") {
        Some(c.name()?)
    } else {
        None
    };
    let soname = if name.is_none() || install {
        c.expect_word("SONAME")?;
        Some(c.string()?)
    } else {
        None
    };
    c.expect_end()?;
    Ok(Stmt::Plugin {
        install,
        name,
        soname,
    })
}

/// `BEGIN [WORK]`, `START TRANSACTION [mode, ...]`, `COMMIT` / `ROLLBACK` with their
/// options (`WORK`, `AND [NO] CHAIN`, `[NO] RELEASE`), and the savepoint statements:
/// `SAVEPOINT sp`, `ROLLBACK [WORK] TO [SAVEPOINT] sp`, `RELEASE SAVEPOINT sp`.
pub(crate) fn transaction(c: &mut Cursor) -> Result<Stmt, SqlError> {
    if c.eat_word("BEGIN") {
        c.eat_word("WORK");
        c.expect_end()?;
        return Ok(Stmt::Begin {
            read_only: false,
            consistent_snapshot: false,
        });
    }
    if c.eat_word("START") {
        c.expect_word("TRANSACTION")?;
        return start_transaction(c);
    }
    if c.eat_word("SAVEPOINT") {
        let name = c.name()?;
        c.expect_end()?;
        return Ok(Stmt::Savepoint(name));
    }
    if c.eat_word("RELEASE") {
        c.expect_word("SAVEPOINT")?;
        let name = c.name()?;
        c.expect_end()?;
        return Ok(Stmt::ReleaseSavepoint(name));
    }
    let commit = c.eat_word("COMMIT");
    if !commit {
        c.expect_word("ROLLBACK")?;
    }
    c.eat_word("WORK");
    if !commit && c.eat_word("TO") {
        c.eat_word("SAVEPOINT");
        let name = c.name()?;
        c.expect_end()?;
        return Ok(Stmt::RollbackToSavepoint(name));
    }
    let mut chain = false;
    if c.eat_word("AND") {
        chain = !c.eat_word("NO");
        c.expect_word("CHAIN")?;
    }
    if c.eat_word("NO") {
        c.expect_word("RELEASE")?;
    } else if c.eat_word("RELEASE") {
        // Ending the connection from inside a statement is not built: say so rather than
        // leave the client connected when it asked to be let go.
        return Err(SqlError::not_supported(
            "COMMIT ... RELEASE and ROLLBACK ... RELEASE",
        ));
    }
    c.expect_end()?;
    Ok(if commit {
        Stmt::Commit { chain }
    } else {
        Stmt::Rollback { chain }
    })
}

/// The modes after `START TRANSACTION`: `WITH CONSISTENT SNAPSHOT`, `READ ONLY`,
/// `READ WRITE`, separated by commas (READ ONLY and READ WRITE together are an error).
fn start_transaction(c: &mut Cursor) -> Result<Stmt, SqlError> {
    let (mut read_only, mut read_write, mut consistent_snapshot) = (false, false, false);
    while !c.at_end() {
        if c.eat_word("WITH") {
            c.expect_word("CONSISTENT")?;
            c.expect_word("SNAPSHOT")?;
            consistent_snapshot = true;
        } else if c.eat_word("READ") {
            if c.eat_word("ONLY") {
                read_only = true;
            } else {
                c.expect_word("WRITE")?;
                read_write = true;
            }
            if read_only && read_write {
                return Err(c.error());
            }
        } else {
            return Err(c.error());
        }
        if !c.eat_token(&Token::Comma) {
            c.expect_end()?;
        }
    }
    Ok(Stmt::Begin {
        read_only,
        consistent_snapshot,
    })
}

/// `DO expr, ...`.
pub(crate) fn do_exprs(c: &mut Cursor, compiler: &Compiler) -> Result<Stmt, SqlError> {
    c.pos += 1;
    let mut exprs = Vec::new();
    loop {
        let part = c.until_comma();
        exprs.push(compile_expr_tokens(part, compiler, c)?);
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    Ok(Stmt::Do(exprs))
}

/// `CALL [db.]name[(argument, ...)]`: myriad has no stored procedures, so none exists to
/// call (1305, MariaDB's answer for a procedure that does not exist). A name without a
/// database needs a current one (1046); the arguments are compiled first, so that an
/// unknown column is MariaDB's 1054.
pub(crate) fn call(
    c: &mut Cursor,
    compiler: &Compiler,
    database: Option<&str>,
) -> Result<Stmt, SqlError> {
    c.pos += 1;
    let mut parts = vec![c.name()?];
    while c.eat_token(&Token::Period) {
        parts.push(c.name()?);
    }
    if parts.len() == 1 {
        parts.insert(0, current_database(database)?.to_string());
    }
    if c.eat_token(&Token::LParen) && !c.eat_token(&Token::RParen) {
        loop {
            let start = c.pos;
            let mut depth = 0i32;
            while let Some(t) = c.peek() {
                match t.token {
                    Token::RParen | Token::Comma if depth == 0 => break,
                    Token::LParen => depth += 1,
                    Token::RParen => depth -= 1,
                    _ => {}
                }
                c.pos += 1;
            }
            if c.pos == start {
                return Err(c.error());
            }
            compile_expr_tokens(&c.tokens[start..c.pos], compiler, c).map_err(|e| {
                match e.code == myriad_types::errors::ER_BAD_FIELD_ERROR.code {
                    true => SqlError {
                        message: e.message.replace("'field list'", "'CALL'"),
                        ..e
                    },
                    false => e,
                }
            })?;
            if !c.eat_token(&Token::Comma) {
                break;
            }
        }
        if !c.eat_token(&Token::RParen) {
            return Err(c.error());
        }
    }
    c.expect_end()?;
    Err(SqlError::of(
        myriad_types::errors::ER_SP_DOES_NOT_EXIST,
        &[&"PROCEDURE", &parts.join(".")],
    ))
}

fn current_database(database: Option<&str>) -> Result<&str, SqlError> {
    database
        .ok_or_else(|| SqlError::new(myriad_types::errors::ER_NO_DB_ERROR, "No database selected"))
}

/// `DROP {PROCEDURE | FUNCTION} [IF EXISTS] [db.]name`: no stored routine exists (myriad
/// has none), so the statement answers 1305, or under IF EXISTS a note 1305, as MariaDB
/// does for a routine that does not exist.
pub(crate) fn drop_routine(c: &mut Cursor, database: Option<&str>) -> Result<Stmt, SqlError> {
    c.pos += 1;
    let kind = match c.eat_word("PROCEDURE") {
        true => "PROCEDURE",
        false => {
            c.expect_word("FUNCTION")?;
            "FUNCTION"
        }
    };
    let if_exists = c.eat_word("IF");
    if if_exists {
        c.expect_word("EXISTS")?;
    }
    let first = c.name()?;
    let name = match c.eat_token(&Token::Period) {
        true => format!("{first}.{}", c.name()?),
        false => format!("{}.{first}", current_database(database)?),
    };
    c.expect_end()?;
    Ok(Stmt::DropRoutine {
        kind,
        name,
        if_exists,
    })
}
