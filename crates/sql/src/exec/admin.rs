//! Administration statements: SET (system and user variables, names, character sets),
//! KILL and account changes.

use crate::error::SqlError;
use crate::expr::eval::SqlValue;
use crate::expr::eval::Warning;
use crate::expr::Expr;
use crate::plan::AssignTarget;
use crate::plan::AssignValue;
use crate::plan::SetScope;
use crate::plan::UserSpec;
use crate::system::sysvars::Setting;
use crate::system::sysvars::VarValue;
use crate::value::Value;
use myriad_types::errors::{
    ER_CANNOT_USER, ER_CANT_CHANGE_TX_CHARACTERISTICS, ER_COLLATION_CHARSET_MISMATCH,
    ER_GLOBAL_VARIABLE, ER_INCORRECT_GLOBAL_LOCAL_VAR, ER_LOCAL_VARIABLE, ER_UNKNOWN_CHARACTER_SET,
    ER_UNKNOWN_COLLATION,
};

use crate::exec::env::*;
use crate::exec::*;
use crate::Session;
use std::sync::Arc;

/// The variables whose values other than the default would change what statements do in
/// ways not built here: setting one to another value is refused (1235) rather than
/// accepted and ignored (`sql_select_limit` would cut SELECT results, `sql_safe_updates`
/// refuse UPDATE and DELETE without a key, the auto_increment steps space the values
/// AUTO_INCREMENT gives, as servers that write the same tables rely on).
const DEFAULT_ONLY: &[&str] = &[
    "sql_select_limit",
    "sql_safe_updates",
    "auto_increment_increment",
    "auto_increment_offset",
];

fn refuse_unbuilt_setting(name: &str, value: &VarValue, index: usize) -> Result<(), SqlError> {
    if !DEFAULT_ONLY.contains(&name) {
        return Ok(());
    }
    if *value == crate::system::sysvars::defaults().swap_remove(index) {
        return Ok(());
    }
    Err(SqlError::not_supported(&format!(
        "{name} other than its default"
    )))
}

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
                            ER_INCORRECT_GLOBAL_LOCAL_VAR,
                            format!("Variable '{}' is a read only variable", def.name),
                        ));
                    }
                    if !global && def.scope == crate::system::sysvars::Scope::Global {
                        return Err(SqlError::new(ER_GLOBAL_VARIABLE,
                            format!("Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL", def.name),
                        ));
                    }
                    if global && def.name == "sql_log_bin" {
                        // Read globally, set per session only, as MariaDB has it.
                        return Err(SqlError::new(
                            ER_INCORRECT_GLOBAL_LOCAL_VAR,
                            "Variable 'sql_log_bin' is a SESSION variable",
                        ));
                    }
                    if global && def.scope == crate::system::sysvars::Scope::Session {
                        return Err(SqlError::new(ER_LOCAL_VARIABLE,
                            format!("Variable '{}' is a SESSION variable and can't be used with SET GLOBAL", def.name),
                        ));
                    }
                    if def.name == "max_user_connections" {
                        self.max_user_connections_settable(global)?;
                    }
                    // What a flag set's assignment changes only part of.
                    let current = match global {
                        true => self.engine.globals.read()[*index].clone(),
                        false => self.state.session_value(*index).clone(),
                    };
                    let value = match &a.value {
                        AssignValue::Default => {
                            if global {
                                crate::system::sysvars::defaults().swap_remove(*index)
                            } else {
                                self.engine.globals.read()[*index].clone()
                            }
                        }
                        AssignValue::Word(w) => {
                            let (v, warning) = crate::system::sysvars::parse_setting_over(
                                def,
                                &Setting::Text(w.clone()),
                                &current,
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
                                Value::Null => Setting::Null,
                                Value::Int(i) => Setting::Int(i as i128),
                                Value::UInt(u) => Setting::Int(u as i128),
                                Value::Double(f) => Setting::Double(f),
                                Value::Decimal(_) => {
                                    Setting::Double(d.to_double(&mut env.warnings).unwrap_or(0.0))
                                }
                                other => Setting::Str(other.to_text_lossy()),
                            };
                            let (v, warning) = crate::system::sysvars::parse_setting_over(
                                def, &setting, &current,
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
                    };
                    refuse_unbuilt_setting(def.name, &value, *index)?;
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

    /// Whether `SET [GLOBAL] max_user_connections` may run: the session's value is
    /// read-only (1621), and a server started without the limit refuses to set it (1290),
    /// as MariaDB does.
    fn max_user_connections_settable(&self, global: bool) -> Result<(), SqlError> {
        if !global {
            return Err(SqlError::new(
                myriad_types::errors::ER_VARIABLE_IS_READONLY,
                "SESSION variable 'max_user_connections' is read-only. Use SET GLOBAL to assign \
                 the value",
            ));
        }
        if !self.engine.user_connection_limit_at_start {
            return Err(SqlError::new(
                myriad_types::errors::ER_OPTION_PREVENTS_STATEMENT,
                "The MariaDB server is running with the --max-user-connections=0 option so it \
                 cannot execute this statement",
            ));
        }
        Ok(())
    }

    /// Apply checked assignments. Turning autocommit on (from off) commits the open
    /// transaction first; when that commit fails, nothing is assigned.
    pub(crate) fn apply_assignments(&mut self, changes: Vec<Change>) -> Result<(), SqlError> {
        let autocommit_on = changes.iter().any(|c| {
            !c.global
                && c.value == VarValue::Bool(true)
                && crate::system::sysvars::def(c.index).name == "autocommit"
        });
        if autocommit_on && !self.state.autocommit {
            self.end_transaction(true)?;
        }
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
        Ok(())
    }
}
/// Collations SHOW COLLATION lists: name, charset, id, is the charset's default.
/// The character sets myriad knows: (name, description, default collation, bytes per
/// character at most), as SHOW CHARACTER SET and information_schema list them.
pub(crate) const CHARACTER_SETS: &[(&str, &str, &str, u64)] = &[
    ("ascii", "US ASCII", "ascii_general_ci", 1),
    ("binary", "Binary pseudo charset", "binary", 1),
    ("latin1", "cp1252 West European", "latin1_swedish_ci", 1),
    ("utf8mb3", "UTF-8 Unicode", "utf8mb3_general_ci", 3),
    ("utf8mb4", "UTF-8 Unicode", "utf8mb4_general_ci", 4),
];

/// The one storage engine, as SHOW ENGINES and information_schema.ENGINES show it
/// (engine, support, comment, transactions, XA, savepoints).
pub(crate) const ENGINE_ROW: [&str; 6] = [
    "InnoDB",
    "DEFAULT",
    "myriad's paged B+tree tables with a redo log",
    "YES",
    "NO",
    "YES",
];

/// The plugins myriad has, all built in: (name, version, type, description, load option,
/// version of the plugin's own interface). SHOW PLUGINS and information_schema.PLUGINS
/// list them; the storage engine is the one SHOW ENGINES shows, the authentication ones
/// those accounts may use. There is no partitioning plugin: myriad does not partition.
pub(crate) const PLUGINS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "mysql_native_password",
        "1.0",
        "AUTHENTICATION",
        "Native MySQL authentication",
        "FORCE",
        "1.0",
    ),
    (
        "ed25519",
        "1.1",
        "AUTHENTICATION",
        "Elliptic curve ED25519 based authentication",
        "ON",
        "1.1",
    ),
    (
        ENGINE_ROW[0],
        "10.11",
        "STORAGE ENGINE",
        ENGINE_ROW[2],
        "FORCE",
        "10.11.0",
    ),
];

/// The plugin libraries MariaDB ships whose plugins myriad has built in: (library name
/// without `.so`, its plugins).
const BUILT_IN_LIBRARIES: &[(&str, &[&str])] = &[("auth_ed25519", &["ed25519"])];

/// INSTALL / UNINSTALL of a plugin or a library. myriad loads no libraries: installing one
/// whose plugins are built in succeeds and changes nothing (they are there already),
/// installing a built-in plugin answers 1968 and uninstalling one 1619, as MariaDB answers
/// for its built-in plugins; any other library answers 1126 and any other plugin 1305.
pub(crate) fn plugin_statement(
    install: bool,
    name: Option<&str>,
    soname: Option<&str>,
) -> Result<QueryResult, SqlError> {
    use myriad_types::errors::{
        ER_CANT_FIND_DL_ENTRY, ER_CANT_OPEN_LIBRARY, ER_PLUGIN_DELETE_BUILTIN, ER_PLUGIN_INSTALLED,
        ER_SP_DOES_NOT_EXIST,
    };
    let library = soname.map(|s| s.strip_suffix(".so").unwrap_or(s));
    let built_in_library = library.and_then(|l| BUILT_IN_LIBRARIES.iter().find(|(n, _)| *n == l));
    let built_in_plugin = name.is_some_and(|n| PLUGINS.iter().any(|p| p.0.eq_ignore_ascii_case(n)));
    let no_library = |l: &str| {
        let file = format!("{l}.so");
        SqlError::of(
            ER_CANT_OPEN_LIBRARY,
            &[
                &file,
                &2,
                &"myriad loads no plugin libraries; its plugins are built in",
            ],
        )
    };
    match (install, name, library) {
        (true, Some(n), _) if built_in_plugin => Err(SqlError::of(ER_PLUGIN_INSTALLED, &[&n])),
        (true, Some(n), Some(_)) if built_in_library.is_some() => {
            Err(SqlError::of(ER_CANT_FIND_DL_ENTRY, &[&n]))
        }
        (true, None, Some(_)) if built_in_library.is_some() => Ok(ok(0)),
        (true, _, Some(l)) => Err(no_library(l)),
        (false, Some(_), _) if built_in_plugin => Err(SqlError::of(ER_PLUGIN_DELETE_BUILTIN, &[])),
        (false, Some(n), _) => Err(SqlError::of(ER_SP_DOES_NOT_EXIST, &[&"PLUGIN", &n])),
        (false, None, Some(_)) if built_in_library.is_some() => {
            Err(SqlError::of(ER_PLUGIN_DELETE_BUILTIN, &[]))
        }
        (_, _, l) => {
            let file = format!("{}.so", l.unwrap_or_default());
            Err(SqlError::of(ER_SP_DOES_NOT_EXIST, &[&"SONAME", &file]))
        }
    }
}

/// The version of the plugin interface of each type (MariaDB's numbering: the server's
/// version for storage engines, 2.2 for authentication).
pub(crate) fn plugin_type_version(plugin_type: &str) -> &'static str {
    match plugin_type {
        "AUTHENTICATION" => "2.2",
        _ => "101100.0",
    }
}

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
            ER_UNKNOWN_CHARACTER_SET,
            format!("Unknown character set: '{name}'"),
        ))
    }
}

pub(crate) fn show_text(value: &VarValue, def: &crate::system::sysvars::VarDef) -> Value {
    match value.display(def) {
        Some(t) => Value::Bytes(t.into_bytes()),
        None => Value::text(""),
    }
}

/// A variable change (or user variable assignment) decided by SET, applied afterwards.
pub struct Change {
    pub(crate) index: usize,
    pub(crate) global: bool,
    pub(crate) value: VarValue,
    pub(crate) user: Option<(String, Value)>,
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

    pub(crate) fn user(name: String, value: Value) -> Change {
        Change {
            index: 0,
            global: false,
            value: VarValue::Bool(false),
            // A user variable keeps a date or time as its text.
            user: Some((name, crate::expr::cast::temporal_as_text(value, None))),
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
        Err(SqlError::new(ER_CANNOT_USER, message))
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
            Value::UInt(u) => u,
            other => other.to_int(&mut env.warnings).unwrap_or(0) as u64,
        };
        use crate::catalog::privileges::Privs;
        let any = self
            .checked_grants()
            .global
            .intersects(Privs::SUPER.union(Privs::CONNECTION_ADMIN));
        self.engine
            .sessions
            .kill(&self.info.user, any, id, target)?;
        if id == u64::from(self.info.connection_id) {
            if let Some(e) = self.interrupt.error() {
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Session {
    /// SET of variables, names, character sets and transaction characteristics.
    pub(crate) fn set_statement(
        &self,
        stmt: &Stmt,
        env: &mut ExecEnv,
    ) -> Result<Pending, SqlError> {
        match stmt {
            Stmt::Set(assignments) => self
                .check_assignments(assignments, env)
                .map(Pending::Assign),
            Stmt::SetNames { charset, collation } => {
                let charset = match charset {
                    Some(c) => c.clone(),
                    None => self.session_text("character_set_server"),
                };
                let cs = parse_charset(&charset)?;
                let coll = match collation {
                    Some(c) => {
                        let coll = c.to_ascii_lowercase();
                        match crate::system::sysvars::COLLATIONS.iter().find(|(n, _)| *n == coll) {
                            None => return Err(SqlError::new(ER_UNKNOWN_COLLATION, format!("Unknown collation: '{c}'"))),
                            Some((_, set)) if canonical_charset(set) != cs => {
                                return Err(SqlError::new(ER_COLLATION_CHARSET_MISMATCH,
                                    format!("COLLATION '{c}' is not valid for CHARACTER SET '{charset}'"),
                                ))
                            }
                            Some(_) => coll,
                        }
                    }
                    None => crate::system::sysvars::default_collation(&cs).to_string(),
                };
                let mut changes = Vec::new();
                for name in [
                    "character_set_client",
                    "character_set_connection",
                    "character_set_results",
                ] {
                    changes.push(session_change(name, VarValue::Str(Some(cs.clone()))));
                }
                changes.push(session_change(
                    "collation_connection",
                    VarValue::Str(Some(coll)),
                ));
                Ok(Pending::Assign(changes.into_iter().flatten().collect()))
            }
            Stmt::SetCharacterSet(charset) => {
                let cs = match charset {
                    Some(c) => parse_charset(c)?,
                    None => self.session_text("character_set_server"),
                };
                let mut changes = Vec::new();
                for name in ["character_set_client", "character_set_results"] {
                    changes.push(session_change(name, VarValue::Str(Some(cs.clone()))));
                }
                let db_cs = self.session_text("character_set_database");
                let db_coll = self.session_text("collation_database");
                changes.push(session_change(
                    "character_set_connection",
                    VarValue::Str(Some(db_cs)),
                ));
                changes.push(session_change(
                    "collation_connection",
                    VarValue::Str(Some(db_coll)),
                ));
                Ok(Pending::Assign(changes.into_iter().flatten().collect()))
            }
            Stmt::SetTransaction {
                scope,
                isolation,
                read_only,
            } => {
                if scope.is_none() {
                    return self.next_transaction(isolation.as_deref(), *read_only);
                }
                let global = *scope == Some(SetScope::Global);
                let mut changes = Vec::new();
                if let Some(level) = isolation {
                    let names = ["transaction_isolation", "tx_isolation"];
                    for name in names {
                        if let Some(index) = crate::system::sysvars::lookup(name) {
                            let (v, _) = crate::system::sysvars::parse_setting(
                                crate::system::sysvars::def(index),
                                &Setting::Text(level.clone()),
                            )?;
                            changes.push(Change::system(index, global, v));
                        }
                    }
                }
                if let Some(ro) = read_only {
                    for name in ["transaction_read_only", "tx_read_only"] {
                        if let Some(index) = crate::system::sysvars::lookup(name) {
                            changes.push(Change::system(index, global, VarValue::Bool(*ro)));
                        }
                    }
                }
                Ok(Pending::Assign(changes))
            }
            _ => Err(SqlError::not_supported("this statement here")),
        }
    }
}

impl Session {
    /// `SET TRANSACTION` without SESSION or GLOBAL: for the next transaction only, and
    /// refused inside one (1568), as in MariaDB.
    fn next_transaction(
        &self,
        isolation: Option<&str>,
        read_only: Option<bool>,
    ) -> Result<Pending, SqlError> {
        if self.state.in_transaction {
            return Err(SqlError::new(
                ER_CANT_CHANGE_TX_CHARACTERISTICS,
                "Transaction characteristics can't be changed while a transaction is in progress",
            ));
        }
        let mut next = crate::session::transaction::NextTransaction {
            isolation: None,
            read_only,
        };
        if let (Some(level), Some(index)) = (
            isolation,
            crate::system::sysvars::lookup("transaction_isolation"),
        ) {
            let (value, _) = crate::system::sysvars::parse_setting(
                crate::system::sysvars::def(index),
                &Setting::Text(level.to_string()),
            )?;
            next.isolation = Some(crate::session::transaction::Isolation::of(&value));
        }
        Ok(Pending::NextTransaction(next))
    }

    /// Accounts, FLUSH, the key cache and query cache statements, information_schema, KILL and SHUTDOWN.
    pub(crate) fn admin(&self, stmt: &Stmt, env: &mut ExecEnv) -> Result<Pending, SqlError> {
        Ok(Pending::Done(match stmt {
            Stmt::CreateUser {
                users,
                if_not_exists,
                options,
            } => {
                let accounts = &self.engine.accounts;
                let verdict = AccountOp::new("CREATE USER", "it already exists", *if_not_exists);
                verdict.apply(users, &mut env.warnings, |u| {
                    let credential = u.credential()?.unwrap_or_default();
                    let created = accounts.create_with(&u.user, &u.host, credential)?;
                    if created && *options != Default::default() {
                        accounts.set_options(&u.user, &u.host, options)?;
                    }
                    Ok(created)
                })?;
                ok(0)
            }
            Stmt::DropUser { users, if_exists } => {
                let accounts = &self.engine.accounts;
                let verdict = AccountOp::new("DROP USER", "it doesn't exist", *if_exists);
                verdict.apply(users, &mut env.warnings, |u| {
                    accounts.drop_account(&u.user, &u.host)
                })?;
                ok(0)
            }
            Stmt::AlterUser {
                users,
                if_exists,
                options,
            } => {
                let accounts = &self.engine.accounts;
                let verdict = AccountOp::new("ALTER USER", "it doesn't exist", *if_exists);
                verdict.apply(users, &mut env.warnings, |u| {
                    let exists = match u.credential()? {
                        Some(credential) => {
                            accounts.set_credential(&u.user, &u.host, credential)?
                        }
                        None => accounts.exists(&u.user, &u.host),
                    };
                    if exists {
                        accounts.set_options(&u.user, &u.host, options)?;
                    }
                    Ok(exists)
                })?;
                ok(0)
            }
            Stmt::FlushStatus => return Ok(Pending::FlushStatus),
            Stmt::FlushTables(names) => {
                // Dirty key cache blocks are written first, then the handles are closed.
                self.engine
                    .catalog
                    .storage()
                    .checkpoint()
                    .map_err(catalog::storage_error)?;
                crate::exec::table_cache::flush_tables(
                    self.engine.catalog.storage(),
                    names.as_deref(),
                    self.info.database.as_deref(),
                )?;
                // As in MySQL, FLUSH TABLES also empties the query cache.
                crate::exec::query_cache::flush(&self.engine, true);
                ok(0)
            }
            Stmt::Flush { user_resources } => {
                if *user_resources {
                    self.engine.account_usage.end_hour();
                }
                // The other FLUSH forms (LOGS, PRIVILEGES, ...): dirty key cache blocks are written.
                self.engine
                    .catalog
                    .storage()
                    .checkpoint()
                    .map_err(catalog::storage_error)?;
                ok(0)
            }
            Stmt::KeyCache(crate::plan::key_cache::KeyCacheStmt::SetStructured(sets)) => {
                crate::exec::key_cache::set_structured(&self.engine, sets, env)?;
                ok(0)
            }
            Stmt::KeyCache(k) => {
                let rows = crate::exec::key_cache::execute(
                    &self.engine,
                    k,
                    self.info.database.as_deref(),
                )?;
                listing(
                    crate::exec::key_cache::RESULT_COLUMNS,
                    rows,
                    &ShowFilter::None,
                    env,
                )?
            }
            Stmt::QueryCache { reset } => {
                crate::exec::query_cache::flush(&self.engine, *reset);
                ok(0)
            }
            Stmt::Kill { target, id } => {
                self.kill(*target, id, env)?;
                ok(0)
            }
            Stmt::Shutdown => {
                if let Some(hook) = self.engine.shutdown_hook.lock().as_ref() {
                    hook();
                }
                ok(0)
            }
            _ => return Err(SqlError::not_supported("this statement here")),
        }))
    }
}
