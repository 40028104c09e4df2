//! Running an EXPLAIN: the rows of MariaDB's tabular plan, read off the compiled statement
//! (see [`crate::plan::explain`] for what each column says and how our access paths map to
//! MariaDB's `type`). Row counts come from storage, so this runs in the execution stage.

use crate::error::SqlError;
use crate::expr::{Env, Expr};
use crate::plan::tables::{Access, JoinStep, RowSource, TableRef, TableSelect, Tail};
use crate::plan::{SelectPlan, Stmt};
use crate::result::{charsets, column_flags, Column, ColumnType as WireType, QueryResult, Rows};
use crate::value::Value;
use myriad_storage as st;
use std::sync::Arc;
/// One row of EXPLAIN's result.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PlanRow {
    pub table: Option<String>,
    pub access_type: Option<&'static str>,
    pub possible_keys: Option<String>,
    pub key: Option<String>,
    pub key_len: Option<u32>,
    pub reference: Option<String>,
    pub rows: Option<u64>,
    pub extra: Vec<&'static str>,
}

/// The result columns of EXPLAIN as MariaDB 10.11 sends them: name, length in bytes
/// (characters times 4, utf8mb4) and whether the column is NOT NULL. `id` is an unsigned
/// BIGINT of length 3; `rows` is text, as in MariaDB.
const TEXT_COLUMNS: [(&str, u32, bool); 9] = [
    ("select_type", 76, true),
    ("table", 256, false),
    ("type", 40, false),
    ("possible_keys", 16384, false),
    ("key", 256, false),
    ("key_len", 16384, false),
    ("ref", 8192, false),
    ("rows", 256, false),
    ("Extra", 1020, true),
];

/// MariaDB's `decimals` for a text result column (not a fixed number of decimals).
const TEXT_DECIMALS: u8 = 39;

/// The result of executing `EXPLAIN <stmt>`.
pub(crate) fn explain(
    stmt: &Stmt,
    storage: &st::Storage,
    env: &mut crate::exec::env::ExecEnv,
) -> Result<QueryResult, SqlError> {
    let rows = match stmt {
        Stmt::Select(plan) => vec![no_tables(plan, env)?],
        // A single-table read that stops after LIMIT rows reads none for LIMIT 0.
        Stmt::SelectTable(plan)
            if plan.joins.is_empty() && crate::Session::rows_to_read(plan, env)? == Some(0) =>
        {
            vec![PlanRow {
                extra: vec!["Zero limit"],
                ..PlanRow::default()
            }]
        }
        Stmt::SelectTable(plan) => table_rows(plan, storage, env)?,
        Stmt::Update(plan) => vec![write_row(&plan.source, &plan.order_by, storage, env)?],
        Stmt::Delete(plan) => vec![write_row(&plan.source, &plan.order_by, storage, env)?],
        _ => return Err(SqlError::not_supported("EXPLAIN of this statement")),
    };
    let values = rows.into_iter().map(row_values).collect();
    Ok(QueryResult::Rows {
        columns: Arc::new(result_columns()),
        rows: Rows::shared(values),
        warnings: 0,
    })
}

/// A SELECT without tables: its WHERE (if any) is evaluated once, as the executor does.
fn no_tables(plan: &SelectPlan, env: &mut dyn Env) -> Result<PlanRow, SqlError> {
    let holds = match &plan.filter {
        Some(f) => f.holds(env, &[])?,
        None => true,
    };
    Ok(PlanRow {
        extra: vec![if holds {
            "No tables used"
        } else {
            "Impossible WHERE"
        }],
        ..PlanRow::default()
    })
}

fn table_rows(
    plan: &TableSelect,
    storage: &st::Storage,
    env: &mut dyn Env,
) -> Result<Vec<PlanRow>, SqlError> {
    let mut out = vec![source_row(&plan.source, storage, env)?];
    let tables: Vec<&TableRef> = std::iter::once(&plan.source.table)
        .chain(plan.joins.iter().map(|j| &j.table))
        .collect();
    for step in &plan.joins {
        out.push(join_row(step, &tables, storage)?);
    }
    // The WHERE of a join is applied to each combined row as the last step makes it.
    if plan.post_filter.is_some() {
        if let Some(last) = out.last_mut() {
            if !last.extra.contains(&"Using where") {
                last.extra.push("Using where");
            }
        }
    }
    // Grouping, DISTINCT and sorting happen once over all rows: MariaDB notes them on the
    // first table.
    let first = &mut out[0];
    let grouped = plan.grouping.as_ref().is_some_and(|g| !g.keys.is_empty());
    if grouped || plan.distinct {
        first.extra.push("Using temporary");
    }
    // Groups come out in key order (sorted, as MariaDB's GROUP BY does) unless ORDER BY
    // sorts them otherwise; a whole-table aggregate is one row and sorts nothing.
    if grouped || (!plan.order_by.is_empty() && plan.grouping.is_none()) {
        first.extra.push("Using filesort");
    }
    Ok(out)
}

/// The row an UPDATE or DELETE reads by: its source as a SELECT's, named as MariaDB names
/// single-table UPDATE and DELETE reads, where every key read (a point lookup included)
/// is a `range` with no `ref`; then sorted for ORDER BY.
fn write_row(
    source: &RowSource,
    order_by: &[(Expr, bool)],
    storage: &st::Storage,
    env: &mut dyn Env,
) -> Result<PlanRow, SqlError> {
    let mut row = source_row(source, storage, env)?;
    if matches!(row.access_type, Some("const" | "ref")) {
        row.access_type = Some("range");
        row.reference = None;
    }
    if !order_by.is_empty() {
        row.extra.push("Using filesort");
    }
    Ok(row)
}

fn row_count(table: &TableRef, storage: &st::Storage) -> Result<u64, SqlError> {
    table
        .open(storage)?
        .row_count()
        .map_err(crate::catalog::storage_error)
}

fn source_row(
    source: &RowSource,
    storage: &st::Storage,
    env: &mut dyn Env,
) -> Result<PlanRow, SqlError> {
    let def = &source.table.def;
    let count = row_count(&source.table, storage)?;
    let candidates = crate::plan::access::candidate_indexes(def, source.filter.as_ref());
    let mut row = PlanRow {
        table: Some(source.table.alias.to_string()),
        access_type: Some("ALL"),
        possible_keys: key_names(def, &candidates),
        rows: Some(count),
        ..PlanRow::default()
    };
    if let Access::Index { index_no, eq, tail } = &source.access {
        if keys_are_exact(def, *index_no, eq, tail, env)? {
            let ix = &def.indexes[*index_no];
            let (parts, unique_whole) = match tail {
                Tail::None => (eq.len(), ix.is_unique() && eq.len() == ix.columns.len()),
                _ => (eq.len() + 1, false),
            };
            row.key = Some(ix.name.clone());
            row.key_len = key_len(def, &ix.columns[..parts]);
            match tail {
                Tail::None => {
                    row.access_type = Some(if unique_whole { "const" } else { "ref" });
                    row.reference = Some(vec!["const"; eq.len()].join(","));
                    if unique_whole {
                        row.rows = Some(count.min(1));
                    }
                }
                Tail::In(list) => {
                    row.access_type = Some("range");
                    if ix.is_unique() && parts == ix.columns.len() {
                        row.rows = Some(count.min(list.len() as u64));
                    }
                }
                Tail::Range { .. } | Tail::Ranges(_) => row.access_type = Some("range"),
            }
        }
    }
    if source.filter.is_some() && !crate::exec::read::range_is_the_filter(source, env)? {
        row.extra.push("Using where");
    }
    Ok(row)
}

fn join_row(
    step: &JoinStep,
    tables: &[&TableRef],
    storage: &st::Storage,
) -> Result<PlanRow, SqlError> {
    let def = &step.table.def;
    let count = row_count(&step.table, storage)?;
    let mut row = PlanRow {
        table: Some(step.table.alias.to_string()),
        access_type: Some("ALL"),
        rows: Some(count),
        ..PlanRow::default()
    };
    if let Some((index_no, key)) = &step.lookup {
        let ix = &def.indexes[*index_no];
        let column = ix.columns[0];
        let alike: Vec<usize> = (0..def.indexes.len())
            .filter(|&n| def.indexes[n].columns.first() == Some(&column))
            .collect();
        let unique = ix.is_unique() && ix.columns.len() == 1;
        row.access_type = Some(if unique { "eq_ref" } else { "ref" });
        row.possible_keys = key_names(def, &alike);
        row.key = Some(ix.name.clone());
        row.key_len = key_len(def, &ix.columns[..1]);
        row.reference = Some(reference(key, tables));
        if unique {
            row.rows = Some(count.min(1));
        }
    }
    if step.on.is_some() {
        row.extra.push("Using where");
    }
    Ok(row)
}

/// MariaDB's `ref` for a lookup value: `db.table.column` for a column of an earlier table,
/// `const` for a value that reads no row, `func` for anything else.
fn reference(key: &Expr, tables: &[&TableRef]) -> String {
    match key {
        Expr::Column(mut i) => {
            for t in tables {
                if let Some(c) = t.def.columns.get(i) {
                    return format!("{}.{}.{}", t.database, t.alias, c.name);
                }
                i -= t.def.columns.len();
            }
            "func".to_string()
        }
        e if !crate::plan::access::reads_row(e) => "const".to_string(),
        _ => "func".to_string(),
    }
}

fn key_names(def: &st::TableDef, indexes: &[usize]) -> Option<String> {
    let names: Vec<&str> = indexes
        .iter()
        .map(|&n| def.indexes[n].name.as_str())
        .collect();
    (!names.is_empty()).then(|| names.join(","))
}

/// Whether every value the index read looks up is an exact key of its column: otherwise
/// the executor reads the whole table (the same test `crate::exec::read::index_rows`
/// makes before it reads, on the same values).
fn keys_are_exact(
    def: &st::TableDef,
    index_no: usize,
    eq: &[Expr],
    tail: &Tail,
    env: &mut dyn Env,
) -> Result<bool, SqlError> {
    let ix = &def.indexes[index_no];
    let mut exact = |e: &Expr, position: usize| -> Result<Option<bool>, SqlError> {
        let v = e.eval(env, &[])?;
        if v.is_null() {
            return Ok(None);
        }
        let ty = &def.columns[ix.columns[position]].ty;
        Ok(Some(crate::plan::access::key_value(&v, ty).is_some()))
    };
    for (position, e) in eq.iter().enumerate() {
        match exact(e, position)? {
            Some(false) => return Ok(false),
            // `col = NULL` reads nothing, through the index.
            None => return Ok(true),
            Some(true) => {}
        }
    }
    let next = eq.len();
    let mut bounds: Vec<&Expr> = Vec::new();
    match tail {
        Tail::None => {}
        Tail::In(list) => bounds.extend(list),
        Tail::Range { lower, upper } => {
            bounds.extend(lower.iter().chain(upper).map(|(e, _)| e));
        }
        Tail::Ranges(ranges) => {
            for (lower, upper) in ranges {
                bounds.extend(lower.iter().chain(upper).map(|(e, _)| e));
            }
        }
    }
    for e in bounds {
        if exact(e, next)? == Some(false) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// MariaDB's `key_len`: the bytes of the key parts used, each its column's key image
/// (integers their width, DECIMAL its packed size, CHAR(n) 4n in utf8mb4, VARCHAR(n)
/// 4n + 2, BINARY(n) n, VARBINARY(n) n + 2, DATE 3, DATETIME 5, TIMESTAMP 4) plus one for a
/// nullable column. None when a part is a TEXT or BLOB column, whose key image depends on
/// a prefix length myriad does not have.
pub(crate) fn key_len(def: &st::TableDef, parts: &[usize]) -> Option<u32> {
    let mut total = 0u32;
    for &c in parts {
        let column = &def.columns[c];
        let chars = |len: u32, collation: &st::Collation| match collation {
            st::Collation::Binary => len,
            _ => len * 4,
        };
        let bytes = match &column.ty {
            st::ColumnType::Int { width, .. } => match width {
                st::IntWidth::Tiny => 1,
                st::IntWidth::Small => 2,
                st::IntWidth::Medium => 3,
                st::IntWidth::Int => 4,
                st::IntWidth::Big => 8,
            },
            st::ColumnType::Decimal { precision, scale } => {
                decimal_bytes(u32::from(*precision) - u32::from(*scale))
                    + decimal_bytes(u32::from(*scale))
            }
            st::ColumnType::Float => 4,
            st::ColumnType::Double => 8,
            st::ColumnType::Char { len, collation } => chars(*len, collation),
            st::ColumnType::Varchar { len, collation } => chars(*len, collation) + 2,
            st::ColumnType::Text { .. } | st::ColumnType::Blob { .. } => return None,
            st::ColumnType::Date => 3,
            // The fraction takes a byte per two digits (rounded up).
            st::ColumnType::DateTime { fsp } => 5 + u32::from(fsp.div_ceil(2)),
            st::ColumnType::Timestamp { fsp } => 4 + u32::from(fsp.div_ceil(2)),
            st::ColumnType::Time { fsp } => 3 + u32::from(fsp.div_ceil(2)),
            st::ColumnType::Enum { .. } | st::ColumnType::Set { .. } => {
                let (list, set) = column.ty.elements().expect("an ENUM or SET has elements");
                st::elements::packed_bytes(list, set)
            }
        };
        total += bytes + u32::from(column.nullable);
    }
    Some(total)
}

/// Bytes of `digits` decimal digits in MariaDB's packed DECIMAL: 4 per 9 digits, and the
/// rest by the table below.
fn decimal_bytes(digits: u32) -> u32 {
    const LEFTOVER_BYTES: [u32; 9] = [0, 1, 1, 2, 2, 3, 3, 4, 4];
    digits / 9 * 4 + LEFTOVER_BYTES[(digits % 9) as usize]
}

/// EXPLAIN's result columns (also the metadata a prepared EXPLAIN describes).
pub(crate) fn result_columns() -> Vec<Column> {
    let mut columns = vec![Column {
        schema: crate::result::no_table(),
        table: crate::result::no_table(),
        org_table: crate::result::no_table(),
        name: "id".to_string(),
        org_name: String::new(),
        charset: charsets::BINARY,
        length: 3,
        column_type: WireType::LongLong,
        flags: column_flags::BINARY | column_flags::UNSIGNED,
        decimals: 0,
    }];
    for (name, length, not_null) in TEXT_COLUMNS {
        columns.push(Column {
            schema: crate::result::no_table(),
            table: crate::result::no_table(),
            org_table: crate::result::no_table(),
            name: name.to_string(),
            org_name: String::new(),
            charset: charsets::UTF8MB4_GENERAL_CI,
            length,
            column_type: WireType::VarString,
            flags: if not_null { column_flags::NOT_NULL } else { 0 },
            decimals: TEXT_DECIMALS,
        });
    }
    columns
}

fn row_values(row: PlanRow) -> Vec<Value> {
    let text = |s: Option<String>| s.map_or(Value::Null, |s| Value::Bytes(s.into_bytes()));
    vec![
        Value::UInt(1),
        Value::Bytes(b"SIMPLE".to_vec()),
        text(row.table),
        text(row.access_type.map(str::to_string)),
        text(row.possible_keys),
        text(row.key),
        text(row.key_len.map(|n| n.to_string())),
        text(row.reference),
        text(row.rows.map(|n| n.to_string())),
        Value::Bytes(row.extra.join("; ").into_bytes()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::explain::is_explain_of_statement;

    fn column(name: &str, ty: st::ColumnType, nullable: bool) -> st::ColumnDef {
        st::ColumnDef {
            name: name.to_string(),
            ty,
            nullable,
            default: None,
            auto_increment: false,
            default_now: false,
            on_update_now: false,
            comment: String::new(),
        }
    }

    #[test]
    fn key_len_follows_mariadb_key_images() {
        let def = st::TableDef {
            columns: vec![
                column(
                    "i",
                    st::ColumnType::Int {
                        width: st::IntWidth::Int,
                        unsigned: false,
                    },
                    false,
                ),
                column(
                    "b",
                    st::ColumnType::Int {
                        width: st::IntWidth::Big,
                        unsigned: true,
                    },
                    true,
                ),
                column(
                    "v",
                    st::ColumnType::Varchar {
                        len: 10,
                        collation: st::Collation::Utf8mb4GeneralCi,
                    },
                    false,
                ),
                column(
                    "vb",
                    st::ColumnType::Varchar {
                        len: 10,
                        collation: st::Collation::Binary,
                    },
                    false,
                ),
                column(
                    "c",
                    st::ColumnType::Char {
                        len: 20,
                        collation: st::Collation::Utf8mb4Bin,
                    },
                    true,
                ),
                column(
                    "d",
                    st::ColumnType::Decimal {
                        precision: 10,
                        scale: 2,
                    },
                    false,
                ),
                column(
                    "d2",
                    st::ColumnType::Decimal {
                        precision: 20,
                        scale: 10,
                    },
                    false,
                ),
                column("day", st::ColumnType::Date, true),
                column("at", st::ColumnType::DateTime { fsp: 0 }, false),
                column("ts", st::ColumnType::Timestamp { fsp: 0 }, false),
                column(
                    "t",
                    st::ColumnType::Text {
                        collation: st::Collation::Utf8mb4GeneralCi,
                        size: st::LobSize::Regular,
                    },
                    false,
                ),
            ],
            indexes: Vec::new(),
            options: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        };
        let each: Vec<Option<u32>> = (0..def.columns.len())
            .map(|c| key_len(&def, &[c]))
            .collect();
        assert_eq!(
            each,
            [Some(4), Some(9), Some(42), Some(12), Some(81), Some(5), Some(10), Some(4), Some(5), Some(4), None],
            "key_len of INT, BIGINT NULL, VARCHAR(10), VARBINARY(10), CHAR(20) NULL, DECIMAL(10,2), DECIMAL(20,10), DATE NULL, DATETIME, TIMESTAMP, TEXT"
        );
        assert_eq!(key_len(&def, &[0, 2]), Some(46), "parts add up");
    }

    #[test]
    fn result_columns_are_mariadbs() {
        let columns = result_columns();
        let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names.join(" "),
            "id select_type table type possible_keys key key_len ref rows Extra"
        );
        // As MariaDB 10.11 sends them: (type code, length, flags, charset, decimals).
        let seen: Vec<(u8, u32, u16, u16, u8)> = columns
            .iter()
            .map(|c| {
                (
                    c.column_type as u8,
                    c.length,
                    c.flags,
                    c.charset,
                    c.decimals,
                )
            })
            .collect();
        assert_eq!(
            seen[0],
            (8, 3, 160, 63, 0),
            "id: BINARY | UNSIGNED, nullable"
        );
        assert_eq!(seen[1], (253, 76, 1, 45, 39), "select_type");
        assert_eq!(seen[8], (253, 256, 0, 45, 39), "rows is text");
        assert_eq!(seen[9], (253, 1020, 1, 45, 39), "Extra");
    }

    #[test]
    fn statement_words_after_explain() {
        for word in [
            "SELECT",
            "EXTENDED",
            "PARTITIONS",
            "FORMAT",
            "UPDATE",
            "DELETE",
            "INSERT",
        ] {
            assert!(is_explain_of_statement(Some(word)), "{word}");
        }
        assert!(
            !is_explain_of_statement(Some("T1")),
            "EXPLAIN t1 describes a table"
        );
        assert!(!is_explain_of_statement(None));
    }
}
