//! `information_schema` tables (and the `mysql` schema's account tables) as the compiler
//! sees them: one definition per table, made once from its column list in
//! [`crate::catalog::info_schema`] (or [`crate::catalog::mysql_schema`]), and the table
//! reference a FROM clause naming one gets. The reference carries the producer of the rows
//! ([`TableRef::made`]); execution makes them when the statement runs
//! (`crate::exec::source`).

use crate::catalog::info_schema::{self as spec, TABLES};
use crate::error::SqlError;
use crate::plan::tables::TableRef;
use myriad_storage as st;
use myriad_types::errors::{ER_NOT_SUPPORTED_YET, ER_UNKNOWN_ERROR, ER_UNKNOWN_TABLE};
use sqlparser::ast;
use std::sync::{Arc, OnceLock};

/// The schema's name as MariaDB shows it.
pub const SCHEMA: &str = "information_schema";

/// Whether `db` names `information_schema` (in any case, as MariaDB takes it).
pub fn is_schema(db: &str) -> bool {
    db.eq_ignore_ascii_case(SCHEMA)
}

/// The reference to `information_schema.<name>`: 1109 for a name MariaDB does not know,
/// 1235 for one of MariaDB's tables that myriad does not fill.
pub fn table_ref(name: &str, alias: Option<&str>) -> Result<TableRef, SqlError> {
    let Some(index) = spec::find(name) else {
        if spec::is_not_built(name) {
            return Err(SqlError::new(
                ER_NOT_SUPPORTED_YET,
                format!(
                    "This version of myriad doesn't yet support 'information_schema.{}'",
                    name.to_ascii_uppercase()
                ),
            ));
        }
        return Err(SqlError::new(
            ER_UNKNOWN_TABLE,
            format!("Unknown table '{name}' in information_schema"),
        ));
    };
    let table = &TABLES[index];
    let def = definition(index)?;
    // MariaDB shows the name as the statement wrote it.
    let name: Arc<str> = name.into();
    Ok(TableRef {
        reads_as: None,
        database: SCHEMA.into(),
        alias: alias.map_or_else(|| Arc::clone(&name), Into::into),
        name,
        def,
        made: Some(crate::plan::tables::Made::InfoSchema(table.rows)),
    })
}

/// The definition of `TABLES[index]`, made at its first use.
pub fn definition(index: usize) -> Result<Arc<st::TableDef>, SqlError> {
    static DEFS: OnceLock<Vec<Option<Arc<st::TableDef>>>> = OnceLock::new();
    made_definition(TABLES, &DEFS, SCHEMA, index)
}

/// The definition of `list[index]`, the list's definitions made at the first use of one.
fn made_definition(
    list: &'static [spec::VirtualTable],
    defs: &'static OnceLock<Vec<Option<Arc<st::TableDef>>>>,
    schema: &str,
    index: usize,
) -> Result<Arc<st::TableDef>, SqlError> {
    let defs = defs.get_or_init(|| {
        list.iter()
            .map(|t| parse_columns(t.columns).ok().map(Arc::new))
            .collect()
    });
    defs[index].clone().ok_or_else(|| {
        SqlError::new(
            ER_UNKNOWN_ERROR,
            format!(
                "{schema}.{} has a column list the server cannot read",
                list[index].name
            ),
        )
    })
}

/// The reference to `mysql.<name>` when it is one of the account tables; 1235 for
/// MariaDB's other tables of the schema; None for a name MariaDB does not have (the caller
/// answers 1146).
pub fn mysql_table_ref(name: &str, alias: Option<&str>) -> Result<Option<TableRef>, SqlError> {
    use crate::catalog::mysql_schema as mysql;
    static DEFS: OnceLock<Vec<Option<Arc<st::TableDef>>>> = OnceLock::new();
    let Some(index) = mysql::find(name) else {
        if mysql::is_not_built(name) {
            return Err(SqlError::new(
                ER_NOT_SUPPORTED_YET,
                format!("This version of myriad doesn't yet support 'mysql.{name}'"),
            ));
        }
        return Ok(None);
    };
    let def = made_definition(mysql::TABLES, &DEFS, mysql::SCHEMA, index)?;
    let name: Arc<str> = name.into();
    Ok(Some(TableRef {
        reads_as: None,
        database: mysql::SCHEMA.into(),
        alias: alias.map_or_else(|| Arc::clone(&name), Into::into),
        name,
        def,
        made: Some(crate::plan::tables::Made::InfoSchema(
            mysql::TABLES[index].rows,
        )),
    }))
}

/// A table definition from a CREATE TABLE column list (`NAME type [NOT NULL], ...`).
fn parse_columns(columns: &str) -> Result<st::TableDef, SqlError> {
    let sql = format!("CREATE TABLE t ({columns})");
    let dialect = sqlparser::dialect::MySqlDialect {};
    let statements = sqlparser::parser::Parser::parse_sql(&dialect, &sql)
        .map_err(|e| SqlError::new(ER_UNKNOWN_ERROR, e.to_string()))?;
    let Some(ast::Statement::CreateTable(create)) = statements.first() else {
        return Err(SqlError::new(ER_UNKNOWN_ERROR, "not a column list"));
    };
    let mut out = Vec::with_capacity(create.columns.len());
    for c in &create.columns {
        let ty = crate::plan::table_def::column_type(&c.data_type, &c.name.value)?;
        let mut column = st::ColumnDef::new(&c.name.value, ty);
        column.nullable = !c
            .options
            .iter()
            .any(|o| matches!(o.option, ast::ColumnOption::NotNull));
        out.push(column);
    }
    Ok(st::TableDef {
        columns: out,
        indexes: Vec::new(),
        options: Vec::new(),
        checks: Vec::new(),
        foreign_keys: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_list_makes_a_definition() {
        for (i, t) in TABLES.iter().enumerate() {
            let def = definition(i).unwrap_or_else(|e| panic!("{}: {e:?}", t.name));
            let names = t.columns.matches(" NOT NULL").count();
            let not_null = def.columns.iter().filter(|c| !c.nullable).count();
            assert_eq!(not_null, names, "{}", t.name);
            def.validate().unwrap();
        }
    }

    #[test]
    fn every_mysql_account_table_makes_a_definition() {
        use crate::catalog::mysql_schema as mysql;
        for t in mysql::TABLES {
            let r = mysql_table_ref(t.name, None).unwrap().unwrap();
            let not_null = r.def.columns.iter().filter(|c| !c.nullable).count();
            assert_eq!(
                not_null,
                t.columns.matches(" NOT NULL").count(),
                "{}",
                t.name
            );
            assert!(!mysql::is_not_built(t.name));
        }
        assert_eq!(mysql_table_ref("tables_priv", None).unwrap_err().code, 1235);
        assert!(mysql_table_ref("no_such", None).unwrap().is_none());
    }

    #[test]
    fn the_tables_are_sorted_and_apart_from_the_unbuilt() {
        let names: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        for name in names {
            assert!(!spec::is_not_built(name), "{name}");
        }
    }

    #[test]
    fn unknown_and_unbuilt_names_answer_mariadb_codes() {
        assert_eq!(table_ref("no_such", None).unwrap_err().code, 1109);
        assert_eq!(table_ref("keywords", None).unwrap_err().code, 1235);
        assert_eq!(table_ref("INNODB_TRX", None).unwrap_err().code, 1235);
        let t = table_ref("tables", Some("t")).unwrap();
        assert_eq!(&*t.alias, "t");
        assert!(t.def.column_index("table_schema").is_some());
    }
}
