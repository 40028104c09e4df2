//! SHOW statements that list variables, status counters, warnings and catalog objects.

use crate::catalog;
use crate::error::SqlError;
use crate::exec::admin::*;
use crate::exec::select::*;
use crate::exec::*;
use crate::expr::eval::SqlType;
use crate::expr::eval::SqlValue;
use crate::expr::eval::Warning;
use crate::plan::ShowFilter;
use crate::plan::Stmt;
use crate::result::{Column, ColumnType, QueryResult, Rows};
use crate::value::Value;
use crate::Session;

use crate::exec::env::*;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Session {
    pub(crate) fn show_variables(
        &self,
        global: bool,
        filter: &ShowFilter,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let rows = variable_pairs(env, global)
            .into_iter()
            .map(|(name, value)| vec![Value::text(name), value])
            .collect();
        listing(&[("Variable_name", 64), ("Value", 2048)], rows, filter, env)
    }

    pub(crate) fn show_status(
        &self,
        global: bool,
        filter: &ShowFilter,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let rows = status_pairs(env, global)
            .into_iter()
            .map(|(name, value)| {
                vec![
                    Value::Bytes(name.into_bytes()),
                    Value::Bytes(value.into_bytes()),
                ]
            })
            .collect();
        listing(&[("Variable_name", 64), ("Value", 2048)], rows, filter, env)
    }

    pub(crate) fn show_warnings(&mut self, errors: bool, count_only: bool) -> QueryResult {
        let list: Vec<&Warning> = self
            .state
            .warnings
            .iter()
            .filter(|w| !errors || w.level == "Error")
            .collect();
        if count_only {
            let name = if errors {
                "@@session.error_count"
            } else {
                "@@session.warning_count"
            };
            let columns = vec![result_column(
                name,
                SqlType::Int {
                    unsigned: true,
                    len: 21,
                },
            )];
            let warnings = self.state.warnings.len().min(u16::MAX as usize) as u16;
            return QueryResult::Rows {
                columns: Arc::new(columns),
                rows: Rows::shared(vec![vec![Value::UInt(list.len() as u64)]]),
                warnings,
            };
        }
        let columns = vec![
            text_column("Level", 7),
            result_column(
                "Code",
                SqlType::Int {
                    unsigned: true,
                    len: 4,
                },
            ),
            text_column("Message", 512),
        ];
        let rows = list
            .iter()
            .map(|w| {
                vec![
                    Value::Bytes(w.level.as_bytes().to_vec()),
                    Value::UInt(w.code as u64),
                    Value::Bytes(w.message.clone().into_bytes()),
                ]
            })
            .collect();
        let warnings = self.state.warnings.len().min(u16::MAX as usize) as u16;
        QueryResult::Rows {
            columns: Arc::new(columns),
            rows: Rows::shared(rows),
            warnings,
        }
    }
}
/// A SHOW listing: columns (name, chars; 0 = an unsigned BIGINT, or [`BLOB_TEXT`] /
/// [`LONG_INT`]), rows, and its filter.
/// Every system variable with its value as SHOW VARIABLES shows it: the session's (and
/// the global-only ones), or with `global` the global values of those that have one.
pub(crate) fn variable_pairs(env: &ExecEnv, global: bool) -> Vec<(&'static str, Value)> {
    let globals = Arc::clone(&env.engine.globals.read());
    let state = env.state;
    let mut pairs = Vec::new();
    for (index, def) in crate::system::sysvars::DEFINITIONS.iter().enumerate() {
        if global && def.scope == crate::system::sysvars::Scope::Session {
            continue;
        }
        let shown = if global || def.scope == crate::system::sysvars::Scope::Global {
            show_text(&globals[index], def)
        } else {
            match def.name {
                "warning_count" => Value::Bytes(env.previous_warnings.to_string().into_bytes()),
                "error_count" => Value::Bytes(env.previous_errors.to_string().into_bytes()),
                "last_insert_id" => Value::Bytes(state.last_insert_id.to_string().into_bytes()),
                "in_transaction" => Value::text(if state.in_transaction { "1" } else { "0" }),
                "timestamp" => {
                    Value::Bytes(format!("{:.6}", env.now_micros as f64 / 1e6).into_bytes())
                }
                _ => show_text(state.session_value(index), def),
            }
        };
        pairs.push((def.name, shown));
    }
    pairs
}

/// Every status counter with its value as SHOW STATUS shows it (the session's, or with
/// `global` the server's), sorted by name.
pub(crate) fn status_pairs(env: &ExecEnv, global: bool) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = counter_pairs(env, global)
        .into_iter()
        .map(|(name, value)| (name, value.to_string()))
        .collect();
    pairs.extend(ssl_pairs(env, global));
    pairs.sort_by_key(|p| p.0.to_ascii_lowercase());
    pairs
}

/// The TLS status variables: the server's handshakes, and this session's TLS (empty
/// for a plain session and in the global scope, as MariaDB shows them).
fn ssl_pairs(env: &ExecEnv, global: bool) -> Vec<(String, String)> {
    let c = &env.engine.counters;
    // The server's handshakes, in both scopes (MariaDB's session shows the server's too).
    let counter = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed).to_string();
    let tls = env.info.tls.as_ref().filter(|_| !global);
    vec![
        ("Ssl_accepts".to_string(), counter(&c.ssl_accepts)),
        (
            "Ssl_cipher".to_string(),
            tls.map(|t| t.cipher.to_string()).unwrap_or_default(),
        ),
        (
            "Ssl_cipher_list".to_string(),
            tls.and_then(|_| env.engine.tls_cipher_list.get().cloned())
                .unwrap_or_default(),
        ),
        (
            "Ssl_finished_accepts".to_string(),
            counter(&c.ssl_finished_accepts),
        ),
        (
            "Ssl_version".to_string(),
            tls.map(|t| t.version.to_string()).unwrap_or_default(),
        ),
    ]
}

/// The numeric status counters.
fn counter_pairs(env: &ExecEnv, global: bool) -> Vec<(String, u64)> {
    let engine = env.engine;
    let c = &engine.counters;
    let mut pairs: Vec<(String, u64)> = Vec::new();
    for (counter, name) in crate::system::status::NAMES {
        let value = if global {
            engine.status.read(*counter)
        } else {
            env.state.counters.counts[*counter as usize]
        };
        pairs.push((name.to_string(), value));
    }
    let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    let load_i = |a: &std::sync::atomic::AtomicI64| a.load(Ordering::Relaxed).max(0) as u64;
    let uptime = engine.uptime_s();
    let since_flush = engine.status_flushed.lock().elapsed().as_secs();
    pairs.extend([
        ("Aborted_clients".to_string(), load(&c.aborted_clients)),
        ("Aborted_connects".to_string(), load(&c.aborted_connects)),
        ("Bytes_received".to_string(), load(&c.bytes_received)),
        ("Bytes_sent".to_string(), load(&c.bytes_sent)),
        ("Connections".to_string(), load(&c.connections)),
        (
            "Max_used_connections".to_string(),
            load(&c.max_used_connections),
        ),
        (
            "Threads_connected".to_string(),
            load_i(&c.threads_connected),
        ),
        ("Threads_running".to_string(), load_i(&c.threads_running)),
        ("Uptime".to_string(), uptime),
        ("Uptime_since_flush_status".to_string(), since_flush),
    ]);
    // The storage's caches and redo log: Key_* (block cache), Open_tables and
    // Table_open_cache_* (table cache), Open_files (file cache), Innodb_* (log).
    for (name, value) in engine.catalog.storage().status() {
        pairs.push((name.to_string(), value));
    }
    for (name, value) in crate::exec::query_cache::status(engine) {
        pairs.push((name.to_string(), value));
    }
    pairs
}

pub(crate) fn listing(
    columns: &[(&str, u32)],
    rows: Vec<Vec<Value>>,
    filter: &ShowFilter,
    env: &mut ExecEnv,
) -> Result<QueryResult, SqlError> {
    let mut kept = Vec::new();
    for row in rows {
        let keep = match filter {
            ShowFilter::None => true,
            ShowFilter::Like(pattern) => {
                let text = row[0].to_text().unwrap_or_default();
                crate::expr::eval::like_match(
                    &text,
                    pattern.as_bytes(),
                    b'\\',
                    myriad_types::Collation::Utf8mb4GeneralCi,
                )
            }
            ShowFilter::Where(e) => e.holds(env, &row)?,
        };
        if keep {
            kept.push(row);
        }
    }
    let cols: Vec<Column> = columns
        .iter()
        .map(|(name, chars)| match *chars {
            0 => result_column(
                name,
                SqlType::Int {
                    unsigned: true,
                    len: 21,
                },
            ),
            LONG_INT => result_column(
                name,
                SqlType::Int {
                    unsigned: true,
                    len: 2,
                },
            ),
            BLOB_TEXT => {
                let mut c = text_column(name, 65_535);
                c.column_type = ColumnType::Blob;
                c
            }
            n => text_column(name, n),
        })
        .collect();
    let types: Vec<SqlType> = columns
        .iter()
        .map(|(_, chars)| match *chars {
            0 => SqlType::Int {
                unsigned: true,
                len: 21,
            },
            LONG_INT => SqlType::Int {
                unsigned: true,
                len: 2,
            },
            BLOB_TEXT => SqlType::Str { chars: 65_535 },
            n => SqlType::Str { chars: n },
        })
        .collect();
    let mut warnings = Vec::new();
    let rows = kept
        .into_iter()
        .map(|row| {
            row.into_iter()
                .zip(&types)
                .map(|(d, t)| d.into_column(*t, &mut warnings))
                .collect()
        })
        .collect();
    Ok(QueryResult::Rows {
        columns: Arc::new(cols),
        rows: Rows::shared(rows),
        warnings: 0,
    })
}

impl Session {
    /// The SHOW statements: variables, status, catalog listings and object definitions.
    pub(crate) fn show(&self, stmt: &Stmt, env: &mut ExecEnv) -> Result<QueryResult, SqlError> {
        Ok(match stmt {
            Stmt::ShowVariables { global, filter } => self.show_variables(*global, filter, env)?,
            Stmt::ShowStatus { global, filter } => self.show_status(*global, filter, env)?,
            Stmt::ShowDatabases { filter } => {
                let header = match filter {
                    ShowFilter::Like(p) => format!("Database ({p})"),
                    _ => "Database".to_string(),
                };
                // Without SHOW DATABASES, those the account holds something in.
                let grants = self.checked_grants();
                let all = grants
                    .global
                    .contains(crate::catalog::privileges::Privs::SHOW_DATABASES);
                let rows = self
                    .engine
                    .catalog
                    .databases()
                    .into_iter()
                    .filter(|d| {
                        all || d.eq_ignore_ascii_case("information_schema")
                            || grants.any_in_database(d)
                    })
                    .map(|d| vec![Value::Bytes(d.into_bytes())])
                    .collect();
                listing(&[(&header, 64)], rows, filter, env)?
            }
            Stmt::ShowOpenTables { database, filter } => {
                let like = match filter {
                    ShowFilter::Like(p) => Some(p.as_str()),
                    _ => None,
                };
                let mut rows = crate::exec::table_cache::open_table_rows(
                    self.engine.catalog.storage(),
                    database.as_deref(),
                    like,
                );
                // Only the tables the account holds a privilege on, as SHOW TABLES.
                let grants = self.checked_grants();
                if !grants.is_all() {
                    rows.retain(|row| match (&row[0], &row[1]) {
                        (Value::Bytes(db), Value::Bytes(t)) => grants.any_on_table(
                            &String::from_utf8_lossy(db),
                            &String::from_utf8_lossy(t),
                        ),
                        _ => false,
                    });
                }
                // LIKE matched the table names above; WHERE is applied by the listing.
                let rest = match filter {
                    ShowFilter::Like(_) => &ShowFilter::None,
                    other => other,
                };
                listing(
                    &[
                        ("Database", 64),
                        ("Table", 64),
                        ("In_use", 0),
                        ("Name_locked", 0),
                    ],
                    rows,
                    rest,
                    env,
                )?
            }
            Stmt::ShowTables {
                database,
                full,
                filter,
            } => {
                let db = match database.as_ref().or(self.info.database.as_ref()) {
                    Some(db) => db.clone(),
                    None => return Err(err_no_database()),
                };
                if !self.engine.catalog.database_exists(&db) {
                    return Err(catalog::err_unknown_database(&db));
                }
                let header = match filter {
                    ShowFilter::Like(p) => format!("Tables_in_{db} ({p})"),
                    _ => format!("Tables_in_{db}"),
                };
                // An account with only global privileges that do not reach tables (PROCESS,
                // RELOAD ...) sees no tables, without an error (see `exec::privileges`).
                let system = crate::plan::info_schema::is_schema(&db);
                let kind = if system { "SYSTEM VIEW" } else { "BASE TABLE" };
                let mut names: Vec<(String, &str)> = match system {
                    true => crate::catalog::info_schema::TABLES
                        .iter()
                        .map(|t| (t.name.to_string(), kind))
                        .collect(),
                    false => self
                        .engine
                        .catalog
                        .tables(&db)?
                        .into_iter()
                        .map(|t| (t, kind))
                        .collect(),
                };
                if !system {
                    let views = self.engine.catalog.views(&db)?;
                    names.extend(views.into_iter().map(|v| (v, "VIEW")));
                    names.sort();
                }
                let grants = self.checked_grants();
                if !grants.is_all() && !system {
                    names.retain(|(t, _)| grants.any_on_table_or_column(&db, t));
                }
                let rows: Vec<Vec<Value>> = names
                    .into_iter()
                    .map(|(n, kind)| {
                        let mut row = vec![Value::Bytes(n.into_bytes())];
                        if *full {
                            row.push(Value::text(kind));
                        }
                        row
                    })
                    .collect();
                if *full {
                    listing(&[(&header, 64), ("Table_type", 64)], rows, filter, env)?
                } else {
                    listing(&[(&header, 64)], rows, filter, env)?
                }
            }
            Stmt::ShowWarnings { .. } => ok(0),
            s @ (Stmt::ShowCollation { .. }
            | Stmt::ShowCharset { .. }
            | Stmt::ShowEngines
            | Stmt::ShowPlugins
            | Stmt::ShowProcessList) => return self.show_server(s, env),
            s @ (Stmt::ShowColumns { .. }
            | Stmt::ShowCreateTable { .. }
            | Stmt::ShowIndex { .. }
            | Stmt::ShowCreateDatabase { .. }) => return self.show_table(s, env),
            _ => {
                return Err(SqlError::not_supported(
                    "this statement as a SHOW statement",
                ))
            }
        })
    }
}

impl Session {
    /// SHOW COLUMNS, SHOW CREATE TABLE, SHOW INDEX and SHOW CREATE DATABASE.
    pub(crate) fn show_table(
        &self,
        stmt: &Stmt,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        Ok(match stmt {
            Stmt::ShowColumns {
                database,
                table,
                full,
                filter,
            } => {
                let t = self.shown_table(database.as_deref(), table)?;
                let grants = self.checked_grants();
                let privileges = crate::exec::info_schema::column_privileges(
                    &grants,
                    &t.database,
                    &t.name,
                    &t.def,
                );
                crate::exec::show_columns::show_columns(&t, *full, filter, &privileges, env)?
            }
            Stmt::ShowCreateTable {
                database,
                table,
                view,
            } => {
                let db = database
                    .clone()
                    .or_else(|| self.info.database.clone())
                    .ok_or_else(err_no_database)?;
                if *view {
                    return self.show_create_view(&db, table, true, env);
                }
                let t = match self.shown_table(Some(&db), table) {
                    Err(e) if e.code == crate::plan::tables::ER_VIEW_HERE.code => {
                        return self.show_create_view(&db, table, false, env)
                    }
                    t => t?,
                };
                // The counter, where the table has one and it moved past 1 (as InnoDB shows it).
                let counter = match t.def.auto_increment_column() {
                    Some(_) => t
                        .open(self.engine.catalog.storage())?
                        .next_auto_increment()
                        .map_err(crate::catalog::storage_error)?,
                    None => 1,
                };
                let text = crate::plan::show_create::create_table_text(&t.name, &t.def, counter);
                listing(
                    &[("Table", 64), ("Create Table", 1024)],
                    vec![vec![
                        Value::Bytes(t.name.as_bytes().to_vec()),
                        Value::Bytes(text.into_bytes()),
                    ]],
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::ShowIndex { database, table } => {
                let t = self.shown_table(database.as_deref(), table)?;
                // Without a table-level privilege, the columns the account may see.
                let grants = self.checked_grants();
                let privileges = match grants.is_all() || grants.any_on_table(&t.database, &t.name)
                {
                    true => Vec::new(),
                    false => crate::exec::info_schema::column_privileges(
                        &grants,
                        &t.database,
                        &t.name,
                        &t.def,
                    ),
                };
                crate::exec::show_columns::show_index(&t, &privileges, env)?
            }
            Stmt::ShowCreateDatabase { name } => {
                if !self.engine.catalog.database_exists(name) {
                    return Err(catalog::err_unknown_database(name));
                }
                let collation = self
                    .engine
                    .catalog
                    .storage()
                    .database_collation(name)
                    .map_err(catalog::storage_error)?;
                let charset = match collation {
                    myriad_storage::Collation::Binary => "binary".to_string(),
                    c => format!("utf8mb4 COLLATE {}", c.name()),
                };
                let text =
                    format!("CREATE DATABASE `{name}` /*!40100 DEFAULT CHARACTER SET {charset} */");
                listing(
                    &[("Database", 64), ("Create Database", 1024)],
                    vec![vec![
                        Value::Bytes(name.clone().into_bytes()),
                        Value::Bytes(text.into_bytes()),
                    ]],
                    &ShowFilter::None,
                    env,
                )?
            }
            _ => return Err(SqlError::not_supported("this statement here")),
        })
    }

    /// The table SHOW COLUMNS, SHOW CREATE TABLE or SHOW INDEX names (in the current
    /// database unless `database` is given).
    fn shown_table(
        &self,
        database: Option<&str>,
        table: &str,
    ) -> Result<crate::plan::tables::TableRef, SqlError> {
        let db = database
            .map(str::to_string)
            .or_else(|| self.info.database.clone())
            .ok_or_else(err_no_database)?;
        crate::plan::tables::open_ref(self.engine.catalog.storage(), &db, table, None)
    }

    /// SHOW COLLATION, CHARACTER SET, ENGINES and PROCESSLIST.
    pub(crate) fn show_server(
        &self,
        stmt: &Stmt,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        Ok(match stmt {
            Stmt::ShowCollation { filter } => {
                let rows = COLLATION_IDS
                    .iter()
                    .map(|(name, charset, id, default)| {
                        vec![
                            Value::text(name),
                            Value::text(charset),
                            Value::UInt(*id),
                            Value::text(if *default { "Yes" } else { "" }),
                            Value::text("Yes"),
                            Value::UInt(1),
                        ]
                    })
                    .collect();
                listing(
                    &[
                        ("Collation", 64),
                        ("Charset", 32),
                        ("Id", 0),
                        ("Default", 3),
                        ("Compiled", 3),
                        ("Sortlen", 0),
                    ],
                    rows,
                    filter,
                    env,
                )?
            }
            Stmt::ShowCharset { filter } => {
                let rows = CHARACTER_SETS
                    .iter()
                    .map(|(c, d, coll, len)| {
                        vec![
                            Value::text(c),
                            Value::text(d),
                            Value::text(coll),
                            Value::UInt(*len),
                        ]
                    })
                    .collect();
                listing(
                    &[
                        ("Charset", 32),
                        ("Description", 60),
                        ("Default collation", 64),
                        ("Maxlen", 0),
                    ],
                    rows,
                    filter,
                    env,
                )?
            }
            Stmt::ShowEngines => {
                let row = ENGINE_ROW.iter().map(|s| Value::text(s)).collect();
                listing(
                    &[
                        ("Engine", 64),
                        ("Support", 8),
                        ("Comment", 160),
                        ("Transactions", 3),
                        ("XA", 3),
                        ("Savepoints", 3),
                    ],
                    vec![row],
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::ShowPlugins => {
                let rows = PLUGINS
                    .iter()
                    .map(|(name, _, kind, ..)| {
                        vec![
                            Value::text(name),
                            Value::text("ACTIVE"),
                            Value::text(kind),
                            Value::Null,
                            Value::text("Apache-2.0"),
                        ]
                    })
                    .collect();
                listing(
                    &[
                        ("Name", 64),
                        ("Status", 16),
                        ("Type", 80),
                        ("Library", 64),
                        ("License", 80),
                    ],
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::ShowProcessList => {
                // Other sessions' statement texts are not kept: their Info is NULL.
                let rows = self
                    .engine
                    .sessions
                    .list(
                        &self.info.user,
                        self.checked_grants()
                            .global
                            .contains(crate::catalog::privileges::Privs::PROCESS),
                    )
                    .into_iter()
                    .map(|v| {
                        let own = v.connection_id == self.info.connection_id;
                        let text = |s: String| Value::Bytes(s.into_bytes());
                        vec![
                            Value::UInt(u64::from(v.connection_id)),
                            text(v.owner.user),
                            text(v.owner.host),
                            v.owner.database.map(text).unwrap_or(Value::Null),
                            Value::text(if v.busy { "Query" } else { "Sleep" }),
                            Value::UInt(if own { 0 } else { v.for_time.as_secs() }),
                            Value::text(match (own, v.busy) {
                                (true, _) => "starting",
                                (false, true) => "executing",
                                (false, false) => "",
                            }),
                            match own {
                                true => Value::text("SHOW PROCESSLIST"),
                                false => Value::Null,
                            },
                        ]
                    })
                    .collect();
                listing(
                    &[
                        ("Id", 0),
                        ("User", 32),
                        ("Host", 64),
                        ("db", 64),
                        ("Command", 16),
                        ("Time", 0),
                        ("State", 64),
                        ("Info", 100),
                    ],
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            _ => return Err(SqlError::not_supported("this statement here")),
        })
    }
}
