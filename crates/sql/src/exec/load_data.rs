//! Running `LOAD DATA [LOCAL] INFILE`: the file's rows (see [`crate::exec::load_fields`])
//! inserted as INSERT inserts them, in one statement: all of them or, on an error, none.
//!
//! - LOCAL: the client sends the file ([`crate::RowSink::local_file`]); it needs
//!   `local_infile` ON and a client that allows it (else 4166). As in MariaDB, the server
//!   cannot stop the transfer, so errors in the data become warnings: a duplicate key is
//!   skipped (unless REPLACE), a value that does not fit is adjusted, and a row with too
//!   few or too many fields loads with warning 1261 / 1262.
//! - Without LOCAL the server reads the file itself: the account needs the FILE privilege
//!   (1045 without it, as MariaDB answers), and the name is taken as MariaDB takes it (see
//!   `crate::exec::server_files`: a bare name in the default database's directory, else
//!   the table's; with `secure_file_priv` set only files under that directory, else
//!   1290). Then the session's sql_mode applies: in strict mode a bad
//!   value or a row with too few or too many fields fails the statement (1366, 1261,
//!   1262), and IGNORE turns those errors into warnings.
//!
//! The OK packet's info is MariaDB's: `Records: n  Deleted: d  Skipped: s  Warnings: w`.
//! Memory: the file is read in pieces and only the current line is kept; the rows go into
//! the statement as they are read.

use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::exec::load_fields::{Field, Splitter};
use crate::exec::write::InsertCounts;
use crate::exec::Pending;
use crate::expr::eval::Warning;
use crate::expr::Expr;
use crate::plan::load_data::LoadDataPlan;
use crate::plan::tables::InsertPlan;
use crate::result::QueryResult;
use crate::row_sink::infile_disabled;
use crate::value::Value;
use crate::Session;
use myriad_types::errors::{
    EE_STAT, ER_ACCESS_DENIED_ERROR, ER_WARN_TOO_FEW_RECORDS, ER_WARN_TOO_MANY_RECORDS,
};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Bytes read from a server-side file at a time.
const READ_BYTES: usize = 64 * 1024;

/// The state of one LOAD DATA while its rows arrive.
struct Loading<'s> {
    session: &'s Session,
    plan: &'s LoadDataPlan,
    insert: InsertPlan,
    table: myriad_storage::Table,
    /// The table's CHECK constraints, compiled once for the statement.
    checks: crate::plan::checks::Checks,
    references: crate::exec::foreign_keys::RowReferences,
    scope: crate::session::transaction::WriteScope<'s>,
    strict: bool,
    lines: u64,
    records: u64,
    counts: InsertCounts,
}

impl Loading<'_> {
    fn row(&mut self, fields: Vec<Field>, env: &mut ExecEnv) -> Result<(), SqlError> {
        self.lines += 1;
        if self.lines <= self.plan.skip_lines {
            return Ok(());
        }
        self.records += 1;
        let n = self.records;
        let wanted = self.plan.columns.len();
        // MariaDB warns once per missing column before it stores the row, and once for a
        // row with extra fields after it.
        if fields.len() < wanted {
            let message = format!("Row {n} doesn't contain data for all columns");
            self.complain(ER_WARN_TOO_FEW_RECORDS, message, wanted - fields.len(), env)?;
        }
        let extra = fields.len() > wanted;
        let exprs: Vec<Option<Expr>> = fields
            .into_iter()
            .take(wanted)
            .map(|f| Some(Expr::Literal(f.map_or(Value::Null, Value::Bytes))))
            .collect();
        let row = self
            .session
            .insert_row(&self.insert, &exprs, n as usize, self.strict, env)?;
        self.session.store_row(
            &self.insert,
            (&self.table, &self.checks, &self.references),
            &mut self.scope,
            &row,
            n as usize,
            self.strict,
            &mut self.counts,
            env,
        )?;
        if extra {
            let message = format!(
                "Row {n} was truncated; it contained more data than there were input columns"
            );
            self.complain(ER_WARN_TOO_MANY_RECORDS, message, 1, env)?;
        }
        Ok(())
    }

    /// A row that does not fit the column list: the error in strict mode, else `times`
    /// warnings.
    fn complain(
        &self,
        code: myriad_types::errors::ErrorCode,
        message: String,
        times: usize,
        env: &mut ExecEnv,
    ) -> Result<(), SqlError> {
        if self.strict {
            return Err(SqlError::new(code, message));
        }
        for _ in 0..times {
            env.warnings.push(Warning {
                level: "Warning",
                code: code.code,
                message: message.clone(),
            });
        }
        Ok(())
    }
}

impl Session {
    pub(crate) fn load_data(
        &self,
        plan: &LoadDataPlan,
        env: &mut ExecEnv,
    ) -> Result<Pending, SqlError> {
        let path = match plan.local {
            true => {
                if self.engine.global_variable("local_infile") != Some(Value::Int(1)) {
                    return Err(infile_disabled());
                }
                None
            }
            false => Some(self.server_file(plan)?),
        };
        // LOCAL: the transfer cannot be stopped, so errors become warnings.
        let lenient = plan.local || plan.ignore;
        let insert = InsertPlan {
            table: plan.table.clone(),
            columns: plan.columns.clone(),
            rows: Vec::new(),
            select: None,
            ignore: lenient && !plan.replace,
            replace: plan.replace,
            on_duplicate: None,
        };
        let names = (&*plan.table.database, &*plan.table.name);
        let mut loading = Loading {
            session: self,
            plan,
            insert,
            table: self.open_for_write(&plan.table)?,
            checks: self.table_checks(&plan.table.def, names)?,
            references: self.row_references(names, &plan.table.def, plan.replace)?,
            scope: self.write_scope(&plan.table.database, true)?,
            strict: self.strict() && !lenient,
            lines: 0,
            records: 0,
            counts: InsertCounts::default(),
        };
        let mut splitter = Splitter::new(plan.format.clone());
        match path {
            None => {
                let out = env.out.take().ok_or_else(infile_disabled)?;
                out.local_file(&plan.file, &mut |bytes| {
                    splitter.feed(bytes, &mut |fields| loading.row(fields, env))
                })?;
            }
            Some(path) => {
                let mut file = std::fs::File::open(&path).map_err(|e| stat_error(&path, &e))?;
                let mut buffer = vec![0u8; READ_BYTES];
                loop {
                    let read = file.read(&mut buffer).map_err(|e| stat_error(&path, &e))?;
                    if read == 0 {
                        break;
                    }
                    crate::interrupt::check()?;
                    splitter.feed(&buffer[..read], &mut |fields| loading.row(fields, env))?;
                }
            }
        }
        splitter.finish(&mut |fields| loading.row(fields, env))?;
        let Loading {
            scope,
            records,
            counts,
            ..
        } = loading;
        scope.finish()?;
        let (deleted, skipped) = match plan.replace {
            true => (counts.duplicates, 0),
            false => (0, counts.duplicates),
        };
        let result = QueryResult::Ok {
            affected_rows: counts.affected,
            last_insert_id: counts.first_id.unwrap_or(0),
            warnings: 0,
            info: format!(
                "Records: {records}  Deleted: {deleted}  Skipped: {skipped}  Warnings: {}",
                env.warnings.len()
            ),
        };
        Ok(match counts.first_id {
            Some(id) => Pending::Inserted(result, id),
            None => Pending::Done(result),
        })
    }

    /// The server-side file of LOAD DATA INFILE (see `crate::exec::server_files`), after
    /// the FILE privilege is checked.
    fn server_file(&self, plan: &LoadDataPlan) -> Result<PathBuf, SqlError> {
        let grants = self.checked_grants();
        if !grants.is_all()
            && !grants
                .global
                .contains(crate::catalog::privileges::Privs::FILE)
        {
            let (user, host) = (&self.info.user, &self.info.host);
            let pattern = self.engine.accounts.matching_host(user, host);
            let password = self.engine.accounts.find(user, host).is_some_and(|a| {
                a.credential != myriad_types::auth::Credential::NativePassword(None)
            });
            return Err(SqlError::new(
                ER_ACCESS_DENIED_ERROR,
                format!(
                    "Access denied for user '{user}'@'{}' (using password: {})",
                    pattern.as_deref().unwrap_or(host),
                    if password { "YES" } else { "NO" }
                ),
            ));
        }
        // A bare name is in the default database's directory, else the table's.
        let database = self
            .info
            .database
            .as_deref()
            .unwrap_or(&plan.table.database);
        self.server_path(&plan.file, Some(database))
    }
}

/// MariaDB's error for a server-side file it cannot open or read.
fn stat_error(path: &Path, e: &std::io::Error) -> SqlError {
    SqlError::new(
        EE_STAT,
        format!(
            "Can't get stat of '{}' (Errcode: {})",
            path.display(),
            crate::exec::server_files::errcode(e)
        ),
    )
}
