//! MariaDB's canonical text of a view's SELECT, as SHOW CREATE VIEW and
//! information_schema.VIEWS print it: every column qualified by its table (`t`.`a`), every
//! item named (`... AS `a``), keywords in lower case, operators spaced, the joins in
//! parentheses (`from (`t` join `u` on(`t`.`a` = `u`.`a`))`), `count(*)` as `count(0)`.
//!
//! Printed for the common shapes only: one SELECT over tables and views with joins (inner,
//! left, comma), WHERE, GROUP BY, HAVING, ORDER BY, LIMIT; columns, numbers, plain
//! strings, NULL; arithmetic, comparisons, AND/OR, IN, BETWEEN, LIKE, IS NULL, IS NOT NULL; a few
//! functions whose names MariaDB prints as written. Anything else gives None, and the view
//! then answers SHOW CREATE VIEW with 1235 rather than a text MariaDB would not print.

use crate::catalog::views::ViewDef;
use crate::plan::CompileCtx;
use sqlparser::ast::{self, BinaryOperator as Op, Expr};

/// The SELECT of view `def` (of database `database`) as MariaDB prints it: tables of the
/// `current` database unqualified, as SHOW CREATE VIEW prints them, or all qualified
/// (`current` None), as information_schema.VIEWS does; None where this server cannot
/// print it exactly.
pub(crate) fn canonical(
    def: &ViewDef,
    database: &str,
    current: Option<&str>,
    ctx: &CompileCtx,
) -> Option<String> {
    let (_, _, query) = crate::plan::view::parse_select(&def.source).ok()?;
    let tables = from_tables(&query, database, ctx)?;
    let aliases = select_aliases(&query);
    Printer {
        current,
        tables: &tables,
        aliases: &aliases,
        in_having: std::cell::Cell::new(false),
        bare_columns: false,
    }
    .query(&query, &def.columns)
}

/// A table of the FROM clause: its database, name, alias and column names.
struct FromTable {
    /// A view: its columns print qualified by its name alone, as MariaDB prints them.
    view: bool,
    database: String,
    name: String,
    alias: Option<String>,
    columns: Vec<String>,
}

fn from_tables(query: &ast::Query, database: &str, ctx: &CompileCtx) -> Option<Vec<FromTable>> {
    let ast::SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    let mut out = Vec::new();
    for twj in &select.from {
        for factor in std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation)) {
            let ast::TableFactor::Table {
                name,
                alias,
                args: None,
                with_hints,
                ..
            } = factor
            else {
                return None;
            };
            if !with_hints.is_empty() || alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
                return None;
            }
            let (db, table) =
                crate::plan::tables::resolve_name_in_place(name, Some(database)).ok()?;
            let (view, columns) =
                match crate::plan::tables::open_ref(ctx.catalog.storage(), db, table, None) {
                    Ok(t) if t.made.is_none() => (
                        false,
                        t.def.columns.iter().map(|c| c.name.clone()).collect(),
                    ),
                    Ok(_) => return None,
                    Err(_) => (
                        true,
                        crate::catalog::views::read(ctx.catalog.storage(), db, table)
                            .ok()??
                            .columns,
                    ),
                };
            out.push(FromTable {
                view,
                database: db.to_string(),
                name: table.to_string(),
                alias: alias.as_ref().map(|a| a.name.value.clone()),
                columns,
            });
        }
    }
    Some(out)
}

/// The names the select items give themselves (`AS name`), which HAVING may read.
fn select_aliases(query: &ast::Query) -> Vec<String> {
    let ast::SetExpr::Select(select) = query.body.as_ref() else {
        return Vec::new();
    };
    select
        .projection
        .iter()
        .filter_map(|item| match item {
            ast::SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
            _ => None,
        })
        .collect()
}

/// Whether an item of a comma list has joins of its own.
fn twj_has_joins(from: &[ast::TableWithJoins]) -> bool {
    from.iter().any(|t| !t.joins.is_empty())
}

pub(crate) fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Binding strength of an operator as MariaDB prints it (higher binds tighter).
fn precedence(op: &Op) -> Option<(u8, &'static str)> {
    Some(match op {
        Op::Or => (1, "or"),
        Op::Xor => (2, "xor"),
        Op::And => (3, "and"),
        Op::Eq => (5, "="),
        Op::NotEq => (5, "<>"),
        Op::Lt => (5, "<"),
        Op::LtEq => (5, "<="),
        Op::Gt => (5, ">"),
        Op::GtEq => (5, ">="),
        Op::Spaceship => (5, "<=>"),
        Op::Plus => (9, "+"),
        Op::Minus => (9, "-"),
        Op::Multiply => (10, "*"),
        Op::Divide => (10, "/"),
        Op::MyIntegerDivide => (10, "DIV"),
        Op::Modulo => (10, "MOD"),
        _ => return None,
    })
}

/// Functions whose name MariaDB prints as it is written (in lower case).
const PLAIN_FUNCTIONS: &[&str] = &[
    "abs",
    "avg",
    "char_length",
    "coalesce",
    "concat",
    "count",
    "ifnull",
    "json_valid",
    "max",
    "min",
    "sum",
];

/// Functions MariaDB prints under another of their names.
const RENAMED_FUNCTIONS: &[(&str, &str)] = &[
    ("length", "octet_length"),
    ("upper", "ucase"),
    ("lower", "lcase"),
];

/// A CHECK constraint's condition as MariaDB prints it (columns unqualified: `` `a` > 0 ``),
/// over a table whose columns are `columns`; None where this server cannot print it
/// exactly.
pub(crate) fn check_clause(e: &Expr, columns: &[String]) -> Option<String> {
    let table = FromTable {
        view: false,
        database: String::new(),
        name: String::new(),
        alias: None,
        columns: columns.to_vec(),
    };
    Printer {
        current: None,
        tables: std::slice::from_ref(&table),
        aliases: &[],
        in_having: std::cell::Cell::new(false),
        bare_columns: true,
    }
    .expr(e, 0)
}

struct Printer<'a> {
    /// The database whose tables print unqualified (None: every table is qualified).
    current: Option<&'a str>,
    /// Columns print without their table (a CHECK constraint's condition).
    bare_columns: bool,
    tables: &'a [FromTable],
    aliases: &'a [String],
    /// Printing HAVING, where a bare name may be a select item's alias.
    in_having: std::cell::Cell<bool>,
}

impl Printer<'_> {
    fn table_name(&self, t: &FromTable) -> String {
        match self.current != Some(t.database.as_str()) {
            true => format!("{}.{}", quote(&t.database), quote(&t.name)),
            false => quote(&t.name),
        }
    }

    /// How a column of `t` is qualified.
    fn qualifier(&self, t: &FromTable) -> String {
        match &t.alias {
            Some(a) => quote(a),
            None if t.view => quote(&t.name),
            None => self.table_name(t),
        }
    }

    fn query(&self, q: &ast::Query, names: &[String]) -> Option<String> {
        if q.with.is_some() || q.fetch.is_some() || !q.locks.is_empty() || q.for_clause.is_some() {
            return None;
        }
        let ast::SetExpr::Select(select) = q.body.as_ref() else {
            return None;
        };
        let mut out = String::from("select ");
        match &select.distinct {
            None => {}
            Some(ast::Distinct::Distinct) => out.push_str("distinct "),
            Some(_) => return None,
        }
        if select.top.is_some() || select.into.is_some() || select.prewhere.is_some() {
            return None;
        }
        let items = self.items(&select.projection)?;
        if items.len() != names.len() {
            return None;
        }
        let items: Vec<String> = items
            .into_iter()
            .zip(names)
            .map(|(text, name)| format!("{text} AS {}", quote(name)))
            .collect();
        out.push_str(&items.join(","));
        if !select.from.is_empty() {
            out.push_str(" from ");
            out.push_str(&self.from(&select.from)?);
        }
        if let Some(w) = &select.selection {
            out.push_str(" where ");
            out.push_str(&self.expr(w, 0)?);
        }
        match &select.group_by {
            ast::GroupByExpr::Expressions(list, modifiers) if modifiers.is_empty() => {
                if !list.is_empty() {
                    let list: Option<Vec<String>> = list.iter().map(|e| self.expr(e, 0)).collect();
                    out.push_str(" group by ");
                    out.push_str(&list?.join(","));
                }
            }
            _ => return None,
        }
        if let Some(h) = &select.having {
            out.push_str(" having ");
            out.push_str(&self.having(h)?);
        }
        if let Some(order) = &q.order_by {
            let ast::OrderByKind::Expressions(list) = &order.kind else {
                return None;
            };
            let mut parts = Vec::new();
            for o in list {
                if o.with_fill.is_some() || o.options.nulls_first.is_some() {
                    return None;
                }
                let mut text = self.expr(&o.expr, 0)?;
                match o.options.sort {
                    None | Some(ast::OrderBySort::Asc) => {}
                    Some(ast::OrderBySort::Desc) => text.push_str(" desc"),
                    Some(_) => return None,
                }
                parts.push(text);
            }
            out.push_str(" order by ");
            out.push_str(&parts.join(","));
        }
        match &q.limit_clause {
            None => {}
            Some(ast::LimitClause::LimitOffset {
                limit: Some(l),
                offset: None,
                limit_by,
            }) if limit_by.is_empty() => {
                out.push_str(" limit ");
                out.push_str(&self.number(l)?);
            }
            Some(ast::LimitClause::LimitOffset {
                limit: Some(l),
                offset: Some(o),
                limit_by,
            }) if limit_by.is_empty() => {
                out.push_str(&format!(
                    " limit {},{}",
                    self.number(&o.value)?,
                    self.number(l)?
                ));
            }
            Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
                out.push_str(&format!(
                    " limit {},{}",
                    self.number(offset)?,
                    self.number(limit)?
                ));
            }
            Some(_) => return None,
        }
        Some(out)
    }

    fn number(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Value(v) => match &v.value {
                ast::Value::Number(n, false) if n.bytes().all(|b| b.is_ascii_digit()) => {
                    Some(n.clone())
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The select items, `*` and `t.*` expanded into the columns they stand for.
    fn items(&self, projection: &[ast::SelectItem]) -> Option<Vec<String>> {
        let mut out = Vec::new();
        for item in projection {
            match item {
                ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } => out.push(self.expr(e, 0)?),
                ast::SelectItem::Wildcard(options)
                    if options.opt_exclude.is_none()
                        && options.opt_except.is_none()
                        && options.opt_replace.is_none()
                        && options.opt_rename.is_none()
                        && options.opt_ilike.is_none() =>
                {
                    for t in self.tables {
                        for c in &t.columns {
                            out.push(format!("{}.{}", self.qualifier(t), quote(c)));
                        }
                    }
                }
                _ => return None,
            }
        }
        Some(out)
    }

    fn from(&self, from: &[ast::TableWithJoins]) -> Option<String> {
        let mut index = 0;
        let mut text: Option<String> = None;
        let mut joined = 0;
        for twj in from {
            let mut part = self.factor(index);
            index += 1;
            let mut inner = 0;
            for j in &twj.joins {
                let right = self.factor(index);
                index += 1;
                let (kind, constraint) = match &j.join_operator {
                    ast::JoinOperator::Join(c) | ast::JoinOperator::Inner(c) => ("join", c),
                    ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => {
                        ("left join", c)
                    }
                    _ => return None,
                };
                let on = match constraint {
                    ast::JoinConstraint::On(e) => format!(" on({})", self.expr(e, 0)?),
                    ast::JoinConstraint::None if kind == "join" => String::new(),
                    _ => return None,
                };
                part = format!("({part} {kind} {right}{on})");
                inner += 1;
            }
            text = Some(match text {
                None => part,
                Some(left) => {
                    joined += 1;
                    // A comma join of joins, or of more than two tables, would need more
                    // of MariaDB's nesting rules.
                    if inner > 0 || joined > 1 || twj_has_joins(from) {
                        return None;
                    }
                    // MariaDB keeps a comma join as a plain list (information_schema
                    // shows it so) and prints it back as one join in parentheses.
                    match self.current {
                        None => format!("{left} join {part}"),
                        Some(_) => format!("({left} join {part})"),
                    }
                }
            });
        }
        text
    }

    fn factor(&self, index: usize) -> String {
        let t = &self.tables[index];
        match &t.alias {
            Some(a) => format!("{} {}", self.table_name(t), quote(a)),
            None => self.table_name(t),
        }
    }

    /// HAVING prints the select items' aliases it reads unqualified.
    fn having(&self, e: &Expr) -> Option<String> {
        self.in_having.set(true);
        let text = self.expr(e, 0);
        self.in_having.set(false);
        text
    }

    fn column(&self, parts: &[ast::Ident]) -> Option<String> {
        let (table, column) = match parts {
            [c] => (None, c),
            [t, c] => (Some((None, t)), c),
            [d, t, c] => (Some((Some(d), t)), c),
            _ => return None,
        };
        let matches = |t: &FromTable| match &table {
            None => t
                .columns
                .iter()
                .any(|c| c.eq_ignore_ascii_case(&column.value)),
            Some((db, name)) => match &t.alias {
                Some(a) => db.is_none() && a == &name.value,
                None => t.name == name.value && db.is_none_or(|d| d.value == t.database),
            },
        };
        let mut found = self.tables.iter().filter(|t| matches(t));
        let t = found.next()?;
        if found.next().is_some() {
            return None;
        }
        let name = t
            .columns
            .iter()
            .find(|c| c.eq_ignore_ascii_case(&column.value))?;
        if self.bare_columns {
            return Some(quote(name));
        }
        Some(format!("{}.{}", self.qualifier(t), quote(name)))
    }

    /// `e` printed where an operator of precedence `outer` holds it.
    fn expr(&self, e: &Expr, outer: u8) -> Option<String> {
        let wrap = |text: String, own: u8| match own < outer {
            true => format!("({text})"),
            false => text,
        };
        Some(match e {
            Expr::Identifier(id)
                if self.in_having.get()
                    && self
                        .aliases
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case(&id.value)) =>
            {
                quote(&id.value)
            }
            Expr::Identifier(id) => self.column(std::slice::from_ref(id))?,
            Expr::CompoundIdentifier(parts) => self.column(parts)?,
            Expr::Value(v) => match &v.value {
                ast::Value::Number(n, false) => n.clone(),
                ast::Value::SingleQuotedString(s) if !s.contains(['\'', '\\']) && s.is_ascii() => {
                    format!("'{s}'")
                }
                ast::Value::Null => "NULL".into(),
                _ => return None,
            },
            Expr::Nested(inner) => self.expr(inner, outer)?,
            Expr::BinaryOp { left, op, right } => {
                let (own, word) = precedence(op)?;
                let same = |x: &Expr| matches!(x, Expr::BinaryOp { op: o, .. } if o == op);
                // AND and OR lists print flat; other operators keep a right operand of
                // the same strength in parentheses.
                let flat = matches!(op, Op::And | Op::Or);
                let l = self.expr(left, own)?;
                let r = match flat && same(right) {
                    true => self.expr(right, own)?,
                    false => self.expr(right, own + u8::from(!flat))?,
                };
                wrap(format!("{l} {word} {r}"), own)
            }
            Expr::InList {
                expr,
                list,
                negated,
            } => {
                let list: Option<Vec<String>> = list.iter().map(|x| self.expr(x, 0)).collect();
                let not = if *negated { " not" } else { "" };
                wrap(
                    format!("{}{not} in ({})", self.expr(expr, 6)?, list?.join(",")),
                    5,
                )
            }
            Expr::Between {
                expr,
                negated: false,
                low,
                high,
            } => wrap(
                format!(
                    "{} between {} and {}",
                    self.expr(expr, 6)?,
                    self.expr(low, 6)?,
                    self.expr(high, 6)?
                ),
                5,
            ),
            Expr::Like {
                negated: false,
                any: false,
                expr,
                pattern,
                escape_char: None,
            } => wrap(
                format!("{} like {}", self.expr(expr, 6)?, self.expr(pattern, 6)?),
                5,
            ),
            Expr::IsNull(x) => wrap(format!("{} is null", self.expr(x, 6)?), 5),
            Expr::IsNotNull(x) => wrap(format!("{} is not null", self.expr(x, 6)?), 5),
            Expr::Function(f) => self.function(f)?,
            Expr::UnaryOp {
                op: ast::UnaryOperator::Minus,
                expr,
            } if !matches!(**expr, Expr::Value(_)) => format!("-{}", self.expr(expr, u8::MAX)?),
            _ => return None,
        })
    }

    fn function(&self, f: &ast::Function) -> Option<String> {
        let [ast::ObjectNamePart::Identifier(id)] = f.name.0.as_slice() else {
            return None;
        };
        let mut name = id.value.to_ascii_lowercase();
        if let Some((_, printed)) = RENAMED_FUNCTIONS.iter().find(|(n, _)| *n == name) {
            name = printed.to_string();
        } else if !PLAIN_FUNCTIONS.contains(&name.as_str()) {
            return None;
        }
        if id.quote_style.is_some()
            || f.filter.is_some()
            || f.over.is_some()
            || f.null_treatment.is_some()
            || !f.within_group.is_empty()
            || !matches!(f.parameters, ast::FunctionArguments::None)
        {
            return None;
        }
        let ast::FunctionArguments::List(list) = &f.args else {
            return None;
        };
        if !list.clauses.is_empty() {
            return None;
        }
        let distinct = match list.duplicate_treatment {
            None => "",
            Some(ast::DuplicateTreatment::Distinct) => "distinct ",
            Some(ast::DuplicateTreatment::All) => return None,
        };
        let mut args = Vec::new();
        for a in &list.args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) if name == "count" => {
                    args.push("0".to_string())
                }
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                    args.push(self.expr(e, 0)?)
                }
                _ => return None,
            }
        }
        Some(format!("{name}({distinct}{})", args.join(",")))
    }
}
