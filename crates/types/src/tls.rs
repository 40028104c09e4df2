//! What a session knows of its connection's TLS: filled by the protocol's handshake, read
//! by the SQL layer (`Ssl_version`, `Ssl_cipher`, an account's `REQUIRE` clause).

/// A connection's TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsInfo {
    /// `TLSv1.2` or `TLSv1.3`.
    pub version: &'static str,
    /// The cipher suite in OpenSSL's name (`TLS_AES_256_GCM_SHA384`,
    /// `ECDHE-RSA-AES256-GCM-SHA384`), as MariaDB shows it.
    pub cipher: &'static str,
    /// The client's verified certificate, if it presented one.
    pub peer: Option<PeerCertificate>,
}

/// A client certificate's names in OpenSSL's one-line form (`/C=FI/O=Example/CN=client`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerCertificate {
    pub subject: String,
    pub issuer: String,
}
