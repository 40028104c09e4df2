//! Window functions in a table SELECT: found in the select list and ORDER BY and taken
//! out of them (each becomes the column `__winN`), their windows resolved against the
//! WINDOW clause, checked as MariaDB checks them, and compiled over the row the window step
//! reads (the tables' columns, then the aggregates').

use super::{aggregate_of, extract_aggregates, map_children, Found};
use crate::error::SqlError;
use crate::expr::{err_syntax, Compiler, Expr};
use crate::plan::tables::{AggKind, Aggregate};
use crate::plan::window::{Bound, Frame, Window, WindowFunc, WindowKind, Windows};
use myriad_types::errors::{
    ER_BAD_COMBINATION_OF_WINDOW_FRAME_BOUND_SPECS, ER_DUP_WINDOW_NAME, ER_INVALID_NTILE_ARGUMENT,
    ER_NOT_ALLOWED_WINDOW_FRAME, ER_NO_ORDER_LIST_IN_WINDOW_SPEC,
    ER_ORDER_LIST_IN_REFERENCING_WINDOW_SPEC, ER_PARTITION_LIST_IN_REFERENCING_WINDOW_SPEC,
    ER_SUM_FUNC_WITH_WINDOW_FUNC_AS_ARG, ER_WINDOW_FRAME_IN_REFERENCED_WINDOW_SPEC,
    ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION, ER_WRONG_TYPE_FOR_ROWS_FRAME, ER_WRONG_WINDOW_SPEC_NAME,
};
use sqlparser::ast;

/// How deep WINDOW definitions may name one another (`w2 AS (w1 ...)`): deeper is a
/// cycle or a statement no one writes.
const NAMED_WINDOW_DEPTH_MAX: usize = 16;

/// A window function as found: its name (upper case), arguments and resolved window, with
/// the aggregates inside them already taken out (see [`extract_aggregates`]).
pub(super) struct FoundWindow {
    name: String,
    args: Vec<ast::Expr>,
    partition: Vec<ast::Expr>,
    order: Vec<(ast::Expr, bool)>,
    frame: Option<ast::WindowFrame>,
}

/// Where a window call's text ends: past `OVER name` or `OVER (...)` after `end` (the end
/// of its argument list), or `end` when no OVER follows.
pub(super) fn over_end(source: &str, end: usize) -> usize {
    let Some(rest) = source.get(end..) else {
        return end;
    };
    let trimmed = rest.trim_start();
    if !trimmed
        .get(..4)
        .is_some_and(|w| w.eq_ignore_ascii_case("OVER"))
    {
        return end;
    }
    let after_over = source.len() - trimmed.len() + 4;
    let spec = source[after_over..].trim_start();
    let at = source.len() - spec.len();
    if spec.starts_with('(') {
        return super::balanced_end(source, at).unwrap_or(end);
    }
    let name_len = spec
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '`'))
        .unwrap_or(spec.len());
    at + name_len
}

/// Whether `e` holds a window function (outside subqueries).
pub(super) fn contains_window(e: &ast::Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        found |= matches!(x, ast::Expr::Function(f) if f.over.is_some());
    });
    found
}

/// Call `f` on `e` and every expression under it that [`map_children`] reaches, and on a
/// call's OVER clause's expressions.
fn visit(e: &ast::Expr, f: &mut dyn FnMut(&ast::Expr)) {
    f(e);
    if let ast::Expr::Function(call) = e {
        if let Some(ast::WindowType::WindowSpec(spec)) = &call.over {
            spec.partition_by.iter().for_each(|p| visit(p, f));
            spec.order_by.iter().for_each(|o| visit(&o.expr, f));
        }
    }
    map_children(e, &mut |x| {
        visit(x, f);
        x.clone()
    });
}

/// Window functions are allowed in the select list and ORDER BY only (4015).
pub(super) fn refuse_misplaced(select: &ast::Select) -> Result<(), SqlError> {
    let mut clauses: Vec<&ast::Expr> = select.selection.iter().collect();
    clauses.extend(select.having.iter());
    if let ast::GroupByExpr::Expressions(list, _) = &select.group_by {
        clauses.extend(list.iter());
    }
    if clauses.into_iter().any(contains_window) {
        return Err(SqlError::new(
            ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION,
            ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION.message(&[]),
        ));
    }
    Ok(())
}

/// GROUP BY and HAVING may not read a window function's value, not even through a select
/// item's alias or position (4015): `exprs` are theirs, compiled; window values are the
/// columns from `first_window_column` on.
pub(super) fn refuse_window_columns<'e>(
    exprs: impl Iterator<Item = &'e Expr>,
    first_window_column: usize,
) -> Result<(), SqlError> {
    let mut reads = false;
    for e in exprs {
        crate::plan::access::visit_columns(e, &mut |i| reads |= i >= first_window_column);
    }
    if reads {
        return Err(SqlError::new(
            ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION,
            ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION.message(&[]),
        ));
    }
    Ok(())
}

/// Replace every window function in `e` by a reference to `__winN` (N in the order found)
/// and collect the calls.
pub(super) fn extract_windows(
    e: &ast::Expr,
    found: &mut Vec<ast::Function>,
) -> Result<ast::Expr, SqlError> {
    if let ast::Expr::Function(f) = e {
        if f.over.is_some() {
            let n = found.len();
            found.push(f.clone());
            return Ok(ast::Expr::Identifier(ast::Ident::with_quote(
                '`',
                format!("__win{n}"),
            )));
        }
        if aggregate_of(e).is_some() && contains_window(e) {
            return Err(SqlError::new(
                ER_SUM_FUNC_WITH_WINDOW_FUNC_AS_ARG,
                ER_SUM_FUNC_WITH_WINDOW_FUNC_AS_ARG.message(&[]),
            ));
        }
    }
    let mut error = None;
    let out = map_children(e, &mut |x| match extract_windows(x, found) {
        Ok(y) => y,
        Err(err) => {
            error.get_or_insert(err);
            x.clone()
        }
    });
    match error {
        Some(err) => Err(err),
        None => Ok(out),
    }
}

/// The WINDOW clause's definitions by name; 4010 when a name is defined twice.
fn named_windows(select: &ast::Select) -> Result<Vec<(String, &ast::WindowSpec)>, SqlError> {
    let mut named: Vec<(String, &ast::WindowSpec)> = Vec::new();
    for ast::NamedWindowDefinition(name, expr) in &select.named_window {
        if named
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(&name.value))
        {
            return Err(SqlError::new(
                ER_DUP_WINDOW_NAME,
                ER_DUP_WINDOW_NAME.message(&[&name.value]),
            ));
        }
        match expr {
            ast::NamedWindowExpr::WindowSpec(spec) => named.push((name.value.clone(), spec)),
            ast::NamedWindowExpr::NamedWindow(_) => return Err(err_syntax(&expr.to_string())),
        }
    }
    Ok(named)
}

/// A window specification with the named window it refers to merged in, as MariaDB
/// merges them: the referenced window gives PARTITION BY and may give ORDER BY; the
/// referring one may add ORDER BY (when the other has none) and the frame.
fn resolve(
    spec: &ast::WindowSpec,
    named: &[(String, &ast::WindowSpec)],
    depth: usize,
) -> Result<ast::WindowSpec, SqlError> {
    let Some(base_name) = &spec.window_name else {
        return Ok(spec.clone());
    };
    let base = lookup(base_name, named)?;
    if depth >= NAMED_WINDOW_DEPTH_MAX {
        return Err(SqlError::not_supported(
            "window definitions nested this deep",
        ));
    }
    let base = resolve(base, named, depth + 1)?;
    let name = &base_name.value;
    if !spec.partition_by.is_empty() {
        return Err(SqlError::new(
            ER_PARTITION_LIST_IN_REFERENCING_WINDOW_SPEC,
            ER_PARTITION_LIST_IN_REFERENCING_WINDOW_SPEC.message(&[name]),
        ));
    }
    if !spec.order_by.is_empty() && !base.order_by.is_empty() {
        return Err(SqlError::new(
            ER_ORDER_LIST_IN_REFERENCING_WINDOW_SPEC,
            ER_ORDER_LIST_IN_REFERENCING_WINDOW_SPEC.message(&[name]),
        ));
    }
    if base.window_frame.is_some() {
        return Err(SqlError::new(
            ER_WINDOW_FRAME_IN_REFERENCED_WINDOW_SPEC,
            ER_WINDOW_FRAME_IN_REFERENCED_WINDOW_SPEC.message(&[name]),
        ));
    }
    Ok(ast::WindowSpec {
        window_name: None,
        partition_by: base.partition_by,
        order_by: if spec.order_by.is_empty() {
            base.order_by
        } else {
            spec.order_by.clone()
        },
        window_frame: spec.window_frame.clone(),
    })
}

fn lookup<'a>(
    name: &ast::Ident,
    named: &[(String, &'a ast::WindowSpec)],
) -> Result<&'a ast::WindowSpec, SqlError> {
    named
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(&name.value))
        .map(|(_, s)| *s)
        .ok_or_else(|| {
            SqlError::new(
                ER_WRONG_WINDOW_SPEC_NAME,
                ER_WRONG_WINDOW_SPEC_NAME.message(&[&name.value]),
            )
        })
}

/// The calls found, each with its window resolved and the aggregates inside its arguments,
/// PARTITION BY and ORDER BY taken out into `aggregates`.
pub(super) fn resolve_windows(
    select: &ast::Select,
    calls: &[ast::Function],
    aggregates: &mut Vec<Found>,
) -> Result<Vec<FoundWindow>, SqlError> {
    let named = named_windows(select)?;
    // A named window no function uses is still checked, as MariaDB does.
    for (_, spec) in &named {
        resolve(spec, &named, 0)?;
    }
    let mut out = Vec::new();
    for call in calls {
        let spec = match &call.over {
            Some(ast::WindowType::WindowSpec(spec)) => resolve(spec, &named, 0)?,
            Some(ast::WindowType::NamedWindow(name)) => resolve(lookup(name, &named)?, &named, 0)?,
            None => return Err(err_syntax(&call.to_string())),
        };
        if call.filter.is_some() || call.null_treatment.is_some() || !call.within_group.is_empty() {
            return Err(err_syntax(&call.to_string()));
        }
        let in_spec = spec
            .partition_by
            .iter()
            .chain(spec.order_by.iter().map(|o| &o.expr));
        if in_spec.clone().any(contains_window) {
            return Err(SqlError::new(
                ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION,
                ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION.message(&[]),
            ));
        }
        let name = call.name.to_string().to_ascii_uppercase();
        if name == "GROUP_CONCAT" {
            return Err(SqlError::not_supported(
                "GROUP_CONCAT() aggregate as window function",
            ));
        }
        let args = call_args(call, &name)?;
        if args.iter().any(contains_window) {
            return Err(SqlError::new(
                ER_SUM_FUNC_WITH_WINDOW_FUNC_AS_ARG,
                ER_SUM_FUNC_WITH_WINDOW_FUNC_AS_ARG.message(&[]),
            ));
        }
        out.push(FoundWindow {
            name,
            args: args
                .iter()
                .map(|a| extract_aggregates(a, aggregates))
                .collect(),
            partition: spec
                .partition_by
                .iter()
                .map(|p| extract_aggregates(p, aggregates))
                .collect(),
            order: spec
                .order_by
                .iter()
                .map(|o| {
                    (
                        extract_aggregates(&o.expr, aggregates),
                        matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
                    )
                })
                .collect(),
            frame: spec.window_frame.clone(),
        });
    }
    Ok(out)
}

/// A window call's plain arguments (`*` as no argument, for COUNT(*) only); DISTINCT and
/// clauses inside the parentheses are not built for window aggregates.
fn call_args(call: &ast::Function, name: &str) -> Result<Vec<ast::Expr>, SqlError> {
    let list = match &call.args {
        ast::FunctionArguments::None => return Ok(Vec::new()),
        ast::FunctionArguments::List(list) => list,
        ast::FunctionArguments::Subquery(_) => return Err(err_syntax(&call.to_string())),
    };
    if matches!(
        list.duplicate_treatment,
        Some(ast::DuplicateTreatment::Distinct)
    ) {
        return Err(SqlError::not_supported(&format!(
            "{name}(DISTINCT) aggregate as window function"
        )));
    }
    if !list.clauses.is_empty() {
        return Err(err_syntax(&call.to_string()));
    }
    let mut args = Vec::new();
    for a in &list.args {
        match a {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => args.push(x.clone()),
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) if name == "COUNT" => {}
            _ => return Err(err_syntax(&call.to_string())),
        }
    }
    Ok(args)
}

/// Compile the windows found, over the row the window step reads (`c`: the tables'
/// columns, then the aggregates'); functions with equal PARTITION BY and ORDER BY share
/// one window (one sort).
pub(super) fn compile_windows(
    found: &[FoundWindow],
    c: &Compiler,
    collations: &[Option<myriad_storage::Collation>],
) -> Result<Windows, SqlError> {
    let mut out = Windows::default();
    let mut window_texts: Vec<String> = Vec::new();
    for w in found {
        let frame = frame_of(w)?;
        let kind = kind_of(w, c, collations)?;
        let text = format!(
            "{:?}|{:?}",
            w.partition
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>(),
            w.order
                .iter()
                .map(|(o, d)| format!("{o} {d}"))
                .collect::<Vec<_>>()
        );
        let window = match window_texts.iter().position(|t| *t == text) {
            Some(i) => i,
            None => {
                let mut partition = Vec::new();
                for p in &w.partition {
                    let e = c.compile(p)?;
                    let collation = e.collation(collations).collation;
                    partition.push((e, collation));
                }
                let mut order = Vec::new();
                for (o, desc) in &w.order {
                    let e = c.compile(o)?;
                    let collation = e.collation(collations).collation;
                    order.push((e, *desc, collation));
                }
                out.windows.push(Window { partition, order });
                window_texts.push(text);
                out.windows.len() - 1
            }
        };
        out.funcs.push(WindowFunc {
            kind,
            window,
            frame,
        });
    }
    Ok(out)
}

/// The function's frame: its own, checked, or [`Frame::DEFAULT`].
fn frame_of(w: &FoundWindow) -> Result<Frame, SqlError> {
    let Some(frame) = &w.frame else {
        return Ok(Frame::DEFAULT);
    };
    let ranking = matches!(
        w.name.as_str(),
        "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "PERCENT_RANK" | "CUME_DIST" | "NTILE"
    );
    if ranking {
        return Err(SqlError::new(
            ER_NOT_ALLOWED_WINDOW_FRAME,
            ER_NOT_ALLOWED_WINDOW_FRAME.message(&[&w.name.to_ascii_lowercase()]),
        ));
    }
    let rows = match frame.units {
        ast::WindowFrameUnits::Rows => true,
        ast::WindowFrameUnits::Range => false,
        ast::WindowFrameUnits::Groups => return Err(err_syntax("GROUPS")),
    };
    let start = bound(&frame.start_bound, rows)?;
    let end = match &frame.end_bound {
        Some(b) => bound(b, rows)?,
        None => Bound::CurrentRow,
    };
    let rank = |b: Bound| match b {
        Bound::UnboundedPreceding => 0,
        Bound::Preceding(_) => 1,
        Bound::CurrentRow => 2,
        Bound::Following(_) => 3,
        Bound::UnboundedFollowing => 4,
    };
    // The start may not come after the end by kind (1 FOLLOWING AND 1 PRECEDING), and
    // neither may be unbounded on the wrong side.
    if let (Bound::Following(_), Bound::Preceding(_)) = (start, end) {
        // MariaDB answers this one with rows that follow no rule.
        return Err(SqlError::not_supported(
            "a window frame from n FOLLOWING to m PRECEDING",
        ));
    }
    if start == Bound::UnboundedFollowing
        || end == Bound::UnboundedPreceding
        || rank(start) > rank(end)
    {
        return Err(SqlError::new(
            ER_BAD_COMBINATION_OF_WINDOW_FRAME_BOUND_SPECS,
            ER_BAD_COMBINATION_OF_WINDOW_FRAME_BOUND_SPECS.message(&[]),
        ));
    }
    Ok(Frame { rows, start, end })
}

/// One end of a frame; ROWS offsets must be integer literals (4020); RANGE offsets are not
/// built.
fn bound(b: &ast::WindowFrameBound, rows: bool) -> Result<Bound, SqlError> {
    let offset = |n: &ast::Expr| -> Result<u64, SqlError> {
        if !rows {
            return Err(SqlError::not_supported("RANGE-type frames with offsets"));
        }
        match n {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Number(text, _) => text.parse::<u64>().map_err(|_| {
                    SqlError::new(
                        ER_WRONG_TYPE_FOR_ROWS_FRAME,
                        ER_WRONG_TYPE_FOR_ROWS_FRAME.message(&[]),
                    )
                }),
                _ => Err(SqlError::new(
                    ER_WRONG_TYPE_FOR_ROWS_FRAME,
                    ER_WRONG_TYPE_FOR_ROWS_FRAME.message(&[]),
                )),
            },
            _ => Err(SqlError::not_supported(
                "window frame offsets other than literals",
            )),
        }
    };
    Ok(match b {
        ast::WindowFrameBound::CurrentRow => Bound::CurrentRow,
        ast::WindowFrameBound::Preceding(None) => Bound::UnboundedPreceding,
        ast::WindowFrameBound::Following(None) => Bound::UnboundedFollowing,
        ast::WindowFrameBound::Preceding(Some(n)) => Bound::Preceding(offset(n)?),
        ast::WindowFrameBound::Following(Some(n)) => Bound::Following(offset(n)?),
    })
}

/// Whether an expression reads the row (a column), rather than being constant.
fn reads_row(e: &Expr) -> bool {
    let mut reads = false;
    crate::plan::access::visit_columns(e, &mut |_| reads = true);
    reads
}

/// What the function computes, its arguments compiled; the checks MariaDB makes of its
/// window (4018) and arguments (4024).
fn kind_of(
    w: &FoundWindow,
    c: &Compiler,
    collations: &[Option<myriad_storage::Collation>],
) -> Result<WindowKind, SqlError> {
    let needs_order = matches!(
        w.name.as_str(),
        "RANK" | "DENSE_RANK" | "PERCENT_RANK" | "CUME_DIST" | "LAG" | "LEAD"
    );
    if needs_order && w.order.is_empty() {
        return Err(SqlError::new(
            ER_NO_ORDER_LIST_IN_WINDOW_SPEC,
            ER_NO_ORDER_LIST_IN_WINDOW_SPEC.message(&[&w.name.to_ascii_lowercase()]),
        ));
    }
    let args = w
        .args
        .iter()
        .map(|a| c.compile(a))
        .collect::<Result<Vec<_>, _>>()?;
    let wrong_count = || err_syntax(&w.name);
    let arity = |n: std::ops::RangeInclusive<usize>| {
        if n.contains(&args.len()) {
            Ok(())
        } else {
            Err(wrong_count())
        }
    };
    Ok(match w.name.as_str() {
        "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "PERCENT_RANK" | "CUME_DIST" => {
            arity(0..=0)?;
            match w.name.as_str() {
                "ROW_NUMBER" => WindowKind::RowNumber,
                "RANK" => WindowKind::Rank,
                "DENSE_RANK" => WindowKind::DenseRank,
                "PERCENT_RANK" => WindowKind::PercentRank,
                _ => WindowKind::CumeDist,
            }
        }
        "NTILE" => {
            arity(1..=1)?;
            if reads_row(&args[0]) {
                return Err(SqlError::new(
                    ER_INVALID_NTILE_ARGUMENT,
                    ER_INVALID_NTILE_ARGUMENT.message(&[]),
                ));
            }
            WindowKind::Ntile(args[0].clone())
        }
        "LAG" | "LEAD" => {
            arity(1..=2)?;
            let offset = args
                .get(1)
                .cloned()
                .unwrap_or(Expr::Literal(crate::value::Value::Int(1)));
            if reads_row(&offset) {
                return Err(SqlError::not_supported(
                    "LAG and LEAD with a non-constant offset",
                ));
            }
            WindowKind::Shift {
                arg: args[0].clone(),
                offset,
                lead: w.name == "LEAD",
            }
        }
        "FIRST_VALUE" | "LAST_VALUE" => {
            arity(1..=1)?;
            match w.name.as_str() {
                "FIRST_VALUE" => WindowKind::FirstValue(args[0].clone()),
                _ => WindowKind::LastValue(args[0].clone()),
            }
        }
        "NTH_VALUE" => {
            arity(2..=2)?;
            if reads_row(&args[1]) {
                return Err(SqlError::not_supported(
                    "NTH_VALUE with a non-constant position",
                ));
            }
            WindowKind::NthValue(args[0].clone(), args[1].clone())
        }
        "COUNT" | "SUM" | "AVG" | "MIN" | "MAX" => {
            let kind = match (w.name.as_str(), args.len()) {
                ("COUNT", 0) => AggKind::CountStar,
                ("COUNT", 1) => AggKind::Count,
                ("SUM", 1) => AggKind::Sum,
                ("AVG", 1) => AggKind::Avg,
                ("MIN", 1) => AggKind::Min,
                ("MAX", 1) => AggKind::Max,
                _ => return Err(wrong_count()),
            };
            let arg = args
                .into_iter()
                .next()
                .map(|a| a.numeric_if(kind.reads_numbers()));
            WindowKind::Aggregate(Aggregate {
                kind,
                collation: arg
                    .as_ref()
                    .map(|a| a.collation(collations).collation)
                    .unwrap_or_default(),
                arg,
                more: Vec::new(),
                distinct: false,
                concat: None,
            })
        }
        other => {
            return Err(SqlError::not_supported(&format!(
                "{other}() as a window function"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_name_takes_its_over_clause() {
        let text = "ROW_NUMBER() OVER (PARTITION BY (a) ORDER BY b) AS rn";
        assert_eq!(
            &text[..over_end(text, 12)],
            "ROW_NUMBER() OVER (PARTITION BY (a) ORDER BY b)"
        );
        let text = "SUM(a)  over  w, b";
        assert_eq!(&text[..over_end(text, 6)], "SUM(a)  over  w");
        let text = "SUM(a) + 1";
        assert_eq!(over_end(text, 6), 6);
    }

    fn window(frame: &str) -> FoundWindow {
        let sql = format!("SELECT SUM(a) OVER (ORDER BY a {frame}) FROM t");
        let dialect = sqlparser::dialect::MySqlDialect {};
        let statement = sqlparser::parser::Parser::parse_sql(&dialect, &sql).expect("parses");
        let ast::Statement::Query(q) = &statement[0] else {
            panic!("a query")
        };
        let ast::SetExpr::Select(select) = q.body.as_ref() else {
            panic!("a select")
        };
        let ast::SelectItem::UnnamedExpr(ast::Expr::Function(call)) = &select.projection[0] else {
            panic!("a call")
        };
        let mut aggregates = Vec::new();
        let found = resolve_windows(select, std::slice::from_ref(call), &mut aggregates);
        found.expect("resolves").remove(0)
    }

    #[test]
    fn frames_are_checked_as_mariadb_checks_them() {
        let code = |frame: &str| frame_of(&window(frame)).err().map(|e| e.code);
        assert_eq!(code("ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING"), None);
        assert_eq!(code("ROWS 2 PRECEDING"), None);
        assert_eq!(code("ROWS BETWEEN CURRENT ROW AND 1 PRECEDING"), Some(4014));
        assert_eq!(code("ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW"), Some(4014));
        assert_eq!(
            code("ROWS BETWEEN UNBOUNDED FOLLOWING AND 1 FOLLOWING"),
            Some(4014)
        );
        assert_eq!(
            code("ROWS BETWEEN 1.5 PRECEDING AND CURRENT ROW"),
            Some(4020)
        );
        assert_eq!(
            code("RANGE BETWEEN 1 PRECEDING AND CURRENT ROW"),
            Some(1235)
        );
        assert_eq!(code("ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING"), Some(1235));
        let f = frame_of(&window("ROWS BETWEEN 2 PRECEDING AND UNBOUNDED FOLLOWING")).unwrap();
        assert_eq!(
            (f.rows, f.start, f.end),
            (true, Bound::Preceding(2), Bound::UnboundedFollowing)
        );
    }
}
