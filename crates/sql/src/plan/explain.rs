//! EXPLAIN: MariaDB's tabular plan (id, select_type, table, type, possible_keys, key,
//! key_len, ref, rows, Extra), read off the compiled statement the executor would run.
//!
//! `EXPLAIN SELECT ...` compiles the SELECT exactly as the SELECT itself would be compiled
//! and keeps that [`Stmt`]; executing the EXPLAIN describes it, one row per table in the
//! order the executor reads them (FROM order: myriad does not reorder joins). Nothing here
//! chooses an access path: the rows name what [`crate::plan::access::choose_access`] and
//! `join_lookup` (exec::read) chose, and the only thing decided at EXPLAIN time is
//! what the executor itself decides when it starts reading, namely whether the index path
//! can be taken at all (a value that is no exact key of its column makes the read a full
//! scan, see `crate::exec::read::index_rows`) and whether the index range alone answers
//! the WHERE clause (`crate::exec::read::range_is_the_filter`).
//!
//! How our access paths map to MariaDB's `type`:
//!
//! | plan                                                      | type   | ref          |
//! |-----------------------------------------------------------|--------|--------------|
//! | `Access::Full`                                            | ALL    | NULL         |
//! | every part of a primary or unique key equal to a constant | const  | const,...    |
//! | equality on a prefix of a key, or on a non-unique key     | ref    | const,...    |
//! | an IN list, a range or ORed ranges after an equal prefix  | range  | NULL         |
//! | join step looked up by a single-column unique key         | eq_ref | db.tbl.col   |
//! | join step looked up by the first column of another key    | ref    | db.tbl.col   |
//! | join step without a lookup                                | ALL    | NULL         |
//!
//! `index` (a full index scan) never appears: the executor has no such path, and reads the
//! table instead. `rows` is an estimate: 1 for const and eq_ref, the length of the IN list
//! on a whole unique key, and otherwise the table's row count (storage keeps it exactly;
//! there are no index statistics), so it often differs from MariaDB's.
//!
//! `Extra` says what the executor does: `Using where` where the WHERE (or ON) condition is
//! evaluated on the rows read, `Using temporary` where rows are grouped or made distinct in
//! memory, `Using filesort` where they are sorted, `No tables used` and `Impossible WHERE`
//! for a SELECT without tables, `Zero limit` where LIMIT 0 stops a read before its first
//! row.
//!
//! EXPLAIN UPDATE and DELETE describe the single-table read the statement makes (and do
//! not run it), with MariaDB's names for such reads: a key read is `range`. EXPLAIN
//! EXTENDED, PARTITIONS and FORMAT=JSON, EXPLAIN of INSERT and REPLACE, and plans with
//! subqueries are refused with 1235 rather than described wrongly.

use crate::error::SqlError;
use crate::expr::{Compiler, Expr};
use crate::parser::source::{Cursor, RawStatement, SourceMap};
use crate::plan::tables::{OutputItem, RowSource, TableSelect};
use crate::plan::{CompileCtx, SelectPlan, Stmt};
use sqlparser::tokenizer::Token;

/// The words that may follow EXPLAIN (or DESCRIBE) for a statement's plan rather than a
/// table's columns.
pub(crate) fn is_explain_of_statement(next: Option<&str>) -> bool {
    matches!(
        next,
        Some(
            "SELECT"
                | "UPDATE"
                | "DELETE"
                | "INSERT"
                | "REPLACE"
                | "EXTENDED"
                | "PARTITIONS"
                | "FORMAT"
        )
    )
}

/// `EXPLAIN [FORMAT=TRADITIONAL] SELECT ...`, the cursor on EXPLAIN: the SELECT compiled as
/// it would be on its own, kept in [`Stmt::Explain`].
pub(crate) fn compile_explain(
    c: &mut Cursor,
    raw: &RawStatement,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    c.pos += 1;
    for option in ["EXTENDED", "PARTITIONS"] {
        if c.eat_word(option) {
            return Err(SqlError::not_supported(&format!("EXPLAIN {option}")));
        }
    }
    if c.eat_word("FORMAT") {
        if !c.eat_token(&Token::Eq) {
            return Err(c.error());
        }
        let format = c.name()?;
        if !format.eq_ignore_ascii_case("TRADITIONAL") {
            return Err(SqlError::not_supported(&format!(
                "EXPLAIN FORMAT={}",
                format.to_ascii_uppercase()
            )));
        }
    }
    match c.peek_word().as_deref() {
        Some("SELECT" | "UPDATE" | "DELETE") => {}
        Some(verb @ ("INSERT" | "REPLACE")) => {
            return Err(SqlError::not_supported(&format!("EXPLAIN {verb}")))
        }
        _ => return Err(c.error()),
    }
    if crate::plan::key_cache_parse::names_information_schema(c) {
        return Err(SqlError::not_supported(
            "EXPLAIN of information_schema tables",
        ));
    }
    let start = c.peek().map_or(raw.text.end, |t| {
        map.offset(t.span.start.line, t.span.start.column)
    });
    let inner = RawStatement {
        tokens: raw.tokens[c.pos..].to_vec(),
        text: start..raw.text.end,
    };
    let stmt = crate::plan::from_ast::parse_with_sqlparser(&inner, map, compiler, ctx)?;
    match &stmt {
        Stmt::SelectTable(plan) if !plan.windows.funcs.is_empty() => {
            // MariaDB's plan shows the window step's temporary table and sorts; myriad's
            // description does not have them yet.
            return Err(SqlError::not_supported("EXPLAIN of window functions"));
        }
        Stmt::Select(plan) if !select_has_subquery(plan) => {}
        Stmt::SelectTable(plan) if !table_select_has_subquery(plan) => {}
        Stmt::Update(plan)
            if !write_has_subquery(&plan.source, &plan.order_by, &plan.assignments) => {}
        Stmt::Delete(plan) if !write_has_subquery(&plan.source, &plan.order_by, &[]) => {}
        Stmt::Select(_) | Stmt::SelectTable(_) | Stmt::Update(_) | Stmt::Delete(_) => {
            return Err(SqlError::not_supported(
                "EXPLAIN of a query with subqueries",
            ))
        }
        _ => return Err(SqlError::not_supported("EXPLAIN of this statement")),
    }
    Ok(Stmt::Explain(Box::new(stmt)))
}

fn has_subquery(e: &Expr) -> bool {
    match e {
        Expr::Subquery(_)
        | Expr::InSubquery { .. }
        | Expr::Exists { .. }
        | Expr::RowSubquery { .. } => true,
        _ => !e.all_operands(|x| !has_subquery(x)),
    }
}

fn select_has_subquery(plan: &SelectPlan) -> bool {
    let mut exprs: Vec<&Expr> = plan.items.iter().map(|i| &i.expr).collect();
    exprs.extend(plan.filter.iter().chain(&plan.limit).chain(&plan.offset));
    exprs.into_iter().any(has_subquery)
}

fn table_select_has_subquery(plan: &TableSelect) -> bool {
    let mut exprs: Vec<&Expr> = Vec::new();
    for item in &plan.items {
        if let OutputItem::Expr { expr, .. } = item {
            exprs.push(expr);
        }
    }
    exprs.extend(plan.source.filter.iter().chain(&plan.post_filter));
    for j in &plan.joins {
        exprs.extend(j.on.iter().chain(j.lookup.as_ref().map(|(_, e)| e)));
    }
    exprs.extend(plan.order_by.iter().map(|(e, _)| e));
    exprs.extend(plan.windows.exprs());
    if let Some(g) = &plan.grouping {
        exprs.extend(g.keys.iter().chain(&g.having));
        exprs.extend(g.aggregates.iter().flat_map(|a| a.exprs()));
    }
    exprs.extend(plan.limit.iter().chain(&plan.offset));
    exprs.into_iter().any(has_subquery)
}

fn write_has_subquery(
    source: &RowSource,
    order_by: &[(Expr, bool)],
    assignments: &[(usize, Expr)],
) -> bool {
    source
        .filter
        .iter()
        .chain(order_by.iter().map(|(e, _)| e))
        .chain(assignments.iter().map(|(_, e)| e))
        .any(has_subquery)
}
