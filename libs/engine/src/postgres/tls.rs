//! TLS to PostgreSQL, as libpq's `sslmode` asks (rustls, ring provider):
//!
//! * `disable`: plain TCP;
//! * `allow`, `prefer` (the default): TLS when the server offers it, the
//!   certificate not verified;
//! * `require`: TLS or fail; the certificate not verified, unless a root
//!   certificate is given (`sslrootcert=`, or `~/.postgresql/root.crt`
//!   exists): then its chain is verified, as libpq does;
//! * `verify-ca`: the chain must lead to a trusted root;
//! * `verify-full`: that, and the certificate names the host.
//!
//! Trusted roots: the `sslrootcert=` file, else `~/.postgresql/root.crt`,
//! else the system's store (`sslrootcert=system` names it explicitly).

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};

use crate::Failure;

/// How much of the server's certificate is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    /// libpq's names (`allow` behaves as `prefer`).
    pub fn parse(text: &str) -> Option<SslMode> {
        Some(match text {
            "disable" => SslMode::Disable,
            "allow" | "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    /// What the driver negotiates.
    pub fn driver(self) -> postgres::config::SslMode {
        match self {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            _ => postgres::config::SslMode::Require,
        }
    }
}

/// The TLS settings of a connection.
#[derive(Clone, Debug)]
pub struct Tls {
    pub mode: SslMode,
    /// `sslrootcert=`: a PEM file of trusted roots, or `system`.
    pub root_cert: Option<String>,
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

impl Tls {
    /// The connector for the driver.
    pub fn connector(&self) -> Result<tokio_postgres_rustls::MakeRustlsConnect, Failure> {
        let builder = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| Failure::Environment(format!("TLS: {e}")))?;
        let default_root = std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".postgresql/root.crt"))
            .filter(|p| p.is_file());
        let roots = match (&self.root_cert, self.mode) {
            (_, SslMode::Disable | SslMode::Prefer) => None,
            (Some(r), _) => Some(roots(Some(r))?),
            (None, SslMode::Require) => match &default_root {
                Some(p) => Some(roots(Some(&p.display().to_string()))?),
                None => None,
            },
            (None, _) => Some(roots(
                default_root.map(|p| p.display().to_string()).as_deref(),
            )?),
        };
        let verifier: Arc<dyn ServerCertVerifier> = match roots {
            None => Arc::new(Unverified(provider())),
            Some(roots) => {
                let webpki =
                    WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider())
                        .build()
                        .map_err(|e| Failure::Environment(format!("TLS: {e}")))?;
                if self.mode == SslMode::VerifyFull {
                    webpki
                } else {
                    Arc::new(AnyName(webpki))
                }
            }
        };
        let config = builder
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
    }
}

/// The trusted roots: a PEM file, or the system's store (`None`, `system`).
fn roots(file: Option<&str>) -> Result<RootCertStore, Failure> {
    let mut store = RootCertStore::empty();
    match file {
        Some(path) if path != "system" => {
            let certs = CertificateDer::pem_file_iter(path)
                .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                .map_err(|e| {
                    Failure::Environment(format!("cannot read sslrootcert {path}: {e}"))
                })?;
            let (added, _) = store.add_parsable_certificates(certs);
            if added == 0 {
                return Err(Failure::Environment(format!(
                    "sslrootcert {path} holds no certificate"
                )));
            }
        }
        _ => {
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
            if store.is_empty() {
                return Err(Failure::Environment(
                    "no trusted root certificates: the system has none; name a file with sslrootcert=".into(),
                ));
            }
        }
    }
    Ok(store)
}

/// `verify-ca` (and `require` with a root): the chain is verified, the
/// name the certificate carries is not.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` / `require` without a root: encrypted, the certificate taken
/// as it comes (libpq's behaviour); the handshake's signatures are still
/// checked.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
