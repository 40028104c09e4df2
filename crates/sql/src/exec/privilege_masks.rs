//! Errors of statements that fail before their privileges are checked, answered as an
//! account without the privilege gets them in MariaDB.
//!
//! MariaDB checks a statement's table privileges before it opens the tables and its
//! column privileges while it resolves the names, so an account without the privilege
//! learns nothing of what a table holds: a missing table is 1142 (not 1146) and an unknown
//! column 1142 or 1143 (not 1054). myriad resolves names first (planning) and checks the
//! plan; when planning fails with 1146 or 1054, these masks check what the statement text
//! names and answer as MariaDB would (for SELECT ... INTO OUTFILE or DUMPFILE, the FILE
//! privilege first: 1227).

use super::privileges::{column_denied, table_denied};
use crate::catalog::privileges::Privs;
use crate::error::SqlError;
use crate::Session;
use myriad_types::errors::{ER_BAD_FIELD_ERROR, ER_NO_SUCH_TABLE};
use sqlparser::ast;

/// The verb of MariaDB's message and the privilege a statement beginning with `text`
/// needs on the table it reads or writes first.
fn statement_need(text: &str) -> Option<(&'static str, Privs)> {
    let first = text
        .trim_start_matches(|c: char| c.is_whitespace() || c == '(')
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    match first.as_str() {
        "SELECT" | "WITH" | "TABLE" | "VALUES" => Some(("SELECT", Privs::SELECT)),
        "INSERT" | "REPLACE" => Some(("INSERT", Privs::INSERT)),
        "UPDATE" => Some(("UPDATE", Privs::UPDATE)),
        "DELETE" => Some(("DELETE", Privs::DELETE)),
        _ => None,
    }
}

/// The tables the statement `text` names, in the order they appear (`db`, name, as
/// written, both lowercased), or None when it does not parse.
fn named_tables(text: &str, current: Option<&str>) -> Option<Vec<(String, String)>> {
    let dialect = sqlparser::dialect::MySqlDialect {};
    let statements = sqlparser::parser::Parser::parse_sql(&dialect, text).ok()?;
    let mut tables = Vec::new();
    for statement in &statements {
        let _ = ast::visit_relations(statement, |name: &ast::ObjectName| {
            let parts: Vec<String> = name
                .0
                .iter()
                .map(|p| p.to_string().trim_matches('`').to_lowercase())
                .collect();
            let table = match parts.as_slice() {
                [table] => current.map(|db| (db.to_lowercase(), table.clone())),
                [db, table] => Some((db.clone(), table.clone())),
                _ => None,
            };
            if let Some(table) = table.filter(|t| !tables.contains(t)) {
                tables.push(table);
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
    }
    Some(tables)
}

impl Session {
    /// A statement that failed to plan with `error`: 1146 and 1054 become MariaDB's
    /// privilege errors where the account lacks the privilege (see the module doc).
    pub(crate) fn mask_planning_error(&mut self, error: SqlError, text: &str) -> SqlError {
        let masked = [ER_NO_SUCH_TABLE.code, ER_BAD_FIELD_ERROR.code];
        if !masked.contains(&error.code) {
            return error;
        }
        // SELECT ... INTO: the query without its INTO, which the masks below can read;
        // MariaDB checks the FILE of INTO OUTFILE and DUMPFILE before the tables.
        let query = crate::plan::select_into::text_without_into(text);
        if let Some((true, _)) = query {
            let grants = self.grants();
            if !grants.is_all() && !grants.global.contains(Privs::FILE) {
                return super::privileges::global_denied(Privs::FILE);
            }
        }
        let text = query.as_ref().map_or(text, |(_, query)| query.as_str());
        if error.code == ER_NO_SUCH_TABLE.code {
            return self.mask_missing_table(error, text);
        }
        if error.code == ER_BAD_FIELD_ERROR.code {
            return self.mask_unknown_column(error, text);
        }
        error
    }

    /// A table the statement `text` names does not exist (`error`, 1146): an account
    /// without the statement's privilege on that table gets 1142 instead, whether or not
    /// it exists, so that no account learns the names of tables it may not use.
    fn mask_missing_table(&mut self, error: SqlError, text: &str) -> SqlError {
        let Some((db, table)) = error
            .message
            .strip_prefix("Table '")
            .and_then(|m| m.strip_suffix("' doesn't exist"))
            .and_then(|m| m.split_once('.'))
        else {
            return error;
        };
        let Some((verb, needed)) = statement_need(text) else {
            return error;
        };
        let grants = self.grants();
        if grants.is_all() || grants.on_table(db, table).contains(needed) {
            return error;
        }
        table_denied(verb, &self.info.user, &self.info.host, db, table)
    }

    /// A column the statement `text` names is not there (`error`, 1054). Every table needs
    /// its privilege first (the first table the statement's, the others SELECT): without
    /// it on the table or any of its columns, 1142. Then an unknown column of a table the
    /// account holds only column privileges on is 1143, as a column not granted is (for
    /// UPDATE and DELETE, SELECT's where the table's SELECT is not held: the column could
    /// be one the statement reads).
    fn mask_unknown_column(&mut self, error: SqlError, text: &str) -> SqlError {
        let Some(name) = error
            .message
            .strip_prefix("Unknown column '")
            .and_then(|m| m.split_once("' in ").map(|(name, _)| name))
        else {
            return error;
        };
        let (qualifier, column) = match name.rsplit_once('.') {
            Some((q, c)) => (Some(q.to_lowercase()), c),
            None => (None, name),
        };
        let Some((verb, needed)) = statement_need(text) else {
            return error;
        };
        let grants = self.grants();
        if grants.is_all() {
            return error;
        }
        let current = self.info.database.clone();
        let Some(tables) = named_tables(text, current.as_deref()) else {
            return error;
        };
        let (user, host) = (&self.info.user, &self.info.host);
        let need = |n: usize| {
            if n == 0 {
                (verb, needed)
            } else {
                ("SELECT", Privs::SELECT)
            }
        };
        for (n, (db, table)) in tables.iter().enumerate() {
            let (verb, privs) = need(n);
            let held = grants
                .on_table(db, table)
                .union(grants.column_kinds(db, table));
            if !held.contains(privs) {
                return table_denied(verb, user, host, db, table);
            }
        }
        // The privilege a column of table `n` needs that the table does not grant whole:
        // the statement's, or SELECT for the columns an UPDATE or DELETE reads.
        let column_need = |n: usize, db: &str, table: &str| {
            let on_table = grants.on_table(db, table);
            let (verb, privs) = need(n);
            if !on_table.contains(privs) {
                Some(verb)
            } else if matches!(verb, "UPDATE" | "DELETE") && !on_table.contains(Privs::SELECT) {
                Some("SELECT")
            } else {
                None
            }
        };
        let denied = tables.iter().enumerate().find_map(|(n, (db, table))| {
            let qualified = qualifier.as_deref().is_none_or(|q| q == table.as_str());
            let verb = column_need(n, db, table).filter(|_| qualified)?;
            Some(column_denied(verb, user, host, column, table))
        });
        denied.unwrap_or(error)
    }
}
