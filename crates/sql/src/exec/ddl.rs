//! Data definition: databases, tables, indexes, maintenance of tables.

use crate::catalog;
use crate::error::SqlError;
use crate::exec::env::*;
use crate::exec::show::*;
use crate::exec::*;
use crate::expr::eval::Warning;
use crate::plan::ShowFilter;
use crate::plan::Stmt;
use crate::Session;
use myriad_types::errors::{
    ER_BAD_TABLE_ERROR, ER_CANT_DROP_FIELD_OR_KEY, ER_DB_CREATE_EXISTS, ER_DB_DROP_EXISTS,
    ER_DUP_KEYNAME, ER_ILLEGAL_HA, ER_IT_IS_A_VIEW, ER_ROW_IS_REFERENCED_2,
};

impl Session {
    /// CREATE TABLE ... SELECT: the new table filled with the query's rows as INSERT ...
    /// SELECT fills a table; when that fails the table is dropped again, so the statement
    /// leaves no table behind.
    fn fill_created_table(
        &self,
        database: &str,
        name: &str,
        query: &std::sync::Arc<dyn crate::expr::SubqueryPlan>,
        positions: &[usize],
        env: &mut ExecEnv,
    ) -> Result<Pending, SqlError> {
        let storage = self.engine.catalog.storage();
        let filled =
            crate::plan::tables::open_ref(storage, database, name, None).and_then(|table| {
                let plan = crate::plan::tables::InsertPlan {
                    table,
                    columns: positions.to_vec(),
                    rows: Vec::new(),
                    select: Some(std::sync::Arc::clone(query)),
                    ignore: false,
                    replace: false,
                    on_duplicate: None,
                };
                self.insert(&plan, env)
            });
        match filled {
            Ok(Pending::Inserted(result, _)) => Ok(Pending::Done(result)),
            Ok(other) => Ok(other),
            Err(e) => {
                // The error is the statement's; a failed drop leaves an empty table.
                let _ = storage.drop_table(database, name);
                Err(e)
            }
        }
    }

    /// CREATE, DROP, ALTER, RENAME and TRUNCATE of databases and tables; table maintenance.
    pub(crate) fn ddl(&self, stmt: &Stmt, env: &mut ExecEnv) -> Result<Pending, SqlError> {
        let result = self.run_ddl(stmt, env);
        // Whatever it did, the FOREIGN KEY constraints known of its databases are gathered
        // again (see `catalog::references`).
        let catalog = &self.engine.catalog;
        match stmt {
            Stmt::DropDatabase { name: database, .. }
            | Stmt::CreateTable { database, .. }
            | Stmt::AlterIndexes { database, .. } => catalog.tables_changed(database),
            Stmt::AlterTable { table, .. } => catalog.tables_changed(&table.database),
            Stmt::DropTables { tables, .. } => {
                for (database, _) in tables {
                    catalog.tables_changed(database);
                }
            }
            Stmt::RenameTables { renames } => {
                for ((database, _), (new_database, _)) in renames {
                    catalog.tables_changed(database);
                    catalog.tables_changed(new_database);
                }
            }
            _ => {}
        }
        result
    }

    fn run_ddl(&self, stmt: &Stmt, env: &mut ExecEnv) -> Result<Pending, SqlError> {
        Ok(Pending::Done(match stmt {
            Stmt::CreateDatabase {
                name,
                if_not_exists,
                collation,
            } => {
                if self.engine.catalog.create_database(name, *collation)? {
                    ok(1)
                } else if *if_not_exists {
                    env.warnings.push(note(
                        1007,
                        format!("Can't create database '{name}'; database exists"),
                    ));
                    ok(0)
                } else {
                    return Err(SqlError::new(
                        ER_DB_CREATE_EXISTS,
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
                        ER_DB_DROP_EXISTS,
                        format!("Can't drop database '{name}'; database doesn't exist"),
                    ));
                }
            }
            Stmt::CreateTable {
                database,
                name,
                def,
                if_not_exists,
                select,
                ..
            } => {
                let storage = self.engine.catalog.storage();
                // A missing database shows when its table's file cannot be made (no stat
                // of the directory first).
                if database.is_empty() || crate::catalog::is_system(database) {
                    return Err(catalog::err_unknown_database(database));
                }
                if !def.foreign_keys.is_empty() && !storage.table_exists(database, name) {
                    self.check_new_references((database, name), def, None)?;
                }
                // `AUTO_INCREMENT = n` starts the counter; the table keeps the counter, not
                // the option.
                let (def, counter) = without_counter(def);
                match storage.create_table(database, name, &def) {
                    Ok(()) if counter.is_some() && def.auto_increment_column().is_some() => {
                        let start = counter.unwrap_or(1);
                        let table = storage
                            .open_table(database, name)
                            .map_err(catalog::storage_error)?;
                        let mut stmt = storage.begin();
                        table
                            .set_auto_increment(&mut stmt, start)
                            .and_then(|()| stmt.commit())
                            .map_err(catalog::storage_error)?;
                        drop(table);
                        match select {
                            Some((query, positions)) => {
                                return self
                                    .fill_created_table(database, name, query, positions, env)
                            }
                            None => ok(0),
                        }
                    }
                    Ok(()) => match select {
                        Some((query, positions)) => {
                            return self.fill_created_table(database, name, query, positions, env)
                        }
                        None => ok(0),
                    },
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
                let mut views = Vec::new();
                let mut referenced = false;
                for (db, name) in tables {
                    // A table another one references stays (the others go), as in MariaDB.
                    if storage.table_exists(db, name)
                        && self.referenced_from_outside((db, name), tables)?.is_some()
                    {
                        referenced = true;
                        continue;
                    }
                    match storage.drop_table(db, name) {
                        Ok(()) => {}
                        // DROP TABLE leaves a view alone (MariaDB: 1965).
                        Err(myriad_storage::StorageError::NoSuchTable(..))
                            if storage.view_exists(db, name) =>
                        {
                            views.push(format!("'{db}.{name}' is a view"))
                        }
                        Err(myriad_storage::StorageError::NoSuchTable(..))
                        | Err(myriad_storage::StorageError::NoSuchDatabase(..)) => {
                            missing.push(format!("{db}.{name}"))
                        }
                        Err(e) => return Err(catalog::storage_error(e)),
                    }
                }
                if referenced {
                    // MariaDB's words for a DROP: the code of 1451 without the constraint.
                    return Err(SqlError::new(
                        ER_ROW_IS_REFERENCED_2,
                        "Cannot delete or update a parent row: a foreign key constraint fails",
                    ));
                }
                if let Some(first) = views.first().filter(|_| !*if_exists) {
                    return Err(SqlError::new(ER_IT_IS_A_VIEW, first.clone()));
                }
                for view in views {
                    env.warnings.push(note(ER_IT_IS_A_VIEW.code, view));
                }
                if !missing.is_empty() {
                    let message = format!("Unknown table '{}'", missing.join(","));
                    if *if_exists {
                        for m in &missing {
                            env.warnings
                                .push(note(1051, format!("Unknown table '{m}'")));
                        }
                    } else {
                        return Err(SqlError::new(ER_BAD_TABLE_ERROR, message));
                    }
                }
                ok(0)
            }
            Stmt::DropViews { names, if_exists } => self.drop_views(names, *if_exists, env)?,
            Stmt::CreateView(view) => self.create_view(view, env)?,
            Stmt::Truncate { database, name } => {
                self.check_truncate(database, name)?;
                self.engine
                    .catalog
                    .storage()
                    .truncate_table(database, name)
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            s @ (Stmt::AlterIndexes { .. } | Stmt::Maintenance { .. }) => {
                return self.table_maintenance(s, env)
            }
            Stmt::AlterTable {
                table,
                def,
                sources,
            } => self.alter_table(table, def, sources, env)?,
            Stmt::RenameTables { renames } => {
                let storage = self.engine.catalog.storage();
                for ((db, name), (new_db, new_name)) in renames {
                    self.check_rename((db, name), new_db)?;
                    storage
                        .rename_table(db, name, new_db, new_name)
                        .map_err(|e| match e {
                            // Renaming a view is not built (MariaDB renames it).
                            myriad_storage::StorageError::NoSuchTable(..)
                                if storage.view_exists(db, name) =>
                            {
                                crate::plan::tables::err_view_here()
                            }
                            e => catalog::storage_error(e),
                        })?;
                }
                ok(0)
            }
            _ => return Err(SqlError::not_supported("this statement here")),
        }))
    }
}

impl Session {
    /// CREATE and DROP INDEX, and ANALYZE, CHECK, OPTIMIZE and REPAIR TABLE.
    pub(crate) fn table_maintenance(
        &self,
        stmt: &Stmt,
        env: &mut ExecEnv,
    ) -> Result<Pending, SqlError> {
        Ok(Pending::Done(match stmt {
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
                if add.is_none() && drop.is_none() {
                    // DISABLE / ENABLE KEYS: indexes are always kept current, as InnoDB's
                    // are, and MariaDB answers InnoDB's note (none under LOCK TABLES).
                    if self.state.locked_tables.is_some() {
                        return Ok(Pending::Done(ok(0)));
                    }
                    let engine = old
                        .options
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case("ENGINE"))
                        .map_or("InnoDB", |(_, v)| v.as_str());
                    env.warnings.push(Warning {
                        level: "Note",
                        code: ER_ILLEGAL_HA.code,
                        message: format!(
                            "Storage engine {engine} of the table `{database}`.`{name}` doesn't have this option"
                        ),
                    });
                    return Ok(Pending::Done(ok(0)));
                }
                let mut def = (*old).clone();
                if let Some(index) = add {
                    if def.index_named(&index.name).is_some() {
                        return Err(SqlError::new(
                            ER_DUP_KEYNAME,
                            format!("Duplicate key name '{}'", index.name),
                        ));
                    }
                    def.indexes.push(index.clone());
                    crate::plan::show_create::order_indexes(&mut def.indexes);
                }
                if let Some(index) = drop {
                    let Some(position) = def.index_named(index) else {
                        return Err(SqlError::new(
                            ER_CANT_DROP_FIELD_OR_KEY,
                            format!("Can't DROP INDEX `{index}`; check that it exists"),
                        ));
                    };
                    def.indexes.remove(position);
                    crate::plan::foreign_keys::still_indexed(&old, &def)?;
                    self.check_still_referenced((database, name), &old, &def)?;
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
                    let row = |kind: &str, text: String| {
                        crate::exec::key_cache::table_message(&db, name, op, kind, text)
                    };
                    match storage.open_table(&db, name) {
                        // A view: ANALYZE refuses it, CHECK reads it (see `check_view`).
                        Err(myriad_storage::StorageError::NoSuchTable(..))
                            if storage.view_exists(&db, name) =>
                        {
                            if *analyze {
                                let text = format!("'{db}.{name}' is not of type 'BASE TABLE'");
                                rows.push(row("Error", text));
                                rows.push(row("status", "Operation failed".into()));
                            } else {
                                self.check_view(&db, name)?;
                                rows.push(row("status", "OK".into()));
                            }
                        }
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
                    crate::exec::key_cache::RESULT_COLUMNS,
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            _ => return Err(SqlError::not_supported("this statement here")),
        }))
    }
}

/// `def` without its `AUTO_INCREMENT = n` table option, and n: where CREATE TABLE starts
/// the counter.
pub(crate) fn without_counter(
    def: &myriad_storage::TableDef,
) -> (std::borrow::Cow<'_, myriad_storage::TableDef>, Option<u64>) {
    let is_counter = |(k, _): &(String, String)| k.eq_ignore_ascii_case("AUTO_INCREMENT");
    let Some((_, value)) = def.options.iter().find(|o| is_counter(o)) else {
        return (std::borrow::Cow::Borrowed(def), None);
    };
    let start = value.trim().parse::<u64>().ok();
    let mut own = def.clone();
    own.options.retain(|o| !is_counter(o));
    (std::borrow::Cow::Owned(own), start)
}
