//! Statements that sqlparser parses: from its AST to our statement types.

use crate::error::SqlError;
use crate::expr::err_syntax;
use crate::expr::Compiler;
use crate::expr::Expr;
use crate::parser::dialect::MyriadDialect;
use myriad_types::errors::{
    ER_BAD_FIELD_ERROR, ER_KEY_COLUMN_DOES_NOT_EXIST, ER_WRONG_VALUE_COUNT_ON_ROW,
};

use crate::parser::source::*;
use crate::plan::query::*;
use crate::plan::statements::*;
use crate::plan::*;
use sqlparser::ast;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan};

pub(crate) fn parse_with_sqlparser(
    raw: &RawStatement,
    map: &SourceMap,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    let (tokens, lists) = crate::parser::const_lists::extract(&raw.tokens);
    let lists = crate::parser::const_lists::ListSource {
        tokens: &raw.tokens,
        lists,
    };
    let compiler = &Compiler {
        lists: Some(&lists),
        ..*compiler
    };
    let statement = parse_statement(raw, map, tokens)?;
    match statement {
        ast::Statement::Query(q) => compile_query(&q, raw, map, compiler, ctx),
        s @ (ast::Statement::Insert(_) | ast::Statement::Update(_) | ast::Statement::Delete(_)) => {
            dml(s, compiler, ctx)
        }
        s => ddl(s, compiler, ctx),
    }
}

/// sqlparser's tree of one statement from its tokens (the literal lists already taken out),
/// with MySQL's syntax error at the place the parser stopped.
pub(crate) fn parse_statement(
    raw: &RawStatement,
    map: &SourceMap,
    tokens: Vec<TokenWithSpan>,
) -> Result<ast::Statement, SqlError> {
    let dialect = MyriadDialect::default();
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(crate::depth::PARSER_RECURSION_LIMIT)
        .with_tokens_with_locations(rewrite_tokens(tokens));
    let statement = parser.parse_statement().map_err(|e| {
        if let Some(too_deep) = crate::depth::parser_error(&e) {
            return too_deep;
        }
        let at = error_offset(map, &e.to_string())
            .unwrap_or(raw.text.end)
            .clamp(raw.text.start, raw.text.end);
        err_syntax(map.source().get(at..raw.text.end).unwrap_or(""))
    })?;
    if parser.peek_token().token != Token::EOF {
        let t = parser.peek_token();
        let at = map.offset(t.span.start.line, t.span.start.column);
        return Err(err_syntax(map.source().get(at..raw.text.end).unwrap_or("")));
    }
    // The parser's copy of the tokens is dropped here: it is not needed to compile the tree.
    Ok(statement)
}

/// CREATE TABLE: with columns, `LIKE other` (its definition copied, indexes included) or
/// `... SELECT` (the query's result columns after those given, filled with its rows).
fn create_table(
    ct: &ast::CreateTable,
    compiler: &Compiler,
    ctx: &CompileCtx,
) -> Result<Stmt, SqlError> {
    if ct.temporary {
        return Err(SqlError::not_supported("CREATE TEMPORARY TABLE"));
    }
    let storage = ctx.catalog.storage();
    let (database, name) = crate::plan::tables::resolve_name(&ct.name, ctx.database)?;
    if let Some(
        ast::CreateTableLikeKind::Plain(source) | ast::CreateTableLikeKind::Parenthesized(source),
    ) = &ct.like
    {
        let (db, table) = crate::plan::tables::resolve_name(&source.name, ctx.database)?;
        let source = crate::plan::tables::open_ref(storage, &db, &table, None)?;
        if source.made.is_some() {
            return Err(SqlError::not_supported(
                "CREATE TABLE ... LIKE a table of information_schema",
            ));
        }
        // As in MariaDB, the copy takes no FOREIGN KEY constraints (their keys stay).
        let mut def = (*source.def).clone();
        def.foreign_keys.clear();
        return Ok(Stmt::CreateTable {
            database,
            name,
            def,
            if_not_exists: ct.if_not_exists,
            like: Some((db, table)),
            select: None,
        });
    }
    // A table that names no collation takes its database's.
    let db_collation = storage.database_collation(&database).unwrap_or_default();
    let mut def = crate::plan::table_def::table_def(ct, &database, db_collation, compiler)?;
    let mut select = None;
    if let Some(query) = &ct.query {
        let plan = compiler.subquery(query)?;
        let columns = crate::plan::Stmt::of_subquery(plan.as_ref())
            .map(crate::plan::derived::result_columns)
            .transpose()?
            .unwrap_or_default();
        let mut positions = Vec::with_capacity(columns.len());
        for column in columns {
            // A column the statement defines keeps its definition; the others are added.
            let position = match def.column_index(&column.name) {
                Some(i) => i,
                None => {
                    def.columns.push(column);
                    def.columns.len() - 1
                }
            };
            positions.push(position);
        }
        select = Some((plan, positions));
        def.validate().map_err(crate::catalog::storage_error)?;
    }
    Ok(Stmt::CreateTable {
        database,
        name,
        def,
        if_not_exists: ct.if_not_exists,
        like: None,
        select,
    })
}

/// CREATE, DROP, ALTER, RENAME and TRUNCATE of tables and indexes.
fn ddl(statement: ast::Statement, compiler: &Compiler, ctx: &CompileCtx) -> Result<Stmt, SqlError> {
    if let Some(stmt) = crate::plan::drop_view::plan(&statement, ctx.database) {
        return stmt;
    }
    let storage = ctx.catalog.storage();
    match statement {
        ast::Statement::CreateTable(ct) => create_table(&ct, compiler, ctx),
        ast::Statement::Drop {
            object_type: ast::ObjectType::Table,
            if_exists,
            names,
            ..
        } => {
            let tables = names
                .iter()
                .map(|n| crate::plan::tables::resolve_name(n, ctx.database))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Stmt::DropTables { tables, if_exists })
        }
        ast::Statement::AlterTable(at) => {
            let (db, name) = crate::plan::tables::resolve_name(&at.name, ctx.database)?;
            let table = crate::plan::tables::open_ref(storage, &db, &name, None)?;
            let (def, sources) =
                crate::plan::alter::alter_def(&table.def, (&db, &name), &at.operations, compiler)?;
            Ok(Stmt::AlterTable {
                table,
                def,
                sources,
            })
        }
        ast::Statement::RenameTable(list) => {
            let mut renames = Vec::new();
            for r in &list {
                renames.push((
                    crate::plan::tables::resolve_name(&r.old_name, ctx.database)?,
                    crate::plan::tables::resolve_name(&r.new_name, ctx.database)?,
                ));
            }
            Ok(Stmt::RenameTables { renames })
        }
        ast::Statement::CreateIndex(ci) => create_index(&ci, ctx),
        ast::Statement::Drop {
            object_type: ast::ObjectType::Index,
            names,
            table: Some(table),
            ..
        } => {
            let (database, name) = crate::plan::tables::resolve_name(&table, ctx.database)?;
            let [index] = names.as_slice() else {
                return Err(err_syntax("DROP INDEX"));
            };
            Ok(Stmt::AlterIndexes {
                database,
                name,
                add: None,
                drop: Some(index.to_string().trim_matches('`').to_string()),
            })
        }
        ast::Statement::Truncate(t) => {
            let [target] = t.table_names.as_slice() else {
                return Err(SqlError::not_supported("TRUNCATE of several tables"));
            };
            let (database, name) = crate::plan::tables::resolve_name(&target.name, ctx.database)?;
            Ok(Stmt::Truncate { database, name })
        }
        other => Err(SqlError::not_supported(&first_words(&other.to_string()))),
    }
}

/// CREATE INDEX: a table rebuild with one more index.
fn create_index(ci: &ast::CreateIndex, ctx: &CompileCtx) -> Result<Stmt, SqlError> {
    let (database, name) = crate::plan::tables::resolve_name(&ci.table_name, ctx.database)?;
    let table = crate::plan::tables::open_ref(ctx.catalog.storage(), &database, &name, None)?;
    let columns = ci
        .columns
        .iter()
        .map(|ic| {
            let col = match &ic.column.expr {
                ast::Expr::Identifier(id) => id.value.clone(),
                ast::Expr::Function(f) => f.name.to_string(),
                other => return Err(err_syntax(&other.to_string())),
            };
            table.def.column_index(&col).ok_or_else(|| {
                SqlError::new(
                    ER_KEY_COLUMN_DOES_NOT_EXIST,
                    format!("Key column '{col}' doesn't exist in table"),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let index_name = match &ci.name {
        Some(n) => n.to_string().trim_matches('`').to_string(),
        None => table.def.columns[columns[0]].name.clone(),
    };
    let kind = if ci.unique {
        myriad_storage::IndexKind::Unique
    } else {
        myriad_storage::IndexKind::NonUnique
    };
    Ok(Stmt::AlterIndexes {
        database,
        name,
        add: Some(myriad_storage::IndexDef {
            name: index_name,
            kind,
            columns,
        }),
        drop: None,
    })
}

/// INSERT, UPDATE and DELETE: their plans over one stored table.
fn dml(statement: ast::Statement, compiler: &Compiler, ctx: &CompileCtx) -> Result<Stmt, SqlError> {
    match statement {
        ast::Statement::Insert(ins) => insert(&ins, compiler, ctx),
        ast::Statement::Update(up) => update(&up, compiler, ctx),
        ast::Statement::Delete(del) => delete(&del, compiler, ctx),
        other => Err(SqlError::not_supported(&first_words(&other.to_string()))),
    }
}

fn insert(ins: &ast::Insert, compiler: &Compiler, ctx: &CompileCtx) -> Result<Stmt, SqlError> {
    let ast::TableObject::TableName(obj) = &ins.table else {
        return Err(SqlError::not_supported("INSERT INTO TABLE FUNCTION"));
    };
    if matches!(ins.on, Some(ast::OnInsert::OnConflict(_))) {
        return Err(SqlError::not_supported("ON CONFLICT"));
    }
    let (db, name) = crate::plan::tables::resolve_name_in_place(obj, ctx.database)?;
    let table = crate::plan::tables::open_ref(ctx.catalog.storage(), db, name, None)?;
    // `INSERT INTO t SET a = 1, b = 2`: one row of the named columns.
    let set_row = ins.source.is_none().then(|| ast::Values {
        explicit_row: false,
        value_keyword: false,
        rows: vec![ast::Parens::with_empty_span(
            ins.assignments.iter().map(|a| a.value.clone()).collect(),
        )],
    });
    let named: Vec<String> = if set_row.is_some() {
        ins.assignments
            .iter()
            .map(|a| match &a.target {
                ast::AssignmentTarget::ColumnName(name) => Ok(name.to_string()),
                other => Err(crate::expr::err_syntax(&other.to_string())),
            })
            .collect::<Result<_, _>>()?
    } else {
        ins.columns.iter().map(|c| c.to_string()).collect()
    };
    let mut columns: Vec<usize> = if named.is_empty() {
        (0..table.def.columns.len()).collect()
    } else {
        named
            .iter()
            .map(|n| column_position(&table, n.trim_matches('`')))
            .collect::<Result<_, _>>()?
    };
    let mut rows = Vec::new();
    let mut select = None;
    let no_values = ast::Values {
        explicit_row: false,
        value_keyword: false,
        rows: Vec::new(),
    };
    let values = match (&set_row, &ins.source) {
        (Some(row), _) => row,
        (None, Some(source)) if matches!(source.body.as_ref(), ast::SetExpr::Values(_)) => {
            let ast::SetExpr::Values(values) = source.body.as_ref() else {
                unreachable!("matched above")
            };
            values
        }
        (None, None) => return Err(crate::expr::err_syntax("")),
        // INSERT ... SELECT (or a set operation, or a parenthesized query).
        (None, Some(source)) => {
            let query = compiler.subquery(source)?;
            let width = crate::plan::Stmt::of_subquery(query.as_ref())
                .map(crate::plan::derived::result_columns)
                .transpose()?
                .map_or(0, |c| c.len());
            if width != columns.len() {
                return Err(SqlError::new(
                    ER_WRONG_VALUE_COUNT_ON_ROW,
                    "Column count doesn't match value count at row 1",
                ));
            }
            select = Some(query);
            &no_values
        }
    };
    // `INSERT INTO t [()] VALUES ()`: rows of defaults, every one empty.
    if named.is_empty() && set_row.is_none() && values.rows.first().is_some_and(|r| r.is_empty()) {
        columns.clear();
    }
    for (n, row) in values.rows.iter().enumerate() {
        if row.len() != columns.len() {
            return Err(SqlError::new(
                ER_WRONG_VALUE_COUNT_ON_ROW,
                format!("Column count doesn't match value count at row {}", n + 1),
            ));
        }
        let compiled = row
            .iter()
            .zip(&columns)
            .map(|(e, &position)| match e {
                ast::Expr::Identifier(id)
                    if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("DEFAULT") =>
                {
                    Ok(None)
                }
                other => Ok(Some(
                    compiler
                        .compile(other)?
                        .stored_in(&table.def.columns[position].ty),
                )),
            })
            .collect::<Result<Vec<_>, SqlError>>()?;
        rows.push(compiled);
    }
    // ON DUPLICATE KEY UPDATE: assignments over the existing row, where VALUES(c)
    // reads the row that was to be inserted (columns `__new_c` after the table's).
    let on_duplicate = match &ins.on {
        Some(ast::OnInsert::DuplicateKeyUpdate(assignments)) => {
            let mut scope = table.scope();
            for c in &table.def.columns {
                let form = crate::plan::tables::text_form(&c.ty);
                scope.push(
                    (None, format!("__new_{}", c.name)),
                    c.ty.string_collation(),
                    form,
                );
            }
            let uc = crate::plan::table_def::table_compiler(compiler, &scope);
            let mut out = Vec::new();
            for a in assignments {
                let position = assigned_column(&table, a)?;
                let value = uc.compile(&values_to_new(&a.value))?;
                out.push((position, value.stored_in(&table.def.columns[position].ty)));
            }
            Some(out)
        }
        _ => None,
    };
    Ok(Stmt::Insert(crate::plan::tables::InsertPlan {
        table,
        columns,
        rows,
        select,
        ignore: ins.ignore,
        replace: ins.replace_into,
        on_duplicate,
    }))
}

fn update(up: &ast::Update, compiler: &Compiler, ctx: &CompileCtx) -> Result<Stmt, SqlError> {
    if up.from.is_some() || !up.table.joins.is_empty() {
        return Err(SqlError::not_supported("multi-table UPDATE"));
    }
    if let ast::TableFactor::Derived { alias, .. } = &up.table.relation {
        let name = alias.as_ref().map_or("", |a| a.name.value.as_str());
        return Err(SqlError::new(
            myriad_types::errors::ER_NON_UPDATABLE_TABLE,
            format!("The target table {name} of the UPDATE is not updatable"),
        ));
    }
    let table = table_factor(&up.table.relation, ctx.catalog.storage(), ctx, None)?;
    let scope = table.scope();
    let tc = crate::plan::table_def::table_compiler(compiler, &scope);
    let mut assignments = Vec::new();
    for a in &up.assignments {
        let position = assigned_column(&table, a)?;
        let value = tc.compile(&a.value)?;
        assignments.push((position, value.stored_in(&table.def.columns[position].ty)));
    }
    let (source, order_by) = row_source(table, &up.selection, &up.order_by, &tc)?;
    let limit = up.limit.as_ref().map(|l| compiler.compile(l)).transpose()?;
    refuse_limited_assignment(&source, &limit)?;
    Ok(Stmt::Update(crate::plan::tables::UpdatePlan {
        source,
        assignments,
        order_by,
        limit,
    }))
}

fn delete(del: &ast::Delete, compiler: &Compiler, ctx: &CompileCtx) -> Result<Stmt, SqlError> {
    let from = match &del.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    let [twj] = from.as_slice() else {
        return Err(SqlError::not_supported("multi-table DELETE"));
    };
    if !twj.joins.is_empty() || !del.tables.is_empty() || del.using.is_some() {
        return Err(SqlError::not_supported("multi-table DELETE"));
    }
    let table = table_factor(&twj.relation, ctx.catalog.storage(), ctx, None)?;
    let scope = table.scope();
    let tc = crate::plan::table_def::table_compiler(compiler, &scope);
    let (source, order_by) = row_source(table, &del.selection, &del.order_by, &tc)?;
    let limit = del
        .limit
        .as_ref()
        .map(|l| compiler.compile(l))
        .transpose()?;
    refuse_limited_assignment(&source, &limit)?;
    Ok(Stmt::Delete(crate::plan::tables::DeletePlan {
        source,
        order_by,
        limit,
    }))
}

/// 1235 for an UPDATE or DELETE whose WHERE assigns a user variable where MariaDB
/// evaluates it a number of times of its own (see [`crate::expr::assign`]): with LIMIT it
/// stops reading rows at the limit where an index gives their order; a WHERE that reads
/// no column it evaluates before any row.
fn refuse_limited_assignment(
    source: &crate::plan::tables::RowSource,
    limit: &Option<Expr>,
) -> Result<(), SqlError> {
    let Some(filter) = source.filter.as_ref() else {
        return Ok(());
    };
    if !crate::expr::assign::assigns(filter) {
        return Ok(());
    }
    if limit.is_some() {
        return Err(SqlError::not_supported(
            "assigning a user variable (:=) in the WHERE of an UPDATE or DELETE with LIMIT",
        ));
    }
    if crate::plan::access::first_column(filter).is_none() {
        return Err(SqlError::not_supported(
            "assigning a user variable (:=) in a WHERE of an UPDATE or DELETE that reads no column",
        ));
    }
    Ok(())
}

/// The rows an UPDATE or DELETE changes (the WHERE clause and the access path it allows),
/// and its ORDER BY (expression, descending), compiled over the table's columns by `tc`.
fn row_source(
    table: crate::plan::tables::TableRef,
    selection: &Option<ast::Expr>,
    order_by: &[ast::OrderByExpr],
    tc: &Compiler,
) -> Result<(crate::plan::tables::RowSource, Vec<(Expr, bool)>), SqlError> {
    let filter = selection.as_ref().map(|w| tc.condition(w)).transpose()?;
    let filter = filter.map(|f| {
        crate::plan::query::zero_dates::where_is_null(f, std::slice::from_ref(&table), &[0])
    });
    let access = crate::plan::access::choose_access(&table.def, filter.as_ref());
    let order_by = order_by
        .iter()
        .map(|o| {
            Ok((
                tc.compile(&o.expr)?,
                matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
            ))
        })
        .collect::<Result<Vec<_>, SqlError>>()?;
    let source = crate::plan::tables::RowSource {
        table,
        access,
        filter,
    };
    Ok((source, order_by))
}

/// The position of the column an assignment (`SET c = ...`, `ON DUPLICATE KEY UPDATE c = ...`)
/// writes.
fn assigned_column(
    table: &crate::plan::tables::TableRef,
    a: &ast::Assignment,
) -> Result<usize, SqlError> {
    let ast::AssignmentTarget::ColumnName(col) = &a.target else {
        return Err(SqlError::not_supported("tuple assignment"));
    };
    let col_name = col.0.last().map(|p| p.to_string()).unwrap_or_default();
    column_position(table, col_name.trim_matches('`'))
}

/// The position of a named column of the table, or MySQL's unknown column error.
fn column_position(table: &crate::plan::tables::TableRef, name: &str) -> Result<usize, SqlError> {
    table.def.column_index(name).ok_or_else(|| {
        SqlError::new(
            ER_BAD_FIELD_ERROR,
            format!("Unknown column '{name}' in 'field list'"),
        )
    })
}

/// The table of a FROM / UPDATE / DELETE clause. A derived table (`(SELECT ...) AS d`)
/// is compiled with `subqueries` (the statement's source map and compiler) where the
/// clause may read one: FROM, not the target of UPDATE or DELETE.
pub(crate) fn table_factor(
    relation: &ast::TableFactor,
    storage: &myriad_storage::Storage,
    ctx: &CompileCtx,
    subqueries: Option<(&SourceMap, &Compiler)>,
) -> Result<crate::plan::tables::TableRef, SqlError> {
    if let (
        ast::TableFactor::Derived {
            lateral,
            subquery,
            alias,
            sample: None,
        },
        Some(compile),
    ) = (relation, subqueries)
    {
        let name = alias.as_ref().map(|a| a.name.value.as_str());
        let has_columns = alias.as_ref().is_some_and(|a| !a.columns.is_empty());
        return crate::plan::derived::derived_ref(
            subquery,
            *lateral,
            name,
            has_columns,
            compile,
            ctx,
        );
    }
    let ast::TableFactor::Table { name, alias, .. } = relation else {
        return Err(SqlError::not_supported("derived tables here"));
    };
    // A name without a database may be a common table expression in scope.
    if let ([ast::ObjectNamePart::Identifier(id)], Some(compile)) = (name.0.as_slice(), subqueries)
    {
        if let Some(cte) = crate::plan::derived::Cte::find(ctx.ctes.as_ref(), &id.value) {
            return crate::plan::derived::cte_ref(&cte, alias.as_ref(), compile, ctx);
        }
    }
    let (db, table) = crate::plan::tables::resolve_name_in_place(name, ctx.database)?;
    let alias = alias.as_ref().map(|a| a.name.value.as_str());
    match crate::plan::tables::open_ref(storage, db, table, alias) {
        // A view is read where a derived table may be.
        Err(e) if subqueries.is_some() => crate::plan::view::view_or(e, db, table, alias, ctx),
        opened => opened,
    }
}

pub(crate) fn first_words(text: &str) -> String {
    text.split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a word between SELECT and its first item is a modifier (ALL, DISTINCT,
/// SQL_CACHE, ...).
fn is_select_modifier(word: &str) -> bool {
    (word != "SELECT" && SELECT_MODIFIERS.contains(&word))
        || matches!(word, "SQL_CACHE" | "SQL_NO_CACHE")
}

/// The source text of each item of a SELECT list, split at top-level commas (MySQL names
/// unaliased columns by this text, as written).
pub(crate) fn projection_texts(raw: &RawStatement, map: &SourceMap) -> Vec<String> {
    const CLAUSES: &[&str] = &[
        "FROM",
        "WHERE",
        "GROUP",
        "HAVING",
        "ORDER",
        "LIMIT",
        "INTO",
        "FOR",
        "WINDOW",
        "LOCK",
        "UNION",
        "PROCEDURE",
        "EXCEPT",
        "INTERSECT",
    ];
    let tokens = &raw.tokens;
    if tokens.first().and_then(word_upper).as_deref() != Some("SELECT") {
        return Vec::new();
    }
    let mut i = 1;
    while tokens
        .get(i)
        .and_then(word_upper)
        .is_some_and(|w| is_select_modifier(&w))
    {
        i += 1;
    }
    let text = |from: usize, to: usize| -> String {
        if from >= to {
            return String::new();
        }
        let start = map.offset(tokens[from].span.start.line, tokens[from].span.start.column);
        let end = map.offset(tokens[to - 1].span.end.line, tokens[to - 1].span.end.column);
        map.source().get(start..end).unwrap_or("").to_string()
    };
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = i;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                out.push(text(start, i));
                start = i + 1;
            }
            _ if depth == 0
                && word_upper(&tokens[i]).is_some_and(|w| CLAUSES.contains(&w.as_str())) =>
            {
                break
            }
            _ => {}
        }
        i += 1;
    }
    out.push(text(start, i));
    out
}
