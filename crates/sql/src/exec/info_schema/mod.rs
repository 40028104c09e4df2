//! The rows of `information_schema`'s tables, made from the server's state when a
//! statement reads one (see `crate::catalog::info_schema` for the tables and their
//! columns). Each producer returns a row per object in the table's column order, with
//! values of the columns' kinds (text, unsigned numbers, NULL).
//!
//! Visibility follows MariaDB: an account sees the databases and tables it holds some
//! privilege on (information_schema itself always), the sessions of its own user unless
//! it has PROCESS, every variable and counter, and its own grants unless it may read the
//! `mysql` database.
//!
//! Narrowing: a WHERE that says `TABLE_SCHEMA = 'x'` or `TABLE_NAME = 'y'` (a conjunct,
//! with a string literal) makes the producers look up that database or table by its exact
//! name instead of listing every one, as MariaDB does; the WHERE clause is still applied
//! to every row made. As in MariaDB (lower_case_table_names=0), such a lookup is
//! case-sensitive where the column's collation is not: `TABLE_SCHEMA = 'DB'` finds no
//! rows of database `db`, while `TABLE_SCHEMA LIKE 'DB'` does.

use crate::catalog::info_schema::{VirtualRows, TABLES};
use crate::catalog::privileges::Grants;
use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::expr::{CmpOp, Expr};
use crate::plan::info_schema::{is_schema, SCHEMA};
use crate::plan::tables::TableRef;

mod columns;
mod global_priv;
mod privileges;
mod server;
mod views;

use crate::value::Value;
use columns::{
    check_constraint_rows, column_rows, constraint_rows, key_column_rows, referential_rows,
    statistics_rows,
};
use myriad_storage as st;
use server::{collations, processlist, status, system_variables, variables};
use std::sync::Arc;

/// The rows of the table `table` refers to (made by `kind`), narrowed by `filter`.
pub(crate) fn rows(
    kind: VirtualRows,
    table: &TableRef,
    filter: Option<&Expr>,
    env: &ExecEnv,
) -> Result<Vec<st::Row>, SqlError> {
    let narrow = Narrow::from_filter(&table.def, filter);
    Ok(match kind {
        VirtualRows::None => Vec::new(),
        VirtualRows::KeyCaches => crate::exec::key_cache::key_caches_rows(env.engine),
        VirtualRows::Schemata => schemata(env, &narrow),
        VirtualRows::Tables => {
            let mut rows = tables(env, &narrow)?;
            rows.extend(views::view_table_rows(env, &narrow)?);
            rows
        }
        VirtualRows::Views => views::view_rows(env, &narrow)?,
        VirtualRows::Partitions => partitions(env, &narrow)?,
        VirtualRows::Columns => per_table(env, &narrow, column_rows)?,
        VirtualRows::Statistics => per_table(env, &narrow, statistics_rows)?,
        VirtualRows::TableConstraints => per_table(env, &narrow, constraint_rows)?,
        VirtualRows::CheckConstraints => per_table(env, &narrow, check_constraint_rows)?,
        VirtualRows::KeyColumnUsage => per_table(env, &narrow, key_column_rows)?,
        VirtualRows::ReferentialConstraints => per_table(env, &narrow, referential_rows)?,
        VirtualRows::Processlist => processlist(env),
        VirtualRows::UserPrivileges => privileges::user_privileges(env),
        VirtualRows::SchemaPrivileges => privileges::schema_privileges(env),
        VirtualRows::TablePrivileges => privileges::table_privileges(env),
        VirtualRows::MysqlUser => privileges::mysql_user(env),
        VirtualRows::ColumnPrivileges => privileges::column_privileges(env),
        VirtualRows::MysqlDb => privileges::mysql_db(env),
        VirtualRows::MysqlColumnsPriv => privileges::mysql_columns_priv(env),
        VirtualRows::MysqlRolesMapping => privileges::mysql_roles_mapping(env),
        VirtualRows::MysqlProxiesPriv => privileges::mysql_proxies_priv(env),
        VirtualRows::MysqlGlobalPriv => global_priv::mysql_global_priv(env),
        VirtualRows::GlobalVariables => variables(env, true),
        VirtualRows::SessionVariables => variables(env, false),
        VirtualRows::SystemVariables => system_variables(env),
        VirtualRows::GlobalStatus => status(env, true),
        VirtualRows::SessionStatus => status(env, false),
        VirtualRows::Engines => vec![crate::exec::admin::ENGINE_ROW
            .iter()
            .map(|s| text(s))
            .collect()],
        VirtualRows::Plugins => server::plugins(),
        VirtualRows::Collations => collations(false),
        VirtualRows::CollationApplicability => collations(true),
        VirtualRows::CharacterSets => crate::exec::admin::CHARACTER_SETS
            .iter()
            .map(|(name, description, collation, maxlen)| {
                vec![
                    text(name),
                    text(collation),
                    text(description),
                    Value::UInt(*maxlen),
                ]
            })
            .collect(),
    })
}

/// What a statement's WHERE fixes of the schema and table names.
#[derive(Debug, Default, PartialEq)]
struct Narrow {
    schema: Option<String>,
    table: Option<String>,
}

impl Narrow {
    /// The names `filter` equates the first `*SCHEMA*` / `TABLE_NAME` columns with.
    fn from_filter(def: &st::TableDef, filter: Option<&Expr>) -> Narrow {
        let position = |name: &str| def.columns.iter().position(|c| c.name == name);
        let schema = ["TABLE_SCHEMA", "SCHEMA_NAME", "CONSTRAINT_SCHEMA"]
            .iter()
            .find_map(|n| position(n));
        let table = position("TABLE_NAME");
        let mut narrow = Narrow::default();
        if let Some(filter) = filter {
            narrow.schema = schema.and_then(|i| equated_text(filter, i));
            narrow.table = table.and_then(|i| equated_text(filter, i));
        }
        narrow
    }

    fn keeps_schema(&self, db: &str) -> bool {
        self.schema.as_deref().is_none_or(|s| s == db)
    }

    fn keeps_table(&self, name: &str) -> bool {
        self.table.as_deref().is_none_or(|t| t == name)
    }
}

/// The string literal a top-level conjunct of `filter` equates column `column` with.
fn equated_text(filter: &Expr, column: usize) -> Option<String> {
    match filter {
        Expr::And(a, b) => equated_text(a, column).or_else(|| equated_text(b, column)),
        Expr::Cmp {
            op: CmpOp::Eq,
            left,
            right,
            ..
        } => match (&**left, &**right) {
            (Expr::Column(c), Expr::Literal(Value::Bytes(b)))
            | (Expr::Literal(Value::Bytes(b)), Expr::Column(c))
                if *c == column =>
            {
                String::from_utf8(b.clone()).ok()
            }
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn text(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

pub(super) fn grants(env: &ExecEnv) -> Arc<Grants> {
    env.state.checked_grants()
}

/// The databases the account sees (information_schema first, as MariaDB lists it), kept
/// by `narrow`.
fn databases(env: &ExecEnv, narrow: &Narrow) -> Vec<String> {
    let grants = grants(env);
    let all = grants.is_all()
        || grants
            .global
            .contains(crate::catalog::privileges::Privs::SHOW_DATABASES);
    env.engine
        .catalog
        .databases()
        .into_iter()
        .filter(|d| narrow.keeps_schema(d))
        .filter(|d| all || is_schema(d) || grants.any_in_database(d))
        .collect()
}

fn schemata(env: &ExecEnv, narrow: &Narrow) -> Vec<st::Row> {
    let storage = env.engine.catalog.storage();
    databases(env, narrow)
        .into_iter()
        .map(|db| {
            let collation = if is_schema(&db) {
                "utf8mb3_general_ci".to_string()
            } else {
                storage
                    .database_collation(&db)
                    .map(|c| c.name().to_string())
                    .unwrap_or_else(|_| "utf8mb4_general_ci".into())
            };
            let charset = collation.split('_').next().unwrap_or("utf8mb4").to_string();
            vec![
                text("def"),
                text(&db),
                text(&charset),
                text(&collation),
                Value::Null,
                text(""),
            ]
        })
        .collect()
}

/// The stored tables the account sees in each database `narrow` keeps, by name.
fn stored_tables(env: &ExecEnv, narrow: &Narrow) -> Result<Vec<(String, String)>, SqlError> {
    let grants = grants(env);
    let mut out = Vec::new();
    for db in databases(env, narrow) {
        if is_schema(&db) {
            continue;
        }
        let names = match env.engine.catalog.tables(&db) {
            Ok(names) => names,
            // Dropped between the listing and now.
            Err(_) => continue,
        };
        for name in names {
            let visible = grants.is_all() || grants.any_on_table_or_column(&db, &name);
            if narrow.keeps_table(&name) && visible {
                out.push((db.clone(), name));
            }
        }
    }
    Ok(out)
}

/// A table whose rows a per-table producer makes.
pub(super) struct Described<'a> {
    /// Where other tables' definitions are read (None: the rows need none).
    storage: Option<&'a st::Storage>,
    db: &'a str,
    name: &'a str,
    def: &'a st::TableDef,
    /// The account's privileges on each column, as COLUMNS.PRIVILEGES lists them; None
    /// for a column it may not see (see [`column_privileges`]).
    privileges: &'a [Option<String>],
    /// The account holds a table-level privilege on it: STATISTICS shows every column of
    /// its indexes (else those `privileges` shows, as MariaDB).
    table_level: bool,
}

/// Rows made per table (the stored ones the account sees, then information_schema's own)
/// from its definition, by `each`.
fn per_table(
    env: &ExecEnv,
    narrow: &Narrow,
    each: fn(&Described, &mut Vec<st::Row>),
) -> Result<Vec<st::Row>, SqlError> {
    let storage = env.engine.catalog.storage();
    let grants = grants(env);
    let mut rows = Vec::new();
    for (db, name) in stored_tables(env, narrow)? {
        crate::interrupt::tick()?;
        if let Ok(def) = storage.table_def(&db, &name) {
            let privileges = column_privileges(&grants, &db, &name, &def);
            let table = Described {
                storage: Some(storage),
                db: &db,
                name: &name,
                def: &def,
                privileges: &privileges,
                table_level: grants.is_all() || grants.any_on_table(&db, &name),
            };
            each(&table, &mut rows);
        }
    }
    if narrow.keeps_schema(SCHEMA) {
        for (i, t) in TABLES.iter().enumerate() {
            if narrow.keeps_table(t.name) {
                let def = crate::plan::info_schema::definition(i)?;
                let privileges = vec![Some(String::from("select")); def.columns.len()];
                let table = Described {
                    storage: None,
                    db: SCHEMA,
                    name: t.name,
                    def: &def,
                    privileges: &privileges,
                    table_level: true,
                };
                each(&table, &mut rows);
            }
        }
    }
    Ok(rows)
}

/// information_schema.STATISTICS' rows of one table (SHOW INDEX shows them too), those of
/// the columns `privileges` shows (see [`column_privileges`]; every column when empty).
pub(crate) fn index_rows(
    db: &str,
    name: &str,
    def: &st::TableDef,
    privileges: &[Option<String>],
) -> Vec<st::Row> {
    let mut rows = Vec::new();
    let table = Described {
        storage: None,
        db,
        name,
        def,
        privileges,
        table_level: false,
    };
    statistics_rows(&table, &mut rows);
    rows
}

/// The privileges the account holds on each column of `db`.`table` (`def`), in MariaDB's
/// words and order (`select,insert`): the table's and the column's own. None for a column
/// it may not see: one on which it holds none of SELECT, INSERT, UPDATE and REFERENCES,
/// as MariaDB hides it.
pub(crate) fn column_privileges(
    grants: &Grants,
    db: &str,
    table: &str,
    def: &st::TableDef,
) -> Vec<Option<String>> {
    use crate::catalog::privileges::Privs;
    def.columns
        .iter()
        .map(|c| {
            let held = match grants.is_all() {
                true => Privs::COLUMN,
                false => grants.on_column(db, table, &c.name),
            };
            if !held.intersects(Privs::COLUMN) {
                return None;
            }
            let names: Vec<&str> = [
                (Privs::SELECT, "select"),
                (Privs::INSERT, "insert"),
                (Privs::UPDATE, "update"),
                (Privs::REFERENCES, "references"),
            ]
            .iter()
            .filter(|(p, _)| held.contains(*p))
            .map(|(_, name)| *name)
            .collect();
            Some(names.join(","))
        })
        .collect()
}

fn tables(env: &ExecEnv, narrow: &Narrow) -> Result<Vec<st::Row>, SqlError> {
    let storage = env.engine.catalog.storage();
    let mut rows = Vec::new();
    if narrow.keeps_schema(SCHEMA) {
        for t in TABLES.iter().filter(|t| narrow.keeps_table(t.name)) {
            let mut row = vec![text("def"), text(SCHEMA), text(t.name), text("SYSTEM VIEW")];
            row.extend([text("MEMORY"), Value::UInt(11), text("Fixed")]);
            row.extend(std::iter::repeat_n(Value::Null, 10));
            row.extend([text("utf8mb3_general_ci"), Value::Null, text(""), text("")]);
            row.extend([Value::Null, text("Y")]);
            rows.push(row);
        }
    }
    for (db, name) in stored_tables(env, narrow)? {
        crate::interrupt::tick()?;
        let Ok(table) = storage.open_table(&db, &name) else {
            continue;
        };
        let def = table.def();
        let option = |key: &str| {
            def.options
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.clone())
        };
        let Sizes {
            rows: count,
            data,
            average,
        } = Sizes::of(&table);
        let auto_increment = match def.auto_increment_column() {
            Some(_) => table.next_auto_increment().map_or(Value::Null, Value::UInt),
            None => Value::Null,
        };
        let collation = crate::plan::table_def::table_collation(&def.options).unwrap_or_default();
        let number = |v: Option<u64>| v.map_or(Value::Null, Value::UInt);
        rows.push(vec![
            text("def"),
            text(&db),
            text(&name),
            text("BASE TABLE"),
            text(&option("ENGINE").unwrap_or_else(|| "InnoDB".into())),
            Value::UInt(10),
            text("Dynamic"),
            number(count),
            Value::UInt(average),
            number(data),
            Value::UInt(0),
            Value::UInt(0),
            Value::UInt(0),
            auto_increment,
            Value::Null,
            Value::Null,
            Value::Null,
            text(collation.name()),
            Value::Null,
            text(""),
            text(&crate::plan::show_create::option_text(
                &option("COMMENT").unwrap_or_default(),
            )),
            Value::UInt(0),
            text("N"),
        ]);
    }
    Ok(rows)
}

/// A stored table's row count and bytes, as TABLES and PARTITIONS show them.
struct Sizes {
    rows: Option<u64>,
    data: Option<u64>,
    average: u64,
}

impl Sizes {
    fn of(table: &st::Table) -> Sizes {
        let rows = table.row_count().ok();
        let data = table.data_length().ok();
        let average = match (rows, data) {
            (Some(n), Some(d)) if n > 0 => d / n,
            _ => 0,
        };
        Sizes {
            rows,
            data,
            average,
        }
    }
}

/// PARTITIONS: one row per stored table, whose partition columns are NULL (myriad has
/// no partitioned tables, which is how MariaDB shows a table that is not partitioned).
fn partitions(env: &ExecEnv, narrow: &Narrow) -> Result<Vec<st::Row>, SqlError> {
    let storage = env.engine.catalog.storage();
    let mut rows = Vec::new();
    for (db, name) in stored_tables(env, narrow)? {
        crate::interrupt::tick()?;
        let Ok(table) = storage.open_table(&db, &name) else {
            continue;
        };
        let sizes = Sizes::of(&table);
        let mut row = vec![text("def"), text(&db), text(&name)];
        row.extend(std::iter::repeat_n(Value::Null, 9));
        row.extend([
            Value::UInt(sizes.rows.unwrap_or(0)),
            Value::UInt(sizes.average),
            Value::UInt(sizes.data.unwrap_or(0)),
            Value::Null,
            Value::UInt(0),
            Value::UInt(0),
        ]);
        row.extend(std::iter::repeat_n(Value::Null, 4));
        row.extend([text(""), text(""), Value::Null]);
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def() -> st::TableDef {
        crate::plan::info_schema::definition(crate::catalog::info_schema::find("TABLES").unwrap())
            .unwrap()
            .as_ref()
            .clone()
    }

    fn eq(column: usize, s: &str) -> Expr {
        Expr::Cmp {
            op: CmpOp::Eq,
            left: Box::new(Expr::Column(column)),
            right: Box::new(Expr::Literal(text(s))),
            collation: Default::default(),
        }
    }

    #[test]
    fn narrowing_reads_conjuncts_only() {
        let def = def();
        let schema = def.column_index("TABLE_SCHEMA").unwrap();
        let name = def.column_index("TABLE_NAME").unwrap();
        let both = Expr::And(Box::new(eq(schema, "d1")), Box::new(eq(name, "t")));
        let narrow = Narrow::from_filter(&def, Some(&both));
        assert_eq!(narrow.schema.as_deref(), Some("d1"));
        assert_eq!(narrow.table.as_deref(), Some("t"));
        assert!(narrow.keeps_schema("d1") && !narrow.keeps_schema("D1"));
        // An OR says nothing certain of either side.
        let either = Expr::Or(Box::new(eq(schema, "d1")), Box::new(eq(name, "t")));
        assert_eq!(Narrow::from_filter(&def, Some(&either)), Narrow::default());
        assert_eq!(Narrow::from_filter(&def, None), Narrow::default());
    }
}
