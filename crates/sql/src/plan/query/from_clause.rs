//! A table SELECT's FROM clause: its tables and joins, each table resolved (stored,
//! information_schema, derived or a common table expression), and how each join step
//! finds its rows.

use crate::error::SqlError;
use crate::expr::{Compiler, Expr};
use crate::parser::source::SourceMap;
use crate::plan::from_ast::table_factor;
use crate::plan::CompileCtx;
use myriad_types::errors::ER_NONUNIQ_TABLE;
use sqlparser::ast;

/// One table of FROM: the table, whether it is LEFT JOINed, and its ON condition.
pub(super) type Relation<'a> = (&'a ast::TableFactor, bool, Option<&'a ast::Expr>);

/// FROM a, b JOIN c ON ... LEFT JOIN d ON ...: tables in order, each with its join kind.
pub(super) fn from_relations(select: &ast::Select) -> Result<Vec<Relation<'_>>, SqlError> {
    let mut relations: Vec<Relation> = Vec::new();
    for twj in &select.from {
        relations.push((&twj.relation, false, None));
        for j in &twj.joins {
            let (left, constraint) = match &j.join_operator {
                ast::JoinOperator::Join(c)
                | ast::JoinOperator::Inner(c)
                | ast::JoinOperator::CrossJoin(c) => (false, c),
                ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => (true, c),
                _ => return Err(SqlError::not_supported("this kind of join")),
            };
            let on = match constraint {
                ast::JoinConstraint::On(e) => Some(e),
                ast::JoinConstraint::None => None,
                _ => return Err(SqlError::not_supported("JOIN ... USING and NATURAL JOIN")),
            };
            relations.push((&j.relation, left, on));
        }
    }
    Ok(relations)
}

/// The tables of FROM, resolved; two with the same alias are an error.
pub(super) fn table_refs(
    relations: &[Relation],
    ctx: &CompileCtx,
    subqueries: (&SourceMap, &Compiler),
) -> Result<Vec<crate::plan::tables::TableRef>, SqlError> {
    let mut refs: Vec<crate::plan::tables::TableRef> = Vec::new();
    for (relation, _, _) in relations {
        refs.push(table_factor(
            relation,
            ctx.catalog.storage(),
            ctx,
            Some(subqueries),
        )?);
    }
    for (n, r) in refs.iter().enumerate() {
        if refs[..n]
            .iter()
            .any(|x| x.alias.eq_ignore_ascii_case(&r.alias))
        {
            return Err(SqlError::new(
                ER_NONUNIQ_TABLE,
                format!("Not unique table/alias: '{}'", r.alias),
            ));
        }
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
    tc: &Compiler,
    filter: Option<&Expr>,
) -> Result<Vec<crate::plan::tables::JoinStep>, SqlError> {
    let mut joins = Vec::new();
    for (n, (_, left, on)) in relations.iter().enumerate().skip(1) {
        let on = on.map(|e| tc.condition(e)).transpose()?;
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
