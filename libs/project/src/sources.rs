//! `[sources.NAME]`: how a run freezes each source it names (a source of no
//! module here is no error: one project file serves many).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::ConfigError;

/// A `[sources.NAME]` table: how a run freezes the source.
#[derive(Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SourceConfig {
    /// The column whose values grow as rows arrive (a monotonic id, a load
    /// timestamp): a run whose older rows are unchanged freezes only the
    /// rows above the last freeze's greatest value.
    pub append_column: Option<String>,
    /// `copy` (the default: exact replay) or `hash` (only the content hash
    /// is kept; the source is read in place, and replay needs it unchanged).
    #[serde(default)]
    pub freeze: Freeze,
}

/// How a source is frozen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Freeze {
    #[default]
    Copy,
    Hash,
}

pub(crate) fn validate(
    sources: &BTreeMap<String, SourceConfig>,
    path: &Path,
) -> Result<(), ConfigError> {
    for (name, source) in sources {
        if source
            .append_column
            .as_deref()
            .is_some_and(|c| c.trim().is_empty())
        {
            return Err(ConfigError::Invalid(format!(
                "invalid {}: [sources.{name}] append-column is empty (name a column, or leave it out)",
                path.display()
            )));
        }
    }
    Ok(())
}
