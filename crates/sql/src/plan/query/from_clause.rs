//! A table SELECT's FROM clause: its tables and joins, each table resolved (stored,
//! information_schema, derived or a common table expression), and how each join step
//! finds its rows.
//!
//! `JOIN ... USING (c, ...)` and `NATURAL JOIN` join on equal columns, as MariaDB does:
//! the columns are looked up among the tables joined before, in the same FROM item only
//! (`a, b NATURAL JOIN c` joins b and c); each is compared as `left.c = right.c`; an
//! unqualified `c` then names the left one (the right one only as `right.c`), and `*`
//! shows the joined columns first, once, then the others of the left, then of the right.

use crate::error::SqlError;
use crate::expr::{Compiler, Expr};
use crate::parser::source::SourceMap;
use crate::plan::from_ast::table_factor;
use crate::plan::CompileCtx;
use myriad_types::errors::{ER_BAD_FIELD_ERROR, ER_NONUNIQ_TABLE, ER_NON_UNIQ_ERROR};
use sqlparser::ast;

/// How a join names its equal columns.
pub(super) enum Using<'a> {
    /// `USING (c, ...)`.
    Columns(&'a [ast::ObjectName]),
    /// `NATURAL`: every column name the two sides share.
    Natural,
}

/// One table of FROM with its join.
pub(super) struct Relation<'a> {
    pub(super) factor: &'a ast::TableFactor,
    /// LEFT JOINed.
    pub(super) left: bool,
    pub(super) on: Option<&'a ast::Expr>,
    pub(super) using: Option<Using<'a>>,
    /// The position of its FROM item's first table: USING and NATURAL look no further back.
    pub(super) item_start: usize,
}

/// FROM a, b JOIN c ON ... LEFT JOIN d USING (x): tables in order, each with its join.
pub(super) fn from_relations(select: &ast::Select) -> Result<Vec<Relation<'_>>, SqlError> {
    let mut relations: Vec<Relation> = Vec::new();
    for twj in &select.from {
        let item_start = relations.len();
        relations.push(Relation {
            factor: &twj.relation,
            left: false,
            on: None,
            using: None,
            item_start,
        });
        for j in &twj.joins {
            let (left, constraint) = match &j.join_operator {
                ast::JoinOperator::Join(c)
                | ast::JoinOperator::Inner(c)
                | ast::JoinOperator::CrossJoin(c) => (false, c),
                ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => (true, c),
                _ => return Err(SqlError::not_supported("this kind of join")),
            };
            let (on, using) = match constraint {
                ast::JoinConstraint::On(e) => (Some(e), None),
                ast::JoinConstraint::None => (None, None),
                ast::JoinConstraint::Using(names) => (None, Some(Using::Columns(names))),
                ast::JoinConstraint::Natural => (None, Some(Using::Natural)),
            };
            relations.push(Relation {
                factor: &j.relation,
                left,
                on,
                using,
                item_start,
            });
        }
    }
    Ok(relations)
}

/// What USING and NATURAL make of FROM (see the module doc).
pub(super) struct Coalesced {
    /// Per relation, the equalities its USING or NATURAL joins on.
    pub(super) on: Vec<Option<ast::Expr>>,
    /// Positions an unqualified name does not see: the right-hand copies.
    pub(super) hidden: Vec<usize>,
    /// The columns `*` shows, in order: (position, name).
    pub(super) star: Vec<(usize, String)>,
}

/// The joins on equal columns of `relations` (resolved as `refs`, whose columns start at
/// `offsets` in the row).
pub(super) fn coalesce(
    relations: &[Relation],
    refs: &[crate::plan::tables::TableRef],
    offsets: &[usize],
) -> Result<Coalesced, SqlError> {
    // Each position's table and column name.
    let mut names: Vec<(usize, &str)> = Vec::new();
    for (n, r) in refs.iter().enumerate() {
        names.extend(r.def.columns.iter().map(|c| (n, c.name.as_str())));
    }
    let mut out = Coalesced {
        on: Vec::new(),
        hidden: Vec::new(),
        star: Vec::new(),
    };
    // The visible columns of the current FROM item, in `*` order.
    let mut item: Vec<usize> = Vec::new();
    for (n, relation) in relations.iter().enumerate() {
        let own: Vec<usize> = (offsets[n]..offsets[n] + refs[n].def.columns.len()).collect();
        let using = match &relation.using {
            Some(using) if relation.item_start != n => using,
            _ => {
                if relation.item_start == n {
                    out.star
                        .extend(item.drain(..).map(|p| (p, names[p].1.to_string())));
                }
                item.extend(own);
                out.on.push(None);
                continue;
            }
        };
        let wanted: Vec<String> = match using {
            Using::Columns(list) => list.iter().map(column_name).collect(),
            Using::Natural => {
                let mut shared: Vec<String> = Vec::new();
                for &p in &item {
                    let name = names[p].1;
                    if refs[n].def.column_index(name).is_some()
                        && !shared.iter().any(|s| s.eq_ignore_ascii_case(name))
                    {
                        shared.push(name.to_string());
                    }
                }
                shared
            }
        };
        let (mut lefts, mut rights, mut equalities) = (Vec::new(), Vec::new(), Vec::new());
        for name in &wanted {
            let mut found = item
                .iter()
                .filter(|&&p| names[p].1.eq_ignore_ascii_case(name));
            let (Some(&left), Some(right)) = (found.next(), refs[n].def.column_index(name)) else {
                return Err(SqlError::new(
                    ER_BAD_FIELD_ERROR,
                    format!("Unknown column '{name}' in 'FROM'"),
                ));
            };
            if found.next().is_some() {
                return Err(SqlError::new(
                    ER_NON_UNIQ_ERROR,
                    format!("Column '{name}' in FROM is ambiguous"),
                ));
            }
            let right = offsets[n] + right;
            equalities.push(ast::Expr::BinaryOp {
                left: Box::new(qualified(&refs[names[left].0].alias, names[left].1)),
                op: ast::BinaryOperator::Eq,
                right: Box::new(qualified(&refs[n].alias, names[right].1)),
            });
            lefts.push(left);
            rights.push(right);
        }
        out.on
            .push(equalities.into_iter().reduce(|a, b| ast::Expr::BinaryOp {
                left: Box::new(a),
                op: ast::BinaryOperator::And,
                right: Box::new(b),
            }));
        // The joined columns in the left side's order, whatever the USING list's.
        let joined = item.iter().filter(|p| lefts.contains(p));
        let rest = item.iter().filter(|p| !lefts.contains(p));
        let right_rest = own.iter().filter(|p| !rights.contains(p));
        item = joined.chain(rest).chain(right_rest).copied().collect();
        out.hidden.extend(rights);
    }
    out.star
        .extend(item.into_iter().map(|p| (p, names[p].1.to_string())));
    Ok(out)
}

/// The column a USING list names (its last part).
fn column_name(name: &ast::ObjectName) -> String {
    name.0
        .last()
        .and_then(|part| part.as_ident())
        .map(|ident| ident.value.clone())
        .unwrap_or_default()
}

/// `table`.`column`, quoted.
fn qualified(table: &str, column: &str) -> ast::Expr {
    ast::Expr::CompoundIdentifier(vec![
        ast::Ident::with_quote('`', table),
        ast::Ident::with_quote('`', column),
    ])
}

/// The tables of FROM, resolved; two with the same alias are an error.
pub(super) fn table_refs(
    relations: &[Relation],
    ctx: &CompileCtx,
    subqueries: (&SourceMap, &Compiler),
) -> Result<Vec<crate::plan::tables::TableRef>, SqlError> {
    let mut refs: Vec<crate::plan::tables::TableRef> = Vec::new();
    for relation in relations {
        refs.push(table_factor(
            relation.factor,
            ctx.catalog.storage(),
            ctx,
            Some(subqueries),
        )?);
    }
    if let Some(r) = myriad_storage::first_repeated_name(&refs, |r| &r.alias) {
        return Err(SqlError::new(
            ER_NONUNIQ_TABLE,
            format!("Not unique table/alias: '{}'", r.alias),
        ));
    }
    Ok(refs)
}

/// The joined tables after the first, each with its ON condition and how to look it up.
/// The join steps after the first table. An inner step looks its rows up by an equality
/// of ON, else of WHERE (`FROM a, b WHERE b.k = a.x`): a row the WHERE equality rejects
/// could not pass WHERE, which is still applied to every joined row.
pub(super) fn join_steps(
    relations: &[Relation],
    refs: &[crate::plan::tables::TableRef],
    offsets: &[usize],
    using_on: &[Option<ast::Expr>],
    tc: &Compiler,
    filter: Option<&Expr>,
) -> Result<Vec<crate::plan::tables::JoinStep>, SqlError> {
    let mut joins = Vec::new();
    for (n, relation) in relations.iter().enumerate().skip(1) {
        let left = &relation.left;
        let on = (relation.on.or(using_on[n].as_ref()))
            .map(|e| tc.condition(e))
            .transpose()?;
        let def = &refs[n].def;
        let lookup = crate::plan::access::join_lookup(on.as_ref(), def, offsets[n]).or_else(|| {
            (!*left)
                .then(|| crate::plan::access::join_lookup(filter, def, offsets[n]))
                .flatten()
        });
        joins.push(crate::plan::tables::JoinStep {
            table: refs[n].clone(),
            offset: offsets[n],
            left: *left,
            on,
            lookup,
        });
    }
    Ok(joins)
}
