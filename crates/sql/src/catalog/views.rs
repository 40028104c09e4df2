//! The stored definition of a view, in the spirit of MariaDB's `.frm` of a view: a text
//! file of `key=value` lines, values escaped so that each stays on its line (`\\`, `\n`,
//! `\t`), lists separated by tabs. The storage writes it crash-safely (see
//! `myriad_storage`'s view files); this module owns the format.
//!
//! A definition keeps the SELECT as written (`source`), the names of the view's columns
//! (`columns`: the column list or the SELECT's own names), the SELECT's own names when it
//! was created (`select_columns`: a view over `*` whose table changed answers 1356 rather
//! than other columns), and MariaDB's canonical text of the SELECT, every name qualified by
//! its database, as information_schema.VIEWS prints it, where this server can print it
//! (`canonical`, empty when not).

use crate::error::SqlError;
use myriad_types::errors::ER_VIEW_INVALID;

/// The first line of every definition file; a newer format gets a new number.
const MAGIC: &str = "myriad-view 1";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewDef {
    /// UNDEFINED, MERGE or TEMPTABLE, as MariaDB prints it.
    pub algorithm: String,
    pub definer_user: String,
    pub definer_host: String,
    /// DEFINER or INVOKER.
    pub security: String,
    /// NONE, CASCADED or LOCAL.
    pub check_option: String,
    pub character_set_client: String,
    pub collation_connection: String,
    /// sql_mode's PIPES_AS_CONCAT when the view was made: how its `||` reads.
    pub pipes_as_concat: bool,
    pub columns: Vec<String>,
    pub select_columns: Vec<String>,
    /// MariaDB's text of the SELECT with every table qualified by its database, or None
    /// where this server cannot print it as MariaDB does.
    pub canonical: Option<String>,
    pub source: String,
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(ch) = chars.next() {
        if ch != '\\' {
            out.push(ch);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(c) => out.push(c),
            None => {}
        }
    }
    out
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| escape(n))
        .collect::<Vec<_>>()
        .join("\t")
}

fn unlist(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    text.split('\t').map(unescape).collect()
}

impl ViewDef {
    pub fn encode(&self) -> Vec<u8> {
        let lines = [
            ("algorithm", escape(&self.algorithm)),
            ("definer_user", escape(&self.definer_user)),
            ("definer_host", escape(&self.definer_host)),
            ("security", escape(&self.security)),
            ("check_option", escape(&self.check_option)),
            ("character_set_client", escape(&self.character_set_client)),
            ("collation_connection", escape(&self.collation_connection)),
            (
                "pipes_as_concat",
                u8::from(self.pipes_as_concat).to_string(),
            ),
            ("columns", list(&self.columns)),
            ("select_columns", list(&self.select_columns)),
            ("canonical", escape(self.canonical.as_deref().unwrap_or(""))),
            ("source", escape(&self.source)),
        ];
        let mut out = String::from(MAGIC);
        out.push('\n');
        for (key, value) in lines {
            out.push_str(key);
            out.push('=');
            out.push_str(&value);
            out.push('\n');
        }
        out.into_bytes()
    }

    /// The definition of view `db`.`name` from its file's bytes; 1356 when they are not
    /// one (a file from a newer server, or damaged).
    pub fn decode(bytes: &[u8], db: &str, name: &str) -> Result<ViewDef, SqlError> {
        let invalid = || err_view_invalid(db, name);
        let text = std::str::from_utf8(bytes).map_err(|_| invalid())?;
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err(invalid());
        }
        let mut fields = std::collections::HashMap::new();
        for line in lines {
            let (key, value) = line.split_once('=').ok_or_else(invalid)?;
            fields.insert(key, value);
        }
        let get = |key: &str| fields.get(key).copied().ok_or_else(invalid);
        let canonical = unescape(get("canonical")?);
        Ok(ViewDef {
            algorithm: unescape(get("algorithm")?),
            definer_user: unescape(get("definer_user")?),
            definer_host: unescape(get("definer_host")?),
            security: unescape(get("security")?),
            check_option: unescape(get("check_option")?),
            character_set_client: unescape(get("character_set_client")?),
            collation_connection: unescape(get("collation_connection")?),
            pipes_as_concat: get("pipes_as_concat")? == "1",
            columns: unlist(get("columns")?),
            select_columns: unlist(get("select_columns")?),
            canonical: (!canonical.is_empty()).then_some(canonical),
            source: unescape(get("source")?),
        })
    }
}

/// MariaDB's 1356 for a view that can no longer be read.
pub fn err_view_invalid(db: &str, name: &str) -> SqlError {
    SqlError::new(
        ER_VIEW_INVALID,
        format!(
            "View '{db}.{name}' references invalid table(s) or column(s) or function(s) or \
             definer/invoker of view lack rights to use them"
        ),
    )
}

/// The definition of view `db`.`name`, None when there is no such view.
pub fn read(
    storage: &myriad_storage::Storage,
    db: &str,
    name: &str,
) -> Result<Option<ViewDef>, SqlError> {
    if crate::catalog::is_system(db) {
        return Ok(None);
    }
    match storage.read_view(db, name) {
        Ok(Some(bytes)) => ViewDef::decode(&bytes, db, name).map(Some),
        Ok(None) => Ok(None),
        Err(e) => Err(crate::catalog::storage_error(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_reads_back_as_written() {
        let def = ViewDef {
            algorithm: "UNDEFINED".into(),
            definer_user: "ro\not".into(),
            definer_host: "local\\host".into(),
            security: "DEFINER".into(),
            check_option: "NONE".into(),
            character_set_client: "utf8mb3".into(),
            collation_connection: "utf8mb3_general_ci".into(),
            pipes_as_concat: true,
            columns: vec!["a\tb".into(), "c".into()],
            select_columns: vec!["a".into(), "c".into()],
            canonical: Some("select 1".into()),
            source: "select a as `a\tb`,\n c from t".into(),
        };
        let bytes = def.encode();
        assert_eq!(ViewDef::decode(&bytes, "d", "v").unwrap(), def);
        let plain = ViewDef {
            canonical: None,
            columns: Vec::new(),
            ..def
        };
        assert_eq!(ViewDef::decode(&plain.encode(), "d", "v").unwrap(), plain);
        let err = ViewDef::decode(b"myriad-view 2\n", "d", "v").unwrap_err();
        assert_eq!(err.code, ER_VIEW_INVALID.code);
    }
}
