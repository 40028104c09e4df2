//! Derived tables: `FROM (SELECT ...) AS alias`. The query is compiled as an uncorrelated
//! subquery and the alias becomes a table whose columns are the query's result columns,
//! typed at compile time (a stored column keeps its exact type, an expression gets the
//! column type of its SQL type); the rows are the query's, made when the statement runs
//! (`crate::exec::source`) and kept in memory within the grouping budget. The outer
//! statement then reads it as any table: WHERE, joins, grouping, ORDER BY, LIMIT.
//!
//! A common table expression (`WITH name AS (SELECT ...) SELECT ... FROM name`) is a
//! derived table defined before the query: each reference to its name compiles its query
//! as a derived table, in the scope of the expressions defined before it.
//!
//! Not built (1235): LATERAL, a column list after the alias or the CTE name, WITH
//! RECURSIVE, derived tables as the target of UPDATE or DELETE.

use crate::error::SqlError;
use crate::expr::eval::SqlType;
use crate::expr::Compiler;
use crate::parser::source::SourceMap;
use crate::plan::tables::{Made, OutputItem, TableRef};
use crate::plan::{CompileCtx, Stmt};
use myriad_storage as st;
use myriad_types::errors::ER_DUP_FIELDNAME;
use sqlparser::ast;
use std::sync::Arc;

/// One common table expression, linked to those defined before it.
#[derive(Debug)]
pub struct Cte {
    pub name: String,
    /// `WITH name (a, b) AS ...`: the names of the query's columns (empty: its own).
    pub columns: Vec<String>,
    pub query: ast::Query,
    pub before: Option<Arc<Cte>>,
}

impl Cte {
    /// The expression of this name in scope at `scope` (the last defined wins).
    pub fn find(mut scope: Option<&Arc<Cte>>, name: &str) -> Option<Arc<Cte>> {
        while let Some(cte) = scope {
            if cte.name == name {
                return Some(Arc::clone(cte));
            }
            scope = cte.before.as_ref();
        }
        None
    }
}

/// `WITH ... q`: `q` compiled with the expressions of its WITH in scope.
pub(crate) fn with_ctes(
    q: &ast::Query,
    with: &ast::With,
    compile: &dyn Fn(&ast::Query, &Compiler, &CompileCtx) -> Result<Stmt, SqlError>,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    if with.recursive {
        return Err(SqlError::not_supported("WITH RECURSIVE"));
    }
    let mut scope = ctx.ctes.clone();
    for cte in &with.cte_tables {
        scope = Some(Arc::new(Cte {
            name: cte.alias.name.value.clone(),
            columns: cte
                .alias
                .columns
                .iter()
                .map(|c| c.name.value.clone())
                .collect(),
            query: (*cte.query).clone(),
            before: scope,
        }));
    }
    let inner = ctx.with_ctes(scope);
    let compiler = Compiler {
        ctx: Some(&inner),
        ..*compiler
    };
    let mut body = q.clone();
    body.with = None;
    compile(&body, &compiler, &inner)
}

/// The table reference of a FROM item naming the common table expression `cte`.
pub(crate) fn cte_ref(
    cte: &Cte,
    alias: Option<&ast::TableAlias>,
    (map, compiler): (&SourceMap, &Compiler),
    ctx: &CompileCtx,
) -> Result<TableRef, SqlError> {
    // Compiled in the scope where the expression was defined.
    let defined = ctx.with_ctes(cte.before.clone());
    let compiler = Compiler {
        ctx: Some(&defined),
        ..*compiler
    };
    let name = alias.map_or(cte.name.as_str(), |a| a.name.value.as_str());
    if alias.is_some_and(|a| !a.columns.is_empty()) {
        return Err(crate::expr::err_syntax(""));
    }
    let compile = (map, &compiler);
    let mut table = derived_ref(&cte.query, false, Some(name), false, compile, &defined)?;
    if !cte.columns.is_empty() {
        if cte.columns.len() != table.def.columns.len() {
            return Err(SqlError::new(
                myriad_types::errors::ER_WITH_COL_WRONG_LIST,
                "WITH column list and SELECT field list have different column counts",
            ));
        }
        let mut def = (*table.def).clone();
        for (c, name) in def.columns.iter_mut().zip(&cte.columns) {
            c.name.clone_from(name);
        }
        check_unique_names(&def.columns)?;
        table.def = Arc::new(def);
    }
    Ok(table)
}

/// The table reference of `(subquery) AS alias`.
pub(crate) fn derived_ref(
    subquery: &ast::Query,
    lateral: bool,
    alias: Option<&str>,
    has_columns: bool,
    (map, compiler): (&SourceMap, &Compiler),
    ctx: &CompileCtx,
) -> Result<TableRef, SqlError> {
    if lateral {
        return Err(SqlError::not_supported("LATERAL derived tables"));
    }
    // MariaDB's grammar wants the alias: without one the statement does not parse.
    let Some(alias) = alias else {
        return Err(crate::expr::err_syntax(""));
    };
    // Not in MariaDB 10.11's grammar either.
    if has_columns {
        return Err(crate::expr::err_syntax(""));
    }
    // A derived table cannot read the columns of a query it stands in (MariaDB: 1054).
    let compiler = &Compiler {
        outer: None,
        ..*compiler
    };
    let empty = crate::parser::source::RawStatement {
        tokens: Vec::new(),
        text: 0..0,
    };
    query_table(subquery, &empty, alias, (map, compiler), ctx)
}

/// The table of the rows of query `q` (a derived table's, a view's) named `alias`. `raw`
/// holds the query's tokens when it is a statement's whole text (a view's SELECT), where
/// unaliased items take their names from the text as written; else it is empty.
pub(crate) fn query_table(
    q: &ast::Query,
    raw: &crate::parser::source::RawStatement,
    alias: &str,
    (map, compiler): (&SourceMap, &Compiler),
    ctx: &CompileCtx,
) -> Result<TableRef, SqlError> {
    let (stmt, columns) = if crate::plan::union::is_bare_set_operation(q) {
        let plan = crate::plan::union::compile(&q.body, map, compiler, ctx)?;
        let columns = plan.def.columns.clone();
        (Stmt::Union(Box::new(plan)), columns)
    } else if raw.tokens.is_empty() {
        let stmt = crate::plan::query::compile_subquery(q, map, compiler, ctx)?;
        let columns = result_columns(&stmt)?;
        (stmt, columns)
    } else {
        let stmt = crate::plan::query::compile_query(q, raw, map, compiler, ctx)?;
        let columns = result_columns(&stmt)?;
        (stmt, columns)
    };
    check_unique_names(&columns)?;
    let name: Arc<str> = alias.into();
    Ok(TableRef {
        reads_as: None,
        database: "".into(),
        alias: Arc::clone(&name),
        name,
        def: Arc::new(st::TableDef {
            columns,
            indexes: Vec::new(),
            options: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        }),
        made: Some(Made::Query(Arc::new(stmt))),
    })
}

/// 1060 when two columns share a name (ignoring case, as column names compare).
pub(crate) fn check_unique_names(columns: &[st::ColumnDef]) -> Result<(), SqlError> {
    match st::first_repeated_name(columns, |c| &c.name) {
        Some(c) => Err(SqlError::new(
            ER_DUP_FIELDNAME,
            format!("Duplicate column name '{}'", c.name),
        )),
        None => Ok(()),
    }
}

/// A query's result columns as table columns.
pub(crate) fn result_columns(stmt: &Stmt) -> Result<Vec<st::ColumnDef>, SqlError> {
    let mut warnings = Vec::new();
    let env = crate::expr::text::ConstEnv::folding(&mut warnings);
    Ok(match stmt {
        Stmt::Select(plan) => plan
            .items
            .iter()
            .map(|i| column(&i.name, i.expr.sql_type(&env, &[]), i.expr.collation(&[])))
            .collect::<Result<_, _>>()?,
        Stmt::SelectTable(plan) => {
            let (types, _) = plan.input_types(&env);
            let mut stored: Vec<&st::ColumnDef> = plan.source.table.def.columns.iter().collect();
            for j in &plan.joins {
                stored.extend(j.table.def.columns.iter());
            }
            plan.items
                .iter()
                .map(|item| match item {
                    // A stored column keeps its exact type.
                    OutputItem::Column { index, name } if *index < stored.len() => {
                        let mut c = stored[*index].clone();
                        c.name.clone_from(name);
                        // As MariaDB: no AUTO_INCREMENT, and a NOT NULL one defaults to 0.
                        if c.auto_increment && !c.nullable && c.default.is_none() {
                            c.default = Some(match c.ty {
                                st::ColumnType::Int { unsigned: true, .. } => st::Value::UInt(0),
                                _ => st::Value::Int(0),
                            });
                        }
                        c.auto_increment = false;
                        Ok(c)
                    }
                    // Past the stored columns: an aggregate's value.
                    OutputItem::Column { index, name } => {
                        let collation = plan.collations.get(*index).copied().flatten();
                        column(
                            name,
                            types.get(*index).copied().unwrap_or(SqlType::Null),
                            crate::expr::collation::Derived::new(
                                collation.unwrap_or_default(),
                                crate::expr::collation::Derivation::Implicit,
                            ),
                        )
                    }
                    OutputItem::Expr { expr, name } => column(
                        name,
                        expr.sql_type(&env, &types),
                        expr.collation(&plan.collations),
                    ),
                })
                .collect::<Result<_, _>>()?
        }
        _ => return Err(SqlError::not_supported("this query as a derived table")),
    })
}

/// The type of a column that only holds NULL (`SELECT NULL`).
pub(crate) const NULL_COLUMN: st::ColumnType = st::ColumnType::Char {
    len: 0,
    collation: st::Collation::Binary,
};

/// The column an expression's result is kept in.
pub(crate) fn column(
    name: &str,
    ty: SqlType,
    collation: crate::expr::collation::Derived,
) -> Result<st::ColumnDef, SqlError> {
    let collation = collation.collation;
    let ty = match ty {
        // As MariaDB keeps a NULL column: CHAR(0) BINARY.
        SqlType::Null => NULL_COLUMN,
        SqlType::Int { unsigned, len } => st::ColumnType::Int {
            width: if len <= 11 {
                st::IntWidth::Int
            } else {
                st::IntWidth::Big
            },
            unsigned,
        },
        SqlType::Decimal { precision, scale } => st::ColumnType::Decimal {
            precision: precision.min(65) as u8,
            scale: scale.min(38) as u8,
        },
        SqlType::Double => st::ColumnType::Double,
        SqlType::Str { chars } if chars <= 16_383 => st::ColumnType::Varchar {
            len: chars,
            collation,
        },
        SqlType::Str { .. } if collation == st::Collation::Binary => st::ColumnType::Blob {
            size: st::LobSize::Long,
        },
        SqlType::Str { .. } => st::ColumnType::Text {
            collation,
            size: st::LobSize::Long,
        },
        SqlType::Date => st::ColumnType::Date,
        SqlType::DateTime { fsp } => st::ColumnType::DateTime { fsp },
        SqlType::Time { fsp } => st::ColumnType::Time { fsp },
    };
    Ok(st::ColumnDef::new(name, ty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expression_types_become_column_types() {
        let derived = crate::expr::collation::Derived::new(
            st::Collation::Utf8mb4GeneralCi,
            crate::expr::collation::Derivation::Implicit,
        );
        let c = column(
            "a",
            SqlType::Int {
                unsigned: false,
                len: 1,
            },
            derived,
        )
        .unwrap();
        assert!(matches!(
            c.ty,
            st::ColumnType::Int {
                width: st::IntWidth::Int,
                ..
            }
        ));
        let c = column(
            "a",
            SqlType::Int {
                unsigned: false,
                len: 21,
            },
            derived,
        )
        .unwrap();
        assert!(matches!(
            c.ty,
            st::ColumnType::Int {
                width: st::IntWidth::Big,
                ..
            }
        ));
        let c = column("a", SqlType::Str { chars: 100_000 }, derived).unwrap();
        assert!(matches!(c.ty, st::ColumnType::Text { .. }));
    }
}
