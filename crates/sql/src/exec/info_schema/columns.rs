//! The information_schema tables that describe table definitions: COLUMNS, STATISTICS,
//! TABLE_CONSTRAINTS and KEY_COLUMN_USAGE, a producer per table definition (see
//! `per_table` in the parent module).

use super::{text, Described};
use crate::plan::show_create::{default_text, extra_text, key_text, type_text};
use crate::value::Value;
use myriad_storage as st;

/// COLUMNS: a row per column.
pub(super) fn column_rows(t: &Described, rows: &mut Vec<st::Row>) {
    let (db, name, def) = (t.db, t.name, t.def);
    for (i, c) in def.columns.iter().enumerate() {
        let Some(Some(privileges)) = t.privileges.get(i) else {
            continue;
        };
        let facts = TypeFacts::of(&c.ty);
        let number = |v: Option<u64>| v.map_or(Value::Null, Value::UInt);
        let full = type_text(&c.ty);
        let data_type = full.split(['(', ' ']).next().unwrap_or("").to_string();
        let (charset, collation) = match c.ty.string_collation() {
            Some(st::Collation::Binary) | None => (Value::Null, Value::Null),
            Some(collation) => (text("utf8mb4"), text(collation.name())),
        };
        rows.push(vec![
            text("def"),
            text(db),
            text(name),
            text(&c.name),
            Value::UInt(i as u64 + 1),
            column_default(c),
            text(if c.nullable { "YES" } else { "NO" }),
            text(&data_type),
            number(facts.char_length),
            number(facts.octet_length),
            number(facts.precision),
            number(facts.scale),
            number(facts.datetime_precision),
            charset,
            collation,
            text(&full),
            text(key_text(def, i)),
            text(&extra_text(c)),
            text(privileges),
            text(&c.comment),
            text("NEVER"),
            Value::Null,
        ]);
    }
}

/// COLUMN_DEFAULT as MariaDB writes it: a literal as SQL (strings and temporal values
/// quoted), `NULL` (the text) for a nullable column without one, SQL NULL for a NOT NULL
/// column without one, CURRENT_TIMESTAMP as the function.
fn column_default(c: &st::ColumnDef) -> Value {
    if c.auto_increment {
        return Value::Null;
    }
    let Some(shown) = default_text(c) else {
        return if c.nullable {
            text("NULL")
        } else {
            Value::Null
        };
    };
    if c.default_now {
        return text(&shown);
    }
    let quoted = c.ty.is_string()
        || matches!(
            c.ty,
            st::ColumnType::Date
                | st::ColumnType::DateTime { .. }
                | st::ColumnType::Timestamp { .. }
                | st::ColumnType::Time { .. }
        );
    match quoted {
        true => text(&format!("'{}'", shown.replace('\'', "''"))),
        false => text(&shown),
    }
}

/// The numeric facts COLUMNS gives of a type.
#[derive(Default)]
struct TypeFacts {
    char_length: Option<u64>,
    octet_length: Option<u64>,
    precision: Option<u64>,
    scale: Option<u64>,
    datetime_precision: Option<u64>,
}

impl TypeFacts {
    fn of(ty: &st::ColumnType) -> TypeFacts {
        use st::ColumnType as T;
        let chars = |len: u64, binary: bool| TypeFacts {
            char_length: Some(len),
            octet_length: Some(if binary { len } else { len * 4 }),
            ..Default::default()
        };
        let numeric = |precision: u64, scale: Option<u64>| TypeFacts {
            precision: Some(precision),
            scale,
            ..Default::default()
        };
        match ty {
            T::Int { width, unsigned } => {
                let digits = match (width, unsigned) {
                    (st::IntWidth::Tiny, _) => 3,
                    (st::IntWidth::Small, _) => 5,
                    (st::IntWidth::Medium, _) => 7,
                    (st::IntWidth::Int, _) => 10,
                    (st::IntWidth::Big, true) => 20,
                    (st::IntWidth::Big, false) => 19,
                };
                numeric(digits, Some(0))
            }
            T::Decimal { precision, scale } => {
                numeric(u64::from(*precision), Some(u64::from(*scale)))
            }
            T::Float => numeric(12, None),
            T::Double => numeric(22, None),
            T::Char { len, collation } | T::Varchar { len, collation } => {
                chars(u64::from(*len), *collation == st::Collation::Binary)
            }
            T::Text { size, .. } => chars(size.max_bytes(), true),
            T::Blob { size } => chars(size.max_bytes(), true),
            T::Enum { collation, .. } | T::Set { collation, .. } => {
                let (list, set) = ty.elements().expect("an ENUM or SET has elements");
                chars(
                    u64::from(st::elements::max_chars(list, set)),
                    *collation == st::Collation::Binary,
                )
            }
            T::Date => TypeFacts::default(),
            T::DateTime { fsp } | T::Timestamp { fsp } | T::Time { fsp } => TypeFacts {
                datetime_precision: Some(u64::from(*fsp)),
                ..Default::default()
            },
        }
    }
}

/// STATISTICS: a row per column of each index.
pub(super) fn statistics_rows(t: &Described, rows: &mut Vec<st::Row>) {
    let (db, name, def) = (t.db, t.name, t.def);
    for ix in &def.indexes {
        for (seq, &c) in ix.columns.iter().enumerate() {
            let column = &def.columns[c];
            // A column the account may not see (its index's other columns stay).
            if !t.table_level && matches!(t.privileges.get(c), Some(None)) {
                continue;
            }
            rows.push(vec![
                text("def"),
                text(db),
                text(name),
                Value::UInt(u64::from(!ix.is_unique())),
                text(db),
                text(&ix.name),
                Value::UInt(seq as u64 + 1),
                text(&column.name),
                text("A"),
                Value::UInt(0),
                Value::Null,
                Value::Null,
                text(if column.nullable { "YES" } else { "" }),
                text("BTREE"),
                text(""),
                text(""),
                text("NO"),
            ]);
        }
    }
}

/// TABLE_CONSTRAINTS: the primary key, each unique key, each FOREIGN KEY and each CHECK
/// constraint.
pub(super) fn constraint_rows(t: &Described, rows: &mut Vec<st::Row>) {
    let (db, name, def) = (t.db, t.name, t.def);
    let keys = def.indexes.iter().filter(|ix| ix.is_unique()).map(|ix| {
        let kind = match ix.kind {
            st::IndexKind::Primary => "PRIMARY KEY",
            _ => "UNIQUE",
        };
        (ix.name.as_str(), kind)
    });
    let foreign = crate::plan::foreign_keys::in_shown_order(def)
        .into_iter()
        .map(|f| (f.name.as_str(), "FOREIGN KEY"));
    let checks = def.checks.iter().map(|c| (c.name.as_str(), "CHECK"));
    for (constraint, kind) in keys.chain(foreign).chain(checks) {
        rows.push(vec![
            text("def"),
            text(db),
            text(constraint),
            text(db),
            text(name),
            text(kind),
        ]);
    }
}

/// CHECK_CONSTRAINTS: each CHECK constraint, with its level (Column or Table) and text.
pub(super) fn check_constraint_rows(t: &Described, rows: &mut Vec<st::Row>) {
    for c in &t.def.checks {
        let level = if c.column_level { "Column" } else { "Table" };
        rows.push(vec![
            text("def"),
            text(t.db),
            text(t.name),
            text(&c.name),
            text(level),
            text(&c.text),
        ]);
    }
}

/// KEY_COLUMN_USAGE: each column of the primary key, of each unique key and of each
/// FOREIGN KEY (with the column it references).
pub(super) fn key_column_rows(t: &Described, rows: &mut Vec<st::Row>) {
    let (db, name, def) = (t.db, t.name, t.def);
    for ix in def.indexes.iter().filter(|ix| ix.is_unique()) {
        for (seq, &c) in ix.columns.iter().enumerate() {
            let mut row = vec![text("def"), text(db), text(&ix.name), text("def")];
            row.extend([text(db), text(name), text(&def.columns[c].name)]);
            row.push(Value::UInt(seq as u64 + 1));
            row.extend(std::iter::repeat_n(Value::Null, 4));
            rows.push(row);
        }
    }
    for fk in crate::plan::foreign_keys::in_shown_order(def) {
        for (seq, (own, referenced)) in fk.columns.iter().zip(&fk.parent_columns).enumerate() {
            let mut row = vec![text("def"), text(db), text(&fk.name), text("def")];
            row.extend([text(db), text(name), text(own)]);
            row.extend([Value::UInt(seq as u64 + 1), Value::UInt(seq as u64 + 1)]);
            row.extend([text(db), text(&fk.parent_table), text(referenced)]);
            rows.push(row);
        }
    }
}

/// REFERENTIAL_CONSTRAINTS: each FOREIGN KEY, with the parent's index it uses.
pub(super) fn referential_rows(t: &Described, rows: &mut Vec<st::Row>) {
    for fk in crate::plan::foreign_keys::in_shown_order(t.def) {
        let parent_index = t
            .storage
            .and_then(|s| s.table_def_unkept(t.db, &fk.parent_table).ok())
            .and_then(|p| {
                let i = crate::plan::foreign_keys::supporting_index(&p, &fk.parent_columns)?;
                Some(p.indexes[i].name.clone())
            });
        rows.push(vec![
            text("def"),
            text(t.db),
            text(&fk.name),
            text("def"),
            text(t.db),
            parent_index.map_or(Value::Null, |n| text(&n)),
            text("NONE"),
            text(fk.on_update.sql()),
            text(fk.on_delete.sql()),
            text(t.name),
            text(&fk.parent_table),
        ]);
    }
}
