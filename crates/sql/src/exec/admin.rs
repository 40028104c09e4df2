//! Administration statements: SET (system and user variables, names, character sets),
//! KILL and account changes.

use crate::error::SqlError;
use crate::expr::eval::Datum;
use crate::expr::eval::Warning;
use crate::expr::Expr;
use crate::plan::AssignTarget;
use crate::plan::AssignValue;
use crate::plan::SetScope;
use crate::plan::UserSpec;
use crate::system::sysvars::Setting;
use crate::system::sysvars::VarValue;

use crate::exec::write::*;
use crate::exec::*;
use crate::session::*;
use crate::Session;
use std::sync::Arc;

impl Session {
    pub(crate) fn session_text(&self, name: &str) -> String {
        crate::system::sysvars::lookup(name)
            .and_then(|i| {
                self.state
                    .session_value(i)
                    .display(crate::system::sysvars::def(i))
            })
            .unwrap_or_default()
    }

    /// Check every assignment of a SET first (MySQL applies none when one fails).
    pub(crate) fn check_assignments(
        &self,
        assignments: &[crate::plan::Assignment],
        env: &mut ExecEnv,
    ) -> Result<Vec<Change>, SqlError> {
        let mut changes = Vec::new();
        for a in assignments {
            match &a.target {
                AssignTarget::User(name) => {
                    let AssignValue::Expr(e) = &a.value else {
                        continue;
                    };
                    let v = e.eval(env, &[])?;
                    changes.push(Change::user(name.clone(), v));
                }
                AssignTarget::System { scope, index } => {
                    let def = crate::system::sysvars::def(*index);
                    let global = *scope == SetScope::Global;
                    if def.read_only {
                        return Err(SqlError::new(
                            1238,
                            "HY000",
                            format!("Variable '{}' is a read only variable", def.name),
                        ));
                    }
                    if !global && def.scope == crate::system::sysvars::Scope::Global {
                        return Err(SqlError::new(
                            1229,
                            "HY000",
                            format!("Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL", def.name),
                        ));
                    }
                    if global && def.scope == crate::system::sysvars::Scope::Session {
                        return Err(SqlError::new(
                            1228,
                            "HY000",
                            format!("Variable '{}' is a SESSION variable and can't be used with SET GLOBAL", def.name),
                        ));
                    }
                    let value = match &a.value {
                        AssignValue::Default => {
                            if global {
                                crate::system::sysvars::defaults().swap_remove(*index)
                            } else {
                                self.engine.globals.read()[*index].clone()
                            }
                        }
                        AssignValue::Word(w) => {
                            let (v, warning) = crate::system::sysvars::parse_setting(
                                def,
                                &Setting::Text(w.clone()),
                            )?;
                            if let Some((code, message)) = warning {
                                env.warnings.push(Warning {
                                    level: "Warning",
                                    code,
                                    message,
                                });
                            }
                            v
                        }
                        AssignValue::Expr(e) => {
                            let d = e.eval(env, &[])?;
                            let setting = match d {
                                Datum::Null => Setting::Null,
                                Datum::Int(i) => Setting::Int(i as i128),
                                Datum::UInt(u) => Setting::Int(u as i128),
                                Datum::Double(f) => Setting::Double(f),
                                Datum::Dec(_) => {
                                    Setting::Double(d.to_double(&mut env.warnings).unwrap_or(0.0))
                                }
                                other => Setting::Str(other.to_text_lossy()),
                            };
                            let (v, warning) =
                                crate::system::sysvars::parse_setting(def, &setting)?;
                            if let Some((code, message)) = warning {
                                env.warnings.push(Warning {
                                    level: "Warning",
                                    code,
                                    message,
                                });
                            }
                            v
                        }
                    };
                    changes.push(Change::system(*index, global, value.clone()));
                    if let Some(alias) = crate::system::sysvars::alias_of(def.name)
                        .and_then(crate::system::sysvars::lookup)
                    {
                        changes.push(Change::system(alias, global, value.clone()));
                    }
                    // A character set change also sets the matching collation, and back.
                    let linked = match def.name {
                        "character_set_connection" => Some(("collation_connection", true)),
                        "character_set_server" => Some(("collation_server", true)),
                        "character_set_database" => Some(("collation_database", true)),
                        "collation_connection" => Some(("character_set_connection", false)),
                        "collation_server" => Some(("character_set_server", false)),
                        "collation_database" => Some(("character_set_database", false)),
                        _ => None,
                    };
                    if let (Some((other, to_collation)), VarValue::Str(Some(text))) =
                        (linked, &value)
                    {
                        let derived = if to_collation {
                            crate::system::sysvars::default_collation(text).to_string()
                        } else {
                            crate::system::sysvars::COLLATIONS
                                .iter()
                                .find(|(c, _)| c == text)
                                .map(|(_, cs)| cs.to_string())
                                .unwrap_or_else(|| "utf8mb4".into())
                        };
                        if let Some(other_index) = crate::system::sysvars::lookup(other) {
                            changes.push(Change::system(
                                other_index,
                                global,
                                VarValue::Str(Some(derived)),
                            ));
                        }
                    }
                }
            }
        }
        Ok(changes)
    }

    pub(crate) fn apply_assignments(&mut self, changes: Vec<Change>) {
        let mut globals_changed: Option<Vec<VarValue>> = None;
        let mut globals_guard = None;
        let mut applied_globals = Vec::new();
        for change in changes {
            if let Some((name, value)) = change.user {
                self.state.user_vars.insert(name, value);
                continue;
            }
            let def = crate::system::sysvars::def(change.index);
            if def.name == "last_insert_id" {
                if let VarValue::UInt(v) = change.value {
                    self.state.last_insert_id = v;
                }
                continue;
            }
            if change.global {
                let guard = globals_guard.get_or_insert_with(|| self.engine.globals.write());
                let next = globals_changed.get_or_insert_with(|| guard.as_ref().clone());
                next[change.index] = change.value.clone();
                applied_globals.push((def.name, change.value));
            } else {
                if def.name == "autocommit" && change.value == VarValue::Bool(true) {
                    // SET autocommit=1 commits the open transaction.
                    self.state.in_transaction = false;
                    self.state.written_tables.clear();
                    release_row_locks(self);
                }
                self.state.overrides.insert(change.index, change.value);
            }
        }
        if let (Some(mut guard), Some(next)) = (globals_guard, globals_changed) {
            *guard = Arc::new(next);
        }
        // Effects run after the values are published and the lock is released.
        for (name, value) in applied_globals {
            crate::system::global_effects::apply(&self.engine, name, &value);
            let note = crate::exec::key_cache::default_cache_note(&self.engine, name, &value);
            self.state.warnings.extend(note);
        }
        self.state.refresh_cached();
    }
}
/// Collations SHOW COLLATION lists: name, charset, id, is the charset's default.
pub(crate) const COLLATION_IDS: &[(&str, &str, u64, bool)] = &[
    ("ascii_general_ci", "ascii", 11, true),
    ("binary", "binary", 63, true),
    ("latin1_bin", "latin1", 47, false),
    ("latin1_swedish_ci", "latin1", 8, true),
    ("utf8mb3_bin", "utf8mb3", 83, false),
    ("utf8mb3_general_ci", "utf8mb3", 33, true),
    ("utf8mb4_bin", "utf8mb4", 46, false),
    ("utf8mb4_general_ci", "utf8mb4", 45, true),
    ("utf8mb4_unicode_520_ci", "utf8mb4", 246, false),
    ("utf8mb4_unicode_ci", "utf8mb4", 224, false),
];

pub(crate) fn canonical_charset(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == "utf8" {
        "utf8mb3".to_string()
    } else {
        lower
    }
}

pub(crate) fn parse_charset(name: &str) -> Result<String, SqlError> {
    let cs = canonical_charset(name);
    if crate::system::sysvars::CHARSETS.contains(&cs.as_str()) {
        Ok(cs)
    } else {
        Err(SqlError::new(
            1115,
            "42000",
            format!("Unknown character set: '{name}'"),
        ))
    }
}

pub(crate) fn show_text(value: &VarValue, def: &crate::system::sysvars::VarDef) -> Datum {
    match value.display(def) {
        Some(t) => Datum::Str(t.into_bytes()),
        None => Datum::text(""),
    }
}

/// A variable change (or user variable assignment) decided by SET, applied afterwards.
pub struct Change {
    pub(crate) index: usize,
    pub(crate) global: bool,
    pub(crate) value: VarValue,
    pub(crate) user: Option<(String, Datum)>,
}

impl Change {
    pub(crate) fn system(index: usize, global: bool, value: VarValue) -> Change {
        Change {
            index,
            global,
            value,
            user: None,
        }
    }

    pub(crate) fn user(name: String, value: Datum) -> Change {
        Change {
            index: 0,
            global: false,
            value: VarValue::Bool(false),
            user: Some((name, value)),
        }
    }
}

pub(crate) fn session_change(name: &str, value: VarValue) -> Option<Change> {
    crate::system::sysvars::lookup(name).map(|index| Change::system(index, false, value))
}

/// CREATE / DROP / ALTER USER over a list of accounts: an account the operation does not
/// apply to is a note (1973 for CREATE, 1974 otherwise) under IF [NOT] EXISTS, and otherwise
/// part of one error 1396 naming every such account, as MariaDB reports it.
pub(crate) struct AccountOp {
    pub(crate) operation: &'static str,
    pub(crate) reason: &'static str,
    pub(crate) tolerant: bool,
}

impl AccountOp {
    pub(crate) fn new(operation: &'static str, reason: &'static str, tolerant: bool) -> AccountOp {
        AccountOp {
            operation,
            reason,
            tolerant,
        }
    }

    pub(crate) fn apply(
        &self,
        users: &[UserSpec],
        warnings: &mut Vec<Warning>,
        mut applied: impl FnMut(&UserSpec) -> Result<bool, SqlError>,
    ) -> Result<(), SqlError> {
        let mut failed = Vec::new();
        for u in users {
            if applied(u)? {
                continue;
            }
            if self.tolerant {
                let code = if self.operation == "CREATE USER" {
                    1973
                } else {
                    1974
                };
                let verb = self.operation.split(' ').next().unwrap_or_default();
                let message = format!(
                    "Can't {} user '{}'@'{}'; {}",
                    verb.to_ascii_lowercase(),
                    u.user,
                    u.host,
                    self.reason
                );
                warnings.push(note(code, message));
            } else {
                failed.push(format!("'{}'@'{}'", u.user, u.host));
            }
        }
        if failed.is_empty() {
            return Ok(());
        }
        let message = format!(
            "Operation {} failed for {}",
            self.operation,
            failed.join(",")
        );
        Err(SqlError::new(1396, "HY000", message))
    }
}

impl Session {
    /// KILL: stop another session's statement or connection (or this session's own: its
    /// KILL statement then fails with the error its victim would see, as in MariaDB).
    pub(crate) fn kill(
        &self,
        target: crate::interrupt::KillTarget,
        id: &Expr,
        env: &mut ExecEnv,
    ) -> Result<(), SqlError> {
        // As MariaDB's val_int: rounded, NULL and text without digits 0, -1 read unsigned.
        let id = match id.eval(env, &[])? {
            Datum::UInt(u) => u,
            other => other.to_int(&mut env.warnings).unwrap_or(0) as u64,
        };
        self.engine.sessions.kill(&self.info.user, id, target)?;
        if id == u64::from(self.info.connection_id) {
            if let Some(e) = self.interrupt.error() {
                return Err(e);
            }
        }
        Ok(())
    }
}
