//! Regular expressions: `x REGEXP p` / `RLIKE`, REGEXP_INSTR, REGEXP_SUBSTR and
//! REGEXP_REPLACE.
//!
//! Patterns are the `regex` crate's, which reads the common PCRE syntax MariaDB's patterns
//! use (classes, `[[:alpha:]]`, anchors, groups, repetition, `(?i)`) in time linear in the
//! subject, so no pattern can hold a statement. What it does not read (backreferences such
//! as `\1`, look-around, possessive quantifiers) is error 1139, as an invalid pattern is.
//! A match ignores case when the call's collation does (`_ci`); a binary string matches
//! byte by byte, case counting. `$` matches at the very end only (PCRE also matches before
//! a final newline). REGEXP_REPLACE reads `\N` in the replacement as group N, as MariaDB
//! does. Compiled patterns are kept per thread, a few dozen of them.

use super::Args;
use crate::error::SqlError;
use crate::value::Value;
use myriad_types::errors::ER_REGEXP_ERROR;
use regex::Regex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// Compiled patterns kept per thread.
const CACHED: usize = 64;

/// Longest compiled program, in bytes: bigger patterns are error 1139.
const SIZE_LIMIT: usize = 4 << 20;

thread_local! {
    static PATTERNS: RefCell<HashMap<(String, bool), Arc<Regex>>> = RefCell::new(HashMap::new());
}

/// The pattern of argument 1, compiled for the call's collation.
fn pattern(a: &Args) -> Result<Arc<Regex>, SqlError> {
    let text = a.text(1);
    let fold = !a.binary && a.collation.name().ends_with("_ci");
    let key = (text, fold);
    if let Some(hit) = PATTERNS.with(|p| p.borrow().get(&key).cloned()) {
        return Ok(hit);
    }
    let compiled = regex::RegexBuilder::new(&key.0)
        .case_insensitive(fold)
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| {
            let reason = match e {
                regex::Error::Syntax(s) => s.lines().last().unwrap_or_default().to_string(),
                other => other.to_string(),
            };
            SqlError::new(
                ER_REGEXP_ERROR,
                format!(
                    "Got error '{}' from regexp",
                    reason.trim_start_matches("error: ")
                ),
            )
        })?;
    let compiled = Arc::new(compiled);
    PATTERNS.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() >= CACHED {
            p.clear();
        }
        p.insert(key, Arc::clone(&compiled));
    });
    Ok(compiled)
}

/// `x REGEXP p`: 1 when p matches somewhere in x.
pub(super) fn like(a: &Args) -> Result<Value, SqlError> {
    if a.any_null {
        return Ok(Value::Null);
    }
    Ok(Value::Int(i64::from(pattern(a)?.is_match(&a.text(0)))))
}

/// REGEXP_INSTR(x, p): the character position of p's first match in x, 0 for none.
pub(super) fn instr(a: &Args) -> Result<Value, SqlError> {
    if a.any_null {
        return Ok(Value::Null);
    }
    let subject = a.text(0);
    Ok(Value::Int(match pattern(a)?.find(&subject) {
        Some(m) => subject[..m.start()].chars().count() as i64 + 1,
        None => 0,
    }))
}

/// REGEXP_SUBSTR(x, p): p's first match in x, empty for none.
pub(super) fn substr(a: &Args) -> Result<Value, SqlError> {
    if a.any_null {
        return Ok(Value::Null);
    }
    let subject = a.text(0);
    let found = pattern(a)?.find(&subject).map(|m| m.as_str().to_string());
    Ok(Value::Bytes(a.out(found.unwrap_or_default())))
}

/// REGEXP_REPLACE(x, p, r): every match of p in x replaced by r (`\N`: group N).
pub(super) fn replace(a: &Args) -> Result<Value, SqlError> {
    if a.any_null {
        return Ok(Value::Null);
    }
    let subject = a.text(0);
    let with = replacement(&a.text(2));
    let replaced = pattern(a)?
        .replace_all(&subject, with.as_str())
        .into_owned();
    Ok(Value::Bytes(a.out(replaced)))
}

/// MariaDB's replacement text in the `regex` crate's form: `\N` is group N (`${N}`), `\c`
/// is c, and `$` is itself.
fn replacement(r: &str) -> String {
    let mut out = String::with_capacity(r.len());
    let mut chars = r.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(d) if d.is_ascii_digit() => {
                    out.push_str("${");
                    out.push(d);
                    out.push('}');
                }
                Some('$') => out.push_str("$$"),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            '$' => out.push_str("$$"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacements_read_backslash_groups() {
        assert_eq!(replacement(r"<\2\1>"), "<${2}${1}>");
        assert_eq!(replacement("$1"), "$$1");
        assert_eq!(replacement(r"a\\b\"), r"a\b\");
    }
}
