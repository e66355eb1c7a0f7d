//! `[run]`: how `strata run` checks joins and what it rebuilds.

use std::path::Path;

use serde::Deserialize;

use crate::ConfigError;

/// The `[run]` table as written (read into
/// [`ProjectConfig::cardinality_sample_rows`](crate::ProjectConfig::cardinality_sample_rows)
/// and [`ProjectConfig::only_stale`](crate::ProjectConfig::only_stale)).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawRun {
    pub(crate) cardinality_sample_rows: Option<u64>,
    pub(crate) only_stale: Option<bool>,
}

impl RawRun {
    pub(crate) fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        if self.cardinality_sample_rows == Some(0) {
            return Err(ConfigError::Invalid(format!(
                "invalid {}: [run] cardinality-sample-rows must be at least 1 (a number of rows; leave it out for exact checks)",
                path.display()
            )));
        }
        Ok(())
    }
}
