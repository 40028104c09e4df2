//! The SQL side of the query cache ([`myriad_cache::query_cache`]): which statements may
//! use it, the key, the lookup before parsing, the insert after execution, and the version
//! bumps of writes and DDL.
//!
//! # One text query
//! 1. [`lookup_text`] runs before parsing. Cheap refusals first, none of which allocates:
//!    `query_cache_size = 0` or `query_cache_type = OFF` (one load each); a text that does
//!    not start with SELECT; [`scan`]'s single pass over the bytes, which finds SQL_CACHE /
//!    SQL_NO_CACHE, the words that make a result non-deterministic or session-bound
//!    (NOW, RAND, UUID, LAST_INSERT_ID, CONNECTION_ID, USER, SLEEP, ...), `@` variables,
//!    `FOR UPDATE` / `LOCK IN SHARE MODE`, system schemas, a second statement, and hashes
//!    the statement's template (literals left out); a bypassed template or a stepped-aside
//!    cache. Only then is the key built: statement bytes (comments stripped when
//!    `query_cache_strip_comments` is ON), current database, transaction state and the
//!    session settings that change a result ([`RESULT_SETTINGS`]).
//! 2. On an admitted miss, [`run`] checks the compiled statement as well (the authority:
//!    user and system variables, non-deterministic functions, system schemas), takes the
//!    version of every table it reads (subqueries included) *before* executing, executes,
//!    and inserts a result set without warnings whose execution was worth it.
//!
//! Prepared statements go the same way ([`lookup_prepared`]); their key is the statement
//! text plus the parameter values.
//!
//! # Writes
//! [`write_guard`] wraps the execution of every INSERT, UPDATE, DELETE and DDL statement:
//! it bumps the versions of the tables the statement changes before it runs and again when
//! it ends (commit, error or rollback), since other connections read uncommitted rows.
//! DROP DATABASE and RESET QUERY CACHE bump the version every entry depends on.
//!
//! MySQL's transaction rule: inside an open transaction (BEGIN, or autocommit off), a
//! result that reads a table the transaction has written is neither served nor stored;
//! results over other tables are, under keys of their own (the key holds the autocommit
//! setting and whether a transaction is open). The session keeps the version cells of the
//! tables its open transaction wrote ([`written_tables`]); an entry keeps the cells of the
//! tables it read, so a hit is checked against them without parsing.

use crate::expr::Expr;
use crate::expr::Func;
use crate::expr::SubqueryPlan;
use crate::plan::Stmt;
use crate::result::QueryResult;
use crate::row_sink::{CacheCopy, RowSink};
use crate::session::metadata_locks::DdlTarget;
use crate::session::query_cache::*;
use crate::session::query_text::*;
use crate::value::Value;
use crate::{Engine, Session, SqlError};
use myriad_cache::query_cache::{
    self, Dep, Lookup, QueryCache, TableVersions, Ticket, VersionCell, WriteGuard,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Schemas whose tables are never cached (their content is the server's state).
pub(crate) const SYSTEM_SCHEMAS: &[&str] =
    &["information_schema", "mysql", "performance_schema", "sys"];

/// Striped counter: writers spread over cache lines by connection id, readers sum.
#[derive(Default)]
pub(crate) struct Striped {
    pub(crate) stripes: [PaddedCounter; 16],
}

#[repr(align(128))]
#[derive(Default)]
pub(crate) struct PaddedCounter(AtomicU64);

impl Striped {
    pub(crate) fn bump(&self, connection_id: u32) {
        self.stripes[connection_id as usize % 16]
            .0
            .fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn sum(&self) -> u64 {
        self.stripes
            .iter()
            .map(|s| s.0.load(Ordering::Relaxed))
            .sum()
    }
}

/// A cached result set (shared by every hit), with the tables it read.
pub struct CachedRows {
    pub(crate) result: QueryResult,
    pub(crate) tables: Box<[VersionCell]>,
    /// Those tables by name (database, table): an account is served the result only if
    /// it may read each of them.
    pub(crate) names: Box<[(String, String)]>,
}

/// The engine's query cache and table versions.
pub struct EngineQueryCache {
    pub(crate) cache: QueryCache<CachedRows>,
    pub(crate) versions: TableVersions,
    /// Qcache_not_cached: SELECTs that reached the cache but could not use it.
    pub(crate) not_cached: Striped,
    /// `query_cache_min_execution_us` in nanoseconds: a faster result is not inserted.
    pub(crate) min_execution_nanos: std::sync::atomic::AtomicU64,
}

impl EngineQueryCache {
    pub fn new(size_bytes: u64, limit_bytes: u64) -> EngineQueryCache {
        EngineQueryCache {
            cache: QueryCache::new(to_usize(size_bytes), to_usize(limit_bytes)),
            versions: TableVersions::new(),
            not_cached: Striped::default(),
            min_execution_nanos: std::sync::atomic::AtomicU64::new(
                query_cache::MIN_EXECUTION_NANOS,
            ),
        }
    }

    pub fn set_size(&self, bytes: u64) {
        self.cache.set_capacity(to_usize(bytes));
    }

    pub fn set_limit(&self, bytes: u64) {
        self.cache.set_limit(to_usize(bytes));
    }

    /// `query_cache_min_execution_us`: results computed faster are not inserted.
    pub fn set_min_execution_us(&self, micros: u64) {
        self.min_execution_nanos.store(
            micros.saturating_mul(1000),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    pub fn cache(&self) -> &QueryCache<CachedRows> {
        &self.cache
    }
}

pub(crate) fn to_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// A miss that may insert: the key and the cache's ticket.
pub struct Probe {
    pub(crate) key: Vec<u8>,
    pub(crate) ticket: Ticket,
}

/// The outcome of a lookup.
pub enum Looked {
    Hit(QueryResult),
    Miss(Option<Probe>),
}

/// Decide from the text whether the cache may be used, and look up. `kind` separates text
/// and prepared keys; `params` are a prepared statement's values; `scanned` keeps a
/// prepared statement's scan, so that its text is scanned once, not at every execution.
pub(crate) fn lookup(
    session: &mut Session,
    sql: &str,
    kind: u8,
    params: &[Value],
    scanned: Option<&mut Option<Scan>>,
) -> Looked {
    // A cached result is served without the statement's privilege check: to an account
    // that holds every privilege, or SELECT on every table the result read (another runs
    // the statement, which fails as it should).
    if !session.engine.query_cache.cache.is_enabled()
        || session.state.query_cache().cache_type == TYPE_OFF
        || session.state.password_expired
        // Under LOCK TABLES a statement may use only the tables it locked (1100): it runs.
        || session.state.locked_tables.is_some()
    {
        return Looked::Miss(None);
    }
    let grants = session.grants();
    let limited = (!grants.is_all()).then_some(grants.as_ref());
    let looked = lookup_in(session, sql, kind, params, scanned, limited);
    if matches!(looked, Looked::Hit(_)) {
        session.state.warnings.clear();
    }
    looked
}

/// The scan of a statement, or the scan of "not a SELECT" without a pass over the text
/// when its first word shows it is not one.
pub(crate) fn scan_statement(bytes: &[u8]) -> Scan {
    let first = bytes.trim_ascii_start();
    let starts_select = first.len() >= 6 && first[..6].eq_ignore_ascii_case(b"SELECT");
    let starts_comment =
        first.starts_with(b"/*") || first.starts_with(b"#") || first.starts_with(b"--");
    if starts_select || starts_comment {
        scan(bytes)
    } else {
        Scan::default()
    }
}

pub(crate) fn lookup_in(
    session: &Session,
    sql: &str,
    kind: u8,
    params: &[Value],
    scanned: Option<&mut Option<Scan>>,
    limited: Option<&crate::catalog::privileges::Grants>,
) -> Looked {
    let qc = &session.engine.query_cache;
    let settings = session.state.query_cache();
    if !qc.cache.is_enabled() || settings.cache_type == TYPE_OFF {
        return Looked::Miss(None);
    }
    let bytes = sql.as_bytes();
    let found = match scanned {
        Some(slot) => *slot.get_or_insert_with(|| scan_statement(bytes)),
        None => scan_statement(bytes),
    };
    if !found.select {
        return Looked::Miss(None);
    }
    if found.refused
        || found.sql_no_cache
        || (settings.cache_type == TYPE_DEMAND && !found.sql_cache)
    {
        qc.not_cached.bump(session.info.connection_id);
        return Looked::Miss(None);
    }
    if qc.cache.bypassed(found.template) {
        return Looked::Miss(None);
    }
    let statement = if settings.strip_comments && found.has_comments {
        std::borrow::Cow::Owned(strip_comments(bytes))
    } else {
        std::borrow::Cow::Borrowed(bytes)
    };
    let mut key = Vec::with_capacity(statement.len() + settings.settings.len() + 64);
    key.push(kind);
    push_part(
        &mut key,
        session.info.database.as_deref().unwrap_or("").as_bytes(),
    );
    key.push(u8::from(session.state.in_transaction));
    key.extend_from_slice(&settings.settings);
    push_part(&mut key, &statement);
    for p in params {
        push_value(&mut key, p);
    }
    // A result that read a table this session's open transaction wrote is not served (nor
    // stored, see `run`): MySQL's rule.
    let mut refused = false;
    let looked = qc.cache.lookup_if(&key, found.template, |rows| {
        refused = session.state.skips_query_cache(&rows.tables);
        let readable = limited.is_none_or(|grants| {
            rows.names.iter().all(|(db, table)| {
                grants
                    .on_table(db, table)
                    .contains(crate::catalog::privileges::Privs::SELECT)
            })
        });
        !refused && readable
    });
    if refused {
        qc.not_cached.bump(session.info.connection_id);
    }
    match looked {
        Lookup::Hit(rows) => Looked::Hit(rows.result.clone()),
        Lookup::Miss(Some(ticket)) => Looked::Miss(Some(Probe { key, ticket })),
        Lookup::Miss(None) | Lookup::Bypass => Looked::Miss(None),
    }
}

/// A COM_QUERY text, before it is parsed.
pub fn lookup_text(session: &mut Session, sql: &str) -> Looked {
    lookup(session, sql, b'T', &[], None)
}

/// A COM_STMT_EXECUTE of `sql` with `params`; `scanned` is the statement's scan, kept
/// with it from its first execution.
pub fn lookup_prepared(
    session: &mut Session,
    sql: &str,
    params: &[Value],
    scanned: &mut Option<Scan>,
) -> Looked {
    lookup(session, sql, b'P', params, Some(scanned))
}

/// The tables whose version cells a write statement bumps (INSERT, UPDATE, DELETE), for
/// the session's set of tables written by its open transaction.
pub fn written_tables(engine: &Engine, stmt: &Stmt) -> Vec<VersionCell> {
    statement_cells(engine, stmt).unwrap_or_default()
}

/// The version cells of the tables a write statement changes: its own table, and those a
/// delete or change of its rows reaches through FOREIGN KEY ... CASCADE / SET NULL (an
/// INSERT only with REPLACE or ON DUPLICATE KEY UPDATE). None for other statements.
fn statement_cells(engine: &Engine, stmt: &Stmt) -> Option<Vec<VersionCell>> {
    let versions = &engine.query_cache.versions;
    let ((database, table), changes_rows) = match stmt {
        Stmt::Insert(p) => (
            (&p.table.database, &p.table.name),
            p.replace || p.on_duplicate.is_some(),
        ),
        Stmt::LoadData(p) => ((&p.table.database, &p.table.name), p.replace),
        Stmt::Update(p) => ((&p.source.table.database, &p.source.table.name), true),
        Stmt::Delete(p) => ((&p.source.table.database, &p.source.table.name), true),
        _ => return None,
    };
    let mut cells = vec![versions.cell(database, table)];
    if changes_rows {
        let reached = crate::exec::foreign_keys::cascade_targets(&engine.catalog, database, table);
        cells.extend(reached.iter().map(|child| versions.cell(database, child)));
    }
    Some(cells)
}

pub(crate) fn push_value(key: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => key.push(0),
        Value::Int(i) => {
            key.push(1);
            key.extend_from_slice(&i.to_le_bytes());
        }
        Value::UInt(u) => {
            key.push(2);
            key.extend_from_slice(&u.to_le_bytes());
        }
        Value::Double(d) => {
            key.push(3);
            key.extend_from_slice(&d.to_bits().to_le_bytes());
        }
        Value::Decimal(d) => {
            // The text keeps the scale: `1.5` and `1.50` give different results.
            key.push(4);
            push_part(key, d.to_string().as_bytes());
        }
        Value::Bytes(b) => {
            key.push(5);
            push_part(key, b);
        }
        other => {
            // Dates and times: their text form is exact.
            key.push(6);
            push_part(key, format!("{other:?}").as_bytes());
        }
    }
}

/// The tables a compiled statement reads, or None when its result may not be cached.
pub fn cacheable_tables(stmt: &Stmt) -> Option<Vec<(String, String)>> {
    let mut tables = Tables::default();
    collect_stmt(stmt, &mut tables).then_some(tables.list)
}

/// Every table a SELECT reads, its subqueries' included, information_schema's left out;
/// None when that cannot be told (a statement that is not a SELECT, a subquery of a form
/// the walk does not know).
pub fn read_tables(stmt: &Stmt) -> Option<Vec<(String, String)>> {
    let mut tables = Tables::every();
    collect_stmt(stmt, &mut tables).then_some(tables.list)
}

/// A SELECT's reads by whose privileges they need: the tables and views its reader must
/// hold SELECT on, and those read through SQL SECURITY DEFINER views, each with the
/// definer whose SELECT it needs; None as for [`read_tables`].
pub fn reads_by_account(stmt: &Stmt) -> Option<AccountReads> {
    let mut tables = Tables {
        by_account: true,
        ..Tables::every()
    };
    collect_stmt(stmt, &mut tables).then_some((tables.invoker, tables.definer))
}

/// What [`reads_by_account`] answers.
pub type AccountReads = (Vec<(String, String)>, Vec<DefinerRead>);

/// A table read through an SQL SECURITY DEFINER view: its database, name and the definer
/// (user, host) whose privileges it is read with.
pub type DefinerRead = (String, String, Arc<(String, String)>);

/// The tables and views a SELECT names itself, its subqueries' included, without the
/// tables under its views; None as for [`read_tables`].
pub fn named_tables(stmt: &Stmt) -> Option<Vec<(String, String)>> {
    let mut tables = Tables {
        views_opaque: true,
        ..Tables::every()
    };
    collect_stmt(stmt, &mut tables).then_some(tables.list)
}

/// [`read_tables`] of expressions (a DO, a SET, an INSERT's values).
pub fn tables_of_exprs<'e>(
    exprs: impl IntoIterator<Item = &'e Expr>,
) -> Option<Vec<(String, String)>> {
    let mut tables = Tables::every();
    exprs
        .into_iter()
        .all(|e| collect_expr(e, &mut tables))
        .then_some(tables.list)
}

/// [`read_tables`] of a subquery (an INSERT ... SELECT's query).
pub fn tables_of_query(query: &dyn SubqueryPlan) -> Option<Vec<(String, String)>> {
    let mut tables = Tables::every();
    collect_subquery(query, &mut tables).then_some(tables.list)
}

/// Tables met by a walk over a statement; the walk answers false where it stops. With
/// `every` it goes on past what only makes a result uncacheable (variables, clocks,
/// system schemas), to list every table read.
#[derive(Default)]
pub(crate) struct Tables {
    pub list: Vec<(String, String)>,
    pub every: bool,
    /// Views count as the tables named, without the tables under them.
    pub views_opaque: bool,
    /// Whether to note whose privileges each table is read with (`invoker`, `definer`).
    by_account: bool,
    /// Within an SQL SECURITY DEFINER view: its definer.
    reading_as: Option<Arc<(String, String)>>,
    /// The tables of `list` read with the reader's own privileges.
    invoker: Vec<(String, String)>,
    /// The tables of `list` read with a definer's, and the definer.
    definer: Vec<DefinerRead>,
    /// The subqueries walked already (by address). A plan names one subquery in several
    /// places (a WHERE and the index range it gives), and a walk that entered it at each
    /// would double with every level of nesting: 2^26 walks for 26 nested levels.
    walked: std::collections::HashSet<usize>,
}

impl Tables {
    /// Note table `db`.`name` read, with the privileges of whoever reads at this point.
    fn push(&mut self, db: &str, name: &str) {
        let table = (db.to_string(), name.to_string());
        if self.by_account {
            match &self.reading_as {
                Some(definer) => {
                    self.definer
                        .push((table.0.clone(), table.1.clone(), definer.clone()))
                }
                None => self.invoker.push(table.clone()),
            }
        }
        self.list.push(table);
    }

    /// A walk for every table read.
    fn every() -> Tables {
        Tables {
            every: true,
            ..Tables::default()
        }
    }
}

pub(crate) fn collect_stmt(stmt: &Stmt, tables: &mut Tables) -> bool {
    match stmt {
        Stmt::Union(plan) => collect_set_node(&plan.node, tables),
        Stmt::Select(plan) => {
            plan.items.iter().all(|i| collect_expr(&i.expr, tables))
                && plan.filter.as_ref().is_none_or(|e| collect_expr(e, tables))
                && plan.limit.as_ref().is_none_or(|e| collect_expr(e, tables))
                && plan.offset.as_ref().is_none_or(|e| collect_expr(e, tables))
        }
        Stmt::SelectTable(plan) => {
            let mut refs = vec![&plan.source.table];
            refs.extend(plan.joins.iter().map(|j| &j.table));
            for t in refs {
                // A view is read as a table (its version moves when it is replaced or
                // dropped; SELECT on it is needed), then as the derived table it is.
                if t.is_view() {
                    tables.push(&t.database, &t.name);
                    if tables.views_opaque {
                        continue;
                    }
                }
                // A derived table reads the tables of its query; a DEFINER view's are
                // read with its definer's privileges.
                if let Some(crate::plan::tables::Made::Query(q)) = &t.made {
                    let outer = match &t.reads_as {
                        Some(definer) => tables.reading_as.replace(definer.clone()),
                        None => tables.reading_as.clone(),
                    };
                    let walked = collect_subquery(q.as_ref(), tables);
                    tables.reading_as = outer;
                    if !walked {
                        return false;
                    }
                    continue;
                }
                if SYSTEM_SCHEMAS
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(&t.database))
                {
                    if !tables.every {
                        return false;
                    }
                    // information_schema needs no privilege; the mysql schema's account
                    // tables are read as any table, with SELECT on them.
                    if crate::plan::info_schema::is_schema(&t.database) {
                        continue;
                    }
                }
                tables.push(&t.database, &t.name);
            }
            let mut exprs: Vec<&Expr> = Vec::new();
            exprs.extend(plan.source.filter.as_ref());
            if let crate::plan::tables::Access::Index { eq, tail, .. } = &plan.source.access {
                exprs.extend(eq.iter());
                match tail {
                    crate::plan::tables::Tail::None => {}
                    crate::plan::tables::Tail::In(list) => exprs.extend(list.iter()),
                    crate::plan::tables::Tail::Range { lower, upper } => {
                        exprs.extend(lower.iter().map(|(e, _)| e));
                        exprs.extend(upper.iter().map(|(e, _)| e));
                    }
                    crate::plan::tables::Tail::Ranges(ranges) => {
                        for (lower, upper) in ranges {
                            exprs.extend(lower.iter().map(|(e, _)| e));
                            exprs.extend(upper.iter().map(|(e, _)| e));
                        }
                    }
                }
            }
            for j in &plan.joins {
                exprs.extend(j.on.as_ref());
                exprs.extend(j.lookup.as_ref().map(|(_, e)| e));
            }
            exprs.extend(plan.post_filter.as_ref());
            exprs.extend(plan.items.iter().filter_map(|i| match i {
                crate::plan::tables::OutputItem::Expr { expr, .. } => Some(expr),
                crate::plan::tables::OutputItem::Column { .. } => None,
            }));
            exprs.extend(plan.windows.exprs());
            if let Some(g) = &plan.grouping {
                exprs.extend(g.keys.iter());
                exprs.extend(g.aggregates.iter().flat_map(|a| a.exprs()));
                exprs.extend(g.having.as_ref());
            }
            exprs.extend(plan.order_by.iter().map(|(e, _)| e));
            exprs.extend(plan.limit.as_ref());
            exprs.extend(plan.offset.as_ref());
            exprs.into_iter().all(|e| collect_expr(e, tables))
        }
        _ => false,
    }
}

pub(crate) fn collect_expr(e: &Expr, tables: &mut Tables) -> bool {
    match e {
        // Variables, clocks and a connection's values make a result uncacheable; a walk
        // for every table goes on into their arguments.
        Expr::SysVar { .. } | Expr::UserVar(_) if !tables.every => false,
        // An assignment changes the session: never answered from the cache.
        Expr::AssignVar { .. } => false,
        Expr::Call { func, .. } if !deterministic(func) && !tables.every => false,
        Expr::Subquery(q) | Expr::Exists { query: q, .. } => collect_subquery(q.as_ref(), tables),
        Expr::InSubquery { expr, query, .. } => {
            collect_expr(expr, tables) && collect_subquery(query.as_ref(), tables)
        }
        Expr::RowSubquery { row, query, .. } => {
            row.iter().all(|x| collect_expr(x, tables)) && collect_subquery(query.as_ref(), tables)
        }
        _ => e.all_operands(|x| collect_expr(x, tables)),
    }
}

fn collect_set_node(node: &crate::plan::union::SetNode, tables: &mut Tables) -> bool {
    match node {
        crate::plan::union::SetNode::Query(stmt) => collect_stmt(stmt, tables),
        crate::plan::union::SetNode::Operation { left, right, .. } => {
            collect_set_node(left, tables) && collect_set_node(right, tables)
        }
    }
}

fn collect_subquery(query: &dyn SubqueryPlan, tables: &mut Tables) -> bool {
    // Walked before: its tables are listed already (and a walk that stopped in it ended).
    if !tables
        .walked
        .insert(query as *const dyn SubqueryPlan as *const () as usize)
    {
        return true;
    }
    Stmt::of_subquery(query).is_some_and(|stmt| collect_stmt(stmt, tables))
}

/// Whether a function's result depends only on its arguments and the key's settings.
pub(crate) fn deterministic(func: &Func) -> bool {
    !matches!(
        func,
        Func::User
            | Func::CurrentUser
            | Func::CurrentRole
            | Func::ConnectionId
            | Func::LastInsertId
            | Func::FoundRows
            | Func::RowCount
            | Func::Now
            | Func::SysDate
            | Func::CurDate
            | Func::CurTime
            | Func::UnixTimestamp
            | Func::Sleep
            | Func::RandomBytes
            | Func::Rand
            | Func::GetLock
            | Func::ReleaseLock
            | Func::ReleaseAllLocks
            | Func::IsFreeLock
            | Func::IsUsedLock
    )
}

/// Run a statement; with a probe (an admitted miss), insert its result when it may be
/// cached. The versions are taken before execution. A SELECT may stream its rows to `out`;
/// a copy of them is then kept for the cache up to query_cache_limit.
pub fn run(
    session: &mut Session,
    stmt: &Stmt,
    params: &[Value],
    probe: Option<Probe>,
    out: Option<&mut (dyn RowSink + '_)>,
) -> Result<QueryResult, SqlError> {
    let Some(probe) = probe else {
        return session.run_to(stmt, params, out);
    };
    let engine = Arc::clone(&session.engine);
    let qc = &engine.query_cache;
    let Some(tables) = cacheable_tables(stmt) else {
        qc.not_cached.bump(session.info.connection_id);
        return session.run_to(stmt, params, out);
    };
    let cells: Box<[VersionCell]> = tables
        .iter()
        .map(|(db, table)| qc.versions.cell(db, table))
        .collect();
    let mut deps: Vec<Dep> = Vec::with_capacity(cells.len() + 1);
    deps.push(qc.versions.everything().snapshot());
    deps.extend(cells.iter().map(VersionCell::snapshot));
    // After the versions: a commit they include has published, which the snapshot check
    // sees.
    if session.state.skips_query_cache(&cells) {
        // It reads a table this session's open transaction wrote, or its snapshot is
        // behind: never cached.
        qc.not_cached.bump(session.info.connection_id);
        return session.run_to(stmt, params, out);
    }
    let started = Instant::now();
    let (result, copied) = match out {
        Some(out) => {
            let mut copy = CacheCopy::new(out, qc.cache.limit_bytes());
            let result = session.run_to(stmt, params, Some(&mut copy));
            let copied = result.as_ref().ok().and_then(|r| copy.into_result(r));
            (result, copied)
        }
        None => (session.run(stmt, params), None),
    };
    let elapsed_nanos = started.elapsed().as_nanos() as u64;
    // A streamed result is cached through its copy; one whose copy outgrew the limit
    // (or that failed) is not.
    let kept: Option<&QueryResult> = match (&result, &copied) {
        (_, Some(copy)) => Some(copy),
        (Ok(QueryResult::Rows { rows, .. }), None) if rows.was_streamed() => None,
        (Ok(built), None) => Some(built),
        (Err(_), None) => None,
    };
    match kept {
        Some(rows @ QueryResult::Rows { warnings: 0, .. }) if session.state.warnings.is_empty() => {
            if elapsed_nanos
                < qc.min_execution_nanos
                    .load(std::sync::atomic::Ordering::Relaxed)
            {
                qc.cache.refuse();
            } else {
                // Charged twice: the values, and the server's wire encoding of them,
                // which `QueryResult::set_wire_form` keeps no larger.
                let bytes = 2 * rows.mark_cached();
                qc.cache.insert(
                    probe.ticket,
                    &probe.key,
                    deps,
                    Arc::new(CachedRows {
                        result: rows.clone(),
                        tables: cells,
                        names: tables.into_boxed_slice(),
                    }),
                    bytes,
                );
            }
        }
        _ => qc.not_cached.bump(session.info.connection_id),
    }
    result
}

/// The version bumps of a statement that changes tables: held while it executes.
pub fn write_guard(engine: &Engine, stmt: &Stmt) -> Option<WriteGuard> {
    let versions = &engine.query_cache.versions;
    let cells = match statement_cells(engine, stmt) {
        Some(cells) => cells,
        None => match crate::session::metadata_locks::ddl_target(stmt)? {
            DdlTarget::Tables(tables) => tables.iter().map(|(d, t)| versions.cell(d, t)).collect(),
            DdlTarget::Database(_) => vec![versions.everything().clone()],
        },
    };
    Some(WriteGuard::new(cells))
}

/// FLUSH QUERY CACHE (drop stale entries) and RESET QUERY CACHE (drop everything).
pub fn flush(engine: &Engine, reset: bool) {
    let qc = &engine.query_cache;
    if reset {
        qc.versions.everything().bump();
        qc.cache.reset();
    } else {
        qc.cache.flush();
    }
}

/// `Qcache_*` status variables: MySQL's, then ours (see docs/status.md).
pub fn status(engine: &Engine) -> Vec<(&'static str, u64)> {
    let qc = &engine.query_cache;
    let s = qc.cache.stats();
    let free = s.capacity_bytes.saturating_sub(s.used_bytes);
    vec![
        ("Qcache_free_blocks", u64::from(free > 0)),
        ("Qcache_free_memory", free),
        ("Qcache_hits", s.hits),
        ("Qcache_inserts", s.inserts),
        ("Qcache_lowmem_prunes", s.lowmem_prunes),
        ("Qcache_not_cached", qc.not_cached.sum()),
        ("Qcache_queries_in_cache", s.queries_in_cache),
        (
            "Qcache_total_blocks",
            s.queries_in_cache + u64::from(free > 0),
        ),
        ("Qcache_admission_refusals", s.admission_refusals),
        ("Qcache_bypassed_lookups", s.bypassed_lookups),
        ("Qcache_bypassed_templates", s.bypassed_templates),
        ("Qcache_busy_misses", s.busy_misses),
        ("Qcache_insert_races", s.insert_races),
        ("Qcache_invalidations", s.invalidations),
        ("Qcache_misses", s.misses),
        ("Qcache_step_asides", s.step_asides),
        ("Qcache_stepped_aside", s.stepped_aside),
        ("Qcache_used_memory", s.used_bytes),
    ]
}
