//! A table SELECT's select list: wildcards expanded, items compiled and named, and the
//! items that ORDER BY and GROUP BY name by position or alias.

use super::item_name;
use crate::error::SqlError;
use crate::expr::{err_syntax, Compiler, Expr};
use crate::parser::source::SourceMap;
use crate::plan::tables::{OutputItem, TableRef};
use myriad_types::errors::{ER_BAD_FIELD_ERROR, ER_BAD_TABLE_ERROR};
use sqlparser::ast;

/// The tables (positions in `refs`) whose every column a `*` or `t.*` of the list shows:
/// an account needs SELECT on the whole table for them (1142, not a column's 1143).
pub(super) fn wildcard_tables(select: &ast::Select, refs: &[TableRef]) -> Vec<usize> {
    let mut out = Vec::new();
    for item in &select.projection {
        match item {
            ast::SelectItem::Wildcard(_) => out.extend(0..refs.len()),
            ast::SelectItem::QualifiedWildcard(kind, _) => {
                let qualifier = kind.to_string();
                let qualifier = qualifier.trim_end_matches(".*").trim_matches('`');
                out.extend(
                    refs.iter()
                        .position(|r| r.alias.eq_ignore_ascii_case(qualifier)),
                );
            }
            _ => {}
        }
    }
    out
}

/// The select list: wildcards expanded to the tables' columns (`*` to `star`'s, see
/// `from_clause::coalesce`), each expression compiled
/// (with `ec`, which sees the aggregate columns) and named; aliases are noted in `aliases`.
#[allow(clippy::too_many_arguments)]
pub(super) fn select_items(
    select: &ast::Select,
    refs: &[TableRef],
    offsets: &[usize],
    star: &[(usize, String)],
    rewritten_items: &[Option<ast::Expr>],
    texts: &[String],
    map: &SourceMap,
    ec: &Compiler,
    aliases: &mut Vec<(String, Expr)>,
) -> Result<Vec<OutputItem>, SqlError> {
    let mut items = Vec::new();
    for (position, item) in select.projection.iter().enumerate() {
        match item {
            ast::SelectItem::Wildcard(_) => {
                items.extend(star.iter().map(|(index, name)| OutputItem::Column {
                    index: *index,
                    name: name.clone(),
                }));
            }
            ast::SelectItem::QualifiedWildcard(kind, _) => {
                let qualifier = kind.to_string();
                let qualifier = qualifier.trim_end_matches(".*").trim_matches('`');
                let Some(n) = refs
                    .iter()
                    .position(|r| r.alias.eq_ignore_ascii_case(qualifier))
                else {
                    return Err(SqlError::new(
                        ER_BAD_TABLE_ERROR,
                        format!("Unknown table '{qualifier}'"),
                    ));
                };
                for (i, c) in refs[n].def.columns.iter().enumerate() {
                    items.push(OutputItem::Column {
                        index: offsets[n] + i,
                        name: c.name.clone(),
                    });
                }
            }
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                let name = match item {
                    ast::SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                    _ => unaliased_name(e, texts.get(position), texts.len(), select, map),
                };
                let source = rewritten_items[position].as_ref().unwrap_or(e);
                let expr = ec.compile(source)?;
                if let ast::SelectItem::ExprWithAlias { alias, .. } = item {
                    aliases.push((alias.value.clone(), expr.clone()));
                }
                items.push(match expr {
                    Expr::Column(index) => OutputItem::Column { index, name },
                    Expr::Elements {
                        expr,
                        number: false,
                        ..
                    } if matches!(*expr, Expr::Column(_)) => {
                        let Expr::Column(index) = *expr else {
                            unreachable!("matched above")
                        };
                        OutputItem::Column { index, name }
                    }
                    expr => OutputItem::Expr { expr, name },
                });
            }
            other => return Err(err_syntax(&other.to_string())),
        }
    }
    Ok(items)
}

/// The column name of a select item without an alias: its text as written where the
/// texts of all items are known, `col` for `t.col` (as in MySQL), a string's value.
fn unaliased_name(
    e: &ast::Expr,
    text: Option<&String>,
    texts: usize,
    select: &ast::Select,
    map: &SourceMap,
) -> String {
    match (e, text) {
        (ast::Expr::CompoundIdentifier(parts), _) if parts.len() > 1 => {
            parts.last().map(|p| p.value.clone()).unwrap_or_default()
        }
        (ast::Expr::Value(v), _)
            if matches!(
                v.value,
                ast::Value::SingleQuotedString(_) | ast::Value::DoubleQuotedString(_)
            ) =>
        {
            item_name(e, map)
        }
        // A quoted column name is named without its quotes, as MariaDB names it.
        (ast::Expr::Identifier(id), Some(t))
            if id.quote_style == Some('`') && t.starts_with('`') =>
        {
            id.value.clone()
        }
        (_, Some(t)) if texts == select.projection.len() && !t.is_empty() => t.clone(),
        _ => item_name(e, map),
    }
}

/// ORDER BY / GROUP BY may name a select item by position or alias: that item's expression.
pub(super) fn by_item(
    e: &ast::Expr,
    clause: &str,
    items: &[OutputItem],
    aliases: &[(String, Expr)],
    has_column: &dyn Fn(&str) -> bool,
) -> Result<Option<Expr>, SqlError> {
    match e {
        ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)) => {
            let n: usize = v.value.to_string().parse().unwrap_or(0);
            match items.get(n.wrapping_sub(1)) {
                Some(OutputItem::Column { index, .. }) => Ok(Some(Expr::Column(*index))),
                Some(OutputItem::Expr { expr, .. }) => Ok(Some(expr.clone())),
                None => Err(SqlError::new(
                    ER_BAD_FIELD_ERROR,
                    format!("Unknown column '{n}' in '{clause}'"),
                )),
            }
        }
        ast::Expr::Identifier(id) if !has_column(&id.value) => Ok(aliases
            .iter()
            .find(|(a, _)| a.eq_ignore_ascii_case(&id.value))
            .map(|(_, e)| e.clone())),
        _ => Ok(None),
    }
}

/// A GROUP BY key `written` as a select item's position or alias, `key` that item's
/// expression: 1056 when it reads an aggregate's value (a column of `aggregates`), as
/// MariaDB cannot group on an aggregate.
pub(super) fn group_key(
    key: Expr,
    written: &ast::Expr,
    items: &[OutputItem],
    aggregates: std::ops::Range<usize>,
) -> Result<Expr, SqlError> {
    let mut aggregate = false;
    crate::plan::access::visit_columns(&key, &mut |i| aggregate |= aggregates.contains(&i));
    if !aggregate {
        return Ok(key);
    }
    let name = match written {
        ast::Expr::Value(v) => {
            let n: usize = v.value.to_string().parse().unwrap_or(0);
            match items.get(n.wrapping_sub(1)) {
                Some(OutputItem::Column { name, .. } | OutputItem::Expr { name, .. }) => {
                    name.clone()
                }
                None => n.to_string(),
            }
        }
        other => other.to_string(),
    };
    Err(SqlError::of(
        myriad_types::errors::ER_WRONG_GROUP_FIELD,
        &[&name],
    ))
}
