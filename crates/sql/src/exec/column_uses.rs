//! The columns of each table a compiled statement reads, for the column privileges of the
//! check before it runs (see [`super::privileges`]).
//!
//! The projection the executor computes (`exec::read::columns_read`) stops at subqueries
//! and joins and does not say which table a column is of, so this is its own walk over the
//! plan: every clause of every query, subqueries (with the columns of the enclosing query
//! a correlated one reads), derived tables, joins and unions. Columns are listed in the
//! order MariaDB checks them, so that the first one missing is the one its 1143 names: the
//! select list, the join conditions, WHERE, GROUP BY, HAVING, ORDER BY, then the rest.
//! Where the walk meets a form it does not know it answers None, and the check fails
//! closed (the table's privilege is needed).
//!
//! It runs only for an account that lacks a table's privilege and holds column privileges
//! on it: no other statement pays for it.

use crate::expr::{Expr, SubqueryPlan};
use crate::plan::tables::{Made, OutputItem, TableRef, TableSelect};
use crate::plan::union::SetNode;
use crate::plan::Stmt;
use myriad_storage::TableDef;
use std::sync::Arc;

/// A stored table a statement names.
#[derive(Debug)]
pub(crate) struct Table {
    database: Arc<str>,
    name: Arc<str>,
    pub def: Arc<TableDef>,
}

impl Table {
    /// None for a table that is not stored (derived, information_schema's); a view's
    /// columns are its own (SELECT on them is needed as on a table's).
    fn of(t: &TableRef) -> Option<Table> {
        (t.made.is_none() || t.is_view()).then(|| Table {
            database: Arc::clone(&t.database),
            name: Arc::clone(&t.name),
            def: Arc::clone(&t.def),
        })
    }

    fn is(&self, db: &str, table: &str) -> bool {
        &*self.database == db && self.name.eq_ignore_ascii_case(table)
    }
}

/// The columns a statement reads: each use as its table and column position, in
/// MariaDB's order, and the tables whose every column a `*` lists.
#[derive(Debug, Default)]
pub(crate) struct ColumnUses {
    reads: Vec<(Table, usize)>,
    wildcards: Vec<Table>,
}

impl ColumnUses {
    /// The names of the columns of `db`.`table` read, in order (repeats kept).
    pub fn columns_of(&self, db: &str, table: &str) -> Vec<&str> {
        self.reads
            .iter()
            .filter(|(t, _)| t.is(db, table))
            .filter_map(|(t, i)| t.def.columns.get(*i).map(|c| c.name.as_str()))
            .collect()
    }

    /// Every column of `db`.`table` when a `*` lists them all, else None.
    pub fn wildcard_on(&self, db: &str, table: &str) -> Option<Vec<&str>> {
        let t = self.wildcards.iter().find(|t| t.is(db, table))?;
        Some(t.def.columns.iter().map(|c| c.name.as_str()).collect())
    }
}

/// The columns `stmt` reads (a SELECT, a UNION, an INSERT's values, ON DUPLICATE KEY
/// UPDATE and query, an UPDATE's or DELETE's WHERE, new values and ORDER BY); None
/// where the walk cannot tell.
pub(crate) fn column_uses(stmt: &Stmt) -> Option<ColumnUses> {
    let mut uses = ColumnUses::default();
    walk_stmt(stmt, &mut uses).then_some(uses)
}

/// One query's tables, by their first column's position in its row.
struct Scope<'p> {
    tables: Vec<(&'p TableRef, usize)>,
    /// Where a grouped query's aggregate values start in its rows, and the aggregates.
    aggregates: Option<(usize, &'p crate::plan::tables::Grouping)>,
}

impl<'p> Scope<'p> {
    fn of_table(table: &'p TableRef) -> Scope<'p> {
        Scope {
            tables: vec![(table, 0)],
            aggregates: None,
        }
    }

    fn width(&self) -> usize {
        self.tables
            .last()
            .map_or(0, |(t, offset)| offset + t.def.columns.len())
    }

    /// Note the row's column `i`: a table's column, or an aggregate whose arguments are
    /// read.
    fn note(&self, i: usize, uses: &mut ColumnUses) -> bool {
        if let Some((t, offset)) = self.tables.iter().rev().find(|(_, o)| *o <= i) {
            if i < offset + t.def.columns.len() {
                uses.reads.extend(Table::of(t).map(|t| (t, i - offset)));
                return true;
            }
        }
        match self.aggregates {
            Some((first, g)) if i >= first => match g.aggregates.get(i - first) {
                Some(a) => a.exprs().all(|e| walk_expr(e, self, uses)),
                // A window function's value: its arguments are walked with the windows.
                None => true,
            },
            _ => true,
        }
    }
}

fn walk_stmt(stmt: &Stmt, uses: &mut ColumnUses) -> bool {
    let none = Scope {
        tables: Vec::new(),
        aggregates: None,
    };
    match stmt {
        Stmt::SelectTable(plan) => walk_select(plan, uses),
        Stmt::Select(plan) => {
            let exprs = plan.items.iter().map(|i| &i.expr);
            exprs
                .chain(plan.filter.iter())
                .all(|e| walk_expr(e, &none, uses))
        }
        Stmt::Union(plan) => walk_set(&plan.node, uses),
        Stmt::Explain(inner) => walk_stmt(inner, uses),
        Stmt::SelectInto(into) => walk_stmt(&into.query, uses),
        Stmt::Insert(p) => {
            // ON DUPLICATE KEY UPDATE reads the existing row (the new one follows it).
            let existing = Scope::of_table(&p.table);
            let values = p.rows.iter().flatten().flatten();
            values.into_iter().all(|e| walk_expr(e, &none, uses))
                && p.on_duplicate
                    .iter()
                    .flatten()
                    .all(|(_, e)| walk_expr(e, &existing, uses))
                && p.select
                    .as_ref()
                    .is_none_or(|q| walk_query(q.as_ref(), uses))
        }
        Stmt::Update(p) => {
            let scope = Scope::of_table(&p.source.table);
            let exprs = p.source.filter.iter();
            let exprs = exprs.chain(p.assignments.iter().map(|(_, e)| e));
            exprs
                .chain(p.order_by.iter().map(|(e, _)| e))
                .all(|e| walk_expr(e, &scope, uses))
        }
        Stmt::Delete(p) => {
            let scope = Scope::of_table(&p.source.table);
            p.source
                .filter
                .iter()
                .chain(p.order_by.iter().map(|(e, _)| e))
                .all(|e| walk_expr(e, &scope, uses))
        }
        _ => false,
    }
}

fn walk_set(node: &SetNode, uses: &mut ColumnUses) -> bool {
    match node {
        SetNode::Query(stmt) => walk_stmt(stmt, uses),
        SetNode::Operation { left, right, .. } => walk_set(left, uses) && walk_set(right, uses),
    }
}

fn walk_query(query: &dyn SubqueryPlan, uses: &mut ColumnUses) -> bool {
    Stmt::of_subquery(query).is_some_and(|stmt| walk_stmt(stmt, uses))
}

fn walk_select(plan: &TableSelect, uses: &mut ColumnUses) -> bool {
    let mut tables = vec![(&plan.source.table, 0)];
    tables.extend(plan.joins.iter().map(|j| (&j.table, j.offset)));
    for (t, _) in &tables {
        if let Some(Made::Query(q)) = &t.made {
            if !walk_query(q.as_ref(), uses) {
                return false;
            }
        }
    }
    for &n in &plan.wildcards {
        uses.wildcards
            .extend(tables.get(n).and_then(|(t, _)| Table::of(t)));
    }
    let mut scope = Scope {
        tables,
        aggregates: None,
    };
    scope.aggregates = plan.grouping.as_ref().map(|g| (scope.width(), g));
    let scope = scope;
    for item in &plan.items {
        let walked = match item {
            OutputItem::Column { index, .. } => scope.note(*index, uses),
            OutputItem::Expr { expr, .. } => walk_expr(expr, &scope, uses),
        };
        if !walked {
            return false;
        }
    }
    // A join's lookup key comes from its ON or the WHERE, both walked below.
    let mut exprs: Vec<&Expr> = plan.joins.iter().filter_map(|j| j.on.as_ref()).collect();
    exprs.extend(plan.source.filter.as_ref());
    exprs.extend(plan.post_filter.as_ref());
    if let Some(g) = &plan.grouping {
        exprs.extend(g.keys.iter());
        exprs.extend(g.having.as_ref());
    }
    exprs.extend(plan.order_by.iter().map(|(e, _)| e));
    exprs.extend(plan.windows.exprs());
    if let Some(g) = &plan.grouping {
        exprs.extend(g.aggregates.iter().flat_map(|a| a.exprs()));
    }
    exprs.extend(plan.limit.as_ref());
    exprs.extend(plan.offset.as_ref());
    exprs.into_iter().all(|e| walk_expr(e, &scope, uses))
}

fn walk_expr(e: &Expr, scope: &Scope, uses: &mut ColumnUses) -> bool {
    match e {
        Expr::Column(i) => scope.note(*i, uses),
        Expr::Subquery(q) | Expr::Exists { query: q, .. } => walk_subquery(q.as_ref(), scope, uses),
        Expr::InSubquery { expr, query, .. } => {
            walk_expr(expr, scope, uses) && walk_subquery(query.as_ref(), scope, uses)
        }
        _ => e.all_operands(|x| walk_expr(x, scope, uses)),
    }
}

/// A subquery: the columns of the enclosing query it reads, then its own.
fn walk_subquery(query: &dyn SubqueryPlan, scope: &Scope, uses: &mut ColumnUses) -> bool {
    for outer in query.outer_columns() {
        // A column further out is among the enclosing query's own outer columns.
        if let Some(i) = outer.column() {
            if !scope.note(i, uses) {
                return false;
            }
        }
    }
    walk_query(query, uses)
}

#[cfg(test)]
mod tests {
    use crate::{Engine, EngineConfig, Session, SessionInfo};
    use std::sync::Arc;

    fn session(engine: &Arc<Engine>, user: &str) -> Session {
        let info = SessionInfo {
            connection_id: 7,
            user: user.into(),
            host: "localhost".into(),
            database: None,
            interactive: false,
            tls: None,
            handles_expired_password: false,
        };
        engine.new_session(info).expect("session")
    }

    /// The error of `sql` as `code: column` (the column its 1143 names), or "ok".
    fn outcome(s: &mut Session, sql: &str) -> String {
        match s.execute(sql, false).remove(0) {
            Ok(_) => "ok".into(),
            Err(e) => {
                let column = e.message.split("for column '").nth(1);
                let column = column.and_then(|c| c.split('\'').next()).unwrap_or("");
                format!("{}: {column}", e.code)
            }
        }
    }

    #[test]
    fn the_first_column_missing_is_named_in_mariadbs_order() {
        let dir = tempfile::tempdir().expect("temp datadir");
        let config = EngineConfig {
            datadir: dir.path().to_path_buf(),
            variables: Vec::new(),
        };
        let engine = Engine::open(config).expect("engine opens");
        let mut root = session(&engine, "root");
        for sql in [
            "CREATE DATABASE app",
            "CREATE TABLE app.t (id INT PRIMARY KEY, a INT, b INT, c INT)",
            "CREATE TABLE app.u (id INT, x INT)",
            "CREATE USER u",
            "GRANT SELECT (id, a), UPDATE (b) ON app.t TO u",
            "GRANT SELECT ON app.u TO u",
        ] {
            assert_eq!(outcome(&mut root, sql), "ok", "{sql}");
        }
        let mut u = session(&engine, "u");
        for (sql, expected) in [
            ("SELECT id, a FROM app.t WHERE a > 0 ORDER BY id", "ok"),
            ("SELECT COUNT(*) FROM app.t", "ok"),
            ("SELECT c, b FROM app.t", "1143: c"),
            ("SELECT a FROM app.t WHERE b = 1 ORDER BY c", "1143: b"),
            (
                "SELECT a FROM app.t GROUP BY a HAVING MAX(c) > 0",
                "1143: c",
            ),
            (
                "SELECT x FROM app.u WHERE EXISTS (SELECT 1 FROM app.t WHERE t.a = u.x)",
                "ok",
            ),
            (
                "SELECT a FROM app.t WHERE EXISTS (SELECT 1 FROM app.u WHERE u.x = t.c)",
                "1143: c",
            ),
            ("SELECT d.a FROM (SELECT a, b FROM app.t) AS d", "1143: b"),
            ("SELECT a FROM app.t UNION SELECT c FROM app.t", "1143: c"),
            ("SELECT * FROM app.t", "1142: "),
            ("SELECT u.* FROM app.u JOIN app.t ON t.id = u.id", "ok"),
            ("UPDATE app.t SET b = a WHERE id = 1", "ok"),
            ("UPDATE app.t SET a = 1 WHERE c = 1", "1143: c"),
            ("UPDATE app.t SET a = 1", "1143: a"),
            ("DELETE FROM app.t WHERE id = 1", "1142: "),
            ("INSERT INTO app.t (id) VALUES (1)", "1142: "),
        ] {
            assert_eq!(outcome(&mut u, sql), expected, "{sql}");
        }
    }
}
