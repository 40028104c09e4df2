//! What a session keeps for the query cache: its settings, part of every key.

use crate::system::sysvars::VarValue;

/// Session variables that can change a SELECT's result (its values, their text, their
/// collation or their number): part of every key.
pub const RESULT_SETTINGS: &[&str] = &[
    "autocommit",
    "character_set_client",
    "character_set_connection",
    "character_set_results",
    "collation_connection",
    "default_week_format",
    "div_precision_increment",
    "explicit_defaults_for_timestamp",
    "group_concat_max_len",
    "lc_time_names",
    "sql_auto_is_null",
    "sql_mode",
    "sql_select_limit",
    "time_zone",
    "transaction_isolation",
];

/// `query_cache_type` values, as their enum positions.
pub(crate) const TYPE_OFF: u8 = 0;

pub(crate) const TYPE_DEMAND: u8 = 2;

/// What a session keeps for the cache: its settings, re-read whenever a SET changes one.
#[derive(Default, Clone)]
pub struct SessionQuery {
    /// query_cache_type: 0 OFF, 1 ON, 2 DEMAND.
    pub(crate) cache_type: u8,
    pub(crate) strip_comments: bool,
    /// The [`RESULT_SETTINGS`] values, length-prefixed: a part of every key.
    pub(crate) settings: Vec<u8>,
}

impl SessionQuery {
    /// Read the settings through `value` (the session's value of a variable by index).
    pub fn from_session<'a>(value: impl Fn(usize) -> &'a VarValue) -> SessionQuery {
        let get = |name: &str| crate::system::sysvars::lookup(name).map(&value);
        let cache_type = match get("query_cache_type") {
            Some(VarValue::Enum(i)) => *i as u8,
            _ => TYPE_OFF,
        };
        let strip_comments = matches!(
            get("query_cache_strip_comments"),
            Some(VarValue::Bool(true))
        );
        let mut settings = Vec::new();
        for name in RESULT_SETTINGS {
            let text = get(name).map(|v| format!("{v:?}")).unwrap_or_default();
            push_part(&mut settings, text.as_bytes());
        }
        SessionQuery {
            cache_type,
            strip_comments,
            settings,
        }
    }
}

pub(crate) fn push_part(key: &mut Vec<u8>, part: &[u8]) {
    key.extend_from_slice(&(part.len() as u32).to_le_bytes());
    key.extend_from_slice(part);
}
