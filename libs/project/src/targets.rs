//! `[targets.NAME]`: named warehouses (`--target NAME`).

use serde::Deserialize;

/// A `[targets.NAME]` table: a warehouse and where its secret comes from.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct TargetConfig {
    /// A DuckDB path (relative to the project file), a `postgres://` URL or
    /// an `sc://` (Spark Connect) URL.
    pub url: String,
    /// The environment variable holding the password (PostgreSQL).
    pub password_env: Option<String>,
    /// The environment variable holding the bearer token (Spark Connect).
    pub token_env: Option<String>,
}
