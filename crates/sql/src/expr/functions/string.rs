//! String functions: each reads a call's [`Args`] and builds its result, moving bytes
//! unchanged when an argument is a binary string.

use super::{locate, over_packet, Args};
use crate::error::SqlError;
use crate::expr::eval::{compare, SqlValue, Warning};
use crate::value::Value;
use myriad_types::Collation;
use std::cmp::Ordering;

/// CONCAT: NULL if any argument is; NULL and warning 1301 past `max_allowed_packet`.
pub(super) fn concat(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let parts: Vec<Vec<u8>> = a.v.iter().filter_map(Value::to_text).collect();
    let bytes = parts.iter().map(|p| p.len() as u64).sum();
    if over_packet("concat", bytes, a.limit, w) {
        return Value::Null;
    }
    Value::Bytes(parts.concat())
}

/// CONCAT_WS: NULL only for a NULL separator; NULL arguments are skipped.
pub(super) fn concat_ws(a: &Args, w: &mut Vec<Warning>) -> Value {
    let v = &a.v;
    let Some(sep) = v[0].to_text() else {
        return Value::Null;
    };
    let parts: Vec<Vec<u8>> = v[1..].iter().filter_map(Value::to_text).collect();
    let bytes = parts.iter().map(|p| p.len() as u64).sum::<u64>()
        + (sep.len() as u64).saturating_mul(parts.len().saturating_sub(1) as u64);
    if over_packet("concat_ws", bytes, a.limit, w) {
        return Value::Null;
    }
    Value::Bytes(parts.join(&sep[..]))
}

/// SUBSTRING(str, pos[, len]), in chars; a negative `pos` counts from the end.
pub(super) fn substring(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let v = &a.v;
    let s: Vec<char> = a.text(0).chars().collect();
    let pos = a.int(1, w);
    let len = if v.len() > 2 { a.int(2, w) } else { i64::MAX };
    let n = s.len() as i64;
    let start = if pos > 0 {
        pos - 1
    } else if pos < 0 {
        n + pos
    } else {
        n
    };
    if start < 0 || start >= n || len <= 0 {
        return Value::text("");
    }
    let end = start.saturating_add(len).min(n);
    Value::Bytes(a.out(s[start as usize..end as usize].iter().collect()))
}

/// UPPER (`upper`) or LOWER. A binary string has no letter case: it is left as it is.
pub(super) fn case(a: &Args, upper: bool) -> Value {
    a.null_if_any(|| {
        // A binary string has no case: UPPER and LOWER give its bytes unchanged.
        if a.binary || a.collation == Collation::Binary {
            Value::Bytes(a.v[0].to_text().unwrap_or_default())
        } else if upper {
            Value::Bytes(a.text(0).to_uppercase().into_bytes())
        } else {
            Value::Bytes(a.text(0).to_lowercase().into_bytes())
        }
    })
}

/// TRIM, LTRIM or RTRIM of spaces: `trim` cuts the ends the function cuts.
pub(super) fn trim(a: &Args, trim: fn(&str) -> &str) -> Value {
    a.null_if_any(|| Value::Bytes(a.out(trim(&a.text(0)).to_string())))
}

/// REPLACE(str, from, to); an empty `from` leaves `str` as it is.
pub(super) fn replace(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let (s, from, to) = (a.text(0), a.text(1), a.text(2));
    if from.is_empty() {
        return Value::Bytes(a.out(s));
    }
    let found = s.matches(from.as_str()).count() as u64;
    let bytes = (s.len() as u64 - found * from.len() as u64)
        .saturating_add(found.saturating_mul(to.len() as u64));
    if over_packet("replace", bytes, a.limit, w) {
        return Value::Null;
    }
    Value::Bytes(a.out(s.replace(&from, &to)))
}

/// LEFT (`left`) or RIGHT(str, n), in chars.
pub(super) fn left_right(a: &Args, left: bool, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let s: Vec<char> = a.text(0).chars().collect();
    let n = a.int(1, w).clamp(0, s.len() as i64) as usize;
    let part: String = if left {
        s[..n].iter().collect()
    } else {
        s[s.len() - n..].iter().collect()
    };
    Value::Bytes(a.out(part))
}

/// LPAD (`left`) or RPAD(str, len[, pad]): cut to `len` chars or filled with `pad` (a
/// space by default) to it.
pub(super) fn pad(a: &Args, left: bool, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let s: Vec<char> = a.text(0).chars().collect();
    let len = a.int(1, w);
    let pad: Vec<char> = if a.v.len() > 2 {
        a.text(2).chars().collect()
    } else {
        vec![' ']
    };
    if len < 0 {
        return Value::Null;
    }
    let name = if left { "lpad" } else { "rpad" };
    let widest = pad
        .iter()
        .chain(&s)
        .map(|c| c.len_utf8())
        .max()
        .unwrap_or(1);
    if over_packet(name, (len as u64).saturating_mul(widest as u64), a.limit, w) {
        return Value::Null;
    }
    let len = len as usize;
    if len <= s.len() {
        return Value::Bytes(a.out(s[..len].iter().collect()));
    }
    if pad.is_empty() {
        return Value::Null;
    }
    let fill: String = pad.iter().cycle().take(len - s.len()).collect();
    let body: String = s.iter().collect();
    Value::Bytes(a.out(if left { fill + &body } else { body + &fill }))
}

/// REPEAT(str, n).
pub(super) fn repeat(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let s = a.text(0);
    let n = a.int(1, w);
    if n <= 0 {
        return Value::text("");
    }
    if over_packet(
        "repeat",
        (s.len() as u64).saturating_mul(n as u64),
        a.limit,
        w,
    ) {
        return Value::Null;
    }
    Value::Bytes(a.out(s.repeat(n as usize)))
}

/// LOCATE(substr, str[, pos]), or INSTR(str, substr) when `instr`.
pub(super) fn locate_in(a: &Args, instr: bool, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let (needle, hay) = if instr {
        (a.text(1), a.text(0))
    } else {
        (a.text(0), a.text(1))
    };
    let start = if a.v.len() > 2 { a.int(2, w) } else { 1 };
    // A binary string is searched byte by byte (its text is its bytes as chars).
    Value::Int(locate(&needle, &hay, start, a.collation))
}

/// SPACE(n).
pub(super) fn space(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let n = a.int(0, w);
    if over_packet("space", n.max(0) as u64, a.limit, w) {
        return Value::Null;
    }
    Value::Bytes(" ".repeat(n.max(0) as usize).into_bytes())
}

/// HEX: a string's bytes, or a number's two's-complement bits, in upper-case hex.
pub(super) fn hex(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    match &a.v[0] {
        // Each byte becomes two digits: nested HEX doubles at every level.
        Value::Bytes(b) if over_packet("hex", 2 * b.len() as u64, a.limit, w) => Value::Null,
        Value::Bytes(b) => Value::Bytes(
            b.iter()
                .map(|x| format!("{x:02X}"))
                .collect::<String>()
                .into_bytes(),
        ),
        // A fraction rounds half away from zero through a double; past the 64-bit
        // range either way every bit is set (MariaDB's rule).
        Value::Decimal(_) | Value::Double(_) => {
            let f = a.v[0].to_double(w).unwrap_or(0.0);
            let n = if f <= i64::MIN as f64 || f >= u64::MAX as f64 {
                u64::MAX
            } else if f < 0.0 {
                (f - 0.5) as i64 as u64
            } else {
                (f + 0.5) as u64
            };
            Value::Bytes(format!("{n:X}").into_bytes())
        }
        other => {
            let n = other.to_int(w).unwrap_or(0);
            Value::Bytes(format!("{:X}", n as u64).into_bytes())
        }
    }
}

/// STRCMP: -1, 0 or 1 under the collation.
pub(super) fn strcmp(a: &Args) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let o = a.collation.compare(
        &a.v[0].to_text().unwrap_or_default(),
        &a.v[1].to_text().unwrap_or_default(),
    );
    Value::Int(match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })
}

/// FIELD(x, a, b, ...): the 1-based place of the first equal to `x`, else 0.
pub(super) fn field(a: &Args, w: &mut Vec<Warning>) -> Value {
    let v = &a.v;
    if v[0].is_null() {
        return Value::Int(0);
    }
    let mut pos = 0;
    for (i, x) in v[1..].iter().enumerate() {
        if compare(&v[0], x, a.collation, w) == Some(Ordering::Equal) {
            pos = i as i64 + 1;
            break;
        }
    }
    Value::Int(pos)
}

/// INSERT(str, pos, len, new): `len` chars from `pos` replaced by `new`.
pub(super) fn insert(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let s: Vec<char> = a.text(0).chars().collect();
    let pos = a.int(1, w);
    let len = a.int(2, w);
    let new = a.text(3);
    let n = s.len() as i64;
    if pos < 1 || pos > n {
        return Value::Bytes(a.out(s.iter().collect()));
    }
    let bytes = s.iter().map(|c| c.len_utf8() as u64).sum::<u64>() + new.len() as u64;
    if over_packet("insert", bytes, a.limit, w) {
        return Value::Null;
    }
    let start = (pos - 1) as usize;
    let end = if len < 0 {
        n
    } else {
        (pos - 1).saturating_add(len).min(n)
    } as usize;
    let joined: String =
        s[..start].iter().collect::<String>() + &new + &s[end..].iter().collect::<String>();
    Value::Bytes(a.out(joined))
}

/// SUBSTRING_INDEX(s, delim, count): s up to the count-th delim from the left (count > 0)
/// or after the count-th from the right (count < 0); the delimiter matches byte for byte,
/// whatever the collation, as in MariaDB.
pub(super) fn substring_index(a: &Args, w: &mut Vec<Warning>) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let s = a.text(0);
    let delim = a.text(1);
    // MariaDB reads the count as a 32-bit integer, cut from 64 bits (an unsigned value
    // wraps: 18446744073709551614 is -2).
    let count = i64::from(a.v[2].to_int(w).unwrap_or(0) as i32);
    if delim.is_empty() || count == 0 {
        return Value::text("");
    }
    let cut = if count > 0 {
        s.match_indices(delim.as_str())
            .nth(usize::try_from(count - 1).unwrap_or(usize::MAX))
            .map(|(i, _)| s[..i].to_string())
    } else if a.binary {
        // Bytes: the delimiters are found from the right.
        s.rmatch_indices(delim.as_str())
            .nth(usize::try_from(-(count + 1)).unwrap_or(usize::MAX))
            .map(|(i, _)| s[i + delim.len()..].to_string())
    } else {
        // Text: MariaDB finds the delimiters from the left and counts back from the
        // last, so overlapping ones ('aa' in 'aaa') are the left-to-right ones.
        let found: Vec<usize> = s.match_indices(delim.as_str()).map(|(i, _)| i).collect();
        usize::try_from(found.len() as i64 + count)
            .ok()
            .map(|k| s[found[k] + delim.len()..].to_string())
    };
    Value::Bytes(a.out(cut.unwrap_or(s)))
}

/// FIND_IN_SET(s, list): the 1-based position of s among the comma-separated items of list
/// (compared under the call's collation), 0 when absent or when s holds a comma.
pub(super) fn find_in_set(a: &Args) -> Value {
    if a.any_null {
        return Value::Null;
    }
    let needle = a.text(0);
    if needle.contains(',') {
        return Value::Int(0);
    }
    let list = a.text(1);
    if list.is_empty() {
        return Value::Int(0);
    }
    let position = list
        .split(',')
        .position(|item| a.collation.eq(item.as_bytes(), needle.as_bytes()))
        .map_or(0, |p| p as i64 + 1);
    Value::Int(position)
}

/// The most bytes RANDOM_BYTES gives (MariaDB's bound).
pub(crate) const RANDOM_BYTES_MAX: i64 = 1024;

/// RANDOM_BYTES(n): n bytes from the system's random generator, for n from 0 to 1024;
/// NULL for any other n.
pub(super) fn random_bytes(a: &Args, w: &mut Vec<Warning>) -> Result<Value, SqlError> {
    use std::io::Read;
    if a.any_null {
        return Ok(Value::Null);
    }
    let n = a.int(0, w);
    if !(0..=RANDOM_BYTES_MAX).contains(&n) {
        return Ok(Value::Null);
    }
    let mut out = vec![0u8; n as usize];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut out))
        .map_err(|e| {
            SqlError::not_supported(&format!("RANDOM_BYTES without /dev/urandom ({e})"))
        })?;
    Ok(Value::Bytes(out))
}
