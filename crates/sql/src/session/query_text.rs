//! The scan of a statement's text that decides, without parsing, whether the query
//! cache may serve or store it.

/// What one pass over a statement's text found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Scan {
    /// The first word is SELECT.
    pub select: bool,
    pub sql_cache: bool,
    pub sql_no_cache: bool,
    /// A reason the statement is never cached, found in the text.
    pub refused: bool,
    pub has_comments: bool,
    /// Hash of the statement's shape: words (case-folded) and punctuation, literals left out.
    pub template: u64,
}

/// Scan a statement's text once (see the module docs). Never allocates.
pub fn scan(sql: &[u8]) -> Scan {
    const K: u64 = 0x100_0000_01B3;
    let mut out = Scan {
        template: 0xCBF2_9CE4_8422_2325,
        ..Scan::default()
    };
    let mix = |h: &mut u64, b: u8| *h = (*h ^ u64::from(b)).wrapping_mul(K);
    let mut i = 0;
    let mut first_word = true;
    let mut ended = false;
    while i < sql.len() {
        let b = sql[i];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'#' => {
                out.has_comments = true;
                while i < sql.len() && sql[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if sql.get(i + 1) == Some(&b'-')
                && sql.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                out.has_comments = true;
                while i < sql.len() && sql[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => {
                out.has_comments = true;
                if sql.get(i + 2) == Some(&b'!') || sql.get(i + 2) == Some(&b'M') {
                    // An executable comment is code for some servers: not cached.
                    out.refused = true;
                }
                i += 2;
                while i < sql.len() && !(sql[i] == b'*' && sql.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'\'' | b'"' => {
                if ended {
                    out.refused = true;
                }
                i += 1;
                while i < sql.len() {
                    if sql[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if sql[i] == b {
                        if sql.get(i + 1) == Some(&b) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
                mix(&mut out.template, b'?');
            }
            b'`' => {
                let start = i + 1;
                i += 1;
                while i < sql.len() && sql[i] != b'`' {
                    i += 1;
                }
                word(
                    &mut out,
                    &sql[start..i.min(sql.len())],
                    &mut first_word,
                    ended,
                );
                i += 1;
            }
            b'0'..=b'9' => {
                if ended {
                    out.refused = true;
                }
                while i < sql.len() && (sql[i].is_ascii_alphanumeric() || sql[i] == b'.') {
                    i += 1;
                }
                mix(&mut out.template, b'?');
            }
            b'@' => {
                out.refused = true;
                i += 1;
            }
            b';' => {
                ended = true;
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 => {
                let start = i;
                while i < sql.len()
                    && (sql[i].is_ascii_alphanumeric()
                        || sql[i] == b'_'
                        || sql[i] == b'$'
                        || sql[i] >= 0x80)
                {
                    i += 1;
                }
                word(&mut out, &sql[start..i], &mut first_word, ended);
            }
            other => {
                if ended {
                    out.refused = true;
                }
                mix(&mut out.template, other);
                i += 1;
            }
        }
    }
    out
}

pub(crate) fn word(out: &mut Scan, w: &[u8], first_word: &mut bool, ended: bool) {
    if ended {
        out.refused = true; // a second statement
    }
    for &b in w {
        out.template =
            (out.template ^ u64::from(b.to_ascii_uppercase())).wrapping_mul(0x100_0000_01B3);
    }
    out.template = (out.template ^ u64::from(b' ')).wrapping_mul(0x100_0000_01B3);
    if *first_word {
        *first_word = false;
        out.select = w.eq_ignore_ascii_case(b"SELECT");
        return;
    }
    if w.eq_ignore_ascii_case(b"SQL_CACHE") {
        out.sql_cache = true;
    } else if w.eq_ignore_ascii_case(b"SQL_NO_CACHE") {
        out.sql_no_cache = true;
    } else if w.len() >= 3
        && w.len() <= 18
        && REFUSED_WORDS
            .binary_search_by(|r| cmp_ignore_case(r.as_bytes(), w))
            .is_ok()
    {
        out.refused = true;
    }
}

pub(crate) fn cmp_ignore_case(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.iter()
        .map(u8::to_ascii_uppercase)
        .cmp(b.iter().map(u8::to_ascii_uppercase))
}

/// The statement's text with its comments removed (for `query_cache_strip_comments`).
pub(crate) fn strip_comments(sql: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(sql.len());
    let mut i = 0;
    while i < sql.len() {
        let b = sql[i];
        match b {
            b'#' => {
                while i < sql.len() && sql[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if sql.get(i + 1) == Some(&b'-')
                && sql.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                while i < sql.len() && sql[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if sql.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < sql.len() && !(sql[i] == b'*' && sql.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'\'' | b'"' | b'`' => {
                let start = i;
                i += 1;
                while i < sql.len() {
                    if sql[i] == b'\\' && b != b'`' {
                        i += 2;
                        continue;
                    }
                    if sql[i] == b {
                        break;
                    }
                    i += 1;
                }
                i = (i + 1).min(sql.len());
                out.extend_from_slice(&sql[start..i]);
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    let trimmed = out.trim_ascii();
    trimmed.to_vec()
}

/// Words that make a SELECT uncacheable wherever they appear (outside string literals):
/// functions whose result depends on time, chance or the session, SELECT ... INTO,
/// locking reads, system schemas. A false match (a column named `user`) only costs a miss.
pub(crate) const REFUSED_WORDS: &[&str] = &[
    "BENCHMARK",
    "CONNECTION_ID",
    "CURDATE",
    "CURRENT_DATE",
    "CURRENT_ROLE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_USER",
    "CURTIME",
    "ENCRYPT",
    "FOUND_ROWS",
    "GET_LOCK",
    "INFORMATION_SCHEMA",
    "INTO",
    "IS_FREE_LOCK",
    "IS_USED_LOCK",
    "LASTVAL",
    "LAST_INSERT_ID",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "MASTER_POS_WAIT",
    "MYSQL",
    "NEXTVAL",
    "NOW",
    "PERFORMANCE_SCHEMA",
    "RAND",
    "RANDOM_BYTES",
    "RELEASE_LOCK",
    "ROW_COUNT",
    "SESSION_USER",
    "SETVAL",
    "SHARE",
    "SLEEP",
    "SQL_CALC_FOUND_ROWS",
    "SYS",
    "SYSDATE",
    "SYSTEM_USER",
    "UNIX_TIMESTAMP",
    "UPDATE",
    "USER",
    "UTC_DATE",
    "UTC_TIME",
    "UTC_TIMESTAMP",
    "UUID",
    "UUID_SHORT",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_words_are_sorted_for_binary_search() {
        let mut sorted = REFUSED_WORDS.to_vec();
        sorted.sort();
        assert_eq!(sorted, REFUSED_WORDS);
    }

    #[test]
    fn the_scan_finds_what_refuses_a_statement() {
        assert!(scan(b"SELECT c FROM t WHERE id = 5").select);
        assert!(!scan(b"SELECT c FROM t WHERE id = 5").refused);
        assert!(!scan(b"select c from t").refused);
        assert!(!scan(b"UPDATE t SET c = 1").select);
        for refused in [
            &b"SELECT NOW()"[..],
            b"select rand()",
            b"SELECT uuid()",
            b"SELECT @a",
            b"SELECT @@sql_mode",
            b"SELECT c FROM t FOR UPDATE",
            b"SELECT c FROM t LOCK IN SHARE MODE",
            b"SELECT * FROM information_schema.tables",
            b"SELECT * FROM `mysql`.`user`",
            b"SELECT 1; SELECT 2",
            b"SELECT c INTO @x FROM t",
            b"SELECT /*! 1 */ 2",
            b"SELECT LAST_INSERT_ID()",
            b"SELECT connection_id()",
            b"SELECT sleep(1)",
        ] {
            assert!(
                scan(refused).refused,
                "{} is refused",
                String::from_utf8_lossy(refused)
            );
        }
        assert!(
            !scan(b"SELECT 'now()' FROM t").refused,
            "words in strings do not count"
        );
        assert!(
            !scan(b"SELECT 1;").refused,
            "a trailing semicolon is one statement"
        );
        assert!(scan(b"SELECT SQL_NO_CACHE c FROM t").sql_no_cache);
        assert!(scan(b"SELECT sql_cache c FROM t").sql_cache);
    }

    #[test]
    fn a_template_ignores_literals_but_not_shape() {
        let a = scan(b"SELECT c FROM sbtest1 WHERE id=17").template;
        let b = scan(b"select c from sbtest1 where id = 99231").template;
        let c = scan(b"SELECT c FROM sbtest1 WHERE k=17").template;
        let d = scan(b"SELECT c FROM t WHERE s='x'").template;
        let e = scan(b"SELECT c FROM t WHERE s='yy'").template;
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(d, e);
    }

    #[test]
    fn comments_are_stripped_outside_strings() {
        assert_eq!(
            strip_comments(b"SELECT /* a */ c -- b\n FROM t # c\n WHERE s = '/* x */'"),
            b"SELECT  c \n FROM t \n WHERE s = '/* x */'".to_vec()
        );
    }
}
