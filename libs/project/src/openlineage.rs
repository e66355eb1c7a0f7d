//! `[openlineage]`: where `run` sends OpenLineage events by default.

use std::path::Path;

use serde::Deserialize;

use crate::ConfigError;

/// The `[openlineage]` table: one of `url` (an `http(s)://` endpoint) or
/// `file` (JSON lines appended; relative to the project file).
#[derive(Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OpenLineageConfig {
    pub url: Option<String>,
    pub file: Option<String>,
    /// The environment variable holding the API key (sent as a bearer
    /// token; never printed).
    pub api_key_env: Option<String>,
    /// The jobs' namespace (default `strata`).
    pub namespace: Option<String>,
}

impl OpenLineageConfig {
    pub(crate) fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        if self.url.is_some() == self.file.is_some() {
            return Err(ConfigError::Invalid(format!(
                "invalid {}: [openlineage] needs exactly one of url (an http(s):// endpoint) or file (JSON lines)",
                path.display()
            )));
        }
        Ok(())
    }
}
