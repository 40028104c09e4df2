//! mysql_native_password: the server sends a 20-byte random scramble; the client answers
//! `SHA1(password) XOR SHA1(scramble ++ SHA1(SHA1(password)))`. The server stores only
//! `SHA1(SHA1(password))` (the account's hash), recovers the client's `SHA1(password)`
//! from the answer and checks that its SHA1 equals the stored hash.

use sha1::{Digest, Sha1};

pub const NATIVE_PASSWORD_PLUGIN: &str = "mysql_native_password";
pub const SCRAMBLE_LEN: usize = 20;

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
    fn known_hash_matches_mysql() {
        // SELECT PASSWORD('root') in MySQL 5.7: *81F5E21E35407D884A6CD4A731AEBFB6AF209E1B
        let hash = native_password_hash(b"root");
        let hex: String = hash.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(hex, "81F5E21E35407D884A6CD4A731AEBFB6AF209E1B");
    }
}
