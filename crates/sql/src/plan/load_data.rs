//! `LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file' [REPLACE | IGNORE] INTO
//! TABLE t [CHARACTER SET utf8mb4 | binary] [{FIELDS | COLUMNS} [TERMINATED BY 's']
//! [[OPTIONALLY] ENCLOSED BY 'c'] [ESCAPED BY 'c']] [LINES [STARTING BY 's'] [TERMINATED BY
//! 's']] [IGNORE n {LINES | ROWS}] [(column, ...)]` (run by `crate::exec::load_data`); the
//! CHARACTER SET, FIELDS and LINES clauses are parsed by `crate::plan::file_format`.
//!
//! Not built, answered with 1235: user variables in the column list and the SET clause,
//! character sets other than the connection's UTF-8 and binary, and the fixed-width format
//! (FIELDS TERMINATED BY '' with ENCLOSED BY '').

use crate::error::SqlError;
use crate::parser::source::Cursor;
use crate::plan::file_format::{self, Format};
use crate::plan::statements::table_name;
use crate::plan::tables::TableRef;
use crate::plan::Stmt;
use sqlparser::tokenizer::Token;

/// A compiled LOAD DATA.
#[derive(Debug, Clone)]
pub struct LoadDataPlan {
    /// The client's file (LOCAL) rather than one the server reads.
    pub local: bool,
    pub file: String,
    /// The table and the positions of the listed columns (all, in order, without a list).
    pub table: TableRef,
    pub columns: Vec<usize>,
    pub replace: bool,
    pub ignore: bool,
    pub format: Format,
    /// Lines skipped at the start (IGNORE n LINES).
    pub skip_lines: u64,
}

/// Parse LOAD DATA; `current` is the session's database.
pub(crate) fn load_data(c: &mut Cursor, ctx: &crate::plan::CompileCtx) -> Result<Stmt, SqlError> {
    c.pos += 2;
    let _ = c.eat_word("LOW_PRIORITY") || c.eat_word("CONCURRENT");
    let local = c.eat_word("LOCAL");
    c.expect_word("INFILE")?;
    let file = c.string()?;
    let replace = c.eat_word("REPLACE");
    let ignore = !replace && c.eat_word("IGNORE");
    c.expect_word("INTO")?;
    c.expect_word("TABLE")?;
    let (database, name) = table_name(c)?;
    let database = match database {
        Some(db) => db,
        None => ctx
            .database
            .map(str::to_string)
            .ok_or_else(crate::plan::tables::err_no_database)?,
    };
    let table = crate::plan::tables::open_ref(ctx.catalog.storage(), &database, &name, None)?;
    if let Some(name) = file_format::character_set(c)? {
        if !matches!(name.as_str(), "utf8" | "utf8mb3" | "utf8mb4" | "binary") {
            return Err(SqlError::not_supported(&format!(
                "LOAD DATA ... CHARACTER SET {name}"
            )));
        }
    }
    let clauses = file_format::clauses(c)?;
    if !clauses.wide.is_empty() {
        return Err(file_format::wrong_field_terminators());
    }
    let format = clauses.format;
    if format.fixed_width() {
        return Err(SqlError::not_supported(
            "LOAD DATA with FIELDS TERMINATED BY '' and ENCLOSED BY '' (fixed-width rows)",
        ));
    }
    let mut skip_lines = 0;
    if c.eat_word("IGNORE") {
        skip_lines = c.number()? as u64;
        if !(c.eat_word("LINES") || c.eat_word("ROWS")) {
            return Err(c.error());
        }
    }
    let columns = column_list(c, &table)?;
    if c.eat_word("SET") {
        return Err(SqlError::not_supported("LOAD DATA ... SET"));
    }
    c.expect_end()?;
    Ok(Stmt::LoadData(Box::new(LoadDataPlan {
        local,
        file,
        table,
        columns,
        replace,
        ignore,
        format,
        skip_lines,
    })))
}

/// `(a, b, ...)`: the columns' positions; without a list every column in order. Unknown
/// names answer 1054.
fn column_list(c: &mut Cursor, table: &TableRef) -> Result<Vec<usize>, SqlError> {
    if !c.eat_token(&Token::LParen) {
        return Ok((0..table.def.columns.len()).collect());
    }
    let mut columns = Vec::new();
    if c.eat_token(&Token::RParen) {
        return Ok(columns);
    }
    loop {
        let variable = match c.peek().map(|t| &t.token) {
            Some(Token::Word(w)) => w.value.starts_with('@'),
            _ => true,
        };
        if variable {
            return Err(SqlError::not_supported(
                "LOAD DATA with user variables in the column list",
            ));
        }
        let name = c.name()?;
        let position = table
            .def
            .columns
            .iter()
            .position(|col| col.name.eq_ignore_ascii_case(&name))
            .ok_or_else(|| {
                SqlError::new(
                    myriad_types::errors::ER_BAD_FIELD_ERROR,
                    format!("Unknown column '{name}' in 'SELECT'"),
                )
            })?;
        columns.push(position);
        if c.eat_token(&Token::RParen) {
            return Ok(columns);
        }
        if !c.eat_token(&Token::Comma) {
            return Err(c.error());
        }
    }
}
