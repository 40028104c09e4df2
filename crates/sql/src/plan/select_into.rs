//! `SELECT ... INTO @a, @b`, `SELECT ... INTO OUTFILE 'file' [CHARACTER SET cs] [FIELDS
//! ...] [LINES ...]` and `SELECT ... INTO DUMPFILE 'file'`: a query whose rows go into user
//! variables or a file of the server's.
//!
//! The INTO clause may stand right after the select list (then the rest of the query
//! follows it) or after the whole query, a UNION's included (then only a locking clause
//! may follow it, and MariaDB warns 1287 that this order is deprecated), as in MariaDB's
//! grammar; elsewhere it is a syntax error. It is taken out of the statement's tokens
//! and the rest compiles as any query; `crate::exec::select_into` and
//! `crate::exec::select_outfile` run it. A name without `@` (a stored program's
//! variable) answers MariaDB's 1327. The file's clauses are LOAD DATA's
//! ([`crate::plan::file_format`]); not built, answered with 1235: character sets other
//! than binary (the default) and utf8mb4, the fixed-width format (FIELDS TERMINATED BY ''
//! with ENCLOSED BY ''), and an ENCLOSED BY or ESCAPED BY that is one non-ASCII character.

use crate::error::SqlError;
use crate::expr::Compiler;
use crate::parser::source::{bare_word, Cursor, RawStatement, SourceMap};
use crate::plan::file_format::{self, Format};
use crate::plan::{CompileCtx, Stmt};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// A compiled `SELECT ... INTO`.
#[derive(Debug, Clone)]
pub struct SelectInto {
    pub query: Stmt,
    pub destination: Destination,
    /// INTO came last, after FROM: MariaDB warns 1287 that this order is deprecated.
    pub trailing: bool,
}

/// Where the rows go.
#[derive(Debug, Clone)]
pub enum Destination {
    /// The user variables, lower-cased, without `@`.
    Variables(Vec<String>),
    Outfile(Box<Outfile>),
    /// INTO DUMPFILE 'file': the values' bytes, nothing between them.
    Dumpfile(String),
}

/// `INTO OUTFILE 'file' ...`.
#[derive(Debug, Clone)]
pub struct Outfile {
    pub file: String,
    /// CHARACTER SET utf8mb4: a binary value's bytes that are not UTF-8 are written as `?`
    /// (MariaDB's conversion); binary (the default) writes every value's bytes as they are.
    pub utf8: bool,
    pub format: Format,
    /// An ENCLOSED BY or ESCAPED BY of more than one character: 1083 once the file is
    /// made, as in MariaDB.
    pub wrong_terminators: bool,
    /// A separator with bytes beyond ASCII: MariaDB warns 1638.
    pub non_ascii: bool,
}

impl Destination {
    /// The file it writes, if it is one.
    pub fn file(&self) -> Option<&str> {
        match self {
            Destination::Variables(_) => None,
            Destination::Outfile(outfile) => Some(&outfile.file),
            Destination::Dumpfile(file) => Some(file),
        }
    }
}

/// Where the INTO of a SELECT starts among `tokens` (outside parentheses), if it has one.
pub(crate) fn into_at(tokens: &[TokenWithSpan]) -> Option<usize> {
    depth_zero(tokens).find(|&i| is_word(&tokens[i], "INTO"))
}

/// For the errors answered before a statement compiles: whether statement text `text`
/// is a query with an INTO clause, whether that clause names a file (OUTFILE or
/// DUMPFILE), and the text without it.
pub(crate) fn text_without_into(text: &str) -> Option<(bool, String)> {
    let mut map = SourceMap::new(text);
    let raw = crate::parser::source::split(text, &mut map)
        .ok()?
        .into_iter()
        .next()?;
    let at = into_at(&raw.tokens)?;
    let file = raw.tokens.get(at + 1).and_then(bare_word).and_then(|w| {
        ["OUTFILE", "DUMPFILE"]
            .into_iter()
            .find(|kind| w.eq_ignore_ascii_case(kind))
    });
    let end = match file {
        Some(kind) => {
            let mut c = Cursor {
                tokens: &raw.tokens,
                pos: at + 2,
                map: &map,
                text: raw.text.clone(),
            };
            file_destination(&mut c, kind == "DUMPFILE").ok()?;
            c.pos
        }
        None => variables(&raw.tokens, at).ok()?.1,
    };
    let offset = |i: usize| {
        raw.tokens.get(i).map_or(raw.text.end, |t| {
            map.offset(t.span.start.line, t.span.start.column)
        })
    };
    let query = format!(
        "{} {}",
        &text[..offset(at)],
        &text[offset(end)..raw.text.end]
    );
    Some((file.is_some(), query))
}

/// The positions of the tokens outside parentheses.
fn depth_zero(tokens: &[TokenWithSpan]) -> impl Iterator<Item = usize> + '_ {
    let mut depth = 0i32;
    tokens.iter().enumerate().filter_map(move |(i, t)| {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ if depth == 0 => return Some(i),
            _ => {}
        }
        None
    })
}

fn is_word(t: &TokenWithSpan, word: &str) -> bool {
    bare_word(t).is_some_and(|w| w.eq_ignore_ascii_case(word))
}

/// The clauses of one SELECT that may follow its select list.
const SELECT_CLAUSES: [&str; 7] = [
    "FROM", "WHERE", "GROUP", "HAVING", "WINDOW", "ORDER", "LIMIT",
];

/// The words that join queries into a set operation.
const SET_OPERATIONS: [&str; 3] = ["UNION", "INTERSECT", "EXCEPT"];

/// Whether the INTO at `at` follows more than the select list: a clause of the query (a
/// UNION's included) or a query in parentheses.
fn after_the_query(tokens: &[TokenWithSpan], at: usize) -> bool {
    let is_clause = |i: usize| {
        SELECT_CLAUSES
            .iter()
            .chain(&SET_OPERATIONS)
            .any(|clause| is_word(&tokens[i], clause))
    };
    tokens.first().is_some_and(|t| t.token == Token::LParen)
        || depth_zero(&tokens[..at]).any(is_clause)
}

/// Compile a SELECT with an INTO clause.
pub(crate) fn compile(
    raw: &RawStatement,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    let at = into_at(&raw.tokens).expect("the caller found INTO");
    let near = |i: usize| {
        let from = raw.tokens.get(i).map_or(raw.text.end, |t| {
            map.offset(t.span.start.line, t.span.start.column)
        });
        crate::expr::err_syntax(map.source().get(from..raw.text.end).unwrap_or(""))
    };
    let file = raw.tokens.get(at + 1).and_then(bare_word).and_then(|w| {
        ["OUTFILE", "DUMPFILE"]
            .into_iter()
            .find(|kind| w.eq_ignore_ascii_case(kind))
    });
    let (destination, end) = match file {
        Some(kind) => {
            let mut c = Cursor {
                tokens: &raw.tokens,
                pos: at + 2,
                map,
                text: raw.text.clone(),
            };
            let destination = file_destination(&mut c, kind == "DUMPFILE")?;
            (destination, c.pos)
        }
        None => variables(&raw.tokens, at)?,
    };
    let trailing = after_the_query(&raw.tokens, at);
    // After the whole query only a locking clause may follow; after the select list the
    // rest of one SELECT, without a second INTO or a UNION.
    let rest = &raw.tokens[end..];
    const LOCKING: [&str; 2] = ["FOR", "LOCK"];
    if let Some(first) = rest.first() {
        let may_follow = |w: &&str| is_word(first, w);
        let allowed = LOCKING.iter().any(may_follow)
            || (!trailing && SELECT_CLAUSES.iter().chain(&["PROCEDURE"]).any(may_follow));
        if !allowed {
            return Err(near(end));
        }
    }
    let not_after = |i: &usize| {
        is_word(&rest[*i], "INTO") || SET_OPERATIONS.iter().any(|w| is_word(&rest[*i], w))
    };
    if let Some(i) = depth_zero(rest).find(not_after) {
        return Err(near(end + i));
    }
    let mut tokens = raw.tokens[..at].to_vec();
    tokens.extend_from_slice(rest);
    let query = RawStatement {
        tokens,
        text: raw.text.clone(),
    };
    let stmt = crate::plan::from_ast::parse_with_sqlparser(&query, map, compiler, ctx)?;
    match stmt {
        Stmt::Select(_) | Stmt::SelectTable(_) => Ok(Stmt::SelectInto(Box::new(SelectInto {
            query: stmt,
            destination,
            trailing,
        }))),
        _ => Err(crate::expr::err_syntax("INTO")),
    }
}

/// `@a, @b` after the INTO at `at`, and where they end.
fn variables(tokens: &[TokenWithSpan], at: usize) -> Result<(Destination, usize), SqlError> {
    let mut vars = Vec::new();
    let mut end = at + 1;
    loop {
        let Some(Token::Word(w)) = tokens.get(end).map(|t| &t.token) else {
            return Err(crate::expr::err_syntax("INTO"));
        };
        let Some(name) = w.value.strip_prefix('@') else {
            return Err(SqlError::new(
                myriad_types::errors::ER_SP_UNDECLARED_VAR,
                format!("Undeclared variable: {}", w.value),
            ));
        };
        vars.push(name.trim_matches(['`', '\'', '"']).to_ascii_lowercase());
        end += 1;
        if tokens.get(end).map(|t| &t.token) != Some(&Token::Comma) {
            return Ok((Destination::Variables(vars), end));
        }
        end += 1;
    }
}

/// `'file'` after OUTFILE or DUMPFILE, and OUTFILE's clauses.
fn file_destination(c: &mut Cursor, dump: bool) -> Result<Destination, SqlError> {
    let file = c.string()?;
    if dump {
        return Ok(Destination::Dumpfile(file));
    }
    let utf8 = match file_format::character_set(c)?.as_deref() {
        None | Some("binary") => false,
        Some("utf8mb4") => true,
        Some(other) => {
            return Err(SqlError::not_supported(&format!(
                "SELECT ... INTO OUTFILE ... CHARACTER SET {other}"
            )))
        }
    };
    let clauses = file_format::clauses(c)?;
    let format = clauses.format;
    if format.fixed_width() {
        return Err(SqlError::not_supported(
            "SELECT ... INTO OUTFILE with FIELDS TERMINATED BY '' and ENCLOSED BY '' \
             (fixed-width rows)",
        ));
    }
    if clauses.wide.iter().any(|w| w.chars().count() == 1) {
        return Err(SqlError::not_supported(
            "SELECT ... INTO OUTFILE with a non-ASCII ENCLOSED BY or ESCAPED BY",
        ));
    }
    let non_ascii = [&format.field_end, &format.line_end, &format.line_start]
        .iter()
        .any(|s| !s.is_ascii());
    Ok(Destination::Outfile(Box::new(Outfile {
        file,
        utf8,
        format,
        wrong_terminators: !clauses.wide.is_empty(),
        non_ascii,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::source::first_statement_tokens;

    fn trailing(sql: &str) -> bool {
        let tokens = first_statement_tokens(sql);
        after_the_query(&tokens, into_at(&tokens).unwrap())
    }

    #[test]
    fn into_after_a_clause_or_a_parenthesized_query_is_trailing() {
        assert!(!trailing("select 1 into @x"));
        assert!(!trailing(
            "select a, (select b from t) into @x from t limit 1"
        ));
        assert!(!trailing(
            "with c as (select 1 from t) select * into @x from c"
        ));
        assert!(!trailing("select extract(year from d) into @x"));
        assert!(trailing("select a from t into @x"));
        assert!(trailing("select 1 union select 2 into outfile 'f'"));
        assert!(trailing("select 1 limit 1 into @x"));
        assert!(trailing("(select 1) into @x"));
    }

    #[test]
    fn a_text_is_told_from_its_into_clause_before_it_compiles() {
        let cut = |sql: &str| {
            text_without_into(sql)
                .map(|(file, q)| (file, q.split_whitespace().collect::<Vec<_>>().join(" ")))
        };
        assert_eq!(
            cut("select * from nosuch into outfile 'f' fields terminated by ','"),
            Some((true, "select * from nosuch".into()))
        );
        assert_eq!(
            cut("SELECT a INTO DUMPFILE 'f' FROM t"),
            Some((true, "SELECT a FROM t".into()))
        );
        assert_eq!(
            cut("select a into @x, @y from t"),
            Some((false, "select a from t".into()))
        );
        assert_eq!(cut("select (select 1 into outfile 'f')"), None);
    }
}
