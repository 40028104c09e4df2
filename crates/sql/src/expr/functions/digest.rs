//! Hash functions: MD5, SHA1 (SHA) and SHA2, as MariaDB answers them: the digest of the
//! argument's bytes as lower-case hexadecimal text; NULL for a NULL string, and for a
//! SHA2 length other than 224, 256, 384, 512 or 0 (which means 256; so does NULL).

use super::Args;
use crate::value::Value;
use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};

/// Which digest a call computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hash {
    Md5,
    Sha1,
    /// SHA2(x, bits): the length is the second argument.
    Sha2,
}

pub(super) fn digest(a: &Args, hash: Hash) -> Value {
    if a.v[0].is_null() {
        return Value::Null;
    }
    let bytes = a.v[0].to_text().unwrap_or_default();
    let out: Vec<u8> = match hash {
        Hash::Md5 => Md5::digest(&bytes).to_vec(),
        Hash::Sha1 => Sha1::digest(&bytes).to_vec(),
        Hash::Sha2 => match a.v[1].to_text().as_deref().map_or(Some(0), trimmed_int) {
            Some(224) => Sha224::digest(&bytes).to_vec(),
            Some(0 | 256) => Sha256::digest(&bytes).to_vec(),
            Some(384) => Sha384::digest(&bytes).to_vec(),
            Some(512) => Sha512::digest(&bytes).to_vec(),
            _ => return Value::Null,
        },
    };
    Value::Bytes(
        out.iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            .into_bytes(),
    )
}

/// The integer a length argument's text reads as (`256`, `256.0`), if it is one.
fn trimmed_int(text: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(text).ok()?.trim();
    text.parse::<i64>().ok().or_else(|| {
        text.parse::<f64>()
            .ok()
            .filter(|f| f.fract() == 0.0)
            .map(|f| f as i64)
    })
}
