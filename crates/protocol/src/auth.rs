//! The authentication plugins' server side.
//!
//! - mysql_native_password: the server sends a 20-byte random scramble; the client answers
//!   `SHA1(password) XOR SHA1(scramble ++ SHA1(SHA1(password)))`. The server stores only
//!   `SHA1(SHA1(password))` (the account's hash), recovers the client's `SHA1(password)`
//!   from the answer and checks that its SHA1 equals the stored hash.
//! - ed25519 (MariaDB's plugin): the server sends a 32-byte random nonce; the client signs
//!   it with the Ed25519 key whose expanded secret is SHA-512(password) and answers the
//!   64-byte signature. The server stores only the public key and checks the signature.

use sha1::{Digest, Sha1};

pub use myriad_types::auth::{
    Credential, ED25519_CLIENT_PLUGIN, ED25519_PLUGIN, NATIVE_PASSWORD_PLUGIN,
};
pub const SCRAMBLE_LEN: usize = 20;
/// The length of an ed25519 nonce, and of a public key.
pub const ED25519_NONCE_LEN: usize = 32;

/// A fresh scramble of printable-ish, non-NUL bytes (clients treat it as a C string).
pub fn new_scramble() -> [u8; SCRAMBLE_LEN] {
    let mut scramble = [0u8; SCRAMBLE_LEN];
    if getrandom::getrandom(&mut scramble).is_err() {
        // No OS randomness: fall back to the clock and address entropy. Weaker, but the
        // server must keep accepting connections.
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let digest = Sha1::digest(seed.to_le_bytes());
        scramble.copy_from_slice(&digest);
    }
    for byte in scramble.iter_mut() {
        // MySQL keeps scramble bytes in 1..=127 and away from NUL.
        *byte = (*byte & 0x7F).max(1);
    }
    scramble
}

/// SHA1(SHA1(password)), what an account stores.
pub fn native_password_hash(password: &[u8]) -> [u8; 20] {
    let stage1 = Sha1::digest(password);
    Sha1::digest(stage1).into()
}

/// The client's answer for `password` (used by tests and the test client).
pub fn native_password_token(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let stage1 = Sha1::digest(password);
    let stage2 = Sha1::digest(stage1);
    let mut hasher = Sha1::new();
    hasher.update(scramble);
    hasher.update(stage2);
    let mix = hasher.finalize();
    stage1.iter().zip(mix.iter()).map(|(a, b)| a ^ b).collect()
}

/// Check a client's answer against the stored hash (None: the account has no password).
pub fn verify_native_password(
    stored_hash: Option<&[u8; 20]>,
    scramble: &[u8],
    token: &[u8],
) -> bool {
    match stored_hash {
        None => token.is_empty(),
        Some(_) if token.len() != 20 => false,
        Some(hash) => {
            let mut hasher = Sha1::new();
            hasher.update(scramble);
            hasher.update(hash);
            let mix = hasher.finalize();
            let stage1: Vec<u8> = token.iter().zip(mix.iter()).map(|(a, b)| a ^ b).collect();
            let candidate: [u8; 20] = Sha1::digest(&stage1).into();
            // Constant-time comparison: no early exit on the first differing byte.
            candidate
                .iter()
                .zip(hash.iter())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
        }
    }
}

/// A fresh ed25519 nonce: 32 random bytes (None when the OS has no randomness: a nonce
/// must never repeat, so the login is refused rather than signed over a guessable one).
pub fn new_ed25519_nonce() -> Option<[u8; ED25519_NONCE_LEN]> {
    let mut nonce = [0u8; ED25519_NONCE_LEN];
    getrandom::getrandom(&mut nonce).ok()?;
    Some(nonce)
}

/// Check a client's ed25519 `signature` of `nonce` against the account's public key (None:
/// an account without one, which no answer matches).
pub fn verify_ed25519(public_key: Option<&[u8; 32]>, nonce: &[u8], signature: &[u8]) -> bool {
    let Some(key) = public_key else {
        return false;
    };
    ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, key)
        .verify(nonce, signature)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn right_password_verifies_and_wrong_one_does_not() {
        let scramble = new_scramble();
        assert!(scramble.iter().all(|&b| b != 0));
        let hash = native_password_hash(b"secret");
        assert!(verify_native_password(
            Some(&hash),
            &scramble,
            &native_password_token(b"secret", &scramble)
        ));
        assert!(!verify_native_password(
            Some(&hash),
            &scramble,
            &native_password_token(b"secreT", &scramble)
        ));
        assert!(!verify_native_password(Some(&hash), &scramble, b""));
        assert!(!verify_native_password(Some(&hash), &scramble, b"short"));
        assert!(verify_native_password(None, &scramble, b""));
        assert!(!verify_native_password(
            None,
            &scramble,
            &native_password_token(b"x", &scramble)
        ));
    }

    #[test]
    fn ed25519_signature_of_the_nonce_verifies_and_others_do_not() {
        use ring::signature::{Ed25519KeyPair, KeyPair};
        // A 32-byte password is also a standard Ed25519 seed: MariaDB's client expands
        // SHA-512(password) as the standard expands SHA-512(seed).
        let password = b"a password of exactly 32 bytes!!";
        let pair = Ed25519KeyPair::from_seed_unchecked(password).unwrap();
        let key: [u8; 32] = pair.public_key().as_ref().try_into().unwrap();
        let nonce = new_ed25519_nonce().unwrap();
        let signature = pair.sign(&nonce);
        assert!(verify_ed25519(Some(&key), &nonce, signature.as_ref()));
        let other = new_ed25519_nonce().unwrap();
        assert!(!verify_ed25519(Some(&key), &other, signature.as_ref()));
        assert!(!verify_ed25519(
            Some(&key),
            &nonce,
            &signature.as_ref()[..63]
        ));
        assert!(!verify_ed25519(None, &nonce, signature.as_ref()));
        let stranger = Ed25519KeyPair::from_seed_unchecked(&[7u8; 32]).unwrap();
        assert!(!verify_ed25519(
            Some(&key),
            &nonce,
            stranger.sign(&nonce).as_ref()
        ));
    }

    #[test]
    fn known_hash_matches_mysql() {
        // SELECT PASSWORD('root') in MySQL 5.7: *81F5E21E35407D884A6CD4A731AEBFB6AF209E1B
        let hash = native_password_hash(b"root");
        let hex: String = hash.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(hex, "81F5E21E35407D884A6CD4A731AEBFB6AF209E1B");
    }
}
