//! Checking a value for a variable ([`parse_setting`]), one function per kind of variable.

use super::*;

fn parse_bool_word(text: &str) -> Option<bool> {
    match text.trim().to_ascii_uppercase().as_str() {
        "ON" | "TRUE" | "1" | "YES" => Some(true),
        "OFF" | "FALSE" | "0" | "NO" => Some(false),
        _ => None,
    }
}

/// Check and convert a value for a variable: MySQL's type check (1232), value check (1231)
/// and range clamping (warning 1292 "Truncated incorrect ... value").
pub fn parse_setting(
    def: &VarDef,
    setting: &Setting,
) -> Result<(VarValue, Option<Warning>), SqlError> {
    let name = def.name;
    if let Setting::Str(text) = setting {
        if matches!(
            def.kind,
            Kind::UInt { .. } | Kind::Int { .. } | Kind::Double { .. }
        ) {
            return Err(err_wrong_type(name));
        }
        return parse_setting(def, &Setting::Text(text.clone()));
    }
    if name == "time_zone" {
        return time_zone_setting(setting).map(|v| (v, None));
    }
    let wrong_value = || err_wrong_value(name, &setting_text(setting));
    match def.kind {
        Kind::Bool => match setting {
            Setting::Int(0) => Ok((VarValue::Bool(false), None)),
            Setting::Int(1) => Ok((VarValue::Bool(true), None)),
            Setting::Int(_) | Setting::Null => Err(wrong_value()),
            Setting::Double(_) => Err(err_wrong_type(name)),
            Setting::Text(t) | Setting::Str(t) => parse_bool_word(t)
                .map(|b| (VarValue::Bool(b), None))
                .ok_or_else(wrong_value),
        },
        Kind::UInt { min, max, block } => {
            let raw = integer(name, setting)?;
            let mut value = raw.clamp(min as i128, max as i128) as u64;
            if block > 1 {
                value -= value % block;
                if value < min {
                    value = min;
                }
            }
            let warning = truncated(name, setting, value as i128 != raw);
            Ok((VarValue::UInt(value), warning))
        }
        Kind::Int { min, max } => {
            let raw = integer(name, setting)?;
            let value = raw.clamp(min as i128, max as i128) as i64;
            let warning = truncated(name, setting, value as i128 != raw);
            Ok((VarValue::Int(value), warning))
        }
        Kind::Double { min, max } => {
            let raw = match setting {
                Setting::Int(i) => *i as f64,
                Setting::Double(d) => *d,
                Setting::Null => return Err(err_wrong_type(name)),
                Setting::Text(t) | Setting::Str(t) => {
                    t.trim().parse::<f64>().map_err(|_| err_wrong_type(name))?
                }
            };
            let value = raw.clamp(min, max);
            let warning = truncated(name, setting, value != raw);
            Ok((VarValue::Double(value), warning))
        }
        Kind::Str { nullable } => match setting {
            Setting::Null if nullable => Ok((VarValue::Str(None), None)),
            Setting::Null => Err(wrong_value()),
            Setting::Text(t) | Setting::Str(t) => Ok((VarValue::Str(Some(t.clone())), None)),
            Setting::Int(_) | Setting::Double(_) => Err(err_wrong_type(name)),
        },
        Kind::Enum(names) => enum_setting(names, name, setting).map(|v| (v, None)),
        Kind::Set(names) => set_setting(names, name, setting).map(|v| (v, None)),
        Kind::Flags(names) => {
            let base = flags_setting(
                names,
                name,
                &Setting::Text(def.default.unwrap_or("").into()),
                0,
            )?;
            flags_setting(names, name, setting, base).map(|bits| (VarValue::Set(bits), None))
        }
        Kind::Charset { nullable } => {
            charset_setting(nullable, name, setting).map(|v| (VarValue::Str(v), None))
        }
        Kind::Collation => collation_setting(name, setting).map(|v| (VarValue::Str(Some(v)), None)),
    }
}

/// [`parse_setting`] for an assignment to a variable whose value is `current` now: a
/// flag set ([`Kind::Flags`]) changes only the switches the setting names.
pub fn parse_setting_over(
    def: &VarDef,
    setting: &Setting,
    current: &VarValue,
) -> Result<(VarValue, Option<Warning>), SqlError> {
    match (def.kind, current) {
        (Kind::Flags(names), VarValue::Set(bits)) => {
            flags_setting(names, def.name, setting, *bits).map(|b| (VarValue::Set(b), None))
        }
        _ => parse_setting(def, setting),
    }
}

/// `name=on|off|default, ...` or `default` applied to the switches `base`: MariaDB's
/// flag set syntax (names in any case; `default` resets every switch to the default).
fn flags_setting(
    names: &[&str],
    name: &str,
    setting: &Setting,
    base: u64,
) -> Result<u64, SqlError> {
    let wrong_value = || err_wrong_value(name, &setting_text(setting));
    let (Setting::Text(text) | Setting::Str(text)) = setting else {
        return Err(match setting {
            Setting::Null => wrong_value(),
            _ => err_wrong_type(name),
        });
    };
    let default = || -> Result<u64, SqlError> {
        let def = lookup(name)
            .map(super::def)
            .and_then(|d| d.default)
            .unwrap_or("");
        flags_setting(names, name, &Setting::Text(def.into()), 0)
    };
    let mut bits = base;
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part.eq_ignore_ascii_case("default") {
            bits = default()?;
            continue;
        }
        let (flag, state) = part.split_once('=').ok_or_else(wrong_value)?;
        let bit = names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(flag.trim()))
            .ok_or_else(wrong_value)?;
        let on = match state.trim().to_ascii_lowercase().as_str() {
            "on" => true,
            "off" => false,
            "default" => default()? & (1 << bit) != 0,
            _ => return Err(wrong_value()),
        };
        bits = if on {
            bits | 1 << bit
        } else {
            bits & !(1 << bit)
        };
    }
    Ok(bits)
}

/// An integer variable's value as given, before clamping; text may carry a K/M/G suffix.
fn integer(name: &str, setting: &Setting) -> Result<i128, SqlError> {
    match setting {
        Setting::Int(i) => Ok(*i),
        Setting::Double(_) | Setting::Null => Err(err_wrong_type(name)),
        Setting::Text(t) | Setting::Str(t) => {
            parse_option_number(t).ok_or_else(|| err_wrong_type(name))
        }
    }
}

/// Warning 1292 when a number was `clamped` into its variable's range.
fn truncated(name: &str, setting: &Setting, clamped: bool) -> Option<Warning> {
    clamped.then(|| {
        (
            1292,
            format!(
                "Truncated incorrect {} value: '{}'",
                clipped(name, 32),
                clipped(&setting_text(setting), 128)
            ),
        )
    })
}

/// `text` cut to `max` characters as MariaDB's `%-.<max>T` format cuts it: a longer text
/// keeps `max - 3` characters and ends in `...`.
fn clipped(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max - 3).collect();
    format!("{kept}...")
}

/// One of `names`, by name or by number.
fn enum_setting(names: &[&str], name: &str, setting: &Setting) -> Result<VarValue, SqlError> {
    let wrong_value = || err_wrong_value(name, &setting_text(setting));
    match setting {
        Setting::Int(i) => usize::try_from(*i)
            .ok()
            .filter(|i| *i < names.len())
            .map(VarValue::Enum)
            .ok_or_else(wrong_value),
        Setting::Text(t) | Setting::Str(t) => names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(t.trim()))
            // An option's text may name the value by its number (`--query-cache-type=0`).
            .or_else(|| t.trim().parse::<usize>().ok().filter(|i| *i < names.len()))
            .map(VarValue::Enum)
            .ok_or_else(wrong_value),
        Setting::Double(_) => Err(err_wrong_type(name)),
        Setting::Null => Err(wrong_value()),
    }
}

/// A set of `names`: a bit mask, or names separated by commas (sql_mode's combination
/// modes such as TRADITIONAL stand for their members).
fn set_setting(names: &[&str], name: &str, setting: &Setting) -> Result<VarValue, SqlError> {
    let wrong_value = || err_wrong_value(name, &setting_text(setting));
    match setting {
        Setting::Int(i) => {
            let all = (1u128 << names.len()) - 1;
            if *i < 0 || (*i as u128) & !all != 0 {
                return Err(wrong_value());
            }
            if names == SQL_MODE_NAMES {
                for (bit, flag) in names.iter().enumerate() {
                    if *i & (1 << bit) != 0 && SQL_MODES_NOT_BUILT.contains(flag) {
                        return Err(SqlError::not_supported(&format!("sql_mode {flag}")));
                    }
                }
            }
            Ok(VarValue::Set(*i as u64))
        }
        Setting::Text(t) | Setting::Str(t) => {
            let mut bits = 0u64;
            for part in t.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let upper = part.to_ascii_uppercase();
                let expanded: Vec<&str> = match sql_mode_combination(&upper) {
                    Some(list) if names == SQL_MODE_NAMES => list.to_vec(),
                    _ => vec![upper.as_str()],
                };
                for flag in expanded {
                    if names == SQL_MODE_NAMES && SQL_MODES_NOT_BUILT.contains(&flag) {
                        return Err(SqlError::not_supported(&format!("sql_mode {flag}")));
                    }
                    let bit = names
                        .iter()
                        .position(|n| n.eq_ignore_ascii_case(flag))
                        .ok_or_else(wrong_value)?;
                    bits |= 1 << bit;
                }
            }
            Ok(VarValue::Set(bits))
        }
        Setting::Double(_) => Err(err_wrong_type(name)),
        Setting::Null => Err(wrong_value()),
    }
}

/// A character set's canonical name (`utf8` is `utf8mb3`); None for NULL where allowed.
fn charset_setting(
    nullable: bool,
    name: &str,
    setting: &Setting,
) -> Result<Option<String>, SqlError> {
    match setting {
        Setting::Null if nullable => Ok(None),
        Setting::Text(t) | Setting::Str(t) => {
            let lower = t.trim().to_ascii_lowercase();
            let canonical = if lower == "utf8" {
                "utf8mb3".to_string()
            } else {
                lower
            };
            if CHARSETS.contains(&canonical.as_str()) {
                Ok(Some(canonical))
            } else {
                Err(SqlError::new(
                    ER_UNKNOWN_CHARACTER_SET,
                    format!("Unknown character set: '{t}'"),
                ))
            }
        }
        Setting::Int(_) | Setting::Double(_) => Err(err_wrong_type(name)),
        Setting::Null => Err(err_wrong_value(name, &setting_text(setting))),
    }
}

/// A collation's name (`utf8_` names are `utf8mb3_` ones).
fn collation_setting(name: &str, setting: &Setting) -> Result<String, SqlError> {
    match setting {
        Setting::Text(t) | Setting::Str(t) => {
            let lower = t.trim().to_ascii_lowercase();
            if COLLATIONS.iter().any(|(c, _)| *c == lower) {
                Ok(lower.replace("utf8_", "utf8mb3_"))
            } else {
                Err(SqlError::new(
                    ER_UNKNOWN_COLLATION,
                    format!("Unknown collation: '{t}'"),
                ))
            }
        }
        Setting::Int(_) | Setting::Double(_) => Err(err_wrong_type(name)),
        Setting::Null => Err(err_wrong_value(name, &setting_text(setting))),
    }
}

/// Option-file numbers: decimal with an optional K/M/G suffix (as mysqld accepts).
fn parse_option_number(text: &str) -> Option<i128> {
    let t = text.trim();
    let (digits, multiplier) = match t.chars().last()?.to_ascii_uppercase() {
        'K' => (&t[..t.len() - 1], 1i128 << 10),
        'M' => (&t[..t.len() - 1], 1i128 << 20),
        'G' => (&t[..t.len() - 1], 1i128 << 30),
        _ => (t, 1),
    };
    digits
        .parse::<i128>()
        .ok()
        .map(|v| v.saturating_mul(multiplier))
}

/// `time_zone`: SYSTEM (the server's, UTC) or a UTC offset. Dates and times are computed in
/// UTC only, so an offset other than zero is refused with 1235 rather than ignored; a
/// named zone is unknown (1298), as in a MariaDB without time zone tables.
fn time_zone_setting(setting: &Setting) -> Result<VarValue, SqlError> {
    let text = setting_text(setting);
    let unknown = || {
        SqlError::new(
            myriad_types::errors::ER_UNKNOWN_TIME_ZONE,
            format!("Unknown or incorrect time zone: '{text}'"),
        )
    };
    let (Setting::Text(t) | Setting::Str(t)) = setting else {
        return Err(match setting {
            Setting::Null => err_wrong_value("time_zone", "NULL"),
            _ => err_wrong_type("time_zone"),
        });
    };
    let t = t.trim();
    if t.eq_ignore_ascii_case("SYSTEM") {
        return Ok(VarValue::Str(Some("SYSTEM".into())));
    }
    let minutes = utc_offset_minutes(t).ok_or_else(unknown)?;
    if minutes != 0 {
        return Err(SqlError::not_supported(&format!(
            "time_zone '{t}' (dates and times are computed in UTC: SYSTEM or '+00:00')"
        )));
    }
    Ok(VarValue::Str(Some("+00:00".into())))
}

/// The minutes of a `[+|-]H[H]:MM` offset within MariaDB's -12:59..+13:00.
fn utc_offset_minutes(t: &str) -> Option<i32> {
    let (sign, rest) = match t.as_bytes().first()? {
        b'+' => (1, &t[1..]),
        b'-' => (-1, &t[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let all_digits =
        |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(h) || m.len() != 2 || !all_digits(m) {
        return None;
    }
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    let minutes = sign * (h * 60 + m);
    (m < 60 && (-(12 * 60 + 59)..=13 * 60).contains(&minutes)).then_some(minutes)
}
