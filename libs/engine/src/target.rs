//! Which warehouse `--warehouse` / `--target` / `STRATA_WAREHOUSE` names,
//! parsed once: a DuckDB path, a PostgreSQL URL with its password, or a
//! Spark Connect URL with its token, each secret held apart from anything
//! that is ever shown. Each engine reads its own URL form
//! (`postgres/url.rs`, `spark/url.rs`); this picks the engine by the form.

use crate::postgres::PgTarget;
use crate::spark::SparkTarget;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_picks_postgres_or_spark_and_a_path_duckdb() {
        assert!(
            matches!(Target::parse("wh.duckdb", None), Ok(Target::DuckDb(p)) if p == "wh.duckdb")
        );
        assert!(matches!(
            Target::parse("dir/x:y.duckdb", None),
            Ok(Target::DuckDb(_))
        ));
        assert!(matches!(
            Target::parse("postgresql://u@h/d", None),
            Ok(Target::Postgres(_))
        ));
        assert!(matches!(
            Target::parse("sc://h", None),
            Ok(Target::Spark(_))
        ));
        assert!(matches!(
            Target::parse("mysql://u@h/d", None),
            Err(Failure::Usage(m)) if m.contains("'mysql://'")
        ));
    }
}
