//! Execution: the dispatch from a compiled statement to the function that runs it.

pub mod admin;
pub mod aggregate;
pub mod key_cache;
pub mod query_cache;
pub mod query_text;
pub mod read;
pub mod row_locks;
pub mod select;
pub mod show;
pub mod sort;
pub mod stored;
pub mod stream;
pub mod table_cache;
pub mod timestamps;
pub mod write;

use crate::catalog;
use crate::error::SqlError;
use crate::expr::eval::Datum;
use crate::expr::eval::Warning;
use crate::expr::Env;
use crate::plan::SetScope;
use crate::plan::ShowFilter;
use crate::plan::Stmt;
use crate::result::QueryResult;
use crate::system::sysvars::Setting;
use crate::system::sysvars::VarValue;

use crate::exec::admin::*;
use crate::exec::select::*;
use crate::exec::show::*;
use crate::session::*;
use crate::Session;

impl Session {
    pub(crate) fn dispatch(&self, stmt: &Stmt, env: &mut ExecEnv) -> Result<Pending, SqlError> {
        Ok(Pending::Done(match stmt {
            Stmt::Select(plan) => select(plan, env)?,
            Stmt::Do(exprs) => {
                for e in exprs {
                    e.eval(env, &[])?;
                }
                ok(0)
            }
            Stmt::Set(assignments) => {
                return self
                    .check_assignments(assignments, env)
                    .map(Pending::Assign)
            }
            Stmt::SetNames { charset, collation } => {
                let charset = match charset {
                    Some(c) => c.clone(),
                    None => self.session_text("character_set_server"),
                };
                let cs = parse_charset(&charset)?;
                let coll = match collation {
                    Some(c) => {
                        let coll = c.to_ascii_lowercase();
                        match crate::system::sysvars::COLLATIONS.iter().find(|(n, _)| *n == coll) {
                            None => return Err(SqlError::new(1273, "HY000", format!("Unknown collation: '{c}'"))),
                            Some((_, set)) if canonical_charset(set) != cs => {
                                return Err(SqlError::new(
                                    1253,
                                    "42000",
                                    format!("COLLATION '{c}' is not valid for CHARACTER SET '{charset}'"),
                                ))
                            }
                            Some(_) => coll,
                        }
                    }
                    None => crate::system::sysvars::default_collation(&cs).to_string(),
                };
                let mut changes = Vec::new();
                for name in [
                    "character_set_client",
                    "character_set_connection",
                    "character_set_results",
                ] {
                    changes.push(session_change(name, VarValue::Str(Some(cs.clone()))));
                }
                changes.push(session_change(
                    "collation_connection",
                    VarValue::Str(Some(coll)),
                ));
                return Ok(Pending::Assign(changes.into_iter().flatten().collect()));
            }
            Stmt::SetCharacterSet(charset) => {
                let cs = match charset {
                    Some(c) => parse_charset(c)?,
                    None => self.session_text("character_set_server"),
                };
                let mut changes = Vec::new();
                for name in ["character_set_client", "character_set_results"] {
                    changes.push(session_change(name, VarValue::Str(Some(cs.clone()))));
                }
                let db_cs = self.session_text("character_set_database");
                let db_coll = self.session_text("collation_database");
                changes.push(session_change(
                    "character_set_connection",
                    VarValue::Str(Some(db_cs)),
                ));
                changes.push(session_change(
                    "collation_connection",
                    VarValue::Str(Some(db_coll)),
                ));
                return Ok(Pending::Assign(changes.into_iter().flatten().collect()));
            }
            Stmt::SetTransaction {
                scope,
                isolation,
                read_only,
            } => {
                let global = *scope == Some(SetScope::Global);
                let mut changes = Vec::new();
                if let Some(level) = isolation {
                    let names = ["transaction_isolation", "tx_isolation"];
                    for name in names {
                        if let Some(index) = crate::system::sysvars::lookup(name) {
                            let (v, _) = crate::system::sysvars::parse_setting(
                                crate::system::sysvars::def(index),
                                &Setting::Text(level.clone()),
                            )?;
                            changes.push(Change::system(index, global, v));
                        }
                    }
                }
                if let Some(ro) = read_only {
                    for name in ["transaction_read_only", "tx_read_only"] {
                        if let Some(index) = crate::system::sysvars::lookup(name) {
                            changes.push(Change::system(index, global, VarValue::Bool(*ro)));
                        }
                    }
                }
                return Ok(Pending::Assign(changes));
            }
            s @ (Stmt::ShowVariables { .. }
            | Stmt::ShowStatus { .. }
            | Stmt::ShowDatabases { .. }
            | Stmt::ShowOpenTables { .. }
            | Stmt::ShowTables { .. }
            | Stmt::ShowWarnings { .. }
            | Stmt::ShowCollation { .. }
            | Stmt::ShowCharset { .. }
            | Stmt::ShowEngines
            | Stmt::ShowColumns { .. }
            | Stmt::ShowCreateTable { .. }
            | Stmt::ShowIndex { .. }
            | Stmt::ShowProcessList
            | Stmt::ShowCreateDatabase { .. }) => self.show(s, env)?,
            Stmt::Use(db) => {
                if !self.engine.catalog.database_exists(db) {
                    return Err(catalog::err_unknown_database(db));
                }
                return Ok(Pending::Use(db.clone()));
            }
            Stmt::CreateDatabase {
                name,
                if_not_exists,
            } => {
                if self.engine.catalog.create_database(name)? {
                    ok(1)
                } else if *if_not_exists {
                    env.warnings.push(note(
                        1007,
                        format!("Can't create database '{name}'; database exists"),
                    ));
                    ok(0)
                } else {
                    return Err(SqlError::new(
                        1007,
                        "HY000",
                        format!("Can't create database '{name}'; database exists"),
                    ));
                }
            }
            Stmt::DropDatabase { name, if_exists } => {
                if let Some(tables) = self.engine.catalog.drop_database(name)? {
                    return Ok(Pending::DroppedDatabase(name.clone(), tables));
                } else if *if_exists {
                    env.warnings.push(note(
                        1008,
                        format!("Can't drop database '{name}'; database doesn't exist"),
                    ));
                    ok(0)
                } else {
                    return Err(SqlError::new(
                        1008,
                        "HY000",
                        format!("Can't drop database '{name}'; database doesn't exist"),
                    ));
                }
            }
            Stmt::CreateUser {
                users,
                if_not_exists,
            } => {
                let accounts = &self.engine.accounts;
                let verdict = AccountOp::new("CREATE USER", "it already exists", *if_not_exists);
                verdict.apply(users, &mut env.warnings, |u| {
                    let password = u.password.as_deref().unwrap_or("");
                    accounts.create(&u.user, &u.host, password)
                })?;
                ok(0)
            }
            Stmt::DropUser { users, if_exists } => {
                let accounts = &self.engine.accounts;
                let verdict = AccountOp::new("DROP USER", "it doesn't exist", *if_exists);
                verdict.apply(users, &mut env.warnings, |u| {
                    accounts.drop_account(&u.user, &u.host)
                })?;
                ok(0)
            }
            Stmt::AlterUser { users, if_exists } => {
                let accounts = &self.engine.accounts;
                let verdict = AccountOp::new("ALTER USER", "it doesn't exist", *if_exists);
                verdict.apply(users, &mut env.warnings, |u| match &u.password {
                    Some(pw) => accounts.set_password(&u.user, &u.host, pw),
                    None => Ok(accounts.exists(&u.user, &u.host)),
                })?;
                ok(0)
            }
            Stmt::FlushStatus => return Ok(Pending::FlushStatus),
            Stmt::FlushTables(names) => {
                // Dirty key cache blocks are written first, then the handles are closed.
                self.engine
                    .catalog
                    .storage()
                    .checkpoint()
                    .map_err(catalog::storage_error)?;
                crate::exec::table_cache::flush_tables(
                    self.engine.catalog.storage(),
                    names.as_deref(),
                    self.info.database.as_deref(),
                )?;
                // As in MySQL, FLUSH TABLES also empties the query cache.
                crate::exec::query_cache::flush(&self.engine, true);
                ok(0)
            }
            Stmt::Flush => {
                // The other FLUSH forms (LOGS, PRIVILEGES, ...): dirty key cache blocks are written.
                self.engine
                    .catalog
                    .storage()
                    .checkpoint()
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            Stmt::KeyCache(crate::exec::key_cache::KeyCacheStmt::SetStructured(sets)) => {
                crate::exec::key_cache::set_structured(&self.engine, sets, env)?;
                ok(0)
            }
            Stmt::KeyCache(k) => {
                let rows = crate::exec::key_cache::execute(
                    &self.engine,
                    k,
                    self.info.database.as_deref(),
                )?;
                listing(
                    crate::exec::key_cache::RESULT_COLUMNS,
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::VirtualSelect(v) => {
                let table = &crate::catalog::info_schema::TABLES[v.table];
                let full = listing(table.columns, (table.rows)(&self.engine), &v.filter, env)?;
                crate::catalog::info_schema::project(v, full)
            }
            Stmt::QueryCache { reset } => {
                crate::exec::query_cache::flush(&self.engine, *reset);
                ok(0)
            }
            Stmt::Kill { target, id } => {
                self.kill(*target, id, env)?;
                ok(0)
            }
            Stmt::Shutdown => {
                if let Some(hook) = self.engine.shutdown_hook.lock().as_ref() {
                    hook();
                }
                ok(0)
            }
            Stmt::Begin => return Ok(Pending::Transaction(true)),
            Stmt::Commit | Stmt::Rollback => return Ok(Pending::Transaction(false)),
            Stmt::Empty => {
                return Err(SqlError::new(1065, "42000", "Query was empty"));
            }
            Stmt::CreateTable {
                database,
                name,
                def,
                if_not_exists,
            } => {
                let storage = self.engine.catalog.storage();
                // A missing database shows when its table's file cannot be made (no stat
                // of the directory first).
                if database.is_empty() || crate::catalog::is_system(database) {
                    return Err(catalog::err_unknown_database(database));
                }
                match storage.create_table(database, name, def) {
                    Ok(()) => ok(0),
                    Err(myriad_storage::StorageError::TableExists(..)) if *if_not_exists => {
                        env.warnings
                            .push(note(1050, format!("Table '{name}' already exists")));
                        ok(0)
                    }
                    Err(e) => return Err(catalog::storage_error(e)),
                }
            }
            Stmt::DropTables { tables, if_exists } => {
                let storage = self.engine.catalog.storage();
                let mut missing = Vec::new();
                for (db, name) in tables {
                    match storage.drop_table(db, name) {
                        Ok(()) => {}
                        Err(myriad_storage::StorageError::NoSuchTable(..))
                        | Err(myriad_storage::StorageError::NoSuchDatabase(..)) => {
                            missing.push(format!("{db}.{name}"))
                        }
                        Err(e) => return Err(catalog::storage_error(e)),
                    }
                }
                if !missing.is_empty() {
                    let message = format!("Unknown table '{}'", missing.join(","));
                    if *if_exists {
                        for m in &missing {
                            env.warnings
                                .push(note(1051, format!("Unknown table '{m}'")));
                        }
                    } else {
                        return Err(SqlError::new(1051, "42S02", message));
                    }
                }
                ok(0)
            }
            Stmt::Truncate { database, name } => {
                self.engine
                    .catalog
                    .storage()
                    .truncate_table(database, name)
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            Stmt::AlterIndexes {
                database,
                name,
                add,
                drop,
            } => {
                let storage = self.engine.catalog.storage();
                let old = storage
                    .table_def(database, name)
                    .map_err(catalog::storage_error)?;
                let mut def = (*old).clone();
                if let Some(index) = add {
                    if def.index_named(&index.name).is_some() {
                        return Err(SqlError::new(
                            1061,
                            "42000",
                            format!("Duplicate key name '{}'", index.name),
                        ));
                    }
                    def.indexes.push(index.clone());
                    crate::catalog::show_create::order_indexes(&mut def.indexes);
                }
                if let Some(index) = drop {
                    let Some(position) = def.index_named(index) else {
                        return Err(SqlError::new(
                            1091,
                            "42000",
                            format!("Can't DROP INDEX `{index}`; check that it exists"),
                        ));
                    };
                    def.indexes.remove(position);
                }
                storage
                    .alter_table(database, name, &def, &mut |row| Ok(row.to_vec()))
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            Stmt::Maintenance {
                analyze,
                tables: names,
            } => {
                let storage = self.engine.catalog.storage();
                let op = if *analyze { "analyze" } else { "check" };
                let mut rows = Vec::new();
                for (db, name) in names {
                    let db = db
                        .clone()
                        .or_else(|| self.info.database.clone())
                        .ok_or_else(err_no_database)?;
                    let label = Datum::Str(format!("{db}.{name}").into_bytes());
                    let row = |kind: &str, text: String| {
                        vec![
                            label.clone(),
                            Datum::text(op),
                            Datum::text(kind),
                            Datum::Str(text.into_bytes()),
                        ]
                    };
                    match storage.open_table(&db, name) {
                        Err(e) => {
                            rows.push(row("Error", catalog::storage_error(e).message));
                            rows.push(row("status", "Operation failed".into()));
                        }
                        Ok(t) if *analyze => {
                            // No statistics are kept yet; the table is there and readable.
                            let _ = t;
                            rows.push(row("status", "OK".into()));
                        }
                        Ok(t) => match t.check() {
                            Ok(report) if report.is_ok() => rows.push(row("status", "OK".into())),
                            Ok(report) => {
                                for p in report.problems {
                                    rows.push(row("error", p));
                                }
                                rows.push(row("error", "Corrupt".into()));
                            }
                            Err(e) => {
                                rows.push(row("error", e.to_string()));
                                rows.push(row("error", "Corrupt".into()));
                            }
                        },
                    }
                }
                listing(
                    &[
                        ("Table", 64),
                        ("Op", 10),
                        ("Msg_type", 10),
                        ("Msg_text", 1024),
                    ],
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::AlterTable {
                table,
                def,
                sources,
            } => {
                let storage = self.engine.catalog.storage();
                // Opening checks the definition is still the one the statement was made for;
                // the handle goes at once (ALTER waits for the handles in use of its table).
                drop(table.open(storage)?);
                let new_columns = def.columns.clone();
                let now_micros = env.now_micros();
                let mut convert =
                    |row: &[myriad_storage::Datum]| -> myriad_storage::Result<myriad_storage::Row> {
                        Ok(sources
                            .iter()
                            .zip(&new_columns)
                            .map(|(source, column)| match source {
                                Some(i) => {
                                    row.get(*i).cloned().unwrap_or(myriad_storage::Datum::Null)
                                }
                                None if column.default_now => {
                                    crate::exec::timestamps::now_for(&column.ty, now_micros)
                                }
                                None => match &column.default {
                                    Some(d) => d.clone(),
                                    None if column.nullable => myriad_storage::Datum::Null,
                                    None => zero_value(&column.ty),
                                },
                            })
                            .collect())
                    };
                storage
                    .alter_table(&table.database, &table.name, def, &mut convert)
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            Stmt::RenameTables { renames } => {
                let storage = self.engine.catalog.storage();
                for ((db, name), (new_db, new_name)) in renames {
                    storage
                        .rename_table(db, name, new_db, new_name)
                        .map_err(catalog::storage_error)?;
                }
                ok(0)
            }
            Stmt::Insert(plan) => return self.insert(plan, env),
            Stmt::SelectTable(plan) => Session::select_table(plan, env)?,
            Stmt::Update(plan) => self.update(plan, env)?,
            Stmt::Delete(plan) => self.delete(plan, env)?,
        }))
    }
}
/// What a statement leaves for the `&mut self` step.
pub(crate) enum Pending {
    Done(QueryResult),
    /// An INSERT that generated this AUTO_INCREMENT value (LAST_INSERT_ID()).
    Inserted(QueryResult, u64),
    Assign(Vec<Change>),
    Use(String),
    DroppedDatabase(String, u64),
    Transaction(bool),
    FlushStatus,
}

pub(crate) fn ok(affected_rows: u64) -> QueryResult {
    QueryResult::Ok {
        affected_rows,
        last_insert_id: 0,
        warnings: 0,
        info: String::new(),
    }
}

pub(crate) fn note(code: u16, message: String) -> Warning {
    Warning {
        level: "Note",
        code,
        message,
    }
}

pub(crate) fn err_no_database() -> SqlError {
    SqlError::new(1046, "3D000", "No database selected")
}
