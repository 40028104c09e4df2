//! The columns in scope where an expression is compiled: their names, collations and
//! text forms.

use crate::error::SqlError;
use crate::expr::{Collation, TextForm};
use myriad_types::errors::{ER_BAD_FIELD_ERROR, ER_NON_UNIQ_ERROR};

/// Names of the columns an expression may reference, for compilation.
#[derive(Debug, Clone, Default)]
pub struct ColumnScope {
    /// (table or alias, column name) per row position.
    pub columns: Vec<(Option<std::sync::Arc<str>>, String)>,
    /// Each column's collation (None for a column that is no string), where known: a
    /// position past the end is a string column of the connection's collation.
    pub collations: Vec<Option<Collation>>,
    /// Each column's [`TextForm`] where its type says more than its values (dates and
    /// times, FLOAT), where known; None for other columns and past the end.
    pub text_forms: Vec<Option<TextForm>>,
    /// Each ENUM or SET column's elements (true for a SET), where known; None for other
    /// columns and past the end.
    pub elements: Vec<Option<(std::sync::Arc<[String]>, bool)>>,
    /// Positions an unqualified name does not resolve to: the right-hand copies of the
    /// columns a `JOIN ... USING` or `NATURAL JOIN` joins on.
    pub hidden: Vec<usize>,
}

impl ColumnScope {
    /// Append `other`'s columns after this scope's.
    pub(crate) fn append(&mut self, other: ColumnScope) {
        self.text_forms.resize(self.columns.len(), None);
        self.elements.resize(self.columns.len(), None);
        self.columns.extend(other.columns);
        self.elements.extend(other.elements);
        self.collations.extend(other.collations);
        self.text_forms.extend(other.text_forms);
    }

    /// Add one column; `text_form` as in [`ColumnScope::text_forms`].
    pub(crate) fn push(
        &mut self,
        column: (Option<std::sync::Arc<str>>, String),
        collation: Option<Collation>,
        text_form: Option<TextForm>,
    ) {
        self.text_forms.resize(self.columns.len(), None);
        self.columns.push(column);
        self.collations.push(collation);
        self.text_forms.push(text_form);
    }

    pub(crate) fn resolve(&self, table: Option<&str>, name: &str) -> Result<usize, SqlError> {
        let mut found = None;
        for (i, (t, c)) in self.columns.iter().enumerate() {
            let table_ok = match (table, t) {
                (None, _) => true,
                (Some(want), Some(have)) => want.eq_ignore_ascii_case(have),
                (Some(_), None) => false,
            };
            if table.is_none() && self.hidden.contains(&i) {
                continue;
            }
            if table_ok && c.eq_ignore_ascii_case(name) {
                if found.is_some() && table.is_none() {
                    return Err(SqlError::new(
                        ER_NON_UNIQ_ERROR,
                        format!("Column '{name}' in field list is ambiguous"),
                    ));
                }
                found = Some(i);
            }
        }
        found.ok_or_else(|| {
            let full = match table {
                Some(t) => format!("{t}.{name}"),
                None => name.to_string(),
            };
            SqlError::new(
                ER_BAD_FIELD_ERROR,
                format!("Unknown column '{full}' in 'field list'"),
            )
        })
    }
}
