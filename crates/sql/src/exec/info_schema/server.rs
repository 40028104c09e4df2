//! The information_schema tables that show the server's state: PROCESSLIST, the
//! variables and status counters, SYSTEM_VARIABLES, and the collations.

use super::{grants, text};
use crate::exec::env::ExecEnv;
use crate::value::Value;
use myriad_storage as st;
use std::sync::Arc;

/// PROCESSLIST: the sessions the account may see. myriad keeps no statement texts, so
/// INFO (and INFO_BINARY) is NULL, as SHOW PROCESSLIST shows other sessions'.
pub(super) fn processlist(env: &ExecEnv) -> Vec<st::Row> {
    let process = grants(env)
        .global
        .contains(crate::catalog::privileges::Privs::PROCESS);
    env.engine
        .sessions
        .list(&env.info.user, grants(env).is_all() || process)
        .into_iter()
        .map(|v| {
            let own = v.connection_id == env.info.connection_id;
            let micros = u64::try_from(v.for_time.as_micros()).unwrap_or(u64::MAX);
            let time_ms = myriad_types::decimal::Decimal::from_i128_scaled(i128::from(micros), 3)
                .map_or(Value::Null, Value::Decimal);
            let state = match (own, v.busy) {
                (true, _) => "Filling schema table",
                (false, true) => "executing",
                (false, false) => "",
            };
            vec![
                Value::UInt(u64::from(v.connection_id)),
                text(&v.owner.user),
                text(&v.owner.host),
                v.owner.database.as_deref().map_or(Value::Null, text),
                text(if v.busy || own { "Query" } else { "Sleep" }),
                Value::Int(i64::try_from(v.for_time.as_secs()).unwrap_or(i64::MAX)),
                text(state),
                Value::Null,
                time_ms,
                Value::UInt(0),
                Value::UInt(0),
                myriad_types::decimal::Decimal::from_i128_scaled(0, 3)
                    .map_or(Value::Null, Value::Decimal),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Int(0),
                Value::Null,
                Value::Int(0),
            ]
        })
        .collect()
}

/// GLOBAL_VARIABLES / SESSION_VARIABLES: upper-case names, values as SHOW VARIABLES.
pub(super) fn variables(env: &ExecEnv, global: bool) -> Vec<st::Row> {
    crate::exec::show::variable_pairs(env, global)
        .into_iter()
        .map(|(name, value)| vec![text(&name.to_ascii_uppercase()), value])
        .collect()
}

/// SYSTEM_VARIABLES: each variable's values, default, scope, type, range and help.
pub(super) fn system_variables(env: &ExecEnv) -> Vec<st::Row> {
    use crate::system::sysvars::{Kind, Scope, DEFINITIONS};
    let globals = Arc::clone(&env.engine.globals.read());
    let defaults = crate::system::sysvars::defaults();
    let shown = |v: &crate::system::sysvars::VarValue, def| {
        v.display(def).map_or(Value::Null, |t| text(&t))
    };
    let number = |n: String| text(&n);
    // In DEFINITIONS order, one per variable.
    let session_values: Vec<Value> = crate::exec::show::variable_pairs(env, false)
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    DEFINITIONS
        .iter()
        .enumerate()
        .map(|(i, def)| {
            // As SHOW SESSION VARIABLES shows it (the clock, counts of the last statement).
            let session = match def.scope {
                Scope::Global => Value::Null,
                _ => session_values.get(i).cloned().unwrap_or(Value::Null),
            };
            let global = match def.scope {
                Scope::Session => Value::Null,
                _ => shown(&globals[i], def),
            };
            let origin = match def.scope != Scope::Session && globals[i] != defaults[i] {
                true => "SQL",
                false => "COMPILE-TIME",
            };
            let (ty, min, max, block, list) = match def.kind {
                Kind::Bool => ("BOOLEAN", None, None, None, Some("OFF,ON".to_string())),
                Kind::UInt { min, max, block } => (
                    "BIGINT UNSIGNED",
                    Some(min.to_string()),
                    Some(max.to_string()),
                    Some(block.to_string()),
                    None,
                ),
                Kind::Int { min, max } => (
                    "BIGINT",
                    Some(min.to_string()),
                    Some(max.to_string()),
                    Some("1".to_string()),
                    None,
                ),
                Kind::Double { min, max } => (
                    "DOUBLE",
                    Some(format!("{min}")),
                    Some(format!("{max}")),
                    None,
                    None,
                ),
                Kind::Str { .. } => ("VARCHAR", None, None, None, None),
                Kind::Enum(names) => ("ENUM", None, None, None, Some(names.join(","))),
                Kind::Set(names) => ("SET", None, None, None, Some(names.join(","))),
                Kind::Flags(names) => (
                    "FLAGSET",
                    None,
                    None,
                    None,
                    Some(format!("{},default", names.join(","))),
                ),
                Kind::Charset { .. } | Kind::Collation => ("ENUM", None, None, None, None),
            };
            let optional = |v: Option<String>| v.map_or(Value::Null, number);
            vec![
                text(&def.name.to_ascii_uppercase()),
                session,
                global,
                text(origin),
                shown(&defaults[i], def),
                text(match def.scope {
                    Scope::Both => "SESSION",
                    Scope::Global => "GLOBAL",
                    Scope::Session => "SESSION ONLY",
                }),
                text(ty),
                text(def.help),
                optional(min),
                optional(max),
                optional(block),
                optional(list),
                text(if def.read_only { "YES" } else { "NO" }),
                match (def.scope, def.kind) {
                    (Scope::Session, _) => Value::Null,
                    (_, Kind::Bool) => text("OPTIONAL"),
                    _ => text("REQUIRED"),
                },
                Value::Null,
            ]
        })
        .collect()
}

/// PLUGINS / ALL_PLUGINS: the plugins built in, all active (no library, MariaDB's
/// maturity and license words).
pub(super) fn plugins() -> Vec<st::Row> {
    crate::exec::admin::PLUGINS
        .iter()
        .map(|(name, version, kind, description, load, auth_version)| {
            vec![
                text(name),
                text(version),
                text("ACTIVE"),
                text(kind),
                text(crate::exec::admin::plugin_type_version(kind)),
                Value::Null,
                Value::Null,
                text("myriad"),
                text(description),
                text("Apache-2.0"),
                text(load),
                text("Stable"),
                text(auth_version),
            ]
        })
        .collect()
}

/// GLOBAL_STATUS / SESSION_STATUS: upper-case names, values as text.
pub(super) fn status(env: &ExecEnv, global: bool) -> Vec<st::Row> {
    crate::exec::show::status_pairs(env, global)
        .into_iter()
        .map(|(name, value)| vec![text(&name.to_ascii_uppercase()), text(&value)])
        .collect()
}

/// COLLATIONS, or with `applicability` COLLATION_CHARACTER_SET_APPLICABILITY.
pub(super) fn collations(applicability: bool) -> Vec<st::Row> {
    crate::exec::admin::COLLATION_IDS
        .iter()
        .map(|(name, charset, id, default)| {
            let default = text(if *default { "Yes" } else { "" });
            match applicability {
                true => vec![
                    text(name),
                    text(charset),
                    text(name),
                    Value::UInt(*id),
                    default,
                ],
                false => vec![
                    text(name),
                    text(charset),
                    Value::UInt(*id),
                    default,
                    text("Yes"),
                    Value::UInt(1),
                ],
            }
        })
        .collect()
}
