//! From statement text to a compiled [`Stmt`].
//!
//! 1. The whole COM_QUERY text is tokenized once by sqlparser's MySQL tokenizer (quotes,
//!    comments and escapes handled there) and split into statements at `;`.
//! 2. Each statement goes one of two ways. MySQL administration syntax that sqlparser does
//!    not parse the MySQL way (`SET GLOBAL x`, `SET @@session.x`, `SHOW ... STATUS`,
//!    `CREATE USER 'u'@'h'`, `SHUTDOWN`, `FLUSH STATUS`, transactions, databases) is read by
//!    the small hand-written parser below from the token list. Everything else (SELECT and,
//!    later, DDL and DML) goes to sqlparser's parser with MySQL's dialect ([`crate::dialect`]).
//! 3. Expressions from either path are compiled by [`crate::expr::Compiler`]; the result
//!    is a [`Stmt`] that a prepared statement keeps and executes many times.

use crate::dialect::MyriadDialect;
use crate::error::SqlError;
use crate::eval::Datum;
use crate::expr::{err_syntax, ColumnScope, Compiler, Expr};
use crate::status::Counter;
use crate::sysvars;
use crate::tables;
use myriad_types::errors::{
    ER_BAD_FIELD_ERROR, ER_BAD_TABLE_ERROR, ER_KEY_COLUMN_DOES_NOT_EXIST, ER_NONUNIQ_TABLE,
    ER_NO_TABLES_USED, ER_WRONG_VALUE_COUNT_ON_ROW,
};
use sqlparser::ast::{self, Spanned};
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};
use std::collections::HashMap;

/// `SET` scope as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetScope {
    Session,
    Global,
}

#[derive(Debug, Clone)]
pub enum AssignTarget {
    System { scope: SetScope, index: usize },
    User(String),
}

#[derive(Debug, Clone)]
pub enum AssignValue {
    Default,
    /// A bare word such as `ON` or `utf8mb4`.
    Word(String),
    Expr(Expr),
}

#[derive(Debug, Clone)]
pub struct Assignment {
    pub target: AssignTarget,
    pub value: AssignValue,
}

#[derive(Debug, Clone)]
pub enum ShowFilter {
    None,
    Like(String),
    /// Compiled over the listing's columns.
    Where(Expr),
}

#[derive(Debug, Clone)]
pub struct SelectItem {
    pub name: String,
    pub expr: Expr,
}

/// A SELECT without tables.
#[derive(Debug, Clone)]
pub struct SelectPlan {
    pub items: Vec<SelectItem>,
    pub filter: Option<Expr>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
}

#[derive(Debug, Clone)]
pub struct UserSpec {
    pub user: String,
    pub host: String,
    pub password: Option<String>,
}

/// A compiled statement.
#[derive(Debug, Clone)]
pub enum Stmt {
    Select(SelectPlan),
    Set(Vec<Assignment>),
    /// SET NAMES (None: DEFAULT) with an optional collation.
    SetNames {
        charset: Option<String>,
        collation: Option<String>,
    },
    SetCharacterSet(Option<String>),
    /// SET [GLOBAL|SESSION] TRANSACTION ...: accepted, isolation recorded.
    SetTransaction {
        scope: Option<SetScope>,
        isolation: Option<String>,
        read_only: Option<bool>,
    },
    ShowVariables {
        global: bool,
        filter: ShowFilter,
    },
    ShowStatus {
        global: bool,
        filter: ShowFilter,
    },
    ShowDatabases {
        filter: ShowFilter,
    },
    ShowTables {
        database: Option<String>,
        full: bool,
        filter: ShowFilter,
    },
    ShowWarnings {
        errors: bool,
        count_only: bool,
    },
    ShowCollation {
        filter: ShowFilter,
    },
    ShowCharset {
        filter: ShowFilter,
    },
    ShowEngines,
    ShowCreateDatabase {
        name: String,
    },
    ShowProcessList,
    /// SHOW \[FULL\] COLUMNS FROM t, DESCRIBE t.
    ShowColumns {
        database: Option<String>,
        table: String,
        full: bool,
        filter: ShowFilter,
    },
    ShowCreateTable {
        database: Option<String>,
        table: String,
    },
    ShowIndex {
        database: Option<String>,
        table: String,
    },
    Use(String),
    CreateDatabase {
        name: String,
        if_not_exists: bool,
    },
    DropDatabase {
        name: String,
        if_exists: bool,
    },
    CreateUser {
        users: Vec<UserSpec>,
        if_not_exists: bool,
    },
    DropUser {
        users: Vec<UserSpec>,
        if_exists: bool,
    },
    AlterUser {
        users: Vec<UserSpec>,
        if_exists: bool,
    },
    FlushStatus,
    /// Other FLUSH forms: accepted, nothing to flush yet.
    Flush,
    /// `FLUSH TABLES [db.]t, ...`: close the tables (all when `None`), see `table_cache_sql`.
    FlushTables(Option<Vec<(Option<String>, String)>>),
    /// `SHOW OPEN TABLES [FROM db] [LIKE ... | WHERE ...]`.
    ShowOpenTables {
        database: Option<String>,
        filter: ShowFilter,
    },
    /// FLUSH QUERY CACHE (reset: false) and RESET QUERY CACHE (reset: true).
    QueryCache {
        reset: bool,
    },
    Shutdown,
    /// KILL [CONNECTION | QUERY] id.
    Kill {
        target: crate::interrupt::KillTarget,
        id: Expr,
    },
    Begin,
    Commit,
    Rollback,
    Do(Vec<Expr>),
    CreateTable {
        database: String,
        name: String,
        def: myriad_storage::TableDef,
        if_not_exists: bool,
    },
    DropTables {
        tables: Vec<(String, String)>,
        if_exists: bool,
    },
    Truncate {
        database: String,
        name: String,
    },
    /// CHECK TABLE / ANALYZE TABLE (analyze: false / true) over (database, table) names.
    Maintenance {
        analyze: bool,
        tables: Vec<(Option<String>, String)>,
    },
    /// ALTER TABLE: the new definition and, per new column, the old column it comes from
    /// (None: a new column, filled with its default).
    AlterTable {
        table: tables::TableRef,
        def: myriad_storage::TableDef,
        sources: Vec<Option<usize>>,
    },
    RenameTables {
        renames: Vec<((String, String), (String, String))>,
    },
    /// CREATE INDEX / DROP INDEX (a table rebuild through the storage's ALTER).
    AlterIndexes {
        database: String,
        name: String,
        add: Option<myriad_storage::IndexDef>,
        drop: Option<String>,
    },
    Insert(tables::InsertPlan),
    SelectTable(Box<tables::TableSelect>),
    Update(tables::UpdatePlan),
    Delete(tables::DeletePlan),
    /// LOAD INDEX INTO CACHE / CACHE INDEX (see `key_cache`).
    KeyCache(crate::key_cache::KeyCacheStmt),
    /// SELECT from an `information_schema` virtual table (see `info_schema`).
    VirtualSelect(crate::info_schema::VirtualSelect),
    /// A statement that is only a comment.
    Empty,
}

impl Stmt {
    /// The Com_* counter this statement bumps.
    pub fn counter(&self) -> Counter {
        match self {
            Stmt::Select(_) | Stmt::Do(_) => Counter::ComSelect,
            Stmt::Set(_)
            | Stmt::SetNames { .. }
            | Stmt::SetCharacterSet(_)
            | Stmt::SetTransaction { .. } => Counter::ComSetOption,
            Stmt::ShowVariables { .. } => Counter::ComShowVariables,
            Stmt::ShowStatus { .. } => Counter::ComShowStatus,
            Stmt::ShowDatabases { .. } => Counter::ComShowDatabases,
            Stmt::ShowTables { .. } => Counter::ComShowTables,
            Stmt::ShowWarnings { .. } => Counter::ComShowWarnings,
            Stmt::ShowCollation { .. }
            | Stmt::ShowCharset { .. }
            | Stmt::ShowEngines
            | Stmt::ShowProcessList => Counter::ComShowVariables,
            Stmt::ShowColumns { .. } => Counter::ComShowFields,
            Stmt::ShowCreateTable { .. } => Counter::ComShowCreateTable,
            Stmt::ShowIndex { .. } => Counter::ComShowKeys,
            Stmt::ShowCreateDatabase { .. } => Counter::ComShowCreateTable,
            Stmt::Use(_) => Counter::ComChangeDb,
            Stmt::CreateDatabase { .. } => Counter::ComCreateDb,
            Stmt::DropDatabase { .. } => Counter::ComDropDb,
            Stmt::CreateUser { .. } => Counter::ComCreateUser,
            Stmt::DropUser { .. } => Counter::ComDropUser,
            Stmt::AlterUser { .. } => Counter::ComAlterUser,
            Stmt::FlushStatus | Stmt::Flush | Stmt::FlushTables(_) | Stmt::QueryCache { .. } => {
                Counter::ComFlush
            }
            Stmt::ShowOpenTables { .. } => Counter::ComShowTables,
            Stmt::Shutdown => Counter::ComShutdown,
            Stmt::Kill { .. } => Counter::ComKill,
            Stmt::Begin => Counter::ComBegin,
            Stmt::Commit => Counter::ComCommit,
            Stmt::Rollback => Counter::ComRollback,
            Stmt::Empty => Counter::ComAdminCommands,
            Stmt::CreateTable { .. } => Counter::ComCreateTable,
            Stmt::DropTables { .. } => Counter::ComDropTable,
            Stmt::Truncate { .. } => Counter::ComTruncate,
            Stmt::Maintenance { analyze: true, .. } => Counter::ComAnalyze,
            Stmt::Maintenance { .. } => Counter::ComCheck,
            Stmt::RenameTables { .. } => Counter::ComRenameTable,
            Stmt::AlterTable { .. } => Counter::ComAlterTable,
            Stmt::AlterIndexes { add: Some(_), .. } => Counter::ComCreateIndex,
            Stmt::AlterIndexes { .. } => Counter::ComDropIndex,
            Stmt::Insert(p) if p.replace => Counter::ComReplace,
            Stmt::Insert(_) => Counter::ComInsert,
            Stmt::SelectTable(_) => Counter::ComSelect,
            Stmt::Update(_) => Counter::ComUpdate,
            Stmt::Delete(_) => Counter::ComDelete,
            Stmt::KeyCache(crate::key_cache::KeyCacheStmt::LoadIndex { .. }) => {
                Counter::ComPreloadKeys
            }
            Stmt::KeyCache(crate::key_cache::KeyCacheStmt::SetStructured(_)) => {
                Counter::ComSetOption
            }
            Stmt::KeyCache(_) => Counter::ComAssignToKeycache,
            Stmt::VirtualSelect(_) => Counter::ComSelect,
        }
    }
}

/// One statement's tokens (whitespace and comments removed) and its place in the text.
pub struct RawStatement {
    pub tokens: Vec<TokenWithSpan>,
    /// Byte range of the statement in the source text.
    pub text: std::ops::Range<usize>,
}

/// Maps sqlparser's (line, column) locations to byte offsets.
pub struct SourceMap {
    line_starts: Vec<usize>,
    /// Per line: byte offsets of its characters when it is not plain ASCII (an ASCII
    /// line maps column n to byte n - 1 directly). Makes every lookup O(1), which matters
    /// for 512 KiB INSERT statements with hundreds of thousands of tokens on one line.
    char_offsets: Vec<Option<Vec<u32>>>,
    source: String,
}

impl SourceMap {
    pub fn new(source: &str) -> SourceMap {
        let mut line_starts = vec![0];
        for (i, b) in source.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        let char_offsets = line_starts
            .iter()
            .enumerate()
            .map(|(n, &start)| {
                let end = line_starts.get(n + 1).copied().unwrap_or(source.len());
                let line = &source[start..end];
                (!line.is_ascii()).then(|| line.char_indices().map(|(i, _)| i as u32).collect())
            })
            .collect();
        SourceMap {
            line_starts,
            char_offsets,
            source: source.to_string(),
        }
    }

    /// Byte offset of a 1-based (line, column-in-chars) location.
    pub fn offset(&self, line: u64, column: u64) -> usize {
        if line == 0 {
            return 0;
        }
        let n = line as usize - 1;
        let Some(&start) = self.line_starts.get(n) else {
            return self.source.len();
        };
        let end = self
            .line_starts
            .get(n + 1)
            .copied()
            .unwrap_or(self.source.len());
        let col = column.saturating_sub(1) as usize;
        let within = match self.char_offsets.get(n).and_then(|o| o.as_ref()) {
            None => col,
            Some(offsets) => offsets.get(col).map(|&o| o as usize).unwrap_or(end - start),
        };
        (start + within).min(end).min(self.source.len())
    }

    pub fn source(&self) -> &str {
        &self.source
    }
}

/// Tokenize and split at `;`. A trailing empty statement after the last `;` is dropped.
/// Words after which SQL_CACHE / SQL_NO_CACHE are SELECT modifiers.
const SELECT_MODIFIERS: &[&str] = &[
    "SELECT",
    "ALL",
    "DISTINCT",
    "DISTINCTROW",
    "HIGH_PRIORITY",
    "STRAIGHT_JOIN",
    "SQL_SMALL_RESULT",
    "SQL_BIG_RESULT",
    "SQL_BUFFER_RESULT",
    "SQL_CALC_FOUND_ROWS",
];

pub fn split(sql: &str, map: &SourceMap) -> Result<Vec<RawStatement>, SqlError> {
    let dialect = MyriadDialect::default();
    let mut tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| err_syntax(&near_from_error(sql, map, &e.to_string())))?;
    // The tokens each statement keeps are compacted to the front of the tokenizer's own
    // vector (no second vector of a long statement's tokens); `bounds` marks where each
    // statement's tokens end and its text.
    let mut kept = 0usize;
    let mut bounds: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    let mut start: Option<usize> = None;
    let mut end = 0usize;
    for i in 0..tokens.len() {
        let keep = match &tokens[i].token {
            Token::Whitespace(_) | Token::EOF => false,
            Token::SemiColon => {
                let s = start.unwrap_or(end);
                bounds.push((kept, s..end));
                start = None;
                false
            }
            // SQL_CACHE / SQL_NO_CACHE after SELECT steer the query cache (which reads them
            // from the text before parsing); sqlparser does not know them.
            Token::Word(w)
                if (w.value.eq_ignore_ascii_case("SQL_CACHE")
                    || w.value.eq_ignore_ascii_case("SQL_NO_CACHE"))
                    && kept > bounds.last().map_or(0, |b| b.0)
                    && matches!(&tokens[kept - 1].token, Token::Word(p) if SELECT_MODIFIERS.iter().any(|m| p.value.eq_ignore_ascii_case(m))) =>
            {
                false
            }
            _ => true,
        };
        if keep {
            let t = &tokens[i];
            let here = map.offset(t.span.start.line, t.span.start.column);
            start.get_or_insert(here);
            end = map.offset(t.span.end.line, t.span.end.column);
            tokens.swap(kept, i);
            kept += 1;
        }
    }
    let last_bound = bounds.last().map_or(0, |b| b.0);
    if kept > last_bound || bounds.is_empty() {
        let s = start.unwrap_or(end);
        bounds.push((kept, s..end));
    }
    tokens.truncate(kept);
    // Split from the last statement back: the first keeps the tokenizer's vector.
    let mut out = Vec::with_capacity(bounds.len());
    for i in (0..bounds.len()).rev() {
        let from = if i == 0 { 0 } else { bounds[i - 1].0 };
        let text = bounds[i].1.clone();
        let statement = if i == 0 {
            std::mem::take(&mut tokens)
        } else {
            tokens.split_off(from)
        };
        out.push(RawStatement {
            tokens: statement,
            text,
        });
    }
    out.reverse();
    Ok(out)
}

/// The byte offset named by sqlparser's "... at Line: L, Column: C".
fn error_offset(map: &SourceMap, message: &str) -> Option<usize> {
    let parse = |key: &str| -> Option<u64> {
        let at = message.rfind(key)? + key.len();
        message[at..]
            .trim_start()
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    Some(map.offset(parse("Line:")?, parse("Column:")?))
}

/// Turn sqlparser's error position into MySQL's "near '...'" text.
fn near_from_error(sql: &str, map: &SourceMap, message: &str) -> String {
    match error_offset(map, message) {
        Some(at) => sql.get(at..).unwrap_or("").to_string(),
        None => String::new(),
    }
}

/// An unquoted word as written (compare with `eq_ignore_ascii_case`: no copy).
fn bare_word(t: &TokenWithSpan) -> Option<&str> {
    match &t.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.as_str()),
        _ => None,
    }
}

fn word_upper(t: &TokenWithSpan) -> Option<String> {
    bare_word(t).map(str::to_ascii_uppercase)
}

#[path = "key_cache_parse.rs"]
mod key_cache_parse;

/// A cursor over one statement's tokens for the hand-written front path.
struct Cursor<'a> {
    tokens: &'a [TokenWithSpan],
    pos: usize,
    map: &'a SourceMap,
    text: std::ops::Range<usize>,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<&'a TokenWithSpan> {
        self.tokens.get(self.pos)
    }

    fn peek_word(&self) -> Option<String> {
        self.peek().and_then(word_upper)
    }

    fn peek_word_at(&self, ahead: usize) -> Option<String> {
        self.tokens.get(self.pos + ahead).and_then(word_upper)
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self
            .peek()
            .and_then(bare_word)
            .is_some_and(|x| x.eq_ignore_ascii_case(w))
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_token(&mut self, tok: &Token) -> bool {
        if self.peek().map(|t| &t.token) == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.tokens.len()
    }

    /// A syntax error pointing at the current token.
    fn error(&self) -> SqlError {
        let at = match self.peek() {
            Some(t) => self.map.offset(t.span.start.line, t.span.start.column),
            None => self.text.end,
        };
        err_syntax(self.map.source().get(at..self.text.end).unwrap_or(""))
    }

    fn expect_end(&self) -> Result<(), SqlError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<(), SqlError> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// An identifier or a quoted string used as a name.
    fn name(&mut self) -> Result<String, SqlError> {
        let t = self.peek().ok_or_else(|| self.error())?;
        let name = match &t.token {
            Token::Word(w) => w.value.clone(),
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s.clone(),
            _ => return Err(self.error()),
        };
        self.pos += 1;
        Ok(name)
    }

    fn string(&mut self) -> Result<String, SqlError> {
        match self.peek().map(|t| &t.token) {
            Some(Token::SingleQuotedString(s)) | Some(Token::DoubleQuotedString(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }

    /// `[IF NOT] EXISTS` after IF.
    fn if_exists(&mut self, not: bool) -> Result<bool, SqlError> {
        if !self.eat_word("IF") {
            return Ok(false);
        }
        if not {
            self.expect_word("NOT")?;
        }
        self.expect_word("EXISTS")?;
        Ok(true)
    }

    /// The tokens up to the next comma at parenthesis depth 0 (not consumed).
    fn until_comma(&mut self) -> &'a [TokenWithSpan] {
        let start = self.pos;
        let mut depth = 0i32;
        while let Some(t) = self.tokens.get(self.pos) {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                Token::Comma if depth == 0 => break,
                _ => {}
            }
            self.pos += 1;
        }
        &self.tokens[start..self.pos]
    }
}

/// Parse and compile one statement.
/// What compiling needs from the session: the catalog (table definitions), the current
/// database and the SQL mode.
pub struct CompileCtx<'a> {
    pub catalog: &'a crate::catalog::Catalog,
    pub database: Option<&'a str>,
    pub pipes_as_concat: bool,
}

pub fn compile_statement(
    raw: &RawStatement,
    map: &SourceMap,
    ctx: &CompileCtx,
) -> Result<(Stmt, usize), SqlError> {
    crate::depth::check_tokens(&raw.tokens)?;
    let pipes_as_concat = ctx.pipes_as_concat;
    // Number the `?` placeholders in text order.
    let mut placeholders = HashMap::new();
    for t in &raw.tokens {
        if matches!(&t.token, Token::Placeholder(p) if p == "?") {
            let n = placeholders.len();
            placeholders.insert((t.span.start.line, t.span.start.column), n);
        }
    }
    let no_columns = ColumnScope::default();
    let compiler = Compiler {
        source: map.source(),
        scope: &no_columns,
        placeholders: &placeholders,
        pipes_as_concat,
        ctx: Some(ctx),
        map: Some(map),
        lists: None,
    };
    let mut c = Cursor {
        tokens: &raw.tokens,
        pos: 0,
        map,
        text: raw.text.clone(),
    };
    let first = c.peek_word();
    let stmt = match first.as_deref() {
        None if raw.tokens.is_empty() => Stmt::Empty,
        Some("SET") if key_cache_parse::is_structured_set(&c) => {
            key_cache_parse::structured_set(&mut c, &compiler)?
        }
        Some("SET") => {
            c.pos += 1;
            parse_set(&mut c, &compiler)?
        }
        Some("SHOW") => {
            c.pos += 1;
            parse_show(&mut c, &compiler)?
        }
        Some("DESCRIBE") | Some("DESC") | Some("EXPLAIN")
            if !matches!(
                c.peek_word_at(1).as_deref(),
                Some("SELECT")
                    | Some("UPDATE")
                    | Some("DELETE")
                    | Some("INSERT")
                    | Some("EXTENDED")
                    | Some("PARTITIONS")
                    | Some("FORMAT")
            ) =>
        {
            c.pos += 1;
            let (database, table) = table_name(&mut c)?;
            let filter = if c.at_end() {
                ShowFilter::None
            } else {
                // DESCRIBE t col: a column name or a LIKE pattern.
                let pattern = c.name()?;
                c.expect_end()?;
                ShowFilter::Like(pattern)
            };
            Stmt::ShowColumns {
                database,
                table,
                full: false,
                filter,
            }
        }
        Some("CHECK") | Some("ANALYZE") => {
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
                tables.push(table_name(&mut c)?);
                if !c.eat_token(&Token::Comma) {
                    break;
                }
            }
            // CHECK options (QUICK, FAST, MEDIUM, EXTENDED, CHANGED, FOR UPGRADE) are accepted.
            Stmt::Maintenance { analyze, tables }
        }
        Some("USE") => {
            c.pos += 1;
            let name = c.name()?;
            c.expect_end()?;
            Stmt::Use(name)
        }
        Some("CREATE") | Some("DROP")
            if matches!(
                c.peek_word_at(1).as_deref(),
                Some("DATABASE") | Some("SCHEMA")
            ) =>
        {
            let create = c.eat_word("CREATE");
            if !create {
                c.expect_word("DROP")?;
            }
            c.pos += 1;
            let flag = c.if_exists(create)?;
            let name = c.name()?;
            if create {
                // [DEFAULT] CHARACTER SET / COLLATE options are accepted and ignored.
                Stmt::CreateDatabase {
                    name,
                    if_not_exists: flag,
                }
            } else {
                c.expect_end()?;
                Stmt::DropDatabase {
                    name,
                    if_exists: flag,
                }
            }
        }
        Some("CREATE") | Some("DROP") | Some("ALTER")
            if c.peek_word_at(1).as_deref() == Some("USER") =>
        {
            let verb = c.peek_word().unwrap_or_default();
            c.pos += 2;
            let flag = c.if_exists(verb == "CREATE")?;
            let users = parse_user_list(&mut c, verb != "DROP")?;
            c.expect_end()?;
            match verb.as_str() {
                "CREATE" => Stmt::CreateUser {
                    users,
                    if_not_exists: flag,
                },
                "DROP" => Stmt::DropUser {
                    users,
                    if_exists: flag,
                },
                _ => Stmt::AlterUser {
                    users,
                    if_exists: flag,
                },
            }
        }
        Some("FLUSH") => {
            c.pos += 1;
            c.eat_word("LOCAL");
            c.eat_word("NO_WRITE_TO_BINLOG");
            if c.eat_word("STATUS") {
                c.expect_end()?;
                Stmt::FlushStatus
            } else if matches!(c.peek_word().as_deref(), Some("TABLES" | "TABLE"))
                && !matches!(c.peek_word_at(1).as_deref(), Some("WITH" | "FOR"))
            {
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
                Stmt::FlushTables((!names.is_empty()).then_some(names))
            } else if c.eat_word("QUERY") {
                c.expect_word("CACHE")?;
                c.expect_end()?;
                Stmt::QueryCache { reset: false }
            } else if c.at_end() {
                return Err(c.error());
            } else {
                Stmt::Flush
            }
        }
        Some("RESET") if c.peek_word_at(1).as_deref() == Some("QUERY") => {
            c.pos += 2;
            c.expect_word("CACHE")?;
            c.expect_end()?;
            Stmt::QueryCache { reset: true }
        }
        Some("KILL") => parse_kill(&mut c, &compiler)?,
        Some("SHUTDOWN") => {
            c.pos += 1;
            c.eat_word("WAIT");
            c.eat_word("FOR");
            c.eat_word("ALL");
            c.eat_word("REPLICAS");
            c.expect_end()?;
            Stmt::Shutdown
        }
        Some("BEGIN") => {
            c.pos += 1;
            c.eat_word("WORK");
            c.expect_end()?;
            Stmt::Begin
        }
        Some("START") => {
            c.pos += 1;
            c.expect_word("TRANSACTION")?;
            // WITH CONSISTENT SNAPSHOT, READ ONLY, READ WRITE: accepted.
            Stmt::Begin
        }
        Some("COMMIT") | Some("ROLLBACK") => {
            let commit = c.eat_word("COMMIT");
            if !commit {
                c.pos += 1;
            }
            c.eat_word("WORK");
            if c.eat_word("AND") {
                c.eat_word("NO");
                c.expect_word("CHAIN")?;
            }
            if c.eat_word("NO") {
                c.expect_word("RELEASE")?;
            } else {
                c.eat_word("RELEASE");
            }
            c.expect_end()?;
            if commit {
                Stmt::Commit
            } else {
                Stmt::Rollback
            }
        }
        Some("LOAD") if c.peek_word_at(1).as_deref() == Some("INDEX") => {
            key_cache_parse::load_index(&mut c)?
        }
        Some("CACHE") if c.peek_word_at(1).as_deref() == Some("INDEX") => {
            key_cache_parse::cache_index(&mut c)?
        }
        Some("SELECT") if key_cache_parse::is_virtual_select(&c) => {
            key_cache_parse::virtual_select(&mut c, &compiler)?
        }
        Some("DO") => {
            c.pos += 1;
            let mut exprs = Vec::new();
            loop {
                let part = c.until_comma();
                exprs.push(compile_expr_tokens(part, &compiler, &c)?);
                if !c.eat_token(&Token::Comma) {
                    break;
                }
            }
            Stmt::Do(exprs)
        }
        _ => parse_with_sqlparser(raw, map, &compiler, ctx)?,
    };
    Ok((stmt, placeholders.len()))
}

/// Parse an expression from a token slice with sqlparser.
fn parse_expr_tokens(tokens: &[TokenWithSpan], c: &Cursor) -> Result<ast::Expr, SqlError> {
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

fn compile_expr_tokens(
    tokens: &[TokenWithSpan],
    compiler: &Compiler,
    c: &Cursor,
) -> Result<Expr, SqlError> {
    if tokens.is_empty() {
        return Err(c.error());
    }
    compiler.compile(&parse_expr_tokens(tokens, c)?)
}

/// MySQL operators sqlparser does not know: `MOD` as an infix operator becomes `%`,
/// `!` becomes NOT.
fn rewrite_tokens(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
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
    tokens
}

fn parse_set(c: &mut Cursor, compiler: &Compiler) -> Result<Stmt, SqlError> {
    match c.peek_word().as_deref() {
        Some("NAMES") => {
            c.pos += 1;
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
            return Ok(Stmt::SetNames {
                charset: Some(charset),
                collation,
            });
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
            return Err(SqlError::not_supported("SET STATEMENT ... FOR"));
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
        return Ok(Stmt::SetTransaction {
            scope,
            isolation,
            read_only,
        });
    }
    let mut assignments = Vec::new();
    let mut scope = SetScope::Session;
    loop {
        if c.eat_word("GLOBAL") {
            scope = SetScope::Global;
        } else if c.eat_word("SESSION") || c.eat_word("LOCAL") {
            scope = SetScope::Session;
        }
        let target = parse_set_target(c, scope)?;
        if !(c.eat_token(&Token::Eq) || c.eat_token(&Token::Assignment)) {
            return Err(c.error());
        }
        let value_tokens = c.until_comma();
        let value = match value_tokens {
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
        };
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

/// `KILL [HARD | SOFT] [CONNECTION | QUERY] id`: the id is an expression
/// (`KILL CONNECTION_ID()` works); `KILL QUERY ID` and `KILL USER` are not supported.
fn parse_kill(c: &mut Cursor, compiler: &Compiler) -> Result<Stmt, SqlError> {
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

fn set_character_set(c: &mut Cursor) -> Result<Stmt, SqlError> {
    if c.eat_word("DEFAULT") {
        c.expect_end()?;
        return Ok(Stmt::SetCharacterSet(None));
    }
    let name = c.name()?;
    c.expect_end()?;
    Ok(Stmt::SetCharacterSet(Some(name)))
}

fn parse_set_target(c: &mut Cursor, scope: SetScope) -> Result<AssignTarget, SqlError> {
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
    let index = sysvars::lookup(&name).ok_or_else(|| sysvars::err_unknown(&name))?;
    Ok(AssignTarget::System { scope, index })
}

fn parse_filter(
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
        };
        let where_compiler = Compiler {
            scope: &scope,
            ..*compiler
        };
        return Ok(ShowFilter::Where(compile_expr_tokens(
            rest,
            &where_compiler,
            c,
        )?));
    }
    c.expect_end()?;
    Ok(ShowFilter::None)
}

fn parse_show(c: &mut Cursor, compiler: &Compiler) -> Result<Stmt, SqlError> {
    let mut global = false;
    if c.eat_word("GLOBAL") {
        global = true;
    } else if c.eat_word("SESSION") || c.eat_word("LOCAL") {
        global = false;
    }
    let full = c.eat_word("FULL");
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
        "CREATE" if c.peek_word().as_deref() == Some("TABLE") => {
            c.pos += 1;
            let (database, table) = table_name(c)?;
            c.expect_end()?;
            Stmt::ShowCreateTable { database, table }
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
fn table_name(c: &mut Cursor) -> Result<(Option<String>, String), SqlError> {
    let first = c.name()?;
    if c.eat_token(&Token::Period) {
        let second = c.name()?;
        return Ok((Some(first), second));
    }
    Ok((None, first))
}

/// `'user'@'host' [IDENTIFIED BY 'pw'], ...`
fn parse_user_list(c: &mut Cursor, allow_password: bool) -> Result<Vec<UserSpec>, SqlError> {
    let mut users = Vec::new();
    loop {
        let user = c.name()?;
        // The tokenizer reads `@'host'` as a word "@" then a string, or `@host` as "@host".
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
            _ => "%".to_string(),
        };
        let password = if allow_password && c.eat_word("IDENTIFIED") {
            if c.eat_word("WITH") {
                // IDENTIFIED WITH mysql_native_password BY 'pw'
                c.name()?;
            }
            c.expect_word("BY")?;
            c.eat_word("PASSWORD");
            Some(c.string()?)
        } else {
            None
        };
        users.push(UserSpec {
            user,
            host,
            password,
        });
        if !c.eat_token(&Token::Comma) {
            break;
        }
    }
    Ok(users)
}

fn parse_with_sqlparser(
    raw: &RawStatement,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    let dialect = MyriadDialect::default();
    let (tokens, lists) = crate::const_lists::extract(&raw.tokens);
    let lists = crate::const_lists::ListSource {
        tokens: &raw.tokens,
        lists,
    };
    let compiler = &Compiler {
        lists: Some(&lists),
        ..*compiler
    };
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(crate::depth::PARSER_RECURSION_LIMIT)
        .with_tokens_with_locations(rewrite_tokens(tokens));
    let statement = parser.parse_statement().map_err(|e| {
        if let Some(too_deep) = crate::depth::parser_error(&e) {
            return too_deep;
        }
        let at = error_offset(map, &e.to_string())
            .unwrap_or(raw.text.end)
            .clamp(raw.text.start, raw.text.end);
        err_syntax(map.source().get(at..raw.text.end).unwrap_or(""))
    })?;
    if parser.peek_token().token != Token::EOF {
        let t = parser.peek_token();
        let at = map.offset(t.span.start.line, t.span.start.column);
        return Err(err_syntax(map.source().get(at..raw.text.end).unwrap_or("")));
    }
    // The parser's copy of the tokens is not needed to compile the tree.
    drop(parser);
    let storage = ctx.catalog.storage();
    match statement {
        ast::Statement::Query(q) => compile_query(&q, raw, map, compiler, ctx),
        ast::Statement::CreateTable(ct) => {
            if ct.query.is_some() || ct.like.is_some() || ct.temporary {
                return Err(SqlError::not_supported(
                    "CREATE TABLE ... SELECT, LIKE and TEMPORARY",
                ));
            }
            let (database, name) = tables::resolve_name(&ct.name, ctx.database)?;
            let def = tables::table_def(&ct, compiler)?;
            Ok(Stmt::CreateTable {
                database,
                name,
                def,
                if_not_exists: ct.if_not_exists,
            })
        }
        ast::Statement::Drop {
            object_type: ast::ObjectType::Table,
            if_exists,
            names,
            ..
        } => {
            let tables = names
                .iter()
                .map(|n| tables::resolve_name(n, ctx.database))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Stmt::DropTables { tables, if_exists })
        }
        ast::Statement::AlterTable(at) => {
            let (db, name) = tables::resolve_name(&at.name, ctx.database)?;
            let table = tables::open_ref(storage, &db, &name, None)?;
            let (def, sources) = tables::alter_def(&table.def, &at.operations, compiler)?;
            Ok(Stmt::AlterTable {
                table,
                def,
                sources,
            })
        }
        ast::Statement::RenameTable(list) => {
            let mut renames = Vec::new();
            for r in &list {
                renames.push((
                    tables::resolve_name(&r.old_name, ctx.database)?,
                    tables::resolve_name(&r.new_name, ctx.database)?,
                ));
            }
            Ok(Stmt::RenameTables { renames })
        }
        ast::Statement::CreateIndex(ci) => {
            let (database, name) = tables::resolve_name(&ci.table_name, ctx.database)?;
            let table = tables::open_ref(storage, &database, &name, None)?;
            let columns = ci
                .columns
                .iter()
                .map(|ic| {
                    let col = match &ic.column.expr {
                        ast::Expr::Identifier(id) => id.value.clone(),
                        ast::Expr::Function(f) => f.name.to_string(),
                        other => return Err(err_syntax(&other.to_string())),
                    };
                    table.def.column_index(&col).ok_or_else(|| {
                        SqlError::new(
                            ER_KEY_COLUMN_DOES_NOT_EXIST,
                            format!("Key column '{col}' doesn't exist in table"),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let index_name = match &ci.name {
                Some(n) => n.to_string().trim_matches('`').to_string(),
                None => table.def.columns[columns[0]].name.clone(),
            };
            let kind = if ci.unique {
                myriad_storage::IndexKind::Unique
            } else {
                myriad_storage::IndexKind::NonUnique
            };
            Ok(Stmt::AlterIndexes {
                database,
                name,
                add: Some(myriad_storage::IndexDef {
                    name: index_name,
                    kind,
                    columns,
                }),
                drop: None,
            })
        }
        ast::Statement::Drop {
            object_type: ast::ObjectType::Index,
            names,
            table: Some(table),
            ..
        } => {
            let (database, name) = tables::resolve_name(&table, ctx.database)?;
            let [index] = names.as_slice() else {
                return Err(err_syntax("DROP INDEX"));
            };
            Ok(Stmt::AlterIndexes {
                database,
                name,
                add: None,
                drop: Some(index.to_string().trim_matches('`').to_string()),
            })
        }
        ast::Statement::Truncate(t) => {
            let [target] = t.table_names.as_slice() else {
                return Err(SqlError::not_supported("TRUNCATE of several tables"));
            };
            let (database, name) = tables::resolve_name(&target.name, ctx.database)?;
            Ok(Stmt::Truncate { database, name })
        }
        ast::Statement::Insert(ins) => {
            let ast::TableObject::TableName(obj) = &ins.table else {
                return Err(SqlError::not_supported("INSERT INTO TABLE FUNCTION"));
            };
            if matches!(ins.on, Some(ast::OnInsert::OnConflict(_))) {
                return Err(SqlError::not_supported("ON CONFLICT"));
            }
            let (db, name) = tables::resolve_name_in_place(obj, ctx.database)?;
            let table = tables::open_ref(storage, db, name, None)?;
            let columns: Vec<usize> = if ins.columns.is_empty() {
                (0..table.def.columns.len()).collect()
            } else {
                ins.columns
                    .iter()
                    .map(|c| {
                        let n = c.to_string();
                        let n = n.trim_matches('`');
                        table.def.column_index(n).ok_or_else(|| {
                            SqlError::new(
                                ER_BAD_FIELD_ERROR,
                                format!("Unknown column '{n}' in 'field list'"),
                            )
                        })
                    })
                    .collect::<Result<_, _>>()?
            };
            let Some(source) = &ins.source else {
                return Err(SqlError::not_supported("INSERT ... SET"));
            };
            let ast::SetExpr::Values(values) = source.body.as_ref() else {
                return Err(SqlError::not_supported("INSERT ... SELECT"));
            };
            let mut rows = Vec::with_capacity(values.rows.len());
            for (n, row) in values.rows.iter().enumerate() {
                if row.len() != columns.len() {
                    return Err(SqlError::new(
                        ER_WRONG_VALUE_COUNT_ON_ROW,
                        format!("Column count doesn't match value count at row {}", n + 1),
                    ));
                }
                let compiled = row
                    .iter()
                    .map(|e| match e {
                        ast::Expr::Identifier(id)
                            if id.quote_style.is_none()
                                && id.value.eq_ignore_ascii_case("DEFAULT") =>
                        {
                            Ok(None)
                        }
                        other => compiler.compile(other).map(Some),
                    })
                    .collect::<Result<Vec<_>, SqlError>>()?;
                rows.push(compiled);
            }
            // ON DUPLICATE KEY UPDATE: assignments over the existing row, where VALUES(c)
            // reads the row that was to be inserted (columns `__new_c` after the table's).
            let on_duplicate = match &ins.on {
                Some(ast::OnInsert::DuplicateKeyUpdate(assignments)) => {
                    let mut scope = table.scope();
                    for c in &table.def.columns {
                        scope.columns.push((None, format!("__new_{}", c.name)));
                    }
                    let uc = tables::table_compiler(compiler, &scope);
                    let mut out = Vec::new();
                    for a in assignments {
                        let ast::AssignmentTarget::ColumnName(col) = &a.target else {
                            return Err(SqlError::not_supported("tuple assignment"));
                        };
                        let col_name = col.0.last().map(|p| p.to_string()).unwrap_or_default();
                        let col_name = col_name.trim_matches('`');
                        let position = table.def.column_index(col_name).ok_or_else(|| {
                            SqlError::new(
                                ER_BAD_FIELD_ERROR,
                                format!("Unknown column '{col_name}' in 'field list'"),
                            )
                        })?;
                        out.push((position, uc.compile(&values_to_new(&a.value))?));
                    }
                    Some(out)
                }
                _ => None,
            };
            Ok(Stmt::Insert(tables::InsertPlan {
                table,
                columns,
                rows,
                ignore: ins.ignore,
                replace: ins.replace_into,
                on_duplicate,
            }))
        }
        ast::Statement::Update(up) => {
            if up.from.is_some() || !up.table.joins.is_empty() {
                return Err(SqlError::not_supported("multi-table UPDATE"));
            }
            let table = table_factor(&up.table.relation, storage, ctx)?;
            let scope = table.scope();
            let tc = tables::table_compiler(compiler, &scope);
            let mut assignments = Vec::new();
            for a in &up.assignments {
                let ast::AssignmentTarget::ColumnName(col) = &a.target else {
                    return Err(SqlError::not_supported("tuple assignment"));
                };
                let col_name = col.0.last().map(|p| p.to_string()).unwrap_or_default();
                let col_name = col_name.trim_matches('`');
                let position = table.def.column_index(col_name).ok_or_else(|| {
                    SqlError::new(
                        ER_BAD_FIELD_ERROR,
                        format!("Unknown column '{col_name}' in 'field list'"),
                    )
                })?;
                assignments.push((position, tc.compile(&a.value)?));
            }
            let filter = up.selection.as_ref().map(|w| tc.compile(w)).transpose()?;
            let access = tables::choose_access(&table.def, filter.as_ref());
            let order_by = up
                .order_by
                .iter()
                .map(|o| {
                    Ok((
                        tc.compile(&o.expr)?,
                        matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
                    ))
                })
                .collect::<Result<Vec<_>, SqlError>>()?;
            let limit = up.limit.as_ref().map(|l| compiler.compile(l)).transpose()?;
            Ok(Stmt::Update(tables::UpdatePlan {
                source: tables::RowSource {
                    table,
                    access,
                    filter,
                },
                assignments,
                order_by,
                limit,
            }))
        }
        ast::Statement::Delete(del) => {
            let from = match &del.from {
                ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
            };
            let [twj] = from.as_slice() else {
                return Err(SqlError::not_supported("multi-table DELETE"));
            };
            if !twj.joins.is_empty() || !del.tables.is_empty() || del.using.is_some() {
                return Err(SqlError::not_supported("multi-table DELETE"));
            }
            let table = table_factor(&twj.relation, storage, ctx)?;
            let scope = table.scope();
            let tc = tables::table_compiler(compiler, &scope);
            let filter = del.selection.as_ref().map(|w| tc.compile(w)).transpose()?;
            let access = tables::choose_access(&table.def, filter.as_ref());
            let order_by = del
                .order_by
                .iter()
                .map(|o| {
                    Ok((
                        tc.compile(&o.expr)?,
                        matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
                    ))
                })
                .collect::<Result<Vec<_>, SqlError>>()?;
            let limit = del
                .limit
                .as_ref()
                .map(|l| compiler.compile(l))
                .transpose()?;
            Ok(Stmt::Delete(tables::DeletePlan {
                source: tables::RowSource {
                    table,
                    access,
                    filter,
                },
                order_by,
                limit,
            }))
        }
        other => Err(SqlError::not_supported(&first_words(&other.to_string()))),
    }
}

/// The table of a FROM / UPDATE / DELETE clause.
fn table_factor(
    relation: &ast::TableFactor,
    storage: &myriad_storage::Storage,
    ctx: &CompileCtx,
) -> Result<tables::TableRef, SqlError> {
    let ast::TableFactor::Table { name, alias, .. } = relation else {
        return Err(SqlError::not_supported("derived tables"));
    };
    let (db, table) = tables::resolve_name_in_place(name, ctx.database)?;
    tables::open_ref(
        storage,
        db,
        table,
        alias.as_ref().map(|a| a.name.value.as_str()),
    )
}

fn first_words(text: &str) -> String {
    text.split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The source text of each item of a SELECT list, split at top-level commas (MySQL names
/// unaliased columns by this text, as written).
fn projection_texts(raw: &RawStatement, map: &SourceMap) -> Vec<String> {
    const MODIFIERS: &[&str] = &[
        "ALL",
        "DISTINCT",
        "DISTINCTROW",
        "HIGH_PRIORITY",
        "STRAIGHT_JOIN",
        "SQL_SMALL_RESULT",
        "SQL_BIG_RESULT",
        "SQL_BUFFER_RESULT",
        "SQL_CACHE",
        "SQL_NO_CACHE",
        "SQL_CALC_FOUND_ROWS",
    ];
    const CLAUSES: &[&str] = &[
        "FROM",
        "WHERE",
        "GROUP",
        "HAVING",
        "ORDER",
        "LIMIT",
        "INTO",
        "FOR",
        "WINDOW",
        "LOCK",
        "UNION",
        "PROCEDURE",
        "EXCEPT",
        "INTERSECT",
    ];
    let tokens = &raw.tokens;
    if tokens.first().and_then(word_upper).as_deref() != Some("SELECT") {
        return Vec::new();
    }
    let mut i = 1;
    while tokens
        .get(i)
        .and_then(word_upper)
        .is_some_and(|w| MODIFIERS.contains(&w.as_str()))
    {
        i += 1;
    }
    let text = |from: usize, to: usize| -> String {
        if from >= to {
            return String::new();
        }
        let start = map.offset(tokens[from].span.start.line, tokens[from].span.start.column);
        let end = map.offset(tokens[to - 1].span.end.line, tokens[to - 1].span.end.column);
        map.source().get(start..end).unwrap_or("").to_string()
    };
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = i;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                out.push(text(start, i));
                start = i + 1;
            }
            _ if depth == 0
                && word_upper(&tokens[i]).is_some_and(|w| CLAUSES.contains(&w.as_str())) =>
            {
                break
            }
            _ => {}
        }
        i += 1;
    }
    out.push(text(start, i));
    out
}

fn compile_query(
    q: &ast::Query,
    raw: &RawStatement,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    if q.with.is_some() {
        return Err(SqlError::not_supported("WITH"));
    }
    let ast::SetExpr::Select(select) = q.body.as_ref() else {
        return Err(SqlError::not_supported("UNION and nested queries"));
    };
    let dual = match select.from.as_slice() {
        [] => true,
        [t] if t.joins.is_empty()
            && matches!(&t.relation, ast::TableFactor::Table { name, .. } if name.to_string().eq_ignore_ascii_case("DUAL")) =>
        {
            true
        }
        _ => false,
    };
    if !dual {
        return compile_table_select(q, select, raw, map, compiler, ctx);
    }
    let mut items = Vec::new();
    let texts = projection_texts(raw, map);
    for (position, item) in select.projection.iter().enumerate() {
        let (expr, name) = match item {
            ast::SelectItem::UnnamedExpr(e) => {
                let literal_name = matches!(e, ast::Expr::Value(v) if matches!(v.value, ast::Value::SingleQuotedString(_) | ast::Value::DoubleQuotedString(_) | ast::Value::Null));
                match texts.get(position) {
                    Some(text)
                        if texts.len() == select.projection.len()
                            && !literal_name
                            && !text.is_empty() =>
                    {
                        (e, cut_item_name(text.clone()))
                    }
                    _ => (e, item_name(e, map)),
                }
            }
            ast::SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                return Err(SqlError::new(ER_NO_TABLES_USED, "No tables used"))
            }
            other => return Err(err_syntax(&other.to_string())),
        };
        items.push(SelectItem {
            name,
            expr: compiler.compile(expr)?,
        });
    }
    let filter = select
        .selection
        .as_ref()
        .map(|w| compiler.compile(w))
        .transpose()?;
    if select.having.is_some() {
        return Err(SqlError::not_supported("HAVING without tables"));
    }
    let (limit, offset) = match &q.limit_clause {
        None => (None, None),
        Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => (
            limit.as_ref().map(|l| compiler.compile(l)).transpose()?,
            offset
                .as_ref()
                .map(|o| compiler.compile(&o.value))
                .transpose()?,
        ),
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => (
            Some(compiler.compile(limit)?),
            Some(compiler.compile(offset)?),
        ),
    };
    Ok(Stmt::Select(SelectPlan {
        items,
        filter,
        limit,
        offset,
    }))
}

fn limit_clause(
    q: &ast::Query,
    compiler: &Compiler,
) -> Result<(Option<Expr>, Option<Expr>), SqlError> {
    Ok(match &q.limit_clause {
        None => (None, None),
        Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => (
            limit.as_ref().map(|l| compiler.compile(l)).transpose()?,
            offset
                .as_ref()
                .map(|o| compiler.compile(&o.value))
                .transpose()?,
        ),
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => (
            Some(compiler.compile(limit)?),
            Some(compiler.compile(offset)?),
        ),
    })
}

fn aggregate_of(e: &ast::Expr) -> Option<(tables::AggKind, Option<&ast::Expr>, bool)> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    let name = f.name.to_string().to_ascii_uppercase();
    let ast::FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let distinct = matches!(
        list.duplicate_treatment,
        Some(ast::DuplicateTreatment::Distinct)
    );
    let arg = match list.args.as_slice() {
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)] if name == "COUNT" => {
            return Some((tables::AggKind::CountStar, None, false))
        }
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))] => x,
        _ => return None,
    };
    let kind = match name.as_str() {
        "COUNT" => tables::AggKind::Count,
        "SUM" => tables::AggKind::Sum,
        "MIN" => tables::AggKind::Min,
        "MAX" => tables::AggKind::Max,
        "AVG" => tables::AggKind::Avg,
        _ => return None,
    };
    Some((kind, Some(arg), distinct))
}

/// A subquery: a SELECT compiled on its own.
pub fn compile_subquery(
    q: &ast::Query,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    let raw = RawStatement {
        tokens: Vec::new(),
        text: 0..0,
    };
    compile_query(q, &raw, map, compiler, ctx)
}

/// The static type of a subquery's first column.
pub fn first_column_type(stmt: &Stmt, env: &dyn crate::expr::Env) -> crate::eval::SqlType {
    match stmt {
        Stmt::Select(plan) => plan
            .items
            .first()
            .map(|i| i.expr.sql_type(env, &[]))
            .unwrap_or(crate::eval::SqlType::Null),
        Stmt::SelectTable(plan) => {
            let mut types = plan.source.table.column_types();
            for j in &plan.joins {
                types.extend(j.table.column_types());
            }
            match plan.items.first() {
                Some(tables::OutputItem::Column { index, .. }) => types
                    .get(*index)
                    .copied()
                    .unwrap_or(crate::eval::SqlType::Int {
                        unsigned: false,
                        len: 21,
                    }),
                Some(tables::OutputItem::Expr { expr, .. }) => expr.sql_type(env, &types),
                None => crate::eval::SqlType::Null,
            }
        }
        _ => crate::eval::SqlType::Null,
    }
}

/// SELECT from one stored table.
fn compile_table_select(
    q: &ast::Query,
    select: &ast::Select,
    raw: &RawStatement,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    // FROM a, b JOIN c ON ... LEFT JOIN d ON ...: tables in order, each with its join kind.
    let mut relations: Vec<(&ast::TableFactor, bool, Option<&ast::Expr>)> = Vec::new();
    for twj in &select.from {
        relations.push((&twj.relation, false, None));
        for j in &twj.joins {
            let (left, constraint) = match &j.join_operator {
                ast::JoinOperator::Join(c)
                | ast::JoinOperator::Inner(c)
                | ast::JoinOperator::CrossJoin(c) => (false, c),
                ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => (true, c),
                _ => return Err(SqlError::not_supported("this kind of join")),
            };
            let on = match constraint {
                ast::JoinConstraint::On(e) => Some(e),
                ast::JoinConstraint::None => None,
                _ => return Err(SqlError::not_supported("JOIN ... USING and NATURAL JOIN")),
            };
            relations.push((&j.relation, left, on));
        }
    }
    let mut refs: Vec<tables::TableRef> = Vec::new();
    for (relation, _, _) in &relations {
        refs.push(table_factor(relation, ctx.catalog.storage(), ctx)?);
    }
    for (n, r) in refs.iter().enumerate() {
        if refs[..n]
            .iter()
            .any(|x| x.alias.eq_ignore_ascii_case(&r.alias))
        {
            return Err(SqlError::new(
                ER_NONUNIQ_TABLE,
                format!("Not unique table/alias: '{}'", r.alias),
            ));
        }
    }
    let table = refs[0].clone();
    let mut scope = ColumnScope::default();
    let mut offsets = Vec::new();
    for r in &refs {
        offsets.push(scope.columns.len());
        scope.columns.extend(r.scope().columns);
    }
    let has_column = |name: &str| {
        scope
            .columns
            .iter()
            .any(|(_, c)| c.eq_ignore_ascii_case(name))
    };
    let tc = tables::table_compiler(compiler, &scope);
    let texts = projection_texts(raw, map);

    // Aggregates anywhere in the select list, HAVING or ORDER BY become extra columns
    // `__aggN` after the table's own, filled per group.
    let mut found: Vec<(tables::AggKind, Option<ast::Expr>, bool)> = Vec::new();
    let mut rewritten_items = Vec::new();
    for item in &select.projection {
        rewritten_items.push(match item {
            ast::SelectItem::UnnamedExpr(e) => Some(extract_aggregates(e, &mut found)),
            ast::SelectItem::ExprWithAlias { expr, .. } => {
                Some(extract_aggregates(expr, &mut found))
            }
            _ => None,
        });
    }
    // HAVING may name select items by alias.
    let mut alias_asts: Vec<(String, ast::Expr)> = Vec::new();
    for (item, rewritten) in select.projection.iter().zip(&rewritten_items) {
        if let (ast::SelectItem::ExprWithAlias { alias, .. }, Some(r)) = (item, rewritten) {
            alias_asts.push((alias.value.clone(), r.clone()));
        }
    }
    let having = select.having.as_ref().map(|h| {
        let h = extract_aggregates(h, &mut found);
        substitute_aliases(&h, &alias_asts, &has_column)
    });
    let order_list: Vec<(ast::Expr, bool)> = match &q.order_by {
        None => Vec::new(),
        Some(ob) => {
            let ast::OrderByKind::Expressions(list) = &ob.kind else {
                return Err(SqlError::not_supported("ORDER BY ALL"));
            };
            list.iter()
                .map(|o| {
                    (
                        extract_aggregates(&o.expr, &mut found),
                        matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
                    )
                })
                .collect()
        }
    };
    let group_exprs: &[ast::Expr] = match &select.group_by {
        ast::GroupByExpr::Expressions(list, _) => list,
        ast::GroupByExpr::All(_) => return Err(SqlError::not_supported("GROUP BY ALL")),
    };
    let grouped = !found.is_empty() || !group_exprs.is_empty() || having.is_some();
    let mut ext_scope = scope.clone();
    for i in 0..found.len() {
        ext_scope.columns.push((None, format!("__agg{i}")));
    }
    let ec = tables::table_compiler(compiler, &ext_scope);

    let mut items = Vec::new();
    let mut aliases: Vec<(String, Expr)> = Vec::new();
    for (position, item) in select.projection.iter().enumerate() {
        match item {
            ast::SelectItem::Wildcard(_) => {
                for (r, offset) in refs.iter().zip(&offsets) {
                    for (i, c) in r.def.columns.iter().enumerate() {
                        items.push(tables::OutputItem::Column {
                            index: offset + i,
                            name: c.name.clone(),
                        });
                    }
                }
            }
            ast::SelectItem::QualifiedWildcard(kind, _) => {
                let qualifier = kind.to_string();
                let qualifier = qualifier.trim_end_matches(".*").trim_matches('`');
                let Some(n) = refs
                    .iter()
                    .position(|r| r.alias.eq_ignore_ascii_case(qualifier))
                else {
                    return Err(SqlError::new(
                        ER_BAD_TABLE_ERROR,
                        format!("Unknown table '{qualifier}'"),
                    ));
                };
                for (i, c) in refs[n].def.columns.iter().enumerate() {
                    items.push(tables::OutputItem::Column {
                        index: offsets[n] + i,
                        name: c.name.clone(),
                    });
                }
            }
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                let name = match item {
                    ast::SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                    _ => match (e, texts.get(position)) {
                        // `t.col` is named `col`, as in MySQL.
                        (ast::Expr::CompoundIdentifier(parts), _) if parts.len() > 1 => {
                            parts.last().map(|p| p.value.clone()).unwrap_or_default()
                        }
                        (ast::Expr::Value(v), _)
                            if matches!(
                                v.value,
                                ast::Value::SingleQuotedString(_)
                                    | ast::Value::DoubleQuotedString(_)
                            ) =>
                        {
                            item_name(e, map)
                        }
                        (_, Some(t)) if texts.len() == select.projection.len() && !t.is_empty() => {
                            t.clone()
                        }
                        _ => item_name(e, map),
                    },
                };
                let source = rewritten_items[position].as_ref().unwrap_or(e);
                let expr = ec.compile(source)?;
                if let ast::SelectItem::ExprWithAlias { alias, .. } = item {
                    aliases.push((alias.value.clone(), expr.clone()));
                }
                items.push(match expr {
                    Expr::Column(index) => tables::OutputItem::Column { index, name },
                    expr => tables::OutputItem::Expr { expr, name },
                });
            }
            other => return Err(err_syntax(&other.to_string())),
        }
    }
    // ORDER BY / GROUP BY may name a select item by position or alias.
    let by_item = |e: &ast::Expr, clause: &str| -> Result<Option<Expr>, SqlError> {
        match e {
            ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)) => {
                let n: usize = v.value.to_string().parse().unwrap_or(0);
                match items.get(n.wrapping_sub(1)) {
                    Some(tables::OutputItem::Column { index, .. }) => {
                        Ok(Some(Expr::Column(*index)))
                    }
                    Some(tables::OutputItem::Expr { expr, .. }) => Ok(Some(expr.clone())),
                    None => Err(SqlError::new(
                        ER_BAD_FIELD_ERROR,
                        format!("Unknown column '{n}' in '{clause}'"),
                    )),
                }
            }
            ast::Expr::Identifier(id) if !has_column(&id.value) => Ok(aliases
                .iter()
                .find(|(a, _)| a.eq_ignore_ascii_case(&id.value))
                .map(|(_, e)| e.clone())),
            _ => Ok(None),
        }
    };
    let mut order_by = Vec::new();
    for (e, desc) in &order_list {
        let expr = match by_item(e, "order clause")? {
            Some(x) => x,
            None => ec.compile(e)?,
        };
        order_by.push((expr, *desc));
    }
    let grouping = if grouped {
        let mut keys = Vec::new();
        for g in group_exprs {
            keys.push(match by_item(g, "group statement")? {
                Some(x) => x,
                None => tc.compile(g)?,
            });
        }
        let mut aggregates = Vec::new();
        for (kind, arg, distinct) in &found {
            let arg = arg.as_ref().map(|a| tc.compile(a)).transpose()?;
            aggregates.push(tables::Aggregate {
                kind: *kind,
                arg,
                distinct: *distinct,
            });
        }
        let having = having.as_ref().map(|h| ec.compile(h)).transpose()?;
        Some(tables::Grouping {
            keys,
            aggregates,
            having,
        })
    } else {
        None
    };
    let filter = select
        .selection
        .as_ref()
        .map(|w| tc.compile(w))
        .transpose()?;
    let mut joins = Vec::new();
    for (n, (_, left, on)) in relations.iter().enumerate().skip(1) {
        let on = on.map(|e| tc.compile(e)).transpose()?;
        let lookup = tables::join_lookup(on.as_ref(), &refs[n].def, offsets[n]);
        joins.push(tables::JoinStep {
            table: refs[n].clone(),
            offset: offsets[n],
            left: *left,
            on,
            lookup,
        });
    }
    let (filter, post_filter) = if joins.is_empty() {
        (filter, None)
    } else {
        (None, filter)
    };
    let access = tables::choose_access(&table.def, filter.as_ref());
    let (limit, offset) = limit_clause(q, compiler)?;
    Ok(Stmt::SelectTable(Box::new(tables::TableSelect {
        source: tables::RowSource {
            table,
            access,
            filter,
        },
        joins,
        post_filter,
        items,
        grouping,
        distinct: select.distinct.is_some(),
        order_by,
        limit,
        offset,
        shown_columns: std::sync::OnceLock::new(),
    })))
}

/// `VALUES(c)` in ON DUPLICATE KEY UPDATE becomes the column `__new_c`.
fn values_to_new(e: &ast::Expr) -> ast::Expr {
    use ast::Expr as E;
    if let E::Function(f) = e {
        if f.name.to_string().eq_ignore_ascii_case("VALUES") {
            if let ast::FunctionArguments::List(list) = &f.args {
                if let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(E::Identifier(id)))] =
                    list.args.as_slice()
                {
                    return E::Identifier(ast::Ident::with_quote(
                        '`',
                        format!("__new_{}", id.value),
                    ));
                }
            }
        }
    }
    map_children(e, &mut values_to_new)
}

/// Replace identifiers that name a select-list alias (and no column) by the aliased
/// expression.
fn substitute_aliases(
    e: &ast::Expr,
    aliases: &[(String, ast::Expr)],
    has_column: &dyn Fn(&str) -> bool,
) -> ast::Expr {
    if let ast::Expr::Identifier(id) = e {
        if !has_column(&id.value) {
            if let Some((_, x)) = aliases
                .iter()
                .find(|(a, _)| a.eq_ignore_ascii_case(&id.value))
            {
                return ast::Expr::Nested(Box::new(x.clone()));
            }
        }
        return e.clone();
    }
    map_children(e, &mut |x| substitute_aliases(x, aliases, has_column))
}

/// Replace every aggregate call in an expression by a reference to `__aggN` (N in the
/// order found) and collect the aggregates.
fn extract_aggregates(
    e: &ast::Expr,
    found: &mut Vec<(tables::AggKind, Option<ast::Expr>, bool)>,
) -> ast::Expr {
    if let Some((kind, arg, distinct)) = aggregate_of(e) {
        let n = found.len();
        found.push((kind, arg.cloned(), distinct));
        return ast::Expr::Identifier(ast::Ident::with_quote('`', format!("__agg{n}")));
    }
    map_children(e, &mut |x| extract_aggregates(x, found))
}

/// A copy of `e` whose direct operands (of the operators, predicates, CASE and function
/// calls the SQL layer evaluates) are replaced by `f` of each, left to right; subqueries
/// and other expressions are copied as they are.
fn map_children(e: &ast::Expr, f: &mut dyn FnMut(&ast::Expr) -> ast::Expr) -> ast::Expr {
    use ast::Expr as E;
    let mut out = e.clone();
    let mut go = |x: &mut ast::Expr| *x = f(x);
    match &mut out {
        E::BinaryOp { left, right, .. } => {
            go(left);
            go(right);
        }
        E::UnaryOp { expr, .. }
        | E::Nested(expr)
        | E::IsNull(expr)
        | E::IsNotNull(expr)
        | E::IsTrue(expr)
        | E::IsFalse(expr)
        | E::IsNotTrue(expr)
        | E::IsNotFalse(expr)
        | E::Cast { expr, .. } => go(expr),
        E::Between {
            expr, low, high, ..
        } => {
            go(expr);
            go(low);
            go(high);
        }
        E::Like { expr, pattern, .. } => {
            go(expr);
            go(pattern);
        }
        E::InList { expr, list, .. } => {
            go(expr);
            list.iter_mut().for_each(&mut go);
        }
        E::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            if let Some(o) = operand {
                go(o);
            }
            for w in conditions.iter_mut() {
                go(&mut w.condition);
                go(&mut w.result);
            }
            if let Some(x) = else_result {
                go(x);
            }
        }
        E::Function(call) => {
            if let ast::FunctionArguments::List(list) = &mut call.args {
                for a in list.args.iter_mut() {
                    if let ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) = a {
                        go(x);
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// The longest name MariaDB gives an unaliased column, in bytes: a longer text is cut at
/// the last character that fits.
const ITEM_NAME_MAX_BYTES: usize = 255;

/// MySQL names an unaliased column by the expression's text as written (at most
/// [`ITEM_NAME_MAX_BYTES`]), except that a string literal is named by its value.
fn item_name(e: &ast::Expr, map: &SourceMap) -> String {
    cut_item_name(item_text(e, map))
}

fn cut_item_name(mut name: String) -> String {
    if name.len() > ITEM_NAME_MAX_BYTES {
        let mut cut = ITEM_NAME_MAX_BYTES;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        name.truncate(cut);
    }
    name
}

fn item_text(e: &ast::Expr, map: &SourceMap) -> String {
    if let ast::Expr::Value(v) = e {
        match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                return s.clone()
            }
            ast::Value::Null => return "NULL".to_string(),
            _ => {}
        }
    }
    let span = e.span();
    if span.start.line == 0 {
        return e.to_string();
    }
    let source = map.source();
    let start = map.offset(span.start.line, span.start.column);
    let mut end = map.offset(span.end.line, span.end.column).max(start);
    // Spans of calls may stop before the closing parenthesis: extend to balance them.
    let bytes = source.as_bytes();
    let (mut depth, mut quote) = (0i32, None::<u8>);
    let mut i = start;
    while i < bytes.len() && (i < end || depth > 0 || quote.is_some()) {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' | b'`' => quote = Some(b),
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            },
        }
        i += 1;
    }
    end = end.max(i.min(bytes.len()));
    // A call's span may end at its name: take the argument list that follows.
    let after = source.get(end..).unwrap_or("").trim_start();
    if matches!(e, ast::Expr::Function(_)) && after.starts_with('(') {
        let open = source.len() - after.len();
        let mut depth = 0i32;
        let mut quote: Option<u8> = None;
        for (k, &b) in bytes[open..].iter().enumerate() {
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None => match b {
                    b'\'' | b'"' | b'`' => quote = Some(b),
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + k + 1;
                            break;
                        }
                    }
                    _ => {}
                },
            }
        }
    }
    let text = source
        .get(start..end.min(source.len()))
        .unwrap_or("")
        .trim_end();
    if text.is_empty() {
        e.to_string()
    } else {
        text.to_string()
    }
}

/// A user variable value from a datum (for SET @a = ...).
pub fn user_value(d: Datum) -> Datum {
    d
}
