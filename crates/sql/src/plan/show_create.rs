//! The text of SHOW CREATE TABLE and SHOW COLUMNS: types, defaults, keys.

use crate::plan::stored::*;
use myriad_storage as st;

// ---- describing tables ----

/// The column type as SHOW COLUMNS and SHOW CREATE TABLE print it.
pub fn type_text(ty: &st::ColumnType) -> String {
    match ty {
        st::ColumnType::Int { width, unsigned } => {
            let (name, signed_len, unsigned_len) = match width {
                st::IntWidth::Tiny => ("tinyint", 4, 3),
                st::IntWidth::Small => ("smallint", 6, 5),
                st::IntWidth::Medium => ("mediumint", 9, 8),
                st::IntWidth::Int => ("int", 11, 10),
                st::IntWidth::Big => ("bigint", 20, 20),
            };
            if *unsigned {
                format!("{name}({unsigned_len}) unsigned")
            } else {
                format!("{name}({signed_len})")
            }
        }
        st::ColumnType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
        st::ColumnType::Float => "float".into(),
        st::ColumnType::Double => "double".into(),
        st::ColumnType::Char {
            len,
            collation: st::Collation::Binary,
        } => format!("binary({len})"),
        st::ColumnType::Varchar {
            len,
            collation: st::Collation::Binary,
        } => format!("varbinary({len})"),
        st::ColumnType::Char { len, .. } => format!("char({len})"),
        st::ColumnType::Varchar { len, .. } => format!("varchar({len})"),
        st::ColumnType::Text { size, .. } => format!("{}text", size.prefix()),
        st::ColumnType::Blob { size } => format!("{}blob", size.prefix()),
        st::ColumnType::Date => "date".into(),
        st::ColumnType::DateTime { fsp: 0 } => "datetime".into(),
        st::ColumnType::Timestamp { fsp: 0 } => "timestamp".into(),
        st::ColumnType::DateTime { fsp } => format!("datetime({fsp})"),
        st::ColumnType::Timestamp { fsp } => format!("timestamp({fsp})"),
        st::ColumnType::Time { fsp: 0 } => "time".into(),
        st::ColumnType::Time { fsp } => format!("time({fsp})"),
        st::ColumnType::Enum { elements, .. } => format!("enum({})", element_list(elements)),
        st::ColumnType::Set { elements, .. } => format!("set({})", element_list(elements)),
    }
}

/// An ENUM's or SET's elements as MariaDB prints them: quoted, a quote doubled, a
/// backslash escaped.
fn element_list(elements: &[String]) -> String {
    let quoted: Vec<String> = elements
        .iter()
        .map(|e| format!("'{}'", e.replace('\\', "\\\\").replace('\'', "''")))
        .collect();
    quoted.join(",")
}

/// A stored default as text (None for NULL).
pub fn default_text(c: &st::ColumnDef) -> Option<String> {
    if c.default_now {
        return Some(crate::plan::timestamps::current_timestamp_text(&c.ty));
    }
    let d = c.default.as_ref()?;
    if d.is_null() {
        return None;
    }
    if let st::Value::Time(_) = d {
        // With the column's digits of fractional seconds, as MariaDB shows it.
        let mut text = Vec::new();
        d.write_text(&mut text, Some(c.ty.fsp()));
        return Some(String::from_utf8_lossy(&text).into_owned());
    }
    from_stored(d, &c.ty)
        .to_text()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The `Extra` column of SHOW COLUMNS.
pub fn extra_text(c: &st::ColumnDef) -> String {
    if c.auto_increment {
        "auto_increment".into()
    } else if c.on_update_now {
        format!(
            "on update {}",
            crate::plan::timestamps::current_timestamp_text(&c.ty)
        )
    } else {
        String::new()
    }
}

/// The `Key` column of SHOW COLUMNS.
pub fn key_text(def: &st::TableDef, column: usize) -> &'static str {
    let first_of = |kind: fn(&st::IndexDef) -> bool| {
        def.indexes
            .iter()
            .any(|ix| kind(ix) && ix.columns.first() == Some(&column))
    };
    if first_of(|ix| ix.kind == st::IndexKind::Primary) {
        "PRI"
    } else if first_of(|ix| ix.kind == st::IndexKind::Unique && ix.columns.len() == 1) {
        "UNI"
    } else if first_of(|_| true) {
        "MUL"
    } else {
        ""
    }
}

/// SHOW CREATE TABLE's text; `counter` is the next AUTO_INCREMENT value (shown when past 1).
pub fn create_table_text(name: &str, def: &st::TableDef, counter: u64) -> String {
    let table_collation = crate::plan::table_def::table_collation(&def.options).unwrap_or_default();
    let mut lines = Vec::new();
    for c in &def.columns {
        let mut line = format!("  `{}` {}", c.name, type_text(&c.ty));
        // A text column names its collation where it is not the table's.
        match c.ty.string_collation() {
            Some(collation @ (st::Collation::Utf8mb4GeneralCi | st::Collation::Utf8mb4Bin))
                if collation != table_collation =>
            {
                line.push_str(&format!(
                    " CHARACTER SET utf8mb4 COLLATE {}",
                    collation.name()
                ));
            }
            _ => {}
        }
        if !c.nullable {
            line.push_str(" NOT NULL");
        } else if matches!(c.ty, st::ColumnType::Timestamp { .. }) {
            // MariaDB names a nullable TIMESTAMP's NULL (TIMESTAMP was NOT NULL by default).
            line.push_str(" NULL");
        }
        match (&c.default, c.auto_increment) {
            (_, true) => line.push_str(" AUTO_INCREMENT"),
            _ if c.default_now => line.push_str(&format!(
                " DEFAULT {}",
                crate::plan::timestamps::current_timestamp_text(&c.ty)
            )),
            (Some(st::Value::Null), _) | (None, false) if c.nullable => {
                line.push_str(" DEFAULT NULL")
            }
            (Some(d), _) if !d.is_null() => {
                let text = default_text(c).unwrap_or_default();
                if matches!(
                    c.ty,
                    st::ColumnType::Int { .. }
                        | st::ColumnType::Decimal { .. }
                        | st::ColumnType::Float
                        | st::ColumnType::Double
                ) {
                    line.push_str(&format!(" DEFAULT {text}"));
                } else {
                    line.push_str(&format!(" DEFAULT '{}'", text.replace('\'', "''")));
                }
            }
            _ => {}
        }
        if c.on_update_now {
            line.push_str(&format!(
                " ON UPDATE {}",
                crate::plan::timestamps::current_timestamp_text(&c.ty)
            ));
        }
        if !c.comment.is_empty() {
            line.push_str(&format!(" COMMENT '{}'", c.comment.replace('\'', "''")));
        }
        for check in def
            .checks
            .iter()
            .filter(|k| k.column_level && k.name == c.name)
        {
            line.push_str(&format!(" CHECK ({})", check.text));
        }
        lines.push(line);
    }
    for ix in &def.indexes {
        let cols: Vec<String> = ix
            .columns
            .iter()
            .map(|&i| format!("`{}`", def.columns[i].name))
            .collect();
        lines.push(match ix.kind {
            st::IndexKind::Primary => format!("  PRIMARY KEY ({})", cols.join(",")),
            st::IndexKind::Unique => format!("  UNIQUE KEY `{}` ({})", ix.name, cols.join(",")),
            st::IndexKind::NonUnique => format!("  KEY `{}` ({})", ix.name, cols.join(",")),
        });
    }
    for fk in crate::plan::foreign_keys::in_shown_order(def) {
        lines.push(format!(
            "  {}",
            crate::plan::foreign_keys::clause_text(fk, None)
        ));
    }
    for check in def.checks.iter().filter(|k| !k.column_level) {
        lines.push(format!(
            "  CONSTRAINT {} CHECK ({})",
            crate::plan::view_text::quote(&check.name),
            check.text
        ));
    }
    let engine = def
        .options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("ENGINE"))
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| "InnoDB".into());
    let charset = match table_collation {
        st::Collation::Binary => "DEFAULT CHARSET=binary".to_string(),
        c => format!("DEFAULT CHARSET=utf8mb4 COLLATE={}", c.name()),
    };
    let comment = def
        .options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("COMMENT"))
        .map(|(_, v)| format!(" COMMENT='{}'", option_text(v).replace('\'', "''")))
        .unwrap_or_default();
    let counter = if counter > 1 {
        format!("AUTO_INCREMENT={counter} ")
    } else {
        String::new()
    };
    format!(
        "CREATE TABLE `{name}` (\n{}\n) ENGINE={engine} {counter}{charset}{comment}",
        lines.join(",\n")
    )
}

/// A table option's value as written in SQL (`'it''s'`) without its quotes.
pub fn option_text(sql: &str) -> String {
    for q in ['\'', '"'] {
        if let Some(inner) = sql.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            let doubled = format!("{q}{q}");
            return inner
                .replace(&doubled, &q.to_string())
                .replace(&format!("\\{q}"), &q.to_string());
        }
    }
    sql.to_string()
}

/// MySQL keeps keys in the order PRIMARY, unique keys, other keys (each group as declared).
pub fn order_indexes(indexes: &mut [st::IndexDef]) {
    indexes.sort_by_key(|ix| match ix.kind {
        st::IndexKind::Primary => 0,
        st::IndexKind::Unique => 1,
        st::IndexKind::NonUnique => 2,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_values_lose_their_quotes() {
        assert_eq!(option_text("'hello'"), "hello");
        assert_eq!(option_text("'it''s'"), "it's");
        assert_eq!(option_text("\"a\""), "a");
        assert_eq!(option_text("InnoDB"), "InnoDB");
    }
}
