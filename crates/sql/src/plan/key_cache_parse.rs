//! Parsing of the key cache statements and of `SELECT ... FROM information_schema.<table>`
//! (with the token cursor of the other hand-written parsers).

use crate::error::SqlError;
use crate::expr::Compiler;
use myriad_types::errors::{ER_GLOBAL_VARIABLE, ER_NOT_SUPPORTED_YET};

use crate::parser::source::*;
use crate::plan::key_cache as kc;
use crate::plan::key_cache::KeyCacheStmt;
use crate::plan::key_cache::StructuredSet;
use crate::plan::statements::*;
use crate::plan::*;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// `[INDEX | KEY] (name, ...)` after a table name: accepted; every index of the table is
/// preloaded or assigned (myriad keeps a table's indexes in one file).
pub(crate) fn skip_index_list(c: &mut Cursor) -> Result<(), SqlError> {
    if c.eat_word("INDEX") || c.eat_word("KEY") {
        if !c.eat_token(&Token::LParen) {
            return Err(c.error());
        }
        loop {
            c.name()?;
            if !c.eat_token(&Token::Comma) {
                break;
            }
        }
        if !c.eat_token(&Token::RParen) {
            return Err(c.error());
        }
    }
    Ok(())
}

/// `LOAD INDEX INTO CACHE t [[INDEX|KEY] (i, ...)] [IGNORE LEAVES], ...`
pub(crate) fn load_index(c: &mut Cursor) -> Result<Stmt, SqlError> {
    for w in ["LOAD", "INDEX", "INTO", "CACHE"] {
        c.expect_word(w)?;
    }
    let mut tables = Vec::new();
    loop {
        let (db, name) = table_name(c)?;
        skip_index_list(c)?;
        let ignore_leaves = c.eat_word("IGNORE");
        if ignore_leaves {
            c.expect_word("LEAVES")?;
        }
        tables.push((db, name, ignore_leaves));
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    c.expect_end()?;
    Ok(Stmt::KeyCache(KeyCacheStmt::LoadIndex { tables }))
}

/// `CACHE INDEX t [[INDEX|KEY] (i, ...)], ... IN cache_name`
pub(crate) fn cache_index(c: &mut Cursor) -> Result<Stmt, SqlError> {
    c.expect_word("CACHE")?;
    c.expect_word("INDEX")?;
    let mut tables = Vec::new();
    loop {
        tables.push(table_name(c)?);
        skip_index_list(c)?;
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    c.expect_word("IN")?;
    let cache = c.name()?;
    c.expect_end()?;
    Ok(Stmt::KeyCache(KeyCacheStmt::CacheIndex { tables, cache }))
}

/// Whether the statement names a table of `information_schema` (`information_schema.<t>`).
pub(crate) fn names_information_schema(c: &Cursor) -> bool {
    let t = &c.tokens[c.pos..];
    let word = |i: usize| t.get(i).and_then(bare_word);
    (0..t.len()).any(|i| {
        word(i).is_some_and(|w| w.eq_ignore_ascii_case("INFORMATION_SCHEMA"))
            && t.get(i + 1).map(|x| &x.token) == Some(&Token::Period)
    })
}

/// Whether `name` is a system variable (`cache.name` then goes to the structured path,
/// which refuses the variables that are not structured with MySQL's error 1272).
pub(crate) fn known(name: &str) -> bool {
    crate::system::sysvars::lookup(name).is_some()
}

/// The target of one assignment of a SET, if it names a structured key cache variable:
/// (tokens it takes, scope as written, cache, variable). Forms: `[GLOBAL|SESSION|LOCAL]
/// cache.var`, `@@cache.var`, `@@global.cache.var` (and `@@session.`, `@@local.`).
pub(crate) fn structured_target(
    t: &[TokenWithSpan],
    scope: Option<SetScope>,
) -> Option<(usize, Option<SetScope>, String, String)> {
    let word = |i: usize| match t.get(i).map(|x| &x.token) {
        Some(Token::Word(w)) => Some(w),
        _ => None,
    };
    let period = |i: usize| matches!(t.get(i).map(|x| &x.token), Some(Token::Period));
    let first = word(0)?;
    let unquoted = first.quote_style.is_none();
    if let Some(rest) = first.value.strip_prefix("@@").filter(|_| unquoted) {
        let scoped = match rest.to_ascii_lowercase().as_str() {
            "global" => Some(SetScope::Global),
            "session" | "local" => Some(SetScope::Session),
            _ => None,
        };
        if let Some(scoped) = scoped {
            // @@global.cache.var
            let (cache, var) = (word(2)?, word(4)?);
            return (period(1) && period(3) && known(&var.value))
                .then(|| (5, Some(scoped), cache.value.clone(), var.value.clone()));
        }
        // @@cache.var: session scope as written, as MariaDB reads it.
        let var = word(2)?;
        return (period(1) && known(&var.value)).then(|| {
            (
                3,
                Some(SetScope::Session),
                rest.to_string(),
                var.value.clone(),
            )
        });
    }
    if unquoted && first.value.starts_with('@') {
        return None;
    }
    let var = word(2)?;
    (period(1) && known(&var.value)).then(|| (3, scope, first.value.clone(), var.value.clone()))
}

/// Whether a SET (the cursor at SET) assigns a structured key cache variable first.
pub(crate) fn is_structured_set(c: &Cursor) -> bool {
    let t = &c.tokens[c.pos + 1..];
    let skip = usize::from(matches!(
        t.first().and_then(word_upper).as_deref(),
        Some("GLOBAL") | Some("SESSION") | Some("LOCAL")
    ));
    structured_target(&t[skip.min(t.len())..], None).is_some()
}

/// `SET [GLOBAL] cache.var = value [, [GLOBAL] cache.var = value ...]` (all assignments
/// structured key cache variables; MySQL's other variables go in a SET of their own).
pub(crate) fn structured_set(c: &mut Cursor, compiler: &Compiler) -> Result<Stmt, SqlError> {
    c.expect_word("SET")?;
    let mut sets = Vec::new();
    let mut scope = SetScope::Session;
    loop {
        scope = eat_set_scope(c, scope);
        let Some((taken, written, cache, var)) = structured_target(&c.tokens[c.pos..], Some(scope))
        else {
            return Err(SqlError::new(
                ER_NOT_SUPPORTED_YET,
                "This version of myriad doesn't yet support 'key cache variables and other \
                 variables in one SET'",
            ));
        };
        c.pos += taken;
        let index = crate::system::sysvars::lookup(&var)
            .ok_or_else(|| crate::system::sysvars::err_unknown(&var))?;
        if !kc::is_structured(crate::system::sysvars::def(index).name) {
            return Err(kc::err_not_structured(
                crate::system::sysvars::def(index).name,
            ));
        }
        if written != Some(SetScope::Global) {
            return Err(SqlError::new(
                ER_GLOBAL_VARIABLE,
                format!(
                    "Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL",
                    crate::system::sysvars::def(index).name
                ),
            ));
        }
        if !(c.eat_token(&Token::Eq) || c.eat_token(&Token::Assignment)) {
            return Err(c.error());
        }
        let value_tokens = c.until_comma();
        let value = match value_tokens {
            [] => return Err(c.error()),
            [single] if word_upper(single).as_deref() == Some("DEFAULT") => None,
            tokens => Some(compile_expr_tokens(tokens, compiler, c)?),
        };
        sets.push(StructuredSet {
            cache,
            index,
            value,
        });
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    c.expect_end()?;
    Ok(Stmt::KeyCache(KeyCacheStmt::SetStructured(sets)))
}
