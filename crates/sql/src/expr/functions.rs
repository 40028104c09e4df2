//! Built-in functions: `Expr::call` evaluates a call's arguments once and dispatches on
//! the function with one match; the string and numeric families live in their own files.

mod aes;
mod date_format;
mod datetime;
pub(crate) use date_format::format_width;
pub(crate) use datetime::{date_add_type, unit_of, DatePart};
pub mod digest;
mod encode;
mod format;
mod inet;
pub(crate) mod json;
mod locales;
mod numeric;
mod radix;
pub(crate) mod rand;
mod regexp;
mod sets;
mod soundex;
mod sql_crypt;
mod str_to_date;
mod string;
mod time;
pub(crate) use str_to_date::result_type as str_to_date_type;
pub(crate) use time::{temporal_decimals, to_time, TIME_HOURS_MAX};

use crate::error::{SqlError, ER_WARN_ALLOWED_PACKET_OVERFLOWED};
use crate::expr::datetime::*;
use crate::expr::eval::arith;
use crate::expr::eval::compare;
use crate::expr::eval::ArithOp;
use crate::expr::eval::SqlType;
use crate::expr::eval::SqlValue;
use crate::expr::eval::Warning;
use crate::expr::text::*;
use crate::expr::*;
use crate::value::Value;
use myriad_types::decimal::Decimal;
use std::cmp::Ordering;

/// A call's evaluated arguments and what every function reads of them.
struct Args {
    v: Vec<Value>,
    any_null: bool,
    /// The call works on a binary string (its collation is `binary`, or some argument is
    /// not UTF-8): every argument's bytes are read as the chars U+0000..U+00FF and results
    /// are written back as the same bytes, so string functions count and move bytes (as
    /// MariaDB does on binary strings) and never produce U+FFFD.
    binary: bool,
    /// `max_allowed_packet`: the longest string a function may build.
    limit: u64,
    /// The collation strings compare or are searched under.
    collation: Collation,
}

impl Args {
    fn new(v: Vec<Value>, limit: u64, collation: Collation) -> Args {
        let any_null = v.iter().any(Value::is_null);
        let binary = collation == Collation::Binary
            || v.iter()
                .any(|d| matches!(d, Value::Bytes(s) if std::str::from_utf8(s).is_err()));
        Args {
            v,
            any_null,
            binary,
            limit,
            collation,
        }
    }

    /// Argument `i` as text (empty for NULL).
    fn text(&self, i: usize) -> String {
        if self.binary {
            bytes_as_chars(&self.v[i].to_text().unwrap_or_default())
        } else {
            text_of(&self.v[i]).unwrap_or_default()
        }
    }

    /// A string result's bytes.
    fn out(&self, s: String) -> Vec<u8> {
        if self.binary {
            chars_as_bytes(&s)
        } else {
            s.into_bytes()
        }
    }

    /// Argument `i` as an integer (0 for NULL).
    /// An unsigned value past i64's range counts as i64::MAX (a length or count that
    /// large means "all of it" or "too long", as in MariaDB, never a negative number).
    fn int(&self, i: usize, w: &mut Vec<Warning>) -> i64 {
        match &self.v[i] {
            Value::UInt(u) => i64::try_from(*u).unwrap_or(i64::MAX),
            v => v.to_int(w).unwrap_or(0),
        }
    }

    /// NULL if any argument is NULL, else `f()`.
    fn null_if_any(&self, f: impl FnOnce() -> Value) -> Value {
        if self.any_null {
            Value::Null
        } else {
            f()
        }
    }
}

impl Expr {
    pub(crate) fn call(
        &self,
        func: Func,
        args: &[Expr],
        collation: Collation,
        env: &mut dyn Env,
        row: &[Value],
    ) -> Result<Value, SqlError> {
        // Control functions evaluate lazily.
        match func {
            Func::If => {
                let c = args[0].eval(env, row)?.truth(env.warnings());
                return args[if c == Some(true) { 1 } else { 2 }].eval(env, row);
            }
            Func::IfNull => {
                let v = args[0].eval(env, row)?;
                return if v.is_null() {
                    args[1].eval(env, row)
                } else {
                    Ok(v)
                };
            }
            Func::Coalesce => {
                for a in args {
                    let v = a.eval(env, row)?;
                    if !v.is_null() {
                        return Ok(v);
                    }
                }
                return Ok(Value::Null);
            }
            _ => {}
        }
        let mut v: Vec<Value> = Vec::with_capacity(args.len());
        for a in args {
            v.push(a.eval(env, row)?);
        }
        let a = Args::new(v, env.max_allowed_packet(), collation);
        let strict = strict_mode(env.sql_mode());
        let w = env.warnings();
        Ok(match func {
            Func::Concat => string::concat(&a, w),
            Func::ConcatWs => string::concat_ws(&a, w),
            Func::Length => {
                a.null_if_any(|| Value::Int(a.v[0].to_text().map(|b| b.len()).unwrap_or(0) as i64))
            }
            Func::CharLength => a.null_if_any(|| Value::Int(a.text(0).chars().count() as i64)),
            Func::Substring => string::substring(&a, w),
            Func::Upper => string::case(&a, true),
            Func::Lower => string::case(&a, false),
            Func::Trim => string::trim(&a, |s| s.trim_matches(' ')),
            Func::LTrim => string::trim(&a, |s| s.trim_start_matches(' ')),
            Func::RTrim => string::trim(&a, |s| s.trim_end_matches(' ')),
            Func::Replace => string::replace(&a, w),
            Func::Left => string::left_right(&a, true, w),
            Func::Right => string::left_right(&a, false, w),
            Func::LPad => string::pad(&a, true, w),
            Func::RPad => string::pad(&a, false, w),
            Func::Repeat => string::repeat(&a, w),
            Func::Reverse => {
                a.null_if_any(|| Value::Bytes(a.out(a.text(0).chars().rev().collect())))
            }
            Func::Locate => string::locate_in(&a, false, w),
            Func::Instr => string::locate_in(&a, true, w),
            Func::Space => string::space(&a, w),
            Func::Ascii => a.null_if_any(|| {
                Value::Int(
                    a.v[0]
                        .to_text()
                        .and_then(|b| b.first().copied())
                        .unwrap_or(0) as i64,
                )
            }),
            Func::Hex => string::hex(&a, w),
            Func::SubstringIndex => string::substring_index(&a, w),
            Func::FindInSet => string::find_in_set(&a),
            Func::JsonValid => a.null_if_any(|| {
                Value::Int(i64::from(json::is_valid(
                    &a.v[0].to_text().unwrap_or_default(),
                )))
            }),
            Func::Md5 => digest::digest(&a, digest::Hash::Md5, w),
            Func::Password => digest::password(&a),
            Func::Sha1 => digest::digest(&a, digest::Hash::Sha1, w),
            Func::Sha2 => digest::digest(&a, digest::Hash::Sha2, w),
            Func::Strcmp => string::strcmp(&a),
            Func::Field => string::field(&a, w),
            Func::Insert => string::insert(&a, w),
            Func::Quote => encode::quote(&a, w),
            Func::Unhex => encode::unhex(&a),
            Func::ToBase64 => encode::to_base64(&a, w),
            Func::FromBase64 => encode::from_base64(&a, w),
            Func::Crc32 => encode::crc32(&a),
            Func::Char => encode::char_of(&a, w),
            Func::Ord => encode::ord(&a),
            Func::BitLength => encode::bit_length(&a),
            Func::Bin => radix::conv(&a, 10, 2),
            Func::Oct => radix::conv(&a, 10, 8),
            Func::Conv => radix::conv_args(&a, w),
            Func::Elt => sets::elt(&a, w),
            Func::MakeSet => sets::make_set(&a, w),
            Func::ExportSet => sets::export_set(&a, w),
            Func::Soundex => soundex::soundex(&a),
            Func::AesEncrypt => aes::encrypt(&a, w),
            Func::Format => format::format(&a, w)?,
            Func::RandomBytes => string::random_bytes(&a, w)?,
            Func::Encode => sql_crypt::transform(&a, false),
            Func::Chr => encode::chr(&a, strict, w),
            Func::CharUsing { mb4 } => encode::char_using(&a, mb4, strict, w),
            Func::BitCount => numeric::bit_count(&a, w),
            Func::Decode => sql_crypt::transform(&a, true),
            Func::AesDecrypt => aes::decrypt(&a),
            Func::Abs => numeric::abs(&a, w)?,
            Func::Round => numeric::round_to(&a, false, w)?,
            Func::Truncate => numeric::round_to(&a, true, w)?,
            Func::Floor => numeric::floor_ceil(&a, true, w)?,
            Func::Ceil => numeric::floor_ceil(&a, false, w)?,
            Func::Mod => arith(
                ArithOp::Mod,
                &a.v[0],
                &a.v[1],
                0,
                &|| "MOD(...)".to_string(),
                w,
            )?,
            Func::Greatest => numeric::greatest_least(&a, true, w),
            Func::Least => numeric::greatest_least(&a, false, w),
            Func::Pow => numeric::pow(&a, w)?,
            Func::Sqrt => numeric::sqrt(&a, w),
            Func::Exp => numeric::exp(&a, w),
            Func::Ln => numeric::log(&a, f64::ln, w),
            Func::Log10 => numeric::log(&a, f64::log10, w),
            Func::Log2 => numeric::log(&a, f64::log2, w),
            Func::Sign => numeric::sign(&a, w),
            Func::Pi => Value::Double(std::f64::consts::PI),
            Func::NullIf => null_if(args, &a.v[0], &a.v[1], collation, w),
            Func::IsNull => Value::Int(i64::from(a.v[0].is_null())),
            Func::Sleep => sleep(&a.v[0], w),
            Func::Version => Value::text(crate::SERVER_VERSION),
            Func::Database => env
                .database()
                .map(|d| Value::Bytes(d.into_bytes()))
                .unwrap_or(Value::Null),
            Func::User => Value::Bytes(env.user().into_bytes()),
            Func::CurrentUser => Value::Bytes(env.current_user().into_bytes()),
            Func::CurrentRole => env
                .current_role()
                .map_or(Value::Null, |r| Value::Bytes(r.into_bytes())),
            Func::ConnectionId => Value::UInt(env.connection_id() as u64),
            Func::LastInsertId => Value::UInt(env.last_insert_id()),
            Func::FoundRows => Value::UInt(env.found_rows().ok_or_else(|| {
                SqlError::not_supported(
                    "FOUND_ROWS() after a SELECT with OFFSET and without SQL_CALC_FOUND_ROWS",
                )
            })?),
            Func::RowCount => Value::Int(env.row_count()),
            Func::Now => datetime_from_micros(env.now_micros(), false),
            Func::SysDate => {
                datetime_from_micros(crate::expr::datetime::wall_clock_micros(), false)
            }
            Func::CurTime => match datetime_from_micros(env.now_micros(), false) {
                Value::DateTime(dt) => {
                    myriad_types::Time::new(false, dt.hour.into(), dt.minute, dt.second, 0)
                        .map_or(Value::Null, Value::Time)
                }
                other => other,
            },
            Func::CurDate => match datetime_from_micros(env.now_micros(), false) {
                Value::DateTime(dt) => Value::Date(dt.date()),
                other => other,
            },
            Func::UnixTimestamp if !a.v.is_empty() => {
                utc_session(env)?;
                time::unix_timestamp(&a.v[0], env.warnings())?
            }
            Func::UnixTimestamp => Value::Int(env.now_micros().div_euclid(1_000_000)),
            Func::StrToDate => {
                let ty = str_to_date::result_type(match &args[1] {
                    Expr::Literal(Value::Bytes(f)) => Some(f),
                    _ => None,
                });
                str_to_date::str_to_date(&a.v[0], &a.v[1], ty, w)?
            }
            Func::MakeTime => time::make_time((&a.v[0], &a.v[1], &a.v[2]), w),
            Func::SecToTime => time::sec_to_time(&a.v[0], w),
            Func::Regexp => regexp::like(&a)?,
            Func::RegexpInstr => regexp::instr(&a)?,
            Func::RegexpSubstr => regexp::substr(&a)?,
            Func::RegexpReplace => regexp::replace(&a)?,
            Func::InetAton => inet::aton(&a),
            Func::InetNtoa => inet::ntoa(&a, w),
            Func::Rand => Value::Double(self.rand(args.first(), a.v.first(), env)),
            Func::GetLock
            | Func::ReleaseLock
            | Func::ReleaseAllLocks
            | Func::IsFreeLock
            | Func::IsUsedLock => user_lock(func, &a, env)?,
            Func::Time => to_time(&a.v[0], w).map_or(Value::Null, Value::Time),
            Func::TimeToSec => time::time_to_sec(&a.v[0], w),
            Func::LastDay => datetime::last_day(&a.v[0])?,
            Func::DateDiff => datetime::date_diff(&a.v[0], &a.v[1])?,
            Func::TimestampDiff => datetime::timestamp_diff(&a.v[0], &a.v[1], &a.v[2])?,
            Func::DatePart(part) => datetime::date_part(part, &a.v[0])?,
            Func::DateFormat => {
                match a.v.get(2) {
                    None => english_names(env)?,
                    Some(Value::Bytes(b)) if b.eq_ignore_ascii_case(b"en_US") => {}
                    // MariaDB falls back to en_US for an unknown locale; NULL is one.
                    Some(Value::Null) => w.push(Warning {
                        level: "Warning",
                        code: myriad_types::errors::ER_UNKNOWN_LOCALE.code,
                        message: "Unknown locale: 'NULL'".to_string(),
                    }),
                    Some(_) => {
                        return Err(SqlError::not_supported(
                            "DATE_FORMAT in a locale other than en_US",
                        ))
                    }
                }
                date_format::date_format(&a.v[0], &a.v[1])?
            }
            Func::Week | Func::YearWeek => {
                let mode = match a.v.get(1) {
                    Some(m) => week_mode(m)?,
                    None if func == Func::Week => {
                        let index = crate::system::sysvars::lookup("default_week_format")
                            .ok_or_else(|| SqlError::not_supported("default_week_format"))?;
                        week_mode(&env.system_variable(VarScope::Session, index)?)?
                    }
                    None => 0,
                };
                date_format::week(&a.v[0], mode, func == Func::YearWeek)?
            }
            Func::FromDays => datetime::from_days(&a.v[0])?,
            Func::MakeDate => datetime::make_date(&a.v[0], &a.v[1])?,
            Func::FromUnixtime => {
                utc_session(env)?;
                if a.v.len() > 1 {
                    english_names(env)?;
                }
                date_format::from_unixtime(&a.v[0], a.v.get(1))?
            }
            Func::PeriodAdd => datetime::period_add(&a.v[0], &a.v[1])?,
            Func::PeriodDiff => datetime::period_diff(&a.v[0], &a.v[1])?,
            Func::TimeFormat => date_format::time_format(&a.v[0], &a.v[1], w)?,
            Func::DayName | Func::MonthName => {
                english_names(env)?;
                date_format::name_of(&a.v[0], func == Func::MonthName)?
            }
            Func::DateAdd | Func::DateSub => {
                datetime::date_add(&a.v[0], &a.v[1], &a.v[2], func == Func::DateSub, w)?
            }
            Func::ConvertTz => datetime::convert_tz(&a.v[0], &a.v[1], &a.v[2])?,
            Func::If | Func::IfNull | Func::Coalesce => Value::Null,
        })
    }
}

/// Whether `sql_mode` is strict (STRICT_TRANS_TABLES or STRICT_ALL_TABLES), where a
/// string that is not well-formed is NULL rather than cut.
fn strict_mode(sql_mode: u64) -> bool {
    use crate::system::sysvars::sql_mode::{STRICT_ALL_TABLES, STRICT_TRANS_TABLES};
    sql_mode & (STRICT_TRANS_TABLES | STRICT_ALL_TABLES) != 0
}

/// Refuses (1235) a session whose `time_zone` is not the server's (UTC) or `+00:00`: dates
/// from timestamps are built in UTC only.
fn utc_session(env: &mut dyn Env) -> Result<(), SqlError> {
    let index = crate::system::sysvars::lookup("time_zone")
        .ok_or_else(|| SqlError::not_supported("time_zone"))?;
    match env.system_variable(VarScope::Session, index)? {
        Value::Bytes(b) if b.eq_ignore_ascii_case(b"SYSTEM") || b == b"+00:00" => Ok(()),
        _ => Err(SqlError::not_supported(
            "dates from timestamps in a time zone other than UTC",
        )),
    }
}

/// A WEEK or YEARWEEK mode: an integer, NULL as 0; other values are refused with 1235.
fn week_mode(v: &Value) -> Result<i64, SqlError> {
    match v {
        Value::Null => Ok(0),
        Value::Int(n) => Ok(*n),
        Value::UInt(n) => Ok((*n & 7) as i64),
        _ => Err(SqlError::not_supported(
            "a WEEK mode that is not an integer",
        )),
    }
}

/// Refuses (1235) a session whose `lc_time_names` is not en_US: only English names of
/// days and months are built.
fn english_names(env: &mut dyn Env) -> Result<(), SqlError> {
    let index = crate::system::sysvars::lookup("lc_time_names")
        .ok_or_else(|| SqlError::not_supported("lc_time_names"))?;
    match env.system_variable(VarScope::Session, index)? {
        Value::Bytes(b) if b.eq_ignore_ascii_case(b"en_US") => Ok(()),
        _ => Err(SqlError::not_supported(
            "date and month names in a locale other than en_US",
        )),
    }
}

/// NULLIF(x, y): NULL when x equals y, else x (`args` are the two expressions, for a
/// hexadecimal literal that compares with a number as its integer).
fn null_if(
    args: &[Expr],
    x: &Value,
    y: &Value,
    collation: Collation,
    w: &mut Vec<Warning>,
) -> Value {
    let (a, b) = (
        crate::expr::hex::compared_value(&args[0], x, y),
        crate::expr::hex::compared_value(&args[1], y, x),
    );
    if compare(&a, &b, collation, w) == Some(Ordering::Equal) {
        Value::Null
    } else {
        x.clone()
    }
}

/// SLEEP(s): 0, or 1 when KILL or max_statement_time cut it short (as MariaDB).
/// A user-level lock function of `func`, its arguments `a`: the name is a string (a number
/// is error 4079), a NULL or negative timeout is NULL with warning 1411.
fn user_lock(func: Func, a: &Args, env: &mut dyn Env) -> Result<Value, SqlError> {
    let number = match a.v.first() {
        Some(Value::Int(_) | Value::UInt(_)) => Some("int"),
        Some(Value::Decimal(_)) => Some("decimal"),
        Some(Value::Double(_)) => Some("double"),
        _ => None,
    };
    if let Some(ty) = number {
        return Err(SqlError::new(
            myriad_types::errors::ER_ILLEGAL_PARAMETER_DATA_TYPE_FOR_OPERATION,
            format!(
                "Illegal parameter data type {ty} for operation '{}'",
                func_name(func)
            ),
        ));
    }
    let mut timeout = 0.0;
    if func == Func::GetLock {
        let seconds = a.v[1].to_double(env.warnings());
        timeout = seconds.filter(|t| *t >= 0.0).unwrap_or(-1.0);
        if timeout < 0.0 {
            let text = a.v[1]
                .to_text()
                .map_or("NULL".into(), |t| String::from_utf8_lossy(&t).into_owned());
            env.warnings().push(Warning {
                level: "Warning",
                code: myriad_types::errors::ER_WRONG_VALUE_FOR_TYPE.code,
                message: format!("Incorrect timeout value: '{text}' for function get_lock"),
            });
            return Ok(Value::Null);
        }
    }
    let texts: Vec<Option<String>> = (a.v.iter())
        .map(|v| {
            (!v.is_null())
                .then(|| String::from_utf8_lossy(&v.to_text().unwrap_or_default()).into_owned())
        })
        .collect();
    let name = texts.first().and_then(|t| t.as_deref());
    let call = match func {
        Func::GetLock => UserLock::Get { name, timeout },
        Func::ReleaseLock => UserLock::Release(name),
        Func::IsFreeLock => UserLock::IsFree(name),
        Func::IsUsedLock => UserLock::IsUsed(name),
        _ => UserLock::ReleaseAll,
    };
    env.user_lock(call)
}

/// A user-lock function's name, as MariaDB's errors write it.
fn func_name(func: Func) -> &'static str {
    match func {
        Func::GetLock => "get_lock",
        Func::ReleaseLock => "release_lock",
        Func::IsFreeLock => "is_free_lock",
        Func::IsUsedLock => "is_used_lock",
        _ => "release_all_locks",
    }
}

impl Expr {
    /// RAND() / RAND(N) at this call (`self`), N being `n` of value `v`; see [`rand`].
    fn rand(&self, n: Option<&Expr>, v: Option<&Value>, env: &mut dyn Env) -> f64 {
        let (Some(n), Some(v)) = (n, v) else {
            return env.rand();
        };
        let seed = rand::seed_of(v, env.warnings());
        if n.same_for_every_row() {
            env.seeded_rand(self as *const Expr as usize, seed)
        } else {
            rand::RandState::seeded(seed).next_double()
        }
    }
}

fn sleep(seconds: &Value, w: &mut Vec<Warning>) -> Value {
    match seconds.to_double(w) {
        Some(s) if s > 0.0 => Value::Int(i64::from(crate::interrupt::sleep(
            std::time::Duration::try_from_secs_f64(s.min(31_536_000.0)).unwrap_or_default(),
        ))),
        _ => Value::Int(0),
    }
}

/// `max_allowed_packet`'s default, in bytes.
pub const DEFAULT_MAX_ALLOWED_PACKET: u64 = 16 << 20;

/// Whether a function's result of `bytes` would pass `max_allowed_packet` (`limit`); if so,
/// MariaDB's warning 1301 is noted and the caller returns NULL.
pub(crate) fn over_packet(func: &str, bytes: u64, limit: u64, w: &mut Vec<Warning>) -> bool {
    if bytes <= limit {
        return false;
    }
    w.push(Warning {
        level: "Warning",
        code: ER_WARN_ALLOWED_PACKET_OVERFLOWED.code,
        message: format!(
            "Result of {func}() was larger than max_allowed_packet ({limit}) - truncated"
        ),
    });
    true
}

pub(crate) fn locate(needle: &str, hay: &str, start: i64, collation: Collation) -> i64 {
    let hay_chars: Vec<char> = hay.chars().collect();
    let needle_chars: Vec<char> = needle.chars().collect();
    if start < 1 || start as usize > hay_chars.len() + 1 {
        return 0;
    }
    let from = (start - 1) as usize;
    if needle_chars.is_empty() {
        return start;
    }
    (from..hay_chars.len())
        .find(|&i| {
            hay_chars[i..].len() >= needle_chars.len()
                && needle_chars
                    .iter()
                    .zip(&hay_chars[i..])
                    .all(|(n, h)| collation.char_eq(*n, *h))
        })
        .map(|i| i as i64 + 1)
        .unwrap_or(0)
}

pub(crate) fn to_u64_bits(d: &Value, w: &mut Vec<Warning>) -> Option<u64> {
    match d {
        Value::Null => None,
        Value::UInt(u) => Some(*u),
        Value::Int(i) => Some(*i as u64),
        other => other.to_int(w).map(|i| i as u64),
    }
}

pub(crate) fn round_type(arg: SqlType, places: Option<&Expr>) -> SqlType {
    let places = match places {
        Some(Expr::Literal(d)) => d.to_int(&mut Vec::new()).unwrap_or(0),
        Some(_) => return arg,
        None => 0,
    };
    match arg {
        SqlType::Int { .. } => arg,
        SqlType::Decimal { precision, scale } => {
            let new_scale = places.clamp(0, myriad_types::decimal::MAX_SCALE as i64) as u32;
            let int_digits = precision - scale.min(precision);
            SqlType::Decimal {
                precision: (int_digits + new_scale + 1).min(myriad_types::decimal::MAX_PRECISION),
                scale: new_scale,
            }
        }
        _ => SqlType::Double,
    }
}

pub(crate) fn round(
    v: &Value,
    places: i64,
    truncate: bool,
    w: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    Ok(match v {
        Value::Int(_) | Value::UInt(_) if places >= 0 => v.clone(),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
            let d = v.to_decimal(w).unwrap_or(Decimal::ZERO);
            // Past 200 digits either way every place count gives the same answer.
            let places = places.clamp(-200, 200) as i32;
            let r = if truncate {
                d.truncate_dp(places)
            } else {
                d.round_dp(places)
            };
            let name = if truncate { "truncate" } else { "round" };
            let r = r.map_err(|_| eval::err_decimal_out_of_range(&format!("{name}(...)")))?;
            match v {
                Value::Int(_) => r.to_i64().map(Value::Int).unwrap_or(Value::Decimal(r)),
                Value::UInt(_) => r.to_u64().map(Value::UInt).unwrap_or(Value::Decimal(r)),
                _ => Value::Decimal(r),
            }
        }
        other => {
            let f = other.to_double(w).unwrap_or(0.0);
            let factor = 10f64.powi(places.clamp(-308, 308) as i32);
            let scaled = f * factor;
            let r = if truncate {
                scaled.trunc()
            } else {
                // rint(): halfway cases go to the even neighbour, as in MariaDB.
                scaled.round_ties_even()
            };
            Value::Double(if factor.is_finite() && factor != 0.0 {
                r / factor
            } else {
                f
            })
        }
    })
}
