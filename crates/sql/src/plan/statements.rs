//! The hand-written statement parsers: SET, SHOW, KILL and user lists.

use crate::error::SqlError;
use crate::expr::err_syntax;
use crate::expr::ColumnScope;
use crate::expr::Compiler;
use crate::expr::Expr;
use crate::expr::TextForm;
use crate::parser::dialect::MyriadDialect;
use myriad_types::errors::ER_BAD_FIELD_ERROR;

use crate::parser::source::*;
use crate::plan::*;
use sqlparser::ast;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Parse an expression from a token slice with sqlparser.
pub(crate) fn parse_expr_tokens(
    tokens: &[TokenWithSpan],
    c: &Cursor,
) -> Result<ast::Expr, SqlError> {
    let dialect = MyriadDialect::default();
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(crate::depth::PARSER_RECURSION_LIMIT)
        .with_tokens_with_locations(rewrite_tokens(tokens.to_vec()));
    let expr = parser.parse_expr().map_err(|e| {
        crate::depth::parser_error(&e)
            .unwrap_or_else(|| err_syntax(&near_from_error(c.map.source(), c.map, &e.to_string())))
    })?;
    if parser.peek_token().token != Token::EOF {
        let t = parser.peek_token();
        let at = c.map.offset(t.span.start.line, t.span.start.column);
        return Err(err_syntax(c.map.source().get(at..c.text.end).unwrap_or("")));
    }
    Ok(expr)
}

pub(crate) fn compile_expr_tokens(
    tokens: &[TokenWithSpan],
    compiler: &Compiler,
    c: &Cursor,
) -> Result<Expr, SqlError> {
    if tokens.is_empty() {
        return Err(c.error());
    }
    compiler.compile(&parse_expr_tokens(tokens, c)?)
}

/// MySQL syntax sqlparser does not know: `MOD` as an infix operator becomes `%`, `!`
/// becomes NOT, a final `LOCK IN SHARE MODE` becomes `FOR SHARE`, GROUP_CONCAT's LIMIT is
/// read where MariaDB writes it, and `REGEXP NULL` is read as `REGEXP (NULL)` (sqlparser
/// takes the NULL after REGEXP for half of `NOT NULL`).
pub(crate) fn rewrite_tokens(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    for i in 0..tokens.len() {
        let next_is_paren = matches!(tokens.get(i + 1).map(|t| &t.token), Some(Token::LParen));
        let replace = match &tokens[i].token {
            Token::Word(w)
                if w.quote_style.is_none()
                    && w.value.eq_ignore_ascii_case("MOD")
                    && !next_is_paren
                    && i > 0 =>
            {
                Some(Token::Mod)
            }
            Token::ExclamationMark => Some(Token::make_keyword("NOT")),
            _ => None,
        };
        if let Some(t) = replace {
            tokens[i].token = t;
        }
    }
    share_mode_as_for_share(&mut tokens);
    crate::plan::query::group_concat::reorder_clauses(&mut tokens);
    null_pattern_in_parentheses(tokens)
}

/// `x REGEXP NULL` / `x RLIKE NULL` as `x REGEXP (NULL)`. A statement without REGEXP or
/// RLIKE is handed back as it came, with no copy.
fn null_pattern_in_parentheses(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let is_word =
        |t: &TokenWithSpan, word: &str| bare_word(t).is_some_and(|w| w.eq_ignore_ascii_case(word));
    let is_regexp = |t: &TokenWithSpan| is_word(t, "REGEXP") || is_word(t, "RLIKE");
    if !tokens.iter().any(is_regexp) {
        return tokens;
    }
    let mut out = Vec::with_capacity(tokens.len() + 2);
    let mut after_regexp = false;
    for t in tokens {
        if matches!(t.token, Token::Whitespace(_)) {
            out.push(t);
            continue;
        }
        let regexp = is_regexp(&t);
        if after_regexp && is_word(&t, "NULL") {
            let span = t.span;
            let paren = |token| TokenWithSpan { token, span };
            out.extend([paren(Token::LParen), t, paren(Token::RParen)]);
        } else {
            out.push(t);
        }
        after_regexp = regexp;
    }
    out
}

/// A statement ending in MySQL's older `LOCK IN SHARE MODE` is read as ending in `FOR
/// SHARE`, which means the same and which sqlparser knows.
fn share_mode_as_for_share(tokens: &mut Vec<TokenWithSpan>) {
    let significant: Vec<usize> = (0..tokens.len())
        .rev()
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_) | Token::SemiColon))
        .take(4)
        .collect();
    let words = ["MODE", "SHARE", "IN", "LOCK"];
    let matches = significant.len() == 4
        && significant.iter().zip(words).all(|(&i, word)| {
            matches!(&tokens[i].token, Token::Word(w)
                if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
        });
    if !matches {
        return;
    }
    let (lock, share) = (significant[3], significant[1]);
    let share_span = tokens[share].span;
    tokens[lock].token = Token::make_keyword("FOR");
    tokens.truncate(lock + 1);
    tokens.push(TokenWithSpan {
        token: Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
        span: share_span,
    });
    tokens.push(TokenWithSpan {
        token: Token::make_keyword("SHARE"),
        span: share_span,
    });
}

pub(crate) fn parse_set(c: &mut Cursor, compiler: &Compiler) -> Result<Stmt, SqlError> {
    match c.peek_word().as_deref() {
        Some("NAMES") => {
            c.pos += 1;
            return set_names(c);
        }
        Some("CHARSET") => {
            c.pos += 1;
            return set_character_set(c);
        }
        // SET STATEMENT var = value [, ...] FOR statement (`SET statement = 1` is a variable).
        Some("STATEMENT")
            if !matches!(
                c.tokens.get(c.pos + 1).map(|t| &t.token),
                Some(Token::Eq | Token::Assignment)
            ) =>
        {
            // Run where a statement text enters (`exec::set_statement`); not prepared.
            return Err(SqlError::not_supported(
                "SET STATEMENT ... FOR in a prepared statement",
            ));
        }
        Some("CHARACTER") if c.peek_word_at(1).as_deref() == Some("SET") => {
            c.pos += 2;
            return set_character_set(c);
        }
        _ => {}
    }
    // SET [GLOBAL|SESSION] TRANSACTION ...
    let scope_word = c.peek_word();
    let ahead = if matches!(
        scope_word.as_deref(),
        Some("GLOBAL") | Some("SESSION") | Some("LOCAL")
    ) {
        1
    } else {
        0
    };
    if c.peek_word_at(ahead).as_deref() == Some("TRANSACTION") {
        let scope = match scope_word.as_deref() {
            Some("GLOBAL") => Some(SetScope::Global),
            Some("SESSION") | Some("LOCAL") => Some(SetScope::Session),
            _ => None,
        };
        c.pos += ahead + 1;
        return set_transaction(c, scope);
    }
    set_variables(c, compiler)
}

/// `SET NAMES DEFAULT | charset [COLLATE collation]` after NAMES.
fn set_names(c: &mut Cursor) -> Result<Stmt, SqlError> {
    if c.eat_word("DEFAULT") {
        c.expect_end()?;
        return Ok(Stmt::SetNames {
            charset: None,
            collation: None,
        });
    }
    let charset = c.name()?;
    let collation = if c.eat_word("COLLATE") {
        Some(c.name()?)
    } else {
        None
    };
    c.expect_end()?;
    Ok(Stmt::SetNames {
        charset: Some(charset),
        collation,
    })
}

/// The characteristics after `SET [GLOBAL | SESSION] TRANSACTION`: `ISOLATION LEVEL ...`,
/// `READ ONLY`, `READ WRITE`, separated by commas.
fn set_transaction(c: &mut Cursor, scope: Option<SetScope>) -> Result<Stmt, SqlError> {
    let mut isolation = None;
    let mut read_only = None;
    loop {
        if c.eat_word("ISOLATION") {
            c.expect_word("LEVEL")?;
            let level = if c.eat_word("READ") {
                if c.eat_word("UNCOMMITTED") {
                    "READ-UNCOMMITTED"
                } else {
                    c.expect_word("COMMITTED")?;
                    "READ-COMMITTED"
                }
            } else if c.eat_word("REPEATABLE") {
                c.expect_word("READ")?;
                "REPEATABLE-READ"
            } else {
                c.expect_word("SERIALIZABLE")?;
                "SERIALIZABLE"
            };
            isolation = Some(level.to_string());
        } else if c.eat_word("READ") {
            if c.eat_word("ONLY") {
                read_only = Some(true);
            } else {
                c.expect_word("WRITE")?;
                read_only = Some(false);
            }
        } else {
            return Err(c.error());
        }
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    c.expect_end()?;
    Ok(Stmt::SetTransaction {
        scope,
        isolation,
        read_only,
    })
}

/// `[GLOBAL | SESSION] @@var | var | @user = value, ...`: system and user variables.
fn set_variables(c: &mut Cursor, compiler: &Compiler) -> Result<Stmt, SqlError> {
    let mut assignments = Vec::new();
    let mut scope = SetScope::Session;
    loop {
        scope = eat_set_scope(c, scope);
        let target = parse_set_target(c, scope)?;
        if !(c.eat_token(&Token::Eq) || c.eat_token(&Token::Assignment)) {
            return Err(c.error());
        }
        let value = assign_value(c, compiler)?;
        if matches!(target, AssignTarget::User(_)) && matches!(value, AssignValue::Default) {
            return Err(c.error());
        }
        let value = match (&target, value) {
            // `SET @a = word` reads a column in MySQL; without tables it is unknown.
            (AssignTarget::User(_), AssignValue::Word(w)) => {
                return Err(SqlError::new(
                    ER_BAD_FIELD_ERROR,
                    format!("Unknown column '{w}' in 'field list'"),
                ))
            }
            // A date or time keeps its type's fraction digits as the variable's text (a
            // FLOAT stays a number).
            (AssignTarget::User(_), AssignValue::Expr(e))
                if matches!(compiler.text_form(&e), Some(TextForm::Temporal { .. })) =>
            {
                AssignValue::Expr(compiler.text_operand(e))
            }
            (_, v) => v,
        };
        assignments.push(Assignment { target, value });
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    c.expect_end()?;
    Ok(Stmt::Set(assignments))
}

/// The value of one assignment of a SET, up to the next comma at the top level: DEFAULT,
/// a bare word (`ON`, `utf8mb4`) or an expression.
pub(crate) fn assign_value(c: &mut Cursor, compiler: &Compiler) -> Result<AssignValue, SqlError> {
    let value_tokens = c.until_comma();
    Ok(match value_tokens {
        [] => return Err(c.error()),
        [single] => match &single.token {
            Token::Word(w)
                if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("DEFAULT") =>
            {
                AssignValue::Default
            }
            Token::Word(w)
                if w.quote_style.is_none()
                    && !w.value.starts_with('@')
                    && !matches!(w.keyword, Keyword::NULL | Keyword::TRUE | Keyword::FALSE) =>
            {
                AssignValue::Word(w.value.clone())
            }
            _ => AssignValue::Expr(compile_expr_tokens(value_tokens, compiler, c)?),
        },
        _ => AssignValue::Expr(compile_expr_tokens(value_tokens, compiler, c)?),
    })
}

/// `GLOBAL`, `SESSION` or `LOCAL` before one assignment of a SET: the scope from there on
/// (`scope`, the one before, where none is written).
pub(crate) fn eat_set_scope(c: &mut Cursor, scope: SetScope) -> SetScope {
    if c.eat_word("GLOBAL") {
        SetScope::Global
    } else if c.eat_word("SESSION") || c.eat_word("LOCAL") {
        SetScope::Session
    } else {
        scope
    }
}

/// `KILL [HARD | SOFT] [CONNECTION | QUERY] id`: the id is an expression
/// (`KILL CONNECTION_ID()` works); `KILL QUERY ID` and `KILL USER` are not supported.
pub(crate) fn parse_kill(c: &mut Cursor, compiler: &Compiler) -> Result<Stmt, SqlError> {
    use crate::interrupt::KillTarget;
    c.pos += 1;
    let _ = c.eat_word("HARD") || c.eat_word("SOFT");
    let target = if c.eat_word("QUERY") {
        if c.peek_word().as_deref() == Some("ID") && c.tokens.len() > c.pos + 1 {
            return Err(SqlError::not_supported("KILL QUERY ID"));
        }
        KillTarget::Query
    } else {
        let _ = c.eat_word("CONNECTION");
        KillTarget::Connection
    };
    if c.peek_word().as_deref() == Some("USER") && c.tokens.len() > c.pos + 1 {
        return Err(SqlError::not_supported("KILL USER"));
    }
    let tokens = &c.tokens[c.pos..];
    if tokens.is_empty() {
        return Err(c.error());
    }
    let id = compile_expr_tokens(tokens, compiler, c)?;
    Ok(Stmt::Kill { target, id })
}

pub(crate) fn set_character_set(c: &mut Cursor) -> Result<Stmt, SqlError> {
    if c.eat_word("DEFAULT") {
        c.expect_end()?;
        return Ok(Stmt::SetCharacterSet(None));
    }
    let name = c.name()?;
    c.expect_end()?;
    Ok(Stmt::SetCharacterSet(Some(name)))
}

pub(crate) fn parse_set_target(c: &mut Cursor, scope: SetScope) -> Result<AssignTarget, SqlError> {
    let t = c.peek().ok_or_else(|| c.error())?;
    let Token::Word(w) = &t.token else {
        return Err(c.error());
    };
    c.pos += 1;
    let mut name = w.value.clone();
    let mut scope = scope;
    if w.quote_style.is_none() {
        if let Some(rest) = name.strip_prefix("@@") {
            let rest = rest.to_string();
            match rest.to_ascii_lowercase().as_str() {
                "global" | "session" | "local" if c.eat_token(&Token::Period) => {
                    scope = if rest.eq_ignore_ascii_case("global") {
                        SetScope::Global
                    } else {
                        SetScope::Session
                    };
                    name = c.name()?;
                }
                _ => {
                    scope = SetScope::Session;
                    name = rest;
                }
            }
        } else if let Some(user) = name.strip_prefix('@') {
            let mut user = user.to_string();
            if user.is_empty() {
                // @'quoted name' or @`quoted`
                user = c.name()?;
            }
            return Ok(AssignTarget::User(user.to_ascii_lowercase()));
        }
    }
    // A dotted name like `x.y` (structured variables such as default.key_buffer_size).
    while c.eat_token(&Token::Period) {
        let part = c.name()?;
        name = format!("{name}.{part}");
    }
    let index = crate::system::sysvars::lookup(&name)
        .ok_or_else(|| crate::system::sysvars::err_unknown(&name))?;
    Ok(AssignTarget::System { scope, index })
}

pub(crate) fn parse_filter(
    c: &mut Cursor,
    compiler: &Compiler,
    columns: &[&str],
) -> Result<ShowFilter, SqlError> {
    if c.eat_word("LIKE") {
        let pattern = c.string()?;
        c.expect_end()?;
        return Ok(ShowFilter::Like(pattern));
    }
    if c.eat_word("WHERE") {
        let rest = &c.tokens[c.pos..];
        c.pos = c.tokens.len();
        let scope = ColumnScope {
            columns: columns.iter().map(|n| (None, n.to_string())).collect(),
            ..Default::default()
        };
        let where_compiler = Compiler {
            scope: &scope,
            ..*compiler
        };
        let condition = compile_expr_tokens(rest, &where_compiler, c)?;
        return Ok(ShowFilter::Where(condition.numeric()));
    }
    c.expect_end()?;
    Ok(ShowFilter::None)
}

pub(crate) fn parse_show(c: &mut Cursor, compiler: &Compiler) -> Result<Stmt, SqlError> {
    let mut global = false;
    if c.eat_word("GLOBAL") {
        global = true;
    } else if c.eat_word("SESSION") || c.eat_word("LOCAL") {
        global = false;
    }
    let full = c.eat_word("FULL");
    if c.peek_word().as_deref() == Some("GRANTS")
        || (c.peek_word().as_deref() == Some("CREATE")
            && c.peek_word_at(1).as_deref() == Some("USER"))
    {
        return crate::plan::grants::show_grants(c);
    }
    let kind = c.peek_word().ok_or_else(|| c.error())?;
    c.pos += 1;
    Ok(match kind.as_str() {
        "VARIABLES" => Stmt::ShowVariables {
            global,
            filter: parse_filter(c, compiler, &["Variable_name", "Value"])?,
        },
        "STATUS" => Stmt::ShowStatus {
            global,
            filter: parse_filter(c, compiler, &["Variable_name", "Value"])?,
        },
        "OPEN" => {
            c.expect_word("TABLES")?;
            let database = if c.eat_word("FROM") || c.eat_word("IN") {
                Some(c.name()?)
            } else {
                None
            };
            Stmt::ShowOpenTables {
                database,
                filter: parse_filter(c, compiler, &["Database", "Table", "In_use", "Name_locked"])?,
            }
        }
        "DATABASES" | "SCHEMAS" => Stmt::ShowDatabases {
            filter: parse_filter(c, compiler, &["Database"])?,
        },
        "TABLES" => {
            let database = if c.eat_word("FROM") || c.eat_word("IN") {
                Some(c.name()?)
            } else {
                None
            };
            let filter = parse_filter(c, compiler, &["Tables_in", "Table_type"])?;
            Stmt::ShowTables {
                database,
                full,
                filter,
            }
        }
        "WARNINGS" | "ERRORS" => {
            // SHOW WARNINGS [LIMIT n]: the limit is accepted and applied by the caller's
            // max_error_count; ignoring it never shows fewer rows than asked.
            c.pos = c.tokens.len();
            Stmt::ShowWarnings {
                errors: kind == "ERRORS",
                count_only: false,
            }
        }
        "COUNT" => {
            // SHOW COUNT(*) WARNINGS
            while !c.at_end()
                && !matches!(c.peek_word().as_deref(), Some("WARNINGS") | Some("ERRORS"))
            {
                c.pos += 1;
            }
            let errors = c.peek_word().as_deref() == Some("ERRORS");
            c.pos += 1;
            c.expect_end()?;
            Stmt::ShowWarnings {
                errors,
                count_only: true,
            }
        }
        "COLLATION" => Stmt::ShowCollation {
            filter: parse_filter(c, compiler, &["Collation", "Charset"])?,
        },
        "CHARACTER" | "CHARSET" => {
            if kind == "CHARACTER" {
                c.expect_word("SET")?;
            }
            Stmt::ShowCharset {
                filter: parse_filter(c, compiler, &["Charset", "Description"])?,
            }
        }
        "ENGINES" | "STORAGE" => {
            c.pos = c.tokens.len();
            Stmt::ShowEngines
        }
        "PLUGINS" => {
            // SHOW PLUGINS SONAME lists the plugin libraries on disk: myriad loads none.
            if c.peek_word().as_deref() == Some("SONAME") {
                return Err(SqlError::not_supported("SHOW PLUGINS SONAME"));
            }
            c.expect_end()?;
            Stmt::ShowPlugins
        }
        "PROCESSLIST" => {
            c.expect_end()?;
            Stmt::ShowProcessList
        }
        "COLUMNS" | "FIELDS" => {
            if !(c.eat_word("FROM") || c.eat_word("IN")) {
                return Err(c.error());
            }
            let (mut database, table) = table_name(c)?;
            if c.eat_word("FROM") || c.eat_word("IN") {
                database = Some(c.name()?);
            }
            let filter = parse_filter(
                c,
                compiler,
                &["Field", "Type", "Null", "Key", "Default", "Extra"],
            )?;
            Stmt::ShowColumns {
                database,
                table,
                full,
                filter,
            }
        }
        "INDEX" | "INDEXES" | "KEYS" => {
            if !(c.eat_word("FROM") || c.eat_word("IN")) {
                return Err(c.error());
            }
            let (mut database, table) = table_name(c)?;
            if c.eat_word("FROM") || c.eat_word("IN") {
                database = Some(c.name()?);
            }
            c.expect_end()?;
            Stmt::ShowIndex { database, table }
        }
        "CREATE" if matches!(c.peek_word().as_deref(), Some("TABLE" | "VIEW")) => {
            let view = c.peek_word().as_deref() == Some("VIEW");
            c.pos += 1;
            let (database, table) = table_name(c)?;
            c.expect_end()?;
            Stmt::ShowCreateTable {
                database,
                table,
                view,
            }
        }
        "CREATE" if matches!(c.peek_word().as_deref(), Some("DATABASE") | Some("SCHEMA")) => {
            c.pos += 1;
            c.if_exists(true)?;
            let name = c.name()?;
            c.expect_end()?;
            Stmt::ShowCreateDatabase { name }
        }
        _ => {
            c.pos -= 1;
            return Err(SqlError::not_supported(&format!("SHOW {kind}")));
        }
    })
}

/// `table` or `db.table`.
pub(crate) fn table_name(c: &mut Cursor) -> Result<(Option<String>, String), SqlError> {
    let first = c.name()?;
    if c.eat_token(&Token::Period) {
        let second = c.name()?;
        return Ok((Some(first), second));
    }
    Ok((None, first))
}

/// An account's `IDENTIFIED` clause, where `allow`ed:
/// `IDENTIFIED BY [PASSWORD] 'text'` or
/// `IDENTIFIED {VIA | WITH} plugin [{USING | AS} {'auth string' | PASSWORD('pw')}]`.
/// MariaDB's `OR plugin ...` (several ways to sign in) answers 1235.
fn identified_by(c: &mut Cursor, allow: bool) -> Result<Option<AuthSpec>, SqlError> {
    if !(allow && c.eat_word("IDENTIFIED")) {
        return Ok(None);
    }
    if c.eat_word("BY") {
        return Ok(Some(if c.eat_word("PASSWORD") {
            AuthSpec::Stored(c.string()?)
        } else {
            AuthSpec::Password(c.string()?)
        }));
    }
    if !(c.eat_word("VIA") || c.eat_word("WITH")) {
        return Err(c.error());
    }
    let plugin = c.name()?;
    let using = if c.eat_word("USING") || c.eat_word("AS") {
        match password_call(c)? {
            Some(pw) => Using::Password(pw),
            None => Using::Stored(c.string()?),
        }
    } else {
        Using::Nothing
    };
    if c.peek_word().as_deref() == Some("OR") {
        return Err(SqlError::not_supported(
            "IDENTIFIED VIA with more than one authentication plugin",
        ));
    }
    Ok(Some(AuthSpec::Via { plugin, using }))
}

/// `PASSWORD('pw')`: the password, or None (nothing consumed) when no PASSWORD( follows.
pub(crate) fn password_call(c: &mut Cursor) -> Result<Option<String>, SqlError> {
    let is_call = c.peek_word().as_deref() == Some("PASSWORD")
        && c.tokens.get(c.pos + 1).map(|t| &t.token) == Some(&Token::LParen);
    if !is_call {
        return Ok(None);
    }
    c.pos += 2;
    let pw = c.string()?;
    if !c.eat_token(&Token::RParen) {
        return Err(c.error());
    }
    Ok(Some(pw))
}

pub(crate) fn parse_user_list(
    c: &mut Cursor,
    allow_password: bool,
) -> Result<Vec<UserSpec>, SqlError> {
    let mut users = Vec::new();
    loop {
        // An unquoted user name takes the `@` into its word: `u@'host'` is the word "u@"
        // then a string, `u@host` the word "u@host".
        if let Some(Token::Word(w)) = c.peek().map(|t| &t.token) {
            if let Some((user, host)) = w
                .value
                .split_once('@')
                .filter(|(user, _)| w.quote_style.is_none() && !user.is_empty())
            {
                let (user, host) = (user.to_string(), host.to_string());
                c.pos += 1;
                let host = if host.is_empty() { c.name()? } else { host };
                let auth = identified_by(c, allow_password)?;
                users.push(UserSpec {
                    user,
                    host,
                    auth,
                    host_given: true,
                    current_user: false,
                });
                if !c.eat_token(&Token::Comma) {
                    break;
                }
                continue;
            }
        }
        if c.eat_word("CURRENT_USER") {
            if c.eat_token(&Token::LParen) && !c.eat_token(&Token::RParen) {
                return Err(c.error());
            }
            users.push(UserSpec {
                user: String::new(),
                host: String::new(),
                auth: identified_by(c, allow_password)?,
                host_given: true,
                current_user: true,
            });
            if !c.eat_token(&Token::Comma) {
                break;
            }
            continue;
        }
        let user = c.name()?;
        // The tokenizer reads `@'host'` as a word "@" then a string, or `@host` as "@host".
        let mut host_given = true;
        let host = match c.peek().map(|t| &t.token) {
            Some(Token::Word(w)) if w.value == "@" => {
                c.pos += 1;
                c.name()?
            }
            Some(Token::Word(w)) if w.value.starts_with('@') && w.quote_style.is_none() => {
                let h = w.value[1..].to_string();
                c.pos += 1;
                h
            }
            Some(Token::AtSign) => {
                c.pos += 1;
                c.name()?
            }
            _ => {
                host_given = false;
                "%".to_string()
            }
        };
        let auth = identified_by(c, allow_password)?;
        users.push(UserSpec {
            user,
            host,
            auth,
            host_given,
            current_user: false,
        });
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    Ok(users)
}
