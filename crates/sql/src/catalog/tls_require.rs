//! An account's `REQUIRE` clause: what the TLS of its connections must be, as MariaDB
//! checks it when the account logs in (a connection that does not meet it is refused
//! with 1045 access denied, like a wrong password).
//!
//! - `REQUIRE NONE` (the default): any connection.
//! - `REQUIRE SSL`: TLS.
//! - `REQUIRE X509`: TLS with a client certificate that chains to the server's `ssl_ca`.
//! - `REQUIRE ISSUER 'i' [AND] SUBJECT 's' [AND] CIPHER 'c'` (any of the three): TLS,
//!   the cipher in use named exactly `c` (OpenSSL's name), and when an issuer or subject
//!   is given, a client certificate whose issuer / subject in OpenSSL's one-line form
//!   (`/C=FI/O=Example/CN=client`) is exactly that text.

use myriad_types::tls::TlsInfo;

/// An account's TLS requirement.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TlsRequire {
    #[default]
    None,
    Ssl,
    X509,
    Specified {
        issuer: Option<String>,
        subject: Option<String>,
        cipher: Option<String>,
    },
}

impl TlsRequire {
    /// Whether a connection with `tls` (None: plain) meets the requirement.
    pub fn admits(&self, tls: Option<&TlsInfo>) -> bool {
        match (self, tls) {
            (TlsRequire::None, _) => true,
            (_, None) => false,
            (TlsRequire::Ssl, Some(_)) => true,
            (TlsRequire::X509, Some(tls)) => tls.peer.is_some(),
            (
                TlsRequire::Specified {
                    issuer,
                    subject,
                    cipher,
                },
                Some(tls),
            ) => {
                if cipher.as_ref().is_some_and(|c| c != tls.cipher) {
                    return false;
                }
                if issuer.is_none() && subject.is_none() {
                    return true;
                }
                let Some(peer) = &tls.peer else {
                    return false;
                };
                issuer.as_ref().is_none_or(|i| *i == peer.issuer)
                    && subject.as_ref().is_none_or(|s| *s == peer.subject)
            }
        }
    }

    /// The clause as SHOW GRANTS writes it after the account: empty for NONE, else
    /// ` REQUIRE SSL`, ` REQUIRE X509` or ` REQUIRE ISSUER '..' SUBJECT '..' CIPHER '..'`.
    pub fn clause(&self) -> String {
        match self {
            TlsRequire::None => String::new(),
            TlsRequire::Ssl => String::from(" REQUIRE SSL"),
            TlsRequire::X509 => String::from(" REQUIRE X509"),
            TlsRequire::Specified {
                issuer,
                subject,
                cipher,
            } => {
                let mut out = String::from(" REQUIRE");
                for (word, text) in [("ISSUER", issuer), ("SUBJECT", subject), ("CIPHER", cipher)] {
                    if let Some(text) = text {
                        out.push_str(&format!(" {word} '{}'", quote(text)));
                    }
                }
                out
            }
        }
    }

    /// The accounts file's field for this requirement (None for NONE): `r:s`, `r:x` or
    /// `r:p:<hex issuer>:<hex subject>:<hex cipher>` (empty hex: not given).
    pub(crate) fn encode(&self, hex: impl Fn(&[u8]) -> String) -> Option<String> {
        match self {
            TlsRequire::None => None,
            TlsRequire::Ssl => Some(String::from("r:s")),
            TlsRequire::X509 => Some(String::from("r:x")),
            TlsRequire::Specified {
                issuer,
                subject,
                cipher,
            } => {
                let part = |t: &Option<String>| t.as_deref().map(|t| hex(t.as_bytes()));
                Some(format!(
                    "r:p:{}:{}:{}",
                    part(issuer).unwrap_or_default(),
                    part(subject).unwrap_or_default(),
                    part(cipher).unwrap_or_default()
                ))
            }
        }
    }

    /// The requirement an accounts file field (after `r:`) holds.
    pub(crate) fn decode(field: &str, unhex: impl Fn(&str) -> Option<Vec<u8>>) -> Option<Self> {
        match field {
            "s" => Some(TlsRequire::Ssl),
            "x" => Some(TlsRequire::X509),
            _ => {
                let mut parts = field.strip_prefix("p:")?.split(':');
                let mut next = || -> Option<Option<String>> {
                    let text = String::from_utf8(unhex(parts.next()?)?).ok()?;
                    Some((!text.is_empty()).then_some(text))
                };
                Some(TlsRequire::Specified {
                    issuer: next()?,
                    subject: next()?,
                    cipher: next()?,
                })
            }
        }
    }
}

/// `text` inside single quotes as SHOW GRANTS writes it.
fn quote(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\'', "\\'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use myriad_types::tls::PeerCertificate;

    fn tls(peer: Option<(&str, &str)>) -> TlsInfo {
        TlsInfo {
            version: "TLSv1.3",
            cipher: "TLS_AES_256_GCM_SHA384",
            peer: peer.map(|(subject, issuer)| PeerCertificate {
                subject: subject.into(),
                issuer: issuer.into(),
            }),
        }
    }

    #[test]
    fn each_requirement_admits_what_mariadb_admits() {
        let plain = None;
        let anonymous = tls(None);
        let client = tls(Some(("/CN=client", "/CN=ca")));
        let specified = |issuer: Option<&str>, subject: Option<&str>, cipher: Option<&str>| {
            TlsRequire::Specified {
                issuer: issuer.map(str::to_string),
                subject: subject.map(str::to_string),
                cipher: cipher.map(str::to_string),
            }
        };
        let cases = [
            (TlsRequire::None, [true, true, true]),
            (TlsRequire::Ssl, [false, true, true]),
            (TlsRequire::X509, [false, false, true]),
            (
                specified(None, None, Some("TLS_AES_256_GCM_SHA384")),
                [false, true, true],
            ),
            (
                specified(None, None, Some("ECDHE-RSA-AES128-GCM-SHA256")),
                [false, false, false],
            ),
            (specified(Some("/CN=ca"), None, None), [false, false, true]),
            (
                specified(Some("/CN=ca"), Some("/CN=other"), None),
                [false, false, false],
            ),
            (
                specified(Some("/CN=ca"), Some("/CN=client"), None),
                [false, false, true],
            ),
        ];
        for (require, expected) in cases {
            let got = [
                require.admits(plain),
                require.admits(Some(&anonymous)),
                require.admits(Some(&client)),
            ];
            assert_eq!(got, expected, "{require:?}");
        }
    }

    #[test]
    fn file_fields_read_back_what_was_written() {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let unhex = |t: &str| {
            (0..t.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(t.get(i..i + 2)?, 16).ok())
                .collect::<Option<Vec<u8>>>()
        };
        for require in [
            TlsRequire::Ssl,
            TlsRequire::X509,
            TlsRequire::Specified {
                issuer: Some("/C=FI/CN=ca:x".into()),
                subject: None,
                cipher: Some("AES".into()),
            },
        ] {
            let field = require.encode(hex).unwrap();
            let back = TlsRequire::decode(field.strip_prefix("r:").unwrap(), unhex);
            assert_eq!(back, Some(require));
        }
        assert_eq!(TlsRequire::None.encode(hex), None);
    }

    #[test]
    fn clauses_are_written_as_show_grants_writes_them() {
        let require = TlsRequire::Specified {
            issuer: Some("/CN=y".into()),
            subject: Some("/CN=x".into()),
            cipher: Some("AES".into()),
        };
        assert_eq!(
            require.clause(),
            " REQUIRE ISSUER '/CN=y' SUBJECT '/CN=x' CIPHER 'AES'"
        );
        assert_eq!(TlsRequire::Ssl.clause(), " REQUIRE SSL");
        assert_eq!(TlsRequire::None.clause(), "");
    }
}
