//! Views: `CREATE [OR REPLACE] [ALGORITHM = ...] [DEFINER = ...] [SQL SECURITY ...] VIEW
//! [IF NOT EXISTS] name [(columns)] AS select [WITH [CASCADED | LOCAL] CHECK OPTION]` and
//! `ALTER VIEW`, parsed here by hand up to the SELECT, whose text is kept as written.
//!
//! The SELECT is compiled when the view is created (MariaDB's errors: 1054, 1146, 1060,
//! 1353, 1351) and again each time a statement reads the view: a view in FROM is a derived
//! table over its stored SELECT (`plan::derived`), compiled in the view's database, whose
//! columns take the view's names. A view whose SELECT no longer compiles, or whose SELECT
//! now names other columns than when it was made (a `*` over a changed table), answers
//! MariaDB's 1356 rather than different rows.
//!
//! Not built (1235): writing through a view (INSERT, UPDATE, DELETE, ...), which MariaDB
//! allows for updatable views.

use crate::catalog::views::{err_view_invalid, ViewDef};
use crate::error::SqlError;
use crate::expr::{ColumnScope, Compiler};
use crate::parser::source::{Cursor, RawStatement, SourceMap};
use crate::plan::tables::TableRef;
use crate::plan::{CompileCtx, Stmt};
use myriad_types::errors::{
    ER_BAD_FIELD_ERROR, ER_NO_SUCH_TABLE, ER_VIEW_NONUPD_CHECK, ER_VIEW_RECURSIVE,
    ER_VIEW_SELECT_VARIABLE, ER_VIEW_WRONG_LIST,
};
use sqlparser::tokenizer::Token;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

/// How deep views may read views: a chain longer than this is a loop that `CREATE OR
/// REPLACE` made (MariaDB refuses those when they are made; here they fail when read).
const VIEW_DEPTH_MAX: u32 = 32;

thread_local! {
    static VIEW_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// CREATE VIEW or ALTER VIEW, as planned.
#[derive(Debug, Clone)]
pub struct CreateView {
    pub alter: bool,
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub database: String,
    pub name: String,
    /// None where the statement does not say (CREATE takes the default, ALTER the view's).
    pub algorithm: Option<String>,
    /// None: the current user.
    pub definer: Option<(String, String)>,
    pub security: Option<String>,
    /// The SELECT as compiled when the statement was planned: what it reads.
    pub reads: TableRef,
    /// The definition with the clauses the statement gives; the definer and the session's
    /// character sets are filled in when it runs.
    pub def: ViewDef,
}

/// Whether the statement at `c` is CREATE VIEW or ALTER VIEW.
pub(crate) fn is_view_ddl(c: &Cursor) -> bool {
    let mut c = Cursor {
        tokens: c.tokens,
        pos: c.pos,
        map: c.map,
        text: c.text.clone(),
    };
    header(&mut c).is_ok_and(|h| h.is_some())
}

/// The clauses before VIEW.
struct Header {
    alter: bool,
    or_replace: bool,
    algorithm: Option<String>,
    definer: Option<Option<(String, String)>>,
    security: Option<String>,
}

fn header(c: &mut Cursor) -> Result<Option<Header>, SqlError> {
    let alter = match c.peek_word().as_deref() {
        Some("CREATE") => false,
        Some("ALTER") => true,
        _ => return Ok(None),
    };
    c.pos += 1;
    let or_replace = !alter && c.eat_word("OR");
    if or_replace {
        c.expect_word("REPLACE")?;
    }
    let mut h = Header {
        alter,
        or_replace,
        algorithm: None,
        definer: None,
        security: None,
    };
    if c.eat_word("ALGORITHM") {
        c.eat_token(&Token::Eq);
        let word = c
            .peek_word()
            .filter(|w| matches!(w.as_str(), "UNDEFINED" | "MERGE" | "TEMPTABLE"));
        h.algorithm = Some(word.ok_or_else(|| c.error())?);
        c.pos += 1;
    }
    if c.eat_word("DEFINER") {
        c.eat_token(&Token::Eq);
        let mut users = crate::plan::statements::parse_user_list(c, false)?;
        if users.len() != 1 {
            return Err(c.error());
        }
        let u = users.remove(0);
        h.definer = Some((!u.current_user).then_some((u.user, u.host)));
    }
    if c.eat_word("SQL") {
        c.expect_word("SECURITY")?;
        let word = c
            .peek_word()
            .filter(|w| matches!(w.as_str(), "DEFINER" | "INVOKER"));
        h.security = Some(word.ok_or_else(|| c.error())?);
        c.pos += 1;
    }
    if !c.eat_word("VIEW") {
        return Ok(None);
    }
    Ok(Some(h))
}

/// The plan of CREATE VIEW or ALTER VIEW at `c`.
pub(crate) fn create(c: &mut Cursor, ctx: &CompileCtx) -> Result<Stmt, SqlError> {
    let h = header(c)?.ok_or_else(|| c.error())?;
    let if_not_exists = !h.alter && c.if_exists(true)?;
    let (database, name) = crate::plan::statements::table_name(c)?;
    let database = match database {
        Some(db) => db,
        None => ctx
            .database
            .ok_or_else(crate::plan::tables::err_no_database)?
            .to_string(),
    };
    let mut columns = Vec::new();
    if c.eat_token(&Token::LParen) {
        loop {
            columns.push(c.name()?);
            if c.eat_token(&Token::RParen) {
                break;
            }
            if !c.eat_token(&Token::Comma) {
                return Err(c.error());
            }
        }
    }
    c.expect_word("AS")?;
    let (select, check_option) = select_and_check_option(c)?;
    check_select_tokens(&c.tokens[c.pos..select], c.map, c.text.end)?;
    let text = {
        let first = c.tokens.get(c.pos).ok_or_else(|| c.error())?;
        let last = &c.tokens[select - 1];
        let start = c.map.offset(first.span.start.line, first.span.start.column);
        let end = c.map.offset(last.span.end.line, last.span.end.column);
        c.map.source()[start..end].to_string()
    };
    let view_def = ViewDef {
        algorithm: String::new(),
        definer_user: String::new(),
        definer_host: String::new(),
        security: String::new(),
        check_option,
        character_set_client: String::new(),
        collation_connection: String::new(),
        columns: columns.clone(),
        select_columns: Vec::new(),
        canonical: None,
        pipes_as_concat: ctx.pipes_as_concat,
        source: text,
    };
    let (table, select_columns) =
        compile_select(&view_def, &database, &name, ctx).map_err(|e| {
            match e.code == ER_BAD_FIELD_ERROR.code {
                true => SqlError::new(
                    ER_BAD_FIELD_ERROR,
                    e.message.replace("in 'field list'", "in 'SELECT'"),
                ),
                false => e,
            }
        })?;
    if view_def.check_option != "NONE" && !updatable(h.algorithm.as_deref(), &view_def.source) {
        return Err(SqlError::new(
            ER_VIEW_NONUPD_CHECK,
            format!("CHECK OPTION on non-updatable view `{database}`.`{name}`"),
        ));
    }
    let names: Vec<String> = table.def.columns.iter().map(|c| c.name.clone()).collect();
    let named = ViewDef {
        columns: names.clone(),
        ..view_def.clone()
    };
    let canonical = crate::plan::view_text::canonical(&named, &database, None, ctx);
    Ok(Stmt::CreateView(Box::new(CreateView {
        alter: h.alter,
        or_replace: h.or_replace,
        if_not_exists,
        database,
        name,
        algorithm: h.algorithm,
        definer: h.definer.unwrap_or(None),
        security: h.security,
        reads: table,
        def: ViewDef {
            columns: names,
            select_columns,
            canonical,
            ..view_def
        },
    })))
}

/// Whether MariaDB can write through a view of this SELECT (what a CHECK OPTION needs): not
/// with TEMPTABLE, DISTINCT, GROUP BY, HAVING, aggregates, subqueries in the select list,
/// set operations or no table.
fn updatable(algorithm: Option<&str>, source: &str) -> bool {
    const AGGREGATES: &[&str] = &[
        "count(",
        "sum(",
        "min(",
        "max(",
        "avg(",
        "group_concat(",
        "std(",
        "stddev",
        "variance(",
        "var_",
        "bit_and(",
        "bit_or(",
        "bit_xor(",
        "(select",
    ];
    let Ok((_, _, query)) = parse_select(source) else {
        return false;
    };
    let sqlparser::ast::SetExpr::Select(select) = query.body.as_ref() else {
        return false;
    };
    let no_grouping = match &select.group_by {
        sqlparser::ast::GroupByExpr::Expressions(list, _) => list.is_empty(),
        _ => false,
    };
    let plain_items = select.projection.iter().all(|item| {
        let text = item.to_string().to_ascii_lowercase().replace(' ', "");
        !AGGREGATES.iter().any(|a| text.contains(a))
    });
    algorithm != Some("TEMPTABLE")
        && select.distinct.is_none()
        && no_grouping
        && select.having.is_none()
        && !select.from.is_empty()
        && plain_items
}

/// information_schema.VIEWS' IS_UPDATABLE: MariaDB could write through the view (see
/// [`updatable`]), which needs a column of a table among its items and no LIMIT.
pub(crate) fn is_updatable(def: &ViewDef) -> bool {
    let Ok((_, _, query)) = parse_select(&def.source) else {
        return false;
    };
    let sqlparser::ast::SetExpr::Select(select) = query.body.as_ref() else {
        return false;
    };
    let column = select.projection.iter().any(|item| {
        use sqlparser::ast::{Expr, SelectItem};
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
            }
            _ => true,
        }
    });
    query.limit_clause.is_none() && column && updatable(Some(&def.algorithm), &def.source)
}

/// Where the SELECT ends (before `WITH [CASCADED | LOCAL] CHECK OPTION`) and the check
/// option (NONE, CASCADED or LOCAL).
fn select_and_check_option(c: &Cursor) -> Result<(usize, String), SqlError> {
    let words: Vec<Option<String>> = c.tokens[c.pos..]
        .iter()
        .map(crate::parser::source::word_upper)
        .collect();
    let n = words.len();
    let word = |back: usize| n.checked_sub(back).and_then(|i| words[i].as_deref());
    if word(2) != Some("CHECK") || word(1) != Some("OPTION") {
        return Ok((c.tokens.len(), "NONE".into()));
    }
    let (with_at, option) = match word(3) {
        Some("CASCADED") => (4, "CASCADED"),
        Some("LOCAL") => (4, "LOCAL"),
        _ => (3, "CASCADED"),
    };
    if word(with_at) != Some("WITH") {
        return Err(c.error());
    }
    Ok((c.tokens.len() - with_at, option.into()))
}

/// MariaDB's refusals that the SELECT's tokens show: a variable or a parameter (1351); an
/// INTO, which MariaDB's grammar does not take there (1064 near it).
fn check_select_tokens(
    tokens: &[sqlparser::tokenizer::TokenWithSpan],
    map: &SourceMap,
    end: usize,
) -> Result<(), SqlError> {
    let mut depth = 0i32;
    for t in tokens {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Placeholder(_) | Token::AtSign => return Err(err_variable()),
            // User and system variables alike (MariaDB: 1351 for `@@max_user_connections`).
            Token::Word(w) if w.quote_style.is_none() && w.value.starts_with('@') => {
                return Err(err_variable())
            }
            Token::Word(w)
                if depth == 0
                    && w.quote_style.is_none()
                    && w.value.eq_ignore_ascii_case("INTO") =>
            {
                let at = map.offset(t.span.start.line, t.span.start.column);
                return Err(crate::expr::err_syntax(
                    map.source().get(at..end).unwrap_or(""),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

fn err_variable() -> SqlError {
    SqlError::new(
        ER_VIEW_SELECT_VARIABLE,
        "View's SELECT contains a variable or parameter",
    )
}

/// A view's SELECT text parsed, with the map of its text and its tokens.
pub(crate) fn parse_select(
    text: &str,
) -> Result<(SourceMap, RawStatement, Box<sqlparser::ast::Query>), SqlError> {
    let mut map = SourceMap::new(text);
    let mut raws = crate::parser::source::split(text, &mut map)?;
    if raws.len() != 1 {
        return Err(crate::expr::err_syntax(text));
    }
    let raw = raws.remove(0);
    let statement = crate::plan::from_ast::parse_statement(&raw, &map, raw.tokens.clone())?;
    let sqlparser::ast::Statement::Query(query) = statement else {
        return Err(crate::expr::err_syntax(text));
    };
    Ok((map, raw, query))
}

/// The view's SELECT compiled as a derived table named `name` (in the view's database,
/// with no common table expressions in scope), and the SELECT's own column names. Its
/// columns take the view's names: 1353 when a column list does not match the SELECT.
pub(crate) fn compile_select(
    def: &ViewDef,
    database: &str,
    name: &str,
    ctx: &CompileCtx,
) -> Result<(TableRef, Vec<String>), SqlError> {
    let (map, raw, query) = parse_select(&def.source)?;
    let inner = CompileCtx {
        catalog: ctx.catalog,
        database: Some(database),
        pipes_as_concat: def.pipes_as_concat,
        ctes: None,
    };
    let placeholders = HashMap::new();
    let scope = ColumnScope::default();
    let compiler = Compiler {
        source: map.source(),
        scope: &scope,
        placeholders: &placeholders,
        pipes_as_concat: def.pipes_as_concat,
        ctx: Some(&inner),
        map: Some(&map),
        lists: None,
        outer: None,
    };
    let depth = VIEW_DEPTH.with(|d| d.get());
    if depth >= VIEW_DEPTH_MAX {
        return Err(SqlError::new(
            ER_VIEW_RECURSIVE,
            format!("`{database}`.`{name}` contains view recursion"),
        ));
    }
    VIEW_DEPTH.with(|d| d.set(depth + 1));
    let compiled = crate::plan::derived::query_table(&query, &raw, name, (&map, &compiler), &inner);
    VIEW_DEPTH.with(|d| d.set(depth));
    let mut table = compiled?;
    let select_columns: Vec<String> = table.def.columns.iter().map(|c| c.name.clone()).collect();
    if !def.columns.is_empty() {
        if def.columns.len() != select_columns.len() {
            return Err(SqlError::new(
                ER_VIEW_WRONG_LIST,
                "View's SELECT and view's field list have different column counts",
            ));
        }
        let mut renamed = (*table.def).clone();
        for (c, name) in renamed.columns.iter_mut().zip(&def.columns) {
            c.name.clone_from(name);
        }
        crate::plan::derived::check_unique_names(&renamed.columns)?;
        table.def = Arc::new(renamed);
    }
    Ok((table, select_columns))
}

/// The table reference of view `database`.`name` read in a FROM clause (as `alias`).
pub(crate) fn view_ref(
    def: &ViewDef,
    database: &str,
    name: &str,
    alias: Option<&str>,
    ctx: &CompileCtx,
) -> Result<TableRef, SqlError> {
    let invalid = |e: SqlError| match e.code {
        c if c == ER_VIEW_RECURSIVE.code
            || c == myriad_types::errors::ER_NOT_SUPPORTED_YET.code =>
        {
            e
        }
        _ => err_view_invalid(database, name),
    };
    let (mut table, select_columns) = compile_select(def, database, name, ctx).map_err(invalid)?;
    let same = select_columns.len() == def.select_columns.len()
        && select_columns
            .iter()
            .zip(&def.select_columns)
            .all(|(a, b)| a.eq_ignore_ascii_case(b));
    if !same {
        return Err(err_view_invalid(database, name));
    }
    table.database = database.into();
    table.name = name.into();
    table.alias = alias.unwrap_or(name).into();
    // SQL SECURITY DEFINER, MariaDB's default: the tables are read as the definer.
    if !def.security.eq_ignore_ascii_case("INVOKER") {
        table.reads_as = Some(Arc::new((
            def.definer_user.clone(),
            def.definer_host.clone(),
        )));
    }
    Ok(table)
}

/// A FROM item that names no table: the view of that name, if there is one, else the
/// error that the table's lookup gave.
pub(crate) fn view_or(
    missing: SqlError,
    database: &str,
    name: &str,
    alias: Option<&str>,
    ctx: &CompileCtx,
) -> Result<TableRef, SqlError> {
    if missing.code != ER_NO_SUCH_TABLE.code
        && missing.code != crate::plan::tables::ER_VIEW_HERE.code
    {
        return Err(missing);
    }
    match crate::catalog::views::read(ctx.catalog.storage(), database, name)? {
        Some(def) => view_ref(&def, database, name, alias, ctx),
        None => Err(missing),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_cursor<T>(sql: &str, f: impl FnOnce(&mut Cursor) -> T) -> T {
        let mut map = SourceMap::new(sql);
        let raws = crate::parser::source::split(sql, &mut map).unwrap();
        let raw = &raws[0];
        let mut c = Cursor {
            tokens: &raw.tokens,
            pos: 0,
            map: &map,
            text: raw.text.clone(),
        };
        f(&mut c)
    }

    #[test]
    fn view_statements_are_told_from_others() {
        for sql in [
            "CREATE VIEW v AS SELECT 1",
            "CREATE OR REPLACE ALGORITHM = MERGE DEFINER = u@h SQL SECURITY INVOKER VIEW v AS SELECT 1",
            "CREATE DEFINER = CURRENT_USER() VIEW v AS SELECT 1",
            "ALTER ALGORITHM=TEMPTABLE VIEW v AS SELECT 1",
        ] {
            assert!(with_cursor(sql, |c| is_view_ddl(c)), "{sql}");
        }
        for sql in [
            "CREATE TABLE v (a INT)",
            "ALTER TABLE t ADD b INT",
            "CREATE DATABASE d",
        ] {
            assert!(!with_cursor(sql, |c| is_view_ddl(c)), "{sql}");
        }
    }

    #[test]
    fn the_check_option_is_cut_from_the_select() {
        let cut = |sql: &str| {
            with_cursor(sql, |c| {
                c.pos = c.tokens.len() - c.tokens.len().min(5);
                c.pos = 0;
                while !c.eat_word("AS") {
                    c.pos += 1;
                }
                let (end, option) = select_and_check_option(c).unwrap();
                (end - c.pos, option)
            })
        };
        assert_eq!(cut("CREATE VIEW v AS SELECT a FROM t"), (4, "NONE".into()));
        assert_eq!(
            cut("CREATE VIEW v AS SELECT a FROM t WITH CHECK OPTION"),
            (4, "CASCADED".into())
        );
        assert_eq!(
            cut("CREATE VIEW v AS SELECT a FROM t WITH LOCAL CHECK OPTION"),
            (4, "LOCAL".into())
        );
    }

    #[test]
    fn variables_and_into_are_refused() {
        let refused = |sql: &str| {
            let mut map = SourceMap::new(sql);
            let raws = crate::parser::source::split(sql, &mut map).unwrap();
            check_select_tokens(&raws[0].tokens, &map, sql.len())
                .err()
                .map(|e| e.code)
        };
        assert_eq!(refused("SELECT @x"), Some(ER_VIEW_SELECT_VARIABLE.code));
        assert_eq!(
            refused("SELECT @@version"),
            Some(ER_VIEW_SELECT_VARIABLE.code)
        );
        assert_eq!(
            refused("SELECT a INTO @x FROM t"),
            Some(myriad_types::errors::ER_PARSE_ERROR.code)
        );
        assert_eq!(refused("SELECT a FROM t"), None);
        assert_eq!(refused("SELECT 'a@b' FROM t"), None);
    }

    #[test]
    fn updatable_follows_mariadb_for_the_common_shapes() {
        assert!(updatable(None, "SELECT a, b FROM t WHERE a > 1"));
        assert!(!updatable(Some("TEMPTABLE"), "SELECT a FROM t"));
        assert!(!updatable(None, "SELECT DISTINCT a FROM t"));
        assert!(!updatable(None, "SELECT a, COUNT(*) FROM t GROUP BY a"));
        assert!(!updatable(None, "SELECT MAX(a) FROM t"));
        assert!(!updatable(None, "SELECT 1"));
        assert!(!updatable(None, "SELECT a FROM t UNION SELECT a FROM u"));
    }
}
