//! UNION, INTERSECT and EXCEPT (each `ALL` or `DISTINCT`, the default).
//!
//! A query whose body is a set operation runs as `SELECT * FROM (<set operation>) AS
//! union_result` with the query's own ORDER BY and LIMIT: the set operation is a derived
//! table ([`crate::plan::derived`]) whose rows are made by running each SELECT and
//! combining their rows (`crate::exec::source`), so ORDER BY, LIMIT, an IN subquery or an
//! outer query over a UNION work as over any table.
//!
//! The result's columns are named after the first SELECT's. A column whose type is the
//! same in every SELECT keeps it; otherwise the types aggregate as CASE's branches do (a
//! number and a string give a string). Every row is converted to the result's types before
//! rows are compared, so `1` and `'1'` are one row under UNION DISTINCT. Operators of one
//! precedence apply left to right and INTERSECT binds tighter, as the parser builds the
//! tree; a DISTINCT operator removes duplicates from everything to its left as well.

use crate::error::SqlError;
use crate::expr::Compiler;
use crate::parser::source::SourceMap;
use crate::plan::{CompileCtx, Stmt};
use myriad_storage as st;
use myriad_types::errors::ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT;
use sqlparser::ast;
use std::sync::Arc;

/// The alias the result of a top-level set operation is read through.
pub const RESULT_ALIAS: &str = "union_result";

/// A compiled set operation.
#[derive(Debug, Clone)]
pub struct UnionPlan {
    pub node: SetNode,
    /// The result's columns.
    pub def: Arc<st::TableDef>,
}

/// One node of a set operation's tree.
#[derive(Debug, Clone)]
pub enum SetNode {
    /// A SELECT (or a parenthesized query, which may have its own ORDER BY and LIMIT).
    Query(Arc<Stmt>),
    Operation {
        op: SetOp,
        /// `ALL`: duplicates are kept (UNION) or counted (INTERSECT, EXCEPT).
        all: bool,
        left: Box<SetNode>,
        right: Box<SetNode>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOp {
    Union,
    Intersect,
    Except,
}

/// Whether `q` is a bare set operation (no ORDER BY, LIMIT or WITH of its own), which a
/// derived table compiles with `compile`.
pub fn is_bare_set_operation(q: &ast::Query) -> bool {
    matches!(q.body.as_ref(), ast::SetExpr::SetOperation { .. })
        && q.order_by.is_none()
        && q.limit_clause.is_none()
        && q.fetch.is_none()
        && q.with.is_none()
}

/// `q` (whose body is a set operation) as `SELECT * FROM (<body>) AS union_result` with
/// q's ORDER BY and LIMIT.
/// Clear `SQL_CALC_FOUND_ROWS` on the first SELECT of a set operation, where MariaDB takes
/// it for the whole result: whether it was there.
pub fn take_calc_found_rows(body: &mut ast::SetExpr) -> bool {
    match body {
        ast::SetExpr::SetOperation { left, .. } => take_calc_found_rows(left),
        ast::SetExpr::Query(q) => take_calc_found_rows(&mut q.body),
        ast::SetExpr::Select(select) => match select.select_modifiers.as_mut() {
            Some(m) if m.sql_calc_found_rows => {
                m.sql_calc_found_rows = false;
                true
            }
            _ => false,
        },
        _ => false,
    }
}

pub fn wrapped(q: &ast::Query) -> Result<ast::Query, SqlError> {
    let mut outer = parse_query(&format!("SELECT * FROM (SELECT 1) AS {RESULT_ALIAS}"))?;
    let mut inner = q.clone();
    inner.order_by = None;
    inner.limit_clause = None;
    inner.fetch = None;
    inner.locks.clear();
    if let ast::SetExpr::Select(select) = outer.body.as_mut() {
        if let Some(ast::TableFactor::Derived { subquery, .. }) =
            select.from.first_mut().map(|t| &mut t.relation)
        {
            **subquery = inner;
        }
    }
    outer.order_by = q.order_by.clone();
    outer.limit_clause = q.limit_clause.clone();
    outer.fetch = q.fetch.clone();
    outer.locks = q.locks.clone();
    Ok(outer)
}

pub(crate) fn parse_query(sql: &str) -> Result<ast::Query, SqlError> {
    let dialect = sqlparser::dialect::MySqlDialect {};
    let mut statements = sqlparser::parser::Parser::parse_sql(&dialect, sql)
        .map_err(|e| SqlError::new(myriad_types::errors::ER_UNKNOWN_ERROR, e.to_string()))?;
    match statements.pop() {
        Some(ast::Statement::Query(q)) => Ok(*q),
        _ => Err(SqlError::new(
            myriad_types::errors::ER_UNKNOWN_ERROR,
            "not a query",
        )),
    }
}

/// Compile a set operation's tree and the columns of its result.
pub(crate) fn compile(
    body: &ast::SetExpr,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<UnionPlan, SqlError> {
    let mut leaves = Vec::new();
    let node = compile_node(body, map, compiler, ctx, &mut leaves)?;
    let first = leaves
        .first()
        .ok_or_else(|| SqlError::not_supported("an empty UNION"))?;
    if leaves.iter().any(|l| l.len() != first.len()) {
        return Err(SqlError::new(
            ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
            "The used SELECT statements have a different number of columns",
        ));
    }
    let columns = (0..first.len())
        .map(|i| merged_column(leaves.iter().map(|l| &l[i])))
        .collect();
    Ok(UnionPlan {
        node,
        def: Arc::new(st::TableDef {
            columns,
            indexes: Vec::new(),
            options: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        }),
    })
}

fn compile_node(
    body: &ast::SetExpr,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
    leaves: &mut Vec<Vec<st::ColumnDef>>,
) -> Result<SetNode, SqlError> {
    crate::depth::check_stack()?;
    let query = |q: ast::Query, leaves: &mut Vec<Vec<st::ColumnDef>>| {
        let stmt = crate::plan::query::compile_subquery(&q, map, compiler, ctx)?;
        leaves.push(crate::plan::derived::result_columns(&stmt)?);
        Ok(SetNode::Query(Arc::new(stmt)))
    };
    match body {
        ast::SetExpr::Select(_) => {
            let mut q = parse_query("SELECT 1")?;
            q.body = Box::new(body.clone());
            query(q, leaves)
        }
        ast::SetExpr::Query(q) => query((**q).clone(), leaves),
        ast::SetExpr::SetOperation {
            left,
            op,
            set_quantifier,
            right,
        } => {
            let op = match op {
                ast::SetOperator::Union => SetOp::Union,
                ast::SetOperator::Intersect => SetOp::Intersect,
                ast::SetOperator::Except | ast::SetOperator::Minus => SetOp::Except,
            };
            let all = match set_quantifier {
                ast::SetQuantifier::All => true,
                ast::SetQuantifier::Distinct | ast::SetQuantifier::None => false,
                other => return Err(SqlError::not_supported(&format!("{op:?} {other}"))),
            };
            Ok(SetNode::Operation {
                op,
                all,
                left: Box::new(compile_node(left, map, compiler, ctx, leaves)?),
                right: Box::new(compile_node(right, map, compiler, ctx, leaves)?),
            })
        }
        _ => Err(SqlError::not_supported("this query in a set operation")),
    }
}

/// One result column from the same column of every SELECT: the first one's name, the
/// type they share, or their types aggregated.
fn merged_column<'a>(mut columns: impl Iterator<Item = &'a st::ColumnDef>) -> st::ColumnDef {
    let Some(first) = columns.next() else {
        return st::ColumnDef::new("", st::ColumnType::Double);
    };
    let rest: Vec<&st::ColumnDef> = columns.collect();
    let mut merged = first.clone();
    merged.auto_increment = false;
    merged.default = None;
    merged.default_now = false;
    merged.on_update_now = false;
    merged.nullable = true;
    if rest.iter().all(|c| c.ty == first.ty) {
        return merged;
    }
    // A column of NULLs takes the type of the others.
    let typed: Vec<&st::ColumnDef> = std::iter::once(first)
        .chain(rest.iter().copied())
        .filter(|c| c.ty != crate::plan::derived::NULL_COLUMN)
        .collect();
    if let Some(one) = typed
        .first()
        .filter(|one| typed.iter().all(|c| c.ty == one.ty))
    {
        merged.ty = one.ty.clone();
        return merged;
    }
    let types: Vec<_> = typed
        .iter()
        .map(|c| crate::plan::tables::sql_type_of(&c.ty))
        .collect();
    let collation = first.ty.string_collation().unwrap_or_default();
    let derived = crate::expr::collation::Derived::new(
        collation,
        crate::expr::collation::Derivation::Implicit,
    );
    let ty = crate::expr::arith::aggregate_type(&types);
    if let Ok(column) = crate::plan::derived::column(&first.name, ty, derived) {
        merged.ty = column.ty;
    }
    merged
}
