//! The JSON functions built so far: JSON_VALID, which a JSON column's CHECK constraint
//! calls (`json_valid(col)`).

/// Whether `text` is one JSON value (RFC 8259: an object, array, string, number, true,
/// false or null, with white space around it). Numbers are checked for their form only,
/// so a number of any size is valid, as in MariaDB.
pub(crate) fn is_valid(text: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_every_kind_are_valid_and_broken_text_is_not() {
        for ok in [
            r#"{"a":1}"#,
            "[1, 2.5, -3e10, true, false, null]",
            r#""text""#,
            "1",
            " {} ",
            "123456789012345678901234567890",
            "1e400",
            r#"{"a":{"b":[{"c":"d"}]}}"#,
        ] {
            assert!(is_valid(ok.as_bytes()), "{ok}");
        }
        for bad in ["", "{bad", "{'a':1}", "[1,]", "01", "nul", "{} {}", "\u{1}"] {
            assert!(!is_valid(bad.as_bytes()), "{bad}");
        }
    }
}
