//! The server's TLS from MariaDB's options: `--ssl-cert` and `--ssl-key` turn it on,
//! `--ssl-ca` makes the server ask clients for certificates, `--tls-version` narrows the
//! versions. Read once at startup: a file that cannot be read, or an option myriad does not
//! implement, stops the start with a message that names it (never a server that silently
//! runs without the TLS it was asked for).

use myriad_protocol::tls::{server_config, TlsConfig, TlsSettings};
use std::path::PathBuf;

/// Options myriad does not implement: starting with one is an error.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "ssl_capath",
        "put the authorities in one PEM file and give it as --ssl-ca",
    ),
    (
        "ssl_cipher",
        "rustls offers its own TLS 1.2 and 1.3 suites (see Ssl_cipher_list)",
    ),
    ("ssl_crl", "certificate revocation lists are not supported"),
    (
        "ssl_crlpath",
        "certificate revocation lists are not supported",
    ),
];

/// The TLS configuration `variables` ask for (None: no TLS), from the last value of each
/// option given.
pub fn from_variables(variables: &[(String, String)]) -> Result<Option<TlsConfig>, String> {
    let value = |name: &str| {
        variables
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    for (name, why) in UNSUPPORTED {
        if value(name).is_some() {
            return Err(format!(
                "--{} is not supported: {why}",
                name.replace('_', "-")
            ));
        }
    }
    let (cert, key) = match (value("ssl_cert"), value("ssl_key")) {
        (None, None) => {
            if value("ssl_ca").is_some() {
                return Err(String::from(
                    "--ssl-ca needs --ssl-cert and --ssl-key (the server's own certificate)",
                ));
            }
            return Ok(None);
        }
        (Some(cert), Some(key)) => (cert, key),
        (Some(_), None) => return Err(String::from("--ssl-cert needs --ssl-key")),
        (None, Some(_)) => return Err(String::from("--ssl-key needs --ssl-cert")),
    };
    let (tls12, tls13) = versions(value("tls_version").as_deref())?;
    let settings = TlsSettings {
        cert: PathBuf::from(cert),
        key: PathBuf::from(key),
        ca: value("ssl_ca").map(PathBuf::from),
        tls12,
        tls13,
    };
    server_config(&settings).map(Some)
}

/// `--tls-version`: which of TLS 1.2 and 1.3 to accept (default both).
fn versions(text: Option<&str>) -> Result<(bool, bool), String> {
    let Some(text) = text else {
        return Ok((true, true));
    };
    let (mut tls12, mut tls13) = (false, false);
    for name in text.split(',').map(str::trim) {
        match name.to_ascii_uppercase().as_str() {
            "TLSV1.2" => tls12 = true,
            "TLSV1.3" => tls13 = true,
            "TLSV1.0" | "TLSV1.1" => {
                return Err(format!(
                    "--tls-version: {name} is not offered (rustls speaks TLSv1.2 and TLSv1.3)"
                ))
            }
            _ => return Err(format!("--tls-version: unknown version '{name}'")),
        }
    }
    if !(tls12 || tls13) {
        return Err(String::from("--tls-version names no version"));
    }
    Ok((tls12, tls13))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn no_certificate_means_no_tls() {
        assert!(from_variables(&vars(&[("port", "3307")]))
            .unwrap()
            .is_none());
    }

    #[test]
    fn incomplete_or_unsupported_options_stop_the_start() {
        for (given, says) in [
            (vec![("ssl_cert", "/c.pem")], "--ssl-cert needs --ssl-key"),
            (vec![("ssl_ca", "/ca.pem")], "--ssl-ca needs --ssl-cert"),
            (
                vec![("ssl_cipher", "AES128-SHA")],
                "--ssl-cipher is not supported",
            ),
            (
                vec![
                    ("ssl_cert", "/c"),
                    ("ssl_key", "/k"),
                    ("tls_version", "TLSv1.1"),
                ],
                "TLSv1.1 is not offered",
            ),
            (
                vec![("ssl_cert", "/nonexistent.pem"), ("ssl_key", "/k")],
                "ssl_cert /nonexistent.pem",
            ),
        ] {
            let err = from_variables(&vars(&given)).unwrap_err();
            assert!(err.contains(says), "{given:?}: {err}");
        }
    }

    #[test]
    fn versions_are_read_as_mariadb_writes_them() {
        assert_eq!(versions(None).unwrap(), (true, true));
        assert_eq!(versions(Some("TLSv1.3")).unwrap(), (false, true));
        assert_eq!(versions(Some("tlsv1.2, TLSv1.3")).unwrap(), (true, true));
        assert!(versions(Some("SSLv3")).is_err());
    }
}
