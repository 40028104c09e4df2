//! The authentication plugins an account may sign in with, and how each turns what a
//! statement says (`IDENTIFIED BY 'pw'`, `IDENTIFIED VIA plugin USING ...`, `SET PASSWORD`,
//! `PASSWORD()`) into the stored [`Credential`], and back into the text SHOW GRANTS, SHOW
//! CREATE USER and `mysql.user` print.
//!
//! - `mysql_native_password`: the credential is SHA1(SHA1(password)), written
//!   `*<40 hex digits>`; the empty password is no password.
//! - `ed25519` (MariaDB's plugin, built in here): the credential is the Ed25519 public key
//!   whose expanded secret key is SHA-512(password), written in base64 without padding
//!   (43 characters); an empty password or authentication string leaves the account
//!   without a key, and no login matches it.
//!
//! Other plugin names answer MariaDB's 1524 `Plugin '...' is not loaded`.

use crate::error::SqlError;
use base64::Engine;
use myriad_types::auth::{Credential, ED25519_PLUGIN, NATIVE_PASSWORD_PLUGIN};
use myriad_types::errors::{ER_PASSWD_LENGTH, ER_PLUGIN_IS_NOT_LOADED};
use sha2::{Digest, Sha512};

/// An authentication plugin myriad has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    NativePassword,
    Ed25519,
}

/// How a statement gives an account's credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthSpec {
    /// `IDENTIFIED BY 'pw'`, `SET PASSWORD = PASSWORD('pw')`.
    Password(String),
    /// `IDENTIFIED BY PASSWORD '*hash'`, `SET PASSWORD = '*hash'`: the stored form itself.
    Stored(String),
    /// `IDENTIFIED VIA plugin [USING 'auth string' | USING PASSWORD('pw')]`.
    Via { plugin: String, using: Using },
}

/// What follows `IDENTIFIED VIA plugin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Using {
    /// No USING: an empty authentication string.
    Nothing,
    /// `USING 'auth string'`: the stored form.
    Stored(String),
    /// `USING PASSWORD('pw')`.
    Password(String),
}

impl Plugin {
    /// The plugin named `name` (any case), or 1524.
    pub fn named(name: &str) -> Result<Plugin, SqlError> {
        if name.eq_ignore_ascii_case(NATIVE_PASSWORD_PLUGIN) {
            Ok(Plugin::NativePassword)
        } else if name.eq_ignore_ascii_case(ED25519_PLUGIN) {
            Ok(Plugin::Ed25519)
        } else {
            Err(SqlError::new(
                ER_PLUGIN_IS_NOT_LOADED,
                ER_PLUGIN_IS_NOT_LOADED.message(&[&name]),
            ))
        }
    }

    /// The plugin of a stored credential.
    pub fn of(credential: &Credential) -> Plugin {
        match credential {
            Credential::NativePassword(_) => Plugin::NativePassword,
            Credential::Ed25519(_) => Plugin::Ed25519,
        }
    }

    /// The credential of `password` under this plugin.
    pub fn from_password(self, password: &str) -> Credential {
        match self {
            Plugin::NativePassword => Credential::NativePassword(native_hash(password)),
            Plugin::Ed25519 => Credential::Ed25519(ed25519_public_key(password)),
        }
    }

    /// The credential written as `text` (its authentication string), or MariaDB's 1372.
    pub fn from_stored(self, text: &str) -> Result<Credential, SqlError> {
        match self {
            Plugin::NativePassword => parse_hash(text).map(Credential::NativePassword),
            Plugin::Ed25519 => parse_ed25519_key(text).map(Credential::Ed25519),
        }
    }
}

impl AuthSpec {
    /// The credential this clause sets. `keep` is the plugin that a bare password or
    /// stored form is for: mysql_native_password for `IDENTIFIED BY`, the account's own
    /// plugin for `SET PASSWORD` (as MariaDB keeps an ed25519 account's plugin there).
    pub fn credential(&self, keep: Plugin) -> Result<Credential, SqlError> {
        match self {
            AuthSpec::Password(pw) => Ok(keep.from_password(pw)),
            AuthSpec::Stored(text) => keep.from_stored(text),
            AuthSpec::Via { plugin, using } => {
                let plugin = Plugin::named(plugin)?;
                match using {
                    Using::Nothing => plugin.from_stored(""),
                    Using::Stored(text) => plugin.from_stored(text),
                    Using::Password(pw) => Ok(plugin.from_password(pw)),
                }
            }
        }
    }
}

/// The authentication string of `credential`, as `mysql.user.authentication_string`
/// shows it ('' for none).
pub fn auth_string(credential: &Credential) -> String {
    match credential {
        Credential::NativePassword(hash) => hash.map(|h| native_hash_text(&h)).unwrap_or_default(),
        Credential::Ed25519(key) => key
            .map(|k| base64::engine::general_purpose::STANDARD_NO_PAD.encode(k))
            .unwrap_or_default(),
    }
}

/// ` IDENTIFIED ...` as SHOW GRANTS and SHOW CREATE USER write it after the account ('' for
/// mysql_native_password without a password), in a form that re-applies unchanged.
pub fn identified_clause(credential: &Credential) -> String {
    let text = auth_string(credential);
    match credential {
        Credential::NativePassword(None) => String::new(),
        Credential::NativePassword(Some(_)) => format!(" IDENTIFIED BY PASSWORD '{text}'"),
        Credential::Ed25519(None) => format!(" IDENTIFIED VIA {ED25519_PLUGIN}"),
        Credential::Ed25519(Some(_)) => format!(" IDENTIFIED VIA {ED25519_PLUGIN} USING '{text}'"),
    }
}

pub use crate::expr::functions::digest::{native_hash, native_hash_text};

/// The stored hash written `'*<40 hex digits>'` (IDENTIFIED BY PASSWORD, SHOW GRANTS);
/// MariaDB's error 1372 for any other form. The empty string is no password.
pub fn parse_hash(text: &str) -> Result<Option<[u8; 20]>, SqlError> {
    if text.is_empty() {
        return Ok(None);
    }
    let digits = text.strip_prefix('*').filter(|d| d.len() == 40);
    let bytes: Option<Vec<u8>> = digits.map(|d| {
        (0..40)
            .step_by(2)
            .filter_map(|i| u8::from_str_radix(&d[i..i + 2], 16).ok())
            .collect()
    });
    bytes
        .and_then(|b| <[u8; 20]>::try_from(b.as_slice()).ok())
        .map(Some)
        .ok_or_else(|| {
            SqlError::new(
                ER_PASSWD_LENGTH,
                "Password hash should be a 41-digit hexadecimal number",
            )
        })
}

/// The ed25519 public key of `password`: the base point times the clamped first half of
/// SHA-512(password), as MariaDB's plugin derives it. None for the empty password.
pub fn ed25519_public_key(password: &str) -> Option<[u8; 32]> {
    if password.is_empty() {
        return None;
    }
    let digest = Sha512::digest(password.as_bytes());
    let mut scalar = [0u8; 32];
    scalar.copy_from_slice(&digest[..32]);
    Some(
        curve25519_dalek::EdwardsPoint::mul_base_clamped(scalar)
            .compress()
            .to_bytes(),
    )
}

/// An ed25519 authentication string: 43 characters of base64 without padding, or empty.
fn parse_ed25519_key(text: &str) -> Result<Option<[u8; 32]>, SqlError> {
    if text.is_empty() {
        return Ok(None);
    }
    if text.len() != 43 {
        return Err(SqlError::new(
            ER_PASSWD_LENGTH,
            "Password hash should be 43 characters long",
        ));
    }
    base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(text)
        .ok()
        .and_then(|bytes| <[u8; 32]>::try_from(bytes.as_slice()).ok())
        .map(Some)
        .ok_or_else(|| SqlError::new(ER_PASSWD_LENGTH, "Password hash should be base64 encoded"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_hash_matches_mariadb() {
        // SELECT PASSWORD('secret') on MariaDB 10.11.
        let hash = native_hash("secret").unwrap();
        assert_eq!(
            native_hash_text(&hash),
            "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7"
        );
        assert_eq!(native_hash(""), None);
        assert_eq!(
            parse_hash("*14e65567abdb5135d0cfd9a70b3032c179a49ee7").unwrap(),
            Some(hash)
        );
        assert_eq!(parse_hash("").unwrap(), None);
        for bad in ["abc", "*14E6", "14E65567ABDB5135D0CFD9A70B3032C179A49EE7X"] {
            assert_eq!(parse_hash(bad).unwrap_err().code, 1372, "{bad}");
        }
    }

    #[test]
    fn ed25519_key_matches_mariadb() {
        // SHOW CREATE USER after IDENTIFIED VIA ed25519 USING PASSWORD('secret') / ('x').
        let key = Plugin::Ed25519.from_password("secret");
        assert_eq!(
            auth_string(&key),
            "ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJY"
        );
        assert_eq!(
            auth_string(&Plugin::Ed25519.from_password("x")),
            "Gv2JI8Env2fd5YGonZ082tX3UAW+yJYldOlj4R1bfK4"
        );
        assert_eq!(
            Plugin::Ed25519
                .from_stored("ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJY")
                .unwrap(),
            key
        );
        assert_eq!(Plugin::Ed25519.from_password(""), Credential::Ed25519(None));
        let short = Plugin::Ed25519.from_stored("abc").unwrap_err();
        assert_eq!(short.code, 1372);
        let padded = Plugin::Ed25519
            .from_stored("ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJ=")
            .unwrap_err();
        assert!(padded.to_string().contains("base64"), "{padded}");
    }

    #[test]
    fn ed25519_key_is_the_standard_key_of_a_32_byte_seed() {
        use ring::signature::{Ed25519KeyPair, KeyPair};
        // A 32-byte password is also a standard seed: both expand it with SHA-512.
        let password = "exactly thirty-two bytes long!!!";
        let pair = Ed25519KeyPair::from_seed_unchecked(password.as_bytes()).unwrap();
        assert_eq!(
            ed25519_public_key(password).unwrap().as_slice(),
            pair.public_key().as_ref()
        );
    }

    #[test]
    fn clauses_re_apply() {
        let native = AuthSpec::Password("pw".into())
            .credential(Plugin::NativePassword)
            .unwrap();
        let clause = identified_clause(&native);
        let stored = clause
            .strip_prefix(" IDENTIFIED BY PASSWORD '")
            .and_then(|c| c.strip_suffix('\''))
            .unwrap();
        assert_eq!(
            AuthSpec::Stored(stored.into())
                .credential(Plugin::NativePassword)
                .unwrap(),
            native
        );
        let via = AuthSpec::Via {
            plugin: "ED25519".into(),
            using: Using::Password("pw".into()),
        };
        let ed = via.credential(Plugin::NativePassword).unwrap();
        assert_eq!(Plugin::of(&ed), Plugin::Ed25519);
        // SET PASSWORD keeps the account's plugin.
        assert_eq!(
            AuthSpec::Password("pw".into())
                .credential(Plugin::Ed25519)
                .unwrap(),
            ed
        );
        assert_eq!(identified_clause(&Credential::NativePassword(None)), "");
        assert_eq!(
            identified_clause(&Credential::Ed25519(None)),
            " IDENTIFIED VIA ed25519"
        );
        let pam = AuthSpec::Via {
            plugin: "pam".into(),
            using: Using::Nothing,
        };
        assert_eq!(
            pam.credential(Plugin::NativePassword).unwrap_err().code,
            1524
        );
    }
}
