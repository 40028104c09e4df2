//! AES_ENCRYPT(s, key) and AES_DECRYPT(s, key) as MariaDB 10.11 computes them: AES-128 in
//! ECB mode (its only mode; `block_encryption_mode` came later), PKCS#7 padding, and the
//! key folded into 16 bytes by XOR-ing its bytes in turn into a zeroed block (so a
//! shorter key is zero-padded and a longer one wraps around).

use super::{over_packet, Args};
use crate::expr::eval::Warning;
use crate::value::Value;
use aes::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use aes::Aes128;

/// AES's block, and the folded key's length, in bytes.
const BLOCK_BYTES: usize = 16;

/// The cipher for a key folded as MariaDB folds it.
fn cipher(key: &[u8]) -> Aes128 {
    let mut folded = [0u8; BLOCK_BYTES];
    for (i, &b) in key.iter().enumerate() {
        folded[i % BLOCK_BYTES] ^= b;
    }
    Aes128::new(&Array::from(folded))
}

/// AES_ENCRYPT: the padded text's blocks, encrypted; NULL if an argument is NULL.
pub(super) fn encrypt(a: &Args, w: &mut Vec<Warning>) -> Value {
    let (Some(text), Some(key)) = (a.v[0].to_text(), a.v[1].to_text()) else {
        return Value::Null;
    };
    let pad = BLOCK_BYTES - text.len() % BLOCK_BYTES;
    if over_packet("aes_encrypt", (text.len() + pad) as u64, a.limit, w) {
        return Value::Null;
    }
    let mut out = text;
    out.extend(std::iter::repeat_n(pad as u8, pad));
    let cipher = cipher(&key);
    for chunk in out.chunks_exact_mut(BLOCK_BYTES) {
        let mut block = Array::from(<[u8; BLOCK_BYTES]>::try_from(&*chunk).unwrap_or_default());
        cipher.encrypt_block(&mut block);
        chunk.copy_from_slice(&block);
    }
    Value::Bytes(out)
}

/// AES_DECRYPT: the text the blocks encrypt; NULL if an argument is NULL, the length is
/// not whole blocks, or the padding does not read.
pub(super) fn decrypt(a: &Args) -> Value {
    let (Some(data), Some(key)) = (a.v[0].to_text(), a.v[1].to_text()) else {
        return Value::Null;
    };
    if data.is_empty() || data.len() % BLOCK_BYTES != 0 {
        return Value::Null;
    }
    let mut out = data;
    let cipher = cipher(&key);
    for chunk in out.chunks_exact_mut(BLOCK_BYTES) {
        let mut block = Array::from(<[u8; BLOCK_BYTES]>::try_from(&*chunk).unwrap_or_default());
        cipher.decrypt_block(&mut block);
        chunk.copy_from_slice(&block);
    }
    let pad = usize::from(out[out.len() - 1]);
    if pad == 0
        || pad > BLOCK_BYTES
        || !out[out.len() - pad..]
            .iter()
            .all(|&b| usize::from(b) == pad)
    {
        return Value::Null;
    }
    out.truncate(out.len() - pad);
    Value::Bytes(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use myriad_types::Collation;

    fn args(v: Vec<Value>) -> Args {
        Args::new(v, u64::MAX, Collation::Binary)
    }

    #[test]
    fn encrypts_as_mariadb_does() {
        let hex = |v: Value| match v {
            Value::Bytes(b) => b.iter().map(|x| format!("{x:02X}")).collect::<String>(),
            other => panic!("{other:?}"),
        };
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let mut w = Vec::new();
        assert_eq!(
            hex(encrypt(&args(vec![text("abc"), text("key")]), &mut w)),
            "DB5F149A7CAF0CD275CA18C203A212C9"
        );
        assert_eq!(
            hex(encrypt(
                &args(vec![text("abcdefghijklmnopq"), text("0123456789abcdefXYZ")]),
                &mut w
            )),
            "F0B561250EA8A496AB3F288E141C68C9E4812705E1CCFFEFAAD90E057CBCCE7A"
        );
        let sealed = encrypt(&args(vec![text("héllo"), text("k")]), &mut w);
        assert_eq!(
            decrypt(&args(vec![sealed.clone(), text("k")])),
            text("héllo")
        );
        assert_eq!(decrypt(&args(vec![sealed, text("kez")])), Value::Null);
        assert_eq!(decrypt(&args(vec![text("abc"), text("key")])), Value::Null);
    }
}
