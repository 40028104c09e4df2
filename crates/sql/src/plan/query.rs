//! SELECT plans: the projection, WHERE, GROUP BY, ORDER BY and LIMIT of a query.

use crate::error::SqlError;
use crate::expr::err_syntax;
use crate::expr::ColumnScope;
use crate::expr::Compiler;
use crate::expr::Expr;
use crate::value::Value;
use myriad_types::errors::{ER_NO_TABLES_USED, ER_WRONG_USAGE};

use crate::parser::source::*;
use crate::plan::from_ast::*;
use crate::plan::*;
pub(crate) use aggregate_of::aggregate_of;
use from_clause::{coalesce, from_relations, join_steps, table_refs};
pub(crate) use item_name::{balanced_end, cut_item_name, item_name};
use select_list::{by_item, select_items, wildcard_tables};
use sqlparser::ast;

mod aggregate_of;
pub(crate) mod assignments;
mod dual;
mod found_rows;
mod from_clause;
pub(crate) mod group_concat;
mod having;
mod item_name;
mod select_list;
mod window;
pub(crate) mod zero_dates;

pub(crate) fn compile_query(
    q: &ast::Query,
    raw: &RawStatement,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    if let Some(with) = &q.with {
        let compile =
            |q: &ast::Query, c: &Compiler, x: &CompileCtx| compile_query(q, raw, map, c, x);
        return crate::plan::derived::with_ctes(q, with, &compile, compiler, ctx);
    }
    if let ast::SetExpr::SetOperation { .. } = q.body.as_ref() {
        // SQL_CALC_FOUND_ROWS of the first SELECT counts the whole result's rows: the
        // SELECT over the set operation's rows counts them.
        let mut q = q.clone();
        let calc = crate::plan::union::take_calc_found_rows(&mut q.body);
        let mut outer = crate::plan::union::wrapped(&q)?;
        if let (true, ast::SetExpr::Select(select)) = (calc, outer.body.as_mut()) {
            select
                .select_modifiers
                .get_or_insert_with(Default::default)
                .sql_calc_found_rows = true;
        }
        return compile_query(&outer, raw, map, compiler, ctx);
    }
    let ast::SetExpr::Select(select) = q.body.as_ref() else {
        return Err(SqlError::not_supported("this nested query"));
    };
    refuse_unbuilt(q, select)?;
    assignments::refuse_misplaced(q, select)?;
    let dual = match select.from.as_slice() {
        [] => true,
        [t] if t.joins.is_empty()
            && matches!(&t.relation, ast::TableFactor::Table { name, .. } if name.to_string().eq_ignore_ascii_case("DUAL")) =>
        {
            true
        }
        _ => false,
    };
    if !dual {
        return compile_table_select(q, select, raw, map, compiler, ctx);
    }
    let mut found = Vec::new();
    for item in &select.projection {
        if let ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } =
            item
        {
            if window::contains_window(e) {
                return Err(SqlError::not_supported("window functions without FROM"));
            }
            extract_aggregates(e, &mut found);
        }
    }
    if let Some(q) = dual::over_one_row(q, select, !found.is_empty(), compiler)? {
        let ast::SetExpr::Select(select) = q.body.as_ref() else {
            return Err(SqlError::not_supported("this query without tables"));
        };
        return compile_table_select(&q, select, raw, map, compiler, ctx);
    }
    let mut items = Vec::new();
    let texts = projection_texts(raw, map);
    for (position, item) in select.projection.iter().enumerate() {
        let (expr, name) = match item {
            ast::SelectItem::UnnamedExpr(e) => {
                let literal_name = matches!(e, ast::Expr::Value(v) if matches!(v.value, ast::Value::SingleQuotedString(_) | ast::Value::DoubleQuotedString(_) | ast::Value::Null));
                match texts.get(position) {
                    Some(text)
                        if texts.len() == select.projection.len()
                            && !literal_name
                            && !text.is_empty() =>
                    {
                        (e, cut_item_name(text.clone()))
                    }
                    _ => (e, item_name(e, map)),
                }
            }
            ast::SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.clone()),
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                return Err(SqlError::new(ER_NO_TABLES_USED, "No tables used"))
            }
            other => return Err(err_syntax(&other.to_string())),
        };
        items.push(SelectItem {
            name,
            expr: compiler.compile(expr)?,
        });
    }
    let filter = select
        .selection
        .as_ref()
        .map(|w| compiler.condition(w))
        .transpose()?;
    let (limit, offset, found_rows_window) = found_rows::window(select, limit_clause(q, compiler)?);
    Ok(Stmt::Select(SelectPlan {
        items,
        filter,
        limit,
        offset,
        found_rows_window,
    }))
}

/// Clauses the parser reads that myriad does not build: an error, never ignored.
fn refuse_unbuilt(q: &ast::Query, select: &ast::Select) -> Result<(), SqlError> {
    if let ast::GroupByExpr::Expressions(_, modifiers) = &select.group_by {
        if let Some(modifier) = modifiers.first() {
            return match (modifier, modifiers.len()) {
                (ast::GroupByWithModifier::Rollup, 1) if q.order_by.is_some() => {
                    Err(SqlError::new(
                        ER_WRONG_USAGE,
                        "Incorrect usage of CUBE/ROLLUP and ORDER BY",
                    ))
                }
                (ast::GroupByWithModifier::Rollup, 1) => Ok(()),
                // MariaDB's own answer to CUBE.
                (ast::GroupByWithModifier::Cube, _) => Err(SqlError::not_supported("CUBE")),
                _ => Err(SqlError::not_supported("this GROUP BY modifier")),
            };
        }
    }
    if select.qualify.is_some() {
        return Err(SqlError::not_supported("QUALIFY"));
    }
    if let Some(fetch) = &q.fetch {
        if fetch.with_ties || fetch.percent {
            return Err(SqlError::not_supported("FETCH ... WITH TIES or PERCENT"));
        }
        if matches!(
            &q.limit_clause,
            Some(ast::LimitClause::LimitOffset { limit: Some(_), .. })
                | Some(ast::LimitClause::OffsetCommaLimit { .. })
        ) {
            return Err(err_syntax("FETCH"));
        }
    }
    Ok(())
}

/// The row limit and offset: LIMIT n [OFFSET m], LIMIT m, n, or the standard
/// [OFFSET m ROWS] FETCH {FIRST | NEXT} [n] {ROW | ROWS} ONLY (n defaults to 1).
pub(crate) fn limit_clause(
    q: &ast::Query,
    compiler: &Compiler,
) -> Result<(Option<Expr>, Option<Expr>), SqlError> {
    if let Some(fetch) = &q.fetch {
        let limit = match &fetch.quantity {
            Some(n) => compiler.compile(n)?,
            None => Expr::Literal(Value::Int(1)),
        };
        let offset = match &q.limit_clause {
            Some(ast::LimitClause::LimitOffset {
                offset: Some(o), ..
            }) => Some(compiler.compile(&o.value)?),
            _ => None,
        };
        return Ok((Some(limit), offset));
    }
    Ok(match &q.limit_clause {
        None => (None, None),
        Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => (
            limit.as_ref().map(|l| compiler.compile(l)).transpose()?,
            offset
                .as_ref()
                .map(|o| compiler.compile(&o.value))
                .transpose()?,
        ),
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => (
            Some(compiler.compile(limit)?),
            Some(compiler.compile(offset)?),
        ),
    })
}

/// A subquery: a SELECT compiled on its own.
pub fn compile_subquery(
    q: &ast::Query,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    let raw = RawStatement {
        tokens: Vec::new(),
        text: 0..0,
    };
    let stmt = compile_query(q, &raw, map, compiler, ctx)?;
    let calc = match &stmt {
        Stmt::Select(plan) => plan.found_rows_window.is_some(),
        Stmt::SelectTable(plan) => plan.found_rows_window.is_some(),
        _ => false,
    };
    if calc {
        // Only the statement's own SELECT may count its rows (MariaDB: the same error).
        return Err(SqlError::of(
            myriad_types::errors::ER_CANT_USE_OPTION_HERE,
            &[&"SQL_CALC_FOUND_ROWS"],
        ));
    }
    Ok(stmt)
}

/// The static type of a subquery's first column.
pub fn first_column_type(stmt: &Stmt, env: &dyn crate::expr::Env) -> crate::expr::eval::SqlType {
    match stmt {
        Stmt::Select(plan) => plan
            .items
            .first()
            .map(|i| i.expr.sql_type(env, &[]))
            .unwrap_or(crate::expr::eval::SqlType::Null),
        Stmt::SelectTable(plan) => {
            // The tables' columns, then the aggregates' values.
            let (types, _) = plan.input_types(env);
            match plan.items.first() {
                Some(crate::plan::tables::OutputItem::Column { index, .. }) => types
                    .get(*index)
                    .copied()
                    .unwrap_or(crate::expr::eval::SqlType::Int {
                        unsigned: false,
                        len: 21,
                    }),
                Some(crate::plan::tables::OutputItem::Expr { expr, .. }) => {
                    expr.sql_type(env, &types)
                }
                None => crate::expr::eval::SqlType::Null,
            }
        }
        _ => crate::expr::eval::SqlType::Null,
    }
}

/// The collation of a subquery's first column.
pub fn first_column_collation(stmt: &Stmt) -> crate::expr::collation::Derived {
    column_collation(stmt, 0)
}

/// How many columns a subquery's rows have.
pub fn column_count(stmt: &Stmt) -> usize {
    match stmt {
        Stmt::Select(plan) => plan.items.len(),
        Stmt::SelectTable(plan) => plan.items.len(),
        _ => 1,
    }
}

/// The collation of a subquery's column `i`.
pub fn column_collation(stmt: &Stmt, i: usize) -> crate::expr::collation::Derived {
    use crate::expr::collation::{Derivation, Derived};
    match stmt {
        Stmt::Select(plan) => plan.items.get(i).map(|i| i.expr.collation(&[])),
        Stmt::SelectTable(plan) => plan.items.get(i).map(|item| match item {
            crate::plan::tables::OutputItem::Column { index, .. } => {
                Expr::Column(*index).collation(&plan.collations)
            }
            crate::plan::tables::OutputItem::Expr { expr, .. } => expr.collation(&plan.collations),
        }),
        _ => None,
    }
    .unwrap_or(Derived::new(
        crate::expr::Collation::default(),
        Derivation::Ignorable,
    ))
}

/// An aggregate found in a query: its kind, argument and whether it is DISTINCT.
type Found = (crate::plan::tables::AggKind, Option<ast::Expr>, bool);

/// The clauses of a grouped query with their aggregates taken out: each aggregate becomes
/// a column `__aggN` after the table's own, filled per group.
struct Aggregates {
    found: Vec<Found>,
    /// The select items as rewritten (None for wildcards).
    items: Vec<Option<ast::Expr>>,
    having: Option<ast::Expr>,
    /// ORDER BY's expressions, each with whether it is DESC.
    order: Vec<(ast::Expr, bool)>,
    /// The window functions taken out of the select list and ORDER BY (each becomes a
    /// column `__winN` after the aggregates').
    windows: Vec<window::FoundWindow>,
}

/// SELECT from one stored table.
pub(crate) fn compile_table_select(
    q: &ast::Query,
    select: &ast::Select,
    raw: &RawStatement,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    window::refuse_misplaced(select)?;
    let relations = from_relations(select)?;
    let refs = table_refs(&relations, ctx, (map, compiler))?;
    let table = refs[0].clone();
    let mut scope = ColumnScope::default();
    let mut offsets = Vec::new();
    for r in &refs {
        offsets.push(scope.columns.len());
        scope.append(r.scope());
    }
    let coalesced = coalesce(&relations, &refs, &offsets)?;
    scope.hidden.clone_from(&coalesced.hidden);
    let has_column = |name: &str| {
        scope
            .columns
            .iter()
            .any(|(_, c)| c.eq_ignore_ascii_case(name))
    };
    let tc = crate::plan::table_def::table_compiler(compiler, &scope);
    let aggregated = extract_clauses(q, select, &has_column)?;
    let group_exprs: &[ast::Expr] = match &select.group_by {
        ast::GroupByExpr::Expressions(list, _) => list,
        ast::GroupByExpr::All(_) => return Err(SqlError::not_supported("GROUP BY ALL")),
    };
    having::check_names(select)?;
    let grouped = !aggregated.found.is_empty() || !group_exprs.is_empty();
    if !aggregated.windows.is_empty()
        && aggregated.found.is_empty()
        && group_exprs.is_empty()
        && aggregated.having.is_some()
    {
        // MariaDB filters the rows by such a HAVING before the window step.
        return Err(SqlError::not_supported(
            "HAVING without GROUP BY or aggregates, with window functions",
        ));
    }
    // Aggregate arguments read the table's row; MIN and MAX keep their argument's
    // collation in the aggregate's column.
    let mut agg_args = Vec::new();
    let mut concats = Vec::new();
    let mut more_args = Vec::new();
    for (kind, arg, distinct) in &aggregated.found {
        use crate::plan::tables::AggKind;
        if *distinct && !kind.takes_distinct() {
            return Err(crate::expr::err_syntax("DISTINCT"));
        }
        if let (AggKind::GroupConcat, Some(call)) = (kind, arg) {
            let spec = group_concat::compile(call, &tc, &scope)?;
            agg_args.push(spec.args.first().cloned());
            concats.push(Some(Box::new(spec)));
            more_args.push(Vec::new());
            continue;
        }
        concats.push(None);
        let (arg, more) = aggregate_of::compile_args(arg.as_ref(), &tc, &scope)?;
        more_args.push(more);
        if arg.as_ref().is_some_and(Expr::reads_outer) {
            // MariaDB aggregates such an argument in the enclosing query.
            return Err(SqlError::not_supported(
                "aggregate functions over columns of an enclosing query",
            ));
        }
        agg_args.push(arg.map(|a| a.numeric_if(kind.reads_numbers())));
    }
    let mut ext_scope = scope.clone();
    for (i, (((kind, ..), arg), concat)) in aggregated
        .found
        .iter()
        .zip(&agg_args)
        .zip(&concats)
        .enumerate()
    {
        use crate::plan::tables::AggKind;
        let collation = match (kind, arg) {
            (AggKind::GroupConcat, _) => concat.as_ref().map(|c| c.collation),
            (AggKind::Min | AggKind::Max, Some(a)) => {
                a.collation(&scope.collations).string_collation()
            }
            _ => None,
        };
        let form = match (kind, arg) {
            (AggKind::Min | AggKind::Max, Some(a)) => tc.text_form(a),
            _ => None,
        };
        ext_scope.push((None, format!("__agg{i}")), collation, form);
    }
    let ec = crate::plan::table_def::table_compiler(compiler, &ext_scope);
    let windows = window::compile_windows(&aggregated.windows, &ec, &ext_scope.collations)?;
    if !windows.funcs.is_empty() && select.distinct.is_some() {
        return Err(SqlError::not_supported("DISTINCT with window functions"));
    }
    for (i, f) in windows.funcs.iter().enumerate() {
        let collation = f
            .value_arg()
            .and_then(|a| a.collation(&ext_scope.collations).string_collation());
        ext_scope.push((None, format!("__win{i}")), collation, None);
    }
    let ec = crate::plan::table_def::table_compiler(compiler, &ext_scope);

    let mut aliases: Vec<(String, Expr)> = Vec::new();
    let items = select_items(
        select,
        &refs,
        &offsets,
        &coalesced.star,
        &aggregated.items,
        &projection_texts(raw, map),
        map,
        &ec,
        &mut aliases,
    )?;
    let by_item = |e: &ast::Expr, clause: &str| by_item(e, clause, &items, &aliases, &has_column);
    let mut order_by = Vec::new();
    for (e, desc) in &aggregated.order {
        let expr = match by_item(e, "order clause")? {
            Some(x) => x,
            None => ec.compile(e)?,
        };
        order_by.push((ec.sort_key(expr), *desc));
    }
    let rollup = matches!(&select.group_by,
        ast::GroupByExpr::Expressions(_, m) if m.contains(&ast::GroupByWithModifier::Rollup));
    if rollup && !windows.funcs.is_empty() {
        return Err(SqlError::not_supported("window functions with WITH ROLLUP"));
    }
    let grouping = if grouped {
        let aggregate_columns = scope.columns.len()..scope.columns.len() + aggregated.found.len();
        let mut keys = Vec::new();
        for g in group_exprs {
            let key = match by_item(g, "group statement")? {
                Some(x) => select_list::group_key(x, g, &items, aggregate_columns.clone())?,
                None => tc.compile(g)?,
            };
            // An ENUM or SET column groups by its number, so that the groups come out in
            // MariaDB's order (WITH ROLLUP, whose super rows show key values, keeps text).
            keys.push(if rollup { key } else { tc.sort_key(key) });
        }
        Some(grouping(
            keys,
            &aggregated,
            (agg_args, concats, more_args),
            (&scope, &ec),
            rollup,
        )?)
    } else {
        None
    };
    if let Some(g) = &grouping {
        let first_window_column = scope.columns.len() + aggregated.found.len();
        window::refuse_window_columns(g.keys.iter().chain(&g.having), first_window_column)?;
    }
    let filter = select
        .selection
        .as_ref()
        .map(|w| tc.condition(w))
        .transpose()?
        .map(|f| zero_dates::where_is_null(f, &refs, &offsets));
    let ungrouped_having = aggregated.having.as_ref().filter(|_| !grouped);
    let filter = having::row_filter(filter, ungrouped_having, &tc)?;
    let joins = join_steps(
        &relations,
        &refs,
        &offsets,
        &coalesced.on,
        &tc,
        filter.as_ref(),
    )?;
    let (filter, post_filter) = if joins.is_empty() {
        (filter, None)
    } else {
        (None, filter)
    };
    let access = crate::plan::access::choose_access(&table.def, filter.as_ref());
    let (limit, offset, found_rows_window) = found_rows::window(select, limit_clause(q, compiler)?);
    Ok(Stmt::SelectTable(Box::new(
        crate::plan::tables::TableSelect {
            found_rows_window,
            source: crate::plan::tables::RowSource {
                table,
                access,
                filter,
            },
            joins,
            post_filter,
            wildcards: wildcard_tables(select, &refs),
            items,
            grouping,
            distinct: select.distinct.is_some(),
            order_by,
            limit,
            offset,
            collations: std::mem::take(&mut ext_scope.collations),
            windows,
            locking: locking_read(q)?,
            shown_columns: std::sync::OnceLock::new(),
        },
    )))
}

/// How a query ends: `FOR UPDATE`, `FOR SHARE` or `LOCK IN SHARE MODE` (read as
/// `FOR SHARE`, see `rewrite_tokens`). Their NOWAIT, SKIP LOCKED and OF forms answer 1235.
fn locking_read(q: &ast::Query) -> Result<Option<myriad_storage::ClaimMode>, SqlError> {
    let mut mode = None;
    for lock in &q.locks {
        if lock.nonblock.is_some() {
            return Err(SqlError::not_supported("NOWAIT and SKIP LOCKED"));
        }
        if lock.of.is_some() {
            return Err(SqlError::not_supported("FOR UPDATE OF and FOR SHARE OF"));
        }
        mode = Some(match lock.lock_type {
            ast::LockType::Update => myriad_storage::ClaimMode::Exclusive,
            ast::LockType::Share => myriad_storage::ClaimMode::Shared,
        });
    }
    Ok(mode)
}

/// Aggregates anywhere in the select list, HAVING or ORDER BY, taken out of them.
fn extract_clauses(
    q: &ast::Query,
    select: &ast::Select,
    has_column: &dyn Fn(&str) -> bool,
) -> Result<Aggregates, SqlError> {
    let mut found: Vec<Found> = Vec::new();
    let mut calls = Vec::new();
    let mut rewritten_items = Vec::new();
    for item in &select.projection {
        rewritten_items.push(match item {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                let e = window::extract_windows(e, &mut calls)?;
                Some(extract_aggregates(&e, &mut found))
            }
            _ => None,
        });
    }
    // HAVING may name select items by alias.
    let mut alias_asts: Vec<(String, ast::Expr)> = Vec::new();
    for (item, rewritten) in select.projection.iter().zip(&rewritten_items) {
        if let (ast::SelectItem::ExprWithAlias { alias, .. }, Some(r)) = (item, rewritten) {
            alias_asts.push((alias.value.clone(), r.clone()));
        }
    }
    // A name that is both an alias and a column means the column only when GROUP BY
    // names that column; otherwise the alias, as in MariaDB.
    let grouped_column = |name: &str| {
        has_column(name)
            && matches!(&select.group_by, ast::GroupByExpr::Expressions(list, _)
                if list.iter().any(|g| names_column(g, name)))
    };
    let having = select.having.as_ref().map(|h| {
        let h = extract_aggregates(h, &mut found);
        substitute_aliases(&h, &alias_asts, &grouped_column)
    });
    let order: Vec<(ast::Expr, bool)> = match &q.order_by {
        None => Vec::new(),
        Some(ob) => {
            let ast::OrderByKind::Expressions(list) = &ob.kind else {
                return Err(SqlError::not_supported("ORDER BY ALL"));
            };
            let mut order = Vec::new();
            for o in list {
                let e = window::extract_windows(&o.expr, &mut calls)?;
                order.push((
                    extract_aggregates(&e, &mut found),
                    matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
                ));
            }
            order
        }
    };
    let windows = window::resolve_windows(select, &calls, &mut found)?;
    Ok(Aggregates {
        found,
        items: rewritten_items,
        having,
        order,
        windows,
    })
}

/// Per aggregate: its compiled argument, GROUP_CONCAT's clauses, COUNT(DISTINCT)'s further
/// arguments.
type AggregateArgs = (
    Vec<Option<Expr>>,
    Vec<Option<Box<crate::plan::tables::GroupConcat>>>,
    Vec<aggregate_of::MoreArgs>,
);

/// GROUP BY's plan: the `keys`, the aggregates with their arguments (`args`, compiled over
/// the table's row, `scope`) and HAVING (compiled with `ec`, which sees the aggregate
/// columns).
fn grouping(
    keys: Vec<Expr>,
    aggregated: &Aggregates,
    (args, concats, more_args): AggregateArgs,
    (scope, ec): (&ColumnScope, &Compiler),
    rollup: bool,
) -> Result<crate::plan::tables::Grouping, SqlError> {
    let mut aggregates = Vec::new();
    let found = aggregated.found.iter().zip(args).zip(concats);
    for ((((kind, _, distinct), arg), concat), more) in found.zip(more_args) {
        aggregates.push(crate::plan::tables::Aggregate {
            kind: *kind,
            collation: match &concat {
                Some(c) => c.collation,
                None => arg
                    .as_ref()
                    .map(|a| a.collation(&scope.collations).collation)
                    .unwrap_or_default(),
            },
            arg,
            more,
            distinct: *distinct,
            concat,
        });
    }
    let having = aggregated
        .having
        .as_ref()
        .map(|h| ec.condition(h))
        .transpose()?;
    Ok(crate::plan::tables::Grouping {
        key_collations: keys.iter().map(|k| ec.derived(k).collation).collect(),
        keys,
        aggregates,
        having,
        rollup,
    })
}

/// `VALUES(c)` in ON DUPLICATE KEY UPDATE becomes the column `__new_c`.
pub(crate) fn values_to_new(e: &ast::Expr) -> ast::Expr {
    use ast::Expr as E;
    if let E::Function(f) = e {
        if f.name.to_string().eq_ignore_ascii_case("VALUES") {
            if let ast::FunctionArguments::List(list) = &f.args {
                if let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(E::Identifier(id)))] =
                    list.args.as_slice()
                {
                    return E::Identifier(ast::Ident::with_quote(
                        '`',
                        format!("__new_{}", id.value),
                    ));
                }
            }
        }
    }
    map_children(e, &mut values_to_new)
}

/// Replace identifiers that name a select-list alias (and no column) by the aliased
/// expression.
pub(crate) fn substitute_aliases(
    e: &ast::Expr,
    aliases: &[(String, ast::Expr)],
    has_column: &dyn Fn(&str) -> bool,
) -> ast::Expr {
    if let ast::Expr::Identifier(id) = e {
        if !has_column(&id.value) {
            if let Some((_, x)) = aliases
                .iter()
                .find(|(a, _)| a.eq_ignore_ascii_case(&id.value))
            {
                return ast::Expr::Nested(Box::new(x.clone()));
            }
        }
        return e.clone();
    }
    map_children(e, &mut |x| substitute_aliases(x, aliases, has_column))
}

/// Whether `e` is the column `name` (bare or qualified).
fn names_column(e: &ast::Expr, name: &str) -> bool {
    match e {
        ast::Expr::Identifier(id) => id.value.eq_ignore_ascii_case(name),
        ast::Expr::CompoundIdentifier(parts) => parts
            .last()
            .is_some_and(|id| id.value.eq_ignore_ascii_case(name)),
        _ => false,
    }
}

/// Replace every aggregate call in an expression by a reference to `__aggN` (N in the
/// order found) and collect the aggregates.
pub(crate) fn extract_aggregates(
    e: &ast::Expr,
    found: &mut Vec<(crate::plan::tables::AggKind, Option<ast::Expr>, bool)>,
) -> ast::Expr {
    if let Some((kind, arg, distinct)) = aggregate_of(e) {
        let n = found.len();
        found.push((kind, arg.map(std::borrow::Cow::into_owned), distinct));
        return ast::Expr::Identifier(ast::Ident::with_quote('`', format!("__agg{n}")));
    }
    map_children(e, &mut |x| extract_aggregates(x, found))
}

/// A copy of `e` whose direct operands (of the operators, predicates, CASE and function
/// calls the SQL layer evaluates) are replaced by `f` of each, left to right; subqueries
/// and other expressions are copied as they are.
pub(crate) fn map_children(e: &ast::Expr, f: &mut dyn FnMut(&ast::Expr) -> ast::Expr) -> ast::Expr {
    use ast::Expr as E;
    let mut out = e.clone();
    let mut go = |x: &mut ast::Expr| *x = f(x);
    match &mut out {
        E::BinaryOp { left, right, .. } => {
            go(left);
            go(right);
        }
        E::UnaryOp { expr, .. }
        | E::Nested(expr)
        | E::IsNull(expr)
        | E::IsNotNull(expr)
        | E::IsTrue(expr)
        | E::IsFalse(expr)
        | E::IsNotTrue(expr)
        | E::IsNotFalse(expr)
        | E::Cast { expr, .. } => go(expr),
        E::Between {
            expr, low, high, ..
        } => {
            go(expr);
            go(low);
            go(high);
        }
        E::Like { expr, pattern, .. } => {
            go(expr);
            go(pattern);
        }
        E::InList { expr, list, .. } => {
            go(expr);
            list.iter_mut().for_each(&mut go);
        }
        E::Tuple(items) => items.iter_mut().for_each(&mut go),
        E::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            if let Some(o) = operand {
                go(o);
            }
            for w in conditions.iter_mut() {
                go(&mut w.condition);
                go(&mut w.result);
            }
            if let Some(x) = else_result {
                go(x);
            }
        }
        E::Function(call) => {
            if let ast::FunctionArguments::List(list) = &mut call.args {
                for a in list.args.iter_mut() {
                    if let ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) = a {
                        go(x);
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// A user variable value from an evaluated value (for SET @a = ...).
pub fn user_value(d: Value) -> Value {
    d
}
