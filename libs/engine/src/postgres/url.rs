//! A PostgreSQL warehouse's URL: `postgres://user[:password]@host[:port]/db`
//! with libpq's `sslmode` / `sslrootcert` and strata's `schema`.

use std::str::FromStr;

use super::tls::{SslMode, Tls};
use crate::url::{percent_decode, redact, secret_from_env};
use crate::Failure;

/// A parsed `postgres://` URL.
#[derive(Clone)]
pub struct PgTarget {
    /// What the driver connects with (password included).
    pub config: postgres::Config,
    /// The schema every relation is read from and written to.
    pub schema: String,
    /// The URL as messages show it: no password, ever.
    pub shown: String,
    /// `sslmode` and `sslrootcert`.
    pub tls: Tls,
}

impl std::fmt::Debug for PgTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PgTarget({})", self.shown)
    }
}

impl PgTarget {
    pub(crate) fn parse(url: &str, password_env: Option<&str>) -> Result<PgTarget, Failure> {
        // `schema` is ours, not libpq's: take it out before the driver
        // parses the rest.
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut schema = None;
        let mut tls = Tls {
            mode: SslMode::Prefer,
            root_cert: None,
        };
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("schema", value)) => schema = Some(percent_decode(value)),
                // TLS is ours too: the driver knows neither `verify-*` nor
                // `sslrootcert`.
                Some(("sslmode", value)) => {
                    tls.mode = SslMode::parse(value).ok_or_else(|| {
                        Failure::Usage(format!(
                            "sslmode={value}: expected disable, allow, prefer, require, verify-ca or verify-full"
                        ))
                    })?;
                }
                Some(("sslrootcert", value)) => tls.root_cert = Some(percent_decode(value)),
                Some((key @ ("sslcert" | "sslkey" | "sslpassword"), _)) => {
                    return Err(Failure::Usage(format!(
                        "{key}: client certificates are not supported yet; authenticate with a password (PGPASSWORD or password-env)"
                    )));
                }
                _ => kept.push(pair),
            }
        }
        let driver_url = if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        let mut config = postgres::Config::from_str(&driver_url).map_err(|e| {
            Failure::Usage(format!(
                "the warehouse URL {} cannot be used: {e}",
                redact(url)
            ))
        })?;
        if config.get_user().is_none() {
            let user = std::env::var("PGUSER")
                .or_else(|_| std::env::var("USER"))
                .unwrap_or_else(|_| "postgres".into());
            config.user(&user);
        }
        if config.get_hosts().is_empty() {
            config.host("localhost");
        }
        if config.get_password().is_none() {
            let password = match password_env {
                Some(var) => Some(secret_from_env(var, "password-env")?),
                None => std::env::var("PGPASSWORD").ok(),
            };
            if let Some(p) = password {
                config.password(p);
            }
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(std::time::Duration::from_secs(10));
        }
        config.ssl_mode(tls.mode.driver());
        if config.get_application_name().is_none() {
            config.application_name("strata");
        }
        let schema = schema.unwrap_or_else(|| "public".into());
        let shown = shown(&config, &schema);
        Ok(PgTarget {
            config,
            schema,
            shown,
            tls,
        })
    }
}

/// `postgres://user@host:port/db?schema=s`, from what was parsed.
fn shown(config: &postgres::Config, schema: &str) -> String {
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("");
    let db = config.get_dbname().unwrap_or(user);
    format!("postgres://{user}@{host}:{port}/{db}?schema={schema}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg(url: &str) -> PgTarget {
        match PgTarget::parse(url, None) {
            Ok(pg) => pg,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_postgres_url_gives_its_schema_password_and_shown_form() {
        let t = pg("postgresql://analytics:s3cr%40t@db.internal:6432/warehouse?schema=marts&sslmode=disable");
        assert_eq!(t.schema, "marts");
        assert_eq!(
            t.shown,
            "postgres://analytics@db.internal:6432/warehouse?schema=marts"
        );
        assert_eq!(t.config.get_password(), Some(&b"s3cr@t"[..]));
        assert_eq!(pg("postgres://u@h/d").schema, "public");
    }

    #[test]
    fn sslmode_and_sslrootcert_are_read_like_libpq() {
        for key in ["sslcert", "sslkey"] {
            let refused = PgTarget::parse(&format!("postgres://u@h/d?{key}=%2Fx.pem"), None);
            assert!(
                matches!(&refused, Err(Failure::Usage(m)) if m.contains("client certificates are not supported")),
                "{key}"
            );
        }
        assert_eq!(pg("postgres://u@h/d").tls.mode, SslMode::Prefer);
        let t = pg("postgres://u@h/d?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&schema=s");
        assert_eq!(t.tls.mode, SslMode::VerifyFull);
        assert_eq!(t.tls.root_cert.as_deref(), Some("/etc/ca.pem"));
        assert_eq!(t.schema, "s");
        assert_eq!(
            pg("postgres://u@h/d?sslmode=allow").tls.mode,
            SslMode::Prefer
        );
        assert!(matches!(
            PgTarget::parse("postgres://u@h/d?sslmode=verify", None),
            Err(Failure::Usage(m)) if m.contains("verify-full")
        ));
    }

    #[test]
    fn the_password_is_never_shown() {
        let t = pg("postgres://me:hunter2@h:5/d");
        assert!(!format!("{:?} {}", t, t.shown).contains("hunter2"));
        assert_eq!(
            redact("postgres://me:hunter2@h:5/d?x=1"),
            "postgres://me:***@h:5/d?x=1"
        );
        assert_eq!(redact("postgres://me@h/d"), "postgres://me@h/d");
        match PgTarget::parse("postgres://me:hunter2@h:notaport/d", None) {
            Err(Failure::Usage(m)) => {
                assert!(!m.contains("hunter2") && m.contains("me:***@"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
}
