//! Built-in functions.

use crate::error::{SqlError, ER_WARN_ALLOWED_PACKET_OVERFLOWED};
use crate::expr::datetime::*;
use crate::expr::eval::arith;
use crate::expr::eval::compare;
use crate::expr::eval::ArithOp;
use crate::expr::eval::Datum;
use crate::expr::eval::SqlType;
use crate::expr::eval::Warning;
use crate::expr::text::*;
use crate::expr::*;
use myriad_types::decimal::Decimal;
use myriad_types::errors::{ER_DATA_OUT_OF_RANGE, ER_INVALID_ARGUMENT_FOR_LOGARITHM};
use std::cmp::Ordering;

impl Expr {
    pub(crate) fn call(
        &self,
        func: Func,
        args: &[Expr],
        env: &mut dyn Env,
        row: &[Datum],
    ) -> Result<Datum, SqlError> {
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
                return Ok(Datum::Null);
            }
            _ => {}
        }
        let mut v: Vec<Datum> = Vec::with_capacity(args.len());
        for a in args {
            v.push(a.eval(env, row)?);
        }
        let any_null = v.iter().any(Datum::is_null);
        let limit = env.max_allowed_packet();
        let w = env.warnings();
        // Arguments that are not UTF-8 are binary strings: then every argument's bytes are
        // read as the chars U+0000..U+00FF and results are written back as the same bytes,
        // so string functions move bytes and never produce U+FFFD.
        let binary = v
            .iter()
            .any(|d| matches!(d, Datum::Str(s) if std::str::from_utf8(s).is_err()));
        let text = |d: &Datum| {
            if binary {
                bytes_as_chars(&d.to_text().unwrap_or_default())
            } else {
                text_of(d).unwrap_or_default()
            }
        };
        let out = |s: String| -> Vec<u8> {
            if binary {
                chars_as_bytes(&s)
            } else {
                s.into_bytes()
            }
        };
        let int = |d: &Datum, w: &mut Vec<Warning>| d.to_int(w).unwrap_or(0);
        let null_if_any = |f: &dyn Fn() -> Datum| if any_null { Datum::Null } else { f() };
        Ok(match func {
            Func::Concat => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let parts: Vec<Vec<u8>> = v.iter().filter_map(Datum::to_text).collect();
                let bytes = parts.iter().map(|p| p.len() as u64).sum();
                if over_packet("concat", bytes, limit, w) {
                    return Ok(Datum::Null);
                }
                Datum::Str(parts.concat())
            }
            Func::ConcatWs => {
                let Some(sep) = v[0].to_text() else {
                    return Ok(Datum::Null);
                };
                let parts: Vec<Vec<u8>> = v[1..].iter().filter_map(Datum::to_text).collect();
                let bytes = parts.iter().map(|p| p.len() as u64).sum::<u64>()
                    + (sep.len() as u64).saturating_mul(parts.len().saturating_sub(1) as u64);
                if over_packet("concat_ws", bytes, limit, w) {
                    return Ok(Datum::Null);
                }
                Datum::Str(parts.join(&sep[..]))
            }
            Func::Length => {
                null_if_any(&|| Datum::Int(v[0].to_text().map(|b| b.len()).unwrap_or(0) as i64))
            }
            Func::CharLength => null_if_any(&|| Datum::Int(text(&v[0]).chars().count() as i64)),
            Func::Substring => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s: Vec<char> = text(&v[0]).chars().collect();
                let pos = int(&v[1], w);
                let len = if v.len() > 2 { int(&v[2], w) } else { i64::MAX };
                let n = s.len() as i64;
                let start = if pos > 0 {
                    pos - 1
                } else if pos < 0 {
                    n + pos
                } else {
                    n
                };
                if start < 0 || start >= n || len <= 0 {
                    return Ok(Datum::text(""));
                }
                let end = start.saturating_add(len).min(n);
                Datum::Str(out(s[start as usize..end as usize].iter().collect()))
            }
            // A binary string has no letter case: UPPER and LOWER leave it as it is.
            Func::Upper | Func::Lower if binary => {
                null_if_any(&|| Datum::Str(v[0].to_text().unwrap_or_default()))
            }
            Func::Upper => null_if_any(&|| Datum::Str(text(&v[0]).to_uppercase().into_bytes())),
            Func::Lower => null_if_any(&|| Datum::Str(text(&v[0]).to_lowercase().into_bytes())),
            Func::Trim => {
                null_if_any(&|| Datum::Str(out(text(&v[0]).trim_matches(' ').to_string())))
            }
            Func::LTrim => {
                null_if_any(&|| Datum::Str(out(text(&v[0]).trim_start_matches(' ').to_string())))
            }
            Func::RTrim => {
                null_if_any(&|| Datum::Str(out(text(&v[0]).trim_end_matches(' ').to_string())))
            }
            Func::Replace => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let (s, from, to) = (text(&v[0]), text(&v[1]), text(&v[2]));
                if from.is_empty() {
                    return Ok(Datum::Str(out(s)));
                }
                let found = s.matches(from.as_str()).count() as u64;
                let bytes = (s.len() as u64 - found * from.len() as u64)
                    .saturating_add(found.saturating_mul(to.len() as u64));
                if over_packet("replace", bytes, limit, w) {
                    return Ok(Datum::Null);
                }
                Datum::Str(out(s.replace(&from, &to)))
            }
            Func::Left | Func::Right => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s: Vec<char> = text(&v[0]).chars().collect();
                let n = int(&v[1], w).clamp(0, s.len() as i64) as usize;
                let part: String = if func == Func::Left {
                    s[..n].iter().collect()
                } else {
                    s[s.len() - n..].iter().collect()
                };
                Datum::Str(out(part))
            }
            Func::LPad | Func::RPad => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s: Vec<char> = text(&v[0]).chars().collect();
                let len = int(&v[1], w);
                let pad: Vec<char> = text(&v[2]).chars().collect();
                if len < 0 {
                    return Ok(Datum::Null);
                }
                let name = if func == Func::LPad { "lpad" } else { "rpad" };
                let widest = pad
                    .iter()
                    .chain(&s)
                    .map(|c| c.len_utf8())
                    .max()
                    .unwrap_or(1);
                if over_packet(name, (len as u64).saturating_mul(widest as u64), limit, w) {
                    return Ok(Datum::Null);
                }
                let len = len as usize;
                if len <= s.len() {
                    return Ok(Datum::Str(out(s[..len].iter().collect())));
                }
                if pad.is_empty() {
                    return Ok(Datum::Null);
                }
                let fill: String = pad.iter().cycle().take(len - s.len()).collect();
                let body: String = s.iter().collect();
                Datum::Str(out(if func == Func::LPad {
                    fill + &body
                } else {
                    body + &fill
                }))
            }
            Func::Repeat => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s = text(&v[0]);
                let n = int(&v[1], w);
                if n <= 0 {
                    return Ok(Datum::text(""));
                }
                if over_packet(
                    "repeat",
                    (s.len() as u64).saturating_mul(n as u64),
                    limit,
                    w,
                ) {
                    return Ok(Datum::Null);
                }
                Datum::Str(out(s.repeat(n as usize)))
            }
            Func::Reverse => null_if_any(&|| Datum::Str(out(text(&v[0]).chars().rev().collect()))),
            Func::Locate | Func::Instr => {
                if any_null {
                    return Ok(Datum::Null);
                }
                // LOCATE(substr, str[, pos]); INSTR(str, substr).
                let (needle, hay) = if func == Func::Instr {
                    (text(&v[1]), text(&v[0]))
                } else {
                    (text(&v[0]), text(&v[1]))
                };
                let start = if v.len() > 2 { int(&v[2], w) } else { 1 };
                Datum::Int(locate(&needle, &hay, start))
            }
            Func::Space => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let n = int(&v[0], w);
                if over_packet("space", n.max(0) as u64, limit, w) {
                    return Ok(Datum::Null);
                }
                Datum::Str(" ".repeat(n.max(0) as usize).into_bytes())
            }
            Func::Ascii => null_if_any(&|| {
                Datum::Int(v[0].to_text().and_then(|b| b.first().copied()).unwrap_or(0) as i64)
            }),
            Func::Hex => {
                if any_null {
                    return Ok(Datum::Null);
                }
                match &v[0] {
                    Datum::Str(b) => Datum::Str(
                        b.iter()
                            .map(|x| format!("{x:02X}"))
                            .collect::<String>()
                            .into_bytes(),
                    ),
                    other => {
                        let n = other.to_int(w).unwrap_or(0);
                        Datum::Str(format!("{:X}", n as u64).into_bytes())
                    }
                }
            }
            Func::Strcmp => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let o = crate::expr::eval::collate_cmp(
                    &v[0].to_text().unwrap_or_default(),
                    &v[1].to_text().unwrap_or_default(),
                );
                Datum::Int(match o {
                    Ordering::Less => -1,
                    Ordering::Equal => 0,
                    Ordering::Greater => 1,
                })
            }
            Func::Field => {
                if v[0].is_null() {
                    return Ok(Datum::Int(0));
                }
                let mut pos = 0;
                for (i, x) in v[1..].iter().enumerate() {
                    if compare(&v[0], x, w) == Some(Ordering::Equal) {
                        pos = i as i64 + 1;
                        break;
                    }
                }
                Datum::Int(pos)
            }
            Func::Insert => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let s: Vec<char> = text(&v[0]).chars().collect();
                let pos = int(&v[1], w);
                let len = int(&v[2], w);
                let new = text(&v[3]);
                let n = s.len() as i64;
                if pos < 1 || pos > n {
                    return Ok(Datum::Str(out(s.iter().collect())));
                }
                let bytes = s.iter().map(|c| c.len_utf8() as u64).sum::<u64>() + new.len() as u64;
                if over_packet("insert", bytes, limit, w) {
                    return Ok(Datum::Null);
                }
                let start = (pos - 1) as usize;
                let end = if len < 0 {
                    n
                } else {
                    (pos - 1).saturating_add(len).min(n)
                } as usize;
                let joined: String = s[..start].iter().collect::<String>()
                    + &new
                    + &s[end..].iter().collect::<String>();
                Datum::Str(out(joined))
            }
            Func::Abs => match &v[0] {
                Datum::Null => Datum::Null,
                Datum::Int(i) => Datum::Int(
                    i.checked_abs()
                        .ok_or_else(|| crate::expr::eval::err_out_of_range(false, "abs(...)"))?,
                ),
                Datum::UInt(u) => Datum::UInt(*u),
                Datum::Dec(d) => Datum::Dec(d.abs()),
                other => Datum::Double(other.to_double(w).unwrap_or(0.0).abs()),
            },
            Func::Round | Func::Truncate => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let places = if v.len() > 1 { int(&v[1], w) } else { 0 };
                round(&v[0], places, func == Func::Truncate, w)?
            }
            Func::Floor | Func::Ceil => match &v[0] {
                Datum::Null => Datum::Null,
                Datum::Int(_) | Datum::UInt(_) => v[0].clone(),
                Datum::Dec(d) => {
                    let r = if func == Func::Floor {
                        d.floor()
                    } else {
                        d.ceil()
                    };
                    let r = r.map_err(|_| eval::err_decimal_out_of_range("floor(...)"))?;
                    r.to_i64().map(Datum::Int).unwrap_or(Datum::Dec(r))
                }
                other => {
                    let f = other.to_double(w).unwrap_or(0.0);
                    Datum::Double(if func == Func::Floor {
                        f.floor()
                    } else {
                        f.ceil()
                    })
                }
            },
            Func::Mod => arith(ArithOp::Mod, &v[0], &v[1], 0, &|| "MOD(...)".to_string(), w)?,
            Func::Greatest | Func::Least => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let mut best = v[0].clone();
                for x in &v[1..] {
                    let o = compare(x, &best, w).unwrap_or(Ordering::Equal);
                    if (func == Func::Greatest && o == Ordering::Greater)
                        || (func == Func::Least && o == Ordering::Less)
                    {
                        best = x.clone();
                    }
                }
                best
            }
            Func::Pow => {
                if any_null {
                    return Ok(Datum::Null);
                }
                let r = v[0]
                    .to_double(w)
                    .unwrap_or(0.0)
                    .powf(v[1].to_double(w).unwrap_or(0.0));
                if !r.is_finite() {
                    return Err(SqlError::new(
                        ER_DATA_OUT_OF_RANGE,
                        "DOUBLE value is out of range in 'pow(...)'",
                    ));
                }
                Datum::Double(r)
            }
            Func::Sqrt => match v[0].to_double(w) {
                Some(f) if f >= 0.0 => Datum::Double(f.sqrt()),
                _ => Datum::Null,
            },
            Func::Exp => match v[0].to_double(w) {
                Some(f) => Datum::Double(f.exp()),
                None => Datum::Null,
            },
            Func::Ln | Func::Log10 | Func::Log2 => match v[0].to_double(w) {
                Some(f) if f > 0.0 => Datum::Double(match func {
                    Func::Ln => f.ln(),
                    Func::Log10 => f.log10(),
                    _ => f.log2(),
                }),
                Some(_) => {
                    w.push(Warning {
                        level: "Warning",
                        code: ER_INVALID_ARGUMENT_FOR_LOGARITHM.code,
                        message: "Invalid argument for logarithm".into(),
                    });
                    Datum::Null
                }
                None => Datum::Null,
            },
            Func::Sign => match v[0].to_double(w) {
                None => Datum::Null,
                Some(f) => Datum::Int(if f > 0.0 {
                    1
                } else if f < 0.0 {
                    -1
                } else {
                    0
                }),
            },
            Func::Pi => Datum::Double(std::f64::consts::PI),
            Func::NullIf => {
                if compare(&v[0], &v[1], w) == Some(Ordering::Equal) {
                    Datum::Null
                } else {
                    v[0].clone()
                }
            }
            Func::IsNull => Datum::Int(i64::from(v[0].is_null())),
            Func::Version => Datum::text(crate::SERVER_VERSION),
            Func::Database => env
                .database()
                .map(|d| Datum::Str(d.into_bytes()))
                .unwrap_or(Datum::Null),
            Func::User => Datum::Str(env.user().into_bytes()),
            Func::CurrentUser => Datum::Str(env.current_user().into_bytes()),
            Func::ConnectionId => Datum::UInt(env.connection_id() as u64),
            Func::LastInsertId => Datum::UInt(env.last_insert_id()),
            // 0, or 1 when KILL or max_statement_time cut it short (as MariaDB).
            Func::Sleep => match v[0].to_double(env.warnings()) {
                Some(s) if s > 0.0 => Datum::Int(i64::from(crate::interrupt::sleep(
                    std::time::Duration::try_from_secs_f64(s.min(31_536_000.0)).unwrap_or_default(),
                ))),
                _ => Datum::Int(0),
            },
            Func::Now => datetime_from_micros(env.now_micros(), false),
            Func::CurDate => match datetime_from_micros(env.now_micros(), false) {
                Datum::DateTime(dt) => Datum::Date(dt.date()),
                other => other,
            },
            Func::UnixTimestamp => Datum::Int(env.now_micros().div_euclid(1_000_000)),
            Func::If | Func::IfNull | Func::Coalesce => Datum::Null,
        })
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

pub(crate) fn locate(needle: &str, hay: &str, start: i64) -> i64 {
    let hay_chars: Vec<char> = hay.chars().collect();
    let needle_chars: Vec<char> = needle.chars().collect();
    if start < 1 || start as usize > hay_chars.len() + 1 {
        return 0;
    }
    let from = (start - 1) as usize;
    if needle_chars.is_empty() {
        return start;
    }
    let folded = |c: &char| crate::expr::eval::fold_char(*c);
    let needle_f: Vec<char> = needle_chars.iter().map(folded).collect();
    let hay_f: Vec<char> = hay_chars.iter().map(folded).collect();
    (from..hay_f.len())
        .find(|&i| hay_f[i..].starts_with(&needle_f))
        .map(|i| i as i64 + 1)
        .unwrap_or(0)
}

pub(crate) fn to_u64_bits(d: &Datum, w: &mut Vec<Warning>) -> Option<u64> {
    match d {
        Datum::Null => None,
        Datum::UInt(u) => Some(*u),
        Datum::Int(i) => Some(*i as u64),
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
    v: &Datum,
    places: i64,
    truncate: bool,
    w: &mut Vec<Warning>,
) -> Result<Datum, SqlError> {
    Ok(match v {
        Datum::Int(_) | Datum::UInt(_) if places >= 0 => v.clone(),
        Datum::Int(_) | Datum::UInt(_) | Datum::Dec(_) => {
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
                Datum::Int(_) => r.to_i64().map(Datum::Int).unwrap_or(Datum::Dec(r)),
                Datum::UInt(_) => r.to_u64().map(Datum::UInt).unwrap_or(Datum::Dec(r)),
                _ => Datum::Dec(r),
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
            Datum::Double(if factor.is_finite() && factor != 0.0 {
                r / factor
            } else {
                f
            })
        }
    })
}
