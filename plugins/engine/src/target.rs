//! Which warehouse `--warehouse` / `--target` / `STRATA_WAREHOUSE` names,
//! parsed once: a DuckDB path, a PostgreSQL URL with its password, or a
//! Spark Connect URL with its token, each secret held apart from anything
//! that is ever shown.

use std::str::FromStr;

use super::tls::{SslMode, Tls};
use crate::Failure;

/// A warehouse to open.
#[derive(Clone, Debug)]
pub enum Target {
    /// An embedded DuckDB file (or `:memory:`).
    DuckDb(String),
    /// A PostgreSQL server.
    Postgres(Box<PgTarget>),
    /// A Spark Connect server.
    Spark(Box<SparkTarget>),
}

/// A parsed `sc://host:port/;token=...;user_id=...?schema=db` URL.
#[derive(Clone)]
pub struct SparkTarget {
    pub host: String,
    pub port: u16,
    /// Sent as `authorization: Bearer ...`; never shown.
    pub token: Option<String>,
    pub user_id: String,
    /// The Spark Connect session (a UUID, `session_id=` or a fresh one).
    pub session_id: String,
    /// TLS: `use_ssl=true`, or implied by a token (as Spark's clients do).
    pub tls: bool,
    /// The database (schema) every relation is read from and written to.
    pub schema: String,
    /// The URL as messages show it: no token, ever.
    pub shown: String,
}

impl std::fmt::Debug for SparkTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SparkTarget({})", self.shown)
    }
}

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

impl Target {
    /// The warehouse as messages show it.
    pub fn shown(&self) -> &str {
        match self {
            Target::DuckDb(path) => path,
            Target::Postgres(pg) => &pg.shown,
            Target::Spark(sc) => &sc.shown,
        }
    }

    /// Parse what names a warehouse. A URL's secret (a PostgreSQL password,
    /// a Spark token) comes from the URL, else the variable `secret_env`
    /// names, else `PGPASSWORD` (PostgreSQL). A scheme strata does not know
    /// is a usage error.
    pub fn parse(text: &str, secret_env: Option<&str>) -> Result<Target, Failure> {
        let Some((scheme, _)) = url_scheme(text) else {
            return Ok(Target::DuckDb(text.to_string()));
        };
        match scheme.to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" => Ok(Target::Postgres(Box::new(PgTarget::parse(
                text,
                secret_env,
            )?))),
            "sc" => Ok(Target::Spark(Box::new(SparkTarget::parse(
                text, secret_env,
            )?))),
            other => Err(Failure::Usage(format!(
                "the warehouse URL has the scheme '{other}://', which strata cannot open; use a DuckDB file path, a postgres:// URL or an sc:// (Spark Connect) URL"
            ))),
        }
    }
}

/// `scheme` and the rest when `text` starts with `scheme://`.
fn url_scheme(text: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then_some((scheme, rest))
}

impl PgTarget {
    fn parse(url: &str, password_env: Option<&str>) -> Result<PgTarget, Failure> {
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

/// The secret in the environment variable `var` (an environment failure
/// when it is not set).
fn secret_from_env(var: &str, what: &str) -> Result<String, Failure> {
    std::env::var(var).map_err(|_| {
        Failure::Environment(format!(
            "the target's {what} names ${var}, which is not set"
        ))
    })
}

impl SparkTarget {
    /// `sc://host[:port][/;key=value;...][?schema=db]`, as Spark Connect
    /// clients read it (keys `token`, `user_id`, `use_ssl`, `session_id`;
    /// others, such as `user_agent`, are ignored), plus strata's `schema`.
    fn parse(url: &str, token_env: Option<&str>) -> Result<SparkTarget, Failure> {
        let bad =
            |why: String| Failure::Usage(format!("the warehouse URL {}: {why}", redact_token(url)));
        let rest = &url[url.find("://").map_or(0, |i| i + 3)..];
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (
                h,
                p.parse::<u16>()
                    .map_err(|_| bad(format!("'{p}' is not a port")))?,
            ),
            None => (authority, 15002),
        };
        if host.is_empty() {
            return Err(bad("it names no host".into()));
        }
        let mut target = SparkTarget {
            host: host.to_string(),
            port,
            token: None,
            user_id: std::env::var("USER").unwrap_or_else(|_| "strata".into()),
            session_id: fresh_session_id(),
            tls: false,
            schema: "default".into(),
            shown: String::new(),
        };
        let mut use_ssl = None;
        for pair in path.split(';').filter(|p| !p.is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("'{}' is not key=value", redact_pair(pair))))?;
            let value = unescape(value, false);
            match key {
                "token" => target.token = Some(value),
                "user_id" => target.user_id = value,
                "session_id" => target.session_id = value,
                "use_ssl" => {
                    use_ssl = Some(match value.as_str() {
                        "true" => true,
                        "false" => false,
                        _ => return Err(bad(format!("use_ssl={value}: expected true or false"))),
                    })
                }
                _ => {}
            }
        }
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("schema", value)) if !value.is_empty() => {
                    target.schema = percent_decode(value)
                }
                _ => {
                    return Err(bad(format!(
                        "'?{pair}': the only query parameter is schema=DATABASE"
                    )))
                }
            }
        }
        if target.token.is_none() {
            if let Some(var) = token_env {
                target.token = Some(secret_from_env(var, "token-env")?);
            }
        }
        target.tls = use_ssl.unwrap_or(target.token.is_some());
        target.shown = format!(
            "sc://{}:{}/?schema={}",
            target.host, target.port, target.schema
        );
        Ok(target)
    }
}

/// A new session id: a version-4 UUID from the clock, the process and a
/// counter (unique per client, which is all Spark asks of it).
pub(crate) fn fresh_session_id() -> String {
    use sha2::{Digest, Sha256};
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seed = format!(
        "{:?} {} {}",
        std::time::SystemTime::now(),
        std::process::id(),
        COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let d = Sha256::digest(seed.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// An `sc://` URL with its token replaced.
fn redact_token(url: &str) -> String {
    url.split(';')
        .map(redact_pair)
        .collect::<Vec<_>>()
        .join(";")
}

fn redact_pair(pair: &str) -> String {
    match pair.split_once('=') {
        Some(("token", _)) => "token=***".into(),
        _ => pair.to_string(),
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

/// A URL with the password of its `user:password@` part replaced.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let Some(at) = authority.rfind('@') else {
        return url.to_string();
    };
    let (userinfo, host) = authority.split_at(at);
    let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
    let masked = if user.len() < userinfo.len() {
        ":***"
    } else {
        ""
    };
    format!("{scheme}://{user}{masked}{host}{tail}")
}

/// `%XX` escapes decoded, and `+` as a space (a query string's form
/// encoding; not in a Spark Connect parameter, where a token may hold `+`).
fn percent_decode(text: &str) -> String {
    unescape(text, true)
}

fn unescape(text: &str, plus_is_space: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b'+', ..) if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            (b, ..) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg(url: &str) -> PgTarget {
        match Target::parse(url, None) {
            Ok(Target::Postgres(pg)) => *pg,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_url_picks_postgres_and_a_path_duckdb() {
        assert!(
            matches!(Target::parse("wh.duckdb", None), Ok(Target::DuckDb(p)) if p == "wh.duckdb")
        );
        assert!(matches!(
            Target::parse("dir/x:y.duckdb", None),
            Ok(Target::DuckDb(_))
        ));
        let t = pg("postgresql://analytics:s3cr%40t@db.internal:6432/warehouse?schema=marts&sslmode=disable");
        assert_eq!(t.schema, "marts");
        assert_eq!(
            t.shown,
            "postgres://analytics@db.internal:6432/warehouse?schema=marts"
        );
        assert_eq!(t.config.get_password(), Some(&b"s3cr@t"[..]));
        assert_eq!(pg("postgres://u@h/d").schema, "public");
        assert!(matches!(
            Target::parse("mysql://u@h/d", None),
            Err(Failure::Usage(m)) if m.contains("'mysql://'")
        ));
    }

    #[test]
    fn sslmode_and_sslrootcert_are_read_like_libpq() {
        for key in ["sslcert", "sslkey"] {
            let refused = Target::parse(&format!("postgres://u@h/d?{key}=%2Fx.pem"), None);
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
            Target::parse("postgres://u@h/d?sslmode=verify", None),
            Err(Failure::Usage(m)) if m.contains("verify-full")
        ));
    }

    fn sc(url: &str) -> SparkTarget {
        match Target::parse(url, None) {
            Ok(Target::Spark(sc)) => *sc,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn spark_connect_urls_are_read_as_spark_defines_them() {
        let t =
            sc("sc://spark.internal:15003/;token=s3cr%3Bt+;user_id=ana;use_ssl=false?schema=marts");
        assert_eq!((t.host.as_str(), t.port), ("spark.internal", 15003));
        assert_eq!(t.token.as_deref(), Some("s3cr;t+"));
        assert_eq!(t.user_id, "ana");
        assert!(!t.tls);
        assert_eq!(t.schema, "marts");
        assert_eq!(t.shown, "sc://spark.internal:15003/?schema=marts");
        assert!(!format!("{t:?}").contains("s3cr"));
        let plain = sc("sc://localhost");
        assert_eq!(
            (plain.port, plain.tls, plain.schema.as_str()),
            (15002, false, "default")
        );
        assert_eq!(plain.session_id.len(), 36);
        assert_ne!(plain.session_id, sc("sc://localhost").session_id);
        // A token implies TLS, as in Spark's own clients.
        assert!(sc("sc://h/;token=x").tls);
        for (url, says) in [
            ("sc://h:port", "'port' is not a port"),
            ("sc:///;token=x", "no host"),
            ("sc://h/;token", "not key=value"),
            ("sc://h/;use_ssl=yes", "expected true or false"),
            ("sc://h/?db=x", "schema=DATABASE"),
        ] {
            match Target::parse(url, None) {
                Err(Failure::Usage(m)) => assert!(m.contains(says), "{url}: {m}"),
                other => panic!("{url}: {other:?}"),
            }
        }
        match Target::parse("sc://h/;token=hunter2;use_ssl=maybe", None) {
            Err(Failure::Usage(m)) => {
                assert!(!m.contains("hunter2") && m.contains("token=***"), "{m}")
            }
            other => panic!("{other:?}"),
        }
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
        match Target::parse("postgres://me:hunter2@h:notaport/d", None) {
            Err(Failure::Usage(m)) => {
                assert!(!m.contains("hunter2") && m.contains("me:***@"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
}
