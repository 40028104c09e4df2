//! How an account proves who it is: the credential each authentication plugin keeps for
//! it. The SQL layer stores it (`IDENTIFIED ...`); the protocol's handshake checks a
//! client's answer against it.

/// `mysql_native_password`: the plugin of `IDENTIFIED BY 'password'`.
pub const NATIVE_PASSWORD_PLUGIN: &str = "mysql_native_password";
/// `ed25519`: MariaDB's elliptic-curve plugin; its client side is `client_ed25519`.
pub const ED25519_PLUGIN: &str = "ed25519";
/// The client-side name of [`ED25519_PLUGIN`], sent in the handshake's plugin switch.
pub const ED25519_CLIENT_PLUGIN: &str = "client_ed25519";

/// An account's stored credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// mysql_native_password: SHA1(SHA1(password)), or None for an empty password (any
    /// empty answer signs in).
    NativePassword(Option<[u8; 20]>),
    /// ed25519: the public key derived from the password, or None when the account's
    /// authentication string is empty (no answer signs in).
    Ed25519(Option<[u8; 32]>),
}

impl Credential {
    /// The server-side plugin's name, as `mysql.user.plugin` shows it.
    pub fn plugin(&self) -> &'static str {
        match self {
            Credential::NativePassword(_) => NATIVE_PASSWORD_PLUGIN,
            Credential::Ed25519(_) => ED25519_PLUGIN,
        }
    }
}

impl Default for Credential {
    /// A new account's: mysql_native_password without a password.
    fn default() -> Self {
        Credential::NativePassword(None)
    }
}
