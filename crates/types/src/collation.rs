//! String collations: how two strings compare, which strings are equal, and the canonical
//! key that groups equal strings together.
//!
//! Three collations exist, all over utf8mb4 text or raw bytes:
//! - `utf8mb4_general_ci`: each character weighs its simple upper case (Latin-1 accents
//!   folded to their base letter, `ß` to `S`, characters beyond the BMP weigh U+FFFD);
//!   trailing spaces are ignored (PAD SPACE). The default for CHAR, VARCHAR and TEXT.
//! - `utf8mb4_bin`: by code point (the UTF-8 bytes' order), trailing spaces ignored.
//! - `binary`: byte by byte, no padding: BINARY, VARBINARY, BLOB, `_binary` and hex
//!   literals, `CAST(.. AS BINARY)`.
//!
//! The contract every user relies on: `compare(a, b) == Equal` exactly when
//! `key(a) == key(b)`, and comparing keys as bytes orders as `compare` does. Grouping,
//! DISTINCT and sorts use keys; comparisons use `compare`.

use std::cmp::Ordering;

/// How strings compare under a column's or an expression's collation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Collation {
    /// `utf8mb4_general_ci`.
    #[default]
    Utf8mb4GeneralCi,
    /// `utf8mb4_bin`.
    Utf8mb4Bin,
    /// `binary`.
    Binary,
}

/// Folding of U+00C0..=U+00FF to base letters, as utf8mb4_general_ci weighs them.
const LATIN1_FOLD: &[u8; 64] = b"AAAAAA\xC6CEEEEIIII\xD0NOOOOO\xD7\xD8UUUUY\xDESAAAAAA\xC6CEEEEIIII\xD0NOOOOO\xF7\xD8UUUUY\xDEY";

/// The utf8mb4_general_ci weight of one character.
#[inline]
pub fn general_ci_weight(c: char) -> u16 {
    let cp = c as u32;
    if cp < 0x80 {
        return (c as u8).to_ascii_uppercase() as u16;
    }
    if (0xC0..=0xFF).contains(&cp) {
        let folded = LATIN1_FOLD[(cp - 0xC0) as usize] as u16;
        // 0xD8/0xF8 (O with stroke) fold to O in general_ci.
        return if folded == 0xD8 { b'O' as u16 } else { folded };
    }
    if cp > 0xFFFF {
        return 0xFFFD;
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if (u as u32) <= 0xFFFF => u as u32 as u16,
        _ => cp as u16,
    }
}

/// `s` without its trailing spaces (PAD SPACE collations ignore them).
pub fn trim_trailing_spaces(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&c| c != b' ').map_or(0, |i| i + 1);
    &s[..end]
}

/// Characters of possibly invalid UTF-8 (each invalid byte becomes U+FFFD).
pub fn chars_lossy(s: &[u8]) -> impl Iterator<Item = char> + '_ {
    s.utf8_chunks().flat_map(|chunk| {
        chunk
            .valid()
            .chars()
            .chain(std::iter::repeat_n('\u{FFFD}', chunk.invalid().len()))
    })
}

/// The collations a name may give, with the character set each belongs to: MariaDB's
/// names for the three collations (utf8mb3's are utf8mb4's on the characters utf8mb3
/// holds). Names are matched without regard to case.
const NAMES: &[(&str, Collation)] = &[
    ("utf8mb4_general_ci", Collation::Utf8mb4GeneralCi),
    ("utf8mb4_bin", Collation::Utf8mb4Bin),
    ("binary", Collation::Binary),
    ("utf8mb3_general_ci", Collation::Utf8mb4GeneralCi),
    ("utf8_general_ci", Collation::Utf8mb4GeneralCi),
    ("utf8mb3_bin", Collation::Utf8mb4Bin),
    ("utf8_bin", Collation::Utf8mb4Bin),
];

impl Collation {
    /// MariaDB's name.
    pub fn name(self) -> &'static str {
        match self {
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Binary => "binary",
        }
    }

    /// The character set: `utf8mb4`, or `binary` for byte strings.
    pub fn charset(self) -> &'static str {
        match self {
            Collation::Binary => "binary",
            _ => "utf8mb4",
        }
    }

    /// The collation id result metadata carries (MariaDB's numbers).
    pub fn id(self) -> u16 {
        match self {
            Collation::Utf8mb4GeneralCi => 45,
            Collation::Utf8mb4Bin => 46,
            Collation::Binary => 63,
        }
    }

    /// The collation of an id from [`Collation::id`]; other ids are general_ci's.
    pub fn from_id(id: u16) -> Collation {
        match id {
            46 => Collation::Utf8mb4Bin,
            63 => Collation::Binary,
            _ => Collation::Utf8mb4GeneralCi,
        }
    }

    /// The collation a name stands for; None for a name this server does not implement.
    pub fn by_name(name: &str) -> Option<Collation> {
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, c)| *c)
    }

    /// The `_bin` collation of a character set, or its default one (`default: true`).
    pub fn of_charset(charset: &str, default: bool) -> Option<Collation> {
        match charset.to_ascii_lowercase().as_str() {
            "binary" => Some(Collation::Binary),
            "utf8mb4" | "utf8mb3" | "utf8" if default => Some(Collation::Utf8mb4GeneralCi),
            "utf8mb4" | "utf8mb3" | "utf8" => Some(Collation::Utf8mb4Bin),
            _ => None,
        }
    }

    /// Compare two strings.
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            Collation::Binary => a.cmp(b),
            // UTF-8's byte order is its code points' order.
            Collation::Utf8mb4Bin => trim_trailing_spaces(a).cmp(trim_trailing_spaces(b)),
            Collation::Utf8mb4GeneralCi => {
                let (a, b) = (trim_trailing_spaces(a), trim_trailing_spaces(b));
                if a.is_ascii() && b.is_ascii() {
                    // The common case: on ASCII a weight is the upper-cased byte.
                    return match a.iter().zip(b).find(|(x, y)| !x.eq_ignore_ascii_case(y)) {
                        Some((x, y)) => x.to_ascii_uppercase().cmp(&y.to_ascii_uppercase()),
                        None if a.len() == b.len() => Ordering::Equal,
                        None => a.len().cmp(&b.len()),
                    };
                }
                chars_lossy(a)
                    .map(general_ci_weight)
                    .cmp(chars_lossy(b).map(general_ci_weight))
            }
        }
    }

    /// Whether two strings are equal.
    pub fn eq(self, a: &[u8], b: &[u8]) -> bool {
        self.compare(a, b) == Ordering::Equal
    }

    /// Append the canonical key of `s`: equal keys for equal strings, ordered as
    /// [`Collation::compare`] orders (see the module doc). A general_ci weight is written
    /// as the UTF-8 of the character it is, so an ASCII string's key is its upper case.
    pub fn push_key(self, s: &[u8], out: &mut Vec<u8>) {
        match self {
            Collation::Binary => out.extend_from_slice(s),
            Collation::Utf8mb4Bin => out.extend_from_slice(trim_trailing_spaces(s)),
            Collation::Utf8mb4GeneralCi => {
                let s = trim_trailing_spaces(s);
                if s.is_ascii() {
                    out.extend(s.iter().map(u8::to_ascii_uppercase));
                    return;
                }
                let mut buf = [0u8; 4];
                for c in chars_lossy(s) {
                    let w = char::from_u32(u32::from(general_ci_weight(c))).unwrap_or('\u{FFFD}');
                    out.extend_from_slice(w.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }

    /// [`Collation::push_key`] into a new vector.
    pub fn key(self, s: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(s.len());
        self.push_key(s, &mut out);
        out
    }

    /// Whether two characters are equal (LIKE's and LOCATE's per-character test).
    pub fn char_eq(self, a: char, b: char) -> bool {
        match self {
            Collation::Utf8mb4GeneralCi => general_ci_weight(a) == general_ci_weight(b),
            _ => a == b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn each_collation_compares_as_mariadb() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(ci.compare(b"abc  ", b"ABC"), Ordering::Equal);
        assert_eq!(ci.compare(b"ab", b"abc"), Ordering::Less);
        assert_eq!(ci.compare("é".as_bytes(), b"E"), Ordering::Equal);
        assert_eq!(ci.compare("éa".as_bytes(), b"EB"), Ordering::Less);
        assert_eq!(ci.compare("ß".as_bytes(), b"s"), Ordering::Equal);
        assert_eq!(ci.compare(b"_", b"a"), Ordering::Greater);
        let bin = Collation::Utf8mb4Bin;
        assert_eq!(bin.compare(b"a", b"A"), Ordering::Greater);
        assert_eq!(bin.compare(b"a ", b"a"), Ordering::Equal);
        assert_eq!(bin.compare("é".as_bytes(), b"z"), Ordering::Greater);
        let binary = Collation::Binary;
        assert_eq!(binary.compare(b"a ", b"a"), Ordering::Greater);
        assert_eq!(binary.compare(b"\xff", b"\xfe"), Ordering::Greater);
        assert_eq!(binary.compare(b"a", b"A"), Ordering::Greater);
    }

    #[test]
    fn names() {
        assert_eq!(
            Collation::by_name("UTF8MB4_BIN"),
            Some(Collation::Utf8mb4Bin)
        );
        assert_eq!(
            Collation::by_name("utf8_general_ci"),
            Some(Collation::Utf8mb4GeneralCi)
        );
        assert_eq!(Collation::by_name("latin1_swedish_ci"), None);
        for c in [
            Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb4Bin,
            Collation::Binary,
        ] {
            assert_eq!(Collation::by_name(c.name()), Some(c));
            assert_eq!(Collation::from_id(c.id()), c);
        }
    }

    fn text() -> impl Strategy<Value = Vec<u8>> {
        let chars = prop_oneof![
            Just('a'),
            Just('A'),
            Just('b'),
            Just(' '),
            Just('_'),
            Just('é'),
            Just('E'),
            Just('ß'),
            Just('s'),
            Just('\u{1F600}'),
            Just('\u{FFFD}'),
            Just('\t'),
        ];
        proptest::collection::vec(chars, 0..6)
            .prop_map(|v| v.into_iter().collect::<String>().into_bytes())
    }

    fn collation() -> impl Strategy<Value = Collation> {
        prop_oneof![
            Just(Collation::Utf8mb4GeneralCi),
            Just(Collation::Utf8mb4Bin),
            Just(Collation::Binary)
        ]
    }

    proptest! {
        /// Keys are equal exactly when strings compare equal, and order as they do.
        #[test]
        fn keys_order_as_compare(c in collation(), a in text(), b in text()) {
            prop_assert_eq!(c.key(&a).cmp(&c.key(&b)), c.compare(&a, &b));
        }

        /// The ASCII fast path answers as the weights do.
        #[test]
        fn ascii_path_is_the_weights(a in "[ -~]{0,6}", b in "[ -~]{0,6}") {
            let (a, b) = (a.as_bytes(), b.as_bytes());
            let slow = chars_lossy(trim_trailing_spaces(a))
                .map(general_ci_weight)
                .cmp(chars_lossy(trim_trailing_spaces(b)).map(general_ci_weight));
            prop_assert_eq!(Collation::Utf8mb4GeneralCi.compare(a, b), slow);
        }
    }
}
