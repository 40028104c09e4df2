//! Hash functions: MD5, SHA1 (SHA) and SHA2, as MariaDB answers them: the digest of the
//! argument's bytes as lower-case hexadecimal text; NULL for a NULL string, and for a
//! SHA2 length other than 224, 256, 384, 512 or 0 (which means 256; so does NULL).

use super::Args;
use crate::expr::eval::Warning;
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

/// PASSWORD(x): `*` and the upper-case hex of SHA1(SHA1(x)), as mysql_native_password
/// stores it; '' for an empty string and for NULL, as MariaDB answers.
pub(super) fn password(a: &Args) -> Value {
    let bytes = a.v[0].to_text().unwrap_or_default();
    let hash = crate::catalog::auth_plugins::native_hash(bytes);
    Value::Bytes(
        hash.map(|h| crate::catalog::auth_plugins::native_hash_text(&h))
            .unwrap_or_default()
            .into_bytes(),
    )
}

pub(super) fn digest(a: &Args, hash: Hash, w: &mut Vec<Warning>) -> Value {
    if a.v[0].is_null() {
        return Value::Null;
    }
    let bytes = a.v[0].to_text().unwrap_or_default();
    let out: Vec<u8> = match hash {
        Hash::Md5 => Md5::digest(&bytes).to_vec(),
        Hash::Sha1 => Sha1::digest(&bytes).to_vec(),
        // The length reads as MariaDB's integer argument does (NULL is 0).
        Hash::Sha2 => match a.int(1, w) {
            224 => Sha224::digest(&bytes).to_vec(),
            0 | 256 => Sha256::digest(&bytes).to_vec(),
            384 => Sha384::digest(&bytes).to_vec(),
            512 => Sha512::digest(&bytes).to_vec(),
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
