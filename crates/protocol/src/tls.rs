//! TLS for client connections: rustls with the ring provider.
//!
//! The MySQL protocol starts in the clear. When the server has a certificate its greeting
//! carries CLIENT_SSL; a client that wants TLS then answers with a 32-byte *SSL request*
//! (its capabilities with CLIENT_SSL, max packet size, collation and filler, nothing else)
//! instead of the handshake response. Both sides run the TLS handshake over the same
//! socket, and the handshake response follows inside TLS, numbered as if the SSL request
//! had been an ordinary packet of the exchange.
//!
//! What this module owns:
//! - [`TlsSettings`] and [`server_config`]: MariaDB's options (`ssl_cert`, `ssl_key`,
//!   `ssl_ca`, `tls_version`) read into a rustls configuration, once at startup. With a CA,
//!   the server asks every client for a certificate; one presented must chain to that CA
//!   (else the TLS handshake fails), one not presented is allowed, as MariaDB does.
//! - [`Transport`]: the stream a connection is served over, plain or TLS.
//! - what a session may know of its TLS: version and cipher in OpenSSL's
//!   spelling (what MariaDB's `Ssl_version` and `Ssl_cipher` show) and the client
//!   certificate's subject and issuer in OpenSSL's one-line form (what `REQUIRE SUBJECT` /
//!   `REQUIRE ISSUER` compare).

use rustls::crypto::ring as provider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{CipherSuite, ProtocolVersion, RootCertStore, ServerConfig};
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

pub use myriad_types::tls::{PeerCertificate, TlsInfo};

/// The server's TLS, as connections take it ([`crate::ConnectionOptions::tls`]).
pub type TlsConfig = Arc<ServerConfig>;

/// The server's certificate files and accepted versions.
#[derive(Debug, Clone)]
pub struct TlsSettings {
    /// PEM: the server's certificate, then any intermediate certificates.
    pub cert: PathBuf,
    /// PEM: the certificate's private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// PEM: the certificate authorities client certificates must chain to.
    pub ca: Option<PathBuf>,
    /// Which TLS versions to accept (at least one).
    pub tls12: bool,
    pub tls13: bool,
}

/// The rustls configuration for `settings`, or a message that names the file at fault.
pub fn server_config(settings: &TlsSettings) -> Result<TlsConfig, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&settings.cert)
        .and_then(|certs| certs.collect::<Result<_, _>>())
        .map_err(|e| format!("ssl_cert {}: {e}", settings.cert.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "ssl_cert {}: no certificate in the file",
            settings.cert.display()
        ));
    }
    let key = PrivateKeyDer::from_pem_file(&settings.key)
        .map_err(|e| format!("ssl_key {}: {e}", settings.key.display()))?;
    let crypto = Arc::new(provider::default_provider());
    let mut versions: Vec<&'static rustls::SupportedProtocolVersion> = Vec::new();
    if settings.tls12 {
        versions.push(&rustls::version::TLS12);
    }
    if settings.tls13 {
        versions.push(&rustls::version::TLS13);
    }
    if versions.is_empty() {
        return Err(String::from("tls_version: no TLS version left to accept"));
    }
    let builder = ServerConfig::builder_with_provider(Arc::clone(&crypto))
        .with_protocol_versions(&versions)
        .map_err(|e| format!("tls_version: {e}"))?;
    let builder = match &settings.ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            for cert in CertificateDer::pem_file_iter(ca)
                .map_err(|e| format!("ssl_ca {}: {e}", ca.display()))?
            {
                let cert = cert.map_err(|e| format!("ssl_ca {}: {e}", ca.display()))?;
                roots
                    .add(cert)
                    .map_err(|e| format!("ssl_ca {}: {e}", ca.display()))?;
            }
            if roots.is_empty() {
                return Err(format!(
                    "ssl_ca {}: no certificate in the file",
                    ca.display()
                ));
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                crypto,
            )
            .allow_unauthenticated()
            .build()
            .map_err(|e| format!("ssl_ca {}: {e}", ca.display()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let config = builder.with_single_cert(certs, key).map_err(|e| {
        format!(
            "ssl_cert {} with ssl_key {}: {e}",
            settings.cert.display(),
            settings.key.display()
        )
    })?;
    Ok(Arc::new(config))
}

/// What the session learns of a connection's completed TLS handshake.
pub(crate) fn info_of(connection: &rustls::ServerConnection) -> TlsInfo {
    let version = match connection.protocol_version() {
        Some(ProtocolVersion::TLSv1_3) => "TLSv1.3",
        _ => "TLSv1.2",
    };
    let cipher = connection
        .negotiated_cipher_suite()
        .map(|s| openssl_cipher_name(s.suite()))
        .unwrap_or("");
    let peer = connection
        .peer_certificates()
        .and_then(|certs| certs.first())
        .and_then(|der| peer_names(der.as_ref()));
    TlsInfo {
        version,
        cipher,
        peer,
    }
}

/// OpenSSL's name of a suite rustls negotiates (MariaDB shows OpenSSL's names).
fn openssl_cipher_name(suite: CipherSuite) -> &'static str {
    match suite {
        CipherSuite::TLS13_AES_256_GCM_SHA384 => "TLS_AES_256_GCM_SHA384",
        CipherSuite::TLS13_AES_128_GCM_SHA256 => "TLS_AES_128_GCM_SHA256",
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256 => "TLS_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 => "ECDHE-ECDSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 => "ECDHE-ECDSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 => {
            "ECDHE-ECDSA-CHACHA20-POLY1305"
        }
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 => "ECDHE-RSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => "ECDHE-RSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-RSA-CHACHA20-POLY1305",
        _ => "unknown",
    }
}

/// The cipher suites the server offers, in OpenSSL's names and rustls' order of
/// preference, `:`-separated (MariaDB's `Ssl_cipher_list`).
pub fn cipher_list() -> String {
    provider::default_provider()
        .cipher_suites
        .iter()
        .map(|s| openssl_cipher_name(s.suite()))
        .collect::<Vec<_>>()
        .join(":")
}

/// The subject and issuer of a DER certificate, or None when it does not parse (rustls
/// verified it already, so that does not happen for a presented certificate).
fn peer_names(der: &[u8]) -> Option<PeerCertificate> {
    let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
    Some(PeerCertificate {
        subject: one_line(cert.subject()),
        issuer: one_line(cert.issuer()),
    })
}

/// OpenSSL's `X509_NAME_oneline`: `/short=value` per attribute, in the certificate's order.
fn one_line(name: &x509_parser::x509::X509Name<'_>) -> String {
    use x509_parser::oid_registry::*;
    let mut out = String::new();
    for attribute in name.iter_attributes() {
        let oid = attribute.attr_type();
        let short = [
            (OID_X509_COUNTRY_NAME, "C"),
            (OID_X509_STATE_OR_PROVINCE_NAME, "ST"),
            (OID_X509_LOCALITY_NAME, "L"),
            (OID_X509_ORGANIZATION_NAME, "O"),
            (OID_X509_ORGANIZATIONAL_UNIT, "OU"),
            (OID_X509_COMMON_NAME, "CN"),
            (OID_PKCS9_EMAIL_ADDRESS, "emailAddress"),
            (OID_DOMAIN_COMPONENT, "DC"),
            (OID_X509_SERIALNUMBER, "serialNumber"),
            (OID_X509_STREET_ADDRESS, "street"),
            (OID_X509_TITLE, "title"),
            (OID_X509_GIVEN_NAME, "GN"),
            (OID_X509_SURNAME, "SN"),
        ]
        .iter()
        .find(|(known, _)| known == oid)
        .map(|(_, short)| short.to_string())
        .unwrap_or_else(|| oid.to_id_string());
        let value = attribute
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|_| String::from_utf8_lossy(attribute.attr_value().data).into());
        out.push('/');
        out.push_str(&short);
        out.push('=');
        out.push_str(&value);
    }
    out
}

/// The stream one connection is served over.
pub enum Transport<S> {
    Plain(S),
    Tls(Box<tokio_rustls::server::TlsStream<S>>),
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Transport<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Transport<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Transport::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Plain(s) => Pin::new(s).poll_flush(cx),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Transport::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Transport::Plain(s) => s.is_write_vectored(),
            Transport::Tls(s) => s.is_write_vectored(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offered_suite_has_an_openssl_name() {
        for suite in provider::default_provider().cipher_suites {
            assert_ne!(openssl_cipher_name(suite.suite()), "unknown", "{suite:?}");
        }
        assert!(cipher_list().starts_with("TLS_"));
    }

    #[test]
    fn missing_files_are_named_in_the_error() {
        let settings = TlsSettings {
            cert: PathBuf::from("/nonexistent/server-cert.pem"),
            key: PathBuf::from("/nonexistent/server-key.pem"),
            ca: None,
            tls12: true,
            tls13: true,
        };
        let err = server_config(&settings).unwrap_err();
        assert!(
            err.contains("ssl_cert /nonexistent/server-cert.pem"),
            "{err}"
        );
    }
}
