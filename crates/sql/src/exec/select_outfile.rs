//! Running `SELECT ... INTO OUTFILE` and `SELECT ... INTO DUMPFILE` (compiled by
//! `crate::plan::select_into`), as MariaDB runs them.
//!
//! The account needs the global FILE privilege (checked with the statement's other
//! privileges, before its tables': 1227 without it). The name is resolved as LOAD DATA's
//! is (`crate::exec::server_files`, 1290 outside `secure_file_priv`); a file that exists
//! already answers 1086. The file is made (mode 0644, whatever the umask, as MariaDB makes
//! it) before the query runs, so an error after that, a bad separator's 1083 included,
//! leaves it behind with the rows written so far, as in MariaDB.
//!
//! The rows are written as they come (see [`crate::row_sink`]), through a buffer of
//! `WRITE_BUFFER_BYTES`: a streamed query never holds its result. OUTFILE writes each
//! row as [`crate::exec::outfile_fields`] formats it, a value as the text protocol shows
//! it; CHARACTER SET utf8mb4 writes the bytes of a binary value that are not UTF-8 as
//! `?`, with warning 1366 per value. DUMPFILE writes the values' bytes one after another,
//! NUL for a NULL, nothing between them or after; like MariaDB 10.11 it refuses only a
//! third row (1172), so two rows are both written. The OK packet counts the rows written.

use crate::error::SqlError;
use crate::exec::outfile_fields::{utf8_or_question_marks, Joiner, Kind};
use crate::expr::eval::Warning;
use crate::plan::select_into::{Destination, Outfile, SelectInto};
use crate::result::{charsets, Column, ColumnType, QueryResult};
use crate::row_sink::RowSink;
use crate::value::Value;
use crate::Session;
use myriad_types::errors::{
    EE_CANTCREATEFILE, EE_WRITE, ER_AMBIGUOUS_FIELD_TERM, ER_FILE_EXISTS_ERROR, ER_TOO_MANY_ROWS,
    ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, WARN_DATA_TRUNCATED,
    WARN_NON_ASCII_SEPARATOR_NOT_IMPLEMENTED,
};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::Arc;

/// The bytes written to the file at a time.
const WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// MariaDB's widest column that is not a LONGBLOB or LONGTEXT (MAX_BLOB_WIDTH).
const BLOB_WIDTH_MAX: u32 = 1 << 24;

/// The file the rows go to while the query runs.
struct FileSink<'a> {
    out: BufWriter<File>,
    path: &'a Path,
    /// OUTFILE's clauses; None for DUMPFILE.
    outfile: Option<&'a Outfile>,
    /// The escape character in use (sql_mode NO_BACKSLASH_ESCAPES drops the default one).
    escape: Option<u8>,
    /// Made from the columns once they are known.
    joiner: Option<Joiner>,
    columns: Option<Arc<Vec<Column>>>,
    rows: u64,
    line: Vec<u8>,
    text: Vec<u8>,
    converted: Vec<u8>,
    /// Warning 1475, given once the columns are known.
    ambiguous: bool,
    /// The 1366 warnings of the values written so far.
    warnings: Vec<Warning>,
}

impl FileSink<'_> {
    fn write(&mut self) -> Result<(), SqlError> {
        let written = self.out.write_all(&self.line);
        self.line.clear();
        written.map_err(|e| write_error(self.path, &e))
    }

    fn finish(mut self) -> Result<(u64, Vec<Warning>), SqlError> {
        self.out.flush().map_err(|e| write_error(self.path, &e))?;
        Ok((self.rows, self.warnings))
    }

    fn dump_row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        // MariaDB 10.11 counts before it compares: the third row is the first refused.
        if self.rows > 1 {
            return Err(SqlError::new(
                ER_TOO_MANY_ROWS,
                "Result consisted of more than one row",
            ));
        }
        for (i, value) in row.iter().enumerate() {
            match value {
                Value::Null => self.line.push(0),
                Value::Bytes(b) => self.line.extend_from_slice(b),
                other => {
                    let column = self.columns.as_ref().and_then(|c| c.get(i));
                    text_of(other, column, &mut self.line)
                }
            }
        }
        self.write()
    }

    fn outfile_row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        let utf8 = self.outfile.is_some_and(|o| o.utf8);
        let Some(joiner) = self.joiner.as_ref() else {
            return Ok(());
        };
        joiner.start_row(&mut self.line);
        for (i, value) in row.iter().enumerate() {
            let column = self.columns.as_ref().and_then(|c| c.get(i));
            let bytes = match value {
                Value::Null => None,
                Value::Bytes(b)
                    if utf8 && column.is_some_and(|c| c.charset == charsets::BINARY) =>
                {
                    self.converted.clear();
                    if utf8_or_question_marks(b, &mut self.converted) {
                        let name = column.map_or("", |c| c.name.as_str());
                        self.warnings.push(Warning {
                            level: "Warning",
                            code: ER_TRUNCATED_WRONG_VALUE_FOR_FIELD.code,
                            message: WARN_DATA_TRUNCATED.message(&[&name, &(self.rows + 1)]),
                        });
                    }
                    Some(&self.converted[..])
                }
                Value::Bytes(b) => Some(&b[..]),
                other => {
                    self.text.clear();
                    text_of(other, column, &mut self.text);
                    Some(&self.text[..])
                }
            };
            joiner.field(&mut self.line, i, bytes);
        }
        joiner.end_row(&mut self.line);
        self.write()
    }
}

/// A value's text as the text protocol shows it in `column`.
fn text_of(value: &Value, column: Option<&Column>, out: &mut Vec<u8>) {
    let float = column.is_some_and(|c| c.column_type == ColumnType::Float);
    let decimals = column.map_or(0, |c| c.decimals);
    value.write_text_in_typed_column(out, float, decimals);
}

/// How OUTFILE writes a column's values: MariaDB encloses and escapes string results
/// (dates and times among them), not numbers.
fn kind_of(column: &Column, utf8: bool) -> Kind {
    use ColumnType::*;
    let number = matches!(
        column.column_type,
        Decimal | Tiny | Short | Long | Float | Double | LongLong | Int24 | Year | NewDecimal | Bit
    );
    Kind {
        string: !number,
        utf8: !number && (utf8 || column.charset != charsets::BINARY),
        long: column.length >= BLOB_WIDTH_MAX,
    }
}

impl RowSink for FileSink<'_> {
    fn begin(&mut self, columns: &Arc<Vec<Column>>) -> Result<(), SqlError> {
        self.columns = Some(Arc::clone(columns));
        if let Some(outfile) = self.outfile {
            let kinds = columns.iter().map(|c| kind_of(c, outfile.utf8)).collect();
            let joiner = Joiner::new(&outfile.format, self.escape, kinds);
            self.ambiguous = joiner.ambiguous();
            self.joiner = Some(joiner);
        }
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        match self.outfile {
            Some(_) => {
                if self.joiner.is_none() {
                    // No columns came first: every value is written as a string.
                    self.begin(&Arc::new(Vec::new()))?;
                }
                self.outfile_row(row)?
            }
            None => self.dump_row(row)?,
        }
        self.rows += 1;
        Ok(())
    }
}

impl Session {
    /// Run `into`, whose destination is a file.
    pub(crate) fn select_into_file(
        &mut self,
        into: &SelectInto,
        params: &[Value],
    ) -> Result<QueryResult, SqlError> {
        let name = into.destination.file().expect("a file destination");
        let outfile = match &into.destination {
            Destination::Outfile(outfile) => Some(&**outfile),
            _ => None,
        };
        // Waiting for other sessions' table locks comes before the file, as in MariaDB.
        self.check_table_locks(&into.query)?;
        let path = self.server_path(name, self.info.database.as_deref())?;
        let file = create(&path, name)?;
        let mut early = Vec::new();
        if into.trailing {
            early.push(crate::exec::select_into::deprecated_order());
        }
        if let Some(outfile) = outfile {
            if outfile.wrong_terminators {
                return Err(crate::plan::file_format::wrong_field_terminators());
            }
            if outfile.non_ascii {
                early.push(Warning {
                    level: "Warning",
                    code: WARN_NON_ASCII_SEPARATOR_NOT_IMPLEMENTED.code,
                    message: WARN_NON_ASCII_SEPARATOR_NOT_IMPLEMENTED.template.into(),
                });
            }
        }
        let no_backslash_escapes =
            self.state.sql_mode & crate::system::sysvars::sql_mode::NO_BACKSLASH_ESCAPES != 0;
        let escape = outfile.and_then(|o| {
            o.format
                .escape
                .filter(|_| o.format.escape_given || !no_backslash_escapes)
        });
        let mut sink = FileSink {
            out: BufWriter::with_capacity(WRITE_BUFFER_BYTES, file),
            path: &path,
            outfile,
            escape,
            joiner: None,
            columns: None,
            rows: 0,
            line: Vec::new(),
            text: Vec::new(),
            converted: Vec::new(),
            ambiguous: false,
            warnings: Vec::new(),
        };
        let ran = self.run_inner(&into.query, params, Some(&mut sink));
        let ran = ran.and_then(|result| write_built_rows(&mut sink, result));
        if sink.ambiguous {
            early.push(Warning {
                level: "Warning",
                code: ER_AMBIGUOUS_FIELD_TERM.code,
                message: ER_AMBIGUOUS_FIELD_TERM.template.into(),
            });
        }
        let finished = ran.and_then(|()| sink.finish());
        self.state.warnings.splice(0..0, early);
        let (rows, warnings) = finished?;
        self.state.warnings.extend(warnings);
        Ok(crate::exec::ok(rows))
    }
}

/// The rows of a query that built its result rather than streaming it, into `sink`.
fn write_built_rows(sink: &mut FileSink, result: QueryResult) -> Result<(), SqlError> {
    let QueryResult::Rows { columns, rows, .. } = result else {
        return Ok(());
    };
    if sink.columns.is_none() {
        sink.begin(&columns)?;
    }
    for row in rows.iter() {
        sink.row(row)?;
    }
    Ok(())
}

/// Make the file at `path` (`name` as the statement wrote it): 1086 if it exists.
fn create(path: &Path, name: &str) -> Result<File, SqlError> {
    if path.exists() {
        return Err(SqlError::new(
            ER_FILE_EXISTS_ERROR,
            format!("File '{name}' already exists"),
        ));
    }
    let cannot = |e: std::io::Error| {
        SqlError::new(
            EE_CANTCREATEFILE,
            format!(
                "Can't create/write to file '{}' (Errcode: {})",
                path.display(),
                crate::exec::server_files::errcode(&e)
            ),
        )
    };
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)
        .map_err(cannot)?;
    // World readable whatever the server's umask, as MariaDB makes it.
    file.set_permissions(std::fs::Permissions::from_mode(0o644))
        .map_err(cannot)?;
    Ok(file)
}

fn write_error(path: &Path, e: &std::io::Error) -> SqlError {
    SqlError::new(
        EE_WRITE,
        format!(
            "Error writing file '{}' (Errcode: {})",
            path.display(),
            crate::exec::server_files::errcode(e)
        ),
    )
}
