//! SQL over stored tables: CREATE / DROP TABLE, INSERT, SELECT, UPDATE and DELETE on one
//! table, with index selection.
//!
//! A statement is compiled against the table's definition (columns become row positions,
//! the WHERE clause is analysed for an access path) and keeps that definition; at execution
//! it opens the table through the storage's table cache and checks the definition is still
//! the one it was compiled for (a prepared statement is recompiled otherwise).
//!
//! Access paths, best first: all columns of a unique index equal to constants (one lookup);
//! an equality prefix of an index, optionally followed by an IN list or a range on the next
//! column (index scans); otherwise a full scan. "Constant" means anything that does not read
//! the row: literals, `?` parameters, variables, functions of those. The full WHERE clause
//! is applied to the rows an index returns, so an index only narrows, never decides; the one
//! exception is a WHERE that is exactly `int_col BETWEEN a AND b` or `int_col IN (a, ...)`
//! with integer values over an index led by that column, where the index range or keys are
//! the answer (`range_is_the_filter`). An IN list reads the whole list in one pass over
//! the index (`Table::index_lookup_many`) unless it matches many rows.
//!
//! Reading is streamed (`read_rows_with`): each row is decoded as the scan yields it, only
//! the columns the statement reads (`columns_read`: the others stay NULL), converted, and
//! filtered at once; a LIMIT with nothing after the filter that reorders or drops rows
//! stops the scan. ORDER BY sorts once per statement with ASCII string keys folded to their
//! collation form first (`sort_rows`), and DISTINCT keeps the first row of each set of rows
//! equal under GROUP BY's equality, in the order met, within the grouping budget and
//! spilling past it (`exec::distinct`).

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::expr::eval::SqlType;
use crate::expr::ColumnScope;
use crate::expr::Expr;
use crate::result::{charsets, column_flags, Column, ColumnType as WireType};
use myriad_storage as st;
use myriad_types::errors::{ER_NO_DB_ERROR, ER_NO_SUCH_TABLE, ER_TABLE_DEF_CHANGED};
use sqlparser::ast;
use std::sync::Arc;

/// A table reference resolved at compile time.
#[derive(Debug, Clone)]
pub struct TableRef {
    // Shared, not copied: a plan clones its table references.
    pub database: Arc<str>,
    pub name: Arc<str>,
    /// The alias (or the name) columns are qualified with.
    pub alias: Arc<str>,
    pub def: Arc<st::TableDef>,
    /// Where the rows of a table that is not stored come from, made when the statement
    /// runs (`crate::exec::source`); None for a stored table.
    pub made: Option<Made>,
    /// For an SQL SECURITY DEFINER view: its definer (user, host), the account whose
    /// privileges its tables are read with.
    pub reads_as: Option<Arc<(String, String)>>,
}

/// The rows of a table that is not stored.
#[derive(Debug, Clone)]
pub enum Made {
    /// An `information_schema` table (see `crate::plan::info_schema`).
    InfoSchema(crate::catalog::info_schema::VirtualRows),
    /// A derived table, `FROM (SELECT ...) AS alias` (see `crate::plan::derived`): the
    /// rows of its query.
    Query(Arc<dyn crate::expr::SubqueryPlan>),
}

#[derive(Debug, Clone)]
pub enum Tail {
    None,
    In(Vec<Expr>),
    Range {
        lower: Option<(Expr, bool)>,
        upper: Option<(Expr, bool)>,
    },
    /// Several ranges OR'ed on one column (`k BETWEEN 1 AND 5 OR k BETWEEN 9 AND 12`, as
    /// sysbench's select_random_ranges sends): one index scan per range, rows deduplicated
    /// where ranges overlap.
    Ranges(Vec<RangeBounds>),
}

/// The (lower, upper) bounds of one range; `bool` is whether the bound is inclusive.
pub type RangeBounds = (Option<(Expr, bool)>, Option<(Expr, bool)>);

#[derive(Debug, Clone)]
pub enum Access {
    Full,
    Index {
        index_no: usize,
        eq: Vec<Expr>,
        tail: Tail,
    },
}

/// Which rows a statement reads: a table, an access path and the full filter.
#[derive(Debug, Clone)]
pub struct RowSource {
    pub table: TableRef,
    pub access: Access,
    pub filter: Option<Expr>,
}

#[derive(Debug, Clone)]
pub enum OutputItem {
    /// A stored column shown as is (its metadata comes from the definition).
    Column {
        index: usize,
        name: String,
    },
    Expr {
        expr: Expr,
        name: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggKind {
    CountStar,
    Count,
    Sum,
    Min,
    Max,
    Avg,
    /// STD / STDDEV / STDDEV_POP (`root`), VARIANCE / VAR_POP, and the `sample` forms
    /// STDDEV_SAMP and VAR_SAMP: a DOUBLE over the values read as numbers.
    Variance {
        sample: bool,
        root: bool,
    },
    /// BIT_AND, BIT_OR, BIT_XOR: a BIGINT UNSIGNED over the values read as 64-bit
    /// integers, never NULL (no values: all bits set for BIT_AND, none for the others).
    BitAnd,
    BitOr,
    BitXor,
    /// GROUP_CONCAT: its arguments, ORDER BY, SEPARATOR and LIMIT in [`Aggregate::concat`].
    GroupConcat,
}

impl AggKind {
    /// Whether it reads its argument as a number (a hexadecimal literal as its integer, an
    /// ENUM as its position): all but COUNT, MIN, MAX and GROUP_CONCAT.
    pub fn reads_numbers(self) -> bool {
        !matches!(
            self,
            AggKind::CountStar
                | AggKind::Count
                | AggKind::Min
                | AggKind::Max
                | AggKind::GroupConcat
        )
    }

    /// Whether MariaDB's grammar takes DISTINCT in it.
    pub fn takes_distinct(self) -> bool {
        matches!(
            self,
            AggKind::Count
                | AggKind::Sum
                | AggKind::Avg
                | AggKind::Min
                | AggKind::Max
                | AggKind::GroupConcat
        )
    }
}

/// The clauses of one GROUP_CONCAT, compiled over the input row.
#[derive(Debug, Clone)]
pub struct GroupConcat {
    /// Every argument; a row with a NULL in any of them is skipped.
    pub args: Vec<Expr>,
    /// The collation each argument's strings compare under (for DISTINCT).
    pub arg_collations: Vec<st::Collation>,
    /// ORDER BY: each expression with whether it is DESC, and its collation.
    pub order: Vec<(Expr, bool, st::Collation)>,
    pub separator: Vec<u8>,
    /// LIMIT: (offset, row count).
    pub limit: Option<(u64, u64)>,
    /// The result's collation: binary when an argument is a binary string.
    pub collation: st::Collation,
}

/// One aggregate of a grouped select; its value is column `table columns + N` of the
/// group's row.
#[derive(Debug, Clone)]
pub struct Aggregate {
    pub kind: AggKind,
    pub arg: Option<Expr>,
    /// The further arguments of `COUNT(DISTINCT a, b, ...)`, each with the collation its
    /// strings compare under: a row counts when none of its values is NULL, once per
    /// distinct combination.
    pub more: Vec<(Expr, st::Collation)>,
    pub distinct: bool,
    /// The collation MIN, MAX and DISTINCT compare the argument's strings under;
    /// GROUP_CONCAT's result collation.
    pub collation: st::Collation,
    /// GROUP_CONCAT's clauses (None for the other kinds).
    pub concat: Option<Box<GroupConcat>>,
}

impl Aggregate {
    /// Every expression the aggregate reads from the input row: its arguments, and
    /// GROUP_CONCAT's other arguments and ORDER BY.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        let concat = self.concat.as_deref();
        let more = self.more.iter().map(|(e, _)| e);
        self.arg.iter().chain(more).chain(
            concat
                .into_iter()
                .flat_map(|c| c.args.iter().skip(1).chain(c.order.iter().map(|o| &o.0))),
        )
    }

    /// The aggregate's result type over input rows of `types`: COUNT a BIGINT, MIN and
    /// MAX their argument's (an integer expression's a BIGINT, NULL's a string), SUM and AVG of exact numbers a DECIMAL (AVG with
    /// div_precision_increment more digits of scale), else a DOUBLE.
    pub fn sql_type(&self, types: &[SqlType], env: &dyn crate::expr::Env) -> SqlType {
        let arg_type = self
            .arg
            .as_ref()
            .map(|a| a.sql_type(env, types))
            .unwrap_or(SqlType::Null);
        // A TIME sums as the number HHMMSS[.ffffff], exactly, as MariaDB sums it.
        let scale = match arg_type {
            SqlType::Decimal { scale, .. } => scale,
            SqlType::Time { fsp } => u32::from(fsp),
            _ => 0,
        };
        let exact = matches!(
            arg_type,
            SqlType::Int { .. } | SqlType::Decimal { .. } | SqlType::Time { .. }
        );
        match self.kind {
            AggKind::CountStar | AggKind::Count => SqlType::Int {
                unsigned: false,
                len: 21,
            },
            AggKind::Min | AggKind::Max => match (arg_type, &self.arg) {
                // MariaDB keeps a column's integer type; the value of any other integer
                // expression is a BIGINT.
                (SqlType::Int { unsigned, len }, Some(arg)) if !matches!(arg, Expr::Column(_)) => {
                    SqlType::Int {
                        unsigned,
                        // 11 digits: wide enough to be sent as a BIGINT.
                        len: len.max(11),
                    }
                }
                // MIN(NULL): a string of no characters.
                (SqlType::Null, _) => SqlType::Str { chars: 0 },
                (other, _) => other,
            },
            AggKind::Sum if exact => SqlType::Decimal {
                precision: myriad_types::decimal::MAX_PRECISION,
                scale,
            },
            AggKind::Avg if exact => SqlType::Decimal {
                precision: myriad_types::decimal::MAX_PRECISION,
                scale: (scale + env.div_precision_increment())
                    .min(myriad_types::decimal::MAX_SCALE),
            },
            AggKind::Sum | AggKind::Avg | AggKind::Variance { .. } => SqlType::Double,
            AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor => SqlType::Int {
                unsigned: true,
                len: 21,
            },
            AggKind::GroupConcat => SqlType::Str {
                chars: env.group_concat_max_len().min(u64::from(u32::MAX)) as u32,
            },
        }
    }
}

/// GROUP BY keys (none: the whole input is one group), the aggregates, and HAVING.
#[derive(Debug, Clone)]
pub struct Grouping {
    pub keys: Vec<Expr>,
    /// The collation each key's strings group under.
    pub key_collations: Vec<st::Collation>,
    pub aggregates: Vec<Aggregate>,
    pub having: Option<Expr>,
    /// WITH ROLLUP: super-aggregate rows after each prefix of the keys (the keys are
    /// columns), see `exec::rollup`.
    pub rollup: bool,
}

impl Grouping {
    /// Whether a group's row (its first row, then its aggregates' values) passes HAVING.
    pub fn keeps(
        &self,
        env: &mut dyn crate::expr::Env,
        row: &[crate::value::Value],
    ) -> Result<bool, SqlError> {
        self.having.as_ref().map_or(Ok(true), |h| h.holds(env, row))
    }
}

/// One more table joined to the rows so far (nested loop; an index lookup on the joined
/// table when the ON clause equates its index's first column with earlier columns).
#[derive(Debug, Clone)]
pub struct JoinStep {
    pub table: TableRef,
    /// Position of this table's first column in the joined row.
    pub offset: usize,
    /// LEFT JOIN: keep a row with NULLs when nothing matches.
    pub left: bool,
    pub on: Option<Expr>,
    /// (index number, expression over earlier columns) to look the joined rows up by.
    pub lookup: Option<(usize, Expr)>,
}

#[derive(Debug, Clone)]
pub struct TableSelect {
    /// `SELECT SQL_CALC_FOUND_ROWS`: the LIMIT, taken out of `limit` and `offset`.
    pub found_rows_window: Option<Box<crate::plan::FoundRowsWindow>>,
    pub source: RowSource,
    /// Further tables; with joins, `source` reads the first table whole and the WHERE clause
    /// is `post_filter`, applied to the joined rows.
    pub joins: Vec<JoinStep>,
    pub post_filter: Option<Expr>,
    /// The tables (0 the source, then each join's) whose every column a `*` lists.
    pub wildcards: Vec<usize>,
    pub items: Vec<OutputItem>,
    pub grouping: Option<Grouping>,
    pub distinct: bool,
    pub order_by: Vec<(Expr, bool)>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    /// The collation of each column of the rows the clauses read (the tables' columns,
    /// then each aggregate's): what ORDER BY, GROUP BY, DISTINCT and MIN/MAX keys
    /// compare under (see [`Expr::collation`]).
    pub collations: Vec<Option<st::Collation>>,
    /// The window functions, whose values follow the aggregates' in the rows the select
    /// list and ORDER BY read.
    pub windows: crate::plan::window::Windows,
    /// `FOR UPDATE` (exclusive) or `FOR SHARE` (shared): the leaves read are claimed for
    /// the session's transaction before the rows are sent (see `session::transaction`).
    pub locking: Option<myriad_storage::ClaimMode>,
    /// The result's column metadata, made at the first execution and kept when the list
    /// shows stored columns only (their metadata depends on the definition alone, and a
    /// changed definition means a new plan).
    pub shown_columns: std::sync::OnceLock<Arc<Vec<Column>>>,
}

impl TableSelect {
    /// Whether the first table is read through an index range: its sorts count in
    /// Sort_range, otherwise in Sort_scan.
    pub fn reads_index_range(&self) -> bool {
        matches!(self.source.access, Access::Index { .. })
    }

    /// The types of the rows the clauses read: the tables' columns in join order, then
    /// each aggregate's, then each window function's; with the number of table columns.
    pub fn input_types(&self, env: &dyn crate::expr::Env) -> (Vec<SqlType>, usize) {
        let mut types = self.source.table.column_types();
        for j in &self.joins {
            types.extend(j.table.column_types());
        }
        let ncols = types.len();
        if let Some(g) = &self.grouping {
            for a in &g.aggregates {
                let ty = a.sql_type(&types[..ncols], env);
                types.push(ty);
            }
        }
        for f in &self.windows.funcs {
            let ty = f.sql_type(&types, env);
            types.push(ty);
        }
        (types, ncols)
    }
}

#[derive(Debug, Clone)]
pub struct InsertPlan {
    pub table: TableRef,
    /// Row positions of the listed columns.
    pub columns: Vec<usize>,
    pub rows: Vec<Vec<Option<Expr>>>,
    /// `INSERT ... SELECT`: the query whose rows are inserted (then `rows` is empty). Its
    /// rows are read whole before the first is inserted, as MariaDB does when a query
    /// reads the table it inserts into.
    pub select: Option<Arc<dyn crate::expr::SubqueryPlan>>,
    pub ignore: bool,
    pub replace: bool,
    /// ON DUPLICATE KEY UPDATE assignments, over the existing row followed by the new one.
    pub on_duplicate: Option<Vec<(usize, Expr)>>,
}

#[derive(Debug, Clone)]
pub struct UpdatePlan {
    pub source: RowSource,
    pub assignments: Vec<(usize, Expr)>,
    pub order_by: Vec<(Expr, bool)>,
    pub limit: Option<Expr>,
}

#[derive(Debug, Clone)]
pub struct DeletePlan {
    pub source: RowSource,
    pub order_by: Vec<(Expr, bool)>,
    pub limit: Option<Expr>,
}

/// A view named where this server reads only tables: writing through a view, locking one.
pub fn err_view_here() -> SqlError {
    SqlError::new(
        ER_VIEW_HERE,
        "This version of myriad doesn't yet support 'a view here (writing through a view, \
         or this statement on a view)'",
    )
}

/// The code of [`err_view_here`].
pub const ER_VIEW_HERE: myriad_types::errors::ErrorCode =
    myriad_types::errors::ER_NOT_SUPPORTED_YET;

pub fn err_no_database() -> SqlError {
    SqlError::new(ER_NO_DB_ERROR, "No database selected")
}

/// `db.table` or `table` in the current database.
pub fn resolve_name(
    name: &ast::ObjectName,
    database: Option<&str>,
) -> Result<(String, String), SqlError> {
    let (db, table) = resolve_name_in_place(name, database)?;
    Ok((db.to_string(), table.to_string()))
}

/// [`resolve_name`] without copies, for the statements that only look the table up.
pub fn resolve_name_in_place<'a>(
    name: &'a ast::ObjectName,
    database: Option<&'a str>,
) -> Result<(&'a str, &'a str), SqlError> {
    let part = |p: &'a ast::ObjectNamePart| match p {
        ast::ObjectNamePart::Identifier(i) => Ok(i.value.as_str()),
        other => Err(crate::expr::err_syntax(&other.to_string())),
    };
    match name.0.as_slice() {
        [table] => Ok((database.ok_or_else(err_no_database)?, part(table)?)),
        [db, table] => Ok((part(db)?, part(table)?)),
        _ => Err(crate::expr::err_syntax(&name.to_string())),
    }
}

pub fn open_ref(
    storage: &st::Storage,
    db: &str,
    name: &str,
    alias: Option<&str>,
) -> Result<TableRef, SqlError> {
    if crate::plan::info_schema::is_schema(db) {
        return crate::plan::info_schema::table_ref(name, alias);
    }
    if db == crate::catalog::mysql_schema::SCHEMA {
        if let Some(table) = crate::plan::info_schema::mysql_table_ref(name, alias)? {
            return Ok(table);
        }
    }
    let def = storage.table_def(db, name).map_err(|e| match e {
        st::StorageError::NoSuchDatabase(_) => SqlError::new(
            ER_NO_SUCH_TABLE,
            format!("Table '{db}.{name}' doesn't exist"),
        ),
        // A view where only a table can be (a write's target, ...): not built.
        st::StorageError::NoSuchTable(..) if storage.view_exists(db, name) => err_view_here(),
        other => storage_error(other),
    })?;
    let name: Arc<str> = name.into();
    Ok(TableRef {
        reads_as: None,
        database: db.into(),
        alias: alias.map_or_else(|| Arc::clone(&name), Into::into),
        name,
        def,
        made: None,
    })
}

/// A column type's text form where it says more than the values (see
/// [`ColumnScope::text_forms`]).
pub(crate) fn text_form(ty: &st::ColumnType) -> Option<crate::expr::TextForm> {
    use crate::expr::TextForm;
    match ty {
        st::ColumnType::Date => Some(TextForm::Temporal { fsp: 0 }),
        st::ColumnType::DateTime { fsp }
        | st::ColumnType::Timestamp { fsp }
        | st::ColumnType::Time { fsp } => Some(TextForm::Temporal { fsp: *fsp }),
        st::ColumnType::Float => Some(TextForm::Float),
        _ => None,
    }
}

/// A table's columns in scope, qualified by `alias` where given.
pub(crate) fn columns_scope(columns: &[st::ColumnDef], alias: Option<&Arc<str>>) -> ColumnScope {
    ColumnScope {
        columns: columns
            .iter()
            .map(|c| (alias.map(Arc::clone), c.name.clone()))
            .collect(),
        collations: columns.iter().map(|c| c.ty.string_collation()).collect(),
        text_forms: columns.iter().map(|c| text_form(&c.ty)).collect(),
        elements: columns
            .iter()
            .map(|c| c.ty.elements().map(|(list, set)| (Arc::clone(list), set)))
            .collect(),
        hidden: Vec::new(),
    }
}

impl TableRef {
    /// Whether this is a view: a derived table that a database names.
    pub fn is_view(&self) -> bool {
        matches!(self.made, Some(Made::Query(_))) && !self.database.is_empty()
    }

    pub fn scope(&self) -> ColumnScope {
        columns_scope(&self.def.columns, Some(&self.alias))
    }

    /// Each column's collation, None for a column that is no string.
    pub fn collations(&self) -> Vec<Option<st::Collation>> {
        self.def
            .columns
            .iter()
            .map(|c| c.ty.string_collation())
            .collect()
    }

    pub fn column_types(&self) -> Vec<SqlType> {
        self.def
            .columns
            .iter()
            .map(|c| sql_type_of(&c.ty))
            .collect()
    }

    /// Open the table and check it still has the definition this plan was compiled for.
    pub fn open(&self, storage: &st::Storage) -> Result<st::Table, SqlError> {
        if self.made.is_some() {
            // Reads make the rows (`crate::exec::source`); nothing else may open one.
            return Err(SqlError::not_supported(
                "this statement on information_schema or derived tables",
            ));
        }
        let table = storage
            .open_table(&self.database, &self.name)
            .map_err(storage_error)?;
        // The same Arc is the common case (the definition cache hands out one per table);
        // compare contents only when it differs.
        if !Arc::ptr_eq(table.def(), &self.def) && **table.def() != *self.def {
            return Err(SqlError::new(
                ER_TABLE_DEF_CHANGED,
                "Table definition has changed, please retry transaction",
            ));
        }
        Ok(table)
    }
}

// ---- types ----

pub(crate) fn int_digits(width: st::IntWidth, unsigned: bool) -> u32 {
    match (width, unsigned) {
        (st::IntWidth::Tiny, _) => 4,
        (st::IntWidth::Small, _) => 6,
        (st::IntWidth::Medium, _) => 9,
        (st::IntWidth::Int, _) => 11,
        (st::IntWidth::Big, true) => 20,
        (st::IntWidth::Big, false) => 20,
    }
}

/// The BINARY column flag of a text column: set for a `_bin` collation.
fn bin_flag(collation: st::Collation) -> u16 {
    if collation == st::Collation::Utf8mb4Bin {
        column_flags::BINARY
    } else {
        0
    }
}

pub fn sql_type_of(ty: &st::ColumnType) -> SqlType {
    match ty {
        st::ColumnType::Int { width, unsigned } => SqlType::Int {
            unsigned: *unsigned,
            len: int_digits(*width, *unsigned),
        },
        st::ColumnType::Decimal { precision, scale } => SqlType::Decimal {
            precision: *precision as u32,
            scale: *scale as u32,
        },
        st::ColumnType::Float | st::ColumnType::Double => SqlType::Double,
        st::ColumnType::Char { len, .. } | st::ColumnType::Varchar { len, .. } => {
            SqlType::Str { chars: *len }
        }
        st::ColumnType::Text { size, .. } | st::ColumnType::Blob { size } => SqlType::Str {
            chars: size.max_bytes().min(u64::from(u32::MAX)) as u32,
        },
        st::ColumnType::Date => SqlType::Date,
        st::ColumnType::DateTime { fsp } | st::ColumnType::Timestamp { fsp } => {
            SqlType::DateTime { fsp: *fsp }
        }
        st::ColumnType::Time { fsp } => SqlType::Time { fsp: *fsp },
        st::ColumnType::Enum { .. } | st::ColumnType::Set { .. } => SqlType::Str {
            chars: element_chars(ty),
        },
    }
}

/// Characters an ENUM's or SET's longest value has (0 for another type).
fn element_chars(ty: &st::ColumnType) -> u32 {
    ty.elements()
        .map_or(0, |(list, set)| st::elements::max_chars(list, set))
}

/// Characters of a DATETIME or TIMESTAMP with `fsp` digits of fractional seconds.
fn datetime_length(fsp: u8) -> u32 {
    match fsp {
        0 => 19,
        fsp => 20 + u32::from(fsp),
    }
}

/// Result metadata of a stored column.
pub fn column_meta(table: &TableRef, index: usize, name: &str) -> Column {
    let c = &table.def.columns[index];
    let mut flags = 0u16;
    if !c.nullable {
        flags |= column_flags::NOT_NULL;
    }
    for ix in &table.def.indexes {
        if ix.columns.first() == Some(&index) {
            flags |= match ix.kind {
                st::IndexKind::Primary => column_flags::PRI_KEY,
                st::IndexKind::Unique => column_flags::UNIQUE_KEY,
                st::IndexKind::NonUnique => column_flags::MULTIPLE_KEY,
            };
        }
    }
    if c.auto_increment {
        flags |= column_flags::AUTO_INCREMENT;
    }
    let (wire, length, charset, decimals) = match &c.ty {
        st::ColumnType::Int { width, unsigned } => {
            if *unsigned {
                flags |= column_flags::UNSIGNED;
            }
            flags |= column_flags::NUM | column_flags::BINARY;
            let wire = match width {
                st::IntWidth::Tiny => WireType::Tiny,
                st::IntWidth::Small => WireType::Short,
                st::IntWidth::Medium => WireType::Int24,
                st::IntWidth::Int => WireType::Long,
                st::IntWidth::Big => WireType::LongLong,
            };
            (wire, int_digits(*width, *unsigned), charsets::BINARY, 0)
        }
        st::ColumnType::Decimal { precision, scale } => {
            flags |= column_flags::NUM | column_flags::BINARY;
            (
                WireType::NewDecimal,
                *precision as u32 + 2,
                charsets::BINARY,
                *scale,
            )
        }
        st::ColumnType::Float => {
            flags |= column_flags::NUM | column_flags::BINARY;
            (WireType::Float, 12, charsets::BINARY, 31)
        }
        st::ColumnType::Double => {
            flags |= column_flags::NUM | column_flags::BINARY;
            (WireType::Double, 22, charsets::BINARY, 31)
        }
        st::ColumnType::Char {
            len,
            collation: st::Collation::Binary,
        } => {
            flags |= column_flags::BINARY;
            (WireType::String, *len, charsets::BINARY, 0)
        }
        st::ColumnType::Varchar {
            len,
            collation: st::Collation::Binary,
        } => {
            flags |= column_flags::BINARY;
            (WireType::VarString, *len, charsets::BINARY, 0)
        }
        // A text column's character set number is its collation's; a `_bin` collation's
        // column is flagged BINARY too, as MariaDB flags it.
        st::ColumnType::Char { len, collation } => {
            flags |= bin_flag(*collation);
            (WireType::String, len * 4, collation.id(), 0)
        }
        st::ColumnType::Varchar { len, collation } => {
            flags |= bin_flag(*collation);
            (WireType::VarString, len * 4, collation.id(), 0)
        }
        // Every size is sent as BLOB (252), told apart by its length, as MariaDB does.
        st::ColumnType::Text { size, collation } => {
            flags |= column_flags::BLOB | bin_flag(*collation);
            let length = (size.max_bytes() * 4).min(u64::from(u32::MAX)) as u32;
            (WireType::Blob, length, collation.id(), 0)
        }
        st::ColumnType::Blob { size } => {
            flags |= column_flags::BLOB | column_flags::BINARY;
            (WireType::Blob, size.max_bytes() as u32, charsets::BINARY, 0)
        }
        st::ColumnType::Date => {
            flags |= column_flags::BINARY;
            (WireType::Date, 10, charsets::BINARY, 0)
        }
        st::ColumnType::DateTime { fsp } => {
            flags |= column_flags::BINARY;
            (
                WireType::DateTime,
                datetime_length(*fsp),
                charsets::BINARY,
                *fsp,
            )
        }
        st::ColumnType::Timestamp { fsp } => {
            flags |= column_flags::BINARY | column_flags::TIMESTAMP;
            (
                WireType::Timestamp,
                datetime_length(*fsp),
                charsets::BINARY,
                *fsp,
            )
        }
        st::ColumnType::Time { fsp } => {
            flags |= column_flags::BINARY;
            let chars = crate::expr::eval::display_chars(SqlType::Time { fsp: *fsp });
            (WireType::Time, chars, charsets::BINARY, *fsp)
        }
        // Sent as CHAR, flagged ENUM or SET, as MariaDB does.
        st::ColumnType::Enum { collation, .. } => {
            flags |= bin_flag(*collation) | column_flags::ENUM;
            (
                WireType::String,
                element_chars(&c.ty) * 4,
                collation.id(),
                0,
            )
        }
        st::ColumnType::Set { collation, .. } => {
            flags |= bin_flag(*collation) | column_flags::SET;
            (
                WireType::String,
                element_chars(&c.ty) * 4,
                collation.id(),
                0,
            )
        }
    };
    Column {
        schema: Arc::clone(&table.database),
        table: Arc::clone(&table.alias),
        org_table: Arc::clone(&table.name),
        name: name.to_string(),
        org_name: c.name.clone(),
        charset,
        length,
        column_type: wire,
        flags,
        decimals,
    }
}
