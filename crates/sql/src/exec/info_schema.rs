//! The rows of `information_schema`'s tables, made from the server's state when a
//! statement reads one (see `crate::catalog::info_schema` for the tables and their
//! columns). Each producer returns a row per object in the table's column order, with
//! values of the columns' kinds (text, unsigned numbers, NULL).
//!
//! Visibility follows MariaDB: an account sees the databases and tables it holds some
//! privilege on (information_schema itself always), the sessions of its own user unless
//! it has PROCESS, and every variable and counter.
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
use crate::plan::show_create::{default_text, extra_text, key_text, type_text};
use crate::plan::tables::TableRef;
use crate::value::Value;
use myriad_storage as st;
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
        VirtualRows::Tables => tables(env, &narrow)?,
        VirtualRows::Columns => per_table(env, &narrow, column_rows)?,
        VirtualRows::Statistics => per_table(env, &narrow, statistics_rows)?,
        VirtualRows::TableConstraints => per_table(env, &narrow, constraint_rows)?,
        VirtualRows::KeyColumnUsage => per_table(env, &narrow, key_column_rows)?,
        VirtualRows::Processlist => processlist(env),
        VirtualRows::GlobalVariables => variables(env, true),
        VirtualRows::SessionVariables => variables(env, false),
        VirtualRows::SystemVariables => system_variables(env),
        VirtualRows::GlobalStatus => status(env, true),
        VirtualRows::SessionStatus => status(env, false),
        VirtualRows::Engines => vec![crate::exec::admin::ENGINE_ROW
            .iter()
            .map(|s| text(s))
            .collect()],
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

fn text(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

fn grants(env: &ExecEnv) -> Arc<Grants> {
    env.state
        .grants
        .as_ref()
        .map_or_else(Default::default, |(_, g)| Arc::clone(g))
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
            if narrow.keeps_table(&name) && (grants.is_all() || grants.any_on_table(&db, &name)) {
                out.push((db.clone(), name));
            }
        }
    }
    Ok(out)
}

/// A table whose rows a per-table producer makes.
struct Described<'a> {
    db: &'a str,
    name: &'a str,
    def: &'a st::TableDef,
    /// The account's column privileges on it, as COLUMNS.PRIVILEGES lists them.
    privileges: &'a str,
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
            let privileges = column_privileges(&grants, &db, &name);
            let table = Described {
                db: &db,
                name: &name,
                def: &def,
                privileges: &privileges,
            };
            each(&table, &mut rows);
        }
    }
    if narrow.keeps_schema(SCHEMA) {
        for (i, t) in TABLES.iter().enumerate() {
            if narrow.keeps_table(t.name) {
                let def = crate::plan::info_schema::definition(i)?;
                let table = Described {
                    db: SCHEMA,
                    name: t.name,
                    def: &def,
                    privileges: "select",
                };
                each(&table, &mut rows);
            }
        }
    }
    Ok(rows)
}

/// The column privileges the account holds on a table, in MariaDB's words and order.
fn column_privileges(grants: &Grants, db: &str, table: &str) -> String {
    use crate::catalog::privileges::Privs;
    let held = match grants.is_all() {
        true => Privs::SELECT
            .union(Privs::INSERT)
            .union(Privs::UPDATE)
            .union(Privs::REFERENCES),
        false => grants.on_table(db, table),
    };
    [
        (Privs::SELECT, "select"),
        (Privs::INSERT, "insert"),
        (Privs::UPDATE, "update"),
        (Privs::REFERENCES, "references"),
    ]
    .iter()
    .filter(|(p, _)| held.contains(*p))
    .map(|(_, name)| *name)
    .collect::<Vec<_>>()
    .join(",")
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
        let count = table.row_count().ok();
        let data = table.data_length().ok();
        let average = match (count, data) {
            (Some(n), Some(d)) if n > 0 => Value::UInt(d / n),
            _ => Value::UInt(0),
        };
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
            average,
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

/// COLUMNS: a row per column.
fn column_rows(t: &Described, rows: &mut Vec<st::Row>) {
    let (db, name, def) = (t.db, t.name, t.def);
    for (i, c) in def.columns.iter().enumerate() {
        let facts = TypeFacts::of(&c.ty);
        let number = |v: Option<u64>| v.map_or(Value::Null, Value::UInt);
        let full = type_text(&c.ty);
        let data_type = full.split(['(', ' ']).next().unwrap_or("").to_string();
        let (charset, collation) = match c.ty.string_collation() {
            Some(st::Collation::Binary) | None => (Value::Null, Value::Null),
            Some(collation) => (text("utf8mb4"), text(collation.name())),
        };
        rows.push(vec![
            text("def"),
            text(db),
            text(name),
            text(&c.name),
            Value::UInt(i as u64 + 1),
            column_default(c),
            text(if c.nullable { "YES" } else { "NO" }),
            text(&data_type),
            number(facts.char_length),
            number(facts.octet_length),
            number(facts.precision),
            number(facts.scale),
            number(facts.datetime_precision),
            charset,
            collation,
            text(&full),
            text(key_text(def, i)),
            text(&extra_text(c)),
            text(t.privileges),
            text(&c.comment),
            text("NEVER"),
            Value::Null,
        ]);
    }
}

/// COLUMN_DEFAULT as MariaDB writes it: a literal as SQL (strings and temporal values
/// quoted), `NULL` (the text) for a nullable column without one, SQL NULL for a NOT NULL
/// column without one, CURRENT_TIMESTAMP as the function.
fn column_default(c: &st::ColumnDef) -> Value {
    if c.auto_increment {
        return Value::Null;
    }
    let Some(shown) = default_text(c) else {
        return if c.nullable {
            text("NULL")
        } else {
            Value::Null
        };
    };
    if c.default_now {
        return text(&shown);
    }
    let quoted = c.ty.is_string()
        || matches!(
            c.ty,
            st::ColumnType::Date
                | st::ColumnType::DateTime { .. }
                | st::ColumnType::Timestamp { .. }
        );
    match quoted {
        true => text(&format!("'{}'", shown.replace('\'', "''"))),
        false => text(&shown),
    }
}

/// The numeric facts COLUMNS gives of a type.
#[derive(Default)]
struct TypeFacts {
    char_length: Option<u64>,
    octet_length: Option<u64>,
    precision: Option<u64>,
    scale: Option<u64>,
    datetime_precision: Option<u64>,
}

impl TypeFacts {
    fn of(ty: &st::ColumnType) -> TypeFacts {
        use st::ColumnType as T;
        let chars = |len: u64, binary: bool| TypeFacts {
            char_length: Some(len),
            octet_length: Some(if binary { len } else { len * 4 }),
            ..Default::default()
        };
        let numeric = |precision: u64, scale: Option<u64>| TypeFacts {
            precision: Some(precision),
            scale,
            ..Default::default()
        };
        match ty {
            T::Int { width, unsigned } => {
                let digits = match (width, unsigned) {
                    (st::IntWidth::Tiny, _) => 3,
                    (st::IntWidth::Small, _) => 5,
                    (st::IntWidth::Medium, _) => 7,
                    (st::IntWidth::Int, _) => 10,
                    (st::IntWidth::Big, true) => 20,
                    (st::IntWidth::Big, false) => 19,
                };
                numeric(digits, Some(0))
            }
            T::Decimal { precision, scale } => {
                numeric(u64::from(*precision), Some(u64::from(*scale)))
            }
            T::Float => numeric(12, None),
            T::Double => numeric(22, None),
            T::Char { len, collation } | T::Varchar { len, collation } => {
                chars(u64::from(*len), *collation == st::Collation::Binary)
            }
            T::Text { size, .. } => chars(size.max_bytes(), true),
            T::Blob { size } => chars(size.max_bytes(), true),
            T::Date => TypeFacts::default(),
            T::DateTime { fsp } | T::Timestamp { fsp } => TypeFacts {
                datetime_precision: Some(u64::from(*fsp)),
                ..Default::default()
            },
        }
    }
}

/// STATISTICS: a row per column of each index.
fn statistics_rows(t: &Described, rows: &mut Vec<st::Row>) {
    let (db, name, def) = (t.db, t.name, t.def);
    for ix in &def.indexes {
        for (seq, &c) in ix.columns.iter().enumerate() {
            let column = &def.columns[c];
            rows.push(vec![
                text("def"),
                text(db),
                text(name),
                Value::UInt(u64::from(!ix.is_unique())),
                text(db),
                text(&ix.name),
                Value::UInt(seq as u64 + 1),
                text(&column.name),
                text("A"),
                Value::UInt(0),
                Value::Null,
                Value::Null,
                text(if column.nullable { "YES" } else { "" }),
                text("BTREE"),
                text(""),
                text(""),
                text("NO"),
            ]);
        }
    }
}

/// TABLE_CONSTRAINTS: the primary key and each unique key.
fn constraint_rows(t: &Described, rows: &mut Vec<st::Row>) {
    let (db, name, def) = (t.db, t.name, t.def);
    for ix in def.indexes.iter().filter(|ix| ix.is_unique()) {
        let kind = match ix.kind {
            st::IndexKind::Primary => "PRIMARY KEY",
            _ => "UNIQUE",
        };
        rows.push(vec![
            text("def"),
            text(db),
            text(&ix.name),
            text(db),
            text(name),
            text(kind),
        ]);
    }
}

/// KEY_COLUMN_USAGE: each column of the primary key and of each unique key.
fn key_column_rows(t: &Described, rows: &mut Vec<st::Row>) {
    let (db, name, def) = (t.db, t.name, t.def);
    for ix in def.indexes.iter().filter(|ix| ix.is_unique()) {
        for (seq, &c) in ix.columns.iter().enumerate() {
            let mut row = vec![text("def"), text(db), text(&ix.name), text("def")];
            row.extend([text(db), text(name), text(&def.columns[c].name)]);
            row.push(Value::UInt(seq as u64 + 1));
            row.extend(std::iter::repeat_n(Value::Null, 4));
            rows.push(row);
        }
    }
}

/// PROCESSLIST: the sessions the account may see. myriad keeps no statement texts, so
/// INFO (and INFO_BINARY) is NULL, as SHOW PROCESSLIST shows other sessions'.
fn processlist(env: &ExecEnv) -> Vec<st::Row> {
    let process = grants(env)
        .global
        .contains(crate::catalog::privileges::Privs::PROCESS);
    env.engine
        .sessions
        .list(&env.info.user, grants(env).is_all() || process)
        .into_iter()
        .map(|v| {
            let own = v.connection_id == env.info.connection_id;
            let micros = u64::try_from(v.for_time.as_micros()).unwrap_or(u64::MAX);
            let time_ms = myriad_types::decimal::Decimal::from_i128_scaled(i128::from(micros), 3)
                .map_or(Value::Null, Value::Decimal);
            let state = match (own, v.busy) {
                (true, _) => "Filling schema table",
                (false, true) => "executing",
                (false, false) => "",
            };
            vec![
                Value::UInt(u64::from(v.connection_id)),
                text(&v.owner.user),
                text(&v.owner.host),
                v.owner.database.as_deref().map_or(Value::Null, text),
                text(if v.busy || own { "Query" } else { "Sleep" }),
                Value::Int(i64::try_from(v.for_time.as_secs()).unwrap_or(i64::MAX)),
                text(state),
                Value::Null,
                time_ms,
                Value::UInt(0),
                Value::UInt(0),
                myriad_types::decimal::Decimal::from_i128_scaled(0, 3)
                    .map_or(Value::Null, Value::Decimal),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Null,
                Value::Int(0),
            ]
        })
        .collect()
}

/// GLOBAL_VARIABLES / SESSION_VARIABLES: upper-case names, values as SHOW VARIABLES.
fn variables(env: &ExecEnv, global: bool) -> Vec<st::Row> {
    crate::exec::show::variable_pairs(env, global)
        .into_iter()
        .map(|(name, value)| vec![text(&name.to_ascii_uppercase()), value])
        .collect()
}

/// SYSTEM_VARIABLES: each variable's values, default, scope, type, range and help.
fn system_variables(env: &ExecEnv) -> Vec<st::Row> {
    use crate::system::sysvars::{Kind, Scope, DEFINITIONS};
    let globals = Arc::clone(&env.engine.globals.read());
    let defaults = crate::system::sysvars::defaults();
    let shown = |v: &crate::system::sysvars::VarValue, def| {
        v.display(def).map_or(Value::Null, |t| text(&t))
    };
    let number = |n: String| text(&n);
    // In DEFINITIONS order, one per variable.
    let session_values: Vec<Value> = crate::exec::show::variable_pairs(env, false)
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    DEFINITIONS
        .iter()
        .enumerate()
        .map(|(i, def)| {
            // As SHOW SESSION VARIABLES shows it (the clock, counts of the last statement).
            let session = match def.scope {
                Scope::Global => Value::Null,
                _ => session_values.get(i).cloned().unwrap_or(Value::Null),
            };
            let global = match def.scope {
                Scope::Session => Value::Null,
                _ => shown(&globals[i], def),
            };
            let origin = match def.scope != Scope::Session && globals[i] != defaults[i] {
                true => "SQL",
                false => "COMPILE-TIME",
            };
            let (ty, min, max, block, list) = match def.kind {
                Kind::Bool => ("BOOLEAN", None, None, None, Some("OFF,ON".to_string())),
                Kind::UInt { min, max, block } => (
                    "BIGINT UNSIGNED",
                    Some(min.to_string()),
                    Some(max.to_string()),
                    Some(block.to_string()),
                    None,
                ),
                Kind::Int { min, max } => (
                    "BIGINT",
                    Some(min.to_string()),
                    Some(max.to_string()),
                    Some("1".to_string()),
                    None,
                ),
                Kind::Double { min, max } => (
                    "DOUBLE",
                    Some(format!("{min}")),
                    Some(format!("{max}")),
                    None,
                    None,
                ),
                Kind::Str { .. } => ("VARCHAR", None, None, None, None),
                Kind::Enum(names) => ("ENUM", None, None, None, Some(names.join(","))),
                Kind::Set(names) => ("SET", None, None, None, Some(names.join(","))),
                Kind::Flags(names) => (
                    "FLAGSET",
                    None,
                    None,
                    None,
                    Some(format!("{},default", names.join(","))),
                ),
                Kind::Charset { .. } | Kind::Collation => ("ENUM", None, None, None, None),
            };
            let optional = |v: Option<String>| v.map_or(Value::Null, number);
            vec![
                text(&def.name.to_ascii_uppercase()),
                session,
                global,
                text(origin),
                shown(&defaults[i], def),
                text(match def.scope {
                    Scope::Both => "SESSION",
                    Scope::Global => "GLOBAL",
                    Scope::Session => "SESSION ONLY",
                }),
                text(ty),
                text(def.help),
                optional(min),
                optional(max),
                optional(block),
                optional(list),
                text(if def.read_only { "YES" } else { "NO" }),
                match (def.scope, def.kind) {
                    (Scope::Session, _) => Value::Null,
                    (_, Kind::Bool) => text("OPTIONAL"),
                    _ => text("REQUIRED"),
                },
                Value::Null,
            ]
        })
        .collect()
}

/// GLOBAL_STATUS / SESSION_STATUS: upper-case names, values as text.
fn status(env: &ExecEnv, global: bool) -> Vec<st::Row> {
    crate::exec::show::status_pairs(env, global)
        .into_iter()
        .map(|(name, value)| vec![text(&name.to_ascii_uppercase()), text(&value.to_string())])
        .collect()
}

/// COLLATIONS, or with `applicability` COLLATION_CHARACTER_SET_APPLICABILITY.
fn collations(applicability: bool) -> Vec<st::Row> {
    crate::exec::admin::COLLATION_IDS
        .iter()
        .map(|(name, charset, id, default)| {
            let default = text(if *default { "Yes" } else { "" });
            match applicability {
                true => vec![
                    text(name),
                    text(charset),
                    text(name),
                    Value::UInt(*id),
                    default,
                ],
                false => vec![
                    text(name),
                    text(charset),
                    Value::UInt(*id),
                    default,
                    text("Yes"),
                    Value::UInt(1),
                ],
            }
        })
        .collect()
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
