//! DROP VIEW: the views named are dropped (`exec::views`); for the names that are no view
//! it answers as MariaDB does: with IF EXISTS a note naming them, without it error 4092
//! (Unknown VIEW) once the others are dropped. A name that is a table is no view: with IF
//! EXISTS warning 1347 says so, and the table stays.

use crate::error::SqlError;
use crate::plan::Stmt;
use sqlparser::ast;

/// The plan of `DROP VIEW`; None for other statements.
pub fn plan(statement: &ast::Statement, database: Option<&str>) -> Option<Result<Stmt, SqlError>> {
    let ast::Statement::Drop {
        object_type: ast::ObjectType::View,
        if_exists,
        names,
        ..
    } = statement
    else {
        return None;
    };
    let names = names
        .iter()
        .map(|name| crate::plan::tables::resolve_name(name, database))
        .collect::<Result<Vec<_>, _>>();
    Some(names.map(|names| Stmt::DropViews {
        names,
        if_exists: *if_exists,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(sql: &str, database: Option<&str>) -> Option<Result<Stmt, SqlError>> {
        let dialect = sqlparser::dialect::MySqlDialect {};
        let statement = sqlparser::parser::Parser::parse_sql(&dialect, sql)
            .unwrap()
            .remove(0);
        plan(&statement, database)
    }

    #[test]
    fn names_take_the_current_database() {
        let Some(Ok(Stmt::DropViews { names, if_exists })) =
            planned("DROP VIEW IF EXISTS v1, other.v2", Some("db"))
        else {
            panic!("not a DropViews");
        };
        assert!(if_exists);
        assert_eq!(
            names,
            vec![
                ("db".to_string(), "v1".to_string()),
                ("other".to_string(), "v2".to_string())
            ]
        );
        let Some(Err(e)) = planned("DROP VIEW v1", None) else {
            panic!("planned without a database");
        };
        assert_eq!(e.code, 1046);
        assert!(planned("DROP TABLE t", Some("db")).is_none());
    }
}
