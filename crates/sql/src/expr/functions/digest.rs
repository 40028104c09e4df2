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
    let hash = native_hash(bytes);
    Value::Bytes(
        hash.map(|h| native_hash_text(&h))
            .unwrap_or_default()
            .into_bytes(),
    )
}

/// SHA1(SHA1(password)), what mysql_native_password stores; None for the empty password.
pub fn native_hash(password: impl AsRef<[u8]>) -> Option<[u8; 20]> {
    let password = password.as_ref();
    if password.is_empty() {
        return None;
    }
    Some(Sha1::digest(Sha1::digest(password)).into())
}

/// `*<40 upper-case hex digits>`: a native hash as PASSWORD() and SHOW GRANTS write it.
pub fn native_hash_text(hash: &[u8; 20]) -> String {
    let hex: String = hash.iter().map(|b| format!("{b:02X}")).collect();
    format!("*{hex}")
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
