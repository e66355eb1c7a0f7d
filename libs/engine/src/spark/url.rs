//! A Spark Connect URL: `sc://host[:port][/;key=value;...][?schema=db]`,
//! as Spark's own clients read it, plus strata's `schema`.

use crate::url::{percent_decode, secret_from_env, unescape};
use crate::Failure;

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

impl SparkTarget {
    /// `sc://host[:port][/;key=value;...][?schema=db]`, as Spark Connect
    /// clients read it (keys `token`, `user_id`, `use_ssl`, `session_id`;
    /// others, such as `user_agent`, are ignored), plus strata's `schema`.
    pub(crate) fn parse(url: &str, token_env: Option<&str>) -> Result<SparkTarget, Failure> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sc(url: &str) -> SparkTarget {
        match SparkTarget::parse(url, None) {
            Ok(sc) => sc,
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
            match SparkTarget::parse(url, None) {
                Err(Failure::Usage(m)) => assert!(m.contains(says), "{url}: {m}"),
                other => panic!("{url}: {other:?}"),
            }
        }
        match SparkTarget::parse("sc://h/;token=hunter2;use_ssl=maybe", None) {
            Err(Failure::Usage(m)) => {
                assert!(!m.contains("hunter2") && m.contains("token=***"), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
}
